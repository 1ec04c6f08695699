/* test_extrema.c - the summary's max_abs of x and v are the exact extrema
 * of the trajectory (found on the solver's dense output between steps and
 * at events, not on the output grid), against closed forms: a free
 * spring-mass oscillation sampled coarsely (an element, and a system of
 * one body), a Coulomb slip of known peak velocity, an impact on a rigid
 * stop (the peak is the event's before side); and a summary-only study is
 * the same with and without output samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/run_api.h"
#include "include/stickslip.h"
#include "io/study/study_h5.h"
#include "test/testutil.h"

static char g_dir[256];
static char g_out[65536];

static stsl_result *run_yaml(const char *yaml)
{
    stsl_err err = {0};
    stsl_cfg *cfg = stsl_cfg_parse(yaml, ".", &err);
    if (!cfg) fail_msg("config: %s", err.message);
    stsl_result *r = NULL;
    if (stsl_run_result(cfg, &r, &err) != STSL_RC_OK) fail_msg("run: %s", err.message);
    stsl_cfg_free(cfg);
    assert_int_equal(stsl_result_summary(r)->complete, 1);
    return r;
}

static int col_of(const stsl_summary *s, const char *name)
{
    for (int i = 0; i < s->n_cols; i++)
        if (!strcmp(s->col_names[i], name)) return i;
    fail_msg("no column %s", name);
    return -1;
}

/* The largest |value| of a column over the result's samples. */
static double sampled_max(const stsl_result *r, const char *name)
{
    const double *c = stsl_result_column(r, name);
    double m = 0.0;
    for (long i = 0; i < stsl_result_n_samples(r); i++)
        m = fmax(m, fabs(c[i]));
    return m;
}

/* m = 1 kg, k = 100 N/m (w = 10 rad/s), no friction: x = A cos(w t + phi),
 * v = -A w sin(w t + phi), started at phi = 0.3 so that neither peak is at
 * the start.  Every turn of v (v = 0) is a reversal event, so |x| peaks at
 * events; |v| peaks at x = 0, inside a step: max|v| = w A exactly.  The
 * grid of 13 ms passes the six peaks of |v| in 2 s no closer than 0.76 ms,
 * which leaves the sampled maximum short by at least (w 0.76 ms)^2 / 2 =
 * 2.9e-5 of w A.  The exact one carries the integration error only, which
 * follows rtol: measured 1.3e-9 of the amplitude in v, 1.4e-9 in x at
 * rtol 1e-10, 2.4e-12 and 1.6e-12 at 1e-12 (so none of it comes from
 * locating the peak); 1e-8 leaves 7 times the measured and is still 2900
 * times below the grid's miss. */
#define OSC_A   0.01
#define OSC_W   10.0
#define OSC_PHI 0.3

/* Run `fmt` (the oscillator's configuration, x0 and v0 to fill in) and
 * check its columns `x` and `v` against the closed form (see above). */
static void check_oscillation(const char *fmt, const char *x, const char *v)
{
    const double A = OSC_A, w = OSC_W;
    char yaml[1024];
    snprintf(yaml, sizeof yaml, fmt, A * cos(OSC_PHI), -A * w * sin(OSC_PHI));
    stsl_result *r = run_yaml(yaml);
    const stsl_summary *s = stsl_result_summary(r);
    assert_close(s->max_abs[col_of(s, v)], w * A, 1e-8 * w * A);
    assert_close(s->max_abs[col_of(s, x)], A, 1e-8 * A);
    assert_true(sampled_max(r, v) < w * A * (1.0 - 1e-5)); /* the grid misses the peak */
    stsl_result_free(r);
}

static void test_free_oscillation(void **state)
{
    (void)state;
    check_oscillation("element: {mass: 1.0, spring: {stiffness: 100.0, free_position: 0.0}}\n"
                      "friction: {law: coulomb, dynamic: 0.0}\n"
                      "initial: {position: %.17g, velocity: %.17g}\n"
                      "simulation: {t_end: 2.0, output_step: 0.013, rtol: 1e-10}\n",
                      "x", "v");
}

/* The same oscillator as a system of one body on a spring to ground: its
 * columns x[a], v[a] are state components too (the system's own
 * mapping); no contact, so no events: both peaks lie inside steps. */
static void test_system_oscillation(void **state)
{
    (void)state;
    check_oscillation("bodies: {a: {mass: 1.0, position: %.17g, velocity: %.17g}}\n"
                      "couplings:\n  - {between: [a, ground], stiffness: 100.0}\n"
                      "simulation: {t_end: 2.0, output_step: 0.013, rtol: 1e-10}\n",
                      "x[a]", "v[a]");
}

