/* integrator_cs.c - a co-simulation FMU that integrates its inputs, built
 * by the test suite (cmake/test_fmus.cmake) to see what stickslip gives an
 * FMU that interpolates its inputs (test_fmu_inputs.c).
 *
 * Over the step from t_k it takes each input as u(t_k) + u'(t_k) (t - t_k),
 * FMI 2.0's first-order extrapolation (u' as set by
 * fmi2SetRealInputDerivatives, 0 until set), and integrates that exactly:
 *   x        += h u_F + h^2/2 u_F'   (input active_force)
 *   friction += h u_B + h^2/2 u_B'   (input base_position)
 * v is active_force as last set.  Built with NO_INPUT_DERIVATIVES it does
 * not export fmi2SetRealInputDerivatives. */
#include <stdlib.h>
#include <string.h>

#include "io/fmu/fmi2.h"
#include "io/fmu/fmi2_real_only.h"
#include "test/fmu/fmu_lifecycle.h"
#include "test/fmu/fmu_slots.h"

#define FMU_GUID "{4e0c2b91-integrator-cs-stickslip-test}"
#define EXPORT   __attribute__((visibility("default")))

enum { VR_F, VR_B, VR_X, VR_V, VR_FRICTION, N_VR };

typedef struct model {
    double u[2], du[2]; /* active_force, base_position and their derivatives */
    double x, v, friction;
    const fmi2CallbackFunctions *cb;
} model;

EXPORT fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                                     fmi2String resources, const fmi2CallbackFunctions *cb,
                                     fmi2Boolean visible, fmi2Boolean logging)
{
    (void)name, (void)resources, (void)visible, (void)logging;
    if (type != fmi2CoSimulation || !guid || strcmp(guid, FMU_GUID)) return NULL;
    model *m = calloc(1, sizeof *m);
    if (m) m->cb = cb;
    return m;
}

/* The integrals start at 0 with the run, whatever was set before. */
EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    model *m = c;
    m->x = m->friction = 0.0;
    m->du[0] = m->du[1] = 0.0;
    return fmi2OK;
}

static double *slot(fmi2Component c, fmi2ValueReference vr)
{
    model *m = c;
    double *slots[N_VR] = {&m->u[0], &m->u[1], &m->x, &m->v, &m->friction};
    return vr < N_VR ? slots[vr] : NULL;
}

EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                              const fmi2Real value[])
{
    model *m = c;
    fmi2Status s = fmu_set_reals(slot, c, vr, n, value);
    m->v = m->u[0];
    return s;
}

EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                              fmi2Real value[])
{
    return fmu_get_reals(slot, c, vr, n, value);
}

#ifndef NO_INPUT_DERIVATIVES
/* First derivatives of the inputs only: a higher order is refused. */
EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                              size_t n, const fmi2Integer order[],
                                              const fmi2Real value[])
{
    model *m = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] > VR_B || order[i] != 1) {
            m->cb->logger(m->cb->componentEnvironment, "integrator_cs", fmi2Error, "logError",
                          "input derivative of order %d of value reference %u refused",
                          (int)order[i], (unsigned)vr[i]);
            return fmi2Error;
        }
        m->du[vr[i]] = value[i];
    }
    return fmi2OK;
}
#endif

EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean no_set_prior)
{
    (void)t, (void)no_set_prior;
    model *m = c;
    m->x += h * m->u[0] + 0.5 * h * h * m->du[0];
    m->friction += h * m->u[1] + 0.5 * h * h * m->du[1];
    return fmi2OK;
}
