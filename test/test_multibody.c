/* test_multibody.c - the engine of systems of bodies (issue 14,
 * models/multibody.c) against single-element runs and closed forms.
 *
 * Tolerances: the runs use rtol 1e-12 unless a test says otherwise; event
 * times are roots located to ~1e-15 s relative, the states carry the
 * integration's global error (a few rtol of their scale over the run,
 * docs/numerics.md), so closed forms are asked for to 1e-9 relative
 * unless a test argues another bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "physics/modes.h"
#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "models/multibody.h"
#include "run/run.h"
#include "physics/signal.h"
#include "test/testutil.h"

static void load(const char *yaml, stsl_config *cfg)
{
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "<test>", NULL, NULL, 0, cfg, &err))
        fprintf(stderr, "config: %s\n", err.msg);
    assert_int_equal(err.code, STSL_OK);
}

/* Run a system configuration into a memory sink (complete run asserted),
 * integrating the model's power into stats.work when `power`. */
static const stsl_mem_result *run_power(const char *yaml, int power, stsl_sink *sink)
{
    return tu_run_system_yaml(yaml, power, sink);
}

static const stsl_mem_result *run_system(const char *yaml, stsl_sink *sink)
{
    return run_power(yaml, 0, sink);
}

/* ---- D2: two uncoupled bodies = two single runs ------------------------------------ */

/* Two spring-mass oscillators with Coulomb friction (static above
 * dynamic), driven by sines: stick, breakaway and reversal events. */
#define OSC_A "mass: 1.0", "100.0", "1.0", "1.5", "3.0", "0.5"
#define OSC_B "mass: 2.0", "50.0", "0.8", "1.2", "2.0", "0.3"

static void element_yaml(char *buf, size_t n, const char *mass, const char *k, const char *fd,
                         const char *ratio, const char *amp, const char *freq)
{
    snprintf(buf, n,
             "element: {%s, spring: {stiffness: %s}}\n"
             "friction: {law: coulomb, dynamic: %s, static_ratio: %s}\n"
             "inputs: {active_force: {type: sine, amplitude: %s, frequency: %s}}\n"
             "simulation: {t_end: 10.0, rtol: 1e-13}\n",
             mass, k, fd, ratio, amp, freq);
}

static void d2_two_single_runs(void **state)
{
    (void)state;
    char ya[1024], yb[1024];
    element_yaml(ya, sizeof ya, OSC_A);
    element_yaml(yb, sizeof yb, OSC_B);
    stsl_sink sa, sb, ss;
    const stsl_mem_result *ra = tu_run_yaml(ya, NULL, 0, &sa);
    const stsl_mem_result *rb = tu_run_yaml(yb, NULL, 0, &sb);
    const char *sys = "bodies: {a: {mass: 1.0}, b: {mass: 2.0}}\n"
                      "couplings:\n"
                      "  - {between: [a, ground], stiffness: 100.0}\n"
                      "  - {between: [b, ground], stiffness: 50.0}\n"
                      "contacts:\n"
                      "  - {body: a, law: coulomb, dynamic: 1.0, static_ratio: 1.5}\n"
                      "  - {body: b, law: coulomb, dynamic: 0.8, static_ratio: 1.2}\n"
                      "inputs: {forces: {a: {type: sine, amplitude: 3.0, frequency: 0.5},\n"
                      "                  b: {type: sine, amplitude: 2.0, frequency: 0.3}}}\n"
                      "simulation: {t_end: 10.0, rtol: 1e-13}\n";
    const stsl_mem_result *rs = run_system(sys, &ss);
    /* Merge the single runs' events by time: the system's, in order. */
    assert_true(ra->n_events > 5 && rb->n_events > 5);
    assert_int_equal(rs->n_events, ra->n_events + rb->n_events);
    long ia = 0, ib = 0;
    double worst = 0.0;
    for (long i = 0; i < rs->n_events; i++) {
        int from_a =
            ib >= rb->n_events || (ia < ra->n_events && ra->events[ia].t < rb->events[ib].t);
        const stsl_mem_event *e = from_a ? &ra->events[ia++] : &rb->events[ib++];
        assert_int_equal(rs->events[i].kind, e->kind);
        worst = fmax(worst, fabs(rs->events[i].t - e->t) / e->t);
    }
    /* Both runs integrate the same equations to rtol 1e-13 on different
     * step sequences (the system's steps serve both bodies): their event
     * times differ by the global error, a few rtol (measured 1.5e-13; 4e-12
     * at rtol 1e-12). */
    assert_true(worst < 1e-12);
    printf("D2: %ld events, largest relative difference of event times %.3g\n", rs->n_events,
           worst);
    stsl_sink_free(&sa);
    stsl_sink_free(&sb);
    stsl_sink_free(&ss);
}

/* The element records a change of mode that an input discontinuity
 * causes as input_step; the engine records the contact's change there
 * (breakaway, stick, reversal). */
static int same_kind(int sys, int el)
{
    return sys == el || (el == STSL_EV_INPUT_STEP && sys <= STSL_EV_REVERSAL);
}

