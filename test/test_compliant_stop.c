/* The compliant end stop (issue 14, item 4) against closed forms.
 *
 * Convention (README, Physics): while the element penetrates the stop by
 * delta = s (x - x_stop) >= 0 the stop pushes it out with
 * P = k delta + c delta', never pulling: the contact ends where P falls to 0.
 * A free element entering with speed v0 then moves as the damped oscillator
 * delta = (v0 / w) exp(-b t) sin(w t) (b = c / 2m, w = sqrt(k/m - b^2)) until
 * P = -m delta'' = 0, i.e. at w t_c = phi = atan2(2 b w, b^2 - w^2) (pi for
 * c = 0: the undamped half cycle; below pi with damping, where the
 * unclamped dashpot would pull during the rest of the half cycle).  There
 * delta' = -v0 exp(-b t_c), so the coefficient of restitution is
 * e = exp(-b phi / w) (not the unclamped exp(-zeta pi / sqrt(1 - zeta^2))),
 * the energy lost per bounce (1 - e^2) m v0^2 / 2, and the element leaves at
 * delta_c = (v0 / w) exp(-b t_c) sin(phi) > 0.
 *
 * Tolerances: runs at rtol 1e-10, atol 1e-12 (the defaults); event times
 * are roots of guards located to about 1e-15 s, and the states carry the
 * integration error of at most one oscillation, so, as in test_physics, the
 * checks ask for weighted RMS < 1 with rtol 1e-8, atol 1e-10 unless a test
 * argues another bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "models/element_params.h"
#include "run/run.h"
#include "test/testutil.h"

#define RT 1e-8
#define AT 1e-10

static double col(const stsl_mem_result *r, long i, int c)
{
    return r->cols[i * r->n_cols + c];
}

/* The index of the n-th event (0-based) of `kind`, -1 when there is none. */
static long nth_event(const stsl_mem_result *r, int kind, int n)
{
    for (long i = 0; i < r->n_events; i++)
        if (r->events[i].kind == kind && n-- == 0) return i;
    return -1;
}

/* ---- one bounce off a free flight -------------------------------------------- */

/* A free element (no friction, no spring) at speed v0 hits the stop at
 * `side`, for several damping ratios (0: the elastic case, e = 1 and
 * t_c = pi / w; 0.8: b > w, phi below pi/2).  Checks the event sequence,
 * contact duration, maximum and final penetration, exit velocity and
 * energy lost against the closed form above. */
