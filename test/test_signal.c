/* Prescribed signals: values against their formulas, derivatives against
 * central differences, one-sided limits at discontinuities, time events and
 * the step bounds that keep frozen modes from stepping over a guard. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "physics/signal.h"
#include "test/testutil.h"

static stsl_signal *make(stsl_signal_spec *sp)
{
    stsl_error err = {0};
    stsl_signal *s = stsl_signal_create(sp, &err);
    if (!s) print_error("signal: %s\n", err.msg);
    assert_non_null(s);
    return s;
}

/* d/dt and d2/dt2 from eval() against 4th-order central differences of the
 * value (and of the first derivative), d3/dt3 (stsl_signal_third) against
 * those of the second.  h = 1e-4 s: truncation ~h^4 f^(7), rounding
 * ~eps |f''| / h; both far below the 1e-6 relative asked. */
static void check_derivatives(const stsl_signal *s, double t)
{
    const double h = 1e-4;
    double o[3], p1[3], m1[3], p2[3], m2[3];
    stsl_signal_eval(s, t, 0, o);
    stsl_signal_eval(s, t + h, 0, p1);
    stsl_signal_eval(s, t - h, 0, m1);
    stsl_signal_eval(s, t + 2 * h, 0, p2);
    stsl_signal_eval(s, t - 2 * h, 0, m2);
    double d1 = (8 * (p1[0] - m1[0]) - (p2[0] - m2[0])) / (12 * h);
    double d2 = (8 * (p1[1] - m1[1]) - (p2[1] - m2[1])) / (12 * h);
    assert_close(o[1], d1, 1e-6 * (1.0 + fabs(o[1])));
    assert_close(o[2], d2, 1e-6 * (1.0 + fabs(o[2])));
    double d3 = (8 * (p1[2] - m1[2]) - (p2[2] - m2[2])) / (12 * h), o3 = stsl_signal_third(s, t, 0);
    assert_close(o3, d3, 1e-6 * (1.0 + fabs(o3)));
}

static void sine_and_chirps(void **state)
{
    (void)state;
    stsl_signal_spec sp = {0};
    sp.type = STSL_SIG_SINE;
    sp.amplitude = 2.0;
    sp.frequency = 1.5;
    sp.phase = 0.3;
    sp.offset = -1.0;
    stsl_signal *s = make(&sp);
    assert_close(stsl_signal_value(s, 0.7, 0), -1.0 + 2.0 * sin(2 * M_PI * 1.5 * 0.7 + 0.3), 1e-15);
    for (double t = 0.0; t < 2.0; t += 0.173)
        check_derivatives(s, t);
    assert_close(stsl_signal_max_step(s, 5.0), 1.0 / (20 * 1.5), 1e-15);
    assert_true(isinf(stsl_signal_next_event(s, 0.0)));
    stsl_signal_free(s);

    /* Janecek's chirp, eqs. (12)-(14): z1 = A sin(k t^2), z1''(0) = 2 A k. */
    memset(&sp, 0, sizeof sp);
    sp.type = STSL_SIG_JANECEK_CHIRP;
    sp.amplitude = 0.05;
    sp.f_max = 0.825;
    sp.t_max = 9.5;
    s = make(&sp);
    double k = M_PI * 0.825 / 9.5, o[3];
    stsl_signal_eval(s, 0.0, 0, o);
    assert_close(o[2], 2 * 0.05 * k, 1e-15);
    assert_close(stsl_signal_value(s, 3.0, 0), 0.05 * sin(k * 9.0), 1e-15);
    for (double t = 0.1; t < 9.5; t += 0.71)
        check_derivatives(s, t);
    /* The step bound advances the phase k t^2 by 2 pi / 20. */
    for (double t = 0.0; t < 10.0; t += 2.5) {
        double h = stsl_signal_max_step(s, t);
        assert_close(k * ((t + h) * (t + h) - t * t), 2 * M_PI / 20, 1e-12);
    }
    stsl_signal_free(s);

    memset(&sp, 0, sizeof sp);
    sp.type = STSL_SIG_LINEAR_CHIRP;
    sp.amplitude = 1.0;
    sp.f0 = 0.5;
    sp.f1 = 3.0;
    sp.t1 = 4.0;
    s = make(&sp);
    double c = (3.0 - 0.5) / 8.0;
    assert_close(stsl_signal_value(s, 2.0, 0), sin(2 * M_PI * (0.5 * 2.0 + c * 4.0)), 1e-14);
    for (double t = 0.05; t < 6.0; t += 0.61)
        check_derivatives(s, t);
    assert_true(stsl_signal_max_step(s, 1.0) <= 1.0 / (20 * 3.0) + 1e-15);
    stsl_signal_free(s);
}

/* Step and ramp: the left limit for a segment that ends at the
 * discontinuity, the right limit for the one that starts there. */
