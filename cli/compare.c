/* compare.c - `stickslip compare REFERENCE.h5 CANDIDATE [--columns t,x,v | t=A,x=B:1,v=B:2]
 * [--stuck-velocity V] [--event-window T] [-o REPORT.json]`.
 *
 * The reference's /config is run again with the candidate's times as its
 * only output times (grid_only), so the reference is evaluated exactly
 * there and no interpolation error is charged to the candidate.  Candidate
 * times outside the reference's [0, t_end] are dropped (a longer export
 * from another tool is common and its overlap is still worth comparing; the
 * count is reported); times within TIME_SLACK of the ends count as the end
 * itself, since a time accumulated step by step misses t_end by a few ulps.
 * Where the candidate repeats a time (a jump) and the reference has an
 * event at exactly that time, the last row of that time is compared with
 * the reference's value just after the event(s), the others with the value
 * just before.
 *
 * Metric definitions: models/validation.h.  Stuck means at rest relative to
 * the base: modes STUCK, STOP_LOW, STOP_HIGH and CONTACT_*_STUCK (a
 * velocity-only candidate cannot tell a stop from a stick), or, for samples of a smooth law (mode
 * SMOOTH) and for candidates without a mode column, |v| <= --stuck-velocity. */
#include "cli/compare.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "models/validation.h"
#include "io/candidate.h"
#include "io/column_map.h"
#include "io/config.h"
#include "io/h5_read.h"
#include "io/mem_sink.h"
#include "io/safe_output.h"
#include "models/element.h"
#include "solver/hybrid.h"

/* Relative tolerance on the ends of [0, t_end] for candidate times: far
 * above the rounding of an accumulated time (1e-16 per step), far below any
 * time step worth comparing. */
#define TIME_SLACK 1e-9
/* Event rows listed in the table per list (all go to the JSON report). */
#define MAX_EVENT_ROWS 100

static const char *const usage =
    "usage: stickslip compare REFERENCE.h5 CANDIDATE [--columns t,x,v[,friction] |\n"
    "                         --columns t=A,x=B:1,v=B:2[,friction=C]]\n"
    "                         [--stuck-velocity V] [--event-window T] [-o REPORT.json]\n"
    "\n"
    "Compare a trajectory (CANDIDATE: a stickslip result, an HDF5 file, a MAT file (v4,\n"
    "v5, v7, v7.3, Modelica results) or a CSV with a header) against the exact\n"
    "reference: the reference's /config is run again with the candidate's time points\n"
    "as output times, so both are compared at the same instants.\n"
    "Reports max, RMS and final errors of x and v, the stuck-time overlap (intersection\n"
    "over union), matched, missed and spurious events, and the dissipated energy.\n"
    "\n"
    "  --columns T,X,V[,F]     names of the time, position, velocity (and friction)\n"
    "                          columns (default t,x,v; a header 'x [m]' matches x;\n"
    "                          HDF5: datasets at the root or under /trajectory)\n"
    "  --columns t=A,x=B,v=C   by role; a source is a name, a MAT field path\n"
    "                          (simout.signals.values) or a Modelica variable\n"
    "                          (mass.s), NAME:N the N-th column (1-based) of a matrix\n"
    "  --stuck-velocity V      |v| <= V counts as stuck for a candidate without modes\n"
    "                          (default 1e-6 of the reference's max |v|, at least its atol)\n"
    "  --event-window T        events match within T seconds (default 5 median steps of\n"
    "                          the candidate)\n"
    "  -o, --output FILE.json  also write the report as JSON\n"
    "  -h, --help              this help\n"
    "\n"
    "Candidate times outside the reference's [0, t_end] are dropped (and counted).\n"
    "exit codes: 0 ok, 2 bad input (file, line and column named), 3 the reference's\n"
    "re-run failed, 1 the report could not be written\n";
static const stsl_cli_cmd cmd = {"stickslip compare", usage};

