/* The Dalla Vedova examples (examples/dv_*.yaml) do what their descriptions
 * say: each `description:` states checkable physics (a breakaway instant, a
 * static band, an acceleration, a stopping time), worked out by hand from
 * SPEC §1.1's levels; these tests run the shipped files and assert exactly
 * those numbers, so an example and its text cannot drift apart.
 *
 * Common to all: F_DJ = 10 N, FSD = 1.2, EtO = 0.8, EtA = 0.6 (-0.5 in
 * dv_irreversible), m = 1 kg.  With a 50 N load the levels are
 * F_D = 10 + (1/0.8 - 1) 50 = 22.5 N opposing, 10 + (1 - 0.6) 50 = 30 N aiding.
 * Tolerances as in test_element: breakaways and releases are roots of
 * linear guards in frozen modes, located to 1e-12 relative; slip states are
 * integrated at rtol 1e-10, checked to 1e-8 (weighted RMS, atol 1e-10). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>

#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "models/element_params.h"
#include "physics/friction.h"
#include "test/testutil.h"

#define EX(name) STSL_SOURCE_DIR "/examples/" name
#define RT       1e-8
#define AT       1e-10

static double col(const stsl_mem_result *r, long i, int c)
{
    return r->cols[i * r->n_cols + c];
}

/* Run one example as shipped; its loaded friction parameters in *fp. */
static const stsl_mem_result *run_example(const char *path, stsl_sink *sink,
                                          stsl_friction_params *fp)
{
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(path, NULL, 0, &cfg, &err)) print_error("config: %s\n", err.msg);
    assert_int_equal(err.code, STSL_OK);
    if (fp) *fp = cfg.element.friction;
    const stsl_mem_result *r = tu_run_config(&cfg, sink);
    stsl_config_free(&cfg);
    return r;
}

/* The static band [-F_S(-1), F_S(+1)] under a load, as the program computes it. */
static void assert_band(const stsl_friction_params *fp, double load, double lo, double hi)
{
    double fd, fs;
    stsl_friction_levels(fp, -1, load, &fd, &fs);
    assert_close(-fs, lo, 1e-12);
    stsl_friction_levels(fp, +1, load, &fd, &fs);
    assert_close(fs, hi, 1e-12);
}

/* Condition 1: stuck and stays stuck, friction = F_n, inside the stated band. */
static void stuck_case(const char *path, double load, double fn, double lo, double hi)
{
    stsl_sink sink;
    stsl_friction_params fp;
    const stsl_mem_result *r = run_example(path, &sink, &fp);
    assert_band(&fp, load, lo, hi);
    assert_true(fn > lo && fn < hi);
    assert_int_equal(r->n_events, 0);
    for (long i = 0; i < r->n_samples; i++) {
        assert_int_equal(r->mode[i], STSL_MODE_STUCK);
        assert_close(col(r, i, STSL_COL_NET_FORCE), fn, 1e-12);
        assert_close(col(r, i, STSL_COL_FRICTION), fn, 1e-12);
        assert_close(col(r, i, STSL_COL_X), 0.0, 0.0);
    }
    stsl_sink_free(&sink);
}

static void stuck_examples(void **state)
{
    (void)state;
    /* "F_n = 70 - 50 = 20 N stays inside the static band [-36, 27] N" */
    stuck_case(EX("dv_stuck_opposing.yaml"), -50.0, 20.0, -36.0, 27.0);
    /* "F_n = 30 N is inside [-27, 36] N" */
    stuck_case(EX("dv_stuck_aiding.yaml"), 50.0, 30.0, -27.0, 36.0);
}

/* Condition 2: F_n = f0 + rate t breaks away at t_b (F_n = F_S(+1)), then
 * slips with a = F_n - F_D(+1). */