/* Coulomb friction F_D = 2 N (static 3 N), released from rest at x0 =
 * 0.1 m: k x0 = 10 N breaks it away to the left, and while it slips
 * friction pushes right: x = x_c + (x0 - x_c) cos(w t), x_c = F_D / k =
 * 0.02 m, so the first half period's peak speed is w (x0 - x_c) = 0.8 m/s;
 * each later half period starts 2 x_c closer to x_c and is slower: that is
 * the run's max|v|.  max|x| is x0, at the start.  Tolerance: as for the
 * free oscillation (measured 4.3e-10 of the peak at rtol 1e-10). */
static void test_coulomb_peak(void **state)
{
    (void)state;
    stsl_result *r = run_yaml("element: {mass: 1.0, spring: {stiffness: 100.0, free_position: 0}}\n"
                              "friction: {law: coulomb, dynamic: 2.0, static: 3.0}\n"
                              "initial: {position: 0.1, velocity: 0.0}\n"
                              "simulation: {t_end: 1.5, output_step: 0.01, rtol: 1e-10}\n");
    const stsl_summary *s = stsl_result_summary(r);
    assert_true(stsl_summary_events(s, "stick") >= 1); /* it does come to rest */
    assert_close(s->max_abs[col_of(s, "v")], 0.8, 1e-8 * 0.8);
    assert_true(s->max_abs[col_of(s, "x")] == 0.1);
    /* The peak at t = pi / 20 = 0.157 s lies 3 ms from the grid's 0.16 s:
     * (w 3 ms)^2 / 2 = 4.5e-4 of it is missed by the samples. */
    assert_true(sampled_max(r, "v") < 0.8 * (1.0 - 1e-4));
    stsl_result_free(r);
}

/* A constant 2 N pushes 1 kg from rest at x = 0 against a rigid stop at
 * 0.25 m (no friction, restitution 0.5): it arrives at t = 0.5 s with
 * v_i = sqrt(2 F d / m) = 1 m/s, rebounds at -0.5 m/s, comes back at
 * +0.5 m/s at t = 1 s.  The speed grows until the impact: max|v| is the
 * impact's before side, a value at an event, which a run without output
 * samples still has; max|x| the stop's position.  Tolerance: the event is
 * located to rtol (1e-10); v_i carries the rate's error there. */
static void test_impact(void **state)
{
    (void)state;
    const char *yaml = "element: {mass: 1.0}\n"
                       "friction: {law: coulomb, dynamic: 0.0}\n"
                       "end_stops: {min: -1.0, max: 0.25, restitution: 0.5}\n"
                       "inputs: {active_force: {type: constant, value: 2.0}}\n"
                       "initial: {position: 0.0, velocity: 0.0}\n"
                       "simulation: {t_end: 1.2, output_step: 0, rtol: 1e-10}\n";
    stsl_result *r = run_yaml(yaml);
    const stsl_summary *s = stsl_result_summary(r);
    assert_int_equal(stsl_summary_events(s, "impact"), 2);
    assert_close(s->max_abs[col_of(s, "v")], 1.0, 1e-8);
    assert_close(s->max_abs[col_of(s, "x")], 0.25, 1e-12);
    /* ... and it is the event's own value, bit for bit. */
    double v_before = stsl_result_event_value(r, 0, "v", 0);
    assert_true(s->max_abs[col_of(s, "v")] == fabs(v_before));
    stsl_result_free(r);
}

/* stsl_run's summary (which keeps the output grid: the other columns'
 * max_abs are over its samples): max_abs of x and v, the solver's exact
 * extrema, are the same, bit for bit, with output_step 1e-3 and 0, and so
 * is everything else that does not come from the grid. */
static void test_run_summary_without_samples(void **state)
{
    (void)state;
    stsl_err err = {0};
    stsl_cfg *a = stsl_cfg_load(STSL_SOURCE_DIR "/examples/janecek_chirp.yaml", &err);
    assert_non_null(a);
    stsl_cfg *b = stsl_cfg_clone(a, &err);
    assert_int_equal(stsl_cfg_set(a, "simulation.output_step", "1e-3", &err), STSL_RC_OK);
    assert_int_equal(stsl_cfg_set(b, "simulation.output_step", "0", &err), STSL_RC_OK);
    stsl_summary sa, sb;
    assert_int_equal(stsl_run(a, STSL_OUTPUT_NONE, NULL, &sa, &err), STSL_RC_OK);
    assert_int_equal(stsl_run(b, STSL_OUTPUT_NONE, NULL, &sb, &err), STSL_RC_OK);
    for (int i = 0; i < sa.n_cols; i++) {
        int exact = !strcmp(sa.col_names[i], "x") || !strcmp(sa.col_names[i], "v");
        if (!exact) sa.max_abs[i] = sb.max_abs[i] = 0.0; /* the grid's */
    }
    sa.wall_seconds = sb.wall_seconds = 0.0;
    assert_memory_equal(&sa, &sb, sizeof sa);
    stsl_cfg_free(a);
    stsl_cfg_free(b);
}