typedef struct cmp_args {
    const char *reference, *candidate, *output;
    stsl_column_map columns;             /* t, x, v, friction (NULL) */
    double stuck_velocity, event_window; /* < 0: default */
} cmp_args;

/* Everything the comparison computed, for the table and the JSON. */
typedef struct report {
    const char *ref_path, *cand_path, *cand_format;
    const char *t_units, *x_units, *v_units;
    long n, dropped;
    double t_first, t_last, t_end;
    stsl_cmp_errors e;
    double stuck_velocity;
    int stuck_default, window_default;
    const char *cand_stuck_rule, *cand_events_source, *energy_method;
    stsl_cmp_stuck stuck;
    double window;
    const stsl_cmp_event *rev, *cev;
    long n_rev, n_cev;
    stsl_cmp_matching m;
    double energy_ref, energy_cand;
} report;

static int arg_error(const char *fmt, const char *arg)
{
    return stsl_cli_usage_error(&cmd, fmt, arg);
}

static int parse_positive(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(*out) || *out < 0) {
        stsl_cli_error(&cmd, "%s: not a number >= 0: '%s'", opt, s);
        return 2;
    }
    return 0;
}

static int parse_columns(cmp_args *a, const char *s)
{
    stsl_error err = {0};
    if (stsl_column_map_parse(s, &a->columns, &err)) return arg_error("%s", err.msg);
    return 0;
}