static void step_and_ramp_limits(void **state)
{
    (void)state;
    stsl_signal_spec sp = {0};
    sp.type = STSL_SIG_STEP;
    sp.time = 1.0;
    sp.before = 3.0;
    sp.after = -2.0;
    stsl_signal *s = make(&sp);
    assert_close(stsl_signal_value(s, 1.0, 1), 3.0, 0.0);
    assert_close(stsl_signal_value(s, 1.0, 0), -2.0, 0.0);
    assert_close(stsl_signal_value(s, 0.999, 0), 3.0, 0.0);
    assert_close(stsl_signal_next_event(s, 0.5), 1.0, 0.0);
    assert_true(isinf(stsl_signal_next_event(s, 1.0)));
    assert_false(stsl_signal_is_constant(s));
    stsl_signal_free(s);

    memset(&sp, 0, sizeof sp);
    sp.type = STSL_SIG_RAMP;
    sp.start_time = 0.5;
    sp.slope = 4.0;
    sp.initial = 1.0;
    s = make(&sp);
    double o[3];
    stsl_signal_eval(s, 0.5, 1, o);
    assert_close(o[1], 0.0, 0.0); /* velocity before the ramp starts */
    stsl_signal_eval(s, 0.5, 0, o);
    assert_close(o[1], 4.0, 0.0);
    assert_close(stsl_signal_value(s, 2.0, 0), 1.0 + 4.0 * 1.5, 1e-15);
    assert_close(stsl_signal_next_event(s, 0.0), 0.5, 0.0);
    assert_close(stsl_signal_third(s, 0.7, 0), 0.0, 0.0);
    stsl_signal_free(s);
}

/* Tables: linear interpolation with breakpoints as time events and slopes
 * taken on the side of the segment; a cubic spline through the points with
 * continuous acceleration; the end values held outside. */
static void tables(void **state)
{
    (void)state;
    double tt[5] = {0.0, 1.0, 2.0, 3.5, 5.0}, vv[5] = {0.0, 2.0, 1.0, 1.0, 4.0};
    stsl_signal_spec sp = {0};
    sp.type = STSL_SIG_TABLE;
    sp.interpolation = STSL_INTERP_LINEAR;
    sp.n = 5;
    sp.tt = tt;
    sp.vv = vv;
    stsl_signal *s = make(&sp);
    double o[3];
    stsl_signal_eval(s, 1.5, 0, o);
    assert_close(o[0], 1.5, 1e-15);
    assert_close(o[1], -1.0, 1e-15);
    stsl_signal_eval(s, 1.0, 1, o);
    assert_close(o[1], 2.0, 1e-15);
    stsl_signal_eval(s, 1.0, 0, o);
    assert_close(o[1], -1.0, 1e-15);
    assert_close(stsl_signal_value(s, 7.0, 0), 4.0, 0.0);
    assert_close(stsl_signal_value(s, -1.0, 0), 0.0, 0.0);
    assert_close(stsl_signal_next_event(s, 0.0), 1.0, 0.0);
    assert_close(stsl_signal_next_event(s, 1.0), 2.0, 0.0);
    assert_close(stsl_signal_next_event(s, 4.0), 5.0, 0.0);
    assert_true(isinf(stsl_signal_next_event(s, 5.0)));
    stsl_signal_free(s);

    sp.interpolation = STSL_INTERP_CUBIC;
    s = make(&sp);
    for (int i = 0; i < 5; i++)
        assert_close(stsl_signal_value(s, tt[i], 1), vv[i], 1e-14);
    /* Acceleration continuous across an interior breakpoint. */
    double l[3], r[3];
    stsl_signal_eval(s, 2.0 - 1e-9, 0, l);
    stsl_signal_eval(s, 2.0 + 1e-9, 0, r);
    assert_close(l[2], r[2], 1e-6);
    /* The third derivative jumps there: each side is its own piece's. */
    assert_close(stsl_signal_third(s, 2.0, 1), stsl_signal_third(s, 1.5, 0), 1e-12);
    assert_close(stsl_signal_third(s, 2.0, 0), stsl_signal_third(s, 2.5, 0), 1e-12);
    assert_true(fabs(stsl_signal_third(s, 1.5, 0) - stsl_signal_third(s, 2.5, 0)) > 1e-3);
    assert_close(stsl_signal_third(s, 5.0, 0), 0.0, 0.0); /* held after its end */
    for (double t = 0.3; t < 4.9; t += 0.37)
        check_derivatives(s, t);
    /* Natural spline: zero acceleration at the ends. */
    stsl_signal_eval(s, 5.0, 1, o);
    assert_close(o[2], 0.0, 1e-12);
    /* Step bound: half the smaller of this and the next interval. */
    assert_close(stsl_signal_max_step(s, 1.2), 0.5, 1e-15);
    assert_close(stsl_signal_max_step(s, 2.2), 0.75, 1e-15);
    /* Only the ends are discontinuities of a cubic table. */
    assert_close(stsl_signal_next_event(s, 1.0), 5.0, 0.0);
    stsl_signal_free(s);

    /* Times that do not increase are refused. */
    double bad_t[3] = {0.0, 1.0, 1.0}, bad_v[3] = {0, 0, 0};
    sp.n = 3;
    sp.tt = bad_t;
    sp.vv = bad_v;
    stsl_error err = {0};
    assert_null(stsl_signal_create(&sp, &err));
    assert_int_equal(err.code, STSL_EINPUT);
    assert_non_null(strstr(err.msg, "row 3"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sine_and_chirps),
        cmocka_unit_test(step_and_ramp_limits),
        cmocka_unit_test(tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
