/* fmu_pack.h - an FMU archive written whole or not at all: the entries
 * (each a buffer or a file) go into OUT.tmp, which is renamed over OUT
 * only when libzip has closed it complete. */
#ifndef STSL_FMU_PACK_H
#define STSL_FMU_PACK_H

#include <stddef.h>

#include "solver/status.h"

typedef struct stsl_fmu_entry {
    const char *name; /* the path inside the archive */
    const char *data; /* the bytes (len of them), or NULL: the file `file` */
    size_t len;
    const char *file;
} stsl_fmu_entry;

/* Write the n entries as the archive `out`.  A missing `file` is STSL_EIO
 * naming it and `missing_hint` (how to point at it); any other failure is
 * STSL_EIO naming the file; OUT is then untouched. */
int stsl_fmu_pack(const char *out, const stsl_fmu_entry *e, int n, const char *missing_hint,
                  stsl_error *err);

#endif
