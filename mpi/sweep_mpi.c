/* sweep_mpi.c - see sweep_mpi.h. */
#include "mpi/sweep_mpi.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/error.h"

enum { TAG_HEAD = 1, TAG_ROWS = 2, TAG_EVENTS = 3, TAG_RUN = 4, TAG_WORK = 5 };

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
    long first, n, asked, n_ev;
    size_t n_run; /* bytes of runs (store: full) */
    int code;     /* n = -2: the stsl_status of the failure */
    char msg[STSL_ERRMSG_MAX];
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

static void chunk_free(chunk *c)
{
    free(c->rows);
    free(c->ev);
    free(c->run);
}

/* Keep the row and a copy of its events and run in the chunk. */
static int keep_row(chunk *c, const stsl_study_row *row, stsl_error *err)
{
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
    c->rows[c->n].ev = NULL;  /* rebuilt from the event block (link_rows) */
    c->rows[c->n].run = NULL; /* rebuilt from the run block */
    c->n++;
    return STSL_OK;
}

/* Point each row at its events and run in the chunk's blocks. */
static int link_rows(chunk *c, int src, stsl_error *err)
{
    long k = 0;
    size_t at = 0;
    for (long i = 0; i < c->n; i++) {
        c->rows[i].ev = c->rows[i].n_ev ? c->ev + k : NULL;
        k += c->rows[i].n_ev;
        c->rows[i].run = c->rows[i].run_size ? c->run + at : NULL;
        at += c->rows[i].run_size;
    }
    if (k == c->n_ev && at == c->n_run) return STSL_OK;
    return stsl_error_set(err, STSL_EIO, "sweep: rank %d sent rows that do not match its blocks",
                          src);
}

/* ---- worker ranks ------------------------------------------------------------ */

/* A worker: runs one chunk while the next one (and the sends of the last)
 * are under way. */
typedef struct worker_state {
    chunk c[2]; /* the chunk running, and the one being sent */
    head h[2];  /* their heads (they must live until sent) */
    MPI_Request out[2][4];
    long work[2]; /* the next range from rank 0 */
    MPI_Request work_req;
    int cur;
} worker_state;

static void post_work_recv(worker_state *ws)
{
    MPI_Irecv(ws->work, 2, MPI_LONG, 0, TAG_WORK, MPI_COMM_WORLD, &ws->work_req);
}

/* stsl_sweep_take: keep the row; let MPI move the messages under way. */
static int worker_take(void *ctx, const stsl_study_row *row, stsl_error *err)
{
    worker_state *ws = ctx;
    int flag;
    MPI_Test(&ws->work_req, &flag, MPI_STATUS_IGNORE);
    MPI_Testall(4, ws->out[ws->cur ^ 1], &flag, MPI_STATUSES_IGNORE);
    return row ? keep_row(&ws->c[ws->cur], row, err) : STSL_OK;
}

/* Send chunk `k` (head, rows, events, runs) without waiting. */
static void send_chunk(worker_state *ws, int k)
{
    const chunk *c = &ws->c[k];
    head *h = &ws->h[k];
    h->n_ev = c->n > 0 ? c->n_ev : 0;
    h->n_run = c->n > 0 ? c->n_run : 0;
    MPI_Request *r = ws->out[k];
    for (int i = 0; i < 4; i++)
        r[i] = MPI_REQUEST_NULL;
    MPI_Isend(h, (int)sizeof *h, MPI_BYTE, 0, TAG_HEAD, MPI_COMM_WORLD, &r[0]);
    if (c->n > 0)
        MPI_Isend(c->rows, (int)((size_t)c->n * sizeof *c->rows), MPI_BYTE, 0, TAG_ROWS,
                  MPI_COMM_WORLD, &r[1]);
    if (h->n_ev > 0)
        MPI_Isend(c->ev, (int)((size_t)c->n_ev * sizeof *c->ev), MPI_BYTE, 0, TAG_EVENTS,
                  MPI_COMM_WORLD, &r[2]);
    if (h->n_run > 0) MPI_Isend(c->run, (int)c->n_run, MPI_BYTE, 0, TAG_RUN, MPI_COMM_WORLD, &r[3]);
}