static void breakaway_case(const char *path, double f0, double rate, double fs, double fd,
                           double tb)
{
    stsl_sink sink;
    const stsl_mem_result *r = run_example(path, &sink, NULL);
    assert_close(f0 + rate * tb, fs, 1e-12);
    assert_int_equal(r->n_events, 1);
    assert_int_equal(r->events[0].kind, STSL_EV_BREAKAWAY);
    assert_int_equal(r->events[0].mode_after, STSL_MODE_SLIP_POS);
    assert_wrms1(r->events[0].t, tb, 1e-12, 1e-14);
    for (long i = 0; i < r->n_samples; i++) {
        double t = r->t[i];
        if (t < tb) {
            assert_int_equal(r->mode[i], STSL_MODE_STUCK);
            assert_close(col(r, i, STSL_COL_FRICTION), f0 + rate * t, 1e-12);
        } else if (t > tb) {
            double dt = t - tb;
            /* a is arithmetic on exact inputs: a few ulps. */
            assert_close(col(r, i, STSL_COL_A), f0 + rate * t - fd, 1e-12);
            assert_wrms1(col(r, i, STSL_COL_V), (fs - fd) * dt + 0.5 * rate * dt * dt, RT, AT);
        }
    }
    stsl_sink_free(&sink);
}

static void breakaway_examples(void **state)
{
    (void)state;
    /* "F_n = 30 + 10 t reaches F_S(+1) = 1.2 (10 + (1 - 0.6) 50) = 36 N at t = 0.6 s" */
    breakaway_case(EX("dv_breakaway_aiding.yaml"), 30.0, 10.0, 36.0, 30.0, 0.6);
    /* "F_n = 20 t rises to F_S(+1) = 1.2 (10 + (1/0.8 - 1) 50) = 27 N at t = 1.35 s" */
    breakaway_case(EX("dv_breakaway_opposing.yaml"), 0.0, 20.0, 27.0, 22.5, 1.35);
}

/* Condition 3: slipping from v = 1 m/s with constant a, no event. */
static void slipping_case(const char *path, double a)
{
    stsl_sink sink;
    const stsl_mem_result *r = run_example(path, &sink, NULL);
    assert_int_equal(r->n_events, 0);
    for (long i = 0; i < r->n_samples; i++) {
        double t = r->t[i];
        assert_int_equal(r->mode[i], STSL_MODE_SLIP_POS);
        assert_close(col(r, i, STSL_COL_A), a, 1e-12);
        assert_wrms1(col(r, i, STSL_COL_V), 1.0 + a * t, RT, AT);
        assert_wrms1(col(r, i, STSL_COL_X), t + 0.5 * a * t * t, RT, AT);
    }
    stsl_sink_free(&sink);
}

static void slipping_examples(void **state)
{
    (void)state;
    slipping_case(EX("dv_slipping_aiding.yaml"), 10.0);  /* "a = (40 - 30) / 1 = 10" */
    slipping_case(EX("dv_slipping_opposing.yaml"), 7.5); /* "a = (30 - 22.5) / 1 = 7.5" */
}

/* Condition 4: decelerates at a < 0 from 1 m/s, stops at -1/a and sticks
 * with friction = F_n. */
static void stops_case(const char *path, double a, double ts, double fn)
{
    stsl_sink sink;
    const stsl_mem_result *r = run_example(path, &sink, NULL);
    assert_close(1.0 + a * ts, 0.0, 1e-15);
    assert_int_equal(r->n_events, 1);
    assert_int_equal(r->events[0].kind, STSL_EV_STICK);
    assert_wrms1(r->events[0].t, ts, RT, AT);
    assert_wrms1(r->events[0].after[STSL_COL_X], 0.5 * ts, RT, AT);
    long end = r->n_samples - 1;
    assert_int_equal(r->mode[end], STSL_MODE_STUCK);
    assert_close(col(r, end, STSL_COL_FRICTION), fn, 1e-12);
    assert_close(col(r, 0, STSL_COL_A), a, 1e-12);
    stsl_sink_free(&sink);
}

static void stops_examples(void **state)
{
    (void)state;
    /* "a = 20 - 30 = -10 m/s^2, stops at t = 0.1 s and sticks (F_n = 20 N)" */
    stops_case(EX("dv_stops_aiding.yaml"), -10.0, 0.1, 20.0);
    /* "a = 10 - 22.5 = -12.5 m/s^2, stops at t = 0.08 s and sticks (F_n = 10 N)" */
    stops_case(EX("dv_stops_opposing.yaml"), -12.5, 0.08, 10.0);
}

/* "the +-50 N sine load alone never back-drives it ... From t = 2.5 s a 60 N
 * motor force drives it: with the load aiding the motor must still overcome
 * F_DJ + 0.5 |F_R|, against an opposing load F_DJ + 0.25 |F_R| plus the
 * load."  So a = 60 - 10 - 0.5 F_R (aiding, F_R > 0), 60 - 10 - 1.25 |F_R|
 * (opposing), F_R = 50 sin(pi t). */
