/* converge.c - a convergence study (stsl_converge of stickslip.h; the
 * command `stickslip converge` is its client).
 *
 * Runs the candidate (a built-in fixed-step scheme or an FMU) at every
 * step, then the event-driven reference once, evaluated exactly (CVODE's
 * dense output, never interpolated between samples) at the union of all
 * the candidate runs' time points, at the configuration's tolerances: no
 * interpolation error is charged to the candidate.  The reference's own
 * cost is measured by a separate run without output, so that the two
 * costs compare like for like (the schemes' timed runs write no output
 * either).  Errors are taken at every step point of a candidate run; the
 * order is the least-squares slope of log(max |x error|) against log(step).
 *
 * Errors, event matching and the order fit are the validation metrics of
 * run/validation.h, the same as `stickslip compare`'s: events of a run
 * are matched to the reference's by class, closest pairs first, within
 * STSL_CMP_WINDOW_STEPS (5) median steps of the run (its step h): a
 * fixed-step scheme notices an event up to one step late and its phase
 * error moves later events by a few steps more; a reference event left
 * without a partner is missed, a run's event left over is spurious.  So
 * `compare` of the same reference and result gives the same counts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/error.h"
#include "api/fmu_lazy.h"
#include "physics/contact.h"
#include "physics/modes.h"
#include "io/study/convergence_h5.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"
#include "models/element_params.h"
#include "run/fixed_step.h"
#include "run/run.h"
#include "run/validation.h"
#include "solver/hybrid.h"

#define MAX_STEPS 64
/* Step points of all runs of one study together (see check_points). */
#define MAX_POINTS 1e7
/* Timed runs are repeated until they add up to this or REPEATS_MAX runs,
 * and the median is reported: short runs are dominated by timer noise. */
#define TIMING_BUDGET_S 0.3
#define REPEATS_MAX     5

/* ---- a sink keeping t, the tracked columns and the events ----------------------- */

/* What a run is judged by: every body's x and v, every contact's friction,
 * slip velocity and whether it is stuck.  The element is one body and one
 * contact (its friction F_f opposes v; stuck: STUCK or on a stop); a
 * system's columns are its groups (friction on the contact's first end,
 * stuck: contact_mode STUCK). */
#define NAME_MAX_LEN 80
typedef struct trace_event {
    double t;
    int kind, subject;
} trace_event;

typedef struct trace {
    int nb, nc, nv, element;
    int *col;                    /* nv column indices: x, v of each body, then friction,
                                    slip velocity, mode of each contact (-1: the sample's mode) */
    char (*names)[NAME_MAX_LEN]; /* nb body names, then nc contact names */
    char xu[24], vu[24], fu[24]; /* units */
    long n, cap;
    double *t, *val; /* val: n rows of nv values */
    long n_ev, cap_ev;
    trace_event *ev;
    const char *const *kind_names;
    const char *who; /* an FMU candidate's name for messages (NULL: the caller names it) */
} trace;

static int grow(void **p, long *cap, long need, size_t size)
{
    if (need <= *cap) return 0;
    long c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static void copy_units(char *dst, size_t size, const stsl_layout *l, int col)
{
    snprintf(dst, size, "%s", col >= 0 && l->cols[col].units ? l->cols[col].units : "");
}

/* The five quantities of trace.col: a system's groups; the element's
 * columns (its slip velocity is v; NULL: the sample's mode). */
static const char *const system_group[5] = {"x", "v", "friction", "slip_velocity", "contact_mode"};
static const char *const element_col[5] = {"x", "v", "friction", "v", NULL};
static const char *const element_names[2] = {"element", "friction"};

/* The quantities' groups: a system's own, or the element's columns as
 * groups of one member (first -1: no such column, or the sample's mode). */
static void find_groups(const stsl_layout *l, int element, stsl_col_group *g)
{
    for (int k = 0; k < 5; k++) {
        int i = element ? -1 : stsl_layout_find_group(l, system_group[k]);
        int col = element && element_col[k] ? stsl_layout_find(l, element_col[k]) : -1;
        if (i >= 0)
            g[k] = l->groups[i];
        else
            g[k] = (stsl_col_group){
                .first = col, .width = element, .member_names = element_names + (k >= 2)};
    }
}

static int tr_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    trace *tr = self;
    stsl_col_group g[5];
    tr->kind_names = l->kind_names;
    tr->element = !l->n_groups;
    find_groups(l, tr->element, g);
    /* Contacts are tracked when all their columns are there (the
     * element's mode is the sample's). */
    tr->nb = g[0].width;
    tr->nc =
        g[2].first >= 0 && g[3].first >= 0 && (tr->element || g[4].first >= 0) ? g[2].width : 0;
    tr->nv = 2 * tr->nb + 3 * tr->nc;
    free(tr->col);
    free(tr->names);
    tr->col = NULL, tr->names = NULL;
    if (g[0].first < 0 || g[1].first < 0 || (tr->element && g[2].first < 0))
        return stsl_error_set(err, STSL_EINPUT, "%s%sresults have no x or v column",
                              tr->who ? tr->who : "", tr->who ? ": " : "");
    tr->col = malloc((size_t)tr->nv * sizeof *tr->col);
    tr->names = malloc((size_t)(tr->nb + tr->nc) * sizeof *tr->names);
    if (!tr->col || !tr->names) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    for (int k = 0, at = 0; k < 5; k++)
        for (int i = 0; i < (k < 2 ? tr->nb : tr->nc); i++)
            tr->col[at++] = g[k].first < 0 ? -1 : g[k].first + i;
    for (int i = 0; i < tr->nb + tr->nc; i++)
        snprintf(tr->names[i], NAME_MAX_LEN, "%s",
                 i < tr->nb ? g[0].member_names[i] : g[2].member_names[i - tr->nb]);
    copy_units(tr->xu, sizeof tr->xu, l, g[0].first);
    copy_units(tr->vu, sizeof tr->vu, l, g[1].first);
    copy_units(tr->fu, sizeof tr->fu, l, g[2].first);
    return STSL_OK;
}

