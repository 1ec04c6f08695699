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
 * consistent).  When ne equals the rank (a tree with at most one fixed
 * node) lambda is unique: QR of the square matrix (without fixed node the
 * last body's row, implied by the others, is dropped).  When ne exceeds the
 * rank (a loop of constraints, or two fixed nodes of equal acceleration:
 * a loop closed through the prescribed motion) lambda is determined up to
 * the null space of D: the minimum-norm lambda, pinv(D) r, from the SVD of
 * D^T, which spreads a redundant reaction evenly over parallel paths.
 *
 * Threshold of the SVD.  The nonzero singular values of D are bounded
 * below: D D^T is the (grounded) Laplacian of the cluster's graph, whose
 * inverse on its range has entries bounded by effective resistances <= nb,
 * so sigma_min >= 1/nb; and sigma_max^2 <= 2 * (largest degree) <= 2 ne.
 * So sigma_min / sigma_max >= 1 / (nb sqrt(2 ne)), >= 7e-7 for clusters up
 * to 1e4 bodies and edges.  The singular values that are zero in exact
 * arithmetic come out of the one-sided Jacobi SVD at about ne * eps *
 * sigma_max <= 2e-12 sigma_max there.  A relative threshold of 1e-9 sits
 * three decades from both: it drops exactly the true zeros. */
#include "models/cluster.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>

#include "solver/gsl_setup.h"

/* Singular values below this fraction of the largest are zeros (above). */
#define SV_REL_THRESHOLD 1e-9

struct stsl_cstr_ws {
    int max_bodies, max_fixed, max_edges;
    int *label;      /* cluster of every node */
    int *node_start; /* nodes of cluster c: node_order[node_start[c] .. node_start[c+1]) */
    int *node_order; /* nodes sorted by cluster, increasing within one */
    int *edge_start; /* edges of cluster c, likewise */
    int *edge_order;
    int *local;   /* index of a body within its cluster */
    double *mat;  /* D (QR) or D^T, replaced by U (SVD) */
    double *vmat; /* V of the SVD */
    double *rhs, *sol, *sv, *tmp;
};

void stsl_cstr_ws_free(stsl_cstr_ws *ws)
{
    if (!ws) return;
    free(ws->label);
    free(ws->node_start);
    free(ws->node_order);
    free(ws->edge_start);
    free(ws->edge_order);
    free(ws->local);
    free(ws->mat);
    free(ws->vmat);
    free(ws->rhs);
    free(ws->sol);
    free(ws->sv);
    free(ws->tmp);
    free(ws);
}

/* calloc of at least one element, so that sizes of 0 still give a pointer. */
static void *alloc(size_t n, size_t size)
{
    return calloc(n > 0 ? n : 1, size);
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
    size_t nodes = (size_t)max_bodies + (size_t)max_fixed;
    size_t nb = (size_t)max_bodies, ne = (size_t)max_edges;
    size_t rows = ne > nb ? ne : nb;
    ws->label = alloc(nodes, sizeof(int));
    ws->node_start = alloc(nodes + 1, sizeof(int));
    ws->node_order = alloc(nodes, sizeof(int));
    ws->edge_start = alloc(nodes + 1, sizeof(int));
    ws->edge_order = alloc(ne, sizeof(int));
    ws->local = alloc(nb, sizeof(int));
    ws->mat = alloc(rows * nb, sizeof(double));
    ws->vmat = alloc(nb * nb, sizeof(double));
    ws->rhs = alloc(nb, sizeof(double));
    ws->sol = alloc(rows, sizeof(double));
    ws->sv = alloc(nb, sizeof(double));
    ws->tmp = alloc(nb, sizeof(double));
    if (!ws->label || !ws->node_start || !ws->node_order || !ws->edge_start || !ws->edge_order ||
        !ws->local || !ws->mat || !ws->vmat || !ws->rhs || !ws->sol || !ws->sv || !ws->tmp) {
        stsl_cstr_ws_free(ws);
        return NULL;
    }
    return ws;
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

/* One cluster's nodes (bodies first: nodes are sorted and bodies have the
 * smaller indices) and edges. */
typedef struct cluster {
    const int *nodes, *edges;
    int nb, k, ne; /* bodies, fixed nodes, edges */
} cluster;

static cluster cluster_of(const stsl_cstr_ws *ws, const stsl_cstr_problem *p, int c)
{
    cluster cl = {ws->node_order + ws->node_start[c], ws->edge_order + ws->edge_start[c], 0, 0,
                  ws->edge_start[c + 1] - ws->edge_start[c]};
    int n = ws->node_start[c + 1] - ws->node_start[c];
    while (cl.nb < n && cl.nodes[cl.nb] < p->n_bodies)
        cl.nb++;
    cl.k = n - cl.nb;
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

/* D (rows x ne, rows <= nb: body rows from 0) into ws->mat, row-major, as
 * D itself or as D^T (transposed). */
static void fill_incidence(stsl_cstr_ws *ws, const stsl_cstr_problem *p, const cluster *cl,
                           int rows, int transposed)
{
    for (int j = 0; j < rows * cl->ne; j++)
        ws->mat[j] = 0.0;
    for (int le = 0; le < cl->ne; le++) {
        const int *edge = p->edges[cl->edges[le]];
        for (int end = 0; end < 2; end++) {
            if (edge[end] >= p->n_bodies) continue;
            int row = ws->local[edge[end]];
            if (row >= rows) continue;
            ws->mat[transposed ? le * rows + row : row * cl->ne + le] = end == 0 ? 1.0 : -1.0;
        }
    }
}

/* Unique lambda of a tree: the square D (n = ne rows) by Householder QR,
 * backward stable like LU with partial pivoting.  Not GSL's LU: in GSL 2.7
 * gsl_linalg_LU_decomp allocates its pivot vector in every call, and this
 * runs in every right-hand side of the engine.  R's diagonal is checked
 * because QR_solve divides by it unchecked (nonzero for a tree). */
static int solve_tree(stsl_cstr_ws *ws, const stsl_cstr_problem *p, const cluster *cl)
{
    size_t n = (size_t)cl->ne;
    fill_incidence(ws, p, cl, cl->ne, 0);
    gsl_matrix_view m = gsl_matrix_view_array(ws->mat, n, n);
    gsl_vector_view tau = gsl_vector_view_array(ws->tmp, n);
    gsl_vector_view b = gsl_vector_view_array(ws->rhs, n);
    gsl_vector_view x = gsl_vector_view_array(ws->sol, n);
    int rc = gsl_linalg_QR_decomp(&m.matrix, &tau.vector);
    for (size_t j = 0; j < n && rc == GSL_SUCCESS; j++)
        if (gsl_matrix_get(&m.matrix, j, j) == 0.0) rc = GSL_ESING;
    if (rc == GSL_SUCCESS) rc = gsl_linalg_QR_solve(&m.matrix, &tau.vector, &b.vector, &x.vector);
    return rc;
}

/* Minimum-norm lambda of a loop: D^T = U S V^T (one-sided Jacobi, accurate
 * small singular values), lambda = U S^+ V^T r. */
static int solve_loop(stsl_cstr_ws *ws, const stsl_cstr_problem *p, const cluster *cl)
{
    size_t nb = (size_t)cl->nb, ne = (size_t)cl->ne;
    fill_incidence(ws, p, cl, cl->nb, 1);
    gsl_matrix_view u = gsl_matrix_view_array(ws->mat, ne, nb);
    gsl_matrix_view v = gsl_matrix_view_array(ws->vmat, nb, nb);
    gsl_vector_view s = gsl_vector_view_array(ws->sv, nb);
    gsl_vector_view r = gsl_vector_view_array(ws->rhs, nb);
    gsl_vector_view t = gsl_vector_view_array(ws->tmp, nb);
    gsl_vector_view x = gsl_vector_view_array(ws->sol, ne);
    int rc = gsl_linalg_SV_decomp_jacobi(&u.matrix, &v.matrix, &s.vector);
    if (rc != GSL_SUCCESS) return rc;
    gsl_blas_dgemv(CblasTrans, 1.0, &v.matrix, &r.vector, 0.0, &t.vector);
    double smax = gsl_vector_max(&s.vector);
    for (size_t j = 0; j < nb; j++) {
        double sj = ws->sv[j];
        ws->tmp[j] = sj > SV_REL_THRESHOLD * smax ? ws->tmp[j] / sj : 0.0;
    }
    return gsl_blas_dgemv(CblasNoTrans, 1.0, &u.matrix, &t.vector, 0.0, &x.vector);
}

static void fill_nan(const cluster *cl, stsl_cstr_solution *out)
{
    for (int j = 0; j < cl->nb; j++)
        out->acc[cl->nodes[j]] = NAN;
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
    for (int j = 0; j < cl->nb; j++) {
        int i = cl->nodes[j];
        ws->local[i] = j;
        out->acc[i] = a;
        ws->rhs[j] = p->mass[i] * a - p->force[i];
    }
    if (cl->ne == 0) return STSL_OK;
    int rank = cl->k > 0 ? cl->nb : cl->nb - 1;
    int loop = cl->ne > rank;
    int rc = loop ? solve_loop(ws, p, cl) : solve_tree(ws, p, cl);
    if (rc != GSL_SUCCESS)
        return stsl_error_set(err, STSL_EMODEL,
                              "constraint forces of the cluster of body %d (%d bodies, %d fixed "
                              "nodes, %d constraints): %s",
                              cl->nodes[0], cl->nb, cl->k, cl->ne, gsl_strerror(rc));
    out->redundant |= loop;
    for (int le = 0; le < cl->ne; le++)
        out->lambda[cl->edges[le]] = ws->sol[le];
    return STSL_OK;
}

int stsl_cstr_solve(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_cstr_solution *out,
                    stsl_error *err)
{
    int rc = check_sizes(ws, p, err);
    if (rc == STSL_OK) rc = check_edges(p, err);
    if (rc != STSL_OK) return rc;
    int n_clusters = components(p, ws->label);
    bucket(ws, p, n_clusters);
    out->redundant = 0;
    out->conflict = 0;
    for (int c = 0; c < n_clusters; c++) {
        cluster cl = cluster_of(ws, p, c);
        if (cl.nb == 0) continue; /* a fixed node alone */
        rc = solve_cluster(ws, p, &cl, out, err);
        if (rc != STSL_OK) return rc;
    }
    return STSL_OK;
}
