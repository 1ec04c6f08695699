/* compare.c - `stickslip compare REFERENCE.h5 CANDIDATE [--columns t,x,v | t=A,x=B:1,v=B:2]
 * [--stuck-velocity V] [--event-window T] [-o REPORT.json]`.
 *
 * The reference's /config is run again at the candidate's times and the
 * metrics computed by api/compare.h (where the alignment, the span and the
 * stuck rule are described; stsl_compare() of the C API is the same); this
 * file reads the two files and prints the report. */
#include "cli/compare.h"
#include "cli/compare_fmu.h"
#include "cli/fmu_opts.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/compare.h"
#include "api/summary_sink.h"
#include "cli/args.h"
#include "io/candidate.h"
#include "io/column_map.h"
#include "io/config.h"
#include "io/h5_read.h"
#include "io/out_file.h"
#include "io/safe_output.h"
/* Event rows listed in the table per list (all go to the JSON report). */
#define MAX_EVENT_ROWS 100

static const char *const usage =
    "usage: stickslip compare REFERENCE.h5 CANDIDATE [--columns t,x,v[,friction] |\n"
    "                         --columns t=A,x=B:1,v=B:2[,friction=C]]\n"
    "                         [--stuck-velocity V] [--event-window T] [-o REPORT.json]\n"
    "       stickslip compare REFERENCE.h5 --fmu MODEL.fmu --step H [--fmu-input N=SIG]...\n"
    "                         [--fmu-output C=NAME]... [--fmu-set N=VALUE]... [options]\n"
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
    "  -o, --output FILE.json  also write the report as JSON (whole or not at all; never\n"
    "                          REFERENCE or CANDIDATE)\n"
    "  --fmu MODEL.fmu         the candidate is an FMI 2.0 co-simulation FMU run at the\n"
    "                          communication step H (--step), the reference's signals\n"
    "                          as its inputs; --fmu-input, --fmu-output, --fmu-set map\n"
    "                          it as for converge, --fmu-scheme euler|rk4 integrates a\n"
    "                          model-exchange FMU (docs/fmu.md)\n"
    "  -h, --help              this help\n"
    "\n"
    "Candidate times outside the reference's [0, t_end] are dropped (and counted).\n"
    "Two results of a system of bodies are compared member by member, matched by\n"
    "name: x[body], v[body] errors, per contact the stuck times (as info counts them)\n"
    "and their overlap, its events and its friction's energy, per stop its events\n"
    "(the reference re-run at the candidate's times as for the element; their bodies,\n"
    "contacts and stops must be the same).  With --fmu, a system's reference is\n"
    "compared in the same way with the FMU standing for the system (its outputs\n"
    "x[BODY], v[BODY], friction[CONTACT]; stops are not compared).\n"
    "exit codes: 0 ok, 2 bad input (file, line and column named), 3 the reference's\n"
    "re-run failed, 1 the report could not be written\n";
static const stsl_cli_cmd cmd = {"stickslip compare", usage};

typedef struct cmp_args {
    const char *reference, *candidate, *output;
    const char *columns_given;           /* --columns as given (NULL: the default) */
    stsl_column_map columns;             /* t, x, v, friction (NULL) */
    double stuck_velocity, event_window; /* < 0: default */
    stsl_fmu_opts fmu;                   /* fmu.path: the candidate is an FMU */
    double step;                         /* its communication step (--step) */
} cmp_args;

