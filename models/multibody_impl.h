/* multibody_impl.h - the engine's private parts: what the files of the
 * multibody model (models/multibody.h) share, as SUNDIALS' cvode_impl.h
 * is CVODE's.  PRIVATE: included only by models/multibody*.c
 * (scripts/check_layers fails on any other includer); nothing here is
 * API, and everything may change with the engine.
 *
 * The model is one struct (stsl_multibody, below) that several files work
 * on, each one job:
 *   multibody.c              creating and freeing the model, its natural
 *                            scales, the public entry points (multibody.h)
 *   multibody_modes.c        the mode table; a mode's constraints and guards
 *   multibody_mechanics.c    the forces and the constraint solve at (t, y)
 *   multibody_callbacks.c    the solver's callbacks (right-hand side, guards,
 *                            step bounds) and the table of them
 *   multibody_layout.c       the result columns, their values, mode names
 *   multibody_decisions.c    which contacts stick or slip at an event
 *                            (consistency and the order of choice)
 *   multibody_transitions.c  the event itself: impacts, stops, velocities,
 *                            the events recorded
 *
 * Small helpers that every part uses, some on the hot paths (the
 * right-hand side and the guards), are static inline here, so that they
 * inline as they did within one file; the functions one file defines for
 * another are declared at the end under the file's name, prefixed
 * stsl_mb_; everything else is static in its file. */

#ifndef STSL_MULTIBODY_IMPL_H
#define STSL_MULTIBODY_IMPL_H

#include <stdint.h>

#include "physics/end_stop.h"
#include "models/cluster.h"
#include "models/loop_split.h"
#include "models/multibody.h"
#include "physics/signal.h"
#include "physics/smooth_friction.h"

/* The fixed ends as cluster nodes after the bodies: ground, base, anchor
 * (stsl_end_kind - 1). */
#define N_FIXED 3
/* The contact's rules and tolerances (rounding level of a force balance,
 * look-ahead, impact and bounces, natural scales): physics/contact.h. */
/* A contact's relative velocity counts as zero at an event within this
 * many velocity tolerances (rtol * scale): what the root location and the
 * integration of two bodies held together leave of an exact zero. */
#define ZERO_SPEED_TOLS 100.0

/* What a guard of the current mode watches. */
typedef enum gtype {
    G_SLIP,      /* a slipping contact's w_c */
    G_BAND_POS,  /* a stuck contact: -lambda - F_S(+1), rising: breakaway + */
    G_BAND_NEG,  /* lambda - F_S(-1), rising: breakaway - */
    G_LOAD,      /* a slipping contact's load F_R, either way: the other level branch */
    G_GAP,       /* an open rigid stop: x_rel - limit at `side` */
    G_REACTION,  /* a closed rigid stop's reaction reaching 0 */
    G_COMPLIANT, /* a compliant stop's contact guard at `side` */
} gtype;

typedef struct guard_ref {
    gtype type;
    int index; /* contact or stop */
    int side;  /* stops: +1 max, -1 min */
    int dir;
} guard_ref;

/* A mode, decoded and prepared for evaluation (edges, guards). */
typedef struct prepared {
    stsl_mode_code code;
    uint8_t *vec; /* n_contacts contact states, then n_stops stop states */
    int n_edges;
    int (*edges)[2];
    int *contact_edge, *stop_edge; /* edge of a stuck contact / closed rigid stop, or -1 */
    double *share; /* a stuck contact's part of its edge's lambda (parallel contacts) */
    /* Per edge: parallel contacts one of which carries a load.  Their
     * levels differ by direction and follow the load in time, so their
     * parts are taken at the instant from the levels of the direction
     * the edge's force pulls (stsl_mb_parallel_lambda), not from share. */
    uint8_t *share_varies;
    /* Loops of constraints (statically indeterminate): n_cycles independent
     * ones (0: a forest, the constraint forces unique). */
    int n_cycles;
    int *parent, *tree; /* spanning forest scratch */
    int *depth;         /* build_cycles: 1 on a node with an edge, until visited */
    double *cap;        /* per edge: the sum of its stuck contacts' levels (share_parallel) */
    guard_ref *guards;
    int *dirs;
    int n_guards;
    int frozen, in_contact; /* a compliant stop in contact */
    stsl_cstr_ws *ws;       /* the constraint graph's analysis (see solve) */
    int *group_edge;        /* build_edges: the edge of the contacts of pair_rep c, or -1 */
    int *free, n_free;      /* the bodies of clusters without a fixed end (prepare) */
    /* The current mode's guards (prepare): whether any reads a constraint
     * force; the edges they read, once each, with the body whose own
     * balance gives each (stsl_cstr_leaf, -1: none); leaves_only: every
     * one has such a body (see leaf_lambdas). */
    int needs_lambda, leaves_only, n_need;
    int *need_edge, *need_body, *need_mark; /* need_mark: per edge, scratch */
    uint8_t *fric_skip; /* per contact: no end is a need_body (its friction is not read) */
} prepared;

