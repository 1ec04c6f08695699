/* Physics the rest of the suite only checked against itself, each against an
 * independent closed form (issue 15): a damped oscillator with Coulomb
 * friction about a nonzero spring free position, a damper driven by a moving
 * base and anchor, bounces with friction (up and down accelerations differ),
 * end-stop releases and fixed-step stick/breakaway decisions with
 * F_S != F_D, Stribeck values where the exponent matters, a LuGre case whose
 * result depends on sigma1, RK4's order on a forced problem.
 *
 * Tolerances: event-driven runs use rtol 1e-10 and the atol derived from
 * it (docs/numerics.md; before issue 11 a fixed 1e-12); as in
 * test_element, event times and states carry the integration error of the
 * segments before them (1e-9 relative at most over a few oscillations), so
 * the checks ask for weighted RMS < 1 with rtol 1e-8, atol 1e-10 unless a
 * test argues another bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>

#include "io/result/mem_sink.h"
#include "models/element_params.h"
#include "physics/friction.h"
#include "test/testutil.h"

#define RT 1e-8
#define AT 1e-10

static double col(const stsl_mem_result *r, long i, int c)
{
    return r->cols[i * r->n_cols + c];
}

/* Last sample at or before t (samples are in time order). */
static long sample_at(const stsl_mem_result *r, double t)
{
    long k = 0;
    for (long i = 0; i < r->n_samples && r->t[i] <= t; i++)
        k = i;
    return k;
}

/* ---- damped oscillator with Coulomb friction, nonzero free position -------- */

/* m x'' + c x' + k (x - x_s) = -+ F_D: each slip half-cycle is a damped
 * oscillation about x_s +- F_D / k that reaches v = 0 after exactly
 * pi / omega_d, its deflection from the centre multiplied by
 * -exp(-zeta omega pi / omega_d); the motion sticks at the first turning
 * point with k |x - x_s| <= F_S. */
static void damped_coulomb_free_position(void **state)
{
    (void)state;
    const char *yaml = "element: {mass: 1.0, spring: {stiffness: 100.0, free_position: 0.1},"
                       " damper: {coefficient: 2.0}}\n"
                       "friction: {dynamic: 1.0, static_ratio: 1.5}\n"
                       "initial: {position: 0.4}\n"
                       "simulation: {t_end: 2.5, output_step: 0.001}\n";
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
    const double m = 1.0, k = 100.0, c = 2.0, xs = 0.1, fd = 1.0, fs = 1.5;
    double w = sqrt(k / m), zeta = c / (2.0 * sqrt(k * m)), wd = w * sqrt(1.0 - zeta * zeta);
    double q = exp(-zeta * w * M_PI / wd), half = M_PI / wd;

    /* The first half-cycle (slip towards -x, friction +F_D) sample by sample. */
    double xe = xs + fd / k, d0 = 0.4 - xe;
    for (long i = 0; i < r->n_samples && r->t[i] < 0.99 * half; i += 50) {
        double t = r->t[i], e = exp(-zeta * w * t);
        double x = xe + d0 * e * (cos(wd * t) + zeta * w / wd * sin(wd * t));
        double v = -d0 * e * (w * w / wd) * sin(wd * t);
        assert_wrms1(col(r, i, STSL_COL_X), x, RT, AT);
        assert_wrms1(col(r, i, STSL_COL_V), v, RT, AT);
    }
    /* Turning points until one lies in the static band. */
    double x = 0.4;
    int s = -1, n = 0;
    for (;;) {
        double centre = xs - s * fd / k;
        x = centre - (x - centre) * q;
        n++;
        assert_true(n <= r->n_events);
        const stsl_mem_event *ev = &r->events[n - 1];
        assert_wrms1(ev->t, n * half, RT, AT);
        assert_wrms1(ev->after[STSL_COL_X], x, RT, AT);
        if (fabs(k * (x - xs)) <= fs) {
            assert_int_equal(ev->kind, STSL_EV_STICK);
            break;
        }
        assert_int_equal(ev->kind, STSL_EV_REVERSAL);
        s = -s;
    }
    assert_int_equal(n, 5); /* 4 reversals, then the stick (worked out in the comment above) */
    assert_int_equal(r->n_events, n);
    /* At rest the friction holds the spring: F_f = -k (x - x_s). */
    long end = r->n_samples - 1;
    assert_close(col(r, end, STSL_COL_FRICTION), -k * (col(r, end, STSL_COL_X) - xs), 1e-12);
    stsl_sink_free(&sink);
}

/* ---- a damper driven by a moving base and anchor ---------------------------- */

