/* test_consistency.c - consistent mode selection (events/consistency): the
 * tie rule in each of its branches (changes, then stuck count, then the
 * order STUCK < SLIP_POS < SLIP_NEG), the enumeration (every combination
 * once, in lexicographic order, for n = 1..10), the ambiguous flag, the
 * errors and their messages (none consistent, more than ten contacts, a
 * test's own error, bad arguments), n = 0, and one physical case: two
 * bodies on ground and a contact between them, tested with the cluster
 * solver, against the closed form of its consistent combinations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "events/consistency.h"
#include "models/cluster.h"

#define S         STSL_CONTACT_STUCK
#define P         STSL_CONTACT_SLIP_POS
#define N         STSL_CONTACT_SLIP_NEG
#define MAX_CODES 59049 /* 3^10 */

/* A fake test: the consistent combinations are a given list of base-3
 * codes (states[0] the most significant digit).  Checks on the way that
 * the combinations come in lexicographic order, each once. */
typedef struct fake {
    int n;
    const int *codes; /* consistent combinations */
    int n_codes;
    int calls, last_code;
    int fail_at; /* code whose test returns an error; -1: none */
} fake;

static int code_of(int n, const int *states)
{
    int code = 0;
    for (int k = 0; k < n; k++)
        code = 3 * code + states[k];
    return code;
}

static int fake_test(void *ctx, const int *states, stsl_error *err)
{
    fake *f = ctx;
    int code = code_of(f->n, states);
    assert_int_equal(code, f->last_code + 1);
    f->last_code = code;
    f->calls++;
    if (code == f->fail_at) return stsl_error_set(err, STSL_EMODEL, "fake failure at %d", code);
    for (int j = 0; j < f->n_codes; j++)
        if (f->codes[j] == code) return 1;
    return 0;
}

static int pow3(int n)
{
    int p = 1;
    while (n-- > 0)
        p *= 3;
    return p;
}

/* Select over a fake with the given consistent codes; asserts success,
 * the full enumeration and the count; returns the chosen code. */
static int select_fake(int n, const int *before, const int *codes, int n_codes)
{
    fake f = {n, codes, n_codes, 0, -1, -1};
    int chosen[STSL_CONSISTENCY_MAX];
    stsl_consistency_result res = {-1, -1};
    stsl_error err = {0};
    int rc = stsl_consistency_select(n, before, fake_test, &f, chosen, &res, &err);
    if (rc != 0) fail_msg("select: %s", err.msg);
    assert_int_equal(f.calls, pow3(n));
    assert_int_equal(res.n_consistent, n_codes);
    assert_int_equal(res.ambiguous, n_codes > 1);
    return code_of(n, chosen);
}

#define CODE2(a, b)    (3 * (a) + (b))
#define CODE3(a, b, c) (9 * (a) + 3 * (b) + (c))

/* Fewest changes wins over more stuck and over the order: before (N, N),
 * consistent (S, S) (2 changes, 2 stuck, lexicographically first) and
 * (N, S) (1 change). */
static void test_changes_first(void **state)
{
    (void)state;
    const int before[] = {N, N}, codes[] = {CODE2(S, S), CODE2(N, S)};
    assert_int_equal(select_fake(2, before, codes, 2), CODE2(N, S));
}

/* Equal changes: more stuck wins over the order: before (N, N),
 * consistent (P, N) (1 change, 0 stuck, first) and (N, S) (1 change, 1
 * stuck). */
static void test_stuck_second(void **state)
{
    (void)state;
    const int before[] = {N, N}, codes[] = {CODE2(P, N), CODE2(N, S)};
    assert_int_equal(select_fake(2, before, codes, 2), CODE2(N, S));
}

/* Equal changes and stuck counts: the lexicographic first, STUCK <
 * SLIP_POS < SLIP_NEG in every position. */
