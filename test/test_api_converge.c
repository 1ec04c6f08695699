/* test_api_converge.c - stsl_converge of stickslip.h from C: the result's
 * columns as the header lists them, a system's per body and contact, the
 * argument checks, the caller's configuration left unchanged, and a
 * result kept when only its file could not be written.  That the numbers
 * are the command's is test_fmu's and test_fixed_step's (the CLI prints
 * this result) and test/python/test_converge.py's. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "include/stickslip.h"
#include "testutil.h"

#define EX STSL_SOURCE_DIR "/examples/"

static const double steps2[] = {2e-3, 1e-3};

static stsl_cfg *load(const char *path)
{
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_load(path, &err);
    if (!cfg) fail_msg("%s", err.message);
    return cfg;
}

/* The element's columns, in the header's order, each with n_steps values. */
static void t_element_columns(void **state)
{
    (void)state;
    static const char *const want[] = {"step",
                                       "max_abs_error_x",
                                       "rms_error_x",
                                       "max_abs_error_v",
                                       "final_error_x",
                                       "wall_seconds",
                                       "rhs_evals",
                                       "events",
                                       "events_missed",
                                       "events_spurious",
                                       "max_event_time_error",
                                       "max_abs_error_friction",
                                       "rms_error_friction",
                                       "stuck_iou",
                                       "dissipated_energy_error"};
    stsl_cfg *cfg = load(EX "janecek_chirp.yaml");
    stsl_converge_opts o = {.scheme = "karnopp", .steps = steps2, .n_steps = 2};
    stsl_convergence *c = NULL;
    stsl_err err;
    assert_int_equal(stsl_converge(cfg, &o, &c, &err), STSL_RC_OK);
    assert_string_equal(stsl_convergence_scheme(c), "karnopp");
    assert_int_equal(stsl_convergence_n_steps(c), 2);
    assert_int_equal(stsl_convergence_n_columns(c), 15);
    for (int i = 0; i < 15; i++)
        assert_string_equal(stsl_convergence_column_name(c, i), want[i]);
    assert_null(stsl_convergence_column_name(c, 15));
    assert_null(stsl_convergence_column(c, "nope"));
    assert_int_equal(stsl_convergence_n_bodies(c), 0);
    assert_null(stsl_convergence_body(c, 0));
    assert_string_equal(stsl_convergence_column_units(c, "max_abs_error_v"), "m/s");
    assert_string_equal(stsl_convergence_column_units(c, "dissipated_energy_error"), "J");
    const double *h = stsl_convergence_column(c, "step");
    assert_true(h[0] == 2e-3 && h[1] == 1e-3);
    /* The order of two rows is the slope through them, log(e0/e1)/log 2. */
    const double *ex = stsl_convergence_column(c, "max_abs_error_x");
    int points;
    assert_close(stsl_convergence_order(c, "max_abs_error_x", &points),
                 log(ex[0] / ex[1]) / log(2.0), 1e-12);
    assert_int_equal(points, 2);
    /* ... of a signed error, its size's. */
    const double *de = stsl_convergence_column(c, "dissipated_energy_error");
    assert_close(stsl_convergence_order(c, "dissipated_energy_error", NULL),
                 log(fabs(de[0]) / fabs(de[1])) / log(2.0), 1e-12);
    assert_true(isnan(stsl_convergence_order(c, "nope", NULL)));
    double v;
    assert_int_equal(stsl_convergence_reference(c, "events", &v, &err), STSL_RC_OK);
    assert_close(v, 13, 0.0); /* the events of `stickslip run` of the Janecek example */
    assert_int_equal(stsl_convergence_reference(c, "nope", &v, &err), STSL_RC_INPUT);
    /* The caller's configuration is not the study's copy. */
    char *scheme = stsl_cfg_get(cfg, "simulation.scheme", &err);
    assert_string_equal(scheme, "event_driven");
    stsl_free(scheme);
    stsl_convergence_free(c);
    stsl_cfg_free(cfg);
}

/* A system: the table's x error is the largest of its bodies', each
 * body's order column is the order of its error column. */
