/* sweep_mpi.h - `stickslip-mpi sweep`: the variants of a study over MPI
 * ranks.  Every rank runs chunks of variants in its threads
 * (stsl_study_plan_run, as `stickslip sweep` does); rank 0 also loads the
 * study, creates (or resumes) the file, hands the chunks out from a
 * dynamic queue between two of its own rows, and writes every rank's rows
 * in variant order, so the file equals that of a threaded run.  A worker
 * rank holds its next chunk while it runs one, so it never waits for rank
 * 0; chunk sizes follow the variants' measured cost.  With one rank it is
 * the threaded run.  Ranks exchange rows as bytes: every rank runs the
 * same binary on the same architecture. */
#ifndef STSL_MPI_SWEEP_MPI_H
#define STSL_MPI_SWEEP_MPI_H

#include "include/stickslip.h"

/* stsl_study_run_with's contract, on every rank of MPI_COMM_WORLD (MPI
 * initialised with at least MPI_THREAD_FUNNELED); `out` and the return
 * code mean something on rank 0 only. */
stsl_rc stsl_mpi_sweep_run(const char *study_path, const stsl_study_opts *o, stsl_study_stats *out,
                           stsl_err *err);

#endif
