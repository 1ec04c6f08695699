/* fmu_lazy.c - the CLI's FMU files (see fmu_lazy.h). */
#include "cli/fmu_lazy.h"

#include <stdlib.h>

#include "cli/args.h"

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

const char *stsl_cli_fmu_module_path(char *buf, size_t size)
{
    return stsl_cli_fmu_file("STICKSLIP_FMU_MODULE", STSL_FMU_MODULE_SO, buf, size);
}