/* One evaluation of the forces and the constraints at (t, y). */
typedef struct fixed_motion {
    double x[N_FIXED], v[N_FIXED], a[N_FIXED];
    double t; /* and the time, at which the contacts' loads apply */
} fixed_motion;

/* A term of a body's applied force (applied_forces, in its order). */
typedef enum inc_kind { I_FORCE, I_COUPLING, I_LOAD, I_FRICTION, I_STOP } inc_kind;
typedef struct incidence {
    inc_kind kind;
    int index; /* force, coupling, contact or stop */
    int end;   /* the body is ends[0] (+) or ends[1] (-) of the pair */
} incidence;

typedef struct pending {
    int kind, subject;
} pending;

struct stsl_multibody {
    const stsl_system *s;
    int nb, nc, ns, n, L; /* bodies, contacts, stops, state size, mode vector length */
    double *mass;
    stsl_signal **force_sig, *base, *anchor;
    stsl_signal **load_sig; /* per contact: its load F_R, NULL without one */
    int *load_varies;       /* per contact: a load that is not constant (its reversal guard) */
    double (*lev0)[4];      /* per contact at load 0: F_D(+1), F_S(+1), F_D(-1), F_S(-1) */
    int *pair_rep; /* per contact: the first contact between the same two ends (same_pair) */
    /* per body the terms of applied_forces that act on it, in its order:
     * inc[inc_start[i] .. inc_start[i + 1]) (body_force) */
    int *inc_start;
    struct incidence *inc;
    int *zidx; /* per contact: index of LuGre's bristle force sigma0 z in y, -1: not LuGre */
    int base_moves, anchor_moves;
    /* 1: positions and velocities are relative to the base (the body's
     * frame when every contact and stop acts on the base, as the element
     * integrates; see in_base_frame); yabs: their absolute values, scratch */
    int frame;
    double *yabs;
    int full_guards; /* stsl_multibody_set_full_guards */
    long leaf_evals; /* guards() by the leaves' balances (stsl_multibody_leaf_evals) */
    double *xs, *vs; /* applied_forces: every node's position and velocity, scratch */
    int *lmark;      /* reach: per component label, scratch */
    int (*cnode)[2], (*snode)[2], (*knode)[2]; /* contact, stop, coupling end nodes */
    const stsl_end_stop_ops **stop_ops;
    double rtol, atol_x, vtol;
    double t_seg;
    int no_split;      /* solve: skip the split of loops' forces (the rhs needs none) */
    double *settle_at; /* per stop: end of the bounces left out (INFINITY: none) */
    double natural_step, contact_step;
    /* mode table: L bytes per mode, open-addressing hash of indices */
    uint8_t *table;
    long n_modes, cap;
    long *hash, hcap;
    prepared prep, cand; /* the mode being evaluated; candidates at events */
    int *desc_dirs;      /* describe's copy of the guard directions */
    /* evaluation scratch */
    double *force, *acc, *lambda;
    int *label;
    stsl_cstr_ws *ws;
    stsl_split_ws *split; /* a loop's split (rebalance): its workspace, bands, nodes */
    double *split_hi, *split_lo;
    int (*split_ends)[2];
    /* transition scratch */
    uint8_t *cur, *next, *cur_keep;
    int *affected, *kicked, *jumped, *jflag, *group, *jlist, *before, *chosen, *changed_by_impact;
    /* the order of choice (SPEC §4): per contact its name for the tie rule
     * and its orientation there (+1: ends[0] is the end whose name sorts
     * first), whether it reached a switching condition; per body whether
     * the event changed forces on it (hit: a stop's event; reach: hit,
     * moved by a jump, or joined to either) */
    char (*tie)[2 * STSL_BODY_NAME_MAX + 2];
    int *orient, *reached, *hit, *reach_body;
    double *wacc;     /* per contact: its relative acceleration before the event */
    int *rest_slip;   /* per contact: slipping since an event that started it at w = 0 */
    int *mstat;       /* consistent's margins: 2 per contact */
    double *impact_w; /* per stop: its last impact's speed in velocity tolerances (<= 1: zero) */
    /* the decision's units (parallel contacts are one), in tie-rule order:
     * per J contact its unit and sign in it; per unit its representative,
     * state before, reached flag, chosen state; per J contact its state */
    int *junit, *jsign, *urep, *ubefore, *ureached, *uchosen, *jstate;
    guard_ref *gfired; /* the guards of the mode before an event */
    double t_ev;
    const double *y_ev;
    double *y_look, *rate; /* consistent's look-ahead state and rates (bodies, bristles) */
    int n_j;
    pending *pend;
    int n_pend, i_pend, max_pend;
    /* results */
    stsl_column *cols;
    int *col_state; /* x and v of each body are state components (stsl_hmodel.col_state) */
    char *names;
    const char **members; /* body names, then contacts' and stops' (the subjects) */
    stsl_col_group groups[8];
    stsl_layout layout;
    const char **state_names;
    double *scale;
    stsl_hmodel model;
};

