/* test_consistency.c - consistent mode selection (physics/consistency):
 * SPEC §4's order of choice in each of its branches (fewest changes among
 * the contacts that reached nothing, then most stuck among those that
 * did, then the lexicographic order STUCK < SLIP_POS < SLIP_NEG), the
 * search by levels (its cost: a stack of fifty contacts of which one
 * breaks away takes 2n + 2 tests), the ambiguous flag, the errors and their
 * messages (none consistent, a test's own error, bad arguments), n = 0,
 * and one physical case: two bodies on ground and a contact between them,
 * tested with the cluster solver, against the closed form of its
 * consistent combinations. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "physics/consistency.h"
#include "models/cluster.h"

#define S STSL_CONTACT_STUCK
#define P STSL_CONTACT_SLIP_POS
#define N STSL_CONTACT_SLIP_NEG

/* A fake test: the consistent combinations are a given list of base-3
 * codes of the first (up to 19) states (states[0] the most significant
 * digit), every later state STUCK.  Counts its calls. */
typedef struct fake {
    int n;
    const long *codes; /* consistent combinations */
    int n_codes;
    int calls;
    long fail_at; /* code whose test returns an error; -1: none */
} fake;

static long code_of(int n, const int *states)
{
    long code = 0;
    for (int k = 0; k < n && k < 19; k++)
        code = 3 * code + states[k];
    return code;
}

static int fake_test(void *ctx, const int *states, stsl_error *err)
{
    fake *f = ctx;
    long code = code_of(f->n, states);
    f->calls++;
    if (code == f->fail_at) return stsl_error_set(err, STSL_EMODEL, "fake failure at %ld", code);
    for (int k = 19; k < f->n; k++)
        if (states[k] != S) return 0;
    for (int j = 0; j < f->n_codes; j++)
        if (f->codes[j] == code) return 1;
    return 0;
}

/* Select over a fake with the given consistent codes; asserts success and
 * the ambiguous flag; returns the chosen code. */
static long select_fake(int n, const int *before, const int *reached, const long *codes,
                        int n_codes, int ambiguous, int *calls)
{
    fake f = {n, codes, n_codes, 0, -1};
    int chosen[64];
    stsl_consistency_result res = {-1, -1};
    stsl_error err = {0};
    int rc = stsl_consistency_select(n, before, reached, fake_test, &f, chosen, &res, &err);
    if (rc != 0) fail_msg("select: %s", err.msg);
    assert_int_equal(res.ambiguous, ambiguous);
    assert_int_equal(res.n_tested, f.calls);
    if (calls) *calls = f.calls;
    return code_of(n, chosen);
}

#define CODE2(a, b)    (3 * (a) + (b))
#define CODE3(a, b, c) (9 * (a) + 3 * (b) + (c))

/* 1 before 2: a contact that reached nothing keeps its state although the
 * other combination is lexicographically first and as stuck: before (S,
 * S), contact 0 reached, contact 1 not; consistent (S, P) and (P, S). */
static void test_unreached_keep(void **state)
{
    (void)state;
    const int before[] = {S, S}, reached[] = {1, 0};
    const long codes[] = {CODE2(S, P), CODE2(P, S)};
    assert_int_equal(select_fake(2, before, reached, codes, 2, 1, NULL), CODE2(P, S));
}

/* 2: most stuck among the reached, however many change (SPEC §1.2 for
 * one contact: stick at w = 0 when the force allows): before (N, N), both
 * reached (both slid to w = 0); consistent (P, N) (one change) and (S, S)
 * (two changes, both stuck). */
static void test_reached_stick(void **state)
{
    (void)state;
    const int before[] = {N, N}, reached[] = {1, 1};
    const long codes[] = {CODE2(P, N), CODE2(S, S)};
    assert_int_equal(select_fake(2, before, reached, codes, 2, 1, NULL), CODE2(S, S));
    /* Alone, (S, S) is not ambiguous (small groups are searched whole). */
    const long alone[] = {CODE2(S, S)};
    int calls;
    assert_int_equal(select_fake(2, before, reached, alone, 1, 0, &calls), CODE2(S, S));
    assert_int_equal(calls, 9);
    /* One contact: stick when it can, also from a slip (the reversal
     * qualifying too: ambiguous, which the engine records only for two
     * or more contacts). */
    const int one_before[] = {P}, one_reached[] = {1};
    const long one[] = {S, N};
    assert_int_equal(select_fake(1, one_before, one_reached, one, 2, 1, NULL), S);
}

/* 3: equal on 1 and 2, the lexicographic first (the caller orders the
 * contacts by name); another qualifying is ambiguous. */
static void test_order_last(void **state)
{
    (void)state;
    const int before[] = {S, S}, reached[] = {1, 1};
    const long three[] = {CODE2(N, S), CODE2(S, P), CODE2(P, S)};
    assert_int_equal(select_fake(2, before, reached, three, 3, 1, NULL), CODE2(S, P));
    const long pos_neg[] = {CODE2(N, S), CODE2(P, S)};
    assert_int_equal(select_fake(2, before, reached, pos_neg, 2, 1, NULL), CODE2(P, S));
    /* One on another level qualifying is ambiguous too: (S, S) chosen,
     * (S, P) one slip more. */
    const long neighbour[] = {CODE2(S, P), CODE2(S, S)};
    assert_int_equal(select_fake(2, before, reached, neighbour, 2, 1, NULL), CODE2(S, S));
}

/* The cost: fifty contacts, all stuck, only contact 0 reached (a stack of
 * boxes whose bottom reaches its static level): (S..S) fails, (P S..S)
 * qualifies, (N S..S) is tested as the rest of its level and fails, then
 * the neighbours for `ambiguous`: (S..S) again and each of the 49 others
 * slipping either way: 102 tests, where the enumeration made 3^50. */
