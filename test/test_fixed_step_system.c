/* The fixed-step schemes on systems of bodies (run/fixed_step_system):
 * a one-body system against the element's own scheme, a two-body system
 * whose contacts never stick against the closed form of its linear ODE
 * (the scheme's order), and `converge` on the servo with backlash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/contact.h"
#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "run/fixed_step_system.h"
#include "models/multibody.h"
#include "run/run.h"
#include "run/validation.h"
#include "test/testutil.h"

#define EX(name) STSL_SOURCE_DIR "/examples/" name

static char g_dir[256];
static char g_out[1 << 16];

static const stsl_mem_result *run_system(const stsl_system *s, const stsl_hsolver_opts *sim,
                                         const stsl_scheme_opts *sch, stsl_sink *sink)
{
    stsl_error err = {0};
    assert_int_equal(stsl_mem_sink_create(sink, &err), STSL_OK);
    int rc = stsl_fixed_step_run_system(s, sim, sch, sink, NULL, &err);
    if (rc) print_error("run failed: %s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    const stsl_mem_result *r = stsl_mem_sink_result(sink);
    assert_true(r->complete);
    return r;
}

/* ---- one body: the element's scheme ------------------------------------------ */

/* The element's configuration `path` run by the element's scheme and as a
 * one-body system (stsl_system_from_element) by the system's: the same
 * samples and the same events (kind, time).  x and v agree to `tol` of
 * their scales: both schemes take the same decisions with the same
 * arithmetic but for the net force's sum (the element adds F_a + F_R -
 * k (x - x_s) - c v in one order, the engine spring, damper, force and load
 * in its own), a few ulps a step that the scheme carries on. */
