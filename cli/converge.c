/* converge.c - `stickslip converge CONFIG --scheme S --steps H1,H2,...`.
 *
 * Runs the scheme at every step, then the event-driven reference once,
 * evaluated exactly (CVODE's dense output, never interpolated between
 * samples) at the union of all the scheme runs' time points, at the
 * configuration's tolerances: no interpolation error is charged to the
 * scheme.  The reference's own cost is measured by a separate run without
 * output, so that the two costs compare like for like (the schemes' timed
 * runs write no output either).  Errors are taken at every step point of a
 * scheme run; the order is the least-squares slope of log(max |x error|)
 * against log(step).
 *
 * Errors, event matching and the order fit are the validation metrics of
 * models/validation.h, the same as `stickslip compare`'s: events of a scheme
 * run are matched to the reference's by class, closest pairs first, within
 * STSL_CMP_WINDOW_STEPS (5) median steps of the scheme run (its step h): a
 * fixed-step scheme notices an event up to one step late and its phase
 * error moves later events by a few steps more; a reference event left
 * without a partner is missed, a scheme event left over is spurious.  So
 * `compare` of the same reference and scheme result gives the same counts. */
#include "cli/converge.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/args.h"
#include "cli/fmu_lazy.h"
#include "cli/fmu_opts.h"
#include "io/config.h"
#include "io/convergence_h5.h"
#include "io/fmu/fmu_run.h"
#include "io/out_file.h"
#include "io/safe_output.h"
#include "events/contact.h"
#include "events/modes.h"
#include "models/element_params.h"
#include "models/fixed_step.h"
#include "models/run.h"
#include "models/validation.h"
#include "solver/hybrid.h"

#define MAX_STEPS 64
/* Step points of all runs of one study together (see stsl_cli_converge). */
#define MAX_POINTS 1e7
/* Timed runs are repeated until they add up to this or REPEATS_MAX runs,
 * and the median is reported: short runs are dominated by timer noise. */
#define TIMING_BUDGET_S 0.3
#define REPEATS_MAX     5

static const char *const usage =
    "usage: stickslip converge CONFIG --scheme S --steps H1,H2,... [-o TABLE.csv] [--h5 OUT.h5]\n"
    "                          [--set KEY=VALUE]...\n"
    "       stickslip converge CONFIG --fmu MODEL.fmu --steps H1,H2,... [--fmu-input N=SIG]...\n"
    "                          [--fmu-output C=NAME]... [--fmu-set N=VALUE]... [-o, --h5]\n"
    "\n"
    "Run the fixed-step scheme S (karnopp, fixed_step_hybrid, smooth_rk4) of CONFIG at\n"
    "each step H (s), and the event-driven reference once, evaluated exactly at the\n"
    "scheme's time points at the configuration's tolerances.  Prints, per step, the\n"
    "max and RMS error of x, the max error of v, the error of x at t_end, the wall time\n"
    "(median of up to 5 runs without output), the RHS (force) evaluations, the events\n"
    "missed and invented against the reference (as compare matches them: same class,\n"
    "closest first, within 5 steps), and the\n"
    "fitted order of convergence; then the reference's own cost.\n"
    "\n"
    "  --scheme S          karnopp | fixed_step_hybrid | smooth_rk4\n"
    "  --fmu MODEL.fmu     the candidate is an FMI 2.0 co-simulation FMU stepped at each H\n"
    "                      (fmi2DoStep), its inputs the configuration's signals at each\n"
    "                      communication point, its events seen in its samples (docs/fmu.md)\n"
    "  --fmu-input NAME=SIGNAL   FMU input NAME receives SIGNAL: active_force, load,\n"
    "                      base_position, base_velocity, base_acceleration, anchor_position,\n"
    "                      anchor_velocity (default: the input named like the signal)\n"
    "  --fmu-output C=NAME the FMU's output NAME is the column C: x, v or friction\n"
    "                      (default: the outputs named x, v, friction)\n"
    "  --fmu-set NAME=VALUE      set the FMU's parameter NAME before it starts\n"
    "  --fmu-scheme euler|rk4    a model-exchange FMU, integrated by explicit Euler or\n"
    "                      classical RK4 at each H (its state events at the step points)\n"
    "  --steps H1,H2,...   at least two distinct steps, each > 0 and <= t_end\n"
    "  -o, --output FILE   also write the table as CSV (whole or not at all)\n"
    "  --h5 FILE           also write it as the HDF5 group /convergence (file created,\n"
    "                      or an existing one gets its /convergence replaced, in a copy\n"
    "                      renamed over it: a failure leaves it as it was)\n"
    "  --set KEY=VALUE     override a configuration key (repeatable)\n"
    "  -h, --help          this help\n";
static const stsl_cli_cmd cmd = {"stickslip converge", usage};

