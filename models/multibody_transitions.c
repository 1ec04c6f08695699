/* multibody_transitions.c - the events of the multibody model
 * (multibody_impl.h): what a fired guard, an input discontinuity or the
 * start does, in order: impacts and bounces off rigid stops, the
 * contacts' decision (multibody_decisions.c), stops let go or kept
 * closed, bodies held together put at one velocity, and the events
 * recorded, one per contact or stop that changed. */
#include "models/multibody_impl.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "physics/contact.h"
#include "physics/end_stop.h"
#include "physics/modes.h"

/* A rigid stop let go at its limit at zero relative speed has its ends
 * moved apart by this many ulps of their positions (at least one position
 * tolerance; see open_touch). */
#define PART_ULPS 16.0

/* Labels of the clusters the closed rigid stops of m->next (but `skip`)
 * form: the bodies an impulse reaches (finite friction carries none). */
static void rigid_clusters(stsl_multibody *m, int skip)
{
    prepared *p = &m->cand;
    p->n_edges = 0;
    for (int k = 0; k < m->ns; k++)
        if (k != skip && is_rigid(m, k) && m->next[m->nc + k] != STSL_SM_OPEN)
            memcpy(p->edges[p->n_edges++], m->snode[k], sizeof m->snode[k]);
    double zero[N_FIXED] = {0, 0, 0};
    stsl_cstr_problem pr = {
        m->nb, m->mass, m->force, N_FIXED, zero, p->n_edges, (const int(*)[2])p->edges};
    stsl_cstr_components(m->ws, &pr, m->label);
}

/* Mass of the cluster with `label` (INFINITY when a fixed end is in it). */
static double cluster_mass(const stsl_multibody *m, int label)
{
    double sum = 0.0;
    for (int f = 0; f < N_FIXED; f++)
        if (m->label[m->nb + f] == label) return INFINITY;
    for (int i = 0; i < m->nb; i++)
        if (m->label[i] == label) sum += m->mass[i];
    return sum;
}

/* Add dv to the velocity (dx to the position) of every body with `label`. */
static void shift_cluster(stsl_multibody *m, int label, double dx, double dv, double *y)
{
    for (int i = 0; i < m->nb; i++)
        if (m->label[i] == label) {
            y[i] += dx;
            y[m->nb + i] += dv;
            m->affected[i] = 1;
            m->kicked[i] |= dv != 0.0;
        }
}

/* Change the relative position and velocity of pair (ends[0] minus
 * ends[1]) by dx, dw, momentum conserved: Newton's law of impact between
 * the rigid clusters of the two ends (dv_i = dw m_j / (m_i + m_j)); a side
 * held by a fixed end does not move. */
static void pair_jump(stsl_multibody *m, const int *pair, double dx, double dw, double *y)
{
    int li = m->label[pair[0]], lj = m->label[pair[1]];
    double mi = cluster_mass(m, li), mj = cluster_mass(m, lj);
    if (isinf(mi) && isinf(mj)) return;
    double fi = stsl_impact_share(mi, mj);
    shift_cluster(m, li, fi * dx, fi * dw, y);
    if (pair[1] < m->nb) shift_cluster(m, lj, -(1.0 - fi) * dx, -(1.0 - fi) * dw, y);
}

/* The velocity change of `node` when pair's relative velocity jumps by dw
 * (pair_jump's, with the clusters in m->label). */
static double jump_dv(const stsl_multibody *m, const int *pair, double dw, int node)
{
    if (node >= m->nb) return 0.0; /* ground, base, anchor: prescribed */
    int li = m->label[pair[0]], lj = m->label[pair[1]];
    double mi = cluster_mass(m, li), mj = cluster_mass(m, lj);
    if (isinf(mi) && isinf(mj)) return 0.0;
    double fi = stsl_impact_share(mi, mj);
    if (m->label[node] == li) return fi * dw;
    if (pair[1] < m->nb && m->label[node] == lj) return -(1.0 - fi) * dw;
    return 0.0;
}

/* A closed rigid stop can only push: it carries an impact's impulse only
 * when the impulse presses its ends together.  Before stop k's impact
 * (its ends' relative velocity jumping by dw), every other closed rigid
 * stop that the jump would move apart were it open lets go (in m->next),
 * until none does: a body resting on the ground's stop and hit from below
 * by a stop on the rising base leaves the ground with the base's kick.
 * (Held as "a side held by a fixed end does not move", the body stayed on
 * the ground while the base's rigid stop ran through it, exit 0; with a
 * rebound the impact repeated at one instant until "Zeno behaviour".)
 * One opened stop at a time, each judged with the others as they stand. */