/* The examples as systems of one body (stsl_system_from_element: the
 * element's load is its contact's; its start moved to absolute
 * coordinates), the Dalla Vedova ones with their loads (EtO != EtA,
 * irreversible): the element's events, kind
 * for kind, stick, breakaway, impact, stop contact and release, compliant
 * contact begin and end.  The bounces left out at a rigid stop are timed
 * as the element times them.  The element's configuration itself runs
 * through the engine (models/one_body.h; test_one_body compares it with
 * the element's own model), in the base's frame as the system does: the
 * system's start, moved to absolute coordinates and back, is the same to
 * rounding, so the times agree to 1e-9 relative at rtol 1e-12 with room
 * (measured 0 for every example; 5.6e-10 before the engine integrated in
 * the base's frame). */
static void examples_as_systems(void **state)
{
    (void)state;
    const char *names[] = {"belt_stick_slip",       "den_hartog",         "dv_compliant_stops",
                           "dv_end_stops",          "janecek_chirp",      "dv_irreversible",
                           "dv_stuck_aiding",       "dv_stuck_opposing",  "dv_breakaway_aiding",
                           "dv_breakaway_opposing", "dv_slipping_aiding", "dv_slipping_opposing",
                           "dv_stops_aiding",       "dv_stops_opposing"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/examples/%s.yaml", STSL_SOURCE_DIR, names[k]);
        stsl_config cfg;
        stsl_error err = {0};
        const char *sets[] = {"simulation.rtol=1e-12"};
        assert_int_equal(stsl_config_load(path, sets, 1, &cfg, &err), STSL_OK);
        stsl_sink se, ss;
        const stsl_mem_result *re = tu_run_config(&cfg, &se);
        stsl_system sys;
        assert_int_equal(stsl_system_from_element(&cfg.element, &sys), 0);
        stsl_signal *base = stsl_signal_create(&sys.base_motion, &err);
        double b[3];
        stsl_signal_eval(base, 0.0, 0, b);
        stsl_signal_free(base);
        sys.bodies[0].x0 += b[0];
        sys.bodies[0].v0 += b[1];
        assert_int_equal(stsl_mem_sink_create(&ss, &err), STSL_OK);
        assert_int_equal(stsl_run_system(&sys, &cfg.sim, &ss, NULL, &err), STSL_OK);
        const stsl_mem_result *rs = stsl_mem_sink_result(&ss);
        printf("%s: %ld events\n", names[k], re->n_events);
        if (k < 5) assert_true(re->n_events >= 5);
        assert_int_equal(rs->n_events, re->n_events);
        double worst = 0.0;
        for (long i = 0; i < rs->n_events; i++) {
            assert_true(same_kind(rs->events[i].kind, re->events[i].kind));
            assert_close(rs->events[i].t, re->events[i].t, 1e-9 * fmax(re->events[i].t, 1.0));
            worst =
                fmax(worst, fabs(rs->events[i].t - re->events[i].t) / fmax(re->events[i].t, 1.0));
        }
        printf("  largest relative difference of event times %.3g\n", worst);
        stsl_sink_free(&se);
        stsl_sink_free(&ss);
        stsl_system_free(&sys);
        stsl_config_free(&cfg);
    }
}

/* ---- the energy balance (the power op) ------------------------------------------------ */

/* Two bodies on a moving base (a sine), coupled by a spring-damper, one to
 * the wall by a spring, both with Coulomb contacts (stick and slip) and a
 * force: stats.work, the integral of the power (input work - dissipation),
 * equals the change of kinetic and spring energy.  The power is
 * integrated by CVODES on the state's steps at rtol 1e-10; the energies are
 * ~1 J: 1e-7 absolute is a thousand rtol over the run's ~30 switches. */
static void energy_balance(void **state)
{
    (void)state;
    const char *sys = "bodies: {a: {mass: 1.0}, b: {mass: 2.0, position: 0.3}}\n"
                      "couplings:\n"
                      "  - {between: [a, b], stiffness: 40.0, damping: 0.5, free_length: -0.3}\n"
                      "  - {between: [a, ground], stiffness: 10.0}\n"
                      "contacts:\n"
                      "  - {body: a, law: coulomb, dynamic: 1.0, static_ratio: 1.4}\n"
                      "  - {body: b, law: coulomb, dynamic: 2.0, static_ratio: 1.2}\n"
                      "inputs: {forces: {a: {type: sine, amplitude: 6.0, frequency: 0.4}},\n"
                      "         base_motion: {type: sine, amplitude: 0.05, frequency: 1.3}}\n"
                      "simulation: {t_end: 6.0, rtol: 1e-10}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_power(sys, 1, &sink);
    assert_true(r->n_events > 5);
    double e[2];
    for (int k = 0; k < 2; k++) {
        long i = k ? r->n_samples - 1 : 0;
        double xa = tu_col(r, i, 0), xb = tu_col(r, i, 1), va = tu_col(r, i, 2),
               vb = tu_col(r, i, 3);
        e[k] = 0.5 * 1.0 * va * va + 0.5 * 2.0 * vb * vb + 0.5 * 40.0 * pow(xa - xb + 0.3, 2) +
               0.5 * 10.0 * xa * xa;
    }
    printf("energy: work %.12g, change of energy %.12g\n", r->stats.work, e[1] - e[0]);
    assert_close(r->stats.work, e[1] - e[0], 1e-7);
    stsl_sink_free(&sink);
}