/* Run the range into chunk ws->cur and send it.  A rank stopped by its own
 * signal (mpirun passes Ctrl-C on as SIGTERM) runs nothing more and sends
 * what it has: rank 0 then stops the study. */
static void run_range(const stsl_sweep_plan *sp, const stsl_sweep_opts *o, worker_state *ws,
                      long first, long end, int failed)
{
    int k = ws->cur;
    wait_all(ws->out[k], 4); /* the buffer's last sends */
    chunk *c = &ws->c[k];
    c->first = first;
    c->n = c->n_ev = 0;
    c->n_run = 0;
    head *h = &ws->h[k];
    memset(h, 0, sizeof *h);
    h->first = first;
    h->asked = end - first;
    stsl_error err = {0};
    int rc = failed ? STSL_EINPUT : STSL_OK;
    if (!rc && !(o->stop && *o->stop))
        rc = stsl_sweep_plan_run(sp, first, end, o->jobs, o->stop, worker_take, ws, &err);
    h->n = rc ? -2 : c->n;
    if (rc && !failed) {
        h->code = rc;
        snprintf(h->msg, sizeof h->msg, "%s", err.msg);
    }
    send_chunk(ws, k);
    ws->cur ^= 1;
}

/* Say hello (or why the study could not be loaded), then run every range
 * rank 0 sends until an empty one. */
static int worker(const char *study_path, const stsl_sweep_opts *o, stsl_error *err)
{
    stsl_sweep_plan *sp = NULL;
    int rc = stsl_sweep_plan_open(study_path, o, &sp, err);
    worker_state ws;
    memset(&ws, 0, sizeof ws);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 4; i++)
            ws.out[k][i] = MPI_REQUEST_NULL;
    ws.h[1] = (head){.first = -1, .n = rc ? -2 : -1, .code = rc};
    if (rc) snprintf(ws.h[1].msg, sizeof ws.h[1].msg, "%s", err->msg);
    post_work_recv(&ws);
    send_chunk(&ws, 1);
    for (;;) {
        wait_all(&ws.work_req, 1);
        long first = ws.work[0], end = ws.work[1];
        if (end <= first) break;
        post_work_recv(&ws); /* the next range arrives while this one runs */
        run_range(sp, o, &ws, first, end, rc != 0);
    }
    wait_all(ws.out[0], 4);
    wait_all(ws.out[1], 4);
    for (int k = 0; k < 2; k++)
        chunk_free(&ws.c[k]);
    stsl_sweep_plan_free(sp);
    return rc;
}

/* ---- rank 0 ------------------------------------------------------------------ */

typedef struct rank_state {
    int held;      /* chunks handed out, not yet returned */
    int hello;     /* heard from */
    int dismissed; /* sent the empty range: no more messages to it */
} rank_state;

typedef struct queue {
    const stsl_sweep_plan *sp;
    const stsl_sweep_opts *o;
    stsl_sweep_progress *prog;
    stsl_study_h5 *w;
    int n_ranks, rc;
    stsl_error *err;
    long next, end; /* variants handed out so far; one past the last to hand out */
    long chunk_max, ahead;
    int stop, stop_flushed;
    volatile sig_atomic_t own_stop; /* rank 0's own chunk: stop claiming */
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
    return q->stop || q->next >= q->end || q->next >= stsl_study_h5_n_done(q->w) + q->ahead;
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
    q->prog->n_done = stsl_study_h5_n_done(q->w);
    q->prog->n_failed = stsl_study_h5_n_failed(q->w);
    q->prog->seconds = t - q->t0;
    q->o->progress(q->o->progress_ctx, q->prog);
}