static void open_parting_stops(stsl_multibody *m, int k, double dw)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (int j = 0; j < m->ns; j++) {
            int st = m->next[m->nc + j];
            if (j == k || !is_rigid(m, j) || st == STSL_SM_OPEN) continue;
            m->next[m->nc + j] = STSL_SM_OPEN;
            rigid_clusters(m, k);
            double dwj = jump_dv(m, m->snode[k], dw, m->snode[j][0]) -
                         jump_dv(m, m->snode[k], dw, m->snode[j][1]);
            if ((st == STSL_SM_HIGH ? dwj < 0.0 : dwj > 0.0)) { /* parting: it lets go */
                changed = 1;
                continue;
            }
            m->next[m->nc + j] = (uint8_t)st;
        }
    }
}

/* The relative acceleration of stop k's ends at (t, y) with it open and
 * its ends moving apart in direction wdir (+1, -1) at low speed: the
 * friction of the contacts parallel to it opposes that motion (the
 * element's a_up and a_down of a rebound). */
static double open_rel_acc(stsl_multibody *m, int k, int wdir, const fixed_motion *fm, double t,
                           const double *y)
{
    memcpy(m->cur_keep, m->next, (size_t)m->L);
    m->next[m->nc + k] = STSL_SM_OPEN;
    for (int c = 0; c < m->nc; c++)
        if (m->next[c] != STSL_CONTACT_SMOOTH && same_pair(m, m->snode[k], m->cnode[c]))
            m->next[c] = (uint8_t)stsl_contact_slip_state(
                canon(m, m->snode[k][0]) == canon(m, m->cnode[c][0]) ? wdir : -wdir);
    stsl_mb_prepare_vec(m, m->next, &m->cand);
    double a = NAN;
    if (!stsl_mb_solve(m, &m->cand, fm, t, y, NULL, NULL))
        a = node_a(m, fm, m->acc, m->snode[k][0]) - node_a(m, fm, m->acc, m->snode[k][1]);
    memcpy(m->next, m->cur_keep, (size_t)m->L);
    return a;
}

/* Rigid stop k reached at `side` (rel. velocity w towards it): the ends
 * are put on the limit and rebound with -e w (Newton), or rest on it when
 * the rebound would rise less than what the tolerances resolve. */
static void impact(stsl_multibody *m, int k, int side, const fixed_motion *fm, double t, double *y)
{
    const stsl_system_stop *st = &m->s->stops[k];
    double limit = side > 0 ? st->p.x_max : st->p.x_min;
    double w = rel_v(m, fm, y, m->snode[k]);
    /* its speed in units of what the integration resolves in the ends'
     * velocities (rtol of each, or the velocity tolerance); 0 when they
     * are not closing: a gap reached through the positions' integration
     * error (rtol of the positions, above open_touch's parting) just after
     * the stop let go at zero speed, while the ends part (4.5e-11 m/s 38
     * ps later: an impact in one order of the file, none in the other), is
     * no impact, as a touch at zero speed is none */
    double va = fabs(node_v(m, fm, y, m->snode[k][0])), vb = fabs(node_v(m, fm, y, m->snode[k][1]));
    m->impact_w[k] =
        side * w > 0.0 ? fabs(w) / (m->vtol + ZERO_SPEED_TOLS * m->rtol * fmax(va, vb)) : 0.0;
    if (side * w > 0.0) open_parting_stops(m, k, -w);
    rigid_clusters(m, k);
    pair_jump(m, m->snode[k], limit - rel_x(m, fm, y, m->snode[k]), 0.0, y);
    int rests = 1, kind = STSL_EV_STOP_CONTACT;
    if (side * w > 0.0) {
        pair_jump(m, m->snode[k], 0.0, -w, y); /* w = 0, then the rebound */
        double a_up = side * open_rel_acc(m, k, -side, fm, t, y), e = st->p.restitution;
        double a_down = side * open_rel_acc(m, k, side, fm, t, y);
        stsl_contact_impact im;
        stsl_contact_impact_at(t, w, e, a_up, a_down,
                               stsl_contact_min_height(m->rtol, limit, m->atol_x), &im);
        rests = im.rests;
        rigid_clusters(m, k);
        pair_jump(m, m->snode[k], 0.0, im.v_plus, y);
        kind = im.kind; /* with bounces left out: stop_contact when they end */
        if (im.pending) m->settle_at[k] = im.settle_at;
    }
    m->next[m->nc + k] = rests ? (side > 0 ? STSL_SM_HIGH : STSL_SM_LOW) : STSL_SM_OPEN;
    push_event(m, kind, 1 + m->nc + k);
}

