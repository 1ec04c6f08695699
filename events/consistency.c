/* consistency.c - enumeration of contact states and SPEC §4's tie rule.
 *
 * Enumeration rather than a pivoting LCP solver: at most ten contacts
 * switch together in the systems of issue 14, 3^10 tests of one small dense
 * solve each stay cheap next to an integration, and enumeration finds every
 * consistent combination, which the tie rule and the `ambiguous` event
 * need (a pivoting method finds one). */
#include "events/consistency.h"

#include <string.h>

/* The rank of a combination under the tie rule: fewer changes first, then
 * more stuck contacts.  Lexicographic order breaks the remaining ties by
 * itself: combinations come in that order and only a strictly better rank
 * replaces the one kept. */
typedef struct rank {
    int changed, stuck;
} rank;

static rank rank_of(int n, const int *states, const int *before)
{
    rank r = {0, 0};
    for (int k = 0; k < n; k++) {
        r.changed += states[k] != before[k];
        r.stuck += states[k] == STSL_CONTACT_STUCK;
    }
    return r;
}

static int better(rank a, rank b)
{
    return a.changed < b.changed || (a.changed == b.changed && a.stuck > b.stuck);
}

/* The next combination in lexicographic order (the last digit fastest);
 * 0 after the last one. */
static int next(int n, int *states)
{
    for (int k = n - 1; k >= 0; k--) {
        if (states[k] < STSL_CONTACT_SLIP_NEG) {
            states[k]++;
            return 1;
        }
        states[k] = STSL_CONTACT_STUCK;
    }
    return 0;
}

static int check_args(int n, const int *before, stsl_error *err)
{
    if (n > STSL_CONSISTENCY_MAX)
        return stsl_error_set(err, STSL_EMODEL,
                              "more than ten contacts switch at one instant (%d; enumerated are "
                              "at most %d)",
                              n, STSL_CONSISTENCY_MAX);
    if (n < 0)
        return stsl_error_set(err, STSL_EINPUT, "consistency: %d contacts (must be >= 0)", n);
    for (int k = 0; k < n; k++)
        if (before[k] < STSL_CONTACT_STUCK || before[k] > STSL_CONTACT_SLIP_NEG)
            return stsl_error_set(err, STSL_EINPUT,
                                  "consistency: contact %d: state before %d; allowed 0 (STUCK), "
                                  "1 (SLIP_POS), 2 (SLIP_NEG)",
                                  k, before[k]);
    return STSL_OK;
}

int stsl_consistency_select(int n, const int *before, stsl_consistency_test test, void *ctx,
                            int *chosen, stsl_consistency_result *res, stsl_error *err)
{
    int rc = check_args(n, before, err);
    if (rc != STSL_OK) return rc;
    if (n == 0) {
        *res = (stsl_consistency_result){1, 0};
        return STSL_OK;
    }
    int states[STSL_CONSISTENCY_MAX] = {0}, best[STSL_CONSISTENCY_MAX];
    rank best_rank = {n + 1, -1};
    int found = 0;
    do {
        int ok = test(ctx, states, err);
        if (ok < 0) return ok;
        if (!ok) continue;
        found++;
        rank r = rank_of(n, states, before);
        if (better(r, best_rank)) {
            best_rank = r;
            memcpy(best, states, (size_t)n * sizeof *states);
        }
    } while (next(n, states));
    if (found == 0)
        return stsl_error_set(err, STSL_EMODEL, "no consistent combination of %d contacts", n);
    memcpy(chosen, best, (size_t)n * sizeof *best);
    *res = (stsl_consistency_result){found, found > 1};
    return STSL_OK;
}
