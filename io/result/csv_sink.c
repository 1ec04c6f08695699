/* csv_sink.c - CSV export written directly (no buffering beyond stdio's),
 * each file under a temporary name renamed into place by end(). */
#include "io/result/csv_sink.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/result/out_file.h"

typedef struct csv_sink {
    char *traj_path, *ev_path;
    FILE *traj, *ev; /* the files of out[0], out[1] */
    stsl_out_text out[2];
    int n_cols;
    stsl_layout layout; /* a copy: events name its kinds and (a system's) subjects */
    int has_mode;       /* a scalar mode column (the element; a system has none) */
    stsl_event_value val[STSL_EVENT_VALUES];
    int began, ended;
} csv_sink;

static int io_fail(stsl_error *err, const char *file, const char *what)
{
    return stsl_error_set(err, STSL_EIO, "%s: cannot %s: %s", file, what,
                          errno ? strerror(errno) : "unknown error");
}

/* The trajectory header: "t [s],x [m],...,mode"; a grouped column as
 * "x[motor] [m]"; no mode for a system. */
static int traj_header(csv_sink *c, const stsl_layout *l)
{
    int bad = fprintf(c->traj, "t [%s]", l->time_units ? l->time_units : "") < 0;
    for (int i = 0; i < l->n_cols && !bad; i++) {
        char name[256];
        stsl_layout_flat_name(l, i, name, sizeof name);
        bad = fprintf(c->traj, ",%s [%s]", name, stsl_layout_units(l, i)) < 0;
    }
    return bad || fputs(c->has_mode ? ",mode\n" : "\n", c->traj) < 0;
}

/* The events header: the element's "x [m],v_before [m/s],..."; a grouped
 * value as one field per member, "x[motor] [m]"; a system's events end
 * with the name of their contact or stop, "subject". */
static int events_header(csv_sink *c, const stsl_layout *l)
{
    int bad = fprintf(c->ev, "t [%s],kind,mode_before,mode_after",
                      l->time_units ? l->time_units : "") < 0;
    for (int i = 0; i < STSL_EVENT_VALUES && !bad; i++) {
        const stsl_event_value *v = &c->val[i];
        const char *u = stsl_layout_units(l, v->first);
        if (v->width == 0) bad = fprintf(c->ev, ",%s [%s]", v->name, u) < 0;
        for (int k = 0; k < v->width && !bad; k++) {
            const stsl_col_group *g = &l->groups[stsl_layout_group_of(l, v->first)];
            bad = fprintf(c->ev, ",%s[%s] [%s]", v->name, g->member_names[k], u) < 0;
        }
    }
    return bad || fputs(l->n_subjects > 0 ? ",subject\n" : "\n", c->ev) < 0;
}

static int csv_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    csv_sink *c = self;
    if (c->began || c->ended) return stsl_error_set(err, STSL_EINPUT, "CSV sink: begun twice");
    if (l->n_cols < 0 || (l->n_cols > 0 && !l->cols) || l->n_kinds < 0 ||
        (l->n_kinds > 0 && !l->kind_names))
        return stsl_error_set(err, STSL_EINPUT, "%s: invalid layout", c->traj_path);
    int rc = stsl_layout_check_groups(l, c->traj_path, err);
    if (rc) return rc;
    c->began = 1;
    c->n_cols = l->n_cols;
    c->has_mode = l->n_modes > 0; /* a system has none: its modes are groups */
    stsl_layout_event_values(l, c->val);
    if (stsl_layout_copy(l, &c->layout, NULL))
        return stsl_error_set(err, STSL_ENOMEM, "CSV sink: out of memory");

    errno = 0;
    if (traj_header(c, l)) return io_fail(err, c->traj_path, "write header");
    if (events_header(c, l)) return io_fail(err, c->ev_path, "write header");
    return STSL_OK;
}

static int csv_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    csv_sink *c = self;
    if (!c->began || c->ended)
        return stsl_error_set(err, STSL_EINPUT, "%s: sample outside begin()/end()", c->traj_path);
    errno = 0;
    int bad = fprintf(c->traj, "%.17g", t) < 0;
    for (int i = 0; i < c->n_cols && !bad; i++)
        bad = fprintf(c->traj, ",%.17g", cols[i]) < 0;
    if (bad || (c->has_mode ? fprintf(c->traj, ",%d\n", mode) : fputs("\n", c->traj)) < 0)
        return io_fail(err, c->traj_path, "write a sample");
    return STSL_OK;
}

/* The values of one event member: its source column(s) just before or
 * after, NaN when the layout has none. */