/* Stops at the initial state: against a rigid limit moving in, an impact;
 * at rest on it, closed (released below if it pulls); a compliant one in
 * contact when penetrating and moving in or pushed out. */
static void initial_stops(stsl_multibody *m, const fixed_motion *fm, double t, double *y)
{
    for (int k = 0; k < m->ns; k++) {
        const stsl_stop_params *sp = &m->s->stops[k].p;
        double xr = rel_x(m, fm, y, m->snode[k]), w = rel_v(m, fm, y, m->snode[k]);
        int side = stsl_end_stop_side(sp, xr);
        if (!is_rigid(m, k)) {
            for (int sd = -1; sd <= 1; sd += 2)
                if (stsl_end_stop_in_contact(m->stop_ops[k], sp, sd, xr, w))
                    m->next[m->nc + k] = sd > 0 ? STSL_SM_HIGH : STSL_SM_LOW;
        } else if (side && side * w > 0.0) {
            impact(m, k, side, fm, t, y);
        } else if (side && w == 0.0) {
            m->next[m->nc + k] = side > 0 ? STSL_SM_HIGH : STSL_SM_LOW;
        }
    }
}

/* A fired guard of the mode before the event. */
static void on_guard(stsl_multibody *m, const guard_ref *g, const fixed_motion *fm, double t,
                     double *y)
{
    const int *pair = g->type >= G_GAP ? m->snode[g->index] : m->cnode[g->index];
    int moves = g->type != G_LOAD; /* a load reversal changes no state */
    int *mark[2] = {m->affected, g->type >= G_GAP ? m->hit : m->affected};
    for (int k = 0; k < 2 * moves; k++) {
        mark[k][pair[0]] = 1;
        if (pair[1] < m->nb) mark[k][pair[1]] = 1;
    }
    switch (g->type) {
    case G_LOAD: /* the same states, the other level branch: a restart */
        push_event(m, STSL_EV_LOAD_REVERSAL, 1 + g->index);
        break;
    case G_SLIP:
    case G_BAND_POS:
    case G_BAND_NEG:
        m->jflag[g->index] = J_FIRED;
        break;
    case G_GAP:
        impact(m, g->index, g->side, fm, t, y);
        break;
    case G_REACTION: /* the stop would pull: it lets go */
        m->next[m->nc + g->index] = STSL_SM_OPEN;
        break;
    case G_COMPLIANT:
        m->next[m->nc + g->index] = m->cur[m->nc + g->index] != STSL_SM_OPEN ? STSL_SM_OPEN
                                    : g->side > 0                            ? STSL_SM_HIGH
                                                                             : STSL_SM_LOW;
        break;
    }
}

/* The relative accelerations of the contacts in the mode before the
 * event, at the event (into m->wacc); 0 when the mode cannot be solved. */
static void slip_rates(stsl_multibody *m, const fixed_motion *fm, double t, const double *y)
{
    stsl_mb_prepare_vec(m, m->cur, &m->cand);
    m->no_split = 1;
    int bad = stsl_mb_solve(m, &m->cand, fm, t, y, NULL, NULL) != 0;
    m->no_split = 0;
    for (int c = 0; c < m->nc; c++)
        m->wacc[c] =
            bad ? 0.0
                : node_a(m, fm, m->acc, m->cnode[c][0]) - node_a(m, fm, m->acc, m->cnode[c][1]);
}

/* Closed rigid stops whose reaction would pull (beyond rounding) let go;
 * returns how many did. */
/* Stop k's pull just after t when it is within rounding at t (a stop
 * that closes at zero speed just where it is pulled off again, or let go
 * an instant before): as consistent() judges a margin, at the first
 * instant after t where it stands clear, the state moved on with the
 * mode's accelerations at t (m->acc); 0 when none is clear.  Without it
 * such a stop stays closed with its release guard starting on the wrong
 * side of zero, and holds a pull beyond its contacts' static levels. */
