/* cluster.c - STAND-IN (see cluster.h): the whole constrained system
 *   m_i a_i - sum_e D_ie lambda_e = f_i,   a_p - a_q = 0 per edge {p, q}
 * (a fixed node's acceleration moved to the right-hand side) as one dense
 * square system, solved by GSL's SVD with small singular values dropped
 * (minimum-norm lambda for loops). */
#include "models/cluster.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_linalg.h>

struct stsl_cstr_ws {
    int nb, nf, ne;
    gsl_matrix *A, *V;
    gsl_vector *b, *s, *w, *z;
    int *parent;
};

stsl_cstr_ws *stsl_cstr_ws_create(int max_bodies, int max_fixed, int max_edges)
{
    stsl_cstr_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return NULL;
    ws->nb = max_bodies;
    ws->nf = max_fixed;
    ws->ne = max_edges;
    size_t n = (size_t)(max_bodies + max_edges);
    ws->A = gsl_matrix_alloc(n, n);
    ws->V = gsl_matrix_alloc(n, n);
    ws->b = gsl_vector_alloc(n);
    ws->s = gsl_vector_alloc(n);
    ws->w = gsl_vector_alloc(n);
    ws->z = gsl_vector_alloc(n);
    ws->parent = calloc((size_t)(max_bodies + max_fixed), sizeof(int));
    if (!ws->A || !ws->V || !ws->b || !ws->s || !ws->w || !ws->z || !ws->parent) {
        stsl_cstr_ws_free(ws);
        return NULL;
    }
    return ws;
}

void stsl_cstr_ws_free(stsl_cstr_ws *ws)
{
    if (!ws) return;
    if (ws->A) gsl_matrix_free(ws->A);
    if (ws->V) gsl_matrix_free(ws->V);
    if (ws->b) gsl_vector_free(ws->b);
    if (ws->s) gsl_vector_free(ws->s);
    if (ws->w) gsl_vector_free(ws->w);
    if (ws->z) gsl_vector_free(ws->z);
    free(ws->parent);
    free(ws);
}

static int find(int *parent, int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

void stsl_cstr_components(stsl_cstr_ws *ws, const stsl_cstr_problem *p, int *label)
{
    int n = p->n_bodies + p->n_fixed;
    for (int i = 0; i < n; i++)
        ws->parent[i] = i;
    for (int e = 0; e < p->n_edges; e++) {
        int a = find(ws->parent, p->edges[e][0]), b = find(ws->parent, p->edges[e][1]);
        if (a != b) ws->parent[a] = b;
    }
    for (int i = 0; i < n; i++)
        label[i] = find(ws->parent, i);
}

int stsl_cstr_solve(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_cstr_solution *out,
                    stsl_error *err)
{
    int nb = p->n_bodies, ne = p->n_edges;
    if (nb > ws->nb || ne > ws->ne || p->n_fixed > ws->nf)
        return stsl_error_set(err, STSL_EINPUT, "constraint problem larger than its workspace");
    out->redundant = out->conflict = 0;
    if (ne == 0) {
        for (int i = 0; i < nb; i++)
            out->acc[i] = p->force[i] / p->mass[i];
        return STSL_OK;
    }
    size_t n = (size_t)(nb + ne);
    gsl_matrix_view A = gsl_matrix_submatrix(ws->A, 0, 0, n, n);
    gsl_matrix_view V = gsl_matrix_submatrix(ws->V, 0, 0, n, n);
    gsl_vector_view b = gsl_vector_subvector(ws->b, 0, n), s = gsl_vector_subvector(ws->s, 0, n);
    gsl_vector_view w = gsl_vector_subvector(ws->w, 0, n), z = gsl_vector_subvector(ws->z, 0, n);
    gsl_matrix_set_zero(&A.matrix);
    double fscale = 0.0;
    for (int i = 0; i < nb; i++) {
        gsl_matrix_set(&A.matrix, (size_t)i, (size_t)i, p->mass[i]);
        gsl_vector_set(&b.vector, (size_t)i, p->force[i]);
        fscale = fmax(fscale, fabs(p->force[i]));
    }
    for (int e = 0; e < ne; e++) {
        size_t row = (size_t)(nb + e);
        double rhs = 0.0;
        for (int k = 0; k < 2; k++) {
            int node = p->edges[e][k];
            double sign = k ? -1.0 : 1.0;
            if (node < nb) {
                gsl_matrix_set(&A.matrix, (size_t)node, row, -sign); /* -D lambda */
                gsl_matrix_set(&A.matrix, row, (size_t)node, sign);
            } else {
                rhs -= sign * p->fixed_acc[node - nb];
            }
        }
        gsl_vector_set(&b.vector, row, rhs);
    }
    if (gsl_linalg_SV_decomp(&A.matrix, &V.matrix, &s.vector, &w.vector))
        return stsl_error_set(err, STSL_EMODEL, "constraint solve: SVD failed");
    double smax = gsl_vector_get(&s.vector, 0);
    for (size_t i = 0; i < n; i++)
        if (gsl_vector_get(&s.vector, i) <= 1e3 * DBL_EPSILON * (double)n * smax) {
            gsl_vector_set(&s.vector, i, 0.0);
            out->redundant = 1;
        }
    gsl_linalg_SV_solve(&A.matrix, &V.matrix, &s.vector, &b.vector, &z.vector);
    for (int i = 0; i < nb; i++)
        out->acc[i] = gsl_vector_get(&z.vector, (size_t)i);
    for (int e = 0; e < ne; e++)
        out->lambda[e] = gsl_vector_get(&z.vector, (size_t)(nb + e));
    /* A dropped singular value is a loop (redundant) or two fixed nodes
     * joined (conflict when their accelerations differ: the edge equation
     * then has no solution). */
    for (int e = 0; out->redundant && e < ne; e++) {
        double r = 0.0;
        for (int k = 0; k < 2; k++) {
            int node = p->edges[e][k];
            double a = node < nb ? out->acc[node] : p->fixed_acc[node - nb];
            r += k ? -a : a;
        }
        double amax = 0.0;
        for (int i = 0; i < nb; i++)
            amax = fmax(amax, fabs(p->force[i] / p->mass[i]));
        for (int f = 0; f < p->n_fixed; f++)
            amax = fmax(amax, fabs(p->fixed_acc[f]));
        if (fabs(r) > 1e-9 * fmax(amax, 1e-300)) out->conflict = 1;
    }
    (void)fscale;
    return STSL_OK;
}
