/* consistency.h - consistent mode selection at a switch (issue 14,
 * mb-interfaces.md §2).
 *
 * STAND-IN of branch mb-engine: the interface of branch mb-cluster with a
 * plain enumeration, so that the system engine can be tested before the
 * real module lands; replaced by mb-cluster's files when main has them. */
#ifndef STSL_CONSISTENCY_H
#define STSL_CONSISTENCY_H

#include "solver/status.h"

enum { STSL_CS_STUCK = 0, STSL_CS_SLIP_POS = 1, STSL_CS_SLIP_NEG = 2 };
#define STSL_CONSISTENCY_MAX 10 /* contacts enumerated at one instant: 3^10 = 59049 */
/* Is the combination states[0..n-1] (one per contact of the set J)
 * consistent?  1 yes, 0 no, < 0 error (err filled). */
typedef int (*stsl_consistency_test)(void *ctx, const int *states, stsl_error *err);
typedef struct stsl_consistency_result {
    int n_consistent; /* how many combinations qualified */
    int ambiguous;    /* n_consistent > 1: record an `ambiguous` event */
} stsl_consistency_result;
/* Enumerate the 3^n combinations of n <= STSL_CONSISTENCY_MAX contacts
 * (before[]: their states just before the instant), choose by SPEC §4's tie
 * rule (fewest changed from before, then most stuck, then the first in
 * lexicographic order of states with STUCK < SLIP_POS < SLIP_NEG) into
 * chosen[].  0 found; STSL_EMODEL "no consistent combination of N contacts"
 * when none qualifies; n > MAX: STSL_EMODEL "more than ten contacts switch
 * at one instant". */
int stsl_consistency_select(int n, const int *before, stsl_consistency_test test, void *ctx,
                            int *chosen, stsl_consistency_result *res, stsl_error *err);

#endif
