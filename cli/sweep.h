/* sweep.h - `stickslip sweep`: a batch study in threads, resumable; and
 * `stickslip info` of a study file. */
#ifndef STSL_CLI_SWEEP_H
#define STSL_CLI_SWEEP_H

#include "include/stickslip.h"

/* argv[0] is "sweep"; returns the process exit code. */
int stsl_cli_sweep(int argc, char **argv);

/* What runs the study behind the same arguments, messages and exit codes:
 * stsl_study_run_with for `stickslip sweep`, the MPI runner for
 * stickslip-mpi.  A process that is not the writer (an MPI worker rank)
 * prints nothing. */
typedef struct stsl_cli_sweep_runner {
    stsl_rc (*run)(const char *study, const stsl_study_opts *o, stsl_study_stats *out,
                   stsl_err *err);
    int writer;
    const char *name; /* the command in messages ("stickslip sweep") */
} stsl_cli_sweep_runner;
int stsl_cli_sweep_with(int argc, char **argv, const stsl_cli_sweep_runner *r);

/* Print the summary of a study file; returns the exit code. */
int stsl_cli_study_info(const char *path);

#endif