static void bounce_closed_form(void **state)
{
    (void)state;
    const double m = 2.0, k = 2.0e4, v0 = 1.0, gap = 0.05;
    const double zetas[] = {0.0, 0.1, 0.5, 0.8};
    for (int side = -1; side <= 1; side += 2)
        for (size_t z = 0; z < sizeof zetas / sizeof zetas[0]; z++) {
            double c = 2.0 * zetas[z] * sqrt(k * m), b = c / (2.0 * m);
            double w = sqrt(k / m - b * b), phi = atan2(2.0 * b * w, b * b - w * w);
            double tc = phi / w, e = exp(-b * tc), tm = atan2(w, b) / w;
            double dmax = v0 / w * exp(-b * tm) * sin(w * tm);
            double dc = v0 / w * exp(-b * tc) * sin(phi);
            char yaml[512];
            snprintf(yaml, sizeof yaml,
                     "element: {mass: %g}\nfriction: {dynamic: 0.0}\n"
                     "end_stops: {min: %g, max: %g, model: compliant, stiffness: %.17g, "
                     "damping: %.17g}\n"
                     "initial: {velocity: %g}\nsimulation: {t_end: 0.2, output_step: 0.0}\n",
                     m, side > 0 ? -1.0 : -gap, side > 0 ? gap : 1.0, k, c, side * v0);
            stsl_sink sink;
            const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
            int in_pos =
                side > 0 ? STSL_MODE_CONTACT_HIGH_SLIP_POS : STSL_MODE_CONTACT_LOW_SLIP_NEG;
            int in_neg =
                side > 0 ? STSL_MODE_CONTACT_HIGH_SLIP_NEG : STSL_MODE_CONTACT_LOW_SLIP_POS;
            assert_int_equal(r->n_events, 3); /* begin, turn inside the stop, end */
            const stsl_mem_event *b0 = &r->events[0], *turn = &r->events[1], *end = &r->events[2];
            assert_int_equal(b0->kind, STSL_EV_CONTACT_BEGIN);
            assert_int_equal(b0->mode_after, in_pos);
            assert_wrms1(b0->t, gap / v0, RT, AT);
            assert_int_equal(turn->kind, STSL_EV_REVERSAL);
            assert_int_equal(turn->mode_after, in_neg);
            assert_wrms1(turn->t - b0->t, tm, RT, AT);
            assert_wrms1(side * turn->before[STSL_COL_X] - gap, dmax, RT, AT);
            assert_int_equal(end->kind, STSL_EV_CONTACT_END);
            assert_int_equal(end->mode_after, side > 0 ? STSL_MODE_SLIP_NEG : STSL_MODE_SLIP_POS);
            assert_wrms1(end->t - b0->t, tc, RT, AT);
            assert_wrms1(side * end->after[STSL_COL_V], -e * v0, RT, AT);
            assert_wrms1(side * end->before[STSL_COL_X] - gap, dc, RT, AT);
            /* Kinetic energy lost = what the damper took.  A difference of
             * two energies each good to RT of the entry energy ke0: the
             * tolerance is 2 RT ke0 (the elastic case loses nothing). */
            double ke0 = 0.5 * m * v0 * v0;
            double lost = ke0 - 0.5 * m * end->after[STSL_COL_V] * end->after[STSL_COL_V];
            assert_close(lost, ke0 * (1.0 - e * e), 2.0 * RT * ke0);
            /* The reaction: c v0 as contact begins (it jumps from 0), 0 as it ends. */
            assert_wrms1(b0->after[STSL_COL_STOP_REACTION], c * v0, RT, AT);
            assert_close(end->before[STSL_COL_STOP_REACTION], 0.0, 1e-6 * k * dmax);
            if (zetas[z] == 0.0) assert_wrms1(tc, M_PI / w, 1e-15, 0.0);
            if (zetas[z] == 0.5) /* not the unclamped dashpot's exp(-zeta pi / sqrt(1 - zeta^2)) */
                assert_true(e > 1.5 * exp(-0.5 * M_PI / sqrt(0.75)));
            stsl_sink_free(&sink);
        }
}

/* ---- penetration under a constant force ----------------------------------------- */

/* A constant force F presses the element (no friction) into the stop: at
 * rest the stop carries F and the penetration is F / k, for an overdamped
 * (zeta 1.5) and an underdamped (zeta 0.2) contact.  The transients decay
 * like exp(-38 t) and exp(-20 t): after 3 s they are below 1e-26 of the
 * gap, far under the tolerance. */
/* A frictionless element of mass m at rest at 0, pressed by the constant
 * force f into a compliant stop at x = gap (stiffness k, damping c), run
 * for 3 s. */
static const stsl_mem_result *run_pressed(double m, double gap, double k, double c, double f,
                                          stsl_sink *sink)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "element: {mass: %g}\nfriction: {dynamic: 0.0}\n"
             "end_stops: {min: -1, max: %g, model: compliant, stiffness: %g, damping: %g}\n"
             "inputs: {active_force: {type: constant, value: %g}}\n"
             "simulation: {t_end: 3.0, output_step: 0.001}\n",
             m, gap, k, c, f);
    return tu_run_yaml(yaml, NULL, 0, sink);
}

static void static_penetration(void **state)
{
    (void)state;
    const double m = 1.0, k = 1.0e4, f = 10.0, gap = 0.01;
    const double zetas[] = {1.5, 0.2};
    for (size_t z = 0; z < 2; z++) {
        stsl_sink sink;
        const stsl_mem_result *r = run_pressed(m, gap, k, 2.0 * zetas[z] * sqrt(k * m), f, &sink);
        long last = r->n_samples - 1;
        assert_wrms1(col(r, last, STSL_COL_X) - gap, f / k, RT, AT);
        assert_wrms1(col(r, last, STSL_COL_STOP_REACTION), f, RT, AT);
        int fr = stsl_mode_friction(r->mode[last]);
        assert_int_equal(stsl_mode_contact_side(r->mode[last]), +1);
        assert_true(fr == STSL_MODE_STUCK || fr == STSL_MODE_SLIP_POS || fr == STSL_MODE_SLIP_NEG);
        assert_true(nth_event(r, STSL_EV_CONTACT_BEGIN, 0) >= 0);
        stsl_sink_free(&sink);
    }
}

