/* test_multibody_physics.c - issue 14's "Done when" physics of systems of
 * bodies (dev/multibody-plan.md D3..D8), each against a closed form that
 * is derived here and evaluated by the small helpers next to its test:
 *
 *  D3  a stiff coupling k -> infinity is one body of the summed mass with
 *      the summed friction: the error falls like 1/k (fitted slope).
 *  D4  energy: input work = kinetic + spring energy change + dissipation
 *      (friction, dampers) for a chain of six bodies and a two-mass servo.
 *  D5  the final rest of a free chain: positions, stick times and the
 *      constraint forces of a symmetric (and an asymmetric) three-block
 *      chain from Den Hartog's closed form; forces balance.
 *  D6  two contacts switching at one instant: the combination the
 *      closed form predicts (both stick; one sticks and one reverses; an
 *      ambiguous instant resolved by the tie rule).
 *  D7  backlash: impact times and velocities of a free-running body
 *      between the faces of a gap, to ground and to another body.
 *  D8  a compliant stop between two bodies: static penetration F/k and
 *      the restitution and energy loss of one bounce.
 *
 * D2 (two uncoupled bodies = two single runs) and the engine's basic tests
 * are in test_multibody.c.
 *
 * Tolerances.  Every run uses rtol 1e-10 and the atol derived from it
 * (docs/numerics.md).  As in test_physics and test_compliant_stop, event
 * times are roots of guards located to about 1e-15 s and states carry the
 * integration error of the segments before them (1e-9 relative at most over
 * a few oscillations), so closed forms are checked with weighted RMS < 1 at
 * rtol 1e-8, atol 1e-10 (RT, AT) unless a test argues another bound.
 * Positions and times that are exact in floating point up to a few
 * roundoffs (free flight between impacts) use the same bound: it is far
 * above both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/consistency.h"
#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "run/run.h"
#include "run/validation.h"
#include "solver/sink.h"
#include "test/testutil.h"

#define RT 1e-8
#define AT 1e-10

/* ============================================================ running a system */

/* One run of a system: the memory sink's result (with its copy of the
 * layout: column groups, event kinds and subjects), the statistics and
 * the status. */
typedef struct mb_run {
    stsl_sink sink;
    const stsl_mem_result *r;
    stsl_stats st;
    int rc;
    stsl_error err;
    int n_bodies, n_contacts, n_stops;
    stsl_config cfg; /* the system run (freed by mb_free) */
} mb_run;

/* Load `yaml` (a system) and run it with stsl_run_system; the status is in
 * m->rc (a test of a failing run asks for it).  Free with mb_free. */
static void mb_start(const char *yaml, mb_run *m)
{
    memset(m, 0, sizeof *m);
    stsl_config *cfg = &m->cfg;
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "<test>", NULL, NULL, 0, cfg, &err))
        fail_msg("config: %s\n%s", err.msg, yaml);
    assert_true(cfg->is_system);
    m->n_bodies = cfg->system.n_bodies;
    m->n_contacts = cfg->system.n_contacts;
    m->n_stops = cfg->system.n_stops;
    assert_int_equal(stsl_mem_sink_create(&m->sink, &err), STSL_OK);
    cfg->sim.integrate_power = 1; /* stats.work: the engine's own energy balance (D4) */
    m->rc = stsl_run_system(&cfg->system, &cfg->sim, &m->sink, &m->st, &m->err);
    m->r = stsl_mem_sink_result(&m->sink);
}

/* mb_start, asserting that the run succeeded and reached t_end, and SPEC
 * §4's band invariant in every sample (tu_assert_bands). */
static void mb_run_ok(const char *yaml, mb_run *m)
{
    mb_start(yaml, m);
    if (m->rc) fail_msg("run failed (%d): %s\n%s", m->rc, m->err.msg, yaml);
    assert_true(m->r->complete);
    tu_assert_bands(m->r, &m->cfg.system);
}

static void mb_free(mb_run *m)
{
    stsl_sink_free(&m->sink);
    stsl_config_free(&m->cfg);
}

/* First column of the group `name` (x, v, a, friction, slip_velocity,
 * contact_mode, stop_reaction, stop_mode) or of the ungrouped column
 * `name` (x_base, v_base); fails the test when absent. */
static int grp(const mb_run *m, const char *name)
{
    const stsl_layout *l = &m->r->layout;
    for (int g = 0; g < l->n_groups; g++)
        if (!strcmp(l->groups[g].name, name)) return l->groups[g].first;
    for (int c = 0; c < l->n_cols; c++) /* ungrouped (x_base, v_base) */
        if (!strcmp(l->cols[c].name, name)) return c;
    fail_msg("no column group '%s' in the layout", name);
    return -1;
}

/* Value of member `j` of group `name` in sample i. */
static double val(const mb_run *m, const char *name, long i, int j)
{
    return m->r->cols[i * m->r->n_cols + grp(m, name) + j];
}

static double X(const mb_run *m, long i, int b)
{
    return val(m, "x", i, b);
}
static double V(const mb_run *m, long i, int b)
{
    return val(m, "v", i, b);
}
static double FRIC(const mb_run *m, long i, int c)
{
    return val(m, "friction", i, c);
}
static int CMODE(const mb_run *m, long i, int c)
{
    return (int)lround(val(m, "contact_mode", i, c));
}

/* The event kind called `name`, -1 when the layout has none. */
static int kind(const mb_run *m, const char *name)
{
    const stsl_layout *l = &m->r->layout;
    for (int k = 0; k < l->n_kinds; k++)
        if (!strcmp(l->kind_names[k], name)) return k;
    return -1;
}

/* Index of the n-th event (0-based) of kind `name` about subject `subj`
 * (1 + contact index, 1 + n_contacts + stop index; -1: any); -1 if none. */
static long nth(const mb_run *m, const char *name, int subj, int n)
{
    int k = kind(m, name);
    for (long i = 0; i < m->r->n_events; i++)
        if (m->r->events[i].kind == k && (subj < 0 || m->r->events[i].subject == subj) && n-- == 0)
            return i;
    return -1;
}

/* Number of events of kind `name` about `subj` (-1: any). */
static int count(const mb_run *m, const char *name, int subj)
{
    int n = 0;
    while (nth(m, name, subj, n) >= 0)
        n++;
    return n;
}

static int contact_subject(int c)
{
    return 1 + c;
}
static int stop_subject(const mb_run *m, int s)
{
    return 1 + m->n_contacts + s;
}

/* The sample just after the event at time t (the solver emits a sample
 * before and one after every event; the last one at t is "after"). */
static long after_at(const mb_run *m, double t)
{
    long k = -1;
    for (long i = 0; i < m->r->n_samples && m->r->t[i] <= t; i++)
        if (m->r->t[i] == t) k = i;
    if (k < 0) fail_msg("no sample at t = %.17g", t);
    return k;
}

static long last(const mb_run *m)
{
    return m->r->n_samples - 1;
}

/* ============================================================ D3: stiff coupling */

/* Two bodies a (m1 = 1) and b (m2 = 2) with Coulomb friction to the ground,
 * F1 = 1 and F2 = 2, joined by a spring k and a damper c; a sine force of
 * amplitude 4 at 0.5 Hz drives a (the element then breaks away, slips and
 * sticks again three times in 3 s).  As k -> infinity the pair is the one
 * element of mass m1 + m2 = 3 with friction F1 + F2 = 3 (the same force):
 *
 *  - While both slip, the pair's centre of mass obeys exactly the
 *    element's equation, (m1 + m2) X'' = F(t) - F1 - F2 (the coupling's
 *    force is internal).  The bodies differ only by the coupling's
 *    deflection, quasi-static: k delta ~ (internal force) = O(1), so
 *    delta = O(1/k) and the relative velocity delta' = O(1/k).
 *  - The pair sticks when its last contact sticks.  The first body to stop
 *    does so O(1/k) early (its velocity differs from the centre's by
 *    O(1/k) while the deceleration is O(1)); the other stops O(1/k) later.
 *  - Breakaway: a, pushed, breaks away first and creeps at a velocity
 *    ~ F'(t)/k, loading the coupling quasi-statically, until the coupling
 *    force reaches b's limit: at F(t) = F1 + F2 + O(1/k), the element's
 *    breakaway.  This needs static = dynamic levels (static_ratio 1): with
 *    F_S > F_D, a slipping at F1 leaves b to break away at F1 + F_S2 <
 *    F_S1 + F_S2 - the pair does not converge to the summed static limit
 *    at all (the contacts break away one after the other).
 *  - The centre of mass then differs from the element's only through
 *    these O(1/k) windows and the O(1/k) deflection: position error O(1/k).
 *
 * So every error falls like 1/k (slope -1).  The damper is held at the
 * critical damping of the heavier body on its own, c = 2 sqrt(k m2): the
 * coupling's period 2 pi sqrt(mu/k) and its decay time ~ 1/sqrt(k) both
 * vanish in the limit, and the relative motion never rings (an undamped
 * coupling would ring at O(k^-1/2) amplitude in velocity after every
 * contact switch, a chatter of micro stick-slips whose count grows with
 * k; that is a different limit, not the rigid body).  The test asserts the
 * fitted slope of the worst error over k = 1e3 .. 1e6 (three decades) is
 * at most -1 + 0.5 (STYLE rule 7) and that the largest k is within 1e-4 of
 * the element (1/k = 1e-6 times a coefficient of order 1..100).  Measured:
 * event times 8.7e-3, 7.1e-4, 6.5e-5, 6.3e-6 s, slope -1.05; centre of
 * mass 2.5e-3 .. 2.6e-6, slope -1.00. */
#define D3_M1   1.0
#define D3_M2   2.0
#define D3_F1   1.0
#define D3_F2   2.0
#define D3_AMP  4.0
#define D3_FREQ 0.5
#define D3_TEND 3.0

static void d3_pair_yaml(double k, char *buf, size_t n)
{
    snprintf(buf, n,
             "bodies: {a: {mass: %.17g}, b: {mass: %.17g}}\n"
             "couplings:\n  - {between: [a, b], stiffness: %.17g, damping: %.17g}\n"
             "contacts:\n"
             "  - {between: [a, ground], law: coulomb, dynamic: %.17g}\n"
             "  - {between: [b, ground], law: coulomb, dynamic: %.17g}\n"
             "inputs: {forces: {a: {type: sine, amplitude: %.17g, frequency: %.17g}}}\n"
             "simulation: {t_end: %.17g, output_step: 0, rtol: 1e-10}\n",
             D3_M1, D3_M2, k, 2.0 * sqrt(k * D3_M2), D3_F1, D3_F2, D3_AMP, D3_FREQ, D3_TEND);
}

/* The element's stick and breakaway times (in order) and its final state. */
typedef struct d3_ref {
    int n_stick, n_break;
    double stick[16], brk[16];
    double x_end, v_end;
} d3_ref;

static void d3_element(d3_ref *ref)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "element: {mass: %.17g}\nfriction: {law: coulomb, dynamic: %.17g}\n"
             "inputs: {active_force: {type: sine, amplitude: %.17g, frequency: %.17g}}\n"
             "simulation: {t_end: %.17g, output_step: 0, rtol: 1e-10}\n",
             D3_M1 + D3_M2, D3_F1 + D3_F2, D3_AMP, D3_FREQ, D3_TEND);
    stsl_sink sink;
    const stsl_mem_result *r = tu_run_yaml(yaml, NULL, 0, &sink);
    memset(ref, 0, sizeof *ref);
    for (long i = 0; i < r->n_events; i++) {
        if (r->events[i].kind == STSL_EV_STICK && ref->n_stick < 16)
            ref->stick[ref->n_stick++] = r->events[i].t;
        if (r->events[i].kind == STSL_EV_BREAKAWAY && ref->n_break < 16)
            ref->brk[ref->n_break++] = r->events[i].t;
    }
    long n = r->n_samples - 1;
    ref->x_end = r->cols[n * r->n_cols + STSL_COL_X];
    ref->v_end = r->cols[n * r->n_cols + STSL_COL_V];
    stsl_sink_free(&sink);
}

/* The pair's stick times (both contacts stuck from then on) and breakaway
 * times (both slipping from then on), from the contact modes of the samples
 * (a sample before and after every event). */
static void d3_pair_times(const mb_run *m, d3_ref *out)
{
    memset(out, 0, sizeof *out);
    int was_stuck = 1, was_slip = 0; /* the pair starts at rest, F(0) = 0 */
    for (long i = 0; i < m->r->n_samples; i++) {
        int s0 = CMODE(m, i, 0) == STSL_CONTACT_STUCK, s1 = CMODE(m, i, 1) == STSL_CONTACT_STUCK;
        int stuck = s0 && s1, slip = !s0 && !s1;
        if (stuck && !was_stuck && out->n_stick < 16) out->stick[out->n_stick++] = m->r->t[i];
        if (slip && !was_slip && out->n_break < 16) out->brk[out->n_break++] = m->r->t[i];
        was_stuck = stuck, was_slip = slip;
    }
    long n = last(m);
    double mt = D3_M1 + D3_M2;
    out->x_end = (D3_M1 * X(m, n, 0) + D3_M2 * X(m, n, 1)) / mt;
    out->v_end = (D3_M1 * V(m, n, 0) + D3_M2 * V(m, n, 1)) / mt;
}

