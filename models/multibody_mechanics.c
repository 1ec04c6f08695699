/* multibody_mechanics.c - the forces of the multibody model at (t, y)
 * (multibody_impl.h): applied forces (inputs, couplings, loads, friction,
 * compliant stops), the constraint solve over the clusters of a mode with
 * the split of loops' forces, the constraint forces of contacts and
 * closed stops.  Separate because every callback and every decision
 * evaluates them: this is the hot path of a run. */
#include "models/multibody_impl.h"

#include <math.h>
#include <string.h>

#include "physics/contact.h"
#include "physics/friction.h"

/* ---- forces ------------------------------------------------------------------ */

static void add_pair_force(const stsl_multibody *m, const int *pair, double f, double *force)
{
    if (pair[0] < m->nb) force[pair[0]] += f;
    if (pair[1] < m->nb) force[pair[1]] -= f;
}

/* Friction of contact c in state st on its ends[0] at relative velocity w
 * (not stuck) under its load F_R = `load`: opposing the slip, at the level
 * of physics/friction.h (SPEC §1.1); a slip at w = 0 has its level at speed 0. */
double stsl_mb_slip_force(const stsl_multibody *m, int c, int st, double w, double load)
{
    const stsl_friction_params *fp = &m->s->contacts[c].friction;
    if (st == STSL_CONTACT_SMOOTH) return -stsl_friction_steady(fp, load, w);
    int s = st == STSL_CONTACT_SLIP_POS ? +1 : -1;
    double fd, fs;
    if (m->load_sig[c]) {
        stsl_friction_levels(fp, s, load, &fd, &fs);
    } else { /* load 0: the levels computed once */
        fd = m->lev0[c][s > 0 ? 0 : 2];
        fs = m->lev0[c][s > 0 ? 1 : 3];
    }
    return -s * stsl_friction_slip(fp, fd, fs, fabs(w));
}

void stsl_mb_static_levels_load(const stsl_multibody *m, int c, const fixed_motion *fm,
                                double *fs_pos, double *fs_neg)
{
    double fd, load = contact_load(m, c, fm);
    stsl_friction_levels(&m->s->contacts[c].friction, +1, load, &fd, fs_pos);
    stsl_friction_levels(&m->s->contacts[c].friction, -1, load, &fd, fs_neg);
}

/* The compliant stop k's force on its ends[0] in state st (0 when open). */
double stsl_mb_compliant_force(const stsl_multibody *m, int k, int st, double xr, double wr)
{
    if (st == STSL_SM_OPEN || is_rigid(m, k)) return 0.0;
    int side = st == STSL_SM_HIGH ? +1 : -1;
    return -side * m->stop_ops[k]->reaction(&m->s->stops[k].p, side, 0.0, xr, wr);
}

/* The same force as the right-hand side sees it: k delta + c delta'
 * unclamped.  In contact it is >= 0 up to the contact-end guard, which
 * ends the mode where it falls to 0; clamping it there (never pulling)
 * would put a kink into the right-hand side right at that root, inside
 * the step that crosses it, and the state interpolated at the root would
 * carry that step's O(h) error (a bounce's exit velocity 3.4e-8 off at
 * rtol 1e-10 instead of 7e-11). */
static double compliant_force_smooth(const stsl_multibody *m, int k, int st, double xr, double wr)
{
    if (st == STSL_SM_OPEN || is_rigid(m, k)) return 0.0;
    int side = st == STSL_SM_HIGH ? +1 : -1;
    const stsl_stop_params *sp = &m->s->stops[k].p;
    double delta = side * (xr - (side > 0 ? sp->x_max : sp->x_min));
    return -side * (sp->stiffness * delta + sp->damping * side * wr);
}

/* Every force but the constraint forces, on every body, leaving out the
 * friction of the contacts c with skip[c] (NULL: none; the forces on
 * their ends are then incomplete); *scale: the sum of their magnitudes
 * (the rounding level of a balance of them). */
