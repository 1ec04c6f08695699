/* The fixed-step schemes (run/fixed_step) and `stickslip converge`:
 * convergence orders against the exact reference, the layout and events of
 * scheme results, end stops, failures, and the command's input errors.
 *
 * Orders are fitted slopes (STYLE.md rule 7, ">= p - 0.5"), here with a
 * band p +- 0.5 both ways so that an accidentally more accurate scheme (a
 * test that no longer measures what it claims) fails too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/config/config.h"
#include "io/result/h5_read.h"
#include "io/result/mem_sink.h"
#include "models/element_params.h"
#include "run/fixed_step.h"
#include "run/run.h"
#include "test/testutil.h"

static char g_dir[256];
static char g_out[1 << 16];

#define EX(name) STSL_SOURCE_DIR "/examples/" name

static int load(const char *path, const char *const *sets, int n, stsl_config *cfg)
{
    stsl_error err = {0};
    int rc = stsl_config_load(path, sets, n, cfg, &err);
    if (rc) print_error("config: %s\n", err.msg);
    return rc;
}

static const stsl_mem_result *run_file(const char *path, const char *const *sets, int n,
                                       stsl_sink *sink)
{
    stsl_config cfg;
    assert_int_equal(load(path, sets, n, &cfg), STSL_OK);
    const stsl_mem_result *r = tu_run_config(&cfg, sink);
    stsl_config_free(&cfg);
    return r;
}

#define count_kind tu_count_kind

/* ---- converge through the CLI -------------------------------------------- */

typedef struct conv_row {
    double h, max_x, rms_x, max_v, final_x, wall;
    long rhs, events, missed, spurious;
    double order;
} conv_row;

/* Run `converge` and read its CSV back; returns the number of rows. */
static int converge(const char *config, const char *scheme, const char *steps, conv_row *rows,
                    int max_rows)
{
    char args[2048], csv[512];
    snprintf(csv, sizeof csv, "%s/conv_%s.csv", g_dir, scheme);
    snprintf(args, sizeof args, "converge '%s' --scheme %s --steps %s -o '%s'", config, scheme,
             steps, csv);
    int code = tu_run_cli(args, g_out, sizeof g_out);
    if (code != 0) print_error("%s\n", g_out);
    assert_int_equal(code, 0);
    assert_non_null(strstr(g_out, "fitted order"));
    assert_non_null(strstr(g_out, "reference cost"));
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_non_null(strstr(line, "step [s],max_abs_error_x [m]"));
    int n = 0;
    while (n < max_rows && fgets(line, sizeof line, f)) {
        conv_row *r = &rows[n];
        int got = sscanf(line, "%lf,%lf,%lf,%lf,%lf,%lf,%ld,%ld,%ld,%ld,%lf", &r->h, &r->max_x,
                         &r->rms_x, &r->max_v, &r->final_x, &r->wall, &r->rhs, &r->events,
                         &r->missed, &r->spurious, &r->order);
        assert_int_equal(got, 11);
        n++;
    }
    fclose(f);
    return n;
}

/* RK4 on a smooth problem without stick (a spring-mass with 20-sim's purely
 * viscous law, omega_n = 10 rad/s) against a reference at rtol 1e-12: the
 * reference's error (~1e-12 relative) is far below RK4's at these steps
 * ((h omega)^4 / 120 ~ 5e-7 relative at h = 5e-3), so the slope measured is
 * the scheme's. */
static void test_rk4_order(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/viscous.yaml", g_dir);
    assert_int_equal(tu_write_file(path, "element: {mass: 1, spring: {stiffness: 100}}\n"
                                         "friction: {law: 20sim_v, d: 0.8}\n"
                                         "initial: {position: 0.1}\n"
                                         "simulation: {t_end: 2, rtol: 1e-12, atol: 1e-14}\n"),
                     0);
    conv_row rows[8];
    int n = converge(path, "smooth_rk4", "4e-2,2e-2,1e-2,5e-3", rows, 8);
    assert_int_equal(n, 4);
    print_message("smooth_rk4 on a damped oscillator: fitted order %.3f\n", rows[0].order);
    assert_true(rows[0].order >= 3.5 && rows[0].order <= 4.5);
    for (int i = 0; i < n; i++) /* four force evaluations per step, plus the initial one */
        assert_int_equal(rows[i].rhs, 4 * (long)llround(2.0 / rows[i].h) + 1);
}

