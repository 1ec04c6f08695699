/* sweep_mpi.c - see sweep_mpi.h. */
#include "mpi/sweep_mpi.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/error.h"

enum { TAG_HEAD = 1, TAG_ROWS = 2, TAG_EVENTS = 3, TAG_WORK = 4, TAG_RUN = 5 };

/* Variants per chunk for each of a worker's threads: enough that a chunk
 * keeps every thread busy and its round trip to rank 0 is small against
 * its runs (~1 ms each); see chunk_size(). */
#define CHUNK_PER_THREAD 16
/* store: full: a row carries its whole run (~1 MB for a Janecek variant),
 * which rank 0 holds until written: chunks of a few runs a thread. */
#define FULL_CHUNK_PER_THREAD 2
/* Rank 0 hands out variants at most this many chunks per worker beyond the
 * file's next row: a slow chunk holds up the others' rows, which wait in
 * rank 0's memory, so that memory is bounded by this, not by the study. */
#define AHEAD_CHUNKS_PER_WORKER 2
/* Rank 0's file is made durable at least this often (as a threaded run). */
#define FLUSH_SECONDS    1.0
#define PROGRESS_SECONDS 0.1

/* A worker's message head: the chunk it ran (first, n rows, events in all);
 * n < 0 before its first chunk, -2 when it could not load the study. */
typedef struct head {
    long first, n, n_ev;
    size_t n_run; /* bytes of runs (store: full) */
} head;

typedef struct chunk {
    int used; /* rank 0: holds rows not yet written */
    long first, n, n_ev, cap, cap_ev;
    stsl_study_row *rows;
    stsl_study_event *ev;
    char *run; /* the rows' runs, one after another */
    size_t n_run, cap_run;
} chunk;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int reserve(chunk *c, long n, long n_ev, size_t n_run, stsl_error *err)
{
    if (n_run > c->cap_run) {
        char *r = realloc(c->run, n_run);
        if (!r) return stsl_error_set(err, STSL_ENOMEM, "sweep: out of memory for runs");
        c->run = r;
        c->cap_run = n_run;
    }
    if (n > c->cap) {
        stsl_study_row *r = realloc(c->rows, (size_t)n * sizeof *r);
        if (!r) return stsl_error_set(err, STSL_ENOMEM, "sweep: out of memory for a chunk");
        c->rows = r;
        c->cap = n;
    }
    if (n_ev > c->cap_ev) {
        stsl_study_event *e = realloc(c->ev, (size_t)n_ev * sizeof *e);
        if (!e) return stsl_error_set(err, STSL_ENOMEM, "sweep: out of memory for events");
        c->ev = e;
        c->cap_ev = n_ev;
    }
    return STSL_OK;
}

/* ---- workers ----------------------------------------------------------------- */

/* stsl_sweep_take: keep the row and a copy of its events in the chunk. */
static int keep_row(void *ctx, const stsl_study_row *row, stsl_error *err)
{
    chunk *c = ctx;
    if (!row) return STSL_OK;
    long need_ev = c->n_ev + row->n_ev;
    long cap_ev = c->cap_ev < need_ev ? 2 * need_ev : c->cap_ev;
    long cap = c->cap <= c->n ? 2 * c->n + 8 : c->cap;
    size_t need_run = c->n_run + (row->run ? row->run_size : 0);
    if (need_run > (size_t)INT_MAX) /* one message; MPI counts are ints */
        return stsl_error_set(err, STSL_ENOMEM, "sweep: %zu bytes of runs in a chunk, at most %d",
                              need_run, INT_MAX);
    size_t cap_run = c->cap_run < need_run ? 2 * need_run : c->cap_run;
    if (reserve(c, cap, cap_ev, cap_run, err)) return err ? err->code : STSL_ENOMEM;
    if (row->n_ev) memcpy(c->ev + c->n_ev, row->ev, (size_t)row->n_ev * sizeof *row->ev);
    c->n_ev = need_ev;
    if (row->run) memcpy(c->run + c->n_run, row->run, row->run_size);
    c->n_run = need_run;
    c->rows[c->n] = *row;
    c->rows[c->n].ev = NULL;  /* rebuilt from the event block on rank 0 */
    c->rows[c->n].run = NULL; /* rebuilt from the run block on rank 0 */
    c->n++;
    return STSL_OK;
}