/* Everything the comparison computed, for the table and the JSON. */
typedef struct report {
    const char *ref_path, *cand_path, *cand_format;
    stsl_cmp_report c;
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

/* With --fmu: REFERENCE only, and a step > 0. */
static int fmu_args(int argc, char **argv, cmp_args *a)
{
    if (optind != argc - 1) return arg_error("with --fmu, expected REFERENCE.h5 only%s", "");
    if (!(a->step > 0.0)) return arg_error("--fmu needs --step H (> 0, s)%s", "");
    if (a->columns_given) return arg_error("--columns %s: not with --fmu", a->columns_given);
    a->reference = argv[optind];
    a->candidate = a->fmu.path;
    return 0;
}

static int parse_args(int argc, char **argv, cmp_args *a)
{
    static const struct option longopts[] = {{"columns", required_argument, NULL, 'c'},
                                             {"stuck-velocity", required_argument, NULL, 's'},
                                             {"event-window", required_argument, NULL, 'w'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"step", required_argument, NULL, 'H'},
                                             STSL_CLI_FMU_LONGOPTS,
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
            a->columns_given = optarg;
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
        STSL_CLI_FMU_CASES:
            rc = stsl_cli_fmu_option(&cmd, &a->fmu, c, optarg);
            break;
        case 'H':
            rc = parse_positive("--step", optarg, &a->step);
            break;
        default:
            return arg_error("unknown or incomplete option: %s", argv[optind - 1]);
        }
    }
    if (rc) return rc;
    if (a->fmu.path) return fmu_args(argc, argv, a);
    if (optind != argc - 2) return arg_error("expected REFERENCE.h5 and CANDIDATE%s", "");
    a->reference = argv[optind];
    a->candidate = argv[optind + 1];
    return 0;
}

/* ---- the candidate's own events ----------------------------------------------- */

/* A stickslip result's /events as the comparison's event list (NULL, 0 for
 * other candidates); -1 when out of memory. */
static long candidate_events(const stsl_candidate *c, stsl_cmp_event **out)
{
    *out = NULL;
    if (!c->info || !c->mode) return 0;
    stsl_cmp_event *ev = malloc(sizeof *ev * (size_t)(c->info->n_events + 1));
    if (!ev) return -1;
    for (long i = 0; i < c->info->n_events; i++)
        stsl_compare_event_set(&ev[i], c->info->events[i].t, c->info->events[i].kind);
    *out = ev;
    return c->info->n_events;
}

/* ---- output -------------------------------------------------------------------- */

/* "KEY": V then `end`; null for a NaN (no pair, no time error: null rather
 * than a 0 that would read as perfect). */
static void json_val(FILE *f, const char *key, double v, const char *end)
{
    if (isfinite(v))
        fprintf(f, "\"%s\": %.17g%s", key, v, end);
    else
        fprintf(f, "\"%s\": null%s", key, end);
}