/* Stop the study with the first failure's error (`e`; NULL: already in
 * q->err). */
static void fail(queue *q, int rc, const stsl_error *e)
{
    if (!q->rc) {
        q->rc = rc;
        if (e) *q->err = *e;
    }
    q->stop = 1;
}

static void fail_nomem(queue *q)
{
    stsl_error e;
    fail(q, stsl_error_set(&e, STSL_ENOMEM, "sweep: out of memory"), &e);
}

/* Append every pending chunk that continues the file, in variant order;
 * flush every FLUSH_SECONDS, and at once when stopped. */
static void write_ready(queue *q)
{
    for (int found = 1; found && !q->rc;) {
        found = 0;
        for (int k = 0; k < q->n_pending && !q->rc; k++) {
            chunk *c = &q->pending[k];
            if (!c->used || c->first != stsl_study_h5_n_done(q->w)) continue;
            for (long i = 0; i < c->n && !q->rc; i++) {
                int rc = stsl_study_h5_append(q->w, &c->rows[i], q->err);
                if (rc) fail(q, rc, NULL);
                q->prog->n_session++;
            }
            c->n_run = 0;
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
        int rc = stsl_study_h5_flush(q->w, q->err);
        if (rc) fail(q, rc, NULL);
    }
}

/* A free slot for the next chunk (NULL: out of memory). */
static chunk *free_slot(queue *q)
{
    for (int k = 0; k < q->n_pending; k++)
        if (!q->pending[k].used && &q->pending[k] != q->own) return &q->pending[k];
    int n = q->n_pending ? 2 * q->n_pending : 8;
    long own = q->own ? q->own - q->pending : -1;
    chunk *p = realloc(q->pending, (size_t)n * sizeof *p);
    if (!p) return NULL;
    memset(p + q->n_pending, 0, (size_t)(n - q->n_pending) * sizeof *p);
    q->pending = p;
    if (own >= 0) q->own = &p[own];
    chunk *c = &p[q->n_pending];
    q->n_pending = n;
    return c;
}

/* What a chunk says about the variants' cost and the study's state. */
static void account(queue *q, const chunk *c, long asked)
{
    for (long i = 0; i < c->n; i++) {
        q->cost_seconds += c->rows[i].wall_seconds;
        q->cost_rows++;
    }
    if (c->n < asked) q->stop = 1; /* its rank was stopped (a signal): so is the study */
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
        stsl_error e;
        s->hello = 1;
        h.msg[sizeof h.msg - 1] = 0;
        fail(q,
             stsl_error_set(&e, h.code ? (stsl_status)h.code : STSL_EINPUT, "%s (rank %d)",
                            h.msg[0] ? h.msg : "failed", src),
             &e);
        return;
    }
    if (h.n <= 0) {
        if (h.first >= 0) account(q, &(chunk){.n = 0}, h.asked);
        return;
    }
    chunk scratch = {0}, *c = q->rc ? NULL : free_slot(q);
    if (!c || reserve(c, h.n, h.n_ev, h.n_run, NULL)) {
        if (!q->rc) fail_nomem(q);
        c = &scratch; /* received all the same (the sender waits), then dropped */
        if (reserve(c, h.n, h.n_ev, h.n_run, NULL)) abort_receive(src, &h);
    }
    c->first = h.first;
    c->n = h.n;
    c->n_ev = h.n_ev;
    c->n_run = h.n_run;
    /* Large messages may need the sender's help (it lends it at its next
     * row): wait without spinning. */
    MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Irecv(c->rows, (int)((size_t)h.n * sizeof *c->rows), MPI_BYTE, src, TAG_ROWS,
              MPI_COMM_WORLD, &r[0]);
    if (h.n_ev > 0)
        MPI_Irecv(c->ev, (int)((size_t)h.n_ev * sizeof *c->ev), MPI_BYTE, src, TAG_EVENTS,
                  MPI_COMM_WORLD, &r[1]);
    if (h.n_run > 0) MPI_Irecv(c->run, (int)h.n_run, MPI_BYTE, src, TAG_RUN, MPI_COMM_WORLD, &r[2]);
    wait_all(r, 3);
    if (c == &scratch) {
        chunk_free(&scratch);
        return;
    }
    stsl_error e;
    int rc = link_rows(c, src, &e);
    if (rc) {
        fail(q, rc, &e);
        return;
    }
    c->used = 1;
    account(q, c, h.asked);
}

