/* test_system_verify.c - `--verify` on a system of bodies (simulation.verify
 * through the C API, as `stickslip run --verify` runs it): the servo with
 * gear backlash (examples/servo_backlash.yaml: three bodies, two Coulomb
 * contacts, a rigid stop between motor and gear, 65 events of stick,
 * breakaway, reversal, stop contact and release).
 *
 * The estimate of a run at rtol R is the difference from the check run at
 * R/100.  Its claim is that it is the run's own error: checked against the
 * error measured from a run at rtol 1e-13, body by body and for x and v,
 * after every event and at the end (the points the estimate covers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/stickslip.h"
#include "test/testutil.h"

#define EX(name) STSL_SOURCE_DIR "/examples/" name

static const char *const BODIES[3] = {"motor", "gear", "load"};

static stsl_result *servo(const char *rtol, const char *verify)
{
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_load(EX("servo_backlash.yaml"), &err);
    if (!cfg) fail_msg("%s", err.message);
    char sets[2][64];
    snprintf(sets[0], sizeof sets[0], "simulation.rtol=%s", rtol);
    snprintf(sets[1], sizeof sets[1], "simulation.verify=%s", verify);
    const char *all[2] = {sets[0], sets[1]};
    assert_int_equal(stsl_cfg_set_all(cfg, all, 2, &err), STSL_RC_OK);
    stsl_result *r = NULL;
    if (stsl_run_result(cfg, &r, &err)) fail_msg("%s", err.message);
    stsl_cfg_free(cfg);
    return r;
}

static double stat(const stsl_result *r, const char *name)
{
    double v = NAN;
    stsl_err err;
    if (stsl_result_stat(r, name, &v, &err)) fail_msg("%s", err.message);
    return v;
}

/* max over the events and the end of |col(a) - col(b)|: the events paired
 * by order (the same sequence is asserted), the end's last sample. */
static double actual_error(const stsl_result *a, const stsl_result *b, const char *col)
{
    long n = stsl_result_n_events(a), na = stsl_result_n_samples(a), nb = stsl_result_n_samples(b);
    double e = fabs(stsl_result_column(a, col)[na - 1] - stsl_result_column(b, col)[nb - 1]);
    for (long i = 0; i < n; i++)
        e = fmax(
            e, fabs(stsl_result_event_value(a, i, col, 1) - stsl_result_event_value(b, i, col, 1)));
    return e;
}

static void same_events(const stsl_result *a, const stsl_result *b)
{
    long n = stsl_result_n_events(a);
    assert_int_equal(n, stsl_result_n_events(b));
    for (long i = 0; i < n; i++) {
        stsl_event ea, eb;
        stsl_err err;
        assert_int_equal(stsl_result_event(a, i, &ea, &err), STSL_RC_OK);
        assert_int_equal(stsl_result_event(b, i, &eb, &err), STSL_RC_OK);
        assert_string_equal(ea.kind, eb.kind);
        assert_string_equal(stsl_result_event_subject(a, i), stsl_result_event_subject(b, i));
    }
}

/* The estimate bounds the error within a factor 2 either way, per body and
 * per column.  Why 2: estimate and error differ by the check run's own
 * error (|x_R - x_R/100| against |x_R - x_exact|, the triangle inequality),
 * and the check run's error is about 1/100 of the run's (a run's error is
 * proportional to rtol, docs "Numerics"; here estimate / error is 1.01 to
 * 1.02 for every column).  A factor 2 allows that error to be up to half
 * the run's, 50x more than proportionality gives, yet fails for an
 * estimate that is not the run's error (one at the check run's own level,
 * or the run's error at another rtol, is off by ~100).  The reference at
 * 1e-13 is 1e5 times closer than the run. */
static void estimate_bounds_error(void **state)
{
    (void)state;
    stsl_result *run = servo("1e-8", "on"), *exact = servo("1e-13", "off");
    const stsl_summary *s = stsl_result_summary(run);
    assert_int_equal(s->verify, 1); /* matched */
    assert_string_equal(s->verify_message, "");
    same_events(run, exact);
    double largest[2] = {0.0, 0.0};
    for (int b = 0; b < 3; b++)
        for (int k = 0; k < 2; k++) {
            char col[32], err_name[40];
            snprintf(col, sizeof col, "%s[%s]", k ? "v" : "x", BODIES[b]);
            snprintf(err_name, sizeof err_name, "err_%s", col);
            double est = stat(run, err_name), act = actual_error(run, exact, col);
            print_message("%-10s estimate %.3e actual %.3e ratio %.3f\n", col, est, act, est / act);
            assert_true(act > 0.0);
            assert_true(est <= 2.0 * act && act <= 2.0 * est);
            largest[k] = fmax(largest[k], est);
        }
    /* The summary's err_x, err_v: the largest over the bodies. */
    assert_true(s->err_x == largest[0] && s->err_v == largest[1]);
    assert_true(stat(run, "err_x") == largest[0]);
    /* A column without an estimate, and a run that was not verified: NaN. */
    assert_true(isnan(stat(run, "err_a[motor]")));
    assert_true(isnan(stat(exact, "err_x[motor]")));
    stsl_result_free(run);
    stsl_result_free(exact);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(estimate_bounds_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
