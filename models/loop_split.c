/* loop_split.c - the lexicographically smallest band uses of a loop's
 * constraint forces, exactly (see loop_split.h).
 *
 * Formulation.  lambda = lambda0 + d with d a circulation on the graph
 * (what it adds at every node sums to 0).  At a level t every banded edge
 * must hold -t lo_e <= lambda_e <= t hi_e, i.e. d_e in [L_e(t), U_e(t)]
 * with L_e = -t lo_e - lambda0_e, U_e = t hi_e - lambda0_e.  By Hoffman's
 * circulation theorem such a d exists iff for every set S of nodes
 *
 *     g_S(t) = sum over edges leaving S of U_e - sum over edges entering
 *              S of L_e  >=  0
 *
 * (an edge leaves S when its node a is in S and b is not), and g_S is
 * affine in t with a slope >= 0 (the levels of the edges crossing S;
 * infinite when a stop crosses).  So the smallest feasible level is
 * t* = max over S of the root of g_S: where the loop's bands bind is a
 * cut, and all of the contacts across it reach their levels together.
 *
 * Finding t* (Dinkelbach).  From t = 0: a feasibility test at t is a
 * maximum flow (the usual reduction: d = L + y, 0 <= y <= U - L, node
 * excesses from the shift fed from a source and drained to a sink); if it
 * fails, the nodes the source still reaches in the residual graph form a
 * set S with g_S(t) < 0, and t moves to the root of g_S.  Every t so
 * visited is the root of some g_S, hence <= t*, and t grows strictly, so
 * no cut is visited twice: the loop ends after at most as many steps as
 * there are distinct roots (in practice 1 to 3), at t* exactly.
 *
 * Lexicographic order.  Every feasible d at t* has the edges crossing the
 * last violated cut S at their bounds (g_S(t*) = 0 forces them there):
 * those edges are fixed at that use, and the rest is minimised again with
 * them fixed.  Each round fixes at least one edge (a violated cut has a
 * banded edge across it), so at most as many rounds as banded edges; the
 * uses fixed in successive rounds do not increase, and no edge fixed in a
 * round could be lower without raising one fixed before (it crosses a cut
 * that is tight at that round's level): the result is the lexicographic
 * minimum of the sorted uses, unique on the banded edges.  Unbanded edges
 * (stops) get what is left, unique unless stops alone close a loop.
 *
 * Maximum flow: Edmonds-Karp (shortest augmenting paths, each saturating
 * an arc), on graphs of a loop's few nodes.  Residual capacities within
 * the rounding level TOL_ULPS * eps * (the forces' size) count as zero:
 * the balances and levels are known to that level only, and it keeps a
 * rounding-level excess from being taken for a cut. */
#include "models/loop_split.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "solver/arrays.h"

/* The rounding level of the balances, in units of eps times the sum of
 * the forces' and levels' magnitudes: a loop of a few edges sums a few
 * terms per node, far below this; a violated cut of a real force is of
 * the force's size. */
#define TOL_ULPS 256.0
/* Dinkelbach steps per round: each visits another cut; a loop of n nodes
 * has 2^n, but t* is found in a few (a bound against rounding only). */
#define MAX_STEPS 64

enum { FREE = 0, FIXED = 1, UNBANDED = 2 };

/* Arcs: one per edge (flow y in [-r, f] from its tail to its head), then
 * per node one from the source and one to the sink. */
struct stsl_split_ws {
    int max_nodes, max_edges;
    int *tail, *head, *adj_start, *adj, *pred, *queue, *state, *side, *cut;
    double *f, *r, *y, *shift, *phi;
};

/* The workspace's arrays, allocated (release 0; 0, or nonzero out of
 * memory) or freed (release 1) from one list (solver/arrays.h). */
