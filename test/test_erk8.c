/* simulation.method: erk8, the method for the tightest references: the
 * Janecek chirp's event times against the independent 45-digit reference
 * to the rounding of t, Den Hartog's free oscillator (reversals, stop and
 * the slip's trajectory between output samples) against its closed form,
 * and what the configuration accepts and refuses with it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "include/stickslip.h"
#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "models/element_params.h"
#include "run/run.h"
#include "test/reference/janecek_events.h"
#include "test/testutil.h"

#define JANECEK STSL_SOURCE_DIR "/examples/janecek_chirp.yaml"

/* Bound on every Janecek event time: 5e-15 s.  Its events lie in [4, 9.4]
 * s, where one ulp of t is 8.9e-16 s (t < 8) or 1.8e-15 s (t >= 8).  The
 * located time is the upper end of a bracket of adjacent doubles around
 * the root of the computed trajectory (1 ulp), the reference's 17 digits
 * carry half an ulp of rounding, which leaves 2.3e-15 s (more than an ulp)
 * for the trajectory's own error.  Measured: 1.8e-15 s (one ulp, at 8.70
 * and 9.36 s) at rtol 1e-14 and 1e-15; CVODE's best is 1.2e-13 s, and
 * Fehlberg 7(8) stepped by ARKODE's ERKStep (state updated stage by
 * stage) stopped at 4e-14 s. */
#define JANECEK_BOUND 5e-15

static double janecek_max_error(double rtol, stsl_stats *st)
{
    char set[64];
    snprintf(set, sizeof set, "simulation.rtol=%.17g", rtol);
    const char *sets[] = {"simulation.method=erk8", set, "simulation.atol=auto",
                          "simulation.output_step=0"};
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(JANECEK, sets, 4, &cfg, &err)) print_error("config: %s\n", err.msg);
    assert_int_equal(err.code, STSL_OK);
    assert_int_equal(cfg.sim.method, STSL_METHOD_ERK8);
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_config(&cfg, &sink);
    assert_int_equal(r->n_events, N_REF);
    double e = 0.0;
    for (long i = 0; i < N_REF; i++) {
        assert_int_equal(r->events[i].kind, janecek_ref[i].kind);
        double d = fabs(r->events[i].t - janecek_ref[i].t);
        if (d > JANECEK_BOUND)
            print_error("event %ld at %.17g: off by %.3e s\n", i, janecek_ref[i].t, d);
        e = fmax(e, d);
    }
    *st = r->stats;
    stsl_sink_free(&sink);
    stsl_config_free(&cfg);
    return e;
}

static void janecek_events_to_rounding(void **state)
{
    (void)state;
    const double rtols[] = {1e-14, 1e-15};
    for (int k = 0; k < 2; k++) {
        stsl_stats st;
        double e = janecek_max_error(rtols[k], &st);
        print_message("erk8 rtol %g: max event-time error %.3e s (%ld steps, %ld rhs)\n", rtols[k],
                      e, st.steps, st.rhs_evals);
        assert_true(e <= JANECEK_BOUND);
    }
}

/* Den Hartog: m = 1 kg, k = 100 N/m, F = 1 N (static = dynamic), x0 =
 * 0.105 m.  omega = 10 rad/s; the half periods end at i pi / 10 s, the
 * amplitude falls by 2 F / k = 0.02 m each, and the motion stops at the
 * fifth turning point, x = -0.005 m, t = pi / 2 s.  In the first half
 * period x = F / k + (x0 - F / k) cos(omega t). */
static const char *const DEN_HARTOG = "element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
                                      "friction: {dynamic: 1.0, static_ratio: 1.0}\n"
                                      "initial: {position: 0.105, velocity: 0.0}\n"
                                      "simulation: {t_end: 2.0, output_step: 0.01, method: erk8, "
                                      "rtol: 1.0e-15}\n";

/* Bounds: each turning point within 1.5e-15 s of i pi / 10 (t <= 1.58 s:
 * one ulp is 2.2e-16 s there; 1 ulp of bracket, half an ulp of the closed
 * form's rounding, and the integration error, measured at 1.1e-16 s per
 * half period: 6.7e-16 s at the stop).  The samples of the first half
 * period are the re-step dense output between step ends: within 1e-16 m
 * of the closed form (|x| <= 0.105 m, an ulp 1.4e-17 m; the closed form's
 * own rounding in doubles, cos(10 t) with 10 t rounded, is up to 3e-17 m;
 * measured 4.9e-17 m; CVODE's Adams samples at its tightest rtol, 1e-14,
 * are off by 2.3e-14 m). */
