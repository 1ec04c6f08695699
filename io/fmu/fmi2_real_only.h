/* fmi2_real_only.h - the FMI 2.0 functions that an FMU whose variables are
 * all Real implements the same way: the platform and version strings, and
 * fmi2SetInteger / fmi2SetBoolean, which accept no variable.  Included by
 * exactly one source file of each such FMU (the exported element's binary,
 * the test suite's FMUs), after io/fmu/fmi2.h. */
#ifndef STSL_FMI2_REAL_ONLY_H
#define STSL_FMI2_REAL_ONLY_H

#include "io/fmu/fmi2.h"

#define STSL_FMI2_EXPORT __attribute__((visibility("default")))

STSL_FMI2_EXPORT const char *fmi2GetTypesPlatform(void)
{
    return "default";
}

STSL_FMI2_EXPORT const char *fmi2GetVersion(void)
{
    return "2.0";
}

STSL_FMI2_EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                           const fmi2Integer value[])
{
    (void)c, (void)vr, (void)value;
    return n ? fmi2Error : fmi2OK;
}

STSL_FMI2_EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                                           const fmi2Boolean value[])
{
    (void)c, (void)vr, (void)value;
    return n ? fmi2Error : fmi2OK;
}

#endif