/* Karnopp and the fixed-step hybrid scheme on Den Hartog: first order, the
 * late stick decision costs O(h) (fixed_step.c).  The error at dt = 1e-4
 * is printed to be quoted. */
static void check_first_order(const char *scheme)
{
    conv_row rows[8];
    int n = converge(EX("den_hartog.yaml"), scheme, "2e-3,1e-3,5e-4,2e-4,1e-4", rows, 8);
    assert_int_equal(n, 5);
    print_message("%s on Den Hartog: fitted order %.3f, max |x error| at dt = 1e-4: %.3g m\n",
                  scheme, rows[0].order, rows[4].max_x);
    assert_true(rows[0].order >= 0.5 && rows[0].order <= 1.5);
    /* At the finest step every event is found (4 reversals, 1 stick). */
    assert_int_equal(rows[4].missed, 0);
    assert_int_equal(rows[4].spurious, 0);
    /* The error is one step's worth of the motion: |v| <= 1 m/s, so 1e-4 m
     * at most, and not tiny either (it must be a measured error). */
    assert_true(rows[4].max_x < 1e-4 && rows[4].max_x > 1e-6);
}

/* The count after `label` in compare's table ("  events missed ...   3"). */
static long compare_count(const char *label)
{
    const char *p = strstr(g_out, label);
    assert_non_null(p);
    return strtol(p + strlen(label), NULL, 10);
}

/* converge and compare share one definition of a missed and a spurious
 * event (run/validation: same class, closest pairs first, within 5
 * median steps of the candidate): compare of the reference and a karnopp
 * result at one step gives converge's counts for that step.  The step is
 * coarse enough that both counts are nonzero (something to agree on). */
static void test_converge_compare_same_counts(void **state)
{
    (void)state;
    conv_row rows[4];
    int n = converge(EX("janecek_chirp.yaml"), "karnopp", "5e-3,1e-2", rows, 4);
    assert_int_equal(n, 2);
    assert_true(rows[0].h == 5e-3);
    assert_true(rows[0].missed > 0 && rows[0].spurious > 0);
    char ref[512], cand[512], args[2048];
    snprintf(ref, sizeof ref, "%s/jc_ref.h5", g_dir);
    snprintf(cand, sizeof cand, "%s/jc_karnopp.h5", g_dir);
    snprintf(args, sizeof args, "run '%s' -o '%s' -q", EX("janecek_chirp.yaml"), ref);
    assert_int_equal(tu_run_cli(args, g_out, sizeof g_out), 0);
    /* Every step point is written, as converge sees the scheme run. */
    snprintf(args, sizeof args,
             "run '%s' -o '%s' -q --set simulation.scheme=karnopp --set simulation.step=5e-3 "
             "--set simulation.output_step=0",
             EX("janecek_chirp.yaml"), cand);
    assert_int_equal(tu_run_cli(args, g_out, sizeof g_out), 0);
    snprintf(args, sizeof args, "compare '%s' '%s'", ref, cand);
    assert_int_equal(tu_run_cli(args, g_out, sizeof g_out), 0);
    assert_int_equal(compare_count("events missed (reference only)"), rows[0].missed);
    assert_int_equal(compare_count("events spurious (candidate only)"), rows[0].spurious);
}

static void test_karnopp_order(void **state)
{
    (void)state;
    check_first_order("karnopp");
}

static void test_hybrid_order(void **state)
{
    (void)state;
    check_first_order("fixed_step_hybrid");
}