/* The contact state value of STUCK (the element's mode STUCK, STOP_LOW,
 * STOP_HIGH: at rest; a system's contact_mode STUCK). */
static double stuck_of(const trace *tr, int mode, double value)
{
    if (tr->element)
        return mode == STSL_MODE_STUCK || mode == STSL_MODE_STOP_LOW || mode == STSL_MODE_STOP_HIGH;
    return value == STSL_CONTACT_STUCK;
}

static int tr_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    trace *tr = self;
    long need = tr->n + 1, cap = tr->cap;
    /* The arrays grow together: the same old capacity gives the same new one. */
    if (grow((void **)&tr->t, &cap, need, sizeof(double)) ||
        grow((void **)&tr->val, &tr->cap, need, (size_t)tr->nv * sizeof(double)))
        return stsl_error_set(err, STSL_ENOMEM, "out of memory keeping %ld samples", need);
    tr->t[tr->n] = t;
    double *row = tr->val + tr->n * tr->nv;
    int mode_at = 2 * tr->nb + 2 * tr->nc;
    for (int k = 0; k < tr->nv; k++)
        row[k] = k < mode_at ? cols[tr->col[k]]
                             : stuck_of(tr, mode, tr->col[k] >= 0 ? cols[tr->col[k]] : 0.0);
    tr->n++;
    return STSL_OK;
}

static int tr_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    trace *tr = self;
    if (grow((void **)&tr->ev, &tr->cap_ev, tr->n_ev + 1, sizeof *tr->ev))
        return stsl_error_set(err, STSL_ENOMEM, "out of memory keeping %ld events", tr->n_ev + 1);
    tr->ev[tr->n_ev++] = (trace_event){ev->t, ev->kind, ev->subject};
    return STSL_OK;
}

static void trace_free(trace *tr)
{
    free(tr->col);
    free(tr->names);
    free(tr->t);
    free(tr->val);
    free(tr->ev);
    memset(tr, 0, sizeof *tr);
}

static const stsl_sink_ops trace_ops = {tr_begin, tr_sample, tr_event, NULL, NULL};

/* ---- runs ------------------------------------------------------------------------ */

/* One run of the scheme (h > 0) or of the reference (h = 0): the element,
 * or the system.  `sink` may be a NULL-ops sink (no output). */