static double pull_later(stsl_multibody *m, int k, double t, const double *y, stsl_error *err)
{
    int n = m->nb;
    for (int i = 0; i < n; i++)
        m->rate[i] = m->acc[i];
    double horizon = stsl_mb_lookahead(m, t);
    for (double tau = stsl_contact_lookahead_start(t); tau <= horizon; tau *= 2.0) {
        for (int i = 0; i < n; i++) {
            m->y_look[i] = y[i] + tau * y[n + i] + 0.5 * tau * tau * m->rate[i];
            m->y_look[n + i] = y[n + i] + tau * m->rate[i];
        }
        fixed_motion fl;
        eval_fixed(m, t + tau, &fl);
        double scale;
        if (stsl_mb_solve(m, &m->cand, &fl, t + tau, m->y_look, &scale, err)) return 0.0;
        double pull = stsl_mb_stop_pull(m, &m->cand, k, &fl);
        if (fabs(pull) > stsl_contact_noise(scale)) return pull;
    }
    return 0.0;
}

static int release_pulling(stsl_multibody *m, const fixed_motion *fm, double t, const double *y,
                           stsl_error *err)
{
    stsl_mb_prepare_vec(m, m->next, &m->cand);
    double scale;
    if (stsl_mb_solve(m, &m->cand, fm, t, y, &scale, err) < 0) return -1;
    double noise = stsl_contact_noise(scale);
    int n = 0;
    for (int k = 0; k < m->ns; k++) {
        int st = m->next[m->nc + k];
        if (!is_rigid(m, k) || st == STSL_SM_OPEN) continue;
        double pull = stsl_mb_stop_pull(m, &m->cand, k, fm);
        int release = pull > noise;
        if (fabs(pull) <= noise) {
            release = pull_later(m, k, t, y, err) > 0.0;
            if (stsl_mb_solve(m, &m->cand, fm, t, y, &scale, err) < 0) return -1; /* back to t */
        }
        if (release) {
            m->next[m->nc + k] = STSL_SM_OPEN;
            m->affected[m->snode[k][0]] = m->hit[m->snode[k][0]] = 1;
            if (m->snode[k][1] < m->nb) m->affected[m->snode[k][1]] = m->hit[m->snode[k][1]] = 1;
            n++;
        }
    }
    return n;
}

/* A rigid stop left open at its limit while a stuck contact parallel to it
 * holds its ends together (the stop let go, and then the contact was
 * decided stuck: the forces changed with the other contacts' decisions)
 * stays closed: SPEC §4, a stop at its limit with zero reaction and zero
 * relative velocity is closed, not a second combination.  Left open, its
 * gap guard would sit at zero and cross by rounding alone, an impact
 * without a velocity change some time later, or never: the order of the
 * file decided which.  "At its limit": within 100 position tolerances. */
static void close_held_stops(stsl_multibody *m, const fixed_motion *fm, const double *y)
{
    for (int k = 0; k < m->ns; k++) {
        if (!is_rigid(m, k) || m->next[m->nc + k] != STSL_SM_OPEN) continue;
        int held = 0;
        for (int c = 0; c < m->nc && !held; c++)
            held = m->next[c] == STSL_CONTACT_STUCK && same_pair(m, m->snode[k], m->cnode[c]);
        if (!held) continue;
        const stsl_stop_params *sp = &m->s->stops[k].p;
        double xr = rel_x(m, fm, y, m->snode[k]), tol = ZERO_SPEED_TOLS * m->atol_x;
        if (fabs(xr - sp->x_max) <= tol) m->next[m->nc + k] = STSL_SM_HIGH;
        if (fabs(xr - sp->x_min) <= tol) m->next[m->nc + k] = STSL_SM_LOW;
    }
}

/* The sum of a[0..n), taken in the order of the values (sorted in place):
 * the same bits whatever order the terms come in. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double sorted_sum(double *a, int n)
{
    qsort(a, (size_t)n, sizeof *a, cmp_double);
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

/* The velocity that bodies labelled `label` share: a fixed end's among
 * them (ground, base, anchor in that order), else their momentum over
 * their mass, each summed in the order of the terms' values. */