/* ---- layout, modes, events ------------------------------------------------- */

/* The scheme's result file has the layout of the event-driven one, and its
 * /config names the scheme (running it again reproduces it). */
static void test_same_layout(void **state)
{
    (void)state;
    static const char *const schemes[] = {"karnopp", "fixed_step_hybrid", "smooth_rk4"};
    char ref[512], out[512], args[2048];
    stsl_h5_result a, b;
    stsl_error err = {0};
    snprintf(ref, sizeof ref, "%s/ref.h5", g_dir);
    snprintf(args, sizeof args, "run '%s' -o '%s' -q", EX("den_hartog.yaml"), ref);
    assert_int_equal(tu_run_cli(args, g_out, sizeof g_out), 0);
    assert_int_equal(stsl_h5_read(ref, &a, &err), STSL_OK);
    for (int i = 0; i < 3; i++) {
        snprintf(out, sizeof out, "%s/%s.h5", g_dir, schemes[i]);
        snprintf(args, sizeof args,
                 "run '%s' -o '%s' -q --set simulation.scheme=%s --set simulation.step=1e-3",
                 EX("den_hartog.yaml"), out, schemes[i]);
        int code = tu_run_cli(args, g_out, sizeof g_out);
        if (code) print_error("%s\n", g_out);
        assert_int_equal(code, 0);
        assert_int_equal(stsl_h5_read(out, &b, &err), STSL_OK);
        assert_true(b.complete);
        assert_string_equal(a.quantities, b.quantities);
        assert_string_equal(a.time_units, b.time_units);
        assert_string_equal(a.x_units, b.x_units);
        assert_string_equal(a.v_units, b.v_units);
        assert_string_equal(a.friction_units, b.friction_units);
        for (int m = 0; m < STSL_MAX_MODES; m++)
            assert_string_equal(a.mode_names[m], b.mode_names[m]);
        assert_int_equal(b.n_samples, 2001); /* every output_step = 1e-3 = step */
        char want[64];
        snprintf(want, sizeof want, "scheme: %s\n", schemes[i]);
        assert_non_null(strstr(b.config_yaml, want));
        assert_non_null(strstr(b.config_yaml, "step: 0.001"));
        /* /config loads back to the same scheme. */
        stsl_config c;
        assert_int_equal(stsl_config_load_string(b.config_yaml, "config", NULL, NULL, 0, &c, &err),
                         STSL_OK);
        assert_int_equal(c.scheme.kind, (stsl_scheme_kind)(i + 1));
        assert_true(c.scheme.step == 1e-3);
        stsl_config_free(&c);
        stsl_h5_result_free(&b);
    }
    stsl_h5_result_free(&a);
}

/* fixed_step_hybrid on Den Hartog: the reference's 4 reversals and 1
 * stick, each event within 3 steps of the exact time (one step of late
 * detection plus the accumulated O(h) phase error, which at 1e-4 stays
 * below a step), and the stuck interval in mode STUCK. */