static int run_once(stsl_config *cfg, double h, const stsl_hsolver_opts *opts, stsl_sink *sink,
                    stsl_stats *st, stsl_error *err)
{
    stsl_scheme_opts sch = cfg->scheme;
    sch.step = h;
    if (cfg->is_system)
        return stsl_run_system_scheme(&cfg->system, opts, h > 0.0 ? &sch : NULL, sink, st, err);
    return stsl_run_element(&cfg->element, opts, h > 0.0 ? &sch : NULL, sink, st, err);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median wall time of repeated runs without output; *st from the last. */
static int timed(stsl_config *cfg, double h, stsl_stats *st, double *wall, stsl_error *err)
{
    stsl_hsolver_opts o = cfg->sim;
    o.output_step = 0.0;
    o.progress = NULL;
    double w[REPEATS_MAX], total = 0.0;
    int n = 0, rc = STSL_OK;
    while (!rc && n < REPEATS_MAX && (n == 0 || total < TIMING_BUDGET_S)) {
        stsl_sink none = {0};
        rc = run_once(cfg, h, &o, &none, st, err);
        w[n] = st->wall_seconds;
        total += w[n++];
    }
    qsort(w, (size_t)n, sizeof w[0], cmp_double);
    *wall = n % 2 ? w[n / 2] : 0.5 * (w[n / 2 - 1] + w[n / 2]);
    return rc;
}

/* ---- the study --------------------------------------------------------------------- */

/* Per body: max |x err|, rms x err, max |v err|, final x err; per contact:
 * max |friction err|, rms friction err, stuck-time IoU, dissipated energy
 * of the run less the reference's. */
#define PER_BODY    4
#define PER_CONTACT 4

/* The table's columns, in the order of stickslip.h; then the element's
 * contact columns, or a system's per body and contact ones. */
enum {
    C_STEP,
    C_MAX_X,
    C_RMS_X,
    C_MAX_V,
    C_FINAL_X,
    C_WALL,
    C_RHS,
    C_EVENTS,
    C_MISSED,
    C_SPURIOUS,
    C_MAX_DT,
    N_TABLE
};

/* A row: the table's columns (C_*; the largest time difference of a
 * matched event, NaN without one) and the figures per member. */
typedef struct row {
    double v[N_TABLE];
    double *per; /* PER_BODY values a body, then PER_CONTACT a contact */
} row;

/* Sorted union of the scheme runs' time points (exact duplicates once). */
static double *union_times(trace *runs, int n, long *count)
{
    long total = 0;
    for (int i = 0; i < n; i++)
        total += runs[i].n;
    double *u = malloc((size_t)(total > 0 ? total : 1) * sizeof *u);
    if (!u) return NULL;
    long k = 0;
    for (int i = 0; i < n; i++)
        for (long j = 0; j < runs[i].n; j++)
            u[k++] = runs[i].t[j];
    qsort(u, (size_t)k, sizeof *u, cmp_double);
    long m = 0;
    for (long j = 0; j < k; j++)
        if (m == 0 || u[j] != u[m - 1]) u[m++] = u[j];
    *count = m;
    return u;
}

/* The reference's sample index of each of run s's time points; fails if
 * one is missing from the reference. */
static int ref_index(const trace *s, const trace *ref, double h, long *idx, stsl_error *err)
{
    long j = 0;
    for (long i = 0; i < s->n; i++) {
        while (j < ref->n && ref->t[j] < s->t[i])
            j++;
        if (j == ref->n || ref->t[j] != s->t[i])
            return stsl_error_set(err, STSL_EMODEL,
                                  "the reference has no sample at t = %.17g s of the step %g run",
                                  s->t[i], h);
        idx[i] = j;
    }
    return STSL_OK;
}

/* Work arrays of one comparison: the reference's and the run's values of
 * two columns at the run's time points, and stuck flags. */
typedef struct cmp_work {
    double *ra, *rb, *ca, *cb;
    unsigned char *rs, *cs;
} cmp_work;

static void pick(const trace *tr, const long *idx, long n, int k, double *out)
{
    for (long i = 0; i < n; i++)
        out[i] = tr->val[(idx ? idx[i] : i) * tr->nv + k];
}

/* Friction dissipation of one contact: integral of F_f w dt, F_f the
 * friction opposing the slip (the element's friction column; minus a
 * system's, which is the force on the contact's first end). */
static double dissipated(const trace *tr, const double *t, const double *f, double *w, long n)
{
    double e = stsl_compare_energy_friction(t, f, w, n);
    return tr->element ? e : -e;
}

/* Whether every one of the n values is a number (not an output left NaN). */
static int measured(const double *v, long n)
{
    for (long i = 0; i < n; i++)
        if (isnan(v[i])) return 0;
    return 1;
}

/* Errors of run `s` against the reference `ref` (sampled at a superset of
 * its times): per body and per contact into r->per, the largest over the
 * bodies into the table's columns. */
static int errors(const trace *s, const trace *ref, row *r, stsl_error *err)
{
    /* One block: four value arrays, the indices, two flag arrays. */
    long n = s->n;
    size_t m = (size_t)(n + 1);
    double *block = malloc(m * (4 * sizeof(double) + sizeof(long) + 2));
    if (!block) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    long *idx = (long *)(void *)(block + 4 * m);
    unsigned char *flags = (unsigned char *)(idx + m);
    cmp_work w = {block, block + m, block + 2 * m, block + 3 * m, flags, flags + m};
    double *v = r->v;
    int rc = ref_index(s, ref, v[C_STEP], idx, err);
    v[C_MAX_X] = v[C_RMS_X] = v[C_MAX_V] = v[C_FINAL_X] = 0.0;
    for (int b = 0; !rc && b < s->nb; b++) {
        stsl_cmp_errors e;
        pick(ref, idx, n, b, w.ra), pick(ref, idx, n, s->nb + b, w.rb);
        pick(s, NULL, n, b, w.ca), pick(s, NULL, n, s->nb + b, w.cb);
        stsl_compare_errors(s->t, w.ra, w.rb, w.ca, w.cb, n, &e);
        double *p = r->per + PER_BODY * b;
        p[0] = e.max_abs_x, p[1] = e.rms_x, p[2] = e.max_abs_v, p[3] = e.final_x;
        v[C_MAX_X] = fmax(v[C_MAX_X], e.max_abs_x), v[C_RMS_X] = fmax(v[C_RMS_X], e.rms_x);
        v[C_MAX_V] = fmax(v[C_MAX_V], e.max_abs_v);
        if (fabs(e.final_x) >= fabs(v[C_FINAL_X])) v[C_FINAL_X] = e.final_x;
    }
    int f0 = 2 * s->nb, w0 = f0 + s->nc, m0 = w0 + s->nc;
    for (int c = 0; !rc && c < s->nc; c++) {
        stsl_cmp_errors e;
        stsl_cmp_stuck st;
        pick(ref, idx, n, f0 + c, w.ra), pick(s, NULL, n, f0 + c, w.ca);
        stsl_compare_errors(s->t, w.ra, w.ra, w.ca, w.ca, n, &e);
        double *p = r->per + PER_BODY * s->nb + PER_CONTACT * c;
        p[0] = e.max_abs_x, p[1] = e.rms_x;
        pick(ref, idx, n, m0 + c, w.rb), pick(s, NULL, n, m0 + c, w.cb);
        for (long i = 0; i < n; i++)
            w.rs[i] = w.rb[i] != 0.0, w.cs[i] = w.cb[i] != 0.0;
        stsl_compare_stuck(s->t, w.rs, w.cs, n, &st);
        p[2] = st.iou;
        pick(ref, idx, n, w0 + c, w.rb), pick(s, NULL, n, w0 + c, w.cb);
        p[3] = dissipated(s, s->t, w.ca, w.cb, n) - dissipated(ref, s->t, w.ra, w.rb, n);
        /* A candidate without a friction output (an FMU's NaN samples)
         * has no friction error: NaN, never the 0 that fmax makes of it. */
        if (!measured(w.ca, n)) p[0] = p[1] = p[3] = NAN;
    }
    free(block);
    return rc;
}

/* The events of a trace about `subject` as the validation metrics see
 * them; *count of them. */
static stsl_cmp_event *trace_events(const trace *tr, int subject, long *count)
{
    stsl_cmp_event *ev = malloc(sizeof *ev * (size_t)(tr->n_ev + 1));
    long m = 0;
    for (long k = 0; ev && k < tr->n_ev; k++)
        if (tr->ev[k].subject == subject)
            stsl_compare_event_set(&ev[m++], tr->ev[k].t, tr->kind_names[tr->ev[k].kind]);
    *count = m;
    return ev;
}

/* Events matched as `compare` matches them (see the file comment), each
 * contact's and stop's (the subject's) among themselves. */
static int match_events(const trace *s, const trace *ref, row *r, stsl_error *err)
{
    int top = 0, rc = STSL_OK;
    long matched = 0;
    double max_dt = 0.0;
    for (long k = 0; k < s->n_ev; k++)
        top = s->ev[k].subject > top ? s->ev[k].subject : top;
    for (long k = 0; k < ref->n_ev; k++)
        top = ref->ev[k].subject > top ? ref->ev[k].subject : top;
    r->v[C_MISSED] = r->v[C_SPURIOUS] = 0.0;
    double window = stsl_compare_default_event_window(s->t, s->n);
    for (int sub = 0; !rc && sub <= top; sub++) {
        long ns, nr;
        stsl_cmp_event *se = trace_events(s, sub, &ns), *re = trace_events(ref, sub, &nr);
        stsl_cmp_matching m;
        rc = se && re ? stsl_compare_match_events(re, nr, se, ns, window, &m, err)
                      : stsl_error_set(err, STSL_ENOMEM, "out of memory for the events");
        if (!rc) {
            matched += m.n_matched;
            r->v[C_MISSED] += (double)m.n_missed;
            r->v[C_SPURIOUS] += (double)m.n_spurious;
            max_dt = fmax(max_dt, m.max_abs_dt);
            stsl_compare_matching_free(&m);
        }
        free(se);
        free(re);
    }
    r->v[C_MAX_DT] = matched ? max_dt : NAN;
    return rc;
}

/* ---- the result ------------------------------------------------------------------ */

static const char *const table_col[N_TABLE] = {
    "step",          "max_abs_error_x", "rms_error_x",         "max_abs_error_v",
    "final_error_x", "wall_seconds",    "rhs_evals",           "events",
    "events_missed", "events_spurious", "max_event_time_error"};
static const char *const body_col[PER_BODY] = {"max_abs_error_x", "rms_error_x", "max_abs_error_v",
                                               "final_error_x"};
static const char *const contact_col[PER_CONTACT] = {"max_abs_error_friction", "rms_error_friction",
                                                     "stuck_iou", "dissipated_energy_error"};

#define COL_NAME_LEN (NAME_MAX_LEN + 40)
struct stsl_convergence {
    char scheme[4200];
    int n, nb, nc, system;       /* rows; bodies and contacts (the element: 1 and 1) */
    char xu[24], vu[24], fu[24]; /* units */
    char (*names)[NAME_MAX_LEN]; /* nb bodies, then nc contacts */
    double order;                /* of max_abs_error_x */
    int order_points;
    stsl_stats ref;
    double ref_wall;
    int n_cols;
    char (*col_name)[COL_NAME_LEN];
    const char **col_units; /* static strings or the units above */
    double *data;           /* n_cols columns of n values */
};

void stsl_convergence_free(stsl_convergence *c)
{
    if (!c) return;
    free(c->names), free(c->col_name), free(c->col_units), free(c->data);
    free(c);
}

static double *col_at(stsl_convergence *c, int k)
{
    return c->data + (size_t)k * (size_t)c->n;
}

static void set_col(stsl_convergence *c, int k, const char *name, const char *member,
                    const char *units)
{
    if (member)
        snprintf(c->col_name[k], COL_NAME_LEN, "%s.%s", name, member);
    else
        snprintf(c->col_name[k], COL_NAME_LEN, "%s", name);
    c->col_units[k] = units;
}

static const char *unit_of(stsl_convergence *c, int contact, int j)
{
    if (contact) return j < 2 ? c->fu : j == 2 ? "" : "J";
    return j == 2 ? c->vu : c->xu;
}

static void fill_table(stsl_convergence *c, const row *rows)
{
    const char *units[N_TABLE] = {"s", c->xu, c->xu, c->vu, c->xu, "s", "", "", "", "", "s"};
    for (int k = 0; k < N_TABLE; k++)
        set_col(c, k, table_col[k], NULL, units[k]);
    for (int i = 0; i < c->n; i++)
        for (int k = 0; k < N_TABLE; k++)
            col_at(c, k)[i] = rows[i].v[k];
}

/* The columns per body (a system's, with the fitted order of its max |x
 * err|, the same in every row; the element's one body's are the table's)
 * and per contact (the element's unnamed). */
static void fill_members(stsl_convergence *c, const row *rows)
{
    int k = N_TABLE;
    for (int b = 0; c->system && b < c->nb; b++) {
        double hs[MAX_STEPS], ex[MAX_STEPS];
        int used;
        for (int i = 0; i < c->n; i++)
            hs[i] = rows[i].v[C_STEP], ex[i] = rows[i].per[PER_BODY * b];
        double order = stsl_compare_fit_order(hs, ex, c->n, &used);
        for (int j = 0; j <= PER_BODY; j++, k++) {
            set_col(c, k, j < PER_BODY ? body_col[j] : "order", c->names[b],
                    j < PER_BODY ? unit_of(c, 0, j) : "");
            for (int i = 0; i < c->n; i++)
                col_at(c, k)[i] = j < PER_BODY ? rows[i].per[PER_BODY * b + j] : order;
        }
    }
    for (int ct = 0; ct < c->nc; ct++)
        for (int j = 0; j < PER_CONTACT; j++, k++) {
            set_col(c, k, contact_col[j], c->system ? c->names[c->nb + ct] : NULL,
                    unit_of(c, 1, j));
            for (int i = 0; i < c->n; i++)
                col_at(c, k)[i] = rows[i].per[PER_BODY * c->nb + PER_CONTACT * ct + j];
        }
}

/* The result of the runs `tr` (the first run's layout) and their rows. */
static stsl_convergence *make_result(const char *scheme, const trace *tr, const row *rows, int n,
                                     int system)
{
    stsl_convergence *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    snprintf(c->scheme, sizeof c->scheme, "%s", scheme);
    c->n = n, c->system = system;
    c->nb = tr->nb, c->nc = tr->nc;
    memcpy(c->xu, tr->xu, sizeof c->xu), memcpy(c->vu, tr->vu, sizeof c->vu);
    memcpy(c->fu, tr->fu, sizeof c->fu);
    c->n_cols = N_TABLE + (system ? (PER_BODY + 1) * c->nb : 0) + PER_CONTACT * c->nc;
    c->names = calloc((size_t)(c->nb + c->nc) + 1, sizeof *c->names);
    c->col_name = calloc((size_t)c->n_cols, sizeof *c->col_name);
    c->col_units = calloc((size_t)c->n_cols, sizeof *c->col_units);
    c->data = calloc((size_t)c->n_cols * (size_t)n, sizeof *c->data);
    if (!c->names || !c->col_name || !c->col_units || !c->data) {
        stsl_convergence_free(c);
        return NULL;
    }
    memcpy(c->names, tr->names, sizeof *c->names * (size_t)(c->nb + c->nc));
    fill_table(c, rows);
    fill_members(c, rows);
    c->order = stsl_compare_fit_order(col_at(c, C_STEP), col_at(c, C_MAX_X), n, &c->order_points);
    return c;
}

/* ---- the files ------------------------------------------------------------------- */

/* The columns the files add after the table's: a system's per body and
 * contact; the element's friction and dissipated-energy errors (appended,
 * so that readers of the table's columns by position keep working).  The
 * element's stuck_iou stays out of the files: an FMU's stuck samples are
 * judged by a relative rule on v, the scheme's by its mode, so the files
 * of the two would differ where their runs do not. */
static int file_cols(const stsl_convergence *c, int *cols)
{
    static const int element[3] = {0, 1, 3}; /* of contact_col */
    int n = 0;
    if (c->system)
        for (int k = N_TABLE; k < c->n_cols; k++)
            cols[n++] = k;
    else
        for (int j = 0; j < 3; j++)
            cols[n++] = N_TABLE + element[j];
    return n;
}

static int write_csv(const char *path, stsl_convergence *c, stsl_error *err)
{
    int *cols = malloc(sizeof *cols * (size_t)c->n_cols), n_file = cols ? file_cols(c, cols) : 0;
    if (!cols) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    stsl_out_text t;
    int rc = stsl_out_text_open(path, &t, err);
    if (rc) {
        free(cols);
        return rc;
    }
    FILE *f = t.f;
    const char *xu = c->xu, *vu = c->vu;
    fprintf(f,
            "step [s],max_abs_error_x [%s],rms_error_x [%s],max_abs_error_v [%s],"
            "final_error_x [%s],wall_seconds [s],rhs_evals,events,events_missed,"
            "events_spurious,order",
            xu, xu, vu, xu);
    for (int j = 0; j < n_file; j++) {
        int k = cols[j];
        fprintf(f, c->col_units[k][0] ? ",%s [%s]" : ",%s", c->col_name[k], c->col_units[k]);
    }
    fputc('\n', f);
    for (int i = 0; i < c->n; i++) {
        fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.6g,%ld,%ld,%ld,%ld,%.6g", col_at(c, C_STEP)[i],
                col_at(c, C_MAX_X)[i], col_at(c, C_RMS_X)[i], col_at(c, C_MAX_V)[i],
                col_at(c, C_FINAL_X)[i], col_at(c, C_WALL)[i], (long)col_at(c, C_RHS)[i],
                (long)col_at(c, C_EVENTS)[i], (long)col_at(c, C_MISSED)[i],
                (long)col_at(c, C_SPURIOUS)[i], c->order);
        for (int j = 0; j < n_file; j++)
            fprintf(f, ",%.17g", col_at(c, cols[j])[i]);
        fputc('\n', f);
    }
    free(cols);
    return stsl_out_text_commit(&t, err);
}