typedef struct conv_args {
    const char *config, *output, *h5, *scheme;
    stsl_fmu_opts fmu;                     /* fmu.path: the candidate is an FMU */
    const stsl_fmu_module_api *fmu_module; /* loaded for fmu.path */
    char label[4200];                      /* "fmu PATH": the candidate's name in the table */
    const char *sets[STSL_CLI_MAX_SETS + 2];
    int n_sets;
    double steps[MAX_STEPS];
    int n_steps;
} conv_args;

static int arg_error(const char *what, const char *arg)
{
    return stsl_cli_error(&cmd, "%s%s", what, arg ? arg : "");
}

/* "1e-2,5e-3": finite numbers > 0, at least two distinct. */
static int parse_steps(const char *s, conv_args *a)
{
    char buf[2048];
    if (strlen(s) >= sizeof buf) return arg_error("--steps: list too long", NULL);
    strcpy(buf, s);
    a->n_steps = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        errno = 0;
        double h = strtod(tok, &end);
        if (end == tok || *end || errno || !isfinite(h) || !(h > 0.0)) {
            stsl_cli_error(&cmd, "--steps: '%s' is not a step (a number > 0, s)", tok);
            return 2;
        }
        if (a->n_steps == MAX_STEPS) return arg_error("--steps: more than 64 steps", NULL);
        a->steps[a->n_steps++] = h;
    }
    int distinct = 0;
    for (int i = 1; i < a->n_steps; i++)
        distinct |= a->steps[i] != a->steps[0];
    if (!distinct)
        return arg_error("--steps: need at least two distinct steps to fit an order, got ", s);
    return 0;
}

