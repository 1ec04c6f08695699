/* verify.c - the check run and the comparison behind simulation.verify. */
#include "run/verify.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/modes.h"
#include "run/run.h"

/* The check run's rtol is the run's / VERIFY_FACTOR: its error is then
 * about 1 % of the run's, so the difference is the run's error. */
#define VERIFY_FACTOR 100.0
/* The smallest rtol the check run uses: the configuration's own lower
 * bound (simulation.rtol >= 1e-14).  Below it CVODE's steps shrink toward
 * round-off (weights of 1e-16 relative cannot be met in double) without
 * the results getting better: the event times are then limited by the
 * root location itself, see VERIFY_ROOT_LIMIT. */
#define STSL_VERIFY_RTOL_MIN 1e-14
/* An event time is located by CVODE to ttol = 100 uround (|t| + |h|) of
 * the computed solution, and the difference of two runs says nothing below
 * that: the estimate of an event's time error is at least
 * VERIFY_ROOT_LIMIT |t|. */
#define VERIFY_ROOT_LIMIT (100.0 * DBL_EPSILON)

static const char *const MODE_NAMES[] = {"off", "on", "strict", NULL};

const char *const *stsl_verify_mode_names(void)
{
    return MODE_NAMES;
}

void stsl_verify_tolerances(double rtol, double atol, double *rtol_check, double *atol_check)
{
    *rtol_check = fmax(rtol / VERIFY_FACTOR, STSL_VERIFY_RTOL_MIN);
    *atol_check = atol > 0.0 ? atol / VERIFY_FACTOR : 0.0;
}

/* ---- a recorder of events and the last sample, wrapping another sink ---- */

typedef struct rec_event {
    double t;
    int kind, mode_after, subject;
} rec_event;

/* The columns compared: x and v of each body (a system's groups x and v,
 * member by member; the element's columns x and v). */
typedef struct rec_cols {
    int n_cols; /* the layout's */
    int nb;     /* bodies */
    int *cx, *cv;
} rec_cols;

typedef struct recorder {
    stsl_sink *inner;             /* borrowed; NULL: record only */
    const struct recorder *check; /* the check run's record (the wrapping recorder) */
    rec_cols c;
    rec_event *ev;
    double *ev_val; /* 2 nb values per event: x then v of every body just after it */
    long n, cap;
    double t_last;
    double *last;       /* 2 nb: the last sample's */
    double *err_cols;   /* n_cols: the estimate per column (filled at end when check != NULL) */
    stsl_stats verdict; /* the comparison (filled at end when check != NULL) */
} recorder;

static void rec_free(recorder *r)
{
    free(r->c.cx);
    free(r->c.cv);
    free(r->ev);
    free(r->ev_val);
    free(r->last);
    free(r->err_cols);
}

/* The x and v columns of `l`, body by body. */
static int find_cols(const stsl_layout *l, rec_cols *c)
{
    int gx = stsl_layout_find_group(l, "x"), gv = stsl_layout_find_group(l, "v");
    c->n_cols = l->n_cols;
    c->nb = gx >= 0 && gv >= 0 ? l->groups[gx].width
                               : (stsl_layout_find(l, "x") >= 0 && stsl_layout_find(l, "v") >= 0);
    if (gx >= 0 && gv >= 0 && l->groups[gv].width != c->nb) c->nb = 0;
    c->cx = malloc(sizeof *c->cx * (size_t)(c->nb + 1));
    c->cv = malloc(sizeof *c->cv * (size_t)(c->nb + 1));
    if (!c->cx || !c->cv) return -1;
    for (int b = 0; b < c->nb; b++) {
        c->cx[b] = gx >= 0 ? l->groups[gx].first + b : stsl_layout_find(l, "x");
        c->cv[b] = gv >= 0 ? l->groups[gv].first + b : stsl_layout_find(l, "v");
    }
    return 0;
}

