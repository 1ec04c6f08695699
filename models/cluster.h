/* cluster.h - constraint forces of clusters of bodies held together (issue
 * 14, stage 4; SPEC §4).
 *
 * Stuck contacts and closed rigid stops hold two nodes at zero relative
 * velocity: they are the edges of a graph over the bodies and the fixed
 * ends (ground, base, anchor).  Its connected components are the clusters;
 * the bodies of one cluster share one acceleration, and the constraint
 * forces follow from the bodies' equations of motion, cluster by cluster,
 * with GSL's dense linear algebra (Householder QR: the unique forces of a
 * tree, the minimum-norm split of a loop).  A pure module: no state between
 * calls but the workspace's scratch memory. */
#ifndef STSL_CLUSTER_H
#define STSL_CLUSTER_H

#include "solver/status.h"

/* Nodes 0..n_bodies-1 are bodies; n_bodies..n_bodies+n_fixed-1 are fixed ends
 * (ground, base, anchor) whose accelerations are prescribed. An edge {a, b} holds
 * nodes a and b at zero relative velocity (a stuck contact, a closed rigid stop). */
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

/* Notes on the solution (this module's choices within the contract above):
 * - A loop closed through two fixed nodes of equal acceleration (ground -
 *   body - base with the base momentarily at rest) is a loop too: the
 *   split of the body's reaction between them is not unique, redundant = 1.
 * - On a conflict the other clusters are still solved; the conflicting
 *   cluster's accelerations and constraint forces are NaN.
 * - Every body of a cluster gets the cluster's acceleration bit for bit,
 *   so relative accelerations within a cluster are exactly zero. */

typedef struct stsl_cstr_ws stsl_cstr_ws; /* sized once; solve allocates nothing */
/* A workspace for problems of at most the given sizes (each >= 0); NULL
 * when out of memory or a size is negative. */
stsl_cstr_ws *stsl_cstr_ws_create(int max_bodies, int max_fixed, int max_edges);
/* NULL-safe. */
void stsl_cstr_ws_free(stsl_cstr_ws *ws);
/* Clusters (connected components of the edge graph over bodies + fixed nodes) and,
 * per cluster, the common acceleration and the constraint forces:
 * m_i a_i = f_i + sum_e D_ie lambda_e, a_i equal within a cluster (= the fixed node's
 * acceleration when the cluster holds one). Dense LA from GSL (Householder QR of the incidence
 * matrix: unique lambda of a tree, minimum-norm lambda of a redundant loop; cluster.c argues why
 * not LU or SVD). 0, or <0 with err filled. */
/* Errors (STSL_EINPUT, out untouched): sizes beyond the workspace, a mass
 * not > 0, an edge with a node out of range, a fixed node first, or a node
 * joined to itself.  STSL_EMODEL: GSL failed on a cluster's matrix (not
 * expected: the matrices are incidence matrices of known rank). */
int stsl_cstr_solve(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_cstr_solution *out,
                    stsl_error *err);
/* Component label of every node (n_bodies + n_fixed values) after the last solve,
 * or computed from p alone: label[i] == label[j] iff i, j are in one cluster. */
/* Labels are 0, 1, 2, ... numbered in the order of each cluster's smallest
 * node.  Computed from p alone (ws is not used and may be NULL); edges with
 * nodes out of range are skipped (stsl_cstr_solve reports them). */
void stsl_cstr_components(stsl_cstr_ws *ws, const stsl_cstr_problem *p, int *label);

#endif