static int parse_args(int argc, char **argv, conv_args *a)
{
    static const struct option longopts[] = {{"scheme", required_argument, NULL, 'S'},
                                             {"steps", required_argument, NULL, 'H'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"h5", required_argument, NULL, '5'},
                                             {"set", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             STSL_CLI_FMU_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = 0;
    int c, rc = 0, have_steps = 0;
    while (!rc && (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'S':
            a->scheme = optarg;
            break;
        case 'H':
            rc = parse_steps(optarg, a);
            have_steps = 1;
            break;
        case 'o':
            a->output = optarg;
            break;
        case '5':
            a->h5 = optarg;
            break;
        case 's':
            rc = stsl_cli_add_set(&cmd, a->sets, &a->n_sets, optarg);
            break;
        case 'h':
            return stsl_cli_help(&cmd);
        STSL_CLI_FMU_CASES:
            rc = stsl_cli_fmu_option(&cmd, &a->fmu, c, optarg);
            break;
        default:
            return arg_error("unknown or incomplete option: ", argv[optind - 1]);
        }
    }
    if (rc) return rc;
    if (a->fmu.path && a->scheme) return arg_error("--fmu and --scheme exclude each other", NULL);
    if (a->fmu.path) snprintf(a->label, sizeof a->label, "fmu %s", a->fmu.path);
    if (optind != argc - 1) return arg_error("expected exactly one configuration file", NULL);
    a->config = argv[optind];
    if (a->fmu.path) {
        a->scheme = a->label;
        if (have_steps) return 0;
        return arg_error("--steps is required, e.g. --steps 1e-2,5e-3,2.5e-3", NULL);
    }
    if (!a->scheme)
        return arg_error("--scheme is required (karnopp, fixed_step_hybrid, smooth_rk4)", NULL);
    if (strcmp(a->scheme, "karnopp") && strcmp(a->scheme, "fixed_step_hybrid") &&
        strcmp(a->scheme, "smooth_rk4"))
        return arg_error("--scheme must be karnopp, fixed_step_hybrid or smooth_rk4, got ",
                         a->scheme);
    if (!have_steps) return arg_error("--steps is required, e.g. --steps 1e-2,5e-3,2.5e-3", NULL);
    return 0;
}

/* ---- a sink keeping t, the tracked columns and the events ----------------------- */

/* What a run is judged by: every body's x and v, every contact's friction,
 * slip velocity and whether it is stuck.  The element is one body and one
 * contact (its friction F_f opposes v; stuck: STUCK or on a stop); a
 * system's columns are its groups (friction on the contact's first end,
 * stuck: contact_mode STUCK). */
#define NAME_MAX_LEN 80
typedef struct trace {
    int nb, nc, nv, element;
    int *col;                    /* nv column indices: x, v of each body, then friction,
                                    slip velocity, mode of each contact (-1: the sample's mode) */
    char (*names)[NAME_MAX_LEN]; /* nb body names, then nc contact names */
    char xu[24], vu[24], fu[24]; /* units */
    long n, cap;
    double *t, *val; /* val: n rows of nv values */
    long n_ev, cap_ev;
    double *ev_t;
    int *ev_kind, *ev_subject;
    const char *const *kind_names;
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
    return 0;
}

static void copy_units(char *dst, size_t size, const stsl_layout *l, int col)
{
    snprintf(dst, size, "%s", col >= 0 && l->cols[col].units ? l->cols[col].units : "");
}

/* The element's columns: x, v, friction (slip velocity: v), the mode. */
static int begin_element(trace *tr, const stsl_layout *l)
{
    tr->element = 1;
    tr->nb = tr->nc = 1;
    tr->nv = 5;
    tr->col = malloc(5 * sizeof *tr->col);
    tr->names = malloc(2 * sizeof *tr->names);
    if (!tr->col || !tr->names) return -1;
    int ix = stsl_layout_find(l, "x"), iv = stsl_layout_find(l, "v");
    int fr = stsl_layout_find(l, "friction");
    tr->col[0] = ix, tr->col[1] = iv, tr->col[2] = fr, tr->col[3] = iv, tr->col[4] = -1;
    snprintf(tr->names[0], NAME_MAX_LEN, "element");
    snprintf(tr->names[1], NAME_MAX_LEN, "friction");
    copy_units(tr->xu, sizeof tr->xu, l, ix);
    copy_units(tr->vu, sizeof tr->vu, l, iv);
    copy_units(tr->fu, sizeof tr->fu, l, fr);
    return ix < 0 || iv < 0 || fr < 0 ? 1 : 0;
}

static const stsl_col_group *group(const stsl_layout *l, const char *name)
{
    int g = stsl_layout_find_group(l, name);
    return g >= 0 ? &l->groups[g] : NULL;
}

/* A system's columns: the groups x, v (per body), friction,
 * slip_velocity, contact_mode (per contact). */
static int begin_system(trace *tr, const stsl_layout *l)
{
    const stsl_col_group *x = group(l, "x"), *v = group(l, "v"), *f = group(l, "friction"),
                         *w = group(l, "slip_velocity"), *m = group(l, "contact_mode");
    if (!x || !v) return 1;
    tr->nb = x->width;
    tr->nc = f && w && m ? f->width : 0;
    tr->nv = 2 * tr->nb + 3 * tr->nc;
    tr->col = malloc((size_t)tr->nv * sizeof *tr->col);
    tr->names = malloc((size_t)(tr->nb + tr->nc) * sizeof *tr->names);
    if (!tr->col || !tr->names) return -1;
    for (int i = 0; i < tr->nb; i++) {
        tr->col[i] = x->first + i, tr->col[tr->nb + i] = v->first + i;
        snprintf(tr->names[i], NAME_MAX_LEN, "%s", x->member_names[i]);
    }
    for (int c = 0; c < tr->nc; c++) {
        int *at = tr->col + 2 * tr->nb;
        at[c] = f->first + c, at[tr->nc + c] = w->first + c, at[2 * tr->nc + c] = m->first + c;
        snprintf(tr->names[tr->nb + c], NAME_MAX_LEN, "%s", f->member_names[c]);
    }
    copy_units(tr->xu, sizeof tr->xu, l, x->first);
    copy_units(tr->vu, sizeof tr->vu, l, v->first);
    copy_units(tr->fu, sizeof tr->fu, l, f ? f->first : -1);
    return 0;
}

static int tr_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    trace *tr = self;
    tr->kind_names = l->kind_names;
    free(tr->col);
    free(tr->names);
    tr->col = NULL, tr->names = NULL;
    int rc = l->n_groups ? begin_system(tr, l) : begin_element(tr, l);
    if (rc < 0) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    if (rc) return stsl_error_set(err, STSL_EINPUT, "results have no x or v column");
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
    long need = tr->n + 1, c1 = tr->cap, c2 = tr->cap;
    /* The arrays grow together: the same old capacity gives the same new one. */
    if (grow((void **)&tr->t, &c1, need, sizeof(double)) ||
        grow((void **)&tr->val, &c2, need, (size_t)tr->nv * sizeof(double)))
        return stsl_error_set(err, STSL_ENOMEM, "out of memory keeping %ld samples", need);
    tr->cap = c1;
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
    long need = tr->n_ev + 1, c1 = tr->cap_ev, c2 = tr->cap_ev, c3 = tr->cap_ev;
    if (grow((void **)&tr->ev_t, &c1, need, sizeof(double)) ||
        grow((void **)&tr->ev_kind, &c2, need, sizeof(int)) ||
        grow((void **)&tr->ev_subject, &c3, need, sizeof(int)))
        return stsl_error_set(err, STSL_ENOMEM, "out of memory keeping %ld events", need);
    tr->cap_ev = c1;
    tr->ev_t[tr->n_ev] = ev->t;
    tr->ev_kind[tr->n_ev] = ev->kind;
    tr->ev_subject[tr->n_ev] = ev->subject;
    tr->n_ev++;
    return STSL_OK;
}

static int tr_end(void *self, const stsl_stats *st, int complete, const char *msg, stsl_error *err)
{
    (void)self, (void)st, (void)complete, (void)msg, (void)err;
    return STSL_OK;
}

static void trace_free(trace *tr)
{
    free(tr->col);
    free(tr->names);
    free(tr->t);
    free(tr->val);
    free(tr->ev_t);
    free(tr->ev_kind);
    free(tr->ev_subject);
    memset(tr, 0, sizeof *tr);
}

static const stsl_sink_ops trace_ops = {tr_begin, tr_sample, tr_event, tr_end, NULL};

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

typedef struct row {
    double h, max_x, rms_x, max_v, final_x, wall;
    long rhs, events, missed, spurious;
    double max_dt; /* largest time difference of a matched event */
    double *per;   /* PER_BODY values a body, then PER_CONTACT a contact */
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

/* Errors of run `s` against the reference `ref` (sampled at a superset of
 * its times): per body and per contact into r->per, the largest over the
 * bodies into the table's columns. */
static int errors(const trace *s, const trace *ref, row *r, stsl_error *err)
{
    long n = s->n, *idx = malloc(sizeof *idx * (size_t)(n + 1));
    cmp_work w = {malloc(sizeof(double) * (size_t)(n + 1)),
                  malloc(sizeof(double) * (size_t)(n + 1)),
                  malloc(sizeof(double) * (size_t)(n + 1)),
                  malloc(sizeof(double) * (size_t)(n + 1)),
                  malloc((size_t)(n + 1)),
                  malloc((size_t)(n + 1))};
    int rc = idx && w.ra && w.rb && w.ca && w.cb && w.rs && w.cs
                 ? ref_index(s, ref, r->h, idx, err)
                 : stsl_error_set(err, STSL_ENOMEM, "out of memory");
    r->max_x = r->rms_x = r->max_v = r->final_x = 0.0;
    for (int b = 0; !rc && b < s->nb; b++) {
        stsl_cmp_errors e;
        pick(ref, idx, n, b, w.ra), pick(ref, idx, n, s->nb + b, w.rb);
        pick(s, NULL, n, b, w.ca), pick(s, NULL, n, s->nb + b, w.cb);
        stsl_compare_errors(s->t, w.ra, w.rb, w.ca, w.cb, n, &e);
        double *p = r->per + PER_BODY * b;
        p[0] = e.max_abs_x, p[1] = e.rms_x, p[2] = e.max_abs_v, p[3] = e.final_x;
        r->max_x = fmax(r->max_x, e.max_abs_x), r->rms_x = fmax(r->rms_x, e.rms_x);
        r->max_v = fmax(r->max_v, e.max_abs_v);
        if (fabs(e.final_x) >= fabs(r->final_x)) r->final_x = e.final_x;
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
    }
    free(idx), free(w.ra), free(w.rb), free(w.ca), free(w.cb), free(w.rs), free(w.cs);
    return rc;
}

/* The events of a trace about `subject` as the validation metrics see
 * them; *count of them. */
static stsl_cmp_event *trace_events(const trace *tr, int subject, long *count)
{
    stsl_cmp_event *ev = malloc(sizeof *ev * (size_t)(tr->n_ev + 1));
    long m = 0;
    for (long k = 0; ev && k < tr->n_ev; k++)
        if (tr->ev_subject[k] == subject)
            stsl_compare_event_set(&ev[m++], tr->ev_t[k], tr->kind_names[tr->ev_kind[k]]);
    *count = m;
    return ev;
}

/* Events matched as `compare` matches them (see the file comment), each
 * contact's and stop's (the subject's) among themselves. */
static int match_events(const trace *s, const trace *ref, row *r, stsl_error *err)
{
    int top = 0, rc = STSL_OK;
    for (long k = 0; k < s->n_ev; k++)
        top = s->ev_subject[k] > top ? s->ev_subject[k] : top;
    for (long k = 0; k < ref->n_ev; k++)
        top = ref->ev_subject[k] > top ? ref->ev_subject[k] : top;
    r->missed = r->spurious = 0;
    r->max_dt = 0.0;
    double window = stsl_compare_default_event_window(s->t, s->n);
    for (int sub = 0; !rc && sub <= top; sub++) {
        long ns, nr;
        stsl_cmp_event *se = trace_events(s, sub, &ns), *re = trace_events(ref, sub, &nr);
        stsl_cmp_matching m;
        rc = se && re ? stsl_compare_match_events(re, nr, se, ns, window, &m, err)
                      : stsl_error_set(err, STSL_ENOMEM, "out of memory for the events");
        if (!rc) {
            r->missed += m.n_missed;
            r->spurious += m.n_spurious;
            r->max_dt = fmax(r->max_dt, m.max_abs_dt);
            stsl_compare_matching_free(&m);
        }
        free(se);
        free(re);
    }
    return rc;
}

/* A system's further columns (per body, per contact), for the CSV and the
 * HDF5 group: names, units and values by row. */
typedef struct extra_cols {
    int n;
    char (*name)[NAME_MAX_LEN + 40];
    const char **names, **units;
    double **data; /* n columns of the study's rows */
} extra_cols;

static void extra_free(extra_cols *x)
{
    for (int k = 0; x->data && k < x->n; k++)
        free(x->data[k]);
    free(x->name), free(x->names), free(x->units), free(x->data);
    memset(x, 0, sizeof *x);
}

/* Per body and contact columns, and the fitted order of each body's
 * max |x err| (constant over the rows). */
static int extra_make(const trace *tr, const row *rows, int n_rows, extra_cols *x)
{
    static const char *const body_col[PER_BODY] = {"max_abs_error_x", "rms_error_x",
                                                   "max_abs_error_v", "final_error_x"};
    static const char *const contact_col[PER_CONTACT] = {
        "max_abs_error_friction", "rms_error_friction", "stuck_iou", "dissipated_energy_error"};
    int nb = tr->nb, nc = tr->nc, total = (PER_BODY + 1) * nb + PER_CONTACT * nc;
    memset(x, 0, sizeof *x);
    x->name = calloc((size_t)total + 1, sizeof *x->name);
    x->names = calloc((size_t)total + 1, sizeof *x->names);
    x->units = calloc((size_t)total + 1, sizeof *x->units);
    x->data = calloc((size_t)total + 1, sizeof *x->data);
    if (!x->name || !x->names || !x->units || !x->data) return -1;
    for (int k = 0; k < total; k++)
        if (!(x->data[k] = calloc((size_t)n_rows + 1, sizeof(double)))) return -1;
    x->n = total;
    for (int b = 0; b < nb; b++)
        for (int j = 0; j <= PER_BODY; j++) {
            int k = b * (PER_BODY + 1) + j;
            snprintf(x->name[k], sizeof x->name[k], "%s.%s", j < PER_BODY ? body_col[j] : "order",
                     tr->names[b]);
            x->units[k] = j == PER_BODY ? "" : j == 2 ? tr->vu : tr->xu;
            double hs[MAX_STEPS], ex[MAX_STEPS], order = NAN;
            int used;
            for (int i = 0; j == PER_BODY && i < n_rows; i++)
                hs[i] = rows[i].h, ex[i] = rows[i].per[PER_BODY * b];
            if (j == PER_BODY) order = stsl_compare_fit_order(hs, ex, n_rows, &used);
            for (int i = 0; i < n_rows; i++)
                x->data[k][i] = j == PER_BODY ? order : rows[i].per[PER_BODY * b + j];
        }
    for (int c = 0; c < nc; c++)
        for (int j = 0; j < PER_CONTACT; j++) {
            int k = (PER_BODY + 1) * nb + c * PER_CONTACT + j;
            snprintf(x->name[k], sizeof x->name[k], "%s.%s", contact_col[j], tr->names[nb + c]);
            x->units[k] = j < 2 ? tr->fu : j == 2 ? "" : "J";
            for (int i = 0; i < n_rows; i++)
                x->data[k][i] = rows[i].per[PER_BODY * nb + PER_CONTACT * c + j];
        }
    for (int k = 0; k < total; k++)
        x->names[k] = x->name[k];
    return 0;
}

static int write_csv(const char *path, const row *rows, int n, double order, const char *xu,
                     const char *vu, const extra_cols *x, stsl_error *err)
{
    stsl_out_text t;
    int rc = stsl_out_text_open(path, &t, err);
    if (rc) return rc;
    FILE *f = t.f;
    fprintf(f,
            "step [s],max_abs_error_x [%s],rms_error_x [%s],max_abs_error_v [%s],"
            "final_error_x [%s],wall_seconds [s],rhs_evals,events,events_missed,"
            "events_spurious,order",
            xu, xu, vu, xu);
    for (int k = 0; k < x->n; k++)
        fprintf(f, x->units[k][0] ? ",%s [%s]" : ",%s", x->names[k], x->units[k]);
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.6g,%ld,%ld,%ld,%ld,%.6g", rows[i].h,
                rows[i].max_x, rows[i].rms_x, rows[i].max_v, rows[i].final_x, rows[i].wall,
                rows[i].rhs, rows[i].events, rows[i].missed, rows[i].spurious, order);
        for (int k = 0; k < x->n; k++)
            fprintf(f, ",%.17g", x->data[k][i]);
        fputc('\n', f);
    }
    return stsl_out_text_commit(&t, err);
}

