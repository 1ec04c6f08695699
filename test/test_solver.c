/* The generic hybrid integrator (solver/hybrid) on toy models with closed
 * forms: a frozen mode whose guard crosses between two samples, a bouncing
 * ball, time events, the output grid, Zeno and max_events protection, and a
 * failing transition. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/result/mem_sink.h"
#include "solver/hybrid.h"
#include "test/testutil.h"

/* ---- a toy model whose behaviour each test sets ---------------------------- */

typedef struct toy {
    double f, s0, ph; /* frozen mode: guard sin(2 pi f t + ph) - s0 */
    double g, e;      /* ball: gravity, restitution */
    double t_events[3];
    int n_events;      /* time events at t_events[] */
    int zeno;          /* transition always asks again with an event */
    int fail_at_guard; /* transition fails */
    int calls;
} toy;

enum { M_WAIT = 0, M_GO = 1, M_FLY = 2 };
static const char *const kinds[] = {"go", "bounce", "tick"};
static const char *const mnames[] = {"WAIT", "GO", "FLY"};
static const stsl_column cols[] = {{"x", "m", "position"}, {"v", "m/s", "velocity"}};
static const stsl_layout layout = {2, cols, "s", 3, mnames, 3, kinds, 0, NULL, 0, NULL};
static const stsl_mode_desc modes[] = {
    {1, 1, (const int[]){STSL_GUARD_RISING}, M_WAIT},
    {0, 0, NULL, M_GO},
    {0, 1, (const int[]){STSL_GUARD_FALLING}, M_FLY},
};
static const char *const snames[] = {"x", "v"};

static int toy_rhs(void *self, stsl_mode_code mode, double t, const double *y, double *yd)
{
    toy *m = self;
    (void)t;
    yd[0] = yd[1] = 0.0;
    if (mode == M_GO) {
        /* x' = u(t): u steps from 1 to 2 to 3 at the time events. */
        double u = 1.0;
        for (int i = 0; i < m->n_events; i++)
            if (t > m->t_events[i]) u += 1.0;
        yd[0] = u;
    } else if (mode == M_FLY) {
        yd[0] = y[1];
        yd[1] = -m->g;
    }
    return 0;
}

static int toy_guards(void *self, stsl_mode_code mode, double t, const double *y, double *g)
{
    toy *m = self;
    if (mode == M_WAIT) g[0] = sin(2.0 * M_PI * m->f * t + m->ph) - m->s0;
    if (mode == M_FLY) g[0] = y[0];
    return 0;
}

static int toy_transition(void *self, stsl_mode_code mode, stsl_reason why, const int *fired,
                          double t, double *y, stsl_transition *out, stsl_error *err)
{
    toy *m = self;
    (void)fired;
    (void)t;
    m->calls++;
    out->mode = mode;
    out->kind = STSL_NO_EVENT;
    out->again = 0;
    if (why == STSL_REASON_INIT) {
        out->mode = m->g > 0 ? M_FLY : (m->f > 0 ? M_WAIT : M_GO);
        return 0;
    }
    if (m->fail_at_guard) {
        y[0] = 12345.0; /* must not be committed */
        return stsl_error_set(err, STSL_EMODEL, "toy transition refuses");
    }
    if (m->zeno) {
        out->kind = 2;
        out->again = 1;
        return 0;
    }
    if (why == STSL_REASON_TIME) {
        out->kind = 2;
    } else if (mode == M_WAIT) {
        out->mode = M_GO;
        out->kind = 0;
    } else if (mode == M_FLY) {
        y[0] = 0.0;
        y[1] = -m->e * y[1];
        out->kind = 1;
    }
    return 0;
}

static double toy_max_step(void *self, stsl_mode_code mode, double t)
{
    toy *m = self;
    (void)mode;
    (void)t;
    return m->f > 0 ? 1.0 / (20.0 * m->f) : INFINITY;
}

static double toy_next_event(void *self, double t)
{
    toy *m = self;
    for (int i = 0; i < m->n_events; i++)
        if (m->t_events[i] > t) return m->t_events[i];
    return INFINITY;
}

static void toy_outputs(void *self, stsl_mode_code mode, double t, const double *y, double *c)
{
    (void)self;
    (void)mode;
    (void)t;
    c[0] = y[0];
    c[1] = y[1];
}

