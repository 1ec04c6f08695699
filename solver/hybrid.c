/* hybrid.c - the hybrid integrator: CVODE segments with rootfinding for
 * ordinary modes, guard scanning with Brent's method for frozen modes.
 * Every CVODE call of the project lives in this file; the erk8 method's
 * stepper is erk8.c. */
#include "solver/hybrid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cvodes/cvodes.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_roots.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "solver/arrays.h"
#include "solver/erk8.h"
#include "solver/event_log.h"
#include "solver/gsl_setup.h"
#include "solver/small_vector.h"

/* Events closer than this (relative to max(1, |t|)) count as one instant for
 * the Zeno guard: a few ulps, because cascades of transitions at one instant
 * happen at exactly the same t. */
#define SAME_INSTANT_REL (64.0 * DBL_EPSILON)
/* Root location tolerance in frozen modes, relative to max(1, |t|): a few
 * ulps, tighter than CVODE's own 100 ulps; Brent gets there in a few steps. */
#define ROOT_TOL_REL (8.0 * DBL_EPSILON)
/* Iteration caps of the Brent searches; convergence takes far fewer. */
#define ROOT_MAX_ITER        200
#define MIN_MAX_ITER         100
#define DEFAULT_SAME_INSTANT 64
/* Seconds of wall time between two progress callbacks, which are
 * considered every PROGRESS_EVERY steps (a clock read per step would cost
 * a few per cent of a cheap run). */
#define PROGRESS_PERIOD 0.5
#define PROGRESS_EVERY  64
/* Progress guard: a run whose last STALL_WINDOW steps (CVODE steps and
 * frozen-mode samples, across segments) advanced time by less than
 * STALL_WINDOW step floors fails.  The floor is STALL_SPAN_FRACTION of
 * (t_end - t0), or STALL_ULPS ulps of t where that is larger: at that mean
 * step the run would need more than 1e10 steps (hours at ~1 us a step), or
 * would not advance time beyond round-off at all.  20000 steps take about
 * 20-60 ms, so a stalled run stops within a second. */
#define STALL_WINDOW        20000
#define STALL_SPAN_FRACTION 1e-10
#define STALL_ULPS          64.0
/* Relative offset, in step sizes, of the finite difference that gives the
 * sign of a guard's rate at a step end from the dense output. */
#define RATE_OFFSET 1e-3
/* A guard whose minimum inside a step comes within TOUCH_FACTOR (atol +
 * rtol max|g|) of zero touches it (max over the segment's step ends;
 * atol: the smallest component's).  CVODE controls the local error; the
 * minimum of the dense output carries the global error of the arc before
 * it.  Measured at the belt tangency (v = 0.1 (sin 10 t - 1), max|v| =
 * 0.2 m/s, a quarter period of slip; test_hidden_events), the computed
 * minimum in units of (atol + rtol max|v|), on the side of a miss (+) or a
 * crossing (-, which is located as a crossing whatever this factor): with
 * the derived atol (stsl_hsolver_atol), for every rtol the program accepts,
 * -0.3 (1e-4) ... +0.24 (1e-8), +0.43 (1e-9), +0.59 (1e-11), +0.73
 * (1e-13), -0.74 (1e-14); with a given atol, which then dominates the
 * error control: +1.25 (rtol 1e-4 ... 1e-14, atol 1e-4), +8.4 (1e-10,
 * 1e-12), +46 (1e-12, 1e-12), +63 (1e-14, 1e-14), -85 (1e-10, 1e-10).  So
 * 100: more than 100 times the derived rule's worst, 1.6 times the worst
 * with a given atol; and at rtol 1e-4 a miss by 1 % of max|v| still counts
 * as one (a tangency located there is off in time by sqrt(2 band / |v''|),
 * which the test bounds). */
#define TOUCH_FACTOR 100.0
/* ... but never more than a tenth of the guard's largest value: at the
 * loosest tolerances the program accepts (rtol up to 1e-2) 100 rtol would
 * make any minimum of |v| a touch (a belt 60 % faster than the slip's peak
 * velocity stuck at rtol 1e-2).  The worst measured miss-side error at
 * loose tolerances is 4.6 % of max|v| (rtol = atol = 1e-3: the atol, a
 * length, is then 1/6 of the motion's size), 2.2 % at 5e-4: 10 % covers
 * both. */
#define TOUCH_CAP 0.1
/* Hidden dips.  CVODE sees a guard's sign change between step ends only;
 * a guard that leaves its mode and comes back inside one step shows none.
 * So every step is examined, whatever its size: the sign of each directed
 * guard's rate at the step's end (one dense-output evaluation of all
 * guards at tb - RATE_OFFSET h, reused as the rate at the next step's
 * start), and where a guard falls at the start and rises at the end it has
 * a minimum inside, which Brent's method finds on the dense output.
 *   Why the end rates are enough: a guard with at most one extremum inside
 * a step dips towards zero there exactly when its end rates point inwards,
 * however long the step and however far from zero its ends.  For the
 * element's slip guards: x - stop has the rate -+v, of one sign in the
 * mode; v has the rate a, and with m v' = F(t) - F_f(v) - c v (no spring;
 * F the inputs' force with the load's friction level) a obeys
 * a' + b a = F'(t) / m, b = (F_f'(v) + c) / m, so
 * a = P (a0 + int F' / (m P)) with P = exp(-int b) > 0 has at most one zero
 * while F' keeps its sign: always between time events for constant, ramp
 * and linear-table inputs (F' is constant there), whatever the step.  A
 * spring or a compliant stop adds an oscillation, and periodic inputs (and
 * cubic tables) change the sign of F': the models bound the step to 1/20
 * of those periods (or the breakpoint spacing; ops->max_step), so a
 * second extremum needs a rate zero and an inflection of the input inside
 * one such step, and then the excursion
 * between them is of order h^3 |F''| / m, a few thousandths of the swing
 * the input drives.  (The old test looked at rates only when an end value
 * was within a quarter of the guard's largest value and relied on steps
 * of 1/20 of a time scale that nothing bounds without a spring: a
 * ramp-driven slip whose v dips to -0.06 m/s and back inside one step went
 * through.)  Cost: one dense evaluation of the guards per step, and a
 * Brent search per minimum that points to zero (once per extremum, not per
 * step).  On the Janecek chirp (rtol 1e-8, no output samples) the steps
 * and RHS evaluations are unchanged (577, 850), the guard evaluations rise
 * from 903 to 1365, the instructions in stsl_hsolver_run from 12.04e6 to
 * 12.58e6 (+4.5 %; callgrind; +5.9 % at rtol 1e-10), and bench_janecek's
 * time relative to the plain CVODE loop went from 0.682 to 0.706 (medians
 * of 5 alternating runs of 7 batches each on a loaded 2-core machine). */

/* Extrema.  With opts.track_extrema the solver keeps the smallest and
 * largest value of every output column that is a state component
 * (model->col_state: the element's x and v) over the whole trajectory,
 * independent of the output grid: the value at the start, at every step
 * end, on both sides of every event (a velocity jump at an impact), and at
 * every extremum inside a step.  Between two of those points the state is
 * CVODE's dense output, the Nordsieck polynomial of the step, whose
 * derivative (CVodeGetDky, k = 1) is that of the polynomial itself; where
 * a component's derivative has opposite signs at the two ends of the
 * interval, its extremum is the root of the derivative, which Brent's
 * method (the guards' root finder, brent_root) locates to a few ulps of
 * t: the value there is that of the polynomial's extremum to rounding
 * (an offset dt of the root costs |y''| dt^2 / 2).  Brent's minimiser on
 * the value would not do: GSL's never places points closer than
 * sqrt(eps) |t| to its best one, which leaves |y''| (1.5e-8 t)^2 / 2, at
 * t = 10 s and 10 Hz 2e-8 of the amplitude.
 *   Accuracy: the extremum of the dense output carries the integration
 * error of the trajectory there (rtol |y| + atol, times the global error's
 * growth), the same as any sample; a sample on a grid of step dt misses a
 * peak by up to |y''| (dt/2)^2 / 2 besides (for A sin(w t): A (w dt)^2 / 8,
 * 5e-4 A at 10 Hz and dt = 1 ms).
 *   Completeness: only a sign change of the derivative between the ends is
 * looked for, so two extrema inside one interval (a derivative with two
 * zeros) would go unseen; the argument of "Hidden dips" below bounds
 * that: a slip velocity has at most one extremum per interval between time
 * events under constant, ramp and linear-table inputs, and a spring, a
 * compliant stop or a periodic input bounds the step to 1/20 of its period
 * (ops->max_step), so a second zero of the derivative inside one step is
 * an excursion of order h^3 |y'''|.  The sign at an interval's start is
 * the previous interval's at its end (on the previous step's polynomial);
 * it is recomputed on the current polynomial when it suggests a sign
 * change (the root finder needs a true bracket).  Where the two
 * polynomials disagree on the sign at their junction the derivative there
 * is of the order of the local error e / h, and the extremum they hide is
 * within (e / h)^2 / |y''| of the step-end value already taken: far below
 * the tolerance.
 *   Cost: a few comparisons per step (the signs at a step's end come from
 * CVODE's Nordsieck array), one dense evaluation of the derivative per
 * segment start and per sign change, and a Brent search (about ten dense
 * evaluations) per extremum: per half period of an oscillation, not per
 * step.  On the Janecek chirp (a summary-only stsl_run, no samples;
 * callgrind) the instructions of stsl_run rise by 4.2 % at rtol 1e-8
 * (5.75e6 to 5.99e6 a run) and 3.6 % at 1e-10; a dense evaluation of the
 * rates at every step end instead of the Nordsieck column cost 12.6 %. */

typedef enum hit { HIT_TSTOP = 0, HIT_GUARD = 1 } hit;

static void progress(stsl_hsolver *s, double t);
static int all_finite(const double *v, int n);

struct stsl_hsolver {
    const stsl_hmodel *model;
    stsl_hsolver_opts opts;
    int n, n_roots;

    SUNContext ctx;
    N_Vector y;          /* CVODE's state */
    N_Vector yd;         /* scratch for dense output */
    N_Vector q;          /* the power's quadrature (opts.integrate_power only) */
    int q_on;            /* CVodeQuadInit done: the quadrature runs in every segment from then on */
    int seg_exact;       /* the current segment's work is a difference of states */
    stsl_work_form form; /* ... this one (seg_exact) */
    double seg_y0;       /* y[form.index] at the segment's start (seg_exact) */
    void *cv;
    /* The erk8 method (opts.method): solver/erk8.h instead of CVODE for
     * the ordinary modes, with n_dense = n + its quadrature (the power) in
     * its vectors y, yd and ydk. */
    stsl_erk8 *erk;
    int n_dense;
    SUNNonlinearSolver nls; /* Adams: fixed-point iteration */
    SUNMatrix J;            /* BDF: dense Jacobian and its solver */
    SUNLinearSolver ls;
    int cv_active;    /* a CVODE segment is under way (counters valid) */
    char cv_msg[512]; /* last message of CVODE's error handler */
    gsl_root_fsolver *root;
    gsl_min_fminimizer *minz;