static void d3_stiff_coupling(void **state)
{
    (void)state;
    d3_ref el;
    d3_element(&el);
    /* The case has some stick-slip to converge: at least two sticks and
     * two breakaways of the element within t_end. */
    assert_true(el.n_stick >= 2 && el.n_break >= 2);
    const double ks[] = {1e3, 1e4, 1e5, 1e6};
    enum { NK = sizeof ks / sizeof ks[0] };
    double e_time[NK], e_pos[NK];
    for (int j = 0; j < NK; j++) {
        char yaml[1024];
        d3_pair_yaml(ks[j], yaml, sizeof yaml);
        mb_run m;
        mb_run_ok(yaml, &m);
        d3_ref p;
        d3_pair_times(&m, &p);
        if (p.n_stick != el.n_stick || p.n_break != el.n_break)
            fail_msg("k = %g: the pair sticks %d and breaks away %d times, the element %d and %d",
                     ks[j], p.n_stick, p.n_break, el.n_stick, el.n_break);
        double et = 0.0;
        for (int i = 0; i < el.n_stick; i++)
            et = fmax(et, fabs(p.stick[i] - el.stick[i]));
        for (int i = 0; i < el.n_break; i++)
            et = fmax(et, fabs(p.brk[i] - el.brk[i]));
        e_time[j] = et;
        e_pos[j] = fmax(fabs(p.x_end - el.x_end), fabs(p.v_end - el.v_end));
        print_message("D3 k = %8.0e: max |dt| of sticks/breakaways %.3e s, "
                      "centre of mass |dx|, |dv| at t_end %.3e\n",
                      ks[j], e_time[j], e_pos[j]);
        mb_free(&m);
    }
    int ut, up; /* every error enters the fit (none is exactly 0) */
    double st = stsl_compare_fit_order(ks, e_time, NK, &ut);
    double sp = stsl_compare_fit_order(ks, e_pos, NK, &up);
    assert_true(ut == NK && up == NK);
    print_message("D3 fitted slopes: event times %.3f, centre of mass %.3f (expected -1)\n", st,
                  sp);
    assert_true(st <= -0.5);
    assert_true(sp <= -0.5);
    assert_true(e_time[NK - 1] < 1e-4 && e_pos[NK - 1] < 1e-4);
}

/* ============================================================ D4: energy balance */

/* SPEC §4: the work of the applied forces and of the prescribed motions
 * equals the change of kinetic and spring energy plus the energy
 * dissipated by friction and dampers.  With the friction of contact c on
 * its ends[0] f_c, its slip velocity w_c = v(ends[0]) - v(ends[1]), and a
 * coupling's force on its body g = -k e - c e' (e = x_a - x_end, free
 * length 0):
 *   P_in   = sum_i F_i(t) v_i + sum_(c to base) f_c v_b
 *            + sum_(couplings to base) g v_b                 (the base's work)
 *   P_diss = sum_c (-f_c w_c) + sum_couplings c e'^2      (>= 0)
 *   E      = sum_i m_i v_i^2 / 2 + sum_couplings k e^2 / 2
 * and W_in = E(T) - E(0) + D with W_in, D the integrals of P_in, P_diss.
 * (A stuck contact has w_c = 0: it dissipates nothing, but against the
 * base its constraint force still does the base's work f_c v_b.)
 *
 * The integrals are taken here, independently of the engine, from the
 * samples: the run is sampled every h and at both sides of every event;
 * between events every column is smooth (analytic), so each interval is
 * integrated exactly for the cubic through the four nearest samples of
 * its piece (two-point Gauss-Legendre on the cubic).  Its error is
 * O((h omega)^4) of the work, omega the fastest frequency: h is chosen per
 * case so that this is below 1e-11.  Samples are CVODE's interpolants,
 * good to the local error (rtol 1e-10).  What remains is how well the
 * run itself keeps the balance (the integration error over the whole run
 * and the event locations): the 1e-8 of the work.  The engine's
 * own integral of the same balance (stats.work with integrate_power, its
 * power op: input - dissipation) must match E(T) - E(0) as well. */
#define D4_MAXB 8
typedef struct d4_link {
    int a, b; /* bodies; b = -1: ground, -2: base */
    double k, c;
} d4_link;
typedef struct d4_sys {
    const char *name;
    int nb;
    double m[D4_MAXB], x0[D4_MAXB], v0[D4_MAXB];
    int ncp;
    d4_link cp[D4_MAXB]; /* couplings: stiffness k, damping c */
    int nct;
    d4_link ct[D4_MAXB];         /* contacts: k = dynamic level, c = static ratio */
    int force_body;              /* the body the force acts on */
    double f_amp, f_freq, f_off; /* F = f_off + f_amp sin(2 pi f_freq t) */
    double v_base;               /* the base moves at this speed (0: at rest) */
    double t_end, h;
} d4_sys;

static const char *d4_end(const d4_sys *s, int b, char *buf)
{
    if (b == -1) return "ground";
    if (b == -2) return "base";
    (void)s;
    snprintf(buf, 16, "b%d", b);
    return buf;
}

static void d4_yaml(const d4_sys *s, char *y, size_t n)
{
    char e0[16], e1[16];
    size_t o = (size_t)snprintf(y, n, "bodies:\n");
    for (int i = 0; i < s->nb; i++)
        o += (size_t)snprintf(y + o, n - o,
                              "  b%d: {mass: %.17g, position: %.17g, velocity: %.17g}\n", i,
                              s->m[i], s->x0[i], s->v0[i]);
    o += (size_t)snprintf(y + o, n - o, "couplings:\n");
    for (int i = 0; i < s->ncp; i++)
        o += (size_t)snprintf(
            y + o, n - o, "  - {between: [%s, %s], stiffness: %.17g, damping: %.17g}\n",
            d4_end(s, s->cp[i].a, e0), d4_end(s, s->cp[i].b, e1), s->cp[i].k, s->cp[i].c);
    o += (size_t)snprintf(y + o, n - o, "contacts:\n");
    for (int i = 0; i < s->nct; i++)
        o += (size_t)snprintf(
            y + o, n - o,
            "  - {between: [%s, %s], law: coulomb, dynamic: %.17g, static_ratio: %.17g}\n",
            d4_end(s, s->ct[i].a, e0), d4_end(s, s->ct[i].b, e1), s->ct[i].k, s->ct[i].c);
    o += (size_t)snprintf(y + o, n - o,
                          "inputs:\n  forces: {b%d: {type: sine, amplitude: %.17g, frequency: "
                          "%.17g, offset: %.17g}}\n",
                          s->force_body, s->f_amp, s->f_freq, s->f_off);
    if (s->v_base != 0.0)
        o += (size_t)snprintf(y + o, n - o, "  base_motion: {type: ramp, slope: %.17g}\n",
                              s->v_base);
    snprintf(y + o, n - o, "simulation: {t_end: %.17g, output_step: %.17g, rtol: 1e-10}\n",
             s->t_end, s->h);
}

/* Position and velocity of an end in sample i. */
static double d4_x(const mb_run *m, long i, int b)
{
    return b >= 0 ? X(m, i, b) : b == -2 ? val(m, "x_base", i, 0) : 0.0;
}
static double d4_v(const mb_run *m, long i, int b)
{
    return b >= 0 ? V(m, i, b) : b == -2 ? val(m, "v_base", i, 0) : 0.0;
}

static double d4_energy(const d4_sys *s, const mb_run *m, long i)
{
    double e = 0.0;
    for (int b = 0; b < s->nb; b++)
        e += 0.5 * s->m[b] * V(m, i, b) * V(m, i, b);
    for (int j = 0; j < s->ncp; j++) {
        double d = d4_x(m, i, s->cp[j].a) - d4_x(m, i, s->cp[j].b);
        e += 0.5 * s->cp[j].k * d * d;
    }
    return e;
}

static void d4_power(const d4_sys *s, const mb_run *m, long i, double *p_in, double *p_diss)
{
    double t = m->r->t[i], vb = d4_v(m, i, -2);
    double pin = (s->f_off + s->f_amp * sin(2.0 * M_PI * s->f_freq * t)) * V(m, i, s->force_body);
    double pd = 0.0;
    for (int c = 0; c < s->nct; c++) {
        double f = FRIC(m, i, c), w = d4_v(m, i, s->ct[c].a) - d4_v(m, i, s->ct[c].b);
        pd -= f * w;
        if (s->ct[c].b == -2) pin += f * vb;
    }
    for (int j = 0; j < s->ncp; j++) {
        double e = d4_x(m, i, s->cp[j].a) - d4_x(m, i, s->cp[j].b);
        double ed = d4_v(m, i, s->cp[j].a) - d4_v(m, i, s->cp[j].b);
        pd += s->cp[j].c * ed * ed;
        if (s->cp[j].b == -2) pin += (-s->cp[j].k * e - s->cp[j].c * ed) * vb;
    }
    *p_in = pin, *p_diss = pd;
}

/* Integral over [t[j], t[j+1]] of the cubic through t[lo..lo+3] (or the
 * lower-degree polynomial through all n <= 3 points), by two-point
 * Gauss-Legendre (exact for cubics). */
static double interval_integral(const double *t, const double *f, int n, int j)
{
    int np = n < 4 ? n : 4;
    int lo = j - 1;
    if (lo < 0) lo = 0;
    if (lo + np > n) lo = n - np;
    double a = t[j], b = t[j + 1], mid = 0.5 * (a + b), half = 0.5 * (b - a), sum = 0.0;
    for (int g = -1; g <= 1; g += 2) {
        double x = mid + g * half / sqrt(3.0), p = 0.0;
        for (int q = lo; q < lo + np; q++) {
            double l = 1.0;
            for (int r = lo; r < lo + np; r++)
                if (r != q) l *= (x - t[r]) / (t[q] - t[r]);
            p += l * f[q];
        }
        sum += half * p;
    }
    return sum;
}

/* Integral of f over one smooth piece t[0..n-1] (no event inside).  Grid
 * samples closer than h/4 to a kept neighbour are dropped (they would make
 * the interpolation ill-conditioned; the piece's ends, event instants, are
 * always kept). */
static double piece_integral(const double *t, const double *f, int n, double h, double *tt,
                             double *ff)
{
    int k = 0;
    for (int i = 0; i < n; i++) {
        int end = i == 0 || i == n - 1;
        if (!end && (t[i] - tt[k - 1] < 0.25 * h || t[n - 1] - t[i] < 0.25 * h)) continue;
        tt[k] = t[i], ff[k] = f[i], k++;
    }
    double sum = 0.0;
    for (int j = 0; j + 1 < k; j++)
        sum += interval_integral(tt, ff, k, j);
    return sum;
}

/* The balance of one run: W_in, D, E(0), E(T) from the samples. */
static void d4_balance(const d4_sys *s, const mb_run *m, double *w_in, double *diss, double *e0,
                       double *e1)
{
    long n = m->r->n_samples;
    double *pin = malloc(sizeof *pin * (size_t)n), *pd = malloc(sizeof *pd * (size_t)n);
    double *tt = malloc(sizeof *tt * (size_t)n), *ff = malloc(sizeof *ff * (size_t)n);
    assert_true(pin && pd && tt && ff);
    for (long i = 0; i < n; i++)
        d4_power(s, m, i, &pin[i], &pd[i]);
    *w_in = *diss = 0.0;
    long start = 0;
    for (long i = 1; i <= n; i++)
        if (i == n || m->r->t[i] <= m->r->t[i - 1]) { /* a piece ends at i - 1 */
            int len = (int)(i - start);
            *w_in += piece_integral(m->r->t + start, pin + start, len, s->h, tt, ff);
            *diss += piece_integral(m->r->t + start, pd + start, len, s->h, tt, ff);
            start = i;
        }
    *e0 = d4_energy(s, m, 0);
    *e1 = d4_energy(s, m, n - 1);
    free(pin), free(pd), free(tt), free(ff);
}

