/* multibody.c - a system of bodies as a hybrid model (see multibody.h):
 * creating and freeing the model, its natural scales, and the public entry
 * points.  The rest of the engine is in the files multibody_impl.h lists,
 * which share the model's struct. */
#include "models/multibody_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/contact.h"
#include "physics/modes.h"
#include "physics/friction.h"
#include "solver/arrays.h"

const char *const *stsl_multibody_kind_names(void)
{
    return stsl_event_kind_names(); /* the element's, then "ambiguous" */
}

static int node_of(const stsl_multibody *m, stsl_end e)
{
    return e.kind == STSL_END_BODY ? e.body : m->nb + (int)e.kind - 1;
}

/* Per body the terms of applied_forces on it, in its order (m->inc holds
 * the most there can be: arrays()). */
static void build_incidence(stsl_multibody *m)
{
    const stsl_system *s = m->s;
    int n = 0;
    for (int i = 0; i < m->nb; i++) {
        m->inc_start[i] = n;
        for (int k = 0; k < s->n_forces; k++)
            if (s->forces[k].on.body == i) m->inc[n++] = (incidence){I_FORCE, k, 0};
        for (int k = 0; k < s->n_couplings; k++)
            for (int end = 0; end < 2; end++)
                if (m->knode[k][end] == i) m->inc[n++] = (incidence){I_COUPLING, k, end};
        for (int c = 0; c < m->nc; c++) {
            /* Without a load F_R is 0: adding it changes no sum (a sum of
             * forces from +0 is never -0, and x + 0 == x), so it is left out. */
            if (m->cnode[c][0] == i && m->load_sig[c]) m->inc[n++] = (incidence){I_LOAD, c, 0};
            for (int end = 0; end < 2; end++)
                if (m->cnode[c][end] == i) m->inc[n++] = (incidence){I_FRICTION, c, end};
        }
        for (int k = 0; k < m->ns; k++)
            for (int end = 0; end < 2; end++)
                if (m->snode[k][end] == i) m->inc[n++] = (incidence){I_STOP, k, end};
    }
    m->inc_start[m->nb] = n;
    /* Contacts between the same two ends (same_pair), once: the first of
     * each pair stands for all (build_edges). */
    for (int c = 0; c < m->nc; c++) {
        m->pair_rep[c] = c;
        for (int d = 0; d < c && m->pair_rep[c] == c; d++)
            if (same_pair(m, m->cnode[d], m->cnode[c])) m->pair_rep[c] = d;
    }
}

/* ---- natural scales ---------------------------------------------------------------- */

/* The compliant stops' penetration at their first end's initial speed,
 * |v0| sqrt(m/k_stop) (the element's: a body that starts fast into a stop
 * moves across that length). */
static void stop_entry_lengths(const stsl_multibody *m, double *l)
{
    for (int k = 0; k < m->ns; k++) {
        int b = m->snode[k][0] < m->nb ? m->snode[k][0] : m->snode[k][1];
        if (is_rigid(m, k) || b >= m->nb) continue;
        const stsl_body *bd = &m->s->bodies[b];
        stsl_contact_keep_smaller(l, fabs(bd->v0) * sqrt(bd->mass / m->s->stops[k].p.stiffness));
    }
}

/* Body i's time scale T: sqrt(m/k) over the stiffness of its couplings,
 * else of its compliant stops (the contact's time scale); without, the
 * time sqrt(m L / F) in which the force level moves the mass across L;
 * m/c with its couplings' damping alone; else 1. */
static double body_time_scale(const stsl_multibody *m, int i, double f, double l)
{
    const stsl_system *s = m->s;
    double k = 0.0, k_stop = 0.0, c = 0.0;
    for (int j = 0; j < s->n_couplings; j++)
        if (m->knode[j][0] == i || m->knode[j][1] == i) {
            k += s->couplings[j].stiffness;
            c += s->couplings[j].damping;
        }
    for (int j = 0; j < m->ns; j++)
        if (!is_rigid(m, j) && (m->snode[j][0] == i || m->snode[j][1] == i))
            k_stop += s->stops[j].p.stiffness;
    return stsl_contact_time_scale(m->mass[i], k > 0.0 ? k : k_stop, f, l, c);
}

