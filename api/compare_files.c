/* compare_files.c - stsl_compare_files (stickslip.h): `stickslip compare
 * REFERENCE.h5 CANDIDATE` on files, the candidate read (or an FMU run), the
 * reference's /config run again at the candidate's times and the metrics
 * of api/compare.h (where the alignment, the span and the stuck rule are
 * described) printed as the command's table and, when asked, its JSON
 * report. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/compare.h"
#include "api/error.h"
#include "api/fmu_lazy.h"
#include "api/summary_sink.h"
#include "io/candidate/candidate.h"
#include "io/candidate/column_map.h"
#include "io/config/config.h"
#include "io/fmu/fmu_run.h"
#include "io/result/mat_result.h"
#include "io/result/mem_sink.h"
#include "io/result/h5_read.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"
/* Event rows listed in the table per list (all go to the JSON report). */
#define MAX_EVENT_ROWS 100

/* One call's outputs: the table and the warnings (memory streams), and
 * whether a failure is about the options. */
typedef struct sink {
    FILE *out, *warn;
    stsl_compare_files *o;
} sink;

/* The candidate's path: the FMU's or the file's. */
static const char *candidate_of(const stsl_compare_files *o)
{
    return o->fmu ? o->fmu : o->candidate;
}

/* Whether `path` is a system's result, read under the library's HDF5 lock
 * (stickslip.h, Threads: every HDF5 call of the API holds it, so that a
 * comparison may run beside runs that write HDF5 files). */
static int is_system(const char *path, stsl_error *damaged)
{
    stsl_hdf5_lock();
    int sys = stsl_system_result_is(path, damaged);
    stsl_hdf5_unlock();
    return sys;
}

/* Fail with `code` (an internal status: what the command's exit code
 * follows) and the message in *err. */
static int fail_as(stsl_error *err, int code)
{
    err->code = code;
    return code;
}

/* A failure about the options (the command prints its usage after it). */
static int bad_option(const sink *s, stsl_error *err, const char *msg)
{
    s->o->usage = 1;
    return stsl_error_set(err, STSL_EINPUT, "%s", msg);
}

/* Everything the comparison computed, for the table and the JSON. */
typedef struct report {
    const char *ref_path, *cand_path, *cand_format;
    stsl_cmp_report c;
} report;

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