static int write_h5(const char *path, const stsl_config *cfg, stsl_convergence *c, stsl_error *err)
{
    long rh[MAX_STEPS], ev[MAX_STEPS];
    const char **xn = NULL, **xu = NULL;
    const double **xd = NULL;
    int *cols = malloc(sizeof *cols * (size_t)c->n_cols), n_extra = cols ? file_cols(c, cols) : 0;
    for (int i = 0; i < c->n; i++)
        rh[i] = (long)col_at(c, C_RHS)[i], ev[i] = (long)col_at(c, C_EVENTS)[i];
    xn = calloc((size_t)n_extra + 1, sizeof *xn);
    xu = calloc((size_t)n_extra + 1, sizeof *xu);
    xd = calloc((size_t)n_extra + 1, sizeof *xd);
    char *yaml = stsl_config_to_yaml(cfg);
    int rc = cols && xn && xu && xd && yaml ? STSL_OK
                                            : stsl_error_set(err, STSL_ENOMEM, "out of memory");
    for (int k = 0; !rc && k < n_extra; k++)
        xn[k] = c->col_name[cols[k]], xu[k] = c->col_units[cols[k]], xd[k] = col_at(c, cols[k]);
    stsl_convergence_table t = {c->scheme,
                                yaml,
                                c->xu,
                                c->vu,
                                c->n,
                                col_at(c, C_STEP),
                                col_at(c, C_MAX_X),
                                col_at(c, C_RMS_X),
                                col_at(c, C_MAX_V),
                                col_at(c, C_FINAL_X),
                                col_at(c, C_WALL),
                                rh,
                                ev,
                                c->order,
                                c->ref_wall,
                                c->ref.rhs_evals,
                                c->ref.steps,
                                c->ref.events,
                                n_extra,
                                xn,
                                xu,
                                xd};
    if (!rc) { /* under the library's HDF5 lock, as every HDF5 call of the API */
        stsl_hdf5_lock();
        rc = stsl_convergence_h5_write(path, &t, err);
        stsl_hdf5_unlock();
    }
    free(yaml), free(xn), free(xu), free(xd), free(cols);
    return rc;
}