static int toy_describe(void *self, stsl_mode_code mode, stsl_mode_desc *out)
{
    (void)self;
    if (mode < M_WAIT || mode > M_FLY) return -1;
    *out = modes[mode];
    return 0;
}

static void toy_mode_name(void *self, stsl_mode_code mode, char *buf, size_t len)
{
    (void)self;
    snprintf(buf, len, "%s", mode >= M_WAIT && mode <= M_FLY ? mnames[mode] : "?");
}

static const stsl_hmodel_ops toy_ops = {
    toy_rhs, toy_guards,   toy_transition, toy_max_step, toy_next_event, toy_outputs, NULL,
    NULL,    toy_describe, toy_mode_name,  NULL};

static stsl_hmodel toy_model(toy *m)
{
    stsl_hmodel h = {&toy_ops, m, 2, 1, &layout, snames, 0, NULL, NULL};
    return h;
}

static stsl_hsolver_opts opts(double t_end, double dt)
{
    stsl_hsolver_opts o = {0};
    o.t_end = t_end;
    o.output_step = dt;
    o.rtol = 1e-10;
    o.atol = 1e-12;
    o.max_events = 1000;
    return o;
}

/* Run the toy; returns the status and leaves the result in *sink. */
static int run_toy(toy *m, stsl_hsolver_opts o, const double *y0, stsl_sink *sink, stsl_error *err)
{
    stsl_hmodel h = toy_model(m);
    assert_int_equal(stsl_mem_sink_create(sink, err), STSL_OK);
    stsl_hsolver *s = stsl_hsolver_create(&h, &o, err);
    assert_non_null(s);
    int rc = stsl_hsolver_run(s, 0.0, y0, sink, err);
    stsl_hsolver_free(s);
    return rc;
}

/* ---- tests ------------------------------------------------------------------ */

/* A frozen mode's guard rises above zero for 4.5 ms, between two samples 50 ms
 * apart: the extremum search must find it, at the closed-form time.  The
 * phase puts the peak between the samples at 0.2 and 0.25 s (the model's
 * step bound 1 / (20 f) from t = 0), where the guard is negative: at
 * 0.2182 s for 0.2 rad, and for pi / 20 at 0.225 s, exactly halfway, where
 * the two samples tie. */
static void frozen_guard_hidden_between_samples(void **state)
{
    (void)state;
    const double phases[2] = {0.2, M_PI / 20.0};
    for (int k = 0; k < 2; k++) {
        toy m = {0};
        m.f = 1.0;
        m.s0 = 0.9999;
        m.ph = phases[k];
        assert_true(sin(2.0 * M_PI * 0.2 + m.ph) < m.s0 && sin(2.0 * M_PI * 0.25 + m.ph) < m.s0);
        double y0[2] = {0, 0};
        stsl_sink sink;
        stsl_error err = {0};
        assert_int_equal(run_toy(&m, opts(1.0, 0.01), y0, &sink, &err), STSL_OK);
        const stsl_mem_result *r = stsl_mem_sink_result(&sink);
        assert_int_equal(r->n_events, 1);
        double exact = (asin(m.s0) - m.ph) / (2.0 * M_PI);
        assert_close(r->events[0].t, exact, 1e-13);
        assert_int_equal(r->events[0].mode_after, M_GO);
        /* Frozen scanning costs samples, not integration steps. */
        assert_true(r->stats.steps < 40);
        assert_true(r->complete);
        stsl_sink_free(&sink);
    }
}

/* Bouncing ball: impact times t_k from the closed form, restitution applied,
 * and since no rebound is ever too small for this model, max_events ends it
 * with an error, the sink still ended and marked incomplete. */
static void bouncing_ball_and_max_events(void **state)
{
    (void)state;
    toy m = {0};
    m.g = 9.81;
    m.e = 0.5;
    double y0[2] = {1.0, 0.0};
    stsl_sink sink;
    stsl_error err = {0};
    stsl_hsolver_opts o = opts(10.0, 0.0);
    o.max_events = 20;
    int rc = run_toy(&m, o, y0, &sink, &err);
    assert_int_equal(rc, STSL_EMAXEVENTS);
    assert_non_null(strstr(err.msg, "max_events"));
    assert_non_null(strstr(err.msg, "mode FLY"));
    const stsl_mem_result *r = stsl_mem_sink_result(&sink);
    assert_true(r->ended);
    assert_false(r->complete);
    assert_non_null(strstr(r->message, "max_events"));
    /* t_1 = sqrt(2 h / g); each later flight lasts e times the one before. */
    double t1 = sqrt(2.0 / 9.81), v1 = 9.81 * t1, tk = t1, vk = v1;
    for (int k = 0; k < 10; k++) {
        assert_wrms1(r->events[k].t, tk, 1e-8, 1e-10);
        assert_wrms1(r->events[k].after[1], m.e * vk, 1e-7, 1e-9);
        vk *= m.e;
        tk += 2.0 * vk / 9.81;
    }
    stsl_sink_free(&sink);
}

