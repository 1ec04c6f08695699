/* cluster.c - clusters of bodies held together and their constraint forces.
 *
 * Formulation.  Within a cluster every edge holds its two nodes at zero
 * relative velocity, hence at zero relative acceleration: all bodies of a
 * connected cluster share one acceleration a.  It is known before any
 * constraint force: the prescribed acceleration of the cluster's fixed node
 * when it holds one, else a = sum f / sum m (the constraint forces are
 * internal and cancel in the sum).  What is left are the bodies' equations
 *
 *     D lambda = r,   r_i = m_i a - f_i,
 *
 * with D the cluster's node-edge incidence matrix restricted to body rows
 * (D_ie = +1 when body i is edges[e][0], -1 when it is edges[e][1]).  We
 * solve this system of integers directly rather than the classical
 * (W M^-1 W^T) lambda = W M^-1 f - b: the latter squares the condition
 * number and mixes the masses into the matrix, while D holds only 0 and +-1
 * (exact in floating point) and the masses enter only the right-hand side.
 *
 * Rank of D (nb bodies, ne edges, k fixed nodes of the cluster): a fixed
 * node grounds the cluster and D has full row rank nb; without one the rows
 * sum to zero (each edge is +1 on one body and -1 on another) and the rank
 * is nb - 1 (and sum r = 0 by the choice of a, so the system is
 * consistent); dropping one body's row, implied by the others, leaves
 * D' (m x ne, m = rank) of full row rank.  The rank is known exactly from
 * the graph, so no numerical rank decision is needed.  One solve serves
 * both cases: D'^T = Q R (Householder QR, ne x m), lambda = Q R^-T r'.
 * When ne = m (a tree with at most one fixed node) that is the unique
 * lambda; when ne > m (a loop of constraints, or two fixed nodes of equal
 * acceleration: a loop closed through the prescribed motion) it is the
 * minimum-norm one, pinv(D) r: it lies in the range of D^T, orthogonal to
 * the null space, and spreads a redundant reaction evenly over parallel
 * paths.  Not GSL's LU (gsl_linalg_LU_decomp allocates its pivots in every
 * call in GSL 2.7) nor its SVD (Golub-Reinsch allocates too; one-sided
 * Jacobi does not, but took 5.8 ms per solve for a loop of 50 bodies
 * against 23 us for this QR in the order of `order` below, 5 us for a chain
 * of 50; measured at -O2): the engine solves in every right-hand side.
 *
 * Threshold.  R's diagonal is checked against RANK_REL_THRESHOLD times its
 * largest entry, a guard that cannot fire for valid input: the singular
 * values of D' are bounded below, D' D'^T being the (grounded) Laplacian of
 * the cluster's graph, whose inverse has entries bounded by effective
 * resistances <= nb, so sigma_min >= 1/nb; sigma_max^2 <= 2 * (largest
 * degree) <= 2 ne; and min |R_jj| >= sigma_min, max |R_jj| <= sigma_max.
 * So min/max |R_jj| >= 1 / (nb sqrt(2 ne)), >= 7e-7 for clusters up to 1e4
 * bodies and edges, while a dependent row (a bug in the rank count) gives
 * |R_jj| ~ ne * eps * sigma_max <= 2e-12 there: 1e-9 sits three decades
 * from both.
 *
 * Trees.  A cluster with ne = m (no loop) has the unique lambda, and it is
 * found without any matrix: in the breadth-first order from the fixed node
 * (or the root body) every body but the root has exactly one edge to its
 * parent, and its children come later in that order.  Taken from the last
 * found back (the leaves first), a body's equation has one unknown left,
 * its parent edge: lambda_e = D_ve (r_v - sum of its children's terms), and
 * the parent's right-hand side loses D_ue lambda_e.  O(nb) with one
 * subtraction per edge, against the QR's O(nb^2) fill and O(nb^2) (for the
 * tree order) factorisation; a partial sum of at most nb right-hand sides,
 * so its error is at most nb eps sum |r|, no condition number in it.  A
 * loop keeps the QR (a minimum-norm split needs the whole cycle space; the
 * loops of the engine are small: parallel paths, a ring of a few bodies).
 *
 * Two phases.  The graph's work (components, grouping, adjacency, the
 * breadth-first order, which clusters are trees) depends only on the edges;
 * stsl_cstr_analyse does it once per set of edges (the engine: once per
 * mode), stsl_cstr_solve_analysed then costs O(nb + ne) for trees. */