static void d4_check(const d4_sys *s)
{
    char yaml[4096];
    d4_yaml(s, yaml, sizeof yaml);
    mb_run m;
    mb_run_ok(yaml, &m);
    double w, d, e0, e1;
    d4_balance(s, &m, &w, &d, &e0, &e1);
    double scale = fmax(fabs(w), d), resid = w - (e1 - e0 + d);
    print_message("D4 %s: %ld events, input work %.12e J, dissipated %.12e J, E %.6e -> %.6e J, "
                  "residual %.3e (%.2e of the work); stats.work %.12e\n",
                  s->name, m.r->n_events, w, d, e0, e1, resid, resid / scale, m.st.work);
    /* The case does what it is meant to: stick-slip (sticks and
     * breakaways), and most of the input dissipated. */
    assert_true(count(&m, "stick", -1) >= 2 && count(&m, "breakaway", -1) >= 2);
    assert_true(d > 0.1 * scale);
    assert_true(fabs(resid) <= 1e-8 * scale);
    /* The engine's own integral of (input - dissipation) (its power op,
     * a CVODES quadrature) agrees with the change of energy as well. */
    assert_true(fabs(m.st.work - (e1 - e0)) <= 1e-8 * scale);
    mb_free(&m);
}

/* A chain of six blocks on a belt (the base, moving at 0.2 m/s) with
 * Coulomb friction (static above dynamic), neighbours joined by springs
 * and dampers, the first tied to the ground, a sine force on the last:
 * stick-slip everywhere.  Frequencies up to about 2 sqrt(k/m) = 20 rad/s:
 * h = 1e-3 gives (h omega)^4 = 1.6e-7 times the quadrature's constant
 * (1/4320 for the cubic), below 1e-10. */
static void d4_chain_energy(void **state)
{
    (void)state;
    d4_sys s = {.name = "chain", .nb = 6, .ncp = 6, .nct = 6};
    for (int i = 0; i < 6; i++) {
        s.m[i] = 1.0 + 0.1 * i;
        s.x0[i] = 0.01 * i;
        s.ct[i] = (d4_link){i, -2, 0.5 + 0.05 * i, 1.3};
        s.cp[i] = (d4_link){i, i - 1, 25.0, 0.3};
    }
    s.cp[0].b = -1;
    s.force_body = 5, s.f_amp = 1.0, s.f_freq = 0.3, s.f_off = 0.2;
    s.v_base = 0.2, s.t_end = 10.0, s.h = 1e-3;
    d4_check(&s);
}

/* The two-mass servo of the issue (motor 1e-3, load 5e-2 kg m^2, a
 * shaft of 500 N m/rad and 0.05 N m s/rad) with Coulomb friction at both
 * (motor 0.02 N m, static 1.3x; load 0.03 N m, static 1.2x), a sine torque
 * of 0.1 N m at 2 Hz on the motor.  The shaft's frequency is
 * sqrt(500 (1/1e-3 + 1/5e-2)) = 714 rad/s (and sqrt(500/1e-3) = 707 with
 * the load stuck): h = 2e-5 gives (h omega)^4 = 4e-9, times 1/4320. */
static void d4_servo_energy(void **state)
{
    (void)state;
    d4_sys s = {.name = "servo", .nb = 2, .ncp = 1, .nct = 2};
    s.m[0] = 1e-3, s.m[1] = 5e-2;
    s.cp[0] = (d4_link){0, 1, 500.0, 0.05};
    s.ct[0] = (d4_link){0, -1, 0.02, 1.3};
    s.ct[1] = (d4_link){1, -1, 0.03, 1.2};
    s.force_body = 0, s.f_amp = 0.1, s.f_freq = 2.0, s.f_off = 0.0;
    s.t_end = 1.0, s.h = 2e-5;
    d4_check(&s);
}

/* ============================================================ D5: final rest */

/* Den Hartog (SPEC §3): a mass m on a spring k to a fixed point, Coulomb
 * friction F_D (slip) and F_S (static), released at rest at deflection u0.
 * Each slip half cycle is half an oscillation of period 2 pi / omega,
 * omega = sqrt(k / m), about the shifted centre -sign(u') F_D / k: a
 * deflection u ends at 2 u_c - u.  The motion sticks at the first turning
 * point with k |u| <= F_S.  Returns the number of half cycles (rest at
 * n pi / omega) and the deflection at rest. */
static int den_hartog(double m, double k, double fd, double fs, double u0, double *u_rest,
                      double *t_rest)
{
    double u = u0;
    int n = 0;
    while (fabs(k * u) > fs) {
        double dir = u > 0 ? -1.0 : 1.0; /* the spring pulls toward 0 */
        double uc = -dir * fd / k;
        u = 2.0 * uc - u;
        n++;
    }
    *u_rest = u;
    *t_rest = n * M_PI / sqrt(k / m);
    return n;
}

/* Three blocks a, b, c (mass 1) on the ground, springs a-b and b-c
 * (k = 100, free length 0) stretched by releasing a at -s_a and c at +s_c
 * with b at 0; every contact Coulomb.  b's friction holds it at rest as
 * long as the two springs' forces on it, k (x_a + x_c) (with x_b = 0),
 * stay within its static level (s_a + s_c < F_S,b / k for the asymmetric
 * case; exactly 0 for the symmetric one).  Then a and c are two
 * independent Den Hartog oscillators against the fixed b.  At the final
 * rest each stuck contact holds what the springs pull: friction on a
 * = k (x_a - x_b) ... with the sign of the springs' force reversed, and
 * on b = -(k (x_a - x_b) + k (x_c - x_b)), each within its band. */
#define D5_XTOL 1e-9

static void d5_case(double sa, double sc, double fsb_ratio, double fdb)
{
    const double m = 1.0, k = 100.0, fd = 1.0, ratio = 1.2, fs = fd * ratio;
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "bodies: {a: {mass: %g, position: %.17g}, b: {mass: %g}, c: {mass: %g, position: "
             "%.17g}}\n"
             "couplings:\n  - {between: [a, b], stiffness: %g}\n  - {between: [b, c], stiffness: "
             "%g}\n"
             "contacts:\n"
             "  - {body: a, law: coulomb, dynamic: %g, static_ratio: %g}\n"
             "  - {body: b, law: coulomb, dynamic: %g, static_ratio: %g}\n"
             "  - {body: c, law: coulomb, dynamic: %g, static_ratio: %g}\n"
             "simulation: {t_end: 2.5, output_step: 0.01, rtol: 1e-10}\n",
             m, -sa, m, m, sc, k, k, fd, ratio, fdb, fsb_ratio, fd, ratio);
    mb_run r;
    mb_run_ok(yaml, &r);
    double ua, ta, uc, tc;
    /* a's deflection from b is x_a - 0 = -s_a; c's is +s_c. */
    int na = den_hartog(m, k, fd, fs, -sa, &ua, &ta);
    int nc = den_hartog(m, k, fd, fs, sc, &uc, &tc);
    assert_true(ta < 2.5 && tc < 2.5);
    /* Events: a and c reverse at every turning point but the last, where
     * they stick; b never moves. */
    assert_int_equal(count(&r, "stick", contact_subject(0)), 1);
    assert_int_equal(count(&r, "stick", contact_subject(2)), 1);
    assert_int_equal(count(&r, "reversal", contact_subject(0)), na - 1);
    assert_int_equal(count(&r, "reversal", contact_subject(2)), nc - 1);
    assert_int_equal(count(&r, "breakaway", contact_subject(1)), 0);
    assert_int_equal(count(&r, "stick", contact_subject(1)), 0);
    const double omega = sqrt(k / m);
    for (int j = 0; j + 1 < na; j++)
        assert_wrms1(r.r->events[nth(&r, "reversal", contact_subject(0), j)].t,
                     (j + 1) * M_PI / omega, RT, AT);
    for (int j = 0; j + 1 < nc; j++)
        assert_wrms1(r.r->events[nth(&r, "reversal", contact_subject(2), j)].t,
                     (j + 1) * M_PI / omega, RT, AT);
    assert_wrms1(r.r->events[nth(&r, "stick", contact_subject(0), 0)].t, ta, RT, AT);
    assert_wrms1(r.r->events[nth(&r, "stick", contact_subject(2), 0)].t, tc, RT, AT);
    /* The final rest: positions, velocities, all stuck.  The error of
     * the rest position is what the swing accumulated: 1e-8 of the
     * 0.1 m swing, D5_XTOL = 1e-9 m, not of the 0.005 m where it ends (the
     * element itself ends this very case, a's half, 2.2e-10 m off). */
    long n = last(&r);
    assert_wrms1(X(&r, n, 0), ua, RT, D5_XTOL);
    assert_wrms1(X(&r, n, 2), uc, RT, D5_XTOL);
    assert_wrms1(X(&r, n, 1), 0.0, RT, D5_XTOL);
    for (int b = 0; b < 3; b++) {
        assert_true(V(&r, n, b) == 0.0);
        assert_int_equal(CMODE(&r, n, b), STSL_CONTACT_STUCK);
    }
    /* Forces balance on every body: spring forces + the contact's force
     * = 0, with the spring force on a = -k (x_a - x_b), on c = -k (x_c -
     * x_b), on b the reactions of both.  The constraint forces are
     * solved from the cluster (a linear solve, exact to rounding, at the
     * positions): k D5_XTOL = 1e-7 N. */
    double xa = X(&r, n, 0), xb = X(&r, n, 1), xc = X(&r, n, 2);
    double fa = -k * (xa - xb), fc = -k * (xc - xb), fb = k * (xa - xb) + k * (xc - xb);
    assert_wrms1(FRIC(&r, n, 0), -fa, RT, k * D5_XTOL);
    assert_wrms1(FRIC(&r, n, 1), -fb, RT, k * D5_XTOL);
    assert_wrms1(FRIC(&r, n, 2), -fc, RT, k * D5_XTOL);
    /* ... the closed form of them, each within its static band. */
    assert_wrms1(FRIC(&r, n, 0), k * ua, RT, k * D5_XTOL);
    assert_wrms1(FRIC(&r, n, 2), k * uc, RT, k * D5_XTOL);
    assert_wrms1(FRIC(&r, n, 1), -k * (ua + uc), RT, k * D5_XTOL);
    assert_true(fabs(FRIC(&r, n, 0)) <= fs && fabs(FRIC(&r, n, 2)) <= fs);
    assert_true(fabs(FRIC(&r, n, 1)) <= fdb * fsb_ratio);
    /* b held still all the way: its contact never left STUCK. */
    for (long i = 0; i < r.r->n_samples; i++)
        assert_int_equal(CMODE(&r, i, 1), STSL_CONTACT_STUCK);
    print_message("D5 s_a %g, s_c %g: rest of a after %d half cycles at %.6f s, x_a %.12f; of c "
                  "after %d at %.6f s, x_c %.12f; friction on b %.3e N\n",
                  sa, sc, na, ta, ua, nc, tc, uc, FRIC(&r, n, 1));
    mb_free(&r);
}

/* Symmetric: s_a = s_c = 0.095 m.  k s = 9.5 N > F_S = 1.2 N: a and c
 * each swing 5 half cycles (|k u| 9.5, 7.5, 5.5, 3.5, 1.5 > 1.2, then 0.5
 * <= 1.2: no turning point within 0.3 N of the static level), both come
 * to rest at 5 pi / 10 s at the same instant, at u = -+0.005 m, held by
 * 0.5 N each; b feels equal and opposite pulls at every instant: its
 * contact holds exactly 0. */
static void d5_symmetric_rest(void **state)
{
    (void)state;
    d5_case(0.095, 0.095, 1.0, 1.0);
}

/* Asymmetric: s_c = 0.085 m (c rests after 4 half cycles at 4 pi / 10 s,
 * a after 5), b's friction 20 N > k (s_a + s_c) = 18 N holds it: at rest
 * b's contact holds the difference of the two springs. */
static void d5_asymmetric_rest(void **state)
{
    (void)state;
    d5_case(0.095, 0.085, 1.0, 20.0);
}

/* ============================================================ D6: simultaneous switches */

/* A body g (mass 1) on the ground (contact 0: Coulomb F_a = 3) carries a
 * rider r (mass 1; contact 1 between r and g: F_b = 2, w = v_r - v_g), a
 * constant force P on r.  Initially g moves at -1 m/s, r at -(P + 2) m/s:
 * both contacts slip negative, friction +F_a on g from the ground, +F_b on
 * r and -F_b on g from each other:
 *   v_g' = F_a - F_b = 1,  v_r' = P + F_b,  w' = P + 2 F_b - F_a = P + 1,
 * so v_g = -1 + t and w = -(P + 1) + (P + 1) t both reach 0 at exactly
 * t* = 1 s (x_g = -0.5, x_r = -(P + 2) + (P + 2) / 2).  The combination at
 * t* (both bodies at rest, P on r), from the enumeration of SPEC §4:
 *  - P < F_b (case "both stick", P = 1): (STUCK, STUCK) with the rider's
 *    contact holding -P and the ground's holding -P; every other
 *    combination needs an acceleration against its slip.  Unique.
 *  - F_b < P < F_a (P = 2.5): the rider's contact cannot hold P; (STUCK,
 *    SLIP_POS): r accelerates at (P - F_b) = 0.5 forward, g held by the
 *    ground against F_b = 2 < F_a.  Unique (the ground contact sticks, the
 *    rider's reverses at the same instant).
 *  - as the second, but contact 1 with static_ratio 1.5 (F_S,b = 3 > P):
 *    (STUCK, STUCK) and (STUCK, SLIP_POS) are both consistent.  Both
 *    change two contacts from (SLIP_NEG, SLIP_NEG); the tie rule then
 *    takes the one with most stuck contacts: (STUCK, STUCK), and records
 *    an `ambiguous` event at t*. */
