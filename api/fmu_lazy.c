/* fmu_lazy.c - the FMU module loaded on demand (see fmu_lazy.h). */
#define _GNU_SOURCE /* dladdr: where the library's own file is */
#include "api/fmu_lazy.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef STSL_FMU_MODULE_SO
#define STSL_FMU_MODULE_SO "stickslip_fmu.so"
#endif

/* The library's default module: $STICKSLIP_FMU_MODULE when set, else
 * stickslip/stickslip_fmu.so beside the library's own file when it exists
 * (an installation: LIBDIR/stickslip/), else the build tree's (into buf
 * when it is made). */
static const char *module_path(char *buf, size_t size)
{
    const char *v = getenv("STICKSLIP_FMU_MODULE");
    if (v && *v) return v;
    Dl_info info;
    /* POSIX: a function pointer converts to the data pointer dladdr takes. */
    void *self;
    const stsl_fmu_module_api *(*fn)(const char *, stsl_error *) = stsl_fmu_module_load;
    memcpy(&self, &fn, sizeof self);
    if (dladdr(self, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        int dir = slash ? (int)(slash - info.dli_fname) : 0;
        snprintf(buf, size, "%.*s%sstickslip/stickslip_fmu.so", dir, info.dli_fname,
                 slash ? "/" : "");
        if (access(buf, R_OK) == 0) return buf;
    }
    return STSL_FMU_MODULE_SO;
}

/* The table, checked against this library's build. */
static const stsl_fmu_module_api *checked(const char *path, const stsl_fmu_module_api *m,
                                          stsl_error *err)
{
    if (!m || m->abi != STSL_FMU_MODULE_ABI || m->size != sizeof *m || !m->version ||
        strcmp(m->version, STSL_LIB_VERSION)) {
        stsl_error_set(err, STSL_EIO,
                       "the FMU module %s is of another build (version %s, interface %d; "
                       "this program: version %s, interface %d)",
                       path, m && m->version ? m->version : "?", m ? m->abi : 0, STSL_LIB_VERSION,
                       STSL_FMU_MODULE_ABI);
        return NULL;
    }
    return m;
}

/* The handle is never closed: the module's functions are used until exit. */
const stsl_fmu_module_api *stsl_fmu_module_load(const char *path, stsl_error *err)
{
    char buf[4200];
    if (!path) path = module_path(buf, sizeof buf);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        stsl_error_set(err, STSL_EIO,
                       "cannot load the FMU module %s: %s (set STICKSLIP_FMU_MODULE to "
                       "stickslip_fmu.so)",
                       path, dlerror());
        return NULL;
    }
    stsl_fmu_module_fn entry;
    /* POSIX: a data pointer from dlsym converts to a function pointer. */
    *(void **)&entry = dlsym(h, STSL_FMU_MODULE_ENTRY);
    if (!entry) {
        stsl_error_set(err, STSL_EIO, "the FMU module %s has no %s: %s", path,
                       STSL_FMU_MODULE_ENTRY, dlerror());
        return NULL;
    }
    return checked(path, entry(), err);
}

int stsl_fmu_opts_from(stsl_fmu_opts *f, const char *path, const char *scheme, double timeout,
                       const char *const *lists[3], const int counts[3], stsl_error *err)
{
    *f = (stsl_fmu_opts){.path = path, .scheme = scheme, .timeout = timeout};
    const char **into[3] = {f->inputs, f->outputs, f->sets};
    int *n_into[3] = {&f->n_inputs, &f->n_outputs, &f->n_sets};
    static const char *const what[3] = {"fmu_inputs", "fmu_outputs", "fmu_sets"};
    for (int k = 0; k < 3; k++) {
        if (counts[k] < 0 || counts[k] > STSL_FMU_MAX_MAP || (counts[k] && !lists[k]))
            return stsl_error_set(err, STSL_EINPUT, "%s: need 0 to %d entries, got %d", what[k],
                                  STSL_FMU_MAX_MAP, counts[k]);
        for (int i = 0; i < counts[k]; i++)
            into[k][i] = lists[k][i];
        *n_into[k] = counts[k];
    }
    return STSL_OK;
}
