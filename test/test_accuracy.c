/* Accuracy a user can ask for (issue 11): with simulation.rtol alone set,
 * atol follows it (a per-component rule from the element's natural scales)
 * and the Janecek chirp's event times follow rtol against the independent
 * 45-digit reference; simulation.accuracy sets both; `run --verify`
 * estimates the run's own error within a factor 10 of the true one, and
 * reports a differing event sequence (warning, or exit 3 when strict);
 * `check --print` shows the derived atol and `check` warns when an
 * explicit atol caps what rtol asks for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <matio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/stickslip.h"
#include "io/config/config.h"
#include "io/result/h5_read.h"
#include "io/result/mem_sink.h"
#include "run/verify.h"
#include "test/reference/janecek_events.h"
#include "test/testutil.h"

#define JANECEK STSL_SOURCE_DIR "/examples/janecek_chirp.yaml"

static char dir[256];
static char out[65536];
#define cli(...) tu_cli(out, sizeof out, __VA_ARGS__)

/* The belt oscillator of test_element: F_S = 1.5 N, k = 100 N/m, m = 1 kg,
 * so L = F_S/k = 0.015 m, T = sqrt(m/k) = 0.1 s, V = L/T = 0.15 m/s. */
static const char *const BELT =
    "element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
    "friction: {dynamic: 1.0, static_ratio: 1.5}\n"
    "inputs: {base_motion: {type: ramp, slope: 0.1}, anchor_motion: {type: constant, value: 0.0}}\n"
    "simulation: {t_end: 3.0, output_step: 0.001}\n";

/* The Janecek example at `rtol` with atol left to the rule (the file gives
 * atol: 1e-12; auto is what an absent atol means), no output grid. */
static void load_janecek(double rtol, stsl_verify_mode mode, stsl_config *cfg)
{
    char set[64];
    snprintf(set, sizeof set, "simulation.rtol=%.17g", rtol);
    const char *sets[] = {set, "simulation.atol=auto", "simulation.output_step=0"};
    stsl_error err = {0};
    if (stsl_config_load(JANECEK, sets, 3, cfg, &err)) print_error("config: %s\n", err.msg);
    assert_int_equal(err.code, STSL_OK);
    cfg->verify = mode;
}

