/* info_system.c - see info_system.h. */
#include "cli/info_system.h"

#include <math.h>
#include <string.h>

/* Events of `kind` (NULL: any) about subject `index`. */
static long count_events(const stsl_h5_system *s, const char *kind, int index)
{
    long n = 0;
    for (long i = 0; i < s->n_events; i++)
        n += s->events[i].index == index && (!kind || !strcmp(s->events[i].kind, kind));
    return n;
}

static void print_header(const stsl_h5_system *s, FILE *out)
{
    const stsl_stats *st = &s->stats;
    fprintf(out, "File:        %s\n", s->path);
    fprintf(out, "Program:     stickslip %s, created %s\n", s->version, s->created_utc);
    if (s->complete)
        fprintf(out, "Status:      complete\n");
    else
        fprintf(out, "Status:      INCOMPLETE: %s\n", s->message[0] ? s->message : "(no message)");
    fprintf(out, "Samples:     %ld\n", s->n_samples);
    if (s->n_samples > 0)
        fprintf(out, "Time span:   %.9g .. %.9g %s\n", s->t[0], s->t[s->n_samples - 1],
                s->time_units);
    fprintf(out,
            "Statistics:  %ld steps, %ld RHS evaluations, %ld guard evaluations, %ld events, "
            "%ld segments, wall time %.3f s\n",
            st->steps, st->rhs_evals, st->guard_evals, st->events, st->segments, st->wall_seconds);
}

/* A verified run's estimate (simulation.verify), largest over the bodies
 * (each body's: /stats estimated_error_x[BODY], ...). */
static void print_verify(const stsl_h5_system *s, FILE *out)
{
    const stsl_stats *st = &s->stats;
    const stsl_h5_group *x = stsl_h5_system_group(s, "x"), *v = stsl_h5_system_group(s, "v");
    if (st->verify == STSL_VERIFY_NONE) return;
    if (st->verify == STSL_VERIFY_FAILED) {
        fprintf(out, "Est. error:  unknown: the check run at rtol %g failed\n", st->verify_rtol);
        return;
    }
    fprintf(out,
            "Est. error:  event times %.2g %s, x %.2g %s, v %.2g %s, largest over the bodies "
            "(check run at rtol %g; %s)\n",
            st->err_event_time, s->time_units, st->err_x, x ? x->units : "", st->err_v,
            v ? v->units : "", st->verify_rtol,
            st->verify == STSL_VERIFY_MATCHED
                ? "events matched"
                : "EVENT SEQUENCES DIFFER, estimate over the events before the difference");
    if (st->verify == STSL_VERIFY_MISMATCH)
        fprintf(out, "             first differing event: number %ld\n", st->diff_event + 1);
}

/* Per body: final x, v and the range of x. */
static void print_bodies(const stsl_h5_system *s, FILE *out)
{
    const stsl_h5_group *x = stsl_h5_system_group(s, "x"), *v = stsl_h5_system_group(s, "v");
    long last = s->n_samples - 1;
    if (!x || last < 0) return;
    char h[4][48];
    snprintf(h[0], sizeof h[0], "final x [%s]", x->units);
    snprintf(h[1], sizeof h[1], "final v [%s]", v ? v->units : "");
    snprintf(h[2], sizeof h[2], "min x [%s]", x->units);
    snprintf(h[3], sizeof h[3], "max x [%s]", x->units);
    fprintf(out, "Bodies:      %d\n  %-16s %16s %16s %16s %16s\n", x->width, "body", h[0], h[1],
            h[2], h[3]);
    for (int m = 0; m < x->width; m++) {
        double lo = INFINITY, hi = -INFINITY;
        for (long i = 0; i <= last; i++) {
            lo = fmin(lo, stsl_h5_group_at(x, i, m));
            hi = fmax(hi, stsl_h5_group_at(x, i, m));
        }
        double vf = v && v->width == x->width ? stsl_h5_group_at(v, last, m) : NAN;
        fprintf(out, "  %-16s %16.9g %16.9g %16.9g %16.9g\n", x->members[m],
                stsl_h5_group_at(x, last, m), vf, lo, hi);
    }
}