/* The natural scale of each state component, which an atol derived from
 * rtol follows (stsl_hsolver_atol: rtol 0.001 scale).  Why: CVODE weighs
 * component i with 1 / (rtol |y_i| + atol_i).  A fixed atol (the old
 * 1e-12) is a length in metres whatever the system: for the Janecek chirp
 * (x ~ 3e-3 m) it capped the accuracy at 4.5e-10 s whatever rtol asked
 * for, and for a machine of kilometres it would be wasted work.  Scaled so,
 * a component near zero (v at every stick, x at every crossing) is held to
 * rtol relative to the size it has in this motion, so event times, which
 * follow from v or a force reaching zero (dt = dv / |a|), keep following
 * rtol down to round-off.
 *   Force F: the smallest of the static friction levels and the force
 * inputs' sizes, because a friction level far above the driving force (a
 * LuGre contact of 1e8 N pushed with 1 N) says nothing about how far or
 * fast the bodies move: the driving force does.
 *   Length L: the smallest length, so that no feature goes unresolved: the
 * stick band F/k of every coupling and compliant stop, the stops' ranges, a
 * compliant stop's penetration at the initial speed, an oscillating base
 * or anchor motion's amplitude, LuGre's presliding deflection F/sigma0; 1
 * when there is none.
 *   Per body the time T (body_time_scale): x scale L, v scale L/T (with a
 * spring and L = F/k this is F / sqrt(k m), the speed a released stick band
 * reaches).  LuGre's bristle force sigma0 z: scale F (else 1). */
static void state_scales(stsl_multibody *m)
{
    const stsl_system *s = m->s;
    double f = INFINITY, l = INFINITY;
    for (int c = 0; c < m->nc; c++)
        stsl_contact_keep_smaller(&f, stsl_friction_scale(&s->contacts[c].friction));
    for (int k = 0; k < s->n_forces; k++)
        stsl_contact_keep_smaller(&f, stsl_signal_spec_size(&s->forces[k].signal));
    for (int c = 0; c < m->nc; c++)
        if (s->contacts[c].has_load)
            stsl_contact_keep_smaller(&f, stsl_signal_spec_size(&s->contacts[c].load));
    if (!isfinite(f)) f = 0.0;
    for (int k = 0; k < s->n_couplings; k++)
        stsl_contact_keep_smaller(&l, f / s->couplings[k].stiffness);
    for (int k = 0; k < m->ns; k++) {
        stsl_contact_keep_smaller(&l, s->stops[k].p.x_max - s->stops[k].p.x_min);
        if (!is_rigid(m, k)) stsl_contact_keep_smaller(&l, f / s->stops[k].p.stiffness);
    }
    stop_entry_lengths(m, &l);
    stsl_contact_keep_smaller(&l, stsl_signal_spec_oscillation(&s->base_motion));
    if (s->has_anchor)
        stsl_contact_keep_smaller(&l, stsl_signal_spec_oscillation(&s->anchor_motion));
    for (int c = 0; c < m->nc; c++) /* LuGre's bristle deflection under F */
        if (m->zidx[c] >= 0) stsl_contact_keep_smaller(&l, f / s->contacts[c].friction.sigma0);
    if (!isfinite(l)) l = 1.0;
    for (int c = 0; c < m->nc; c++) /* sigma0 z: a force */
        if (m->zidx[c] >= 0) m->scale[m->zidx[c]] = f > 0.0 ? f : 1.0;
    for (int i = 0; i < m->nb; i++) {
        double t = body_time_scale(m, i, f, l);
        m->scale[i] = l;
        m->scale[m->nb + i] = l / t;
    }
}

/* Is body i joined by a spring (or, with_stops, a compliant stop) to
 * another body? */
static int joined_to_body(const stsl_multibody *m, int i, int with_stops)
{
    for (int j = 0; j < m->s->n_couplings; j++)
        for (int e = 0; e < 2; e++)
            if (m->knode[j][e] == i && m->knode[j][1 - e] < m->nb) return 1;
    for (int k = 0; with_stops && k < m->ns; k++)
        for (int e = 0; e < 2; e++)
            if (!is_rigid(m, k) && m->snode[k][e] == i && m->snode[k][1 - e] < m->nb) return 1;
    return 0;
}