/* ---- the study --------------------------------------------------------------------- */

/* The candidate of a study: the scheme, or the FMU through the FMU module
 * (loaded for it, not before). */
typedef struct candidate {
    const char *scheme; /* the table's name for it */
    const stsl_fmu_module_api *module;
    stsl_fmu *fmu;
} candidate;

/* One run of the candidate at step h into `sink`: the scheme (with its
 * median wall time of repeated runs) or the FMU (its one run's time). */
static int candidate_run(const candidate *cd, stsl_config *cfg, double h, stsl_sink *sink,
                         stsl_stats *st, double *wall, stsl_error *err)
{
    if (cd->fmu) {
        int rc = cd->module->run(cd->fmu, cfg->sim.t_end, h, sink, st, err);
        *wall = st->wall_seconds;
        if (rc == STSL_EMODEL) stsl_error_wrap(err, "at step %g", h);
        return rc;
    }
    stsl_hsolver_opts o = cfg->sim;
    o.output_step = 0.0; /* every step point */
    int rc = run_once(cfg, h, &o, sink, st, err);
    if (!rc) rc = timed(cfg, h, st, wall, err);
    if (rc) stsl_error_wrap(err, "scheme %s at step %g", cd->scheme, h);
    return rc;
}

static int study(const candidate *cd, stsl_config *cfg, const double *steps, int n,
                 stsl_convergence **out, stsl_error *err)
{
    int rc = STSL_OK;
    trace runs[MAX_STEPS], ref = {0};
    row rows[MAX_STEPS];
    memset(runs, 0, sizeof runs);
    memset(rows, 0, sizeof rows);
    stsl_stats st, ref_st;
    double ref_wall = 0.0, *u = NULL;
    long nu = 0;
    for (int i = 0; !rc && i < n; i++) {
        stsl_sink sink = {&trace_ops, &runs[i]};
        /* A scheme's and the reference's errors are wrapped with their
         * names (candidate_run, below); an FMU's sink errors are not. */
        runs[i].who = cd->fmu ? cd->scheme : NULL;
        rows[i].v[C_STEP] = steps[i];
        rc = candidate_run(cd, cfg, steps[i], &sink, &st, &rows[i].v[C_WALL], err);
        rows[i].v[C_RHS] = (double)st.rhs_evals;
        rows[i].v[C_EVENTS] = (double)st.events;
        size_t per = (size_t)(PER_BODY * runs[i].nb + PER_CONTACT * runs[i].nc + 1);
        if (!rc && !(rows[i].per = calloc(per, sizeof(double))))
            rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
    }
    if (!rc && !(u = union_times(runs, n, &nu)))
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
    if (!rc) {
        stsl_hsolver_opts o = cfg->sim;
        o.output_times = u;
        o.n_output_times = nu;
        o.grid_only = 1;
        stsl_sink sink = {&trace_ops, &ref};
        rc = run_once(cfg, 0.0, &o, &sink, &ref_st, err);
        if (!rc) rc = timed(cfg, 0.0, &ref_st, &ref_wall, err);
        if (rc) stsl_error_wrap(err, "reference");
    }
    for (int i = 0; !rc && i < n; i++) {
        rc = errors(&runs[i], &ref, &rows[i], err);
        if (!rc) rc = match_events(&runs[i], &ref, &rows[i], err);
    }
    if (!rc && !(*out = make_result(cd->scheme, &runs[0], rows, n, cfg->is_system)))
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
    if (!rc) (*out)->ref = ref_st, (*out)->ref_wall = ref_wall;
    for (int i = 0; i < n; i++) {
        trace_free(&runs[i]);
        free(rows[i].per);
    }
    trace_free(&ref);
    free(u);
    return rc;
}

