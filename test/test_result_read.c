/* test_result_read.c - stsl_result_read (include/stickslip.h): a result
 * file read back is the stsl_result of the run in memory to the last bit
 * (samples, events before and after, names, units, summary), also when an
 * event falls on a grid sample (three rows at one instant), what a
 * fixed-step run's file lacks is NaN, and every kind of wrong file is
 * refused with a message naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "include/stickslip.h"
#include "test/testutil.h"

#define EX(name) STSL_SOURCE_DIR "/examples/" name

/* A Coulomb element stuck under a spring until a force step at t = 1, which
 * is also the 100th grid sample (100 * 0.01 is 1 exactly in binary): the
 * file has the grid row, then the event's two rows at t = 1.  A step to 3
 * breaks the element away (STUCK -> SLIP_POS); a step to 1.2, below the
 * static 1.5, keeps it stuck (STUCK -> STUCK): then all three rows have
 * one mode and only their order tells the event's rows (friction 0.5 just
 * before, 1.2 after) from the grid's. */
#define STEP_YAML(after)                                                                           \
    "element: {mass: 1.0, spring: {stiffness: 100.0, free_position: 0.0}}\n"                       \
    "friction: {law: coulomb, dynamic: 1.0, static: 1.5}\n"                                        \
    "inputs: {active_force: {type: step, time: 1.0, before: 0.5, after: " after "}}\n"             \
    "initial: {position: 0.0, velocity: 0.0}\n"                                                    \
    "simulation: {t_end: 2.0, output_step: 0.01}\n"