static void test_order_last(void **state)
{
    (void)state;
    const int before[] = {S, S};
    const int three[] = {CODE2(N, S), CODE2(S, P), CODE2(P, S)};
    assert_int_equal(select_fake(2, before, three, 3), CODE2(S, P));
    const int pos_neg[] = {CODE2(N, S), CODE2(P, S)};
    assert_int_equal(select_fake(2, before, pos_neg, 2), CODE2(P, S));
    const int last[] = {CODE2(S, N), CODE2(S, P)};
    assert_int_equal(select_fake(2, before, last, 2), CODE2(S, P));
    /* Three contacts, before (P, N, S): (S, N, P) and (P, S, N) both change
     * 2 and keep 1 stuck; (S, ...) comes first. */
    const int before3[] = {P, N, S}, codes3[] = {CODE3(P, S, N), CODE3(S, N, P)};
    assert_int_equal(select_fake(3, before3, codes3, 2), CODE3(S, N, P));
}

/* One consistent combination: chosen whatever it changes, not ambiguous;
 * every n up to ten, the combination being the last one (all SLIP_NEG,
 * every test made). */
static void test_unique_every_n(void **state)
{
    (void)state;
    int before[STSL_CONSISTENCY_MAX] = {0};
    for (int n = 1; n <= STSL_CONSISTENCY_MAX; n++) {
        const int codes[] = {pow3(n) - 1};
        assert_int_equal(select_fake(n, before, codes, 1), pow3(n) - 1);
    }
    /* And all of them consistent: the one without change wins. */
    static int all[MAX_CODES];
    for (int c = 0; c < pow3(4); c++)
        all[c] = c;
    const int before4[] = {P, S, N, P};
    assert_int_equal(select_fake(4, before4, all, pow3(4)), CODE3(P, S, N) * 3 + P);
}

/* None consistent: STSL_EMODEL and the message; chosen and res untouched. */
static void test_none(void **state)
{
    (void)state;
    const int before[] = {S, P, N};
    fake f = {3, NULL, 0, 0, -1, -1};
    int chosen[3] = {7, 7, 7};
    stsl_consistency_result res = {-1, -1};
    stsl_error err = {0};
    assert_int_equal(stsl_consistency_select(3, before, fake_test, &f, chosen, &res, &err),
                     STSL_EMODEL);
    assert_int_equal(err.code, STSL_EMODEL);
    assert_string_equal(err.msg, "no consistent combination of 3 contacts");
    assert_int_equal(f.calls, 27);
    assert_true(chosen[0] == 7 && chosen[2] == 7 && res.n_consistent == -1);
}

/* A test's error stops the enumeration and comes back as it is. */
static void test_callback_error(void **state)
{
    (void)state;
    const int before[] = {S, S}, codes[] = {0};
    fake f = {2, codes, 1, 0, -1, 4};
    int chosen[2] = {7, 7};
    stsl_consistency_result res = {-1, -1};
    stsl_error err = {0};
    assert_int_equal(stsl_consistency_select(2, before, fake_test, &f, chosen, &res, &err),
                     STSL_EMODEL);
    assert_string_equal(err.msg, "fake failure at 4");
    assert_int_equal(f.calls, 5);
    assert_true(chosen[0] == 7 && res.n_consistent == -1);
}

/* n = 0: trivially consistent, nothing tested; n = 11 refused before any
 * test; bad arguments named. */