static double one_body(const char *path, const char *scheme, double h, double band, double *dx)
{
    char sets[5][96];
    snprintf(sets[0], sizeof sets[0], "simulation.scheme=%s", scheme);
    snprintf(sets[1], sizeof sets[1], "simulation.step=%.17g", h);
    int n = 2;
    if (band > 0.0)
        snprintf(sets[n++], sizeof sets[2], "simulation.karnopp_band=%.17g", band);
    else if (band < 0.0) /* smooth_rk4 on a hybrid law: -band is the regularisation velocity */
        snprintf(sets[n++], sizeof sets[2], "simulation.regularisation_velocity=%.17g", -band);
    if (strstr(path, "lugre")) {
        snprintf(sets[n++], sizeof sets[3], "inputs.base_motion.slope=0");
        snprintf(sets[n++], sizeof sets[4], "initial.velocity=0.05");
    }
    const char *const set[5] = {sets[0], sets[1], sets[2], sets[3], sets[4]};
    stsl_config cfg;
    stsl_error err = {0};
    int rc = stsl_config_load(path, set, n, &cfg, &err);
    if (rc) print_error("config: %s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    stsl_sink se, ss;
    const stsl_mem_result *re = tu_run_config(&cfg, &se);
    stsl_system sys;
    assert_int_equal(stsl_system_from_element(&cfg.element, &sys), 0);
    const stsl_mem_result *rs = run_system(&sys, &cfg.sim, &cfg.scheme, &ss);
    assert_int_equal(re->n_samples, rs->n_samples);
    assert_int_equal(re->n_events, rs->n_events);
    double worst = 0.0, worst_v = 0.0;
    for (long i = 0; i < re->n_samples; i++) {
        assert_true(re->t[i] == rs->t[i]);
        /* the element's x, v are relative to the base, the system's absolute */
        double xe = tu_col(re, i, STSL_COL_X) + tu_col(re, i, STSL_COL_X_BASE);
        double ve = tu_col(re, i, STSL_COL_V) + tu_col(re, i, STSL_COL_V_BASE);
        worst = fmax(worst, fabs(xe - tu_col(rs, i, 0)));
        worst_v = fmax(worst_v, fabs(ve - tu_col(rs, i, 1)));
    }
    for (long k = 0; k < re->n_events; k++) {
        assert_int_equal(re->events[k].kind, rs->events[k].kind);
        assert_true(re->events[k].t == rs->events[k].t);
    }
    *dx = worst;
    stsl_sink_free(&se);
    stsl_sink_free(&ss);
    stsl_system_free(&sys);
    stsl_config_free(&cfg);
    return worst_v;
}

static void test_one_body_equals_element(void **state)
{
    (void)state;
    static const struct {
        const char *file, *scheme;
        double h, band, tol;
    } cases[] = {
        /* bit for bit: the same operations in the same order */
        {"den_hartog.yaml", "karnopp", 1e-4, 1e-4, 0.0},
        {"den_hartog.yaml", "fixed_step_hybrid", 1e-4, 0.0, 0.0},
        {"dv_end_stops.yaml", "karnopp", 1e-4, 1e-4, 0.0},
        {"dv_end_stops.yaml", "fixed_step_hybrid", 1e-4, 0.0, 0.0},
        {"dv_irreversible.yaml", "fixed_step_hybrid", 1e-4, 0.0, 0.0},
        {"simscape_rotational.yaml", "smooth_rk4", 1e-4, 0.0, 0.0},
        {"dv_stops_aiding.yaml", "karnopp", 1e-4, 1e-3, 0.0},
        {"dv_stops_opposing.yaml", "fixed_step_hybrid", 1e-4, 0.0, 0.0},
        /* The belt moves: the element steps x - x_base, the system x, so
         * every step rounds differently (a few ulps of |x| <= 0.5 m, ~1e-16
         * m); the same decisions (events asserted identical) carry those
         * roundings on without amplification over 2e4 steps: far below
         * 1e-12 (measured 2.5e-15 m, 2.2e-14 m/s). */
        {"belt_stick_slip.yaml", "karnopp", 1e-4, 1e-4, 1e-12},
        {"belt_stick_slip.yaml", "fixed_step_hybrid", 1e-4, 0.0, 1e-12},
        /* The regularised law: the system adds the tanh friction as a
         * correction to the engine's slip force (f_reg - f_slip) / m, the
         * element (F_n - f_reg) / m: one rounding of the acceleration a
         * step (measured 1.1e-19 m/s). */
        {"den_hartog.yaml", "smooth_rk4", 1e-4, -1e-3, 1e-12},
        /* LuGre's bristle state, the belt at rest and the block launched
         * at 0.05 m/s instead: a base whose velocity jumps (the belt's
         * start) carries the element along in its relative frame at once,
         * while the body of a system is dragged by the bristles */
        {"lugre_stick_slip.yaml", "smooth_rk4", 1e-5, 0.0, 1e-12},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/examples/%s", STSL_SOURCE_DIR, cases[i].file);
        double dx, dv = one_body(path, cases[i].scheme, cases[i].h, cases[i].band, &dx);
        print_message("%s %s: max |x - x_element| %.3g, |v - v_element| %.3g\n", cases[i].file,
                      cases[i].scheme, dx, dv);
        assert_true(dx <= cases[i].tol && dv <= cases[i].tol);
    }
}

/* ---- two bodies that never stick: a linear ODE ------------------------------ */

/* Bodies a (1 kg) and b (2 kg) joined by a spring of 50 N/m (free length
 * 0), each sliding on the ground with Coulomb friction of 1 N and 3 N, both
 * moving forward at 10 m/s from x_a = 0.1 m, x_b = 0: the slip velocities
 * stay above 8 m/s over the 1 s run (the centre of mass slows by 4/3 m/s^2,
 * the relative motion adds at most 2/3 * 0.1 * sqrt(75) = 0.6 m/s), so the
 * friction forces are constant and the motion is the closed form: the
 * centre of mass under -(F_a + F_b)/M, the relative coordinate r = x_a - x_b
 * an oscillator of w^2 = k (1/m_a + 1/m_b) about r_eq = (F_b/m_b - F_a/m_a)
 * / w^2. */
static const char *const TWO = "bodies:\n"
                               "  a: {mass: 1.0, position: 0.1, velocity: 10.0}\n"
                               "  b: {mass: 2.0, position: 0.0, velocity: 10.0}\n"
                               "couplings:\n"
                               "  - {between: [a, b], stiffness: 50.0}\n"
                               "contacts:\n"
                               "  - {body: a, law: coulomb, dynamic: 1.0}\n"
                               "  - {body: b, law: coulomb, dynamic: 3.0}\n"
                               "simulation: {t_end: 1.0}\n";

static void two_exact(double t, double *xa, double *xb, double *va, double *vb)
{
    const double ma = 1.0, mb = 2.0, M = ma + mb, k = 50.0, fa = 1.0, fb = 3.0;
    double w = sqrt(k * (1.0 / ma + 1.0 / mb)), req = (fb / mb - fa / ma) / (w * w);
    double xc = (ma * 0.1) / M + 10.0 * t - 0.5 * (fa + fb) / M * t * t;
    double vc = 10.0 - (fa + fb) / M * t;
    double r = req + (0.1 - req) * cos(w * t), rd = -(0.1 - req) * w * sin(w * t);
    *xa = xc + mb / M * r, *xb = xc - ma / M * r;
    *va = vc + mb / M * rd, *vb = vc - ma / M * rd;
}

/* The largest error of x (either body) over every step point of `scheme`
 * at step h against the closed form. */
static double two_error(const char *scheme, double h)
{
    char sets[4][96];
    snprintf(sets[0], sizeof sets[0], "simulation.scheme=%s", scheme);
    snprintf(sets[1], sizeof sets[1], "simulation.step=%.17g", h);
    int n = 2;
    if (!strcmp(scheme, "karnopp"))
        snprintf(sets[n++], sizeof sets[0], "simulation.karnopp_band=1e-3");
    /* |w| > 8 m/s: tanh(w / 1e-3) is 1 to the last bit, the law exact */
    if (!strcmp(scheme, "smooth_rk4"))
        snprintf(sets[n++], sizeof sets[0], "simulation.regularisation_velocity=1e-3");
    const char *const set[3] = {sets[0], sets[1], sets[2]};
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load_string(TWO, "<two>", NULL, set, n, &cfg, &err))
        print_error("config: %s\n", err.msg);
    assert_int_equal(err.code, STSL_OK);
    stsl_hsolver_opts sim = cfg.sim;
    sim.output_step = 0.0; /* every step point */
    stsl_sink sink;
    const stsl_mem_result *r = run_system(&cfg.system, &sim, &cfg.scheme, &sink);
    assert_int_equal(r->n_events, 0); /* never sticks */
    double worst = 0.0;
    for (long i = 0; i < r->n_samples; i++) {
        double xa, xb, va, vb;
        two_exact(r->t[i], &xa, &xb, &va, &vb);
        worst = fmax(worst, fmax(fabs(tu_col(r, i, 0) - xa), fabs(tu_col(r, i, 1) - xb)));
    }
    stsl_sink_free(&sink);
    stsl_config_free(&cfg);
    return worst;
}

