/* curve.h - `stickslip curve`: the friction law's steady-state force
 * against relative velocity, as CSV. */
#ifndef STSL_CLI_CURVE_H
#define STSL_CLI_CURVE_H

/* argv[0] is "curve"; returns the process exit code. */
int stsl_cli_curve(int argc, char **argv);

#endif