/* ---- nodes and motion -------------------------------------------------------- */

/* In the base's frame every fixed end moves relative to the base (the
 * base rests at 0, the ground moves by -x_b); the bodies feel the
 * inertia force -m a_b, the ground's acceleration times their mass
 * (applied_forces). */
static inline void to_base_frame(const stsl_multibody *m, fixed_motion *fm)
{
    if (!m->frame) return;
    double xb = fm->x[1], vb = fm->v[1], ab = fm->a[1];
    for (int f = 0; f < N_FIXED; f++) {
        fm->x[f] -= xb;
        fm->v[f] -= vb;
        fm->a[f] -= ab;
    }
}

static inline void eval_fixed(const stsl_multibody *m, double t, fixed_motion *fm)
{
    int left = t > m->t_seg;
    double b[3] = {0, 0, 0}, a[3] = {0, 0, 0};
    stsl_signal_eval(m->base, t, left, b);
    stsl_signal_eval(m->anchor, t, left, a);
    *fm = (fixed_motion){{0.0, b[0], a[0]}, {0.0, b[1], a[1]}, {0.0, b[2], a[2]}, t};
    to_base_frame(m, fm);
}

/* Contact c's load F_R at the evaluation's time (0 without one). */
static inline double contact_load(const stsl_multibody *m, int c, const fixed_motion *fm)
{
    return m->load_sig[c] ? stsl_signal_value(m->load_sig[c], fm->t, fm->t > m->t_seg) : 0.0;
}

static inline double node_x(const stsl_multibody *m, const fixed_motion *fm, const double *y,
                            int node)
{
    return node < m->nb ? y[node] : fm->x[node - m->nb];
}

static inline double node_v(const stsl_multibody *m, const fixed_motion *fm, const double *y,
                            int node)
{
    return node < m->nb ? y[m->nb + node] : fm->v[node - m->nb];
}

static inline double node_a(const stsl_multibody *m, const fixed_motion *fm, const double *acc,
                            int node)
{
    return node < m->nb ? acc[node] : fm->a[node - m->nb];
}

/* Relative position and velocity of a pair: ends[0] minus ends[1]. */
static inline double rel_x(const stsl_multibody *m, const fixed_motion *fm, const double *y,
                           const int *pair)
{
    return node_x(m, fm, y, pair[0]) - node_x(m, fm, y, pair[1]);
}

static inline double rel_v(const stsl_multibody *m, const fixed_motion *fm, const double *y,
                           const int *pair)
{
    return node_v(m, fm, y, pair[0]) - node_v(m, fm, y, pair[1]);
}