static int write_json(const char *path, const report *r, stsl_error *err)
{
    stsl_out_text t;
    if (stsl_out_text_open(path, &t, err)) return err->code;
    FILE *f = t.f;
    fputs("{\n", f);
    json_str(f, "reference", r->ref_path);
    json_str(f, "candidate", r->cand_path);
    json_str(f, "candidate_format", r->cand_format);
    /* Keys: the fields' names of stsl_compare_metrics (stickslip.h). */
    const stsl_compare_metrics *p = &r->c.p;
#define JSON_LONG(field) fprintf(f, "  \"%s\": %ld,\n", #field, p->field)
#define JSON_NUM(field)  json_num(f, #field, p->field, 1)
#define JSON_STR(field)  json_str(f, #field, p->field)
    JSON_LONG(n_points);
    JSON_LONG(points_dropped);
    JSON_NUM(t_first);
    JSON_NUM(t_last);
    JSON_NUM(max_abs_error_x);
    JSON_NUM(max_abs_error_v);
    JSON_NUM(rms_error_x);
    JSON_NUM(rms_error_v);
    JSON_NUM(final_error_x);
    JSON_NUM(final_error_v);
    JSON_NUM(stuck_iou);
    JSON_NUM(stuck_time_reference);
    JSON_NUM(stuck_time_candidate);
    JSON_NUM(stuck_velocity);
    JSON_STR(candidate_stuck_rule);
    JSON_LONG(events_matched);
    JSON_LONG(events_missed);
    JSON_LONG(events_spurious);
    JSON_LONG(events_ignored_reference);
    JSON_LONG(events_ignored_candidate);
    JSON_NUM(max_event_time_error); /* NaN (null) without a pair: not a perfect 0 */
    JSON_NUM(event_window);
    JSON_STR(candidate_events_source);
    JSON_NUM(dissipated_energy_reference);
    JSON_NUM(dissipated_energy_candidate);
    JSON_NUM(dissipated_energy_difference);
    JSON_STR(energy_method);
#undef JSON_LONG
#undef JSON_NUM
#undef JSON_STR
    fputs("  \"units\": {\"t\": ", f);
    json_str_value(f, p->t_units);
    fputs(", \"x\": ", f);
    json_str_value(f, p->x_units);
    fputs(", \"v\": ", f);
    json_str_value(f, p->v_units);
    fputs(", \"energy\": \"" STSL_ENERGY_UNITS "\"},\n", f);
    fputs("  \"matched_events\": [\n", f);
    for (long k = 0; k < r->c.m.n_matched; k++) {
        const stsl_cmp_pair *q = &r->c.m.pairs[k];
        fputs("    {\"kind_reference\": ", f);
        json_str_value(f, r->c.rev[q->ref].kind);
        fputs(", \"kind_candidate\": ", f);
        json_str_value(f, r->c.cev[q->cand].kind);
        fprintf(f, ", \"t_reference\": %.17g, \"t_candidate\": %.17g, \"dt\": %.17g}%s\n",
                r->c.rev[q->ref].t, r->c.cev[q->cand].t, q->dt,
                k + 1 < r->c.m.n_matched ? "," : "");
    }
    fputs("  ],\n  \"missed_events\": [\n", f);
    for (long k = 0; k < r->c.m.n_missed; k++)
        json_event(f, &r->c.rev[r->c.m.missed[k]], k + 1 < r->c.m.n_missed);
    fputs("  ],\n  \"spurious_events\": [\n", f);
    for (long k = 0; k < r->c.m.n_spurious; k++)
        json_event(f, &r->c.cev[r->c.m.spurious[k]], k + 1 < r->c.m.n_spurious);
    fputs("  ]\n}\n", f);
    return stsl_out_text_commit(&t, err);
}