static void print_table(const conv_args *a, const stsl_config *cfg, const row *rows, int n,
                        double order, int used, const stsl_stats *ref, double ref_wall,
                        const char *xu, const char *vu)
{
    char hx[32], hv[32];
    char atol[32] = "auto";
    if (cfg->sim.atol > 0.0) snprintf(atol, sizeof atol, "%g", cfg->sim.atol);
    printf("converge: %s, scheme %s, reference event_driven at rtol %g, atol %s\n", a->config,
           a->scheme, cfg->sim.rtol, atol);
    printf("errors at every step point%s; events matched as by compare (by class, closest first, "
           "within %g steps)\n\n",
           cfg->is_system ? " (the largest over the bodies)" : "", STSL_CMP_WINDOW_STEPS);
    snprintf(hx, sizeof hx, "[%s]", xu);
    snprintf(hv, sizeof hv, "[%s]", vu);
    printf("%10s  %13s  %13s  %13s  %13s  %10s  %10s  %6s  %6s  %8s\n", "step", "max|x err|",
           "rms x err", "max|v err|", "final x err", "wall", "RHS", "events", "missed", "invented");
    printf("%10s  %13s  %13s  %13s  %13s  %10s  %10s  %6s  %6s  %8s\n", "[s]", hx, hx, hv, hx,
           "[s]", "evals", "", "", "");
    for (int i = 0; i < n; i++)
        printf("%10.4g  %13.6g  %13.6g  %13.6g  %13.6g  %10.4g  %10ld  %6ld  %6ld  %8ld\n",
               rows[i].h, rows[i].max_x, rows[i].rms_x, rows[i].max_v, rows[i].final_x,
               rows[i].wall, rows[i].rhs, rows[i].events, rows[i].missed, rows[i].spurious);
    printf("\nfitted order (slope of log max|x err| against log step, %d points): %.3f\n", used,
           order);
    printf("reference cost (event_driven, no output): wall %.4g s, %ld RHS evaluations, %ld "
           "steps, %ld events\n",
           ref_wall, ref->rhs_evals, ref->steps, ref->events);
}