    double t, t_seg; /* current time, start of the current segment */
    /* The current mode: its code and what the model says of it (asked for
     * whenever the mode changes; the solver holds no table of modes). */
    stsl_mode_code mode;
    stsl_mode_desc desc;
    /* Per-run arrays, sized from the model once in create (nothing is
     * allocated per step): states (n), guard values and flags (n_roots). */
    double *ycur, *ytmp;
    int *fired, *rootsfound, *dirs;
    /* Guard scratch: one evaluation (dense_q, guard_at), hidden_crossing's
     * midpoint, scan_window's crossing times, check_step's step end and
     * frozen_advance's four samples. */
    double *g_one, *g_mid, *g_when, *g_step, *g_prev, *g_a, *g_b, *g_0;
    double *g_late, *g_early; /* check_step: the guards at tb - d and ta + d */
    double *g_scratch_state;  /* n: the tolerances at setup */

    stsl_sink *sink;
    double *cols_a, *cols_b;
    long out_k;         /* index of the next output grid point */
    double last_sample; /* time of the last grid sample emitted */
    stsl_stats stats;
    stsl_event_log log;
    struct timespec wall0;
    double last_progress;
    /* Mode invariant between steps (see check_step): guard values at the
     * last step end (valid when g_ok), their largest |value| in the
     * segment, and the largest inside value q at its step ends before the
     * current step's end (g_peak: has the guard stood clear of zero?). */
    double *g_last, *g_max, *g_peak;
    double *g_cache, g_cache_t; /* the last guards CVODE evaluated */
    double *rate_t;             /* where rate[] (the sign of q's rate) holds */
    int *rate;
    int g_ok;
    /* The segment restarts in the mode it left with no event (a touch
     * the model accepted): the guards keep their sizes (g_max), so that
     * the touch band stays that of the guard, not of its zero. */
    int same_mode;
    int rhs_bad;     /* the right-hand side was not finite (the step failed) */
    double atol_min; /* the smallest component's absolute tolerance */
    /* Progress guard: steps counted, and time at the window's start. */
    long pg_steps, pg_next, pg_n0;
    double pg_t0, t_start;
    int started, done, sink_begun;
    /* Extrema (see "Extrema"): columns [0, n_ext) tracked, each column's
     * state component (-1: none), the signs of their rates at ext_t (the
     * last interval's end; NaN: none yet in this segment), and a vector for
     * the derivative. */
    int n_ext;
    int ext_state[STSL_EXTREMA_MAX_COLS];
    signed char ext_rate[STSL_EXTREMA_MAX_COLS];
    double ext_t;
    N_Vector ydk;
};

/* ---- helpers ------------------------------------------------------------ */