static void test_hybrid_events(void **state)
{
    (void)state;
    const char *sets[] = {"simulation.scheme=fixed_step_hybrid", "simulation.step=1e-4"};
    stsl_sink rs = {0}, ss = {0};
    const stsl_mem_result *ref = run_file(EX("den_hartog.yaml"), NULL, 0, &rs);
    const stsl_mem_result *sch = run_file(EX("den_hartog.yaml"), sets, 2, &ss);
    assert_int_equal(ref->n_events, 5);
    assert_int_equal(sch->n_events, ref->n_events);
    assert_int_equal(count_kind(sch, STSL_EV_REVERSAL), 4);
    assert_int_equal(count_kind(sch, STSL_EV_STICK), 1);
    for (long i = 0; i < ref->n_events; i++) {
        assert_int_equal(sch->events[i].kind, ref->events[i].kind);
        assert_int_equal(sch->events[i].mode_before, ref->events[i].mode_before);
        assert_int_equal(sch->events[i].mode_after, ref->events[i].mode_after);
        assert_close(sch->events[i].t, ref->events[i].t, 3e-4);
    }
    /* Stuck from pi/2 s on at x = -0.005 (SPEC §3), v = 0 exactly. */
    double t_stick = sch->events[4].t;
    long stuck = 0;
    for (long i = 0; i < sch->n_samples; i++) {
        if (sch->t[i] < t_stick) continue;
        assert_int_equal(sch->mode[i], STSL_MODE_STUCK);
        assert_true(sch->cols[i * sch->n_cols + STSL_COL_V] == 0.0);
        assert_close(sch->cols[i * sch->n_cols + STSL_COL_X], -0.005, 1e-4);
        stuck++;
    }
    assert_true(stuck >= 428); /* 2 - pi/2 s sampled every output_step = 1e-3 s */
    assert_close(sch->stats.mode_time[STSL_MODE_STUCK], 2.0 - M_PI / 2, 3e-4);
    assert_int_equal(sch->stats.segments, 1);
    assert_int_equal(sch->stats.events, 5);
    assert_int_equal(sch->stats.steps, 20000);
    stsl_sink_free(&rs);
    stsl_sink_free(&ss);
}

/* Karnopp at 1e-4 on Den Hartog: the band catches every zero crossing
 * (h |a| = 1.5e-4 < 2 dv), so it finds the same events; its stick sets v = 0. */
static void test_karnopp_events(void **state)
{
    (void)state;
    const char *sets[] = {"simulation.scheme=karnopp", "simulation.step=1e-4"};
    stsl_sink ss = {0};
    const stsl_mem_result *sch = run_file(EX("den_hartog.yaml"), sets, 2, &ss);
    assert_int_equal(count_kind(sch, STSL_EV_REVERSAL), 4);
    assert_int_equal(count_kind(sch, STSL_EV_STICK), 1);
    const stsl_mem_event *st = &sch->events[sch->n_events - 1];
    assert_int_equal(st->kind, STSL_EV_STICK);
    assert_close(st->t, M_PI / 2, 3e-4);
    assert_true(st->after[STSL_COL_V] == 0.0);
    assert_true(fabs(st->before[STSL_COL_V]) < 1e-4); /* inside the band */
    assert_int_equal(sch->mode[sch->n_samples - 1], STSL_MODE_STUCK);
    stsl_sink_free(&ss);
}

/* ---- end stops ---------------------------------------------------------------- */

/* A block pushed by 20 N > F_S = 12 N into the stop at 0.05 m bounces
 * (e = 0.5), comes to rest on it and stays there (STOP_HIGH, x = x_max,
 * v = 0, the stop reaction carrying F_n), in every scheme. */
static void test_driven_into_stop(void **state)
{
    (void)state;
    static const char *const schemes[] = {"karnopp", "fixed_step_hybrid", "smooth_rk4"};
    char path[512], scheme[64];
    snprintf(path, sizeof path, "%s/stop.yaml", g_dir);
    assert_int_equal(tu_write_file(path, "element: {mass: 1}\n"
                                         "friction: {dynamic: 10, static_ratio: 1.2}\n"
                                         "end_stops: {min: -0.05, max: 0.05, restitution: 0.5}\n"
                                         "inputs: {active_force: {type: constant, value: 20}}\n"
                                         "simulation: {t_end: 1}\n"),
                     0);
    for (int i = 0; i < 3; i++) {
        snprintf(scheme, sizeof scheme, "simulation.scheme=%s", schemes[i]);
        const char *sets[] = {scheme, "simulation.step=1e-4"};
        stsl_sink s = {0};
        const stsl_mem_result *r = run_file(path, sets, 2, &s);
        long last = r->n_samples - 1;
        const double *c = &r->cols[last * r->n_cols];
        assert_int_equal(r->mode[last], STSL_MODE_STOP_HIGH);
        assert_true(c[STSL_COL_X] == 0.05 && c[STSL_COL_V] == 0.0);
        assert_close(c[STSL_COL_STOP_REACTION], 20.0, 1e-12);
        assert_true(count_kind(r, STSL_EV_IMPACT) >= 1);
        assert_int_equal(count_kind(r, STSL_EV_STOP_CONTACT), 1);
        for (long k = 0; k < r->n_samples; k++) /* never beyond the stop */
            assert_true(r->cols[k * r->n_cols + STSL_COL_X] <= 0.05);
        stsl_sink_free(&s);
    }
}

