/* fixed_step.c - Karnopp, fixed-step hybrid (Dalla Vedova) and RK4 schemes
 * (see fixed_step.h).
 *
 * All three share one loop: the state (t_n, y_n) carries the mode the
 * scheme decided for it and the forces at it (computed once, reused by the
 * next step).  A step advances the state with the friction of that mode,
 * puts it on a stop if it passed one, evaluates the forces at the new state
 * and lets the scheme's stick decision classify it.  A change of mode is an
 * event at t_{n+1}.
 *
 * Order.  The Euler schemes are semi-implicit (symplectic) Euler,
 *   v_{n+1} = v_n + h a(t_n, x_n, v_n),  x_{n+1} = x_n + h v_{n+1},
 * first order in smooth slip (local error O(h^2)).  Their stick decisions
 * are taken at step points only, so a stick, breakaway or reversal is seen
 * up to one step late: a velocity error O(h a) at each such instant, hence
 * a global error O(h) however accurate the slip phases were.  RK4 is
 * fourth order on a smooth law and only as long as the step resolves the
 * law's velocity scale (a tanh of scale v_reg has a slope F/v_reg: RK4 is
 * stable for h < 2.78 m v_reg / F); a stop impact is again noticed at a step
 * point, which costs it its order (first order) once the element hits a
 * stop. */
#include "run/fixed_step.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "physics/contact.h"
#include "physics/friction.h"
#include "models/one_body.h"

/* Steps are counted as t_end / h rounded up, less this relative slack, so
 * that t_end = N h computed in floating point does not add a sliver step. */
#define STEP_COUNT_SLACK 1e-9
/* More steps than this is refused: it would run for days, and the step
 * index must stay exact in a double. */
#define MAX_STEPS 1e12
#define MAX_COLS  16

static const char *const scheme_names[STSL_N_SCHEMES + 1] = {
    "event_driven", "karnopp", "fixed_step_hybrid", "smooth_rk4", NULL};

const char *stsl_scheme_name(stsl_scheme_kind kind)
{
    return (int)kind >= 0 && kind < STSL_N_SCHEMES ? scheme_names[kind] : NULL;
}

const char *const *stsl_scheme_names(void)
{
    return scheme_names;
}

typedef struct run {
    stsl_one_body *o; /* the element's forces and columns */
    const stsl_hmodel *model;
    const stsl_element_params *p;
    const stsl_scheme_opts *sch;
    stsl_sink *sink;
    int out;     /* write to the sink */
    int regular; /* smooth_rk4 on a hybrid law: tanh-regularised */
    int n;       /* state size */
    double t;    /* current time */
    double y[STSL_ELEMENT_MAX_STATE];
    int mode;
    stsl_one_body_forces f; /* at (t, y) */
    stsl_stats st;
    double cols_a[MAX_COLS], cols_b[MAX_COLS];
} run;

/* What one step did. */
typedef struct step_result {
    double yraw[STSL_ELEMENT_MAX_STATE]; /* state after the update, before stop and stick
                                            projections */
    int kind;                            /* event kind, or STSL_NO_EVENT */
} step_result;

static void forces(run *r, double t, const double *y)
{
    r->st.rhs_evals++;
    stsl_one_body_eval_forces(r->o, t, y, &r->f);
}

static int sgn(double v)
{
    return (v > 0.0) - (v < 0.0);
}

static int slip_mode(int s)
{
    return s > 0 ? STSL_MODE_SLIP_POS : STSL_MODE_SLIP_NEG;
}

static int is_stop(int mode)
{
    return mode == STSL_MODE_STOP_LOW || mode == STSL_MODE_STOP_HIGH;
}

static int is_slip(int mode)
{
    return mode == STSL_MODE_SLIP_POS || mode == STSL_MODE_SLIP_NEG;
}

/* Dry friction magnitude while slipping in direction s at speed |v|
 * (dynamic level, or the Stribeck curve). */