/* 2 pi / 20 of the fastest natural period: omega^2 <= max_i of the row sum
 * of M^-1 K (Gershgorin), K from the couplings (and, in contact, the
 * compliant stops); a body joined to fixed ends only has its own period
 * 2 pi sqrt(m/k), written as the element writes it (the same in exact
 * arithmetic, and so the same step bound to the last bit). */
static double natural_step(const stsl_multibody *m, int with_stops)
{
    const stsl_system *s = m->s;
    double w2 = 0.0, period = INFINITY;
    int coupled = 0;
    for (int i = 0; i < m->nb; i++) {
        double row = 0.0;
        for (int j = 0; j < s->n_couplings; j++)
            for (int e = 0; e < 2; e++)
                if (m->knode[j][e] == i)
                    row += s->couplings[j].stiffness * (m->knode[j][1 - e] < m->nb ? 2.0 : 1.0);
        for (int k = 0; with_stops && k < m->ns; k++)
            for (int e = 0; e < 2; e++)
                if (!is_rigid(m, k) && m->snode[k][e] == i)
                    row += s->stops[k].p.stiffness * (m->snode[k][1 - e] < m->nb ? 2.0 : 1.0);
        w2 = fmax(w2, row / m->mass[i]);
        if (row > 0.0 && !joined_to_body(m, i, with_stops)) /* the element's expression */
            period = fmin(period, 2.0 * M_PI * sqrt(m->mass[i] / row));
        else if (row > 0.0)
            coupled = 1;
    }
    if (coupled) period = fmin(period, 2.0 * M_PI / sqrt(w2));
    return stsl_contact_natural_step(period);
}

/* ---- create / free ------------------------------------------------------------------ */

/* Does contact c start every slip with zero relative acceleration (its
 * slip level at w = 0+ is its static one: stribeck, or F_S = F_D)? */
static int slips_from_rest(const stsl_multibody *m, int c)
{
    const stsl_friction_params *f = &m->s->contacts[c].friction;
    return f->law == STSL_LAW_STRIBECK || (f->law == STSL_LAW_COULOMB && f->static_ratio == 1.0);
}

/* Integrate in the base's frame (SPEC §1: x relative to the carrier, the
 * base's acceleration as the inertia force -m a_b) when every contact and
 * every stop joins a body to the base and no coupling joins two bodies:
 * then the relative motion the contacts switch on is the state itself,
 * not a small difference of two large absolute positions (the Janecek
 * base swings 0.05 m around a relative motion of 3e-3 m).  A base at rest
 * at 0 is the ground: no frame.
 *   Also, whatever joins two bodies, when no contact or stop touches the
 * ground or the anchor and a contact on the base slips from rest at zero
 * relative acceleration (slips_from_rest): its w then grows as t^2 from
 * 0, 1e-11 m/s a microsecond after the breakaway, and as a difference of
 * absolute velocities it is below their rounding (3e-16 at 0.6 m/s) for
 * nanoseconds and below the interpolation error of a step's velocity
 * polynomial (|jerk| h^2 / 8, 4e-12 m/s) for its first steps: the new
 * slip's velocity guard fired on that noise and the contact stuck again
 * past its band (exit 3, or before a stuck force 1.8 N over it).  In the
 * frame w is the state, exact 0 at the breakaway, as the element has it;
 * couplings and contacts between two bodies are differences of states in
 * either frame. */
static int in_base_frame(const stsl_multibody *m)
{
    const stsl_system *s = m->s;
    double b[3] = {0.0, 0.0, 0.0};
    stsl_signal_eval(m->base, 0.0, 0, b);
    if (!m->base_moves && b[0] == 0.0) return 0;
    int base = m->nb + STSL_END_BASE - 1, only_base = 1, from_rest = 0, strict = 1;
    for (int c = 0; c < m->nc; c++) {
        const int *e = m->cnode[c];
        strict &= (e[0] != base) != (e[1] != base) && (e[0] < m->nb || e[1] < m->nb);
        only_base &= (e[0] < m->nb || e[0] == base) && (e[1] < m->nb || e[1] == base);
        from_rest |= (e[0] == base || e[1] == base) && slips_from_rest(m, c);
    }
    for (int k = 0; k < m->ns; k++) {
        const int *e = m->snode[k];
        strict &= (e[0] != base) != (e[1] != base) && (e[0] < m->nb || e[1] < m->nb);
        only_base &= (e[0] < m->nb || e[0] == base) && (e[1] < m->nb || e[1] == base);
    }
    for (int k = 0; k < s->n_couplings; k++)
        strict &= !(m->knode[k][0] < m->nb && m->knode[k][1] < m->nb);
    return m->nb > 0 && (strict || (only_base && from_rest));
}

