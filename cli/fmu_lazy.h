/* fmu_lazy.h - the FMU support (io/fmu/fmu_module.h) loaded when a
 * command needs it: `converge --fmu`, `compare --fmu` and `stickslip fmu`.
 * The other commands never load libzip or libxml2.
 *
 * The module is STICKSLIP_FMU_MODULE when set, else where the build (or
 * the installation) put stickslip_fmu.so. */
#ifndef STSL_CLI_FMU_LAZY_H
#define STSL_CLI_FMU_LAZY_H

#include <stddef.h>

#include "io/fmu/fmu_module.h"

/* The module's table, loading the module on the first call (it stays
 * loaded until the process ends; a later call returns the same table).
 * NULL with STSL_EIO naming the module's path and the loader's message
 * when it is missing, broken or of another build. */
const stsl_fmu_module_api *stsl_cli_fmu_module(stsl_error *err);

/* A file of the FMU support: the environment variable `env` when set, else
 * `built`, the build's path; the installed CLI (STSL_FMU_FROM_EXE) takes
 * `built` relative to its own executable's folder (into buf), so that
 * `cmake --install --prefix ANY` works. */
const char *stsl_cli_fmu_file(const char *env, const char *built, char *buf, size_t size);

#endif
