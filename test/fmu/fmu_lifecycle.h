/* fmu_lifecycle.h - the calls of the suite's co-simulation test FMUs that
 * do nothing of their own (the instance is one calloc'd block; the
 * experiment's times and the end of initialisation change nothing),
 * written once.  Include after io/fmu/fmi2_real_only.h. */
#ifndef STSL_TEST_FMU_LIFECYCLE_H
#define STSL_TEST_FMU_LIFECYCLE_H

#include <stdlib.h>

#include "io/fmu/fmi2.h"
#include "io/fmu/fmi2_real_only.h"

STSL_FMI2_EXPORT void fmi2FreeInstance(fmi2Component c)
{
    free(c);
}

STSL_FMI2_EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tol_defined,
                                                fmi2Real tol, fmi2Real start,
                                                fmi2Boolean stop_defined, fmi2Real stop)
{
    (void)c, (void)tol_defined, (void)tol, (void)start, (void)stop_defined, (void)stop;
    return fmi2OK;
}

STSL_FMI2_EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

STSL_FMI2_EXPORT fmi2Status fmi2Terminate(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

#endif