static void test_limits(void **state)
{
    (void)state;
    fake f = {0, NULL, 0, 0, -1, -1};
    stsl_consistency_result res = {-1, -1};
    stsl_error err = {0};
    int chosen[12] = {0}, before[12] = {0};
    assert_int_equal(stsl_consistency_select(0, NULL, fake_test, &f, chosen, &res, &err), 0);
    assert_int_equal(res.n_consistent, 1);
    assert_int_equal(res.ambiguous, 0);
    assert_int_equal(f.calls, 0);
    f.n = 11;
    assert_int_equal(stsl_consistency_select(11, before, fake_test, &f, chosen, &res, &err),
                     STSL_EMODEL);
    assert_string_equal(err.msg,
                        "more than ten contacts switch at one instant (11; enumerated are at "
                        "most 10)");
    assert_int_equal(f.calls, 0);
    assert_int_equal(stsl_consistency_select(-1, before, fake_test, &f, chosen, &res, &err),
                     STSL_EINPUT);
    assert_string_equal(err.msg, "consistency: -1 contacts (must be >= 0)");
    before[1] = 3;
    assert_int_equal(stsl_consistency_select(2, before, fake_test, &f, chosen, &res, &err),
                     STSL_EINPUT);
    assert_string_equal(err.msg, "consistency: contact 1: state before 3; allowed 0 (STUCK), "
                                 "1 (SLIP_POS), 2 (SLIP_NEG)");
    assert_int_equal(f.calls, 0);
}

/* ---- a physical case ---------------------------------------------------------
 *
 * Bodies 0 and 1 (mass 1) at rest on ground; a force F > 0 on body 0.
 * Contacts (Coulomb, dynamic D_k, static S_k): c0 body 0 - ground, c1 body
 * 1 - ground, c2 body 0 - body 1 (w2 = v0 - v1); D = (1, 1, 0.5), S = (2,
 * 2, 2).  All three at w = 0: J = {c0, c1, c2}.  A combination is
 * consistent (SPEC §4) when every stuck contact's lambda is in [-S, S] and
 * every slipping one accelerates in its slip direction (s w' > 0) with
 * friction -s D on ends[0], +s D on ends[1].  Closed form, combination by
 * combination:
 * - two stuck and one slipping: the slipping contact's ends are in one
 *   cluster, w' = 0: never.
 * - (S, s1, s2): body 1 alone, a1 = -s1 D1 + s2 D2, needs s1 a1 > 0 and
 *   s2 a1 < 0, so s2 = -s1 and s1 a1 = -(D1 + D2) < 0: never.
 * - (s0, S, s2): body 0 alone, a0 = F - s0 D0 - s2 D2 = w0' = w2', so s0 =
 *   s2 = +, F > D0 + D2 = 1.5; lambda1 = -D2, |0.5| <= 2: iff F > 1.5.
 * - (s0, s1, S): bodies 0, 1 together, a = (F - s0 D0 - s1 D1)/2, so s0 =
 *   s1 = +, F > D0 + D1 = 2; lambda2 = -F/2 on body 0, in the band iff
 *   F <= 4: iff 2 < F <= 4.
 * - all slipping: s1 a1 = -D1 + s1 s2 D2 < 0 (D2 < D1): never.
 * - all stuck: a loop (ground - 0 - 1 - ground); the bodies' equations
 *   give lambda = (-F - t, t, t), the minimum-norm split t = -F/3, in the
 *   bands iff F <= 3.  (Another reading, "some lambda of the family in
 *   the bands", gives F <= S0 + min(S1, S2) = 4: the two differ only for
 *   3 < F <= 4, which this test avoids.)
 * So: F < 1.5 {SSS}; 1.5 < F < 2 {SSS, PSP}; 2 < F < 3 {SSS, PSP, PPS};
 * F > 4 {PSP}. */

typedef struct physical {
    double force, dyn[3], stat[3];
    stsl_cstr_ws *ws;
    int consistent[27]; /* the codes found consistent */
    int n_consistent;
} physical;

static const int ENDS[3][2] = {{0, 2}, {1, 2}, {0, 1}}; /* node 2: ground */