/* ---- a stuck cluster against the closed form ---------------------------------------- */

/* Bodies a (1 kg) and b (3 kg) at rest; a clutch between them (static
 * 100 N: it holds) and b's contact to the ground (F_D = 2 N, F_S = 3 N).
 * A ramp F = 0.5 t on a.  Both stay stuck until the ground contact's
 * constraint force reaches F_S: breakaway at t_b = F_S / slope = 6 s; then
 * the pair slips as one, (m_a + m_b) v' = slope t - F_D, so
 * v(t) = (slope (t^2 - t_b^2) / 2 - F_D (t - t_b)) / (m_a + m_b). */
static void stuck_cluster_breakaway(void **state)
{
    (void)state;
    const char *sys = "bodies: {a: {mass: 1.0}, b: {mass: 3.0}}\n"
                      "contacts:\n"
                      "  - {between: [a, b], law: coulomb, dynamic: 50.0, static_ratio: 2.0}\n"
                      "  - {body: b, law: coulomb, dynamic: 2.0, static_ratio: 1.5}\n"
                      "inputs: {forces: {a: {type: ramp, slope: 0.5}}}\n"
                      "simulation: {t_end: 8.0, rtol: 1e-12, output_step: 0.5}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(sys, &sink);
    assert_int_equal(r->n_events, 1);
    assert_int_equal(r->events[0].kind, STSL_EV_BREAKAWAY);
    /* Located by Brent's method in the frozen mode: to a few ulps. */
    assert_close(r->events[0].t, 6.0, 1e-14);
    long last = r->n_samples - 1;
    double t = r->t[last], tb = 6.0, m = 4.0;
    double v = (0.5 * (t * t - tb * tb) / 2.0 - 2.0 * (t - tb)) / m;
    assert_true(t == 8.0);
    assert_close(tu_col(r, last, 2), v, 1e-9 * v);         /* v.a */
    assert_true(tu_col(r, last, 3) == tu_col(r, last, 2)); /* v.b: held together exactly */
    stsl_sink_free(&sink);
}

/* ---- several contacts at one instant --------------------------------------------------- */

/* Two equal bodies (1 kg) launched at 1 m/s on contacts with F_D = 2 N
 * (F_S = 3 N), joined by a spring at its free length: they decelerate
 * alike and stick at the same instant t = m v0 / F_D = 0.5 s: one stick
 * event per contact, both at that t, in contact order, each naming it
 * (subject 1 + index). */
static void simultaneous_stick(void **state)
{
    (void)state;
    const char *sys = "bodies: {a: {mass: 1.0, velocity: 1.0}, b: {mass: 1.0, velocity: 1.0}}\n"
                      "couplings:\n  - {between: [a, b], stiffness: 100.0}\n"
                      "contacts:\n"
                      "  - {body: a, law: coulomb, dynamic: 2.0, static_ratio: 1.5}\n"
                      "  - {body: b, law: coulomb, dynamic: 2.0, static_ratio: 1.5}\n"
                      "simulation: {t_end: 1.0, rtol: 1e-12}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(sys, &sink);
    assert_int_equal(r->n_events, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r->events[i].kind, STSL_EV_STICK);
        assert_close(r->events[i].t, 0.5, 1e-13);
    }
    assert_true(r->events[0].t == r->events[1].t);
    long last = r->n_samples - 1; /* at rest where they stuck: x = v0^2 / (2 a) = 0.25 */
    assert_true(tu_col(r, last, 2) == 0.0 && tu_col(r, last, 3) == 0.0);
    assert_close(tu_col(r, last, 0), 0.25, 1e-12);
    stsl_sink_free(&sink);
}

/* Static above kinetic allows several consistent combinations: body a
 * (1 kg) on the ground (F_D = 1, F_S = 2) and body b (1 kg) on a through a
 * clutch (F_D = 1, F_S = 2), both at rest, F = 1.5 on b.  All stuck
 * (lambdas 1.5 within 2), a and b slipping together ((1.5 - 1) / 2 > 0)
 * and b slipping on a ((1.5 - 1) / 1 > 0, a held by 1 < 2) all qualify: the
 * tie rule keeps the fewest changes (all stuck, as before), the instant is
 * an `ambiguous` event, and nothing moves. */
static void ambiguous_start(void **state)
{
    (void)state;
    const char *sys = "bodies: {a: {mass: 1.0}, b: {mass: 1.0}}\n"
                      "contacts:\n"
                      "  - {body: a, law: coulomb, dynamic: 1.0, static_ratio: 2.0}\n"
                      "  - {between: [b, a], law: coulomb, dynamic: 1.0, static_ratio: 2.0}\n"
                      "inputs: {forces: {b: {type: constant, value: 1.5}}}\n"
                      "simulation: {t_end: 1.0}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(sys, &sink);
    assert_int_equal(r->n_events, 1);
    assert_int_equal(r->events[0].kind, STSL_EV_AMBIGUOUS);
    assert_true(r->events[0].t == 0.0);
    long last = r->n_samples - 1;
    assert_true(tu_col(r, last, 0) == 0.0 && tu_col(r, last, 1) == 0.0);
    stsl_sink_free(&sink);
}