/* Time events: the integrator stops exactly there, the model restarts with
 * the input after the step, x(t) is piecewise linear and exact. */
static void time_events_are_hit_exactly(void **state)
{
    (void)state;
    toy m = {0};
    m.n_events = 2;
    m.t_events[0] = 0.3;
    m.t_events[1] = 0.7;
    double y0[2] = {0, 0};
    stsl_sink sink;
    stsl_error err = {0};
    assert_int_equal(run_toy(&m, opts(1.0, 0.1), y0, &sink, &err), STSL_OK);
    const stsl_mem_result *r = stsl_mem_sink_result(&sink);
    assert_int_equal(r->n_events, 2);
    assert_true(r->events[0].t == 0.3);
    assert_true(r->events[1].t == 0.7);
    long last = r->n_samples - 1;
    assert_true(r->t[last] == 1.0);
    assert_wrms1(r->cols[last * 2], 0.3 + 2.0 * 0.4 + 3.0 * 0.3, 1e-10, 1e-12);
    /* Each event appears twice in the trajectory, before and after. */
    int at_first = 0;
    for (long i = 0; i < r->n_samples; i++)
        at_first += r->t[i] == 0.3;
    assert_true(at_first >= 2);
    stsl_sink_free(&sink);
}

/* The output grid is interpolated, never stepped to: the same number of
 * steps with a fine grid as with none, and grid values on the trajectory. */
static void output_grid_does_not_force_steps(void **state)
{
    (void)state;
    toy m = {0};
    m.g = 1.0;
    m.e = 1.0;
    double y0[2] = {10.0, 0.0};
    stsl_sink a, b;
    stsl_error err = {0};
    assert_int_equal(run_toy(&m, opts(2.0, 0.0), y0, &a, &err), STSL_OK);
    assert_int_equal(run_toy(&m, opts(2.0, 1e-4), y0, &b, &err), STSL_OK);
    const stsl_mem_result *ra = stsl_mem_sink_result(&a), *rb = stsl_mem_sink_result(&b);
    assert_int_equal(ra->stats.steps, rb->stats.steps);
    assert_true(rb->n_samples >= 20001);
    for (long i = 0; i < rb->n_samples; i += 997) {
        double t = rb->t[i];
        assert_wrms1(rb->cols[2 * i], 10.0 - 0.5 * t * t, 1e-9, 1e-11);
    }
    stsl_sink_free(&a);
    stsl_sink_free(&b);
}

/* Explicit output times with grid_only: exactly those samples, in order,
 * with exact values, even where an event happens (the time event at 0.3). */
static void explicit_output_times(void **state)
{
    (void)state;
    toy m = {0};
    m.n_events = 1;
    m.t_events[0] = 0.3;
    double y0[2] = {0, 0};
    const double times[] = {0.0, 0.1, 0.25, 0.3, 0.65, 1.0};
    stsl_hsolver_opts o = opts(1.0, 0.01);
    o.output_times = times;
    o.n_output_times = 6;
    o.grid_only = 1;
    stsl_sink sink;
    stsl_error err = {0};
    assert_int_equal(run_toy(&m, o, y0, &sink, &err), STSL_OK);
    const stsl_mem_result *r = stsl_mem_sink_result(&sink);
    assert_int_equal(r->n_samples, 6);
    assert_int_equal(r->n_events, 1);
    for (int i = 0; i < 6; i++) {
        double t = times[i], x = t <= 0.3 ? t : 0.3 + 2.0 * (t - 0.3);
        assert_true(r->t[i] == t);
        assert_wrms1(r->cols[2 * i], x, 1e-10, 1e-12);
    }
    stsl_sink_free(&sink);
}

/* Events that keep firing at one instant are Zeno: a clear error naming the
 * time, mode and the last events, the sink ended incomplete. */
