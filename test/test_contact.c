/* One contact's rules (physics/contact.h) against closed forms: SPEC §1.1's
 * static levels and worked checks, the decisions of §1.2 as pure
 * functions, impact and bounces, tolerances and natural scales; and the
 * stop ops beside them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "physics/end_stop.h"
#include "physics/contact.h"
#include "models/element_params.h"
#include "physics/friction.h"
#include "test/testutil.h"

#include <float.h>
#include <math.h>

static void rest_band_is_inclusive(void **state)
{
    (void)state;
    assert_int_equal(stsl_contact_decide_rest(0.0, 27.0, 36.0), STSL_MODE_STUCK);
    assert_int_equal(stsl_contact_decide_rest(27.0, 27.0, 36.0), STSL_MODE_STUCK);
    assert_int_equal(stsl_contact_decide_rest(-36.0, 27.0, 36.0), STSL_MODE_STUCK);
    assert_int_equal(stsl_contact_decide_rest(27.0000001, 27.0, 36.0), STSL_MODE_SLIP_POS);
    assert_int_equal(stsl_contact_decide_rest(-36.0000001, 27.0, 36.0), STSL_MODE_SLIP_NEG);
    /* The excess beyond the band: 0 at its edges, its sign says which side
     * a force is on (exact differences of small integers). */
    assert_true(stsl_contact_band_excess(27.0, +1, 27.0) == 0.0);
    assert_true(stsl_contact_band_excess(-36.0, -1, 36.0) == 0.0);
    assert_true(stsl_contact_band_excess(30.0, +1, 27.0) == 3.0);
    assert_true(stsl_contact_band_excess(30.0, -1, 36.0) == -66.0);
    assert_true(stsl_contact_band_excess(-40.0, -1, 36.0) == 4.0);
}

static void at_stop(void **state)
{
    (void)state;
    /* Pressed into the high stop, or held there by friction: stays. */
    assert_int_equal(stsl_contact_decide_at_stop(+1, 100.0, 10.0, 12.0), STSL_MODE_STOP_HIGH);
    assert_int_equal(stsl_contact_decide_at_stop(+1, -12.0, 10.0, 12.0), STSL_MODE_STOP_HIGH);
    /* Pulled off harder than F_S(-1): released into SLIP_NEG. */
    assert_int_equal(stsl_contact_decide_at_stop(+1, -12.5, 10.0, 12.0), STSL_MODE_SLIP_NEG);
    assert_int_equal(stsl_contact_decide_at_stop(-1, -100.0, 10.0, 12.0), STSL_MODE_STOP_LOW);
    assert_int_equal(stsl_contact_decide_at_stop(-1, 10.5, 10.0, 12.0), STSL_MODE_SLIP_POS);
}

static void impact_rebound(void **state)
{
    (void)state;
    double vp;
    /* e = 0: rests on the stop. */
    assert_int_equal(stsl_contact_decide_impact(2.0, 0.0, 5.0, 1e-9, &vp), 1);
    assert_true(vp == 0.0);
    /* e = 0.5: bounces back at half the speed. */
    assert_int_equal(stsl_contact_decide_impact(2.0, 0.5, 5.0, 1e-9, &vp), 0);
    assert_close(vp, -1.0, 0.0);
    /* A rebound rising v^2 / (2 a) = 1e-10 below the resolvable height: rests. */
    assert_int_equal(stsl_contact_decide_impact(2e-5, 0.5, 0.5, 1e-9, &vp), 1);
    assert_true(vp == 0.0);
    /* Pulled away from the stop (a_up <= 0): bounces however small. */
    assert_int_equal(stsl_contact_decide_impact(1e-12, 0.5, -1.0, 1e-9, &vp), 0);
}

/* The left-out bounces add up to the geometric series of their flights. */
static void bounce_tail_series(void **state)
{
    (void)state;
    /* Symmetric (no friction): flights 2 v e^k / a, sum 2 v / (a (1 - e)). */
    assert_close(stsl_contact_bounce_tail(0.1, 0.5, 2.0, 2.0), 2.0 * 0.1 / (2.0 * 0.5), 1e-15);
    /* Asymmetric: sum the series by brute force. */
    double v = 0.3, e = 0.6, up = 3.0, down = 1.2, sum = 0.0;
    for (int k = 0; k < 200; k++) {
        sum += v / up + v / sqrt(up * down);
        v *= e * sqrt(down / up);
    }
    assert_close(stsl_contact_bounce_tail(0.3, e, up, down), sum, 1e-14);
    assert_close(stsl_contact_bounce_tail(0.3, 0.0, up, down), 0.0, 0.0);
    assert_close(stsl_contact_bounce_tail(0.3, e, up, -1.0), 0.0, 0.0);
}