static void json_num(FILE *f, const char *key, double v, int comma)
{
    fputs("  ", f);
    json_val(f, key, v, comma ? ",\n" : "\n");
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
    stsl_error err;
    stsl_out_text t;
    if (stsl_out_text_open(path, &t, &err)) return stsl_cli_fail(&cmd, &err);
    FILE *f = t.f;
    fputs("{\n", f);
    json_str(f, "reference", r->ref_path);
    json_str(f, "candidate", r->cand_path);
    json_str(f, "candidate_format", r->cand_format);
    fprintf(f, "  \"n_points\": %ld,\n  \"points_dropped\": %ld,\n", r->c.n, r->c.dropped);
    json_num(f, "t_first", r->c.t_first, 1);
    json_num(f, "t_last", r->c.t_last, 1);
    json_num(f, "max_abs_error_x", r->c.e.max_abs_x, 1);
    json_num(f, "max_abs_error_v", r->c.e.max_abs_v, 1);
    json_num(f, "rms_error_x", r->c.e.rms_x, 1);
    json_num(f, "rms_error_v", r->c.e.rms_v, 1);
    json_num(f, "final_error_x", r->c.e.final_x, 1);
    json_num(f, "final_error_v", r->c.e.final_v, 1);
    json_num(f, "stuck_iou", r->c.stuck.iou, 1);
    json_num(f, "stuck_time_reference", r->c.stuck.ref_time, 1);
    json_num(f, "stuck_time_candidate", r->c.stuck.cand_time, 1);
    json_num(f, "stuck_velocity", r->c.stuck_velocity, 1);
    json_str(f, "candidate_stuck_rule", r->c.cand_stuck_rule);
    fprintf(f, "  \"events_matched\": %ld,\n  \"events_missed\": %ld,\n", r->c.m.n_matched,
            r->c.m.n_missed);
    fprintf(f, "  \"events_spurious\": %ld,\n", r->c.m.n_spurious);
    fprintf(f, "  \"events_ignored_reference\": %ld,\n  \"events_ignored_candidate\": %ld,\n",
            r->c.m.n_ignored_ref, r->c.m.n_ignored_cand);
    /* No pair, no time error: null rather than a 0 that would read as perfect. */
    json_num(f, "max_event_time_error", r->c.m.n_matched ? r->c.m.max_abs_dt : NAN, 1);
    json_num(f, "event_window", r->c.window, 1);
    json_str(f, "candidate_events_source", r->c.cand_events_source);
    json_num(f, "dissipated_energy_reference", r->c.energy_ref, 1);
    json_num(f, "dissipated_energy_candidate", r->c.energy_cand, 1);
    json_num(f, "dissipated_energy_difference", r->c.energy_cand - r->c.energy_ref, 1);
    json_str(f, "energy_method", r->c.energy_method);
    fputs("  \"units\": {\"t\": ", f);
    json_str_value(f, r->c.t_units);
    fputs(", \"x\": ", f);
    json_str_value(f, r->c.x_units);
    fputs(", \"v\": ", f);
    json_str_value(f, r->c.v_units);
    fputs(", \"energy\": \"" STSL_ENERGY_UNITS "\"},\n", f);
    fputs("  \"matched_events\": [\n", f);
    for (long k = 0; k < r->c.m.n_matched; k++) {
        const stsl_cmp_pair *p = &r->c.m.pairs[k];
        fputs("    {\"kind_reference\": ", f);
        json_str_value(f, r->c.rev[p->ref].kind);
        fputs(", \"kind_candidate\": ", f);
        json_str_value(f, r->c.cev[p->cand].kind);
        fprintf(f, ", \"t_reference\": %.17g, \"t_candidate\": %.17g, \"dt\": %.17g}%s\n",
                r->c.rev[p->ref].t, r->c.cev[p->cand].t, p->dt,
                k + 1 < r->c.m.n_matched ? "," : "");
    }
    fputs("  ],\n  \"missed_events\": [\n", f);
    for (long k = 0; k < r->c.m.n_missed; k++)
        json_event(f, &r->c.rev[r->c.m.missed[k]], k + 1 < r->c.m.n_missed);
    fputs("  ],\n  \"spurious_events\": [\n", f);
    for (long k = 0; k < r->c.m.n_spurious; k++)
        json_event(f, &r->c.cev[r->c.m.spurious[k]], k + 1 < r->c.m.n_spurious);
    fputs("  ]\n}\n", f);
    return stsl_out_text_commit(&t, &err) ? stsl_cli_fail(&cmd, &err) : 0;
}

