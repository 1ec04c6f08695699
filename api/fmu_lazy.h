/* fmu_lazy.h - the FMU support (io/fmu/fmu_module.h) loaded when it is
 * needed: by the CLI's `converge --fmu`, `compare --fmu` and `stickslip
 * fmu`, and by stsl_converge of an FMU.  Nothing else loads libzip or
 * libxml2: neither libstickslip nor the CLI links them. */
#ifndef STSL_API_FMU_LAZY_H
#define STSL_API_FMU_LAZY_H

#include "io/fmu/fmu_module.h"

/* The module at `path` (NULL: $STICKSLIP_FMU_MODULE, else the installed
 * or the build tree's module), loading it on the first call; it stays
 * loaded until the process ends and a later call returns the same table
 * (dlopen counts references).  NULL with STSL_EIO naming the path and the
 * loader's message when the module is missing, broken or of another
 * build. */
const stsl_fmu_module_api *stsl_fmu_module_load(const char *path, stsl_error *err);

/* The importer's options (io/fmu/fmu_run.h) from the public ones, which
 * stsl_converge_opts and stsl_compare_files name alike (STSL_FMU_OPTS_OF
 * passes them): the lists copied, each of 0 to STSL_FMU_MAX_MAP entries,
 * else STSL_EINPUT naming the list and its count.  f->system is left
 * NULL. */
int stsl_fmu_opts_from(stsl_fmu_opts *f, const char *path, const char *scheme, double timeout,
                       const char *const *lists[3], const int counts[3], stsl_error *err);
#define STSL_FMU_OPTS_OF(f, o, err)                                                                \
    stsl_fmu_opts_from((f), (o)->fmu, (o)->fmu_scheme, (o)->fmu_timeout,                           \
                       (const char *const *[3]){(o)->fmu_inputs, (o)->fmu_outputs, (o)->fmu_sets}, \
                       (const int[3]){(o)->n_fmu_inputs, (o)->n_fmu_outputs, (o)->n_fmu_sets},     \
                       (err))

#endif