/* The rigid stop's ops: a stop only pushes (its reaction is the compressive
 * part of F_n, towards the stop), its guard is x - stop, and its contact
 * decision is the contact's, tested above. */
static void rigid_stop_ops(void **state)
{
    (void)state;
    const stsl_end_stop_ops *s = stsl_end_stop(STSL_STOP_RIGID);
    const stsl_stop_params p = {-1.0, 1.0, 0.5, 0.0, 0.0};
    assert_true(s->reaction(&p, +1, 3.0, 1.0, 0.0) == 3.0);
    assert_true(s->reaction(&p, +1, -3.0, 1.0, 0.0) == 0.0);
    assert_true(s->reaction(&p, -1, -3.0, -1.0, 0.0) == 3.0);
    assert_true(s->reaction(&p, -1, 3.0, -1.0, 0.0) == 0.0);
    assert_true(s->guard(&p, +1, 1.25, 0.0) == 0.25);
    assert_int_equal(s->contact(+1, -20.0, 5.0, 5.0), STSL_MODE_SLIP_NEG);
    assert_int_equal(s->contact(-1, 1.0, 5.0, 5.0), STSL_MODE_STOP_LOW);
    assert_null(stsl_end_stop(STSL_STOP_COMPLIANT)->contact); /* its contact is a mode */
}

/* ---- static level (SPEC §1.1) ---------------------------------------------------- */

/* Every level below is at most three roundings (1/EtO - 1 or 1 - EtA, the
 * product with |F_R|, the sum, the product with FSD) of numbers below 128:
 * within 4 x 128 x 2^-53 ~ 6e-14 of the exact value; 1e-13 bounds it. */
#define LEVEL_TOL 1e-13

static void levels(double dyn, double fsd, double eto, double eta, int s, double load, double *fd,
                   double *fs)
{
    stsl_contact_friction f = {dyn, fsd, eto, eta};
    stsl_contact_levels(&f, s, load, fd, fs);
}

/* Dalla Vedova's example (F_DJ 10 N, FSD 1.2, EtO 0.8, EtA 0.6, F_R = +50 N):
 * slip + is aided, F_D = 10 + 0.4 * 50 = 30, F_S = 36; slip - is opposed,
 * F_D = 10 + (1/0.8 - 1) 50 = 22.5, F_S = 27 (the dv_* examples' band). */
static void static_level_both_branches(void **state)
{
    (void)state;
    double fd, fs;
    levels(10.0, 1.2, 0.8, 0.6, +1, 50.0, &fd, &fs);
    assert_close(fd, 30.0, LEVEL_TOL);
    assert_close(fs, 36.0, LEVEL_TOL);
    levels(10.0, 1.2, 0.8, 0.6, -1, 50.0, &fd, &fs);
    assert_close(fd, 22.5, LEVEL_TOL);
    assert_close(fs, 27.0, LEVEL_TOL);
    /* The mirror: the load's sign selects the branch, not the direction. */
    levels(10.0, 1.2, 0.8, 0.6, -1, -50.0, &fd, &fs);
    assert_close(fs, 36.0, LEVEL_TOL);
    /* No load: F_DJ both ways, exactly. */
    levels(10.0, 1.2, 0.8, 0.6, +1, 0.0, &fd, &fs);
    assert_true(fd == 10.0 && fs == 12.0);
    levels(10.0, 1.2, 0.8, 0.6, -1, -0.0, &fd, &fs);
    assert_true(fd == 10.0 && fs == 12.0);
}

/* SPEC §1.1's worked checks, with F_DJ = 0 so that the load's friction is
 * all there is: with EtA = 0 an aiding load is cancelled exactly by the
 * friction it creates (F_R - F_D(+1) = 0); with EtA = -0.5 (-1) it creates
 * 1.5 |F_R| (2 |F_R|), so the motor must push 0.5 |F_R| (|F_R|) to move
 * with the load.  Against a load, EtO: the motor pushes |F_R| / EtO (output
 * power = EtO x input power). */