static void d6_run(double p, double ratio_b, mb_run *m)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "bodies: {g: {mass: 1, velocity: -1}, r: {mass: 1, velocity: %.17g}}\n"
             "contacts:\n"
             "  - {between: [g, ground], law: coulomb, dynamic: 3}\n"
             "  - {between: [r, g], law: coulomb, dynamic: 2, static_ratio: %.17g}\n"
             "inputs: {forces: {r: {type: constant, value: %.17g}}}\n"
             "simulation: {t_end: 2.0, output_step: 0.05, rtol: 1e-10}\n",
             -(p + 2.0), ratio_b, p);
    mb_run_ok(yaml, m);
}

/* The common checks at t* = 1: the events of the instant and the state. */
static void d6_instant(const mb_run *m, double p)
{
    long i0 = nth(m, "stick", contact_subject(0), 0);
    assert_true(i0 >= 0);
    assert_wrms1(m->r->events[i0].t, 1.0, RT, AT);
    long k = after_at(m, m->r->events[i0].t);
    assert_wrms1(X(m, k, 0), -0.5, RT, AT);
    assert_wrms1(X(m, k, 1), -(p + 2.0) / 2.0, RT, AT);
    assert_true(V(m, k, 0) == 0.0);
    assert_int_equal(CMODE(m, k, 0), STSL_CONTACT_STUCK);
}

static void d6_both_stick(void **state)
{
    (void)state;
    mb_run m;
    d6_run(1.0, 1.0, &m);
    d6_instant(&m, 1.0);
    long i1 = nth(&m, "stick", contact_subject(1), 0);
    assert_true(i1 >= 0);
    assert_true(m.r->events[i1].t == m.r->events[nth(&m, "stick", contact_subject(0), 0)].t);
    assert_int_equal(count(&m, "ambiguous", -1), 0);
    assert_int_equal(m.r->n_events, 2); /* the two sticks, nothing after */
    long n = last(&m);
    assert_int_equal(CMODE(&m, n, 0), STSL_CONTACT_STUCK);
    assert_int_equal(CMODE(&m, n, 1), STSL_CONTACT_STUCK);
    /* The rider's contact holds -P on r, the ground's -P on g (g carries r). */
    assert_wrms1(FRIC(&m, n, 1), -1.0, RT, AT);
    assert_wrms1(FRIC(&m, n, 0), -1.0, RT, AT);
    assert_wrms1(X(&m, n, 1), -1.5, RT, AT);
    mb_free(&m);
}

static void d6_stick_and_reverse(void **state)
{
    (void)state;
    const double p = 2.5;
    mb_run m;
    d6_run(p, 1.0, &m);
    d6_instant(&m, p);
    double ts = m.r->events[nth(&m, "stick", contact_subject(0), 0)].t;
    long i1 = nth(&m, "reversal", contact_subject(1), 0);
    assert_true(i1 >= 0);
    assert_true(m.r->events[i1].t == ts);
    assert_int_equal(count(&m, "stick", contact_subject(1)), 0);
    assert_int_equal(count(&m, "ambiguous", -1), 0);
    assert_int_equal(m.r->n_events, 2);
    /* After t*: g held (its contact carries the rider's friction, -F_b),
     * r slides forward at (P - F_b) = 0.5 m/s^2. */
    long n = last(&m);
    double t = m.r->t[n] - ts;
    assert_int_equal(CMODE(&m, n, 0), STSL_CONTACT_STUCK);
    assert_int_equal(CMODE(&m, n, 1), STSL_CONTACT_SLIP_POS);
    assert_wrms1(FRIC(&m, n, 0), -2.0, RT, AT);
    assert_wrms1(FRIC(&m, n, 1), -2.0, RT, AT);
    assert_wrms1(V(&m, n, 1), 0.5 * t, RT, AT);
    assert_wrms1(X(&m, n, 1), -(p + 2.0) / 2.0 + 0.25 * t * t, RT, AT);
    assert_wrms1(X(&m, n, 0), -0.5, RT, AT);
    mb_free(&m);
}

static void d6_ambiguous_tie_rule(void **state)
{
    (void)state;
    const double p = 2.5;
    mb_run m;
    d6_run(p, 1.5, &m);
    d6_instant(&m, p);
    double ts = m.r->events[nth(&m, "stick", contact_subject(0), 0)].t;
    long ia = nth(&m, "ambiguous", -1, 0);
    assert_true(ia >= 0);
    assert_true(m.r->events[ia].t == ts);
    assert_int_equal(count(&m, "ambiguous", -1), 1);
    long i1 = nth(&m, "stick", contact_subject(1), 0);
    assert_true(i1 >= 0 && m.r->events[i1].t == ts);
    long n = last(&m);
    assert_int_equal(CMODE(&m, n, 0), STSL_CONTACT_STUCK);
    assert_int_equal(CMODE(&m, n, 1), STSL_CONTACT_STUCK);
    assert_wrms1(FRIC(&m, n, 1), -p, RT, AT);
    assert_wrms1(FRIC(&m, n, 0), -p, RT, AT);
    assert_wrms1(X(&m, n, 1), -(p + 2.0) / 2.0, RT, AT);
    mb_free(&m);
}

/* A stack of n boxes of 1 kg (`body`: their initial state) as YAML: b0 on
 * the ground with the levels `bottom`, each b_i on b_(i-1) with `rider`
 * (Coulomb), then `rest` (inputs, simulation). */
static void stack_yaml(char *yaml, size_t cap, int n, const char *body, const char *bottom,
                       const char *rider, const char *rest)
{
    size_t o = (size_t)snprintf(yaml, cap, "bodies:\n");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(yaml + o, cap - o, "  b%d: {mass: 1, %s}\n", i, body);
    o += (size_t)snprintf(yaml + o, cap - o, "contacts:\n  - {body: b0, law: coulomb, %s}\n",
                          bottom);
    for (int i = 1; i < n; i++)
        o += (size_t)snprintf(yaml + o, cap - o, "  - {between: [b%d, b%d], law: coulomb, %s}\n", i,
                              i - 1, rider);
    snprintf(yaml + o, cap - o, "%s", rest);
}

/* Eleven contacts switching at one instant.  (With friction levels that
 * do not depend on the load, as in a system, the combination of SPEC §4
 * always exists: the accelerations solve a strongly monotone inclusion
 * M a - f + sum_c D_c' F_c Sign(D_c a) ∋ 0, whose unique solution gives
 * each contact at w = 0 either D_c a = 0 with its force inside the dynamic
 * band - inside the static one - or a slip with the acceleration in its
 * direction.)  A stack of eleven blocks: b0 on the ground (F = 22 N), each
 * b_i riding on b_(i-1) (F = 50 N, never reached: contact i carries the
 * 2 (11 - i) N that decelerates the blocks above it), all at 1 m/s: the ten
 * riders' contacts are stuck, the stack decelerates at 2 m/s^2 and b0's
 * contact reaches w = 0 at t* = 0.5 s, x = t* - t*^2 = 0.25 m; the eleven
 * contacts then all have w = 0 and share bodies, so they are decided
 * together (3^11 combinations, beyond what the enumeration took: it failed
 * here).  Nothing pushes: all stuck is consistent, the riders reached
 * nothing and keep their state, b0's contact sticks: one event, the stack
 * at rest at 0.25 m, every force 0. */
static void d6_eleven_at_once(void **state)
{
    (void)state;
    char yaml[4096];
    stack_yaml(yaml, sizeof yaml, 11, "velocity: 1", "dynamic: 22", "dynamic: 50",
               "simulation: {t_end: 1.0, rtol: 1e-10}\n");
    mb_run m;
    mb_run_ok(yaml, &m);
    assert_int_equal(m.r->n_events, 1);
    long i0 = nth(&m, "stick", contact_subject(0), 0);
    assert_true(i0 == 0);
    assert_wrms1(m.r->events[i0].t, 0.5, RT, AT);
    long n = last(&m);
    for (int b = 0; b < 11; b++) {
        assert_wrms1(X(&m, n, b), 0.25, RT, AT);
        assert_true(V(&m, n, b) == 0.0);
        assert_int_equal(CMODE(&m, n, b), STSL_CONTACT_STUCK);
        assert_true(FRIC(&m, n, b) == 0.0);
    }
    mb_free(&m);
}

/* ============================================================ D7: backlash */

/* A free body (no friction, no force) at relative speed w0 inside a gap
 * [-g, g] of a rigid stop with restitution e: it crosses the gap at
 * constant relative speed, each impact reverses it and multiplies it by
 * e.  Impact times from x = 0: t_1 = g / w0, t_{k+1} = t_k + 2 g / (e^k w0)
 * (the intervals grow geometrically by 1/e).  Fills t[0..n-1]. */
static void backlash_times(double g, double w0, double e, int n, double *t)
{
    double tk = g / w0, speed = w0;
    for (int k = 0; k < n; k++) {
        t[k] = tk;
        speed *= e;
        tk += 2.0 * g / speed;
    }
}

/* Against the ground: one body, a stop to ground [-0.1, 0.1], e = 0.5,
 * v0 = 1: impacts at 0.1, 0.5, 1.3 s (the next at 2.9 s, after t_end),
 * velocity after impact k = (-e)^k v0, position +-g. */
static void d7_backlash_ground(void **state)
{
    (void)state;
    const double g = 0.1, v0 = 1.0, e = 0.5;
    mb_run m;
    mb_run_ok("bodies: {a: {mass: 2, velocity: 1}}\n"
              "stops:\n  - {between: [a, ground], min: -0.1, max: 0.1, model: rigid, "
              "restitution: 0.5}\n"
              "simulation: {t_end: 2.5, output_step: 0.01, rtol: 1e-10}\n",
              &m);
    double t[3];
    backlash_times(g, v0, e, 3, t);
    int s = stop_subject(&m, 0);
    assert_int_equal(count(&m, "impact", s), 3);
    assert_int_equal(m.r->n_events, 3);
    double w = v0;
    for (int k = 0; k < 3; k++) {
        double tk = m.r->events[nth(&m, "impact", s, k)].t;
        assert_wrms1(tk, t[k], RT, AT);
        long i = after_at(&m, tk);
        w *= -e;
        assert_wrms1(V(&m, i, 0), w, RT, AT);
        assert_wrms1(X(&m, i, 0), k % 2 ? -g : g, RT, AT);
    }
    mb_free(&m);
}

/* Between two bodies: a (mass 1, v0 = 1) and b (mass 3, at rest), a stop
 * on x_a - x_b in [-0.1, 0.1].  The relative motion is the free flight
 * above with w0 = 1; Newton's impact law with momentum conserved gives
 * after impact k the relative velocity w_k = (-e)^k w0 and
 * v_a = V + m_b / M w_k, v_b = V - m_a / M w_k with V = m_a v0 / M = 0.25
 * (the centre of mass moves on unchanged).  e = 0.8: impacts at 0.1,
 * 0.35, 0.6625, 1.053, 1.541 s; e = 1: every 0.2 s. */
static void d7_case(double e, int n_imp)
{
    const double g = 0.1, v0 = 1.0, ma = 1.0, mb = 3.0, mt = ma + mb, vc = ma * v0 / mt;
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "bodies: {a: {mass: 1, velocity: 1}, b: {mass: 3}}\n"
             "stops:\n  - {between: [a, b], min: -0.1, max: 0.1, model: rigid, "
             "restitution: %.17g}\n"
             "simulation: {t_end: 1.95, output_step: 0.01, rtol: 1e-10}\n",
             e);
    mb_run m;
    mb_run_ok(yaml, &m);
    double t[16];
    backlash_times(g, v0, e, n_imp, t);
    int s = stop_subject(&m, 0);
    assert_int_equal(count(&m, "impact", s), n_imp);
    double w = v0;
    for (int k = 0; k < n_imp; k++) {
        double tk = m.r->events[nth(&m, "impact", s, k)].t;
        assert_wrms1(tk, t[k], RT, AT);
        long i = after_at(&m, tk);
        w *= -e;
        assert_wrms1(V(&m, i, 0), vc + mb / mt * w, RT, AT);
        assert_wrms1(V(&m, i, 1), vc - ma / mt * w, RT, AT);
        assert_wrms1(X(&m, i, 0) - X(&m, i, 1), k % 2 ? -g : g, RT, AT);
        assert_wrms1(ma * V(&m, i, 0) + mb * V(&m, i, 1), ma * v0, RT, AT);
    }
    mb_free(&m);
}