/* A loop of stuck contacts: motor (1 kg) and load (3 kg) each on a
 * bearing to the ground (F_S 1 N and 2 N) and joined by a clutch (F_S
 * 10 N), a ramp F = t on the motor.  The constraint forces are statically
 * indeterminate; the loop holds while some split lies within every band,
 * i.e. until F = 1 + 2 = 3 N (t = 3 s), where both bearings break away at
 * once (two events) and the pair slips as one with the clutch stuck:
 * v(t) = ((t^2 - 9) / 2 - 3 (t - 3)) / 4.  (A minimum-norm split would
 * put 2F/3 on the motor's bearing and stop at t = 1.5 s.) */
static void clutch_loop(void **state)
{
    (void)state;
    const char *sys = "bodies: {motor: {mass: 1.0}, load: {mass: 3.0}}\n"
                      "contacts:\n"
                      "  - {body: motor, law: coulomb, dynamic: 1.0}\n"
                      "  - {between: [motor, load], law: coulomb, dynamic: 10.0}\n"
                      "  - {body: load, law: coulomb, dynamic: 2.0}\n"
                      "inputs: {forces: {motor: {type: ramp, slope: 1.0}}}\n"
                      "simulation: {t_end: 5.0, rtol: 1e-12}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(sys, &sink);
    assert_int_equal(r->n_events, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r->events[i].kind, STSL_EV_BREAKAWAY);
        /* the split's own resolution (REGULAR, 1e-10 of a capacity) */
        assert_close(r->events[i].t, 3.0, 1e-8);
    }
    long last = r->n_samples - 1;
    double t = r->t[last], v = ((t * t - 9.0) / 2.0 - 3.0 * (t - 3.0)) / 4.0;
    assert_close(tu_col(r, last, 2), v, 1e-7);
    assert_true(tu_col(r, last, 2) == tu_col(r, last, 3));
    stsl_sink_free(&sink);
}

/* ---- a two-mass oscillator slipping -------------------------------------------------- */

/* Bodies 1 and 2 (m1 = 1, m2 = 2) joined by a spring k = 200 (free
 * length 0), each sliding on the ground with Coulomb friction F1 = 1,
 * F2 = 3, launched at 10 m/s with r = x1 - x2 = 0.01.  While both slip
 * forward: the centre of mass decelerates at (F1 + F2) / (m1 + m2), and
 * mu r'' = -k r + mu (F2/m2 - F1/m1), mu = m1 m2 / (m1 + m2). */
static void two_mass_slipping(void **state)
{
    (void)state;
    const char *sys = "bodies: {one: {mass: 1.0, position: 0.01, velocity: 10.0},\n"
                      "         two: {mass: 2.0, velocity: 10.0}}\n"
                      "couplings:\n  - {between: [one, two], stiffness: 200.0}\n"
                      "contacts:\n"
                      "  - {body: one, law: coulomb, dynamic: 1.0}\n"
                      "  - {body: two, law: coulomb, dynamic: 3.0}\n"
                      "simulation: {t_end: 1.0, rtol: 1e-12, output_step: 0.01}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(sys, &sink);
    assert_int_equal(r->n_events, 0);
    double m1 = 1.0, m2 = 2.0, M = 3.0, mu = m1 * m2 / M, k = 200.0, w = sqrt(k / mu);
    double req = mu * (3.0 / m2 - 1.0 / m1) / k, r0 = 0.01, xc0 = m1 * 0.01 / M;
    double worst = 0.0;
    for (long i = 0; i < r->n_samples; i++) {
        double t = r->t[i];
        double xc = xc0 + 10.0 * t - 0.5 * (4.0 / M) * t * t;
        double rel = req + (r0 - req) * cos(w * t);
        double x1 = xc + m2 / M * rel, x2 = xc - m1 / M * rel;
        worst = fmax(worst, fmax(fabs(tu_col(r, i, 0) - x1), fabs(tu_col(r, i, 1) - x2)));
    }
    /* x ~ 10 m: 1e-9 is 1e-10 relative, a hundred rtol over ~100 steps. */
    assert_true(worst < 1e-9);
    stsl_sink_free(&sink);
}

/* ---- a rigid stop: impact times ---------------------------------------------------- */

/* A free body (m = 2) pushed by F = 4 from rest towards a rigid stop to
 * the ground at x = 0.5 with restitution 0.5: first impact at
 * t1 = sqrt(2 d m / F) = 0.70710678..., speed v1 = a t1; it rebounds at
 * e v1 and comes back after 2 e v1 / a: t2 = t1 (1 + 2 e), and so on
 * (t_{k+1} - t_k = e (t_k - t_{k-1})). */