/* ---- modes and constraints --------------------------------------------------- */

static inline const uint8_t *mode_vec(const stsl_multibody *m, stsl_mode_code code)
{
    return code >= 0 && code < m->n_modes ? m->table + code * m->L : NULL;
}

static inline int is_rigid(const stsl_multibody *m, int k)
{
    return !m->stop_ops[k]->compliant;
}

/* A node as a constraint sees it: a base or anchor that does not move is
 * the ground (its constant position matters for gaps, not for forces). */
static inline int canon(const stsl_multibody *m, int node)
{
    int f = node - m->nb;
    if ((f == 1 && !m->base_moves) || (f == 2 && !m->anchor_moves)) return m->nb;
    return node;
}

/* Does contact c run its constraint edge e's way (its first end on the
 * edge's first end)?  Its part of the edge's force then has the edge's
 * sign. */
static inline int runs_with_edge(const stsl_multibody *m, const prepared *p, int e, int c)
{
    return canon(m, p->edges[e][0]) == canon(m, m->cnode[c][0]);
}

/* Do the pairs join the same two nodes (either order)? */
static inline int same_pair(const stsl_multibody *m, const int *a, const int *b)
{
    int a0 = canon(m, a[0]), a1 = canon(m, a[1]), b0 = canon(m, b[0]), b1 = canon(m, b[1]);
    return (a0 == b0 && a1 == b1) || (a0 == b1 && a1 == b0);
}

/* The contracted node of the cycle space: every fixed end is one node
 * (each absorbs any force), bodies are themselves. */
static inline int cnode_of(const stsl_multibody *m, int node)
{
    return node < m->nb ? node : m->nb;
}

/* The edge whose constraint force guard g reads (a band or a reaction
 * guard), else -1. */
static inline int guard_edge(const prepared *p, const guard_ref *g)
{
    return g->type == G_BAND_POS || g->type == G_BAND_NEG ? p->contact_edge[g->index]
           : g->type == G_REACTION                        ? p->stop_edge[g->index]
                                                          : -1;
}

/* ---- forces ------------------------------------------------------------------ */

/* LuGre's third state is its bristle force s = sigma0 z, not z (the
 * element's scaling): z is tiny (Tc / sigma0) while s is of the order of
 * the friction force, so one absolute tolerance fits it and the forces. */
static inline double bristle_z(const stsl_multibody *m, int c, const double *y)
{
    return y[m->zidx[c]] / m->s->contacts[c].friction.sigma0;
}

/* LuGre contact c's force on its ends[0] at relative velocity w. */
static inline double lugre_force(const stsl_multibody *m, int c, double w, const double *y)
{
    return -stsl_lugre_force(&m->s->contacts[c].friction, w, bristle_z(m, c, y));
}

/* The rate of LuGre contact c's bristle force: sigma0 z'. */
static inline double bristle_rate(const stsl_multibody *m, int c, double w, const double *y)
{
    const stsl_friction_params *fp = &m->s->contacts[c].friction;
    return fp->sigma0 * stsl_lugre_zdot(fp, w, bristle_z(m, c, y));
}

/* multibody_mechanics.c: */
void stsl_mb_static_levels_load(const stsl_multibody *m, int c, const fixed_motion *fm,
                                double *fs_pos, double *fs_neg);

/* Contact c's static levels F_S(+1), F_S(-1) under its load at fm's time. */
static inline void static_levels(const stsl_multibody *m, int c, const fixed_motion *fm,
                                 double *fs_pos, double *fs_neg)
{
    if (!m->load_sig[c]) { /* load 0: the levels computed once (band guards: hot) */
        *fs_pos = m->lev0[c][1];
        *fs_neg = m->lev0[c][3];
        return;
    }
    stsl_mb_static_levels_load(m, c, fm, fs_pos, fs_neg);
}

double stsl_mb_parallel_lambda(const stsl_multibody *m, const prepared *p, int c,
                               const fixed_motion *fm);

/* The constraint force of contact c (stuck) or stop k (closed) on ends[0]
 * at fm's time. */