/* Largest event-time error against the reference; the kinds must match. */
static double run_janecek(const stsl_config *cfg, stsl_stats *st)
{
    stsl_sink sink;
    stsl_error err = {0};
    char msg[512];
    assert_int_equal(stsl_mem_sink_create(&sink, &err), STSL_OK);
    int rc = stsl_run_verified(&cfg->element, &cfg->sim, &cfg->scheme, cfg->verify, &sink, st, msg,
                               sizeof msg, &err);
    if (rc) print_error("run: %s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    assert_string_equal(msg, "");
    const stsl_mem_result *r = stsl_mem_sink_result(&sink);
    assert_int_equal(r->n_events, N_REF);
    double e = 0.0;
    for (long i = 0; i < N_REF; i++) {
        assert_int_equal(r->events[i].kind, janecek_ref[i].kind);
        e = fmax(e, fabs(r->events[i].t - janecek_ref[i].t));
    }
    stsl_sink_free(&sink);
    return e;
}

/* Bound: with the rule the error stays at 1 to 5 times rtol (in seconds)
 * from rtol 1e-6 to 1e-13 (benchmarks/bench_tolerance; 4.5e-12 s
 * measured here), so 20 rtol = 2e-11 s leaves a factor 4.  The old fixed
 * atol of 1e-12 floored the error at 4.5e-10 s for every rtol <= 1e-11:
 * twenty times this bound, so a rule that caps the accuracy fails here. */
static void rtol_alone_tightens_event_times(void **state)
{
    (void)state;
    stsl_config cfg;
    stsl_stats st;
    load_janecek(1e-12, STSL_VERIFY_OFF, &cfg);
    assert_true(cfg.sim.atol == 0.0);
    double e = run_janecek(&cfg, &st);
    print_message("rtol 1e-12, atol auto: max event-time error %.3e s\n", e);
    assert_true(e < 20.0 * 1e-12);
    stsl_config_free(&cfg);
}

/* simulation.accuracy sets rtol and leaves atol to the rule: the same run
 * to the last bit as rtol alone; with rtol too it is refused. */
static void accuracy_sets_both(void **state)
{
    (void)state;
    const char *yaml = "element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
                       "friction: {dynamic: 1.0, static_ratio: 1.5}\n"
                       "initial: {position: 0.1}\n"
                       "simulation: {t_end: 1.0, output_step: 0, %s}\n";
    char a[512], b[512], c[512];
    snprintf(a, sizeof a, yaml, "accuracy: 1.0e-12");
    snprintf(b, sizeof b, yaml, "rtol: 1.0e-12");
    snprintf(c, sizeof c, yaml, "accuracy: 1.0e-12, rtol: 1.0e-8");
    stsl_sink sa, sb;
    const stsl_mem_result *ra = tu_run_yaml(a, NULL, 0, &sa), *rb = tu_run_yaml(b, NULL, 0, &sb);
    assert_int_equal(ra->n_events, rb->n_events);
    assert_true(ra->n_events >= 2);
    for (long i = 0; i < ra->n_events; i++)
        assert_true(ra->events[i].t == rb->events[i].t);
    stsl_sink_free(&sa);
    stsl_sink_free(&sb);
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load_string(a, "<a>", NULL, NULL, 0, &cfg, &err), STSL_OK);
    assert_true(cfg.sim.rtol == 1e-12 && cfg.sim.atol == 0.0);
    char *got = stsl_config_get(&cfg, "simulation.atol", &err);
    assert_string_equal(got, "auto");
    free(got);
    stsl_config_free(&cfg);
    /* On an effective configuration (which writes rtol) the override wins. */
    const char *set_acc[] = {"simulation.accuracy=1e-9"};
    assert_int_equal(stsl_config_load_string(b, "<b>", NULL, set_acc, 1, &cfg, &err), STSL_OK);
    assert_true(cfg.sim.rtol == 1e-9 && cfg.sim.atol == 0.0);
    assert_int_equal(stsl_config_set(&cfg, "simulation.accuracy", "1e-11", &err), STSL_OK);
    assert_true(cfg.sim.rtol == 1e-11);
    stsl_config_free(&cfg);
    assert_int_equal(stsl_config_load_string(c, "<c>", NULL, NULL, 0, &cfg, &err), STSL_EINPUT);
    assert_string_equal(err.msg, "<c>:4: simulation.accuracy: sets rtol (and atol unless given): "
                                 "give accuracy or rtol, not both");
}

/* The estimate (the check run at rtol/100) against the true error, at two
 * rtols: within a factor 10 either way, as issue 11 asks (measured ratios
 * 0.99 to 1.01 from rtol 1e-6 to 1e-12: the check run's own error is about
 * 1 % of the run's). */
static void verify_brackets_true_error(void **state)
{
    (void)state;
    const double rtols[] = {1e-8, 1e-11};
    for (int k = 0; k < 2; k++) {
        stsl_config cfg;
        stsl_stats st;
        load_janecek(rtols[k], STSL_VERIFY_ON, &cfg);
        double e = run_janecek(&cfg, &st);
        print_message("rtol %g: true %.3e s, estimate %.3e s\n", rtols[k], e, st.err_event_time);
        assert_int_equal(st.verify, STSL_VERIFY_MATCHED);
        assert_true(st.verify_rtol == rtols[k] / 100.0);
        assert_true(st.err_event_time >= e / 10.0 && st.err_event_time <= 10.0 * e);
        assert_true(st.err_x > 0.0 && st.err_x < 1e3 * rtols[k]); /* x ~ 1e-2 m */
        stsl_config_free(&cfg);
    }
}

/* At the edge of sticking: released from x0 = 0.034995 m the element
 * comes to rest at -0.014995 m, where the spring holds 1.4995 N against
 * F_S = 1.5 N: it sticks.  At rtol 1e-2 and at 1e-4 (the check run) the
 * computed amplitude is off by 1e-6 and 8.5e-6 m (8.5e-4 N of spring force,
 * above the 5e-4 N margin): one run sticks, the other reverses.  A warning
 * naming the first differing event and exit 0, or exit 3 when strict; the
 * result's /stats say so either way. */