/* Semi-implicit Euler is first order, RK4 fourth: the fitted slope of
 * log(error) against log(h) within p +- 0.5 (STYLE.md rule 7), and the
 * error at the smallest step of the size the order predicts. */
static void test_two_bodies_closed_form(void **state)
{
    (void)state;
    static const char *const schemes[] = {"karnopp", "fixed_step_hybrid", "smooth_rk4"};
    static const double p[] = {1.0, 1.0, 4.0};
    double hs[4] = {4e-3, 2e-3, 1e-3, 5e-4}, e[4];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 4; i++)
            e[i] = two_error(schemes[k], hs[i]);
        int used;
        double order = stsl_compare_fit_order(hs, e, 4, &used);
        print_message("%s on two sliding bodies: errors %.3g %.3g %.3g %.3g, order %.3f\n",
                      schemes[k], e[0], e[1], e[2], e[3], order);
        assert_int_equal(used, 4);
        assert_true(fabs(order - p[k]) <= 0.5);
    }
}

/* ---- a contact between two bodies that holds ---------------------------------- */

/* Body a (1 kg) on frictionless ground pushed by 3 N carries body b (2 kg)
 * on it through a contact of static level 3 N: held, b needs m_b F / M =
 * 2 N, so the two move as one at F / M = 1 m/s^2 and the contact's friction
 * on its first end, b, is +2 N (forward).  Every scheme keeps it
 * stuck (one contact_mode STUCK in every sample, no event), the two bodies
 * at one velocity to the last bit, the friction 2 N to rounding, and
 * semi-implicit Euler's discrete solution v_n = n h a, x_n = h^2 a n (n+1)/2
 * (smooth_rk4 has no stuck state: it is left out). */
