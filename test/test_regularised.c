/* test_regularised.c - the fixed-step schemes on a Stribeck law against the
 * event-driven reference and an independent quadrature: a block launched at
 * v0 on a Stribeck surface slides until friction stops it, so its final
 * position is the stopping distance
 *     x_stop = m * integral_0^v0 v / F(v) dv,  F(v) = F_D + (F_S - F_D) exp(-(v/v_s)^2),
 * which depends on the friction level at every speed, not only at rest.
 * smooth_rk4 replaces the law by F(|v|) tanh(v / v_reg) and must converge
 * to x_stop as h and v_reg shrink together; fixed_step_hybrid as h
 * shrinks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "io/result/mem_sink.h"
#include "models/element_params.h"
#include "test/testutil.h"

static const double M = 1.0, FD = 1.0, FS = 1.5, VS = 0.2, V0 = 1.0;

#define YAML                                                                                       \
    "element: {mass: 1.0}\n"                                                                       \
    "friction: {law: stribeck, dynamic: 1.0, static: 1.5, stribeck_velocity: 0.2}\n"               \
    "initial: {velocity: 1.0}\n"

static double level(double v)
{
    return FD + (FS - FD) * exp(-(v / VS) * (v / VS));
}

/* Composite Simpson on 20000 intervals: the integrand is smooth (F >= F_D
 * > 0), its fourth derivative is O(1 / v_s^4) ~ 1e3, so the rule's error
 * is below (1/180) (V0/20000)^4 * 1e3 * V0 ~ 4e-20: exact to rounding. */
static double stopping_distance(void)
{
    const int n = 20000;
    double h = V0 / n, sum = 0.0;
    for (int i = 0; i <= n; i++) {
        double v = i * h, w = i == 0 || i == n ? 1.0 : i % 2 ? 4.0 : 2.0;
        sum += w * v / level(v);
    }
    return M * sum * h / 3.0;
}

static double final_x(const char *sim)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, YAML "simulation: {t_end: 1.5, %s}\n", sim);
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
    double x = tu_col(r, r->n_samples - 1, STSL_COL_X);
    stsl_sink_free(&sink);
    return x;
}

static void stribeck_stopping_distance(void **state)
{
    (void)state;
    double exact = stopping_distance();
    /* The event-driven reference at rtol 1e-10 (its stick is located by
     * rootfinding): within 1e-8 m of the quadrature. */
    double ref = final_x("rtol: 1e-10, atol: 1e-12");
    print_message("x_stop: quadrature %.12f m, event-driven %.12f m\n", exact, ref);
    assert_true(fabs(ref - exact) < 1e-8);

    /* smooth_rk4 with v_reg = h (stable: RK4 needs h < 2.78 m v_reg / F_S,
     * the slope of F_S tanh(v / v_reg) at rest).  The regularised law
     * decelerates less below v ~ v_reg, so the block slides further by
     *   m int_0^inf v (coth(v / v_reg) - 1) dv = (pi^2 / 12) m v_reg^2 / F_S
     * to leading order (F = F_S there; the next terms are O(v_reg^3 / v_s)
     * from F's curvature, relative v_reg / v_s < 0.2 %, and RK4's own
     * error is O(h^4)).  So the signed error against the exact distance
     * is that estimate, falling as h^2: within 10 %, room for the decay
     * phase that only a few steps resolve (measured: +2 % at each h; the
     * event-driven reference is 1.2e-9 m from the quadrature). */
    for (int k = 0; k < 3; k++) {
        double h = 4e-4 / (1 << k);
        char sim[160];
        snprintf(sim, sizeof sim,
                 "scheme: smooth_rk4, step: %g, regularisation_velocity: %g, output_step: 0.01", h,
                 h);
        double x = final_x(sim), est = M_PI * M_PI / 12.0 * M * h * h / FS;
        print_message("smooth_rk4 h = v_reg = %g: x - x_stop %.3g m (estimate %.3g m), x - "
                      "event-driven %.3g m\n",
                      h, x - exact, est, x - ref);
        assert_true(fabs((x - exact) - est) < 0.1 * est);
    }
    /* fixed_step_hybrid: first order (the stick is decided a step late);
     * its error is at most one step's travel near rest, h * |v| < h * h *
     * F_S / m, plus O(h) from the Euler update: within h * V0. */
    for (int k = 0; k < 3; k++) {
        double h = 4e-4 / (1 << k);
        char sim[160];
        snprintf(sim, sizeof sim, "scheme: fixed_step_hybrid, step: %g, output_step: 0.01", h);
        double err = fabs(final_x(sim) - ref);
        print_message("fixed_step_hybrid h = %g: |x error| %.3g m\n", h, err);
        assert_true(err < h * V0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(stribeck_stopping_distance)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