#include "models/cluster.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/arrays.h"
#include "solver/gsl_setup.h"

/* |R_jj| below this fraction of the largest: dependent rows (above). */
#define RANK_REL_THRESHOLD 1e-9

/* One cluster's nodes (bodies first: nodes are sorted and bodies have the
 * smaller indices) and edges, and what the analysis found. */
typedef struct cluster {
    const int *nodes, *edges;
    int nb, k, ne; /* bodies, fixed nodes, edges */
    int rank;      /* of D': nb with a fixed node, else nb - 1 */
    int tree;      /* ne == rank: the unique lambda, from the leaves up */
    int *bfs;      /* its nodes in breadth-first order (ws->queue) */
    int n_bfs;
} cluster;

struct stsl_cstr_ws {
    int max_bodies, max_fixed, max_edges;
    /* The analysis (stsl_cstr_analyse): the edges it was made for, its
     * clusters, whether any has a loop. */
    int n_bodies, n_fixed, n_edges, n_clusters, redundant, analysed;
    int dense;        /* every cluster by the QR (stsl_cstr_ws_set_dense) */
    cluster *cl;      /* n_clusters */
    int (*aedges)[2]; /* the edges analysed (an analysis of the same edges is kept) */
    int *tree_edge;   /* a body's edge to its parent in the breadth-first tree, -1: a root */
    double *res;      /* the tree solve's right-hand sides, per body */
    int *label;       /* cluster of every node */
    int *node_start;  /* nodes of cluster c: node_order[node_start[c] .. node_start[c+1]) */
    int *node_order;  /* nodes sorted by cluster, increasing within one */
    int *edge_start;  /* edges of cluster c, likewise */
    int *edge_order;
    int *adj_start; /* edges at node i: adj[adj_start[i] .. adj_start[i+1]) */
    int *adj;
    int *queue;    /* breadth-first order of each cluster's nodes, cluster by cluster */
    int *seen;     /* node reached by the breadth-first search */
    int *local;    /* column of a body in D'^T (m: the dropped root) */
    int *edge_row; /* row of an edge in D'^T */
    double *mat;   /* D'^T, replaced by its QR */
    double *rhs, *sol, *tmp;
};

/* The workspace's arrays, allocated (release 0; 0, or nonzero out of
 * memory) or freed (release 1) from one list (solver/arrays.h). */
static int ws_arrays(stsl_cstr_ws *ws, int release)
{
    size_t nb = (size_t)ws->max_bodies, ne = (size_t)ws->max_edges;
    size_t nodes = nb + (size_t)ws->max_fixed;
#define ARRAY(p, count) STSL_ARRAY(release, p, count)
    return ARRAY(ws->label, nodes) | ARRAY(ws->node_start, nodes + 1) |
           ARRAY(ws->node_order, nodes) | ARRAY(ws->edge_start, nodes + 1) |
           ARRAY(ws->edge_order, ne) | ARRAY(ws->adj_start, nodes + 1) | ARRAY(ws->adj, 2 * ne) |
           ARRAY(ws->queue, nodes) | ARRAY(ws->seen, nodes) | ARRAY(ws->local, nb) |
           ARRAY(ws->edge_row, ne) | ARRAY(ws->mat, ne * nb) | ARRAY(ws->rhs, nb) |
           ARRAY(ws->sol, ne) | ARRAY(ws->tmp, nb) | ARRAY(ws->cl, nodes) |
           ARRAY(ws->tree_edge, nodes) | ARRAY(ws->aedges, ne) | ARRAY(ws->res, nb);
#undef ARRAY
}

