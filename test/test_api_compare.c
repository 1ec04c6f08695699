/* test_api_compare.c - stsl_compare and stsl_cfg_set_cancel
 * (include/stickslip.h): the metrics equal those `stickslip compare` writes
 * for the same candidate (one code, api/compare.c, the same doubles), bad
 * arrays are refused with messages naming the sample, and a set cancel
 * flag stops a run with STSL_RC_CANCELLED and keeps what it computed. */
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

static stsl_cfg *janecek(void)
{
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_load(EX("janecek_chirp.yaml"), &err);
    if (!cfg) fail_msg("%s", err.message);
    return cfg;
}

/* A Karnopp run of the Janecek case: a candidate with real errors. */
static stsl_result *karnopp(void)
{
    stsl_cfg *cfg = janecek();
    stsl_err err;
    const char *sets[] = {"simulation.scheme=karnopp", "simulation.step=1e-4"};
    assert_int_equal(stsl_cfg_set_all(cfg, sets, 2, &err), STSL_RC_OK);
    stsl_result *r = NULL;
    if (stsl_run_result(cfg, &r, &err)) fail_msg("%s", err.message);
    stsl_cfg_free(cfg);
    return r;
}

static void write_csv(const char *path, const stsl_result *r)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    const double *t = stsl_result_column(r, "t"), *x = stsl_result_column(r, "x"),
                 *v = stsl_result_column(r, "v");
    fprintf(f, "t,x,v\n");
    for (long i = 0; i < stsl_result_n_samples(r); i++) /* %.17g: every double exactly */
        fprintf(f, "%.17g,%.17g,%.17g\n", t[i], x[i], v[i]);
    assert_int_equal(fclose(f), 0);
}

static void test_metrics_equal_the_command(void **state)
{
    (void)state;
    char dir[256], ref[320], csv[320], json[320], out[8192];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(ref, sizeof ref, "%s/ref.h5", dir);
    snprintf(csv, sizeof csv, "%s/cand.csv", dir);
    snprintf(json, sizeof json, "%s/report.json", dir);
    assert_int_equal(tu_cli(out, sizeof out, "run %s -o %s --quiet", EX("janecek_chirp.yaml"), ref),
                     0);
    stsl_result *cand = karnopp();
    write_csv(csv, cand);
    assert_int_equal(tu_cli(out, sizeof out, "compare %s %s -o %s", ref, csv, json), 0);
    FILE *f = fopen(json, "r");
    assert_non_null(f);
    size_t len = fread(out, 1, sizeof out - 1, f);
    out[len] = '\0';
    fclose(f);

    stsl_cfg *cfg = janecek();
    stsl_compare_metrics m;
    stsl_err err;
    long n = stsl_result_n_samples(cand);
    if (stsl_compare(cfg, stsl_result_column(cand, "t"), stsl_result_column(cand, "x"),
                     stsl_result_column(cand, "v"), NULL, n, -1, NAN, &m, &err))
        fail_msg("%s", err.message);
    /* Exact: the JSON's %.17g reads back to the same double. */
    const struct {
        const char *key;
        double v;
    } nums[] = {{"n_points", (double)m.n_points},
                {"max_abs_error_x", m.max_abs_error_x},
                {"rms_error_v", m.rms_error_v},
                {"final_error_x", m.final_error_x},
                {"stuck_iou", m.stuck_iou},
                {"stuck_velocity", m.stuck_velocity},
                {"events_matched", (double)m.events_matched},
                {"events_missed", (double)m.events_missed},
                {"max_event_time_error", m.max_event_time_error},
                {"event_window", m.event_window},
                {"dissipated_energy_candidate", m.dissipated_energy_candidate},
                {"dissipated_energy_difference", m.dissipated_energy_difference}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (!(tu_json_value(out, nums[i].key) == nums[i].v))
            fail_msg("%s: %.17g != %.17g", nums[i].key, nums[i].v, tu_json_value(out, nums[i].key));
    assert_true(m.events_matched > 0 && m.max_abs_error_x > 0);
    assert_string_equal(m.energy_method, "energy balance with the reference model's F_n");
    assert_string_equal(m.x_units, "m");
    assert_string_equal(m.energy_units, "J");
    stsl_cfg_free(cfg);
    stsl_result_free(cand);
}

static void assert_refused(const double *t, const double *x, long n, const char *message)
{
    stsl_cfg *cfg = janecek();
    stsl_compare_metrics m;
    stsl_err err;
    assert_int_equal(stsl_compare(cfg, t, x, x, NULL, n, -1, -1, &m, &err), STSL_RC_INPUT);
    assert_string_equal(err.message, message);
    stsl_cfg_free(cfg);
}

static void test_bad_arrays_refused(void **state)
{
    (void)state;
    const double t[] = {0.0, 0.5, 0.25, 1.0}, x[] = {0, 0, 0, 0}, xn[] = {0, NAN, 0, 0};
    const double t_ok[] = {0.0, 0.25, 0.5, 1.0}, late[] = {20, 21, 22, 23};
    assert_refused(t, x, 4, "candidate: t[2] = 0.25 goes back from 0.5 (time must increase)");
    assert_refused(t_ok, xn, 4, "candidate: x[1] is not finite (nan)");
    assert_refused(late, x, 4,
                   "candidate: fewer than two distinct times within the reference's [0, 9.5] s");
    stsl_err err;
    stsl_compare_metrics m;
    assert_int_equal(stsl_compare(NULL, t_ok, x, x, NULL, 4, -1, -1, &m, &err), STSL_RC_INPUT);
    assert_string_equal(err.message, "stsl_compare: ref and out must not be NULL");
}

static void test_cancel_flag_stops_a_run(void **state)
{
    (void)state;
    stsl_cfg *cfg = janecek();
    volatile int flag = 1;
    stsl_cfg_set_cancel(cfg, &flag);
    stsl_cfg *clone = stsl_cfg_clone(cfg, NULL);
    /* A mapping value: the whole configuration is loaded again. */
    const char *chirp = "{type: janecek_chirp, amplitude: 0.05, f_max: 1.5, t_max: 9.5}";
    assert_int_equal(stsl_cfg_set(clone, "inputs.base_motion", chirp, NULL), STSL_RC_OK);
    stsl_result *r = NULL;
    stsl_err err;
    /* The clone took the flag along, and setting a key kept it. */
    assert_int_equal(stsl_run_result(clone, &r, &err), STSL_RC_CANCELLED);
    assert_non_null(r);
    const stsl_summary *s = stsl_result_summary(r);
    assert_int_equal(s->complete, 0);
    assert_string_equal(s->message, err.message);
    assert_true(strncmp(err.message, "run cancelled at t = 0", 22) == 0);
    stsl_result_free(r);
    /* Cleared, the same configuration runs to its end. */
    stsl_cfg_set_cancel(cfg, NULL);
    stsl_summary sum;
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_NONE, NULL, &sum, &err), STSL_RC_OK);
    assert_int_equal(sum.complete, 1);
    stsl_cfg_free(clone);
    stsl_cfg_free(cfg);
}