int stsl_multibody_in_base_frame(const stsl_multibody *m)
{
    return m->frame;
}

int stsl_multibody_member_state(const stsl_multibody *m, stsl_mode_code mode, int i)
{
    const uint8_t *v = mode_vec(m, mode);
    return v && i >= 0 && i < m->L ? v[i] : -1;
}

/* Contact c's name for SPEC §4's tie rule: its own name, else the names
 * of its two ends sorted and joined by '/' ("block/rider", "base/block"),
 * so that neither the order of the file nor the order of `between` changes
 * it; its orientation there is +1 when ends[0] sorts first.  A given name
 * has no '/' (stsl_system_check), so it never equals a default one. */
static void tie_name(const stsl_system *s, int c, char *out, int *orient)
{
    const stsl_contact *ct = &s->contacts[c];
    const char *a = stsl_system_end_name(s, ct->ends[0]), *b = stsl_system_end_name(s, ct->ends[1]);
    *orient = strcmp(a, b) <= 0 ? +1 : -1;
    if (ct->name[0])
        snprintf(out, 2 * STSL_BODY_NAME_MAX + 2, "%s", ct->name);
    else
        snprintf(out, 2 * STSL_BODY_NAME_MAX + 2, "%s/%s", *orient > 0 ? a : b,
                 *orient > 0 ? b : a);
}

#define ARRAY(p, count) STSL_ARRAY(release, p, count)

/* A mode's arrays (prepared); 0, or nonzero out of memory. */
static int prepared_arrays(const stsl_multibody *m, prepared *p, int ng, int release)
{
    int nb = m->nb, nc = m->nc, ns = m->ns, ne = nc + ns;
    if (release) stsl_cstr_ws_free(p->ws);
    p->code = STSL_NO_MODE;
    return ARRAY(p->vec, m->L) | ARRAY(p->edges, ne) | ARRAY(p->contact_edge, nc) |
           ARRAY(p->share, nc) | ARRAY(p->share_varies, ne) | ARRAY(p->stop_edge, ns) |
           ARRAY(p->guards, ng) | ARRAY(p->tree, ne) | ARRAY(p->parent, nb + 1) |
           ARRAY(p->depth, nb + 1) | ARRAY(p->cap, ne) | ARRAY(p->dirs, ng) |
           ARRAY(p->group_edge, nc) | ARRAY(p->free, nb) | ARRAY(p->need_edge, ne) |
           ARRAY(p->need_body, ne) | ARRAY(p->need_mark, ne) | ARRAY(p->fric_skip, nc);
}

/* The model's arrays but those its layout and mode table make (ng: the
 * most guards of a mode); 0, or nonzero out of memory. */