void stsl_cstr_ws_free(stsl_cstr_ws *ws)
{
    if (!ws) return;
    ws_arrays(ws, 1);
    free(ws);
}

stsl_cstr_ws *stsl_cstr_ws_create(int max_bodies, int max_fixed, int max_edges)
{
    if (max_bodies < 0 || max_fixed < 0 || max_edges < 0) return NULL;
    stsl_gsl_setup();
    stsl_cstr_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->max_bodies = max_bodies;
    ws->max_fixed = max_fixed;
    ws->max_edges = max_edges;
    if (ws_arrays(ws, 0)) {
        stsl_cstr_ws_free(ws);
        return NULL;
    }
    return ws;
}

void stsl_cstr_ws_set_dense(stsl_cstr_ws *ws, int dense)
{
    ws->dense = dense != 0;
}

/* ---- components ---------------------------------------------------------- */

/* Root of x with path halving.  Invariant: parent[i] <= i (a root is its
 * component's smallest node), which the relabelling below relies on. */
static int find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static int edge_in_range(const stsl_cstr_problem *p, int e)
{
    int n = p->n_bodies + p->n_fixed;
    return p->edges[e][0] >= 0 && p->edges[e][0] < n && p->edges[e][1] >= 0 && p->edges[e][1] < n;
}

/* Union-find in label[] itself, then labels 0, 1, ... in place: scanning
 * upwards, a root opens a new cluster and any other node's parent (smaller,
 * already relabelled) holds its cluster's label.  Returns the count. */
static int components(const stsl_cstr_problem *p, int *label)
{
    int n = p->n_bodies + p->n_fixed;
    for (int i = 0; i < n; i++)
        label[i] = i;
    for (int e = 0; e < p->n_edges; e++) {
        if (!edge_in_range(p, e)) continue;
        int ra = find(label, p->edges[e][0]), rb = find(label, p->edges[e][1]);
        if (ra < rb) label[rb] = ra;
        if (rb < ra) label[ra] = rb;
    }
    int count = 0;
    for (int i = 0; i < n; i++)
        label[i] = label[i] == i ? count++ : label[label[i]];
    return count;
}

void stsl_cstr_components(stsl_cstr_ws *ws, const stsl_cstr_problem *p, int *label)
{
    (void)ws;
    components(p, label);
}

/* Nodes and edges grouped by cluster (counting sort): counts, running ends,
 * then filled from the back so that each start[c] ends at the cluster's
 * first slot and nodes stay in increasing order within a cluster. */
static void bucket(stsl_cstr_ws *ws, const stsl_cstr_problem *p, int n_clusters)
{
    int n = p->n_bodies + p->n_fixed;
    int *ns = ws->node_start, *es = ws->edge_start;
    for (int c = 0; c < n_clusters; c++)
        ns[c] = es[c] = 0;
    for (int i = 0; i < n; i++)
        ns[ws->label[i]]++;
    for (int e = 0; e < p->n_edges; e++)
        es[ws->label[p->edges[e][0]]]++;
    for (int c = 1; c < n_clusters; c++) {
        ns[c] += ns[c - 1];
        es[c] += es[c - 1];
    }
    ns[n_clusters] = n;
    es[n_clusters] = p->n_edges;
    for (int i = n - 1; i >= 0; i--)
        ws->node_order[--ns[ws->label[i]]] = i;
    for (int e = p->n_edges - 1; e >= 0; e--)
        ws->edge_order[--es[ws->label[p->edges[e][0]]]] = e;
}

/* ---- validation ------------------------------------------------------------ */

static int check_sizes(const stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_error *err)
{
    if (p->n_bodies < 0 || p->n_fixed < 0 || p->n_edges < 0 || p->n_bodies > ws->max_bodies ||
        p->n_fixed > ws->max_fixed || p->n_edges > ws->max_edges)
        return stsl_error_set(err, STSL_EINPUT,
                              "constraint problem: %d bodies, %d fixed nodes, %d edges; the "
                              "workspace holds 0..%d, 0..%d, 0..%d",
                              p->n_bodies, p->n_fixed, p->n_edges, ws->max_bodies, ws->max_fixed,
                              ws->max_edges);
    for (int i = 0; i < p->n_bodies; i++)
        if (!(p->mass[i] > 0))
            return stsl_error_set(err, STSL_EINPUT,
                                  "constraint problem: body %d: mass %g is not > 0", i, p->mass[i]);
    return STSL_OK;
}