static double slip_level(const run *r, int s, double v)
{
    double fd = s > 0 ? r->f.fd_pos : r->f.fd_neg, fs = s > 0 ? r->f.fs_pos : r->f.fs_neg;
    return stsl_friction_slip(&r->p->friction, fd, fs, fabs(v));
}

/* Acceleration of the Euler schemes in `mode` from the cached forces. */
static double euler_accel(const run *r, int mode, double v)
{
    if (!is_slip(mode)) return 0.0; /* stuck or on a stop: the scheme holds it */
    int s = mode == STSL_MODE_SLIP_POS ? +1 : -1;
    return (r->f.fn - s * slip_level(r, s, v)) / r->p->mass;
}

/* tanh-regularised friction of smooth_rk4 on a hybrid law:
 * F(sign v, |v|) tanh(v / v_reg), continuous through v = 0. */
static double regular_friction(const run *r, double v)
{
    if (v == 0.0) return 0.0;
    return slip_level(r, sgn(v), v) * tanh(v / r->sch->regularisation_velocity);
}

/* The right-hand side of smooth_rk4 (in the SMOOTH mode). */
static int rk4_deriv(run *r, double t, const double *y, double *yd)
{
    if (!r->regular) {
        r->st.rhs_evals++;
        stsl_one_body_smooth_rhs(r->o, t, y, yd);
        return 0;
    }
    forces(r, t, y);
    yd[0] = y[1];
    yd[1] = (r->f.fn - regular_friction(r, y[1])) / r->p->mass;
    return 0;
}

/* Output columns in `mode`; the element's own outputs except for the
 * regularised law, which the element does not know. */
static void out_cols(run *r, int mode, double t, const double *y, double *cols)
{
    if (!(r->regular && mode == STSL_MODE_SMOOTH)) {
        stsl_one_body_mode_outputs(r->o, mode, t, y, cols);
        return;
    }
    stsl_one_body_mode_outputs(r->o, STSL_MODE_SLIP_POS, t, y, cols);
    stsl_one_body_forces f;
    stsl_one_body_eval_forces(r->o, t, y, &f);
    stsl_one_body_forces keep = r->f;
    r->f = f;
    double ff = regular_friction(r, y[1]);
    r->f = keep;
    cols[STSL_COL_FRICTION] = ff;
    cols[STSL_COL_A] = (f.fn - ff) / r->p->mass;
}

/* The event a change of mode means (impacts are named by the stop code). */
static int kind_of_change(int from, int to)
{
    if (from == to) return STSL_NO_EVENT;
    if (to == STSL_MODE_STUCK) return STSL_EV_STICK;
    if (from == STSL_MODE_STUCK) return STSL_EV_BREAKAWAY;
    if (is_stop(to)) return STSL_EV_STOP_CONTACT;
    if (is_stop(from)) return STSL_EV_STOP_RELEASE;
    if (is_slip(from) && is_slip(to)) return STSL_EV_REVERSAL;
    return STSL_NO_EVENT;
}

/* ---- end stops ------------------------------------------------------------- */

/* If y passed a stop during the step, put it there and apply restitution.
 * It comes to rest on the stop (STOP_*) when e = 0 or when the rebound
 * would be undone within one step by the acceleration pushing it back (its
 * flight could not be resolved by the step), and for karnopp also when the
 * rebound lies inside the stick band.  Returns 1 and sets *mode, *kind when
 * a stop was hit; forces are left at the new state. */