static int arrays(stsl_multibody *m, int ng, int release)
{
    int nb = m->nb, nc = m->nc, ns = m->ns, L = m->L, n = m->n;
    int ne = nc + ns, nn = nb + N_FIXED, nf = m->s->n_forces, nk = m->s->n_couplings;
    return ARRAY(m->mass, nb) | ARRAY(m->force_sig, nf) | ARRAY(m->cnode, nc) |
           ARRAY(m->snode, ns) | ARRAY(m->knode, nk) | ARRAY(m->stop_ops, ns) |
           ARRAY(m->desc_dirs, ng) | ARRAY(m->force, nb) | ARRAY(m->acc, nb) |
           ARRAY(m->lambda, ne) | ARRAY(m->label, nn) | ARRAY(m->xs, nn) | ARRAY(m->lmark, nn) |
           ARRAY(m->vs, nn) | ARRAY(m->cur, L) | ARRAY(m->next, L) | ARRAY(m->cur_keep, L) |
           ARRAY(m->affected, nb) | ARRAY(m->settle_at, ns) | ARRAY(m->y_look, n) |
           ARRAY(m->rate, n) | ARRAY(m->kicked, nb) | ARRAY(m->jumped, nc) | ARRAY(m->jflag, nc) |
           ARRAY(m->group, nc) | ARRAY(m->jlist, nc) | ARRAY(m->before, nc) | ARRAY(m->chosen, nc) |
           ARRAY(m->changed_by_impact, ns) | ARRAY(m->gfired, ng) |
           ARRAY(m->pend, 2 * (nc + ns) + 2) | ARRAY(m->scale, n) | ARRAY(m->tie, nc) |
           ARRAY(m->orient, nc) | ARRAY(m->reached, nc) | ARRAY(m->hit, nb) |
           ARRAY(m->reach_body, nb) | ARRAY(m->junit, nc) | ARRAY(m->jsign, nc) |
           ARRAY(m->urep, nc) | ARRAY(m->ubefore, nc) | ARRAY(m->ureached, nc) |
           ARRAY(m->uchosen, nc) | ARRAY(m->jstate, nc) | ARRAY(m->wacc, nc) |
           ARRAY(m->mstat, 2 * nc) | ARRAY(m->impact_w, ns) | ARRAY(m->load_sig, nc) |
           ARRAY(m->load_varies, nc) | ARRAY(m->lev0, nc) | ARRAY(m->rest_slip, nc) |
           ARRAY(m->split_hi, ne) | ARRAY(m->split_lo, ne) | ARRAY(m->split_ends, ne) |
           ARRAY(m->yabs, n) | ARRAY(m->inc_start, nb + 1) |
           ARRAY(m->inc, nf + 2 * nk + 3 * nc + 2 * ns) | ARRAY(m->pair_rep, nc) |
           prepared_arrays(m, &m->prep, ng, release) | prepared_arrays(m, &m->cand, ng, release);
}
#undef ARRAY

static int alloc_all(stsl_multibody *m, int max_guards)
{
    int nb = m->nb, nc = m->nc, ns = m->ns, ne = nc + ns;
    if (arrays(m, max_guards, 0)) return -1;
    for (int c = 0; c < nc; c++) { /* the levels without load, once */
        double *l = m->lev0[c];
        stsl_friction_levels(&m->s->contacts[c].friction, +1, 0.0, &l[0], &l[1]);
        stsl_friction_levels(&m->s->contacts[c].friction, -1, 0.0, &l[2], &l[3]);
    }
    m->max_pend = 2 * (nc + ns) + 2;
    m->ws = stsl_cstr_ws_create(nb, N_FIXED, ne);
    m->split = stsl_split_ws_create(nb + 1, ne);
    m->prep.ws = stsl_cstr_ws_create(nb, N_FIXED, ne);
    m->cand.ws = stsl_cstr_ws_create(nb, N_FIXED, ne);
    return m->ws && m->split && m->prep.ws && m->cand.ws ? 0 : -1;
}

static int make_signals(stsl_multibody *m, stsl_error *err)
{
    const stsl_system *s = m->s;
    stsl_signal_spec none = {.type = STSL_SIG_CONSTANT};
    for (int k = 0; k < s->n_forces; k++)
        if (!(m->force_sig[k] = stsl_signal_create(&s->forces[k].signal, err))) return -1;
    for (int c = 0; c < m->nc; c++) {
        if (!s->contacts[c].has_load) continue;
        if (!(m->load_sig[c] = stsl_signal_create(&s->contacts[c].load, err))) return -1;
        m->load_varies[c] = !stsl_signal_is_constant(m->load_sig[c]);
    }
    m->base = stsl_signal_create(&s->base_motion, err);
    if (!m->base) return -1;
    m->anchor = stsl_signal_create(s->has_anchor ? &s->anchor_motion : &none, err);
    if (!m->anchor) return -1;
    m->base_moves = !stsl_signal_is_constant(m->base);
    m->anchor_moves = !stsl_signal_is_constant(m->anchor);
    return 0;
}

