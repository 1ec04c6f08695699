/* cluster.h - constraint forces of clusters (issue 14, mb-interfaces.md §1).
 *
 * STAND-IN of branch mb-engine: the interface of branch mb-cluster, with a
 * minimal dense implementation (one GSL SVD of the whole KKT system) so that
 * the system engine can be tested before the real module lands; it is
 * replaced by mb-cluster's files when main has them.
 *
 * Nodes 0..n_bodies-1 are bodies; n_bodies..n_bodies+n_fixed-1 are fixed ends
 * (ground, base, anchor) whose accelerations are prescribed.  An edge {a, b}
 * holds nodes a and b at zero relative velocity (a stuck contact, a closed
 * rigid stop). */
#ifndef STSL_CLUSTER_H
#define STSL_CLUSTER_H

#include "solver/status.h"

typedef struct stsl_cstr_problem {
    int n_bodies;
    const double *mass;  /* n_bodies, > 0 */
    const double *force; /* n_bodies: every force on the body but constraint forces */
    int n_fixed;
    const double *fixed_acc; /* n_fixed prescribed accelerations */
    int n_edges;
    const int (*edges)[2]; /* node pairs; edges[e][0] is always a body */
} stsl_cstr_problem;

typedef struct stsl_cstr_solution {
    double *acc;    /* caller's array, n_bodies: accelerations */
    double *lambda; /* caller's array, n_edges: the constraint force of edge e on node
                       edges[e][0] (and -lambda[e] on edges[e][1]) */
    int redundant;  /* 1: some cluster has a loop of constraints; lambda is then the
                       minimum-norm split (not unique) */
    int conflict;   /* 1: some cluster holds two fixed nodes with different prescribed
                       accelerations (no solution; acc/lambda undefined) */
} stsl_cstr_solution;

typedef struct stsl_cstr_ws stsl_cstr_ws; /* sized once; solve allocates nothing */
stsl_cstr_ws *stsl_cstr_ws_create(int max_bodies, int max_fixed, int max_edges);
void stsl_cstr_ws_free(stsl_cstr_ws *ws);
/* Clusters and, per cluster, the common acceleration and the constraint
 * forces: m_i a_i = f_i + sum_e D_ie lambda_e, a_i equal within a cluster
 * (= the fixed node's acceleration when the cluster holds one).  0, or <0
 * with err filled. */
int stsl_cstr_solve(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_cstr_solution *out,
                    stsl_error *err);
/* Component label of every node (n_bodies + n_fixed values) after the last
 * solve, or computed from p alone: label[i] == label[j] iff i, j are in one
 * cluster. */
void stsl_cstr_components(stsl_cstr_ws *ws, const stsl_cstr_problem *p, int *label);

#endif
