/* multibody_decisions.c - which contacts stick or slip after an event of
 * the multibody model (multibody_impl.h): the contacts at w = 0 to decide,
 * those the event reached, their groups and units, and the choice among
 * their combinations by consistency (SPEC §4: the margins of every
 * combination, judged within rounding by looking ahead; the order of
 * choice, physics/consistency.h).  Separate from the rest of an event
 * (multibody_transitions.c): the decision is one problem of its own. */
#include "models/multibody_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "physics/consistency.h"
#include "physics/contact.h"
#include "physics/modes.h"
#include "physics/friction.h"

/* The margins of the combination `states` of the contacts m->jlist for
 * the constraint forces in m->lambda, per contact into stat[]: 1 clear and
 * consistent, -1 clear and not, 0 within the rounding level of the forces.
 * A stuck one's lambda within its static band (sign convention: lambda is
 * the force on ends[0]; a slip + needs -lambda > F_S(+1), a slip -
 * lambda > F_S(-1), so the band is -F_S(+1) <= lambda <= F_S(-1)); a
 * slipping one accelerating in its slip direction with its friction at
 * the dynamic level (at speed 0) opposing it.  Returns 1 when some stuck
 * margin is clearly outside and no slip one is (a loop's split may help). */
static int margins(stsl_multibody *m, const int *states, const fixed_motion *fm, double noise,
                   int *stat)
{
    double amax = 0.0;
    for (int i = 0; i < m->nb; i++)
        amax = fmax(amax, noise / m->mass[i]);
    int stuck_bad = 0, slip_bad = 0;
    for (int i = 0; i < m->n_j; i++) {
        int c = m->jlist[i];
        double margin, level; /* > 0: inconsistent */
        if (states[i] == STSL_CONTACT_STUCK) {
            double fs_pos, fs_neg, lam = contact_lambda(m, &m->cand, c, fm);
            static_levels(m, c, fm, &fs_pos, &fs_neg);
            margin = fmax(stsl_contact_band_excess(-lam, +1, fs_pos),
                          stsl_contact_band_excess(-lam, -1, fs_neg));
            /* The balance -lambda - F_S has the level among its terms: its
             * rounding too, as the element counts it (a force back at a
             * static level equal to the dynamic one, 2e-14 N past 1 N at
             * the stick the velocity's root located, was "outside"). */
            level = noise + stsl_contact_noise(fmax(fs_pos, fs_neg));
        } else {
            int s = states[i] == STSL_CONTACT_SLIP_POS ? +1 : -1;
            double a =
                node_a(m, fm, m->acc, m->cnode[c][0]) - node_a(m, fm, m->acc, m->cnode[c][1]);
            margin = -s * a;
            level = amax;
        }
        stat[i] = fabs(margin) <= level ? 0 : margin > 0.0 ? -1 : 1;
        if (stat[i] < 0)
            states[i] == STSL_CONTACT_STUCK ? (void)(stuck_bad = 1) : (void)(slip_bad = 1);
    }
    return stuck_bad && !slip_bad;
}

/* The margins (stat[], as margins) of the combination `states` at (t, y).
 * A loop's split (rebalance) is sought only when the plain one leaves a
 * band: the combination is consistent when some split fits.  0, 1 when
 * the constraints conflict (two fixed ends of different accelerations in
 * one cluster: not consistent), < 0 error. */
static int check_at(stsl_multibody *m, const int *states, double t, const double *y, int *stat,
                    stsl_error *err)
{
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    double scale;
    m->no_split = 1;
    int rc = stsl_mb_solve(m, &m->cand, &fm, t, y, &scale, err);
    m->no_split = 0;
    if (rc) return rc;
    double noise = stsl_contact_noise(scale);
    if (margins(m, states, &fm, noise, stat) && m->cand.n_cycles) {
        stsl_mb_rebalance(m, &m->cand, &fm);
        margins(m, states, &fm, noise, stat);
    }
    return 0;
}

/* A contact state seen in the other orientation (sign -1: the slip
 * directions swap). */
static int oriented(int st, int sign)
{
    return sign > 0 || st == STSL_CONTACT_STUCK ? st
           : st == STSL_CONTACT_SLIP_POS        ? STSL_CONTACT_SLIP_NEG
                                                : STSL_CONTACT_SLIP_POS;
}

/* The rates of LuGre's bristle states at the event (into m->rate past
 * the bodies' 2 nb states), for the look-ahead: a stuck force at its
 * band's edge may be carried out (or back in) by the bristles loading
 * (sigma0 z' at a relaxed bristle is sigma0 w: fast), which bristles kept
 * as they stood did not show: a brake whose LuGre neighbour loaded its
 * force past the static level was judged by a spring's slower pull back
 * inside and held twice its level.  The bristles' rate depends on the
 * relative velocity alone, not on the candidate. */