static void d7_backlash_bodies(void **state)
{
    (void)state;
    d7_case(0.8, 5);
    d7_case(1.0, 10);
}

/* ============================================================ D8: compliant stop */

/* A compliant stop between a (no friction, pushed by a constant F = 10 N)
 * and b (held by its Coulomb contact to the ground, F_b = 200 N: above the
 * stop's peak force as a arrives at sqrt(2 F gap / m) = 0.45 m/s, at most
 * F + sqrt(k m) 0.45 = 55 N, so b never slips): at
 * rest the stop carries F and the penetration x_a - x_b - gap is F / k,
 * for an overdamped (zeta 1.5) and an underdamped (zeta 0.2) contact.
 * The transients decay like exp(-zeta omega t) with omega = 100 rad/s
 * (or faster): after 3 s below 1e-26 of the gap, far under the tolerance.
 * b's contact holds -F. */
static void d8_static_penetration(void **state)
{
    (void)state;
    const double k = 1.0e4, f = 10.0, gap = 0.01;
    const double zetas[] = {1.5, 0.2};
    for (size_t z = 0; z < 2; z++) {
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "bodies: {a: {mass: 1}, b: {mass: 1}}\n"
                 "contacts:\n  - {body: b, law: coulomb, dynamic: 200}\n"
                 "stops:\n  - {between: [a, b], min: -1, max: %g, model: compliant, stiffness: "
                 "%g, damping: %.17g}\n"
                 "inputs: {forces: {a: {type: constant, value: %g}}}\n"
                 "simulation: {t_end: 3.0, output_step: 0.001, rtol: 1e-10}\n",
                 gap, k, 2.0 * zetas[z] * sqrt(k * 1.0), f);
        mb_run m;
        mb_run_ok(yaml, &m);
        long n = last(&m);
        assert_wrms1(X(&m, n, 0) - X(&m, n, 1) - gap, f / k, RT, AT);
        assert_wrms1(val(&m, "stop_reaction", n, 0), -f, RT, 1e-8);
        assert_wrms1(FRIC(&m, n, 0), -f, RT, 1e-8);
        assert_int_equal(CMODE(&m, n, 0), STSL_CONTACT_STUCK);
        /* In contact at the end (the underdamped contact bounces first:
         * its swing F/k + 0.45 / omega = 5.5 mm exceeds the rest
         * penetration, the stop lets go and a comes back). */
        int s = stop_subject(&m, 0);
        assert_true(count(&m, "contact_begin", s) >= 1);
        assert_int_equal(count(&m, "contact_begin", s), count(&m, "contact_end", s) + 1);
        mb_free(&m);
    }
}

/* One bounce of two free bodies a (mass 1, v0 = 1) and b (mass 3) through
 * a compliant stop at x_a - x_b = gap: the relative coordinate is the
 * element of test_compliant_stop with the reduced mass mu = m_a m_b / M:
 * b = c / (2 mu), w = sqrt(k / mu - b^2), contact lasts phi / w with
 * phi = atan2(2 b w, b^2 - w^2), restitution e = exp(-b phi / w); the
 * energy lost (1 - e^2) mu w0^2 / 2 (the centre of mass keeps its kinetic
 * energy: momentum is conserved). */
static void d8_bounce_bodies(void **state)
{
    (void)state;
    const double ma = 1.0, mb = 3.0, mu = ma * mb / (ma + mb), k = 2.0e4, v0 = 1.0, gap = 0.05;
    const double zetas[] = {0.0, 0.3};
    for (size_t z = 0; z < 2; z++) {
        double c = 2.0 * zetas[z] * sqrt(k * mu), b = c / (2.0 * mu);
        double w = sqrt(k / mu - b * b), phi = atan2(2.0 * b * w, b * b - w * w);
        double tc = phi / w, e = exp(-b * tc);
        char yaml[1024];
        snprintf(yaml, sizeof yaml,
                 "bodies: {a: {mass: %g, velocity: %g}, b: {mass: %g}}\n"
                 "stops:\n  - {between: [a, b], min: -1, max: %g, model: compliant, stiffness: "
                 "%.17g, damping: %.17g}\n"
                 "simulation: {t_end: 0.2, output_step: 0, rtol: 1e-10}\n",
                 ma, v0, mb, gap, k, c);
        mb_run m;
        mb_run_ok(yaml, &m);
        int s = stop_subject(&m, 0);
        assert_int_equal(count(&m, "contact_begin", s), 1);
        assert_int_equal(count(&m, "contact_end", s), 1);
        double t0 = m.r->events[nth(&m, "contact_begin", s, 0)].t;
        double t1 = m.r->events[nth(&m, "contact_end", s, 0)].t;
        assert_wrms1(t0, gap / v0, RT, AT);
        assert_wrms1(t1 - t0, tc, RT, AT);
        long i = after_at(&m, t1);
        double va = V(&m, i, 0), vb = V(&m, i, 1);
        assert_wrms1(va - vb, -e * v0, RT, AT);
        assert_wrms1(ma * va + mb * vb, ma * v0, RT, AT);
        double ke0 = 0.5 * ma * v0 * v0, ke1 = 0.5 * ma * va * va + 0.5 * mb * vb * vb;
        /* A difference of energies each good to RT of ke0 (as in
         * test_compliant_stop): tolerance 2 RT ke0. */
        assert_close(ke0 - ke1, (1.0 - e * e) * 0.5 * mu * v0 * v0, 2.0 * RT * ke0);
        mb_free(&m);
    }
}

/* ============================================================ D9: a jump through a damper */

/* SPEC §4's band invariant after a velocity jump.  Bodies A, B, C of 1 kg
 * on a line; A at 1 m/s, B and C at rest; a rigid plastic stop (e = 0) on
 * x_A - x_B in [-0.1, 0.1]; a damper c = 4 N·s/m between B and C; C on the
 * ground with Coulomb friction F_D = 1 N, F_S = 1.5 N.  A crosses the gap
 * and hits B at t0 = 0.1 s: A and B move on together at 0.5 m/s (momentum),
 * and the damper pushes C with c 0.5 = 2 N > F_S at once: C breaks away at
 * t0, although the impulse moved only A and B.  After it (tau = t - t0,
 * v the velocity of A and B, u C's, w = v - u):
 *   2 v' = -c w,  u' = c w - F_D,  so  w' = -(3/2) c w + F_D = -6 w + 1,
 *   w = 1/6 + (1/3) e^(-6 tau),  2 v + u = 1 - tau (momentum less the
 *   friction's impulse),  v = (1 - tau + w) / 3,  u = (1 - tau - 2 w) / 3,
 *   x_B = (tau - tau^2/2 + tau/6 + (1 - e^(-6 tau))/18) / 3,
 *   x_C = (2 tau/3 - tau^2/2 - (1 - e^(-6 tau))/9) / 3.
 * The stop stays closed (its reaction on A, -2 w, presses while w > 0).
 * C stops (u = 0) at tau* with 2/3 - tau* = (2/3) e^(-6 tau*) (tau* ~
 * 0.6546), where the damper pushes it with 4 v* = 2 (1 - tau*) < F_S:
 * it sticks, and A, B decay as v* e^(-2 (tau - tau*)) with C held.
 * Events: stop_contact and breakaway at t0, stick at t0 + tau*. */
static double d9_tau_star(void)
{
    double t = 0.65;
    for (int k = 0; k < 50; k++) { /* Newton on g = 2/3 - t - (2/3) e^(-6t) */
        double e = exp(-6.0 * t), g = 2.0 / 3.0 - t - 2.0 / 3.0 * e, dg = -1.0 + 4.0 * e;
        t -= g / dg;
    }
    return t;
}

static void d9_impulse_through_damper(void **state)
{
    (void)state;
    mb_run m;
    mb_run_ok("bodies: {A: {mass: 1, velocity: 1}, B: {mass: 1}, C: {mass: 1}}\n"
              "couplings:\n  - {between: [B, C], damping: 4}\n"
              "contacts:\n  - {body: C, law: coulomb, dynamic: 1, static_ratio: 1.5}\n"
              "stops:\n  - {between: [A, B], min: -0.1, max: 0.1, model: rigid, "
              "restitution: 0}\n"
              "simulation: {t_end: 1.0, output_step: 0.01, rtol: 1e-10}\n",
              &m);
    const double t0 = 0.1, ts = d9_tau_star();
    assert_int_equal(m.r->n_events, 3);
    long ic = nth(&m, "stop_contact", stop_subject(&m, 0), 0),
         ib = nth(&m, "breakaway", contact_subject(0), 0),
         is = nth(&m, "stick", contact_subject(0), 0);
    assert_true(ic >= 0 && ib >= 0 && is >= 0);
    assert_wrms1(m.r->events[ic].t, t0, RT, AT);
    assert_true(m.r->events[ib].t == m.r->events[ic].t);
    assert_wrms1(m.r->events[is].t, t0 + ts, RT, AT);
    long k = after_at(&m, m.r->events[ib].t); /* C slides at the dynamic level */
    assert_int_equal(CMODE(&m, k, 0), STSL_CONTACT_SLIP_POS);
    assert_wrms1(V(&m, k, 1), 0.5, RT, AT);
    assert_true(FRIC(&m, k, 0) == -1.0);
    for (long i = k; i < m.r->n_samples && m.r->t[i] < t0 + ts; i++) {
        double tau = m.r->t[i] - t0, e = exp(-6.0 * tau), w = 1.0 / 6.0 + e / 3.0;
        assert_wrms1(V(&m, i, 1), (1.0 - tau + w) / 3.0, RT, AT);
        assert_wrms1(V(&m, i, 2), (1.0 - tau - 2.0 * w) / 3.0, RT, AT);
        assert_wrms1(X(&m, i, 1), (tau - tau * tau / 2 + tau / 6 + (1 - e) / 18) / 3, RT, AT);
        assert_wrms1(X(&m, i, 2), (2 * tau / 3 - tau * tau / 2 - (1 - e) / 9) / 3, RT, AT);
        assert_wrms1(X(&m, i, 0) - X(&m, i, 1), 0.1, RT, AT);
    }
    long n = last(&m);
    double es = exp(-6.0 * ts), vs = (1.0 - ts) / 2.0, tau = m.r->t[n] - t0;
    double xb = (ts - ts * ts / 2 + ts / 6 + (1 - es) / 18) / 3,
           xc = (2 * ts / 3 - ts * ts / 2 - (1 - es) / 9) / 3;
    assert_int_equal(CMODE(&m, n, 0), STSL_CONTACT_STUCK);
    assert_wrms1(V(&m, n, 1), vs * exp(-2.0 * (tau - ts)), RT, AT);
    assert_wrms1(X(&m, n, 1), xb + vs / 2.0 * (1.0 - exp(-2.0 * (tau - ts))), RT, AT);
    assert_wrms1(X(&m, n, 2), xc, RT, AT);
    assert_wrms1(FRIC(&m, n, 0), -4.0 * vs * exp(-2.0 * (tau - ts)), RT, AT);
    mb_free(&m);
}

/* ============================================================ D10: parallel contacts */

/* Two stuck contacts between the same ends (a clutch with two friction
 * faces) share their force in proportion to their static levels (SPEC §4
 * "Redundant stuck contacts"), so both reach their levels together.
 * Bodies a and b of 1 kg, free; the faces between them with static levels
 * 1 N and 3 N (Coulomb, static = dynamic), the second given with its ends
 * swapped (between: [b, a]); a ramp force F = t on a.  Stuck, the pair
 * accelerates at t/2 and the faces pass F/2 to b: face 0 holds -F/8 on a,
 * face 1 +3F/8 on b (its first end); both reach their levels when F/2 = 4
 * N, at t = 8 s, and break away together (one unit: a breakaway each at
 * the same instant), in the direction a leads (w'' = 1 > 0: F_S = F_D,
 * the first non-zero derivative decides).  Then a' = t - 4, b' = 4:
 * v_a(8.5) = 16 + 2.125, v_b(8.5) = 16 + 2. */