static void static_level_worked_checks(void **state)
{
    (void)state;
    const double fr = 40.0;
    double fd, fs;
    levels(0.0, 1.0, 1.0, 0.0, +1, fr, &fd, &fs);
    assert_close(fr - fd, 0.0, LEVEL_TOL);
    levels(0.0, 1.0, 1.0, -0.5, +1, fr, &fd, &fs);
    assert_close(fd, 1.5 * fr, LEVEL_TOL);
    assert_close(fd - fr, 0.5 * fr, LEVEL_TOL); /* the motor's push along the load */
    levels(0.0, 1.0, 1.0, -1.0, +1, fr, &fd, &fs);
    assert_close(fd, 2.0 * fr, LEVEL_TOL);
    assert_close(fd - fr, fr, LEVEL_TOL);
    levels(0.0, 1.0, 0.5, 1.0, +1, -fr, &fd, &fs); /* opposing, EtO = 0.5 */
    assert_close(fr + fd, fr / 0.5, LEVEL_TOL);
    levels(0.0, 1.0, 0.8, 1.0, +1, -fr, &fd, &fs);
    assert_close(fr + fd, fr / 0.8, LEVEL_TOL);
    /* Reversible and ideal (EtO = EtA = 1): the load adds no friction. */
    levels(3.0, 1.5, 1.0, 1.0, +1, fr, &fd, &fs);
    assert_true(fd == 3.0 && fs == 4.5);
}

/* Irreversible (EtA <= 0): the load alone never back-drives the element.
 * At rest with F_n = F_R only, the static level in the load's direction is
 * FSD (F_DJ + (1 - EtA)|F_R|) >= |F_R|, so the stick test keeps it stuck for
 * every load, even at F_DJ = 0 and FSD = 1 with EtA = 0, where F_n touches
 * the edge of the (closed) band. */
static void irreversible_holds_any_load(void **state)
{
    (void)state;
    const double eta[] = {0.0, -0.5, -1.0};
    for (int i = 0; i < 3; i++)
        for (double fr = -1e4; fr <= 1e4; fr += 37.5) {
            double fd, fs_pos, fs_neg;
            levels(0.0, 1.0, 0.7, eta[i], +1, fr, &fd, &fs_pos);
            levels(0.0, 1.0, 0.7, eta[i], -1, fr, &fd, &fs_neg);
            assert_int_equal(stsl_contact_decide_rest(fr, fs_pos, fs_neg), STSL_CONTACT_STUCK);
        }
    /* Reversible (EtA = 0.5): the same load drives it once |F_R| exceeds
     * F_S = FSD (F_DJ + 0.5 |F_R|), here 1 + 0.5 |F_R| < |F_R| for |F_R| > 2. */
    double fd, fs_pos, fs_neg;
    levels(1.0, 1.0, 0.7, 0.5, +1, 10.0, &fd, &fs_pos);
    levels(1.0, 1.0, 0.7, 0.5, -1, 10.0, &fd, &fs_neg);
    assert_int_equal(stsl_contact_decide_rest(10.0, fs_pos, fs_neg), STSL_CONTACT_SLIP_POS);
}

/* The friction law's levels are the contact's, field by field: distinct
 * values for every parameter, so a swapped field shows. */
static void law_levels_are_the_contacts(void **state)
{
    (void)state;
    const stsl_friction_params p = {.law = STSL_LAW_COULOMB,
                                    .dynamic = 2.0,
                                    .static_ratio = 1.25,
                                    .eff_opposing = 0.8,
                                    .eff_aiding = 0.3};
    for (int s = -1; s <= 1; s += 2)
        for (double load = -6.0; load <= 6.0; load += 3.0) {
            double fd, fs, cd, cs;
            stsl_friction_levels(&p, s, load, &fd, &fs);
            levels(2.0, 1.25, 0.8, 0.3, s, load, &cd, &cs);
            assert_true(fd == cd && fs == cs);
        }
    /* The natural force scale of a hybrid law: its static level without load. */
    assert_true(stsl_friction_scale(&p) == 2.5);
}

/* ---- states ------------------------------------------------------------------------ */

/* The numbers are stored in result files: the element's first three modes
 * and a system's contact_mode column are these. */
