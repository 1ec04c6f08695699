/* multibody_callbacks.c - the solver's callbacks of the multibody model
 * (multibody_impl.h): the right-hand side, the guards (all, or one for
 * the root and extremum searches), the step bounds and time events, the
 * description of a mode, and the table of the model's operations the
 * solver calls (solver/hybrid.h).  Separate: what the integration calls
 * between events, apart from what decides an event. */
#include "models/multibody_impl.h"

#include <math.h>
#include <string.h>

#include "physics/contact.h"

/* ---- hybrid model ops ------------------------------------------------------------ */

static int mb_rhs(void *self, stsl_mode_code mode, double t, const double *y, double *ydot)
{
    stsl_multibody *m = self;
    const prepared *p = stsl_mb_prepare(m, mode);
    if (!p) return -1;
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    if (stsl_mb_solve_acc(m, p, &fm, t, y)) return -1;
    for (int i = 0; i < m->nb; i++) {
        ydot[i] = y[m->nb + i];
        ydot[m->nb + i] = m->acc[i];
    }
    for (int c = 0; c < m->nc; c++) /* LuGre's bristles, in sigma0 z */
        if (m->zidx[c] >= 0)
            ydot[m->zidx[c]] = bristle_rate(m, c, rel_v(m, &fm, y, m->cnode[c]), y);
    return 0;
}

static double guard_value(stsl_multibody *m, const prepared *p, const guard_ref *g,
                          const fixed_motion *fm, const double *y)
{
    double fs_pos, fs_neg, lam;
    const stsl_system_stop *st = g->type >= G_GAP ? &m->s->stops[g->index] : NULL;
    switch (g->type) {
    case G_SLIP:
        return rel_v(m, fm, y, m->cnode[g->index]);
    case G_BAND_POS:
    case G_BAND_NEG:
        static_levels(m, g->index, fm, &fs_pos, &fs_neg);
        lam = contact_lambda(m, p, g->index, fm);
        return g->type == G_BAND_POS ? stsl_contact_band_excess(-lam, +1, fs_pos)
                                     : stsl_contact_band_excess(-lam, -1, fs_neg);
    case G_LOAD:
        return contact_load(m, g->index, fm);
    case G_GAP:
        return rel_x(m, fm, y, m->snode[g->index]) - (g->side > 0 ? st->p.x_max : st->p.x_min);
    case G_REACTION:
        return stsl_mb_stop_pull(m, p, g->index, fm);
    case G_COMPLIANT:
        return m->stop_ops[g->index]->guard(&st->p, g->side, rel_x(m, fm, y, m->snode[g->index]),
                                            rel_v(m, fm, y, m->snode[g->index]));
    }
    return 1.0;
}

/* Are guards a, b the two band guards of one stuck contact (build_guards
 * adds them in a row)? */
static int band_pair(const guard_ref *a, const guard_ref *b)
{
    return a->type == G_BAND_POS && b->type == G_BAND_NEG && a->index == b->index;
}

/* Both band guards of stuck contact c at once: guard_value's two values,
 * from one constraint force and one pair of static levels. */
static void band_guards(const stsl_multibody *m, const prepared *p, int c, const fixed_motion *fm,
                        double *g_pos, double *g_neg)
{
    double fs_pos, fs_neg, lam = contact_lambda(m, p, c, fm);
    static_levels(m, c, fm, &fs_pos, &fs_neg);
    *g_pos = stsl_contact_band_excess(-lam, +1, fs_pos);
    *g_neg = stsl_contact_band_excess(-lam, -1, fs_neg);
}

static int mb_guards(void *self, stsl_mode_code mode, double t, const double *y, double *g)
{
    stsl_multibody *m = self;
    const prepared *p = stsl_mb_prepare(m, mode);
    if (!p) return -1;
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    if (p->needs_lambda && p->leaves_only && !m->full_guards) {
        stsl_mb_leaf_lambdas(m, p, &fm, t, y);
        m->leaf_evals++;
    } else if (p->needs_lambda && stsl_mb_solve(m, p, &fm, t, y, NULL, NULL))
        return -1;
    for (int i = 0; i < p->n_guards; i++) {
        const guard_ref *gr = &p->guards[i];
        if (!m->full_guards && gr->type == G_BAND_POS && i + 1 < p->n_guards &&
            band_pair(gr, gr + 1)) {
            band_guards(m, p, gr->index, &fm, &g[i], &g[i + 1]);
            i++;
            continue;
        }
        g[i] = guard_value(m, p, gr, &fm, y);
    }
    return 0;
}

