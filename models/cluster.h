/* cluster.h - constraint forces of clusters of bodies held together (issue
 * 14, stage 4; SPEC §4).
 *
 * Stuck contacts and closed rigid stops hold two nodes at zero relative
 * velocity: they are the edges of a graph over the bodies and the fixed
 * ends (ground, base, anchor).  Its connected components are the clusters;
 * the bodies of one cluster share one acceleration, and the constraint
 * forces follow from the bodies' equations of motion, cluster by cluster:
 * a tree's unique forces from the leaves up in O(n), a loop's minimum-norm
 * split by GSL's dense linear algebra (Householder QR).  The graph's work
 * is an analysis of the edges alone, kept in the workspace for any number
 * of solves with other forces (the engine's: one per mode).  A pure
 * module: no state between calls but the workspace's analysis and scratch
 * memory. */
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
                       edges[e][0] (and -lambda[e] on edges[e][1]); NULL: the
                       accelerations only (they need no constraint force) */
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
 * acceleration when the cluster holds one). A tree's unique lambda from the leaves up; a
 * redundant loop's minimum-norm lambda by dense LA from GSL (Householder QR of the incidence
 * matrix; cluster.c argues why not LU or SVD). 0, or <0 with err filled. */
/* Errors (STSL_EINPUT, out untouched): sizes beyond the workspace, a mass
 * not > 0, an edge with a node out of range, a fixed node first, or a node
 * joined to itself.  STSL_EMODEL: GSL failed on a cluster's matrix (not
 * expected: the matrices are incidence matrices of known rank). */
int stsl_cstr_solve(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_cstr_solution *out,
                    stsl_error *err);
/* The two phases of stsl_cstr_solve, for many solves on the same edges:
 * stsl_cstr_analyse takes p's sizes, masses (checked) and edges (the
 * errors above) and keeps the clusters and their order in ws;
 * stsl_cstr_solve_analysed then uses p's masses, forces and fixed
 * accelerations with the analysed edges (p's sizes must be the analysed
 * ones, else STSL_EINPUT; its edges must be the same: not checked, the
 * caller's contract).  A tree costs O(bodies + edges) there. */
int stsl_cstr_analyse(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_error *err);
int stsl_cstr_solve_analysed(stsl_cstr_ws *ws, const stsl_cstr_problem *p, stsl_cstr_solution *out,
                             stsl_error *err);
/* One constraint force without the others (a root search on one guard):
 * after stsl_cstr_analyse of p's edges, stsl_cstr_leaf gives the body v
 * when edge e is the only edge of v and v's cluster is a tree held by one
 * fixed node (then lambda_e follows from v's own balance), else -1;
 * stsl_cstr_leaf_lambda gives that lambda_e from v's applied force, equal
 * bit for bit to what stsl_cstr_solve_analysed gives it (the same terms). */
int stsl_cstr_leaf(const stsl_cstr_ws *ws, const stsl_cstr_problem *p, int e);
double stsl_cstr_leaf_lambda(const stsl_cstr_ws *ws, const stsl_cstr_problem *p, int e, int v,
                             double force);
/* After stsl_cstr_analyse: 1 when the body's cluster holds a fixed node
 * (its acceleration is the fixed node's whatever the forces: the body's
 * force is not read), else 0. */
int stsl_cstr_held(const stsl_cstr_ws *ws, int body);
/* 1: solve every cluster by the dense QR, trees too (the reference the
 * tree solve is tested against); 0 (the default): trees from the leaves. */
void stsl_cstr_ws_set_dense(stsl_cstr_ws *ws, int dense);
/* Component label of every node (n_bodies + n_fixed values) after the last solve,
 * or computed from p alone: label[i] == label[j] iff i, j are in one cluster. */
/* Labels are 0, 1, 2, ... numbered in the order of each cluster's smallest
 * node.  Computed from p alone (ws is not used and may be NULL); edges with
 * nodes out of range are skipped (stsl_cstr_solve reports them). */
void stsl_cstr_components(stsl_cstr_ws *ws, const stsl_cstr_problem *p, int *label);

#endif