static void test_stuck_pair(void **state)
{
    (void)state;
    static const char *const yaml = "bodies:\n"
                                    "  a: {mass: 1.0}\n"
                                    "  b: {mass: 2.0}\n"
                                    "contacts:\n"
                                    "  - {between: [b, a], law: coulomb, dynamic: 1.5, "
                                    "static_ratio: 2.0}\n"
                                    "inputs:\n"
                                    "  forces:\n"
                                    "    a: {type: constant, value: 3.0}\n"
                                    "simulation: {t_end: 0.5}\n";
    static const char *const schemes[] = {"karnopp", "fixed_step_hybrid"};
    for (int k = 0; k < 2; k++) {
        char sets[2][96];
        snprintf(sets[0], sizeof sets[0], "simulation.scheme=%s", schemes[k]);
        snprintf(sets[1], sizeof sets[1], "simulation.step=1e-3");
        const char *const set[2] = {sets[0], sets[1]};
        stsl_config cfg;
        stsl_error err = {0};
        assert_int_equal(stsl_config_load_string(yaml, "<pair>", NULL, set, 2, &cfg, &err), 0);
        stsl_hsolver_opts sim = cfg.sim;
        sim.output_step = 0.0;
        stsl_sink sink;
        const stsl_mem_result *r = run_system(&cfg.system, &sim, &cfg.scheme, &sink);
        int fr = stsl_layout_find_group(&r->layout, "friction"),
            md = stsl_layout_find_group(&r->layout, "contact_mode");
        assert_true(fr >= 0 && md >= 0);
        fr = r->layout.groups[fr].first, md = r->layout.groups[md].first;
        assert_int_equal(r->n_events, 0);
        assert_int_equal(r->n_samples, 501);
        for (long i = 0; i < r->n_samples; i++) {
            double n = (double)i, h = 1e-3;
            assert_true(tu_col(r, i, md) == STSL_CONTACT_STUCK);
            assert_true(tu_col(r, i, 2) == tu_col(r, i, 3)); /* v_a == v_b exactly */
            /* n h a and h^2 a n (n + 1) / 2, a = 1, each a few roundings of
             * a sum of up to 500 terms of at most 0.5 m: 1e-13 */
            assert_close(tu_col(r, i, 2), n * h, 1e-13);
            assert_close(tu_col(r, i, 0), h * h * n * (n + 1.0) / 2.0, 1e-13);
            assert_close(tu_col(r, i, fr), 2.0, 1e-14); /* two roundings of forces of 3 N */
        }
        stsl_sink_free(&sink);
        /* Pushed with 6 N, b would need 4 N > 3 N: it slips backwards on a
         * from the start (SLIP_NEG), carried forward by the dynamic 1.5 N:
         * a_b = 0.75, a_a = 4.5 m/s^2, Euler's v_n = n h a exactly so. */
        stsl_config_free(&cfg);
        const char *const set6[3] = {sets[0], sets[1], "inputs.forces.a.value=6"};
        assert_int_equal(stsl_config_load_string(yaml, "<pair>", NULL, set6, 3, &cfg, &err), 0);
        r = run_system(&cfg.system, &sim, &cfg.scheme, &sink);
        assert_int_equal(r->n_events, 0);
        for (long i = 1; i < r->n_samples; i++) {
            double n = (double)i, h = 1e-3;
            assert_true(tu_col(r, i, md) == STSL_CONTACT_SLIP_NEG);
            assert_close(tu_col(r, i, 2), 4.5 * n * h, 1e-12);
            assert_close(tu_col(r, i, 3), 0.75 * n * h, 1e-12);
            assert_close(tu_col(r, i, fr), 1.5, 1e-15);
        }
        stsl_sink_free(&sink);
        stsl_config_free(&cfg);
    }
}

/* ---- converge on the servo with backlash ------------------------------------- */

/* servo_backlash.yaml to 0.13 s: the motor crosses the gap and hits the
 * gear (37 ms), the load breaks away, the two rattle (7 reversals of the
 * motor, the load sticking and breaking away three times, the motor
 * sticking three times): every kind of decision the schemes take, in 23
 * events. */
#define SERVO_T_END "simulation.t_end=0.13"

/* The CSV's value in row `row` (0: the first step) of the column whose
 * header starts with `name`, NAN when there is none. */
static double csv_value(const char *csv, int row, const char *name)
{
    char line[1 << 14];
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    int col = -1, k = 0;
    for (char *tok = strtok(line, ",\n"); tok; tok = strtok(NULL, ",\n"), k++)
        if (col < 0 && !strncmp(tok, name, strlen(name)) &&
            (tok[strlen(name)] == ' ' || tok[strlen(name)] == '\0'))
            col = k;
    double v = NAN;
    for (int r = 0; r <= row && fgets(line, sizeof line, f); r++) {
        if (r < row) continue;
        char *p = line;
        for (int j = 0; j < col && p; j++)
            p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
        if (p && col >= 0) v = strtod(p, NULL);
    }
    fclose(f);
    return v;
}

/* ---- an impact that sets a contact's slip direction ----------------------------- */

/* A hammer (1 kg, no friction) at 2 m/s closes a gap of 0.1 m to a block
 * (3 kg, Coulomb 4 N, static 6 N) through a rigid stop, plastic.  The
 * block is stuck (v_b0 = 0) or slipping back (v_b0 = -0.2 m/s, decelerated
 * by 4/3 m/s^2): the impact's velocity jump alone starts it forward, a
 * breakaway or reversal the engine does not record (the jump's
 * consequence is the impact's event).  Closed form: the gap closes at t1
 * with 2 t1 - (v_b0 t1 + (2/3) t1^2 [v_b0 < 0]) = 0.1; the pair leaves at
 * v1 = (2 + 3 v_b(t1)) / 4 and, the stop pressed (the block is braked, the
 * hammer not), stops under 4 N / 4 kg = 1 m/s^2 at t2 = t1 + v1.  Events:
 * stop_contact at t1, stick at t2, nothing else. */
static const char *const HAMMER =
    "bodies:\n"
    "  hammer: {mass: 1.0, velocity: 2.0}\n"
    "  block: {mass: 3.0}\n"
    "contacts:\n"
    "  - {body: block, law: coulomb, dynamic: 4.0, static_ratio: 1.5}\n"
    "stops:\n"
    "  - {between: [hammer, block], min: -1.0, max: 0.1, model: rigid, "
    "restitution: 0.0}\n"
    "simulation: {t_end: 0.6}\n";