static void zeno_at_one_instant(void **state)
{
    (void)state;
    toy m = {0};
    m.n_events = 1;
    m.t_events[0] = 0.5;
    m.zeno = 1;
    double y0[2] = {0, 0};
    stsl_sink sink;
    stsl_error err = {0};
    assert_int_equal(run_toy(&m, opts(1.0, 0.1), y0, &sink, &err), STSL_EZENO);
    assert_non_null(strstr(err.msg, "t = 0.5"));
    assert_non_null(strstr(err.msg, "mode GO"));
    assert_non_null(strstr(err.msg, "tick"));
    const stsl_mem_result *r = stsl_mem_sink_result(&sink);
    assert_false(r->complete);
    assert_true(r->n_samples > 0);
    stsl_sink_free(&sink);
}

/* A transition that fails leaves time, state and mode as they were. */
static void failed_transition_changes_nothing(void **state)
{
    (void)state;
    toy m = {0};
    m.f = 1.0;
    m.s0 = 0.5;
    m.fail_at_guard = 1;
    stsl_hmodel h = toy_model(&m);
    stsl_hsolver_opts o = opts(1.0, 0.0);
    stsl_error err = {0};
    stsl_hsolver *s = stsl_hsolver_create(&h, &o, &err);
    double y0[2] = {3.0, 0.0};
    assert_int_equal(stsl_hsolver_start(s, 0.0, y0, NULL, &err), STSL_OK);
    int rc = STSL_OK;
    while (rc == STSL_OK && !stsl_hsolver_done(s))
        rc = stsl_hsolver_step(s, &err);
    assert_int_equal(rc, STSL_EMODEL);
    assert_non_null(strstr(err.msg, "toy transition refuses"));
    assert_int_equal(stsl_hsolver_mode(s), M_WAIT);
    assert_close(stsl_hsolver_state(s)[0], 3.0, 0.0);
    assert_close(stsl_hsolver_time(s), 1.0 / 12.0, 1e-13); /* asin(0.5) / (2 pi) */
    stsl_hsolver_free(s);
}

/* ---- mode codes are opaque ------------------------------------------------------ */

/* A model whose mode codes are far outside any table (2^40 and 2^41 + 1, as
 * a system packing 2 bits per contact makes them): x climbs at rate 1 until
 * x = 1, then rests.  The solver must hand back exactly these codes (a
 * truncated or indexed code is counted in bad_codes) and record the modes
 * by the numbers describe gives (0 and 1). */
static const stsl_mode_code CLIMB = (stsl_mode_code)1 << 40;
static const stsl_mode_code REST = ((stsl_mode_code)1 << 41) + 1;
static const char *const wide_names[] = {"CLIMB", "REST"};
static const stsl_layout wide_layout = {2, cols, "s", 2, wide_names, 3, kinds, 0, NULL, 0, NULL};

typedef struct wide {
    stsl_mode_code target; /* the mode the guard's transition goes to */
    int bad_codes;         /* calls with a code that is neither CLIMB nor REST */
} wide;

static int wide_known(wide *w, stsl_mode_code mode)
{
    int ok = mode == CLIMB || mode == REST;
    w->bad_codes += !ok;
    return ok;
}

static int wide_rhs(void *self, stsl_mode_code mode, double t, const double *y, double *yd)
{
    (void)t;
    (void)y;
    yd[0] = wide_known(self, mode) && mode == CLIMB ? 1.0 : 0.0;
    yd[1] = 0.0;
    return 0;
}

static int wide_guards(void *self, stsl_mode_code mode, double t, const double *y, double *g)
{
    (void)t;
    g[0] = y[0] - 1.0;
    return wide_known(self, mode) && mode == CLIMB ? 0 : -1;
}

static int wide_transition(void *self, stsl_mode_code mode, stsl_reason why, const int *fired,
                           double t, double *y, stsl_transition *out, stsl_error *err)
{
    wide *w = self;
    (void)t;
    (void)y;
    (void)err;
    out->kind = STSL_NO_EVENT;
    out->again = 0;
    if (why == STSL_REASON_INIT) {
        out->mode = CLIMB;
        return 0;
    }
    wide_known(w, mode);
    out->mode = why == STSL_REASON_GUARD && mode == CLIMB && fired[0] ? w->target : mode;
    out->kind = out->mode != mode ? 0 : STSL_NO_EVENT;
    return 0;
}

static double wide_max_step(void *self, stsl_mode_code mode, double t)
{
    (void)t;
    wide_known(self, mode);
    return 0.25;
}

