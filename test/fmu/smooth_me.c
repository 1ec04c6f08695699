/* smooth_me.c - a model-exchange FMU of the element under 20-sim's CV law
 * (T = Tc tanh(slope v) + d v), built by the test suite for
 * `stickslip converge --fmu ... --fmu-scheme euler|rk4`:
 *   x' = v,  m v' = F_a - k x - Tc tanh(slope v) - d v.
 * Its event indicator is v.  It checks the importer's event handling: after
 * fmi2CompletedIntegratorStep at a state where v has changed sign since
 * the last event iteration, it refuses the next derivative evaluation
 * (fmi2Error) unless an event iteration (fmi2NewDiscreteStates) came
 * first; the iteration counts the reversals (the output `reversals`). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/fmu/fmi2.h"
#include "io/fmu/fmi2_real_only.h"
#include "test/fmu/fmu_slots.h"

#define FMU_GUID "{9c41-smooth-me-stickslip-test}"
#define EXPORT   __attribute__((visibility("default")))

enum { VR_FA, VR_X, VR_V, VR_FRICTION, VR_REVERSALS };
enum { VR_M = 10, VR_K, VR_TC, VR_SLOPE, VR_D, VR_X0, VR_V0 };

typedef struct model {
    fmi2CallbackFunctions cb;
    double t, fa, m, k, tc, slope, d, x0, v0, x, v, friction, reversals;
    int positive; /* v > 0 at the last event iteration */
    int crossed;  /* a completed step left v on the other side */
} model;

EXPORT fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                                     fmi2String resources, const fmi2CallbackFunctions *cb,
                                     fmi2Boolean visible, fmi2Boolean logging)
{
    (void)name, (void)resources, (void)visible, (void)logging;
    if (type != fmi2ModelExchange || !guid || strcmp(guid, FMU_GUID)) return NULL;
    model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->cb = *cb;
    m->m = 1.0, m->tc = 1.0, m->slope = 1.0;
    return m;
}

EXPORT void fmi2FreeInstance(fmi2Component c)
{
    free(c);
}

EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean a, fmi2Real b, fmi2Real t0,
                                      fmi2Boolean d, fmi2Real e)
{
    (void)c, (void)a, (void)b, (void)t0, (void)d, (void)e;
    return fmi2OK;
}

EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    model *m = c;
    m->x = m->x0, m->v = m->v0;
    return fmi2OK;
}

EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    model *m = c;
    m->positive = m->v > 0.0;
    return fmi2OK;
}

EXPORT fmi2Status fmi2Terminate(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

static double *slot(fmi2Component c, fmi2ValueReference vr)
{
    model *m = c;
    switch (vr) {
    case VR_FA:
        return &m->fa;
    case VR_X:
        return &m->x;
    case VR_V:
        return &m->v;
    case VR_FRICTION:
        return &m->friction;
    case VR_REVERSALS:
        return &m->reversals;
    case VR_M:
        return &m->m;
    case VR_K:
        return &m->k;
    case VR_TC:
        return &m->tc;
    case VR_SLOPE:
        return &m->slope;
    case VR_D:
        return &m->d;
    case VR_X0:
        return &m->x0;
    case VR_V0:
        return &m->v0;
    default:
        return NULL;
    }
}

EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                              const fmi2Real value[])
{
    return fmu_set_reals(slot, c, vr, n, value);
}

EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                              fmi2Real value[])
{
    model *m = c;
    m->friction = m->tc * tanh(m->slope * m->v) + m->d * m->v;
    return fmu_get_reals(slot, c, vr, n, value);
}

EXPORT fmi2Status fmi2SetTime(fmi2Component c, fmi2Real t)
{
    ((model *)c)->t = t;
    return fmi2OK;
}

EXPORT fmi2Status fmi2SetContinuousStates(fmi2Component c, const fmi2Real x[], size_t nx)
{
    model *m = c;
    if (nx != 2) return fmi2Error;
    m->x = x[0], m->v = x[1];
    return fmi2OK;
}

EXPORT fmi2Status fmi2GetContinuousStates(fmi2Component c, fmi2Real x[], size_t nx)
{
    model *m = c;
    if (nx != 2) return fmi2Error;
    x[0] = m->x, x[1] = m->v;
    return fmi2OK;
}

EXPORT fmi2Status fmi2GetDerivatives(fmi2Component c, fmi2Real dx[], size_t nx)
{
    model *m = c;
    if (nx != 2) return fmi2Error;
    if (m->crossed) {
        if (m->cb.logger)
            m->cb.logger(m->cb.componentEnvironment, "smooth_me", fmi2Error, "error",
                         "the state event at t = %g (v changed sign) was not handled", m->t);
        return fmi2Error;
    }
    dx[0] = m->v;
    dx[1] = (m->fa - m->k * m->x - (m->tc * tanh(m->slope * m->v) + m->d * m->v)) / m->m;
    return fmi2OK;
}

EXPORT fmi2Status fmi2GetEventIndicators(fmi2Component c, fmi2Real z[], size_t ni)
{
    if (ni != 1) return fmi2Error;
    z[0] = ((model *)c)->v;
    return fmi2OK;
}

EXPORT fmi2Status fmi2CompletedIntegratorStep(fmi2Component c, fmi2Boolean no_prior,
                                              fmi2Boolean *enter, fmi2Boolean *stop)
{
    (void)no_prior;
    model *m = c;
    m->crossed = (m->v > 0.0) != m->positive;
    *enter = fmi2False, *stop = fmi2False;
    return fmi2OK;
}

EXPORT fmi2Status fmi2EnterEventMode(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

EXPORT fmi2Status fmi2NewDiscreteStates(fmi2Component c, fmi2EventInfo *ei)
{
    model *m = c;
    if ((m->v > 0.0) != m->positive) m->reversals += 1.0;
    m->positive = m->v > 0.0;
    m->crossed = 0;
    memset(ei, 0, sizeof *ei);
    return fmi2OK;
}

EXPORT fmi2Status fmi2EnterContinuousTimeMode(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}
