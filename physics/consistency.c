/* consistency.c - SPEC §4's order of choice as a search by levels.
 *
 * Why a search by levels and not the 3^n enumeration or a pivoting LCP
 * solver: the order of choice is lexicographic (changes among the contacts
 * that reached nothing, then slips among those that did, then names), so
 * the combinations of one level - d1 contacts changed, d2 slipping - are
 * all better than those of any later level, and the first level that holds
 * a consistent combination holds the chosen one.  At a typical instant
 * one or two contacts reach a condition and the others keep their state:
 * the first levels decide it with a handful of tests (a stack of fifty
 * boxes whose bottom breaks away: level (0, 1), two tests), where the
 * enumeration needed 3^50.  A pivoting method (Lemke) would find some
 * consistent combination in polynomial time, but not the one the order of
 * choice prefers when static > kinetic leaves several (the case the
 * order exists for), and it cannot say whether another one qualified. */
#include "physics/consistency.h"

#include <stdlib.h>
#include <string.h>

/* One search: the preferred state of each contact and what each level
 * still allows. */
typedef struct search {
    int n;
    const int *before, *reached;
    stsl_consistency_test test;
    void *ctx;
    stsl_error *err;
    int *buf; /* the combination being tested (n states) */
    int found, n_tested;
    int *first; /* the first qualifying combination of the level */
    int stop_after;
} search;

static int preferred(const search *s, int k)
{
    return s->reached[k] ? STSL_CONTACT_STUCK : s->before[k];
}

static int try_one(search *s)
{
    if (++s->n_tested > STSL_CONSISTENCY_MAX_TESTS)
        return stsl_error_set(s->err, STSL_EMODEL,
                              "deciding %d contacts needs more than %d tests (SPEC order of "
                              "choice: too many contacts must change at once)",
                              s->n, STSL_CONSISTENCY_MAX_TESTS);
    int ok = s->test(s->ctx, s->buf, s->err);
    if (ok < 0) return ok;
    if (ok && s->found++ == 0) memcpy(s->first, s->buf, (size_t)s->n * sizeof *s->buf);
    return STSL_OK;
}

/* The combinations of level (d1, d2) from position k on, in lexicographic
 * order: at each position the states in increasing order, a state other
 * than the preferred one spending one change (unreached) or one slip
 * (reached).  left_u, left_r: unreached and reached positions after k,
 * which prune the branches that cannot spend the level exactly. */
static int level(search *s, int k, int d1, int d2, int left_u, int left_r)
{
    if (k == s->n) return try_one(s);
    int r = s->reached[k], pref = preferred(s, k);
    left_u -= !r;
    left_r -= r;
    for (int st = STSL_CONTACT_STUCK; st <= STSL_CONTACT_SLIP_NEG && s->found < s->stop_after;
         st++) {
        int e1 = d1 - (!r && st != pref), e2 = d2 - (r && st != pref);
        if (e1 < 0 || e2 < 0 || e1 > left_u || e2 > left_r) continue;
        s->buf[k] = st;
        int rc = level(s, k + 1, e1, e2, left_u, left_r);
        if (rc) return rc;
    }
    return STSL_OK;
}

static int check_args(int n, const int *before, stsl_error *err)
{
    /* STSL_EINPUT itself, not stsl_error_set's value: the caller's
     * allocation of n ints then visibly never sees n < 0. */
    if (n < 0) {
        stsl_error_set(err, STSL_EINPUT, "consistency: %d contacts (must be >= 0)", n);
        return STSL_EINPUT;
    }
    for (int k = 0; k < n; k++)
        if (before[k] < STSL_CONTACT_STUCK || before[k] > STSL_CONTACT_SLIP_NEG)
            return stsl_error_set(err, STSL_EINPUT,
                                  "consistency: contact %d: state before %d; allowed 0 (STUCK), "
                                  "1 (SLIP_POS), 2 (SLIP_NEG)",
                                  k, before[k]);
    return STSL_OK;
}

/* The chosen level's other combinations were tested with it; a neighbour
 * that changes one contact lies on another level: is it consistent too? */
static int other_qualifies(search *s, const int *chosen, int *ambiguous)
{
    for (int k = 0; k < s->n && !*ambiguous; k++) {
        for (int st = STSL_CONTACT_STUCK; st <= STSL_CONTACT_SLIP_NEG && !*ambiguous; st++) {
            int pref = preferred(s, k);
            if (st == chosen[k] || (st != pref) == (chosen[k] != pref)) continue; /* same level */
            memcpy(s->buf, chosen, (size_t)s->n * sizeof *chosen);
            s->buf[k] = st;
            s->found = 1; /* counts, keeps chosen[] as it is */
            int rc = try_one(s);
            if (rc) return rc;
            *ambiguous = s->found > 1;
        }
    }
    return STSL_OK;
}

/* A small group (3^n <= 81 combinations) is searched whole for another
 * qualifying combination, as SPEC §4 defines `ambiguous`: each is one
 * test, and most instants decide one to four contacts. */
static int any_other(search *s, const int *chosen, int *ambiguous)
{
    int total = 1;
    for (int k = 0; k < s->n; k++)
        total *= 3;
    for (int code = 0; code < total && !*ambiguous; code++) {
        int same = 1;
        for (int k = s->n - 1, c = code; k >= 0; k--, c /= 3) {
            s->buf[k] = c % 3;
            same &= s->buf[k] == chosen[k];
        }
        if (same) continue;
        s->found = 1; /* counts, keeps chosen[] as it is */
        int rc = try_one(s);
        if (rc) return rc;
        *ambiguous = s->found > 1;
    }
    return STSL_OK;
}

int stsl_consistency_select(int n, const int *before, const int *reached,
                            stsl_consistency_test test, void *ctx, int *chosen,
                            stsl_consistency_result *res, stsl_error *err)
{
    int rc = check_args(n, before, err);
    if (rc != STSL_OK) return rc;
    if (n == 0) {
        *res = (stsl_consistency_result){0, 0};
        return STSL_OK;
    }
    int n_r = 0;
    for (int k = 0; k < n; k++)
        n_r += reached[k] != 0;
    int n_u = n - n_r;
    search s = {n, before, reached, test, ctx, err, malloc((size_t)n * sizeof(int)),
                0, 0,      chosen,  2};
    if (!s.buf) return stsl_error_set(err, STSL_ENOMEM, "out of memory deciding %d contacts", n);
    int done = 0;
    for (int d1 = 0; d1 <= n_u && !done && !rc; d1++)
        for (int d2 = 0; d2 <= n_r && !done && !rc; d2++) {
            s.found = 0;
            s.stop_after = 2; /* the best, and whether another of its level qualifies */
            rc = level(&s, 0, d1, d2, n_u, n_r);
            if (rc || !s.found) continue;
            int ambiguous = s.found > 1;
            rc = ambiguous                     ? STSL_OK
                 : n <= STSL_CONSISTENCY_SMALL ? any_other(&s, chosen, &ambiguous)
                                               : other_qualifies(&s, chosen, &ambiguous);
            if (!rc) *res = (stsl_consistency_result){s.n_tested, ambiguous};
            done = 1;
        }
    free(s.buf);
    if (!rc && !done)
        return stsl_error_set(err, STSL_EMODEL, "no consistent combination of %d contacts", n);
    return rc;
}