static int ws_arrays(stsl_split_ws *ws, int release)
{
    size_t nv = (size_t)ws->max_nodes + 2;
    size_t na = (size_t)ws->max_edges + 2 * (size_t)ws->max_nodes + 1;
#define ARRAY(p, count) STSL_ARRAY(release, p, count)
    return ARRAY(ws->tail, na) | ARRAY(ws->head, na) | ARRAY(ws->adj_start, nv + 1) |
           ARRAY(ws->adj, 2 * na) | ARRAY(ws->pred, nv) | ARRAY(ws->queue, nv) |
           ARRAY(ws->side, nv) | ARRAY(ws->cut, nv) | ARRAY(ws->state, na) | ARRAY(ws->f, na) |
           ARRAY(ws->r, na) | ARRAY(ws->y, na) | ARRAY(ws->shift, na) | ARRAY(ws->phi, na);
#undef ARRAY
}

void stsl_split_ws_free(stsl_split_ws *ws)
{
    if (!ws) return;
    ws_arrays(ws, 1);
    free(ws);
}

stsl_split_ws *stsl_split_ws_create(int max_nodes, int max_edges)
{
    if (max_nodes < 0 || max_edges < 0) return NULL;
    stsl_split_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->max_nodes = max_nodes;
    ws->max_edges = max_edges;
    if (ws_arrays(ws, 0)) {
        stsl_split_ws_free(ws);
        return NULL;
    }
    return ws;
}

/* The arcs and every node's incident arcs (counting sort). */
static void build_graph(stsl_split_ws *ws, const stsl_split_problem *p)
{
    int n = p->n_nodes, src = n, snk = n + 1, na = p->n_edges + 2 * n;
    for (int e = 0; e < p->n_edges; e++) {
        ws->tail[e] = p->ends[e][0];
        ws->head[e] = p->ends[e][1];
    }
    for (int i = 0; i < n; i++) {
        ws->tail[p->n_edges + 2 * i] = src;
        ws->head[p->n_edges + 2 * i] = i;
        ws->tail[p->n_edges + 2 * i + 1] = i;
        ws->head[p->n_edges + 2 * i + 1] = snk;
    }
    for (int v = 0; v <= n + 2; v++)
        ws->adj_start[v] = 0;
    for (int a = 0; a < na; a++) {
        ws->adj_start[ws->tail[a]]++;
        ws->adj_start[ws->head[a]]++;
    }
    for (int v = 1; v <= n + 2; v++)
        ws->adj_start[v] += ws->adj_start[v - 1];
    for (int a = na - 1; a >= 0; a--) {
        ws->adj[--ws->adj_start[ws->tail[a]]] = a;
        ws->adj[--ws->adj_start[ws->head[a]]] = a;
    }
}

/* Capacities at level t: every banded edge's d in [L, U] shifted to
 * y in [0, U - L] (fixed edges: U = L), unbanded ones free both ways; the
 * shifts' excesses fed from the source, drained to the sink.  Returns the
 * flow that must leave the source. */
static double set_level(stsl_split_ws *ws, const stsl_split_problem *p, double t)
{
    int n = p->n_nodes;
    double need = 0.0;
    for (int e = 0; e < p->n_edges; e++) {
        double lo = -t * p->lo[e] - p->lambda0[e], up = t * p->hi[e] - p->lambda0[e];
        if (ws->state[e] == FIXED) lo = up = ws->phi[e] - p->lambda0[e];
        ws->y[e] = 0.0;
        ws->r[e] = ws->state[e] == UNBANDED ? INFINITY : 0.0;
        ws->f[e] = ws->state[e] == UNBANDED ? INFINITY : fmax(up - lo, 0.0);
        ws->shift[e] = ws->state[e] == UNBANDED ? 0.0 : lo;
    }
    for (int i = 0; i < n; i++) {
        int in = p->n_edges + 2 * i, out = in + 1;
        ws->f[in] = ws->f[out] = ws->r[in] = ws->r[out] = ws->y[in] = ws->y[out] = 0.0;
    }
    for (int e = 0; e < p->n_edges; e++) { /* the shift leaves a and enters b */
        ws->f[p->n_edges + 2 * p->ends[e][0]] += ws->shift[e];
        ws->f[p->n_edges + 2 * p->ends[e][1]] -= ws->shift[e];
    }
    for (int i = 0; i < n; i++) { /* node i must send out -shift sum: excess */
        int in = p->n_edges + 2 * i, out = in + 1;
        double ex = -ws->f[in];
        ws->f[in] = fmax(ex, 0.0);
        ws->f[out] = fmax(-ex, 0.0);
        need += ws->f[in];
    }
    return need;
}