/* A system's errors per body and per contact, after the table. */
static void print_parts(const trace *tr, const row *rows, int n, const extra_cols *x)
{
    char hx[32], hv[32], hf[32];
    snprintf(hx, sizeof hx, "[%s]", tr->xu);
    snprintf(hv, sizeof hv, "[%s]", tr->vu);
    snprintf(hf, sizeof hf, "[%s]", tr->fu);
    printf("\n%-16s  %10s  %13s  %13s  %13s  %13s\n", "body", "step [s]", "max|x err|", "rms x err",
           "max|v err|", "final x err");
    printf("%-16s  %10s  %13s  %13s  %13s  %13s\n", "", "", hx, hx, hv, hx);
    for (int b = 0; b < tr->nb; b++) {
        for (int i = 0; i < n; i++) {
            const double *p = rows[i].per + PER_BODY * b;
            printf("%-16s  %10.4g  %13.6g  %13.6g  %13.6g  %13.6g\n", i ? "" : tr->names[b],
                   rows[i].h, p[0], p[1], p[2], p[3]);
        }
        printf("%-16s  fitted order of max|x err|: %.3f\n", "",
               x->data[b * (PER_BODY + 1) + PER_BODY][0]);
    }
    printf("\n%-16s  %10s  %13s  %13s  %13s  %13s\n", "contact", "step [s]", "max|F err|",
           "rms F err", "stuck IoU", "energy err");
    printf("%-16s  %10s  %13s  %13s  %13s  %13s\n", "", "", hf, hf, "", "[J]");
    for (int c = 0; c < tr->nc; c++)
        for (int i = 0; i < n; i++) {
            const double *p = rows[i].per + PER_BODY * tr->nb + PER_CONTACT * c;
            printf("%-16s  %10.4g  %13.6g  %13.6g  %13.6g  %13.6g\n",
                   i ? "" : tr->names[tr->nb + c], rows[i].h, p[0], p[1], p[2], p[3]);
        }
}

