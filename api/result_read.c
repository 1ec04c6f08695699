/* result_read.c - stsl_result_read of stickslip.h.
 *
 * The file is read by io/result/h5_read (the one reader of the layout), or a MAT
 * result by io/result/mat_result into the same structures, and then
 * replayed into the sinks a run in memory feeds, the summary sink and the
 * memory sink: the result of a file and that of a run are made by the same
 * code from the same samples, so they agree to the last bit wherever the
 * file holds what the run computed. */
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/config_api.h"
#include "api/error.h"
#include "api/result.h"
#include "api/summary_sink.h"
#include "io/study/convergence_h5.h"
#include "io/result/h5_read.h"
#include "io/result/mat_result.h"
#include "io/study/study_h5.h"

/* The file's arrays: t, mode (NULL in a system's file) and one per
 * /trajectory dataset (a group's row-major, samples x width), as a MAT
 * result's are read (io/result/mat_result.h). */
typedef stsl_mat_arrays file_data;

/* Dataset `name` of the trajectory, of the same length as t and of the
 * width the reader found (0: 1-D). */
static int read_col(const char *path, const char *name, long n, int width, double **out,
                    stsl_error *err)
{
    long len = 0;
    int w = 0;
    int rc = stsl_h5_read_matrix(path, name, out, &len, &w, err);
    if (!rc && len != n)
        rc = stsl_error_set(err, STSL_EINPUT, "%s: /trajectory/%s has %ld rows, /trajectory/t %ld",
                            path, name, len, n);
    if (!rc && w != width)
        rc = stsl_error_set(err, STSL_EINPUT, "%s: /trajectory/%s has %d columns, expected %d",
                            path, name, w, width);
    return rc;
}

/* Everything HDF5 is asked, under the library's HDF5 lock. */
static int read_file(const char *path, stsl_h5_result *h, file_data *d, stsl_error *err)
{
    if (stsl_study_h5_is_study(path) == 1)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: a study file (stickslip sweep), not the result of one run "
                              "(read it with `stickslip info` or its --csv)",
                              path);
    if (stsl_convergence_h5_present(path) == STSL_CONV_ONLY)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: a convergence table (stickslip converge --h5), not the result "
                              "of a run (`stickslip info` prints it)",
                              path);
    int rc = stsl_h5_read(path, h, err);
    if (rc) return rc;
    rc = stsl_h5_read_column(path, "t", &d->t, &d->n, err);
    if (!rc && !stsl_h5_result_is_system(h)) rc = read_col(path, "mode", d->n, 0, &d->mode, err);
    for (int c = 0; !rc && c < h->n_cols; c++)
        rc = read_col(path, h->col_names[c], d->n, h->col_width[c], &d->cols[c], err);
    return rc;
}

/* Kind number of `kind`, added to the file's list when it is not there
 * (files older than /events kind_names); -1 when the list is full. */
static int kind_index(stsl_h5_result *h, const char *kind)
{
    for (int k = 0; k < h->n_kinds; k++)
        if (strcmp(h->kind_names[k], kind) == 0) return k;
    if (h->n_kinds == STSL_H5_MAX_KINDS) return -1;
    snprintf(h->kind_names[h->n_kinds], sizeof h->kind_names[0], "%s", kind);
    return h->n_kinds++;
}

static int col_index(const stsl_h5_result *h, const char *name)
{
    for (int c = 0; c < h->n_cols; c++)
        if (strcmp(h->col_names[c], name) == 0) return c;
    return -1;
}

/* The run's columns are flat (a group's members one after the other, in
 * the model's order); the file's datasets hold them together. */
typedef struct flat_cols {
    int n;                        /* flat columns */
    int first[STSL_H5_MAX_COLS];  /* the first flat column of each dataset */
    double *before, *after, *row; /* n values each */
    stsl_column *cols;            /* the layout's columns (n) */
    char **names;                 /* "x[motor]" for a group's members (n; NULL: the dataset's) */
    stsl_col_group *groups;       /* one per group dataset */
    int n_groups;
} flat_cols;

