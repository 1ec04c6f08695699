/* The transition decisions of SPEC §1.2 as pure functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "events/guards.h"
#include "events/transition.h"
#include "models/element.h"
#include "test/testutil.h"

#include <math.h>

static void rest_band_is_inclusive(void **state)
{
    (void)state;
    assert_int_equal(stsl_decide_rest(0.0, 27.0, 36.0), STSL_MODE_STUCK);
    assert_int_equal(stsl_decide_rest(27.0, 27.0, 36.0), STSL_MODE_STUCK);
    assert_int_equal(stsl_decide_rest(-36.0, 27.0, 36.0), STSL_MODE_STUCK);
    assert_int_equal(stsl_decide_rest(27.0000001, 27.0, 36.0), STSL_MODE_SLIP_POS);
    assert_int_equal(stsl_decide_rest(-36.0000001, 27.0, 36.0), STSL_MODE_SLIP_NEG);
}

static void velocity_zero(void **state)
{
    (void)state;
    int mode, kind;
    /* Stick test holds: stick. */
    stsl_decide_velocity_zero(STSL_MODE_SLIP_POS, 5.0, 10.0, 10.0, &mode, &kind);
    assert_int_equal(mode, STSL_MODE_STUCK);
    assert_int_equal(kind, STSL_EV_STICK);
    /* Pulled back harder than the static limit: reversal without locking. */
    stsl_decide_velocity_zero(STSL_MODE_SLIP_POS, -12.0, 10.0, 11.0, &mode, &kind);
    assert_int_equal(mode, STSL_MODE_SLIP_NEG);
    assert_int_equal(kind, STSL_EV_REVERSAL);
    stsl_decide_velocity_zero(STSL_MODE_SLIP_NEG, 10.5, 10.0, 11.0, &mode, &kind);
    assert_int_equal(mode, STSL_MODE_SLIP_POS);
    assert_int_equal(kind, STSL_EV_REVERSAL);
    /* Touching zero velocity while pushed on the same way: no event. */
    stsl_decide_velocity_zero(STSL_MODE_SLIP_POS, 10.5, 10.0, 11.0, &mode, &kind);
    assert_int_equal(mode, STSL_MODE_SLIP_POS);
    assert_int_equal(kind, -1);
}

static void at_stop(void **state)
{
    (void)state;
    /* Pressed into the high stop, or held there by friction: stays. */
    assert_int_equal(stsl_decide_at_stop(+1, 100.0, 10.0, 12.0), STSL_MODE_STOP_HIGH);
    assert_int_equal(stsl_decide_at_stop(+1, -12.0, 10.0, 12.0), STSL_MODE_STOP_HIGH);
    /* Pulled off harder than F_S(-1): released into SLIP_NEG. */
    assert_int_equal(stsl_decide_at_stop(+1, -12.5, 10.0, 12.0), STSL_MODE_SLIP_NEG);
    assert_int_equal(stsl_decide_at_stop(-1, -100.0, 10.0, 12.0), STSL_MODE_STOP_LOW);
    assert_int_equal(stsl_decide_at_stop(-1, 10.5, 10.0, 12.0), STSL_MODE_SLIP_POS);
}

static void impact_rebound(void **state)
{
    (void)state;
    double vp;
    /* e = 0: rests on the stop. */
    assert_int_equal(stsl_decide_impact(2.0, 0.0, 5.0, 1e-9, &vp), 1);
    assert_true(vp == 0.0);
    /* e = 0.5: bounces back at half the speed. */
    assert_int_equal(stsl_decide_impact(2.0, 0.5, 5.0, 1e-9, &vp), 0);
    assert_close(vp, -1.0, 0.0);
    /* A rebound rising v^2 / (2 a) = 1e-10 below the resolvable height: rests. */
    assert_int_equal(stsl_decide_impact(2e-5, 0.5, 0.5, 1e-9, &vp), 1);
    assert_true(vp == 0.0);
    /* Pulled away from the stop (a_up <= 0): bounces however small. */
    assert_int_equal(stsl_decide_impact(1e-12, 0.5, -1.0, 1e-9, &vp), 0);
}

