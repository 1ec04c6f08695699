/* consistency.h - consistent mode selection at a switching instant (SPEC
 * §4, "Consistency at a switch" and its order of choice).
 *
 * At an instant where contacts reach zero slip velocity or their static
 * limit, the new states of the contacts at w_c = 0 are chosen together
 * from STUCK, SLIP_POS, SLIP_NEG; the caller's test says whether a
 * combination is consistent, this module searches the combinations in
 * SPEC §4's order of choice and keeps the first that qualifies.  Pure:
 * knows nothing of bodies or solvers, only the test callback. */
#ifndef STSL_CONSISTENCY_H
#define STSL_CONSISTENCY_H

#include "physics/contact.h"
#include "solver/status.h"

/* Tests one decision may make before it gives up (a solver failure): the
 * search stops at the first level that qualifies, so only an instant
 * where many contacts must all change at once comes near it. */
#define STSL_CONSISTENCY_MAX_TESTS 200000
/* Groups up to this size are searched whole for `ambiguous` (3^4 = 81). */
#define STSL_CONSISTENCY_SMALL 4
/* Is the combination states[0..n-1] consistent?  1 yes, 0 no, < 0 error
 * (err filled).  The caller (the engine) solves the constraints of that
 * combination and checks SPEC §4's conditions. */
typedef int (*stsl_consistency_test)(void *ctx, const int *states, stsl_error *err);
typedef struct stsl_consistency_result {
    int n_tested;  /* combinations tested (the decision's cost) */
    int ambiguous; /* another combination qualified too: record an `ambiguous` event */
} stsl_consistency_result;
/* Choose the states of n contacts, given in the order of the tie rule (the
 * caller sorts them by name) with every state in the contact's own
 * orientation fixed by that rule (so SLIP_POS < SLIP_NEG means the same
 * direction whatever the order of the file).  before[k]: the state just
 * before the instant; reached[k]: 1 when contact k reached a switching
 * condition itself (SPEC §4).  The order of choice:
 *   1. fewest changes from before[] among the contacts not reached;
 *   2. then the fewest not STUCK among the reached ones (most stuck);
 *   3. then the first in lexicographic order of the states, STUCK <
 *      SLIP_POS < SLIP_NEG, contact 0 most significant.
 * The search goes level by level, a level being the pair (changes of 1,
 * slips of 2) in that order, and stops at the first level where some
 * combination qualifies: a level with d contacts away from their preferred
 * state (unreached: as before; reached: STUCK) holds C(n, d) 2^d
 * combinations, so the cost is polynomial in n of the degree d that the
 * instant needs, and the contacts that reached nothing are not enumerated
 * at all while keeping them qualifies.  Then `ambiguous`: whether
 * another combination qualifies too.  Up to STSL_CONSISTENCY_SMALL
 * contacts every other combination is tested (at most 80, until one
 * qualifies); beyond, another of the chosen level and the neighbours that
 * differ from the chosen one in one contact (2n tests): a combination that
 * differs in two or more and lies on another level is not looked for.
 * 0 found (chosen[], res written); STSL_EMODEL with err "no consistent
 * combination of N contacts" when none qualifies, or "deciding N contacts
 * needs more than MAX tests" at the limit (the engine adds contacts, time,
 * state: a solver failure, exit 3).  A test's error (< 0) is returned as
 * it is.  n = 0: nothing to choose (res {0, 0}).  STSL_EINPUT for n < 0 or
 * a before[k] that is not a contact state. */
int stsl_consistency_select(int n, const int *before, const int *reached,
                            stsl_consistency_test test, void *ctx, int *chosen,
                            stsl_consistency_result *res, stsl_error *err);

#endif