static double now_seconds(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

/* The model's name of `mode` ("none" before the initial mode), as an
 * stsl_mode_namer for the event log. */
static void name_mode(void *ctx, int64_t mode, char *buf, size_t len)
{
    const stsl_hmodel *m = ctx;
    if (mode == STSL_NO_MODE)
        snprintf(buf, len, "none");
    else
        m->ops->mode_name(m->self, mode, buf, len);
}

/* What the model says of `mode`, checked: 0, or -1 for a code the model
 * does not know or a description the solver cannot use. */
static int describe_mode(const stsl_hsolver *s, stsl_mode_code mode, stsl_mode_desc *out)
{
    memset(out, 0, sizeof *out);
    if (s->model->ops->describe(s->model->self, mode, out)) return -1;
    return out->n_guards >= 0 && out->n_guards <= s->model->max_guards ? 0 : -1;
}

/* Make `mode` (described as `d`) the current one.  Its guard directions
 * are copied: the model's are valid only until its next describe call. */
static void set_mode(stsl_hsolver *s, stsl_mode_code mode, const stsl_mode_desc *d)
{
    s->mode = mode;
    s->desc = *d;
    for (int i = 0; i < d->n_guards; i++)
        s->dirs[i] = d->guard_dir[i];
    s->desc.guard_dir = s->dirs;
}

/* "t = 1.5 s, mode SLIP_POS, state (x, v) = (0.1, -0.2), last events: ..." */
static void describe_point(const stsl_hsolver *s, double t, char *buf, size_t n)
{
    char mname[64];
    name_mode((void *)s->model, s->mode, mname, sizeof mname);
    int w =
        snprintf(buf, n, "t = %.17g %s, mode %s, state ", t, s->model->layout->time_units, mname);
    size_t used = w > 0 ? (size_t)w : 0;
    const char *const *names = s->model->state_names;
    for (int i = 0; i < s->n && used < n; i++) {
        w = snprintf(buf + used, n - used, "%s%s = %.17g", i ? ", " : "", names ? names[i] : "y",
                     s->ycur[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    char evs[1024];
    stsl_event_log_format(&s->log, s->model->layout->kind_names, name_mode, (void *)s->model, evs,
                          sizeof evs);
    if (used < n) snprintf(buf + used, n - used, "; last events: %s", evs);
}

static int fail(stsl_hsolver *s, stsl_error *err, stsl_status code, double t, const char *what)
{
    char where[1536];
    describe_point(s, t, where, sizeof where);
    return stsl_error_set(err, code, "%s at %s", what, where);
}

/* ---- CVODE callbacks ------------------------------------------------------ */

/* Every vector CVODE hands to a callback is a clone of one of ours, all
 * small serial vectors (solver/small_vector.h): their data is NV_DATA_S,
 * without the ops-table call of N_VGetArrayPointer in the hot path. */

static int rhs_eval(double t, const double *y, double *yd, void *ud)
{
    stsl_hsolver *s = ud;
    s->stats.rhs_evals++;
    int rc = s->model->ops->rhs(s->model->self, s->mode, t, y, yd);
    /* Non-finite forces (an overflow) end the run: fatal for CVODE. */
    if (!rc && !all_finite(yd, s->n)) {
        s->rhs_bad = 1;
        return -1;
    }
    return rc;
}

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
    return rhs_eval(t, NV_DATA_S(y), NV_DATA_S(ydot), ud);
}

/* The integrand of the work quadrature (see stsl_stats.work). */
static int quad_eval(double t, const double *y, double *qdot, void *ud)
{
    stsl_hsolver *s = ud;
    qdot[0] = s->model->ops->power(s->model->self, s->mode, t, y);
    return 0;
}

static int cv_quad(sunrealtype t, N_Vector y, N_Vector qdot, void *ud)
{
    return quad_eval(t, NV_DATA_S(y), NV_DATA_S(qdot), ud);
}

/* Unused root slots (modes with fewer guards than the most) are a constant
 * 1: they never cross. */
static int roots_eval(double t, const double *y, double *g, void *ud)
{
    stsl_hsolver *s = ud;
    const stsl_mode_desc *m = &s->desc;
    s->stats.guard_evals++;
    int rc = m->n_guards > 0 ? s->model->ops->guards(s->model->self, s->mode, t, y, g) : 0;
    for (int i = m->n_guards; i < s->n_roots; i++)
        g[i] = 1.0;
    s->g_cache_t = t;
    memcpy(s->g_cache, g, (size_t)s->n_roots * sizeof(double));
    return rc;
}

static int cv_roots(sunrealtype t, N_Vector y, sunrealtype *g, void *ud)
{
    return roots_eval(t, NV_DATA_S(y), g, ud);
}

static void cv_errhandler(int code, const char *module, const char *function, char *msg, void *ud)
{
    stsl_hsolver *s = ud;
    snprintf(s->cv_msg, sizeof s->cv_msg, "%s (%s, %s, flag %d)", msg, module, function, code);
}

/* ---- create / free -------------------------------------------------------- */

static int check_model(const stsl_hmodel *m, stsl_error *err)
{
    if (!m || !m->ops || !m->ops->describe || !m->ops->mode_name || !m->layout)
        return stsl_error_set(err, STSL_EINPUT, "hybrid model is incomplete");
    if (m->n_state < 1)
        return stsl_error_set(err, STSL_EINPUT, "state size %d must be >= 1", m->n_state);
    /* A mode's guard count is checked against max_guards as it is entered
     * (describe_mode): the modes are not known in advance. */
    if (m->max_guards < 0)
        return stsl_error_set(err, STSL_EINPUT, "the model has %d guards (must be >= 0)",
                              m->max_guards);
    return STSL_OK;
}

static int check_opts(const stsl_hsolver_opts *o, stsl_error *err)
{
    if (!(o->rtol > 0 && o->atol >= 0))
        return stsl_error_set(err, STSL_EINPUT,
                              "tolerances must be rtol > 0, atol >= 0 (rtol %g, atol %g)", o->rtol,
                              o->atol);
    if (!(o->output_step >= 0) || !isfinite(o->t_end))
        return stsl_error_set(err, STSL_EINPUT, "bad output_step %g or t_end %g", o->output_step,
                              o->t_end);
    return STSL_OK;
}

/* The derived atol holds a component to rtol relative down to
 * ATOL_RESOLUTION of its natural size.  Events are decided where a
 * component passes through zero (v at a stick, a force at a breakaway), so
 * the absolute floor must lie well below the size the component has in the
 * motion; and CVODE bounds the local error per step while the event times
 * carry the global error of hundreds of steps.  Measured on the Janecek
 * chirp against its 45-digit reference (max event-time error / rtol at
 * rtol 1e-10, 1e-12, 1e-13): resolution 1: 7, 16, 21; 0.1: 1.9, 7.6, 5.1;
 * 0.01: 2.9, 2.2, 2.1; 0.001: 1.8, 4.5, 1.4.  The belt oscillator of
 * test_element (stick durations against the closed form, rtol 1e-10):
 * 0.01 leaves 1.9e-9 s, 0.001 2.1e-10 s.  So 0.001: the error follows rtol
 * with a constant of 1 to 5 from rtol 1e-6 to 1e-13 (bench_tolerance), for
 * 5 % more steps than 0.01. */
#define ATOL_RESOLUTION 1e-3

void stsl_hsolver_atol(const double *scale, int n, double rtol, double atol, double *out)
{
    for (int i = 0; i < n; i++)
        out[i] = atol > 0.0 ? atol : rtol * ATOL_RESOLUTION * (scale ? scale[i] : 1.0);
}

/* A scalar atol as given, else one per component from the model's scales
 * (stsl_hsolver_atol); s->atol_min is the smallest, the absolute part of
 * the guards' touch tolerance. */
static double *derive_atol(stsl_hsolver *s)
{
    double *a = s->g_scratch_state; /* n values, used only at setup */
    stsl_hsolver_atol(s->model->state_scale, s->n, s->opts.rtol, s->opts.atol, a);
    s->atol_min = a[0];
    for (int i = 1; i < s->n; i++)
        s->atol_min = fmin(s->atol_min, a[i]);
    return a;
}

static int set_tolerances(stsl_hsolver *s)
{
    double *a = derive_atol(s);
    if (s->opts.atol > 0.0) return CVodeSStolerances(s->cv, s->opts.rtol, s->opts.atol);
    N_Vector v = N_VClone(s->y); /* the state's own vector type */
    if (!v) return -1;
    memcpy(N_VGetArrayPointer(v), a, (size_t)s->n * sizeof(double));
    int rc = CVodeSVtolerances(s->cv, s->opts.rtol, v); /* CVODE keeps a copy */
    N_VDestroy(v);
    return rc;
}

static int setup_cvode(stsl_hsolver *s, stsl_error *err)
{
    s->n_dense = s->n;
    if (SUNContext_Create(NULL, &s->ctx)) goto fail;
    /* CVODE clones its work vectors from y, so all of them get the small
     * vectors' fast operations (bit-identical to plain serial ones). */
    s->y = stsl_small_vector_new(s->n, s->ctx);
    s->yd = stsl_small_vector_new(s->n, s->ctx);
    if (!s->y || !s->yd) goto fail;
    N_VConst(0.0, s->y);
    /* Adams-Moulton with fixed-point iteration for the hybrid slip modes:
     * smooth and non-stiff (a spring-mass with damping); Adams reaches high
     * order with few RHS evaluations, which is what a tight rtol needs.
     * BDF with Newton iteration on a dense Jacobian for stiff models (a
     * smooth friction law with a steep slope): fixed-point iteration and
     * Adams' small stability region would force steps of 1/slope there. */
    int bdf = s->opts.method == STSL_METHOD_BDF ||
              (s->opts.method == STSL_METHOD_AUTO && s->model->stiff);
    s->cv = CVodeCreate(bdf ? CV_BDF : CV_ADAMS, s->ctx);
    if (!s->cv) goto fail;
    if (CVodeSetErrHandlerFn(s->cv, cv_errhandler, s)) goto fail;
    if (CVodeInit(s->cv, cv_rhs, 0.0, s->y)) goto fail;
    if (set_tolerances(s)) goto fail;
    if (CVodeSetUserData(s->cv, s)) goto fail;
    if (bdf) {
        s->J = SUNDenseMatrix(s->n, s->n, s->ctx);
        s->ls = s->J ? SUNLinSol_Dense(s->y, s->J, s->ctx) : NULL;
        if (!s->ls || CVodeSetLinearSolver(s->cv, s->ls, s->J)) goto fail;
    } else {
        s->nls = SUNNonlinSol_FixedPoint(s->y, 0, s->ctx);
        if (!s->nls || CVodeSetNonlinearSolver(s->cv, s->nls)) goto fail;
    }
    if (CVodeRootInit(s->cv, s->n_roots, cv_roots)) goto fail;
    /* The work integral's vector; the quadrature itself starts with the
     * first segment that needs it (start_quadrature). */
    if (s->opts.integrate_power && s->model->ops->power) {
        s->q = stsl_small_vector_new(1, s->ctx);
        if (!s->q) goto fail;
        N_VConst(0.0, s->q);
    }
    if (CVodeSetNoInactiveRootWarn(s->cv)) goto fail;
    /* One-step mode returns after every step; the cap only matters for the
     * internal loop to a stop time. */
    if (CVodeSetMaxNumSteps(s->cv, 100000)) goto fail;
    return STSL_OK;
fail:
    return stsl_error_set(err, STSL_ESOLVER, "could not set up CVODE: %s",
                          s->cv_msg[0] ? s->cv_msg : "allocation or setup failed");
}

/* The erk8 method (solver/erk8.h) in place of CVODE.  It is explicit: a
 * stiff model (a smooth friction law's steep slope) is refused rather than
 * crawled through at steps of the order of 1/slope.  The work integral is
 * a quadrature component of its state, without weight in the error
 * control, so that it changes no step. */
static int setup_erk8(stsl_hsolver *s, stsl_error *err)
{
    if (s->model->stiff)
        return stsl_error_set(err, STSL_EINPUT,
                              "method erk8 is explicit and this model is stiff (a smooth "
                              "friction law): use method auto or bdf");
    int nq = s->opts.integrate_power && s->model->ops->power ? 1 : 0;
    s->n_dense = s->n + nq;
    if (SUNContext_Create(NULL, &s->ctx))
        return stsl_error_set(err, STSL_ESOLVER, "could not create a SUNDIALS context");
    s->y = stsl_small_vector_new(s->n_dense, s->ctx);
    s->yd = stsl_small_vector_new(s->n_dense, s->ctx);
    if (nq) s->q = stsl_small_vector_new(1, s->ctx);
    if (!s->y || !s->yd || (nq && !s->q))
        return stsl_error_set(err, STSL_ENOMEM, "out of memory creating the solver");
    N_VConst(0.0, s->y);
    s->q_on = nq; /* integrated in every segment, restarted at 0 by each */
    stsl_erk8_spec sp = {s->n,       nq, s->n_roots,   rhs_eval,      quad_eval,
                         roots_eval, s,  s->opts.rtol, derive_atol(s)};
    const char *why = "";
    s->erk = stsl_erk8_create(&sp, &why);
    if (!s->erk) return stsl_error_set(err, STSL_ESOLVER, "could not set up method erk8: %s", why);
    return STSL_OK;
}

/* The per-run arrays (see struct stsl_hsolver), sized from the model's
 * state, guard and column counts: allocated (release 0; 0, or nonzero out
 * of memory) or freed (release 1) from one list (solver/arrays.h). */
static int arrays(stsl_hsolver *s, int release)
{
    int n = s->n, r = s->n_roots,
        nc = release ? 0 : s->model->layout->n_cols; /* the model may be gone */
#define ARRAY(p, count) STSL_ARRAY(release, p, count)
    return ARRAY(s->ycur, n) | ARRAY(s->ytmp, n) | ARRAY(s->g_scratch_state, n) |
           ARRAY(s->g_one, r) | ARRAY(s->g_mid, r) | ARRAY(s->g_when, r) | ARRAY(s->g_step, r) |
           ARRAY(s->g_prev, r) | ARRAY(s->g_a, r) | ARRAY(s->g_b, r) | ARRAY(s->g_0, r) |
           ARRAY(s->g_last, r) | ARRAY(s->g_max, r) | ARRAY(s->g_cache, r) | ARRAY(s->rate_t, r) |
           ARRAY(s->g_late, r) | ARRAY(s->g_early, r) | ARRAY(s->g_peak, r) | ARRAY(s->fired, r) |
           ARRAY(s->rootsfound, r) | ARRAY(s->dirs, r) | ARRAY(s->rate, r) | ARRAY(s->cols_a, nc) |
           ARRAY(s->cols_b, nc);
#undef ARRAY
}

/* The columns whose extrema are tracked (opts.track_extrema): the first
 * STSL_EXTREMA_MAX_COLS, each with its state component; 0, or -1 out of
 * memory. */
static int setup_extrema(stsl_hsolver *s)
{
    const int *cs = s->model->col_state;
    int nc = s->model->layout->n_cols;
    s->n_ext = 0;
    if (!s->opts.track_extrema || !cs) return 0;
    s->n_ext = nc < STSL_EXTREMA_MAX_COLS ? nc : STSL_EXTREMA_MAX_COLS;
    for (int k = 0; k < s->n_ext; k++)
        s->ext_state[k] = cs[k] >= 0 && cs[k] < s->n ? cs[k] : -1;
    s->ydk = stsl_small_vector_new(s->n_dense, s->ctx);
    return s->ydk ? 0 : -1;
}

stsl_hsolver *stsl_hsolver_create(const stsl_hmodel *model, const stsl_hsolver_opts *opts,
                                  stsl_error *err)
{
    if (check_model(model, err) || check_opts(opts, err)) return NULL;
    stsl_hsolver *s = calloc(1, sizeof *s);
    if (!s) goto nomem;
    s->model = model;
    s->opts = *opts;
    if (s->opts.max_same_instant <= 0) s->opts.max_same_instant = DEFAULT_SAME_INSTANT;
    s->n = model->n_state;
    s->n_roots = model->max_guards > 1 ? model->max_guards : 1;
    s->mode = STSL_NO_MODE;
    stsl_gsl_setup(); /* GSL reports errors as codes, never aborts (once per process) */
    s->root = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    s->minz = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    if (!s->root || !s->minz || arrays(s, 0)) goto nomem;
    if (opts->method == STSL_METHOD_ERK8 ? setup_erk8(s, err) : setup_cvode(s, err)) goto err;
    if (setup_extrema(s)) goto nomem;
    stsl_event_log_init(&s->log);
    return s;
nomem:
    stsl_error_set(err, STSL_ENOMEM, "out of memory creating the solver");
err:
    stsl_hsolver_free(s);
    return NULL;
}

void stsl_hsolver_free(stsl_hsolver *s)
{
    if (!s) return;
    if (s->cv) CVodeFree(&s->cv);
    stsl_erk8_free(s->erk);
    if (s->nls) SUNNonlinSolFree(s->nls);
    if (s->ls) SUNLinSolFree(s->ls);
    if (s->J) SUNMatDestroy(s->J);
    if (s->y) N_VDestroy(s->y);
    if (s->yd) N_VDestroy(s->yd);
    if (s->ydk) N_VDestroy(s->ydk);
    if (s->q) N_VDestroy(s->q);
    if (s->ctx) SUNContext_Free(&s->ctx);
    if (s->root) gsl_root_fsolver_free(s->root);
    if (s->minz) gsl_min_fminimizer_free(s->minz);
    arrays(s, 1);
    free(s);
}

/* ---- output --------------------------------------------------------------- */

/* The dense output of the last step: CVODE's interpolant, or the erk8
 * method's re-step (of the method's order).  0, or < 0. */
static int seg_dky(stsl_hsolver *s, double t, int k, N_Vector out)
{
    if (s->erk) return stsl_erk8_dense(s->erk, t, k, NV_DATA_S(out));
    return CVodeGetDky(s->cv, t, k, out);
}

/* Output grid: the explicit times, or k * output_step (multiplied, not
 * accumulated, so that the grid has no drift over long runs). */
static int has_grid(const stsl_hsolver *s)
{
    return s->opts.n_output_times > 0 || s->opts.output_step > 0;
}

static double grid_time(const stsl_hsolver *s, long k)
{
    if (s->opts.n_output_times > 0)
        return k < s->opts.n_output_times ? s->opts.output_times[k] : INFINITY;
    return (double)k * s->opts.output_step;
}

static int cancelled(stsl_hsolver *s, double t, stsl_error *err)
{
    if (!s->opts.cancel || !s->opts.cancel(s->opts.cancel_ctx)) return STSL_OK;
    return fail(s, err, STSL_ECANCELLED, t, "run cancelled");
}

/* A sample in the current mode. */
static int emit(stsl_hsolver *s, double t, const double *y, stsl_error *err)
{
    int rc = cancelled(s, s->t, err);
    if (rc) return rc;
    s->model->ops->outputs(s->model->self, s->mode, t, y, s->cols_a);
    return stsl_sink_sample(s->sink, t, s->desc.record, s->cols_a, err);
}

/* Emit the output grid points in (last, t_lim], evaluating the state with
 * `dense` (CVODE's interpolant) or the constant ycur in frozen modes. */
static int emit_grid(stsl_hsolver *s, double t_lim, int dense, stsl_error *err)
{
    if (!has_grid(s)) return STSL_OK;
    for (;;) {
        double tg = grid_time(s, s->out_k);
        if (tg > t_lim || tg > s->opts.t_end) return STSL_OK;
        const double *y = s->ycur;
        if (dense && tg != t_lim) {
            if (seg_dky(s, tg, 0, s->yd) < 0)
                return fail(s, err, STSL_ESOLVER, tg, "dense output failed");
            y = NV_DATA_S(s->yd);
        }
        int rc = emit(s, tg, y, err);
        if (rc) return rc;
        s->last_sample = tg;
        s->out_k++;
    }
}

/* ---- segments --------------------------------------------------------------- */

static void close_segment(stsl_hsolver *s)
{
    if (s->cv_active) {
        long nst = 0;
        if (s->erk)
            nst = stsl_erk8_steps(s->erk);
        else
            CVodeGetNumSteps(s->cv, &nst);
        s->stats.steps += nst;
        /* CVLS counts Jacobian evaluations from the first step after a
         * (re)init (its counters reset there), so each segment that stepped
         * adds its own; one that never stepped still holds the last one's. */
        long nje = 0;
        if (s->ls && nst > 0 && CVodeGetNumJacEvals(s->cv, &nje) == CVLS_SUCCESS)
            s->stats.jac_evals += nje;
        /* The segment's share of the work, read at its end (a root or stop
         * time inside the last step: CVODES interpolates it there). */
        if (s->seg_exact)
            s->stats.work += s->form.coef * (s->ycur[s->form.index] - s->seg_y0);
        else if (s->erk && s->q_on && nst > 0 && seg_dky(s, s->t, 0, s->yd) == 0)
            s->stats.work += NV_DATA_S(s->yd)[s->n]; /* the quadrature component */
        else if (!s->erk && s->q_on && nst > 0 &&
                 CVodeGetQuadDky(s->cv, s->t, 0, s->q) == CV_SUCCESS)
            s->stats.work += NV_DATA_S(s->q)[0];
        s->cv_active = 0;
    }
    int slot = s->desc.record;
    if (s->mode != STSL_NO_MODE && slot >= 0 && slot < STSL_MAX_MODES)
        s->stats.mode_time[slot] += s->t - s->t_seg;
}

static double stop_time(const stsl_hsolver *s)
{
    double te = s->model->ops->next_time_event(s->model->self, s->t);
    return te < s->opts.t_end ? te : s->opts.t_end;
}

/* How the segment about to open gets its work.  The quadrature is a
 * CVODES quadrature: integrated on the state's own steps with the same
 * method and order (one evaluation of the power per step), so it is as
 * accurate as the state; without error control on it (the default) it
 * cannot change a single step of the state.  It starts with the first
 * segment that needs it and then runs in every segment (CVODES can switch
 * it off only by freeing it, and a run's segments of one mode all answer
 * alike for the element); a segment with an exact form still takes the
 * difference of states.  Returns nonzero when CVodeQuadInit failed. */
static int plan_work(stsl_hsolver *s)
{
    s->seg_exact = 0;
    if (!s->q) return 0;
    const stsl_hmodel_ops *ops = s->model->ops;
    if (ops->work_form && ops->work_form(s->model->self, s->mode, s->t, s->ycur, &s->form) &&
        s->form.index >= 0 && s->form.index < s->n) {
        s->seg_exact = 1;
        s->seg_y0 = s->ycur[s->form.index];
    } else if (s->erk) {
        return 0; /* its quadrature restarts with every segment */
    } else if (!s->q_on) {
        N_VConst(0.0, s->q);
        if (CVodeQuadInit(s->cv, cv_quad, s->q)) return -1;
        s->q_on = 1;
        return 0;
    }
    if (!s->q_on || s->erk) return 0;
    N_VConst(0.0, s->q);
    return CVodeQuadReInit(s->cv, s->q);
}

static int open_segment(stsl_hsolver *s, stsl_error *err)
{
    s->t_seg = s->t;
    s->stats.segments++;
    s->g_ok = 0;
    s->g_cache_t = NAN;
    s->ext_t = NAN; /* a new polynomial: no rates carried over a restart */
    if (s->desc.frozen) return STSL_OK;
    memcpy(NV_DATA_S(s->y), s->ycur, (size_t)s->n * sizeof(double));
    /* s->dirs holds the mode's directions (set_mode); unused slots 0. */
    for (int i = s->desc.n_guards; i < s->n_roots; i++)
        s->dirs[i] = 0;
    if (s->erk) {
        if (stsl_erk8_reinit(s->erk, s->t, s->ycur, s->dirs, stop_time(s)) || plan_work(s))
            return fail(s, err, STSL_ESOLVER, s->t, "could not restart method erk8");
    } else if (CVodeReInit(s->cv, s->t, s->y) || plan_work(s) ||
               CVodeSetRootDirection(s->cv, s->dirs) || CVodeSetStopTime(s->cv, stop_time(s))) {
        return fail(s, err, STSL_ESOLVER, s->t, "could not restart CVODE");
    }
    s->cv_active = 1;
    return STSL_OK;
}

/* ---- mode invariant and progress guard ------------------------------------- */

static int all_finite(const double *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* Guards at t on CVODE's dense output (t within the last step). */
static int dense_guards(stsl_hsolver *s, double t, double *g)
{
    if (seg_dky(s, t, 0, s->yd) < 0) return -1;
    s->stats.guard_evals++;
    return s->model->ops->guards(s->model->self, s->mode, t, NV_DATA_S(s->yd), g);
}

/* Guard i as a GSL function of time, times `sign`: on the dense output
 * oriented (sign = -direction) so that the mode's inside is q >= 0
 * (dense_q), or in a frozen mode (guard_at; -1 turns a maximum search into
 * GSL's minimum search). */
typedef struct guard_fn {
    stsl_hsolver *s;
    int i;
    double sign;
    double offset; /* dense_q: sign g - offset (0 but for outside_further) */
} guard_fn;

/* Guard i alone at (t, y): the model's one-guard evaluation when it has
 * one (bit for bit the same value), else all of them. */
static int one_guard(stsl_hsolver *s, double t, const double *y, int i, double *g)
{
    s->stats.guard_evals++;
    const stsl_hmodel_ops *ops = s->model->ops;
    if (ops->guard) return ops->guard(s->model->self, s->mode, t, y, i, g);
    int rc = ops->guards(s->model->self, s->mode, t, y, s->g_one);
    *g = s->g_one[i];
    return rc;
}

static double dense_q(double t, void *p)
{
    guard_fn *f = p;
    double g;
    if (seg_dky(f->s, t, 0, f->s->yd) < 0) return NAN;
    if (one_guard(f->s, t, NV_DATA_S(f->s->yd), f->i, &g) < 0) return NAN;
    return f->sign * g - f->offset;
}

/* The erk8 method's roots: to adjacent doubles, the rounding of t itself.
 * F(a) and F(b) have opposite signs (F(b) != 0: the crossed side; F(a)
 * may be 0).  Regula falsi with the Illinois modification (the end kept
 * twice in a row has its value halved), superlinear on the smooth
 * functions of t it gets, and bisection after EXACT_SECANT_ITER steps so
 * that it ends.
 * Returns the upper end of the final bracket (where F has crossed), or a
 * point where F is 0. */
#define EXACT_SECANT_ITER 40
#define EXACT_MAX_ITER    200
static double exact_root(double (*F)(double, void *), void *p, double a, double b, double fa,
                         double fb)
{
    int kept = 0; /* +1: a was kept by the last step, -1: b */
    for (int it = 0; it < EXACT_MAX_ITER; it++) {
        double mid = a + 0.5 * (b - a);
        if (!(mid > a && mid < b)) break; /* adjacent doubles */
        double c = b - fb * (b - a) / (fb - fa);
        if (it >= EXACT_SECANT_ITER || !(c > a && c < b)) c = mid;
        double fc = F(c, p);
        if (fc == 0.0) return c;
        if (isnan(fc)) break;
        if ((fc < 0.0) == (fb < 0.0)) {
            b = c, fb = fc;
            if (kept == 1) fa *= 0.5;
            kept = 1;
        } else {
            a = c, fa = fc;
            if (kept == -1) fb *= 0.5;
            kept = -1;
        }
    }
    return b;
}

/* Brent's method on F over [a, b] (values of opposite sign at the ends),
 * to ROOT_TOL_REL (the erk8 method: exact_root): the upper end of the final bracket, where F has
 * crossed (b when the ends do not bracket a root).  Every root search of the solver goes through
 * here: guards on the dense output or in frozen modes, and the rates of the tracked state
 * components (see "Extrema"). */
static double brent_root(stsl_hsolver *s, gsl_function *F, double a, double b)
{
    if (s->erk) {
        double fa = F->function(a, F->params), fb = F->function(b, F->params);
        if (fb == 0.0 || isnan(fa) || isnan(fb) || (fa != 0.0 && (fa < 0.0) == (fb < 0.0)))
            return b;
        return exact_root(F->function, F->params, a, b, fa, fb);
    }
    if (gsl_root_fsolver_set(s->root, F, a, b) != GSL_SUCCESS) return b;
    double tol = ROOT_TOL_REL * fmax(1.0, fabs(b));
    for (int it = 0; it < ROOT_MAX_ITER; it++) {
        if (gsl_root_fsolver_iterate(s->root) != GSL_SUCCESS) break;
        if (gsl_root_fsolver_x_upper(s->root) - gsl_root_fsolver_x_lower(s->root) <= tol) break;
    }
    return gsl_root_fsolver_x_upper(s->root);
}

/* Where q leaves the inside between a (q >= 0) and b (q < 0): the upper end
 * of the final bracket, where it has left. */
static double dense_root(stsl_hsolver *s, guard_fn *f, double a, double b)
{
    gsl_function F = {dense_q, f};
    return brent_root(s, &F, a, b);
}

/* Brent's minimiser on F over [a, b] from the interior point (*m, *fm)
 * below both ends, for at least min_iter steps and then until its bracket
 * is ROOT_TOL_REL narrow or its minimum falls below `below` (-INFINITY:
 * never): the minimum in *m, *fm.  The steps made, or -1 when GSL refuses
 * the bracket. */
static int minimise(stsl_hsolver *s, gsl_function *F, double a, double fa, double b, double fb,
                    double below, int min_iter, double *m, double *fm)
{
    if (gsl_min_fminimizer_set_with_values(s->minz, F, *m, *fm, a, fa, b, fb) != GSL_SUCCESS)
        return -1;
    double tol = ROOT_TOL_REL * fmax(1.0, fabs(b));
    int it = 0;
    while (it < MIN_MAX_ITER && (it < min_iter || *fm >= below)) {
        if (gsl_min_fminimizer_iterate(s->minz) != GSL_SUCCESS) break;
        it++;
        *m = gsl_min_fminimizer_x_minimum(s->minz);
        *fm = gsl_min_fminimizer_f_minimum(s->minz);
        double lo = gsl_min_fminimizer_x_lower(s->minz), hi = gsl_min_fminimizer_x_upper(s->minz);
        if (hi - lo <= tol) break;
    }
    return it;
}

/* q falls at a and rises at b: its minimum inside [a, b] (Brent on the dense
 * output).  Returns the time q leaves the inside, or touches it to within
 * `touch` (a tangency: SPEC "Tangency in slip"), or INFINITY.  A guard not
 * `armed` (see check_step) has no touch, and leaves only beyond -touch. */
static double dense_dip(stsl_hsolver *s, guard_fn *f, double a, double b, double qa, double qb,
                        double qlate, double touch, int armed)
{
    double below = armed ? 0.0 : -touch; /* a minimum under this has left */
    double d = RATE_OFFSET * (b - a), m = b - d, qm = qlate;
    double mid = 0.5 * (a + b), qmid = dense_q(mid, f);
    if (qmid < qm) m = mid, qm = qmid;
    /* A minimum close to the start (the rate there came from the previous
     * step's end) is bracketed by a + d, below qa when q falls at a. */
    if (!(qm < qa && qm < qb)) {
        double qe = dense_q(a + d, f);
        if (qe < qm) m = a + d, qm = qe;
    }
    if (!(qm < qa && qm < qb)) return INFINITY; /* no bracket: too flat to matter */
    gsl_function F = {dense_q, f};
    if (minimise(s, &F, a, qa, b, qb, below, 0, &m, &qm) < 0) return INFINITY;
    if (qm < below) return dense_root(s, f, a, m);
    return armed && qm <= touch ? m : INFINITY;
}

/* q is outside at b (no root was reported): where it left.  From inside at
 * a: the crossing.  From zero at a segment's start: at a, unless q first
 * went in (a short slip that comes back to rest): then where it comes back
 * out after its maximum. */
static double leave_time(stsl_hsolver *s, guard_fn *f, double a, double b, double qa, double d)
{
    if (qa > 0.0) return dense_root(s, f, a, b);
    double m = a + d, qm = dense_q(m, f), mid = 0.5 * (a + b), qmid = dense_q(mid, f);
    if (qmid > qm) m = mid, qm = qmid;
    if (!(qm > 0.0)) return a;
    guard_fn neg = {s, f->i, -f->sign, 0.0}; /* GSL minimises: the maximum of q */
    gsl_function F = {dense_q, &neg};
    double fm = -qm, fb = -dense_q(b, f);
    minimise(s, &F, a, -qa, b, fb, -INFINITY, 0, &m, &fm); /* refused: from m as it is */
    return dense_root(s, f, m, b);
}

/* A directed guard outside its mode where the segment started (q0 =
 * sign g at the start < 0: a rounding-level touch the model accepted,
 * e.g. a gap 3e-11 m past its limit after a stop let go) is no crossing
 * while it stays there or comes back; one that goes on outside, beyond
 * the touch band below q0, is: an overlap growing without an event (a
 * body sinking through a rigid stop, 0.04 m by the run's end, exit 0; a
 * stuck force carried past its band).  Where q falls through q0 - touch
 * in (ta, tb], or INFINITY. */
static double outside_further(stsl_hsolver *s, const guard_fn *f, double ta, double tb, double qa,
                              double qb, double touch)
{
    double q0 = f->sign * s->g_0[f->i], lim = q0 - touch;
    if (!(q0 < 0.0) || !(qb < lim) || !(qa >= lim)) return INFINITY;
    guard_fn below = {f->s, f->i, f->sign, lim};
    return dense_root(s, &below, ta, tb);
}

/* Sign of q's rate at t from q(t) and q at t + dt (dt of either sign). */
static int rate_sign(double q, double q_dt, double dt)
{
    double r = (q_dt - q) / dt;
    return (r > 0.0) - (r < 0.0);
}

/* The mode invariant over the step (s->t, tb] just accepted by CVODE (not
 * a root return): every directed guard stays inside its mode (a RISING
 * guard <= 0, a FALLING one >= 0: v >= 0 in SLIP_POS, ...).  CVODE's
 * rootfinding sees only sign changes between step ends, so two more cases
 * are looked for on the dense output: a guard at zero where the segment
 * starts that leaves at once, and a dip inside the step (the rate at the
 * step's start points out, at its end in: an extremum; see "Hidden dips")
 * that touches zero to within the integration tolerance or crosses and
 * comes back.  Sets *which to the guard (earliest) and *te to the time;
 * *which = -1 when the step is clean. */
static int check_step(stsl_hsolver *s, double tb, const double *yb, double *te, int *which,
                      stsl_error *err)
{
    const stsl_mode_desc *m = &s->desc;
    double ta = s->t, *gb = s->g_step;
    double d = RATE_OFFSET * (tb - ta);
    *which = -1;
    *te = tb;
    if (m->n_guards == 0 || !(tb > ta)) return STSL_OK;
    if (s->g_cache_t == tb) { /* CVODE's own root check at the step's end */
        memcpy(gb, s->g_cache, (size_t)s->n_roots * sizeof(double));
    } else {
        s->stats.guard_evals++;
        s->model->ops->guards(s->model->self, s->mode, tb, yb, gb);
    }
    if (!all_finite(gb, m->n_guards))
        return fail(s, err, STSL_ESOLVER, ta, "a guard (force or state) is not finite");
    if (!s->g_ok) { /* the segment's first step: the values at its start */
        s->stats.guard_evals++;
        s->model->ops->guards(s->model->self, s->mode, ta, s->ycur, s->g_last);
        memcpy(s->g_0, s->g_last, (size_t)s->n_roots * sizeof(double));
        for (int i = 0; i < m->n_guards; i++) {
            if (!s->same_mode) s->g_max[i] = 0.0;
            s->g_peak[i] = -INFINITY;
            s->rate_t[i] = NAN;
        }
    }
    int have_late = 0, have_early = 0; /* g_late, g_early evaluated (once a step, lazily) */
    for (int i = 0; i < m->n_guards; i++) {
        int dir = m->guard_dir[i];
        guard_fn f = {s, i, -(double)dir, 0.0};
        double qa = f.sign * s->g_last[i], qb = f.sign * gb[i], when = INFINITY;
        double qabs = fabs(qa) > fabs(qb) ? fabs(qa) : fabs(qb); /* no libm call: hot path */
        if (qabs > s->g_max[i]) s->g_max[i] = qabs;
        double touch = TOUCH_FACTOR * (s->atol_min + s->opts.rtol * s->g_max[i]);
        if (touch > TOUCH_CAP * s->g_max[i]) touch = TOUCH_CAP * s->g_max[i];
        /* Armed: the guard has stood clear of the touch band at some step
         * end since the segment began (its start included).  One that has
         * not is still at the zero where the segment started, which the
         * event there decided (judged at t*+: a stop let go with its ends
         * parting as t^2, a slip starting at w = 0).  Its rate at a step's
         * start is then a difference of rounding-level values, and a dip
         * found from it is noise: a stop's gap, a few ulps of the
         * positions, "touched" 17 ns after its release, or "crossed" by
         * 1e-17 m 64 ps after it, with the ends parting at 3 and 0.5 m/s^2
         * (an impact in one order of the file, none in the other).  So it
         * dips only when clearly out, beyond the band; one inside at the
         * step's end and never clear has touched nothing. */
        if (qa > s->g_peak[i]) s->g_peak[i] = qa;
        int armed = s->g_peak[i] > touch;
        if (qb > s->g_peak[i]) s->g_peak[i] = qb;
        /* A guard outside from the start is a constant (an absent stop) or
         * a rounding-level touch that the model accepted: not ours. */
        if (dir == STSL_GUARD_BOTH || qa < 0.0) {
            s->rate_t[i] = NAN;
            if (dir != STSL_GUARD_BOTH) when = outside_further(s, &f, ta, tb, qa, qb, touch);
        } else if (qb < 0.0) {
            when = leave_time(s, &f, ta, tb, qa, d);
        } else if (qb >= 0.0) { /* every step: see "Hidden dips" */
            if (!have_late && dense_guards(s, tb - d, s->g_late) < 0)
                return fail(s, err, STSL_ESOLVER, tb, "dense output failed");
            have_late = 1;
            /* The rate at ta is the previous step's at its end when known. */
            int ra = s->rate[i];
            if (s->rate_t[i] != ta) {
                if (!have_early && dense_guards(s, ta + d, s->g_early) < 0)
                    return fail(s, err, STSL_ESOLVER, ta, "dense output failed");
                have_early = 1;
                ra = rate_sign(qa, f.sign * s->g_early[i], d);
            }
            double ql = f.sign * s->g_late[i];
            s->rate[i] = rate_sign(qb, ql, -d);
            s->rate_t[i] = tb;
            if (ra < 0 && s->rate[i] > 0) when = dense_dip(s, &f, ta, tb, qa, qb, ql, touch, armed);
        }
        if (when < *te || (*which < 0 && when <= *te)) *te = when, *which = i;
        s->g_last[i] = gb[i];
    }
    s->g_ok = 1;
    return STSL_OK;
}

/* Progress guard (see STALL_WINDOW) and the progress callback, once per
 * step at time t. */
static int progress_guard(stsl_hsolver *s, double t, stsl_error *err)
{
    /* Cheap on the common path: one increment and two tests a step. */
    if ((++s->pg_steps & (PROGRESS_EVERY - 1)) != 0) return STSL_OK;
    progress(s, t);
    if (s->pg_steps < s->pg_next) return STSL_OK;
    long n = s->pg_steps - s->pg_n0; /* >= STALL_WINDOW */
    s->pg_next = s->pg_steps + STALL_WINDOW;
    double floor_ = fmax(STALL_SPAN_FRACTION * (s->opts.t_end - s->t_start),
                         STALL_ULPS * DBL_EPSILON * fabs(t));
    if (t - s->pg_t0 < (double)n * floor_) {
        char what[256];
        snprintf(what, sizeof what,
                 "no progress: the last %ld steps advanced time by %.3g s, a mean step below the "
                 "floor of %.3g s (1e-10 of the run, or round-off of t)",
                 n, t - s->pg_t0, floor_);
        return fail(s, err, STSL_ESOLVER, t, what);
    }
    s->pg_t0 = t;
    s->pg_n0 = s->pg_steps;
    return STSL_OK;
}

/* ---- extrema (see "Extrema") ------------------------------------------------- */

/* Take the state y (a point of the trajectory) into the tracked extrema. */
static void ext_point(stsl_hsolver *s, const double *y)
{
    for (int k = 0; k < s->n_ext; k++) {
        int j = s->ext_state[k];
        if (j < 0) continue;
        if (y[j] < s->stats.col_min[k]) s->stats.col_min[k] = y[j];
        if (y[j] > s->stats.col_max[k]) s->stats.col_max[k] = y[j];
    }
}

/* The run's extrema before its first point: none (min > max), NaN for
 * columns that are not state components. */
static void ext_start(stsl_hsolver *s)
{
    s->stats.n_extrema = s->n_ext;
    s->ext_t = NAN;
    for (int k = 0; k < s->n_ext; k++) {
        int tracked = s->ext_state[k] >= 0;
        s->stats.col_min[k] = tracked ? INFINITY : NAN;
        s->stats.col_max[k] = tracked ? -INFINITY : NAN;
    }
}

/* A tracked column that never got a point (a run that failed at its
 * start) has no extrema: NaN, not infinities. */
static void ext_close(stsl_hsolver *s)
{
    for (int k = 0; k < s->n_ext; k++)
        if (!(s->stats.col_min[k] <= s->stats.col_max[k]))
            s->stats.col_min[k] = s->stats.col_max[k] = NAN;
}

static int sign_of(double v)
{
    return (v > 0.0) - (v < 0.0);
}

/* State component j's rate on the dense output, as a GSL function. */
typedef struct rate_fn {
    stsl_hsolver *s;
    int j;
} rate_fn;

static double dense_rate(double t, void *p)
{
    rate_fn *f = p;
    if (seg_dky(f->s, t, 1, f->s->ydk) < 0) return NAN;
    return NV_DATA_S(f->s->ydk)[f->j];
}

/* The interval (ta, tb] of the last step has been accepted and ycur holds
 * the state at tb: take tb's value, and the extremum inside of every
 * tracked component whose rate changes sign between ta and tb. */
static int ext_interval(stsl_hsolver *s, double ta, double tb, stsl_error *err)
{
    ext_point(s, s->ycur); /* the value at tb: a step's end or an event's before side */
    /* The rates' signs at tb.  At the step's own end tn, P'(tn) = zn[1] / h
     * with h > 0: CVODE's Nordsieck column gives them without evaluating
     * the polynomial (CVodeGetDky costs about 900 instructions, a sixth of
     * a step of the element); elsewhere (a root, a stop time, an event
     * inside the step) the dense output. */
    double tn = NAN, gamma, rl1;
    N_Vector ypred, yn, fn, zn1;
    void *ud;
    const double *d;
    if (!s->erk &&
        CVodeGetNonlinearSystemData(s->cv, &tn, &ypred, &yn, &fn, &gamma, &rl1, &zn1, &ud) ==
            CV_SUCCESS &&
        tn == tb) {
        d = NV_DATA_S(zn1);
    } else {
        if (seg_dky(s, tb, 1, s->ydk) < 0)
            return fail(s, err, STSL_ESOLVER, tb, "dense output failed");
        d = NV_DATA_S(s->ydk);
    }
    signed char rb[STSL_EXTREMA_MAX_COLS], ra[STSL_EXTREMA_MAX_COLS];
    int cached = s->ext_t == ta, turns = 0;
    for (int k = 0; k < s->n_ext; k++) {
        int j = s->ext_state[k];
        rb[k] = (signed char)(j >= 0 ? sign_of(d[j]) : 0);
        turns |= !cached || s->ext_rate[k] * rb[k] < 0;
    }
    if (turns) { /* the rates at ta on this step's own polynomial */
        if (seg_dky(s, ta, 1, s->ydk) < 0)
            return fail(s, err, STSL_ESOLVER, ta, "dense output failed");
        d = NV_DATA_S(s->ydk);
        for (int k = 0; k < s->n_ext; k++)
            ra[k] = (signed char)(s->ext_state[k] >= 0 ? sign_of(d[s->ext_state[k]]) : 0);
    }
    for (int k = 0; turns && k < s->n_ext; k++) {
        if (ra[k] * rb[k] >= 0) continue;
        rate_fn f = {s, s->ext_state[k]};
        gsl_function F = {dense_rate, &f};
        double tx = brent_root(s, &F, ta, tb);
        if (seg_dky(s, tx, 0, s->ydk) < 0)
            return fail(s, err, STSL_ESOLVER, tx, "dense output failed");
        double v = NV_DATA_S(s->ydk)[f.j];
        if (v < s->stats.col_min[k]) s->stats.col_min[k] = v;
        if (v > s->stats.col_max[k]) s->stats.col_max[k] = v;
    }
    memcpy(s->ext_rate, rb, sizeof rb);
    s->ext_t = tb;
    return STSL_OK;
}

/* A root return of the erk8 method: guards changed sign between the ends
 * of the step [ta, tb].  Each is located on the re-step (the method's own
 * order) to adjacent doubles; the earliest is the event, and the guards
 * within a few ulps of it fire with it.  *tret and s->y get the event's
 * time and state. */
static int erk_root(stsl_hsolver *s, double *tret, stsl_error *err)
{
    double ta, tb, first = INFINITY, *when = s->g_when;
    stsl_erk8_last_step(s->erk, &ta, &tb);
    stsl_erk8_root_info(s->erk, s->rootsfound);
    const stsl_mode_desc *m = &s->desc;
    for (int i = 0; i < m->n_guards; i++) {
        when[i] = INFINITY;
        if (!s->rootsfound[i]) continue;
        guard_fn f = {s, i, s->rootsfound[i] > 0 ? -1.0 : 1.0, 0.0}; /* q > 0 before the crossing */
        double qa = dense_q(ta, &f), qb = dense_q(tb, &f);
        when[i] = qa > 0.0 && qb < 0.0 ? exact_root(dense_q, &f, ta, tb, qa, qb) : tb;
        if (when[i] < first) first = when[i];
    }
    if (!isfinite(first)) return STSL_OK;
    for (int i = 0; i < m->n_guards; i++)
        if (!(when[i] <= first + 4.0 * DBL_EPSILON * fabs(first))) s->rootsfound[i] = 0;
    *tret = first;
    if (seg_dky(s, first, 0, s->y) < 0)
        return fail(s, err, STSL_ESOLVER, first, "dense output failed");
    return STSL_OK;
}

/* One step of the ordinary mode's integrator to at most tstop (CVODE's
 * flags: CV_SUCCESS, CV_TSTOP_RETURN, CV_ROOT_RETURN), the state at *tret
 * in s->y; a failure fails the run. */
static int take_step(stsl_hsolver *s, double tstop, double *tret, int *flag, stsl_error *err)
{
    double hmax = s->model->ops->max_step(s->model->self, s->mode, s->t);
    s->cv_msg[0] = '\0';
    if (s->erk) {
        int f = stsl_erk8_step(s->erk, isfinite(hmax) ? hmax : 0.0, tret, NV_DATA_S(s->y));
        *flag = f == STSL_ERK8_ROOT    ? CV_ROOT_RETURN
                : f == STSL_ERK8_TSTOP ? CV_TSTOP_RETURN
                : f == STSL_ERK8_STEP  ? CV_SUCCESS
                                       : f;
        if (f < 0) snprintf(s->cv_msg, sizeof s->cv_msg, "%s", stsl_erk8_message(s->erk));
    } else {
        CVodeSetMaxStep(s->cv, isfinite(hmax) ? hmax : 0.0);
        *flag = CVode(s->cv, tstop, s->y, tret, CV_ONE_STEP);
    }
    if (*flag < 0 && s->rhs_bad) {
        s->rhs_bad = 0;
        return fail(s, err, STSL_ESOLVER, s->t,
                    "the forces became non-finite in the next step (an overflow)");
    }
    if (*flag < 0) {
        char what[768], name[96];
        if (s->erk) {
            snprintf(name, sizeof name, "%s", stsl_erk8_flag_name(*flag));
        } else { /* SUNDIALS 6 returns a malloc'd name: ours to free. */
            char *nm = CVodeGetReturnFlagName(*flag);
            snprintf(name, sizeof name, "%s", nm ? nm : "?");
            free(nm);
        }
        snprintf(what, sizeof what, "%s failed (%s: %s)", s->erk ? "method erk8" : "CVODE", name,
                 s->cv_msg[0] ? s->cv_msg : "no message");
        return fail(s, err, STSL_ESOLVER, s->t, what);
    }
    if (s->erk && *flag == CV_ROOT_RETURN) return erk_root(s, tret, err);
    return STSL_OK;
}

static int cvode_advance(stsl_hsolver *s, double tstop, hit *h, stsl_error *err)
{
    for (;;) {
        /* Every step: a run stuck inside one segment must stop too. */
        int crc = cancelled(s, s->t, err);
        if (crc) return crc;
        double tret = s->t;
        int flag = CV_SUCCESS;
        if ((crc = take_step(s, tstop, &tret, &flag, err))) return crc;
        const double *yb = NV_DATA_S(s->y);
        if (!all_finite(yb, s->n)) {
            char what[160];
            snprintf(what, sizeof what,
                     "the state became non-finite in the step to t = %.17g (an overflow)", tret);
            return fail(s, err, STSL_ESOLVER, s->t, what);
        }
        double te = tret;
        int which = -1, rc;
        if (flag != CV_ROOT_RETURN && (rc = check_step(s, tret, yb, &te, &which, err))) return rc;
        /* ycur first: emit_grid takes the grid point at te from it.  An
         * event at the segment's start keeps its exact state. */
        int inside = te < tret && te > s->t;
        if (inside && seg_dky(s, te, 0, s->yd) < 0)
            return fail(s, err, STSL_ESOLVER, te, "dense output failed");
        if (te > s->t)
            memcpy(s->ycur, inside ? NV_DATA_S(s->yd) : yb, (size_t)s->n * sizeof(double));
        if (s->n_ext && te > s->t && (rc = ext_interval(s, s->t, te, err))) return rc;
        if ((rc = emit_grid(s, te, 1, err))) return rc;
        s->t = te;
        if ((rc = progress_guard(s, te, err))) return rc;
        if (which >= 0) { /* the invariant found an event CVODE could not see */
            for (int i = 0; i < s->n_roots; i++)
                s->fired[i] = i == which;
            *h = HIT_GUARD;
            return STSL_OK;
        }
        if (flag == CV_ROOT_RETURN) {
            if (!s->erk) CVodeGetRootInfo(s->cv, s->rootsfound);
            for (int i = 0; i < s->n_roots; i++)
                s->fired[i] = i < s->desc.n_guards && s->rootsfound[i] != 0;
            *h = HIT_GUARD;
            return STSL_OK;
        }
        if (flag == CV_TSTOP_RETURN || tret >= tstop) {
            s->t = tstop;
            *h = HIT_TSTOP;
            return STSL_OK;
        }
    }
}

static double eval_guards(stsl_hsolver *s, double t, double *g)
{
    s->stats.guard_evals++;
    s->model->ops->guards(s->model->self, s->mode, t, s->ycur, g);
    return 0.0;
}

static double guard_at(double t, void *p)
{
    guard_fn *f = p;
    double g;
    one_guard(f->s, t, f->s->ycur, f->i, &g);
    return f->sign * g;
}

/* Root of guard i in [a, b] (values of opposite sign or zero at an end);
 * returns the upper end of the final bracket, where the guard has crossed. */
static double locate_root(stsl_hsolver *s, int i, double a, double b, double ga, double gb)
{
    if (gb == 0.0) return b;
    if (ga == 0.0) return a;
    guard_fn f = {s, i, 1.0, 0.0};
    gsl_function F = {guard_at, &f};
    return brent_root(s, &F, a, b);
}

/* Extremum of guard i inside [a, b] around the interior sample m, searched in
 * the direction towards zero (dir = +1: maximum of a negative guard).  Returns
 * the time where the guard has crossed zero, or NAN if it stays on its side. */
static double hidden_crossing(stsl_hsolver *s, int i, int dir, double a, double m, double b,
                              double ga, double gm, double gb)
{
    /* A tie gm == gb (a peak exactly halfway between two samples) brackets
     * nothing for the minimizer, which needs gm strictly nearer zero than
     * both ends: the point halfway between m and b does. */
    if (gm == gb) {
        double c = 0.5 * (m + b), *g = s->g_mid;
        eval_guards(s, c, g);
        if (!(dir * g[i] > dir * gm)) return NAN; /* a plateau: no peak to search */
        a = m;
        ga = gm;
        m = c;
        gm = g[i];
    }
    guard_fn f = {s, i, -(double)dir, 0.0};
    gsl_function F = {guard_at, &f};
    double fm = -dir * gm;
    /* At least one step: the tie's midpoint c may already have crossed,
     * and the root is then bracketed by the minimiser's next point. */
    if (minimise(s, &F, a, -dir * ga, b, -dir * gb, 0.0, 1, &m, &fm) < 1) return NAN;
    /* dir * g > 0: the guard crossed between a and m */
    return fm < 0.0 ? locate_root(s, i, a, m, ga, -dir * fm) : NAN;
}

/* Did guard i cross zero in its direction between ga and gb?  A directed
 * guard that sits exactly at zero where its segment starts counts as on
 * the near side (a stuck force at its band's edge that leaves).  A guard of
 * both directions (a load's sign) has no near side: at zero at the start
 * it is where the event that began the segment found it, and moving off
 * is no crossing (as CVODE, which masks a root at the start, treats it
 * when the mode is integrated).  Counting it fired it again at the
 * segment's start, every time: a load of sin(w t) on a slipping contact of
 * a body stuck to the ground ended in "Zeno behaviour" at t = 0. */
static int crosses(int dir, double ga, double gb, int at_start)
{
    at_start = at_start && dir != STSL_GUARD_BOTH;
    int up = (ga < 0.0 && gb >= 0.0) || (at_start && ga == 0.0 && gb > 0.0);
    int down = (ga > 0.0 && gb <= 0.0) || (at_start && ga == 0.0 && gb < 0.0);
    return (dir >= 0 && up) || (dir <= 0 && down);
}

/* Is the middle of three samples a local extremum on the near side of zero,
 * pointing towards it (so that a crossing may hide between the samples)?  A
 * tie with the later sample counts: the peak is then between the two. */
static int extremum_towards(int dir, double gp, double ga, double gb)
{
    if (dir >= 0 && gp < 0.0 && ga < 0.0 && gb < 0.0 && ga > gp && ga >= gb) return 1;
    if (dir <= 0 && gp > 0.0 && ga > 0.0 && gb > 0.0 && ga < gp && ga <= gb) return -1;
    return 0;
}

/* The earliest of the guards' crossings g_when (INFINITY: none), with
 * fired[] set for those within the roots' tolerance of it. */
static double fire_earliest(stsl_hsolver *s)
{
    const stsl_mode_desc *m = &s->desc;
    double first = INFINITY;
    for (int i = 0; i < m->n_guards; i++)
        if (s->g_when[i] < first) first = s->g_when[i];
    double tol = ROOT_TOL_REL * fmax(1.0, fabs(first));
    for (int i = 0; i < s->n_roots; i++)
        s->fired[i] = i < m->n_guards && isfinite(first) && s->g_when[i] <= first + tol;
    return first;
}

/* Earliest crossing of any guard between samples (ta, ga) and (tb, gb), with
 * the previous sample (tp, gp) when have_prev.  Sets fired[]; INFINITY if none. */
static double scan_window(stsl_hsolver *s, int have_prev, double tp, const double *gp, double ta,
                          const double *ga, double tb, const double *gb)
{
    const stsl_mode_desc *m = &s->desc;
    double *when = s->g_when;
    for (int i = 0; i < m->n_guards; i++) {
        int dir = m->guard_dir[i];
        when[i] = INFINITY;
        if (crosses(dir, ga[i], gb[i], ta == s->t_seg)) {
            when[i] = locate_root(s, i, ta, tb, ga[i], gb[i]);
        } else if (have_prev) {
            int side = extremum_towards(dir, gp[i], ga[i], gb[i]);
            if (side) {
                double r = hidden_crossing(s, i, side, tp, ta, tb, gp[i], ga[i], gb[i]);
                if (!isnan(r)) when[i] = r;
            }
        }
    }
    return fire_earliest(s);
}

/* A dip in the first window of a frozen segment, (ta, tb], which has no
 * earlier sample to show an extremum (scan_window): a guard that leaves
 * its start towards zero (its value at ta + RATE_OFFSET (tb - ta) nearer
 * zero, and no nearer at tb) is searched for a crossing in between.  A
 * body stuck to the ground, its stop to a swinging base 48 um from the
 * limit at the stick, had the base run 87 um into it and back within the
 * first window unseen (exit 0).  A guard at exactly zero at ta (where the
 * event left it) is not near-side (extremum_towards): no dip.  Sets
 * fired[] as scan_window does; INFINITY if none. */
static double start_dips(stsl_hsolver *s, double ta, const double *ga, double tb, const double *gb)
{
    const stsl_mode_desc *m = &s->desc;
    double ts = ta + RATE_OFFSET * (tb - ta), *gs = s->g_early, *when = s->g_when;
    eval_guards(s, ts, gs);
    for (int i = 0; i < m->n_guards; i++) {
        when[i] = INFINITY;
        int side = extremum_towards(m->guard_dir[i], ga[i], gs[i], gb[i]);
        if (side) {
            double r = hidden_crossing(s, i, side, ta, ts, tb, ga[i], gs[i], gb[i]);
            if (!isnan(r)) when[i] = r;
        }
    }
    return fire_earliest(s);
}

/* The mode invariant of a frozen mode at a sample tb where no guard crossed:
 * every crossing is located by scan_window, so a guard outside its mode
 * here started outside (a rounding-level touch, allowed while it does not
 * grow: g0 holds the values at the segment's start) and has moved further
 * out, which no event can resolve. */
static int frozen_invariant(stsl_hsolver *s, const double *g0, double tb, const double *gb,
                            stsl_error *err)
{
    const stsl_mode_desc *m = &s->desc;
    if (!all_finite(gb, m->n_guards))
        return fail(s, err, STSL_ESOLVER, tb, "a guard (force) is not finite");
    for (int i = 0; i < m->n_guards; i++) {
        double sign = -(double)m->guard_dir[i], qb = sign * gb[i];
        if (m->guard_dir[i] != STSL_GUARD_BOTH && qb < 0.0 && qb < fmin(sign * g0[i], 0.0)) {
            char what[160];
            snprintf(what, sizeof what,
                     "mode invariant violated: guard %d = %.17g outside the mode", i, gb[i]);
            return fail(s, err, STSL_ESOLVER, tb, what);
        }
    }
    return STSL_OK;
}

/* A frozen mode: the state stays put, the guards move with time.  Sample them
 * at the model's step bound and locate crossings without integrating. */
static int frozen_advance(stsl_hsolver *s, double tstop, hit *h, stsl_error *err)
{
    int ng = s->desc.n_guards;
    double *gp = s->g_prev, *ga = s->g_a, *gb = s->g_b, *g0 = s->g_0;
    size_t gsize = (size_t)s->n_roots * sizeof(double);
    double tp = s->t, ta = s->t;
    int have_prev = 0, rc;
    if (ng > 0) eval_guards(s, ta, ga);
    if (ng > 0) memcpy(g0, ga, gsize);
    for (;;) {
        double hmax = s->model->ops->max_step(s->model->self, s->mode, ta);
        double tb = (isfinite(hmax) && ta + hmax < tstop) ? ta + hmax : tstop;
        if (!(hmax > 0.0) || !(tb > ta))
            return fail(s, err, STSL_EMODEL, ta,
                        "step bound not positive or below time resolution");
        s->stats.steps++;
        int crc = cancelled(s, ta, err);
        if (crc) return crc;
        if (ng > 0) {
            eval_guards(s, tb, gb);
            double tr = scan_window(s, have_prev, tp, gp, ta, ga, tb, gb);
            if (!isfinite(tr) && !have_prev) tr = start_dips(s, ta, ga, tb, gb);
            if (isfinite(tr)) {
                rc = emit_grid(s, tr, 0, err);
                s->t = tr;
                *h = HIT_GUARD;
                return rc;
            }
            if ((rc = frozen_invariant(s, g0, tb, gb, err))) return rc;
        }
        if ((rc = emit_grid(s, tb >= tstop ? tstop : ta, 0, err))) return rc;
        if (tb >= tstop) {
            s->t = tstop;
            *h = HIT_TSTOP;
            return STSL_OK;
        }
        if ((rc = progress_guard(s, tb, err))) return rc;
        tp = ta;
        ta = tb;
        memcpy(gp, ga, gsize);
        memcpy(ga, gb, gsize);
        have_prev = 1;
    }
}

/* ---- events ------------------------------------------------------------------ */

/* `next` describes tr->mode. */
static int record_event(stsl_hsolver *s, const stsl_transition *tr, const stsl_mode_desc *next,
                        stsl_error *err)
{
    const double *ynew = s->ytmp;
    int before = s->desc.record, after = next->record;
    /* cols_a holds the outputs just before (computed by the caller). */
    s->model->ops->outputs(s->model->self, tr->mode, s->t, ynew, s->cols_b);
    stsl_event_rec ev = {s->t, tr->kind, before, after, s->cols_a, s->cols_b, tr->subject};
    int rc = stsl_sink_event(s->sink, &ev, err);
    if (!rc && !s->opts.grid_only) rc = stsl_sink_sample(s->sink, s->t, before, s->cols_a, err);
    if (!rc && !s->opts.grid_only) rc = stsl_sink_sample(s->sink, s->t, after, s->cols_b, err);
    if (rc) return rc;
    s->stats.events++;
    double same = SAME_INSTANT_REL * fmax(1.0, fabs(s->t));
    int at_once = stsl_event_log_push(&s->log, s->t, tr->kind, s->mode, tr->mode, ynew, s->n, same);
    if (at_once > s->opts.max_same_instant) {
        char what[128];
        snprintf(what, sizeof what, "Zeno behaviour: %d events at one instant", at_once);
        return fail(s, err, STSL_EZENO, s->t, what);
    }
    if (s->opts.max_events > 0 && s->stats.events > s->opts.max_events) {
        char what[160];
        snprintf(what, sizeof what, "more than simulation.max_events = %ld events",
                 s->opts.max_events);
        return fail(s, err, STSL_EMAXEVENTS, s->t, what);
    }
    return STSL_OK;
}

/* Ask the model what happens now, record the event(s), commit the new mode
 * and state only when the transition succeeded, and open the next segment. */
static int handle_event(stsl_hsolver *s, stsl_reason why, const int *fired, stsl_error *err)
{
    close_segment(s);
    stsl_mode_code before = s->mode;
    s->same_mode = 1;
    for (;;) {
        memcpy(s->ytmp, s->ycur, (size_t)s->n * sizeof(double));
        s->model->ops->outputs(s->model->self, s->mode, s->t, s->ycur, s->cols_a);
        stsl_transition tr = {s->mode, STSL_NO_EVENT, 0, 0};
        int rc =
            s->model->ops->transition(s->model->self, s->mode, why, fired, s->t, s->ytmp, &tr, err);
        if (rc) {
            char mname[64];
            name_mode((void *)s->model, s->mode, mname, sizeof mname);
            stsl_error_wrap(err, "transition failed at t = %.17g in mode %s", s->t, mname);
            return err ? err->code : STSL_EMODEL;
        }
        stsl_mode_desc next;
        if (describe_mode(s, tr.mode, &next))
            return fail(s, err, STSL_EMODEL, s->t, "transition chose an invalid mode");
        s->same_mode &= tr.mode == before && tr.kind == STSL_NO_EVENT && why == STSL_REASON_GUARD;
        if (tr.kind != STSL_NO_EVENT) rc = record_event(s, &tr, &next, err);
        /* The state after the event (a jump at an impact), also when recording it failed. */
        memcpy(s->ycur, s->ytmp, (size_t)s->n * sizeof(double));
        set_mode(s, tr.mode, &next);
        ext_point(s, s->ycur);
        if (rc) return rc;
        if (!tr.again) break;
        why = STSL_REASON_RECHECK;
        fired = NULL;
    }
    return open_segment(s, err);
}

/* ---- public driver ----------------------------------------------------------- */

int stsl_hsolver_start(stsl_hsolver *s, double t0, const double *y0, stsl_sink *sink,
                       stsl_error *err)
{
    clock_gettime(CLOCK_MONOTONIC, &s->wall0);
    memset(&s->stats, 0, sizeof s->stats);
    s->stats.n_modes = s->model->layout->n_modes; /* the numbers modes are recorded as */
    ext_start(s);
    stsl_event_log_init(&s->log);
    s->sink = sink;
    s->t = s->t_seg = t0;
    s->t_start = s->pg_t0 = t0;
    s->pg_steps = s->pg_n0 = 0;
    s->pg_next = STALL_WINDOW;
    s->done = 0;
    s->started = 1;
    s->out_k = s->opts.output_step > 0 ? (long)ceil(t0 / s->opts.output_step - 1e-9) : 0;
    if (s->opts.n_output_times > 0)
        for (s->out_k = 0;
             s->out_k < s->opts.n_output_times && s->opts.output_times[s->out_k] < t0;)
            s->out_k++;
    if (!(s->opts.t_end > t0))
        return stsl_error_set(err, STSL_EINPUT, "t_end (%g) must be after the start time (%g)",
                              s->opts.t_end, t0);
    memcpy(s->ycur, y0, (size_t)s->n * sizeof(double));
    for (int i = 0; i < s->n; i++)
        if (!isfinite(y0[i]))
            return stsl_error_set(err, STSL_EINPUT, "initial state component %d is not finite", i);
    ext_point(s, s->ycur); /* y0, before the initial transition */
    int rc = stsl_sink_begin(sink, s->model->layout, err);
    if (rc) return rc;
    s->sink_begun = 1;
    /* The initial mode: the model decides from (t0, y0) alone. */
    s->mode = STSL_NO_MODE;
    memcpy(s->ytmp, s->ycur, (size_t)s->n * sizeof(double));
    stsl_transition tr = {STSL_NO_MODE, STSL_NO_EVENT, 0, 0};
    rc = s->model->ops->transition(s->model->self, STSL_NO_MODE, STSL_REASON_INIT, NULL, t0,
                                   s->ytmp, &tr, err);
    if (rc) return stsl_error_wrap(err, "choosing the initial mode");
    stsl_mode_desc first;
    if (describe_mode(s, tr.mode, &first))
        return fail(s, err, STSL_EMODEL, t0, "initial transition chose an invalid mode");
    set_mode(s, tr.mode, &first);
    if (tr.kind != STSL_NO_EVENT) { /* e.g. starting against a stop: an impact at t0 */
        s->model->ops->outputs(s->model->self, s->mode, t0, s->ycur, s->cols_a);
        if ((rc = record_event(s, &tr, &first, err))) return rc;
    }
    memcpy(s->ycur, s->ytmp, (size_t)s->n * sizeof(double));
    ext_point(s, s->ycur);
    if (!has_grid(s) && !s->opts.grid_only && (rc = emit(s, t0, s->ycur, err))) return rc;
    if ((rc = emit_grid(s, t0, 0, err))) return rc;
    if (tr.again) return handle_event(s, STSL_REASON_RECHECK, NULL, err);
    return open_segment(s, err);
}

static void progress(stsl_hsolver *s, double t)
{
    if (!s->opts.progress) return;
    double w = now_seconds(&s->wall0);
    if (w - s->last_progress < PROGRESS_PERIOD) return;
    s->last_progress = w;
    s->opts.progress(s->opts.progress_ctx, t, s->opts.t_end);
}

int stsl_hsolver_step(stsl_hsolver *s, stsl_error *err)
{
    if (!s->started) return stsl_error_set(err, STSL_EINPUT, "solver not started");
    if (s->done) return STSL_OK;
    double tstop = stop_time(s);
    hit h = HIT_TSTOP;
    int rc = cancelled(s, s->t, err);
    if (!rc && tstop > s->t)
        rc = s->desc.frozen ? frozen_advance(s, tstop, &h, err) : cvode_advance(s, tstop, &h, err);
    if (rc) return rc;
    progress(s, s->t);
    if (h == HIT_TSTOP && s->t >= s->opts.t_end) {
        close_segment(s);
        s->done = 1;
        if (!s->opts.grid_only && (s->last_sample < s->opts.t_end || !has_grid(s)))
            rc = emit(s, s->opts.t_end, s->ycur, err);
        return rc;
    }
    return handle_event(s, h == HIT_GUARD ? STSL_REASON_GUARD : STSL_REASON_TIME,
                        h == HIT_GUARD ? s->fired : NULL, err);
}

int stsl_hsolver_done(const stsl_hsolver *s)
{
    return s->done;
}

/* Close the last segment and take the wall time: the statistics are final. */
static void close_run(stsl_hsolver *s)
{
    if (!s->done) close_segment(s);
    ext_close(s);
    s->stats.wall_seconds = now_seconds(&s->wall0);
}

int stsl_hsolver_run(stsl_hsolver *s, double t0, const double *y0, stsl_sink *sink, stsl_error *err)
{
    int rc = stsl_hsolver_start(s, t0, y0, sink, err);
    while (rc == STSL_OK && !s->done)
        rc = stsl_hsolver_step(s, err);
    close_run(s);
    if (!s->sink_begun) return rc;
    return stsl_sink_end_run(s->sink, &s->stats, rc, s->done, err);
}

double stsl_hsolver_time(const stsl_hsolver *s)
{
    return s->t;
}
stsl_mode_code stsl_hsolver_mode(const stsl_hsolver *s)
{
    return s->mode;
}
const double *stsl_hsolver_state(const stsl_hsolver *s)
{
    return s->ycur;
}
const stsl_stats *stsl_hsolver_stats(const stsl_hsolver *s)
{
    return &s->stats;
}
