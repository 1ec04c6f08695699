/* two_body_cs.c - a co-simulation FMU of a system of two bodies, built by
 * the test suite (cmake/test_fmus.cmake) to drive through `stickslip
 * converge --fmu` against a system configuration.
 *
 * Body a (mass m_a) rubs on the ground in a Coulomb contact (levels F_D,
 * F_S); body b (mass m_b) is joined to a by a spring k (free length 0) and
 * driven by the input force F.  Fixed step, semi-implicit Euler as a
 * hand-written fixed-step tool steps it:
 *   v += h (forces at the step's start) / m,  x += h v,
 * with Karnopp's stick rule for a at each communication point: when |v_a|
 * is inside the band dv, or v_a changed sign over the last step, a sticks
 * (v_a = 0, friction = -(spring force on a)) while the spring force is
 * within F_S, else it slips along that force; outside, it slips along v_a
 * with friction -F_D sign(v_a).  friction[guide] is the contact's force
 * on a.  As in karnopp_cs.c the decision waits for the first fmi2GetReal
 * or fmi2DoStep of a point.  The parameters' defaults are the test's
 * configuration (test_fmu.c, t_system_converges). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/fmu/fmi2.h"
#include "io/fmu/fmi2_real_only.h"
#include "test/fmu/fmu_lifecycle.h"
#include "test/fmu/fmu_slots.h"

#define FMU_GUID "{9d41c7a2-two-body-cs-stickslip-test}"
#define EXPORT   __attribute__((visibility("default")))

enum { VR_F, VR_XA, VR_VA, VR_XB, VR_VB, VR_FRICTION };
enum { VR_MA = 10, VR_MB, VR_K, VR_FD, VR_FS, VR_DV };
enum { STUCK = 0, SLIP_POS = 1, SLIP_NEG = 2 };

typedef struct model {
    double f;                      /* input */
    double ma, mb, k, fd, fs, dv;  /* parameters */
    double xa, va, xb, vb, va_old; /* state; va_old: v_a before the last step */
    double friction;
    int mode, pending;
} model;

EXPORT fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                                     fmi2String resources, const fmi2CallbackFunctions *cb,
                                     fmi2Boolean visible, fmi2Boolean logging)
{
    (void)name, (void)resources, (void)cb, (void)visible, (void)logging;
    if (type != fmi2CoSimulation || !guid || strcmp(guid, FMU_GUID)) return NULL;
    model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->ma = 1.0, m->mb = 0.5, m->k = 100.0, m->fd = 1.0, m->fs = 1.5, m->dv = 1e-4;
    return m;
}

EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    model *m = c;
    m->pending = 1; /* the state starts at rest at 0 (calloc) */
    return fmi2OK;
}

/* Karnopp's decision for a at the current point. */
static void decide(model *m)
{
    double fn = m->k * (m->xb - m->xa); /* the spring's force on a */
    if (fabs(m->va) < m->dv || m->va * m->va_old < 0.0) {
        m->mode = fn > m->fs ? SLIP_POS : fn < -m->fs ? SLIP_NEG : STUCK;
        if (m->mode == STUCK) m->va = 0.0;
    } else {
        m->mode = m->va > 0.0 ? SLIP_POS : SLIP_NEG;
    }
    m->friction = m->mode == STUCK ? -fn : m->mode == SLIP_POS ? -m->fd : m->fd;
    m->pending = 0;
}

static double *slot(fmi2Component c, fmi2ValueReference vr)
{
    model *m = c;
    double *slots[] = {&m->f, &m->xa, &m->va, &m->xb, &m->vb, &m->friction};
    double *params[] = {&m->ma, &m->mb, &m->k, &m->fd, &m->fs, &m->dv};
    if (vr <= VR_FRICTION) return slots[vr];
    if (vr >= VR_MA && vr <= VR_DV) return params[vr - VR_MA];
    return NULL;
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

EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean no_set_prior)
{
    (void)t, (void)no_set_prior;
    model *m = c;
    if (m->pending) decide(m);
    double spring = m->k * (m->xb - m->xa);
    m->va_old = m->va;
    if (m->mode != STUCK) m->va += h * (spring + m->friction) / m->ma;
    m->vb += h * (m->f - spring) / m->mb;
    m->xa += h * m->va;
    m->xb += h * m->vb;
    m->pending = 1;
    return fmi2OK;
}