/* ---- the options ------------------------------------------------------------------- */

/* The steps: 2 to MAX_STEPS finite numbers > 0, at least two distinct. */
static int check_steps(const double *steps, int n, stsl_error *err)
{
    if (!steps || n < 2 || n > MAX_STEPS)
        return stsl_error_set(err, STSL_EINPUT, "steps: need 2 to %d steps, got %d", MAX_STEPS,
                              steps ? n : 0);
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(steps[i]) || !(steps[i] > 0.0))
            return stsl_error_set(err, STSL_EINPUT, "steps: %g is not a step (a number > 0, s)",
                                  steps[i]);
        distinct |= steps[i] != steps[0];
    }
    if (!distinct)
        return stsl_error_set(err, STSL_EINPUT,
                              "steps: need at least two distinct steps to fit an order");
    return STSL_OK;
}

/* Every step point of every run is held in memory (t, x, v and the union
 * of the time grids: about 50 bytes a point), so the total is bounded:
 * MAX_POINTS is about 0.5 GB and a few seconds of stepping. */
static int check_points(const stsl_config *cfg, const double *steps, int n, stsl_error *err)
{
    double points = 0.0, width = 1.0;
    if (cfg->is_system) /* a system's point holds more values than the element's 6 */
        width = fmax(1.0, (1.0 + 2.0 * cfg->system.n_bodies + 3.0 * cfg->system.n_contacts) / 6.0);
    for (int i = 0; i < n; i++) {
        if (steps[i] > cfg->sim.t_end)
            return stsl_error_set(err, STSL_EINPUT, "steps: %g is longer than t_end = %g s",
                                  steps[i], cfg->sim.t_end);
        points += width * cfg->sim.t_end / steps[i];
    }
    if (points > MAX_POINTS)
        return stsl_error_set(err, STSL_EINPUT,
                              "steps: these steps make %.3g step points over t_end = %g s, at "
                              "most %.0e (all are held in memory); use larger steps",
                              points, cfg->sim.t_end, MAX_POINTS);
    return STSL_OK;
}

