/* hybrid.c - the hybrid integrator: CVODE segments with rootfinding for
 * ordinary modes, guard scanning with Brent's method for frozen modes.
 * Every SUNDIALS call of the project lives in this file. */
#include "solver/hybrid.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cvode/cvode.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_roots.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "solver/event_log.h"
#include "solver/gsl_setup.h"

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
/* Seconds of wall time between two progress callbacks. */
#define PROGRESS_PERIOD 0.5

typedef enum hit { HIT_TSTOP = 0, HIT_GUARD = 1 } hit;

struct stsl_hsolver {
    const stsl_hmodel *model;
    stsl_hsolver_opts opts;
    int n, n_roots;

    SUNContext ctx;
    N_Vector y;  /* CVODE's state */
    N_Vector yd; /* scratch for dense output */
    void *cv;
    SUNNonlinearSolver nls; /* Adams: fixed-point iteration */
    SUNMatrix J;            /* BDF: dense Jacobian and its solver */
    SUNLinearSolver ls;
    int cv_active;    /* a CVODE segment is under way (counters valid) */
    char cv_msg[512]; /* last message of CVODE's error handler */
    gsl_root_fsolver *root;
    gsl_min_fminimizer *minz;

    double t, t_seg; /* current time, start of the current segment */
    int mode;
    double ycur[STSL_MAX_STATE], ytmp[STSL_MAX_STATE];
    int fired[STSL_MAX_GUARDS];
    int rootsfound[STSL_MAX_GUARDS];

    stsl_sink *sink;
    double *cols_a, *cols_b;
    long out_k;         /* index of the next output grid point */
    double last_sample; /* time of the last grid sample emitted */
    stsl_stats stats;
    stsl_event_log log;
    struct timespec wall0;
    double last_progress;
    int started, done, sink_begun;
};

/* ---- helpers ------------------------------------------------------------ */

static double now_seconds(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}

static const stsl_mode_desc *cur_mode(const stsl_hsolver *s)
{
    return &s->model->modes[s->mode];
}

static const char *mode_name(const stsl_hsolver *s, int mode)
{
    return (mode >= 0 && mode < s->model->n_modes) ? s->model->modes[mode].name : "none";
}