static void forces_but(const stsl_multibody *m, const uint8_t *v, const fixed_motion *fm, double t,
                       const double *y, double *force, double *scale, const uint8_t *skip)
{
    const stsl_system *s = m->s;
    int left = t > m->t_seg;
    double sum = 0.0;
    for (int i = 0; i < m->nb; i++)
        force[i] = 0.0;
    for (int k = 0; k < s->n_forces; k++) {
        double f = stsl_signal_value(m->force_sig[k], t, left);
        force[s->forces[k].on.body] += f;
        sum += fabs(f);
    }
    /* The nodes' positions and velocities in one array each (the bodies',
     * then the fixed ends'): rel_x and rel_v without a branch per end. */
    double *xs = m->xs, *vs = m->vs;
    memcpy(xs, y, (size_t)m->nb * sizeof *y);
    memcpy(xs + m->nb, fm->x, sizeof fm->x);
    memcpy(vs, y + m->nb, (size_t)m->nb * sizeof *y);
    memcpy(vs + m->nb, fm->v, sizeof fm->v);
    for (int k = 0; k < s->n_couplings; k++) {
        const stsl_coupling *cp = &s->couplings[k];
        const int *kn = m->knode[k];
        double f = -cp->stiffness * ((xs[kn[0]] - xs[kn[1]]) - cp->free_length) -
                   cp->damping * (vs[kn[0]] - vs[kn[1]]);
        add_pair_force(m, kn, f, force);
        sum += fabs(f);
    }
    for (int c = 0; c < m->nc; c++) {
        if (v[c] == STSL_CONTACT_STUCK && !m->load_sig[c]) continue; /* no force (body_force) */
        double load = contact_load(m, c, fm); /* F_R on ends[0] (a body), SPEC §1's F_n */
        force[m->cnode[c][0]] += load;
        sum += fabs(load);
        if (v[c] == STSL_CONTACT_STUCK || (skip && skip[c])) continue;
        double w = vs[m->cnode[c][0]] - vs[m->cnode[c][1]];
        double f =
            m->zidx[c] >= 0 ? lugre_force(m, c, w, y) : stsl_mb_slip_force(m, c, v[c], w, load);
        add_pair_force(m, m->cnode[c], f, force);
        sum += fabs(f);
    }
    for (int k = 0; k < m->ns; k++) {
        double f = compliant_force_smooth(m, k, v[m->nc + k], rel_x(m, fm, y, m->snode[k]),
                                          rel_v(m, fm, y, m->snode[k]));
        add_pair_force(m, m->snode[k], f, force);
        sum += fabs(f);
    }
    for (int i = 0; m->frame && i < m->nb; i++) /* the inertia force -m a_b */
        force[i] += m->mass[i] * fm->a[0];
    if (!scale) return;
    for (int i = 0; i < m->nb; i++) /* what a cluster held by a moving end needs */
        sum += m->mass[i] * (fabs(fm->a[1]) + fabs(fm->a[2]));
    *scale = sum;
}

/* Every force but the constraint forces, on every body (forces_but). */
static void applied_forces(const stsl_multibody *m, const uint8_t *v, const fixed_motion *fm,
                           double t, const double *y, double *force, double *scale)
{
    forces_but(m, v, fm, t, y, force, scale, NULL);
}

/* A loop of stuck contacts holds while some split of its constraint
 * forces lies within every static band (SPEC §4): the split used makes
 * the sorted band uses lexicographically smallest (models/loop_split.h:
 * exact, so a band is reached only when no split is left, and all the
 * contacts across the loop's tightest cut reach theirs together).  The
 * bands are the contacts' levels under their loads at fm's time; parallel
 * contacts on one edge keep their shares, so the edge's band is where
 * every one of them is within its own.  Fixed ends are one node. */