static int width1(int w)
{
    return w > 0 ? w : 1;
}

static void row_values(const stsl_h5_result *h, const file_data *d, const flat_cols *f, long i,
                       double *out)
{
    for (int c = 0; c < h->n_cols; c++) {
        int w = width1(h->col_width[c]);
        for (int k = 0; k < w; k++)
            out[f->first[c] + k] = d->cols[c][(size_t)i * (size_t)w + (size_t)k];
    }
}

/* An event without rows of its own (fixed-step schemes): what /events
 * holds, NaN for the rest. */
static void event_values(const stsl_h5_result *h, const flat_cols *f, const stsl_h5_event *e,
                         double *before, double *after)
{
    for (int c = 0; c < f->n; c++)
        before[c] = after[c] = NAN;
    int ix = col_index(h, "x"), iv = col_index(h, "v");
    int inet = col_index(h, "net_force"), ifr = col_index(h, "friction");
    if (ix >= 0 && !h->col_width[ix]) before[f->first[ix]] = e->x;
    if (iv >= 0 && !h->col_width[iv])
        before[f->first[iv]] = e->v_before, after[f->first[iv]] = e->v_after;
    if (inet >= 0 && !h->col_width[inet]) after[f->first[inet]] = e->net_force;
    if (ifr >= 0 && !h->col_width[ifr]) after[f->first[ifr]] = e->friction;
}

static int row_mode(const file_data *d, long r)
{
    return d->mode ? (int)d->mode[r] : -1;
}

/* The rows of the p events at one instant: the writer puts two rows per
 * event (before, after) in event order, after a grid sample that falls on
 * the instant and before the final sample when the run ends there.  So the
 * `extra` rows beyond 2p are leading or trailing; the offset whose rows
 * carry the events' modes is taken, leading ones first (a grid sample on an
 * event is far likelier than an event at t_end; a system's file has no
 * scalar mode to tell: its extra rows are taken as leading).  -1: no such
 * offset. */
static long pair_offset(const file_data *d, long first_row, long n_rows, const stsl_h5_event *ev,
                        long p)
{
    for (long o = n_rows - 2 * p; o >= 0; o--) {
        long q = 0;
        for (; q < p && d->mode; q++) {
            long r = first_row + o + 2 * q;
            if (row_mode(d, r) != ev[q].mode_before || row_mode(d, r + 1) != ev[q].mode_after)
                break;
        }
        if (q == p || !d->mode) return first_row + o;
    }
    return -1;
}

static int emit_rows(stsl_sink *s, const stsl_h5_result *h, const file_data *d, const flat_cols *f,
                     long from, long to, stsl_error *err)
{
    for (long i = from; i < to; i++) {
        row_values(h, d, f, i, f->row);
        int rc = stsl_sink_sample(s, d->t[i], row_mode(d, i), f->row, err);
        if (rc) return rc;
    }
    return STSL_OK;
}

/* The p events at time te, and the samples up to the end of that instant. */
static int emit_instant(stsl_sink *s, stsl_h5_result *h, const file_data *d, const flat_cols *f,
                        long *row, const stsl_h5_event *ev, long p, stsl_error *err)
{
    double te = ev[0].t;
    long first = *row, last;
    while (first < d->n && d->t[first] < te)
        first++;
    for (last = first; last < d->n && d->t[last] == te; last++)
        ;
    long pairs = last - first >= 2 * p ? pair_offset(d, first, last - first, ev, p) : -1;
    int rc = emit_rows(s, h, d, f, *row, last, err);
    for (long q = 0; !rc && q < p; q++) {
        if (pairs >= 0) {
            row_values(h, d, f, pairs + 2 * q, f->before);
            row_values(h, d, f, pairs + 2 * q + 1, f->after);
        } else {
            event_values(h, f, &ev[q], f->before, f->after);
        }
        stsl_event_rec rec = {te,
                              kind_index(h, ev[q].kind),
                              ev[q].mode_before,
                              ev[q].mode_after,
                              f->before,
                              f->after,
                              ev[q].subject};
        rc = stsl_sink_event(s, &rec, err);
    }
    *row = last;
    return rc;
}