static int write_h5(const conv_args *a, stsl_config *cfg, const row *rows, int n, double order,
                    const stsl_stats *ref_st, double ref_wall, const trace *tr, const extra_cols *x,
                    stsl_error *err)
{
    double c[6][MAX_STEPS];
    long rh[MAX_STEPS], ev[MAX_STEPS];
    for (int i = 0; i < n; i++) {
        c[0][i] = rows[i].h, c[1][i] = rows[i].max_x, c[2][i] = rows[i].rms_x;
        c[3][i] = rows[i].max_v, c[4][i] = rows[i].final_x, c[5][i] = rows[i].wall;
        rh[i] = rows[i].rhs, ev[i] = rows[i].events;
    }
    char *yaml = stsl_config_to_yaml(cfg);
    stsl_convergence_table t = {a->scheme,
                                yaml ? yaml : "",
                                tr->xu,
                                tr->vu,
                                n,
                                c[0],
                                c[1],
                                c[2],
                                c[3],
                                c[4],
                                c[5],
                                rh,
                                ev,
                                order,
                                ref_wall,
                                ref_st->rhs_evals,
                                ref_st->steps,
                                ref_st->events,
                                x->n,
                                x->names,
                                x->units,
                                (const double *const *)x->data};
    int rc = stsl_convergence_h5_write(a->h5, &t, err);
    free(yaml);
    return rc;
}

