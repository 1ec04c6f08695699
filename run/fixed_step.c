/* fixed_step.c - Karnopp, fixed-step hybrid (Dalla Vedova) and RK4 schemes
 * (see fixed_step.h).
 *
 * The element's configuration is stepped as the one-body system it is
 * (run/fixed_step_system.c, in the base's frame as the event-driven run
 * integrates it) and recorded through the one-body view (models/one_body.h):
 * the element's layout, mode numbers and events.  The loop: the state
 * (t_n, y_n) carries the mode the scheme decided for it and the forces at
 * it; a step advances the state with the friction of that mode, puts it on
 * a stop if it passed one, evaluates the forces at the new state and lets
 * the scheme's stick decision classify it.  A change of mode is an event at
 * t_{n+1}.
 *
 * Order.  The Euler schemes are semi-implicit (symplectic) Euler,
 *   v_{n+1} = v_n + h a(t_n, x_n, v_n),  x_{n+1} = x_n + h v_{n+1},
 * first order in smooth slip (local error O(h^2)).  Their stick decisions
 * are taken at step points only, so a stick, breakaway or reversal is seen
 * up to one step late: a velocity error O(h a) at each such instant, hence
 * a global error O(h) however accurate the slip phases were.  RK4 is
 * fourth order on a smooth law and only as long as the step resolves the
 * law's velocity scale (a tanh of scale v_reg has a slope F/v_reg: RK4 is
 * stable for h < 2.78 m v_reg / F); a stop impact is again noticed at a step
 * point, which costs it its order (first order) once the element hits a
 * stop. */
#include "run/fixed_step.h"

#include <math.h>
#include <time.h>

#include "run/fixed_step_system.h"
#include "physics/friction.h"
#include "models/one_body.h"

/* Steps are counted as t_end / h rounded up, less this relative slack, so
 * that t_end = N h computed in floating point does not add a sliver step. */
#define STEP_COUNT_SLACK 1e-9
/* More steps than this is refused: it would run for days, and the step
 * index must stay exact in a double. */
#define MAX_STEPS 1e12

static const char *const scheme_names[STSL_N_SCHEMES + 1] = {
    "event_driven", "karnopp", "fixed_step_hybrid", "smooth_rk4", NULL};

const char *stsl_scheme_name(stsl_scheme_kind kind)
{
    return (int)kind >= 0 && kind < STSL_N_SCHEMES ? scheme_names[kind] : NULL;
}

const char *const *stsl_scheme_names(void)
{
    return scheme_names;
}

double stsl_fixed_step_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void stsl_fixed_step_grid(const stsl_hsolver_opts *sim, double h, long *n_steps, long *stride)
{
    *n_steps = (long)ceil(sim->t_end / h - STEP_COUNT_SLACK);
    if (*n_steps < 1) *n_steps = 1;
    *stride = sim->output_step > h ? (long)floor(sim->output_step / h + STEP_COUNT_SLACK) : 1;
}

int stsl_fixed_step_check(const stsl_hsolver_opts *sim, const stsl_scheme_opts *sch,
                          stsl_error *err)
{
    const char *name = stsl_scheme_name(sch->kind);
    if (!name || sch->kind == STSL_SCHEME_EVENT_DRIVEN)
        return stsl_error_set(err, STSL_EINPUT, "simulation.scheme: not a fixed-step scheme");
    if (!(sch->step > 0.0) || !isfinite(sch->step))
        return stsl_error_set(err, STSL_EINPUT, "simulation.step: must be > 0 (got %g)", sch->step);
    if (!(sim->t_end > 0.0) || sim->t_end / sch->step > MAX_STEPS)
        return stsl_error_set(err, STSL_EINPUT,
                              "simulation.step: %g s makes more than %g steps to t_end = %g s",
                              sch->step, MAX_STEPS, sim->t_end);
    return STSL_OK;
}

static int check_args(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                      const stsl_scheme_opts *sch, stsl_error *err)
{
    const char *name = stsl_scheme_name(sch->kind);
    int hybrid_law = !stsl_law_is_smooth(p->friction.law);
    int rc = stsl_fixed_step_check(sim, sch, err);
    if (rc) return rc;
    if (sch->kind != STSL_SCHEME_SMOOTH_RK4 && !hybrid_law)
        return stsl_error_set(err, STSL_EINPUT,
                              "simulation.scheme: %s needs a hybrid friction law (coulomb, "
                              "stribeck); use smooth_rk4 for smooth laws",
                              name);
    if (p->has_stops && p->stop_model != STSL_STOP_RIGID) /* the config says it at its line */
        return stsl_error_set(err, STSL_EINPUT,
                              "simulation.scheme: %s models rigid end stops only; "
                              "end_stops.model: compliant needs scheme event_driven",
                              name);
    if (sch->kind == STSL_SCHEME_KARNOPP && !(sch->karnopp_band > 0.0))
        return stsl_error_set(err, STSL_EINPUT, "simulation.karnopp_band: must be > 0 (got %g)",
                              sch->karnopp_band);
    if (sch->kind == STSL_SCHEME_SMOOTH_RK4 && hybrid_law && !(sch->regularisation_velocity > 0.0))
        return stsl_error_set(err, STSL_EINPUT,
                              "simulation.regularisation_velocity: must be > 0 (got %g)",
                              sch->regularisation_velocity);
    return STSL_OK;
}

int stsl_fixed_step_run(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                        const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                        stsl_error *err)
{
    int rc = check_args(p, sim, sch, err);
    if (rc) return rc;
    stsl_one_body *o = stsl_one_body_create(p, err);
    if (!o) return err ? err->code : STSL_EINPUT;
    rc = stsl_fixed_step_run_view(stsl_one_body_system(o), 0, o, sim, sch, sink, stats, err);
    stsl_one_body_free(o);
    return rc;
}