static int check_edges(const stsl_cstr_problem *p, stsl_error *err)
{
    int n = p->n_bodies + p->n_fixed;
    for (int e = 0; e < p->n_edges; e++) {
        int a = p->edges[e][0], b = p->edges[e][1];
        if (!edge_in_range(p, e))
            return stsl_error_set(err, STSL_EINPUT,
                                  "constraint problem: edge %d: nodes %d, %d; allowed 0..%d", e, a,
                                  b, n - 1);
        if (a >= p->n_bodies)
            return stsl_error_set(err, STSL_EINPUT,
                                  "constraint problem: edge %d: first node %d is a fixed node "
                                  "(bodies are 0..%d)",
                                  e, a, p->n_bodies - 1);
        if (a == b)
            return stsl_error_set(err, STSL_EINPUT,
                                  "constraint problem: edge %d joins node %d to itself", e, a);
    }
    return STSL_OK;
}

/* ---- one cluster ------------------------------------------------------------- */

static cluster cluster_of(stsl_cstr_ws *ws, const stsl_cstr_problem *p, int c)
{
    cluster cl = {ws->node_order + ws->node_start[c],
                  ws->edge_order + ws->edge_start[c],
                  0,
                  0,
                  ws->edge_start[c + 1] - ws->edge_start[c],
                  0,
                  0,
                  ws->queue + ws->node_start[c],
                  0};
    int n = ws->node_start[c + 1] - ws->node_start[c];
    while (cl.nb < n && cl.nodes[cl.nb] < p->n_bodies)
        cl.nb++;
    cl.k = n - cl.nb;
    cl.rank = cl.k > 0 ? cl.nb : cl.nb - 1;
    cl.tree = cl.ne == cl.rank;
    return cl;
}

/* The cluster's common acceleration; 0, or 1 on a conflict of its fixed
 * nodes (exact comparison: any difference of prescribed accelerations makes
 * the constraints incompatible). */
static int cluster_acc(const stsl_cstr_problem *p, const cluster *cl, double *a)
{
    if (cl->k > 0) {
        *a = p->fixed_acc[cl->nodes[cl->nb] - p->n_bodies];
        for (int j = cl->nb + 1; j < cl->nb + cl->k; j++)
            if (p->fixed_acc[cl->nodes[j] - p->n_bodies] != *a) return 1;
        return 0;
    }
    double f = 0, m = 0;
    for (int j = 0; j < cl->nb; j++) {
        f += p->force[cl->nodes[j]];
        m += p->mass[cl->nodes[j]];
    }
    *a = f / m;
    return 0;
}

/* Edges at every node (counting sort), for the breadth-first search. */
static void adjacency(stsl_cstr_ws *ws, const stsl_cstr_problem *p)
{
    int n = p->n_bodies + p->n_fixed;
    int *start = ws->adj_start;
    for (int i = 0; i <= n; i++)
        start[i] = 0;
    for (int e = 0; e < p->n_edges; e++) {
        start[p->edges[e][0]]++;
        start[p->edges[e][1]]++;
    }
    for (int i = 1; i <= n; i++)
        start[i] += start[i - 1];
    for (int e = p->n_edges - 1; e >= 0; e--) {
        ws->adj[--start[p->edges[e][0]]] = e;
        ws->adj[--start[p->edges[e][1]]] = e;
    }
    for (int i = 0; i < n; i++)
        ws->seen[i] = 0;
}