static void print_table(const report *r)
{
    printf("Reference:   %s (its /config re-run at the candidate's %ld time points)\n", r->ref_path,
           r->c.n);
    printf("Candidate:   %s (%s), t = %.9g .. %.9g %s", r->cand_path, r->cand_format, r->c.t_first,
           r->c.t_last, r->c.t_units);
    if (r->c.dropped)
        printf(", %ld points outside [0, %.9g] %s dropped", r->c.dropped, r->c.t_end, r->c.t_units);
    printf("\n\n");
    printf("  %-38s %15s  %s\n", "quantity", "value", "unit");
    printf("  %-38s %15.6e  %s\n", "max |x error|", r->c.e.max_abs_x, r->c.x_units);
    printf("  %-38s %15.6e  %s\n", "RMS x error (time-weighted)", r->c.e.rms_x, r->c.x_units);
    printf("  %-38s %15.6e  %s\n", "final x error (candidate - reference)", r->c.e.final_x,
           r->c.x_units);
    printf("  %-38s %15.6e  %s\n", "max |v error|", r->c.e.max_abs_v, r->c.v_units);
    printf("  %-38s %15.6e  %s\n", "RMS v error (time-weighted)", r->c.e.rms_v, r->c.v_units);
    printf("  %-38s %15.6e  %s\n", "final v error (candidate - reference)", r->c.e.final_v,
           r->c.v_units);
    printf("  %-38s %15.9g  %s\n", "stuck time, reference", r->c.stuck.ref_time, r->c.t_units);
    printf("  %-38s %15.9g  %s\n", "stuck time, candidate", r->c.stuck.cand_time, r->c.t_units);
    printf("  %-38s %15.9g  %s\n", "stuck-time overlap (IoU)", r->c.stuck.iou, "-");
    printf("  %-38s %15.3e  %s  (%s%s)\n", "stuck velocity", r->c.stuck_velocity, r->c.v_units,
           r->c.cand_stuck_rule, r->c.stuck_default ? ", default" : "");
    printf("  %-38s %15ld\n", "events matched", r->c.m.n_matched);
    printf("  %-38s %15ld\n", "events missed (reference only)", r->c.m.n_missed);
    printf("  %-38s %15ld\n", "events spurious (candidate only)", r->c.m.n_spurious);
    if (r->c.m.n_matched)
        printf("  %-38s %15.6e  %s\n", "max |event time error|", r->c.m.max_abs_dt, r->c.t_units);
    else
        printf("  %-38s %15s  %s\n", "max |event time error|", "-", r->c.t_units);
    printf("  %-38s %15.6e  %s  (%s%s)\n", "event window", r->c.window, r->c.t_units,
           r->c.cand_events_source, r->c.window_default ? ", default" : "");
    printf("  %-38s %15.9g  %s\n", "dissipated energy, reference", r->c.energy_ref, "J");
    printf("  %-38s %15.9g  %s\n", "dissipated energy, candidate", r->c.energy_cand, "J");
    printf("  %-38s %15.6e  %s  (%s)\n", "dissipated energy difference",
           r->c.energy_cand - r->c.energy_ref, "J", r->c.energy_method);
    if (r->c.m.n_ignored_ref || r->c.m.n_ignored_cand)
        printf("  (not matched: %ld reference and %ld candidate load_reversal/input_step "
               "events)\n",
               r->c.m.n_ignored_ref, r->c.m.n_ignored_cand);
    if (r->c.m.n_matched + r->c.m.n_missed + r->c.m.n_spurious == 0) return;
    printf("\n  %-14s %-14s %18s %18s %14s\n", "reference", "candidate", "t_ref", "t_cand", "dt");
    long rows = 0;
    for (long k = 0; k < r->c.m.n_matched && rows < MAX_EVENT_ROWS; k++, rows++) {
        const stsl_cmp_pair *p = &r->c.m.pairs[k];
        printf("  %-14s %-14s %18.10f %18.10f %14.6e\n", r->c.rev[p->ref].kind,
               r->c.cev[p->cand].kind, r->c.rev[p->ref].t, r->c.cev[p->cand].t, p->dt);
    }
    for (long k = 0; k < r->c.m.n_missed && rows < MAX_EVENT_ROWS; k++, rows++)
        printf("  %-14s %-14s %18.10f %18s %14s\n", r->c.rev[r->c.m.missed[k]].kind, "(missed)",
               r->c.rev[r->c.m.missed[k]].t, "", "");
    for (long k = 0; k < r->c.m.n_spurious && rows < MAX_EVENT_ROWS; k++, rows++)
        printf("  %-14s %-14s %18s %18.10f %14s\n", "(spurious)", r->c.cev[r->c.m.spurious[k]].kind,
               "", r->c.cev[r->c.m.spurious[k]].t, "");
    long total = r->c.m.n_matched + r->c.m.n_missed + r->c.m.n_spurious;
    if (total > rows) printf("  ... %ld more (all in the JSON report, -o)\n", total - rows);
}

