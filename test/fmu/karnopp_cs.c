/* karnopp_cs.c - a co-simulation FMU of the Karnopp fixed-step friction
 * element, built by the test suite (test/fmu/CMakeLists part of the main
 * CMakeLists.txt) to drive through `stickslip converge --fmu`.
 *
 * It computes what `simulation.scheme: karnopp` computes
 * (run/fixed_step.c), operation for operation, for an element without
 * end stops under a Coulomb law: semi-implicit Euler in slip,
 *   v += h (F_n - s F_D) / m,  x += h v,
 * with F_n = F_a + load - k (x - x_free) - c v - m a_b at the state the
 * step starts from, and after each step the stick decision inside the band
 * |v| < dv (stuck when |F_n| <= F_S: v = 0).  The decision needs the forces
 * at the new communication point, whose inputs the master sets only then,
 * so it is taken lazily, at the first fmi2GetReal or fmi2DoStep after the
 * inputs of that point are set (outputs depend directly on the inputs).
 *
 * Compile-time variants make the deliberately broken FMUs of the tests:
 *   BROKEN_STEP_ERROR  fmi2DoStep returns fmi2Error from t >= 0.5 s
 *   BROKEN_CRASH       fmi2DoStep writes through a null pointer at t >= 0.5 s
 *   BROKEN_NO_DOSTEP   fmi2DoStep is not exported
 *   BROKEN_HANG        fmi2DoStep never returns from t >= 0.5 s (it waits
 *                      for signals for ever, without spending CPU)
 *   FMU_GUID           the GUID the binary accepts (a mismatch with the XML) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/fmu/fmi2.h"
#include "io/fmu/fmi2_real_only.h"
#include "test/fmu/fmu_lifecycle.h"
#include "test/fmu/fmu_slots.h"

#ifndef FMU_GUID
#define FMU_GUID "{5b2f6a0e-karnopp-cs-stickslip-test}"
#endif

#define EXPORT __attribute__((visibility("default")))

enum { VR_FA, VR_AB, VR_X, VR_V, VR_FRICTION, N_VARS };
enum { VR_M = 10, VR_K, VR_C, VR_XFREE, VR_FD, VR_FS, VR_DV, VR_X0, VR_V0 };
enum { STUCK = 0, SLIP_POS = 1, SLIP_NEG = 2 };

typedef struct model {
    fmi2CallbackFunctions cb;
    char name[64];
    double fa, ab;                             /* inputs */
    double m, k, c, xfree, fd, fs, dv, x0, v0; /* parameters */
    double x, v, fn, friction;
    int mode, pending; /* pending: the stick decision at the current point is due */
} model;

/* The broken variants' message (unused by the others). */
__attribute__((unused)) static void say(model *m, fmi2Status s, const char *msg, double t)
{
    if (m->cb.logger) m->cb.logger(m->cb.componentEnvironment, m->name, s, "error", msg, t);
}

EXPORT fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                                     fmi2String resources, const fmi2CallbackFunctions *cb,
                                     fmi2Boolean visible, fmi2Boolean logging)
{
    (void)resources, (void)visible, (void)logging;
    if (type != fmi2CoSimulation || !guid || strcmp(guid, FMU_GUID)) {
        if (cb && cb->logger)
            cb->logger(cb->componentEnvironment, name, fmi2Error, "error",
                       "GUID mismatch: this binary is %s, the model description says %s", FMU_GUID,
                       guid ? guid : "(null)");
        return NULL;
    }
    model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->cb = *cb;
    strncpy(m->name, name, sizeof m->name - 1);
    m->m = 1.0, m->fd = 1.0, m->fs = 1.0, m->dv = 1e-4;
    return m;
}

EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    model *m = c;
    m->x = m->x0, m->v = m->v0;
    m->pending = 1;
    return fmi2OK;
}

static double net_force(const model *m)
{
    double load = 0.0;
    return m->fa + load - m->k * (m->x - m->xfree) - m->c * m->v - m->m * m->ab;
}

/* The scheme's stick decision at the current point (karnopp_classify).
 * Stuck, the friction output balances the net force at the state the FMU
 * reports, v = 0: FMI 2.0 outputs at a communication point belong to that
 * point's state and inputs, and the scheme's sample is the element's
 * friction there too.  The force the decision took (at the v before the
 * projection, which differs by c v) is not that friction; it moves nothing
 * either, as a stuck step holds the element. */
static void decide(model *m)
{
    m->fn = net_force(m);
    double ratio = m->fs / m->fd, fs = ratio * m->fd; /* as the configuration stores F_S */
    if (fabs(m->v) < m->dv) {
        m->mode = m->fn > fs ? SLIP_POS : m->fn < -fs ? SLIP_NEG : STUCK;
        if (m->mode == STUCK) m->v = 0.0;
    } else {
        m->mode = m->v > 0.0 ? SLIP_POS : SLIP_NEG;
    }
    m->friction = m->mode == STUCK ? net_force(m) : m->mode == SLIP_POS ? m->fd : -m->fd;
    m->pending = 0;
}

static double *slot(fmi2Component c, fmi2ValueReference vr)
{
    model *m = c;
    switch (vr) {
    case VR_FA:
        return &m->fa;
    case VR_AB:
        return &m->ab;
    case VR_X:
        return &m->x;
    case VR_V:
        return &m->v;
    case VR_FRICTION:
        return &m->friction;
    case VR_M:
        return &m->m;
    case VR_K:
        return &m->k;
    case VR_C:
        return &m->c;
    case VR_XFREE:
        return &m->xfree;
    case VR_FD:
        return &m->fd;
    case VR_FS:
        return &m->fs;
    case VR_DV:
        return &m->dv;
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
    if (m->pending) decide(m);
    return fmu_get_reals(slot, c, vr, n, value);
}

#ifndef BROKEN_NO_DOSTEP
EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean no_set_prior)
{
    (void)no_set_prior, (void)t;
    model *m = c;
#ifdef BROKEN_STEP_ERROR
    if (t >= 0.5) {
        say(m, fmi2Error, "step refused on purpose at t = %g", t);
        return fmi2Error;
    }
#endif
#ifdef BROKEN_HANG
    while (t >= 0.5)
        pause();
#endif
#ifdef BROKEN_CRASH
    if (t >= 0.5) {
        volatile int *null = NULL;
        *null = 1;
    }
#endif
    if (m->pending) decide(m);
    if (m->mode != STUCK) { /* stuck: the scheme holds the element */
        int s = m->mode == SLIP_POS ? +1 : -1;
        m->v += h * ((m->fn - s * m->fd) / m->m);
    }
    m->x += h * m->v;
    m->pending = 1;
    return fmi2OK;
}
#endif