/* Rows and columns of D'^T (ne x m) in an order that makes it upper
 * triangular but for the rows of loop-closing edges: a breadth-first
 * spanning tree from the fixed nodes (or from the first body, whose column
 * is the dropped one), bodies numbered from the last column back in the
 * order found, each body's tree edge in the row of its column.  A tree
 * edge then has its other entry in its parent's column, further right (or
 * none: the root).  Householder QR skips columns that are already zero
 * below the diagonal, so a tree costs O(n^2) instead of O(n^3), and a loop
 * a full transform only in the columns its closing edges touch.  The
 * ordering changes neither the unique nor the minimum-norm lambda.  The
 * order found is kept in cl->bfs, each body's tree edge in tree_edge (the
 * tree solve's). */
static void order(stsl_cstr_ws *ws, const stsl_cstr_problem *p, cluster *cl)
{
    int head = 0, tail = 0, found = 0, m = cl->rank, extra = m;
    int *queue = cl->bfs;
    for (int le = 0; le < cl->ne; le++)
        ws->edge_row[cl->edges[le]] = -1;
    /* Seeds: the fixed nodes (after the bodies in cl->nodes), or the root. */
    int first = cl->k > 0 ? cl->nb : 0, last = cl->k > 0 ? cl->nb + cl->k : 1;
    if (cl->k == 0) ws->local[cl->nodes[0]] = m;
    for (int j = first; j < last; j++) {
        ws->seen[cl->nodes[j]] = 1;
        ws->tree_edge[cl->nodes[j]] = -1;
        queue[tail++] = cl->nodes[j];
    }
    while (head < tail) {
        int u = queue[head++];
        for (int a = ws->adj_start[u]; a < ws->adj_start[u + 1]; a++) {
            int e = ws->adj[a], v = p->edges[e][0] == u ? p->edges[e][1] : p->edges[e][0];
            if (ws->seen[v]) continue;
            ws->seen[v] = 1;
            queue[tail++] = v;
            ws->local[v] = m - 1 - found++;
            ws->edge_row[e] = ws->local[v];
            ws->tree_edge[v] = e;
        }
    }
    cl->n_bfs = tail;
    for (int le = 0; le < cl->ne; le++)
        if (ws->edge_row[cl->edges[le]] < 0) ws->edge_row[cl->edges[le]] = extra++;
}

/* D'^T (ne x m, row-major) into ws->mat and r' into ws->rhs, in the order
 * above; the dropped root's column (local == m) is left out. */
static void fill(stsl_cstr_ws *ws, const stsl_cstr_problem *p, const cluster *cl, double a)
{
    int m = cl->rank;
    for (int j = 0; j < m * cl->ne; j++)
        ws->mat[j] = 0.0;
    for (int le = 0; le < cl->ne; le++) {
        int e = cl->edges[le];
        for (int end = 0; end < 2; end++) {
            int i = p->edges[e][end];
            if (i >= p->n_bodies || ws->local[i] >= m) continue;
            ws->mat[ws->edge_row[e] * m + ws->local[i]] = end == 0 ? 1.0 : -1.0;
        }
    }
    for (int j = 0; j < cl->nb; j++) {
        int i = cl->nodes[j];
        if (ws->local[i] < m) ws->rhs[ws->local[i]] = p->mass[i] * a - p->force[i];
    }
}

/* lambda = Q R^-T r' from D'^T = Q R (ne x m, m = rank <= ne; above). */
static int solve_min_norm(stsl_cstr_ws *ws, const cluster *cl)
{
    size_t ne = (size_t)cl->ne, m = (size_t)cl->rank;
    gsl_matrix_view qr = gsl_matrix_view_array(ws->mat, ne, m);
    gsl_vector_view tau = gsl_vector_view_array(ws->tmp, m);
    gsl_vector_view x = gsl_vector_view_array(ws->sol, ne);
    int rc = gsl_linalg_QR_decomp(&qr.matrix, &tau.vector);
    if (rc != GSL_SUCCESS) return rc;
    double rmax = 0.0;
    for (size_t j = 0; j < m; j++)
        rmax = fmax(rmax, fabs(gsl_matrix_get(&qr.matrix, j, j)));
    for (size_t j = 0; j < m; j++)
        if (!(fabs(gsl_matrix_get(&qr.matrix, j, j)) > RANK_REL_THRESHOLD * rmax)) return GSL_ESING;
    for (size_t j = 0; j < ne; j++)
        ws->sol[j] = j < m ? ws->rhs[j] : 0.0;
    gsl_matrix_view r = gsl_matrix_submatrix(&qr.matrix, 0, 0, m, m);
    gsl_vector_view y = gsl_vector_subvector(&x.vector, 0, m);
    rc = gsl_blas_dtrsv(CblasUpper, CblasTrans, CblasNonUnit, &r.matrix, &y.vector);
    if (rc != GSL_SUCCESS) return rc;
    return gsl_linalg_QR_Qvec(&qr.matrix, &tau.vector, &x.vector);
}

