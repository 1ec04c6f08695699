/* fmu_slots.h - fmi2SetReal's and fmi2GetReal's loops of the suite's test
 * FMUs, written once: each FMU maps a value reference to the double that
 * holds it (its slot function, NULL for one it does not have). */
#ifndef STSL_TEST_FMU_SLOTS_H
#define STSL_TEST_FMU_SLOTS_H

#include <stddef.h>

#include "io/fmu/fmi2.h"

typedef double *(*fmu_slot_fn)(fmi2Component c, fmi2ValueReference vr);

static inline fmi2Status fmu_set_reals(fmu_slot_fn slot, fmi2Component c,
                                       const fmi2ValueReference vr[], size_t n,
                                       const fmi2Real value[])
{
    for (size_t i = 0; i < n; i++) {
        double *p = slot(c, vr[i]);
        if (!p) return fmi2Error;
        *p = value[i];
    }
    return fmi2OK;
}

static inline fmi2Status fmu_get_reals(fmu_slot_fn slot, fmi2Component c,
                                       const fmi2ValueReference vr[], size_t n, fmi2Real value[])
{
    for (size_t i = 0; i < n; i++) {
        double *p = slot(c, vr[i]);
        if (!p) return fmi2Error;
        value[i] = *p;
    }
    return fmi2OK;
}

#endif