static int same_double(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static void assert_same_columns(const stsl_result *a, const stsl_result *b, const char *name)
{
    long n = stsl_result_n_samples(a);
    const double *ca = stsl_result_column(a, name), *cb = stsl_result_column(b, name);
    assert_non_null(ca);
    assert_non_null(cb);
    if (memcmp(ca, cb, sizeof *ca * (size_t)n) != 0) fail_msg("column %s differs", name);
}

/* Everything but wall_seconds (a run's own clock) and dissipated_energy
 * (not in the file: NaN there). */
static void assert_same_summary(const stsl_summary *a, const stsl_summary *b)
{
    assert_int_equal(a->complete, b->complete);
    assert_string_equal(a->message, b->message);
    assert_true(same_double(a->t_reached, b->t_reached));
    assert_int_equal(a->n_cols, b->n_cols);
    for (int i = 0; i < a->n_cols; i++) {
        assert_string_equal(a->col_names[i], b->col_names[i]);
        assert_string_equal(a->col_units[i], b->col_units[i]);
        assert_true(same_double(a->final[i], b->final[i]));
        /* The run's max_abs of x and v are exact extrema (found between
         * the samples); the file's summary has its samples'.  These lie on
         * the same dense output: never above the extremum but by the
         * rounding of two evaluations of it (4 ulps). */
        const char *c = a->col_names[i]; /* x, v, or a system's x[body], v[body] */
        int exact = (c[0] == 'x' || c[0] == 'v') && (c[1] == '\0' || c[1] == '[');
        if (exact && a->max_abs[i] != b->max_abs[i])
            assert_true(b->max_abs[i] <= a->max_abs[i] * (1.0 + 4.0 * DBL_EPSILON));
        else
            assert_true(same_double(a->max_abs[i], b->max_abs[i]));
    }
    assert_string_equal(a->time_units, b->time_units);
    assert_string_equal(a->energy_units, b->energy_units);
    assert_string_equal(a->final_mode, b->final_mode);
    assert_int_equal(a->n_kinds, b->n_kinds);
    for (int k = 0; k < a->n_kinds; k++) {
        assert_string_equal(a->kind_names[k], b->kind_names[k]);
        assert_int_equal(a->events[k], b->events[k]);
        assert_true(same_double(a->first_event_time[k], b->first_event_time[k]));
        assert_true(same_double(a->last_event_time[k], b->last_event_time[k]));
    }
    assert_int_equal(a->n_modes, b->n_modes);
    for (int m = 0; m < a->n_modes; m++) {
        assert_string_equal(a->mode_names[m], b->mode_names[m]);
        assert_true(same_double(a->mode_time[m], b->mode_time[m]));
    }
    assert_int_equal(a->n_events, b->n_events);
    assert_int_equal(a->steps, b->steps);
    assert_int_equal(a->rhs_evals, b->rhs_evals);
    assert_int_equal(a->guard_evals, b->guard_evals);
    assert_int_equal(a->segments, b->segments);
    assert_int_equal(a->jac_evals, b->jac_evals);
    assert_true(isnan(b->dissipated_energy));
}

/* The run `a` and the file's `b`, equal to the last bit.  With `all_values`
 * 0 (fixed-step runs) only the event values /events holds are compared and
 * the others must be NaN. */
static void assert_same_result(const stsl_result *a, const stsl_result *b, int all_values)
{
    assert_int_equal(stsl_result_n_samples(a), stsl_result_n_samples(b));
    const stsl_summary *sa = stsl_result_summary(a), *sb = stsl_result_summary(b);
    assert_same_summary(sa, sb);
    assert_same_columns(a, b, "t");
    assert_same_columns(a, b, "mode");
    for (int c = 0; c < sa->n_cols; c++)
        assert_same_columns(a, b, sa->col_names[c]);
    assert_int_equal(stsl_result_n_events(a), stsl_result_n_events(b));
    for (long i = 0; i < stsl_result_n_events(a); i++) {
        stsl_event ea, eb;
        assert_int_equal(stsl_result_event(a, i, &ea, NULL), STSL_RC_OK);
        assert_int_equal(stsl_result_event(b, i, &eb, NULL), STSL_RC_OK);
        assert_true(same_double(ea.t, eb.t));
        assert_string_equal(ea.kind, eb.kind);
        assert_string_equal(ea.mode_before, eb.mode_before);
        assert_string_equal(ea.mode_after, eb.mode_after);
        for (int c = 0; c < sa->n_cols; c++)
            for (int after = 0; after < 2; after++) {
                const char *name = sa->col_names[c];
                double va = stsl_result_event_value(a, i, name, after);
                double vb = stsl_result_event_value(b, i, name, after);
                int in_file = (!after && (!strcmp(name, "x") || !strcmp(name, "v"))) ||
                              (after && (!strcmp(name, "v") || !strcmp(name, "net_force") ||
                                         !strcmp(name, "friction")));
                if (all_values || in_file) {
                    if (!same_double(va, vb))
                        fail_msg("event %ld %s %s: %.17g != %.17g", i, name,
                                 after ? "after" : "before", va, vb);
                } else {
                    assert_true(isnan(vb));
                }
            }
    }
}

static stsl_result *run_cfg(const stsl_cfg *cfg)
{
    stsl_result *r = NULL;
    stsl_err err;
    if (stsl_run_result(cfg, &r, &err) != STSL_RC_OK) fail_msg("%s", err.message);
    return r;
}

static stsl_result *read_ok(const char *path, stsl_cfg **cfg)
{
    stsl_result *r = NULL;
    stsl_err err;
    if (stsl_result_read(path, &r, cfg, &err) != STSL_RC_OK) fail_msg("%s", err.message);
    assert_non_null(r);
    return r;
}

static void test_cli_file_is_the_run(void **state)
{
    (void)state;
    char dir[256], path[320], out[4096];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/janecek.h5", dir);
    assert_int_equal(
        tu_cli(out, sizeof out, "run %s -o %s --quiet", EX("janecek_chirp.yaml"), path), 0);
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_load(EX("janecek_chirp.yaml"), &err);
    assert_non_null(cfg);
    stsl_result *ran = run_cfg(cfg);
    stsl_cfg *back_cfg = NULL;
    stsl_result *back = read_ok(path, &back_cfg);
    assert_true(stsl_result_n_events(back) > 10);
    assert_same_result(ran, back, 1);
    /* The file's configuration is the run's. */
    char *y1 = stsl_cfg_to_yaml(cfg, NULL), *y2 = stsl_cfg_to_yaml(back_cfg, NULL);
    assert_string_equal(y1, y2);
    stsl_free(y1);
    stsl_free(y2);
    /* The statistics by name work on a result read from a file. */
    double steps = 0;
    assert_int_equal(stsl_result_stat(back, "steps", &steps, NULL), STSL_RC_OK);
    assert_true(steps == (double)stsl_result_summary(ran)->steps);
    stsl_result_free(ran);
    stsl_result_free(back);
    stsl_cfg_free(cfg);
    stsl_cfg_free(back_cfg);
}

/* An event on a grid sample, and a file written by stsl_run itself. */
static void check_event_on_a_grid_sample(const char *yaml, const char *mode_after)
{
    char dir[256], path[320];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/step.h5", dir);
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_parse(yaml, NULL, &err);
    assert_non_null(cfg);
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_HDF5, path, NULL, &err), STSL_RC_OK);
    stsl_result *ran = run_cfg(cfg);
    stsl_result *back = read_ok(path, NULL);
    /* The case itself: three rows at t = 1, the first of them the grid's. */
    const double *t = stsl_result_column(back, "t");
    long at_one = 0;
    for (long i = 0; i < stsl_result_n_samples(back); i++)
        at_one += t[i] == 1.0;
    assert_int_equal(at_one, 3);
    stsl_event ev;
    assert_int_equal(stsl_result_event(back, 0, &ev, NULL), STSL_RC_OK);
    assert_true(ev.t == 1.0);
    assert_string_equal(ev.mode_before, "STUCK");
    assert_string_equal(ev.mode_after, mode_after);
    assert_same_result(ran, back, 1);
    stsl_result_free(ran);
    stsl_result_free(back);
    stsl_cfg_free(cfg);
}

