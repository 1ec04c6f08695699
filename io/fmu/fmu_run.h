/* fmu_run.h - a user's co-simulation FMU driven as a candidate of
 * `converge` and `compare`: the configuration's signals into its inputs,
 * its outputs read as x, v and friction.
 *
 * Mapping.  Signals: active_force, load, base_position, base_velocity,
 * base_acceleration, anchor_position, anchor_velocity (the configuration's
 * inputs, at the element's units).  An FMU input named like a signal
 * receives it unless --fmu-input says otherwise ("NAME=SIGNAL"); every
 * input of the FMU must receive one.  Outputs: x and v are the FMU's
 * variables named "x" and "v" unless --fmu-output names them ("x=NAME",
 * "v=NAME", "friction=NAME"); friction is optional.  Parameters:
 * "NAME=VALUE" (--fmu-set) sets a parameter or input of type Real, Integer
 * or Boolean before initialisation.  A variable with a declared unit must
 * have the unit of what it carries ("m/s2" and "m/s^2", "N.m" and "N*m"
 * are the same).
 *
 * Driving.  Communication points t_k = k h, the last one t_end (as the
 * built-in fixed-step schemes step).  At each t_k the inputs are set to the
 * exact signals at t_k (left limits at a discontinuity, at t = 0 too, as
 * the built-in schemes see them), then the outputs are read (the sample at
 * t_k: an output may depend on the inputs at t_k directly), then
 * fmi2DoStep(t_k, t_{k+1} - t_k).  Inputs are held over a step, unless the
 * FMU declares canInterpolateInputs: then before each fmi2DoStep every
 * input also gets its signal's exact first time derivative at t_k
 * (fmi2SetRealInputDerivatives, order 1), the right-hand one at a corner
 * (a ramp's start, a table's breakpoint: the slope of the step ahead; a
 * jump has none, 0).  A motion's position gets its velocity, its velocity
 * its acceleration, its acceleration its third derivative.
 * Model exchange: the scheme evaluates the FMU's derivatives with the
 * exact signals at each stage time (left limits, as at the points).
 *
 * Containment.  The FMU runs in a child process (fork, results through a
 * pipe): a crash in its code (a segmentation fault, an abort, an exit())
 * ends the child, and stickslip reports it and goes on; each run also gets
 * a fresh copy of the FMU's global state, so that runs at different steps
 * are independent even for FMUs that keep state in globals.  A call into
 * the FMU that does not return within opts.timeout seconds (no new call
 * entered, no data: a hang, an endless loop) is stopped: the parent kills
 * the child and reports the call, its time and the limit (STSL_EMODEL).
 *
 * A system of bodies (opts.system).  Signals: bodies.BODY.force (the sum
 * of inputs.forces on that body), contacts.N.load or contacts.NAME.load,
 * base_position, base_velocity, base_acceleration, anchor_position,
 * anchor_velocity.  Outputs, per body and contact as the system's columns
 * name them: "x[BODY]=NAME", "v[BODY]=NAME", "friction[CONTACT]=NAME"
 * (CONTACT: the contact's name, its index N or contacts.N); by default the
 * FMU's variables "x[BODY]", "v[BODY]" (required) and "friction[CONTACT]"
 * (optional).  The samples are the system's groups x, v, friction,
 * slip_velocity (v of the contact's first end minus its second's: a body's
 * output, 0 for the ground, the base's or anchor's exact velocity) and
 * contact_mode (stuck where |slip velocity| is within STSL_CMP_STUCK_REL of
 * its largest, else the slip direction); events are derived per contact.
 *
 * Failures: the FMU file or the mapping is STSL_EINPUT (exit 2), naming
 * the FMU and the variable; fmi2Error, fmi2Fatal or fmi2Discard from a call
 * during the run, or a crash, is STSL_EMODEL (exit 3) with the FMU's
 * logged message and the time. */
#ifndef STSL_FMU_RUN_H
#define STSL_FMU_RUN_H

#include "io/fmu/fmu_model.h"
#include "models/element_params.h"
#include "models/system.h"
#include "solver/sink.h"

#define STSL_FMU_MAX_MAP 64

typedef struct stsl_fmu_opts {
    const char *path;
    /* NULL: co-simulation; "euler" or "rk4": model exchange, integrated by
     * that scheme at the step (explicit Euler, classical RK4) */
    const char *scheme;
    const char *inputs[STSL_FMU_MAX_MAP];  /* "NAME=SIGNAL" */
    const char *outputs[STSL_FMU_MAX_MAP]; /* "x=NAME" */
    const char *sets[STSL_FMU_MAX_MAP];    /* "NAME=VALUE" */
    int n_inputs, n_outputs, n_sets;
    /* Seconds a call into the FMU may take before the run is stopped as
     * hung: 0 the default STSL_FMU_TIMEOUT_DEFAULT, INFINITY no limit. */
    double timeout;
    /* NULL: the FMU stands for the element; else for this system of bodies
     * (it must outlive the stsl_fmu), mapped as described below. */
    const stsl_system *system;
} stsl_fmu_opts;

/* Ten minutes: far beyond what one call of a fixed-step model takes for one
 * communication step (a stiff step of a large model takes seconds), short
 * enough that an unattended study does not wait for ever. */
#define STSL_FMU_TIMEOUT_DEFAULT 600.0

typedef struct stsl_fmu stsl_fmu;

/* Open the FMU and map it onto the element `p` (whose signals drive it). */
int stsl_fmu_open(const stsl_fmu_opts *o, const stsl_element_params *p, stsl_fmu **out,
                  stsl_error *err);
void stsl_fmu_close(stsl_fmu *f);

/* One run from 0 to t_end at communication step h.  The sink gets the
 * columns x, v and friction (NaN without a friction output), a sample at
 * every communication point, and the events seen in the samples
 * (stsl_compare_derive_events: stuck where |v| <= STSL_CMP_STUCK_REL times
 * the run's largest |v|).  stats: steps (fmi2DoStep calls), rhs_evals (the
 * same: an FMU's internal cost is not visible), events, wall_seconds (the
 * FMU's calls only).  On failure the sink is not begun. */
int stsl_fmu_run(stsl_fmu *f, double t_end, double h, stsl_sink *sink, stsl_stats *stats,
                 stsl_error *err);

/* The same run's samples as arrays (malloc'd, n values each; friction NULL
 * without a friction output), without events: for `compare`, which sees
 * a candidate's events in its samples itself.  On failure *s holds
 * nothing to free. */
typedef struct stsl_fmu_samples {
    long n;
    double *t, *x, *v, *friction;
    stsl_stats stats;
} stsl_fmu_samples;
int stsl_fmu_run_samples(stsl_fmu *f, double t_end, double h, stsl_fmu_samples *s, stsl_error *err);
void stsl_fmu_samples_free(stsl_fmu_samples *s);

#endif