static int physical_test(void *ctx, const int *states, stsl_error *err)
{
    physical *ph = ctx;
    double mass[2] = {1.0, 1.0}, force[2] = {ph->force, 0.0}, acc0[1] = {0.0};
    int edges[3][2], stuck[3], n_edges = 0;
    for (int k = 0; k < 3; k++) {
        if (states[k] == STSL_CONTACT_STUCK) {
            stuck[n_edges] = k;
            edges[n_edges][0] = ENDS[k][0];
            edges[n_edges++][1] = ENDS[k][1];
            continue;
        }
        double s = states[k] == STSL_CONTACT_SLIP_POS ? 1.0 : -1.0;
        force[ENDS[k][0]] -= s * ph->dyn[k];
        if (ENDS[k][1] < 2) force[ENDS[k][1]] += s * ph->dyn[k];
    }
    stsl_cstr_problem p = {2, mass, force, 1, acc0, n_edges, (const int(*)[2])edges};
    double a[2], lambda[3];
    stsl_cstr_solution sol = {a, lambda, 0, 0};
    int rc = stsl_cstr_solve(ph->ws, &p, &sol, err);
    if (rc != 0) return rc;
    for (int j = 0; j < n_edges; j++)
        if (!(lambda[j] >= -ph->stat[stuck[j]] && lambda[j] <= ph->stat[stuck[j]])) return 0;
    for (int k = 0; k < 3; k++) {
        if (states[k] == STSL_CONTACT_STUCK) continue;
        double w_acc = a[ENDS[k][0]] - (ENDS[k][1] < 2 ? a[ENDS[k][1]] : 0.0);
        if ((states[k] == STSL_CONTACT_SLIP_POS ? w_acc : -w_acc) <= 0.0) return 0;
    }
    ph->consistent[ph->n_consistent++] = code_of(3, states);
    return 1;
}

/* The consistent set at force F equals the closed form (codes, increasing),
 * and before[] chooses `expect`. */
static void check_physical(double force, const int *codes, int n_codes, const int *before,
                           int expect)
{
    physical ph = {force, {1.0, 1.0, 0.5}, {2.0, 2.0, 2.0}, NULL, {0}, 0};
    ph.ws = stsl_cstr_ws_create(2, 1, 3);
    assert_non_null(ph.ws);
    int chosen[3];
    stsl_consistency_result res;
    stsl_error err = {0};
    int rc = stsl_consistency_select(3, before, physical_test, &ph, chosen, &res, &err);
    if (rc != 0) fail_msg("F = %g: %s", force, err.msg);
    assert_int_equal(res.n_consistent, n_codes);
    assert_int_equal(ph.n_consistent, n_codes);
    for (int j = 0; j < n_codes; j++)
        assert_int_equal(ph.consistent[j], codes[j]);
    assert_int_equal(res.ambiguous, n_codes > 1);
    assert_int_equal(code_of(3, chosen), expect);
    stsl_cstr_ws_free(ph.ws);
}

static void test_physical(void **state)
{
    (void)state;
    const int sss = CODE3(S, S, S), psp = CODE3(P, S, P), pps = CODE3(P, P, S);
    const int all_stuck[] = {S, S, S}, all_pos[] = {P, P, P}, pps_before[] = {P, P, S};
    const int low[] = {sss}, mid[] = {sss, psp}, high[] = {sss, psp, pps}, over[] = {psp};
    check_physical(1.0, low, 1, all_pos, sss);
    check_physical(1.75, mid, 2, all_stuck, sss); /* no change */
    check_physical(1.75, mid, 2, all_pos, psp);   /* one change against three */
    /* Three consistent; from (P, P, P) PSP and PPS change one each with one
     * stuck: the order decides (S < P in the second place). */
    check_physical(2.5, high, 3, all_pos, psp);
    check_physical(2.5, high, 3, pps_before, pps);
    check_physical(5.0, over, 1, all_stuck, psp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_changes_first), cmocka_unit_test(test_stuck_second),
        cmocka_unit_test(test_order_last),    cmocka_unit_test(test_unique_every_n),
        cmocka_unit_test(test_none),          cmocka_unit_test(test_callback_error),
        cmocka_unit_test(test_limits),        cmocka_unit_test(test_physical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