/* No spring; the damper joins the element to an anchor moving at
 * V_A = 1 m/s while the base (the friction surface) moves at V_B = 0.3 m/s.
 * Its force is -c (v + V_B - V_A) on the relative velocity v, so
 * m v' = c (V_A - V_B - v) - F_D from rest (c (V_A - V_B) = 7 N > F_S):
 * v = v_inf (1 - exp(-c t / m)), v_inf = V_A - V_B - F_D / c = 0.5 m/s. */
static void damper_driven_by_base_and_anchor(void **state)
{
    (void)state;
    const char *yaml = "element: {mass: 1.0, damper: {coefficient: 10.0}}\n"
                       "friction: {dynamic: 2.0}\n"
                       "inputs: {base_motion: {type: ramp, slope: 0.3},"
                       " anchor_motion: {type: ramp, slope: 1.0}}\n"
                       "simulation: {t_end: 1.0, output_step: 0.01}\n";
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
    assert_int_equal(r->n_events, 0);
    assert_int_equal(r->mode[0], STSL_MODE_SLIP_POS);
    const double tau = 0.1, vinf = 0.5;
    for (long i = 0; i < r->n_samples; i += 10) {
        double t = r->t[i], e = exp(-t / tau);
        assert_wrms1(col(r, i, STSL_COL_V), vinf * (1.0 - e), RT, AT);
        assert_wrms1(col(r, i, STSL_COL_X), vinf * (t - tau * (1.0 - e)), RT, AT);
        assert_wrms1(col(r, i, STSL_COL_NET_FORCE), 10.0 * (0.7 - vinf * (1.0 - e)), RT, AT);
    }
    stsl_sink_free(&sink);
}

/* ---- bounces with friction ---------------------------------------------------- */

/* F_a = 2 N pushes a 1 kg element against F_D = 0.5 N into x_max = 0.25 m
 * (e = 0.5).  It arrives at t1 = sqrt(2 x_max / a), a = 1.5 m/s^2.  Off the
 * stop friction helps the force: it decelerates at a_up = 2.5 m/s^2 and
 * falls back at a_down = 1.5 m/s^2, so a flight from v+ lasts
 * v+ (1/a_up + 1/sqrt(a_up a_down)) and hits with v+ sqrt(a_down / a_up).
 * The impacts accumulate at t1 + e v1 (1/a_up + 1/sqrt(a_up a_down)) / (1 - r),
 * r = e sqrt(a_down / a_up).  Tolerance of the accumulation time as in
 * test_element's bounces_accumulate: the last bounce resolved has a height of
 * 1000 position tolerances (2.6e-8 m) and is timed to tol / v; 1e-6 s.
 * Each impact is located to tol_x / v in time (tol_x = rtol x_max + atol =
 * 2.6e-11 m), so its speed carries a tol_x / v <= 2.5 * 2.6e-11 / 0.05,
 * 1.3e-9 m/s at the fourth impact (v = 0.05 m/s): atol 2e-9 on speeds of
 * the first four. */
static void bounces_with_friction(void **state)
{
    (void)state;
    const char *yaml = "element: {mass: 1.0}\n"
                       "friction: {dynamic: 0.5}\n"
                       "end_stops: {min: -1.0, max: 0.25, restitution: 0.5}\n"
                       "inputs: {active_force: {type: constant, value: 2.0}}\n"
                       "simulation: {t_end: 2.0, output_step: 0.001}\n";
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
    const double e = 0.5, a = 1.5, up = 2.5, down = 1.5;
    double t1 = sqrt(2.0 * 0.25 / a), v1 = a * t1;
    double flight = 1.0 / up + 1.0 / sqrt(up * down), rr = e * sqrt(down / up);
    double tk = t1, vk = v1; /* impact time and speed */
    long seen = 0;
    for (long i = 0; i < r->n_events && seen < 4; i++) {
        if (r->events[i].kind != STSL_EV_IMPACT) continue;
        assert_wrms1(r->events[i].t, tk, RT, AT);
        assert_wrms1(r->events[i].before[STSL_COL_V], vk, RT, 2e-9);
        assert_wrms1(r->events[i].after[STSL_COL_V], -e * vk, RT, 2e-9);
        tk += e * vk * flight;
        vk *= rr;
        seen++;
    }
    assert_int_equal(seen, 4);
    const stsl_mem_event *last = &r->events[r->n_events - 1];
    assert_int_equal(last->kind, STSL_EV_STOP_CONTACT);
    assert_close(last->t, t1 + e * v1 * flight / (1.0 - rr), 1e-6);
    assert_int_equal(r->mode[r->n_samples - 1], STSL_MODE_STOP_HIGH);
    stsl_sink_free(&sink);
}