/* The configuration with the scheme and a step set like any key, so that
 * its other keys are validated against them (a karnopp_band with another
 * scheme, a hybrid-only scheme on a smooth law); the smallest step stands
 * for all of them there, and each is checked against t_end in check_points().  An
 * FMU's own scheme is not the configuration's: nothing is set for it. */
static int prepare(const stsl_config *from, const stsl_converge_opts *o, stsl_config *cfg,
                   stsl_error *err)
{
    int rc = stsl_config_copy(cfg, from, err);
    if (rc || o->fmu) return rc;
    char scheme_set[96], step_set[64];
    double hmin = INFINITY;
    for (int i = 0; i < o->n_steps; i++)
        hmin = fmin(hmin, o->steps[i]);
    snprintf(scheme_set, sizeof scheme_set, "simulation.scheme=%s", o->scheme);
    snprintf(step_set, sizeof step_set, "simulation.step=%.17g", hmin);
    const char *sets[2] = {scheme_set, step_set};
    rc = stsl_config_apply(cfg, sets, 2, err);
    if (rc) {
        /* The step set is ours, not the caller's: name the steps. */
        const char *why = strstr(err->msg, step_set) ? strstr(err->msg, "simulation.step: ") : NULL;
        if (why) {
            char msg[STSL_ERRMSG_MAX];
            snprintf(msg, sizeof msg, "%s", why + strlen("simulation.step: "));
            stsl_error_set(err, STSL_EINPUT, "steps: %g: %s", hmin, msg);
        }
        stsl_config_free(cfg);
    }
    return rc;
}

/* The candidate named by the options (its FMU opened). */
static int open_candidate(const stsl_config *cfg, const stsl_converge_opts *o, candidate *cd,
                          char *label, size_t size, stsl_error *err)
{
    memset(cd, 0, sizeof *cd);
    if (!o->fmu) {
        cd->scheme = o->scheme;
        return STSL_OK;
    }
    snprintf(label, size, "fmu %s", o->fmu);
    cd->scheme = label;
    /* A system's FMU maps onto its bodies and contacts (io/fmu/fmu_run.h). */
    stsl_fmu_opts f;
    if (STSL_FMU_OPTS_OF(&f, o, err)) return err->code;
    f.system = cfg->is_system ? &cfg->system : NULL;
    cd->module = stsl_fmu_module_load(o->fmu_module, err);
    if (!cd->module) return err->code;
    return cd->module->open(&f, &cfg->element, &cd->fmu, err);
}

static int check_opts(const stsl_converge_opts *o, stsl_error *err)
{
    if (o->fmu && o->scheme)
        return stsl_error_set(err, STSL_EINPUT, "scheme and fmu exclude each other");
    if (!o->fmu && !o->scheme)
        return stsl_error_set(err, STSL_EINPUT,
                              "a scheme (karnopp, fixed_step_hybrid, smooth_rk4) or an FMU is "
                              "required");
    if (!o->fmu && strcmp(o->scheme, "karnopp") && strcmp(o->scheme, "fixed_step_hybrid") &&
        strcmp(o->scheme, "smooth_rk4"))
        return stsl_error_set(err, STSL_EINPUT,
                              "scheme must be karnopp, fixed_step_hybrid or smooth_rk4, got %s",
                              o->scheme);
    return check_steps(o->steps, o->n_steps, err);
}