static void hammer_times(double vb0, double *t1, double *t2)
{
    if (vb0 == 0.0)
        *t1 = 0.1 / 2.0;
    else /* (2/3) t^2 - (2 - vb0) t + 0.1 = 0, the smaller root */
        *t1 =
            ((2.0 - vb0) - sqrt((2.0 - vb0) * (2.0 - vb0) - 4.0 * (2.0 / 3.0) * 0.1)) / (4.0 / 3.0);
    double vb = vb0 < 0.0 ? vb0 + 4.0 / 3.0 * *t1 : 0.0;
    *t2 = *t1 + (2.0 + 3.0 * vb) / 4.0;
}

/* The two events of the closed form, at the scheme's order.  The impact
 * is noticed at the first step point where the gap is passed: 0 <= t - t1
 * <= h (plus 2% of h: semi-implicit Euler's position error of the braked
 * block, (4/3) t1 h / 2 over the closing speed 2.2 m/s, < 0.02 h).  The
 * stick: the impact up to h late, the block braked (or at rest) for that
 * long leaves the pair up to h (3/4)(4/3) = h m/s faster, up to h later at
 * rest, noticed up to h after: t - t2 in [0, 3h]; Karnopp's band dv = h
 * sticks up to dv / 1 m/s^2 = h early: [-h, 3h].  Then `converge` (by
 * class, within 5 steps) matches both and invents and misses none. */
static void test_impact_sets_slip(void **state)
{
    (void)state;
    static const char *const schemes[] = {"fixed_step_hybrid", "karnopp"};
    static const double vb0s[] = {0.0, -0.2};
    static const double hs[] = {2e-3, 1e-3, 5e-4, 2.5e-4};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++) {
            double t1, t2;
            hammer_times(vb0s[j], &t1, &t2);
            for (int i = 0; i < 4; i++) {
                char sets[4][96];
                snprintf(sets[0], sizeof sets[0], "simulation.scheme=%s", schemes[k]);
                snprintf(sets[1], sizeof sets[1], "simulation.step=%.17g", hs[i]);
                snprintf(sets[2], sizeof sets[2], "bodies.block.velocity=%.17g", vb0s[j]);
                /* Karnopp's band must exceed h |a| / 2 (configuration.md) */
                snprintf(sets[3], sizeof sets[3], "simulation.karnopp_band=%.17g", hs[i]);
                const char *const set[4] = {sets[0], sets[1], sets[2], sets[3]};
                stsl_config cfg;
                stsl_error err = {0};
                assert_int_equal(
                    stsl_config_load_string(HAMMER, "<hammer>", NULL, set, 3 + k, &cfg, &err), 0);
                stsl_sink sink;
                const stsl_mem_result *r = run_system(&cfg.system, &cfg.sim, &cfg.scheme, &sink);
                print_message("%s, v_b0 = %g, h = %g: %ld events, (t - t1) / h = %.3f, "
                              "(t - t2) / h = %.3f\n",
                              schemes[k], vb0s[j], hs[i], r->n_events,
                              r->n_events > 0 ? (r->events[0].t - t1) / hs[i] : NAN,
                              r->n_events > 1 ? (r->events[1].t - t2) / hs[i] : NAN);
                assert_int_equal(r->n_events, 2);
                assert_int_equal(r->events[0].kind, STSL_EV_STOP_CONTACT);
                assert_int_equal(r->events[0].subject, 2); /* stops.0, after the contact */
                assert_int_equal(r->events[1].kind, STSL_EV_STICK);
                assert_int_equal(r->events[1].subject, 1); /* contacts.0 */
                double d1 = r->events[0].t - t1, d2 = r->events[1].t - t2;
                assert_true(d1 >= 0.0 && d1 <= 1.02 * hs[i]);
                assert_true(d2 >= (k ? -1.0 : 0.0) * hs[i] && d2 <= 3.0 * hs[i]);
                stsl_sink_free(&sink);
                stsl_config_free(&cfg);
            }
        }
    char path[512], csv[512];
    snprintf(path, sizeof path, "%s/hammer.yaml", g_dir);
    snprintf(csv, sizeof csv, "%s/hammer.csv", g_dir);
    assert_int_equal(tu_write_file(path, HAMMER), 0);
    for (int j = 0; j < 2; j++) {
        remove(csv);
        int rc = tu_cli(g_out, sizeof g_out,
                        "converge '%s' --scheme fixed_step_hybrid --steps 1e-3,5e-4 "
                        "--set bodies.block.velocity=%g -o '%s'",
                        path, vb0s[j], csv);
        if (rc) print_error("%s\n", g_out);
        assert_int_equal(rc, 0);
        for (int row = 0; row < 2; row++) {
            assert_true(csv_value(csv, row, "events") == 2.0);
            assert_true(csv_value(csv, row, "events_missed") == 0.0);
            assert_true(csv_value(csv, row, "events_spurious") == 0.0);
        }
    }
}