/* Residual capacity of arc a leaving node u. */
static double residual(const stsl_split_ws *ws, int a, int u)
{
    return u == ws->tail[a] ? ws->f[a] - ws->y[a] : ws->r[a] + ws->y[a];
}

/* Breadth-first search of the residual graph from the source: side[v] = 1
 * for the nodes reached, pred[v] the arc that reached v.  1 when the sink
 * was reached. */
static int search(stsl_split_ws *ws, int nv, int src, int snk, double tol)
{
    int head = 0, tail = 0;
    for (int v = 0; v < nv; v++)
        ws->side[v] = 0;
    ws->side[src] = 1;
    ws->queue[tail++] = src;
    while (head < tail) {
        int u = ws->queue[head++];
        for (int k = ws->adj_start[u]; k < ws->adj_start[u + 1]; k++) {
            int a = ws->adj[k], v = ws->tail[a] == u ? ws->head[a] : ws->tail[a];
            if (ws->side[v] || !(residual(ws, a, u) > tol)) continue;
            ws->side[v] = 1;
            ws->pred[v] = a;
            if (v == snk) return 1;
            ws->queue[tail++] = v;
        }
    }
    return 0;
}

/* Edmonds-Karp; returns the flow sent.  Each augmentation saturates an
 * arc on a shortest path, so at most (arcs x nodes) of them; the cap is
 * a bound against rounding only. */
static double max_flow(stsl_split_ws *ws, int n, int na, double tol)
{
    int src = n, snk = n + 1;
    double total = 0.0;
    for (long it = 0; it < 4L * (na + 1) * (n + 2) && search(ws, n + 2, src, snk, tol); it++) {
        double amt = INFINITY;
        for (int v = snk; v != src;) {
            int a = ws->pred[v], u = ws->tail[a] == v ? ws->head[a] : ws->tail[a];
            amt = fmin(amt, residual(ws, a, u));
            v = u;
        }
        for (int v = snk; v != src;) {
            int a = ws->pred[v], u = ws->tail[a] == v ? ws->head[a] : ws->tail[a];
            ws->y[a] += u == ws->tail[a] ? amt : -amt;
            v = u;
        }
        total += amt;
    }
    return total;
}

/* The root of g_S for the cut in ws->side (nodes 0..n-1); *slope its
 * slope (0: only fixed edges cross it). */
static double cut_root(const stsl_split_ws *ws, const stsl_split_problem *p, double *slope)
{
    double a = 0.0, b = 0.0;
    for (int e = 0; e < p->n_edges; e++) {
        int sa = ws->side[p->ends[e][0]], sb = ws->side[p->ends[e][1]];
        if (sa == sb) continue;
        double sign = sa ? 1.0 : -1.0; /* leaving S: + U; entering: - L */
        if (ws->state[e] == UNBANDED) a = INFINITY;
        if (ws->state[e] == FIXED) b += sign * (ws->phi[e] - p->lambda0[e]);
        if (ws->state[e] != FREE) continue;
        a += sa ? p->hi[e] : p->lo[e];
        b -= sign * p->lambda0[e];
    }
    *slope = a;
    return a > 0.0 && a < INFINITY ? -b / a : 0.0;
}

/* One round: the smallest level t of the free edges with the fixed ones
 * fixed (Dinkelbach, above); the last violated cut into ws->cut, *found
 * whether there was one. */