/* The shipped end-stop example: held at x_max while the force pushes, then
 * released towards x_min and held there, as in the reference. */
static void test_dv_end_stops(void **state)
{
    (void)state;
    static const char *const schemes[] = {"karnopp", "fixed_step_hybrid"};
    char scheme[64];
    stsl_sink rs = {0};
    const stsl_mem_result *ref = run_file(EX("dv_end_stops.yaml"), NULL, 0, &rs);
    for (int i = 0; i < 2; i++) {
        snprintf(scheme, sizeof scheme, "simulation.scheme=%s", schemes[i]);
        const char *sets[] = {scheme, "simulation.step=1e-4"};
        stsl_sink s = {0};
        const stsl_mem_result *r = run_file(EX("dv_end_stops.yaml"), sets, 2, &s);
        assert_int_equal(count_kind(r, STSL_EV_STOP_RELEASE),
                         count_kind(ref, STSL_EV_STOP_RELEASE));
        assert_int_equal(count_kind(r, STSL_EV_STOP_CONTACT),
                         count_kind(ref, STSL_EV_STOP_CONTACT));
        /* Time on the stops within 1 % of the reference's: the contact is
         * noticed a step late, the accumulated bounces cost a few steps. */
        for (int m = STSL_MODE_STOP_LOW; m <= STSL_MODE_STOP_HIGH; m++)
            assert_close(r->stats.mode_time[m], ref->stats.mode_time[m],
                         0.01 * ref->stats.mode_time[m]);
        stsl_sink_free(&s);
    }
    stsl_sink_free(&rs);
}

/* ---- failures and bad input -------------------------------------------------- */

/* RK4 beyond its stability limit (h |lambda| = 10 > 2.78 on a damper of
 * 1000 N s/m): the state overflows; the run fails with STSL_ESOLVER naming
 * time, mode and state, and the sink is ended incomplete with what was
 * computed. */
static void test_blow_up(void **state)
{
    (void)state;
    stsl_config cfg;
    stsl_error err = {0};
    stsl_sink s = {0};
    assert_int_equal(
        stsl_config_load_string("element: {mass: 1}\nfriction: {law: 20sim_v, d: 1000}\n"
                                "initial: {velocity: 1}\n"
                                "simulation: {t_end: 5, scheme: smooth_rk4, step: 0.01}\n",
                                "t.yaml", NULL, NULL, 0, &cfg, &err),
        STSL_OK);
    assert_int_equal(stsl_mem_sink_create(&s, &err), STSL_OK);
    assert_int_equal(stsl_run_element(&cfg.element, &cfg.sim, &cfg.scheme, &s, NULL, &err),
                     STSL_ESOLVER);
    assert_non_null(strstr(err.msg, "non-finite"));
    assert_non_null(strstr(err.msg, "t = "));
    assert_non_null(strstr(err.msg, "mode SMOOTH"));
    const stsl_mem_result *r = stsl_mem_sink_result(&s);
    assert_true(r->ended && !r->complete);
    assert_non_null(strstr(r->message, "non-finite"));
    assert_true(r->n_samples > 10 && r->t[r->n_samples - 1] < 5.0);
    stsl_sink_free(&s);
    stsl_config_free(&cfg);
}