static double wide_next_event(void *self, double t)
{
    (void)self;
    (void)t;
    return INFINITY;
}

static void wide_outputs(void *self, stsl_mode_code mode, double t, const double *y, double *c)
{
    (void)t;
    wide_known(self, mode);
    c[0] = y[0];
    c[1] = y[1];
}

static const int rising[] = {STSL_GUARD_RISING};

static int wide_describe(void *self, stsl_mode_code mode, stsl_mode_desc *out)
{
    (void)self; /* not counted: describe is how the solver learns a code is unknown */
    static const stsl_mode_desc climb = {0, 1, rising, 0};
    static const stsl_mode_desc rest = {1, 0, NULL, 1};
    if (mode != CLIMB && mode != REST) return -1;
    *out = mode == CLIMB ? climb : rest;
    return 0;
}

static void wide_mode_name(void *self, stsl_mode_code mode, char *buf, size_t len)
{
    (void)self;
    snprintf(buf, len, "%s", mode == CLIMB ? "CLIMB" : mode == REST ? "REST" : "?");
}

static const stsl_hmodel_ops wide_ops = {
    wide_rhs, wide_guards,   wide_transition, wide_max_step, wide_next_event, wide_outputs, NULL,
    NULL,     wide_describe, wide_mode_name,  NULL};

/* Two modes, one guard, one transition, with codes no table could hold:
 * the event at x = 1 (t = 1), the modes recorded as 0 -> 1, and the time per
 * mode in their slots.  x' = 1 is integrated exactly (CVODE's Adams
 * formulas are exact on a linear solution), so the crossing is where the
 * root finder puts it: within its tolerance 100 eps (|t| + |h|) of t = 1,
 * below 1e-12.  A transition to an unknown code is refused, and the message
 * names the mode by the model's own name. */
static void mode_codes_are_opaque(void **state)
{
    (void)state;
    wide w = {REST, 0};
    stsl_hmodel h = {&wide_ops, &w, 2, 1, &wide_layout, snames, 0, NULL, NULL};
    stsl_hsolver_opts o = opts(2.0, 0.5);
    stsl_error err = {0};
    stsl_sink sink;
    assert_int_equal(stsl_mem_sink_create(&sink, &err), STSL_OK);
    stsl_hsolver *s = stsl_hsolver_create(&h, &o, &err);
    double y0[2] = {0.0, 0.0};
    assert_int_equal(stsl_hsolver_run(s, 0.0, y0, &sink, &err), STSL_OK);
    assert_true(stsl_hsolver_mode(s) == REST);
    assert_int_equal(w.bad_codes, 0);
    const stsl_mem_result *r = stsl_mem_sink_result(&sink);
    assert_int_equal(r->n_events, 1);
    assert_close(r->events[0].t, 1.0, 1e-12);
    assert_int_equal(r->events[0].mode_before, 0);
    assert_int_equal(r->events[0].mode_after, 1);
    assert_int_equal(r->mode[0], 0);
    assert_int_equal(r->mode[r->n_samples - 1], 1);
    assert_close(r->stats.mode_time[0], 1.0, 1e-12);
    assert_close(r->stats.mode_time[1], 1.0, 1e-12);
    assert_close(stsl_hsolver_state(s)[0], 1.0, 1e-12);
    stsl_hsolver_free(s);
    stsl_sink_free(&sink);

    w.target = (stsl_mode_code)1 << 42;
    s = stsl_hsolver_create(&h, &o, &err);
    assert_int_equal(stsl_hsolver_run(s, 0.0, y0, NULL, &err), STSL_EMODEL);
    assert_non_null(strstr(err.msg, "transition chose an invalid mode"));
    assert_non_null(strstr(err.msg, "mode CLIMB"));
    assert_true(stsl_hsolver_mode(s) == CLIMB);
    assert_int_equal(w.bad_codes, 0);
    stsl_hsolver_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frozen_guard_hidden_between_samples),
        cmocka_unit_test(bouncing_ball_and_max_events),
        cmocka_unit_test(time_events_are_hit_exactly),
        cmocka_unit_test(output_grid_does_not_force_steps),
        cmocka_unit_test(explicit_output_times),
        cmocka_unit_test(zeno_at_one_instant),
        cmocka_unit_test(failed_transition_changes_nothing),
        cmocka_unit_test(mode_codes_are_opaque),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