/* The tables from the runs and the reference. */
static int report(const conv_args *a, stsl_config *cfg, row *rows, int n, const trace *tr,
                  const stsl_stats *ref_st, double ref_wall, stsl_error *err)
{
    int used, rc = STSL_OK;
    double hs[MAX_STEPS], ex[MAX_STEPS];
    for (int i = 0; i < n; i++)
        hs[i] = rows[i].h, ex[i] = rows[i].max_x;
    double order = stsl_compare_fit_order(hs, ex, n, &used);
    extra_cols x = {0};
    if (cfg->is_system && extra_make(tr, rows, n, &x)) {
        extra_free(&x);
        return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    }
    print_table(a, cfg, rows, n, order, used, ref_st, ref_wall, tr->xu, tr->vu);
    if (cfg->is_system) print_parts(tr, rows, n, &x);
    if (a->output) rc = write_csv(a->output, rows, n, order, tr->xu, tr->vu, &x, err);
    if (!rc && a->h5) rc = write_h5(a, cfg, rows, n, order, ref_st, ref_wall, tr, &x, err);
    extra_free(&x);
    return rc;
}

/* One run of the candidate at step h into `sink`: the scheme (with its
 * median wall time of repeated runs) or the FMU (its one run's time). */
static int candidate_run(const conv_args *a, stsl_config *cfg, stsl_fmu *fmu, double h,
                         stsl_sink *sink, stsl_stats *st, double *wall, stsl_error *err)
{
    if (fmu) {
        int rc = a->fmu_module->run(fmu, cfg->sim.t_end, h, sink, st, err);
        *wall = st->wall_seconds;
        if (rc == STSL_EMODEL) stsl_error_wrap(err, "at step %g", h);
        return rc;
    }
    stsl_hsolver_opts o = cfg->sim;
    o.output_step = 0.0; /* every step point */
    int rc = run_once(cfg, h, &o, sink, st, err);
    if (!rc) rc = timed(cfg, h, st, wall, err);
    if (rc) stsl_error_wrap(err, "scheme %s at step %g", a->scheme, h);
    return rc;
}