static void d10_parallel_share(void **state)
{
    (void)state;
    mb_run m;
    mb_run_ok("bodies: {a: {mass: 1}, b: {mass: 1}}\n"
              "contacts:\n  - {between: [a, b], law: coulomb, dynamic: 1}\n"
              "  - {between: [b, a], law: coulomb, dynamic: 3}\n"
              "inputs: {forces: {a: {type: ramp, slope: 1}}}\n"
              "simulation: {t_end: 8.5, output_step: 0.25, rtol: 1e-10}\n",
              &m);
    assert_int_equal(m.r->n_events, 2);
    long b0 = nth(&m, "breakaway", contact_subject(0), 0),
         b1 = nth(&m, "breakaway", contact_subject(1), 0);
    assert_true(b0 >= 0 && b1 >= 0);
    assert_wrms1(m.r->events[b0].t, 8.0, RT, AT);
    assert_true(m.r->events[b1].t == m.r->events[b0].t);
    long checked = 0;
    for (long i = 0; i < m.r->n_samples && m.r->t[i] < 8.0; i++, checked++) {
        double t = m.r->t[i];
        assert_wrms1(FRIC(&m, i, 0), -t / 8.0, RT, AT);
        assert_wrms1(FRIC(&m, i, 1), 3.0 * t / 8.0, RT, AT);
    }
    assert_true(checked >= 30);
    long n = last(&m);
    assert_int_equal(CMODE(&m, n, 0), STSL_CONTACT_SLIP_POS);
    assert_int_equal(CMODE(&m, n, 1), STSL_CONTACT_SLIP_NEG);
    assert_wrms1(V(&m, n, 0), 18.125, RT, AT);
    assert_wrms1(V(&m, n, 1), 18.0, RT, AT);
    mb_free(&m);
}

/* ============================================================ D12: the tethered rider */

/* The order of choice, not the order of the file.  A block (1 kg) on the
 * ground (F_D = 6 N, F_S = 8 N), pushed by a ramp F = t N; a rider (0.5 kg)
 * on it (F_D = 1 N, F_S = 1.5 N), tied to the ground by a spring (100 N/m,
 * free length 12.63 mm: at x = 0 it pulls the rider forward with 1.263 N,
 * which the rider's contact holds, passing it to the block).  The block's
 * contact reaches F_S when t + 1.263 = 8, at t0 = 6.737 s.  Two
 * combinations qualify there: the block slips with the rider riding on it
 * (the pair accelerates at (8 - 6)/1.5, the rider's contact holds 0.5 a -
 * 1.263 = -0.597 N), or the block stays stuck and the rider slips (its
 * friction on the block falls to F_D = 1 N: the block's load 7.737 N < 8 N;
 * the rider accelerates at (1.263 - 1)/0.5 forward).  Both change one
 * contact and keep one stuck, so the old rule (fewest changes, then most
 * stuck) fell to the order of the file; the rider's contact reached
 * nothing (its force is continuous), so it keeps its state: the block
 * breaks away, the rider rides.  After t0, with tau = t - t0 and w^2 =
 * 100/1.5, the pair obeys 1.5 x'' + 100 x = 2 + tau, x(0) = x'(0) = 0:
 *   x = (2 + tau)/100 - 0.02 cos(w tau) - sin(w tau)/(100 w),
 * and within the 0.2 s checked the rider's contact holds at most 0.9 N and
 * the pair keeps moving forward.  The instant is recorded as `ambiguous`
 * too.  The same in every order of the file:
 * rider first, block first, and the rider's contact written as [block,
 * rider]. */
static void d12_rider_case(const char *contacts, double *x_end)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "bodies: {block: {mass: 1}, rider: {mass: 0.5}}\n"
             "couplings:\n  - {between: [rider, ground], stiffness: 100, free_length: 0.01263}\n"
             "contacts:\n%s"
             "inputs: {forces: {block: {type: ramp, slope: 1}}}\n"
             "simulation: {t_end: 6.937, output_step: 0.01, rtol: 1e-10}\n",
             contacts);
    mb_run m;
    mb_run_ok(yaml, &m);
    /* `ambiguous` at the start (the rider could slip forward too) and at
     * the breakaway (two qualified), with the breakaway */
    assert_int_equal(m.r->n_events, 3);
    long ib = nth(&m, "breakaway", -1, 0), ia = nth(&m, "ambiguous", -1, 1);
    assert_true(m.r->events[nth(&m, "ambiguous", -1, 0)].t == 0.0);
    assert_true(ib >= 0 && ia >= 0);
    const stsl_layout *l = &m.r->layout;
    assert_string_equal(l->subject_names[m.r->events[ib].subject - 1], "ground_contact");
    const double t0 = 8.0 - 1.263, w = sqrt(100.0 / 1.5);
    assert_wrms1(m.r->events[ib].t, t0, RT, AT);
    assert_true(m.r->events[ia].t == m.r->events[ib].t);
    for (long i = after_at(&m, m.r->events[ib].t); i < m.r->n_samples; i++) {
        double tau = m.r->t[i] - t0;
        double x = (2.0 + tau) / 100.0 - 0.02 * cos(w * tau) - sin(w * tau) / (100.0 * w);
        assert_wrms1(X(&m, i, 0), x, RT, AT);
        assert_true(X(&m, i, 1) == X(&m, i, 0));
    }
    *x_end = X(&m, last(&m), 0);
    mb_free(&m);
}

static void d12_tethered_rider(void **state)
{
    (void)state;
    const char *ground = "  - {name: ground_contact, body: block, law: coulomb, dynamic: 6, "
                         "static: 8}\n";
    const char *rider = "  - {between: [rider, block], law: coulomb, dynamic: 1, static: 1.5}\n";
    const char *swapped = "  - {between: [block, rider], law: coulomb, dynamic: 1, static: 1.5}\n";
    char a[512], b[512], c[512];
    snprintf(a, sizeof a, "%s%s", ground, rider);
    snprintf(b, sizeof b, "%s%s", rider, ground);
    snprintf(c, sizeof c, "%s%s", swapped, ground);
    double xa, xb, xc;
    d12_rider_case(a, &xa);
    d12_rider_case(b, &xb);
    d12_rider_case(c, &xc);
    assert_true(fabs(xa - xb) <= 1e-12 && fabs(xa - xc) <= 1e-12);
}

/* ============================================================ D11: fifty stacked boxes */

/* Decisions that scale (SPEC §4: polynomial in the contacts that reach a
 * switching condition).  Fifty boxes of 1 kg stacked: b0 on the ground
 * (Coulomb, F_D = 60 N, F_S = 72 N), each b_i on b_(i-1) (F_D = 16 N, F_S
 * = 20 N), all at rest; a push P = 10 t N on b0.  All stuck until P =
 * F_S0: b0's contact breaks away at t = 7.2 s, the other 49 reached
 * nothing and keep sticking (the stack rides on b0: a = (P - 60)/50, the
 * first rider's contact carries 49 a = 11.76 N < 20 N).  It reaches its
 * level when 49 (P - 60)/50 = 20, at t = 6 + 100/49 s, and breaks away:
 * the 48 boxes above then ride on b1, which its contact drags at F_D1 =
 * 16 N (contact 2 carries 48/49 16 N < 20 N): no other event before
 * t_end = 8.5 s.  The enumeration failed here at t = 0 (50 contacts at
 * w = 0 at once, 3^50); every stuck force within its band in every sample
 * (mb_run_ok). */
static void d11_fifty_boxes(void **state)
{
    (void)state;
    char yaml[8192];
    stack_yaml(yaml, sizeof yaml, 50, "velocity: 0", "dynamic: 60, static_ratio: 1.2",
               "dynamic: 16, static_ratio: 1.25",
               "inputs: {forces: {b0: {type: ramp, slope: 10}}}\n"
               "simulation: {t_end: 8.5, output_step: 0.05, rtol: 1e-10}\n");
    mb_run m;
    mb_run_ok(yaml, &m);
    assert_int_equal(m.r->n_events, 2);
    long b0 = nth(&m, "breakaway", contact_subject(0), 0),
         b1 = nth(&m, "breakaway", contact_subject(1), 0);
    assert_true(b0 == 0 && b1 == 1);
    assert_wrms1(m.r->events[b0].t, 7.2, RT, AT);
    assert_wrms1(m.r->events[b1].t, 6.0 + 100.0 / 49.0, RT, AT);
    long n = last(&m);
    for (int c = 2; c < 50; c++)
        assert_int_equal(CMODE(&m, n, c), STSL_CONTACT_STUCK);
    assert_true(V(&m, n, 49) == V(&m, n, 2));
    mb_free(&m);
}

/* ============================================================ D13: a loop of stuck contacts */

/* Stuck contacts in a closed loop take the split whose sorted band uses
 * are lexicographically smallest (SPEC §4), so the loop breaks away
 * exactly where no split fits.  Bodies A, B, C of 1 kg, each on the
 * ground, each pair joined by a contact (Coulomb, static = dynamic): A's
 * three contacts (ground, AB, CA) 1 N each, the others 5 N; a push F = t
 * on A.  By Hoffman's theorem the loop holds while every set of bodies
 * can pass its push through the contacts leaving it: {A} 3 N, {A, B} and
 * {A, C} 12 N, all three 11 N; so until t = 3 s, A's three contacts carry
 * F/3 each (A's ground contact -t/3 on A, AB -t/3 on A, CA +t/3 on C), B
 * and C pass their F/3 to the ground (-t/3 each, at a fifteenth of their
 * levels) and BC carries nothing.  At t = 3 s all three of A's contacts
 * reach their levels together and break away (one event each); A then
 * slips with a = t - 3, v = (t - 3)^2 / 2, x = (t - 3)^3 / 6, dragging B
 * and C forward with 1 N each, which their ground contacts hold.  The
 * coordinate descent that sought the split before stalled where these
 * bands bind (forces that wandered off F/3 and a stop with "no consistent
 * combination" at t = 2.94 s). */
static void d13_loop_triangle(void **state)
{
    (void)state;
    mb_run m;
    mb_run_ok("bodies: {A: {mass: 1}, B: {mass: 1}, C: {mass: 1}}\n"
              "contacts:\n"
              "  - {body: A, law: coulomb, dynamic: 1}\n"
              "  - {body: B, law: coulomb, dynamic: 5}\n"
              "  - {body: C, law: coulomb, dynamic: 5}\n"
              "  - {between: [A, B], law: coulomb, dynamic: 1}\n"
              "  - {between: [B, C], law: coulomb, dynamic: 5}\n"
              "  - {between: [C, A], law: coulomb, dynamic: 1}\n"
              "inputs: {forces: {A: {type: ramp, slope: 1}}}\n"
              "simulation: {t_end: 4, output_step: 0.125, rtol: 1e-10}\n",
              &m);
    assert_int_equal(m.r->n_events, 3);
    const int broke[3] = {0, 3, 5};
    for (int k = 0; k < 3; k++) {
        long i = nth(&m, "breakaway", contact_subject(broke[k]), 0);
        assert_true(i >= 0);
        assert_wrms1(m.r->events[i].t, 3.0, RT, AT);
    }
    const double sign[6] = {-1, -1, -1, -1, 0, 1};
    long checked = 0;
    for (long i = 0; i < m.r->n_samples && m.r->t[i] < 3.0; i++, checked++)
        for (int c = 0; c < 6; c++)
            assert_wrms1(FRIC(&m, i, c), sign[c] * m.r->t[i] / 3.0, RT, AT);
    assert_true(checked >= 20);
    long n = last(&m);
    assert_wrms1(V(&m, n, 0), 0.5, RT, AT);
    assert_wrms1(X(&m, n, 0), 1.0 / 6.0, RT, AT);
    assert_true(X(&m, n, 1) == 0.0 && X(&m, n, 2) == 0.0);
    assert_wrms1(FRIC(&m, n, 1), -1.0, RT, AT);
    assert_wrms1(FRIC(&m, n, 2), -1.0, RT, AT);
    mb_free(&m);
}

/* ============================================================ D14: twenty clutches from rest */

/* A chain of 21 shafts (inertias 1, 1.5, 2, 1, ...) joined by 20 clutches
 * (Coulomb, F_D = 8 + (7 i mod 9) N·m, static 1.25 F_D), all at rest, driven
 * by three sine torques (40 N·m at 0.5 Hz on s0, 25 at 1.1 Hz on s10, 30 at
 * 0.8 Hz on s20): all 20 clutches are at w = 0 at the start, and several of
 * them stick and slip again and again (the enumeration of 3^20 states
 * failed such a chain at t = 0).  Checked: the run ends with exit 0 and
 * every stuck torque within its band in every sample (mb_run_ok); nothing
 * but the torques acts from outside, so the total angular momentum is
 * their integral, sum_k A_k (1 - cos(2 pi f_k t)) / (2 pi f_k), in every
 * sample (clutches act between shafts and cancel); and the first event is
 * the breakaway of the clutch that first reaches its level with the chain
 * stuck as one (acceleration sum T / sum J; clutch i carries what the
 * shafts beyond it need: sum_{j>i} (J_j a - T_j) on s_(i+1)), at the time
 * that closed form gives (bisection below, to 1e-14 s). */