static double shared_velocity(stsl_multibody *m, const fixed_motion *fm, int label, const double *y)
{
    for (int f = 0; f < N_FIXED; f++)
        if (m->label[m->nb + f] == label) return fm->v[f];
    int n = 0;
    double *mom = m->y_look, *mass = m->rate; /* consistent's scratch, free here */
    for (int j = 0; j < m->nb; j++)
        if (m->label[j] == label) {
            mom[n] = m->mass[j] * y[m->nb + j];
            mass[n++] = m->mass[j];
        }
    double total = sorted_sum(mass, n);
    return sorted_sum(mom, n) / total;
}

/* Every body labelled `label` at the velocity they share. */
static void set_shared_velocity(stsl_multibody *m, const fixed_motion *fm, int label, double *y)
{
    double v = shared_velocity(m, fm, label, y);
    for (int j = 0; j < m->nb; j++)
        if (m->label[j] == label) y[m->nb + j] = v;
}

/* Bodies held together in the new mode move as one: the velocity of the
 * fixed end that holds their cluster, else the momentum-conserving mean
 * (shared_velocity: sums in the order of the values), computed once per
 * cluster from the velocities before any of them is set, so that every
 * member gets the same bits in any order of the file.  Recomputing the
 * mean body by body, over velocities already set, left the members apart
 * by a part of their spread before (3.6e-14 m/s after a stick), by
 * amounts that depended on the order of the bodies; a stuck contact
 * whose ends differ by more than the velocity tolerance at the next input
 * event counts as kicked there and slips the way the rounding points,
 * without a decision (an ambiguous stick, the force between the dynamic
 * and the static level, slipped away 0.07 s before its force reached the
 * static level, in one order of the file only). */
static void common_velocities(stsl_multibody *m, const fixed_motion *fm, double *y)
{
    stsl_mb_prepare_vec(m, m->next, &m->cand);
    stsl_cstr_problem pr = {
        m->nb, m->mass, m->force, N_FIXED, fm->a, m->cand.n_edges, (const int(*)[2])m->cand.edges};
    stsl_cstr_components(m->ws, &pr, m->label);
    int *members = m->lmark; /* per label: its bodies, a fixed end counting as two */
    for (int i = 0; i < m->nb + N_FIXED; i++)
        members[i] = 0;
    for (int i = 0; i < m->nb + N_FIXED; i++)
        members[m->label[i]] += i < m->nb ? 1 : 2;
    for (int i = 0; i < m->nb; i++) {
        int label = m->label[i];
        if (members[label] < 2) continue; /* alone: as it is; or its cluster done */
        set_shared_velocity(m, fm, label, y);
        members[label] = 0;
    }
}

/* A contact decided at w = 0 that slips starts at w = 0 exactly: its
 * velocity guard must start on the mode's side (a w of rounding size on
 * the other side would be outside the mode from the start).  All of them
 * at once: the bodies such contacts join, with the clusters of closed
 * rigid stops, take their common velocity (momentum kept; a fixed end's
 * when it is among them), the mass-weighted projection onto w = 0 of
 * every one.  Zeroing them one after another in the order of the file
 * let a later one undo an earlier one's zero by rounding, differently in
 * another order; here no sum depends on any order. */
static void zero_slips(stsl_multibody *m, const fixed_motion *fm, double *y)
{
    prepared *p = &m->cand;
    int any = 0;
    p->n_edges = 0;
    for (int c = 0; c < m->nc; c++) {
        if (!m->jflag[c] || m->next[c] == STSL_CONTACT_STUCK) continue;
        memcpy(p->edges[p->n_edges++], m->cnode[c], sizeof m->cnode[c]);
        any |= rel_v(m, fm, y, m->cnode[c]) != 0.0;
    }
    if (!any) return;
    for (int k = 0; k < m->ns; k++)
        if (is_rigid(m, k) && m->next[m->nc + k] != STSL_SM_OPEN)
            memcpy(p->edges[p->n_edges++], m->snode[k], sizeof m->snode[k]);
    double zero[N_FIXED] = {0, 0, 0};
    stsl_cstr_problem pr = {
        m->nb, m->mass, m->force, N_FIXED, zero, p->n_edges, (const int(*)[2])p->edges};
    stsl_cstr_components(m->ws, &pr, m->label);
    for (int c = 0; c < m->nc; c++) { /* each group with a w to zero, once */
        if (!m->jflag[c] || m->next[c] == STSL_CONTACT_STUCK) continue;
        if (rel_v(m, fm, y, m->cnode[c]) == 0.0) continue;
        set_shared_velocity(m, fm, m->label[m->cnode[c][0]], y);
    }
}

