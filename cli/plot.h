/* plot.h - `stickslip plot`: draw a result file.
 *
 * The drawing is done by the Python module python/stickslip_plot.py
 * (matplotlib, h5py) run by Debian's interpreter /usr/bin/python3. */
#ifndef STSL_CLI_PLOT_H
#define STSL_CLI_PLOT_H

/* Run `stickslip plot ARGS...` (argv[0] = "plot"): replace this process with
 * `/usr/bin/python3 DIR/stickslip_plot.py ARGS...`, where DIR is the
 * environment variable STICKSLIP_PYTHON_DIR, else the build's
 * STSL_PYTHON_DIR (the source tree's python/).  The environment variable
 * STICKSLIP_PYTHON overrides the interpreter.  The arguments are passed
 * through unchanged (no shell), so the module's exit code is the command's.
 * Returns only when the module or the interpreter is missing or cannot be
 * run: prints one line `stickslip plot: error: ...` and returns 2. */
int stsl_cli_plot(int argc, char **argv);

#endif
