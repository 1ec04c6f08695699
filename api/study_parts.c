/* study_parts.c - the study of stickslip.h, whole (stsl_study_run,
 * stsl_study_run_with) and in parts (stsl_study_plan, stsl_study_rows,
 * stsl_study_file, the study file's overview and CSV): the public face of
 * api/sweep and io/study/study_h5 for the command line, stickslip-mpi and
 * the Python package, which include stickslip.h only. */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "api/sweep.h"
#include "include/stickslip.h"
#include "io/result/safe_output.h"
#include "io/study/study_h5.h"

/* The cancel flag is the int of stsl_cancel_request; the sweep reads its
 * stop flag as a sig_atomic_t, which is that int on every platform the
 * library builds on (glibc, musl, macOS). */
_Static_assert(sizeof(sig_atomic_t) == sizeof(int), "sig_atomic_t is not an int");
/* The public sizes are the file's: a summary copied field by field fits. */
_Static_assert(STSL_STUDY_KEYS_MAX == STSL_STUDY_MAX_KEYS, "study keys");
_Static_assert(STSL_STUDY_COLS_MAX == STSL_STUDY_MAX_COLS, "study columns");
_Static_assert(STSL_STUDY_MESSAGE_MAX == STSL_ROW_MSG_MAX, "study messages");
/* A block of rows holds each row, its events and its run one after
 * another, every part starting at a multiple of 8 bytes (the rows' and
 * events' alignment), so that they are used in place. */
#define ROW_ALIGN 8
_Static_assert(alignof(stsl_study_row) <= ROW_ALIGN && sizeof(stsl_study_row) % ROW_ALIGN == 0,
               "row alignment");
_Static_assert(alignof(stsl_study_event) <= ROW_ALIGN && sizeof(stsl_study_event) % ROW_ALIGN == 0,
               "event alignment");

void stsl_process_setup(void)
{
    stsl_output_process_setup();
}

/* ---- options ----------------------------------------------------------------- */

/* The runner's options from the public ones (its progress is theirs). */
static stsl_sweep_opts internal_opts(const stsl_study_opts *o)
{
    return (stsl_sweep_opts){
        .output = o->output,
        .jobs = o->jobs,
        .resume = o->resume,
        .sets = o->sets,
        .n_sets = o->n_sets,
        .version = stsl_lib_version(),
        .progress = o->progress,
        .progress_ctx = o->progress_ctx,
        .stop = (volatile sig_atomic_t *)(uintptr_t)o->cancel,
        .csv = o->csv,
    };
}

stsl_rc stsl_study_run_with(const char *study, const stsl_study_opts *o, stsl_study_stats *out,
                            stsl_err *err)
{
    if (!out) return stsl_api_bad_arg(err, "stsl_study_run_with: out is NULL");
    memset(out, 0, sizeof *out);
    if (!study || !o || !o->output) return stsl_api_bad_arg(err, "stsl_study_run_with: NULL path");
    if (o->jobs < 1) return stsl_api_bad_arg(err, "stsl_study_run_with: jobs must be >= 1");
    stsl_sweep_opts io = internal_opts(o);
    stsl_error e = {0};
    return stsl_sweep_run(study, &io, out, &e) ? stsl_api_err(err, &e) : STSL_RC_OK;
}

/* stsl_study_run: `stickslip sweep` for a program (the Python package's
 * ss.study), its progress reported as counts. */
typedef struct study_cb {
    stsl_study_progress_fn fn;
    void *ctx;
} study_cb;

static void relay_counts(void *ctx, const stsl_study_stats *s)
{
    const study_cb *cb = ctx;
    cb->fn(cb->ctx, s->n_done, s->n_runs, s->n_failed);
}

stsl_rc stsl_study_run(const char *study, const char *output, int jobs, int resume,
                       stsl_study_progress_fn progress, void *ctx, const volatile int *cancel,
                       long *n_done, stsl_err *err)
{
    if (!study || !output) return stsl_api_bad_arg(err, "stsl_study_run: NULL path");
    if (jobs < 1) return stsl_api_bad_arg(err, "stsl_study_run: jobs must be >= 1");
    study_cb cb = {progress, ctx};
    stsl_study_opts o = {
        .output = output,
        .jobs = jobs,
        .resume = resume,
        .progress = progress ? relay_counts : NULL,
        .progress_ctx = &cb,
        .cancel = cancel,
    };
    stsl_study_stats st;
    /* The study file is written by this thread; other runs of the process
     * may write theirs (libhdf5 is not thread-safe): one at a time. */
    stsl_hdf5_lock();
    stsl_rc rc = stsl_study_run_with(study, &o, &st, err);
    stsl_hdf5_unlock();
    if (n_done) *n_done = rc ? 0 : st.n_done;
    return rc;
}

