/* element_fmu.c - the binary of the FMU `stickslip fmu` writes: the
 * configuration's element, run by the exact event-driven engine between
 * communication points, as an FMI 2.0 co-simulation FMU.
 *
 * The configuration travels in the FMU as resources/config.yaml (the
 * effective configuration, every default filled in) with its GUID in
 * resources/guid.txt; fmi2Instantiate loads it and refuses another GUID.
 *
 * Inputs (io/fmu/export/element_inputs.h): active_force and load, the
 * base's position, velocity and acceleration, and with an anchor its
 * position and velocity.  They replace the configuration's signals.  The
 * FMU cannot interpolate inputs (canInterpolateInputs = false), so, as
 * FMI 2.0 co-simulation prescribes, each input is held over a
 * communication step at the value set before fmi2DoStep(t, h).  Held
 * position and velocity alone would not be one motion (a position that
 * stays put while its velocity is not zero), so over the step the base
 * moves with the held velocity from the held position, x_b = x(t) +
 * v(t) (s - t), and the held acceleration acts as the element's inertial
 * force -m a(t), as a held force: its impulse is carried by friction when
 * the element sticks, which a velocity jump at the communication point
 * could not be (the element would slip at every step).  The anchor moves
 * the same way (the engine needs no anchor acceleration).  At the next
 * communication point the base and anchor start again from the new
 * inputs; the element's state, relative to the base as the engine
 * integrates it, carries on.  A base moving at constant velocity (a belt)
 * is then exact; otherwise the held acceleration lags the true one by
 * less than a step (first order in h, as any held input).
 * fmi2DoStep(t, h) runs the engine from (t, state, the mode it decides
 * there) to t + h at the configuration's tolerances, locating every event
 * inside the step; outputs (value references 100 + column) are the
 * element's columns at the communication point. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/config/config.h"
#include "io/fmu/fmi2.h"
#include "io/fmu/export/element_inputs.h"
#include "io/fmu/fmi2_real_only.h"
#include "models/one_body.h"
#include "solver/hybrid.h"

#define EXPORT __attribute__((visibility("default")))
#define VR_OUT 100

typedef struct fmu {
    fmi2CallbackFunctions cb;
    char name[128];
    stsl_config cfg;
    double u[STSL_FMU_IN_MAX]; /* the inputs, by value reference */
    int n_in;
    double t, y[STSL_ELEMENT_MAX_STATE];
    double cols[STSL_N_COLS];
    int n_cols;
} fmu;

static void say(const fmi2CallbackFunctions *cb, const char *name, const char *fmt, const char *msg)
{
    if (cb && cb->logger) cb->logger(cb->componentEnvironment, name, fmi2Error, "error", fmt, msg);
}

/* The text of file `name` in the resources folder (a file:// URI). */
static char *resource(const char *uri, const char *name)
{
    const char *dir = !strncmp(uri, "file://", 7) ? uri + 7 : uri;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    long n = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
    if (n >= 0 && !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n + 1))) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
        }
    }
    fclose(f);
    return buf;
}

static int load(fmu *m, fmi2String guid, fmi2String resources)
{
    char *id = resources ? resource(resources, "guid.txt") : NULL;
    char *yaml = resources ? resource(resources, "config.yaml") : NULL;
    int rc = -1;
    stsl_error err = {0};
    if (!id || !yaml) {
        say(&m->cb, m->name, "cannot read %s/guid.txt and config.yaml", resources ? resources : "");
    } else if (!guid || strcmp(guid, id)) {
        say(&m->cb, m->name, "GUID mismatch: this FMU's configuration is %s", id);
    } else if (stsl_config_load_string(yaml, "resources/config.yaml", NULL, NULL, 0, &m->cfg,
                                       &err)) {
        say(&m->cb, m->name, "%s", err.msg);
    } else if (m->cfg.is_system) {
        say(&m->cb, m->name, "%s", "the configuration is a system of bodies, not one element");
        stsl_config_free(&m->cfg);
    } else {
        rc = 0;
    }
    free(id);
    free(yaml);
    return rc;
}

EXPORT fmi2Component fmi2Instantiate(fmi2String name, fmi2Type type, fmi2String guid,
                                     fmi2String resources, const fmi2CallbackFunctions *cb,
                                     fmi2Boolean visible, fmi2Boolean logging)
{
    (void)visible, (void)logging;
    if (type != fmi2CoSimulation) {
        say(cb, name, "%s", "this FMU is for co-simulation only");
        return NULL;
    }
    fmu *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->cb = *cb;
    snprintf(m->name, sizeof m->name, "%s", name ? name : "");
    if (load(m, guid, resources)) {
        free(m);
        return NULL;
    }
    stsl_fmu_input in[STSL_FMU_IN_MAX];
    stsl_error err = {0};
    m->n_in = stsl_element_fmu_inputs(&m->cfg.element, in, &err);
    if (m->n_in < 0) {
        say(cb, name, "%s", err.msg);
        stsl_config_free(&m->cfg);
        free(m);
        return NULL;
    }
    for (int i = 0; i < m->n_in; i++)
        m->u[i] = in[i].start;
    return m;
}

