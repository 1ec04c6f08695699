/* element_inputs.h - the inputs of the element's FMU (`stickslip fmu`):
 * their names, value references, units and start values, one table for
 * the modelDescription.xml the CLI writes and for the FMU's binary
 * (io/fmu/export/element_fmu.c), so that the two never disagree.
 *
 * Value references 0..6: active_force, load, base_position,
 * base_velocity, base_acceleration, anchor_position, anchor_velocity.
 * The base inputs are always there (every element has a base, at rest
 * unless the configuration moves it); the anchor inputs only when the
 * configuration has an anchor motion (without one the spring and damper
 * attach to the base, and an anchor input would act on nothing).  How the
 * FMU turns the held inputs into the engine's signals: element_fmu.c. */
#ifndef STSL_ELEMENT_INPUTS_H
#define STSL_ELEMENT_INPUTS_H

#include "models/element_params.h"

enum {
    STSL_FMU_IN_FA = 0, /* value references, and indices into the inputs' values */
    STSL_FMU_IN_LOAD,
    STSL_FMU_IN_XB,
    STSL_FMU_IN_VB,
    STSL_FMU_IN_AB,
    STSL_FMU_IN_XA,
    STSL_FMU_IN_VA,
    STSL_FMU_IN_MAX
};

typedef struct stsl_fmu_input {
    const char *name, *unit; /* the unit as the element's result columns spell it */
    double start;            /* the configuration's signal at t = 0 */
} stsl_fmu_input;

/* The FMU's inputs for element `p`: in[vr] for vr = 0 .. n - 1; returns n
 * (5, or 7 with an anchor), or -1 with *err set (a signal that cannot be
 * built).  Start values are the left limits at t = 0, the values the
 * importer and the built-in schemes use there. */
int stsl_element_fmu_inputs(const stsl_element_params *p, stsl_fmu_input in[STSL_FMU_IN_MAX],
                            stsl_error *err);

#endif