static stsl_rc nomem(stsl_err *err, const char *what)
{
    return stsl_api_fail(err, STSL_ENOMEM, "sweep: out of memory for %s", what);
}

/* ---- the plan ---------------------------------------------------------------- */

stsl_study_plan *stsl_study_plan_open(const char *study, const stsl_study_opts *o, stsl_err *err)
{
    if (!study || !o) return stsl_api_bad_arg(err, "stsl_study_plan_open: NULL argument"), NULL;
    stsl_sweep_opts io = internal_opts(o);
    stsl_error e = {0};
    stsl_sweep_plan *p = NULL;
    if (stsl_sweep_plan_open(study, &io, &p, &e)) stsl_api_err(err, &e);
    return p;
}

void stsl_study_plan_free(stsl_study_plan *p)
{
    stsl_sweep_plan_free(p);
}

typedef struct take_relay {
    stsl_study_take_fn take;
    void *ctx;
} take_relay;

static int relay_take(void *ctx, const stsl_study_row *row, stsl_error *err)
{
    const take_relay *t = ctx;
    stsl_err e = {0};
    int rc = t->take(t->ctx, row, &e);
    if (rc) stsl_error_set(err, e.code ? (stsl_status)e.code : (stsl_status)rc, "%s", e.message);
    return rc;
}

stsl_rc stsl_study_plan_run(const stsl_study_plan *p, long first, long end, int jobs,
                            const volatile int *cancel, stsl_study_take_fn take, void *ctx,
                            stsl_err *err)
{
    if (!p || !take) return stsl_api_bad_arg(err, "stsl_study_plan_run: NULL argument");
    take_relay t = {take, ctx};
    stsl_error e = {0};
    int rc = stsl_sweep_plan_run(p, first, end, jobs, (volatile sig_atomic_t *)(uintptr_t)cancel,
                                 relay_take, &t, &e);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}

/* ---- rows as bytes ------------------------------------------------------------ */

struct stsl_study_rows {
    char *buf;
    size_t size, cap;
    long n;
    double seconds;
};

static size_t padded(size_t n)
{
    return (n + ROW_ALIGN - 1) / ROW_ALIGN * ROW_ALIGN;
}

/* Bytes of a row's record (row, events, run), or 0 when they overflow. */
static size_t record_size(const stsl_study_row *row)
{
    if (row->n_ev < 0 || (size_t)row->n_ev > SIZE_MAX / 2 / sizeof(stsl_study_event) ||
        row->run_size > SIZE_MAX / 4)
        return 0;
    return sizeof *row + (size_t)row->n_ev * sizeof(stsl_study_event) + padded(row->run_size);
}

stsl_study_rows *stsl_study_rows_new(void)
{
    return calloc(1, sizeof(stsl_study_rows));
}

static int reserve(stsl_study_rows *c, size_t need)
{
    if (need <= c->cap) return 0;
    if (need > (size_t)LONG_MAX) return -1; /* sizes are longs in the API */
    size_t cap = c->cap ? c->cap : 4096;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : 2 * cap;
    char *b = realloc(c->buf, cap);
    if (!b) return -1;
    c->buf = b;
    c->cap = cap;
    return 0;
}

stsl_rc stsl_study_rows_add(stsl_study_rows *c, const stsl_study_row *row, stsl_err *err)
{
    if (!c || !row) return stsl_api_bad_arg(err, "stsl_study_rows_add: NULL argument");
    size_t n = record_size(row);
    if (!n || c->size > SIZE_MAX - n || reserve(c, c->size + n)) return nomem(err, "rows");
    char *at = c->buf + c->size;
    stsl_study_row r = *row;
    r.ev = NULL;
    r.run = NULL;
    memcpy(at, &r, sizeof r);
    at += sizeof r;
    if (row->n_ev) memcpy(at, row->ev, (size_t)row->n_ev * sizeof *row->ev);
    at += (size_t)row->n_ev * sizeof *row->ev;
    if (row->run_size) memcpy(at, row->run, row->run_size);
    memset(at + row->run_size, 0, padded(row->run_size) - row->run_size);
    c->size += n;
    c->n++;
    c->seconds += row->wall_seconds;
    return STSL_RC_OK;
}