static void states_are_one_set(void **state)
{
    (void)state;
    assert_int_equal(STSL_CONTACT_STUCK, 0);
    assert_int_equal(STSL_CONTACT_SLIP_POS, 1);
    assert_int_equal(STSL_CONTACT_SLIP_NEG, 2);
    assert_int_equal(STSL_CONTACT_SMOOTH, 3);
    assert_int_equal(STSL_MODE_STUCK, STSL_CONTACT_STUCK);
    assert_int_equal(STSL_MODE_SLIP_POS, STSL_CONTACT_SLIP_POS);
    assert_int_equal(STSL_MODE_SLIP_NEG, STSL_CONTACT_SLIP_NEG);
    const char *const *n = stsl_contact_state_names();
    assert_string_equal(n[STSL_CONTACT_STUCK], "STUCK");
    assert_string_equal(n[STSL_CONTACT_SLIP_POS], "SLIP_POS");
    assert_string_equal(n[STSL_CONTACT_SLIP_NEG], "SLIP_NEG");
    assert_string_equal(n[STSL_CONTACT_SMOOTH], "SMOOTH");
    assert_null(n[STSL_N_CONTACT_STATES]);
    /* The element's mode names agree where the sets meet. */
    for (int i = STSL_CONTACT_STUCK; i <= STSL_CONTACT_SLIP_NEG; i++)
        assert_string_equal(stsl_mode_names()[i], n[i]);
    assert_int_equal(stsl_contact_slip_state(0.25), STSL_CONTACT_SLIP_POS);
    assert_int_equal(stsl_contact_slip_state(-0.25), STSL_CONTACT_SLIP_NEG);
}

/* The event a change of state records (SPEC §1.2's names), none for no
 * change and none for a smooth law, which has no stuck state to leave. */
static void state_change_events(void **state)
{
    (void)state;
    const int S = STSL_CONTACT_STUCK, P = STSL_CONTACT_SLIP_POS, N = STSL_CONTACT_SLIP_NEG,
              M = STSL_CONTACT_SMOOTH;
    assert_int_equal(stsl_contact_event(P, S), STSL_EV_STICK);
    assert_int_equal(stsl_contact_event(N, S), STSL_EV_STICK);
    assert_int_equal(stsl_contact_event(S, P), STSL_EV_BREAKAWAY);
    assert_int_equal(stsl_contact_event(S, N), STSL_EV_BREAKAWAY);
    assert_int_equal(stsl_contact_event(P, N), STSL_EV_REVERSAL);
    assert_int_equal(stsl_contact_event(N, P), STSL_EV_REVERSAL);
    for (int a = S; a <= M; a++) {
        assert_int_equal(stsl_contact_event(a, a), STSL_NO_EVENT);
        assert_int_equal(stsl_contact_event(a, M), STSL_NO_EVENT);
        assert_int_equal(stsl_contact_event(M, a), STSL_NO_EVENT);
    }
}

/* The stop a position is at, and contact with a compliant stop (k = 100,
 * c = 10 at x_max = 1): penetrating and moving in, or pushed out
 * (P = k delta + c delta' > 0), is contact; at delta = 0 at rest, or
 * leaving faster than the spring pushes (P < 0), it is not. */
static void stop_sides(void **state)
{
    (void)state;
    const stsl_stop_params p = {-1.0, 1.0, 0.0, 100.0, 10.0};
    assert_int_equal(stsl_end_stop_side(&p, 1.0), +1);
    assert_int_equal(stsl_end_stop_side(&p, 1.5), +1);
    assert_int_equal(stsl_end_stop_side(&p, -1.0), -1);
    assert_int_equal(stsl_end_stop_side(&p, 0.999), 0);
    const stsl_end_stop_ops *c = stsl_end_stop(STSL_STOP_COMPLIANT);
    assert_true(stsl_end_stop_in_contact(c, &p, +1, 1.0, 0.5));    /* moving in */
    assert_false(stsl_end_stop_in_contact(c, &p, +1, 1.0, 0.0));   /* only touches */
    assert_true(stsl_end_stop_in_contact(c, &p, +1, 1.01, -0.05)); /* P = 1 - 0.5 > 0 */
    assert_false(stsl_end_stop_in_contact(c, &p, +1, 1.01, -0.2)); /* P = 1 - 2 < 0 */
    assert_false(stsl_end_stop_in_contact(c, &p, +1, 0.99, 0.5));  /* not penetrating */
    assert_true(stsl_end_stop_in_contact(c, &p, -1, -1.01, 0.05)); /* the mirror */
}

/* ---- impact ------------------------------------------------------------------------ */

/* What an impact records: a resolved rebound is an `impact` with nothing
 * pending; an unresolved one rests at once, records `impact`, and the
 * bounces left out end at t + tail (symmetric: tail = 2 e v / (a (1 - e)));
 * a plastic one (e = 0), or a tail below the resolution of t, is a
 * `stop_contact` with nothing pending. */