/* The output rule: neither file is the configuration or a table it reads,
 * nor the other. */
static int check_outputs(const stsl_config *cfg, const stsl_converge_opts *o, stsl_error *err)
{
    int n_in = 0;
    const char **inputs = stsl_out_config_inputs(cfg, &n_in);
    stsl_output_file outs[2] = {{o->csv, "the convergence table", STSL_FMT_CSV, 0, 1},
                                {o->h5, "--h5", STSL_FMT_H5, 0, 0}};
    int rc = inputs ? stsl_output_rule(inputs, n_in, outs, 2, err)
                    : stsl_error_set(err, STSL_ENOMEM, "out of memory");
    free(inputs);
    return rc;
}

/* stsl_converge on `from` (not changed), with the internal error. */
static int converge_study(const stsl_config *from, const stsl_converge_opts *o,
                          stsl_convergence **out, stsl_error *err)
{
    *out = NULL;
    stsl_config cfg;
    int rc = check_opts(o, err);
    if (!rc) rc = prepare(from, o, &cfg, err);
    if (rc) return rc;
    char label[4200];
    candidate cd = {0};
    rc = check_points(&cfg, o->steps, o->n_steps, err);
    if (!rc) rc = check_outputs(&cfg, o, err);
    if (!rc) rc = open_candidate(&cfg, o, &cd, label, sizeof label, err);
    if (!rc) rc = study(&cd, &cfg, o->steps, o->n_steps, out, err);
    if (cd.fmu) cd.module->close(cd.fmu);
    if (!rc && o->csv) rc = write_csv(o->csv, *out, err);
    if (!rc && o->h5) rc = write_h5(o->h5, &cfg, *out, err);
    stsl_config_free(&cfg);
    return rc;
}

/* ---- the public functions ------------------------------------------------------------ */

stsl_rc stsl_converge(const stsl_cfg *cfg, const stsl_converge_opts *opts, stsl_convergence **out,
                      stsl_err *err)
{
    if (out) *out = NULL;
    if (!cfg || !opts || !out) return stsl_api_bad_arg(err, "stsl_converge: NULL argument");
    stsl_error e = {0};
    return converge_study(&cfg->c, opts, out, &e) ? stsl_api_err(err, &e) : STSL_RC_OK;
}

const char *stsl_convergence_scheme(const stsl_convergence *c)
{
    return c ? c->scheme : NULL;
}

int stsl_convergence_n_steps(const stsl_convergence *c)
{
    return c ? c->n : 0;
}

int stsl_convergence_n_columns(const stsl_convergence *c)
{
    return c ? c->n_cols : 0;
}

const char *stsl_convergence_column_name(const stsl_convergence *c, int i)
{
    return c && i >= 0 && i < c->n_cols ? c->col_name[i] : NULL;
}

static int find_col(const stsl_convergence *c, const char *name)
{
    for (int k = 0; c && name && k < c->n_cols; k++)
        if (!strcmp(c->col_name[k], name)) return k;
    return -1;
}

const double *stsl_convergence_column(const stsl_convergence *c, const char *name)
{
    int k = find_col(c, name);
    return k < 0 ? NULL : c->data + (size_t)k * (size_t)c->n;
}

const char *stsl_convergence_column_units(const stsl_convergence *c, const char *name)
{
    int k = find_col(c, name);
    return k < 0 ? NULL : c->col_units[k];
}

/* Of |error|: a signed error (final x, energy) converges in its size. */
double stsl_convergence_order(const stsl_convergence *c, const char *name, int *points)
{
    int used = 0, k = find_col(c, name);
    double order = NAN, mag[MAX_STEPS];
    for (int i = 0; k >= 0 && i < c->n; i++)
        mag[i] = fabs(c->data[(size_t)k * (size_t)c->n + (size_t)i]);
    if (k >= 0) order = stsl_compare_fit_order(c->data, mag, c->n, &used);
    if (points) *points = used;
    return order;
}

/* A system's bodies and contacts (the element has none of its own). */
int stsl_convergence_n_bodies(const stsl_convergence *c)
{
    return c && c->system ? c->nb : 0;
}

int stsl_convergence_n_contacts(const stsl_convergence *c)
{
    return c && c->system ? c->nc : 0;
}

const char *stsl_convergence_body(const stsl_convergence *c, int i)
{
    return i >= 0 && i < stsl_convergence_n_bodies(c) ? c->names[i] : NULL;
}

const char *stsl_convergence_contact(const stsl_convergence *c, int i)
{
    return i >= 0 && i < stsl_convergence_n_contacts(c) ? c->names[c->nb + i] : NULL;
}

stsl_rc stsl_convergence_reference(const stsl_convergence *c, const char *name, double *value,
                                   stsl_err *err)
{
    if (!c || !name || !value)
        return stsl_api_bad_arg(err, "stsl_convergence_reference: NULL argument");
    static const char *const names[4] = {"wall_seconds", "rhs_evals", "steps", "events"};
    const double v[4] = {c->ref_wall, (double)c->ref.rhs_evals, (double)c->ref.steps,
                         (double)c->ref.events};
    for (int k = 0; k < 4; k++)
        if (!strcmp(name, names[k])) return *value = v[k], STSL_RC_OK;
    return stsl_api_fail(err, STSL_EINPUT,
                         "stsl_convergence_reference: no statistic '%.80s' (wall_seconds, "
                         "rhs_evals, steps, events)",
                         name);
}
