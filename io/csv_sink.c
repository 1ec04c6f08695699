/* csv_sink.c - CSV export written directly (no buffering beyond stdio's). */
#include "io/csv_sink.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct csv_sink {
    char *traj_path, *ev_path;
    FILE *traj, *ev;
    int n_cols, n_kinds;
    char **kind_names; /* copied: the layout need not outlive begin() */
    int ix, iv, inet, ifr;
    int began, ended;
} csv_sink;

static int io_fail(stsl_error *err, const char *file, const char *what)
{
    return stsl_error_set(err, STSL_EIO, "%s: cannot %s: %s", file, what,
                          errno ? strerror(errno) : "unknown error");
}

static const char *units_of(const stsl_layout *l, int i)
{
    return i >= 0 && l->cols[i].units ? l->cols[i].units : "";
}

static int csv_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    csv_sink *c = self;
    if (c->began || c->ended) return stsl_error_set(err, STSL_EINPUT, "CSV sink: begun twice");
    if (l->n_cols < 0 || (l->n_cols > 0 && !l->cols) || l->n_kinds < 0 ||
        (l->n_kinds > 0 && !l->kind_names))
        return stsl_error_set(err, STSL_EINPUT, "%s: invalid layout", c->traj_path);
    c->began = 1;
    c->n_cols = l->n_cols;
    c->ix = stsl_layout_find(l, "x");
    c->iv = stsl_layout_find(l, "v");
    c->inet = stsl_layout_find(l, "net_force");
    c->ifr = stsl_layout_find(l, "friction");
    c->kind_names = calloc((size_t)l->n_kinds + 1, sizeof *c->kind_names);
    if (!c->kind_names) return stsl_error_set(err, STSL_ENOMEM, "CSV sink: out of memory");
    for (int i = 0; i < l->n_kinds; i++) {
        size_t n = strlen(l->kind_names[i]) + 1;
        if (!(c->kind_names[i] = malloc(n)))
            return stsl_error_set(err, STSL_ENOMEM, "CSV sink: out of memory");
        memcpy(c->kind_names[i], l->kind_names[i], n);
        c->n_kinds = i + 1;
    }

    errno = 0;
    int bad = fprintf(c->traj, "t [%s]", l->time_units ? l->time_units : "") < 0;
    for (int i = 0; i < l->n_cols && !bad; i++)
        bad = fprintf(c->traj, ",%s [%s]", l->cols[i].name, units_of(l, i)) < 0;
    if (bad || fputs(",mode\n", c->traj) < 0) return io_fail(err, c->traj_path, "write header");
    if (fprintf(c->ev,
                "t [%s],kind,mode_before,mode_after,x [%s],v_before [%s],v_after [%s],"
                "net_force [%s],friction [%s]\n",
                l->time_units ? l->time_units : "", units_of(l, c->ix), units_of(l, c->iv),
                units_of(l, c->iv), units_of(l, c->inet), units_of(l, c->ifr)) < 0)
        return io_fail(err, c->ev_path, "write header");
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
    if (bad || fprintf(c->traj, ",%d\n", mode) < 0)
        return io_fail(err, c->traj_path, "write a sample");
    return STSL_OK;
}

static double col_or_nan(const double *v, int i)
{
    return i >= 0 && v ? v[i] : NAN;
}

static int csv_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    csv_sink *c = self;
    if (!c->began || c->ended)
        return stsl_error_set(err, STSL_EINPUT, "%s: event outside begin()/end()", c->ev_path);
    if (ev->kind < 0 || ev->kind >= c->n_kinds)
        return stsl_error_set(err, STSL_EINPUT, "%s: event kind %d out of range (0..%d)",
                              c->ev_path, ev->kind, c->n_kinds - 1);
    errno = 0;
    if (fprintf(c->ev, "%.17g,%s,%d,%d,%.17g,%.17g,%.17g,%.17g,%.17g\n", ev->t,
                c->kind_names[ev->kind], ev->mode_before, ev->mode_after,
                col_or_nan(ev->before, c->ix), col_or_nan(ev->before, c->iv),
                col_or_nan(ev->after, c->iv), col_or_nan(ev->after, c->inet),
                col_or_nan(ev->after, c->ifr)) < 0)
        return io_fail(err, c->ev_path, "write an event");
    return STSL_OK;
}

/* fclose() reports write errors that stdio buffered; both files are closed
 * whatever happens so that end() leaves no open handle behind. */
static int close_both(csv_sink *c, stsl_error *err)
{
    int rc = STSL_OK;
    errno = 0;
    if (c->traj && fclose(c->traj) != 0) rc = io_fail(err, c->traj_path, "close");
    c->traj = NULL;
    errno = 0;
    if (c->ev && fclose(c->ev) != 0 && rc == STSL_OK) rc = io_fail(err, c->ev_path, "close");
    c->ev = NULL;
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
    close_both(c, NULL);
    if (c->kind_names)
        for (int i = 0; i < c->n_kinds; i++)
            free(c->kind_names[i]);
    free(c->kind_names);
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
    errno = 0;
    if (!(c->traj = fopen(c->traj_path, "w"))) {
        rc = io_fail(err, c->traj_path, "open for writing");
        goto err;
    }
    errno = 0;
    if (!(c->ev = fopen(c->ev_path, "w"))) {
        rc = io_fail(err, c->ev_path, "open for writing");
        goto err;
    }
    out->ops = &csv_ops;
    out->self = c;
    return STSL_OK;
err:
    csv_destroy(c);
    return rc;
}