/* servo_backlash.yaml to 1.6 s: at 1.5757 s the gear hits the motor while
 * the motor still slips at 9e-4 rad/s (the exact run: no stick, the jump
 * carries it on at 0.22 rad/s); at h = 5e-5 fixed_step_hybrid sticks the
 * motor in the step of that impact (its velocity would turn at the step
 * point) and the jump restarts it.  Stick and jump share the step point,
 * the impact's instant: the scheme records the exact run's sequence of
 * events (kind and subject; 62 of them), no stick at the impact.  Times
 * are the scheme's business (test_converge_hybrid_servo). */
static void test_impact_at_stick_servo(void **state)
{
    (void)state;
    static const char *const set[] = {"simulation.t_end=1.6"};
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load(EX("servo_backlash.yaml"), set, 1, &cfg, &err), STSL_OK);
    stsl_sink se, sf;
    assert_int_equal(stsl_mem_sink_create(&se, &err), STSL_OK);
    assert_int_equal(stsl_run_system(&cfg.system, &cfg.sim, &se, NULL, &err), STSL_OK);
    const stsl_mem_result *re = stsl_mem_sink_result(&se);
    stsl_scheme_opts sch = cfg.scheme;
    sch.kind = STSL_SCHEME_FIXED_STEP_HYBRID, sch.step = 5e-5;
    const stsl_mem_result *rf = run_system(&cfg.system, &cfg.sim, &sch, &sf);
    print_message("servo to 1.6 s: %ld exact events, %ld fixed_step_hybrid\n", re->n_events,
                  rf->n_events);
    assert_int_equal(rf->n_events, re->n_events);
    for (long k = 0; k < re->n_events; k++) {
        assert_int_equal(rf->events[k].kind, re->events[k].kind);
        assert_int_equal(rf->events[k].subject, re->events[k].subject);
    }
    stsl_sink_free(&se);
    stsl_sink_free(&sf);
    stsl_config_free(&cfg);
}

/* fixed_step_hybrid is first order on a system as on the element: its
 * slip phases are semi-implicit Euler (local error O(h^2)) and every stick,
 * breakaway, reversal and impact is noticed at the step after it, an
 * O(h a) velocity error at each (fixed_step.c).  Fitted over the bodies'
 * largest error and for each body: >= p - 0.5 (STYLE.md rule 7), and
 * not above p + 0.5 (a test that no longer measures what it claims). */
static void test_converge_hybrid_servo(void **state)
{
    (void)state;
    char csv[512], h5[512];
    snprintf(csv, sizeof csv, "%s/servo.csv", g_dir);
    snprintf(h5, sizeof h5, "%s/servo.h5", g_dir);
    int rc = tu_cli(g_out, sizeof g_out,
                    "converge '%s' --scheme fixed_step_hybrid --steps "
                    "2e-4,1e-4,5e-5,2.5e-5,1.25e-5 --set " SERVO_T_END " -o '%s' --h5 '%s'",
                    EX("servo_backlash.yaml"), csv, h5);
    if (rc) print_error("%s\n", g_out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(g_out, "fitted order"));
    assert_non_null(strstr(g_out, "(the largest over the bodies)"));
    assert_non_null(strstr(g_out, "stuck IoU"));
    double order = csv_value(csv, 0, "order");
    print_message("fixed_step_hybrid on the servo with backlash: order %.3f (motor %.3f, gear "
                  "%.3f, load %.3f)\n",
                  order, csv_value(csv, 0, "order.motor"), csv_value(csv, 0, "order.gear"),
                  csv_value(csv, 0, "order.load"));
    assert_true(order >= 0.5 && order <= 1.5);
    static const char *const bodies[] = {"order.motor", "order.gear", "order.load"};
    for (int b = 0; b < 3; b++) {
        double ob = csv_value(csv, 0, bodies[b]);
        assert_true(ob >= 0.5 && ob <= 1.5);
    }
    /* The largest over the bodies is the table's. */
    for (int r = 0; r < 5; r++) {
        double most = 0.0;
        static const char *const x[] = {"max_abs_error_x.motor", "max_abs_error_x.gear",
                                        "max_abs_error_x.load"};
        for (int b = 0; b < 3; b++)
            most = fmax(most, csv_value(csv, r, x[b]));
        assert_true(most == csv_value(csv, r, "max_abs_error_x"));
    }
    /* The load's stuck intervals agree better at the finest step than at
     * the coarsest: they move by at most a step each (IoU -> 1). */
    double iou0 = csv_value(csv, 0, "stuck_iou.contacts.1"),
           iou4 = csv_value(csv, 4, "stuck_iou.contacts.1");
    print_message("load stuck IoU %.4f at h = 2e-4, %.4f at 1.25e-5\n", iou0, iou4);
    assert_true(iou4 > iou0 && iou4 > 0.99 && iou4 <= 1.0);
    assert_true(tu_file_exists(h5));
}