/* ---- leaving while inside the stop, and coming back ---------------------------- */

/* Pressed in by F with a strongly damped contact (zeta 0.7), the element
 * hits the stop at sqrt(2 F gap / m) = 0.14 m/s and the damper throws it off
 * while it is still inside (P = 0 at delta > 0); F brings it back before it
 * is out, and contact resumes where P turns positive again, not at
 * delta = 0.  At every contact_end and at that contact_begin,
 * k delta + c delta' = 0 (to the root tolerance, 1e-9 of the force scale
 * c v); the run ends at rest at F / k. */
static void leaves_inside_and_returns(void **state)
{
    (void)state;
    const double m = 1.0, k = 1.0e4, c = 140.0, f = 1.0, gap = 0.01;
    stsl_sink sink;
    const stsl_mem_result *r = run_pressed(m, gap, k, c, f, &sink);
    long end = nth_event(r, STSL_EV_CONTACT_END, 0), again = nth_event(r, STSL_EV_CONTACT_BEGIN, 1);
    assert_true(end > 0 && again > end);
    double scale = c * sqrt(2.0 * f * gap / m);
    for (long i = end; i <= again; i += again - end) {
        const stsl_mem_event *ev = &r->events[i];
        double delta = ev->before[STSL_COL_X] - gap, rate = ev->before[STSL_COL_V];
        assert_true(delta > 0.0); /* inside the stop: the clamp, not delta = 0, ended it */
        assert_close(k * delta + c * rate, 0.0, 1e-9 * scale);
    }
    long last = r->n_samples - 1;
    assert_wrms1(col(r, last, STSL_COL_X) - gap, f / k, RT, AT);
    stsl_sink_free(&sink);
}

/* ---- friction in contact ------------------------------------------------------------ */

/* Coulomb friction F_D acts in the contact as off it (c = 0 here): the
 * element decelerates by F_D/m to the stop, enters with
 * v_i = sqrt(v0^2 - 2 F_D gap / m), moves in as delta = a (cos wt - 1)
 * + (v_i / w) sin wt (a = F_D / k), turns at
 * delta_m = sqrt(a^2 + (v_i / w)^2) - a.  There the stick test sees the
 * stop's push k delta_m: with F_S above it the element stays pressed in
 * (CONTACT_HIGH_STUCK, friction holding -k delta_m); below, it slips back
 * about delta = +a and leaves at delta = 0 with
 * v_e = w sqrt(delta_m (delta_m - 2 a)). */
static void friction_in_contact(void **state)
{
    (void)state;
    const double m = 1.0, k = 1.0e4, fd = 2.0, v0 = 1.0, gap = 0.05;
    double w = sqrt(k / m), a = fd / k, vi = sqrt(v0 * v0 - 2.0 * fd * gap / m);
    double t_in = (v0 - vi) * m / fd, t_turn = atan2(vi, a * w) / w;
    double dm = sqrt(a * a + vi * vi / (w * w)) - a;
    const double ratios[] = {1.0, 50.0}; /* F_S = 2 N < k delta_m = 87 N < 100 N */
    for (int i = 0; i < 2; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml,
                 "element: {mass: %g}\nfriction: {dynamic: %g, static_ratio: %g}\n"
                 "end_stops: {min: -1, max: %g, model: compliant, stiffness: %g}\n"
                 "initial: {velocity: %g}\nsimulation: {t_end: 0.5, output_step: 0.001}\n",
                 m, fd, ratios[i], gap, k, v0);
        stsl_sink sink;
        const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
        assert_true(r->n_events >= 2);
        assert_int_equal(r->events[0].kind, STSL_EV_CONTACT_BEGIN);
        assert_wrms1(r->events[0].t, t_in, RT, AT);
        assert_wrms1(r->events[0].before[STSL_COL_V], vi, RT, AT);
        const stsl_mem_event *turn = &r->events[1];
        assert_wrms1(turn->t, t_in + t_turn, RT, AT);
        assert_wrms1(turn->before[STSL_COL_X] - gap, dm, RT, AT);
        if (ratios[i] * fd > k * dm) {
            assert_int_equal(r->n_events, 2);
            assert_int_equal(turn->kind, STSL_EV_STICK);
            assert_int_equal(turn->mode_after, STSL_MODE_CONTACT_HIGH_STUCK);
            long last = r->n_samples - 1;
            assert_int_equal(r->mode[last], STSL_MODE_CONTACT_HIGH_STUCK);
            assert_wrms1(col(r, last, STSL_COL_STOP_REACTION), k * dm, RT, AT);
            assert_wrms1(col(r, last, STSL_COL_FRICTION), -k * dm, RT, AT);
            assert_close(col(r, last, STSL_COL_A), 0.0, 0.0);
        } else {
            assert_int_equal(turn->kind, STSL_EV_REVERSAL);
            assert_int_equal(turn->mode_after, STSL_MODE_CONTACT_HIGH_SLIP_NEG);
            const stsl_mem_event *end = &r->events[2];
            assert_int_equal(end->kind, STSL_EV_CONTACT_END);
            double tau = acos(-a / (dm - a)) / w;
            assert_wrms1(end->t, t_in + t_turn + tau, RT, AT);
            assert_wrms1(end->after[STSL_COL_V], -w * sqrt(dm * (dm - 2.0 * a)), RT, AT);
            /* Sliding in contact: friction at its dynamic level. */
            assert_close(end->before[STSL_COL_FRICTION], -fd, 0.0);
        }
        stsl_sink_free(&sink);
    }
}

