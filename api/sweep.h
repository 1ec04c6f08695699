/* sweep.h - a batch study run in threads (`stickslip sweep`): every
 * variant of a study file is a clone of the base configuration with its
 * keys set through the public API, run into a summary only, and its row
 * written to the study file in variant order by the calling thread (the
 * only one that touches HDF5), so that the file does not depend on the
 * number of threads.
 *
 * Worker threads claim variants in order from a shared counter; a worker
 * runs at most WINDOW variants ahead of the last row written (the rows in
 * between wait in a ring), so memory does not grow with the study; with
 * store: full, where a row holds its whole run until written, at most two
 * variants per thread. */
#ifndef STSL_API_SWEEP_H
#define STSL_API_SWEEP_H

#include <signal.h>

#include "include/stickslip.h"
#include "io/study/study_h5.h"
#include "solver/status.h"

/* Variants in the study, rows in the file (earlier sessions included), of
 * those failed or invalid, rows written by this call, seconds since it
 * started: the public stsl_study_stats, passed through as they are. */
typedef stsl_study_stats stsl_sweep_progress;

typedef struct stsl_sweep_opts {
    const char *output;      /* the study file (.h5) */
    int jobs;                /* worker threads (>= 1) */
    int resume;              /* continue `output` if it holds an unfinished study */
    const char *const *sets; /* --set KEY=VALUE on the base configuration */
    int n_sets;
    const char *version; /* program version recorded in the file */
    /* Called by the writing thread after rows are written, at most ~10
     * times a second, and once at the end (may be NULL). */
    void (*progress)(void *ctx, const stsl_sweep_progress *p);
    void *progress_ctx;
    /* Set (by a signal handler) to stop: running variants finish, their
     * rows are written, the file is flushed and left incomplete. */
    volatile sig_atomic_t *stop;
    /* The CSV export the caller writes after the run (NULL: none): checked
     * with the study file by the output rule before anything is written. */
    const char *csv;
} stsl_sweep_opts;

/* Run the study at `study_path`.  Returns STSL_EINPUT for a bad study, base
 * configuration, --set or vary key (nothing written), STSL_EIO when the
 * study file cannot be written; otherwise STSL_OK with *out filled (failed
 * variants are rows, counted in out->n_failed; out->n_done < out->n_runs
 * when stopped). */
int stsl_sweep_run(const char *study_path, const stsl_sweep_opts *o, stsl_sweep_progress *out,
                   stsl_error *err);

/* ---- the parts, for a runner that distributes variants (stickslip-mpi) ---- */

/* A study loaded and checked as stsl_sweep_run does (o->sets, o->version
 * are used): the study, its base configuration, its model's kinds.  It is
 * the public stsl_study_plan (stickslip.h: its number of variants, its
 * store). */
typedef struct stsl_study_plan stsl_sweep_plan;
int stsl_sweep_plan_open(const char *study_path, const stsl_sweep_opts *o, stsl_sweep_plan **out,
                         stsl_error *err);
/* Create, or with o->resume continue, the study file o->output, after the
 * output rule for it and o->csv: with o->resume an existing file must be an
 * unfinished study of the same study file (else STSL_EINPUT with the
 * reason: not a study file, complete, another study); without, an
 * unfinished study is never replaced; otherwise a new study file. */
int stsl_sweep_plan_output(const stsl_sweep_plan *sp, const stsl_sweep_opts *o, stsl_study_h5 **w,
                           stsl_error *err);
/* Receives the rows of stsl_sweep_plan_run in variant order, in the calling
 * thread (row->ev and row->run are freed after it returns); row NULL: nothing new within
 * ~0.1 s.  A non-zero return stops the run with that error. */
typedef int (*stsl_sweep_take)(void *ctx, const stsl_study_row *row, stsl_error *err);
/* Run variants [first, end) in `jobs` threads, the rows to `take`. */
int stsl_sweep_plan_run(const stsl_sweep_plan *sp, long first, long end, int jobs,
                        volatile sig_atomic_t *stop, stsl_sweep_take take, void *ctx,
                        stsl_error *err);
void stsl_sweep_plan_free(stsl_sweep_plan *sp);

/* ---- a deterministic interruption, for tests ---------------------------------
 * With the environment variable STICKSLIP_TEST_SWEEP_HOLD=N (a whole number
 * >= 1) and a stop flag (o->stop, as the command has), a study runs only
 * the first N variants of this call, writes and flushes them, and then
 * waits for the stop flag as though the remaining variants were still
 * running: a test's SIGINT, SIGTERM or SIGKILL lands mid-study, with
 * exactly N new rows on disk, however fast the machine.  Not for use
 * outside tests (a held study never ends by itself). */

/* One past the last variant to run in this call: `end`, or first + N when
 * held. */
long stsl_sweep_hold_end(const stsl_sweep_opts *o, long first, long end);
/* Flush `w` and wait for *o->stop (returns at once without a stop flag). */
int stsl_sweep_hold(const stsl_sweep_opts *o, stsl_study_h5 *w, stsl_error *err);

#endif