static void test_cost(void **state)
{
    (void)state;
    int before[50] = {0}, reached[50] = {0}, calls;
    reached[0] = 1;
    const long codes[] = {387420489L}; /* P in the first of the 19 digits: 3^18 */
    assert_int_equal(select_fake(50, before, reached, codes, 1, 0, &calls), codes[0]);
    assert_int_equal(calls, 102);
}

/* None consistent: STSL_EMODEL and the message after every combination. */
static void test_none(void **state)
{
    (void)state;
    const int before[] = {S, P, N}, reached[] = {1, 0, 1};
    fake f = {3, NULL, 0, 0, -1};
    int chosen[3] = {7, 7, 7};
    stsl_consistency_result res = {-1, -1};
    stsl_error err = {0};
    assert_int_equal(stsl_consistency_select(3, before, reached, fake_test, &f, chosen, &res, &err),
                     STSL_EMODEL);
    assert_int_equal(err.code, STSL_EMODEL);
    assert_string_equal(err.msg, "no consistent combination of 3 contacts");
    assert_int_equal(f.calls, 27);
    assert_true(res.n_tested == -1);
}

/* A test's error stops the search and comes back as it is: (S, S) is
 * tested first, (S, P) second. */
static void test_callback_error(void **state)
{
    (void)state;
    const int before[] = {S, S}, reached[] = {1, 1};
    const long codes[] = {8};
    fake f = {2, codes, 1, 0, CODE2(S, P)};
    int chosen[2] = {7, 7};
    stsl_consistency_result res = {-1, -1};
    stsl_error err = {0};
    assert_int_equal(stsl_consistency_select(2, before, reached, fake_test, &f, chosen, &res, &err),
                     STSL_EMODEL);
    assert_string_equal(err.msg, "fake failure at 1");
    assert_int_equal(f.calls, 2);
    assert_true(res.n_tested == -1);
}

/* n = 0: nothing to choose, nothing tested; bad arguments named. */
static void test_limits(void **state)
{
    (void)state;
    fake f = {0, NULL, 0, 0, -1};
    stsl_consistency_result res = {-1, -1};
    stsl_error err = {0};
    int chosen[2] = {0}, before[2] = {0}, reached[2] = {1, 1};
    assert_int_equal(stsl_consistency_select(0, NULL, NULL, fake_test, &f, chosen, &res, &err), 0);
    assert_int_equal(res.n_tested, 0);
    assert_int_equal(res.ambiguous, 0);
    assert_int_equal(f.calls, 0);
    assert_int_equal(
        stsl_consistency_select(-1, before, reached, fake_test, &f, chosen, &res, &err),
        STSL_EINPUT);
    assert_string_equal(err.msg, "consistency: -1 contacts (must be >= 0)");
    before[1] = 3;
    assert_int_equal(stsl_consistency_select(2, before, reached, fake_test, &f, chosen, &res, &err),
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

/* The consistent set at force F equals the closed form (codes, increasing:
 * every combination tested directly), and before[], reached[] choose
 * `expect`. */
static void check_physical(double force, const int *codes, int n_codes, const int *before,
                           const int *reached, int expect)
{
    physical ph = {force, {1.0, 1.0, 0.5}, {2.0, 2.0, 2.0}, NULL, {0}, 0};
    ph.ws = stsl_cstr_ws_create(2, 1, 3);
    assert_non_null(ph.ws);
    stsl_error err = {0};
    for (int code = 0; code < 27; code++) {
        int st[3] = {code / 9, code / 3 % 3, code % 3};
        assert_true(physical_test(&ph, st, &err) >= 0);
    }
    assert_int_equal(ph.n_consistent, n_codes);
    for (int j = 0; j < n_codes; j++)
        assert_int_equal(ph.consistent[j], codes[j]);
    int chosen[3];
    stsl_consistency_result res;
    int rc = stsl_consistency_select(3, before, reached, physical_test, &ph, chosen, &res, &err);
    if (rc != 0) fail_msg("F = %g: %s", force, err.msg);
    assert_int_equal(code_of(3, chosen), expect);
    stsl_cstr_ws_free(ph.ws);
}

static void test_physical(void **state)
{
    (void)state;
    const int sss = CODE3(S, S, S), psp = CODE3(P, S, P), pps = CODE3(P, P, S);
    const int all_stuck[] = {S, S, S}, all_pos[] = {P, P, P}, pps_before[] = {P, P, S};
    const int all[] = {1, 1, 1}, first[] = {1, 0, 0}, third[] = {0, 0, 1}, not_third[] = {1, 1, 0};
    const int low[] = {sss}, mid[] = {sss, psp}, high[] = {sss, psp, pps}, over[] = {psp};
    check_physical(1.0, low, 1, all_pos, all, sss);
    check_physical(1.75, mid, 2, all_stuck, first, sss); /* no change */
    check_physical(1.75, mid, 2, all_pos, all, sss);     /* most stuck, three changes */
    /* Three consistent: the unreached keep their slips where they can. */
    check_physical(2.5, high, 3, pps_before, third, pps);
    check_physical(2.5, high, 3, all_pos, not_third, psp);
    check_physical(5.0, over, 1, all_stuck, all, psp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unreached_keep), cmocka_unit_test(test_reached_stick),
        cmocka_unit_test(test_order_last),     cmocka_unit_test(test_cost),
        cmocka_unit_test(test_none),           cmocka_unit_test(test_callback_error),
        cmocka_unit_test(test_limits),         cmocka_unit_test(test_physical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