static void rigid_stop_impacts(void **state)
{
    (void)state;
    const char *sys = "bodies: {a: {mass: 2.0}}\n"
                      "stops:\n  - {body: a, min: -1.0, max: 0.5, model: rigid, restitution: 0.5}\n"
                      "inputs: {forces: {a: {type: constant, value: 4.0}}}\n"
                      "simulation: {t_end: 2.0, rtol: 1e-12}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(sys, &sink);
    double t1 = sqrt(2.0 * 0.5 * 2.0 / 4.0), dt = 2.0 * 0.5 * t1, t = t1;
    for (int k = 0; k < 3; k++) {
        long i = tu_nth_event(r, STSL_EV_IMPACT, k);
        assert_true(i >= 0);
        /* Each flight carries the previous one's error: 1e-10 s. */
        assert_close(r->events[i].t, t, 1e-10);
        t += dt;
        dt *= 0.5;
    }
    stsl_sink_free(&sink);
}

/* Backlash: body a (1 kg) at 2 m/s crosses the gap [-0.1, 0.1] to body b
 * (3 kg, at rest): impact at t = 0.1 / 2 = 0.05 s; with restitution 1 the
 * velocities after are v_a = (m_a - m_b) / (m_a + m_b) v = -1 and
 * v_b = 2 m_a / (m_a + m_b) v = 1 (Newton's law, momentum conserved). */
static void backlash_impact(void **state)
{
    (void)state;
    const char *sys = "bodies: {a: {mass: 1.0, velocity: 2.0}, b: {mass: 3.0}}\n"
                      "stops:\n"
                      "  - {between: [a, b], min: -0.1, max: 0.1, model: rigid, restitution: 1.0}\n"
                      "simulation: {t_end: 0.06, rtol: 1e-12}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(sys, &sink);
    assert_int_equal(r->n_events, 1);
    assert_int_equal(r->events[0].kind, STSL_EV_IMPACT);
    assert_close(r->events[0].t, 0.05, 1e-14); /* CVODE: 100 ulps of the step */
    /* columns: x[a] x[b] v[a] v[b] */
    assert_close(r->events[0].after[2], -1.0, 1e-12);
    assert_close(r->events[0].after[3], 1.0, 1e-12);
    stsl_sink_free(&sink);
}

/* A body (2 kg) stuck on a base that starts moving at 0.3 m/s at t = 1
 * (a velocity step): finite friction carries no impulse, so the body keeps
 * v = 0 and slips back relative to the base (the event is the input step
 * itself), friction F_D = 1.5 N drags it up to the base's speed and it
 * sticks at t = 1 + m 0.3 / F_D = 1.4 s, moving with the base after. */
static void base_velocity_step(void **state)
{
    (void)state;
    const char *sys = "bodies: {a: {mass: 2.0}}\n"
                      "contacts:\n  - {body: a, law: coulomb, dynamic: 1.5, static_ratio: 1.2}\n"
                      "inputs: {base_motion: {type: ramp, start_time: 1.0, slope: 0.3}}\n"
                      "simulation: {t_end: 2.0, rtol: 1e-12}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(sys, &sink);
    assert_int_equal(r->n_events, 2);
    assert_int_equal(r->events[0].kind, STSL_EV_INPUT_STEP);
    assert_true(r->events[0].t == 1.0);
    assert_true(r->events[0].after[1] == 0.0); /* v.a: no impulse through friction */
    assert_int_equal(r->events[1].kind, STSL_EV_STICK);
    assert_close(r->events[1].t, 1.4, 1e-13);
    long last = r->n_samples - 1;
    assert_close(tu_col(r, last, 1), 0.3, 1e-12);
    stsl_sink_free(&sink);
}

/* A compliant stop to the ground (k = 1e4, c = 200: damping ratio 0.7)
 * under a constant force F = 4 from a free flight: after the contact's
 * bounces die out the body rests at the penetration F / k, the stop's
 * reaction on it -F (mb-interfaces §3: the force on the first end).  By
 * t = 3 s the contact has decayed by exp(-zeta w t) ~ 1e-80: the rest is
 * the integration's own error, rtol-sized on x ~ 0.5. */
static void compliant_stop_rest(void **state)
{
    (void)state;
    const char *sys =
        "bodies: {a: {mass: 2.0}}\n"
        "stops:\n  - {body: a, min: -1.0, max: 0.5, model: compliant, stiffness: 1.0e4, "
        "damping: 200.0}\n"
        "inputs: {forces: {a: {type: constant, value: 4.0}}}\n"
        "simulation: {t_end: 3.0, rtol: 1e-10}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(sys, &sink);
    assert_true(tu_nth_event(r, STSL_EV_CONTACT_BEGIN, 0) >= 0);
    long last = r->n_samples - 1;
    /* columns: x[a] v[a] a[a] stop_reaction[stops.0] stop_mode[stops.0] */
    assert_close(tu_col(r, last, 0), 0.5 + 4.0 / 1.0e4, 1e-10);
    assert_close(tu_col(r, last, 3), -4.0, 1e-6);
    assert_true(tu_col(r, last, 4) == STSL_SM_HIGH);
    stsl_sink_free(&sink);
}