/* ---- a smooth law in contact ------------------------------------------------------ */

/* 20-sim's V law (T = d w) with a compliant stop: outside, v = v0 exp(-d t
 * / m) reaches the stop at t_b = (m / d) ln(1 / (1 - d gap / (m v0))) with
 * v_i = v0 - d gap / m; inside, the damper and the law add up
 * (b = (c + d) / 2m) while the stop's force is still k delta + c delta'
 * alone, which falls to 0 at w t = atan2(c w, c b - k). */
static void smooth_law_in_contact(void **state)
{
    (void)state;
    const double m = 1.0, k = 1.0e4, c = 20.0, d = 5.0, v0 = 1.0, gap = 0.05;
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "element: {mass: %g}\nfriction: {law: 20sim_v, d: %g}\n"
             "end_stops: {min: -1, max: %g, model: compliant, stiffness: %g, damping: %g}\n"
             "initial: {velocity: %g}\nsimulation: {t_end: 0.2, output_step: 0.0}\n",
             m, d, gap, k, c, v0);
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
    double vi = v0 - d * gap / m, tb = m / d * log(v0 / vi);
    double b = (c + d) / (2.0 * m), w = sqrt(k / m - b * b), th = atan2(c * w, c * b - k);
    double ve = vi * exp(-b * th / w) * (cos(th) - b / w * sin(th));
    assert_int_equal(r->n_events, 2);
    assert_int_equal(r->events[0].kind, STSL_EV_CONTACT_BEGIN);
    assert_int_equal(r->events[0].mode_after, STSL_MODE_CONTACT_HIGH_SMOOTH);
    assert_wrms1(r->events[0].t, tb, RT, AT);
    assert_int_equal(r->events[1].kind, STSL_EV_CONTACT_END);
    assert_int_equal(r->events[1].mode_after, STSL_MODE_SMOOTH);
    assert_wrms1(r->events[1].t - tb, th / w, RT, AT);
    assert_wrms1(r->events[1].after[STSL_COL_V], ve, RT, AT);
    stsl_sink_free(&sink);
}

/* ---- configuration ----------------------------------------------------------------------- */

#define BASE "element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n"

typedef struct bad_case {
    const char *text;
    int line;
    const char *what; /* "key: message" */
} bad_case;

static const bad_case BAD[] = {
    {BASE "end_stops: {min: -1, max: 1, model: soft, stiffness: 1}\n", 4,
     "end_stops.model: must be one of: rigid, compliant (got 'soft')"},
    {BASE "end_stops: {min: -1, max: 1, model: compliant}\n", 4,
     "end_stops.stiffness: missing required key (a number > 0)"},
    {BASE "end_stops:\n  min: -1\n  max: 1\n  model: compliant\n  stiffness: 0\n", 8,
     "end_stops.stiffness: must be > 0 (got 0)"},
    {BASE "end_stops:\n  min: -1\n  max: 1\n  model: compliant\n  stiffness: 1\n  damping: -1\n", 9,
     "end_stops.damping: must be >= 0 (got -1)"},
    {BASE "end_stops:\n  min: -1\n  max: 1\n  model: compliant\n  stiffness: 1\n"
          "  restitution: 0.5\n",
     9, "end_stops.restitution: not a parameter of end_stops.model: compliant"},
    {BASE "end_stops:\n  min: -1\n  max: 1\n  stiffness: 1e5\n", 7,
     "end_stops.stiffness: not a parameter of end_stops.model: rigid"},
    {BASE "end_stops: {min: -1, max: 1, model: rigid, damping: 3}\n", 4,
     "end_stops.damping: not a parameter of end_stops.model: rigid"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\n"
     "end_stops: {min: -1, max: 1, model: compliant, stiffness: 1}\n"
     "simulation:\n  t_end: 1\n  scheme: karnopp\n  step: 1e-3\n",
     6,
     "simulation.scheme: karnopp models rigid end stops only; end_stops.model: compliant needs "
     "scheme event_driven"},
};