static double lowest_level(stsl_split_ws *ws, const stsl_split_problem *p, double tol, int *found)
{
    int n = p->n_nodes, na = p->n_edges + 2 * n;
    double t = 0.0;
    *found = 0;
    for (int step = 0; step < MAX_STEPS; step++) {
        double need = set_level(ws, p, t);
        if (need - max_flow(ws, n, na, tol) <= tol) break;
        double slope, root = cut_root(ws, p, &slope);
        for (int v = 0; v < n; v++)
            ws->cut[v] = ws->side[v];
        *found = 1;
        if (!(slope > 0.0 && slope < INFINITY) || !(root > t)) break; /* rounding */
        t = root;
    }
    return t;
}

/* Fix the free edges across the cut at their bounds at level t (all of
 * them at 0 when no cut bound them); 1 when some edge was fixed. */
static int fix_round(stsl_split_ws *ws, const stsl_split_problem *p, double t, int found)
{
    int fixed = 0;
    for (int e = 0; e < p->n_edges; e++) {
        if (ws->state[e] != FREE) continue;
        int sa = ws->cut[p->ends[e][0]], sb = ws->cut[p->ends[e][1]];
        if (found && sa == sb) continue;
        ws->phi[e] = !found ? 0.0 : sa ? t * p->hi[e] : -t * p->lo[e];
        ws->state[e] = FIXED;
        fixed = 1;
    }
    return fixed;
}

/* The largest use of lambda's banded edges. */
static double largest_use(const stsl_split_problem *p, const double *lambda)
{
    double most = 0.0;
    for (int e = 0; e < p->n_edges; e++) {
        if (isinf(p->hi[e]) && isinf(p->lo[e])) continue;
        double l = lambda[e], lim = l > 0.0 ? p->hi[e] : p->lo[e];
        if (l != 0.0) most = fmax(most, lim > 0.0 ? fabs(l) / lim : INFINITY);
    }
    return most;
}

double stsl_split_solve(stsl_split_ws *ws, const stsl_split_problem *p, double *lambda)
{
    int n = p->n_nodes, ne = p->n_edges, na = ne + 2 * n;
    if (n < 0 || ne < 0 || n > ws->max_nodes || ne > ws->max_edges) {
        for (int e = 0; e < ne && lambda != p->lambda0; e++)
            lambda[e] = p->lambda0[e];
        return NAN;
    }
    double size = 0.0;
    int free_edges = 0, unbanded = 0;
    for (int e = 0; e < ne; e++) {
        int none = isinf(p->hi[e]) && isinf(p->lo[e]);
        ws->state[e] = none ? UNBANDED : FREE;
        free_edges += !none;
        unbanded += none;
        size += fabs(p->lambda0[e]) + (none ? 0.0 : p->hi[e] + p->lo[e]);
    }
    double tol = TOL_ULPS * DBL_EPSILON * size;
    build_graph(ws, p);
    while (free_edges > 0) {
        int found;
        double t = lowest_level(ws, p, tol, &found);
        if (!fix_round(ws, p, t, found)) { /* rounding only: keep the last flow */
            for (int e = 0; e < ne; e++)
                if (ws->state[e] == FREE) {
                    ws->phi[e] = p->lambda0[e] + ws->shift[e] + ws->y[e];
                    ws->state[e] = FIXED;
                }
        }
        free_edges = 0;
        for (int e = 0; e < ne; e++)
            free_edges += ws->state[e] == FREE;
    }
    if (unbanded) { /* the stops carry the rest */
        set_level(ws, p, 0.0);
        max_flow(ws, n, na, tol);
    }
    for (int e = 0; e < ne; e++)
        lambda[e] = ws->state[e] == FIXED ? ws->phi[e] : p->lambda0[e] + ws->shift[e] + ws->y[e];
    return largest_use(p, lambda);
}