static int hit_stop(run *r, double t1, double h, double *y, int *mode, int *kind)
{
    const stsl_element_params *p = r->p;
    int side = !p->has_stops ? 0 : y[0] > p->x_max ? +1 : y[0] < p->x_min ? -1 : 0;
    if (!side) return 0;
    double v_minus = side * y[1] > 0.0 ? y[1] : 0.0, v_plus = -p->restitution * v_minus;
    int away = -side;
    y[0] = side > 0 ? p->x_max : p->x_min;
    y[1] = 0.0;
    forces(r, t1, y);
    /* Acceleration back into the stop of an element leaving it slowly:
     * net force less the friction opposing the motion away (none for the
     * smooth laws and the tanh law at v = 0). */
    double ff = r->sch->kind == STSL_SCHEME_SMOOTH_RK4 ? 0.0 : away * slip_level(r, away, 0.0);
    double a_in = side * (r->f.fn - ff) / p->mass;
    double band = r->sch->kind == STSL_SCHEME_KARNOPP ? r->sch->karnopp_band : 0.0;
    int rests = v_plus == 0.0 || fabs(v_plus) <= fmax(a_in, 0.0) * h || fabs(v_plus) < band;
    if (rests) {
        *mode = side > 0 ? STSL_MODE_STOP_HIGH : STSL_MODE_STOP_LOW;
        *kind = STSL_EV_STOP_CONTACT;
        return 1;
    }
    y[1] = v_plus;
    forces(r, t1, y);
    *mode = r->sch->kind == STSL_SCHEME_SMOOTH_RK4 ? STSL_MODE_SMOOTH : slip_mode(away);
    *kind = STSL_EV_IMPACT;
    return 1;
}

/* On a stop: stays unless pulled off harder than the static limit (a smooth
 * or regularised law holds nothing: limit 0). */
static int stop_decision(const run *r, int mode)
{
    int side = mode == STSL_MODE_STOP_HIGH ? +1 : -1;
    int smooth = r->sch->kind == STSL_SCHEME_SMOOTH_RK4;
    int m = stsl_contact_decide_at_stop(side, r->f.fn, smooth ? 0.0 : r->f.fs_pos,
                                        smooth ? 0.0 : r->f.fs_neg);
    return smooth && is_slip(m) ? STSL_MODE_SMOOTH : m;
}

/* ---- the schemes' steps ------------------------------------------------------ */

/* Karnopp: inside the band |v| < dv the stick test decides (stuck: v = 0,
 * friction balances F_n; else slip towards F_n at the dynamic level);
 * outside it, slip friction opposing v.  The decision is taken on the new
 * state with the forces evaluated there, which the next step reuses: one
 * force evaluation per step. */
static int karnopp_classify(run *r, int prev, double *y)
{
    if (is_stop(prev)) return stop_decision(r, prev);
    if (fabs(y[1]) < r->sch->karnopp_band) {
        int m = stsl_contact_decide_rest(r->f.fn, r->f.fs_pos, r->f.fs_neg);
        if (m == STSL_MODE_STUCK) y[1] = 0.0;
        return m;
    }
    return slip_mode(sgn(y[1]));
}

static void karnopp_step(run *r, double t1, double h, double *y, step_result *sr)
{
    int prev = r->mode, mode = prev, kind = STSL_NO_EVENT;
    y[1] += h * euler_accel(r, prev, y[1]);
    y[0] += h * y[1];
    memcpy(sr->yraw, y, sizeof sr->yraw);
    if (hit_stop(r, t1, h, y, &mode, &kind) && kind == STSL_EV_STOP_CONTACT) {
        r->mode = mode;
        sr->kind = kind;
        return;
    }
    if (kind != STSL_EV_IMPACT) forces(r, t1, y);
    r->mode = karnopp_classify(r, kind == STSL_EV_IMPACT ? mode : prev, y);
    sr->kind = kind == STSL_EV_IMPACT ? kind : kind_of_change(prev, r->mode);
}

/* Dalla Vedova's four conditions, once per step: stuck and stays / breaks
 * away (the static band on the forces at the step point), slipping and
 * stays (v keeps its sign over the step), slipping and stops (v would
 * change sign: the element is put at rest, x_{n+1} = x_n, and the stick
 * test at the step point decides between stick and slip towards F_n, which
 * is a reversal when that is the other way).  A reversal restarts from
 * v = 0 at t_{n+1}: the part of the step after the zero crossing is not
 * integrated, an O(h a) velocity error like the late decision itself. */
