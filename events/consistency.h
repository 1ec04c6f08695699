/* consistency.h - consistent mode selection at a switching instant (issue
 * 14, stage 5; SPEC §4, "Consistency at a switch").
 *
 * At an instant where contacts reach zero slip velocity or their static
 * limit, the new states of all contacts at w_c = 0 (the set J) are chosen
 * together: every combination of STUCK, SLIP_POS, SLIP_NEG is enumerated,
 * the caller's test says which are consistent, and SPEC §4's tie rule picks
 * one.  Pure: knows nothing of bodies or solvers, only the test callback. */
#ifndef STSL_CONSISTENCY_H
#define STSL_CONSISTENCY_H

#include "events/contact.h"
#include "solver/status.h"

#define STSL_CONSISTENCY_MAX 10 /* contacts enumerated at one instant: 3^10 = 59049 */
/* Is the combination states[0..n-1] (one per contact of the set J) consistent?
 * 1 yes, 0 no, < 0 error (err filled). The caller (the engine) solves the
 * constraints of that combination and checks SPEC §4's conditions. */
typedef int (*stsl_consistency_test)(void *ctx, const int *states, stsl_error *err);
typedef struct stsl_consistency_result {
    int n_consistent; /* how many combinations qualified */
    int ambiguous;    /* n_consistent > 1: record an `ambiguous` event */
} stsl_consistency_result;
/* Enumerate the 3^n combinations of n <= STSL_CONSISTENCY_MAX contacts (before[]:
 * their states just before the instant), choose by SPEC §4's tie rule (fewest
 * changed from before, then most stuck, then the first in lexicographic order of
 * states with STUCK < SLIP_POS < SLIP_NEG) into chosen[]. 0 found; STSL_EMODEL with
 * err "no consistent combination of N contacts" when none qualifies (the engine
 * adds contacts, time, state: a solver failure, exit 3); n > MAX: STSL_EMODEL
 * "more than ten contacts switch at one instant". */
/* Details: the combinations are tested in lexicographic order (states[0]
 * most significant), each exactly once; a test's error (< 0) stops the
 * enumeration and is returned as it is (err as the test filled it).  n = 0:
 * nothing to choose, the empty combination is trivially consistent
 * (n_consistent = 1, the test is not called).  STSL_EINPUT for n < 0 or a
 * before[k] that is not a contact state.  chosen[] and res are written only
 * on success. */
int stsl_consistency_select(int n, const int *before, stsl_consistency_test test, void *ctx,
                            int *chosen, stsl_consistency_result *res, stsl_error *err);

#endif