/* The accessors are NULL-safe, as the result accessors: 0 or NULL for no
 * rows or file. */
void stsl_study_rows_clear(stsl_study_rows *c)
{
    if (!c) return;
    c->size = 0;
    c->n = 0;
    c->seconds = 0.0;
}

long stsl_study_rows_count(const stsl_study_rows *c)
{
    return c ? c->n : 0;
}

double stsl_study_rows_seconds(const stsl_study_rows *c)
{
    return c ? c->seconds : 0.0;
}

const void *stsl_study_rows_bytes(const stsl_study_rows *c, long *size)
{
    if (size) *size = c ? (long)c->size : 0; /* reserve keeps it below LONG_MAX */
    return c ? c->buf : NULL;
}

void *stsl_study_rows_space(stsl_study_rows *c, long size)
{
    stsl_study_rows_clear(c);
    if (!c || size < 0 || reserve(c, size ? (size_t)size : 1)) return NULL;
    c->size = (size_t)size;
    return c->buf;
}

/* Row i of the block at *at, with its events and run pointed at in place;
 * advances *at.  0 when the block ends inside the record. */
static int record_at(const stsl_study_rows *c, size_t *at, stsl_study_row *row)
{
    if (c->size - *at < sizeof *row) return 0;
    memcpy(row, c->buf + *at, sizeof *row);
    size_t n = record_size(row);
    if (!n || n > c->size - *at) return 0;
    char *p = c->buf + *at + sizeof *row;
    row->ev = row->n_ev ? (stsl_study_event *)(void *)p : NULL;
    row->run = row->run_size ? p + (size_t)row->n_ev * sizeof(stsl_study_event) : NULL;
    *at += n;
    return 1;
}

stsl_rc stsl_study_rows_parse(stsl_study_rows *c, stsl_err *err)
{
    if (!c) return stsl_api_bad_arg(err, "stsl_study_rows_parse: rows is NULL");
    c->n = 0;
    c->seconds = 0.0;
    stsl_study_row row;
    size_t at = 0;
    while (at < c->size && record_at(c, &at, &row)) {
        c->n++;
        c->seconds += row.wall_seconds;
    }
    if (at == c->size) return STSL_RC_OK;
    stsl_study_rows_clear(c);
    return stsl_api_fail(err, STSL_EIO, "sweep: a block of rows that does not match its rows");
}

void stsl_study_rows_free(stsl_study_rows *c)
{
    if (!c) return;
    free(c->buf);
    free(c);
}

/* ---- the study file ----------------------------------------------------------- */

struct stsl_study_file {
    stsl_study_h5 *w;
    stsl_sweep_opts o; /* for the test hold: its stop flag */
    long end;
};

stsl_study_file *stsl_study_file_open(const stsl_study_plan *p, const stsl_study_opts *o,
                                      stsl_err *err)
{
    if (!p || !o) return stsl_api_bad_arg(err, "stsl_study_file_open: NULL argument"), NULL;
    stsl_study_file *f = calloc(1, sizeof *f);
    if (!f) return nomem(err, "the study file"), NULL;
    f->o = internal_opts(o);
    f->o.progress = NULL; /* the file does not report */
    stsl_error e = {0};
    if (stsl_sweep_plan_output(p, &f->o, &f->w, &e)) {
        stsl_api_err(err, &e);
        free(f);
        return NULL;
    }
    f->end = stsl_sweep_hold_end(&f->o, stsl_study_h5_n_done(f->w), stsl_study_plan_n_variants(p));
    return f;
}

long stsl_study_file_n_done(const stsl_study_file *w)
{
    return w ? stsl_study_h5_n_done(w->w) : 0;
}

long stsl_study_file_n_failed(const stsl_study_file *w)
{
    return w ? stsl_study_h5_n_failed(w->w) : 0;
}

