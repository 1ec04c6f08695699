/* fmu_lazy.c - the FMU module loaded on demand (see fmu_lazy.h). */
#include "cli/fmu_lazy.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "stsl_version.h"

const char *stsl_cli_fmu_file(const char *env, const char *built, char *buf, size_t size)
{
    const char *v = getenv(env);
    if (v && *v) return v;
#ifdef STSL_FMU_FROM_EXE
    return stsl_cli_beside_exe(built, buf, size);
#else
    (void)buf;
    (void)size;
    return built;
#endif
}

/* The table, checked against this program's build. */
static const stsl_fmu_module_api *checked(const char *path, const stsl_fmu_module_api *m,
                                          stsl_error *err)
{
    if (!m || m->abi != STSL_FMU_MODULE_ABI || m->size != sizeof *m || !m->version ||
        strcmp(m->version, STSL_VERSION)) {
        stsl_error_set(err, STSL_EIO,
                       "the FMU module %s is of another build (version %s, interface %d; "
                       "this program: version %s, interface %d)",
                       path, m && m->version ? m->version : "?", m ? m->abi : 0, STSL_VERSION,
                       STSL_FMU_MODULE_ABI);
        return NULL;
    }
    return m;
}

/* dlopen counts references: a second call finds the module loaded and
 * returns the same handle, so nothing needs to be remembered here.  The
 * handle is never closed (the module's functions are used until exit). */
const stsl_fmu_module_api *stsl_cli_fmu_module(stsl_error *err)
{
    char buf[4200];
    const char *path =
        stsl_cli_fmu_file("STICKSLIP_FMU_MODULE", STSL_FMU_MODULE_SO, buf, sizeof buf);
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