/* Is contact c parallel to a rigid stop closed in mode vector v?  Then the
 * stop holds the ends together (the element's STOP_* modes): the contact's
 * stick and breakaway are the stop's contact and release. */
static int held_by_stop(const stsl_multibody *m, const uint8_t *v, int c)
{
    for (int k = 0; k < m->ns; k++)
        if (is_rigid(m, k) && v[m->nc + k] != STSL_SM_OPEN &&
            same_pair(m, m->snode[k], m->cnode[c]))
            return 1;
    return 0;
}

static int stop_event(const stsl_multibody *m, int k, int from, int to)
{
    if (from == to) return STSL_NO_EVENT;
    if (!is_rigid(m, k)) return to == STSL_SM_OPEN ? STSL_EV_CONTACT_END : STSL_EV_CONTACT_BEGIN;
    return to == STSL_SM_OPEN ? STSL_EV_STOP_RELEASE : STSL_EV_STOP_CONTACT;
}

/* One event per contact and stop that changed (an impact has recorded
 * its own), contacts first; at an input discontinuity without a change,
 * input_step.  The initial mode is a choice, not a change: no events but
 * impacts. */
static void changes(stsl_multibody *m, stsl_reason why, const int *impacted)
{
    int had = m->n_pend;
    if (why != STSL_REASON_INIT) {
        for (int c = 0; c < m->nc; c++) {
            int kind = stsl_contact_event(m->cur[c], m->next[c]);
            int held = held_by_stop(m, m->cur, c) || held_by_stop(m, m->next, c);
            if ((kind == STSL_EV_STICK || kind == STSL_EV_BREAKAWAY) && held) continue;
            if (kind != STSL_NO_EVENT && !m->jumped[c]) push_event(m, kind, 1 + c);
        }
        for (int k = 0; k < m->ns; k++) {
            int kind = stop_event(m, k, m->cur[m->nc + k], m->next[m->nc + k]);
            if (kind != STSL_NO_EVENT && !impacted[k]) push_event(m, kind, 1 + m->nc + k);
        }
    }
    if (why == STSL_REASON_TIME && m->n_pend == had && had == 0)
        push_event(m, STSL_EV_INPUT_STEP, 0);
}

/* A rigid stop let go at its limit at zero relative speed, or touched at
 * zero speed and let go at once: its ends are moved apart, so that its gap
 * guard starts clearly on the open side.  At the limit it would start at
 * the rounding of the positions' difference, where that rounding alone
 * makes it cross again and again: the ends part with zero relative
 * velocity and an acceleration that is small or zero (static = dynamic
 * level: the gap grows as t^3, under 1e-16 m for microseconds), and each
 * crossing is a touch at a relative speed that grows until it counts as
 * an impact (1.2e-11 m/s 0.5 us after a release: an impact in one order
 * of the file, none in the other).  The move: PART_ULPS ulps of the ends'
 * positions (the difference's rounding is a few), at least one position
 * tolerance; far below the integration's error (rtol of the positions),
 * and the same in every order of the file. */
static void open_touch(stsl_multibody *m, int k, const fixed_motion *fm, double *y)
{
    const stsl_stop_params *sp = &m->s->stops[k].p;
    double xr = rel_x(m, fm, y, m->snode[k]);
    double xa = fabs(node_x(m, fm, y, m->snode[k][0])), xb = fabs(node_x(m, fm, y, m->snode[k][1]));
    double dx = fmax(m->atol_x, PART_ULPS * DBL_EPSILON * fmax(fmax(xa, xb), fabs(xr)));
    int side = fabs(xr - sp->x_max) <= fabs(xr - sp->x_min) ? +1 : -1;
    rigid_clusters(m, -1);
    pair_jump(m, m->snode[k], -side * dx, 0.0, y);
}

/* Rigid stops closed before the event and let go in it at zero relative
 * speed (not by an impact) part as open_touch says. */
static void open_released(stsl_multibody *m, const fixed_motion *fm, double *y)
{
    for (int k = 0; k < m->ns; k++)
        if (is_rigid(m, k) && !m->changed_by_impact[k] && m->cur[m->nc + k] != STSL_SM_OPEN &&
            m->next[m->nc + k] == STSL_SM_OPEN && fabs(rel_v(m, fm, y, m->snode[k])) <= m->vtol)
            open_touch(m, k, fm, y);
}