static void expect_cli(const char *args, int code, const char *what)
{
    int got = tu_run_cli(args, g_out, sizeof g_out);
    if (got != code || !strstr(g_out, what))
        fail_msg("stickslip %s: exit %d (expected %d), output lacks '%s':\n%s", args, got, code,
                 what, g_out);
}

static void test_bad_input(void **state)
{
    (void)state;
    const char *dh = EX("den_hartog.yaml");
    char a[1024];
    struct {
        const char *args, *what;
    } cases[] = {
        {"run '%s' --set simulation.scheme=karnopp", "simulation.step: missing required key"},
        {"run '%s' --set simulation.scheme=rk45 --set simulation.step=1e-3",
         "simulation.scheme: must be one of: event_driven, karnopp"},
        {"run '%s' --set simulation.step=1e-3", "only for the fixed-step schemes"},
        {"run '%s' --set simulation.scheme=karnopp --set simulation.step=1e-3 "
         "--set simulation.karnopp_band=0",
         "simulation.karnopp_band: must be > 0"},
        {"converge '%s' --scheme karnopp --steps 1e-3,abc", "--steps: 'abc' is not a step"},
        {"converge '%s' --scheme karnopp --steps 1e-3,-1e-3", "'-1e-3' is not a step"},
        {"converge '%s' --scheme karnopp --steps 1e-3", "at least two distinct steps"},
        {"converge '%s' --scheme karnopp --steps 1e-3,3", "3 is longer than t_end = 2"},
        {"converge '%s' --scheme karnopp", "--steps is required"},
        {"converge '%s' --steps 1e-3,2e-3", "--scheme is required"},
        {"converge '%s' --scheme event_driven --steps 1e-3,2e-3", "--scheme must be karnopp"},
        {"converge '%s' --scheme karnopp --steps 1e-3,2e-3 --set simulation.karnopp_band=-1",
         "simulation.karnopp_band: must be > 0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(a, sizeof a, cases[i].args, dh);
        expect_cli(a, 2, cases[i].what);
    }
    /* A hybrid-only scheme on a smooth law is refused by the configuration. */
    snprintf(a, sizeof a, "converge '%s' --scheme karnopp --steps 1e-3,2e-3",
             EX("compare_smooth_vs_hybrid.yaml"));
    expect_cli(a, 2, "karnopp needs a hybrid friction law");
}

/* converge end to end: the table on stdout, the CSV, the HDF5 group. */
static void test_converge_cli(void **state)
{
    (void)state;
    char args[2048], csv[512], h5[512];
    snprintf(csv, sizeof csv, "%s/t.csv", g_dir);
    snprintf(h5, sizeof h5, "%s/t.h5", g_dir);
    snprintf(args, sizeof args,
             "converge '%s' --scheme fixed_step_hybrid --steps 1e-2,5e-3,2e-3 -o '%s' --h5 '%s'",
             EX("janecek_chirp.yaml"), csv, h5);
    expect_cli(args, 0, "fitted order");
    assert_non_null(strstr(g_out, "max|x err|"));
    assert_non_null(strstr(g_out, "[m/s]"));
    assert_non_null(strstr(g_out, "reference cost"));
    assert_true(tu_file_exists(csv) && tu_file_exists(h5));
    /* Running it again replaces /convergence in the same file. */
    expect_cli(args, 0, "fitted order");
}

int main(void)
{
    tu_mkdtemp(g_dir, sizeof g_dir);
    if (!g_dir[0]) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rk4_order),
        cmocka_unit_test(test_karnopp_order),
        cmocka_unit_test(test_hybrid_order),
        cmocka_unit_test(test_same_layout),
        cmocka_unit_test(test_hybrid_events),
        cmocka_unit_test(test_karnopp_events),
        cmocka_unit_test(test_driven_into_stop),
        cmocka_unit_test(test_dv_end_stops),
        cmocka_unit_test(test_blow_up),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_converge_cli),
        cmocka_unit_test(test_converge_compare_same_counts),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