/* Which studies' runs drop their output grid (stsl_api_no_grid): an
 * event-driven run, whose study row takes nothing from the grid; not a
 * fixed-step scheme, whose output_step is the stride of its own samples
 * (its summary is over them). */
static void test_no_grid_rule(void **state)
{
    (void)state;
    stsl_err e = {0};
    stsl_cfg *cfg = stsl_cfg_parse("element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
                                   "friction: {law: coulomb, dynamic: 2.0}\n"
                                   "initial: {position: 0.1}\n"
                                   "simulation: {t_end: 1.0, output_step: 1e-3}\n",
                                   ".", &e);
    assert_non_null(cfg);
    stsl_hsolver_opts sim = cfg->c.sim;
    stsl_api_no_grid(&cfg->c, &sim);
    assert_true(sim.output_step == 0.0 && sim.n_output_times == 0);
    const char *fixed[] = {"simulation.scheme=karnopp", "simulation.step=1e-4"};
    if (stsl_cfg_set_all(cfg, fixed, 2, &e)) fail_msg("%s", e.message);
    sim = cfg->c.sim;
    stsl_api_no_grid(&cfg->c, &sim);
    assert_true(sim.output_step == 1e-3);
    stsl_cfg_free(cfg);
}

/* A summary-only study of the Janecek example with output_step 1e-3 and
 * the same with 0: every summary column equal to the last bit (but the
 * wall time). */
static void test_study_without_samples(void **state)
{
    (void)state;
    char study[512], h5[2][512], base[512];
    const char *steps[2] = {"1e-3", "0"};
    for (int k = 0; k < 2; k++) {
        snprintf(base, sizeof base, "%s/base%d.yaml", g_dir, k);
        stsl_err e = {0};
        stsl_cfg *cfg = stsl_cfg_load(STSL_SOURCE_DIR "/examples/janecek_chirp.yaml", &e);
        assert_non_null(cfg);
        assert_int_equal(stsl_cfg_set(cfg, "simulation.output_step", steps[k], &e), STSL_RC_OK);
        assert_int_equal(stsl_cfg_write(cfg, base, &e), STSL_RC_OK);
        stsl_cfg_free(cfg);
        char text[1024];
        snprintf(text, sizeof text,
                 "base: %s\nvary:\n  friction.dynamic: {linspace: [10, 25, 4]}\n", base);
        snprintf(study, sizeof study, "%s/study%d.yaml", g_dir, k);
        assert_int_equal(tu_write_file(study, text), 0);
        snprintf(h5[k], sizeof h5[k], "%s/study%d.h5", g_dir, k);
        assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' -q", study, h5[k]), 0);
    }
    stsl_study_summary sa;
    stsl_error err = {0};
    assert_int_equal(stsl_study_h5_summarise(h5[0], &sa, &err), STSL_OK);
    assert_int_equal(sa.n_done, 4);
    for (int j = 0; j < sa.n_cols; j++) {
        if (!strcmp(sa.cols[j].name, "wall_seconds")) continue;
        double *x = NULL, *y = NULL;
        long nx = 0, ny = 0;
        assert_int_equal(stsl_study_h5_read_column(h5[0], sa.cols[j].name, &x, &nx, &err), 0);
        assert_int_equal(stsl_study_h5_read_column(h5[1], sa.cols[j].name, &y, &ny, &err), 0);
        assert_int_equal(nx, ny);
        if (memcmp(x, y, (size_t)nx * sizeof *x) != 0) fail_msg("%s differs", sa.cols[j].name);
        free(x);
        free(y);
    }
}

int main(void)
{
    tu_mkdtemp(g_dir, sizeof g_dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_free_oscillation),
        cmocka_unit_test(test_system_oscillation),
        cmocka_unit_test(test_coulomb_peak),
        cmocka_unit_test(test_impact),
        cmocka_unit_test(test_run_summary_without_samples),
        cmocka_unit_test(test_no_grid_rule),
        cmocka_unit_test(test_study_without_samples),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