static void test_event_on_a_grid_sample(void **state)
{
    (void)state;
    check_event_on_a_grid_sample(STEP_YAML("3.0"), "SLIP_POS");
    check_event_on_a_grid_sample(STEP_YAML("1.2"), "STUCK");
}

/* A fixed-step run has no rows at its events: what /events holds is read,
 * the rest is NaN, as the header says. */
static void test_fixed_step_file(void **state)
{
    (void)state;
    char dir[256], path[320];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/karnopp.h5", dir);
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_parse(STEP_YAML("3.0"), NULL, &err);
    assert_non_null(cfg);
    const char *sets[] = {"simulation.scheme=karnopp", "simulation.step=0.001"};
    assert_int_equal(stsl_cfg_set_all(cfg, sets, 2, &err), STSL_RC_OK);
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_HDF5, path, NULL, &err), STSL_RC_OK);
    stsl_result *ran = run_cfg(cfg);
    stsl_result *back = read_ok(path, NULL);
    assert_true(stsl_result_n_events(back) > 0);
    assert_same_result(ran, back, 0);
    stsl_result_free(ran);
    stsl_result_free(back);
    stsl_cfg_free(cfg);
}

/* stsl_result_read of `path` fails with STSL_RC_INPUT, out NULL, and a
 * message starting "PATH: " and containing `what`. */
static void assert_refused(const char *path, const char *what)
{
    stsl_result *r = (stsl_result *)&r; /* not NULL: must be cleared */
    stsl_cfg *cfg = (stsl_cfg *)&cfg;
    stsl_err err;
    assert_int_equal(stsl_result_read(path, &r, &cfg, &err), STSL_RC_INPUT);
    assert_int_equal(err.code, STSL_RC_INPUT);
    assert_null(r);
    assert_null(cfg);
    char prefix[400];
    snprintf(prefix, sizeof prefix, "%s: ", path);
    if (strncmp(err.message, prefix, strlen(prefix)) != 0 || !strstr(err.message, what))
        fail_msg("message '%s' lacks '%s' or '%s'", err.message, prefix, what);
}

static void test_wrong_files_refused(void **state)
{
    (void)state;
    char dir[256], path[320], out[4096];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/missing.h5", dir);
    assert_refused(path, "cannot open: No such file or directory");

    snprintf(path, sizeof path, "%s/text.h5", dir);
    assert_int_equal(tu_write_file(path, "not hdf5\n"), 0);
    assert_refused(path, "not an HDF5 file");

    snprintf(path, sizeof path, "%s/other.h5", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    H5Fclose(f);
    assert_refused(path, "not a stickslip result");

    char study[320];
    snprintf(study, sizeof study, "%s/study.yaml", dir);
    snprintf(path, sizeof path, "%s/study.h5", dir);
    char yaml[1024];
    /* The base as one flow mapping. */
    snprintf(yaml, sizeof yaml,
             "base: {element: {mass: 1.0, spring: {stiffness: 100.0}}, friction: {law: coulomb, "
             "dynamic: 1.0}, simulation: {t_end: 0.1}}\nvary:\n  friction.dynamic: {values: [0.5, "
             "1.0]}\n");
    assert_int_equal(tu_write_file(study, yaml), 0);
    int rc = tu_cli(out, sizeof out, "sweep %s -o %s --quiet", study, path);
    if (rc != 0) fail_msg("sweep failed (%d): %s", rc, out);
    assert_refused(path, "a study file (stickslip sweep), not the result of one run");

    stsl_err err;
    stsl_result *r = NULL;
    assert_int_equal(stsl_result_read(NULL, &r, NULL, &err), STSL_RC_INPUT);
    assert_string_equal(err.message, "stsl_result_read: path is NULL");
}

/* A MAT result (stsl_run with STSL_OUTPUT_MAT, and the command's -o
 * X.mat) reads back as the run in memory to the last bit, as the HDF5
 * file does: the element's and a system's (GROUP[MEMBER] columns, events'
 * subjects). */
static void check_mat_is_the_run(const char *example)
{
    char dir[256], path[320], cli_path[320], out[4096];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/api.mat", dir);
    snprintf(cli_path, sizeof cli_path, "%s/cli.mat", dir);
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_load(example, &err);
    assert_non_null(cfg);
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_MAT, path, NULL, &err), STSL_RC_OK);
    assert_int_equal(tu_cli(out, sizeof out, "run %s -o %s --quiet", example, cli_path), 0);
    stsl_result *ran = run_cfg(cfg);
    for (int k = 0; k < 2; k++) {
        stsl_cfg *back_cfg = NULL;
        stsl_result *back = read_ok(k ? cli_path : path, &back_cfg);
        assert_true(stsl_result_n_events(back) > 5);
        assert_same_result(ran, back, 1);
        assert_int_equal(stsl_result_n_columns(back), stsl_result_n_columns(ran));
        for (int c = 0; c < stsl_result_n_columns(ran); c++) {
            const char *name = stsl_result_column_name(ran, c);
            assert_string_equal(stsl_result_column_name(back, c), name);
            assert_same_columns(ran, back, name);
        }
        for (long i = 0; i < stsl_result_n_events(ran); i++) {
            const char *sa = stsl_result_event_subject(ran, i);
            const char *sb = stsl_result_event_subject(back, i);
            assert_true((!sa && !sb) || (sa && sb && !strcmp(sa, sb)));
        }
        char *y1 = stsl_cfg_to_yaml(cfg, NULL), *y2 = stsl_cfg_to_yaml(back_cfg, NULL);
        assert_string_equal(y1, y2);
        stsl_free(y1);
        stsl_free(y2);
        stsl_result_free(back);
        stsl_cfg_free(back_cfg);
    }
    stsl_result_free(ran);
    stsl_cfg_free(cfg);
}

