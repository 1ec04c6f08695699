/* sweep.h - `stickslip sweep`: a batch study in threads, resumable; and
 * `stickslip info` of a study file. */
#ifndef STSL_CLI_SWEEP_H
#define STSL_CLI_SWEEP_H

/* argv[0] is "sweep"; returns the process exit code. */
int stsl_cli_sweep(int argc, char **argv);

/* Print the summary of a study file; returns the exit code. */
int stsl_cli_study_info(const char *path);

#endif