static void print_table(FILE *out, const report *r)
{
    fprintf(out, "Reference:   %s (its /config re-run at the candidate's %ld time points)\n",
            r->ref_path, r->c.p.n_points);
    fprintf(out, "Candidate:   %s (%s), t = %.9g .. %.9g %s", r->cand_path, r->cand_format,
            r->c.p.t_first, r->c.p.t_last, r->c.p.t_units);
    if (r->c.p.points_dropped)
        fprintf(out, ", %ld points outside [0, %.9g] %s dropped", r->c.p.points_dropped, r->c.t_end,
                r->c.p.t_units);
    fprintf(out, "\n\n");
    fprintf(out, "  %-38s %15s  %s\n", "quantity", "value", "unit");
    fprintf(out, "  %-38s %15.6e  %s\n", "max |x error|", r->c.p.max_abs_error_x, r->c.p.x_units);
    fprintf(out, "  %-38s %15.6e  %s\n", "RMS x error (time-weighted)", r->c.p.rms_error_x,
            r->c.p.x_units);
    fprintf(out, "  %-38s %15.6e  %s\n", "final x error (candidate - reference)",
            r->c.p.final_error_x, r->c.p.x_units);
    fprintf(out, "  %-38s %15.6e  %s\n", "max |v error|", r->c.p.max_abs_error_v, r->c.p.v_units);
    fprintf(out, "  %-38s %15.6e  %s\n", "RMS v error (time-weighted)", r->c.p.rms_error_v,
            r->c.p.v_units);
    fprintf(out, "  %-38s %15.6e  %s\n", "final v error (candidate - reference)",
            r->c.p.final_error_v, r->c.p.v_units);
    fprintf(out, "  %-38s %15.9g  %s\n", "stuck time, reference", r->c.p.stuck_time_reference,
            r->c.p.t_units);
    fprintf(out, "  %-38s %15.9g  %s\n", "stuck time, candidate", r->c.p.stuck_time_candidate,
            r->c.p.t_units);
    fprintf(out, "  %-38s %15.9g  %s\n", "stuck-time overlap (IoU)", r->c.p.stuck_iou, "-");
    fprintf(out, "  %-38s %15.3e  %s  (%s%s)\n", "stuck velocity", r->c.p.stuck_velocity,
            r->c.p.v_units, r->c.p.candidate_stuck_rule, r->c.stuck_default ? ", default" : "");
    fprintf(out, "  %-38s %15ld\n", "events matched", r->c.m.n_matched);
    fprintf(out, "  %-38s %15ld\n", "events missed (reference only)", r->c.m.n_missed);
    fprintf(out, "  %-38s %15ld\n", "events spurious (candidate only)", r->c.m.n_spurious);
    if (r->c.m.n_matched)
        fprintf(out, "  %-38s %15.6e  %s\n", "max |event time error|", r->c.m.max_abs_dt,
                r->c.p.t_units);
    else
        fprintf(out, "  %-38s %15s  %s\n", "max |event time error|", "-", r->c.p.t_units);
    fprintf(out, "  %-38s %15.6e  %s  (%s%s)\n", "event window", r->c.p.event_window,
            r->c.p.t_units, r->c.p.candidate_events_source, r->c.window_default ? ", default" : "");
    fprintf(out, "  %-38s %15.9g  %s\n", "dissipated energy, reference",
            r->c.p.dissipated_energy_reference, "J");
    fprintf(out, "  %-38s %15.9g  %s\n", "dissipated energy, candidate",
            r->c.p.dissipated_energy_candidate, "J");
    fprintf(out, "  %-38s %15.6e  %s  (%s)\n", "dissipated energy difference",
            r->c.p.dissipated_energy_difference, "J", r->c.p.energy_method);
    if (r->c.m.n_ignored_ref || r->c.m.n_ignored_cand)
        fprintf(out,
                "  (not matched: %ld reference and %ld candidate load_reversal/input_step "
                "events)\n",
                r->c.m.n_ignored_ref, r->c.m.n_ignored_cand);
    if (r->c.m.n_matched + r->c.m.n_missed + r->c.m.n_spurious == 0) return;
    fprintf(out, "\n  %-14s %-14s %18s %18s %14s\n", "reference", "candidate", "t_ref", "t_cand",
            "dt");
    long rows = 0;
    for (long k = 0; k < r->c.m.n_matched && rows < MAX_EVENT_ROWS; k++, rows++) {
        const stsl_cmp_pair *p = &r->c.m.pairs[k];
        fprintf(out, "  %-14s %-14s %18.10f %18.10f %14.6e\n", r->c.rev[p->ref].kind,
                r->c.cev[p->cand].kind, r->c.rev[p->ref].t, r->c.cev[p->cand].t, p->dt);
    }
    for (long k = 0; k < r->c.m.n_missed && rows < MAX_EVENT_ROWS; k++, rows++)
        fprintf(out, "  %-14s %-14s %18.10f %18s %14s\n", r->c.rev[r->c.m.missed[k]].kind,
                "(missed)", r->c.rev[r->c.m.missed[k]].t, "", "");
    for (long k = 0; k < r->c.m.n_spurious && rows < MAX_EVENT_ROWS; k++, rows++)
        fprintf(out, "  %-14s %-14s %18s %18.10f %14s\n", "(spurious)",
                r->c.cev[r->c.m.spurious[k]].kind, "", r->c.cev[r->c.m.spurious[k]].t, "");
    long total = r->c.m.n_matched + r->c.m.n_missed + r->c.m.n_spurious;
    if (total > rows) fprintf(out, "  ... %ld more (all in the JSON report, -o)\n", total - rows);
}

/* ---- systems' results ------------------------------------------------------------ */

static void print_events(FILE *out, const char *name, const stsl_compare_events *m,
                         const char *t_units)
{
    fprintf(out, "  %-20s %8ld %8ld %9ld", name, m->events_matched, m->events_missed,
            m->events_spurious);
    if (m->events_matched)
        fprintf(out, " %16.6e %s\n", m->max_event_time_error, t_units);
    else
        fprintf(out, " %16s %s\n", "-", t_units);
}