/* Karnopp: with a fixed band dv its error does not vanish with h (the
 * order reduction of Karnopp-type schemes): a contact is stuck as soon as
 * |w| < dv, up to dv / |a| early, and a stick is missed when one step
 * changes w by more than 2 dv; both cost O(dv), not O(h).  With the band
 * scaled to the step, dv = c h, both are O(h) and the scheme is first
 * order like the element's; c = 30 rad/s^2 (measured: c = 10, 30 and 100
 * give the same order).  Checked here against the event-driven reference
 * at the scheme's step points (what converge does, one band per run). */
static double karnopp_error(const stsl_config *cfg, double h)
{
    stsl_scheme_opts sch = {STSL_SCHEME_KARNOPP, h, 30.0 * h, 0.0};
    stsl_hsolver_opts sim = cfg->sim;
    sim.output_step = 0.0;
    stsl_sink ss, sr;
    const stsl_mem_result *rs = run_system(&cfg->system, &sim, &sch, &ss);
    stsl_hsolver_opts ref = cfg->sim;
    ref.output_times = rs->t;
    ref.n_output_times = rs->n_samples;
    ref.grid_only = 1;
    stsl_error err = {0};
    assert_int_equal(stsl_mem_sink_create(&sr, &err), STSL_OK);
    assert_int_equal(stsl_run_system(&cfg->system, &ref, &sr, NULL, &err), STSL_OK);
    const stsl_mem_result *rr = stsl_mem_sink_result(&sr);
    assert_int_equal(rr->n_samples, rs->n_samples);
    double worst = 0.0;
    for (long i = 0; i < rs->n_samples; i++) {
        assert_true(rr->t[i] == rs->t[i]);
        for (int b = 0; b < cfg->system.n_bodies; b++)
            worst = fmax(worst, fabs(tu_col(rs, i, b) - tu_col(rr, i, b)));
    }
    stsl_sink_free(&ss);
    stsl_sink_free(&sr);
    return worst;
}

static void test_karnopp_servo(void **state)
{
    (void)state;
    const char *const set[1] = {SERVO_T_END};
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load(EX("servo_backlash.yaml"), set, 1, &cfg, &err), STSL_OK);
    double hs[4] = {1e-4, 5e-5, 2.5e-5, 1.25e-5}, e[4];
    for (int i = 0; i < 4; i++)
        e[i] = karnopp_error(&cfg, hs[i]);
    int used;
    double order = stsl_compare_fit_order(hs, e, 4, &used);
    print_message("karnopp (band 30 h) on the servo with backlash: errors %.3g %.3g %.3g %.3g, "
                  "order %.3f\n",
                  e[0], e[1], e[2], e[3], order);
    assert_true(order >= 0.5 && order <= 1.5);
    /* The fixed band: converge's errors stop falling (dv = 0.02 rad/s:
     * the finest step's error within 10 % of the coarsest's). */
    char csv[512];
    snprintf(csv, sizeof csv, "%s/karnopp.csv", g_dir);
    int rc = tu_cli(g_out, sizeof g_out,
                    "converge '%s' --scheme karnopp --steps 1e-4,2.5e-5 --set " SERVO_T_END
                    " --set simulation.karnopp_band=0.02 -o '%s'",
                    EX("servo_backlash.yaml"), csv);
    assert_int_equal(rc, 0);
    double e0 = csv_value(csv, 0, "max_abs_error_x"), e1 = csv_value(csv, 1, "max_abs_error_x");
    print_message("karnopp (band 0.02) errors %.3g at 1e-4, %.3g at 2.5e-5\n", e0, e1);
    assert_true(fabs(e1 - e0) <= 0.1 * e0);
    stsl_config_free(&cfg);
}

/* ---- curve per contact --------------------------------------------------------- */

/* One column per contact, named by its name: (else contacts.N), with the
 * domain's units; values against the laws' closed forms: Coulomb's level
 * F_D (static band +-FSD F_D), Stribeck's F_D + (F_S - F_D)
 * exp(-(|v| / v_s)^delta) (the band +-F_S at v = 0). */