/* ---- systems' results ------------------------------------------------------------ */

static void print_events(const char *name, const stsl_compare_events *m, const char *t_units)
{
    printf("  %-20s %8ld %8ld %9ld", name, m->events_matched, m->events_missed, m->events_spurious);
    if (m->events_matched)
        printf(" %16.6e %s\n", m->max_event_time_error, t_units);
    else
        printf(" %16s %s\n", "-", t_units);
}

/* The rows "gx[member]" and "gv[member]": max |error|, RMS and final error. */
static void print_errors(const char *gx, const char *gv, const char *member, const double ex[3],
                         const double ev[3], const char *ux, const char *uv)
{
    char col[96];
    snprintf(col, sizeof col, "%s[%s]", gx, member);
    printf("  %-26s %15.6e %15.6e %15.6e  %s\n", col, ex[0], ex[1], ex[2], ux);
    snprintf(col, sizeof col, "%s[%s]", gv, member);
    printf("  %-26s %15.6e %15.6e %15.6e  %s\n", col, ev[0], ev[1], ev[2], uv);
}

static void print_sys_table(const char *ref, const stsl_h5_system *c,
                            const stsl_compare_system_report *p, int window_default)
{
    const stsl_h5_group *x = stsl_h5_system_group(c, "x"), *v = stsl_h5_system_group(c, "v");
    const char *tu = c->time_units;
    printf("Reference:   %s (its /config re-run at the candidate's %ld time points)\n", ref,
           p->n_points);
    printf("Candidate:   %s, t = %.9g .. %.9g %s", c->path, p->t_first, p->t_last, tu);
    if (p->points_dropped)
        printf(", %ld points outside the reference's span dropped", p->points_dropped);
    printf("\n\n  %-26s %15s %15s %15s  %s\n", "column", "max |error|", "RMS error", "final error",
           "unit");
    for (int k = 0; k < p->n_bodies; k++) {
        const stsl_compare_body *b = &p->bodies[k];
        print_errors("x", "v", b->name,
                     (double[]){b->max_abs_error_x, b->rms_error_x, b->final_error_x},
                     (double[]){b->max_abs_error_v, b->rms_error_v, b->final_error_v}, x->units,
                     v ? v->units : "");
    }
    const stsl_h5_group *f = stsl_h5_system_group(c, "friction"),
                        *w = stsl_h5_system_group(c, "slip_velocity");
    for (int k = 0; f && w && k < p->n_contacts; k++) {
        const stsl_compare_contact *o = &p->contacts[k];
        print_errors(
            "friction", "slip_velocity", o->name,
            (double[]){o->max_abs_error_friction, o->rms_error_friction, o->final_error_friction},
            (double[]){o->max_abs_error_slip_velocity, o->rms_error_slip_velocity,
                       o->final_error_slip_velocity},
            f->units, w->units);
    }
    if (p->n_contacts) {
        char h[3][48];
        snprintf(h[0], sizeof h[0], "stuck ref [%s]", tu);
        snprintf(h[1], sizeof h[1], "stuck cand [%s]", tu);
        snprintf(h[2], sizeof h[2], "energy ref/cand [J]");
        printf("\n  %-20s %16s %16s %9s %22s\n", "contact", h[0], h[1], "IoU", h[2]);
        for (int k = 0; k < p->n_contacts; k++) {
            const stsl_compare_contact *o = &p->contacts[k];
            printf("  %-20s %16.9g %16.9g %9.6f %10.6g/%-11.6g\n", o->name, o->stuck_time_reference,
                   o->stuck_time_candidate, o->stuck_iou, o->dissipated_energy_reference,
                   o->dissipated_energy_candidate);
        }
    }
    printf("\n  %-20s %8s %8s %9s %16s  (window %.3e %s%s)\n", "events about", "matched", "missed",
           "spurious", "max |dt|", p->event_window, tu, window_default ? ", default" : "");
    for (int k = 0; k < p->n_contacts; k++)
        print_events(p->contacts[k].name, &p->contacts[k].events, tu);
    for (int k = 0; k < p->n_stops; k++)
        print_events(p->stops[k].name, &p->stops[k].events, tu);
}