static inline double contact_lambda(const stsl_multibody *m, const prepared *p, int c,
                                    const fixed_motion *fm)
{
    int e = p->contact_edge[c];
    if (e < 0) return 0.0;
    if (p->share_varies[e]) return stsl_mb_parallel_lambda(m, p, c, fm);
    return p->share[c] * m->lambda[e];
}

static inline double stop_lambda(const stsl_multibody *m, const prepared *p, int k)
{
    return p->stop_edge[k] >= 0 ? m->lambda[p->stop_edge[k]] : 0.0;
}

/* ---- transitions ------------------------------------------------------------- */

enum { J_NONE = 0, J_FIRED = 1, J_ZERO = 2 };

static inline void push_event(stsl_multibody *m, int kind, int subject)
{
    if (m->n_pend < m->max_pend) m->pend[m->n_pend++] = (pending){kind, subject};
}

/* What one file defines for the others, under the file's name (each
 * definition carries its documentation). */

/* ---- multibody_modes.c ---------------------------------------------------------- */

stsl_mode_code stsl_mb_intern(stsl_multibody *m, const uint8_t *v);
void stsl_mb_prepare_vec(stsl_multibody *m, const uint8_t *v, prepared *p);
const prepared *stsl_mb_prepare(stsl_multibody *m, stsl_mode_code code);

/* ---- multibody_mechanics.c ------------------------------------------------------ */
/* (and stsl_mb_static_levels_load, above with static_levels) */

double stsl_mb_slip_force(const stsl_multibody *m, int c, int st, double w, double load);
double stsl_mb_compliant_force(const stsl_multibody *m, int k, int st, double xr, double wr);
void stsl_mb_rebalance(stsl_multibody *m, const prepared *p, const fixed_motion *fm);
int stsl_mb_solve(stsl_multibody *m, const prepared *p, const fixed_motion *fm, double t,
                  const double *y, double *scale, stsl_error *err);
int stsl_mb_solve_acc(stsl_multibody *m, const prepared *p, const fixed_motion *fm, double t,
                      const double *y);
double stsl_mb_stop_pull(const stsl_multibody *m, const prepared *p, int k, const fixed_motion *fm);
double stsl_mb_stop_press(const stsl_multibody *m, const prepared *p, int k);
double stsl_mb_held_friction(const stsl_multibody *m, const prepared *p, int c,
                             const fixed_motion *fm);
void stsl_mb_leaf_lambdas(stsl_multibody *m, const prepared *p, const fixed_motion *fm, double t,
                          const double *y);
double stsl_mb_body_force(const stsl_multibody *m, const uint8_t *v, const fixed_motion *fm,
                          double t, const double *y, int i);

/* ---- multibody_callbacks.c ------------------------------------------------------ */

extern const stsl_hmodel_ops stsl_mb_ops;
double stsl_mb_lookahead(stsl_multibody *m, double t);

/* ---- multibody_layout.c --------------------------------------------------------- */

/* The friction of contact c in mode p at relative velocity w: the friction
 * column of the outputs and the fixed-step schemes' force, one definition. */
double stsl_mb_contact_friction(const stsl_multibody *m, const prepared *p, int c,
                                const fixed_motion *fm, const double *y, double w);
void stsl_mb_outputs(void *self, stsl_mode_code mode, double t, const double *y, double *c);
double stsl_mb_power_abs(void *self, stsl_mode_code mode, double t, const double *y);
void stsl_mb_mode_name(void *self, stsl_mode_code mode, char *buf, size_t len);
int stsl_mb_init_layout(stsl_multibody *m);

/* ---- multibody_decisions.c ------------------------------------------------------ */

void stsl_mb_classify_contacts(stsl_multibody *m, stsl_reason why, const fixed_motion *fm,
                               const double *y);
void stsl_mb_reach(stsl_multibody *m, stsl_reason why);
void stsl_mb_group_j(stsl_multibody *m);
int stsl_mb_select_contacts(stsl_multibody *m, stsl_reason why, stsl_error *err);

/* ---- multibody_transitions.c ---------------------------------------------------- */

int stsl_mb_transition(void *self, stsl_mode_code mode, stsl_reason why, const int *fired, double t,
                       double *y, stsl_transition *out, stsl_error *err);

#endif
