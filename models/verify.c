/* verify.c - the check run and the comparison behind simulation.verify. */
#include "models/verify.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/modes.h"
#include "models/run.h"

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
    double t, x, v;
    int kind, mode_after;
} rec_event;

typedef struct recorder {
    stsl_sink *inner;             /* borrowed; NULL: record only */
    const struct recorder *check; /* the check run's record (the wrapping recorder) */
    rec_event *ev;
    long n, cap;
    double t_last, x_last, v_last;
    stsl_stats verdict; /* the comparison (filled at end when check != NULL) */
} recorder;

static int rec_begin(void *self, const stsl_layout *layout, stsl_error *err)
{
    recorder *r = self;
    return r->inner ? stsl_sink_begin(r->inner, layout, err) : STSL_OK;
}

static int rec_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    recorder *r = self;
    r->t_last = t;
    r->x_last = cols[0]; /* the element's columns start with x, v */
    r->v_last = cols[1];
    return r->inner ? stsl_sink_sample(r->inner, t, mode, cols, err) : STSL_OK;
}

static int rec_event_fn(void *self, const stsl_event_rec *e, stsl_error *err)
{
    recorder *r = self;
    if (r->n == r->cap) {
        long cap = r->cap ? 2 * r->cap : 64;
        rec_event *p = realloc(r->ev, (size_t)cap * sizeof *p);
        if (!p) return stsl_error_set(err, STSL_ENOMEM, "out of memory recording events");
        r->ev = p;
        r->cap = cap;
    }
    r->ev[r->n++] = (rec_event){e->t, e->after[0], e->after[1], e->kind, e->mode_after};
    return r->inner ? stsl_sink_event(r->inner, e, err) : STSL_OK;
}

/* Events paired by order must agree in kind and in the mode they lead to. */
static long first_difference(const recorder *a, const recorder *b)
{
    long n = a->n < b->n ? a->n : b->n;
    for (long i = 0; i < n; i++)
        if (a->ev[i].kind != b->ev[i].kind || a->ev[i].mode_after != b->ev[i].mode_after) return i;
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

/* The estimated errors over the events both runs agree on (all of them
 * when the sequences match) and at the end when both reached the same time. */
static void compare(const recorder *a, const recorder *b, stsl_stats *v)
{
    long d = first_difference(a, b), n = d < 0 ? a->n : d;
    v->verify = STSL_VERIFY_MATCHED;
    v->diff_event = -1;
    if (d >= 0) note_difference(v, a, b, d);
    for (long i = 0; i < n; i++) {
        const rec_event *p = &a->ev[i], *q = &b->ev[i];
        double dt = fmax(fabs(p->t - q->t), VERIFY_ROOT_LIMIT * fabs(p->t));
        v->err_event_time = fmax(v->err_event_time, dt);
        v->err_x = fmax(v->err_x, fabs(p->x - q->x));
        v->err_v = fmax(v->err_v, fabs(p->v - q->v));
    }
    if (a->t_last == b->t_last) {
        v->err_x = fmax(v->err_x, fabs(a->x_last - b->x_last));
        v->err_v = fmax(v->err_v, fabs(a->v_last - b->v_last));
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
}

static int rec_end(void *self, const stsl_stats *stats, int complete, const char *message,
                   stsl_error *err)
{
    recorder *r = self;
    if (!r->inner) return STSL_OK;
    stsl_stats st = stats ? *stats : (stsl_stats){0};
    if (r->check) {
        compare(r, r->check, &r->verdict);
        copy_verdict(&st, &r->verdict);
    } else {
        copy_verdict(&st, &r->verdict); /* FAILED (or NONE) as set by the caller */
    }
    return stsl_sink_end(r->inner, &st, complete, message, err);
}

static void rec_destroy(void *self)
{
    (void)self; /* the recorders live on the caller's stack */
}

static const stsl_sink_ops rec_ops = {rec_begin, rec_sample, rec_event_fn, rec_end, rec_destroy};

/* ---- the verified run -------------------------------------------------- */

static int check_run(const stsl_element_params *p, const stsl_hsolver_opts *sim, recorder *rec,
                     double *rtol_check, stsl_error *err)
{
    stsl_hsolver_opts o = *sim;
    stsl_element_params q = *p;
    stsl_verify_tolerances(sim->rtol, sim->atol, &o.rtol, &o.atol);
    *rtol_check = o.rtol;
    o.output_step = 0.0; /* events and the end are what is compared */
    o.output_times = NULL;
    o.n_output_times = 0;
    o.grid_only = 0;
    o.integrate_power = 0;
    o.track_extrema = 0; /* nothing of the check run's summary is kept */
    o.progress = NULL;
    q.rtol = o.rtol; /* the element resolves stop rebounds to the solver's tolerance */
    q.atol = o.atol;
    stsl_sink s = {&rec_ops, rec};
    return stsl_run_element(&q, &o, NULL, &s, NULL, err);
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

int stsl_run_verified(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                      const stsl_scheme_opts *sch, stsl_verify_mode mode, stsl_sink *sink,
                      stsl_stats *stats, char *check_msg, size_t n, stsl_error *err)
{
    char msg[STSL_ERRMSG_MAX + 128] = "";
    if (check_msg && n) check_msg[0] = '\0';
    int fixed = sch && sch->kind != STSL_SCHEME_EVENT_DRIVEN;
    if (mode == STSL_VERIFY_OFF || fixed) return stsl_run_element(p, sim, sch, sink, stats, err);
    recorder check = {0}, run = {.inner = sink};
    stsl_error cerr = {0};
    double rtol_check = 0.0;
    int crc = check_run(p, sim, &check, &rtol_check, &cerr);
    if (crc) {
        run.verdict.verify = STSL_VERIFY_FAILED;
        snprintf(msg, sizeof msg, "the check run at rtol %g failed: %s",
                 fmax(sim->rtol / VERIFY_FACTOR, STSL_VERIFY_RTOL_MIN), cerr.msg);
    } else {
        run.check = &check;
    }
    run.verdict.verify_rtol = rtol_check;
    stsl_sink s = {&rec_ops, &run};
    stsl_stats st;
    int rc = stsl_run_element(p, sim, sch, &s, &st, err);
    copy_verdict(&st, &run.verdict);
    if (stats) *stats = st;
    free(check.ev);
    free(run.ev);
    if (st.verify == STSL_VERIFY_MISMATCH) describe_mismatch(&st, msg, sizeof msg);
    if (check_msg && n) snprintf(check_msg, n, "%s", msg);
    if (!rc && mode == STSL_VERIFY_STRICT && msg[0])
        rc = stsl_error_set(err, STSL_ESOLVER, "verify strict: %s", msg);
    return rc;
}