/* Everything rank 0 does between two of its own rows: take the messages
 * that have come, write what continues the file, hand out work, report.
 * Returns whether anything came. */
static int service(queue *q)
{
    if (q->o->stop && *q->o->stop) q->stop = 1;
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

/* stsl_sweep_take of rank 0's own chunk. */
static int own_take(void *ctx, const stsl_study_row *row, stsl_error *err)
{
    queue *q = ctx;
    (void)err;
    stsl_error e;
    if (row && !q->rc && keep_row(q->own, row, &e)) fail(q, e.code, &e);
    service(q);
    return STSL_OK;
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
    c->n = c->n_ev = 0;
    c->n_run = 0;
    stsl_error e = {0};
    int rc =
        stsl_sweep_plan_run(q->sp, range[0], range[1], q->o->jobs, &q->own_stop, own_take, q, &e);
    c = q->own; /* the slots may have moved (own_take receives chunks) */
    q->own = NULL;
    if (!rc) rc = link_rows(c, 0, &e);
    if (rc) {
        fail(q, rc, &e);
        return;
    }
    c->used = !q->rc && c->n > 0;
    account(q, c, range[1] - range[0]);
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

static long chunk_cap(const stsl_sweep_plan *sp, int jobs)
{
    return (long)(stsl_sweep_plan_store_full(sp) ? FULL_CHUNK_PER_THREAD : CHUNK_MAX_PER_THREAD) *
           (jobs > 0 ? jobs : 1);
}

static int writer(const char *study_path, const stsl_sweep_opts *o, int n_ranks,
                  stsl_sweep_progress *out, stsl_error *err)
{
    stsl_sweep_plan *sp = NULL;
    queue q = {.o = o, .prog = out, .n_ranks = n_ranks, .err = err};
    q.ranks = calloc((size_t)n_ranks, sizeof *q.ranks);
    q.t0 = now_seconds();
    q.last_flush = -INFINITY; /* the first rows are flushed at once, as in a threaded run */
    q.rc = q.ranks ? STSL_OK : stsl_error_set(err, STSL_ENOMEM, "sweep: out of memory");
    if (!q.rc) q.rc = stsl_sweep_plan_open(study_path, o, &sp, err);
    if (!q.rc) q.rc = stsl_sweep_plan_output(sp, o, &q.w, err);
    if (!q.rc) {
        q.sp = sp;
        out->n_runs = stsl_sweep_plan_n_variants(sp);
        q.next = stsl_study_h5_n_done(q.w);
        q.end = stsl_sweep_hold_end(o, q.next, out->n_runs); /* a test's hold: sweep.h */
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
    if (!rc && q.w && q.end < out->n_runs && !q.stop) rc = stsl_sweep_hold(o, q.w, err);
    if (q.w) {
        out->n_done = stsl_study_h5_n_done(q.w);
        out->n_failed = stsl_study_h5_n_failed(q.w);
        out->seconds = now_seconds() - q.t0;
        int crc = stsl_study_h5_close(q.w, rc ? NULL : err);
        if (!rc) rc = crc;
        if (!rc) report(&q, 1);
    }
    for (int k = 0; k < q.n_pending; k++)
        chunk_free(&q.pending[k]);
    free(q.pending);
    free(q.ranks);
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
    return writer(study_path, o, size, out, err);
}