static void bristle_rates(stsl_multibody *m)
{
    fixed_motion fm;
    eval_fixed(m, m->t_ev, &fm);
    for (int c = 0; c < m->nc; c++)
        if (m->zidx[c] >= 0)
            m->rate[m->zidx[c]] = bristle_rate(m, c, rel_v(m, &fm, m->y_ev, m->cnode[c]), m->y_ev);
}

/* Is the combination `units` (one state per unit, m->junit maps the
 * contacts of m->jlist to them) consistent (SPEC §4)?  A margin within
 * rounding (a force touching the static level, a slip acceleration of
 * zero) is decided as the element decides it ("Touching the static
 * level"), each margin on its own: by the first instant after t at which
 * it stands clear of rounding, the state moved on with the combination's
 * own accelerations at t (bodies held to a moving base follow it; a slip
 * at w = 0 starts), samples at 64 ulps of t doubling up to the inputs'
 * time scale.  One never clear by then stays as it stands: a stuck
 * contact within rounding of its band inside it (a force that stays at
 * the static level, as one whose slipping neighbour's constant dynamic
 * friction holds it there), no slip at zero acceleration. */
static int consistent(void *ctx, const int *units, stsl_error *err)
{
    stsl_multibody *m = ctx;
    const int *states = m->jstate;
    int *st = m->mstat, *later = m->mstat + m->nc;
    for (int i = 0; i < m->n_j; i++) {
        m->jstate[i] = oriented(units[m->junit[i]], m->jsign[i]);
        m->next[m->jlist[i]] = (uint8_t)m->jstate[i];
    }
    stsl_mb_prepare_vec(m, m->next, &m->cand);
    int n = m->nb, rc = check_at(m, states, m->t_ev, m->y_ev, st, err), open = 0;
    if (rc) return rc > 0 ? 0 : rc;
    for (int i = 0; i < m->n_j; i++) {
        if (st[i] < 0) return 0;
        open += st[i] == 0;
    }
    if (!open) return 1;
    for (int i = 0; i < n; i++) /* the candidate's rates at the event */
        m->rate[i] = m->acc[i];
    bristle_rates(m);
    double horizon = stsl_mb_lookahead(m, m->t_ev);
    for (double tau = stsl_contact_lookahead_start(m->t_ev); tau <= horizon && open; tau *= 2.0) {
        for (int i = 0; i < n; i++) {
            m->y_look[i] = m->y_ev[i] + tau * m->y_ev[n + i] + 0.5 * tau * tau * m->rate[i];
            m->y_look[n + i] = m->y_ev[n + i] + tau * m->rate[i];
        }
        for (int k = 2 * n; k < m->n; k++) /* LuGre's bristles along their rates */
            m->y_look[k] = m->y_ev[k] + tau * m->rate[k];
        rc = check_at(m, states, m->t_ev + tau, m->y_look, later, err);
        if (rc) return rc > 0 ? 0 : rc;
        for (int i = 0; i < m->n_j; i++) {
            if (st[i] != 0 || later[i] == 0) continue;
            if (later[i] < 0) return 0;
            st[i] = 1;
            open--;
        }
    }
    for (int i = 0; i < m->n_j; i++)
        if (st[i] == 0 && states[i] != STSL_CONTACT_STUCK) return 0;
    return 1;
}

/* Does slipping contact c (relative velocity w) reach w = 0 within the
 * time the integration resolves, rtol max(1, |t|)?  Two contacts that
 * reach zero together (symmetric bodies) have their roots located that
 * far apart by rounding alone, in an order that the order of the file
 * decides; taken as simultaneous they are decided together, as SPEC §4
 * asks, and the later one's velocity is set to zero early by at most
 * |w'| rtol |t|, within the integration's error. */
static int soon(const stsl_multibody *m, int c, double w)
{
    double a = m->wacc[c];
    return w * a < 0.0 && fabs(w) <= fabs(a) * m->rtol * fmax(1.0, fabs(m->t_ev));
}

/* Are the contacts' relative velocities exact here (zero only when 0.0)?
 * At the start; and at an input discontinuity in the base's frame, where
 * a stuck contact's w is the state itself, exactly 0 until the step of the
 * base's velocity changes it (base_velocity_step), as the element decides
 * there.  Elsewhere w = 0 to within ZERO_SPEED_TOLS tolerances (with a
 * given atol of 1e-3 that is 0.1 m/s: a belt's step of 0.1 m/s at 0.5 s
 * was absorbed). */