void stsl_mb_rebalance(stsl_multibody *m, const prepared *p, const fixed_motion *fm)
{
    if (!p->n_cycles) return;
    for (int e = 0; e < p->n_edges; e++) {
        m->split_hi[e] = m->split_lo[e] = p->share_varies[e] ? 0.0 : INFINITY; /* sums, minima */
        m->split_ends[e][0] = cnode_of(m, p->edges[e][0]);
        m->split_ends[e][1] = cnode_of(m, p->edges[e][1]);
    }
    for (int c = 0; c < m->nc; c++) {
        int e = p->contact_edge[c];
        double part = e >= 0 ? fabs(p->share[c]) : 0.0, fs_pos, fs_neg;
        if (e >= 0 && p->share_varies[e]) { /* parts by the levels: the sums */
            static_levels(m, c, fm, &fs_pos, &fs_neg);
            int fwd = runs_with_edge(m, p, e, c);
            m->split_hi[e] += fwd ? fs_neg : fs_pos;
            m->split_lo[e] += fwd ? fs_pos : fs_neg;
            continue;
        }
        if (!(part > 0.0)) continue;
        static_levels(m, c, fm, &fs_pos, &fs_neg); /* lambda_c in [-fs_pos, fs_neg] */
        double up = (p->share[c] > 0.0 ? fs_neg : fs_pos) / part,
               down = (p->share[c] > 0.0 ? fs_pos : fs_neg) / part;
        m->split_hi[e] = fmin(m->split_hi[e], up);
        m->split_lo[e] = fmin(m->split_lo[e], down);
    }
    stsl_split_problem sp = {m->nb + 1, p->n_edges,  (const int(*)[2])m->split_ends,
                             m->lambda, m->split_hi, m->split_lo};
    stsl_split_solve(m->split, &sp, m->lambda);
}

/* The force of stuck contact c on an edge marked share_varies (parallel
 * contacts, one of them loaded) at fm's time.  The edge holds up to the
 * sum of its contacts' static levels in the direction its force pulls,
 * each contact carrying the part its level in that direction has of the
 * sum, so that all reach their levels together (SPEC §4) also when a
 * load makes the levels differ by direction and in time.  A fixed split
 * (share, by the levels at load 0) let one contact reach its level first:
 * an early breakaway of the edge where the slip was consistent, else no
 * consistent combination at all.  lambda_c lies in [-F_S(+1), F_S(-1)]
 * of c: a force on the edge's first end pulls c's way when c runs the
 * edge's way.  Zero force: every split is 0. */
double stsl_mb_parallel_lambda(const stsl_multibody *m, const prepared *p, int c,
                               const fixed_motion *fm)
{
    int e = p->contact_edge[c];
    double lam = m->lambda[e], sum = 0.0, mine = 0.0, sign = 1.0;
    int count = 0;
    for (int d = 0; d < m->nc; d++) {
        if (p->contact_edge[d] != e) continue;
        double fs_pos, fs_neg;
        static_levels(m, d, fm, &fs_pos, &fs_neg);
        int fwd = runs_with_edge(m, p, e, d);
        double level = (fwd ? lam : -lam) > 0.0 ? fs_neg : fs_pos;
        sum += level;
        count++;
        if (d == c) mine = level, sign = fwd ? 1.0 : -1.0;
    }
    double part = sum > 0.0 ? mine / sum : 1.0 / count; /* levels 0: equal parts */
    return sign * part * lam;
}

/* Accelerations (m->acc) and constraint forces (m->lambda) of mode p at
 * (t, y).  Within a cluster every body gets the same acceleration, the
 * fixed end's when it holds one, so that bodies held together stay
 * together to the last bit.  Returns 0, 1 when the constraints conflict
 * (two fixed ends of different accelerations in one cluster), <0 on error. */
/* m->acc and, unless `lambda` is NULL, the constraint forces into it, for
 * the applied forces in m->force.  The constraint graph's analysis
 * (cluster.h) is made once when prepare() switches the current mode to it;
 * a candidate's edges are scratch that the decisions rewrite between
 * solves (rigid_clusters, group_j), so a candidate is analysed at every
 * solve (O(N), at events only).  Every body of a cluster gets the
 * cluster's acceleration bit for bit (the fixed end's when it holds one:
 * cluster.h), so bodies held together stay together to the last bit.
 * 0, 1 on a conflict, < 0 on error. */