/* SPEC §1.2 "Velocity zero", the element's rule: a slip that would leave
 * its sign at once is a stick; one that would go on the same way is
 * possible only when w came to zero while the force stood at the level to
 * within rounding (w falls only while the force is below the dynamic
 * level, which is no larger than the static one).  After a slip that
 * started at w = 0 such a return is the integration's noise, not motion:
 * with F_S = F_D a force peaking 1e-7 N above the level slips a free mass
 * by 1e-21 m at 1e-14 m/s, below the velocity's tolerance, so w's guard
 * fires at a rounding-level zero while the force is still past the level;
 * kept slipping, the guard fires again at the restart's first step, and
 * the run stalls.  So a lone contact whose own velocity guard fired, that
 * has slipped since w = 0 and that the choice keeps slipping the same way,
 * sticks (its band guard takes it from there).  Only a contact decided
 * alone at the instant: with others the margins are the consistency's. */
static void stick_rest_slips(stsl_multibody *m, stsl_reason why)
{
    int n_j = 0, c1 = -1;
    for (int c = 0; c < m->nc; c++)
        if (m->jflag[c]) n_j++, c1 = c;
    if (why != STSL_REASON_GUARD || n_j != 1 || m->jflag[c1] != J_FIRED) return;
    int st = m->cur[c1];
    if ((st == STSL_CONTACT_SLIP_POS || st == STSL_CONTACT_SLIP_NEG) && m->next[c1] == st &&
        m->rest_slip[c1])
        m->next[c1] = STSL_CONTACT_STUCK;
}

/* Which contacts slip from w = 0 after the event (stick_rest_slips). */
static void mark_rest_slips(stsl_multibody *m, const fixed_motion *fm, const double *y)
{
    for (int c = 0; c < m->nc; c++) {
        int st = m->next[c];
        m->rest_slip[c] = (st == STSL_CONTACT_SLIP_POS || st == STSL_CONTACT_SLIP_NEG) &&
                          rel_v(m, fm, y, m->cnode[c]) == 0.0;
    }
}

/* A stop let go has no bounces pending.  One let go before the bounces
 * left out at its last impact end (settle_at) has them end here: its
 * stop_contact, then its release (changes).  Where those bounces end is
 * the sum of their flight times from the impact's rebound, and a release
 * guard can fire just before or just after it, within the rounding of
 * the event times, which the bounces before it amplify (1e-13 s to
 * 1e-10 s over twenty bounces of a backlash stop): one order of the file
 * recorded stop_contact at settle_at and the release 1.5e-10 s later,
 * another the release alone.  Now both record the bounces' end, at most
 * that rounding apart. */
static void end_pending_bounces(stsl_multibody *m)
{
    for (int k = 0; k < m->ns; k++) {
        if (m->next[m->nc + k] != STSL_SM_OPEN) continue;
        if (m->settle_at[k] < INFINITY && !m->changed_by_impact[k])
            push_event(m, STSL_EV_STOP_CONTACT, 1 + m->nc + k);
        m->settle_at[k] = INFINITY;
    }
}

