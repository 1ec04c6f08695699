/* multibody_modes.c - the modes of the multibody model (multibody_impl.h):
 * the table that interns mode vectors, and the preparation of a mode for
 * evaluation, its constraints (edges, parallel contacts' shares, loops)
 * and its guards.  Separate from the forces: a mode is prepared once when
 * the integration enters it, its forces are evaluated at every step. */
#include "models/multibody_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "physics/contact.h"
#include "solver/fnv1a.h"

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
stsl_mode_code stsl_mb_intern(stsl_multibody *m, const uint8_t *v)
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

/* ---- preparing a mode: constraints and guards ------------------------------- */

static void add_guard(prepared *p, gtype type, int index, int side, int dir)
{
    p->guards[p->n_guards] = (guard_ref){type, index, side, dir};
    p->dirs[p->n_guards++] = dir;
}

/* The static level without load: what the split of parallel stuck
 * contacts weighs them by.  Under a load a contact's levels differ by
 * direction and in time: an edge with a loaded contact is marked
 * share_varies and split at the instant instead (stsl_mb_parallel_lambda). */
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
    for (int e = 0; e < p->n_edges; e++)
        p->share_varies[e] = 0;
    for (int c = 0; c < m->nc; c++) { /* a loaded contact with another on its edge */
        int e = p->contact_edge[c];
        if (e < 0 || !m->load_sig[c]) continue;
        for (int d = 0; d < m->nc && !p->share_varies[e]; d++)
            p->share_varies[e] = d != c && p->contact_edge[d] == e;
    }
    for (int c = 0; c < m->nc; c++) {
        int e = p->contact_edge[c];
        if (e < 0) continue;
        double sum = p->cap[e], mine = static_level(m, c);
        int count = 0;
        for (int d = 0; d < m->nc && !(sum > 0.0); d++) /* levels 0: equal parts */
            count += p->contact_edge[d] == e;
        double part = sum > 0.0 ? mine / sum : 1.0 / count;
        p->share[c] = runs_with_edge(m, p, e, c) ? part : -part;
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
void stsl_mb_prepare_vec(stsl_multibody *m, const uint8_t *v, prepared *p)
{
    memcpy(p->vec, v, (size_t)m->L);
    build_edges(m, v, p);
    build_cycles(m, p);
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
const prepared *stsl_mb_prepare(stsl_multibody *m, stsl_mode_code code)
{
    if (m->prep.code != code) {
        const uint8_t *v = mode_vec(m, code);
        if (!v) return NULL;
        stsl_mb_prepare_vec(m, v, &m->prep);
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