static void take_values(const recorder *r, const double *cols, double *to)
{
    for (int b = 0; b < r->c.nb; b++) {
        to[b] = cols[r->c.cx[b]];
        to[r->c.nb + b] = cols[r->c.cv[b]];
    }
}

static int rec_begin(void *self, const stsl_layout *layout, stsl_error *err)
{
    recorder *r = self;
    if (find_cols(layout, &r->c) ||
        !(r->last = malloc(sizeof *r->last * (size_t)(2 * r->c.nb + 1))) ||
        !(r->err_cols = malloc(sizeof *r->err_cols * (size_t)(layout->n_cols + 1))))
        return stsl_error_set(err, STSL_ENOMEM, "out of memory for the verified run's record");
    return r->inner ? stsl_sink_begin(r->inner, layout, err) : STSL_OK;
}

static int rec_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    recorder *r = self;
    r->t_last = t;
    take_values(r, cols, r->last);
    return r->inner ? stsl_sink_sample(r->inner, t, mode, cols, err) : STSL_OK;
}

static int rec_event_fn(void *self, const stsl_event_rec *e, stsl_error *err)
{
    recorder *r = self;
    size_t w = (size_t)(2 * r->c.nb);
    if (r->n == r->cap) {
        long cap = r->cap ? 2 * r->cap : 64;
        rec_event *p = realloc(r->ev, (size_t)cap * sizeof *p);
        if (p) r->ev = p;
        double *q = p ? realloc(r->ev_val, (size_t)cap * (w + 1) * sizeof *q) : NULL;
        if (!q) return stsl_error_set(err, STSL_ENOMEM, "out of memory recording events");
        r->ev_val = q;
        r->cap = cap;
    }
    take_values(r, e->after, r->ev_val + (size_t)r->n * w);
    r->ev[r->n++] = (rec_event){e->t, e->kind, e->mode_after, e->subject};
    return r->inner ? stsl_sink_event(r->inner, e, err) : STSL_OK;
}

/* Events paired by order must agree in kind, subject and the mode they lead to. */
static long first_difference(const recorder *a, const recorder *b)
{
    long n = a->n < b->n ? a->n : b->n;
    for (long i = 0; i < n; i++)
        if (a->ev[i].kind != b->ev[i].kind || a->ev[i].mode_after != b->ev[i].mode_after ||
            a->ev[i].subject != b->ev[i].subject)
            return i;
    return a->n == b->n ? -1 : n;
}

static void note_difference(stsl_stats *v, const recorder *a, const recorder *b, long i)
{
    const recorder *r[2] = {a, b};
    v->verify = STSL_VERIFY_MISMATCH;
    v->diff_event = i;
    for (int k = 0; k < 2; k++) {
        v->diff_t[k] = i < r[k]->n ? r[k]->ev[i].t : NAN;
        v->diff_kind[k] = i < r[k]->n ? r[k]->ev[i].kind : -1;
    }
}

/* Column errors: err[c] = max(err[c], |p - q|) over the compared columns. */
static void take_max(const rec_cols *c, const double *p, const double *q, double *err)
{
    for (int b = 0; b < c->nb; b++) {
        err[c->cx[b]] = fmax(err[c->cx[b]], fabs(p[b] - q[b]));
        err[c->cv[b]] = fmax(err[c->cv[b]], fabs(p[c->nb + b] - q[c->nb + b]));
    }
}

/* The estimated errors over the events both runs agree on (all of them
 * when the sequences match) and at the end when both reached the same
 * time: per column into a->err_cols, the largest of x and v into *v. */
