/* multibody.c - a system of bodies as a hybrid model (see multibody.h). */
#include "models/multibody.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/consistency.h"
#include "events/contact.h"
#include "events/end_stop.h"
#include "events/modes.h"
#include "models/cluster.h"
#include "models/friction.h"
#include "models/loop_split.h"
#include "models/signal.h"
#include "models/smooth_friction.h"
#include "solver/fnv1a.h"

/* The fixed ends as cluster nodes after the bodies: ground, base, anchor
 * (stsl_end_kind - 1). */
#define N_FIXED 3
/* The contact's rules and tolerances (rounding level of a force balance,
 * look-ahead, impact and bounces, natural scales): events/contact.h. */
/* A contact's relative velocity counts as zero at an event within this
 * many velocity tolerances (rtol * scale): what the root location and the
 * integration of two bodies held together leave of an exact zero. */
#define ZERO_SPEED_TOLS 100.0
/* A rigid stop let go at its limit at zero relative speed has its ends
 * moved apart by this many ulps of their positions (at least one position
 * tolerance; see open_touch). */
#define PART_ULPS 16.0

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
    double *y_look, *rate; /* consistent's look-ahead state and rates */
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

static const char *const stop_mode_names[] = {"OPEN", "LOW", "HIGH", NULL};

const char *const *stsl_multibody_kind_names(void)
{
    return stsl_event_kind_names(); /* the element's, then "ambiguous" */
}

/* ---- nodes and motion ------------------------------------------------------ */

static int node_of(const stsl_multibody *m, stsl_end e)
{
    return e.kind == STSL_END_BODY ? e.body : m->nb + (int)e.kind - 1;
}

/* In the base's frame every fixed end moves relative to the base (the
 * base rests at 0, the ground moves by -x_b); the bodies feel the
 * inertia force -m a_b, the ground's acceleration times their mass
 * (applied_forces). */
static void to_base_frame(const stsl_multibody *m, fixed_motion *fm)
{
    if (!m->frame) return;
    double xb = fm->x[1], vb = fm->v[1], ab = fm->a[1];
    for (int f = 0; f < N_FIXED; f++) {
        fm->x[f] -= xb;
        fm->v[f] -= vb;
        fm->a[f] -= ab;
    }
}

static void eval_fixed(const stsl_multibody *m, double t, fixed_motion *fm)
{
    int left = t > m->t_seg;
    double b[3] = {0, 0, 0}, a[3] = {0, 0, 0};
    stsl_signal_eval(m->base, t, left, b);
    stsl_signal_eval(m->anchor, t, left, a);
    *fm = (fixed_motion){{0.0, b[0], a[0]}, {0.0, b[1], a[1]}, {0.0, b[2], a[2]}, t};
    to_base_frame(m, fm);
}

/* Contact c's load F_R at the evaluation's time (0 without one). */
static double contact_load(const stsl_multibody *m, int c, const fixed_motion *fm)
{
    return m->load_sig[c] ? stsl_signal_value(m->load_sig[c], fm->t, fm->t > m->t_seg) : 0.0;
}

static double node_x(const stsl_multibody *m, const fixed_motion *fm, const double *y, int node)
{
    return node < m->nb ? y[node] : fm->x[node - m->nb];
}

static double node_v(const stsl_multibody *m, const fixed_motion *fm, const double *y, int node)
{
    return node < m->nb ? y[m->nb + node] : fm->v[node - m->nb];
}

static double node_a(const stsl_multibody *m, const fixed_motion *fm, const double *acc, int node)
{
    return node < m->nb ? acc[node] : fm->a[node - m->nb];
}

/* Relative position and velocity of a pair: ends[0] minus ends[1]. */
static double rel_x(const stsl_multibody *m, const fixed_motion *fm, const double *y,
                    const int *pair)
{
    return node_x(m, fm, y, pair[0]) - node_x(m, fm, y, pair[1]);
}

static double rel_v(const stsl_multibody *m, const fixed_motion *fm, const double *y,
                    const int *pair)
{
    return node_v(m, fm, y, pair[0]) - node_v(m, fm, y, pair[1]);
}

/* ---- mode table ------------------------------------------------------------ */

static uint64_t hash_vec(const uint8_t *v, int len)
{
    return stsl_fnv1a(STSL_FNV1A_BASIS, v, (size_t)len);
}

static int grow_table(stsl_multibody *m)
{
    long cap = m->cap ? 2 * m->cap : 64;
    uint8_t *t = realloc(m->table, (size_t)cap * (size_t)(m->L > 0 ? m->L : 1));
    if (!t) return -1;
    m->table = t;
    m->cap = cap;
    long hcap = 2 * cap;
    long *h = malloc((size_t)hcap * sizeof *h);
    if (!h) return -1;
    for (long i = 0; i < hcap; i++)
        h[i] = -1;
    for (long k = 0; k < m->n_modes; k++) {
        uint64_t j = hash_vec(m->table + k * m->L, m->L) & (uint64_t)(hcap - 1);
        while (h[j] >= 0)
            j = (j + 1) & (uint64_t)(hcap - 1);
        h[j] = k;
    }
    free(m->hash);
    m->hash = h;
    m->hcap = hcap;
    return 0;
}

/* The code of mode vector v, interned on first sight; -1 out of memory. */
static stsl_mode_code intern(stsl_multibody *m, const uint8_t *v)
{
    if (m->hcap) {
        uint64_t j = hash_vec(v, m->L) & (uint64_t)(m->hcap - 1);
        for (; m->hash[j] >= 0; j = (j + 1) & (uint64_t)(m->hcap - 1))
            if (!memcmp(m->table + m->hash[j] * m->L, v, (size_t)m->L)) return m->hash[j];
    }
    if (m->n_modes >= m->cap && grow_table(m)) return -1;
    memcpy(m->table + m->n_modes * m->L, v, (size_t)m->L);
    uint64_t j = hash_vec(v, m->L) & (uint64_t)(m->hcap - 1);
    while (m->hash[j] >= 0)
        j = (j + 1) & (uint64_t)(m->hcap - 1);
    m->hash[j] = m->n_modes;
    return m->n_modes++;
}

static const uint8_t *mode_vec(const stsl_multibody *m, stsl_mode_code code)
{
    return code >= 0 && code < m->n_modes ? m->table + code * m->L : NULL;
}

/* ---- preparing a mode: constraints and guards ------------------------------- */

static int is_rigid(const stsl_multibody *m, int k)
{
    return !m->stop_ops[k]->compliant;
}

/* A node as a constraint sees it: a base or anchor that does not move is
 * the ground (its constant position matters for gaps, not for forces). */
static int canon(const stsl_multibody *m, int node)
{
    int f = node - m->nb;
    if ((f == 1 && !m->base_moves) || (f == 2 && !m->anchor_moves)) return m->nb;
    return node;
}

/* Do the pairs join the same two nodes (either order)? */
static int same_pair(const stsl_multibody *m, const int *a, const int *b)
{
    int a0 = canon(m, a[0]), a1 = canon(m, a[1]), b0 = canon(m, b[0]), b1 = canon(m, b[1]);
    return (a0 == b0 && a1 == b1) || (a0 == b1 && a1 == b0);
}

static void add_guard(prepared *p, gtype type, int index, int side, int dir)
{
    p->guards[p->n_guards] = (guard_ref){type, index, side, dir};
    p->dirs[p->n_guards++] = dir;
}

/* The static level without load: what the split of redundant stuck
 * contacts (parallel ones, loops) weighs them by.  Under a load a contact's
 * levels differ by direction and in time; the split keeps these weights
 * (a system's parallel or looped contacts carry no load in the examples;
 * the bands themselves are judged at the load, static_levels). */
static double static_level(const stsl_multibody *m, int c)
{
    return m->lev0[c][1];
}

/* Stuck contacts between the same two ends (two bearings of one shaft) are
 * one constraint: a loop the constraint forces could split any way, while
 * together they hold up to the sum of their static levels.  Each carries
 * the part of the edge's lambda proportional to its static level (the
 * levels are the same in both directions at load 0), so all reach their
 * limits together; its sign follows its own order of the ends. */
