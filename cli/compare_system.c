/* compare_system.c - see compare_system.h. */
#include "cli/compare_system.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "api/compare_system.h"
#include "io/out_file.h"

static void print_events(const char *name, const stsl_cmp_matching *m, const char *t_units)
{
    printf("  %-20s %8ld %8ld %9ld", name, m->n_matched, m->n_missed, m->n_spurious);
    if (m->n_matched)
        printf(" %16.6e %s\n", m->max_abs_dt, t_units);
    else
        printf(" %16s %s\n", "-", t_units);
}

/* The rows "x[member]" and "v[member]" of errors e (gx, gv: the groups' names). */
static void print_errors(const char *gx, const char *gv, const char *member,
                         const stsl_cmp_errors *e, const char *ux, const char *uv)
{
    char col[96];
    snprintf(col, sizeof col, "%s[%s]", gx, member);
    printf("  %-26s %15.6e %15.6e %15.6e  %s\n", col, e->max_abs_x, e->rms_x, e->final_x, ux);
    snprintf(col, sizeof col, "%s[%s]", gv, member);
    printf("  %-26s %15.6e %15.6e %15.6e  %s\n", col, e->max_abs_v, e->rms_v, e->final_v, uv);
}

static void print_table(const char *ref, const stsl_h5_system *c, const stsl_cmp_sys_report *p)
{
    const stsl_h5_group *x = stsl_h5_system_group(c, "x"), *v = stsl_h5_system_group(c, "v");
    const char *tu = c->time_units;
    printf("Reference:   %s (its /config re-run at the candidate's %ld time points)\n", ref, p->n);
    printf("Candidate:   %s, t = %.9g .. %.9g %s", c->path, p->t_first, p->t_last, tu);
    if (p->dropped) printf(", %ld points outside the reference's span dropped", p->dropped);
    printf("\n\n  %-26s %15s %15s %15s  %s\n", "column", "max |error|", "RMS error", "final error",
           "unit");
    for (int k = 0; k < p->n_bodies; k++)
        print_errors("x", "v", p->bodies[k].name, &p->bodies[k].e, x->units, v ? v->units : "");
    const stsl_h5_group *f = stsl_h5_system_group(c, "friction"),
                        *w = stsl_h5_system_group(c, "slip_velocity");
    for (int k = 0; f && w && k < p->n_contacts; k++)
        print_errors("friction", "slip_velocity", p->contacts[k].name, &p->contacts[k].e, f->units,
                     w->units);
    if (p->n_contacts) {
        char h[3][48];
        snprintf(h[0], sizeof h[0], "stuck ref [%s]", tu);
        snprintf(h[1], sizeof h[1], "stuck cand [%s]", tu);
        snprintf(h[2], sizeof h[2], "energy ref/cand [J]");
        printf("\n  %-20s %16s %16s %9s %22s\n", "contact", h[0], h[1], "IoU", h[2]);
        for (int k = 0; k < p->n_contacts; k++) {
            const stsl_cmp_contact *o = &p->contacts[k];
            printf("  %-20s %16.9g %16.9g %9.6f %10.6g/%-11.6g\n", o->name, o->stuck.ref_time,
                   o->stuck.cand_time, o->stuck.iou, o->energy_ref, o->energy_cand);
        }
    }
    printf("\n  %-20s %8s %8s %9s %16s  (window %.3e %s%s)\n", "events about", "matched", "missed",
           "spurious", "max |dt|", p->window, tu, p->window_default ? ", default" : "");
    for (int k = 0; k < p->n_contacts; k++)
        print_events(p->contacts[k].name, &p->contacts[k].m, tu);
    for (int k = 0; k < p->n_stops; k++)
        print_events(p->stops[k].name, &p->stops[k].m, tu);
}

/* ---- JSON ------------------------------------------------------------------------- */

static void json_num(FILE *f, const char *key, double v, const char *end)
{
    if (isfinite(v))
        fprintf(f, "\"%s\": %.17g%s", key, v, end);
    else
        fprintf(f, "\"%s\": null%s", key, end);
}

/* Names are body names (letters, digits, _ and -) or "contacts.N"/"stops.N":
 * nothing to escape but what a hand-made file might hold. */
static void json_name(FILE *f, const char *s)
{
    fputs("{\"name\": \"", f);
    for (; *s; s++)
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s >= 0x20)
            fputc(*s, f);
    fputs("\", ", f);
}

static void json_events(FILE *f, const stsl_cmp_matching *m)
{
    fprintf(f, "\"events_matched\": %ld, \"events_missed\": %ld, \"events_spurious\": %ld, ",
            m->n_matched, m->n_missed, m->n_spurious);
    json_num(f, "max_event_time_error", m->n_matched ? m->max_abs_dt : NAN, "}");
}