/* ---- a stop let go at its limit ---------------------------------------------------- */

/* Two bodies on a backlash stop (gap 0.04) that closes after bounces and
 * is let go again while a contact reverses or as the stop's own reaction
 * crosses zero; each system in two orders of its file.  At each release
 * the ends part with zero relative velocity and a clear outward relative
 * acceleration (3.4 and 0.5 m/s^2 measured at the first releases), the
 * gap opening as a t^2 / 2 from the rounding of the positions, or, in the
 * third system (a contact with static = dynamic level beside the stop),
 * with zero acceleration and a jerk of 81 m/s^3: a gap of j t^3 / 6,
 * below the positions' rounding (5e-17 m) for 1.6 us.  To come
 * back the relative velocity must reverse, which takes a change of the
 * forces: the springs (sqrt(k / m) <= 13 rad/s) and the 1 and 1.5 Hz
 * inputs change them over tens of ms.  So no event of the stop within
 * 1 ms of a release (measured: 0.115, 0.144 and 0.152 s at least); the
 * integrator once found a "touch" 17 ns and a "crossing" 64 ps after one,
 * in one order of the file, from a few ulps of the gap (an impact, and 84
 * events against 83), and in the third system the gap crossed by
 * rounding again and again until its speed counted as an impact's,
 * 0.5 us after the release in one order, 3 us in the other.  And both
 * orders have the same number of events. */
static const char *const LET_GO[3][2] = {
    {"bodies: {zeta: {mass: 0.5}, alpha: {mass: 1}}\n"
     "couplings:\n"
     "  - {between: [zeta, ground], stiffness: 20, damping: 0.5}\n"
     "  - {between: [alpha, ground], stiffness: 50, damping: 0.5}\n"
     "contacts:\n"
     "  - {between: [zeta, ground], law: coulomb, dynamic: 2, static_ratio: 1.5}\n"
     "  - {between: [alpha, zeta], law: coulomb, dynamic: 1, static_ratio: 1.5}\n"
     "stops:\n"
     "  - {between: [alpha, zeta], min: -0.02, max: 0.02, model: rigid, restitution: 0.5}\n"
     "inputs: {forces: {zeta: {type: sine, amplitude: 3, frequency: 1},\n"
     "                  alpha: {type: sine, amplitude: 8, frequency: 1}}}\n"
     "simulation: {t_end: 2.0, output_step: 0.5, rtol: 1e-12}\n",
     "bodies: {alpha: {mass: 1}, zeta: {mass: 0.5}}\n"
     "couplings:\n"
     "  - {between: [zeta, ground], stiffness: 20, damping: 0.5}\n"
     "  - {between: [alpha, ground], stiffness: 50, damping: 0.5}\n"
     "contacts:\n"
     "  - {between: [alpha, zeta], law: coulomb, dynamic: 1, static_ratio: 1.5}\n"
     "  - {between: [zeta, ground], law: coulomb, dynamic: 2, static_ratio: 1.5}\n"
     "stops:\n"
     "  - {between: [alpha, zeta], min: -0.02, max: 0.02, model: rigid, restitution: 0.5}\n"
     "inputs: {forces: {alpha: {type: sine, amplitude: 8, frequency: 1},\n"
     "                  zeta: {type: sine, amplitude: 3, frequency: 1}}}\n"
     "simulation: {t_end: 2.0, output_step: 0.5, rtol: 1e-12}\n"},
    {"bodies: {omega: {mass: 1}, b2: {mass: 1}}\n"
     "couplings:\n"
     "  - {between: [omega, ground], stiffness: 20, damping: 0}\n"
     "  - {between: [b2, omega], stiffness: 50, damping: 0.5}\n"
     "contacts:\n"
     "  - {name: cq0, between: [omega, ground], law: coulomb, dynamic: 2, static_ratio: 1.25}\n"
     "  - {name: cu1, between: [b2, omega], law: coulomb, dynamic: 1, static_ratio: 1.25}\n"
     "stops:\n"
     "  - {between: [b2, omega], min: -0.02, max: 0.02, model: rigid, restitution: 0.5}\n"
     "inputs: {forces: {omega: {type: sine, amplitude: 5, frequency: 1},\n"
     "                  b2: {type: sine, amplitude: 5, frequency: 1.5}}}\n"
     "simulation: {t_end: 2.0, output_step: 0.5, rtol: 1e-12}\n",
     "bodies: {omega: {mass: 1}, b2: {mass: 1}}\n"
     "couplings:\n"
     "  - {between: [omega, ground], stiffness: 20, damping: 0}\n"
     "  - {between: [omega, b2], stiffness: 50, damping: 0.5}\n"
     "contacts:\n"
     "  - {name: cu1, between: [b2, omega], law: coulomb, dynamic: 1, static_ratio: 1.25}\n"
     "  - {name: cq0, between: [omega, ground], law: coulomb, dynamic: 2, static_ratio: 1.25}\n"
     "stops:\n"
     "  - {between: [b2, omega], min: -0.02, max: 0.02, model: rigid, restitution: 0.5}\n"
     "inputs: {forces: {omega: {type: sine, amplitude: 5, frequency: 1},\n"
     "                  b2: {type: sine, amplitude: 5, frequency: 1.5}}}\n"
     "simulation: {t_end: 2.0, output_step: 0.5, rtol: 1e-12}\n"},
    {"bodies:\n"
     "  beta: {mass: 1, velocity: -0.6}\n"
     "  omega: {mass: 1, velocity: 0}\n"
     "  alpha: {mass: 0.5, velocity: 0}\n"
     "couplings:\n"
     "  - {between: [beta, ground], stiffness: 10, damping: 0}\n"
     "  - {between: [omega, ground], stiffness: 20, damping: 0}\n"
     "  - {between: [alpha, beta], stiffness: 20, damping: 0}\n"
     "contacts:\n"
     "  - {between: [beta, ground], law: coulomb, dynamic: 2, static_ratio: 1.5}\n"
     "  - {between: [omega, beta], law: coulomb, dynamic: 1, static_ratio: 1}\n"
     "  - {between: [alpha, ground], law: coulomb, dynamic: 1, static_ratio: 1.25}\n"
     "stops:\n"
     "  - {between: [omega, beta], min: -0.02, max: 0.02, model: rigid, restitution: 0}\n"
     "inputs:\n"
     "  forces:\n"
     "    {beta: {type: sine, amplitude: 5, frequency: 0.5}, omega: {type: sine, amplitude: 5, "
     "frequency: 1.5}, alpha: {type: sine, amplitude: 5, frequency: 1}, }\n"
     "simulation: {t_end: 2.0, output_step: 0.5, rtol: 1e-12}\n",
     "bodies:\n"
     "  alpha: {mass: 0.5, velocity: 0}\n"
     "  beta: {mass: 1, velocity: -0.6}\n"
     "  omega: {mass: 1, velocity: 0}\n"
     "couplings:\n"
     "  - {between: [alpha, beta], stiffness: 20, damping: 0}\n"
     "  - {between: [beta, ground], stiffness: 10, damping: 0}\n"
     "  - {between: [omega, ground], stiffness: 20, damping: 0}\n"
     "contacts:\n"
     "  - {between: [alpha, ground], law: coulomb, dynamic: 1, static_ratio: 1.25}\n"
     "  - {between: [omega, beta], law: coulomb, dynamic: 1, static_ratio: 1}\n"
     "  - {between: [beta, ground], law: coulomb, dynamic: 2, static_ratio: 1.5}\n"
     "stops:\n"
     "  - {between: [omega, beta], min: -0.02, max: 0.02, model: rigid, restitution: 0}\n"
     "inputs:\n"
     "  forces:\n"
     "    {alpha: {type: sine, amplitude: 5, frequency: 1}, beta: {type: sine, amplitude: 5, "
     "frequency: 0.5}, omega: {type: sine, amplitude: 5, frequency: 1.5}, }\n"
     "simulation: {t_end: 2.0, output_step: 0.5, rtol: 1e-12}\n"}};