static int constraint_solve(stsl_multibody *m, const prepared *p, const fixed_motion *fm,
                            double *lambda, stsl_error *err)
{
    stsl_cstr_problem pr = {
        m->nb, m->mass, m->force, N_FIXED, fm->a, p->n_edges, (const int(*)[2])p->edges};
    stsl_cstr_solution sol = {m->acc, lambda, 0, 0};
    int rc = p == &m->prep ? STSL_OK : stsl_cstr_analyse(p->ws, &pr, err);
    if (!rc) rc = stsl_cstr_solve_analysed(p->ws, &pr, &sol, err);
    return rc ? rc : sol.conflict;
}

int stsl_mb_solve(stsl_multibody *m, const prepared *p, const fixed_motion *fm, double t,
                  const double *y, double *scale, stsl_error *err)
{
    applied_forces(m, p->vec, fm, t, y, m->force, scale);
    int rc = constraint_solve(m, p, fm, m->lambda, err);
    if (rc) return rc;
    if (p->n_edges == 0) return 0;
    if (!m->no_split) stsl_mb_rebalance(m, p, fm);
    return 0;
}

/* The accelerations alone (the right-hand side's): they need no
 * constraint force.  A body held (through constraints) by a fixed end moves with it whatever
 * the forces on it: the current mode's accelerations need the applied
 * forces of the bodies of free clusters only (body_force: the same bits as
 * applied_forces'), and a chain of blocks mostly stuck to the ground has
 * few of them. */
int stsl_mb_solve_acc(stsl_multibody *m, const prepared *p, const fixed_motion *fm, double t,
                      const double *y)
{
    if (p == &m->prep && 2 * p->n_free <= m->nb) { /* else all pairs at once are cheaper */
        for (int j = 0; j < p->n_free; j++)
            m->force[p->free[j]] = stsl_mb_body_force(m, p->vec, fm, t, y, p->free[j]);
    } else {
        applied_forces(m, p->vec, fm, t, y, m->force, NULL);
    }
    return constraint_solve(m, p, fm, NULL, NULL);
}

/* The static level of contact c, parallel to the rigid stop k closed in
 * mode vector v, in the direction a pull off the stop would make it slip
 * (away from the limit: + at LOW, - at HIGH, in the stop's order of the
 * ends; the element's F_S(+1) at x_min, F_S(-1) at x_max). */
static double hold_level(const stsl_multibody *m, const uint8_t *v, int k, int c,
                         const fixed_motion *fm)
{
    double fs_pos, fs_neg;
    int away = v[m->nc + k] == STSL_SM_LOW ? +1 : -1;
    if (canon(m, m->snode[k][0]) != canon(m, m->cnode[c][0])) away = -away;
    static_levels(m, c, fm, &fs_pos, &fs_neg);
    return away > 0 ? fs_pos : fs_neg;
}

/* What the stuck contacts parallel to the closed rigid stop k hold
 * against a pull: the sum of their static levels (SPEC §1.2: at a stop
 * the stop carries the compressive force, friction the rest). */
static double stop_hold(const stsl_multibody *m, const uint8_t *v, int k, const fixed_motion *fm)
{
    double hold = 0.0;
    for (int c = 0; c < m->nc; c++)
        if (v[c] == STSL_CONTACT_STUCK && same_pair(m, m->snode[k], m->cnode[c]))
            hold += hold_level(m, v, k, c, fm);
    return hold;
}

/* The closed rigid stop k's pull beyond what it and its parallel stuck
 * contacts hold (> 0: it lets go).  lambda >= 0 presses at LOW, <= 0 at
 * HIGH. */
double stsl_mb_stop_pull(const stsl_multibody *m, const prepared *p, int k, const fixed_motion *fm)
{
    double lam = stop_lambda(m, p, k), hold = stop_hold(m, p->vec, k, fm);
    return p->vec[m->nc + k] == STSL_SM_LOW ? -lam - hold : lam - hold;
}

/* The compressive part of a closed rigid stop's constraint force (the
 * stop's reaction; the rest is its parallel contacts' friction). */