/* A loop's minimum-norm lambda by the QR above. */
static int solve_dense(stsl_cstr_ws *ws, const stsl_cstr_problem *p, const cluster *cl, double a,
                       double *lambda, stsl_error *err)
{
    fill(ws, p, cl, a);
    int rc = solve_min_norm(ws, cl);
    if (rc != GSL_SUCCESS)
        return stsl_error_set(err, STSL_EMODEL,
                              "constraint forces of the cluster of body %d (%d bodies, %d fixed "
                              "nodes, %d constraints): %s",
                              cl->nodes[0], cl->nb, cl->k, cl->ne, gsl_strerror(rc));
    for (int le = 0; le < cl->ne; le++)
        lambda[cl->edges[le]] = ws->sol[ws->edge_row[cl->edges[le]]];
    return STSL_OK;
}

/* A tree's unique lambda from the leaves up (the file's comment): in the
 * breadth-first order backwards every body's parent edge is its last
 * unknown. */
static void solve_tree(stsl_cstr_ws *ws, const stsl_cstr_problem *p, const cluster *cl, double a,
                       double *lambda)
{
    for (int j = 0; j < cl->nb; j++) {
        int i = cl->nodes[j];
        ws->res[i] = p->mass[i] * a - p->force[i];
    }
    for (int q = cl->n_bfs - 1; q >= 0; q--) {
        int v = cl->bfs[q], e = ws->tree_edge[v];
        if (e < 0) continue; /* a fixed node, or the root body (its equation is implied) */
        int up = p->edges[e][0] == v;
        double lam = up ? ws->res[v] : -ws->res[v];
        lambda[e] = lam;
        int u = up ? p->edges[e][1] : p->edges[e][0];
        if (u < p->n_bodies) ws->res[u] -= up ? -lam : lam;
    }
}

static void fill_nan(const cluster *cl, stsl_cstr_solution *out)
{
    for (int j = 0; j < cl->nb; j++)
        out->acc[cl->nodes[j]] = NAN;
    if (!out->lambda) return;
    for (int le = 0; le < cl->ne; le++)
        out->lambda[cl->edges[le]] = NAN;
}

static int solve_cluster(stsl_cstr_ws *ws, const stsl_cstr_problem *p, const cluster *cl,
                         stsl_cstr_solution *out, stsl_error *err)
{
    double a;
    if (cluster_acc(p, cl, &a)) {
        out->conflict = 1;
        fill_nan(cl, out);
        return STSL_OK;
    }
    for (int j = 0; j < cl->nb; j++)
        out->acc[cl->nodes[j]] = a;
    if (cl->ne == 0 || !out->lambda) return STSL_OK;
    if (cl->tree && !ws->dense) {
        solve_tree(ws, p, cl, a, out->lambda);
        return STSL_OK;
    }
    return solve_dense(ws, p, cl, a, out->lambda, err);
}

/* Was the last analysis of these sizes and edges?  (It depends on nothing
 * else; the engine's candidates are analysed at every solve, mostly on the
 * edges of the solve before.) */