static void compare(recorder *a, const recorder *b, stsl_stats *v)
{
    long d = first_difference(a, b), n = d < 0 ? a->n : d;
    size_t w = (size_t)(2 * a->c.nb);
    double *err = a->err_cols;
    v->verify = STSL_VERIFY_MATCHED;
    v->diff_event = -1;
    if (d >= 0) note_difference(v, a, b, d);
    for (int k = 0; k < a->c.n_cols; k++)
        err[k] = NAN;
    for (int k = 0; k < a->c.nb; k++)
        err[a->c.cx[k]] = err[a->c.cv[k]] = 0.0;
    for (long i = 0; i < n; i++) {
        double dt = fmax(fabs(a->ev[i].t - b->ev[i].t), VERIFY_ROOT_LIMIT * fabs(a->ev[i].t));
        v->err_event_time = fmax(v->err_event_time, dt);
        take_max(&a->c, a->ev_val + (size_t)i * w, b->ev_val + (size_t)i * w, err);
    }
    if (a->t_last == b->t_last) take_max(&a->c, a->last, b->last, err);
    for (int k = 0; k < a->c.nb; k++) {
        v->err_x = fmax(v->err_x, err[a->c.cx[k]]);
        v->err_v = fmax(v->err_v, err[a->c.cv[k]]);
    }
}

static void copy_verdict(stsl_stats *to, const stsl_stats *from)
{
    to->verify = from->verify;
    to->verify_rtol = from->verify_rtol;
    to->err_event_time = from->err_event_time;
    to->err_x = from->err_x;
    to->err_v = from->err_v;
    to->diff_event = from->diff_event;
    memcpy(to->diff_t, from->diff_t, sizeof to->diff_t);
    memcpy(to->diff_kind, from->diff_kind, sizeof to->diff_kind);
    to->err_cols = NULL;
}

static int rec_end(void *self, const stsl_stats *stats, int complete, const char *message,
                   stsl_error *err)
{
    recorder *r = self;
    if (!r->inner) return STSL_OK;
    stsl_stats st = stats ? *stats : (stsl_stats){0};
    int both = r->check && r->err_cols && r->check->c.nb == r->c.nb;
    if (both) compare(r, r->check, &r->verdict);
    /* else FAILED (or NONE) as set by the caller */
    copy_verdict(&st, &r->verdict);
    if (both) st.err_cols = r->err_cols;
    return stsl_sink_end(r->inner, &st, complete, message, err);
}

static void rec_destroy(void *self)
{
    (void)self; /* the recorders live on the caller's stack */
}

static const stsl_sink_ops rec_ops = {rec_begin, rec_sample, rec_event_fn, rec_end, rec_destroy};

/* ---- what is run: the element or a system ------------------------------ */

/* One run of the case with `sim`; check = 1 for the check run. */
typedef int (*run_fn)(const void *ctx, const stsl_hsolver_opts *sim, int check, stsl_sink *sink,
                      stsl_stats *stats, stsl_error *err);

typedef struct element_case {
    const stsl_element_params *p;
    const stsl_scheme_opts *sch;
} element_case;

static int run_element(const void *ctx, const stsl_hsolver_opts *sim, int check, stsl_sink *sink,
                       stsl_stats *stats, stsl_error *err)
{
    const element_case *e = ctx;
    if (!check) return stsl_run_element(e->p, sim, e->sch, sink, stats, err);
    stsl_element_params q = *e->p;
    q.rtol = sim->rtol; /* the element resolves stop rebounds to the solver's tolerance */
    q.atol = sim->atol;
    return stsl_run_element(&q, sim, NULL, sink, stats, err);
}

/* The engine takes its tolerances (rebounds included) from `sim`. */
static int run_system(const void *ctx, const stsl_hsolver_opts *sim, int check, stsl_sink *sink,
                      stsl_stats *stats, stsl_error *err)
{
    (void)check;
    return stsl_run_system(ctx, sim, sink, stats, err);
}

/* ---- the verified run -------------------------------------------------- */

