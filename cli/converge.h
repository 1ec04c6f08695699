/* converge.h - `stickslip converge`: a fixed-step scheme's error against the
 * exact event-driven reference, step by step, with its cost and the fitted
 * order of convergence. */
#ifndef STSL_CLI_CONVERGE_H
#define STSL_CLI_CONVERGE_H

/* argv[0] is "converge"; returns the process exit code. */
int stsl_cli_converge(int argc, char **argv);

#include "solver/status.h"

/* `stickslip info` of a file with a /convergence group (converge --h5):
 * its table on stdout; STSL_EINPUT naming the file when it is damaged. */
int stsl_cli_convergence_info(const char *path, stsl_error *err);

#endif
