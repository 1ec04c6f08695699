/* loop_split.h - the split of the constraint forces of loops of stuck
 * contacts (SPEC §4 "Redundant stuck contacts").
 *
 * A loop of constraints (stuck contacts, closed rigid stops; a fixed end
 * is one node that absorbs any force) leaves its forces undetermined by
 * the bodies' balances: any circulation may be added.  The split used is
 * the one whose sorted vector of band uses (|lambda_e| over the edge's
 * level in that direction, largest first) is lexicographically smallest:
 * unique on the contacts, so the reported forces and which contact is at
 * its edge are defined; its largest use is <= 1 exactly when some split
 * lies within every band.  Closed stops have no band (they carry what the
 * contacts leave).  A pure module: no state between calls but the
 * workspace's scratch memory. */
#ifndef STSL_LOOP_SPLIT_H
#define STSL_LOOP_SPLIT_H

typedef struct stsl_split_problem {
    int n_nodes, n_edges;
    const int (*ends)[2];  /* nodes a, b of edge e (0..n_nodes-1, a != b): lambda_e acts
                              on a, -lambda_e on b */
    const double *lambda0; /* n_edges: any solution of the nodes' balances */
    const double *hi, *lo; /* n_edges: edge e's band -lo_e <= lambda_e <= hi_e (>= 0);
                              INFINITY in both: no band (a closed stop) */
} stsl_split_problem;

typedef struct stsl_split_ws stsl_split_ws; /* sized once; solve allocates nothing */
/* NULL when out of memory or a size is negative. */
stsl_split_ws *stsl_split_ws_create(int max_nodes, int max_edges);
/* NULL-safe. */
void stsl_split_ws_free(stsl_split_ws *ws);
/* The split into lambda (n_edges; may be p->lambda0) and its largest band
 * use (0 without banded edges; INFINITY when a zero band must carry a
 * force).  Sizes beyond the workspace: lambda = lambda0, NAN returned. */
double stsl_split_solve(stsl_split_ws *ws, const stsl_split_problem *p, double *lambda);

#endif