static void share_parallel(const stsl_multibody *m, prepared *p)
{
    for (int c = 0; c < m->nc; c++) {
        int e = p->contact_edge[c];
        if (e < 0) continue;
        double sum = p->cap[e], mine = static_level(m, c);
        int count = 0;
        for (int d = 0; d < m->nc && !(sum > 0.0); d++) /* levels 0: equal parts */
            count += p->contact_edge[d] == e;
        double part = sum > 0.0 ? mine / sum : 1.0 / count;
        p->share[c] = canon(m, p->edges[e][0]) == canon(m, m->cnode[c][0]) ? part : -part;
    }
}

/* The static capacity cap[e] of every edge: the sum of its stuck
 * contacts' levels, in the order of the contacts (0: a stop); one pass. */
static void edge_capacities(const stsl_multibody *m, prepared *p)
{
    for (int e = 0; e < p->n_edges; e++)
        p->cap[e] = 0.0;
    for (int c = 0; c < m->nc; c++)
        if (p->contact_edge[c] >= 0) p->cap[p->contact_edge[c]] += static_level(m, c);
}

/* The constraints of mode vector v.  A stuck contact parallel to a closed
 * rigid stop (the same two ends) is not a second constraint: the stop
 * carries the compressive force and friction holds nothing while it is
 * closed (the element's rule at a stop); its guards are the stop's. */
static void build_edges(const stsl_multibody *m, const uint8_t *v, prepared *p)
{
    p->n_edges = 0;
    for (int k = 0; k < m->ns; k++) {
        p->stop_edge[k] = -1;
        if (is_rigid(m, k) && v[m->nc + k] != STSL_SM_OPEN) {
            p->stop_edge[k] = p->n_edges;
            memcpy(p->edges[p->n_edges++], m->snode[k], sizeof m->snode[k]);
        }
    }
    for (int c = 0; c < m->nc; c++) /* the contacts' edges: one per pair of ends */
        p->group_edge[c] = -1;
    for (int c = 0; c < m->nc; c++) {
        p->contact_edge[c] = -1;
        if (v[c] != STSL_CONTACT_STUCK) continue;
        int parallel = 0;
        for (int k = 0; k < m->ns && !parallel; k++)
            parallel = p->stop_edge[k] >= 0 && same_pair(m, m->snode[k], m->cnode[c]);
        if (parallel) continue;
        int *group = &p->group_edge[m->pair_rep[c]]; /* the pair's edge, if made */
        if (*group < 0) {
            *group = p->n_edges;
            memcpy(p->edges[p->n_edges++], m->cnode[c], sizeof m->cnode[c]);
        }
        p->contact_edge[c] = *group;
    }
    edge_capacities(m, p);
    share_parallel(m, p);
}

static void build_guards(const stsl_multibody *m, const uint8_t *v, prepared *p)
{
    p->n_guards = 0;
    p->in_contact = 0;
    for (int c = 0; c < m->nc; c++) {
        if (v[c] == STSL_CONTACT_SLIP_POS) add_guard(p, G_SLIP, c, 0, STSL_GUARD_FALLING);
        if (v[c] == STSL_CONTACT_SLIP_NEG) add_guard(p, G_SLIP, c, 0, STSL_GUARD_RISING);
        /* SPEC §1.2 load reversal: the level switches branch, a restart. */
        if ((v[c] == STSL_CONTACT_SLIP_POS || v[c] == STSL_CONTACT_SLIP_NEG) && m->load_varies[c])
            add_guard(p, G_LOAD, c, 0, STSL_GUARD_BOTH);
        if (v[c] == STSL_CONTACT_STUCK && p->contact_edge[c] >= 0) {
            add_guard(p, G_BAND_POS, c, 0, STSL_GUARD_RISING);
            add_guard(p, G_BAND_NEG, c, 0, STSL_GUARD_RISING);
        }
    }
    for (int k = 0; k < m->ns; k++) {
        int st = v[m->nc + k], side = st == STSL_SM_HIGH ? +1 : st == STSL_SM_LOW ? -1 : 0;
        gtype open = is_rigid(m, k) ? G_GAP : G_COMPLIANT;
        if (!side) { /* both limits: rising through max, falling through min */
            add_guard(p, open, k, +1, STSL_GUARD_RISING);
            add_guard(p, open, k, -1, STSL_GUARD_FALLING);
        } else if (is_rigid(m, k)) { /* the pull beyond what it holds (stop_pull) */
            add_guard(p, G_REACTION, k, side, STSL_GUARD_RISING);
        } else { /* contact ends: its guard falls at max, rises at min */
            add_guard(p, G_COMPLIANT, k, side, side > 0 ? STSL_GUARD_FALLING : STSL_GUARD_RISING);
            p->in_contact = 1;
        }
    }
}

/* Which fixed ends are at rest in the frame of the positions: in the
 * base's frame the base always, the ground when the base does not move. */
static void still_ends(const stsl_multibody *m, int *still)
{
    int base = m->frame || !m->base_moves, ground = !m->frame || !m->base_moves;
    still[0] = ground;
    still[1] = base;
    still[2] = !m->anchor_moves && ground;
}

/* Frozen: every body held (through constraints) to a fixed end at rest,
 * so the right-hand side is identically zero while the velocities are;
 * also in contact with a compliant stop (the element's CONTACT_*_STUCK:
 * the constraint takes the stop's force), so that a breakaway there is
 * located by the frozen search to the last bit, not to CVODE's root
 * tolerance (~100 ulps of t + h: 6e-12 N past a 12 N level). */
static int is_frozen(stsl_multibody *m, prepared *p)
{
    double zero[N_FIXED] = {0, 0, 0};
    stsl_cstr_problem pr = {
        m->nb, m->mass, m->force, N_FIXED, zero, p->n_edges, (const int(*)[2])p->edges};
    stsl_cstr_components(m->ws, &pr, m->label);
    int still[N_FIXED];
    still_ends(m, still);
    for (int i = 0; i < m->nb; i++) {
        int held = 0;
        for (int f = 0; f < N_FIXED && !held; f++)
            held = still[f] && m->label[i] == m->label[m->nb + f];
        if (!held) return 0;
    }
    return 1;
}

/* The contracted node of the cycle space: every fixed end is one node
 * (each absorbs any force), bodies are themselves. */
static int cnode_of(const stsl_multibody *m, int node)
{
    return node < m->nb ? node : m->nb;
}

/* The number of independent loops of the constraint graph (fixed ends
 * contracted): the edges a spanning forest leaves out.  Only whether
 * there are any matters (rebalance splits a loop's forces; a forest's are
 * unique). */
static void build_cycles(const stsl_multibody *m, prepared *p)
{
    int nn = m->nb + 1;
    p->n_cycles = 0;
    for (int i = 0; i < nn; i++)
        p->parent[i] = -2; /* unvisited */
    for (int i = 0; i < nn; i++)
        p->depth[i] = 0; /* until visited: 1 on a node with an edge */
    for (int e = 0; e < p->n_edges; e++) {
        p->tree[e] = 0;
        p->depth[cnode_of(m, p->edges[e][0])] = p->depth[cnode_of(m, p->edges[e][1])] = 1;
    }
    for (int root = 0; root < nn; root++) { /* BFS over the edges */
        if (p->parent[root] != -2) continue;
        p->parent[root] = -1;
        if (!p->depth[root]) continue; /* no edge: a pass would find nothing */
        p->depth[root] = 0;
        for (int grew = 1; grew;) {
            grew = 0;
            for (int e = 0; e < p->n_edges; e++) {
                int a = cnode_of(m, p->edges[e][0]), b = cnode_of(m, p->edges[e][1]);
                int ina = p->parent[a] != -2, inb = p->parent[b] != -2;
                if (ina == inb) continue;
                p->parent[ina ? b : a] = ina ? a : b;
                p->tree[e] = 1;
                grew = 1;
            }
        }
    }
    for (int e = 0; e < p->n_edges; e++)
        p->n_cycles += !p->tree[e];
}

/* A mode's constraints (a candidate's at an event needs no more). */
static void prepare_vec(stsl_multibody *m, const uint8_t *v, prepared *p)
{
    memcpy(p->vec, v, (size_t)m->L);
    build_edges(m, v, p);
    build_cycles(m, p);
}

/* The edge whose constraint force guard g reads (a band or a reaction
 * guard), else -1. */
static int guard_edge(const prepared *p, const guard_ref *g)
{
    return g->type == G_BAND_POS || g->type == G_BAND_NEG ? p->contact_edge[g->index]
           : g->type == G_REACTION                        ? p->stop_edge[g->index]
                                                          : -1;
}