static void irreversible_example(void **state)
{
    (void)state;
    stsl_sink sink;
    const stsl_mem_result *r = run_example(EX("dv_irreversible.yaml"), &sink, NULL);
    assert_true(r->n_events >= 1);
    assert_int_equal(r->events[0].kind, STSL_EV_INPUT_STEP);
    assert_true(r->events[0].t == 2.5);
    assert_int_equal(r->events[0].mode_after, STSL_MODE_SLIP_POS);
    long slipping = 0;
    for (long i = 0; i < r->n_samples; i++) {
        double t = r->t[i], load = 50.0 * sin(M_PI * t);
        if (t < 2.5) {
            assert_int_equal(r->mode[i], STSL_MODE_STUCK);
            assert_close(col(r, i, STSL_COL_X), 0.0, 0.0);
        } else if (r->mode[i] == STSL_MODE_SLIP_POS && t > 2.5) {
            double a = load > 0 ? 50.0 - 0.5 * load : 50.0 - 1.25 * fabs(load);
            assert_close(col(r, i, STSL_COL_A), a, 1e-12); /* arithmetic on exact inputs */
            slipping++;
        }
    }
    assert_true(slipping > 100);
    stsl_sink_free(&sink);
}

/* "a sine motor force breaks it away, it hits x_max = 0.05 m (restitution
 * 0.3), bounces until it rests against the stop, is held there while the
 * force pushes, and is released towards x_min when the force pulls harder
 * than the static limit": F_n = 60 sin(pi t), F_S = 12 N without load, so
 * breakaway at asin(0.2) / pi and release at 1 + asin(0.2) / pi. */
static void end_stops_example(void **state)
{
    (void)state;
    stsl_sink sink;
    const stsl_mem_result *r = run_example(EX("dv_end_stops.yaml"), &sink, NULL);
    double tb = asin(0.2) / M_PI;
    assert_int_equal(r->events[0].kind, STSL_EV_BREAKAWAY);
    assert_wrms1(r->events[0].t, tb, 1e-12, 1e-14);
    long contact = -1, release = -1, impacts = 0;
    for (long i = 0; i < r->n_events && release < 0; i++) {
        const stsl_mem_event *ev = &r->events[i];
        if (ev->kind == STSL_EV_IMPACT && ev->mode_after != STSL_MODE_STOP_HIGH) {
            assert_close(ev->after[STSL_COL_X], 0.05, 0.0);
            assert_close(ev->after[STSL_COL_V], -0.3 * ev->before[STSL_COL_V], 1e-15);
            impacts++;
        }
        if (ev->kind == STSL_EV_STOP_CONTACT && contact < 0) contact = i;
        if (ev->kind == STSL_EV_STOP_RELEASE) release = i;
    }
    assert_true(impacts >= 2);
    assert_true(contact > 0 && release > contact);
    assert_int_equal(r->events[contact].mode_after, STSL_MODE_STOP_HIGH);
    assert_wrms1(r->events[release].t, 1.0 + tb, 1e-12, 1e-14);
    assert_int_equal(r->events[release].mode_after, STSL_MODE_SLIP_NEG);
    /* At the release instant (located to 1e-12 s) F_n changes by 60 pi N/s: 1e-9 N. */
    assert_close(r->events[release].before[STSL_COL_NET_FORCE], -12.0, 1e-9);
    /* Held at t = 0.5 s: the stop carries the whole push, friction nothing. */
    long k = 0;
    while (k < r->n_samples && r->t[k] < 0.5 - 1e-9)
        k++;
    assert_true(k < r->n_samples && fabs(r->t[k] - 0.5) < 1e-9);
    assert_int_equal(r->mode[k], STSL_MODE_STOP_HIGH);
    assert_close(col(r, k, STSL_COL_STOP_REACTION), 60.0 * sin(M_PI * r->t[k]), 1e-12);
    assert_close(col(r, k, STSL_COL_FRICTION), 0.0, 1e-12);
    stsl_sink_free(&sink);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stuck_examples),       cmocka_unit_test(breakaway_examples),
        cmocka_unit_test(slipping_examples),    cmocka_unit_test(stops_examples),
        cmocka_unit_test(irreversible_example), cmocka_unit_test(end_stops_example),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