static int same_analysis(const stsl_cstr_ws *ws, const stsl_cstr_problem *p)
{
    return ws->analysed && p->n_bodies == ws->n_bodies && p->n_fixed == ws->n_fixed &&
           p->n_edges == ws->n_edges &&
           (p->n_edges == 0 ||
            !memcmp(ws->aedges, p->edges, (size_t)p->n_edges * sizeof *p->edges));
}

int stsl_cstr_analyse(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_error *err)
{
    int rc = check_sizes(ws, p, err);
    if (rc == STSL_OK) rc = check_edges(p, err);
    if (rc != STSL_OK) {
        ws->analysed = 0;
        return rc;
    }
    if (same_analysis(ws, p)) return STSL_OK;
    ws->analysed = 0;
    if (p->n_edges > 0) memcpy(ws->aedges, p->edges, (size_t)p->n_edges * sizeof *p->edges);
    ws->n_bodies = p->n_bodies;
    ws->n_fixed = p->n_fixed;
    ws->n_edges = p->n_edges;
    ws->n_clusters = components(p, ws->label);
    bucket(ws, p, ws->n_clusters);
    adjacency(ws, p);
    ws->redundant = 0;
    for (int c = 0; c < ws->n_clusters; c++) {
        cluster *cl = &ws->cl[c];
        *cl = cluster_of(ws, p, c);
        if (cl->nb == 0 || cl->ne == 0) continue; /* a fixed node alone; a free body */
        order(ws, p, cl);
        ws->redundant |= cl->ne > cl->rank;
    }
    ws->analysed = 1;
    return STSL_OK;
}

int stsl_cstr_solve_analysed(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_cstr_solution *out,
                             stsl_error *err)
{
    if (!ws->analysed || p->n_bodies != ws->n_bodies || p->n_fixed != ws->n_fixed ||
        p->n_edges != ws->n_edges)
        return stsl_error_set(err, STSL_EINPUT,
                              "constraint problem: %d bodies, %d fixed nodes, %d edges; the "
                              "workspace's analysis is of %d, %d, %d%s",
                              p->n_bodies, p->n_fixed, p->n_edges, ws->n_bodies, ws->n_fixed,
                              ws->n_edges, ws->analysed ? "" : " (none)");
    out->redundant = ws->redundant;
    out->conflict = 0;
    for (int c = 0; c < ws->n_clusters; c++) {
        const cluster *cl = &ws->cl[c];
        if (cl->nb == 0) continue; /* a fixed node alone */
        int rc = solve_cluster(ws, p, cl, out, err);
        if (rc != STSL_OK) return rc;
    }
    return STSL_OK;
}

int stsl_cstr_leaf(const stsl_cstr_ws *ws, const stsl_cstr_problem *p, int e)
{
    if (!ws->analysed || e < 0 || e >= ws->n_edges) return -1;
    for (int end = 0; end < 2; end++) {
        int v = p->edges[e][end];
        if (v >= p->n_bodies || ws->tree_edge[v] != e ||
            ws->adj_start[v + 1] - ws->adj_start[v] != 1)
            continue;
        const cluster *cl = &ws->cl[ws->label[v]];
        return cl->tree && cl->k == 1 ? v : -1;
    }
    return -1;
}

int stsl_cstr_held(const stsl_cstr_ws *ws, int body)
{
    return ws->analysed && body >= 0 && body < ws->n_bodies && ws->cl[ws->label[body]].k > 0;
}

double stsl_cstr_leaf_lambda(const stsl_cstr_ws *ws, const stsl_cstr_problem *p, int e, int v,
                             double force)
{
    const cluster *cl = &ws->cl[ws->label[v]];
    double a = p->fixed_acc[cl->nodes[cl->nb] - p->n_bodies];
    double res = p->mass[v] * a - force; /* solve_tree's, term for term */
    return p->edges[e][0] == v ? res : -res;
}

int stsl_cstr_solve(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_cstr_solution *out,
                    stsl_error *err)
{
    int rc = stsl_cstr_analyse(ws, p, err);
    return rc != STSL_OK ? rc : stsl_cstr_solve_analysed(ws, p, out, err);
}
