/* fixed_step.h - the fixed-step schemes people use for friction in practice,
 * built in so that their error can be measured against the exact hybrid
 * reference (issue 5): Karnopp's stick band, Dalla Vedova's four conditions
 * checked once per step, and classical RK4 on a smooth law.
 *
 * A scheme run writes the same layout as the event-driven run
 * (the one-body view's, models/one_body.h): every sample carries the mode the scheme itself
 * decided (STUCK while its stick decision holds, SLIP_POS / SLIP_NEG by the
 * sign of v, STOP_* on a stop, SMOOTH for smooth_rk4), and every change of
 * that mode is recorded as an event (stick, breakaway, reversal, impact,
 * stop_contact, stop_release) with the output columns before and after, so
 * tools that read results work on scheme results too.  Events carry the
 * time of the step at which the scheme noticed them, not the exact time. */
#ifndef STSL_FIXED_STEP_H
#define STSL_FIXED_STEP_H

#include "models/element_params.h"

typedef enum stsl_scheme_kind {
    STSL_SCHEME_EVENT_DRIVEN = 0,      /* the exact hybrid solver (solver/hybrid) */
    STSL_SCHEME_KARNOPP = 1,           /* stick band |v| < dv, semi-implicit Euler */
    STSL_SCHEME_FIXED_STEP_HYBRID = 2, /* Dalla Vedova's four conditions once per step */
    STSL_SCHEME_SMOOTH_RK4 = 3,        /* classical RK4 on a smooth (or tanh-regularised) law */
    STSL_N_SCHEMES = 4
} stsl_scheme_kind;

/* simulation.scheme and its parameters. */
typedef struct stsl_scheme_opts {
    stsl_scheme_kind kind;
    double step;         /* the fixed step h > 0 (0 for event_driven) */
    double karnopp_band; /* dv > 0 (karnopp only, else 0) */
    /* v_reg > 0 of F_D tanh(v / v_reg): smooth_rk4 with a hybrid law only, else 0 */
    double regularisation_velocity;
} stsl_scheme_opts;

/* The configuration's name of a scheme ("karnopp", ...), NULL if out of range. */
const char *stsl_scheme_name(stsl_scheme_kind kind);
/* All scheme names, index = kind, then NULL. */
const char *const *stsl_scheme_names(void);

/* Integrate the element with the fixed step sch->step from t = 0 to
 * sim->t_end (the last step shortened to land on t_end), from the element's
 * initial state.  Uses sim->t_end, output_step (samples every
 * max(1, floor(output_step / step)) steps and always at t = 0 and t_end;
 * output_step = 0 samples every step) and max_events; the tolerances are
 * not used.  The sink (borrowed; NULL or ops == NULL: no output, and no
 * output columns are computed) gets begin / samples / events / end; `stats`
 * (may be NULL) receives the statistics: steps, rhs_evals (force
 * evaluations), events, segments = 1, wall_seconds, time per mode.
 *
 * A non-finite state is STSL_ESOLVER naming time, mode and state; more than
 * max_events events is STSL_EMAXEVENTS.  On failure the sink is still ended,
 * marked incomplete with the message (stsl_sink_end_run, as stsl_hsolver_run).
 * The forces and columns are the one-body view's (models/one_body.h). */
/* What every scheme run checks first: a fixed-step scheme, a finite step
 * > 0, t_end > 0 and at most 1e12 steps to it (STSL_EINPUT naming the key). */
int stsl_fixed_step_check(const stsl_hsolver_opts *sim, const stsl_scheme_opts *sch,
                          stsl_error *err);
/* The step grid of a run: *n_steps steps of sch->step to sim->t_end (the
 * last one shortened), a sample every *stride steps (sim->output_step). */
void stsl_fixed_step_grid(const stsl_hsolver_opts *sim, double h, long *n_steps, long *stride);
/* A monotonic clock in seconds, for the runs' wall time. */
double stsl_fixed_step_clock(void);

int stsl_fixed_step_run(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                        const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                        stsl_error *err);

#endif