/* Everything the event at (t, y) decides, into m->next and y. */
static int decide(stsl_multibody *m, stsl_mode_code mode, stsl_reason why, const int *fired,
                  double t, double *y, stsl_error *err)
{
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    const uint8_t *cv = mode_vec(m, mode);
    if (why == STSL_REASON_INIT || !cv)
        memset(m->cur, STSL_CONTACT_STUCK, (size_t)m->L); /* contacts: stuck, stops: open */
    else
        memcpy(m->cur, cv, (size_t)m->L);
    memcpy(m->next, m->cur, (size_t)m->L);
    for (int i = 0; i < m->nb; i++) {
        m->affected[i] = why == STSL_REASON_TIME;
        m->kicked[i] = m->hit[i] = 0;
    }
    memset(m->jflag, 0, (size_t)m->nc * sizeof(int));
    for (int k = 0; k < m->ns; k++) {
        if (why == STSL_REASON_INIT) m->settle_at[k] = INFINITY;
        if (why == STSL_REASON_TIME && m->settle_at[k] <= t) { /* the bounces have ended */
            m->settle_at[k] = INFINITY;
            push_event(m, STSL_EV_STOP_CONTACT, 1 + m->nc + k);
        }
    }
    if (why == STSL_REASON_INIT) initial_stops(m, &fm, t, y);
    if (why == STSL_REASON_GUARD && fired) {
        const prepared *p = stsl_mb_prepare(m, mode);
        int ng = p ? p->n_guards : 0;
        if (ng) memcpy(m->gfired, p->guards, (size_t)ng * sizeof(guard_ref));
        for (int i = 0; i < ng; i++)
            if (fired[i]) on_guard(m, &m->gfired[i], &fm, t, y);
    }
    for (int k = 0; k < m->ns; k++) { /* an impact recorded its own event */
        m->changed_by_impact[k] = 0;
        for (int e = 0; e < m->n_pend; e++)
            if (m->pend[e].subject == 1 + m->nc + k) m->changed_by_impact[k] = 1;
    }
    m->t_ev = t;
    m->y_ev = y;
    if (why == STSL_REASON_GUARD) slip_rates(m, &fm, t, y);
    for (int round = 0; round <= m->ns; round++) {
        stsl_mb_classify_contacts(m, why, &fm, y);
        stsl_mb_reach(m, why);
        stsl_mb_group_j(m);
        int rc = stsl_mb_select_contacts(m, why, err);
        if (rc) return rc;
        int released = release_pulling(m, &fm, t, y, err);
        if (released < 0) return -1;
        if (!released) break;
    }
    stick_rest_slips(m, why);
    close_held_stops(m, &fm, y);
    zero_slips(m, &fm, y);
    common_velocities(m, &fm, y);
    open_released(m, &fm, y);
    /* A plastic impact whose ends are pulled apart at once (released in
     * the same instant) did not come to rest: an impact, not a contact.
     * One at zero speed (within ZERO_SPEED_TOLS tolerances of the ends'
     * velocities) is no event at all: a gap reached by the integration's drift just after its stop
     * let go (the ends part with zero relative velocity, their gap grows
     * as t^2 or t^3 and the positions' error crosses it back), which
     * rounding shows in one order of the file and not in another. */
    int kept = 0;
    for (int e = 0; e < m->n_pend; e++) {
        int k = m->pend[e].subject - 1 - m->nc;
        if (k >= 0 && m->pend[e].kind == STSL_EV_STOP_CONTACT &&
            m->next[m->nc + k] == STSL_SM_OPEN) {
            if (m->impact_w[k] <= 1.0) {
                open_touch(m, k, &fm, y);
                continue;
            }
            m->pend[e].kind = STSL_EV_IMPACT;
        }
        m->pend[kept++] = m->pend[e];
    }
    m->n_pend = kept;
    end_pending_bounces(m);
    changes(m, why, m->changed_by_impact);
    mark_rest_slips(m, &fm, y);
    return STSL_OK;
}

/* At an input discontinuity in the base's frame: a step of the base's
 * velocity is a step of the relative velocities (the absolute ones are
 * continuous), as the element has it. */
static void base_velocity_step(const stsl_multibody *m, double t, double *y)
{
    if (!m->frame || !m->base_moves) return;
    double before[3], after[3];
    stsl_signal_eval(m->base, t, 1, before);
    stsl_signal_eval(m->base, t, 0, after);
    for (int i = 0; i < m->nb; i++)
        y[m->nb + i] -= after[1] - before[1];
}

int stsl_mb_transition(void *self, stsl_mode_code mode, stsl_reason why, const int *fired, double t,
                       double *y, stsl_transition *out, stsl_error *err)
{
    stsl_multibody *m = self;
    if (why == STSL_REASON_TIME) base_velocity_step(m, t, y);
    m->t_seg = t; /* from here on the inputs' right limits apply */
    out->mode = mode;
    out->kind = STSL_NO_EVENT;
    out->again = 0;
    out->subject = 0;
    if (why != STSL_REASON_RECHECK) {
        m->n_pend = m->i_pend = 0;
        int rc = decide(m, mode, why, fired, t, y, err);
        if (rc) return rc;
        out->mode = stsl_mb_intern(m, m->next);
        if (out->mode < 0) return stsl_error_set(err, STSL_ENOMEM, "out of memory (mode table)");
    }
    /* One recorded event per call: the solver calls again (RECHECK) while
     * `again` is set, so several changes at one instant are several
     * events at the same t, all into the mode decided above. */
    if (m->i_pend < m->n_pend) {
        out->kind = m->pend[m->i_pend].kind;
        out->subject = m->pend[m->i_pend].subject;
        m->i_pend++;
        out->again = m->i_pend < m->n_pend;
    }
    return STSL_OK;
}