stsl_multibody *stsl_multibody_create(const stsl_system *s, double rtol, double atol,
                                      stsl_error *err)
{
    return stsl_multibody_create_in(s, rtol, atol, 0, err);
}

stsl_multibody *stsl_multibody_create_in(const stsl_system *s, double rtol, double atol,
                                         int absolute, stsl_error *err)
{
    stsl_multibody *m = calloc(1, sizeof *m);
    if (!m) goto nomem;
    m->s = s;
    m->nb = s->n_bodies;
    m->nc = s->n_contacts;
    m->ns = s->n_stops;
    m->n = 2 * m->nb;
    m->zidx = malloc((size_t)(m->nc > 0 ? m->nc : 1) * sizeof *m->zidx);
    if (!m->zidx) goto nomem;
    for (int c = 0; c < m->nc; c++) /* the bristle states follow (x, v) */
        m->zidx[c] = s->contacts[c].friction.law == STSL_LAW_LUGRE ? m->n++ : -1;
    m->L = m->nc + m->ns;
    int max_guards = 2 * (m->nc + m->ns);
    if (alloc_all(m, max_guards > 0 ? max_guards : 1)) goto nomem;
    if (make_signals(m, err)) goto fail;
    for (int i = 0; i < m->nb; i++)
        m->mass[i] = s->bodies[i].mass;
    for (int c = 0; c < m->nc; c++) {
        for (int e = 0; e < 2; e++)
            m->cnode[c][e] = node_of(m, s->contacts[c].ends[e]);
        tie_name(s, c, m->tie[c], &m->orient[c]);
    }
    for (int k = 0; k < m->ns; k++) {
        for (int e = 0; e < 2; e++)
            m->snode[k][e] = node_of(m, s->stops[k].ends[e]);
        m->stop_ops[k] = stsl_end_stop(s->stops[k].model);
    }
    for (int k = 0; k < s->n_couplings; k++)
        for (int e = 0; e < 2; e++)
            m->knode[k][e] = node_of(m, s->couplings[k].ends[e]);
    m->frame = absolute ? 0 : in_base_frame(m);
    build_incidence(m);
    state_scales(m);
    m->rtol = rtol > 0.0 ? rtol : 1e-10;
    double vscale = 0.0;
    m->atol_x = INFINITY;
    for (int i = 0; i < m->nb; i++) {
        double a[2];
        double sc[2] = {m->scale[i], m->scale[m->nb + i]};
        stsl_hsolver_atol(sc, 2, m->rtol, atol, a);
        m->atol_x = fmin(m->atol_x, a[0]);
        vscale = fmax(vscale, a[1]);
    }
    if (!(m->atol_x < INFINITY)) m->atol_x = m->rtol;
    m->vtol = ZERO_SPEED_TOLS * vscale;
    m->natural_step = natural_step(m, 0);
    m->contact_step = natural_step(m, 1);
    m->t_seg = -INFINITY;
    for (int k = 0; k < m->ns; k++)
        m->settle_at[k] = INFINITY;
    if (stsl_mb_init_layout(m)) goto nomem;
    for (int i = 0; m->frame && i < 2 * m->nb; i++) /* x, v: the state plus the base's */
        m->col_state[i] = -1;
    /* A smooth law is a near-discontinuity when its slope is steep: stiff
     * (BDF), as for the element. */
    int stiff = 0;
    for (int c = 0; c < m->nc; c++)
        stiff |= stsl_law_is_smooth(s->contacts[c].friction.law);
    m->model = (stsl_hmodel){&stsl_mb_ops, m,
                             m->n,         max_guards > 0 ? max_guards : 1,
                             &m->layout,   m->state_names,
                             stiff,        m->scale,
                             m->col_state};
    return m;
nomem:
    stsl_error_set(err, STSL_ENOMEM, "out of memory creating the system");
fail:
    stsl_multibody_free(m);
    return NULL;
}

