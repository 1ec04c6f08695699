/* sweep_mpi.c - see sweep_mpi.h. */
#include "mpi/sweep_mpi.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { TAG_HEAD = 1, TAG_ROWS = 2, TAG_WORK = 5 };

/* A chunk should keep its rank's threads busy about this long (seconds of
 * wall time): long enough that its round trip to rank 0 (a few messages,
 * hidden anyway behind the chunk fetched ahead) is negligible, short
 * enough that the last chunks of a study end close together. */
#define CHUNK_SECONDS 0.1
/* At most this many variants a thread per chunk (rows are ~2.3 kB: a
 * chunk of cheap variants stays ~1 MB a thread). */
#define CHUNK_MAX_PER_THREAD 512
/* store: full: a row carries its whole run (~1 MB for a Janecek variant),
 * which rank 0 holds until written: chunks of a few runs a thread. */
#define FULL_CHUNK_PER_THREAD 2
/* Chunks a worker rank holds at once: the one it runs and the next, so
 * that it never waits for rank 0 between two chunks. */
#define CHUNKS_AHEAD 2
/* Variants are handed out at most this many largest chunks per rank past
 * the file's next row: a slow chunk holds up the others' rows, which wait
 * in rank 0's memory, bounded by this rather than by the study. */
#define WINDOW_CHUNKS_PER_RANK 4
/* Rank 0's file is made durable at least this often (as a threaded run). */
#define FLUSH_SECONDS    1.0
#define PROGRESS_SECONDS 0.1
/* Naps of a rank with nothing to do, growing from the first to the last
 * while nothing happens (see nap()). */
#define NAP_MIN_NS 50000L
#define NAP_MAX_NS 5000000L

/* A message head: the chunk [first, first + n) of the `asked` variants
 * handed out from `first` (n < asked: its rank was stopped); n = -1 before
 * a rank's first chunk, -2 when it failed (`msg` says why). */
typedef struct head {
    long first, n, asked;
    long bytes; /* of the rows (stsl_study_rows_bytes), sent after the head */
    int code;   /* n = -2: the stsl_rc of the failure */
    char msg[STSL_ERR_MAX];
} head;

typedef struct chunk {
    int used; /* rank 0: holds rows not yet written */
    long first;
    stsl_study_rows *rows; /* created when first needed */
} chunk;