#define D14_N 21
static const double D14_AMP[3] = {40.0, 25.0, 30.0}, D14_FREQ[3] = {0.5, 1.1, 0.8};
static const int D14_AT[3] = {0, 10, 20};

static double d14_inertia(int i)
{
    return 1.0 + 0.5 * (i % 3);
}
static double d14_level(int i)
{
    return 1.25 * (8 + (7 * i) % 9);
}

/* The torque on shaft i at t. */
static double d14_torque(int i, double t)
{
    double sum = 0.0;
    for (int k = 0; k < 3; k++)
        if (D14_AT[k] == i) sum += D14_AMP[k] * sin(2.0 * M_PI * D14_FREQ[k] * t);
    return sum;
}

/* Clutch i's use of its static level with the chain stuck as one, minus 1. */
static double d14_excess(int i, double t)
{
    double tq = 0.0, jt = 0.0, beyond = 0.0;
    for (int j = 0; j < D14_N; j++) {
        tq += d14_torque(j, t);
        jt += d14_inertia(j);
    }
    for (int j = i + 1; j < D14_N; j++)
        beyond += d14_inertia(j) * tq / jt - d14_torque(j, t);
    return fabs(beyond) / d14_level(i) - 1.0;
}

static void d14_twenty_clutches(void **state)
{
    (void)state;
    char yaml[8192];
    size_t o = (size_t)snprintf(yaml, sizeof yaml, "domain: rotational\nbodies:\n");
    for (int i = 0; i < D14_N; i++)
        o += (size_t)snprintf(yaml + o, sizeof yaml - o, "  s%d: {inertia: %g}\n", i,
                              d14_inertia(i));
    o += (size_t)snprintf(yaml + o, sizeof yaml - o, "contacts:\n");
    for (int i = 0; i + 1 < D14_N; i++)
        o += (size_t)snprintf(yaml + o, sizeof yaml - o,
                              "  - {between: [s%d, s%d], law: coulomb, dynamic: %d, "
                              "static_ratio: 1.25}\n",
                              i, i + 1, 8 + (7 * i) % 9);
    o += (size_t)snprintf(yaml + o, sizeof yaml - o, "inputs:\n  forces:\n");
    for (int k = 0; k < 3; k++)
        o += (size_t)snprintf(yaml + o, sizeof yaml - o,
                              "    s%d: {type: sine, amplitude: %g, frequency: %g}\n", D14_AT[k],
                              D14_AMP[k], D14_FREQ[k]);
    snprintf(yaml + o, sizeof yaml - o, "simulation: {t_end: 4, output_step: 0.01, rtol: 1e-10}\n");
    mb_run m;
    mb_run_ok(yaml, &m);
    /* the first clutch to reach its level, and when (the uses start at 0
     * and grow: the first root of each by bisection on a bracket found
     * in steps of 1 ms) */
    int first = -1;
    double t_first = INFINITY;
    for (int i = 0; i + 1 < D14_N; i++) {
        double lo = 0.0, hi = 1e-3;
        while (hi < 4.0 && d14_excess(i, hi) < 0.0)
            lo = hi, hi += 1e-3;
        if (!(hi < 4.0)) continue;
        for (int it = 0; it < 60; it++) {
            double mid = 0.5 * (lo + hi);
            *(d14_excess(i, mid) < 0.0 ? &lo : &hi) = mid;
        }
        if (hi < t_first) first = i, t_first = hi;
    }
    assert_true(first >= 0);
    assert_true(m.r->n_events >= 40);     /* several clutches switch, again and again */
    long b = nth(&m, "breakaway", -1, 0); /* (with `ambiguous` at the same instant) */
    assert_true(b >= 0 && m.r->events[0].t == m.r->events[b].t);
    assert_int_equal(m.r->events[b].subject, contact_subject(first));
    assert_wrms1(m.r->events[b].t, t_first, RT, AT);
    for (long i = 0; i < m.r->n_samples; i++) {
        double t = m.r->t[i], mom = 0.0, want = 0.0;
        for (int j = 0; j < D14_N; j++)
            mom += d14_inertia(j) * V(&m, i, j);
        for (int k = 0; k < 3; k++)
            want +=
                D14_AMP[k] * (1.0 - cos(2.0 * M_PI * D14_FREQ[k] * t)) / (2.0 * M_PI * D14_FREQ[k]);
        assert_wrms1(mom, want, RT, 1e-7); /* momenta up to ~30 N·m·s: rtol of the run */
    }
    int switched = 0;
    for (int c = 0; c + 1 < D14_N; c++)
        switched += count(&m, "breakaway", contact_subject(c)) > 0;
    assert_true(switched >= 4);
    mb_free(&m);
}

/* ============================================================ D15: a touch at a restart */

/* A stuck pair that only touches its band, found again at the restart.
 * Bodies mid (0.5 kg, on the ground: Coulomb 1 N, static 1.5 N) and omega
 * (1.5 kg) joined by two parallel contacts (1 N, static 1.5 N and 1.25 N:
 * together 2.75 N) and two springs of free length 0; F = 8 sin(2 pi t) on
 * omega.  While mid slides forward with the pair stuck (from 1.14 s) the
 * pair holds lambda = 1.5 (F - 1) / 2 - F = -(F / 4 + 0.75) on omega (the
 * springs are not stretched while it sticks), which at the force's peak
 * F = 8 (t = 1.25 s) is exactly -2.75 N, the pair's level: a touch, so it
 * stays stuck (SPEC §1.2).  The touch was located 44 ns early (where the
 * integration's error lifts the peak past the level), the event kept the
 * mode, and the restarted segment judged the guard's rounding-level dip
 * against a touch band sized from its zero (2.5e-15 N instead of 2e-11 N
 * of a 0.2 N guard): the same instant again, 20000 times ("no progress",
 * exit 3), in one order of the file and not in the other.  Both orders now
 * run to the end with the same events; the pair never breaks away and
 * holds -2.75 N at 1.25 s. */
static void d15_touch_restart_case(const char *contacts, const char *couplings, int pair0)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "bodies: {mid: {mass: 0.5}, omega: {mass: 1.5}}\n"
             "couplings:\n%s"
             "contacts:\n%s"
             "inputs: {forces: {omega: {type: sine, amplitude: 8, frequency: 1}}}\n"
             "simulation: {t_end: 2.0, output_step: 0.01, rtol: 1e-12}\n",
             couplings, contacts);
    mb_run m;
    mb_run_ok(yaml, &m);
    assert_int_equal(m.r->n_events, 7); /* a breakaway, three reversals, three ambiguous */
    assert_int_equal(count(&m, "breakaway", contact_subject(pair0)), 0);
    assert_int_equal(count(&m, "breakaway", contact_subject(pair0 + 1)), 0);
    for (long i = 0; i < m.r->n_samples; i++)
        if (fabs(m.r->t[i] - 1.25) < 1e-12)
            assert_wrms1(FRIC(&m, i, pair0) + FRIC(&m, i, pair0 + 1), -2.75, RT, AT);
    mb_free(&m);
}

static void d15_touch_at_a_restart(void **state)
{
    (void)state;
    const char *ground =
        "  - {between: [mid, ground], law: coulomb, dynamic: 1, static_ratio: 1.5}\n";
    const char *p1 = "  - {between: [omega, mid], law: coulomb, dynamic: 1, static_ratio: 1.5}\n";
    const char *p2 = "  - {between: [omega, mid], law: coulomb, dynamic: 1, static_ratio: 1.25}\n";
    const char *k1 = "  - {between: [mid, omega], stiffness: 20, damping: 0}\n";
    const char *k2 = "  - {between: [omega, mid], stiffness: 50, damping: 0}\n";
    char c[512], k[512];
    snprintf(c, sizeof c, "%s%s%s", ground, p1, p2);
    snprintf(k, sizeof k, "%s%s", k1, k2);
    d15_touch_restart_case(c, k, 1);
    snprintf(c, sizeof c, "%s%s%s", ground, p2, p1);
    snprintf(k, sizeof k, "%s%s", k2, k1);
    d15_touch_restart_case(c, k, 1);
}

/* ============================================================ D16: an ambiguous stick held */

/* Bodies beta (0.5 kg), b2 (1 kg) and omega (0.5 kg): b2 on beta and beta
 * on the ground (Coulomb 3 N and 2 N, static 4.5 N and 3 N), omega on beta
 * (2 N) within a backlash of +-0.02 m (restitution 0.5), springs b2-beta
 * 10, b2-ground 10, omega-ground 20 N/m, sine forces 8 N at 1.5 Hz on
 * beta and 3 N at 0.5 Hz on b2 and omega (system 840 of the order
 * survey's seed, test_multibody_order).  At t0 = 1.75419 s, after a run
 * of bounces of omega's stop, b2 sticks on beta holding 3.48 N, between
 * its dynamic and its static level (an `ambiguous` instant: slipping on
 * would be consistent too), with omega at its stop and beta sliding back
 * on the ground: the three move as one, M X'' + 30 X = F(t) + 2 - 10 d -
 * 20 e (M = 2 kg, X beta's position, d and e b2's and omega's offsets
 * from it, F the sum of the forces, +2 N beta's friction), and b2/beta
 * holds lambda = X'' - 3 sin(pi t) + 10 X + 20 d on b2 (b2's own balance)
 * until lambda reaches -4.5 N, its static level: t1 = 1.8209789 s, which
 * the closed form of the harmonic oscillator (below) gives from the
 * state after the stick.  Before, the common velocity set body by body
 * left b2 and beta 3.6e-14 m/s apart in the order as written, and at the
 * end of the bounces left out (an input event) 3.4 us later that was a
 * kick: b2 slipped away at once, at 3.48 N, without an event - in one
 * order only.  Now both orders: the three share one velocity, the same
 * events, and the breakaway at t1.  Bound: the state after the stick
 * carries the integration error of 1.75 s at rtol 1e-12 (the two orders'
 * event times agree to 1e-11 s), which moves lambda by well under 1e-9 N;
 * at lambda' = -4.3 N/s that is under 1e-9 s (measured 1e-12 s); a
 * slip away at once is 0.07 s off. */
/* lambda(t) on b2 from the state after the stick (X, V at t0; d, e). */
typedef struct d16_cf {
    double t0, c, a, b, d, e;
} d16_cf;

static const double D16_W2 = 15.0; /* 30 N/m over 2 kg */

static double d16_x(const d16_cf *cf, double t)
{
    double w = sqrt(D16_W2), a1 = 8.0 / (2.0 * (D16_W2 - 9.0 * M_PI * M_PI));
    double a2 = 6.0 / (2.0 * (D16_W2 - M_PI * M_PI));
    return cf->c + a1 * sin(3.0 * M_PI * t) + a2 * sin(M_PI * t) + cf->a * cos(w * (t - cf->t0)) +
           cf->b * sin(w * (t - cf->t0));
}

static double d16_lambda(const d16_cf *cf, double t)
{
    double x = d16_x(cf, t), f = 8.0 * sin(3.0 * M_PI * t) + 6.0 * sin(M_PI * t);
    double acc = (f + 2.0 - 10.0 * cf->d - 20.0 * cf->e - 30.0 * x) / 2.0;
    return acc - 3.0 * sin(M_PI * t) + 10.0 * x + 20.0 * cf->d;
}

/* The first instant after t0 where lambda leaves [-4.5, 4.5] (a scan by
 * 1e-4 s, then bisection to the last bit). */
static double d16_break(const d16_cf *cf)
{
    double t = cf->t0;
    while (fabs(d16_lambda(cf, t)) <= 4.5)
        t += 1e-4;
    double lo = t - 1e-4, hi = t;
    for (int i = 0; i < 80; i++) {
        double mid = 0.5 * (lo + hi);
        *(fabs(d16_lambda(cf, mid)) <= 4.5 ? &lo : &hi) = mid;
    }
    return lo;
}

/* One order: the pair's contact index, beta's, b2's and omega's body
 * index; the events' times and kinds into ev (n of them). */