static int write_json(const stsl_cli_cmd *cmd, const char *path, const stsl_h5_system *c,
                      const stsl_cmp_sys_report *p)
{
    stsl_error err;
    stsl_out_text t;
    if (stsl_out_text_open(path, &t, &err)) return stsl_cli_fail(cmd, &err);
    FILE *f = t.f;
    fputs("{\n  \"kind\": \"system\", ", f);
    fprintf(f, "\"n_points\": %ld, \"points_dropped\": %ld, ", p->n, p->dropped);
    json_num(f, "t_first", p->t_first, ", ");
    json_num(f, "t_last", p->t_last, ", ");
    json_num(f, "event_window", p->window, ",\n  \"bodies\": [\n");
    for (int k = 0; k < p->n_bodies; k++) {
        const stsl_cmp_errors *e = &p->bodies[k].e;
        fputs("    ", f);
        json_name(f, p->bodies[k].name);
        json_num(f, "max_abs_error_x", e->max_abs_x, ", ");
        json_num(f, "rms_error_x", e->rms_x, ", ");
        json_num(f, "final_error_x", e->final_x, ", ");
        json_num(f, "max_abs_error_v", e->max_abs_v, ", ");
        json_num(f, "rms_error_v", e->rms_v, ", ");
        json_num(f, "final_error_v", e->final_v, k + 1 < p->n_bodies ? "},\n" : "}\n");
    }
    fputs("  ],\n  \"contacts\": [\n", f);
    for (int k = 0; k < p->n_contacts; k++) {
        const stsl_cmp_contact *o = &p->contacts[k];
        fputs("    ", f);
        json_name(f, o->name);
        json_num(f, "stuck_time_reference", o->stuck.ref_time, ", ");
        json_num(f, "stuck_time_candidate", o->stuck.cand_time, ", ");
        json_num(f, "stuck_iou", o->stuck.iou, ", ");
        json_num(f, "dissipated_energy_reference", o->energy_ref, ", ");
        json_num(f, "dissipated_energy_candidate", o->energy_cand, ", ");
        json_num(f, "max_abs_error_friction", o->e.max_abs_x, ", ");
        json_num(f, "rms_error_friction", o->e.rms_x, ", ");
        json_num(f, "final_error_friction", o->e.final_x, ", ");
        json_num(f, "max_abs_error_slip_velocity", o->e.max_abs_v, ", ");
        json_num(f, "rms_error_slip_velocity", o->e.rms_v, ", ");
        json_num(f, "final_error_slip_velocity", o->e.final_v, ", ");
        json_events(f, &o->m);
        fputs(k + 1 < p->n_contacts ? ",\n" : "\n", f);
    }
    fputs("  ],\n  \"stops\": [\n", f);
    for (int k = 0; k < p->n_stops; k++) {
        fputs("    ", f);
        json_name(f, p->stops[k].name);
        json_events(f, &p->stops[k].m);
        fputs(k + 1 < p->n_stops ? ",\n" : "\n", f);
    }
    fprintf(f, "  ],\n  \"units\": {\"t\": \"%s\", \"x\": \"%s\", \"v\": \"%s\"}\n}\n",
            c->time_units, stsl_h5_system_group(c, "x")->units,
            stsl_h5_system_group(c, "v") ? stsl_h5_system_group(c, "v")->units : "");
    return stsl_out_text_commit(&t, &err) ? stsl_cli_fail(cmd, &err) : 0;
}

int stsl_cli_compare_systems(const stsl_cli_cmd *cmd, const stsl_config *cfg, const char *ref,
                             const char *cand, double event_window, const char *json)
{
    stsl_error err = {0};
    stsl_h5_system c;
    if (stsl_h5_system_read(cand, &c, &err)) return stsl_cli_fail(cmd, &err);
    stsl_cmp_sys_report p;
    int code = 0;
    if (!c.complete)
        fprintf(stderr, "%s: warning: %s is incomplete (%s); comparing what it has\n", cmd->prefix,
                c.path, c.message);
    if (stsl_cmp_systems(cfg, ref, &c, event_window, &p, &err)) {
        if (p.rerun_failed) stsl_error_wrap(&err, "%s", ref);
        code = stsl_cli_fail(cmd, &err);
        if (p.rerun_failed && code == 2) code = 3; /* the reference, not the input, failed */
    } else {
        print_table(ref, &c, &p);
        if (json && !(code = write_json(cmd, json, &c, &p))) printf("\nreport: %s\n", json);
        stsl_cmp_sys_report_free(&p);
    }
    stsl_h5_system_free(&c);
    return code;
}