/* The rows "gx[member]" and "gv[member]": max |error|, RMS and final error. */
static void print_errors(FILE *out, const char *gx, const char *gv, const char *member,
                         const double ex[3], const double ev[3], const char *ux, const char *uv)
{
    char col[96];
    snprintf(col, sizeof col, "%s[%s]", gx, member);
    fprintf(out, "  %-26s %15.6e %15.6e %15.6e  %s\n", col, ex[0], ex[1], ex[2], ux);
    snprintf(col, sizeof col, "%s[%s]", gv, member);
    fprintf(out, "  %-26s %15.6e %15.6e %15.6e  %s\n", col, ev[0], ev[1], ev[2], uv);
}

static void print_sys_table(FILE *out, const char *ref, const stsl_h5_system *c,
                            const stsl_compare_system_report *p, int window_default)
{
    const stsl_h5_group *x = stsl_h5_system_group(c, "x"), *v = stsl_h5_system_group(c, "v");
    const char *tu = c->time_units;
    fprintf(out, "Reference:   %s (its /config re-run at the candidate's %ld time points)\n", ref,
            p->n_points);
    fprintf(out, "Candidate:   %s, t = %.9g .. %.9g %s", c->path, p->t_first, p->t_last, tu);
    if (p->points_dropped)
        fprintf(out, ", %ld points outside the reference's span dropped", p->points_dropped);
    fprintf(out, "\n\n  %-26s %15s %15s %15s  %s\n", "column", "max |error|", "RMS error",
            "final error", "unit");
    for (int k = 0; k < p->n_bodies; k++) {
        const stsl_compare_body *b = &p->bodies[k];
        print_errors(out, "x", "v", b->name,
                     (double[]){b->max_abs_error_x, b->rms_error_x, b->final_error_x},
                     (double[]){b->max_abs_error_v, b->rms_error_v, b->final_error_v}, x->units,
                     v ? v->units : "");
    }
    const stsl_h5_group *f = stsl_h5_system_group(c, "friction"),
                        *w = stsl_h5_system_group(c, "slip_velocity");
    for (int k = 0; f && w && k < p->n_contacts; k++) {
        const stsl_compare_contact *o = &p->contacts[k];
        print_errors(
            out, "friction", "slip_velocity", o->name,
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
        fprintf(out, "\n  %-20s %16s %16s %9s %22s\n", "contact", h[0], h[1], "IoU", h[2]);
        for (int k = 0; k < p->n_contacts; k++) {
            const stsl_compare_contact *o = &p->contacts[k];
            fprintf(out, "  %-20s %16.9g %16.9g %9.6f %10.6g/%-11.6g\n", o->name,
                    o->stuck_time_reference, o->stuck_time_candidate, o->stuck_iou,
                    o->dissipated_energy_reference, o->dissipated_energy_candidate);
        }
    }
    fprintf(out, "\n  %-20s %8s %8s %9s %16s  (window %.3e %s%s)\n", "events about", "matched",
            "missed", "spurious", "max |dt|", p->event_window, tu,
            window_default ? ", default" : "");
    for (int k = 0; k < p->n_contacts; k++)
        print_events(out, p->contacts[k].name, &p->contacts[k].events, tu);
    for (int k = 0; k < p->n_stops; k++)
        print_events(out, p->stops[k].name, &p->stops[k].events, tu);
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
                          const stsl_compare_system_report *p, stsl_error *err)
{
    stsl_out_text t;
    if (stsl_out_text_open(path, &t, err)) return err->code;
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
    return stsl_out_text_commit(&t, err);
}

/* ---- the comparison ------------------------------------------------------------- */

/* The reference's /config, its relative table files next to the result. */
static int load_reference(const char *path, stsl_h5_result *ref, stsl_config *cfg, stsl_error *err)
{
    stsl_hdf5_lock();
    int rc = stsl_h5_read(path, ref, err);
    stsl_hdf5_unlock();
    if (rc) return fail_as(err, STSL_EINPUT);
    if (!ref->config_yaml || !ref->config_yaml[0]) {
        stsl_h5_result_free(ref);
        return stsl_error_set(err, STSL_EINPUT, "%s: /config is empty: cannot re-run the reference",
                              path);
    }
    char dir[4096], origin[4200];
    snprintf(dir, sizeof dir, "%s", path);
    snprintf(origin, sizeof origin, "%s:/config", path);
    if (stsl_config_load_string(ref->config_yaml, origin, dirname(dir), NULL, 0, cfg, err)) {
        stsl_h5_result_free(ref);
        return fail_as(err, STSL_EINPUT);
    }
    return 0;
}

/* The code of a comparison that failed with `rc`: memory is memory; a
 * failure of the reference's re-run is the reference's (named; exit 3 even
 * when the configuration it re-ran was refused), any other the input's. */
static int judged(const stsl_compare_files *o, int rc, int rerun_failed, stsl_error *err)
{
    if (rerun_failed) stsl_error_wrap(err, "%s", o->reference);
    return fail_as(err, rc == STSL_ENOMEM         ? STSL_ENOMEM
                        : !rerun_failed           ? STSL_EINPUT
                        : stsl_exit_code(rc) == 3 ? rc
                                                  : STSL_ESOLVER);
}

/* One of the two inputs is a system's result and the other is not: say
 * why the other cannot stand beside it (a file that cannot be opened is
 * named as such, as for the element's candidate). */
static int one_system(const stsl_compare_files *o, stsl_error *err)
{
    int ref_sys = is_system(o->reference, NULL);
    const char *sys = ref_sys ? o->reference : candidate_of(o);
    const char *other = ref_sys ? candidate_of(o) : o->reference;
    FILE *f = fopen(other, "rb");
    if (!f) return stsl_error_set(err, STSL_EINPUT, "%s: cannot open: %s", other, strerror(errno));
    fclose(f);
    err->code = STSL_OK;
    if (!is_system(other, err) && err->code) return err->code; /* a damaged MAT file */
    return stsl_error_set(err, STSL_EINPUT,
                          "%s: the result of a system of bodies; %s is not: compare a "
                          "system's result with another of the same system",
                          sys, other);
}

/* The FMU's options *fo and its support module, or NULL (err set). */
static const stsl_fmu_module_api *fmu_module(const stsl_compare_files *o, stsl_fmu_opts *fo,
                                             stsl_error *err)
{
    return STSL_FMU_OPTS_OF(fo, o, err) ? NULL : stsl_fmu_module_load(o->fmu_module, err);
}

/* `compare REF.h5 --fmu MODEL.fmu --step H` when REF is a system's result:
 * the FMU of `o`, mapped onto the system of `cfg` (io/fmu/fmu_run.h), run
 * from 0 to t_end at its step, its samples as a system's result *c named
 * by the FMU's path, which stsl_cmp_systems then compares as it compares a
 * result file: groups x, v, friction (NaN for a contact without a friction
 * output), slip_velocity and contact_mode (stuck by the slip velocity), the
 * events seen per contact, no stops.  On failure *c holds nothing to free;
 * the FMU's file or mapping is STSL_EINPUT, its failure during the run
 * STSL_EMODEL (io/fmu/fmu_run.h). */
static int fmu_system_candidate(const stsl_compare_files *o, const stsl_config *cfg,
                                stsl_h5_system *c, stsl_error *err)
{
    memset(c, 0, sizeof *c);
    stsl_fmu_opts fo;
    const stsl_fmu_module_api *m = fmu_module(o, &fo, err);
    if (!m) return err->code;
    if (!cfg->is_system)
        return stsl_error_set(err, STSL_EINPUT, "%s: the reference is not a system of bodies",
                              fo.path);
    fo.system = &cfg->system; /* the FMU stands for the whole system */
    stsl_fmu *f = NULL;
    stsl_sink sink = {0};
    int rc = m->open(&fo, &cfg->element, &f, err);
    if (!rc) rc = stsl_mem_sink_create(&sink, err);
    if (!rc) rc = m->run(f, cfg->sim.t_end, o->fmu_step, &sink, NULL, err);
    m->close(f);
    if (!rc) {
        const stsl_mem_result *mr = stsl_mem_sink_result(&sink);
        rc = stsl_h5_system_of_run(fo.path, mr, mr->t, mr->cols, mr->n_samples, c, err);
    }
    stsl_sink_free(&sink);
    return rc;
}

/* Two results of systems of bodies, or a system's result and an FMU of
 * that system, are compared member by member: their columns are named by
 * their `names`, so --columns has nothing to say, and their contacts'
 * modes say when they are stuck.  Fail when the options say otherwise. */
static int system_options(const sink *s, int systems, stsl_error *err)
{
    const stsl_compare_files *o = s->o;
    char msg[4200];
    if (systems == 1 && !o->fmu) return one_system(o, err);
    if (o->columns) {
        snprintf(msg, sizeof msg,
                 "--columns %s: not for systems' results (their columns are matched by name)",
                 o->columns);
        return bad_option(s, err, msg);
    }
    if (o->stuck_velocity >= 0)
        return bad_option(s, err,
                          "--stuck-velocity: not for systems' results (their contacts' modes "
                          "say when they are stuck)");
    return STSL_OK;
}

/* The candidate system (a result, or the FMU standing for the system of
 * `cfg`) against the re-run of `cfg`: the table and, with a JSON path, the
 * report. */
static int judge_systems(const sink *s, const stsl_config *cfg, stsl_error *err)
{
    const stsl_compare_files *o = s->o;
    stsl_h5_system c;
    if (o->fmu) {
        if (fmu_system_candidate(o, cfg, &c, err)) return err->code;
    } else {
        stsl_hdf5_lock();
        int failed = stsl_system_result_read(candidate_of(o), &c, err);
        stsl_hdf5_unlock();
        if (failed) return err->code;
    }
    if (!c.complete)
        fprintf(s->warn, "%s is incomplete (%s); comparing what it has\n", c.path, c.message);
    stsl_compare_system_report p;
    int rerun_failed;
    int rc = stsl_cmp_systems(cfg, o->reference, &c, o->event_window, &p, &rerun_failed, err);
    if (rc) {
        rc = judged(o, rc, rerun_failed, err);
    } else {
        print_sys_table(s->out, o->reference, &c, &p, !(o->event_window >= 0));
        rc = o->json ? write_sys_json(o->json, &c, &p, err) : 0;
        stsl_compare_system_free(&p);
    }
    stsl_h5_system_free(&c);
    return rc;
}

/* Run the FMU of `o` on the element of `cfg` from 0 to its t_end at its
 * step into *c (format: CSV, its rows the communication points); on
 * failure *c holds nothing to free. */
static int fmu_candidate(const stsl_compare_files *o, const stsl_config *cfg, stsl_candidate *c,
                         stsl_error *err)
{
    memset(c, 0, sizeof *c);
    if (cfg->is_system)
        return stsl_error_set(err, STSL_EINPUT,
                              "--fmu: the reference's /config is a system of bodies, but its "
                              "file is not a system's result");
    stsl_fmu_opts fo;
    const stsl_fmu_module_api *m = fmu_module(o, &fo, err);
    if (!m) return err->code;
    stsl_fmu *f = NULL;
    stsl_fmu_samples smp;
    int rc = m->open(&fo, &cfg->element, &f, err);
    if (!rc) rc = m->run_samples(f, cfg->sim.t_end, o->fmu_step, &smp, err);
    m->close(f);
    if (rc) return rc;
    snprintf(c->path, sizeof c->path, "%s", o->fmu);
    c->format = STSL_CAND_CSV;
    c->n = smp.n;
    c->t = smp.t, c->x = smp.x, c->v = smp.v, c->friction = smp.friction;
    return STSL_OK;
}

/* The element's candidate against the re-run of `cfg`. */
static int judge_element(const sink *s, const stsl_config *cfg, const stsl_column_map *map,
                         stsl_error *err)
{
    const stsl_compare_files *o = s->o;
    const char *const *nm = map->names;
    stsl_cand_columns cols = {nm[STSL_ROLE_T], nm[STSL_ROLE_X], nm[STSL_ROLE_V], nm[STSL_ROLE_F]};
    stsl_candidate cand;
    stsl_cmp_event *cev = NULL;
    int rc;
    if (o->fmu) {
        rc = fmu_candidate(o, cfg, &cand, err);
    } else { /* an HDF5 or MAT candidate is read by HDF5 calls */
        stsl_hdf5_lock();
        rc = stsl_candidate_read(o->candidate, &cols, &cand, err);
        stsl_hdf5_unlock();
    }
    if (rc) return o->fmu ? rc : fail_as(err, STSL_EINPUT);
    if (cand.info && !cand.info->complete)
        fprintf(s->warn, "%s is incomplete (%s); comparing what it has\n", cand.path,
                cand.info->message);
    long ncev = candidate_events(&cand, &cev);
    stsl_cmp_candidate c = {cand.path,     cand.n,    cand.t, cand.x, cand.v,
                            cand.friction, cand.mode, cev,    ncev};
    static const char *const formats[] = {"csv", "hdf5", "stickslip result", "mat",
                                          "modelica result"};
    report rep = {.ref_path = o->reference,
                  .cand_path = candidate_of(o),
                  .cand_format = o->fmu ? "fmu" : formats[cand.format]};
    if (ncev < 0) {
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory for the candidate's events");
    } else if ((rc = stsl_cmp_one_body(cfg, &c, o->stuck_velocity, o->event_window, &rep.c, err))) {
        rc = judged(o, rc, rep.c.rerun_failed, err);
    } else {
        print_table(s->out, &rep);
        if (o->json) rc = write_json(o->json, &rep, err);
        stsl_cmp_report_free(&rep.c);
    }
    free(cev);
    stsl_candidate_free(&cand);
    return rc;
}

static int compare_files(const sink *s, stsl_error *err)
{
    const stsl_compare_files *o = s->o;
    stsl_column_map map;
    if (stsl_column_map_parse(o->columns ? o->columns : "t,x,v", &map, err)) {
        s->o->usage = 1;
        return err->code;
    }
    const char *candidate = candidate_of(o);
    const char *inputs[2] = {o->reference, candidate};
    stsl_output_file json_out = {o->json, "the JSON report", STSL_FMT_JSON, 0, 1};
    if (stsl_output_rule(inputs, 2, &json_out, 1, err)) return fail_as(err, STSL_EINPUT);
    /* With --fmu the candidate is the FMU: a system when the reference is. */
    int systems = is_system(o->reference, NULL) + (o->fmu ? 0 : is_system(candidate, NULL));
    int rc = systems ? system_options(s, systems, err) : 0;
    stsl_h5_result ref;
    stsl_config cfg;
    if (rc || (rc = load_reference(o->reference, &ref, &cfg, err))) return rc;
    rc = systems ? judge_systems(s, &cfg, err) : judge_element(s, &cfg, &map, err);
    stsl_config_free(&cfg);
    stsl_h5_result_free(&ref);
    return rc;
}

stsl_rc stsl_compare_columns(const char *columns, stsl_err *err)
{
    stsl_column_map map;
    stsl_error e = {0};
    if (!columns) return stsl_api_bad_arg(err, "stsl_compare_columns: columns is NULL");
    return stsl_column_map_parse(columns, &map, &e) ? stsl_api_err(err, &e) : STSL_RC_OK;
}

/* A memory stream's text (*buf, set when it is closed), or NULL (freed)
 * when it failed or holds nothing (stickslip.h: "NULL when there is
 * none"). */
static char *closed(FILE *f, char **buf)
{
    if (!f || fclose(f) || !**buf) {
        free(*buf);
        return NULL;
    }
    return *buf;
}

stsl_rc stsl_compare_files_run(stsl_compare_files *o, char **text, char **warnings, stsl_err *err)
{
    if (text) *text = NULL;
    if (warnings) *warnings = NULL;
    if (!o || !o->reference || !(o->candidate || o->fmu) || !text || !warnings)
        return stsl_api_bad_arg(err, "stsl_compare_files_run: NULL argument");
    o->usage = 0;
    char *out_buf = NULL, *warn_buf = NULL;
    size_t out_len = 0, warn_len = 0;
    sink s = {open_memstream(&out_buf, &out_len), open_memstream(&warn_buf, &warn_len), o};
    stsl_error e = {0};
    int rc =
        s.out && s.warn ? compare_files(&s, &e) : stsl_error_set(&e, STSL_ENOMEM, "out of memory");
    *text = closed(s.out, &out_buf);
    *warnings = closed(s.warn, &warn_buf);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