/* What the current mode's guards need of the constraint forces (see
 * prepared): made once per mode, after the analysis of its edges. */
static void guard_edges(const stsl_multibody *m, prepared *p, const stsl_cstr_problem *pr)
{
    p->needs_lambda = 0;
    for (int i = 0; i < p->n_guards; i++) { /* band and reaction guards */
        gtype t = p->guards[i].type;
        p->needs_lambda |= t == G_BAND_POS || t == G_BAND_NEG || t == G_REACTION;
    }
    p->n_need = 0;
    p->leaves_only = !p->n_cycles; /* a loop's split moves forces along its cycles */
    for (int e = 0; e < p->n_edges; e++)
        p->need_mark[e] = 0;
    for (int i = 0; i < p->n_guards; i++) {
        int e = guard_edge(p, &p->guards[i]);
        if (e < 0 || p->need_mark[e]) continue;
        p->need_mark[e] = 1;
        p->need_edge[p->n_need] = e;
        p->need_body[p->n_need] = stsl_cstr_leaf(p->ws, pr, e);
        p->leaves_only &= p->need_body[p->n_need++] >= 0;
    }
    for (int c = 0; c < m->nc; c++)
        p->fric_skip[c] = 1;
    for (int j = 0; j < p->n_need; j++) { /* the contacts on the leaves */
        int v = p->need_body[j];
        if (v < 0) continue; /* not leaves_only: the mask is not used */
        for (int q = m->inc_start[v]; q < m->inc_start[v + 1]; q++)
            if (m->inc[q].kind == I_FRICTION) p->fric_skip[m->inc[q].index] = 0;
    }
}

/* The current evaluation's mode is `code` (rebuilt only when it changes). */
static const prepared *prepare(stsl_multibody *m, stsl_mode_code code)
{
    if (m->prep.code != code) {
        const uint8_t *v = mode_vec(m, code);
        if (!v) return NULL;
        prepare_vec(m, v, &m->prep);
        build_guards(m, v, &m->prep); /* and what only the current mode needs */
        m->prep.frozen = is_frozen(m, &m->prep);
        stsl_cstr_problem pr = {m->nb,
                                m->mass,
                                m->force,
                                N_FIXED,
                                NULL,
                                m->prep.n_edges,
                                (const int(*)[2])m->prep.edges};
        stsl_error err = {0};
        if (stsl_cstr_analyse(m->prep.ws, &pr, &err)) return NULL;
        m->prep.n_free = 0;
        for (int i = 0; i < m->nb; i++)
            if (!stsl_cstr_held(m->prep.ws, i)) m->prep.free[m->prep.n_free++] = i;
        guard_edges(m, &m->prep, &pr);
        m->prep.code = code;
    }
    return &m->prep;
}

/* ---- forces ------------------------------------------------------------------ */

static void add_pair_force(const stsl_multibody *m, const int *pair, double f, double *force)
{
    if (pair[0] < m->nb) force[pair[0]] += f;
    if (pair[1] < m->nb) force[pair[1]] -= f;
}

/* LuGre's third state is its bristle force s = sigma0 z, not z (the
 * element's scaling): z is tiny (Tc / sigma0) while s is of the order of
 * the friction force, so one absolute tolerance fits it and the forces. */
static double bristle_z(const stsl_multibody *m, int c, const double *y)
{
    return y[m->zidx[c]] / m->s->contacts[c].friction.sigma0;
}

/* LuGre contact c's force on its ends[0] at relative velocity w. */
static double lugre_force(const stsl_multibody *m, int c, double w, const double *y)
{
    return -stsl_lugre_force(&m->s->contacts[c].friction, w, bristle_z(m, c, y));
}

/* The rate of LuGre contact c's bristle force: sigma0 z'. */
static double bristle_rate(const stsl_multibody *m, int c, double w, const double *y)
{
    const stsl_friction_params *fp = &m->s->contacts[c].friction;
    return fp->sigma0 * stsl_lugre_zdot(fp, w, bristle_z(m, c, y));
}

/* Friction of contact c in state st on its ends[0] at relative velocity w
 * (not stuck) under its load F_R = `load`: opposing the slip, at the level
 * of models/friction.h (SPEC §1.1); a slip at w = 0 has its level at speed 0. */
static double slip_force(const stsl_multibody *m, int c, int st, double w, double load)
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

static void static_levels_load(const stsl_multibody *m, int c, const fixed_motion *fm,
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
    static_levels_load(m, c, fm, fs_pos, fs_neg);
}

static void static_levels_load(const stsl_multibody *m, int c, const fixed_motion *fm,
                               double *fs_pos, double *fs_neg)
{
    double fd, load = contact_load(m, c, fm);
    stsl_friction_levels(&m->s->contacts[c].friction, +1, load, &fd, fs_pos);
    stsl_friction_levels(&m->s->contacts[c].friction, -1, load, &fd, fs_neg);
}

