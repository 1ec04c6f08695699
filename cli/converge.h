/* converge.h - `stickslip converge`: a fixed-step scheme's error against the
 * exact event-driven reference, step by step, with its cost and the fitted
 * order of convergence. */
#ifndef STSL_CLI_CONVERGE_H
#define STSL_CLI_CONVERGE_H

/* argv[0] is "converge"; returns the process exit code. */
int stsl_cli_converge(int argc, char **argv);

#endif