static void flat_free(flat_cols *f)
{
    for (int c = 0; f->names && c < f->n; c++)
        free(f->names[c]);
    free(f->names);
    free(f->cols);
    free(f->groups);
    free(f->before);
    free(f->after);
    free(f->row);
}

/* Dataset c's group (a system's): its members are flat columns
 * "NAME[MEMBER]", each with the dataset's units and long name. */
static int flat_group(const stsl_h5_result *h, int c, flat_cols *f)
{
    int w = h->col_width[c], at = f->first[c];
    f->groups[f->n_groups++] =
        (stsl_col_group){h->col_names[c],
                         h->col_units[c],
                         h->col_long_names[c][0] ? h->col_long_names[c] : NULL,
                         at,
                         w,
                         (const char *const *)h->col_members[c],
                         h->col_integer[c],
                         h->col_n_values[c],
                         (const char *const *)h->col_values[c]};
    for (int k = 0; k < w; k++) {
        size_t len = strlen(h->col_names[c]) + strlen(h->col_members[c][k]) + 3;
        if (!(f->names[at + k] = malloc(len))) return -1;
        snprintf(f->names[at + k], len, "%s[%s]", h->col_names[c], h->col_members[c][k]);
        f->cols[at + k] = (stsl_column){f->names[at + k], h->col_units[c], NULL};
    }
    return 0;
}

/* The run's flat columns and groups from the file's datasets. */
static int flat_layout(const stsl_h5_result *h, flat_cols *f, stsl_error *err)
{
    for (int c = 0; c < h->n_cols; c++) {
        f->first[c] = f->n;
        f->n += width1(h->col_width[c]);
    }
    size_t n = (size_t)(f->n > 0 ? f->n : 1);
    f->cols = calloc(n, sizeof *f->cols);
    f->names = calloc(n, sizeof *f->names);
    f->groups = calloc((size_t)(h->n_cols > 0 ? h->n_cols : 1), sizeof *f->groups);
    f->before = malloc(n * sizeof *f->before);
    f->after = malloc(n * sizeof *f->after);
    f->row = malloc(n * sizeof *f->row);
    int ok = f->cols && f->names && f->groups && f->before && f->after && f->row;
    for (int c = 0; ok && c < h->n_cols; c++) {
        if (h->col_width[c] > 0)
            ok = flat_group(h, c, f) == 0;
        else
            f->cols[f->first[c]] =
                (stsl_column){h->col_names[c], h->col_units[c], h->col_long_names[c]};
    }
    return ok ? STSL_OK : stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", h->path);
}

/* The file as the sink calls of the run that wrote it. */
static int replay(stsl_h5_result *h, const file_data *d, stsl_sink *s, stsl_error *err)
{
    const char *modes[STSL_MAX_MODES], *kinds[STSL_H5_MAX_KINDS];
    for (long i = 0; i < h->n_events; i++)
        if (kind_index(h, h->events[i].kind) < 0)
            return stsl_error_set(err, STSL_EINPUT, "%s: more than %d event kinds", h->path,
                                  STSL_H5_MAX_KINDS);
    for (int m = 0; m < h->stats.n_modes; m++)
        modes[m] = h->mode_names[m];
    for (int k = 0; k < h->n_kinds; k++)
        kinds[k] = h->kind_names[k];
    flat_cols f = {0};
    int rc = flat_layout(h, &f, err);
    stsl_layout l = {.n_cols = f.n,
                     .cols = f.cols,
                     .time_units = h->time_units,
                     .n_modes = h->stats.n_modes,
                     .mode_names = modes,
                     .n_kinds = h->n_kinds,
                     .kind_names = kinds,
                     .n_groups = f.n_groups,
                     .groups = f.groups,
                     .n_subjects = h->n_subjects,
                     .subject_names = (const char *const *)h->subject_names};
    if (!rc) rc = stsl_sink_begin(s, &l, err);
    long row = 0;
    for (long i = 0; !rc && i < h->n_events;) {
        long p = 1;
        while (i + p < h->n_events && h->events[i + p].t == h->events[i].t)
            p++;
        rc = emit_instant(s, h, d, &f, &row, &h->events[i], p, err);
        i += p;
    }
    if (!rc) rc = emit_rows(s, h, d, &f, row, d->n, err);
    stsl_stats st = h->stats;
    st.work = NAN; /* not in the file: the summary's dissipated_energy is unknown */
    if (!rc) rc = stsl_sink_end(s, &st, h->complete, h->message, err);
    flat_free(&f);
    return rc;
}