static void hybrid_step(run *r, double t1, double h, double *y, step_result *sr)
{
    int prev = r->mode, mode = prev, kind = STSL_NO_EVENT;
    if (is_slip(prev)) {
        int s = prev == STSL_MODE_SLIP_POS ? +1 : -1;
        double v1 = y[1] + h * euler_accel(r, prev, y[1]);
        if (s * v1 > 0.0) { /* slipping and stays */
            y[1] = v1;
            y[0] += h * v1;
        } else { /* slipping and stops: at rest, then the stick test */
            y[1] = 0.0;
            mode = STSL_MODE_STUCK;
        }
    }
    memcpy(sr->yraw, y, sizeof sr->yraw);
    if (hit_stop(r, t1, h, y, &mode, &kind)) {
        r->mode = mode;
        sr->kind = kind;
        return;
    }
    forces(r, t1, y);
    if (is_stop(mode))
        mode = stop_decision(r, mode);
    else if (mode == STSL_MODE_STUCK) /* stuck (or just stopped): stays or breaks away */
        mode = stsl_contact_decide_rest(r->f.fn, r->f.fs_pos, r->f.fs_neg);
    r->mode = mode;
    sr->kind = kind_of_change(prev, mode);
}

/* Classical RK4 in the SMOOTH mode; on a stop the state is held until the
 * net force pulls the element off. */