static int check_run(run_fn run, const void *ctx, const stsl_hsolver_opts *sim, recorder *rec,
                     double *rtol_check, stsl_error *err)
{
    stsl_hsolver_opts o = *sim;
    stsl_verify_tolerances(sim->rtol, sim->atol, &o.rtol, &o.atol);
    *rtol_check = o.rtol;
    o.output_step = 0.0; /* events and the end are what is compared */
    o.output_times = NULL;
    o.n_output_times = 0;
    o.grid_only = 0;
    o.integrate_power = 0;
    o.track_extrema = 0; /* nothing of the check run's summary is kept */
    o.progress = NULL;
    stsl_sink s = {&rec_ops, rec};
    return run(ctx, &o, 1, &s, NULL, err);
}

static const char *kind_name(int kind)
{
    return kind >= 0 && kind < STSL_N_EVENT_KINDS ? stsl_event_kind_names()[kind] : "no event";
}

/* "event 7: this run has stick at t = ..., the check run (rtol 1e-12) has
 * breakaway at t = ..." */
static void describe_mismatch(const stsl_stats *v, char *buf, size_t n)
{
    char ta[48] = "", tb[48] = "";
    if (!isnan(v->diff_t[0])) snprintf(ta, sizeof ta, " at t = %.17g s", v->diff_t[0]);
    if (!isnan(v->diff_t[1])) snprintf(tb, sizeof tb, " at t = %.17g s", v->diff_t[1]);
    snprintf(buf, n,
             "the event sequence differs from the check run at rtol %g: event %ld: this run has "
             "%s%s, the check run has %s%s",
             v->verify_rtol, v->diff_event + 1, kind_name(v->diff_kind[0]), ta,
             kind_name(v->diff_kind[1]), tb);
}

static int verified(run_fn run, const void *ctx, const stsl_hsolver_opts *sim,
                    stsl_verify_mode mode, stsl_sink *sink, stsl_stats *stats, char *check_msg,
                    size_t n, stsl_error *err)
{
    char msg[STSL_ERRMSG_MAX + 128] = "";
    if (check_msg && n) check_msg[0] = '\0';
    if (mode == STSL_VERIFY_OFF) return run(ctx, sim, 0, sink, stats, err);
    recorder check = {0}, rec = {.inner = sink};
    stsl_error cerr = {0};
    double rtol_check = 0.0;
    int crc = check_run(run, ctx, sim, &check, &rtol_check, &cerr);
    if (crc) {
        rec.verdict.verify = STSL_VERIFY_FAILED;
        snprintf(msg, sizeof msg, "the check run at rtol %g failed: %s", rtol_check, cerr.msg);
    } else {
        rec.check = &check;
    }
    rec.verdict.verify_rtol = rtol_check;
    stsl_sink s = {&rec_ops, &rec};
    stsl_stats st;
    int rc = run(ctx, sim, 0, &s, &st, err);
    copy_verdict(&st, &rec.verdict);
    if (stats) *stats = st;
    rec_free(&check);
    rec_free(&rec);
    if (st.verify == STSL_VERIFY_MISMATCH) describe_mismatch(&st, msg, sizeof msg);
    if (check_msg && n) snprintf(check_msg, n, "%s", msg);
    if (!rc && mode == STSL_VERIFY_STRICT && msg[0])
        rc = stsl_error_set(err, STSL_ESOLVER, "verify strict: %s", msg);
    return rc;
}

int stsl_run_verified(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                      const stsl_scheme_opts *sch, stsl_verify_mode mode, stsl_sink *sink,
                      stsl_stats *stats, char *check_msg, size_t n, stsl_error *err)
{
    element_case e = {p, sch};
    /* A fixed-step scheme has no tolerance and runs unverified. */
    if (sch && sch->kind != STSL_SCHEME_EVENT_DRIVEN) mode = STSL_VERIFY_OFF;
    return verified(run_element, &e, sim, mode, sink, stats, check_msg, n, err);
}

int stsl_run_system_verified(const stsl_system *s, const stsl_hsolver_opts *sim,
                             stsl_verify_mode mode, stsl_sink *sink, stsl_stats *stats,
                             char *check_msg, size_t n, stsl_error *err)
{
    return verified(run_system, s, sim, mode, sink, stats, check_msg, n, err);
}