/* A system's MAT result is a candidate as its HDF5 twin is: the same run
 * written both ways (the MAT file holds the same doubles) gives the same
 * report, bit for bit, and the re-run at the candidate's own times gives
 * every error 0 (servo_backlash: bodies, contacts and a stop). */
static void test_system_mat_candidate(void **state)
{
    (void)state;
    char dir[256], h5[512], mat[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/s.h5", dir);
    snprintf(mat, sizeof mat, "%s/s.mat", dir);
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_load(EX("servo_backlash.yaml"), &err);
    if (!cfg) fail_msg("%s", err.message);
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_HDF5, h5, NULL, &err), STSL_RC_OK);
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_MAT, mat, NULL, &err), STSL_RC_OK);
    stsl_compare_system_report a, b;
    assert_int_equal(stsl_compare_system(cfg, h5, -1, &a, &err), STSL_RC_OK);
    if (stsl_compare_system(cfg, mat, -1, &b, &err)) fail_msg("%s", err.message);
    assert_int_equal(a.n_points, b.n_points);
    assert_int_equal(a.n_bodies, b.n_bodies);
    assert_int_equal(a.n_contacts, b.n_contacts);
    assert_int_equal(a.n_stops, b.n_stops);
    assert_true(a.n_bodies == 3 && a.n_contacts > 0 && a.n_stops > 0);
    for (int i = 0; i < a.n_bodies; i++) {
        assert_string_equal(a.bodies[i].name, b.bodies[i].name);
        assert_true(b.bodies[i].max_abs_error_x == 0.0 && b.bodies[i].max_abs_error_v == 0.0);
    }
    for (int i = 0; i < a.n_contacts; i++) {
        const stsl_compare_contact *p = &a.contacts[i], *q = &b.contacts[i];
        assert_string_equal(p->name, q->name);
        assert_true(q->max_abs_error_friction == 0.0);
        assert_true(p->stuck_time_candidate == q->stuck_time_candidate);
        assert_true(q->stuck_time_candidate == q->stuck_time_reference);
        assert_int_equal(p->events.events_matched, q->events.events_matched);
        assert_int_equal(q->events.events_missed + q->events.events_spurious, 0);
    }
    for (int i = 0; i < a.n_stops; i++) {
        assert_int_equal(a.stops[i].events.events_matched, b.stops[i].events.events_matched);
        assert_int_equal(b.stops[i].events.events_missed + b.stops[i].events.events_spurious, 0);
    }
    stsl_compare_system_free(&a);
    stsl_compare_system_free(&b);
    /* Cut in half, it is refused by the structure checks every MAT
     * candidate passes (matio would read what is there). */
    char half[600], cmd[2000];
    snprintf(half, sizeof half, "%s/half.mat", dir);
    snprintf(cmd, sizeof cmd, "head -c $(($(stat -c %%s %s) / 2)) %s > %s", mat, mat, half);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(stsl_compare_system(cfg, half, -1, &b, &err), STSL_RC_INPUT);
    assert_non_null(strstr(err.message, "half.mat: truncated or damaged"));
    stsl_cfg_free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics_equal_the_command),
        cmocka_unit_test(test_bad_arrays_refused),
        cmocka_unit_test(test_cancel_flag_stops_a_run),
        cmocka_unit_test(test_system_mat_candidate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