static void json_name(FILE *f, const char *s)
{
    fputs("{\"name\": ", f);
    json_str_value(f, s);
    fputs(", ", f);
}

/* A figure of the report under its own name (the JSON's keys are the
 * fields' names of stickslip.h). */
#define JSON_FIELD(f, s, field, end) json_val(f, #field, (s)->field, end)

static void json_events(FILE *f, const stsl_compare_events *m)
{
    fprintf(f, "\"events_matched\": %ld, \"events_missed\": %ld, \"events_spurious\": %ld, ",
            m->events_matched, m->events_missed, m->events_spurious);
    JSON_FIELD(f, m, max_event_time_error, "}");
}

static void json_contact(FILE *f, const stsl_compare_contact *o)
{
    json_name(f, o->name);
    JSON_FIELD(f, o, stuck_time_reference, ", ");
    JSON_FIELD(f, o, stuck_time_candidate, ", ");
    JSON_FIELD(f, o, stuck_iou, ", ");
    JSON_FIELD(f, o, dissipated_energy_reference, ", ");
    JSON_FIELD(f, o, dissipated_energy_candidate, ", ");
    JSON_FIELD(f, o, max_abs_error_friction, ", ");
    JSON_FIELD(f, o, rms_error_friction, ", ");
    JSON_FIELD(f, o, final_error_friction, ", ");
    JSON_FIELD(f, o, max_abs_error_slip_velocity, ", ");
    JSON_FIELD(f, o, rms_error_slip_velocity, ", ");
    JSON_FIELD(f, o, final_error_slip_velocity, ", ");
    json_events(f, &o->events);
}

static int write_sys_json(const char *path, const stsl_h5_system *c,
                          const stsl_compare_system_report *p)
{
    stsl_error err;
    stsl_out_text t;
    if (stsl_out_text_open(path, &t, &err)) return stsl_cli_fail(&cmd, &err);
    FILE *f = t.f;
    fputs("{\n  \"kind\": \"system\", ", f);
    fprintf(f, "\"n_points\": %ld, \"points_dropped\": %ld, ", p->n_points, p->points_dropped);
    JSON_FIELD(f, p, t_first, ", ");
    JSON_FIELD(f, p, t_last, ", ");
    JSON_FIELD(f, p, event_window, ",\n  \"bodies\": [\n");
    for (int k = 0; k < p->n_bodies; k++) {
        const stsl_compare_body *b = &p->bodies[k];
        fputs("    ", f);
        json_name(f, b->name);
        JSON_FIELD(f, b, max_abs_error_x, ", ");
        JSON_FIELD(f, b, rms_error_x, ", ");
        JSON_FIELD(f, b, final_error_x, ", ");
        JSON_FIELD(f, b, max_abs_error_v, ", ");
        JSON_FIELD(f, b, rms_error_v, ", ");
        JSON_FIELD(f, b, final_error_v, k + 1 < p->n_bodies ? "},\n" : "}\n");
    }
    fputs("  ],\n  \"contacts\": [\n", f);
    for (int k = 0; k < p->n_contacts; k++) {
        fputs("    ", f);
        json_contact(f, &p->contacts[k]);
        fputs(k + 1 < p->n_contacts ? ",\n" : "\n", f);
    }
    fputs("  ],\n  \"stops\": [\n", f);
    for (int k = 0; k < p->n_stops; k++) {
        fputs("    ", f);
        json_name(f, p->stops[k].name);
        json_events(f, &p->stops[k].events);
        fputs(k + 1 < p->n_stops ? ",\n" : "\n", f);
    }
    const stsl_h5_group *x = stsl_h5_system_group(c, "x"), *v = stsl_h5_system_group(c, "v");
    fprintf(f, "  ],\n  \"units\": {\"t\": \"%s\", \"x\": \"%s\", \"v\": \"%s\"}\n}\n",
            c->time_units, x ? x->units : "", v ? v->units : "");
    return stsl_out_text_commit(&t, &err) ? stsl_cli_fail(&cmd, &err) : 0;
}

