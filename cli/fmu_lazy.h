/* fmu_lazy.h - where the CLI finds the FMU support: the module (the
 * library loads it) for `converge --fmu`, `compare --fmu` and `stickslip
 * fmu`, and the exported FMU's binary.  The other commands never load
 * libzip or libxml2.
 *
 * The module is STICKSLIP_FMU_MODULE when set, else where the build (or
 * the installation) put stickslip_fmu.so. */
#ifndef STSL_CLI_FMU_LAZY_H
#define STSL_CLI_FMU_LAZY_H

#include <stddef.h>

/* The CLI's module path (into buf when it is made). */
const char *stsl_cli_fmu_module_path(char *buf, size_t size);

/* A file of the FMU support: the environment variable `env` when set, else
 * `built`, the build's path; the installed CLI (STSL_FMU_FROM_EXE) takes
 * `built` relative to its own executable's folder (into buf), so that
 * `cmake --install --prefix ANY` works. */
const char *stsl_cli_fmu_file(const char *env, const char *built, char *buf, size_t size);

#endif
