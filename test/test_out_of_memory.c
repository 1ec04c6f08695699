/* Out of memory at every allocation of a run: each malloc and calloc the
 * library makes while running a configuration (models, solver, fixed-step
 * scheme, memory result) fails in turn, and each such run must fail with
 * STSL_RC_NOMEM and a message naming the cause, without crashing; built
 * with the asan preset it also shows that every such path frees what it
 * made exactly once (no leak, no double free).  The allocations are
 * intercepted by linking with -Wl,--wrap=malloc,--wrap=calloc
 * (CMakeLists.txt), which redirects the library's calls only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/stickslip.h"

#define EX(name) STSL_SOURCE_DIR "/examples/" name

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);

static int armed;           /* count (and fail) only inside the run */
static long count, fail_at; /* allocations so far; the one to fail (0: none) */

static int fails(void)
{
    return armed && ++count == fail_at;
}

void *__wrap_malloc(size_t n)
{
    return fails() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return fails() ? NULL : __real_calloc(n, size);
}

/* Run `file` with `n` overrides, the k-th allocation failing (0: none);
 * the status, its message in msg. */
static stsl_rc run_failing(const char *file, const char *const *set, int n, long k, char *msg,
                           size_t len)
{
    stsl_err err = {0};
    stsl_cfg *cfg = stsl_cfg_load(file, &err);
    assert_non_null(cfg);
    assert_int_equal(stsl_cfg_set_all(cfg, set, n, &err), STSL_RC_OK);
    stsl_result *r = NULL;
    count = 0, fail_at = k, armed = 1;
    stsl_rc rc = stsl_run_result(cfg, &r, &err);
    armed = 0;
    snprintf(msg, len, "%s", err.message);
    stsl_result_free(r);
    stsl_cfg_free(cfg);
    return rc;
}

/* Every allocation of the run fails once, k = 1, 2, ... until a run makes
 * fewer than k (it then succeeds). */
static void each_allocation_fails(const char *file, const char *const *set, int n)
{
    char msg[STSL_ERR_MAX];
    long k = 1;
    for (;; k++) {
        stsl_rc rc = run_failing(file, set, n, k, msg, sizeof msg);
        if (count < k) { /* nothing failed: the whole run */
            assert_int_equal(rc, STSL_RC_OK);
            break;
        }
        if (rc != STSL_RC_NOMEM || !strstr(msg, "out of memory"))
            fail_msg("%s: allocation %ld failing gave %d: %s", file, k, (int)rc, msg);
    }
    /* The wrap took effect: a run of a system makes more than a few. */
    assert_true(k > 50);
    printf("%s: each of %ld allocations failed in turn\n", strrchr(file, '/') + 1, k - 1);
}

#define SHORT "simulation.t_end=0.1", "simulation.output_step=0.01"

/* Bodies, a coupling, a rigid stop with impacts (multibody, cluster and
 * loop workspaces, the event-driven solver). */
static void system_with_stop_and_coupling(void **state)
{
    (void)state;
    const char *set[] = {SHORT};
    each_allocation_fails(EX("servo_backlash.yaml"), set, 2);
}

/* The same system under a fixed-step scheme (its own run arrays). */
static void system_fixed_step(void **state)
{
    (void)state;
    const char *set[] = {SHORT, "simulation.scheme=fixed_step_hybrid", "simulation.step=1e-4"};
    each_allocation_fails(EX("servo_backlash.yaml"), set, 4);
}

/* A chain of blocks and springs (many contacts, couplings). */
static void chain_of_blocks(void **state)
{
    (void)state;
    const char *set[] = {SHORT};
    each_allocation_fails(EX("burridge_knopoff.yaml"), set, 2);
}

/* The element: LuGre (a bristle state), and compliant end stops. */
static void element_lugre_and_compliant_stops(void **state)
{
    (void)state;
    const char *set[] = {SHORT};
    each_allocation_fails(EX("lugre_stick_slip.yaml"), set, 2);
    each_allocation_fails(EX("dv_compliant_stops.yaml"), set, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(system_with_stop_and_coupling),
        cmocka_unit_test(system_fixed_step),
        cmocka_unit_test(chain_of_blocks),
        cmocka_unit_test(element_lugre_and_compliant_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