/* The first event of subject `stop` after event i, or -1. */
static long next_of(const stsl_mem_result *r, long i, int stop)
{
    for (long j = i + 1; j < r->n_events; j++)
        if (r->events[j].subject == stop) return j;
    return -1;
}

static void stop_let_go_at_its_limit(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        const int stop = k < 2 ? 3 : 4; /* subject: 1 + the contacts + stop 0 */
        long n_events[2] = {0, 0}, releases = 0;
        for (int order = 0; order < 2; order++) {
            stsl_sink sink;
            const stsl_mem_result *r = run_system(LET_GO[k][order], &sink);
            n_events[order] = r->n_events;
            for (long i = 0; i < r->n_events; i++) {
                if (r->events[i].kind != STSL_EV_STOP_RELEASE) continue;
                assert_int_equal(r->events[i].subject, stop);
                releases++;
                long j = next_of(r, i, stop);
                if (j >= 0 && !(r->events[j].t - r->events[i].t > 1e-3))
                    fail_msg("system %d, order %d: stop event (kind %d) %.3g s after its release "
                             "at t = %.17g",
                             k, order, r->events[j].kind, r->events[j].t - r->events[i].t,
                             r->events[i].t);
            }
            stsl_sink_free(&sink);
        }
        assert_true(releases >= 4); /* the case is there: each order lets go twice or more */
        assert_int_equal(n_events[0], n_events[1]);
    }
}

/* ---- the CLI on a system ------------------------------------------------------------- */

/* name: for contacts and stops: the columns' members, the event subjects
 * and the mode names use it (contacts.N and stops.N where none is given),
 * the effective configuration writes it back and loads it again. */