static void den_hartog_closed_form(void **state)
{
    (void)state;
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_yaml(DEN_HARTOG, NULL, 0, &sink);
    assert_int_equal(r->n_events, 5);
    double et = 0.0, ex = 0.0;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(r->events[i].kind, i < 4 ? STSL_EV_REVERSAL : STSL_EV_STICK);
        et = fmax(et, fabs(r->events[i].t - (i + 1) * M_PI / 10.0));
    }
    assert_true(fabs(r->events[4].after[STSL_COL_X] + 0.005) < 1e-16);
    long n = 0;
    for (long i = 0; i < r->n_samples && r->t[i] < M_PI / 10.0; i++, n++) {
        double x = 0.01 + 0.095 * cos(10.0 * r->t[i]);
        ex = fmax(ex, fabs(tu_col(r, i, STSL_COL_X) - x));
    }
    print_message("erk8 Den Hartog: event times %.3e s, samples %.3e m (%ld)\n", et, ex, n);
    assert_true(n >= 30);
    assert_true(et <= 1.5e-15);
    assert_true(ex <= 1e-16);
    stsl_sink_free(&sink);
}

/* rtol's range follows the method (below 1e-14 only with erk8, never below
 * 1e-15: what the doubles carry); erk8 refuses a stiff model (a smooth
 * friction law) rather than crawl through it at explicit steps. */
static void config_ranges_and_refusals(void **state)
{
    (void)state;
    const char *base = "element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
                       "friction: {dynamic: 1.0}\ninitial: {position: 0.1}\n"
                       "simulation: {t_end: 1.0, %s}\n";
    struct {
        const char *sim;
        int rc;
        const char *msg;
    } cases[] = {
        {"rtol: 1.0e-15, method: erk8", STSL_OK, NULL},
        {"rtol: 1.0e-15", STSL_EINPUT, "simulation.rtol: must be in [1e-14, 0.01] (got 1.0e-15)"},
        {"rtol: 1.0e-16, method: erk8", STSL_EINPUT,
         "simulation.rtol: must be in [1e-15, 0.01] (got 1.0e-16)"},
        {"accuracy: 1.0e-15, method: erk8", STSL_OK, NULL},
        {"method: rk8", STSL_EINPUT, "must be one of: auto, adams, bdf, erk8 (got 'rk8')"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml, base, cases[i].sim);
        stsl_config cfg;
        stsl_error err = {0};
        int rc = stsl_config_load_string(yaml, "e.yaml", NULL, NULL, 0, &cfg, &err);
        if (rc != cases[i].rc) print_error("case %zu: %s\n", i, err.msg);
        assert_int_equal(rc, cases[i].rc);
        if (cases[i].msg) {
            if (!strstr(err.msg, cases[i].msg)) print_error("case %zu: %s\n", i, err.msg);
            assert_non_null(strstr(err.msg, cases[i].msg));
        } else {
            assert_true(cfg.sim.rtol == 1e-15);
            /* The fast path of a set keeps the method's range. */
            assert_int_equal(stsl_config_set(&cfg, "simulation.rtol", "2e-15", &err), STSL_OK);
            assert_true(cfg.sim.rtol == 2e-15);
            assert_int_equal(stsl_config_set(&cfg, "simulation.rtol", "1e-16", &err), STSL_EINPUT);
            stsl_config_free(&cfg);
        }
    }
    /* A smooth (stiff) law: the run is refused, naming the method. */
    const char *smooth = "element: {mass: 1}\nfriction: {law: 20sim_c, tc: 1, slope: 10}\n"
                         "simulation: {t_end: 1, method: erk8}\n";
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load_string(smooth, "s.yaml", NULL, NULL, 0, &cfg, &err), STSL_OK);
    stsl_sink sink;
    assert_int_equal(stsl_mem_sink_create(&sink, &err), STSL_OK);
    int rc = stsl_run_element(&cfg.element, &cfg.sim, &cfg.scheme, &sink, NULL, &err);
    assert_int_equal(rc, STSL_EINPUT);
    assert_non_null(strstr(err.msg, "method erk8 is explicit and this model is stiff"));
    stsl_sink_free(&sink);
    stsl_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(janecek_events_to_rounding),
        cmocka_unit_test(den_hartog_closed_form),
        cmocka_unit_test(config_ranges_and_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