/* "t = 1.5 s, mode SLIP_POS, state (x, v) = (0.1, -0.2), last events: ..." */
static void describe_point(const stsl_hsolver *s, double t, char *buf, size_t n)
{
    int w = snprintf(buf, n, "t = %.17g %s, mode %s, state ", t, s->model->layout->time_units,
                     mode_name(s, s->mode));
    size_t used = w > 0 ? (size_t)w : 0;
    const char *const *names = s->model->state_names;
    for (int i = 0; i < s->n && used < n; i++) {
        w = snprintf(buf + used, n - used, "%s%s = %.17g", i ? ", " : "", names ? names[i] : "y",
                     s->ycur[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    char evs[1024];
    const char *mn[STSL_MAX_MODES];
    for (int i = 0; i < s->model->n_modes; i++)
        mn[i] = s->model->modes[i].name;
    stsl_event_log_format(&s->log, s->model->layout->kind_names, mn, evs, sizeof evs);
    if (used < n) snprintf(buf + used, n - used, "; last events: %s", evs);
}

static int fail(stsl_hsolver *s, stsl_error *err, stsl_status code, double t, const char *what)
{
    char where[1536];
    describe_point(s, t, where, sizeof where);
    return stsl_error_set(err, code, "%s at %s", what, where);
}

/* ---- CVODE callbacks ------------------------------------------------------ */

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
    stsl_hsolver *s = ud;
    s->stats.rhs_evals++;
    return s->model->ops->rhs(s->model->self, s->mode, t, N_VGetArrayPointer(y),
                              N_VGetArrayPointer(ydot));
}

/* Unused root slots (modes with fewer guards than the most) are a constant
 * 1: they never cross. */
static int cv_roots(sunrealtype t, N_Vector y, sunrealtype *g, void *ud)
{
    stsl_hsolver *s = ud;
    const stsl_mode_desc *m = cur_mode(s);
    s->stats.guard_evals++;
    int rc = m->n_guards > 0
                 ? s->model->ops->guards(s->model->self, s->mode, t, N_VGetArrayPointer(y), g)
                 : 0;
    for (int i = m->n_guards; i < s->n_roots; i++)
        g[i] = 1.0;
    return rc;
}

static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *ud, N_Vector t1,
                  N_Vector t2, N_Vector t3)
{
    (void)fy;
    (void)t1;
    (void)t2;
    (void)t3;
    stsl_hsolver *s = ud;
    double rows[STSL_MAX_STATE * STSL_MAX_STATE];
    s->stats.jac_evals++;
    int rc = s->model->ops->jac(s->model->self, s->mode, t, N_VGetArrayPointer(y), rows);
    for (int i = 0; i < s->n; i++)
        for (int j = 0; j < s->n; j++)
            SM_ELEMENT_D(J, i, j) = rows[i * s->n + j];
    return rc;
}

static void cv_errhandler(int code, const char *module, const char *function, char *msg, void *ud)
{
    stsl_hsolver *s = ud;
    snprintf(s->cv_msg, sizeof s->cv_msg, "%s (%s, %s, flag %d)", msg, module, function, code);
}

/* ---- create / free -------------------------------------------------------- */

static int check_model(const stsl_hmodel *m, stsl_error *err)
{
    if (!m || !m->ops || !m->modes || !m->layout)
        return stsl_error_set(err, STSL_EINPUT, "hybrid model is incomplete");
    if (m->n_state < 1 || m->n_state > STSL_MAX_STATE)
        return stsl_error_set(err, STSL_EINPUT, "state size %d outside [1, %d]", m->n_state,
                              STSL_MAX_STATE);
    if (m->n_modes < 1 || m->n_modes > STSL_MAX_MODES)
        return stsl_error_set(err, STSL_EINPUT, "mode count %d outside [1, %d]", m->n_modes,
                              STSL_MAX_MODES);
    for (int i = 0; i < m->n_modes; i++)
        if (m->modes[i].n_guards < 0 || m->modes[i].n_guards > STSL_MAX_GUARDS)
            return stsl_error_set(err, STSL_EINPUT, "mode %s has %d guards (at most %d)",
                                  m->modes[i].name, m->modes[i].n_guards, STSL_MAX_GUARDS);
    return STSL_OK;
}

static int check_opts(const stsl_hsolver_opts *o, stsl_error *err)
{
    if (!(o->rtol > 0 && o->atol > 0))
        return stsl_error_set(err, STSL_EINPUT, "tolerances must be > 0 (rtol %g, atol %g)",
                              o->rtol, o->atol);
    if (!(o->output_step >= 0) || !isfinite(o->t_end))
        return stsl_error_set(err, STSL_EINPUT, "bad output_step %g or t_end %g", o->output_step,
                              o->t_end);
    return STSL_OK;
}

static int setup_cvode(stsl_hsolver *s, stsl_error *err)
{
    if (SUNContext_Create(NULL, &s->ctx)) goto fail;
    s->y = N_VNew_Serial(s->n, s->ctx);
    s->yd = N_VNew_Serial(s->n, s->ctx);
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
    if (CVodeSStolerances(s->cv, s->opts.rtol, s->opts.atol)) goto fail;
    if (CVodeSetUserData(s->cv, s)) goto fail;
    if (bdf) {
        s->J = SUNDenseMatrix(s->n, s->n, s->ctx);
        s->ls = s->J ? SUNLinSol_Dense(s->y, s->J, s->ctx) : NULL;
        if (!s->ls || CVodeSetLinearSolver(s->cv, s->ls, s->J)) goto fail;
        if (s->model->ops->jac && CVodeSetJacFn(s->cv, cv_jac)) goto fail;
    } else {
        s->nls = SUNNonlinSol_FixedPoint(s->y, 0, s->ctx);
        if (!s->nls || CVodeSetNonlinearSolver(s->cv, s->nls)) goto fail;
    }
    if (CVodeRootInit(s->cv, s->n_roots, cv_roots)) goto fail;
    if (CVodeSetNoInactiveRootWarn(s->cv)) goto fail;
    /* One-step mode returns after every step; the cap only matters for the
     * internal loop to a stop time. */
    if (CVodeSetMaxNumSteps(s->cv, 100000)) goto fail;
    return STSL_OK;
fail:
    return stsl_error_set(err, STSL_ESOLVER, "could not set up CVODE: %s",
                          s->cv_msg[0] ? s->cv_msg : "allocation or setup failed");
}

stsl_hsolver *stsl_hsolver_create(const stsl_hmodel *model, const stsl_hsolver_opts *opts,
                                  stsl_error *err)
{
    if (check_model(model, err) || check_opts(opts, err)) return NULL;
    stsl_hsolver *s = calloc(1, sizeof *s);
    if (!s) {
        stsl_error_set(err, STSL_ENOMEM, "out of memory creating the solver");
        return NULL;
    }
    s->model = model;
    s->opts = *opts;
    if (s->opts.max_same_instant <= 0) s->opts.max_same_instant = DEFAULT_SAME_INSTANT;
    s->n = model->n_state;
    s->n_roots = 1;
    for (int i = 0; i < model->n_modes; i++)
        if (model->modes[i].n_guards > s->n_roots) s->n_roots = model->modes[i].n_guards;
    s->mode = -1;
    stsl_gsl_setup(); /* GSL reports errors as codes, never aborts (once per process) */
    s->root = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    s->minz = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    int nc = model->layout->n_cols > 0 ? model->layout->n_cols : 1;
    s->cols_a = calloc((size_t)nc, sizeof(double));
    s->cols_b = calloc((size_t)nc, sizeof(double));
    if (!s->root || !s->minz || !s->cols_a || !s->cols_b) {
        stsl_error_set(err, STSL_ENOMEM, "out of memory creating the solver");
        goto err;
    }
    if (setup_cvode(s, err)) goto err;
    stsl_event_log_init(&s->log);
    return s;
err:
    stsl_hsolver_free(s);
    return NULL;
}

void stsl_hsolver_free(stsl_hsolver *s)
{
    if (!s) return;
    if (s->cv) CVodeFree(&s->cv);
    if (s->nls) SUNNonlinSolFree(s->nls);
    if (s->ls) SUNLinSolFree(s->ls);
    if (s->J) SUNMatDestroy(s->J);
    if (s->y) N_VDestroy(s->y);
    if (s->yd) N_VDestroy(s->yd);
    if (s->ctx) SUNContext_Free(&s->ctx);
    if (s->root) gsl_root_fsolver_free(s->root);
    if (s->minz) gsl_min_fminimizer_free(s->minz);
    free(s->cols_a);
    free(s->cols_b);
    free(s);
}

/* ---- output --------------------------------------------------------------- */

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

static int emit(stsl_hsolver *s, double t, int mode, const double *y, stsl_error *err)
{
    s->model->ops->outputs(s->model->self, mode, t, y, s->cols_a);
    return stsl_sink_sample(s->sink, t, mode, s->cols_a, err);
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
            if (CVodeGetDky(s->cv, tg, 0, s->yd) < 0)
                return fail(s, err, STSL_ESOLVER, tg, "dense output failed");
            y = N_VGetArrayPointer(s->yd);
        }
        int rc = emit(s, tg, s->mode, y, err);
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
        CVodeGetNumSteps(s->cv, &nst);
        s->stats.steps += nst;
        s->cv_active = 0;
    }
    if (s->mode >= 0 && s->mode < STSL_MAX_MODES) s->stats.mode_time[s->mode] += s->t - s->t_seg;
}