/* ---- the command ------------------------------------------------------------------ */

static int fail(const stsl_error *err, int code)
{
    stsl_cli_error(&cmd, "%s", err->msg);
    return code;
}

/* The reference's /config, its relative table files next to the result:
 * 0, or the exit code after the message. */
static int load_reference(const char *path, stsl_h5_result *ref, stsl_config *cfg)
{
    stsl_error err = {0};
    if (stsl_h5_read(path, ref, &err)) return fail(&err, 2);
    if (!ref->config_yaml || !ref->config_yaml[0]) {
        stsl_h5_result_free(ref);
        stsl_error_set(&err, STSL_EINPUT, "%s: /config is empty: cannot re-run the reference",
                       path);
        return fail(&err, 2);
    }
    char dir[4096], origin[4200];
    snprintf(dir, sizeof dir, "%s", path);
    snprintf(origin, sizeof origin, "%s:/config", path);
    if (stsl_config_load_string(ref->config_yaml, origin, dirname(dir), NULL, 0, cfg, &err)) {
        stsl_h5_result_free(ref);
        return fail(&err, 2);
    }
    return 0;
}

/* The candidate system `c` against the re-run of `cfg`: the table and,
 * with -o, the JSON; the exit code. */
static int judge_systems(const cmp_args *a, const stsl_config *cfg, const stsl_h5_system *c)
{
    stsl_error err = {0};
    stsl_compare_system_report p;
    int code = 0, rerun_failed;
    if (!c->complete)
        fprintf(stderr, "%s: warning: %s is incomplete (%s); comparing what it has\n", cmd.prefix,
                c->path, c->message);
    if (stsl_cmp_systems(cfg, a->reference, c, a->event_window, &p, &rerun_failed, &err)) {
        if (rerun_failed) stsl_error_wrap(&err, "%s", a->reference);
        code = stsl_cli_fail(&cmd, &err);
        return rerun_failed && code == 2 ? 3 : code; /* the reference, not the input, failed */
    }
    print_sys_table(a->reference, c, &p, a->event_window < 0);
    if (a->output && !(code = write_sys_json(a->output, c, &p)))
        printf("\nreport: %s\n", a->output);
    stsl_compare_system_free(&p);
    return code;
}

/* One of the two inputs is a system's result and the other is not: say
 * why the other cannot stand beside it (a file that cannot be opened is
 * named as such, as for the element's candidate), the exit code. */
static int one_system(const cmp_args *a)
{
    int ref_sys = stsl_h5_is_system(a->reference);
    const char *sys = ref_sys ? a->reference : a->candidate;
    const char *other = ref_sys ? a->candidate : a->reference;
    FILE *f = fopen(other, "rb");
    if (!f) return stsl_cli_error(&cmd, "%s: cannot open: %s", other, strerror(errno));
    fclose(f);
    return stsl_cli_error(&cmd,
                          "%s: the result of a system of bodies; %s is not: compare a "
                          "system's result with another of the same system",
                          sys, other);
}

/* Two results of systems of bodies, or a system's result and an FMU of
 * that system: compared member by member (their columns are named by
 * their `names`, so --columns has nothing to say, and their contacts'
 * modes say when they are stuck). */