static int set_err(stsl_err *err, stsl_rc code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set_err(stsl_err *err, stsl_rc code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* OpenMPI's blocking calls (MPI_Recv, MPI_Wait, MPI_Waitany) poll the
 * shared-memory transport without pause: a waiting rank takes a whole
 * core from the ranks that compute on it.  A rank that waits here tests
 * and sleeps instead, the naps growing while nothing comes (*ns: the
 * next nap; 0 after some progress); waits are rare and short, since every
 * worker holds its next chunk before it needs it. */
static void nap(long *ns)
{
    *ns = *ns < NAP_MIN_NS ? NAP_MIN_NS : *ns * 2 > NAP_MAX_NS ? NAP_MAX_NS : *ns * 2;
    nanosleep(&(struct timespec){0, *ns}, NULL);
}

static void wait_all(MPI_Request *req, int n)
{
    long ns = 0;
    for (int done = 0;;) {
        MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (done) return;
        nap(&ns);
    }
}

static void chunk_free(chunk *c)
{
    stsl_study_rows_free(c->rows);
    c->rows = NULL;
}

/* Empty c (its rows object created when it has none); NULL when out of
 * memory. */
static stsl_study_rows *chunk_rows(chunk *c)
{
    if (!c->rows) c->rows = stsl_study_rows_new();
    if (c->rows) stsl_study_rows_clear(c->rows);
    return c->rows;
}

/* Keep a copy of the row (its events and run included) in the chunk. */
static int keep_row(chunk *c, const stsl_study_row *row, stsl_err *err)
{
    int rc = stsl_study_rows_add(c->rows, row, err);
    long n = 0;
    stsl_study_rows_bytes(c->rows, &n);
    if (!rc && n > INT_MAX) /* one message; MPI counts are ints */
        return set_err(err, STSL_RC_NOMEM, "sweep: %ld bytes of rows in a chunk, at most %d", n,
                       INT_MAX);
    return rc;
}

/* ---- worker ranks ------------------------------------------------------------ */

/* A worker: runs one chunk while the next one (and the sends of the last)
 * are under way. */
typedef struct worker_state {
    chunk c[2]; /* the chunk running, and the one being sent */
    head h[2];  /* their heads (they must live until sent) */
    MPI_Request out[2][2];
    long work[2]; /* the next range from rank 0 */
    MPI_Request work_req;
    int cur;
} worker_state;

static void post_work_recv(worker_state *ws)
{
    MPI_Irecv(ws->work, 2, MPI_LONG, 0, TAG_WORK, MPI_COMM_WORLD, &ws->work_req);
}

/* stsl_study_take_fn: keep the row; let MPI move the messages under way. */
static int worker_take(void *ctx, const stsl_study_row *row, stsl_err *err)
{
    worker_state *ws = ctx;
    int flag;
    MPI_Test(&ws->work_req, &flag, MPI_STATUS_IGNORE);
    MPI_Testall(2, ws->out[ws->cur ^ 1], &flag, MPI_STATUSES_IGNORE);
    return row ? keep_row(&ws->c[ws->cur], row, err) : STSL_RC_OK;
}

/* Send chunk `k` (head, then its rows as one block) without waiting. */
static void send_chunk(worker_state *ws, int k)
{
    const chunk *c = &ws->c[k];
    head *h = &ws->h[k];
    const void *bytes = NULL;
    h->bytes = 0;
    if (h->n > 0) bytes = stsl_study_rows_bytes(c->rows, &h->bytes);
    MPI_Request *r = ws->out[k];
    for (int i = 0; i < 2; i++)
        r[i] = MPI_REQUEST_NULL;
    MPI_Isend(h, (int)sizeof *h, MPI_BYTE, 0, TAG_HEAD, MPI_COMM_WORLD, &r[0]);
    if (h->bytes > 0) MPI_Isend(bytes, (int)h->bytes, MPI_BYTE, 0, TAG_ROWS, MPI_COMM_WORLD, &r[1]);
}

/* Run the range into chunk ws->cur and send it.  A rank stopped by its own
 * signal (mpirun passes Ctrl-C on as SIGTERM) runs nothing more and sends
 * what it has: rank 0 then stops the study. */
static void run_range(const stsl_study_plan *sp, const stsl_study_opts *o, worker_state *ws,
                      long first, long end, int failed)
{
    int k = ws->cur;
    wait_all(ws->out[k], 2); /* the buffer's last sends */
    chunk *c = &ws->c[k];
    c->first = first;
    head *h = &ws->h[k];
    memset(h, 0, sizeof *h);
    h->first = first;
    h->asked = end - first;
    stsl_err err = {0};
    int rc = failed ? STSL_RC_INPUT : STSL_RC_OK;
    if (!rc && !chunk_rows(c)) rc = set_err(&err, STSL_RC_NOMEM, "sweep: out of memory");
    if (!rc && !(o->cancel && *o->cancel))
        rc = stsl_study_plan_run(sp, first, end, o->jobs, o->cancel, worker_take, ws, &err);
    h->n = rc ? -2 : stsl_study_rows_count(c->rows);
    if (rc && !failed) {
        h->code = rc;
        snprintf(h->msg, sizeof h->msg, "%s", err.message);
    }
    send_chunk(ws, k);
    ws->cur ^= 1;
}

/* Say hello (or why the study could not be loaded), then run every range
 * rank 0 sends until an empty one. */
static int worker(const char *study_path, const stsl_study_opts *o, stsl_err *err)
{
    stsl_study_plan *sp = stsl_study_plan_open(study_path, o, err);
    int rc = sp ? STSL_RC_OK : err->code;
    worker_state ws;
    memset(&ws, 0, sizeof ws);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++)
            ws.out[k][i] = MPI_REQUEST_NULL;
    ws.h[1] = (head){.first = -1, .n = rc ? -2 : -1, .code = rc};
    if (rc) snprintf(ws.h[1].msg, sizeof ws.h[1].msg, "%s", err->message);
    post_work_recv(&ws);
    send_chunk(&ws, 1);
    for (;;) {
        wait_all(&ws.work_req, 1);
        long first = ws.work[0], end = ws.work[1];
        if (end <= first) break;
        post_work_recv(&ws); /* the next range arrives while this one runs */
        run_range(sp, o, &ws, first, end, rc != 0);
    }
    wait_all(ws.out[0], 2);
    wait_all(ws.out[1], 2);
    for (int k = 0; k < 2; k++)
        chunk_free(&ws.c[k]);
    stsl_study_plan_free(sp);
    return rc;
}

/* ---- rank 0 ------------------------------------------------------------------ */

typedef struct rank_state {
    int held;      /* chunks handed out, not yet returned */
    int hello;     /* heard from */
    int dismissed; /* sent the empty range: no more messages to it */
} rank_state;

typedef struct queue {
    const stsl_study_plan *sp;
    const stsl_study_opts *o;
    stsl_study_stats *prog;
    stsl_study_file *w;
    int n_ranks, rc;
    stsl_err *err;
    long next, end; /* variants handed out so far; one past the last to hand out */
    long chunk_max, ahead;
    int stop, stop_flushed;
    volatile int own_stop; /* rank 0's own chunk: stop claiming */
    rank_state *ranks;
    /* Chunks received ahead of the file's next row (one before them is
     * still running); rank 0's own chunk is one of them. */
    chunk *pending;
    int n_pending;
    chunk *own;
    double cost_seconds; /* wall seconds of the rows measured (for chunk sizes) */
    long cost_rows;
    double t0, last_flush, last_report;
} queue;

/* The next chunk's size: what keeps a rank's threads busy CHUNK_SECONDS at
 * the variants' measured mean cost (one variant a thread until measured),
 * and no more than a 2·ranks-th of what is left, so that the last chunks
 * are small and end together (guided self-scheduling). */
static long chunk_size(const queue *q)
{
    int jobs = q->o->jobs > 0 ? q->o->jobs : 1;
    long want = jobs;
    if (q->cost_rows > 0 && q->cost_seconds > 0.0) {
        double per = q->cost_seconds / (double)q->cost_rows;
        double n = CHUNK_SECONDS * jobs / per;
        want = n < (double)q->chunk_max ? (long)n : q->chunk_max;
    }
    long guided = (q->end - q->next) / (2L * q->n_ranks);
    long c = want < guided ? want : guided;
    c = c < q->chunk_max ? c : q->chunk_max;
    return c > 0 ? c : 1;
}

/* Whether no variant may be handed out now: none left, stopped, or the
 * window past the file's next row is full. */
static int no_work(const queue *q)
{
    return q->stop || q->next >= q->end || q->next >= stsl_study_file_n_done(q->w) + q->ahead;
}

static void take_range(queue *q, long range[2])
{
    range[0] = q->next;
    range[1] = q->next + chunk_size(q);
    if (range[1] > q->end) range[1] = q->end;
    q->next = range[1];
}

/* Top up every worker rank to CHUNKS_AHEAD chunks; dismiss (with an empty
 * range) those that have none and will get none. */
static void hand_out(queue *q)
{
    for (int r = 1; r < q->n_ranks; r++) {
        rank_state *s = &q->ranks[r];
        while (s->hello && !s->dismissed && s->held < CHUNKS_AHEAD) {
            long range[2] = {q->next, q->next};
            int done = q->stop || q->next >= q->end;
            if (!done && no_work(q)) break; /* the window: later */
            if (!done) take_range(q, range);
            MPI_Send(range, 2, MPI_LONG, r, TAG_WORK, MPI_COMM_WORLD);
            if (done)
                s->dismissed = 1;
            else
                s->held++;
        }
    }
}

static void report(queue *q, int force)
{
    double t = now_seconds();
    if (!q->w || !q->o->progress || (!force && t - q->last_report < PROGRESS_SECONDS)) return;
    q->last_report = t;
    q->prog->n_done = stsl_study_file_n_done(q->w);
    q->prog->n_failed = stsl_study_file_n_failed(q->w);
    q->prog->seconds = t - q->t0;
    q->o->progress(q->o->progress_ctx, q->prog);
}

/* Stop the study with the first failure's error (`e`; NULL: already in
 * q->err). */
static void fail(queue *q, int rc, const stsl_err *e)
{
    if (!q->rc) {
        q->rc = rc;
        if (e) *q->err = *e;
    }
    q->stop = 1;
}

static void fail_nomem(queue *q)
{
    stsl_err e;
    fail(q, set_err(&e, STSL_RC_NOMEM, "sweep: out of memory"), &e);
}

/* Append every pending chunk that continues the file, in variant order;
 * flush every FLUSH_SECONDS, and at once when stopped. */
static void write_ready(queue *q)
{
    for (int found = 1; found && !q->rc;) {
        found = 0;
        for (int k = 0; k < q->n_pending && !q->rc; k++) {
            chunk *c = &q->pending[k];
            if (!c->used || c->first != stsl_study_file_n_done(q->w)) continue;
            int rc = stsl_study_file_append(q->w, c->rows, q->err);
            if (rc) fail(q, rc, NULL);
            q->prog->n_session += stsl_study_rows_count(c->rows);
            stsl_study_rows_clear(c->rows);
            c->used = 0;
            found = 1;
        }
    }
    double t = now_seconds();
    int due = t - q->last_flush >= FLUSH_SECONDS || (q->stop && !q->stop_flushed);
    if (!q->rc && due) {
        /* Stopped (Ctrl-C passed on by mpirun, a lost rank): durable at
         * once, for mpirun kills the ranks that linger. */
        q->stop_flushed = q->stop;
        q->last_flush = t;
        int rc = stsl_study_file_flush(q->w, q->err);
        if (rc) fail(q, rc, NULL);
    }
}

/* A free slot for the next chunk, emptied (NULL: out of memory). */
static chunk *free_slot(queue *q)
{
    for (int k = 0; k < q->n_pending; k++)
        if (!q->pending[k].used && &q->pending[k] != q->own)
            return chunk_rows(&q->pending[k]) ? &q->pending[k] : NULL;
    int n = q->n_pending ? 2 * q->n_pending : 8;
    long own = q->own ? q->own - q->pending : -1;
    chunk *p = realloc(q->pending, (size_t)n * sizeof *p);
    if (!p) return NULL;
    memset(p + q->n_pending, 0, (size_t)(n - q->n_pending) * sizeof *p);
    q->pending = p;
    if (own >= 0) q->own = &p[own];
    chunk *c = &p[q->n_pending];
    q->n_pending = n;
    return chunk_rows(c) ? c : NULL;
}

/* What a chunk says about the variants' cost and the study's state. */
static void account(queue *q, const stsl_study_rows *rows, long asked)
{
    long n = rows ? stsl_study_rows_count(rows) : 0;
    if (n > 0) {
        q->cost_seconds += stsl_study_rows_seconds(rows);
        q->cost_rows += n;
    }
    if (n < asked) q->stop = 1; /* its rank was stopped (a signal): so is the study */
}

/* Not even room to receive a chunk and drop it: the sender would wait
 * forever, so end the job (mpirun ends the other ranks). */
static void abort_receive(int src, const head *h)
{
    fprintf(stderr, "stickslip-mpi: out of memory receiving %ld rows from rank %d\n", h->n, src);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Receive one message from `src` (its head already probed). */
static void receive(queue *q, int src)
{
    head h;
    MPI_Recv(&h, (int)sizeof h, MPI_BYTE, src, TAG_HEAD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rank_state *s = &q->ranks[src];
    if (h.n == -1 || h.first == -1)
        s->hello = 1;
    else
        s->held--;
    if (h.n == -2) {
        stsl_err e;
        s->hello = 1;
        h.msg[sizeof h.msg - 1] = 0;
        fail(q,
             set_err(&e, h.code ? (stsl_rc)h.code : STSL_RC_INPUT, "%s (rank %d)",
                     h.msg[0] ? h.msg : "failed", src),
             &e);
        return;
    }
    if (h.n <= 0) {
        if (h.first >= 0) account(q, NULL, h.asked);
        return;
    }
    chunk *c = q->rc ? NULL : free_slot(q);
    void *buf = c ? stsl_study_rows_space(c->rows, h.bytes) : NULL, *scratch = NULL;
    if (!buf) {
        if (!q->rc) fail_nomem(q);
        /* received all the same (the sender waits), then dropped */
        buf = scratch = malloc(h.bytes > 0 ? (size_t)h.bytes : 1);
        if (!buf) abort_receive(src, &h);
    }
    /* Large messages may need the sender's help (it lends it at its next
     * row): wait without spinning. */
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Irecv(buf, (int)h.bytes, MPI_BYTE, src, TAG_ROWS, MPI_COMM_WORLD, &r);
    wait_all(&r, 1);
    if (scratch) {
        free(scratch);
        return;
    }
    stsl_err e;
    if (stsl_study_rows_parse(c->rows, &e) || stsl_study_rows_count(c->rows) != h.n) {
        fail(q,
             set_err(&e, STSL_RC_IO, "sweep: rank %d sent rows that do not match its blocks", src),
             &e);
        return;
    }
    c->first = h.first;
    c->used = 1;
    account(q, c->rows, h.asked);
}

/* Everything rank 0 does between two of its own rows: take the messages
 * that have come, write what continues the file, hand out work, report.
 * Returns whether anything came. */
static int service(queue *q)
{
    if (q->o->cancel && *q->o->cancel) q->stop = 1;
    int got = 0;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &flag, &st);
        if (!flag) break;
        receive(q, st.MPI_SOURCE);
        got = 1;
    }
    write_ready(q);
    hand_out(q);
    report(q, 0);
    q->own_stop = q->stop;
    return got;
}

/* stsl_study_take_fn of rank 0's own chunk. */
static int own_take(void *ctx, const stsl_study_row *row, stsl_err *err)
{
    queue *q = ctx;
    (void)err;
    stsl_err e;
    if (row && !q->rc && keep_row(q->own, row, &e)) fail(q, e.code, &e);
    service(q);
    return STSL_RC_OK;
}

/* Run a chunk on rank 0 itself, its threads as a worker's. */
static void run_own(queue *q)
{
    long range[2];
    take_range(q, range);
    chunk *c = free_slot(q);
    if (!c) {
        fail_nomem(q);
        return;
    }
    q->own = c;
    c->first = range[0];
    stsl_err e = {0};
    int rc =
        stsl_study_plan_run(q->sp, range[0], range[1], q->o->jobs, &q->own_stop, own_take, q, &e);
    c = q->own; /* the slots may have moved (own_take receives chunks) */
    q->own = NULL;
    if (rc) {
        fail(q, rc, &e);
        return;
    }
    c->used = !q->rc && stsl_study_rows_count(c->rows) > 0;
    account(q, c->rows, range[1] - range[0]);
}

static int finished(const queue *q)
{
    if (!q->stop && q->next < q->end) return 0;
    for (int r = 1; r < q->n_ranks; r++)
        if (!q->ranks[r].dismissed || q->ranks[r].held > 0) return 0;
    return 1;
}

/* Rank 0: run chunks itself while handing them out to the others; nap
 * only when it has nothing to run (the window is full, or the study's
 * last chunks are out). */
static void serve(queue *q)
{
    long ns = 0;
    while (!finished(q)) {
        if (service(q)) ns = 0;
        if (!no_work(q)) {
            run_own(q);
            ns = 0;
        } else if (!finished(q)) {
            nap(&ns);
        }
    }
    write_ready(q);
}

static long chunk_cap(const stsl_study_plan *sp, int jobs)
{
    return (long)(stsl_study_plan_store_full(sp) ? FULL_CHUNK_PER_THREAD : CHUNK_MAX_PER_THREAD) *
           (jobs > 0 ? jobs : 1);
}

static int writer(const char *study_path, const stsl_study_opts *o, int n_ranks,
                  stsl_study_stats *out, stsl_err *err)
{
    stsl_study_plan *sp = NULL;
    queue q = {.o = o, .prog = out, .n_ranks = n_ranks, .err = err};
    q.ranks = calloc((size_t)n_ranks, sizeof *q.ranks);
    q.t0 = now_seconds();
    q.last_flush = -INFINITY; /* the first rows are flushed at once, as in a threaded run */
    q.rc = q.ranks ? STSL_RC_OK : set_err(err, STSL_RC_NOMEM, "sweep: out of memory");
    if (!q.rc && !(sp = stsl_study_plan_open(study_path, o, err))) q.rc = err->code;
    if (!q.rc && !(q.w = stsl_study_file_open(sp, o, err))) q.rc = err->code;
    if (!q.rc) {
        q.sp = sp;
        out->n_runs = stsl_study_plan_n_variants(sp);
        q.next = stsl_study_file_n_done(q.w);
        q.end = stsl_study_file_end(q.w); /* a test's hold: stickslip.h */
        q.chunk_max = chunk_cap(sp, o->jobs);
        q.ahead = (long)WINDOW_CHUNKS_PER_RANK * n_ranks * q.chunk_max;
        serve(&q);
    } else if (q.ranks) {
        /* Dismiss the others all the same: each says hello, gets an empty range. */
        q.stop = 1;
        for (int left = n_ranks - 1; left > 0; left--) {
            head h;
            MPI_Status st;
            MPI_Recv(&h, (int)sizeof h, MPI_BYTE, MPI_ANY_SOURCE, TAG_HEAD, MPI_COMM_WORLD, &st);
            long range[2] = {0, 0};
            MPI_Send(range, 2, MPI_LONG, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
        }
    }
    int rc = q.rc;
    if (!rc && q.w && q.end < out->n_runs && !q.stop) rc = stsl_study_file_hold(q.w, err);
    if (q.w) {
        out->n_done = stsl_study_file_n_done(q.w);
        out->n_failed = stsl_study_file_n_failed(q.w);
        out->seconds = now_seconds() - q.t0;
        int crc = stsl_study_file_close(q.w, rc ? NULL : err);
        if (!rc) rc = crc;
        if (!rc) report(&q, 1);
    }
    for (int k = 0; k < q.n_pending; k++)
        chunk_free(&q.pending[k]);
    free(q.pending);
    free(q.ranks);
    stsl_study_plan_free(sp);
    return rc;
}

stsl_rc stsl_mpi_sweep_run(const char *study_path, const stsl_study_opts *o, stsl_study_stats *out,
                           stsl_err *err)
{
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(out, 0, sizeof *out);
    if (size == 1) return stsl_study_run_with(study_path, o, out, err);
    if (rank > 0) return worker(study_path, o, err);
    return writer(study_path, o, size, out, err);
}
