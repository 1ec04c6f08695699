/* consistency.c - STAND-IN (see consistency.h): plain enumeration. */
#include "events/consistency.h"

int stsl_consistency_select(int n, const int *before, stsl_consistency_test test, void *ctx,
                            int *chosen, stsl_consistency_result *res, stsl_error *err)
{
    res->n_consistent = 0;
    res->ambiguous = 0;
    if (n > STSL_CONSISTENCY_MAX)
        return stsl_error_set(err, STSL_EMODEL, "more than ten contacts switch at one instant");
    int st[STSL_CONSISTENCY_MAX] = {0}, best_changed = n + 1, best_stuck = -1;
    long total = 1;
    for (int i = 0; i < n; i++)
        total *= 3;
    for (long k = 0; k < total; k++) {
        long r = k;
        for (int i = n - 1; i >= 0; i--, r /= 3) /* lexicographic: the first varies slowest */
            st[i] = (int)(r % 3);
        int ok = test(ctx, st, err);
        if (ok < 0) return ok;
        if (!ok) continue;
        res->n_consistent++;
        int changed = 0, stuck = 0;
        for (int i = 0; i < n; i++) {
            changed += st[i] != before[i];
            stuck += st[i] == STSL_CS_STUCK;
        }
        if (changed < best_changed || (changed == best_changed && stuck > best_stuck)) {
            best_changed = changed;
            best_stuck = stuck;
            for (int i = 0; i < n; i++)
                chosen[i] = st[i];
        }
    }
    res->ambiguous = res->n_consistent > 1;
    if (!res->n_consistent)
        return stsl_error_set(err, STSL_EMODEL, "no consistent combination of %d contacts", n);
    return STSL_OK;
}