static int compare_systems(const cmp_args *a, int systems)
{
    if (systems == 1 && !a->fmu.path) return one_system(a);
    if (a->columns_given)
        return arg_error("--columns %s: not for systems' results (their columns are matched by "
                         "name)",
                         a->columns_given);
    if (a->stuck_velocity >= 0)
        return arg_error("%s", "--stuck-velocity: not for systems' results (their contacts' modes "
                               "say when they are stuck)");
    stsl_h5_result ref;
    stsl_config cfg;
    int code = load_reference(a->reference, &ref, &cfg);
    if (code) return code;
    stsl_h5_system c;
    stsl_error err = {0};
    int rc = a->fmu.path ? stsl_cli_fmu_system_candidate(&a->fmu, &cfg, a->step, &c, &err)
                         : stsl_h5_system_read(a->candidate, &c, &err);
    code = rc ? stsl_cli_fail(&cmd, &err) : judge_systems(a, &cfg, &c);
    stsl_h5_system_free(&c); /* nothing held after a failed read */
    stsl_config_free(&cfg);
    stsl_h5_result_free(&ref);
    return code;
}

int stsl_cli_compare(int argc, char **argv)
{
    cmp_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    stsl_error err = {0};
    const char *inputs[2] = {a.reference, a.candidate};
    stsl_output_file json_out = {a.output, "the JSON report", STSL_FMT_JSON, 0, 1};
    if (stsl_output_rule(inputs, 2, &json_out, 1, &err)) return fail(&err, 2);
    /* With --fmu the candidate is the FMU: a system when the reference is. */
    int systems =
        stsl_h5_is_system(a.reference) + (a.fmu.path ? 0 : stsl_h5_is_system(a.candidate));
    if (systems) return compare_systems(&a, systems);
    stsl_h5_result ref;
    stsl_config cfg;
    if ((rc = load_reference(a.reference, &ref, &cfg))) return rc;
    const char *const *nm = a.columns.names;
    stsl_cand_columns cols = {nm[STSL_ROLE_T], nm[STSL_ROLE_X], nm[STSL_ROLE_V], nm[STSL_ROLE_F]};
    stsl_candidate cand;
    stsl_cmp_event *cev = NULL;
    int code = 0;
    rc = a.fmu.path ? stsl_cli_fmu_candidate(&a.fmu, &cfg, a.step, &cand, &err)
                    : stsl_candidate_read(a.candidate, &cols, &cand, &err);
    if (rc) {
        code = fail(&err, a.fmu.path ? stsl_exit_code(rc) : 2);
        goto out_cfg;
    }
    if (cand.info && !cand.info->complete)
        fprintf(stderr,
                "stickslip compare: warning: %s is incomplete (%s); comparing what it has\n",
                cand.path, cand.info->message);
    long ncev = candidate_events(&cand, &cev);
    stsl_cmp_candidate c = {cand.path,     cand.n,    cand.t, cand.x, cand.v,
                            cand.friction, cand.mode, cev,    ncev};
    static const char *const formats[] = {"csv", "hdf5", "stickslip result", "mat",
                                          "modelica result"};
    report rep = {a.reference, a.candidate, a.fmu.path ? "fmu" : formats[cand.format], {0}};
    if (ncev < 0) {
        stsl_error_set(&err, STSL_ENOMEM, "out of memory for the candidate's events");
        code = fail(&err, 1);
    } else if ((rc = stsl_cmp_against(&cfg, &c, a.stuck_velocity, a.event_window, &rep.c, &err))) {
        if (rep.c.rerun_failed) stsl_error_wrap(&err, "%s", a.reference);
        code = fail(&err, rc == STSL_ENOMEM ? 1 : rep.c.rerun_failed ? 3 : 2);
    } else {
        print_table(&rep);
        if (a.output) {
            code = write_json(a.output, &rep);
            if (!code) printf("\nreport: %s\n", a.output);
        }
        stsl_cmp_report_free(&rep.c);
    }
    free(cev);
    stsl_candidate_free(&cand);
out_cfg:
    stsl_config_free(&cfg);
    stsl_h5_result_free(&ref);
    return code;
}