/* ---- end-stop release with F_S != F_D ------------------------------------------- */

/* test_element's end_stop_contact_and_release with F_S = 1.5 F_D: the element
 * rests on x_max until F_n + F_S(-1) = 0, 2 - 2 t = -0.75, t = 1.375 s (at
 * the dynamic level it would leave at 1.25 s); mirrored on x_min.  The
 * release is a root of a linear guard: located to the root tolerance. */
static void stop_release_at_static_level(void **state)
{
    (void)state;
    const char *fmt = "element: {mass: 1.0}\n"
                      "friction: {dynamic: 0.5, static_ratio: 1.5}\n"
                      "end_stops: {min: %g, max: %g, restitution: 0.0}\n"
                      "inputs: {active_force: {type: ramp, slope: %g, initial: %g}}\n"
                      "simulation: {t_end: 1.5, output_step: 0.001}\n";
    for (int side = -1; side <= 1; side += 2) {
        char yaml[512];
        snprintf(yaml, sizeof yaml, fmt, side > 0 ? -1.0 : -0.2, side > 0 ? 0.2 : 1.0, -2.0 * side,
                 2.0 * side);
        stsl_sink sink;
        const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
        assert_int_equal(r->n_events, 2);
        assert_int_equal(r->events[0].kind, STSL_EV_STOP_CONTACT);
        assert_int_equal(r->events[1].kind, STSL_EV_STOP_RELEASE);
        assert_wrms1(r->events[1].t, 1.375, 1e-12, 1e-14);
        assert_int_equal(r->events[1].mode_after,
                         side > 0 ? STSL_MODE_SLIP_NEG : STSL_MODE_SLIP_POS);
        /* Held at 1.3 s by friction beyond the dynamic level: F_f = F_n. */
        long k = sample_at(r, 1.3);
        assert_int_equal(r->mode[k], side > 0 ? STSL_MODE_STOP_HIGH : STSL_MODE_STOP_LOW);
        assert_close(col(r, k, STSL_COL_FRICTION), side * (2.0 - 2.0 * r->t[k]), 1e-12);
        stsl_sink_free(&sink);
    }
}

/* ---- fixed-step stick and breakaway decisions with F_S != F_D ------------------ */

/* F_D = 3 N, F_S = 4.5 N.  The Euler schemes decide at step points only, so
 * each event falls on the first step point where the exact condition holds:
 * breakaway under F_a = 10 t at the first t_k = k h with 10 t_k > 4.5
 * (h = 0.7 ms: k = 643, 0.4501 s; at the dynamic level 0.3003 s); a slide
 * from v0 = 1 m/s against F_a = -4 N decelerates at exactly 7 m/s^2
 * (v_k = 1 - 7 k h) and sticks, since |F_n| = 4 N < F_S (a dynamic-level
 * decision would reverse); F_a = 4 N from rest holds.  Times are k h up to
 * rounding: 1e-12 s.  The same for the release from an end stop. */
static const char *fs_yaml = "element: {mass: %g}\n"
                             "friction: {dynamic: 3.0, static_ratio: 1.5}\n"
                             "inputs: {active_force: %s}\n"
                             "initial: {velocity: %g}\n"
                             "simulation: {t_end: %g, output_step: 0, scheme: %s, step: %.17g%s}\n";

static const stsl_mem_result *run_scheme(stsl_sink *sink, const char *scheme, double m,
                                         const char *force, double v0, double t_end, double h)
{
    char yaml[1024];
    int karnopp = scheme[0] == 'k';
    snprintf(yaml, sizeof yaml, fs_yaml, m, force, v0, t_end, scheme, h,
             karnopp ? ", karnopp_band: 0.01" : "");
    return tu_run_yaml(yaml, NULL, 0, sink);
}