static void verify_reports_mismatch(void **state)
{
    (void)state;
    char yaml[512], h5[512];
    snprintf(yaml, sizeof yaml, "%s/edge.yaml", dir);
    snprintf(h5, sizeof h5, "%s/edge.h5", dir);
    assert_int_equal(tu_write_file(yaml,
                                   "element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
                                   "friction: {dynamic: 1.0, static_ratio: 1.5}\n"
                                   "initial: {position: 0.034995, velocity: 0.0}\n"
                                   "simulation: {t_end: 1.0, output_step: 0, rtol: 1.0e-2}\n"),
                     0);
    assert_int_equal(cli("run %s -o %s -q --verify", yaml, h5), 0);
    assert_non_null(strstr(out, "stickslip: warning: verify: the event sequence differs from the "
                                "check run at rtol 0.0001: event 1: this run has stick at t = "));
    assert_non_null(strstr(out, "the check run has reversal at t = "));
    stsl_h5_result res;
    stsl_error err = {0};
    assert_int_equal(stsl_h5_read(h5, &res, &err), STSL_OK);
    assert_int_equal(res.stats.verify, STSL_VERIFY_MISMATCH);
    assert_int_equal(res.stats.diff_event, 0);
    assert_true(res.complete);
    stsl_h5_result_free(&res);
    assert_int_equal(cli("info %s", h5), 0);
    assert_non_null(strstr(out, "EVENT SEQUENCES DIFFER"));
    assert_int_equal(cli("run %s -o %s -q --verify=strict", yaml, h5), 3);
    assert_non_null(strstr(out, "stickslip: error: verify strict: the event sequence differs"));
    assert_int_equal(cli("run %s -o %s -q --set simulation.verify=strict", yaml, h5), 3);
    /* Tight enough, both runs stick: no warning. */
    assert_int_equal(cli("run %s -o %s -q --verify --set simulation.rtol=1e-8", yaml, h5), 0);
    assert_null(strstr(out, "warning"));
    assert_int_equal(cli("run %s -o %s -q --verify=loose", yaml, h5), 2);
}

/* The estimate in the result file, with units, and in info. */
static void verify_in_file_and_info(void **state)
{
    (void)state;
    char yaml[512], h5[512];
    snprintf(yaml, sizeof yaml, "%s/belt.yaml", dir);
    snprintf(h5, sizeof h5, "%s/belt.h5", dir);
    assert_int_equal(tu_write_file(yaml, BELT), 0);
    assert_int_equal(cli("run %s -o %s --verify", yaml, h5), 0);
    assert_non_null(strstr(out, "Est. error:  event times "));
    assert_non_null(strstr(out, "(check run at rtol 1e-12; events matched)"));
    stsl_h5_result res;
    stsl_error err = {0};
    assert_int_equal(stsl_h5_read(h5, &res, &err), STSL_OK);
    assert_int_equal(res.stats.verify, STSL_VERIFY_MATCHED);
    assert_true(res.stats.verify_rtol == 1e-12);
    /* rtol 1e-10 on events ~1 s apart: an estimate far from 0 and from 1 s. */
    assert_true(res.stats.err_event_time > 1e-15 && res.stats.err_event_time < 1e-7);
    assert_string_equal(res.err_units, "estimated_error_event_time [s], estimated_error_x [m], "
                                       "estimated_error_v [m/s]");
    double est = res.stats.err_event_time;
    stsl_h5_result_free(&res);
    /* Not asked for: nothing in /stats. */
    assert_int_equal(cli("run %s -o %s -q", yaml, h5), 0);
    assert_int_equal(stsl_h5_read(h5, &res, &err), STSL_OK);
    assert_int_equal(res.stats.verify, STSL_VERIFY_NONE);
    stsl_h5_result_free(&res);
    /* The MAT result carries the same numbers in its stats struct. */
    char mat[512];
    snprintf(mat, sizeof mat, "%s/belt.mat", dir);
    assert_int_equal(cli("run %s -o %s -q --verify", yaml, mat), 0);
    mat_t *mf = Mat_Open(mat, MAT_ACC_RDONLY);
    assert_non_null(mf);
    matvar_t *st = Mat_VarRead(mf, "stats");
    assert_non_null(st);
    matvar_t *f = Mat_VarGetStructFieldByName(st, "estimated_error_event_time", 0);
    assert_non_null(f);
    assert_true(((const double *)f->data)[0] == est); /* the same run, bit for bit */
    f = Mat_VarGetStructFieldByName(st, "verify", 0);
    assert_true(f && ((const double *)f->data)[0] == STSL_VERIFY_MATCHED);
    Mat_VarFree(st);
    Mat_Close(mf);
    /* A fixed-step scheme has no tolerance to tighten. */
    assert_int_equal(cli("check %s --set simulation.verify=on --set simulation.scheme=karnopp "
                         "--set simulation.step=1e-4",
                         yaml),
                     2);
    assert_non_null(strstr(out, "simulation.verify: needs scheme event_driven"));
}

