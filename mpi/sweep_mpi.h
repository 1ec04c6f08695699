/* sweep_mpi.h - `stickslip-mpi sweep`: the variants of a study over MPI
 * ranks.  Rank 0 loads the study, creates (or resumes) the file and hands
 * out chunks of variants from a dynamic queue; every other rank runs its
 * chunk in its threads (stsl_sweep_plan_run, as `stickslip sweep` does)
 * and sends the rows back; rank 0 writes them in variant order, so the
 * file equals that of a threaded run.  With one rank it is the threaded
 * run.  Ranks exchange rows as bytes: every rank runs the same binary on
 * the same architecture. */
#ifndef STSL_MPI_SWEEP_MPI_H
#define STSL_MPI_SWEEP_MPI_H

#include "api/sweep.h"

/* stsl_sweep_run's contract, on every rank of MPI_COMM_WORLD (MPI
 * initialised with at least MPI_THREAD_FUNNELED); `out` and the return
 * code mean something on rank 0 only. */
int stsl_mpi_sweep_run(const char *study_path, const stsl_sweep_opts *o, stsl_sweep_progress *out,
                       stsl_error *err);

#endif