static int exact_speeds(const stsl_multibody *m, stsl_reason why)
{
    return why == STSL_REASON_INIT || (why == STSL_REASON_TIME && m->frame);
}

/* The set J (contacts at w = 0 to decide) and the other contacts' states. */
void stsl_mb_classify_contacts(stsl_multibody *m, stsl_reason why, const fixed_motion *fm,
                               const double *y)
{
    for (int c = 0; c < m->nc; c++) {
        const int *pr = m->cnode[c];
        double w = rel_v(m, fm, y, pr);
        m->jumped[c] = 0;
        int touched = m->affected[pr[0]] || (pr[1] < m->nb && m->affected[pr[1]]);
        if (stsl_law_is_smooth(m->s->contacts[c].friction.law)) {
            m->next[c] = STSL_CONTACT_SMOOTH;
            continue;
        }
        /* A velocity jump (an impulse through a rigid stop, a step of the
         * base or anchor velocity) can start a slip; without one a stuck
         * contact's w is zero to within integration drift. */
        int kicked =
            why == STSL_REASON_TIME || m->kicked[pr[0]] || (pr[1] < m->nb && m->kicked[pr[1]]);
        int zero = exact_speeds(m, why) ? w == 0.0 : fabs(w) <= m->vtol;
        if (m->jflag[c] == J_FIRED) continue;
        if (why == STSL_REASON_INIT)
            zero ? (void)(m->jflag[c] = J_ZERO)
                 : (void)(m->next[c] = (uint8_t)stsl_contact_slip_state(w));
        else if (m->cur[c] == STSL_CONTACT_STUCK)
            kicked && !zero ? (void)(m->next[c] = (uint8_t)stsl_contact_slip_state(w))
                            : (void)(m->jflag[c] = J_ZERO);
        else if ((zero && touched) || (why == STSL_REASON_GUARD && !kicked && soon(m, c, w)))
            m->jflag[c] = J_ZERO;
        else
            m->next[c] = kicked && !zero ? (uint8_t)stsl_contact_slip_state(w) : m->cur[c];
        /* A slip direction set by a jump is the impact's or the input
         * step's consequence, recorded as that event (as the element does). */
        m->jumped[c] = !m->jflag[c] && m->next[c] != m->cur[c];
    }
}

/* Labels (m->label) of the components the edges in m->cand and the closed
 * rigid stops of m->next between bodies form over the bodies (a fixed end
 * carries any force: nothing is joined through it). */
static void label_between_bodies(stsl_multibody *m)
{
    prepared *p = &m->cand;
    for (int k = 0; k < m->ns; k++)
        if (is_rigid(m, k) && m->next[m->nc + k] != STSL_SM_OPEN && m->snode[k][1] < m->nb)
            memcpy(p->edges[p->n_edges++], m->snode[k], sizeof m->snode[k]);
    double zero[N_FIXED] = {0, 0, 0};
    stsl_cstr_problem pr = {
        m->nb, m->mass, m->force, N_FIXED, zero, p->n_edges, (const int(*)[2])p->edges};
    stsl_cstr_components(m->ws, &pr, m->label);
}

/* Groups of J that interact: contacts joined through bodies by J contacts
 * and closed rigid stops between bodies (a fixed end carries any force, so
 * contacts meeting only there are independent).  m->group[c] = label. */
void stsl_mb_group_j(stsl_multibody *m)
{
    prepared *p = &m->cand;
    p->n_edges = 0;
    for (int c = 0; c < m->nc; c++)
        if (m->jflag[c] && m->cnode[c][1] < m->nb)
            memcpy(p->edges[p->n_edges++], m->cnode[c], sizeof m->cnode[c]);
    label_between_bodies(m);
    for (int c = 0; c < m->nc; c++)
        m->group[c] = m->jflag[c] ? m->label[m->cnode[c][0]] : -1;
}

/* "no consistent combination of 2 contacts (contacts.0, contacts.1) at t =
 * ..., state (x.a, ...) = (...)". */