static void fixed_step_static_level(void **state)
{
    (void)state;
    const char *schemes[2] = {"karnopp", "fixed_step_hybrid"};
    for (int i = 0; i < 2; i++) {
        stsl_sink sink;
        const stsl_mem_result *r =
            run_scheme(&sink, schemes[i], 2.0, "{type: ramp, slope: 10.0}", 0.0, 0.5, 7e-4);
        assert_int_equal(r->n_events, 1);
        assert_int_equal(r->events[0].kind, STSL_EV_BREAKAWAY);
        assert_close(r->events[0].t, 643 * 7e-4, 1e-12);
        stsl_sink_free(&sink);

        /* Stick: fixed_step_hybrid stops at the first v_k <= 0 (k = 143),
         * Karnopp at the first |v_k| < 0.01 m/s (k = 142). */
        r = run_scheme(&sink, schemes[i], 1.0, "{type: constant, value: -4.0}", 1.0, 0.5, 1e-3);
        assert_int_equal(r->n_events, 1);
        assert_int_equal(r->events[0].kind, STSL_EV_STICK);
        assert_close(r->events[0].t, i == 0 ? 0.142 : 0.143, 1e-12);
        long end = r->n_samples - 1;
        assert_int_equal(r->mode[end], STSL_MODE_STUCK);
        assert_close(col(r, end, STSL_COL_FRICTION), -4.0, 0.0);
        stsl_sink_free(&sink);

        /* On x_max = 0.2 m (e = 0) under F_a = 2 - 2 t, F_D = 0.5 N, F_S =
         * 0.75 N: released at the first step point with 2 - 2 t_k < -0.75,
         * t_k > 1.375 s: k = 1965 for h = 0.7 ms (1.25 s at the dynamic level). */
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "element: {mass: 1.0}\n"
                 "friction: {dynamic: 0.5, static_ratio: 1.5}\n"
                 "end_stops: {min: -1.0, max: 0.2, restitution: 0.0}\n"
                 "inputs: {active_force: {type: ramp, slope: -2.0, initial: 2.0}}\n"
                 "simulation: {t_end: 1.5, output_step: 0, scheme: %s, step: 7e-4%s}\n",
                 schemes[i], i == 0 ? ", karnopp_band: 0.01" : "");
        r = tu_run_yaml(yaml, NULL, 0, &sink);
        long release = -1;
        for (long k = 0; k < r->n_events; k++)
            if (r->events[k].kind == STSL_EV_STOP_RELEASE) release = k;
        assert_true(release > 0);
        assert_int_equal(r->events[release - 1].kind, STSL_EV_STOP_CONTACT);
        assert_int_equal(r->events[release - 1].mode_after, STSL_MODE_STOP_HIGH);
        assert_close(r->events[release].t, 1965 * 7e-4, 1e-12);
        assert_int_equal(r->events[release].mode_after, STSL_MODE_SLIP_NEG);
        stsl_sink_free(&sink);

        /* Held from rest by static friction above the dynamic level. */
        r = run_scheme(&sink, schemes[i], 1.0, "{type: constant, value: 4.0}", 0.0, 0.5, 1e-3);
        assert_int_equal(r->n_events, 0);
        for (long k = 0; k < r->n_samples; k++) {
            assert_int_equal(r->mode[k], STSL_MODE_STUCK);
            assert_close(col(r, k, STSL_COL_X), 0.0, 0.0);
        }
        stsl_sink_free(&sink);
    }
}

/* ---- Stribeck values where the exponent matters -------------------------------- */

/* F = F_D + (F_S - F_D) exp(-(|v|/v_s)^delta) at |v|/v_s = 0.5 and 2, for
 * delta = 2 (the default, computed without pow) and 1.5.  The exponentials
 * are literals from mpmath at 30 digits (exp(-0.25), exp(-4),
 * exp(-0.5^1.5), exp(-2^1.5)), rounded to 17; 4 ulps of 3 N for the
 * library's exp and pow. */
static void stribeck_shape_values(void **state)
{
    (void)state;
    stsl_friction_params p = {0};
    p.law = STSL_LAW_STRIBECK;
    p.stribeck_velocity = 0.01;
    const double fd = 2.0, fs = 3.0, tol = 4.0 * 3.0 * 2.220446049250313e-16;
    p.stribeck_exponent = 2.0;
    assert_close(stsl_friction_slip(&p, fd, fs, 0.005), fd + 0.77880078307140486825, tol);
    assert_close(stsl_friction_slip(&p, fd, fs, 0.02), fd + 0.018315638888734180294, tol);
    p.stribeck_exponent = 1.5;
    assert_close(stsl_friction_slip(&p, fd, fs, 0.005), fd + 0.70218850132655960, tol);
    assert_close(stsl_friction_slip(&p, fd, fs, 0.02), fd + 0.059105746561956238, tol);
}

/* ---- LuGre: presliding, where sigma1 sets the damping ---------------------------- */