static double stop_time(const stsl_hsolver *s)
{
    double te = s->model->ops->next_time_event(s->model->self, s->t);
    return te < s->opts.t_end ? te : s->opts.t_end;
}

static int open_segment(stsl_hsolver *s, stsl_error *err)
{
    s->t_seg = s->t;
    s->stats.segments++;
    if (cur_mode(s)->frozen) return STSL_OK;
    memcpy(N_VGetArrayPointer(s->y), s->ycur, (size_t)s->n * sizeof(double));
    int dirs[STSL_MAX_GUARDS] = {0};
    for (int i = 0; i < cur_mode(s)->n_guards; i++)
        dirs[i] = cur_mode(s)->guard_dir[i];
    if (CVodeReInit(s->cv, s->t, s->y) || CVodeSetRootDirection(s->cv, dirs) ||
        CVodeSetStopTime(s->cv, stop_time(s)))
        return fail(s, err, STSL_ESOLVER, s->t, "could not restart CVODE");
    s->cv_active = 1;
    return STSL_OK;
}

static int cvode_advance(stsl_hsolver *s, double tstop, hit *h, stsl_error *err)
{
    for (;;) {
        double hmax = s->model->ops->max_step(s->model->self, s->mode, s->t);
        CVodeSetMaxStep(s->cv, isfinite(hmax) ? hmax : 0.0);
        double tret = s->t;
        s->cv_msg[0] = '\0';
        int flag = CVode(s->cv, tstop, s->y, &tret, CV_ONE_STEP);
        if (flag < 0) {
            char what[768];
            snprintf(what, sizeof what, "CVODE failed (%s: %s)", CVodeGetReturnFlagName(flag),
                     s->cv_msg[0] ? s->cv_msg : "no message");
            return fail(s, err, STSL_ESOLVER, s->t, what);
        }
        /* ycur first: emit_grid takes the grid point at tret from it. */
        memcpy(s->ycur, N_VGetArrayPointer(s->y), (size_t)s->n * sizeof(double));
        int rc = emit_grid(s, tret, 1, err);
        if (rc) return rc;
        s->t = tret;
        if (flag == CV_ROOT_RETURN) {
            CVodeGetRootInfo(s->cv, s->rootsfound);
            for (int i = 0; i < STSL_MAX_GUARDS; i++)
                s->fired[i] = i < cur_mode(s)->n_guards && s->rootsfound[i] != 0;
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

/* One guard of a frozen mode as a GSL function of time. */
typedef struct guard_fn {
    stsl_hsolver *s;
    int i;
    double sign; /* -1 to turn a maximum search into GSL's minimum search */
} guard_fn;

static double eval_guards(stsl_hsolver *s, double t, double *g)
{
    s->stats.guard_evals++;
    s->model->ops->guards(s->model->self, s->mode, t, s->ycur, g);
    return 0.0;
}

static double guard_at(double t, void *p)
{
    guard_fn *f = p;
    double g[STSL_MAX_GUARDS];
    eval_guards(f->s, t, g);
    return f->sign * g[f->i];
}

/* Root of guard i in [a, b] (values of opposite sign or zero at an end);
 * returns the upper end of the final bracket, where the guard has crossed. */
static double locate_root(stsl_hsolver *s, int i, double a, double b, double ga, double gb)
{
    if (gb == 0.0) return b;
    if (ga == 0.0) return a;
    guard_fn f = {s, i, 1.0};
    gsl_function F = {guard_at, &f};
    if (gsl_root_fsolver_set(s->root, &F, a, b) != GSL_SUCCESS) return b;
    double tol = ROOT_TOL_REL * fmax(1.0, fabs(b));
    for (int it = 0; it < ROOT_MAX_ITER; it++) {
        if (gsl_root_fsolver_iterate(s->root) != GSL_SUCCESS) break;
        double lo = gsl_root_fsolver_x_lower(s->root), hi = gsl_root_fsolver_x_upper(s->root);
        if (hi - lo <= tol) break;
    }
    return gsl_root_fsolver_x_upper(s->root);
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
        double c = 0.5 * (m + b), g[STSL_MAX_GUARDS];
        eval_guards(s, c, g);
        if (!(dir * g[i] > dir * gm)) return NAN; /* a plateau: no peak to search */
        a = m;
        ga = gm;
        m = c;
        gm = g[i];
    }
    guard_fn f = {s, i, -(double)dir};
    gsl_function F = {guard_at, &f};
    if (gsl_min_fminimizer_set_with_values(s->minz, &F, m, -dir * gm, a, -dir * ga, b, -dir * gb) !=
        GSL_SUCCESS)
        return NAN;
    double tol = ROOT_TOL_REL * fmax(1.0, fabs(b));
    for (int it = 0; it < MIN_MAX_ITER; it++) {
        if (gsl_min_fminimizer_iterate(s->minz) != GSL_SUCCESS) break;
        double x = gsl_min_fminimizer_x_minimum(s->minz);
        double fx = gsl_min_fminimizer_f_minimum(s->minz);
        if (fx < 0.0) /* dir * g > 0: the guard crossed between a and x */
            return locate_root(s, i, a, x, ga, -dir * fx);
        double lo = gsl_min_fminimizer_x_lower(s->minz), hi = gsl_min_fminimizer_x_upper(s->minz);
        if (hi - lo <= tol) break;
    }
    return NAN;
}

/* Did guard i cross zero in its direction between ga and gb?  A guard that
 * sits exactly at zero where its segment starts counts as on the near side. */
static int crosses(int dir, double ga, double gb, int at_start)
{
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

/* Earliest crossing of any guard between samples (ta, ga) and (tb, gb), with
 * the previous sample (tp, gp) when have_prev.  Sets fired[]; INFINITY if none. */
static double scan_window(stsl_hsolver *s, int have_prev, double tp, const double *gp, double ta,
                          const double *ga, double tb, const double *gb)
{
    const stsl_mode_desc *m = cur_mode(s);
    double when[STSL_MAX_GUARDS];
    double first = INFINITY;
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
        if (when[i] < first) first = when[i];
    }
    double tol = ROOT_TOL_REL * fmax(1.0, fabs(first));
    for (int i = 0; i < STSL_MAX_GUARDS; i++)
        s->fired[i] = i < m->n_guards && isfinite(first) && when[i] <= first + tol;
    return first;
}

/* A frozen mode: the state stays put, the guards move with time.  Sample them
 * at the model's step bound and locate crossings without integrating. */
static int frozen_advance(stsl_hsolver *s, double tstop, hit *h, stsl_error *err)
{
    int ng = cur_mode(s)->n_guards;
    double gp[STSL_MAX_GUARDS], ga[STSL_MAX_GUARDS], gb[STSL_MAX_GUARDS];
    double tp = s->t, ta = s->t;
    int have_prev = 0;
    if (ng > 0) eval_guards(s, ta, ga);
    for (;;) {
        double hmax = s->model->ops->max_step(s->model->self, s->mode, ta);
        double tb = (isfinite(hmax) && ta + hmax < tstop) ? ta + hmax : tstop;
        if (!(hmax > 0.0) || !(tb > ta))
            return fail(s, err, STSL_EMODEL, ta,
                        "step bound not positive or below time resolution");
        s->stats.steps++;
        if (ng > 0) {
            eval_guards(s, tb, gb);
            double tr = scan_window(s, have_prev, tp, gp, ta, ga, tb, gb);
            if (isfinite(tr)) {
                int rc = emit_grid(s, tr, 0, err);
                s->t = tr;
                *h = HIT_GUARD;
                return rc;
            }
        }
        int rc = emit_grid(s, tb >= tstop ? tstop : ta, 0, err);
        if (rc) return rc;
        if (tb >= tstop) {
            s->t = tstop;
            *h = HIT_TSTOP;
            return STSL_OK;
        }
        tp = ta;
        ta = tb;
        memcpy(gp, ga, sizeof ga);
        memcpy(ga, gb, sizeof gb);
        have_prev = 1;
    }
}

/* ---- events ------------------------------------------------------------------ */

static int record_event(stsl_hsolver *s, const stsl_transition *tr, stsl_error *err)
{
    const double *ynew = s->ytmp;
    /* cols_a holds the outputs just before (computed by the caller). */
    s->model->ops->outputs(s->model->self, tr->mode, s->t, ynew, s->cols_b);
    stsl_event_rec ev = {s->t, tr->kind, s->mode, tr->mode, s->cols_a, s->cols_b};
    int rc = stsl_sink_event(s->sink, &ev, err);
    if (!rc && !s->opts.grid_only) rc = stsl_sink_sample(s->sink, s->t, s->mode, s->cols_a, err);
    if (!rc && !s->opts.grid_only) rc = stsl_sink_sample(s->sink, s->t, tr->mode, s->cols_b, err);
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
    for (;;) {
        memcpy(s->ytmp, s->ycur, (size_t)s->n * sizeof(double));
        s->model->ops->outputs(s->model->self, s->mode, s->t, s->ycur, s->cols_a);
        stsl_transition tr = {s->mode, STSL_NO_EVENT, 0};
        int rc =
            s->model->ops->transition(s->model->self, s->mode, why, fired, s->t, s->ytmp, &tr, err);
        if (rc) {
            stsl_error_wrap(err, "transition failed at t = %.17g in mode %s", s->t,
                            mode_name(s, s->mode));
            return err ? err->code : STSL_EMODEL;
        }
        if (tr.mode < 0 || tr.mode >= s->model->n_modes)
            return fail(s, err, STSL_EMODEL, s->t, "transition chose an invalid mode");
        if (tr.kind != STSL_NO_EVENT && (rc = record_event(s, &tr, err))) {
            memcpy(s->ycur, s->ytmp, (size_t)s->n * sizeof(double));
            s->mode = tr.mode;
            return rc;
        }
        memcpy(s->ycur, s->ytmp, (size_t)s->n * sizeof(double));
        s->mode = tr.mode;
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
    s->stats.n_modes = s->model->n_modes;
    stsl_event_log_init(&s->log);
    s->sink = sink;
    s->t = s->t_seg = t0;
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
    int rc = stsl_sink_begin(sink, s->model->layout, err);
    if (rc) return rc;
    s->sink_begun = 1;
    /* The initial mode: the model decides from (t0, y0) alone. */
    s->mode = 0;
    memcpy(s->ytmp, s->ycur, (size_t)s->n * sizeof(double));
    stsl_transition tr = {0, STSL_NO_EVENT, 0};
    rc = s->model->ops->transition(s->model->self, -1, STSL_REASON_INIT, NULL, t0, s->ytmp, &tr,
                                   err);
    if (rc) return stsl_error_wrap(err, "choosing the initial mode");
    if (tr.mode < 0 || tr.mode >= s->model->n_modes)
        return fail(s, err, STSL_EMODEL, t0, "initial transition chose an invalid mode");
    s->mode = tr.mode;
    if (tr.kind != STSL_NO_EVENT) { /* e.g. starting against a stop: an impact at t0 */
        s->model->ops->outputs(s->model->self, s->mode, t0, s->ycur, s->cols_a);
        if ((rc = record_event(s, &tr, err))) return rc;
    }
    memcpy(s->ycur, s->ytmp, (size_t)s->n * sizeof(double));
    if (!has_grid(s) && !s->opts.grid_only && (rc = emit(s, t0, s->mode, s->ycur, err))) return rc;
    if ((rc = emit_grid(s, t0, 0, err))) return rc;
    if (tr.again) return handle_event(s, STSL_REASON_RECHECK, NULL, err);
    return open_segment(s, err);
}

static void progress(stsl_hsolver *s)
{
    if (!s->opts.progress) return;
    double w = now_seconds(&s->wall0);
    if (w - s->last_progress < PROGRESS_PERIOD) return;
    s->last_progress = w;
    s->opts.progress(s->opts.progress_ctx, s->t, s->opts.t_end);
}

int stsl_hsolver_step(stsl_hsolver *s, stsl_error *err)
{
    if (!s->started) return stsl_error_set(err, STSL_EINPUT, "solver not started");
    if (s->done) return STSL_OK;
    double tstop = stop_time(s);
    hit h = HIT_TSTOP;
    int rc = STSL_OK;
    if (tstop > s->t)
        rc = cur_mode(s)->frozen ? frozen_advance(s, tstop, &h, err)
                                 : cvode_advance(s, tstop, &h, err);
    if (rc) return rc;
    progress(s);
    if (h == HIT_TSTOP && s->t >= s->opts.t_end) {
        close_segment(s);
        s->done = 1;
        if (!s->opts.grid_only && (s->last_sample < s->opts.t_end || !has_grid(s)))
            rc = emit(s, s->opts.t_end, s->mode, s->ycur, err);
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
    s->stats.wall_seconds = now_seconds(&s->wall0);
}

int stsl_hsolver_finish(stsl_hsolver *s, int status, const char *message, stsl_error *err)
{
    close_run(s);
    int complete = status == STSL_OK && s->done;
    if (!s->sink_begun) return STSL_OK;
    return stsl_sink_end(s->sink, &s->stats, complete,
                         complete ? "" : (message ? message : "run did not reach t_end"), err);
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
int stsl_hsolver_mode(const stsl_hsolver *s)
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