/* Guard i of `mode` alone (the solver's root and extremum searches on one
 * guard).  A band or reaction guard needs its edge's constraint force: a
 * body that is a leaf of a tree held by a fixed end has it from its own
 * balance (cluster.h), bit for bit the full solve's; any other edge (and
 * a mode with loops, whose split moves forces along the cycles) takes the
 * full solve. */
static int mb_guard(void *self, stsl_mode_code mode, double t, const double *y, int i, double *g)
{
    stsl_multibody *m = self;
    const prepared *p = stsl_mb_prepare(m, mode);
    if (!p || i < 0 || i >= p->n_guards) return -1;
    const guard_ref *gr = &p->guards[i];
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    int e = guard_edge(p, gr);
    if (e >= 0) {
        stsl_cstr_problem pr = {
            m->nb, m->mass, m->force, N_FIXED, fm.a, p->n_edges, (const int(*)[2])p->edges};
        int v = p->n_cycles ? -1 : stsl_cstr_leaf(p->ws, &pr, e);
        if (v >= 0)
            m->lambda[e] = stsl_cstr_leaf_lambda(p->ws, &pr, e, v,
                                                 stsl_mb_body_force(m, p->vec, &fm, t, y, v));
        else if (stsl_mb_solve(m, p, &fm, t, y, NULL, NULL))
            return -1;
    }
    *g = guard_value(m, p, gr, &fm, y);
    return 0;
}

static double signals_max_step(const stsl_multibody *m, double t)
{
    double h = fmin(stsl_signal_max_step(m->base, t), stsl_signal_max_step(m->anchor, t));
    for (int k = 0; k < m->s->n_forces; k++)
        h = fmin(h, stsl_signal_max_step(m->force_sig[k], t));
    for (int c = 0; c < m->nc; c++)
        if (m->load_sig[c]) h = fmin(h, stsl_signal_max_step(m->load_sig[c], t));
    return h;
}

static double mb_max_step(void *self, stsl_mode_code mode, double t)
{
    stsl_multibody *m = self;
    const prepared *p = stsl_mb_prepare(m, mode);
    double h = signals_max_step(m, t);
    if (p && !p->frozen) h = fmin(h, p->in_contact ? m->contact_step : m->natural_step);
    return h;
}

static double mb_next_time_event(void *self, double t)
{
    const stsl_multibody *m = self;
    double te = fmin(stsl_signal_next_event(m->base, t), stsl_signal_next_event(m->anchor, t));
    for (int k = 0; k < m->s->n_forces; k++)
        te = fmin(te, stsl_signal_next_event(m->force_sig[k], t));
    for (int c = 0; c < m->nc; c++)
        if (m->load_sig[c]) te = fmin(te, stsl_signal_next_event(m->load_sig[c], t));
    for (int k = 0; k < m->ns; k++)
        if (m->settle_at[k] > t) te = fmin(te, m->settle_at[k]);
    return te;
}

/* How far ahead a decision within rounding looks (see consistent). */
double stsl_mb_lookahead(stsl_multibody *m, double t)
{
    return stsl_contact_lookahead_horizon(t, signals_max_step(m, t), mb_next_time_event(m, t));
}

static int mb_describe(void *self, stsl_mode_code mode, stsl_mode_desc *out)
{
    stsl_multibody *m = self;
    const prepared *p = stsl_mb_prepare(m, mode);
    if (!p) return -1;
    memcpy(m->desc_dirs, p->dirs, (size_t)p->n_guards * sizeof(int));
    out->frozen = p->frozen;
    out->n_guards = p->n_guards;
    out->guard_dir = m->desc_dirs;
    out->record = -1; /* the system's modes are the per-contact columns */
    return 0;
}

/* The model's operations (solver/hybrid.h, in its order): this file's,
 * the events' (multibody_transitions.c) and the results'
 * (multibody_layout.c); stsl_multibody_create_in puts them in the model. */
const stsl_hmodel_ops stsl_mb_ops = {mb_rhs,
                                     mb_guards,
                                     stsl_mb_transition,
                                     mb_max_step,
                                     mb_next_time_event,
                                     stsl_mb_outputs,
                                     stsl_mb_power_abs,
                                     NULL,
                                     mb_describe,
                                     stsl_mb_mode_name,
                                     mb_guard};