static void impact_records(void **state)
{
    (void)state;
    stsl_contact_impact im;
    stsl_contact_impact_at(1.0, 2.0, 0.5, 5.0, 5.0, 1e-9, &im);
    assert_false(im.rests);
    assert_true(im.v_plus == -1.0);
    assert_int_equal(im.kind, STSL_EV_IMPACT);
    assert_false(im.pending);
    stsl_contact_impact_at(1.0, 2e-5, 0.5, 0.5, 0.5, 1e-9, &im);
    assert_true(im.rests && im.v_plus == 0.0 && im.pending);
    assert_int_equal(im.kind, STSL_EV_IMPACT);
    /* 2 (0.5 * 2e-5) / (0.5 (1 - 0.5)) = 8e-5 s; a few roundings of t = 1. */
    assert_close(im.settle_at, 1.0 + 8e-5, 1e-15);
    stsl_contact_impact_at(1.0, 2.0, 0.0, 5.0, 5.0, 1e-9, &im);
    assert_true(im.rests && !im.pending);
    assert_int_equal(im.kind, STSL_EV_STOP_CONTACT);
    stsl_contact_impact_at(1e20, 2e-5, 0.5, 0.5, 0.5, 1e-9, &im);
    assert_true(im.rests && !im.pending);
    assert_int_equal(im.kind, STSL_EV_STOP_CONTACT);
    /* The resolvable height: 1000 position tolerances at the stop. */
    assert_close(stsl_contact_min_height(1e-10, -0.5, 1e-12), 1000.0 * 5.1e-11, 1e-22);
}

/* ---- tolerances and scales ---------------------------------------------------------- */

static void tolerances(void **state)
{
    (void)state;
    /* Powers of two times DBL_EPSILON: exact. */
    assert_true(stsl_contact_noise(2.0) == 128.0 * DBL_EPSILON);
    assert_true(stsl_contact_lookahead_start(0.0) == 64.0 * DBL_EPSILON);
    assert_true(stsl_contact_lookahead_start(-4.0) == 256.0 * DBL_EPSILON);
    /* No input time scale: 1e-3 max(1, |t|); an input's, and the next
     * discontinuity, bound it. */
    assert_true(stsl_contact_lookahead_horizon(0.5, INFINITY, INFINITY) == 1e-3);
    assert_true(stsl_contact_lookahead_horizon(-2.0, INFINITY, INFINITY) == 2e-3);
    assert_true(stsl_contact_lookahead_horizon(1.0, 0.25, INFINITY) == 0.25);
    assert_true(stsl_contact_lookahead_horizon(1.0, 0.25, 1.125) == 0.125);
}

static void natural_scales(void **state)
{
    (void)state;
    /* sqrt(m/k), sqrt(m l/f), m/c, 1: each 0.5 here, exactly. */
    assert_true(stsl_contact_time_scale(2.0, 8.0, 4.0, 0.5, 4.0) == 0.5);
    assert_true(stsl_contact_time_scale(2.0, 0.0, 4.0, 0.5, 1.0) == 0.5);
    assert_true(stsl_contact_time_scale(2.0, 0.0, 0.0, 0.5, 4.0) == 0.5);
    assert_true(stsl_contact_time_scale(2.0, 0.0, 0.0, 0.5, 0.0) == 1.0);
    double l = INFINITY;
    stsl_contact_keep_smaller(&l, 0.0);
    stsl_contact_keep_smaller(&l, -1.0);
    stsl_contact_keep_smaller(&l, NAN);
    stsl_contact_keep_smaller(&l, INFINITY);
    assert_true(isinf(l)); /* absent features leave it */
    stsl_contact_keep_smaller(&l, 3.0);
    stsl_contact_keep_smaller(&l, 5.0);
    assert_true(l == 3.0);
    assert_true(stsl_contact_natural_step(20.0) == 1.0);
    assert_true(isinf(stsl_contact_natural_step(INFINITY)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rest_band_is_inclusive),
        cmocka_unit_test(at_stop),
        cmocka_unit_test(impact_rebound),
        cmocka_unit_test(bounce_tail_series),
        cmocka_unit_test(rigid_stop_ops),
        cmocka_unit_test(static_level_both_branches),
        cmocka_unit_test(static_level_worked_checks),
        cmocka_unit_test(irreversible_holds_any_load),
        cmocka_unit_test(law_levels_are_the_contacts),
        cmocka_unit_test(states_are_one_set),
        cmocka_unit_test(state_change_events),
        cmocka_unit_test(stop_sides),
        cmocka_unit_test(impact_records),
        cmocka_unit_test(tolerances),
        cmocka_unit_test(natural_scales),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