static int put_values(FILE *f, const stsl_event_value *v, const stsl_event_rec *ev)
{
    int bad = 0;
    for (int k = 0; k < (v->width > 0 ? v->width : 1) && !bad; k++)
        bad = fprintf(f, ",%.17g", stsl_event_value_at(v, ev->before, ev->after, k)) < 0;
    return bad;
}

static int csv_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    csv_sink *c = self;
    if (!c->began || c->ended)
        return stsl_error_set(err, STSL_EINPUT, "%s: event outside begin()/end()", c->ev_path);
    const stsl_layout *l = &c->layout;
    if (ev->kind < 0 || ev->kind >= l->n_kinds)
        return stsl_error_set(err, STSL_EINPUT, "%s: event kind %d out of range (0..%d)",
                              c->ev_path, ev->kind, l->n_kinds - 1);
    if (ev->subject < 0 || ev->subject > l->n_subjects)
        return stsl_error_set(err, STSL_EINPUT, "%s: event subject %d out of range (0..%d)",
                              c->ev_path, ev->subject, l->n_subjects);
    errno = 0;
    int bad = fprintf(c->ev, "%.17g,%s,%d,%d", ev->t, l->kind_names[ev->kind], ev->mode_before,
                      ev->mode_after) < 0;
    for (int i = 0; i < STSL_EVENT_VALUES && !bad; i++)
        bad = put_values(c->ev, &c->val[i], ev);
    if (!bad && l->n_subjects > 0)
        bad = fprintf(c->ev, ",%s", ev->subject > 0 ? l->subject_names[ev->subject - 1] : "") < 0;
    if (bad || fputs("\n", c->ev) < 0) return io_fail(err, c->ev_path, "write an event");
    return STSL_OK;
}

/* Both files are committed (or, after an error in one, both discarded)
 * so that end() leaves no open handle and no half pair behind. */
static int close_both(csv_sink *c, stsl_error *err)
{
    int renamed = c->out[0].f && c->out[0].tmp; /* not a device written in place */
    int rc = c->out[0].f ? stsl_out_text_commit(&c->out[0], err) : STSL_OK;
    if (rc) {
        stsl_out_text_discard(&c->out[1]);
    } else if (c->out[1].f && (rc = stsl_out_text_commit(&c->out[1], err)) && renamed) {
        remove(c->traj_path); /* the trajectory without its events: not a result */
    }
    c->traj = c->ev = NULL;
    return rc;
}

static int csv_end(void *self, const stsl_stats *st, int complete, const char *message,
                   stsl_error *err)
{
    (void)st;
    (void)complete;
    (void)message; /* CSV has no place for them; the HDF5 file keeps them */
    csv_sink *c = self;
    if (c->ended) return stsl_error_set(err, STSL_EINPUT, "CSV sink: ended twice");
    c->ended = 1;
    return close_both(c, err);
}

static void csv_destroy(void *self)
{
    csv_sink *c = self;
    if (!c) return;
    stsl_out_text_discard(&c->out[0]); /* no end(): an unfinished export */
    stsl_out_text_discard(&c->out[1]);
    stsl_layout_free(&c->layout);
    free(c->traj_path);
    free(c->ev_path);
    free(c);
}

static const stsl_sink_ops csv_ops = {csv_begin, csv_sample, csv_event, csv_end, csv_destroy};

static char *suffixed(const char *prefix, const char *suffix)
{
    size_t a = strlen(prefix), b = strlen(suffix);
    char *s = malloc(a + b + 1);
    if (s) {
        memcpy(s, prefix, a);
        memcpy(s + a, suffix, b + 1);
    }
    return s;
}

int stsl_csv_sink_create(const char *prefix, stsl_sink *out, stsl_error *err)
{
    int rc;
    if (!prefix || !out) return stsl_error_set(err, STSL_EINPUT, "CSV sink: no prefix given");
    csv_sink *c = calloc(1, sizeof *c);
    if (!c) return stsl_error_set(err, STSL_ENOMEM, "CSV sink: out of memory");
    c->traj_path = suffixed(prefix, "_trajectory.csv");
    c->ev_path = suffixed(prefix, "_events.csv");
    if (!c->traj_path || !c->ev_path) {
        rc = stsl_error_set(err, STSL_ENOMEM, "CSV sink: out of memory");
        goto err;
    }
    /* Opened here, not in begin(), so that a bad path fails before a run. */
    if ((rc = stsl_out_text_open(c->traj_path, &c->out[0], err)) != STSL_OK) goto err;
    if ((rc = stsl_out_text_open(c->ev_path, &c->out[1], err)) != STSL_OK) goto err;
    c->traj = c->out[0].f;
    c->ev = c->out[1].f;
    out->ops = &csv_ops;
    out->self = c;
    return STSL_OK;
err:
    csv_destroy(c);
    return rc;
}
