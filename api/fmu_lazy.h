/* fmu_lazy.h - the FMU support (io/fmu/fmu_module.h) loaded when it is
 * needed: by the CLI's `converge --fmu`, `compare --fmu` and `stickslip
 * fmu`, and by stsl_converge of an FMU.  Nothing else loads libzip or
 * libxml2: neither libstickslip nor the CLI links them. */
#ifndef STSL_API_FMU_LAZY_H
#define STSL_API_FMU_LAZY_H

#include <stddef.h>

#include "io/fmu/fmu_module.h"

/* The module at `path` (NULL: stsl_fmu_module_path's), loading it on the
 * first call; it stays loaded until the process ends and a later call
 * returns the same table (dlopen counts references).  NULL with STSL_EIO
 * naming the path and the loader's message when the module is missing,
 * broken or of another build. */
const stsl_fmu_module_api *stsl_fmu_module_load(const char *path, stsl_error *err);

/* The library's default module: $STICKSLIP_FMU_MODULE when set, else
 * stickslip/stickslip_fmu.so beside the library's own file when it exists
 * (an installation: LIBDIR/stickslip/), else the build tree's (into buf
 * when it is made). */
const char *stsl_fmu_module_path(char *buf, size_t size);

#endif