static int no_combination(stsl_multibody *m, stsl_error *err)
{
    char what[1024];
    size_t used = 0;
    for (int i = 0; i < m->n_j && used < sizeof what; i++) {
        int w = snprintf(what + used, sizeof what - used, "%s%s", i ? ", " : "",
                         m->members[m->nb + m->jlist[i]]);
        used += w > 0 ? (size_t)w : 0;
    }
    char state[1024];
    used = 0;
    for (int i = 0; i < m->n && used < sizeof state; i++) {
        int w = snprintf(state + used, sizeof state - used, "%s%s = %.17g", i ? ", " : "",
                         m->state_names[i], m->y_ev[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    return stsl_error_wrap(err, "contacts %s at t = %.17g s, state %s", what, m->t_ev, state);
}

/* SPEC §4: the contacts that reached a switching condition at this
 * event.  At the start and at an input step every one did; else a contact
 * whose own guard fired, one that slid to w = 0, and every stuck contact
 * whose force the event changed: the forces on a body change when a stop
 * at it changed state (hit) or a velocity jump moved it (kicked), and on
 * the bodies joined to a moved one through a velocity-dependent force
 * (a damper, a compliant stop's damping, a slipping or smooth contact);
 * the constraint forces then change throughout the clusters of those
 * bodies (stuck contacts and closed rigid stops between bodies; a fixed
 * end absorbs any force, so a cluster ends there). */
static void spread(stsl_multibody *m, const int *pair)
{
    int b = pair[1] < m->nb;
    if (!m->kicked[pair[0]] && !(b && m->kicked[pair[1]])) return;
    m->reach_body[pair[0]] = 1;
    if (b) m->reach_body[pair[1]] = 1;
}

void stsl_mb_reach(stsl_multibody *m, stsl_reason why)
{
    const stsl_system *s = m->s;
    prepared *p = &m->cand;
    for (int i = 0; i < m->nb; i++)
        m->reach_body[i] = m->hit[i] || m->kicked[i];
    for (int k = 0; k < s->n_couplings; k++)
        if (s->couplings[k].damping > 0.0) spread(m, m->knode[k]);
    for (int k = 0; k < m->ns; k++)
        if (!is_rigid(m, k) && m->next[m->nc + k] != STSL_SM_OPEN && s->stops[k].p.damping > 0.0)
            spread(m, m->snode[k]);
    p->n_edges = 0;
    for (int c = 0; c < m->nc; c++) {
        if (m->next[c] != STSL_CONTACT_STUCK)
            spread(m, m->cnode[c]);
        else if (m->cnode[c][1] < m->nb)
            memcpy(p->edges[p->n_edges++], m->cnode[c], sizeof m->cnode[c]);
    }
    label_between_bodies(m);
    int *lab = m->lmark; /* the clusters of the bodies reached: their labels, then their bodies */
    for (int i = 0; i < m->nb + N_FIXED; i++)
        lab[i] = 0;
    for (int i = 0; i < m->nb; i++)
        if (m->reach_body[i]) lab[m->label[i]] = 1;
    for (int j = 0; j < m->nb; j++)
        if (lab[m->label[j]]) m->reach_body[j] = 2;
    int all = why == STSL_REASON_INIT || why == STSL_REASON_TIME;
    for (int c = 0; c < m->nc; c++) {
        const int *pr2 = m->cnode[c];
        m->reached[c] = all || m->jflag[c] == J_FIRED || m->cur[c] != STSL_CONTACT_STUCK ||
                        m->reach_body[pr2[0]] || (pr2[1] < m->nb && m->reach_body[pr2[1]]);
    }
}

/* Unit u's position in the tie rule: by its representative's name. */
static int unit_before(const stsl_multibody *m, int u, int v)
{
    return strcmp(m->tie[m->urep[u]], m->tie[m->urep[v]]) < 0;
}

/* The units of the J contacts in m->jlist: parallel contacts (the same
 * two ends) are one unit, decided as one (SPEC §4), represented by the
 * one whose name sorts first; units numbered in the order of their names,
 * so that nothing depends on the order of the file.  Returns their
 * number and fills junit, jsign, urep, ubefore, ureached. */
static int make_units(stsl_multibody *m, stsl_reason why)
{
    int nu = 0;
    for (int i = 0; i < m->n_j; i++) {
        int c = m->jlist[i], u = -1;
        for (int v = 0; v < nu && u < 0; v++)
            if (same_pair(m, m->cnode[m->urep[v]], m->cnode[c])) u = v;
        if (u < 0) {
            u = nu++;
            m->urep[u] = c;
            m->ureached[u] = 0;
        } else if (strcmp(m->tie[c], m->tie[m->urep[u]]) < 0) {
            m->urep[u] = c;
        }
        m->junit[i] = u;
        m->ureached[u] |= m->reached[c];
    }
    int *order = m->uchosen; /* scratch: units sorted by name (insertion sort) */
    for (int u = 0; u < nu; u++) {
        int k = u;
        for (; k > 0 && unit_before(m, u, order[k - 1]); k--)
            order[k] = order[k - 1];
        order[k] = u;
    }
    int *rank = m->ubefore, *rep = m->before, *reached = m->chosen; /* scratch */
    for (int k = 0; k < nu; k++) {
        rank[order[k]] = k;
        rep[k] = m->urep[order[k]];
        reached[k] = m->ureached[order[k]];
    }
    for (int i = 0; i < m->n_j; i++)
        m->junit[i] = rank[m->junit[i]];
    for (int k = 0; k < nu; k++) {
        m->urep[k] = rep[k];
        m->ureached[k] = reached[k];
        int r = rep[k];
        m->ubefore[k] =
            oriented(why == STSL_REASON_INIT ? STSL_CONTACT_STUCK : m->cur[r], m->orient[r]);
    }
    for (int i = 0; i < m->n_j; i++) {
        int c = m->jlist[i], r = m->urep[m->junit[i]];
        int aligned = canon(m, m->cnode[c][0]) == canon(m, m->cnode[r][0]);
        m->jsign[i] = aligned ? m->orient[r] : -m->orient[r];
    }
    return nu;
}

/* One pass over the groups of J that some reached contact belongs to, in
 * the order of their first contacts (SPEC §4; in the others nothing
 * happened: their stuck contacts stay); *chosen: how many were decided by
 * the order of choice. */
static int select_pass(stsl_multibody *m, stsl_reason why, int *chosen, stsl_error *err)
{
    *chosen = 0;
    for (int c = 0; c < m->nc; c++) {
        if (!m->jflag[c] || m->group[c] < 0) continue;
        int g = m->group[c], active = 0;
        m->n_j = 0;
        for (int d = c; d < m->nc; d++) {
            if (!m->jflag[d] || m->group[d] != g) continue;
            active |= m->reached[d];
            m->jlist[m->n_j++] = d;
            m->group[d] = -1; /* done */
        }
        if (!active) { /* stuck, untouched: stays */
            for (int i = 0; i < m->n_j; i++)
                m->next[m->jlist[i]] = STSL_CONTACT_STUCK;
            continue;
        }
        int nu = make_units(m, why);
        ++*chosen;
        stsl_consistency_result res;
        int rc = stsl_consistency_select(nu, m->ubefore, m->ureached, consistent, m, m->uchosen,
                                         &res, err);
        if (rc) return no_combination(m, err);
        int changed = 0;
        for (int i = 0; i < m->n_j; i++) {
            int c = m->jlist[i];
            m->next[c] = (uint8_t)oriented(m->uchosen[m->junit[i]], m->jsign[i]);
            changed |= m->next[c] != m->cur[c];
        }
        /* A lone contact has nothing ambiguous: the order of choice gives
         * SPEC §1.2's stick test, as the element decides it.  An instant
         * that changes nothing (a force touching a static level, found by
         * rounding in one order of the file and not in another) is no
         * event.  The event names the unit first in the tie rule (not the
         * first listed). */
        if (res.ambiguous && nu > 1 && (changed || why == STSL_REASON_INIT))
            push_event(m, STSL_EV_AMBIGUOUS, 1 + m->urep[0]);
    }
    return STSL_OK;
}

/* Decide every group of J (select_pass), again while a pass changes a
 * decision.  Groups are independent in their constraint forces (they meet
 * only at fixed ends), not in their look-ahead: a force at its band's edge
 * leaves the band or not by its first non-zero derivative, which a damper
 * takes from another group's accelerations.  A group decided before
 * another saw that one's state before the event (b2 at its static level
 * on the ground, dragged on by a damper from zeta, which starts to slide
 * at the same instant: stuck when b2's group came first in the file, and
 * a breakaway at once; slipping when zeta's came first).  The next pass
 * decides each group with every other's choice, until none changes (a few
 * passes at most; the last stands). */
#define SELECT_PASSES 4

int stsl_mb_select_contacts(stsl_multibody *m, stsl_reason why, stsl_error *err)
{
    int n0 = m->n_pend; /* the events before the choice; a pass's own are redone */
    for (int pass = 0; pass < SELECT_PASSES; pass++) {
        m->n_pend = n0;
        if (pass) stsl_mb_group_j(m);
        memcpy(m->cur_keep, m->next, (size_t)m->nc); /* scratch here: the states before */
        int chosen, rc = select_pass(m, why, &chosen, err);
        if (rc) return rc;
        if (chosen < 2 || !memcmp(m->cur_keep, m->next, (size_t)m->nc)) break;
    }
    return STSL_OK;
}
