/* compare.h - `stickslip compare REFERENCE.h5 CANDIDATE`: a trajectory from
 * elsewhere (a fixed-step scheme, Simulink, a CSV) against the exact
 * reference, which is re-run at the candidate's time points. */
#ifndef STSL_CLI_COMPARE_H
#define STSL_CLI_COMPARE_H

/* argv[0] is "compare"; returns the process exit code (0 ok, 2 bad input,
 * 3 the reference's re-run failed, 1 a report could not be written). */
int stsl_cli_compare(int argc, char **argv);

#endif
