/* fmu_pack.c - an FMU archive written whole or not at all (see fmu_pack.h). */
#include "io/fmu/fmu_pack.h"

#include <stdio.h>
#include <unistd.h>

#include <zip.h>

/* Add one entry; on failure the source is freed (libzip owns it only once
 * added). */
static int add_entry(zip_t *z, const stsl_fmu_entry *e)
{
    zip_source_t *s =
        e->data ? zip_source_buffer(z, e->data, e->len, 0) : zip_source_file(z, e->file, 0, -1);
    if (s && zip_file_add(z, e->name, s, ZIP_FL_OVERWRITE) >= 0) return 0;
    zip_source_free(s);
    return -1;
}

int stsl_fmu_pack(const char *out, const stsl_fmu_entry *e, int n, const char *missing_hint,
                  stsl_error *err)
{
    for (int i = 0; i < n; i++)
        if (!e[i].data && access(e[i].file, R_OK))
            return stsl_error_set(err, STSL_EIO, "the FMU binary %s is missing (%s)", e[i].file,
                                  missing_hint);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    int ze = 0;
    zip_t *z = zip_open(tmp, ZIP_CREATE | ZIP_TRUNCATE, &ze);
    if (!z) return stsl_error_set(err, STSL_EIO, "%s: cannot create it", tmp);
    int bad = 0;
    for (int i = 0; i < n && !bad; i++)
        bad = add_entry(z, &e[i]);
    if (bad) {
        stsl_error_set(err, STSL_EIO, "%s: %s", tmp, zip_strerror(z));
        zip_discard(z);
        return STSL_EIO;
    }
    if (zip_close(z)) {
        stsl_error_set(err, STSL_EIO, "%s: %s", tmp, zip_strerror(z));
        zip_discard(z);
        remove(tmp);
        return STSL_EIO;
    }
    if (rename(tmp, out)) {
        remove(tmp);
        return stsl_error_set(err, STSL_EIO, "%s: cannot write it", out);
    }
    return STSL_OK;
}