EXPORT void fmi2FreeInstance(fmi2Component c)
{
    fmu *m = c;
    if (!m) return;
    stsl_config_free(&m->cfg);
    free(m);
}

EXPORT fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean tol_defined, fmi2Real tol,
                                      fmi2Real start, fmi2Boolean stop_defined, fmi2Real stop)
{
    (void)tol_defined, (void)tol, (void)stop_defined, (void)stop;
    ((fmu *)c)->t = start;
    return fmi2OK;
}

EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

static stsl_signal_spec constant(double value)
{
    stsl_signal_spec s = {.type = STSL_SIG_CONSTANT, .value = value};
    return s;
}

/* x + v (s - t0) from t0 on: a held velocity and the position it moves. */
static stsl_signal_spec ramp(double t0, double x, double v)
{
    stsl_signal_spec s = {.type = STSL_SIG_RAMP, .start_time = t0, .initial = x, .slope = v};
    return s;
}

/* The element (the engine's one-body model) with the inputs held from
 * m->t on (see the top of this file): the base's held acceleration as the
 * force -m a it puts on the element (net force, SPEC's F_n, has -m a_b). */
static stsl_one_body *element(fmu *m, stsl_error *err)
{
    stsl_element_params p = m->cfg.element;
    const double *u = m->u;
    p.active_force = constant(u[STSL_FMU_IN_FA] - p.mass * u[STSL_FMU_IN_AB]);
    p.load = constant(u[STSL_FMU_IN_LOAD]);
    p.base_motion = ramp(m->t, u[STSL_FMU_IN_XB], u[STSL_FMU_IN_VB]);
    if (p.has_anchor) p.anchor_motion = ramp(m->t, u[STSL_FMU_IN_XA], u[STSL_FMU_IN_VA]);
    return stsl_one_body_create(&p, err);
}

/* Run the engine from (m->t, m->y) to t1 (t1 == m->t: only decide the mode
 * there), then the columns at the end. */
static fmi2Status advance(fmu *m, double t1)
{
    stsl_error err = {0};
    stsl_one_body *e = element(m, &err);
    if (!e) {
        say(&m->cb, m->name, "%s", err.msg);
        return fmi2Error;
    }
    const stsl_hmodel *model = stsl_one_body_model(e);
    stsl_hsolver_opts o = m->cfg.sim;
    o.t_end = t1 > m->t ? t1 : m->t + 1.0; /* a span for the solver that start needs */
    o.output_step = 0.0;
    o.output_times = NULL, o.n_output_times = 0, o.grid_only = 0;
    o.progress = NULL, o.cancel = NULL;
    o.integrate_power = o.track_extrema = 0;
    stsl_hsolver *s = stsl_hsolver_create(model, &o, &err);
    int rc = s ? STSL_OK : err.code;
    if (!rc && t1 > m->t)
        rc = stsl_hsolver_run(s, m->t, m->y, NULL, &err);
    else if (!rc)
        rc = stsl_hsolver_start(s, m->t, m->y, NULL, &err);
    if (!rc) {
        memcpy(m->y, stsl_hsolver_state(s), sizeof(double) * (size_t)model->n_state);
        m->t = t1;
        m->n_cols = model->layout->n_cols;
        model->ops->outputs(model->self, stsl_hsolver_mode(s), t1, m->y, m->cols);
    }
    stsl_hsolver_free(s);
    stsl_one_body_free(e);
    if (rc) say(&m->cb, m->name, "%s", err.msg);
    return rc ? fmi2Error : fmi2OK;
}

EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component c)
{
    fmu *m = c;
    stsl_error err = {0};
    stsl_one_body *e = element(m, &err);
    if (!e) {
        say(&m->cb, m->name, "%s", err.msg);
        return fmi2Error;
    }
    stsl_one_body_initial_state(e, m->y);
    stsl_one_body_free(e);
    return advance(m, m->t);
}

EXPORT fmi2Status fmi2Terminate(fmi2Component c)
{
    (void)c;
    return fmi2OK;
}

EXPORT fmi2Status fmi2DoStep(fmi2Component c, fmi2Real t, fmi2Real h, fmi2Boolean no_prior)
{
    (void)no_prior;
    fmu *m = c;
    if (!(h > 0.0)) {
        say(&m->cb, m->name, "%s", "fmi2DoStep: the step must be > 0");
        return fmi2Error;
    }
    m->t = t;
    return advance(m, t + h);
}

EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                              const fmi2Real value[])
{
    fmu *m = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] >= (unsigned)m->n_in) return fmi2Error;
        m->u[vr[i]] = value[i];
    }
    return fmi2OK;
}

EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t n,
                              fmi2Real value[])
{
    fmu *m = c;
    for (size_t i = 0; i < n; i++) {
        if (vr[i] < (unsigned)m->n_in)
            value[i] = m->u[vr[i]];
        else if (vr[i] >= VR_OUT && vr[i] < VR_OUT + (unsigned)m->n_cols)
            value[i] = m->cols[vr[i] - VR_OUT];
        else
            return fmi2Error;
    }
    return fmi2OK;
}
