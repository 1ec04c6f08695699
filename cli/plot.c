/* plot.c - `stickslip plot`: hand the arguments to the Python plotting module. */
#include "cli/plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"

/* Folder of stickslip_plot.py, set by CMake to the source tree's python/. */
#ifndef STSL_PYTHON_DIR
#define STSL_PYTHON_DIR "python"
#endif
/* Debian's interpreter: the one python3-matplotlib and python3-h5py serve
 * (a python3 earlier on PATH may be another installation without them). */
#define PLOT_PYTHON "/usr/bin/python3"
#define PLOT_MODULE "stickslip_plot.py"
#define PLOT_HINT                                                                                  \
    "plotting needs Debian's python3 with python3-matplotlib and python3-h5py (scripts/setup "     \
    "installs them)"

/* The installed CLI (STSL_PYTHON_DIR_FROM_EXE) looks for the module relative
 * to its own executable, so that `cmake --install --prefix ANY` works. */
static const char *module_dir(char *buf, size_t size)
{
#ifdef STSL_PYTHON_DIR_FROM_EXE
    return stsl_cli_beside_exe(STSL_PYTHON_DIR, buf, size);
#else
    (void)buf;
    (void)size;
    return STSL_PYTHON_DIR;
#endif
}

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

int stsl_cli_plot(int argc, char **argv)
{
    char own[4200];
    const char *dir = env_or("STICKSLIP_PYTHON_DIR", module_dir(own, sizeof own));
    const char *python = env_or("STICKSLIP_PYTHON", PLOT_PYTHON);
    size_t n = strlen(dir) + sizeof "/" PLOT_MODULE;
    char *module = malloc(n);
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!module || !args) {
        fprintf(stderr, "stickslip plot: error: out of memory\n");
        free(module);
        free(args);
        return 2;
    }
    snprintf(module, n, "%s/" PLOT_MODULE, dir);
    int rc = 2;
    if (access(module, R_OK)) {
        fprintf(stderr,
                "stickslip plot: error: plotting module %s: %s (set STICKSLIP_PYTHON_DIR to the "
                "folder holding " PLOT_MODULE ")\n",
                module, strerror(errno));
        goto out;
    }
    if (access(python, X_OK)) {
        fprintf(stderr, "stickslip plot: error: %s: %s: " PLOT_HINT "\n", python, strerror(errno));
        goto out;
    }
    /* python module ARGS... NULL: argv[1 .. argc-1] follow the module. */
    args[0] = (char *)python;
    args[1] = module;
    for (int i = 1; i < argc; i++)
        args[i + 1] = argv[i];
    args[argc + 1] = NULL;
    fflush(stdout);
    fflush(stderr);
    execv(python, args);
    fprintf(stderr, "stickslip plot: error: cannot run %s: %s: " PLOT_HINT "\n", python,
            strerror(errno));
out:
    free(module);
    free(args);
    return rc;
}