/* Per contact: time stuck, stick and breakaway events, largest |friction|. */
static void print_contacts(const stsl_h5_system *s, FILE *out)
{
    const stsl_h5_group *cm = stsl_h5_system_group(s, "contact_mode"),
                        *fr = stsl_h5_system_group(s, "friction");
    if (!cm) return;
    double span = s->n_samples > 0 ? s->t[s->n_samples - 1] - s->t[0] : 0.0;
    char h[2][48];
    snprintf(h[0], sizeof h[0], "time stuck [%s]", s->time_units);
    snprintf(h[1], sizeof h[1], "max |friction| [%s]", fr ? fr->units : "");
    fprintf(out, "Contacts:    %d\n  %-16s %18s %8s %8s %10s %20s\n", cm->width, "contact", h[0],
            "stuck %", "sticks", "breakaways", h[1]);
    for (int m = 0; m < cm->width; m++) {
        double stuck = stsl_h5_time_in(s, cm, m, "STUCK"), fmax_abs = 0.0;
        for (long i = 0; fr && m < fr->width && i < s->n_samples; i++)
            fmax_abs = fmax(fmax_abs, fabs(stsl_h5_group_at(fr, i, m)));
        fprintf(out, "  %-16s %18.9g %8.2f %8ld %10ld %20.9g\n", cm->members[m], stuck,
                span > 0 ? 100.0 * stuck / span : 0.0, count_events(s, "stick", m),
                count_events(s, "breakaway", m), fr ? fmax_abs : NAN);
    }
}

/* Per stop: contacts (rigid: stop_contact, compliant: contact_begin), impacts. */
static void print_stops(const stsl_h5_system *s, FILE *out, int first_subject)
{
    const stsl_h5_group *sm = stsl_h5_system_group(s, "stop_mode");
    if (!sm) return;
    char h[48];
    snprintf(h, sizeof h, "time in contact [%s]", s->time_units);
    fprintf(out, "Stops:       %d\n  %-16s %9s %9s %22s\n", sm->width, "stop", "contacts",
            "impacts", h);
    for (int m = 0; m < sm->width; m++) {
        int subj = first_subject + m;
        long contacts =
            count_events(s, "stop_contact", subj) + count_events(s, "contact_begin", subj);
        double t_in = stsl_h5_time_in(s, sm, m, "LOW") + stsl_h5_time_in(s, sm, m, "HIGH");
        fprintf(out, "  %-16s %9ld %9ld %22.9g\n", sm->members[m], contacts,
                count_events(s, "impact", subj), t_in);
    }
}

/* Counts by kind and subject, in order of first appearance (few events in
 * a file's summary: a quadratic count is fine). */
static void print_counts(const stsl_h5_system *s, FILE *out)
{
    fprintf(out, "Events:      %ld\n", s->n_events);
    for (long i = 0; i < s->n_events; i++) {
        const stsl_h5_sys_event *e = &s->events[i];
        long first = 0;
        while (strcmp(s->events[first].kind, e->kind) || s->events[first].index != e->index)
            first++;
        if (first != i) continue;
        fprintf(out, "  %-16s %-16s %ld\n", e->kind, e->index >= 0 ? e->name : "-",
                count_events(s, e->kind, e->index));
    }
}

void stsl_system_print_info(const stsl_h5_system *s, FILE *out, long max_events)
{
    print_header(s, out);
    print_verify(s, out);
    print_bodies(s, out);
    print_contacts(s, out);
    const stsl_h5_group *cm = stsl_h5_system_group(s, "contact_mode");
    print_stops(s, out, cm ? cm->width : 0); /* subjects: contacts, then stops */
    print_counts(s, out);
    if (s->n_events == 0) return;
    char h[32];
    snprintf(h, sizeof h, "t [%s]", s->time_units);
    fprintf(out, "\n%18s  %-16s %s\n", h, "kind", "subject");
    long shown = max_events < 0 || max_events > s->n_events ? s->n_events : max_events;
    for (long i = 0; i < shown; i++)
        fprintf(out, "%18.12g  %-16s %s\n", s->events[i].t, s->events[i].kind,
                s->events[i].index >= 0 ? s->events[i].name : "-");
    if (shown < s->n_events) fprintf(out, "... %ld more\n", s->n_events - shown);
}
