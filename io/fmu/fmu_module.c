/* fmu_module.c - the table the FMU module exports (see fmu_module.h). */
#include "io/fmu/fmu_module.h"

static const stsl_fmu_module_api api = {
    .abi = STSL_FMU_MODULE_ABI,
    .size = sizeof(stsl_fmu_module_api),
    .version = STSL_LIB_VERSION,
    .open = stsl_fmu_open,
    .close = stsl_fmu_close,
    .run = stsl_fmu_run,
    .run_samples = stsl_fmu_run_samples,
    .samples_free = stsl_fmu_samples_free,
    .pack = stsl_fmu_pack,
};

__attribute__((visibility("default"))) const stsl_fmu_module_api *stsl_fmu_module(void)
{
    return &api;
}