/* check --print shows the rule's atol per component (rtol 1e-10 x 1e-3 x
 * 0.015 m, x 0.15 m/s), and check warns when an explicit atol caps it. */
static void check_shows_derived_atol(void **state)
{
    (void)state;
    char yaml[512];
    snprintf(yaml, sizeof yaml, "%s/belt.yaml", dir);
    assert_int_equal(tu_write_file(yaml, BELT), 0);
    assert_int_equal(cli("check %s --print", yaml), 0);
    assert_non_null(strstr(out, "  atol: auto   # derived (rtol x 1e-3 x natural scale): x "
                                "1.5e-15 m, v 1.5e-14 m/s\n"));
    assert_null(strstr(out, "warning"));
    assert_int_equal(cli("check %s --set simulation.rtol=1e-6 --print", yaml), 0);
    assert_non_null(strstr(out, "x 1.5e-11 m, v 1.5e-10 m/s\n"));
    assert_int_equal(cli("check %s --set simulation.atol=1e-12", yaml), 0);
    assert_non_null(strstr(out, "stickslip: warning: simulation.atol = 1e-12 caps the accuracy "
                                "rtol = 1e-10 asks for (atol: auto would give x 1.5e-15 m, v "
                                "1.5e-14 m/s)"));
    assert_int_equal(cli("check %s --set simulation.atol=1e-16", yaml), 0);
    assert_null(strstr(out, "warning"));
}

/* The C API: simulation.verify through stsl_cfg_set, the estimate in the
 * summary and as statistics. */
static void api_summary_states_error(void **state)
{
    (void)state;
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_parse(BELT, NULL, &err);
    assert_non_null(cfg);
    assert_int_equal(stsl_cfg_set(cfg, "simulation.verify", "on", &err), STSL_RC_OK);
    stsl_result *r = NULL;
    assert_int_equal(stsl_run_result(cfg, &r, &err), STSL_RC_OK);
    const stsl_summary *s = stsl_result_summary(r);
    assert_int_equal(s->verify, 1);
    assert_true(s->verify_rtol == 1e-12);
    assert_true(s->err_event_time > 1e-15 && s->err_event_time < 1e-7);
    assert_string_equal(s->verify_message, "");
    double v;
    assert_int_equal(stsl_result_stat(r, "err_event_time", &v, &err), STSL_RC_OK);
    assert_true(v == s->err_event_time);
    stsl_result_free(r);
    stsl_cfg_free(cfg);
}

static int setup(void **state)
{
    (void)state;
    tu_mkdtemp(dir, sizeof dir);
    return dir[0] ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rtol_alone_tightens_event_times),
        cmocka_unit_test(accuracy_sets_both),
        cmocka_unit_test(verify_brackets_true_error),
        cmocka_unit_test(verify_reports_mismatch),
        cmocka_unit_test(verify_in_file_and_info),
        cmocka_unit_test(check_shows_derived_atol),
        cmocka_unit_test(api_summary_states_error),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