/* The compliant stop k's force on its ends[0] in state st (0 when open). */
static double compliant_force(const stsl_multibody *m, int k, int st, double xr, double wr)
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
        double f = m->zidx[c] >= 0 ? lugre_force(m, c, w, y) : slip_force(m, c, v[c], w, load);
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
static void rebalance(stsl_multibody *m, const prepared *p, const fixed_motion *fm)
{
    if (!p->n_cycles) return;
    for (int e = 0; e < p->n_edges; e++) {
        m->split_hi[e] = m->split_lo[e] = INFINITY;
        m->split_ends[e][0] = cnode_of(m, p->edges[e][0]);
        m->split_ends[e][1] = cnode_of(m, p->edges[e][1]);
    }
    for (int c = 0; c < m->nc; c++) {
        int e = p->contact_edge[c];
        double part = e >= 0 ? fabs(p->share[c]) : 0.0, fs_pos, fs_neg;
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

static int solve(stsl_multibody *m, const prepared *p, const fixed_motion *fm, double t,
                 const double *y, double *scale, stsl_error *err)
{
    applied_forces(m, p->vec, fm, t, y, m->force, scale);
    int rc = constraint_solve(m, p, fm, m->lambda, err);
    if (rc) return rc;
    if (p->n_edges == 0) return 0;
    if (!m->no_split) rebalance(m, p, fm);
    return 0;
}

/* The accelerations alone (the right-hand side's): they need no
 * constraint force. */
static double body_force(const stsl_multibody *m, const uint8_t *v, const fixed_motion *fm,
                         double t, const double *y, int i);

/* A body held (through constraints) by a fixed end moves with it whatever
 * the forces on it: the current mode's accelerations need the applied
 * forces of the bodies of free clusters only (body_force: the same bits as
 * applied_forces'), and a chain of blocks mostly stuck to the ground has
 * few of them. */
static int solve_acc(stsl_multibody *m, const prepared *p, const fixed_motion *fm, double t,
                     const double *y)
{
    if (p == &m->prep && 2 * p->n_free <= m->nb) { /* else all pairs at once are cheaper */
        for (int j = 0; j < p->n_free; j++)
            m->force[p->free[j]] = body_force(m, p->vec, fm, t, y, p->free[j]);
    } else {
        applied_forces(m, p->vec, fm, t, y, m->force, NULL);
    }
    return constraint_solve(m, p, fm, NULL, NULL);
}

/* The constraint force of contact c (stuck) or stop k (closed) on ends[0]. */
static double contact_lambda(const stsl_multibody *m, const prepared *p, int c)
{
    return p->contact_edge[c] >= 0 ? p->share[c] * m->lambda[p->contact_edge[c]] : 0.0;
}

static double stop_lambda(const stsl_multibody *m, const prepared *p, int k)
{
    return p->stop_edge[k] >= 0 ? m->lambda[p->stop_edge[k]] : 0.0;
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
static double stop_pull(const stsl_multibody *m, const prepared *p, int k, const fixed_motion *fm)
{
    double lam = stop_lambda(m, p, k), hold = stop_hold(m, p->vec, k, fm);
    return p->vec[m->nc + k] == STSL_SM_LOW ? -lam - hold : lam - hold;
}

/* The compressive part of a closed rigid stop's constraint force (the
 * stop's reaction; the rest is its parallel contacts' friction). */
static double stop_press(const stsl_multibody *m, const prepared *p, int k)
{
    double lam = stop_lambda(m, p, k);
    return p->vec[m->nc + k] == STSL_SM_LOW ? fmax(lam, 0.0) : fmin(lam, 0.0);
}

/* The friction of a stuck contact c held by a closed stop: its share (by
 * static level) of what the stop does not press. */
static double held_friction(const stsl_multibody *m, const prepared *p, int c,
                            const fixed_motion *fm)
{
    for (int k = 0; k < m->ns; k++) {
        if (p->stop_edge[k] < 0 || !same_pair(m, m->snode[k], m->cnode[c])) continue;
        double hold = stop_hold(m, p->vec, k, fm),
               rest = stop_lambda(m, p, k) - stop_press(m, p, k);
        double part = hold > 0.0 ? hold_level(m, p->vec, k, c, fm) / hold : 0.0;
        return (canon(m, m->snode[k][0]) == canon(m, m->cnode[c][0]) ? part : -part) * rest;
    }
    return 0.0;
}

/* ---- hybrid model ops ------------------------------------------------------------ */

static int mb_rhs(void *self, stsl_mode_code mode, double t, const double *y, double *ydot)
{
    stsl_multibody *m = self;
    const prepared *p = prepare(m, mode);
    if (!p) return -1;
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    if (solve_acc(m, p, &fm, t, y)) return -1;
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
        lam = contact_lambda(m, p, g->index);
        return g->type == G_BAND_POS ? stsl_contact_band_excess(-lam, +1, fs_pos)
                                     : stsl_contact_band_excess(-lam, -1, fs_neg);
    case G_LOAD:
        return contact_load(m, g->index, fm);
    case G_GAP:
        return rel_x(m, fm, y, m->snode[g->index]) - (g->side > 0 ? st->p.x_max : st->p.x_min);
    case G_REACTION:
        return stop_pull(m, p, g->index, fm);
    case G_COMPLIANT:
        return m->stop_ops[g->index]->guard(&st->p, g->side, rel_x(m, fm, y, m->snode[g->index]),
                                            rel_v(m, fm, y, m->snode[g->index]));
    }
    return 1.0;
}

/* The constraint forces the current mode's guards read, when each follows
 * from one body's own balance (p->leaves_only): bit for bit the full
 * solve's (stsl_cstr_leaf_lambda; body_force is applied_forces' force[v]),
 * without the tree solve, and for a few leaves without the forces on
 * every other body.  A chain of blocks stuck to the ground has one such
 * edge per stuck block. */
static void leaf_lambdas(stsl_multibody *m, const prepared *p, const fixed_motion *fm, double t,
                         const double *y)
{
    stsl_cstr_problem pr = {
        m->nb, m->mass, m->force, N_FIXED, fm->a, p->n_edges, (const int(*)[2])p->edges};
    int all = 2 * p->n_need > m->nb; /* then every pair's force once is cheaper (solve_acc) */
    if (all) forces_but(m, p->vec, fm, t, y, m->force, NULL, p->fric_skip);
    for (int j = 0; j < p->n_need; j++) {
        int e = p->need_edge[j], v = p->need_body[j];
        double f = all ? m->force[v] : body_force(m, p->vec, fm, t, y, v);
        m->lambda[e] = stsl_cstr_leaf_lambda(p->ws, &pr, e, v, f);
    }
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
    double fs_pos, fs_neg, lam = contact_lambda(m, p, c);
    static_levels(m, c, fm, &fs_pos, &fs_neg);
    *g_pos = stsl_contact_band_excess(-lam, +1, fs_pos);
    *g_neg = stsl_contact_band_excess(-lam, -1, fs_neg);
}

static int mb_guards(void *self, stsl_mode_code mode, double t, const double *y, double *g)
{
    stsl_multibody *m = self;
    const prepared *p = prepare(m, mode);
    if (!p) return -1;
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    if (p->needs_lambda && p->leaves_only && !m->full_guards) {
        leaf_lambdas(m, p, &fm, t, y);
        m->leaf_evals++;
    } else if (p->needs_lambda && solve(m, p, &fm, t, y, NULL, NULL))
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

/* The applied force on body i alone: applied_forces' force[i], the same
 * terms in the same order (so the same value bit for bit), from i's
 * incidence list. */
static double body_force(const stsl_multibody *m, const uint8_t *v, const fixed_motion *fm,
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
                                : slip_force(m, k, v[k], w, contact_load(m, k, fm));
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

/* Guard i of `mode` alone (the solver's root and extremum searches on one
 * guard).  A band or reaction guard needs its edge's constraint force: a
 * body that is a leaf of a tree held by a fixed end has it from its own
 * balance (cluster.h), bit for bit the full solve's; any other edge (and
 * a mode with loops, whose split moves forces along the cycles) takes the
 * full solve. */
static int mb_guard(void *self, stsl_mode_code mode, double t, const double *y, int i, double *g)
{
    stsl_multibody *m = self;
    const prepared *p = prepare(m, mode);
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
            m->lambda[e] =
                stsl_cstr_leaf_lambda(p->ws, &pr, e, v, body_force(m, p->vec, &fm, t, y, v));
        else if (solve(m, p, &fm, t, y, NULL, NULL))
            return -1;
    }
    *g = guard_value(m, p, gr, &fm, y);
    return 0;
}

/* Per body the terms of applied_forces on it, in its order. */
static int build_incidence(stsl_multibody *m)
{
    const stsl_system *s = m->s;
    int cap = s->n_forces + 2 * s->n_couplings + 3 * m->nc + 2 * m->ns, n = 0;
    m->inc_start = calloc((size_t)m->nb + 1, sizeof *m->inc_start);
    m->inc = calloc((size_t)(cap > 0 ? cap : 1), sizeof *m->inc);
    if (!m->inc_start || !m->inc) return -1;
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
    m->pair_rep = calloc((size_t)(m->nc > 0 ? m->nc : 1), sizeof *m->pair_rep);
    if (!m->pair_rep) return -1;
    for (int c = 0; c < m->nc; c++) {
        m->pair_rep[c] = c;
        for (int d = 0; d < c && m->pair_rep[c] == c; d++)
            if (same_pair(m, m->cnode[d], m->cnode[c])) m->pair_rep[c] = d;
    }
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
    const prepared *p = prepare(m, mode);
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

/* Column offsets of the groups (mb-interfaces.md §3). */
typedef struct col_offsets {
    int x, v, a, friction, slip, cmode, reaction, smode, xb, vb, n;
} col_offsets;

static col_offsets offsets(const stsl_multibody *m)
{
    col_offsets o;
    o.x = 0;
    o.v = o.x + m->nb;
    o.a = o.v + m->nb;
    o.friction = o.a + m->nb;
    o.slip = o.friction + m->nc;
    o.cmode = o.slip + m->nc;
    o.reaction = o.cmode + m->nc;
    o.smode = o.reaction + m->ns;
    o.xb = o.smode + m->ns;
    o.vb = o.xb + 1;
    o.n = o.vb + 1;
    return o;
}

/* The base's motion at t, as the current segment sees it. */
static void base_now(const stsl_multibody *m, double t, double *b)
{
    b[0] = b[1] = b[2] = 0.0;
    stsl_signal_eval(m->base, t, t > m->t_seg, b);
}

/* The columns of absolute motion (x, v, a of the bodies, the base's) when
 * the state is in the base's frame. */
static void absolute_columns(const stsl_multibody *m, double t, col_offsets o, double *c)
{
    if (!m->frame) return;
    double b[3];
    base_now(m, t, b);
    for (int i = 0; i < m->nb; i++) {
        c[o.x + i] += b[0];
        c[o.v + i] += b[1];
        c[o.a + i] += b[2];
    }
    c[o.xb] = b[0];
    c[o.vb] = b[1];
}

static void mb_outputs(void *self, stsl_mode_code mode, double t, const double *y, double *c)
{
    stsl_multibody *m = self;
    const prepared *p = prepare(m, mode);
    col_offsets o = offsets(m);
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    int bad = !p || solve(m, p, &fm, t, y, NULL, NULL);
    for (int i = 0; i < m->nb; i++) {
        c[o.x + i] = y[i];
        c[o.v + i] = y[m->nb + i];
        c[o.a + i] = bad ? NAN : m->acc[i];
    }
    for (int k = 0; k < m->nc; k++) {
        int st = p ? p->vec[k] : 0;
        double w = rel_v(m, &fm, y, m->cnode[k]);
        c[o.friction + k] = bad               ? NAN
                            : m->zidx[k] >= 0 ? lugre_force(m, k, w, y)
                            : st != STSL_CONTACT_STUCK
                                ? slip_force(m, k, st, w, contact_load(m, k, &fm))
                            : p->contact_edge[k] >= 0 ? contact_lambda(m, p, k)
                                                      : held_friction(m, p, k, &fm);
        c[o.slip + k] = w;
        c[o.cmode + k] = st;
    }
    for (int k = 0; k < m->ns; k++) {
        int st = p ? p->vec[m->nc + k] : 0;
        double r = is_rigid(m, k) ? (st == STSL_SM_OPEN ? 0.0 : stop_press(m, p, k))
                                  : compliant_force(m, k, st, rel_x(m, &fm, y, m->snode[k]),
                                                    rel_v(m, &fm, y, m->snode[k]));
        c[o.reaction + k] = bad ? NAN : r;
        c[o.smode + k] = st;
    }
    c[o.xb] = fm.x[1];
    c[o.vb] = fm.v[1];
    absolute_columns(m, t, o, c);
}

/* The rate of (input work - dissipation): the forces' power on the bodies,
 * the power the moving ends (base, anchor) put in through everything that
 * joins a body to them (springs, dampers, friction, constraints), minus
 * what friction (slipping contacts) and dampers dissipate.  Its integral
 * equals the change of kinetic and spring energy (SPEC §4 energy balance)
 * over a run without impacts and compliant stops (an impact's loss is a
 * jump, a compliant stop stores and dissipates on its own). */
static double mb_power(void *self, stsl_mode_code mode, double t, const double *y)
{
    stsl_multibody *m = self;
    const prepared *p = prepare(m, mode);
    const stsl_system *s = m->s;
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    if (!p || solve(m, p, &fm, t, y, NULL, NULL)) return NAN;
    int left = t > m->t_seg;
    double pw = 0.0;
    for (int k = 0; k < s->n_forces; k++)
        pw += stsl_signal_value(m->force_sig[k], t, left) * y[m->nb + s->forces[k].on.body];
    /* A pair force f on ends[0] (-f on ends[1]) puts f v_1 in through a
     * fixed ends[1]; its internal power f w is -(dissipation) or -(spring
     * energy rate), the latter left to the energy's change. */
    for (int k = 0; k < s->n_couplings; k++) {
        const stsl_coupling *cp = &s->couplings[k];
        const int *pr = m->knode[k];
        double w = rel_v(m, &fm, y, pr);
        double f = -cp->stiffness * (rel_x(m, &fm, y, pr) - cp->free_length) - cp->damping * w;
        if (pr[1] >= m->nb) pw += f * fm.v[pr[1] - m->nb];
        pw -= cp->damping * w * w;
    }
    for (int c = 0; c < m->nc; c++) {
        const int *pr = m->cnode[c];
        double w = rel_v(m, &fm, y, pr);
        double load = contact_load(m, c, &fm);
        double f = p->vec[c] == STSL_CONTACT_STUCK ? contact_lambda(m, p, c)
                   : m->zidx[c] >= 0               ? lugre_force(m, c, w, y)
                                                   : slip_force(m, c, p->vec[c], w, load);
        pw += load * y[m->nb + pr[0]]; /* the load's power on its body */
        if (pr[1] >= m->nb) pw += f * fm.v[pr[1] - m->nb];
        pw += f * w; /* friction against the slip: f w <= 0 */
    }
    for (int k = 0; k < m->ns; k++)
        if (p->stop_edge[k] >= 0 && m->snode[k][1] >= m->nb)
            pw += stop_lambda(m, p, k) * fm.v[m->snode[k][1] - m->nb];
    return pw;
}

/* The power in absolute terms (the energy balance is absolute): in the
 * base's frame, of the absolute state, evaluated as without the frame. */
static double mb_power_abs(void *self, stsl_mode_code mode, double t, const double *y)
{
    stsl_multibody *m = self;
    if (!m->frame) return mb_power(self, mode, t, y);
    double b[3];
    base_now(m, t, b);
    memcpy(m->yabs, y, (size_t)m->n * sizeof *y);
    for (int i = 0; i < m->nb; i++) {
        m->yabs[i] += b[0];
        m->yabs[m->nb + i] += b[1];
    }
    m->frame = 0;
    double pw = mb_power(self, mode, t, m->yabs);
    m->frame = 1;
    return pw;
}

static int mb_describe(void *self, stsl_mode_code mode, stsl_mode_desc *out)
{
    stsl_multibody *m = self;
    const prepared *p = prepare(m, mode);
    if (!p) return -1;
    memcpy(m->desc_dirs, p->dirs, (size_t)p->n_guards * sizeof(int));
    out->frozen = p->frozen;
    out->n_guards = p->n_guards;
    out->guard_dir = m->desc_dirs;
    out->record = -1; /* the system's modes are the per-contact columns */
    return 0;
}

/* "contacts.0 STUCK, clutch SLIP_POS, stops.0 OPEN" (as much as fits; the
 * contacts' and stops' names as in the columns). */
static void mb_mode_name(void *self, stsl_mode_code mode, char *buf, size_t len)
{
    const stsl_multibody *m = self;
    const uint8_t *v = mode_vec(m, mode);
    if (!v) {
        snprintf(buf, len, "%" PRId64, mode);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < m->L && used < len; i++) {
        int stop = i >= m->nc;
        int w = snprintf(buf + used, len - used, "%s%s %s", i ? ", " : "", m->members[m->nb + i],
                         stop ? stop_mode_names[v[i]] : stsl_contact_state_names()[v[i]]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (m->L == 0) snprintf(buf, len, "free");
}

/* ---- transitions --------------------------------------------------------------- */

enum { J_NONE = 0, J_FIRED = 1, J_ZERO = 2 };

static void push_event(stsl_multibody *m, int kind, int subject)
{
    if (m->n_pend < m->max_pend) m->pend[m->n_pend++] = (pending){kind, subject};
}

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
    double fi = isinf(mj) ? 1.0 : isinf(mi) ? 0.0 : mj / (mi + mj);
    shift_cluster(m, li, fi * dx, fi * dw, y);
    if (pair[1] < m->nb) shift_cluster(m, lj, -(1.0 - fi) * dx, -(1.0 - fi) * dw, y);
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
    prepare_vec(m, m->next, &m->cand);
    double a = NAN;
    if (!solve(m, &m->cand, fm, t, y, NULL, NULL))
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
     * velocities (rtol of each, or the velocity tolerance) */
    double va = fabs(node_v(m, fm, y, m->snode[k][0])), vb = fabs(node_v(m, fm, y, m->snode[k][1]));
    m->impact_w[k] = fabs(w) / (m->vtol + ZERO_SPEED_TOLS * m->rtol * fmax(va, vb));
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
            double fs_pos, fs_neg, lam = contact_lambda(m, &m->cand, c);
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
    int rc = solve(m, &m->cand, &fm, t, y, &scale, err);
    m->no_split = 0;
    if (rc) return rc;
    double noise = stsl_contact_noise(scale);
    if (margins(m, states, &fm, noise, stat) && m->cand.n_cycles) {
        rebalance(m, &m->cand, &fm);
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

/* How far ahead a decision within rounding looks (see consistent). */
static double lookahead(stsl_multibody *m, double t)
{
    return stsl_contact_lookahead_horizon(t, signals_max_step(m, t), mb_next_time_event(m, t));
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
    prepare_vec(m, m->next, &m->cand);
    int n = m->nb, rc = check_at(m, states, m->t_ev, m->y_ev, st, err), open = 0;
    if (rc) return rc > 0 ? 0 : rc;
    for (int i = 0; i < m->n_j; i++) {
        if (st[i] < 0) return 0;
        open += st[i] == 0;
    }
    if (!open) return 1;
    for (int i = 0; i < n; i++) /* the candidate's rates at the event */
        m->rate[i] = m->acc[i];
    double horizon = lookahead(m, m->t_ev);
    for (double tau = stsl_contact_lookahead_start(m->t_ev); tau <= horizon && open; tau *= 2.0) {
        for (int i = 0; i < n; i++) {
            m->y_look[i] = m->y_ev[i] + tau * m->y_ev[n + i] + 0.5 * tau * tau * m->rate[i];
            m->y_look[n + i] = m->y_ev[n + i] + tau * m->rate[i];
        }
        for (int k = 2 * n; k < m->n; k++) /* LuGre's bristles as they stand */
            m->y_look[k] = m->y_ev[k];
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

/* The relative accelerations of the contacts in the mode before the
 * event, at the event (into m->wacc); 0 when the mode cannot be solved. */
static void slip_rates(stsl_multibody *m, const fixed_motion *fm, double t, const double *y)
{
    prepare_vec(m, m->cur, &m->cand);
    m->no_split = 1;
    int bad = solve(m, &m->cand, fm, t, y, NULL, NULL) != 0;
    m->no_split = 0;
    for (int c = 0; c < m->nc; c++)
        m->wacc[c] =
            bad ? 0.0
                : node_a(m, fm, m->acc, m->cnode[c][0]) - node_a(m, fm, m->acc, m->cnode[c][1]);
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
static void classify_contacts(stsl_multibody *m, stsl_reason why, const fixed_motion *fm,
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
static void group_j(stsl_multibody *m)
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

static void reach(stsl_multibody *m, stsl_reason why)
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

/* Decide every group of J that some reached contact belongs to (SPEC §4;
 * in the others nothing happened: their stuck contacts stay). */
static int select_contacts(stsl_multibody *m, stsl_reason why, stsl_error *err)
{
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
    double horizon = lookahead(m, t);
    for (double tau = stsl_contact_lookahead_start(t); tau <= horizon; tau *= 2.0) {
        for (int i = 0; i < n; i++) {
            m->y_look[i] = y[i] + tau * y[n + i] + 0.5 * tau * tau * m->rate[i];
            m->y_look[n + i] = y[n + i] + tau * m->rate[i];
        }
        fixed_motion fl;
        eval_fixed(m, t + tau, &fl);
        double scale;
        if (solve(m, &m->cand, &fl, t + tau, m->y_look, &scale, err)) return 0.0;
        double pull = stop_pull(m, &m->cand, k, &fl);
        if (fabs(pull) > stsl_contact_noise(scale)) return pull;
    }
    return 0.0;
}

static int release_pulling(stsl_multibody *m, const fixed_motion *fm, double t, const double *y,
                           stsl_error *err)
{
    prepare_vec(m, m->next, &m->cand);
    double scale;
    if (solve(m, &m->cand, fm, t, y, &scale, err) < 0) return -1;
    double noise = stsl_contact_noise(scale);
    int n = 0;
    for (int k = 0; k < m->ns; k++) {
        int st = m->next[m->nc + k];
        if (!is_rigid(m, k) || st == STSL_SM_OPEN) continue;
        double pull = stop_pull(m, &m->cand, k, fm);
        int release = pull > noise;
        if (fabs(pull) <= noise) {
            release = pull_later(m, k, t, y, err) > 0.0;
            if (solve(m, &m->cand, fm, t, y, &scale, err) < 0) return -1; /* back to t */
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

/* Bodies held together in the new mode move as one: the velocity of the
 * fixed end that holds their cluster, else the momentum-conserving mean. */
static void common_velocities(stsl_multibody *m, const fixed_motion *fm, double *y)
{
    prepare_vec(m, m->next, &m->cand);
    stsl_cstr_problem pr = {
        m->nb, m->mass, m->force, N_FIXED, fm->a, m->cand.n_edges, (const int(*)[2])m->cand.edges};
    stsl_cstr_components(m->ws, &pr, m->label);
    for (int i = 0; i < m->nb; i++) {
        double mom = 0.0, mass = 0.0, v = NAN;
        int members = 0;
        for (int f = 0; f < N_FIXED && isnan(v); f++)
            if (m->label[m->nb + f] == m->label[i]) v = fm->v[f];
        for (int j = 0; j < m->nb; j++)
            if (m->label[j] == m->label[i]) {
                mom += m->mass[j] * y[m->nb + j];
                mass += m->mass[j];
                members++;
            }
        if (!isnan(v))
            y[m->nb + i] = v;
        else if (members > 1)
            y[m->nb + i] = mom / mass;
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
        int label = m->label[m->cnode[c][0]];
        double v = shared_velocity(m, fm, label, y);
        for (int j = 0; j < m->nb; j++)
            if (m->label[j] == label) y[m->nb + j] = v;
    }
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
        const prepared *p = prepare(m, mode);
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
        classify_contacts(m, why, &fm, y);
        reach(m, why);
        group_j(m);
        int rc = select_contacts(m, why, err);
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
    for (int k = 0; k < m->ns; k++) /* a stop let go has no bounces pending */
        if (m->next[m->nc + k] == STSL_SM_OPEN) m->settle_at[k] = INFINITY;
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

static int mb_transition(void *self, stsl_mode_code mode, stsl_reason why, const int *fired,
                         double t, double *y, stsl_transition *out, stsl_error *err)
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
        out->mode = intern(m, m->next);
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

/* ---- layout --------------------------------------------------------------------- */

typedef struct unit_set {
    const char *x, *v, *a, *f;
} unit_set;

static unit_set units_of(stsl_domain d)
{
    if (d == STSL_DOMAIN_ROTATIONAL) return (unit_set){"rad", "rad/s", "rad/s^2", "N·m"};
    return (unit_set){"m", "m/s", "m/s^2", "N"};
}

/* A column's flat name "<group>[<member>]" (x[motor]), as the readers
 * (stsl_result, the Python package) name a grouped column: a run's summary
 * and a file read back then agree. */
static char *put_name(char *at, const char *group, const char *member)
{
    sprintf(at, "%s[%s]", group, member);
    return at;
}

/* The column groups of mb-interfaces.md §3 (empty ones left out) and the
 * event subjects: contacts, then stops. */
static void init_groups(stsl_multibody *m, col_offsets o, unit_set u)
{
    const char *const *bodies = m->members, *const *contacts = m->members + m->nb;
    const char *const *stops = contacts + m->nc;
    stsl_col_group all[8] = {
        {"x", u.x, "position", o.x, m->nb, bodies, 0, 0, NULL},
        {"v", u.v, "velocity", o.v, m->nb, bodies, 0, 0, NULL},
        {"a", u.a, "acceleration", o.a, m->nb, bodies, 0, 0, NULL},
        {"friction", u.f, "friction force on the contact's first end", o.friction, m->nc, contacts,
         0, 0, NULL},
        {"slip_velocity", u.v, "slip velocity", o.slip, m->nc, contacts, 0, 0, NULL},
        {"contact_mode", "", "contact mode", o.cmode, m->nc, contacts, 1, 4,
         stsl_contact_state_names()},
        {"stop_reaction", u.f, "stop reaction on the first end", o.reaction, m->ns, stops, 0, 0,
         NULL},
        {"stop_mode", "", "stop mode", o.smode, m->ns, stops, 1, 3, stop_mode_names}};
    int n = 0;
    for (int g = 0; g < 8; g++)
        if (all[g].width > 0) m->groups[n++] = all[g];
    m->layout.n_groups = n;
    m->layout.groups = m->groups;
    m->layout.n_subjects = m->nc + m->ns;
    m->layout.subject_names = contacts;
}

static int init_layout(stsl_multibody *m)
{
    const stsl_system *s = m->s;
    col_offsets o = offsets(m);
    unit_set u = units_of(s->domain);
    size_t per = 2 * (STSL_BODY_NAME_MAX + 32);
    m->cols = calloc((size_t)o.n, sizeof *m->cols);
    m->col_state = calloc((size_t)o.n, sizeof *m->col_state);
    /* one slot per column, one per contact or stop name and one per
     * bristle state */
    m->names = calloc((size_t)(o.n + m->nc + m->ns + m->n - 2 * m->nb), per);
    m->state_names = calloc((size_t)m->n, sizeof *m->state_names);
    m->members = calloc((size_t)(m->nb + m->nc + m->ns + 1), sizeof *m->members);
    if (!m->cols || !m->col_state || !m->names || !m->state_names || !m->members) return -1;
    for (int c = 0; c < o.n; c++)
        m->col_state[c] = -1;
    char *at = m->names, *member_at = m->names + (size_t)o.n * per;
    char member[STSL_BODY_NAME_MAX + 32];
#define COL(idx, grp, mem, unit, what)                                                             \
    do {                                                                                           \
        m->cols[idx] = (stsl_column){put_name(at, grp, mem), unit, what};                          \
        at += per;                                                                                 \
    } while (0)
    for (int i = 0; i < m->nb; i++) {
        const char *b = s->bodies[i].name;
        COL(o.x + i, "x", b, u.x, "position");
        COL(o.v + i, "v", b, u.v, "velocity");
        COL(o.a + i, "a", b, u.a, "acceleration");
        m->state_names[i] = m->cols[o.x + i].name;
        m->state_names[m->nb + i] = m->cols[o.v + i].name;
        m->col_state[o.x + i] = i; /* mb_outputs: x, v are y[i], y[nb + i] */
        m->col_state[o.v + i] = m->nb + i;
    }
    for (int c = 0; c < m->nc; c++) {
        if (s->contacts[c].name[0]) /* its name:, else its key path */
            snprintf(member, sizeof member, "%s", s->contacts[c].name);
        else
            snprintf(member, sizeof member, "contacts.%d", c);
        COL(o.friction + c, "friction", member, u.f, "friction force on the contact's first end");
        COL(o.slip + c, "slip_velocity", member, u.v, "slip velocity");
        COL(o.cmode + c, "contact_mode", member, "", "contact mode");
        m->members[m->nb + c] = strcpy(member_at, member);
        member_at += per;
        if (m->zidx[c] >= 0) { /* the state's name only: no output column */
            m->state_names[m->zidx[c]] = put_name(member_at, "sigma0_z", member);
            member_at += per;
        }
    }
    for (int k = 0; k < m->ns; k++) {
        if (s->stops[k].name[0])
            snprintf(member, sizeof member, "%s", s->stops[k].name);
        else
            snprintf(member, sizeof member, "stops.%d", k);
        COL(o.reaction + k, "stop_reaction", member, u.f, "stop reaction on the first end");
        COL(o.smode + k, "stop_mode", member, "", "stop mode");
        m->members[m->nb + m->nc + k] = strcpy(member_at, member);
        member_at += per;
    }
    for (int i = 0; i < m->nb; i++)
        m->members[i] = s->bodies[i].name;
#undef COL
    m->cols[o.xb] = (stsl_column){"x_base", u.x, "base position"};
    m->cols[o.vb] = (stsl_column){"v_base", u.v, "base velocity"};
    m->layout = (stsl_layout){
        o.n, m->cols, "s", 0,   NULL, STSL_EV_AMBIGUOUS + 1, stsl_multibody_kind_names(),
        0,   NULL,    0,   NULL};
    init_groups(m, o, u);
    return 0;
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

/* Integrate in the base's frame (SPEC §1: x relative to the carrier, the
 * base's acceleration as the inertia force -m a_b) when every contact and
 * every stop joins a body to the base and no coupling joins two bodies:
 * then the relative motion the contacts switch on is the state itself,
 * not a small difference of two large absolute positions (the Janecek
 * base swings 0.05 m around a relative motion of 3e-3 m).  A base at rest
 * at 0 is the ground: no frame. */
static int in_base_frame(const stsl_multibody *m)
{
    const stsl_system *s = m->s;
    double b[3] = {0.0, 0.0, 0.0};
    stsl_signal_eval(m->base, 0.0, 0, b);
    if (!m->base_moves && b[0] == 0.0) return 0;
    int base = m->nb + STSL_END_BASE - 1;
    for (int c = 0; c < m->nc; c++)
        if ((m->cnode[c][0] != base) == (m->cnode[c][1] != base) ||
            (m->cnode[c][0] >= m->nb && m->cnode[c][1] >= m->nb))
            return 0;
    for (int k = 0; k < m->ns; k++)
        if ((m->snode[k][0] != base) == (m->snode[k][1] != base) ||
            (m->snode[k][0] >= m->nb && m->snode[k][1] >= m->nb))
            return 0;
    for (int k = 0; k < s->n_couplings; k++)
        if (m->knode[k][0] < m->nb && m->knode[k][1] < m->nb) return 0;
    return m->nb > 0;
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

static const stsl_hmodel_ops multibody_ops = {
    mb_rhs, mb_guards,   mb_transition, mb_max_step, mb_next_time_event, mb_outputs, mb_power_abs,
    NULL,   mb_describe, mb_mode_name,  mb_guard};

static int alloc_prepared(prepared *p, int L, int max_edges, int max_guards, int nc, int ns, int nb)
{
    p->code = STSL_NO_MODE;
    p->vec = calloc((size_t)(L > 0 ? L : 1), 1);
    p->edges = calloc((size_t)(max_edges > 0 ? max_edges : 1), sizeof *p->edges);
    p->contact_edge = calloc((size_t)(nc > 0 ? nc : 1), sizeof(int));
    p->share = calloc((size_t)(nc > 0 ? nc : 1), sizeof(double));
    p->stop_edge = calloc((size_t)(ns > 0 ? ns : 1), sizeof(int));
    p->guards = calloc((size_t)max_guards, sizeof *p->guards);
    size_t me = (size_t)(max_edges > 0 ? max_edges : 1), nn = (size_t)(nb + 1);
    p->tree = calloc(me, sizeof(int));
    p->parent = calloc(nn, sizeof(int));
    p->depth = calloc(nn, sizeof(int));
    p->cap = calloc(me, sizeof(double));
    if (!p->tree || !p->parent || !p->depth || !p->cap) return -1;
    p->dirs = calloc((size_t)max_guards, sizeof(int));
    return p->vec && p->edges && p->contact_edge && p->share && p->stop_edge && p->guards && p->dirs
               ? 0
               : -1;
}

static void free_prepared(prepared *p)
{
    free(p->vec);
    free(p->edges);
    free(p->contact_edge);
    free(p->share);
    free(p->tree);
    free(p->parent);
    free(p->depth);
    free(p->cap);
    free(p->stop_edge);
    free(p->guards);
    free(p->dirs);
    stsl_cstr_ws_free(p->ws);
    free(p->group_edge);
    free(p->free);
    free(p->need_edge);
    free(p->need_body);
    free(p->need_mark);
    free(p->fric_skip);
}

static int alloc_all(stsl_multibody *m, int max_guards)
{
    int nb = m->nb, nc = m->nc, ns = m->ns, L = m->L, one = 1;
    int ne = nc + ns, nf = m->s->n_forces, nk = m->s->n_couplings;
#define ALLOC(ptr, count) ((ptr) = calloc((size_t)((count) > 0 ? (count) : one), sizeof *(ptr)))
    if (!ALLOC(m->mass, nb) || !ALLOC(m->force_sig, nf) || !ALLOC(m->cnode, nc) ||
        !ALLOC(m->snode, ns) || !ALLOC(m->knode, nk) || !ALLOC(m->stop_ops, ns) ||
        !ALLOC(m->desc_dirs, max_guards) || !ALLOC(m->force, nb) || !ALLOC(m->acc, nb) ||
        !ALLOC(m->lambda, ne) || !ALLOC(m->label, nb + N_FIXED) || !ALLOC(m->xs, nb + N_FIXED) ||
        !ALLOC(m->lmark, nb + N_FIXED) || !ALLOC(m->vs, nb + N_FIXED) || !ALLOC(m->cur, L) ||
        !ALLOC(m->next, L) || !ALLOC(m->cur_keep, L) || !ALLOC(m->affected, nb) ||
        !ALLOC(m->settle_at, ns) || !ALLOC(m->y_look, m->n) || !ALLOC(m->rate, nb) ||
        !ALLOC(m->kicked, nb) || !ALLOC(m->jumped, nc) || !ALLOC(m->jflag, nc) ||
        !ALLOC(m->group, nc) || !ALLOC(m->jlist, nc) || !ALLOC(m->before, nc) ||
        !ALLOC(m->chosen, nc) || !ALLOC(m->changed_by_impact, ns) ||
        !ALLOC(m->gfired, max_guards) || !ALLOC(m->pend, 2 * (nc + ns) + 2) ||
        !ALLOC(m->scale, m->n) || !ALLOC(m->tie, nc) || !ALLOC(m->orient, nc) ||
        !ALLOC(m->reached, nc) || !ALLOC(m->hit, nb) || !ALLOC(m->reach_body, nb) ||
        !ALLOC(m->junit, nc) || !ALLOC(m->jsign, nc) || !ALLOC(m->urep, nc) ||
        !ALLOC(m->ubefore, nc) || !ALLOC(m->ureached, nc) || !ALLOC(m->uchosen, nc) ||
        !ALLOC(m->jstate, nc) || !ALLOC(m->wacc, nc) || !ALLOC(m->mstat, 2 * nc) ||
        !ALLOC(m->impact_w, ns))
        return -1;
    if (!ALLOC(m->load_sig, nc) || !ALLOC(m->load_varies, nc) || !ALLOC(m->lev0, nc)) return -1;
    if (!ALLOC(m->rest_slip, nc)) return -1;
    if (!ALLOC(m->split_hi, ne) || !ALLOC(m->split_lo, ne) || !ALLOC(m->split_ends, ne)) return -1;
#undef ALLOC
    for (int c = 0; c < nc; c++) { /* the levels without load, once */
        double *l = m->lev0[c];
        stsl_friction_levels(&m->s->contacts[c].friction, +1, 0.0, &l[0], &l[1]);
        stsl_friction_levels(&m->s->contacts[c].friction, -1, 0.0, &l[2], &l[3]);
    }
    m->max_pend = 2 * (nc + ns) + 2;
    if (alloc_prepared(&m->prep, L, ne, max_guards, nc, ns, nb) ||
        alloc_prepared(&m->cand, L, ne, max_guards, nc, ns, nb))
        return -1;
    m->ws = stsl_cstr_ws_create(nb, N_FIXED, ne);
    m->split = stsl_split_ws_create(nb + 1, ne);
    m->prep.ws = stsl_cstr_ws_create(nb, N_FIXED, ne);
    m->cand.ws = stsl_cstr_ws_create(nb, N_FIXED, ne);
    m->prep.group_edge = calloc((size_t)(nc > 0 ? nc : 1), sizeof(int));
    m->prep.free = calloc((size_t)(nb > 0 ? nb : 1), sizeof(int));
    size_t me = (size_t)(ne > 0 ? ne : 1);
    m->prep.need_edge = calloc(me, sizeof(int));
    m->prep.need_body = calloc(me, sizeof(int));
    m->prep.need_mark = calloc(me, sizeof(int));
    m->prep.fric_skip = calloc((size_t)(nc > 0 ? nc : 1), 1);
    m->cand.group_edge = calloc((size_t)(nc > 0 ? nc : 1), sizeof(int));
    return m->ws && m->split && m->prep.ws && m->cand.ws && m->prep.group_edge &&
                   m->cand.group_edge && m->prep.free && m->prep.need_edge && m->prep.need_body &&
                   m->prep.need_mark && m->prep.fric_skip
               ? 0
               : -1;
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
    if (!m) {
        stsl_error_set(err, STSL_ENOMEM, "out of memory creating the system");
        return NULL;
    }
    m->s = s;
    m->nb = s->n_bodies;
    m->nc = s->n_contacts;
    m->ns = s->n_stops;
    m->n = 2 * m->nb;
    m->zidx = malloc((size_t)(m->nc > 0 ? m->nc : 1) * sizeof *m->zidx);
    if (!m->zidx) {
        stsl_error_set(err, STSL_ENOMEM, "out of memory creating the system");
        goto fail;
    }
    for (int c = 0; c < m->nc; c++) /* the bristle states follow (x, v) */
        m->zidx[c] = s->contacts[c].friction.law == STSL_LAW_LUGRE ? m->n++ : -1;
    m->L = m->nc + m->ns;
    int max_guards = 2 * (m->nc + m->ns);
    if (alloc_all(m, max_guards > 0 ? max_guards : 1)) {
        stsl_error_set(err, STSL_ENOMEM, "out of memory creating the system");
        goto fail;
    }
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
    m->yabs = malloc((size_t)m->n * sizeof *m->yabs);
    if (!m->yabs || build_incidence(m)) {
        stsl_error_set(err, STSL_ENOMEM, "out of memory creating the system");
        goto fail;
    }
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
    if (init_layout(m)) {
        stsl_error_set(err, STSL_ENOMEM, "out of memory creating the system");
        goto fail;
    }
    for (int i = 0; m->frame && i < 2 * m->nb; i++) /* x, v: the state plus the base's */
        m->col_state[i] = -1;
    /* A smooth law is a near-discontinuity when its slope is steep: stiff
     * (BDF), as for the element. */
    int stiff = 0;
    for (int c = 0; c < m->nc; c++)
        stiff |= stsl_law_is_smooth(s->contacts[c].friction.law);
    m->model = (stsl_hmodel){&multibody_ops, m,
                             m->n,           max_guards > 0 ? max_guards : 1,
                             &m->layout,     m->state_names,
                             stiff,          m->scale,
                             m->col_state};
    return m;
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
    free(m->load_sig);
    free(m->load_varies);
    free(m->lev0);
    free(m->inc_start);
    free(m->inc);
    free(m->pair_rep);
    free(m->zidx);
    free(m->rest_slip);
    stsl_signal_free(m->base);
    stsl_signal_free(m->anchor);
    stsl_cstr_ws_free(m->ws);
    stsl_split_ws_free(m->split);
    free(m->split_hi);
    free(m->split_lo);
    free(m->split_ends);
    free_prepared(&m->prep);
    free_prepared(&m->cand);
    void *all[] = {m->mass,
                   m->lmark,
                   m->xs,
                   m->vs,
                   m->force_sig,
                   m->cnode,
                   m->snode,
                   m->knode,
                   m->stop_ops,
                   m->desc_dirs,
                   m->force,
                   m->acc,
                   m->lambda,
                   m->label,
                   m->cur,
                   m->next,
                   m->cur_keep,
                   m->affected,
                   m->settle_at,
                   m->y_look,
                   m->rate,
                   m->kicked,
                   m->jumped,
                   m->jflag,
                   m->group,
                   m->jlist,
                   m->before,
                   m->chosen,
                   m->changed_by_impact,
                   m->gfired,
                   m->tie,
                   m->orient,
                   m->reached,
                   m->hit,
                   m->reach_body,
                   m->junit,
                   m->jsign,
                   m->urep,
                   m->ubefore,
                   m->ureached,
                   m->uchosen,
                   m->jstate,
                   m->wacc,
                   m->mstat,
                   m->impact_w,
                   m->pend,
                   m->scale,
                   m->yabs,
                   m->table,
                   m->hash,
                   m->cols,
                   m->col_state,
                   m->names,
                   (void *)m->state_names,
                   (void *)m->members};
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
    return intern(m, vec);
}

/* The friction of contact c in mode p (mb_outputs' column). */
static double contact_friction(const stsl_multibody *m, const prepared *p, int c,
                               const fixed_motion *fm, const double *y)
{
    double w = rel_v(m, fm, y, m->cnode[c]);
    if (m->zidx[c] >= 0) return lugre_force(m, c, w, y);
    if (p->vec[c] != STSL_CONTACT_STUCK)
        return slip_force(m, c, p->vec[c], w, contact_load(m, c, fm));
    return p->contact_edge[c] >= 0 ? contact_lambda(m, p, c) : held_friction(m, p, c, fm);
}

int stsl_multibody_eval_forces(stsl_multibody *m, const uint8_t *vec, double t, const double *y,
                               stsl_multibody_forces *out)
{
    stsl_mode_code code = intern(m, vec);
    const prepared *p = code < 0 ? NULL : prepare(m, code);
    if (!p) return -1;
    fixed_motion fm;
    eval_fixed(m, t, &fm);
    int rc = solve(m, p, &fm, t, y, NULL, NULL);
    if (rc) return rc > 0 ? 1 : -1;
    memcpy(out->acc, m->acc, (size_t)m->nb * sizeof *out->acc);
    for (int i = 0; i < m->n; i++)
        out->zrate[i] = 0.0;
    for (int c = 0; c < m->nc; c++) {
        const stsl_friction_params *fp = &m->s->contacts[c].friction;
        double load = contact_load(m, c, &fm);
        out->w[c] = rel_v(m, &fm, y, m->cnode[c]);
        out->friction[c] = contact_friction(m, p, c, &fm, y);
        stsl_friction_levels(fp, +1, load, &out->fd_pos[c], &out->fs_pos[c]);
        stsl_friction_levels(fp, -1, load, &out->fd_neg[c], &out->fs_neg[c]);
        if (m->zidx[c] >= 0) out->zrate[m->zidx[c]] = bristle_rate(m, c, out->w[c], y);
    }
    for (int k = 0; k < m->ns; k++) {
        out->stop_x[k] = rel_x(m, &fm, y, m->snode[k]);
        out->stop_w[k] = rel_v(m, &fm, y, m->snode[k]);
        out->stop_pull[k] = p->stop_edge[k] >= 0 ? stop_pull(m, p, k, &fm) : 0.0;
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