static int rk4_step(run *r, double t1, double h, double *y, step_result *sr)
{
    int prev = r->mode, mode = prev, kind = STSL_NO_EVENT, n = r->n, rc = 0;
    if (!is_stop(prev)) {
        double k1[STSL_ELEMENT_MAX_STATE], k2[STSL_ELEMENT_MAX_STATE], k3[STSL_ELEMENT_MAX_STATE],
            k4[STSL_ELEMENT_MAX_STATE];
        double tmp[STSL_ELEMENT_MAX_STATE], t = t1 - h;
        rc = rk4_deriv(r, t, y, k1);
        for (int i = 0; i < n; i++)
            tmp[i] = y[i] + 0.5 * h * k1[i];
        if (!rc) rc = rk4_deriv(r, t + 0.5 * h, tmp, k2);
        for (int i = 0; i < n; i++)
            tmp[i] = y[i] + 0.5 * h * k2[i];
        if (!rc) rc = rk4_deriv(r, t + 0.5 * h, tmp, k3);
        for (int i = 0; i < n; i++)
            tmp[i] = y[i] + h * k3[i];
        if (!rc) rc = rk4_deriv(r, t1, tmp, k4);
        for (int i = 0; i < n; i++)
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
    memcpy(sr->yraw, y, sizeof sr->yraw);
    if (!hit_stop(r, t1, h, y, &mode, &kind) && is_stop(prev)) {
        forces(r, t1, y);
        mode = stop_decision(r, prev);
    }
    r->mode = mode;
    sr->kind = kind != STSL_NO_EVENT ? kind : kind_of_change(prev, mode);
    return rc;
}

/* The mode of the initial state by the scheme's own decision. */
static int initial_mode(run *r)
{
    const stsl_element_params *p = r->p;
    double *y = r->y;
    int side = !p->has_stops ? 0 : y[0] >= p->x_max ? +1 : y[0] <= p->x_min ? -1 : 0;
    forces(r, 0.0, y);
    if (side && y[1] == 0.0)
        return stop_decision(r, side > 0 ? STSL_MODE_STOP_HIGH : STSL_MODE_STOP_LOW);
    switch (r->sch->kind) {
    case STSL_SCHEME_KARNOPP:
        return karnopp_classify(r, -1, y);
    case STSL_SCHEME_FIXED_STEP_HYBRID:
        if (y[1] != 0.0) return slip_mode(sgn(y[1]));
        return stsl_contact_decide_rest(r->f.fn, r->f.fs_pos, r->f.fs_neg);
    default:
        return STSL_MODE_SMOOTH;
    }
}

/* ---- the loop ------------------------------------------------------------------ */

double stsl_fixed_step_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void stsl_fixed_step_grid(const stsl_hsolver_opts *sim, double h, long *n_steps, long *stride)
{
    *n_steps = (long)ceil(sim->t_end / h - STEP_COUNT_SLACK);
    if (*n_steps < 1) *n_steps = 1;
    *stride = sim->output_step > h ? (long)floor(sim->output_step / h + STEP_COUNT_SLACK) : 1;
}

static int emit(run *r, stsl_error *err)
{
    if (!r->out) return STSL_OK;
    out_cols(r, r->mode, r->t, r->y, r->cols_a);
    return stsl_sink_sample(r->sink, r->t, r->mode, r->cols_a, err);
}

static int record(run *r, int from, const step_result *sr, long max_events, stsl_error *err)
{
    if (++r->st.events > max_events)
        return stsl_error_set(
            err, STSL_EMAXEVENTS,
            "scheme %s: more than %ld events (simulation.max_events) by t = %.17g "
            "s; the last one: %s",
            stsl_scheme_name(r->sch->kind), max_events, r->t,
            r->model->layout->kind_names[sr->kind]);
    if (!r->out) return STSL_OK;
    out_cols(r, from, r->t, sr->yraw, r->cols_a);
    out_cols(r, r->mode, r->t, r->y, r->cols_b);
    stsl_event_rec ev = {r->t, sr->kind, from, r->mode, r->cols_a, r->cols_b, 0};
    return stsl_sink_event(r->sink, &ev, err);
}

static int check_finite(run *r, const double *yprev, stsl_error *err)
{
    for (int i = 0; i < r->n; i++)
        if (!isfinite(r->y[i]))
            return stsl_error_set(
                err, STSL_ESOLVER,
                "scheme %s: the state became non-finite at t = %.17g s (step %ld, mode %s, "
                "h = %g s): from x = %.17g, v = %.17g to x = %g, v = %g",
                stsl_scheme_name(r->sch->kind), r->t, r->st.steps,
                r->model->layout->mode_names[r->mode], r->sch->step, yprev[0], yprev[1], r->y[0],
                r->y[1]);
    return STSL_OK;
}

int stsl_fixed_step_check(const stsl_hsolver_opts *sim, const stsl_scheme_opts *sch,
                          stsl_error *err)
{
    const char *name = stsl_scheme_name(sch->kind);
    if (!name || sch->kind == STSL_SCHEME_EVENT_DRIVEN)
        return stsl_error_set(err, STSL_EINPUT, "simulation.scheme: not a fixed-step scheme");
    if (!(sch->step > 0.0) || !isfinite(sch->step))
        return stsl_error_set(err, STSL_EINPUT, "simulation.step: must be > 0 (got %g)", sch->step);
    if (!(sim->t_end > 0.0) || sim->t_end / sch->step > MAX_STEPS)
        return stsl_error_set(err, STSL_EINPUT,
                              "simulation.step: %g s makes more than %g steps to t_end = %g s",
                              sch->step, MAX_STEPS, sim->t_end);
    return STSL_OK;
}

static int check_args(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                      const stsl_scheme_opts *sch, stsl_error *err)
{
    const char *name = stsl_scheme_name(sch->kind);
    int hybrid_law = !stsl_law_is_smooth(p->friction.law);
    int rc = stsl_fixed_step_check(sim, sch, err);
    if (rc) return rc;
    if (sch->kind != STSL_SCHEME_SMOOTH_RK4 && !hybrid_law)
        return stsl_error_set(err, STSL_EINPUT,
                              "simulation.scheme: %s needs a hybrid friction law (coulomb, "
                              "stribeck); use smooth_rk4 for smooth laws",
                              name);
    if (p->has_stops && p->stop_model != STSL_STOP_RIGID) /* the config says it at its line */
        return stsl_error_set(err, STSL_EINPUT,
                              "simulation.scheme: %s models rigid end stops only; "
                              "end_stops.model: compliant needs scheme event_driven",
                              name);
    if (sch->kind == STSL_SCHEME_KARNOPP && !(sch->karnopp_band > 0.0))
        return stsl_error_set(err, STSL_EINPUT, "simulation.karnopp_band: must be > 0 (got %g)",
                              sch->karnopp_band);
    if (sch->kind == STSL_SCHEME_SMOOTH_RK4 && hybrid_law && !(sch->regularisation_velocity > 0.0))
        return stsl_error_set(err, STSL_EINPUT,
                              "simulation.regularisation_velocity: must be > 0 (got %g)",
                              sch->regularisation_velocity);
    return STSL_OK;
}

int stsl_fixed_step_run(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                        const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                        stsl_error *err)
{
    int rc = check_args(p, sim, sch, err);
    if (rc) return rc;
    run r;
    memset(&r, 0, sizeof r);
    double wall0 = stsl_fixed_step_clock();
    r.o = stsl_one_body_create(p, err);
    if (!r.o) return err ? err->code : STSL_EINPUT;
    r.model = stsl_one_body_model(r.o);
    r.p = stsl_one_body_params(r.o);
    r.sch = sch;
    r.sink = sink;
    r.out = sink && sink->ops;
    r.regular = sch->kind == STSL_SCHEME_SMOOTH_RK4 && !stsl_law_is_smooth(r.p->friction.law);
    r.n = r.model->n_state;
    r.st.n_modes = r.model->layout->n_modes;
    r.st.segments = 1;
    stsl_one_body_initial_state(r.o, r.y);
    double h = sch->step;
    long n_steps, stride;
    stsl_fixed_step_grid(sim, h, &n_steps, &stride);
    int begun = 0;
    if (r.out && !(rc = stsl_sink_begin(sink, r.model->layout, err))) begun = 1;
    if (!rc) {
        r.mode = initial_mode(&r);
        rc = emit(&r, err);
    }
    for (long k = 1; !rc && k <= n_steps; k++) {
        double t1 = k == n_steps ? sim->t_end : (double)k * h, dt = t1 - r.t;
        double yprev[STSL_ELEMENT_MAX_STATE];
        int from = r.mode;
        step_result sr = {{0}, STSL_NO_EVENT};
        if (sim->cancel && sim->cancel(sim->cancel_ctx)) {
            rc = stsl_error_set(err, STSL_ECANCELLED, "run cancelled at t = %.17g s", r.t);
            break;
        }
        memcpy(yprev, r.y, sizeof yprev);
        if (sch->kind == STSL_SCHEME_KARNOPP)
            karnopp_step(&r, t1, dt, r.y, &sr);
        else if (sch->kind == STSL_SCHEME_FIXED_STEP_HYBRID)
            hybrid_step(&r, t1, dt, r.y, &sr);
        else if (rk4_step(&r, t1, dt, r.y, &sr))
            rc =
                stsl_error_set(err, STSL_EMODEL, "scheme %s: the model's rhs failed at t = %.17g s",
                               stsl_scheme_name(sch->kind), r.t);
        r.st.steps++;
        r.st.mode_time[from] += dt;
        r.t = t1;
        if (!rc) rc = check_finite(&r, yprev, err);
        if (!rc && sr.kind != STSL_NO_EVENT) rc = record(&r, from, &sr, sim->max_events, err);
        if (!rc && (k % stride == 0 || k == n_steps)) rc = emit(&r, err);
    }
    r.st.wall_seconds = stsl_fixed_step_clock() - wall0;
    if (stats) *stats = r.st;
    if (begun) rc = stsl_sink_end_run(sink, &r.st, rc, 1, err);
    stsl_one_body_free(r.o);
    return rc;
}