static void send_chunk(const chunk *c)
{
    head h = {c->first, c->n, c->n_ev, c->n > 0 ? c->n_run : 0};
    MPI_Send(&h, (int)sizeof h, MPI_BYTE, 0, TAG_HEAD, MPI_COMM_WORLD);
    if (c->n > 0)
        MPI_Send(c->rows, (int)((size_t)c->n * sizeof *c->rows), MPI_BYTE, 0, TAG_ROWS,
                 MPI_COMM_WORLD);
    if (c->n_ev > 0)
        MPI_Send(c->ev, (int)((size_t)c->n_ev * sizeof *c->ev), MPI_BYTE, 0, TAG_EVENTS,
                 MPI_COMM_WORLD);
    if (c->n > 0 && c->n_run > 0)
        MPI_Send(c->run, (int)c->n_run, MPI_BYTE, 0, TAG_RUN, MPI_COMM_WORLD);
}

/* Ask for work by sending the last chunk's rows; run what comes back until
 * rank 0 sends an empty range. */
static int worker(const char *study_path, const stsl_sweep_opts *o, stsl_error *err)
{
    stsl_sweep_plan *sp = NULL;
    int rc = stsl_sweep_plan_open(study_path, o, &sp, err);
    chunk c = {.first = -1, .n = rc ? -2 : -1};
    for (;;) {
        send_chunk(&c);
        long range[2];
        MPI_Recv(range, 2, MPI_LONG, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (range[1] <= range[0]) break;
        c.first = range[0];
        c.n = c.n_ev = 0;
        c.n_run = 0;
        /* No stop flag: rank 0 counts on every chunk it hands out coming
         * back whole (it stops handing out chunks when signalled). */
        if (stsl_sweep_plan_run(sp, range[0], range[1], o->jobs, NULL, keep_row, &c, err)) {
            c.n = -2; /* out of memory: rank 0 stops the study */
            c.n_ev = 0;
        }
    }
    free(c.rows);
    free(c.ev);
    free(c.run);
    stsl_sweep_plan_free(sp);
    return rc;
}

/* ---- rank 0 ------------------------------------------------------------------ */

typedef struct queue {
    long next, end, chunk;
    long ahead; /* variants handed out at most this far past the file's next row */
    int stop;   /* no more chunks handed out */
    int busy;   /* workers holding a chunk or not yet heard from */
    /* Chunks received ahead of the file's next row (a slower chunk before
     * them is still running): fewer than `ahead` / `chunk` + 1. */
    chunk *pending;
    int n_pending;
    /* Workers that asked for work while the window was full: they get it
     * as soon as the file's next row moves on. */
    int *waiting;
    int n_waiting;
    stsl_study_h5 *w;
    const stsl_sweep_opts *o;
    stsl_sweep_progress *prog;
    double t0, last_flush, last_report;
} queue;

/* Small enough that every worker gets several chunks (the queue balances
 * the slow variants), large enough to keep a worker's threads busy. */
static long chunk_size(long n, int n_workers, int jobs, int store_full)
{
    long per = (n + 4L * n_workers - 1) / (4L * n_workers);
    long full =
        (long)(store_full ? FULL_CHUNK_PER_THREAD : CHUNK_PER_THREAD) * (jobs > 0 ? jobs : 1);
    long c = per < full ? per : full;
    return c > 0 ? c : 1;
}

static int recv_chunk(int src, chunk *c, stsl_error *err)
{
    head h;
    MPI_Recv(&h, (int)sizeof h, MPI_BYTE, src, TAG_HEAD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    c->first = h.first;
    c->n = h.n;
    c->n_ev = h.n_ev;
    c->n_run = h.n_run;
    if (h.n <= 0) return STSL_OK;
    if (reserve(c, h.n, h.n_ev, h.n_run, err)) return err ? err->code : STSL_ENOMEM;
    MPI_Recv(c->rows, (int)((size_t)h.n * sizeof *c->rows), MPI_BYTE, src, TAG_ROWS, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    if (h.n_ev > 0)
        MPI_Recv(c->ev, (int)((size_t)h.n_ev * sizeof *c->ev), MPI_BYTE, src, TAG_EVENTS,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (h.n_run > 0)
        MPI_Recv(c->run, (int)h.n_run, MPI_BYTE, src, TAG_RUN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    long k = 0;
    size_t at = 0;
    for (long i = 0; i < h.n; i++) {
        c->rows[i].ev = c->rows[i].n_ev ? c->ev + k : NULL;
        k += c->rows[i].n_ev;
        c->rows[i].run = c->rows[i].run_size ? c->run + at : NULL;
        at += c->rows[i].run_size;
    }
    return at == h.n_run ? STSL_OK
                         : stsl_error_set(err, STSL_EIO,
                                          "sweep: rank %d sent %zu bytes of runs "
                                          "for rows of %zu",
                                          src, h.n_run, at);
}

/* Whether a worker asking now would have to wait for the window. */
static int window_full(const queue *q)
{
    return !q->stop && q->next < q->end && q->next >= stsl_study_h5_n_done(q->w) + q->ahead;
}

/* The next chunk to `dst`, an empty range when there is no more work, or
 * (window full) nothing yet: `dst` waits. */
static void send_work(queue *q, int dst)
{
    if (window_full(q)) {
        q->waiting[q->n_waiting++] = dst;
        return;
    }
    long range[2] = {q->next, q->next};
    if (!q->stop && q->next < q->end) {
        range[1] = q->next + q->chunk < q->end ? q->next + q->chunk : q->end;
        q->next = range[1];
    } else {
        q->busy--;
    }
    MPI_Send(range, 2, MPI_LONG, dst, TAG_WORK, MPI_COMM_WORLD);
}

static void report(queue *q, int force)
{
    double t = now_seconds();
    if (!q->w || !q->o->progress || (!force && t - q->last_report < PROGRESS_SECONDS)) return;
    q->last_report = t;
    q->prog->n_done = stsl_study_h5_n_done(q->w);
    q->prog->n_failed = stsl_study_h5_n_failed(q->w);
    q->prog->seconds = t - q->t0;
    q->o->progress(q->o->progress_ctx, q->prog);
}

/* Hand work to the waiting workers the window now lets in (all of them,
 * with an empty range, once stopped). */
static void serve_waiting(queue *q)
{
    int n = q->n_waiting;
    q->n_waiting = 0;
    for (int k = 0; k < n; k++)
        send_work(q, q->waiting[k]);
}

/* Append every pending chunk that continues the file, in variant order. */
static int write_ready(queue *q, stsl_error *err)
{
    for (int found = 1; found;) {
        found = 0;
        for (int k = 0; k < q->n_pending; k++) {
            chunk *c = &q->pending[k];
            if (!c->used || c->first != stsl_study_h5_n_done(q->w)) continue;
            for (long i = 0; i < c->n; i++) {
                int rc = stsl_study_h5_append(q->w, &c->rows[i], err);
                if (rc) return rc;
                q->prog->n_session++;
            }
            c->n_run = 0;
            c->used = 0;
            found = 1;
        }
    }
    if (now_seconds() - q->last_flush >= FLUSH_SECONDS) {
        q->last_flush = now_seconds();
        return stsl_study_h5_flush(q->w, err);
    }
    return STSL_OK;
}

/* Wait for any worker without spinning a core (MPI_Recv busy-polls): a
 * worker's message is due every chunk, so a 1 ms nap costs nothing.  -1:
 * stopped (a signal) while workers wait for the window: dismiss them. */
static int wait_any(queue *q)
{
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &flag, &st);
        if (flag) return st.MPI_SOURCE;
        if (q->o->stop && *q->o->stop) q->stop = 1;
        if (q->stop && q->n_waiting > 0) return -1;
        report(q, 0);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* A free slot for the next chunk received (NULL: out of memory). */
static chunk *free_slot(queue *q)
{
    for (int k = 0; k < q->n_pending; k++)
        if (!q->pending[k].used) return &q->pending[k];
    int n = q->n_pending ? 2 * q->n_pending : 8;
    chunk *p = realloc(q->pending, (size_t)n * sizeof *p);
    if (!p) return NULL;
    memset(p + q->n_pending, 0, (size_t)(n - q->n_pending) * sizeof *p);
    q->pending = p;
    chunk *c = &p[q->n_pending];
    q->n_pending = n;
    return c;
}

static int serve(queue *q, int rc, stsl_error *err)
{
    chunk scratch = {0}; /* what is received while failing, then dropped */
    while (q->busy > 0) {
        serve_waiting(q);
        if (q->busy == 0) break;
        int src = wait_any(q);
        if (src < 0) continue;
        chunk *c = rc ? NULL : free_slot(q);
        if (!c && !rc) rc = stsl_error_set(err, STSL_ENOMEM, "sweep: out of memory");
        if (!c) c = &scratch;
        int rrc = recv_chunk(src, c, err);
        if (!rc) rc = rrc;
        c->used = !rc && c != &scratch && c->n > 0;
        if (!rc && c->n == -2)
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s: rank %d could not load the study or ran out of memory",
                                q->o->output, src);
        if (rc) q->stop = 1;
        send_work(q, src);
        if (!rc) rc = write_ready(q, err);
        if (rc) q->stop = 1;
    }
    free(scratch.rows);
    free(scratch.ev);
    free(scratch.run);
    return rc;
}

static int writer(const char *study_path, const stsl_sweep_opts *o, int n_workers,
                  stsl_sweep_progress *out, stsl_error *err)
{
    stsl_sweep_plan *sp = NULL;
    queue q = {.o = o, .prog = out, .busy = n_workers};
    q.waiting = malloc((size_t)n_workers * sizeof *q.waiting);
    q.t0 = now_seconds();
    q.last_flush = -INFINITY; /* the first rows are flushed at once, as in a threaded run */
    int rc = q.waiting ? STSL_OK : stsl_error_set(err, STSL_ENOMEM, "sweep: out of memory");
    if (!rc) rc = stsl_sweep_plan_open(study_path, o, &sp, err);
    if (!rc) rc = stsl_sweep_plan_output(sp, o, &q.w, err);
    if (!rc) {
        out->n_runs = stsl_sweep_plan_n_variants(sp);
        q.next = stsl_study_h5_n_done(q.w);
        q.end = stsl_sweep_hold_end(o, q.next, out->n_runs); /* a test's hold: sweep.h */
        q.chunk = chunk_size(q.end - q.next, n_workers, o->jobs, stsl_sweep_plan_store_full(sp));
        q.ahead = (long)AHEAD_CHUNKS_PER_WORKER * n_workers * q.chunk;
    }
    q.stop = rc != 0; /* dismiss the workers all the same */
    rc = serve(&q, rc, err);
    if (!rc && q.w && q.end < out->n_runs) rc = stsl_sweep_hold(o, q.w, err);
    if (q.w) {
        out->n_done = stsl_study_h5_n_done(q.w);
        out->n_failed = stsl_study_h5_n_failed(q.w);
        out->seconds = now_seconds() - q.t0;
        int crc = stsl_study_h5_close(q.w, rc ? NULL : err);
        if (!rc) rc = crc;
        if (!rc) report(&q, 1);
    }
    for (int k = 0; k < q.n_pending; k++) {
        free(q.pending[k].rows);
        free(q.pending[k].ev);
        free(q.pending[k].run);
    }
    free(q.pending);
    free(q.waiting);
    stsl_sweep_plan_free(sp);
    return rc;
}

int stsl_mpi_sweep_run(const char *study_path, const stsl_sweep_opts *o, stsl_sweep_progress *out,
                       stsl_error *err)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(out, 0, sizeof *out);
    if (size == 1) return stsl_sweep_run(study_path, o, out, err);
    if (rank > 0) return worker(study_path, o, err);
    return writer(study_path, o, size - 1, out, err);
}