static void test_curve_per_contact(void **state)
{
    (void)state;
    char path[512], csv[512], line[512];
    snprintf(path, sizeof path, "%s/two.yaml", g_dir);
    snprintf(csv, sizeof csv, "%s/curve.csv", g_dir);
    assert_int_equal(tu_write_file(path,
                                   "bodies:\n"
                                   "  a: {mass: 1.0}\n"
                                   "  b: {mass: 1.0}\n"
                                   "couplings:\n"
                                   "  - {between: [a, b], stiffness: 10.0}\n"
                                   "contacts:\n"
                                   "  - {body: a, law: coulomb, dynamic: 2.0, static_ratio: 1.5, "
                                   "name: brake}\n"
                                   "  - {between: [b, a], law: stribeck, dynamic: 1.0, "
                                   "static_ratio: 2.0, stribeck_velocity: 0.1, "
                                   "stribeck_exponent: 2.0}\n"
                                   "simulation: {t_end: 1.0}\n"),
                     0);
    int rc =
        tu_cli(g_out, sizeof g_out, "curve '%s' --vmin -0.2 --vmax 0.2 --n 5 -o '%s'", path, csv);
    if (rc) print_error("%s\n", g_out);
    assert_int_equal(rc, 0);
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "velocity [m/s],force.brake [N],force.contacts.1 [N]\n");
    const double v[6] = {-0.2, -0.1, 0.0, 0.0, 0.1, 0.2};
    for (int i = 0; i < 6; i++) {
        double vv, f0, f1;
        assert_non_null(fgets(line, sizeof line, f));
        assert_int_equal(sscanf(line, "%lf,%lf,%lf", &vv, &f0, &f1), 3);
        double s = i == 2 ? -1.0 : i == 3 ? 1.0 : (v[i] > 0.0) - (v[i] < 0.0);
        double e0 = i == 2 || i == 3 ? 3.0 : 2.0;
        double e1 = 1.0 + exp(-pow(fabs(v[i]) / 0.1, 2.0)); /* 2 at v = 0: the band */
        assert_close(vv, v[i], 1e-16); /* -0.2 + 0.4 i / 4, rounded once or twice */
        /* two roundings of a level of order 1 */
        assert_close(f0, s * e0, 1e-15);
        assert_close(f1, s * e1, 1e-15);
    }
    assert_null(fgets(line, sizeof line, f));
    fclose(f);
}

/* ---- refusals ------------------------------------------------------------------- */

/* A scheme a system cannot run is bad input (exit 2) before a result file
 * is made, naming the contact or stop: karnopp and fixed_step_hybrid need
 * hybrid laws (a LuGre contact has no stuck state to decide), every scheme
 * rigid stops; smooth_rk4 runs the LuGre contact (its bristle state). */
static void test_refusals(void **state)
{
    (void)state;
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/lugre.yaml", g_dir);
    snprintf(out, sizeof out, "%s/refused.h5", g_dir);
    assert_int_equal(tu_write_file(path,
                                   "bodies:\n"
                                   "  a: {mass: 1.0}\n"
                                   "  b: {mass: 1.0, velocity: 0.5}\n"
                                   "couplings:\n"
                                   "  - {between: [a, b], stiffness: 100.0}\n"
                                   "contacts:\n"
                                   "  - {body: a, law: coulomb, dynamic: 1.0}\n"
                                   "  - {body: b, law: lugre, tc: 1.0, tst: 1.5, v_st: 0.001, "
                                   "sigma0: 1.0e5, sigma1: 300.0, d: 0.0}\n"
                                   "simulation: {t_end: 0.1}\n"),
                     0);
    int rc = tu_cli(g_out, sizeof g_out,
                    "run '%s' --set simulation.scheme=karnopp --set simulation.step=1e-4 -o '%s'",
                    path, out);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(g_out, "karnopp needs hybrid friction laws (coulomb, stribeck); "
                                  "contacts.1 has lugre: use smooth_rk4"));
    assert_false(tu_file_exists(out));
    rc = tu_cli(g_out, sizeof g_out,
                "run '%s' --set simulation.scheme=smooth_rk4 --set simulation.step=1e-5 -o '%s'",
                path, out);
    if (rc) print_error("%s\n", g_out);
    assert_int_equal(rc, 0);
    assert_true(tu_file_exists(out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_body_equals_element),
        cmocka_unit_test(test_two_bodies_closed_form),
        cmocka_unit_test(test_stuck_pair),
        cmocka_unit_test(test_impact_sets_slip),
        cmocka_unit_test(test_impact_at_stick_servo),
        cmocka_unit_test(test_converge_hybrid_servo),
        cmocka_unit_test(test_karnopp_servo),
        cmocka_unit_test(test_curve_per_contact),
        cmocka_unit_test(test_refusals),
    };
    tu_mkdtemp(g_dir, sizeof g_dir);
    if (!g_dir[0]) return 1;
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