/* The configuration of the file (/config), as `stickslip compare` loads it. */
static int load_config(const char *path, const stsl_h5_result *h, stsl_cfg **cfg, stsl_error *err)
{
    char dir[4096], origin[4200];
    snprintf(dir, sizeof dir, "%s", path);
    snprintf(origin, sizeof origin, "%s:/config", path);
    stsl_cfg *c = malloc(sizeof *c);
    if (!c) return stsl_error_set(err, STSL_ENOMEM, "out of memory for a configuration");
    int rc = stsl_config_load_string(h->config_yaml, origin, dirname(dir), NULL, 0, &c->c, err);
    if (rc) {
        free(c);
        return rc;
    }
    *cfg = c;
    return STSL_OK;
}

/* Replay the file into a new result; its names live in `h` (taken). */
static int build(stsl_h5_result *h, const file_data *d, stsl_result **out, stsl_error *err)
{
    stsl_sink mem = {0}, sum;
    stsl_summary_sink ss;
    stsl_result *r = calloc(1, sizeof *r);
    if (!r) return stsl_error_set(err, STSL_ENOMEM, "out of memory for a result");
    int rc = stsl_mem_sink_create(&mem, err);
    if (!rc) {
        stsl_summary_sink_init(&ss, &r->sum, &mem, &sum);
        rc = replay(h, d, &sum, err);
    }
    if (!rc) rc = stsl_api_result_take(r, stsl_mem_sink_result(&mem), err);
    stsl_sink_free(&mem);
    stsl_h5_result_free(h); /* the events and /config; the names stay */
    r->names = h;           /* freed with the result from here on */
    if (rc) {
        stsl_result_free(r);
        return rc;
    }
    *out = r;
    return STSL_OK;
}

stsl_rc stsl_result_read(const char *path, stsl_result **out, stsl_cfg **cfg, stsl_err *err)
{
    stsl_error e = {0};
    if (!out) return stsl_api_bad_arg(err, "stsl_result_read: out is NULL");
    *out = NULL;
    if (cfg) *cfg = NULL;
    if (!path) return stsl_api_bad_arg(err, "stsl_result_read: path is NULL");
    /* Only a regular file is read: opening a FIFO would wait for a writer. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return stsl_api_fail(err, STSL_EINPUT, "%s: %s, not a result file", path,
                             S_ISDIR(st.st_mode) ? "is a directory"
                                                 : "not a regular file (a FIFO, socket or device)");
    stsl_h5_result *h = calloc(1, sizeof *h);
    file_data d = {0};
    if (!h) return stsl_api_fail(err, STSL_ENOMEM, "out of memory for a result");
    int rc;
    if (stsl_mat_result_file(path)) {
        rc = stsl_mat_result_read(path, h, &d, &e);
    } else {
        stsl_hdf5_lock();
        rc = read_file(path, h, &d, &e);
        stsl_hdf5_unlock();
    }
    if (!rc && cfg) rc = load_config(path, h, cfg, &e);
    if (!rc) {
        rc = build(h, &d, out, &e); /* takes h */
        h = NULL;
    }
    if (rc && cfg) {
        stsl_cfg_free(*cfg);
        *cfg = NULL;
    }
    if (h) stsl_h5_result_free(h);
    free(h);
    stsl_mat_arrays_free(&d);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