static int study(const conv_args *a, stsl_config *cfg, stsl_fmu *fmu, stsl_error *err)
{
    int n = a->n_steps, rc = STSL_OK;
    trace runs[MAX_STEPS], ref = {0};
    row rows[MAX_STEPS];
    memset(runs, 0, sizeof runs);
    memset(rows, 0, sizeof rows);
    stsl_stats st, ref_st;
    double ref_wall = 0.0, *u = NULL;
    long nu = 0;
    for (int i = 0; !rc && i < n; i++) {
        if (a->steps[i] > cfg->sim.t_end) {
            rc = stsl_error_set(err, STSL_EINPUT, "--steps: %g is longer than t_end = %g s",
                                a->steps[i], cfg->sim.t_end);
            break;
        }
        stsl_sink sink = {&trace_ops, &runs[i]};
        rows[i].h = a->steps[i];
        rc = candidate_run(a, cfg, fmu, a->steps[i], &sink, &st, &rows[i].wall, err);
        rows[i].rhs = st.rhs_evals;
        rows[i].events = st.events;
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
    if (!rc) rc = report(a, cfg, rows, n, &runs[0], &ref_st, ref_wall, err);
    for (int i = 0; i < n; i++) {
        trace_free(&runs[i]);
        free(rows[i].per);
    }
    trace_free(&ref);
    free(u);
    return rc;
}

/* The FMU candidate, through the FMU module (loaded here, not at start-up). */
static int fmu_open(conv_args *a, const stsl_config *cfg, stsl_fmu **fmu, stsl_error *err)
{
    a->fmu_module = stsl_cli_fmu_module(err);
    if (!a->fmu_module) return err->code;
    return a->fmu_module->open(&a->fmu, &cfg->element, fmu, err);
}

int stsl_cli_converge(int argc, char **argv)
{
    conv_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    /* The scheme and a step are set like any key, so the file's other keys
     * are validated against them (a karnopp_band with another scheme, a
     * hybrid-only scheme on a smooth law); the smallest step stands in for
     * all of them there and each is checked against t_end in study(). */
    char scheme_set[96], step_set[64];
    double hmin = INFINITY;
    for (int i = 0; i < a.n_steps; i++)
        hmin = fmin(hmin, a.steps[i]);
    snprintf(scheme_set, sizeof scheme_set, "simulation.scheme=%s", a.scheme);
    snprintf(step_set, sizeof step_set, "simulation.step=%.17g", hmin);
    if (!a.fmu.path) { /* an FMU's own scheme is not the configuration's */
        a.sets[a.n_sets++] = scheme_set;
        a.sets[a.n_sets++] = step_set;
    }
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(a.config, a.sets, a.n_sets, &cfg, &err)) {
        /* The step set above is ours, not the user's: name --steps. */
        const char *why = strstr(err.msg, step_set) ? strstr(err.msg, "simulation.step: ") : NULL;
        if (why)
            return stsl_cli_error(&cmd, "--steps: %g: %s", hmin, why + strlen("simulation.step: "));
        return stsl_cli_fail(&cmd, &err);
    }
    /* Every step point of every run is held in memory (t, x, v and the
     * union of the time grids: about 50 bytes a point), so the total is
     * bounded: MAX_POINTS is about 0.5 GB and a few seconds of stepping. */
    double points = 0.0, width = 1.0;
    if (cfg.is_system) /* a system's point holds more values than the element's 6 */
        width = fmax(1.0, (1.0 + 2.0 * cfg.system.n_bodies + 3.0 * cfg.system.n_contacts) / 6.0);
    for (int i = 0; i < a.n_steps; i++)
        points += width * cfg.sim.t_end / a.steps[i];
    if (points > MAX_POINTS) {
        double t_end = cfg.sim.t_end;
        stsl_config_free(&cfg);
        return stsl_cli_error(&cmd,
                              "--steps: these steps make %.3g step points over t_end = %g s, at "
                              "most %.0e (all are held in memory); use larger steps",
                              points, t_end, MAX_POINTS);
    }
    /* The output rule: neither output is the configuration or a table it
     * reads, nor the other. */
    int n_in = 0;
    const char **inputs = stsl_out_config_inputs(&cfg, &n_in);
    stsl_output_file outs[2] = {{a.output, "the convergence table", STSL_FMT_CSV, 0, 1},
                                {a.h5, "--h5", STSL_FMT_H5, 0, 0}};
    rc = inputs ? stsl_output_rule(inputs, n_in, outs, 2, &err)
                : stsl_error_set(&err, STSL_ENOMEM, "out of memory");
    free(inputs);
    stsl_fmu *fmu = NULL;
    if (!rc && a.fmu.path)
        rc = cfg.is_system ? stsl_error_set(&err, STSL_EINPUT,
                                            "--fmu: %s is a system of bodies; an FMU candidate "
                                            "stands for one element",
                                            a.config)
                           : fmu_open(&a, &cfg, &fmu, &err);
    if (!rc) rc = study(&a, &cfg, fmu, &err);
    if (fmu) a.fmu_module->close(fmu);
    stsl_config_free(&cfg);
    return rc ? stsl_cli_fail(&cmd, &err) : 0;
}

/* ---- `stickslip info` of a file written with --h5 ------------------------------ */

int stsl_cli_convergence_info(const char *path, stsl_error *err)
{
    stsl_convergence_file f;
    int rc = stsl_convergence_h5_read(path, &f, err);
    if (rc) return rc;
    const stsl_convergence_table *t = &f.t;
    char hx[32], hv[32];
    snprintf(hx, sizeof hx, "[%s]", t->x_units);
    snprintf(hv, sizeof hv, "[%s]", t->v_units);
    printf("File:        %s\n", path);
    printf("Convergence: scheme %s against the event-driven reference (stickslip converge), %d "
           "steps\n\n",
           t->scheme[0] ? t->scheme : "?", t->n);
    printf("%10s  %13s  %13s  %13s  %13s  %10s  %10s  %6s\n", "step", "max|x err|", "rms x err",
           "max|v err|", "final x err", "wall", "RHS", "events");
    printf("%10s  %13s  %13s  %13s  %13s  %10s  %10s  %6s\n", "[s]", hx, hx, hv, hx, "[s]", "evals",
           "");
    for (int i = 0; i < t->n; i++)
        printf("%10.4g  %13.6g  %13.6g  %13.6g  %13.6g  %10.4g  %10ld  %6ld\n", t->step[i],
               t->max_abs_error_x[i], t->rms_error_x[i], t->max_abs_error_v[i], t->final_error_x[i],
               t->wall_seconds[i], t->rhs_evals[i], t->events[i]);
    printf("\nfitted order (slope of log max|x err| against log step): %.3f\n", t->order);
    printf("reference cost (event_driven, no output): wall %.4g s, %ld RHS evaluations, %ld "
           "steps, %ld events\n",
           t->reference_wall_seconds, t->reference_rhs_evals, t->reference_steps,
           t->reference_events);
    stsl_convergence_file_free(&f);
    return STSL_OK;
}
