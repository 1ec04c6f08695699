/* test_compare_reversal.c - `compare` places a candidate's reversal
 * between its samples where the velocity's chord crosses zero, checked
 * against the closed-form reversal time.
 *
 * A block on a spring released from rest at x0 slips towards -x under
 * Coulomb friction +F_D: x(t) = F_D/k + (x0 - F_D/k) cos(w t), v(t) =
 * -(x0 - F_D/k) w sin(w t), w = sqrt(k/m), and turns at t* = pi/w exactly
 * (the spring force there, k |x| = 38 N, is far above F_S: no stick).  The
 * candidate is that closed form sampled every 13 ms, so t* lies a sixth of
 * the way into one interval: a midpoint or mis-weighted interpolation is
 * off by milliseconds, the chord's zero by 3.4 microseconds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "include/stickslip.h"
#include "test/testutil.h"

static const double M = 1.0, K = 100.0, FD = 1.0, X0 = 0.4, DT = 0.013;

static void reversal_between_samples(void **state)
{
    (void)state;
    stsl_err err;
    stsl_cfg *ref = stsl_cfg_parse("element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
                                   "friction: {dynamic: 1.0, static: 1.5}\n"
                                   "initial: {position: 0.4}\n"
                                   "simulation: {t_end: 0.5, rtol: 1e-10, atol: 1e-12}\n",
                                   NULL, &err);
    if (!ref) fail_msg("%s", err.message);
    const double w = sqrt(K / M), a = X0 - FD / K, t_star = M_PI / w;
    enum { N = 39 }; /* t = 0 .. 0.494 s */
    double t[N], x[N], v[N];
    for (int i = 0; i < N; i++) {
        t[i] = i * DT;
        x[i] = FD / K + a * cos(w * t[i]);
        v[i] = -a * w * sin(w * t[i]);
    }
    /* t* between samples 24 and 25, a sixth of the way in. */
    double frac = (t_star - t[24]) / DT;
    assert_true(frac > 0.1 && frac < 0.25);
    stsl_compare_metrics m;
    assert_int_equal(stsl_compare(ref, t, x, v, NULL, N, -1.0, -1.0, &m, &err), STSL_RC_OK);
    /* The chord of c sin(u) through u_a < 0 < u_b crosses zero at
     * u_a u_b (u_a + u_b) / 6 from u = 0 to leading order (sin u = u -
     * u^3/6 + ...; the next term is smaller by u^2 < (w DT)^2 = 1.7 %):
     * in time that over w, here 3.4e-6 s.  20 % room for the next terms;
     * the reference's reversal is located by rootfinding at rtol 1e-10. */
    double ua = w * (t[24] - t_star), ub = w * (t[25] - t_star);
    double bound = 1.2 * fabs(ua * ub * (ua + ub)) / (6.0 * w);
    print_message("reversal: t* = %.9f s, sample fraction %.3f, |event time error| %.3g s "
                  "(bound %.3g s), %ld matched\n",
                  t_star, frac, m.max_event_time_error, bound, m.events_matched);
    assert_true(m.events_matched >= 1);
    assert_true(m.max_event_time_error < bound);
    stsl_cfg_free(ref);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(reversal_between_samples)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