stsl_rc stsl_study_file_append(stsl_study_file *w, const stsl_study_rows *c, stsl_err *err)
{
    if (!w || !c) return stsl_api_bad_arg(err, "stsl_study_file_append: NULL argument");
    stsl_study_row row;
    stsl_error e = {0};
    for (size_t at = 0; at < c->size && record_at(c, &at, &row);)
        if (stsl_study_h5_append(w->w, &row, &e)) return stsl_api_err(err, &e);
    return STSL_RC_OK;
}

stsl_rc stsl_study_file_flush(stsl_study_file *w, stsl_err *err)
{
    if (!w) return stsl_api_bad_arg(err, "stsl_study_file_flush: file is NULL");
    stsl_error e = {0};
    return stsl_study_h5_flush(w->w, &e) ? stsl_api_err(err, &e) : STSL_RC_OK;
}

stsl_rc stsl_study_file_close(stsl_study_file *w, stsl_err *err)
{
    if (!w) return STSL_RC_OK;
    stsl_error e = {0};
    int rc = stsl_study_h5_close(w->w, &e);
    free(w);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}

long stsl_study_file_end(const stsl_study_file *w)
{
    return w ? w->end : 0;
}

stsl_rc stsl_study_file_hold(stsl_study_file *w, stsl_err *err)
{
    if (!w) return stsl_api_bad_arg(err, "stsl_study_file_hold: file is NULL");
    stsl_error e = {0};
    return stsl_sweep_hold(&w->o, w->w, &e) ? stsl_api_err(err, &e) : STSL_RC_OK;
}

/* ---- reading a study file ------------------------------------------------------ */

/* Both read the file under the library's HDF5 lock (stickslip.h, Threads):
 * a program may read a study while other threads write results. */
stsl_rc stsl_study_write_csv(const char *path, const char *csv, stsl_err *err)
{
    if (!path || !csv) return stsl_api_bad_arg(err, "stsl_study_write_csv: NULL path");
    stsl_error e = {0};
    /* The output rule as for --csv: never over the study file it reads. */
    const char *in[1] = {path};
    stsl_output_file o = {csv, "the study's CSV", STSL_FMT_CSV, 0, 1};
    if (stsl_output_rule(in, 1, &o, 1, &e)) return stsl_api_err(err, &e);
    stsl_hdf5_lock();
    int rc = stsl_study_h5_write_csv(path, csv, &e);
    stsl_hdf5_unlock();
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}

/* A field of the same size in both (checked at compile time). */
#define COPY(field)                                                                                \
    ((void)sizeof(char[sizeof out->field == sizeof s->field ? 1 : -1]),                            \
     memcpy(out->field, s->field, sizeof out->field))

stsl_rc stsl_study_read_overview(const char *path, stsl_study_overview *out, stsl_err *err)
{
    if (!path || !out) return stsl_api_bad_arg(err, "stsl_study_read_overview: NULL argument");
    stsl_study_summary *s = malloc(sizeof *s); /* ~45 kB: kept off the stack */
    if (!s) return nomem(err, "a study's summary");
    stsl_error e = {0};
    stsl_hdf5_lock();
    int rc = stsl_study_h5_summarise(path, s, &e);
    stsl_hdf5_unlock();
    if (!rc) {
        memset(out, 0, sizeof *out);
        COPY(version), COPY(created), COPY(store), COPY(combine);
        out->complete = s->complete;
        out->n_runs = s->n_runs, out->n_done = s->n_done, out->n_failed = s->n_failed;
        out->n_keys = s->n_keys;
        COPY(keys), COPY(key_min), COPY(key_max);
        out->n_cols = s->n_cols;
        for (int j = 0; j < s->n_cols; j++) {
            stsl_study_column *c = &out->cols[j];
            memcpy(c->name, s->cols[j].name, sizeof c->name);
            memcpy(c->units, s->cols[j].units, sizeof c->units);
            c->min = s->cols[j].min, c->max = s->cols[j].max;
            c->n_finite = s->cols[j].n_finite;
        }
        out->n_full_runs = s->n_full_runs;
        out->n_first_failures = s->n_first_failures;
        COPY(failure_index), COPY(failure_message);
    }
    free(s);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