double stsl_mb_stop_press(const stsl_multibody *m, const prepared *p, int k)
{
    double lam = stop_lambda(m, p, k);
    return p->vec[m->nc + k] == STSL_SM_LOW ? fmax(lam, 0.0) : fmin(lam, 0.0);
}

/* The friction of a stuck contact c held by a closed stop: its share (by
 * static level) of what the stop does not press. */
double stsl_mb_held_friction(const stsl_multibody *m, const prepared *p, int c,
                             const fixed_motion *fm)
{
    for (int k = 0; k < m->ns; k++) {
        if (p->stop_edge[k] < 0 || !same_pair(m, m->snode[k], m->cnode[c])) continue;
        double hold = stop_hold(m, p->vec, k, fm),
               rest = stop_lambda(m, p, k) - stsl_mb_stop_press(m, p, k);
        double part = hold > 0.0 ? hold_level(m, p->vec, k, c, fm) / hold : 0.0;
        return (canon(m, m->snode[k][0]) == canon(m, m->cnode[c][0]) ? part : -part) * rest;
    }
    return 0.0;
}

/* The constraint forces the current mode's guards read, when each follows
 * from one body's own balance (p->leaves_only): bit for bit the full
 * solve's (stsl_cstr_leaf_lambda; body_force is applied_forces' force[v]),
 * without the tree solve, and for a few leaves without the forces on
 * every other body.  A chain of blocks stuck to the ground has one such
 * edge per stuck block. */
void stsl_mb_leaf_lambdas(stsl_multibody *m, const prepared *p, const fixed_motion *fm, double t,
                          const double *y)
{
    stsl_cstr_problem pr = {
        m->nb, m->mass, m->force, N_FIXED, fm->a, p->n_edges, (const int(*)[2])p->edges};
    int all = 2 * p->n_need > m->nb; /* then every pair's force once is cheaper (solve_acc) */
    if (all) forces_but(m, p->vec, fm, t, y, m->force, NULL, p->fric_skip);
    for (int j = 0; j < p->n_need; j++) {
        int e = p->need_edge[j], v = p->need_body[j];
        double f = all ? m->force[v] : stsl_mb_body_force(m, p->vec, fm, t, y, v);
        m->lambda[e] = stsl_cstr_leaf_lambda(p->ws, &pr, e, v, f);
    }
}

/* The applied force on body i alone: applied_forces' force[i], the same
 * terms in the same order (so the same value bit for bit), from i's
 * incidence list. */
double stsl_mb_body_force(const stsl_multibody *m, const uint8_t *v, const fixed_motion *fm,
                          double t, const double *y, int i)
{
    const stsl_system *s = m->s;
    int left = t > m->t_seg;
    double force = 0.0;
    for (int j = m->inc_start[i]; j < m->inc_start[i + 1]; j++) {
        const incidence *in = &m->inc[j];
        int k = in->index;
        double f = 0.0;
        if (in->kind == I_FORCE) {
            force += stsl_signal_value(m->force_sig[k], t, left);
            continue;
        }
        if (in->kind == I_LOAD) {
            force += contact_load(m, k, fm);
            continue;
        }
        if (in->kind == I_COUPLING) {
            const stsl_coupling *cp = &s->couplings[k];
            f = -cp->stiffness * (rel_x(m, fm, y, m->knode[k]) - cp->free_length) -
                cp->damping * rel_v(m, fm, y, m->knode[k]);
        } else if (in->kind == I_FRICTION) {
            if (v[k] == STSL_CONTACT_STUCK) continue;
            double w = rel_v(m, fm, y, m->cnode[k]);
            f = m->zidx[k] >= 0 ? lugre_force(m, k, w, y)
                                : stsl_mb_slip_force(m, k, v[k], w, contact_load(m, k, fm));
        } else {
            f = compliant_force_smooth(m, k, v[m->nc + k], rel_x(m, fm, y, m->snode[k]),
                                       rel_v(m, fm, y, m->snode[k]));
        }
        if (in->end == 0)
            force += f;
        else
            force -= f;
    }
    if (m->frame) force += m->mass[i] * fm->a[0]; /* the inertia force, last as in applied_forces */
    return force;
}