/* Each rejection names the file, the line and the key, on one line. */
static void config_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        stsl_config cfg;
        stsl_error err = {0};
        char want[512];
        assert_int_equal(stsl_config_load_string(BAD[i].text, "t.yaml", NULL, NULL, 0, &cfg, &err),
                         STSL_EINPUT);
        snprintf(want, sizeof want, "t.yaml:%d: %s", BAD[i].line, BAD[i].what);
        if (strcmp(err.msg, want)) fail_msg("got '%s'\nwant '%s'", err.msg, want);
    }
}

/* Load `text` (asserted to be accepted). */
static void load_ok(const char *text, stsl_config *cfg)
{
    stsl_error err = {0};
    if (stsl_config_load_string(text, "t.yaml", NULL, NULL, 0, cfg, &err)) fail_msg("%s", err.msg);
}

/* The fixed-step schemes put a body on a rigid stop: a compliant one given
 * to them past the configuration (parameters built in C) is refused too. */
static void fixed_step_refuses_compliant(void **state)
{
    (void)state;
    stsl_config cfg;
    stsl_error err = {0};
    load_ok(BASE "end_stops: {min: -1, max: 1, model: compliant, stiffness: 1e4}\n", &cfg);
    stsl_scheme_opts sch = {.kind = STSL_SCHEME_KARNOPP, .step = 1e-3, .karnopp_band = 1e-4};
    assert_int_equal(stsl_run_element(&cfg.element, &cfg.sim, &sch, NULL, NULL, &err), STSL_EINPUT);
    assert_string_equal(err.msg, "simulation.scheme: karnopp models rigid end stops only; "
                                 "end_stops.model: compliant needs scheme event_driven");
    stsl_config_free(&cfg);
}

/* The effective configuration keeps the model and its parameters (a --set
 * of another key goes through it), and a rigid stop's text is unchanged. */
static void config_round_trip(void **state)
{
    (void)state;
    stsl_config cfg;
    stsl_error err = {0};
    load_ok(BASE "end_stops: {min: -1, max: 1, model: compliant, stiffness: 2.5e5, damping: 40}\n",
            &cfg);
    assert_int_equal(cfg.element.stop_model, STSL_STOP_COMPLIANT);
    assert_int_equal(stsl_config_set(&cfg, "friction.dynamic", "2", &err), 0);
    assert_int_equal(stsl_config_set(&cfg, "end_stops.damping", "7.5", &err), 0);
    assert_int_equal(cfg.element.stop_model, STSL_STOP_COMPLIANT);
    assert_close(cfg.element.stop_stiffness, 2.5e5, 0.0);
    assert_close(cfg.element.stop_damping, 7.5, 0.0);
    char *v = stsl_config_get(&cfg, "end_stops.model", &err);
    assert_string_equal(v, "compliant");
    free(v);
    stsl_config_free(&cfg);
    load_ok(BASE "end_stops: {min: -1, max: 1}\n", &cfg);
    char *y = stsl_config_to_yaml(&cfg);
    assert_non_null(strstr(y, "end_stops: {min: -1, max: 1, restitution: 0}\n"));
    free(y);
    stsl_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounce_closed_form),        cmocka_unit_test(static_penetration),
        cmocka_unit_test(leaves_inside_and_returns), cmocka_unit_test(friction_in_contact),
        cmocka_unit_test(smooth_law_in_contact),     cmocka_unit_test(config_errors),
        cmocka_unit_test(config_round_trip),         cmocka_unit_test(fixed_step_refuses_compliant),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