/* The left-out bounces add up to the geometric series of their flights. */
static void bounce_tail_series(void **state)
{
    (void)state;
    /* Symmetric (no friction): flights 2 v e^k / a, sum 2 v / (a (1 - e)). */
    assert_close(stsl_bounce_tail(0.1, 0.5, 2.0, 2.0), 2.0 * 0.1 / (2.0 * 0.5), 1e-15);
    /* Asymmetric: sum the series by brute force. */
    double v = 0.3, e = 0.6, up = 3.0, down = 1.2, sum = 0.0;
    for (int k = 0; k < 200; k++) {
        sum += v / up + v / sqrt(up * down);
        v *= e * sqrt(down / up);
    }
    assert_close(stsl_bounce_tail(0.3, e, up, down), sum, 1e-14);
    assert_close(stsl_bounce_tail(0.3, 0.0, up, down), 0.0, 0.0);
    assert_close(stsl_bounce_tail(0.3, e, up, -1.0), 0.0, 0.0);
}

static void guards_match_spec_table(void **state)
{
    (void)state;
    const stsl_stop_params sp = {-1.0, 1.0, 0.0, 0.0, 0.0};
    stsl_guard_in in = {5.0, 10.0, 12.0, 0.3, -0.2, 7.0, &sp, 1, 1, stsl_rigid_stop()};
    double g[STSL_ELEMENT_MAX_GUARDS];
    assert_int_equal(stsl_guards_eval(STSL_MODE_STUCK, &in, g), 2);
    assert_close(g[0], 5.0 - 10.0, 0.0);
    assert_close(g[1], -5.0 - 12.0, 0.0);
    assert_int_equal(stsl_guards_eval(STSL_MODE_SLIP_POS, &in, g), 3);
    assert_close(g[0], -0.2, 0.0);
    assert_close(g[1], 0.3 - 1.0, 0.0);
    assert_close(g[2], 7.0, 0.0);
    assert_int_equal(stsl_guards_eval(STSL_MODE_SLIP_NEG, &in, g), 3);
    assert_close(g[1], 0.3 + 1.0, 0.0);
    assert_int_equal(stsl_guards_eval(STSL_MODE_STOP_HIGH, &in, g), 1);
    assert_close(g[0], 5.0 + 12.0, 0.0);
    assert_int_equal(stsl_guards_eval(STSL_MODE_STOP_LOW, &in, g), 1);
    assert_close(g[0], 5.0 - 10.0, 0.0);
    /* Without stops and with a constant load the extra guards never cross. */
    in.has_stops = 0;
    in.load_varies = 0;
    stsl_guards_eval(STSL_MODE_SLIP_POS, &in, g);
    assert_close(g[1], 1.0, 0.0);
    assert_close(g[2], 1.0, 0.0);
    const stsl_mode_desc *m = stsl_element_modes();
    assert_true(m[STSL_MODE_STUCK].frozen && m[STSL_MODE_STOP_HIGH].frozen);
    assert_false(m[STSL_MODE_SLIP_POS].frozen);
    assert_int_equal(m[STSL_MODE_SLIP_POS].guard_dir[0], STSL_GUARD_FALLING);
    assert_int_equal(m[STSL_MODE_SLIP_NEG].guard_dir[0], STSL_GUARD_RISING);
}

/* The rigid stop's ops: a stop only pushes (its reaction is the compressive
 * part of F_n, towards the stop), its guard is x - stop, and its impact and
 * contact decisions are the transition functions tested above. */
static void rigid_stop_ops(void **state)
{
    (void)state;
    const stsl_end_stop_ops *s = stsl_rigid_stop();
    const stsl_stop_params p = {-1.0, 1.0, 0.5, 0.0, 0.0};
    assert_true(s->reaction(&p, +1, 3.0, 1.0, 0.0) == 3.0);
    assert_true(s->reaction(&p, +1, -3.0, 1.0, 0.0) == 0.0);
    assert_true(s->reaction(&p, -1, -3.0, -1.0, 0.0) == 3.0);
    assert_true(s->reaction(&p, -1, 3.0, -1.0, 0.0) == 0.0);
    assert_true(s->guard(&p, +1, 1.25, 0.0) == 0.25);
    assert_int_equal(s->contact(+1, -20.0, 5.0, 5.0), STSL_MODE_SLIP_NEG);
    assert_int_equal(s->contact(-1, 1.0, 5.0, 5.0), STSL_MODE_STOP_LOW);
    double vp;
    assert_int_equal(s->impact(2.0, 0.5, 10.0, 1e-9, &vp), 0);
    assert_true(vp == -1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rest_band_is_inclusive),
        cmocka_unit_test(velocity_zero),
        cmocka_unit_test(at_stop),
        cmocka_unit_test(impact_rebound),
        cmocka_unit_test(bounce_tail_series),
        cmocka_unit_test(guards_match_spec_table),
        cmocka_unit_test(rigid_stop_ops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