void stsl_multibody_free(stsl_multibody *m)
{
    if (!m) return;
    for (int k = 0; m->force_sig && k < m->s->n_forces; k++)
        stsl_signal_free(m->force_sig[k]);
    for (int c = 0; m->load_sig && c < m->nc; c++)
        stsl_signal_free(m->load_sig[c]);
    stsl_signal_free(m->base);
    stsl_signal_free(m->anchor);
    stsl_cstr_ws_free(m->ws);
    stsl_split_ws_free(m->split);
    arrays(m, 0, 1);
    void *all[] = {m->zidx,      m->table,          m->hash,
                   m->cols,      m->names,          (void *)m->state_names,
                   m->col_state, (void *)m->members};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
    free(m);
}

double *stsl_multibody_atol(const stsl_system *s, double rtol, double atol, int *n, stsl_error *err)
{
    stsl_multibody *m = stsl_multibody_create(s, rtol, atol, err);
    if (!m) return NULL;
    double *out = malloc((size_t)m->n * sizeof *out);
    if (out) {
        stsl_hsolver_atol(m->scale, m->n, m->rtol, atol, out);
        *n = m->n;
    } else {
        stsl_error_set(err, STSL_ENOMEM, "out of memory deriving the system's atol");
    }
    stsl_multibody_free(m);
    return out;
}

const stsl_hmodel *stsl_multibody_model(const stsl_multibody *m)
{
    return &m->model;
}

void stsl_multibody_initial_state(const stsl_multibody *m, double *y0)
{
    double b[3] = {0.0, 0.0, 0.0};
    if (m->frame) stsl_signal_eval(m->base, 0.0, 0, b);
    for (int i = 0; i < m->nb; i++) {
        y0[i] = m->s->bodies[i].x0 - b[0];
        y0[m->nb + i] = m->s->bodies[i].v0 - b[1];
    }
    for (int k = 2 * m->nb; k < m->n; k++) /* LuGre's bristles start relaxed */
        y0[k] = 0.0;
}

/* ---- fixed-step use ------------------------------------------------------------ */

stsl_mode_code stsl_multibody_mode_code(stsl_multibody *m, const uint8_t *vec)
{
    return stsl_mb_intern(m, vec);
}

int stsl_multibody_eval_forces(stsl_multibody *m, const uint8_t *vec, double t, const double *y,
                               stsl_multibody_forces *out)
{
    stsl_mode_code code = stsl_mb_intern(m, vec);
    const prepared *p = code < 0 ? NULL : stsl_mb_prepare(m, code);
    if (!p) return -1;
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    int rc = stsl_mb_solve(m, p, &fm, t, y, NULL, NULL);
    if (rc) return rc > 0 ? 1 : -1;
    memcpy(out->acc, m->acc, (size_t)m->nb * sizeof *out->acc);
    for (int i = 0; i < m->n; i++)
        out->zrate[i] = 0.0;
    for (int c = 0; c < m->nc; c++) {
        const stsl_friction_params *fp = &m->s->contacts[c].friction;
        double load = contact_load(m, c, &fm);
        out->w[c] = rel_v(m, &fm, y, m->cnode[c]);
        out->friction[c] = stsl_mb_contact_friction(m, p, c, &fm, y, out->w[c]);
        stsl_friction_levels(fp, +1, load, &out->fd_pos[c], &out->fs_pos[c]);
        stsl_friction_levels(fp, -1, load, &out->fd_neg[c], &out->fs_neg[c]);
        if (m->zidx[c] >= 0) out->zrate[m->zidx[c]] = bristle_rate(m, c, out->w[c], y);
    }
    for (int k = 0; k < m->ns; k++) {
        out->stop_x[k] = rel_x(m, &fm, y, m->snode[k]);
        out->stop_w[k] = rel_v(m, &fm, y, m->snode[k]);
        out->stop_pull[k] = p->stop_edge[k] >= 0 ? stsl_mb_stop_pull(m, p, k, &fm) : 0.0;
    }
    return 0;
}

void stsl_multibody_fixed_motion(const stsl_multibody *m, double t, double x[3], double v[3],
                                 double a[3])
{
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    memcpy(x, fm.x, sizeof fm.x);
    memcpy(v, fm.v, sizeof fm.v);
    memcpy(a, fm.a, sizeof fm.a);
}

void stsl_multibody_set_full_guards(stsl_multibody *m, int full)
{
    m->full_guards = full;
}

long stsl_multibody_leaf_evals(const stsl_multibody *m)
{
    return m->leaf_evals;
}