static int parse_args(int argc, char **argv, cmp_args *a)
{
    static const struct option longopts[] = {{"columns", required_argument, NULL, 'c'},
                                             {"stuck-velocity", required_argument, NULL, 's'},
                                             {"event-window", required_argument, NULL, 'w'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->stuck_velocity = a->event_window = -1.0;
    int rc = parse_columns(a, "t,x,v");
    optind = 1;
    opterr = 0;
    int c;
    while (!rc && (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            rc = parse_columns(a, optarg);
            break;
        case 's':
            rc = parse_positive("--stuck-velocity", optarg, &a->stuck_velocity);
            break;
        case 'w':
            rc = parse_positive("--event-window", optarg, &a->event_window);
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'h':
            return stsl_cli_help(&cmd);
        default:
            return arg_error("unknown or incomplete option: %s", argv[optind - 1]);
        }
    }
    if (rc) return rc;
    if (optind != argc - 2) return arg_error("expected REFERENCE.h5 and CANDIDATE%s", "");
    a->reference = argv[optind];
    a->candidate = argv[optind + 1];
    return 0;
}

/* ---- the reference at the candidate's times ------------------------------------ */

/* The reference aligned row by row with the candidate. */
typedef struct aligned {
    double *x, *v, *f;
    int *mode;
    /* The mode just after the reference's last event at exactly this time
     * (= mode without one): at the instant of a stick or a breakaway the
     * element is at rest, whichever side the row's values come from. */
    int *mode_after;
    stsl_cmp_event *events; /* the re-run's events within the compared span */
    long n_events;
} aligned;

static void aligned_free(aligned *r)
{
    free(r->x);
    free(r->v);
    free(r->f);
    free(r->mode);
    free(r->mode_after);
    free(r->events);
}

/* Index of the last event at exactly time t, or -1. */
static long last_event_at(const stsl_mem_result *mr, double t)
{
    long lo = 0, hi = mr->n_events; /* first event with time > t */
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (mr->events[mid].t <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && mr->events[lo - 1].t == t ? lo - 1 : -1;
}

/* Re-run the configuration at the times t[0..n-1] (clipped, non-decreasing)
 * and fill r.  A failed run is returned as is (the caller exits 3). */
static int rerun(const stsl_config *cfg, const stsl_element *el, const double *t, long n,
                 aligned *r, stsl_error *err)
{
    double *u = malloc(sizeof *u * (size_t)n);
    stsl_hsolver *s = NULL;
    stsl_sink sink = {0};
    int rc = STSL_OK;
    r->x = malloc(sizeof *r->x * (size_t)n);
    r->v = malloc(sizeof *r->v * (size_t)n);
    r->f = malloc(sizeof *r->f * (size_t)n);
    r->mode = malloc(sizeof *r->mode * (size_t)n);
    r->mode_after = malloc(sizeof *r->mode_after * (size_t)n);
    if (!u || !r->x || !r->v || !r->f || !r->mode || !r->mode_after) {
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld time points", n);
        goto done;
    }
    long nu = 0;
    for (long i = 0; i < n; i++)
        if (nu == 0 || t[i] > u[nu - 1]) u[nu++] = t[i];
    stsl_hsolver_opts o = cfg->sim;
    o.output_times = u;
    o.n_output_times = nu;
    o.grid_only = 1;
    o.progress = NULL;
    if ((rc = stsl_mem_sink_create(&sink, err))) goto done;
    if (!(s = stsl_hsolver_create(stsl_element_model(el), &o, err))) {
        rc = err ? err->code : STSL_ESOLVER;
        goto done;
    }
    double y0[STSL_MAX_STATE];
    stsl_element_initial_state(el, y0);
    if ((rc = stsl_hsolver_run(s, 0.0, y0, &sink, err))) goto done;
    const stsl_mem_result *mr = stsl_mem_sink_result(&sink);
    const stsl_layout *lay = stsl_element_layout(el);
    int cx = stsl_layout_find(lay, "x"), cv = stsl_layout_find(lay, "v"),
        cf = stsl_layout_find(lay, "friction");
    if (mr->n_samples != nu || cx < 0 || cv < 0 || cf < 0) {
        rc = stsl_error_set(err, STSL_ESOLVER,
                            "the re-run gave %ld samples for %ld distinct candidate times",
                            mr->n_samples, nu);
        goto done;
    }
    for (long i = 0, j = -1; i < n; i++) {
        if (i == 0 || t[i] > t[i - 1]) j++;
        int last_of_repeat = i > 0 && t[i] == t[i - 1] && (i + 1 == n || t[i + 1] > t[i]);
        long k = last_event_at(mr, t[i]);
        r->mode_after[i] = k >= 0 ? mr->events[k].mode_after : mr->mode[j];
        if (last_of_repeat && k >= 0) {
            r->x[i] = mr->events[k].after[cx];
            r->v[i] = mr->events[k].after[cv];
            r->f[i] = mr->events[k].after[cf];
            r->mode[i] = mr->events[k].mode_after;
        } else {
            const double *row = mr->cols + (size_t)j * (size_t)mr->n_cols;
            r->x[i] = row[cx];
            r->v[i] = row[cv];
            r->f[i] = row[cf];
            r->mode[i] = mr->mode[j];
        }
    }
    /* Events within the compared span: the candidate cannot see others. */
    r->events = malloc(sizeof *r->events * (size_t)(mr->n_events + 1));
    if (!r->events) {
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld events", mr->n_events);
        goto done;
    }
    for (long k = 0; k < mr->n_events; k++) {
        const stsl_mem_event *ev = &mr->events[k];
        if (ev->t < t[0] || ev->t > t[n - 1]) continue;
        stsl_compare_event_set(&r->events[r->n_events++], ev->t,
                               ev->kind >= 0 && ev->kind < lay->n_kinds ? lay->kind_names[ev->kind]
                                                                        : NULL);
    }
done:
    stsl_sink_free(&sink);
    stsl_hsolver_free(s);
    free(u);
    return rc;
}

/* ---- metrics -------------------------------------------------------------------- */

/* The reference's absolute tolerance on v: atol as given, or the one the
 * rule derives from rtol (README "Numerics"). */
static double velocity_atol(const stsl_config *cfg)
{
    double a[3];
    const char *units[3];
    stsl_element_atol(&cfg->element, cfg->sim.rtol, cfg->sim.atol, a, units);
    return a[1];
}

static int mode_is_stuck(int mode, double v, double thr)
{
    int fr = stsl_mode_friction(mode); /* stuck inside a compliant stop too */
    if (fr == STSL_MODE_STUCK || mode == STSL_MODE_STOP_LOW || mode == STSL_MODE_STOP_HIGH)
        return 1;
    return mode == STSL_MODE_SMOOTH && fabs(v) <= thr;
}

/* Energy dissipated along (t, x, v) from the balance with the reference
 * model's non-friction force F_n at the middle of each interval. */
static double energy_balance(const stsl_element *el, const double *t, const double *x,
                             const double *v, long n, double *fn_mid)
{
    for (long i = 0; i + 1 < n; i++) {
        double y[STSL_MAX_STATE] = {0};
        y[0] = 0.5 * (x[i] + x[i + 1]);
        y[1] = 0.5 * (v[i] + v[i + 1]);
        stsl_element_forces f;
        stsl_element_eval_forces(el, 0.5 * (t[i] + t[i + 1]), y, &f);
        fn_mid[i] = f.fn;
    }
    return stsl_compare_energy_balance(t, v, fn_mid, stsl_element_get_params(el)->mass, n);
}

/* Candidate events: a hybrid stickslip result's own /events, else those
 * seen in its samples (a smooth law's result has no stick events to list). */
static long candidate_events(const stsl_candidate *c, const double *t, const double *v,
                             const unsigned char *stuck, long n, int *from_file,
                             stsl_cmp_event **out)
{
    int smooth = 0;
    for (long i = 0; c->mode && i < c->n; i++)
        smooth |= c->mode[i] == STSL_MODE_SMOOTH;
    *from_file = c->info && c->mode && !smooth;
    if (!*from_file) return stsl_compare_derive_events(t, v, stuck, n, out);
    stsl_cmp_event *ev = malloc(sizeof *ev * (size_t)(c->info->n_events + 1));
    if (!ev) return -1;
    long k = 0;
    for (long i = 0; i < c->info->n_events; i++) {
        const stsl_h5_event *e = &c->info->events[i];
        if (e->t < t[0] || e->t > t[n - 1]) continue;
        stsl_compare_event_set(&ev[k++], e->t, e->kind);
    }
    *out = ev;
    return k;
}

/* ---- output -------------------------------------------------------------------- */

static void json_num(FILE *f, const char *key, double v, int comma)
{
    if (isfinite(v))
        fprintf(f, "  \"%s\": %.17g%s\n", key, v, comma ? "," : "");
    else
        fprintf(f, "  \"%s\": null%s\n", key, comma ? "," : "");
}

static void json_str_value(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_str(FILE *f, const char *key, const char *s)
{
    fprintf(f, "  \"%s\": ", key);
    json_str_value(f, s);
    fputs(",\n", f);
}

/* A number inside an event object: never NaN (times are finite). */
static void json_event(FILE *f, const stsl_cmp_event *e, int comma)
{
    fputs("    {\"kind\": ", f);
    json_str_value(f, e->kind);
    fprintf(f, ", \"t\": %.17g}%s\n", e->t, comma ? "," : "");
}

static int write_json(const char *path, const report *r)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        stsl_cli_error(&cmd, "%s: cannot write: %s", path, strerror(errno));
        return 1;
    }
    fputs("{\n", f);
    json_str(f, "reference", r->ref_path);
    json_str(f, "candidate", r->cand_path);
    json_str(f, "candidate_format", r->cand_format);
    fprintf(f, "  \"n_points\": %ld,\n  \"points_dropped\": %ld,\n", r->n, r->dropped);
    json_num(f, "t_first", r->t_first, 1);
    json_num(f, "t_last", r->t_last, 1);
    json_num(f, "max_abs_error_x", r->e.max_abs_x, 1);
    json_num(f, "max_abs_error_v", r->e.max_abs_v, 1);
    json_num(f, "rms_error_x", r->e.rms_x, 1);
    json_num(f, "rms_error_v", r->e.rms_v, 1);
    json_num(f, "final_error_x", r->e.final_x, 1);
    json_num(f, "final_error_v", r->e.final_v, 1);
    json_num(f, "stuck_iou", r->stuck.iou, 1);
    json_num(f, "stuck_time_reference", r->stuck.ref_time, 1);
    json_num(f, "stuck_time_candidate", r->stuck.cand_time, 1);
    json_num(f, "stuck_velocity", r->stuck_velocity, 1);
    json_str(f, "candidate_stuck_rule", r->cand_stuck_rule);
    fprintf(f, "  \"events_matched\": %ld,\n  \"events_missed\": %ld,\n", r->m.n_matched,
            r->m.n_missed);
    fprintf(f, "  \"events_spurious\": %ld,\n", r->m.n_spurious);
    fprintf(f, "  \"events_ignored_reference\": %ld,\n  \"events_ignored_candidate\": %ld,\n",
            r->m.n_ignored_ref, r->m.n_ignored_cand);
    /* No pair, no time error: null rather than a 0 that would read as perfect. */
    json_num(f, "max_event_time_error", r->m.n_matched ? r->m.max_abs_dt : NAN, 1);
    json_num(f, "event_window", r->window, 1);
    json_str(f, "candidate_events_source", r->cand_events_source);
    json_num(f, "dissipated_energy_reference", r->energy_ref, 1);
    json_num(f, "dissipated_energy_candidate", r->energy_cand, 1);
    json_num(f, "dissipated_energy_difference", r->energy_cand - r->energy_ref, 1);
    json_str(f, "energy_method", r->energy_method);
    fputs("  \"units\": {\"t\": ", f);
    json_str_value(f, r->t_units);
    fputs(", \"x\": ", f);
    json_str_value(f, r->x_units);
    fputs(", \"v\": ", f);
    json_str_value(f, r->v_units);
    fputs(", \"energy\": \"J\"},\n", f);
    fputs("  \"matched_events\": [\n", f);
    for (long k = 0; k < r->m.n_matched; k++) {
        const stsl_cmp_pair *p = &r->m.pairs[k];
        fputs("    {\"kind_reference\": ", f);
        json_str_value(f, r->rev[p->ref].kind);
        fputs(", \"kind_candidate\": ", f);
        json_str_value(f, r->cev[p->cand].kind);
        fprintf(f, ", \"t_reference\": %.17g, \"t_candidate\": %.17g, \"dt\": %.17g}%s\n",
                r->rev[p->ref].t, r->cev[p->cand].t, p->dt, k + 1 < r->m.n_matched ? "," : "");
    }
    fputs("  ],\n  \"missed_events\": [\n", f);
    for (long k = 0; k < r->m.n_missed; k++)
        json_event(f, &r->rev[r->m.missed[k]], k + 1 < r->m.n_missed);
    fputs("  ],\n  \"spurious_events\": [\n", f);
    for (long k = 0; k < r->m.n_spurious; k++)
        json_event(f, &r->cev[r->m.spurious[k]], k + 1 < r->m.n_spurious);
    fputs("  ]\n}\n", f);
    if (fclose(f) != 0) {
        stsl_cli_error(&cmd, "%s: write failed", path);
        return 1;
    }
    return 0;
}

static void print_table(const report *r)
{
    printf("Reference:   %s (its /config re-run at the candidate's %ld time points)\n", r->ref_path,
           r->n);
    printf("Candidate:   %s (%s), t = %.9g .. %.9g %s", r->cand_path, r->cand_format, r->t_first,
           r->t_last, r->t_units);
    if (r->dropped)
        printf(", %ld points outside [0, %.9g] %s dropped", r->dropped, r->t_end, r->t_units);
    printf("\n\n");
    printf("  %-38s %15s  %s\n", "quantity", "value", "unit");
    printf("  %-38s %15.6e  %s\n", "max |x error|", r->e.max_abs_x, r->x_units);
    printf("  %-38s %15.6e  %s\n", "RMS x error (time-weighted)", r->e.rms_x, r->x_units);
    printf("  %-38s %15.6e  %s\n", "final x error (candidate - reference)", r->e.final_x,
           r->x_units);
    printf("  %-38s %15.6e  %s\n", "max |v error|", r->e.max_abs_v, r->v_units);
    printf("  %-38s %15.6e  %s\n", "RMS v error (time-weighted)", r->e.rms_v, r->v_units);
    printf("  %-38s %15.6e  %s\n", "final v error (candidate - reference)", r->e.final_v,
           r->v_units);
    printf("  %-38s %15.9g  %s\n", "stuck time, reference", r->stuck.ref_time, r->t_units);
    printf("  %-38s %15.9g  %s\n", "stuck time, candidate", r->stuck.cand_time, r->t_units);
    printf("  %-38s %15.9g  %s\n", "stuck-time overlap (IoU)", r->stuck.iou, "-");
    printf("  %-38s %15.3e  %s  (%s%s)\n", "stuck velocity", r->stuck_velocity, r->v_units,
           r->cand_stuck_rule, r->stuck_default ? ", default" : "");
    printf("  %-38s %15ld\n", "events matched", r->m.n_matched);
    printf("  %-38s %15ld\n", "events missed (reference only)", r->m.n_missed);
    printf("  %-38s %15ld\n", "events spurious (candidate only)", r->m.n_spurious);
    if (r->m.n_matched)
        printf("  %-38s %15.6e  %s\n", "max |event time error|", r->m.max_abs_dt, r->t_units);
    else
        printf("  %-38s %15s  %s\n", "max |event time error|", "-", r->t_units);
    printf("  %-38s %15.6e  %s  (%s%s)\n", "event window", r->window, r->t_units,
           r->cand_events_source, r->window_default ? ", default" : "");
    printf("  %-38s %15.9g  %s\n", "dissipated energy, reference", r->energy_ref, "J");
    printf("  %-38s %15.9g  %s\n", "dissipated energy, candidate", r->energy_cand, "J");
    printf("  %-38s %15.6e  %s  (%s)\n", "dissipated energy difference",
           r->energy_cand - r->energy_ref, "J", r->energy_method);
    if (r->m.n_ignored_ref || r->m.n_ignored_cand)
        printf("  (not matched: %ld reference and %ld candidate load_reversal/input_step "
               "events)\n",
               r->m.n_ignored_ref, r->m.n_ignored_cand);
    if (r->m.n_matched + r->m.n_missed + r->m.n_spurious == 0) return;
    printf("\n  %-14s %-14s %18s %18s %14s\n", "reference", "candidate", "t_ref", "t_cand", "dt");
    long rows = 0;
    for (long k = 0; k < r->m.n_matched && rows < MAX_EVENT_ROWS; k++, rows++) {
        const stsl_cmp_pair *p = &r->m.pairs[k];
        printf("  %-14s %-14s %18.10f %18.10f %14.6e\n", r->rev[p->ref].kind, r->cev[p->cand].kind,
               r->rev[p->ref].t, r->cev[p->cand].t, p->dt);
    }
    for (long k = 0; k < r->m.n_missed && rows < MAX_EVENT_ROWS; k++, rows++)
        printf("  %-14s %-14s %18.10f %18s %14s\n", r->rev[r->m.missed[k]].kind, "(missed)",
               r->rev[r->m.missed[k]].t, "", "");
    for (long k = 0; k < r->m.n_spurious && rows < MAX_EVENT_ROWS; k++, rows++)
        printf("  %-14s %-14s %18s %18.10f %14s\n", "(spurious)", r->cev[r->m.spurious[k]].kind, "",
               r->cev[r->m.spurious[k]].t, "");
    long total = r->m.n_matched + r->m.n_missed + r->m.n_spurious;
    if (total > rows) printf("  ... %ld more (all in the JSON report, -o)\n", total - rows);
}

/* ---- the command ------------------------------------------------------------------ */

static int fail(const stsl_error *err, int code)
{
    stsl_cli_error(&cmd, "%s", err->msg);
    return code;
}

int stsl_cli_compare(int argc, char **argv)
{
    cmp_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    stsl_error err = {0};
    const char *inputs[2] = {a.reference, a.candidate};
    if (stsl_output_check_inputs(a.output, inputs, 2, &err)) return fail(&err, 2);
    stsl_h5_result ref;
    if (stsl_h5_read(a.reference, &ref, &err)) return fail(&err, 2);
    if (!ref.config_yaml || !ref.config_yaml[0]) {
        stsl_h5_result_free(&ref);
        stsl_error_set(&err, STSL_EINPUT, "%s: /config is empty: cannot re-run the reference",
                       a.reference);
        return fail(&err, 2);
    }
    /* Relative table files of the configuration live next to the result. */
    char dir[4096], origin[4200];
    snprintf(dir, sizeof dir, "%s", a.reference);
    snprintf(origin, sizeof origin, "%s:/config", a.reference);
    stsl_config cfg;
    rc = stsl_config_load_string(ref.config_yaml, origin, dirname(dir), NULL, 0, &cfg, &err);
    if (rc) {
        stsl_h5_result_free(&ref);
        return fail(&err, 2);
    }
    const char *const *nm = a.columns.names;
    stsl_cand_columns cols = {nm[STSL_ROLE_T], nm[STSL_ROLE_X], nm[STSL_ROLE_V], nm[STSL_ROLE_F]};
    stsl_candidate cand;
    stsl_element *el = NULL;
    aligned r = {0};
    report rep = {0};
    stsl_cmp_event *cev = NULL;
    double *fn_mid = NULL;
    unsigned char *rs = NULL, *cs = NULL;
    int code = 0;
    if (stsl_candidate_read(a.candidate, &cols, &cand, &err)) {
        code = fail(&err, 2);
        goto out_cfg;
    }
    /* The compared span: candidate rows inside [0, t_end], ends snapped. */
    double t_end = cfg.sim.t_end, slack = TIME_SLACK * fmax(1.0, t_end);
    long i0 = 0, i1 = cand.n;
    while (i0 < cand.n && cand.t[i0] < -slack)
        i0++;
    while (i1 > i0 && cand.t[i1 - 1] > t_end + slack)
        i1--;
    long n = i1 - i0;
    double *t = cand.t + i0, *x = cand.x + i0, *v = cand.v + i0;
    for (long i = 0; i < n; i++)
        t[i] = fmin(fmax(t[i], 0.0), t_end);
    if (n < 2 || !(t[n - 1] > t[0])) {
        stsl_error_set(&err, STSL_EINPUT,
                       "%s: fewer than two distinct times within the reference's [0, %.9g] %s",
                       cand.path, t_end, ref.time_units);
        code = fail(&err, 2);
        goto out;
    }
    if (cand.info && !cand.info->complete)
        fprintf(stderr,
                "stickslip compare: warning: %s is incomplete (%s); comparing what it has\n",
                cand.path, cand.info->message);
    if (!(el = stsl_element_create(&cfg.element, &err))) {
        code = fail(&err, 2);
        goto out;
    }
    if ((rc = rerun(&cfg, el, t, n, &r, &err))) {
        stsl_error_wrap(&err, "%s: re-running the reference", a.reference);
        code = fail(&err, rc == STSL_ENOMEM ? 1 : 3);
        goto out;
    }
    /* Metrics. */
    rep.ref_path = a.reference;
    rep.cand_path = a.candidate;
    static const char *const formats[] = {"csv", "hdf5", "stickslip result", "mat",
                                          "modelica result"};
    rep.cand_format = formats[cand.format];
    rep.t_units = ref.time_units[0] ? ref.time_units : "s";
    rep.x_units = ref.x_units;
    rep.v_units = ref.v_units;
    rep.n = n;
    rep.dropped = cand.n - n;
    rep.t_first = t[0];
    rep.t_last = t[n - 1];
    rep.t_end = t_end;
    stsl_compare_errors(t, r.x, r.v, x, v, n, &rep.e);
    rep.stuck_default = a.stuck_velocity < 0;
    rep.stuck_velocity = rep.stuck_default
                             ? stsl_compare_default_stuck_velocity(r.v, n, velocity_atol(&cfg))
                             : a.stuck_velocity;
    rs = malloc((size_t)n);
    cs = malloc((size_t)n);
    fn_mid = malloc(sizeof *fn_mid * (size_t)n);
    if (!rs || !cs || !fn_mid) {
        stsl_error_set(&err, STSL_ENOMEM, "out of memory");
        code = fail(&err, 1);
        goto out;
    }
    const int *cmode = cand.mode ? cand.mode + i0 : NULL;
    for (long i = 0; i < n; i++) {
        rs[i] = (unsigned char)(mode_is_stuck(r.mode[i], r.v[i], rep.stuck_velocity) ||
                                mode_is_stuck(r.mode_after[i], r.v[i], rep.stuck_velocity));
        cs[i] = (unsigned char)(cmode ? mode_is_stuck(cmode[i], v[i], rep.stuck_velocity)
                                      : fabs(v[i]) <= rep.stuck_velocity);
    }
    int smooth = 0;
    for (long i = 0; cmode && i < n; i++)
        smooth |= cmode[i] == STSL_MODE_SMOOTH;
    rep.cand_stuck_rule = !cmode   ? "candidate: |v| <= stuck velocity"
                          : smooth ? "candidate: its modes; SMOOTH: |v| <= stuck velocity"
                                   : "candidate: its mode column";
    stsl_compare_stuck(t, rs, cs, n, &rep.stuck);
    int from_file = 0;
    long ncev = candidate_events(&cand, t, v, cs, n, &from_file, &cev);
    if (ncev < 0) {
        stsl_error_set(&err, STSL_ENOMEM, "out of memory for the candidate's events");
        code = fail(&err, 1);
        goto out;
    }
    rep.cand_events_source =
        from_file ? "candidate events: its /events" : "candidate events: from its samples";
    rep.window_default = a.event_window < 0;
    rep.window = rep.window_default ? stsl_compare_default_event_window(t, n) : a.event_window;
    rep.rev = r.events;
    rep.n_rev = r.n_events;
    rep.cev = cev;
    rep.n_cev = ncev;
    if (stsl_compare_match_events(r.events, r.n_events, cev, ncev, rep.window, &rep.m, &err)) {
        code = fail(&err, 1);
        goto out;
    }
    /* The same quadrature for both, so that the difference is the
     * candidate's and not the quadrature's. */
    if (cand.friction) {
        rep.energy_method = "friction column, trapezoidal rule";
        rep.energy_ref = stsl_compare_energy_friction(t, r.f, r.v, n);
        rep.energy_cand = stsl_compare_energy_friction(t, cand.friction + i0, v, n);
    } else {
        rep.energy_method = "energy balance with the reference model's F_n";
        rep.energy_ref = energy_balance(el, t, r.x, r.v, n, fn_mid);
        rep.energy_cand = energy_balance(el, t, x, v, n, fn_mid);
    }
    print_table(&rep);
    if (a.output) {
        code = write_json(a.output, &rep);
        if (!code) printf("\nreport: %s\n", a.output);
    }
    stsl_compare_matching_free(&rep.m);
out:
    free(rs);
    free(cs);
    free(fn_mid);
    free(cev);
    aligned_free(&r);
    stsl_element_free(el);
    stsl_candidate_free(&cand);
out_cfg:
    stsl_config_free(&cfg);
    stsl_h5_result_free(&ref);
    return code;
}