static void t_system_columns(void **state)
{
    (void)state;
    stsl_cfg *cfg = load(EX "servo_backlash.yaml");
    const double steps[] = {1e-3, 5e-4};
    stsl_converge_opts o = {.scheme = "fixed_step_hybrid", .steps = steps, .n_steps = 2};
    stsl_convergence *c = NULL;
    stsl_err err;
    assert_int_equal(stsl_converge(cfg, &o, &c, &err), STSL_RC_OK);
    int nb = stsl_convergence_n_bodies(c), nc = stsl_convergence_n_contacts(c);
    assert_int_equal(nb, 3); /* motor, gear, load */
    assert_int_equal(nc, 2);
    assert_int_equal(stsl_convergence_n_columns(c), 11 + 5 * nb + 4 * nc);
    const double *ex = stsl_convergence_column(c, "max_abs_error_x");
    for (int i = 0; i < 2; i++) {
        double top = 0.0;
        for (int b = 0; b < nb; b++) {
            char key[128];
            snprintf(key, sizeof key, "max_abs_error_x.%s", stsl_convergence_body(c, b));
            top = fmax(top, stsl_convergence_column(c, key)[i]);
            snprintf(key, sizeof key, "order.%s", stsl_convergence_body(c, b));
            const double *ord = stsl_convergence_column(c, key);
            snprintf(key, sizeof key, "max_abs_error_x.%s", stsl_convergence_body(c, b));
            assert_close(ord[i], stsl_convergence_order(c, key, NULL), 0.0);
        }
        assert_close(ex[i], top, 0.0);
    }
    char key[128];
    snprintf(key, sizeof key, "stuck_iou.%s", stsl_convergence_contact(c, 0));
    assert_non_null(stsl_convergence_column(c, key));
    assert_null(stsl_convergence_contact(c, nc));
    stsl_convergence_free(c);
    /* A system's FMU is opened to be mapped onto its bodies (test_fmu
     * drives one): a missing file is that file's error, not a refusal. */
    o.scheme = NULL, o.fmu = "model.fmu";
    assert_int_equal(stsl_converge(cfg, &o, &c, &err), STSL_RC_IO);
    assert_null(c);
    assert_non_null(strstr(err.message, "model.fmu: cannot open the FMU (No such file)"));
    stsl_cfg_free(cfg);
}

static void expect_input(stsl_cfg *cfg, const stsl_converge_opts *o, const char *msg)
{
    stsl_convergence *c = (stsl_convergence *)1;
    stsl_err err;
    assert_int_equal(stsl_converge(cfg, o, &c, &err), STSL_RC_INPUT);
    assert_null(c);
    if (!strstr(err.message, msg)) fail_msg("expected '%s' in '%s'", msg, err.message);
}

static void t_bad_options(void **state)
{
    (void)state;
    stsl_cfg *cfg = load(EX "janecek_chirp.yaml");
    const double same[] = {1e-3, 1e-3}, bad[] = {1e-3, -1.0}, tiny[] = {1e-7, 2e-7};
    stsl_converge_opts o = {.scheme = "karnopp", .steps = same, .n_steps = 2};
    expect_input(cfg, &o, "steps: need at least two distinct steps");
    o.steps = bad;
    expect_input(cfg, &o, "steps: -1 is not a step");
    o.steps = steps2, o.n_steps = 1;
    expect_input(cfg, &o, "steps: need 2 to 64 steps, got 1");
    /* 9.5 s / 1e-7 s + 9.5 s / 2e-7 s = 1.425e8 points > 1e7 (printed to 3 digits) */
    o.steps = tiny, o.n_steps = 2;
    expect_input(cfg, &o, "steps: these steps make 1.42e+08 step points");
    o.steps = steps2, o.scheme = "event_driven";
    expect_input(cfg, &o, "scheme must be karnopp, fixed_step_hybrid or smooth_rk4");
    o.fmu = "m.fmu";
    expect_input(cfg, &o, "scheme and fmu exclude each other");
    o.fmu = NULL, o.scheme = NULL;
    expect_input(cfg, &o, "a scheme (karnopp, fixed_step_hybrid, smooth_rk4) or an FMU");
    stsl_err err;
    assert_int_equal(stsl_converge(NULL, &o, NULL, &err), STSL_RC_INPUT);
    stsl_cfg_free(cfg);
}

/* A file that cannot be written: the code, and the result all the same. */
static void t_unwritable_table(void **state)
{
    (void)state;
    stsl_cfg *cfg = load(EX "janecek_chirp.yaml");
    stsl_converge_opts o = {
        .scheme = "karnopp", .steps = steps2, .n_steps = 2, .csv = "/nonexistent-dir/table.csv"};
    stsl_convergence *c = NULL;
    stsl_err err;
    assert_int_equal(stsl_converge(cfg, &o, &c, &err), STSL_RC_IO);
    assert_non_null(strstr(err.message, "/nonexistent-dir/table.csv"));
    assert_non_null(c);
    assert_int_equal(stsl_convergence_n_steps(c), 2);
    stsl_convergence_free(c);
    stsl_cfg_free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_element_columns),
        cmocka_unit_test(t_system_columns),
        cmocka_unit_test(t_bad_options),
        cmocka_unit_test(t_unwritable_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
