/* fmu_module.h - the FMU support as a module loaded on demand
 * (stickslip_fmu.so): FMU import (fmu_run.h) and the archive writer
 * (fmu_pack.h) need libzip and libxml2, which every other command would
 * otherwise load at start-up.  The module exports one symbol,
 * STSL_FMU_MODULE_ENTRY, a function returning this table; the CLI loads
 * it with dlopen when a command needs it (cli/fmu_lazy.h).
 *
 * A module of another build is refused: the table carries its ABI number,
 * its size and the program version it was built with (the structures it
 * shares with the CLI, e.g. stsl_element_params, change between
 * versions). */
#ifndef STSL_FMU_MODULE_H
#define STSL_FMU_MODULE_H

#include "io/fmu/fmu_pack.h"
#include "io/fmu/fmu_run.h"

/* Raised whenever the table or the signatures change. */
#define STSL_FMU_MODULE_ABI   2
#define STSL_FMU_MODULE_ENTRY "stsl_fmu_module"

typedef struct stsl_fmu_module_api {
    int abi;             /* STSL_FMU_MODULE_ABI */
    size_t size;         /* sizeof(stsl_fmu_module_api) */
    const char *version; /* the program version of the module's build */
    int (*open)(const stsl_fmu_opts *o, const stsl_element_params *p, stsl_fmu **out,
                stsl_error *err);
    void (*close)(stsl_fmu *f);
    int (*run)(stsl_fmu *f, double t_end, double h, stsl_sink *sink, stsl_stats *stats,
               stsl_error *err);
    int (*run_samples)(stsl_fmu *f, double t_end, double h, stsl_fmu_samples *s, stsl_error *err);
    void (*samples_free)(stsl_fmu_samples *s);
    int (*pack)(const char *out, const stsl_fmu_entry *e, int n, const char *missing_hint,
                stsl_error *err);
} stsl_fmu_module_api;

typedef const stsl_fmu_module_api *(*stsl_fmu_module_fn)(void);

/* The entry point (the module's one exported symbol). */
const stsl_fmu_module_api *stsl_fmu_module(void);

#endif