static void named_contacts(void **state)
{
    (void)state;
    const char *yaml = "bodies: {a: {mass: 1, velocity: 1}, b: {mass: 1}}\n"
                       "contacts:\n  - {name: brake, body: a, dynamic: 0.5}\n"
                       "  - {between: [b, a], dynamic: 0.1}\n"
                       "stops:\n  - {name: gap, between: [a, b], min: -0.1, max: 0.1}\n"
                       "simulation: {t_end: 0.5}\n";
    stsl_sink sink;
    const stsl_mem_result *r = run_system(yaml, &sink);
    const stsl_layout *l = &r->layout;
    assert_int_equal(l->n_subjects, 3);
    assert_string_equal(l->subject_names[0], "brake");
    assert_string_equal(l->subject_names[1], "contacts.1");
    assert_string_equal(l->subject_names[2], "gap");
    int seen = 0;
    for (int c = 0; c < l->n_cols; c++)
        seen += !strcmp(l->cols[c].name, "friction[brake]") ||
                !strcmp(l->cols[c].name, "stop_reaction[gap]");
    assert_int_equal(seen, 2);
    /* a reaches the gap at 0.1 s: an impact of `gap` */
    assert_true(r->n_events >= 1);
    assert_string_equal(l->subject_names[r->events[0].subject - 1], "gap");
    stsl_sink_free(&sink);
    stsl_config cfg, again;
    load(yaml, &cfg);
    char *text = stsl_config_to_yaml(&cfg);
    assert_non_null(text);
    assert_non_null(strstr(text, "- {name: brake, body: a"));
    assert_non_null(strstr(text, "- {name: gap, between: [a, b]"));
    load(text, &again);
    assert_string_equal(again.system.contacts[0].name, "brake");
    assert_string_equal(again.system.contacts[1].name, "");
    assert_string_equal(again.system.stops[0].name, "gap");
    free(text);
    stsl_config_free(&cfg);
    stsl_config_free(&again);
}

static void cli_exit_codes(void **state)
{
    (void)state;
    char dir[256], path[512], res[600], out[4096];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/sys.yaml", dir);
    snprintf(res, sizeof res, "%s/out.h5", dir);
    /* A bad contact load is refused before a file is made, at its line:
     * exit 2. */
    assert_int_equal(tu_write_file(path, "bodies: {a: {mass: 1}}\ncontacts:\n"
                                         "  - {body: a, dynamic: 1,\n"
                                         "     load: {type: ramp, slope: nan}}\n"
                                         "simulation: {t_end: 1}\n"),
                     0);
    assert_int_equal(tu_cli(out, sizeof out, "run %s -o %s", path, res), 2);
    assert_non_null(strstr(out, "sys.yaml:4: contacts.0.load.slope: "));
    assert_false(tu_file_exists(res));
    /* Twelve bodies held by eleven stuck clutches and pushed: the eleven
     * contacts switch together; the search by levels decides them (the
     * enumeration of 3^11 combinations failed here with exit 3): all
     * stay stuck, the chain moves as one (the first clutch carries 11/12 N
     * of its 1 N). */
    char yaml[4096];
    size_t used = (size_t)snprintf(yaml, sizeof yaml, "bodies: {");
    for (int i = 0; i <= 11; i++)
        used +=
            (size_t)snprintf(yaml + used, sizeof yaml - used, "%sb%d: {mass: 1}", i ? ", " : "", i);
    used += (size_t)snprintf(yaml + used, sizeof yaml - used, "}\ncontacts:\n");
    for (int i = 0; i < 11; i++)
        used += (size_t)snprintf(yaml + used, sizeof yaml - used,
                                 "  - {between: [b%d, b%d], law: coulomb, dynamic: 1}\n", i, i + 1);
    snprintf(yaml + used, sizeof yaml - used,
             "inputs: {forces: {b0: {type: constant, value: 1}}}\nsimulation: {t_end: 1}\n");
    assert_int_equal(tu_write_file(path, yaml), 0);
    assert_int_equal(tu_cli(out, sizeof out, "run -q %s -o %s", path, res), 0);
    assert_true(tu_file_exists(res));
    remove(res);
    /* A valid system runs: exit 0 and a result. */
    assert_int_equal(tu_write_file(path, "bodies: {a: {mass: 1}, b: {mass: 2}}\n"
                                         "couplings:\n  - {between: [a, b], stiffness: 10}\n"
                                         "contacts:\n  - {body: a, dynamic: 0.5}\n"
                                         "inputs: {forces: {b: {type: sine, amplitude: 2, "
                                         "frequency: 1}}}\nsimulation: {t_end: 2}\n"),
                     0);
    assert_int_equal(tu_cli(out, sizeof out, "run -q %s -o %s", path, res), 0);
    assert_true(tu_file_exists(res));
    remove(res);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(d2_two_single_runs),       cmocka_unit_test(examples_as_systems),
        cmocka_unit_test(energy_balance),           cmocka_unit_test(simultaneous_stick),
        cmocka_unit_test(ambiguous_start),          cmocka_unit_test(base_velocity_step),
        cmocka_unit_test(compliant_stop_rest),      cmocka_unit_test(clutch_loop),
        cmocka_unit_test(stuck_cluster_breakaway),  cmocka_unit_test(two_mass_slipping),
        cmocka_unit_test(rigid_stop_impacts),       cmocka_unit_test(backlash_impact),
        cmocka_unit_test(cli_exit_codes),           cmocka_unit_test(named_contacts),
        cmocka_unit_test(stop_let_go_at_its_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