static void d16_case(const char *yaml, int pair, const int *body, double *ev_t, int *ev_k, long *n)
{
    mb_run m;
    mb_run_ok(yaml, &m);
    long i0 = -1, i1 = -1; /* the pair's last stick before 1.8 s, its next event */
    for (long i = 0; i < m.r->n_events; i++) {
        const stsl_mem_event *e = &m.r->events[i];
        if (e->subject != contact_subject(pair)) continue;
        if (e->t < 1.8 && e->kind == kind(&m, "stick")) i0 = i;
        if (e->t > 1.8 && i0 >= 0 && i1 < 0) i1 = i;
    }
    assert_true(i0 >= 0 && i1 > i0);
    for (long i = i0 + 1; i < i1; i++) /* nothing of the pair between */
        assert_int_not_equal(m.r->events[i].subject, contact_subject(pair));
    double t0 = m.r->events[i0].t;
    long s = after_at(&m, t0);
    int beta = body[0], b2 = body[1], omega = body[2];
    /* one cluster, one velocity: the same bits */
    assert_true(V(&m, s, b2) == V(&m, s, beta) && V(&m, s, omega) == V(&m, s, beta));
    d16_cf cf = {
        t0, 0.0, 0.0, 0.0, X(&m, s, b2) - X(&m, s, beta), X(&m, s, omega) - X(&m, s, beta)};
    cf.c = (2.0 - 10.0 * cf.d - 20.0 * cf.e) / 30.0;
    double a1 = 8.0 / (2.0 * (D16_W2 - 9.0 * M_PI * M_PI)),
           a2 = 6.0 / (2.0 * (D16_W2 - M_PI * M_PI));
    cf.a = X(&m, s, beta) - d16_x(&cf, t0); /* d16_x with a = b = 0: the particular part */
    double vp = 3.0 * M_PI * a1 * cos(3.0 * M_PI * t0) + M_PI * a2 * cos(M_PI * t0);
    cf.b = (V(&m, s, beta) - vp) / sqrt(D16_W2);
    assert_wrms1(d16_lambda(&cf, t0), FRIC(&m, s, pair), RT, AT); /* the stuck force it holds */
    assert_int_equal(m.r->events[i1].kind, kind(&m, "breakaway"));
    assert_close(m.r->events[i1].t, d16_break(&cf), 1e-9);
    *n = m.r->n_events;
    for (long i = 0; i < *n && i < 128; i++) {
        ev_t[i] = m.r->events[i].t;
        ev_k[i] = m.r->events[i].kind;
    }
    mb_free(&m);
}

static void d16_ambiguous_stick_held(void **state)
{
    (void)state;
    const char *yaml[2] = {
        "bodies:\n"
        "  beta: {mass: 0.5}\n"
        "  b2: {mass: 1}\n"
        "  omega: {mass: 0.5, velocity: 0.6}\n"
        "couplings:\n"
        "  - {between: [beta, b2], stiffness: 10}\n"
        "  - {between: [b2, ground], stiffness: 10}\n"
        "  - {between: [omega, ground], stiffness: 20}\n"
        "contacts:\n"
        "  - {between: [beta, ground], law: coulomb, dynamic: 2, static_ratio: 1.5}\n"
        "  - {between: [b2, beta], law: coulomb, dynamic: 3, static_ratio: 1.5}\n"
        "  - {between: [omega, beta], law: coulomb, dynamic: 2}\n"
        "stops:\n"
        "  - {between: [omega, beta], min: -0.02, max: 0.02, model: rigid, restitution: 0.5}\n"
        "inputs:\n"
        "  forces:\n"
        "    beta: {type: sine, amplitude: 8, frequency: 1.5}\n"
        "    b2: {type: sine, amplitude: 3, frequency: 0.5}\n"
        "    omega: {type: sine, amplitude: 3, frequency: 0.5}\n"
        "simulation: {t_end: 2.0, output_step: 0.5, rtol: 1e-12}\n",
        /* bodies, couplings, contacts and forces permuted, ends swapped */
        "bodies:\n"
        "  beta: {mass: 0.5}\n"
        "  omega: {mass: 0.5, velocity: 0.6}\n"
        "  b2: {mass: 1}\n"
        "couplings:\n"
        "  - {between: [omega, ground], stiffness: 20}\n"
        "  - {between: [b2, ground], stiffness: 10}\n"
        "  - {between: [b2, beta], stiffness: 10}\n"
        "contacts:\n"
        "  - {between: [b2, beta], law: coulomb, dynamic: 3, static_ratio: 1.5}\n"
        "  - {between: [beta, omega], law: coulomb, dynamic: 2}\n"
        "  - {between: [beta, ground], law: coulomb, dynamic: 2, static_ratio: 1.5}\n"
        "stops:\n"
        "  - {between: [omega, beta], min: -0.02, max: 0.02, model: rigid, restitution: 0.5}\n"
        "inputs:\n"
        "  forces:\n"
        "    beta: {type: sine, amplitude: 8, frequency: 1.5}\n"
        "    omega: {type: sine, amplitude: 3, frequency: 0.5}\n"
        "    b2: {type: sine, amplitude: 3, frequency: 0.5}\n"
        "simulation: {t_end: 2.0, output_step: 0.5, rtol: 1e-12}\n"};
    const int pair[2] = {1, 0}, body[2][3] = {{0, 1, 2}, {0, 2, 1}};
    double t[2][128];
    int k[2][128];
    long n[2];
    for (int o = 0; o < 2; o++)
        d16_case(yaml[o], pair[o], body[o], t[o], k[o], &n[o]);
    assert_int_equal(n[0], n[1]); /* the same events: in the same order here, but at ties */
    for (long i = 0; i < n[0] && i < 128; i++) {
        int same = k[0][i] == k[1][i];
        for (long j = i - 1; j <= i + 1 && !same; j++) /* simultaneous ones in either order */
            same = j >= 0 && j < n[1] && k[0][i] == k[1][j] && fabs(t[1][j] - t[0][i]) <= 1e-9;
        assert_true(same);
        assert_close(t[0][i], t[1][i], 1e-9);
    }
}

/* ============================================================ D17: bounces left out, cut short */

/* Body a (1 kg, frictionless) at a rigid stop at x = 0 (restitution 0.5),
 * moving into it at 0.3 m/s, pushed into it by F = cos(2 pi t) N: the
 * impact at t = 0 rebounds at 0.15 m/s, which would rise 0.15^2 / (2 F) =
 * 0.011 m; with atol 1e-4 m the engine resolves no rebound below 1000
 * atol = 0.1 m, so every bounce is left out: the body rests on the stop
 * from t = 0, and their end, the sum of the geometric series of flight
 * times (0.15 / 1)(1 + 1) / (1 - 0.5) = 0.6 s later, would be recorded as
 * stop_contact then.  But the force turns at t = 0.25 s, and the stop,
 * which would pull, lets go first: the bounces end there, stop_contact
 * and stop_release at 0.25 s.  (Before: the release alone.  In the order
 * survey's system 3316, a Zeno sequence's tail ended 1.5e-10 s before a
 * release in one order of the file - stop_contact, then stop_release -
 * and after it in the other - stop_release alone.)  The state is exact
 * while the body rests on the stop, and the release is the force's zero:
 * its time to the engine's rtol (RT, AT as everywhere here). */
static void d17_bounces_cut_short(void **state)
{
    (void)state;
    const char *yaml =
        "bodies: {a: {mass: 1, velocity: 0.3}}\n"
        "stops:\n"
        "  - {between: [a, ground], min: -1, max: 0, model: rigid, restitution: 0.5}\n"
        "inputs: {forces: {a: {type: sine, amplitude: 1, frequency: 1, phase: "
        "1.5707963267948966}}}\n"
        "simulation: {t_end: 0.35, output_step: 0.01, rtol: 1e-10, atol: 1e-4}\n";
    assert_true(0.15 * 0.15 / 2.0 < 1000.0 * 1e-4); /* the rebound is left out */
    mb_run m;
    mb_run_ok(yaml, &m);
    assert_int_equal(m.r->n_events, 3);
    const char *want[3] = {"impact", "stop_contact", "stop_release"};
    const double at[3] = {0.0, 0.25, 0.25};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(m.r->events[i].kind, kind(&m, want[i]));
        assert_int_equal(m.r->events[i].subject, stop_subject(&m, 0));
        assert_wrms1(m.r->events[i].t, at[i], RT, AT);
    }
    for (long i = 0; i < m.r->n_samples; i++) /* on the stop until then, then away */
        if (m.r->t[i] > 0.0 && m.r->t[i] < 0.25)
            assert_true(X(&m, i, 0) == 0.0 && V(&m, i, 0) == 0.0);
    assert_true(X(&m, last(&m), 0) < 0.0);
    mb_free(&m);
}

/* ============================================================ D18: groups joined by a damper */

/* Omega (1 kg) slides at -0.6 m/s over b2 and zeta (1.5 kg each, at
 * rest; Coulomb 1 N and 3 N), which rest on the ground (b2: 1 N, static =
 * dynamic; zeta: 1 N, static 1.5 N) and are joined by a damper of 0.5
 * N s/m.  At t = 0 b2 is held by exactly its static level (omega drags it
 * with 1 N), and zeta, dragged with 3 N, starts to slide at once: the
 * damper then pulls b2 on, so b2's force leaves its band - b2 slips from
 * the start (SPEC §4: a force at the edge that leaves is outside).  Its
 * contact and zeta's meet only at the ground, two groups; b2's decision
 * depends on zeta's through the damper.  Deciding b2's group first with
 * zeta's state before the event (at rest) held b2 stuck, and a breakaway
 * at t = 0 followed - in that order of the file only.  Both orders now:
 * no event at all, and the motion of the two slipping bodies, u = v_z -
 * v_b2 with 1.5 u' = -2 - u: u = -2 (1 - exp(-t / 1.5)), v_b2 = u / 3
 * integrated, -(2/3)(t - 1.5 (1 - exp(-t / 1.5))), until 0.1 s (omega,
 * at -0.6 + 4 t, is still faster).  Bound RT, AT as everywhere here. */
static void d18_case(const char *yaml, int b2, int zeta)
{
    mb_run m;
    mb_run_ok(yaml, &m);
    assert_int_equal(m.r->n_events, 0);
    for (long i = 0; i < m.r->n_samples; i++) {
        double t = m.r->t[i], u = -2.0 * (1.0 - exp(-t / 1.5));
        double vb = -(2.0 / 3.0) * (t - 1.5 * (1.0 - exp(-t / 1.5)));
        assert_wrms1(V(&m, i, b2), vb, RT, AT);
        assert_wrms1(V(&m, i, zeta), vb + u, RT, AT);
    }
    mb_free(&m);
}

static void d18_groups_joined_by_a_damper(void **state)
{
    (void)state;
    d18_case("bodies:\n"
             "  omega: {mass: 1, velocity: -0.6}\n"
             "  b2: {mass: 1.5}\n"
             "  zeta: {mass: 1.5}\n"
             "couplings: [{between: [b2, zeta], stiffness: 0, damping: 0.5}]\n"
             "contacts:\n"
             "  - {between: [b2, ground], law: coulomb, dynamic: 1}\n"
             "  - {between: [zeta, ground], law: coulomb, dynamic: 1, static_ratio: 1.5}\n"
             "  - {between: [b2, omega], law: coulomb, dynamic: 1}\n"
             "  - {between: [omega, zeta], law: coulomb, dynamic: 3}\n"
             "simulation: {t_end: 0.1, output_step: 0.01, rtol: 1e-12}\n",
             1, 2);
    d18_case("bodies:\n"
             "  zeta: {mass: 1.5}\n"
             "  b2: {mass: 1.5}\n"
             "  omega: {mass: 1, velocity: -0.6}\n"
             "couplings: [{between: [zeta, b2], stiffness: 0, damping: 0.5}]\n"
             "contacts:\n"
             "  - {between: [zeta, omega], law: coulomb, dynamic: 3}\n"
             "  - {between: [zeta, ground], law: coulomb, dynamic: 1, static_ratio: 1.5}\n"
             "  - {between: [b2, ground], law: coulomb, dynamic: 1}\n"
             "  - {between: [omega, b2], law: coulomb, dynamic: 1}\n"
             "simulation: {t_end: 0.1, output_step: 0.01, rtol: 1e-12}\n",
             1, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(d3_stiff_coupling),
        cmocka_unit_test(d4_chain_energy),
        cmocka_unit_test(d4_servo_energy),
        cmocka_unit_test(d5_symmetric_rest),
        cmocka_unit_test(d5_asymmetric_rest),
        cmocka_unit_test(d6_both_stick),
        cmocka_unit_test(d6_stick_and_reverse),
        cmocka_unit_test(d6_ambiguous_tie_rule),
        cmocka_unit_test(d6_eleven_at_once),
        cmocka_unit_test(d7_backlash_ground),
        cmocka_unit_test(d7_backlash_bodies),
        cmocka_unit_test(d8_static_penetration),
        cmocka_unit_test(d8_bounce_bodies),
        cmocka_unit_test(d9_impulse_through_damper),
        cmocka_unit_test(d10_parallel_share),
        cmocka_unit_test(d11_fifty_boxes),
        cmocka_unit_test(d12_tethered_rider),
        cmocka_unit_test(d13_loop_triangle),
        cmocka_unit_test(d14_twenty_clutches),
        cmocka_unit_test(d15_touch_at_a_restart),
        cmocka_unit_test(d16_ambiguous_stick_held),
        cmocka_unit_test(d17_bounces_cut_short),
        cmocka_unit_test(d18_groups_joined_by_a_damper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