/* A constant 1 N on a LuGre element whose Coulomb level is 1e8 N: the
 * bristles deflect by ~1e-4 m and never slide.  z' = w - sigma0 |w| z / g
 * differs from z' = w by sigma0 z / g <= 2 F / T_c = 2e-8 relative, so
 * z = x to that order and the element is the linear oscillator
 * m x'' + (sigma1 + d) x' + sigma0 x = F: zeta = 0.0525, a step response.
 * Tolerance: the neglected term is 2e-8 of the velocity, its integral at
 * most 2e-8 of the path (< 1e-3 m over these 3 periods), 2e-11 m; the
 * integration at atol 1e-12 adds ~1e-11 m (measured in all: 9e-12 m):
 * 1e-10 m, 1e-6 of the 1e-4 m scale.  Halving sigma1 moves x by ~1e-5 m. */
static void lugre_presliding_damping(void **state)
{
    (void)state;
    const char *yaml = "element: {mass: 1.0}\n"
                       "friction: {law: lugre, tc: 1.0e8, tst: 1.0e8, v_st: 1.0,"
                       " sigma0: 1.0e4, sigma1: 10.0, d: 0.5}\n"
                       "inputs: {active_force: {type: constant, value: 1.0}}\n"
                       "simulation: {t_end: 0.2, output_step: 0.001}\n";
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
    const double s0 = 1.0e4, cc = 10.5, w = 100.0, zeta = cc / (2.0 * w);
    double wd = w * sqrt(1.0 - zeta * zeta);
    for (long i = 0; i < r->n_samples; i += 5) {
        double t = r->t[i], e = exp(-zeta * w * t);
        double x = (1.0 - e * (cos(wd * t) + zeta * w / wd * sin(wd * t))) / s0;
        assert_close(col(r, i, STSL_COL_X), x, 1e-10);
        assert_close(col(r, i, STSL_COL_Z), x, 1e-10);
    }
    stsl_sink_free(&sink);
}

/* ---- RK4's order on a forced problem --------------------------------------------- */

/* smooth_rk4 on m x'' + c x' + k x = F0 sin(W t) (the 20-sim V law is the
 * viscous c), from rest: the closed form is the steady response plus the
 * decaying transient.  The force depends on t, so stage times matter: the
 * fitted order over h = 20, 10, 5 ms must be 4 (+- 0.5, STYLE.md rule 7).
 * The errors (1e-6 .. 1e-8 m) are far above rounding. */
static double forced_x(double t)
{
    const double m = 1.0, c = 2.0, k = 100.0, f0 = 10.0, W = 2.0 * M_PI;
    double det = (k - m * W * W) * (k - m * W * W) + c * c * W * W;
    double a = f0 * (k - m * W * W) / det, b = -f0 * c * W / det; /* a sin + b cos */
    double w = sqrt(k / m), zeta = c / (2.0 * sqrt(k * m)), wd = w * sqrt(1.0 - zeta * zeta);
    double c1 = -b, c2 = (zeta * w * c1 - a * W) / wd;
    return a * sin(W * t) + b * cos(W * t) +
           exp(-zeta * w * t) * (c1 * cos(wd * t) + c2 * sin(wd * t));
}

static void rk4_order_forced(void **state)
{
    (void)state;
    const char *fmt = "element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
                      "friction: {law: 20sim_v, d: 2.0}\n"
                      "inputs: {active_force: {type: sine, amplitude: 10.0, frequency: 1.0}}\n"
                      "simulation: {t_end: 1.0, output_step: 0, scheme: smooth_rk4,"
                      " step: %g}\n";
    const double h[3] = {0.02, 0.01, 0.005};
    double err[3];
    for (int i = 0; i < 3; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml, fmt, h[i]);
        stsl_sink sink;
        const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
        long end = r->n_samples - 1;
        assert_close(r->t[end], 1.0, 1e-12);
        err[i] = fabs(col(r, end, STSL_COL_X) - forced_x(1.0));
        stsl_sink_free(&sink);
    }
    /* Least-squares slope of log err against log h. */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < 3; i++) {
        double lx = log(h[i]), ly = log(err[i]);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
    }
    double order = (3 * sxy - sx * sy) / (3 * sxx - sx * sx);
    print_message("rk4 forced: errors %.3e %.3e %.3e, order %.3f\n", err[0], err[1], err[2], order);
    assert_true(order > 3.5 && order < 4.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(damped_coulomb_free_position),
        cmocka_unit_test(damper_driven_by_base_and_anchor),
        cmocka_unit_test(bounces_with_friction),
        cmocka_unit_test(stop_release_at_static_level),
        cmocka_unit_test(fixed_step_static_level),
        cmocka_unit_test(stribeck_shape_values),
        cmocka_unit_test(lugre_presliding_damping),
        cmocka_unit_test(rk4_order_forced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