static void test_mat_file_is_the_run(void **state)
{
    (void)state;
    check_mat_is_the_run(EX("janecek_chirp.yaml"));
    check_mat_is_the_run(EX("servo_backlash.yaml"));
}

/* stsl_result_events: what the per-event accessors give, for every event
 * at once; a column the result lacks is NaN; bad arguments refused. */
static void test_events_in_bulk(void **state)
{
    (void)state;
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_load(EX("servo_backlash.yaml"), &err);
    assert_non_null(cfg);
    stsl_result *r = run_cfg(cfg);
    long n = stsl_result_n_events(r);
    assert_true(n > 10);
    const char *names[3] = {"x[load]", "friction[contacts.1]", "no_such_column"};
    double *t = malloc(sizeof *t * (size_t)n), *v = malloc(sizeof *v * 6 * (size_t)n);
    int *ints = malloc(sizeof *ints * 4 * (size_t)n);
    assert_int_equal(
        stsl_result_events(r, t, ints, ints + n, ints + 2 * n, ints + 3 * n, names, 3, v, &err),
        STSL_RC_OK);
    const stsl_summary *s = stsl_result_summary(r);
    for (long i = 0; i < n; i++) {
        stsl_event e;
        assert_int_equal(stsl_result_event(r, i, &e, NULL), STSL_RC_OK);
        assert_true(same_double(t[i], e.t));
        assert_string_equal(s->kind_names[ints[i]], e.kind);
        assert_string_equal(ints[n + i] < 0 ? "none" : s->mode_names[ints[n + i]], e.mode_before);
        assert_string_equal(ints[2 * n + i] < 0 ? "none" : s->mode_names[ints[2 * n + i]],
                            e.mode_after);
        const char *subject = stsl_result_event_subject(r, i);
        assert_int_equal(ints[3 * n + i] == 0, subject == NULL);
        for (int k = 0; k < 3; k++)
            for (int after = 0; after < 2; after++)
                assert_true(same_double(v[(size_t)(2 * k + after) * (size_t)n + (size_t)i],
                                        stsl_result_event_value(r, i, names[k], after)));
        assert_true(isnan(v[4 * (size_t)n + (size_t)i]));
    }
    assert_int_equal(stsl_result_events(NULL, t, NULL, NULL, NULL, NULL, NULL, 0, NULL, &err),
                     STSL_RC_INPUT);
    assert_int_equal(stsl_result_events(r, t, NULL, NULL, NULL, NULL, NULL, 1, v, &err),
                     STSL_RC_INPUT);
    assert_int_equal(stsl_result_events(r, t, NULL, NULL, NULL, NULL, names, -1, v, &err),
                     STSL_RC_INPUT);
    free(t);
    free(v);
    free(ints);
    stsl_result_free(r);
    stsl_cfg_free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_file_is_the_run), cmocka_unit_test(test_event_on_a_grid_sample),
        cmocka_unit_test(test_fixed_step_file),     cmocka_unit_test(test_wrong_files_refused),
        cmocka_unit_test(test_mat_file_is_the_run), cmocka_unit_test(test_events_in_bulk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
