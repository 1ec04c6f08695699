/* run.h - one run of the friction element, from its parameters to a sink:
 * event-driven (the hybrid solver) or with a fixed-step validation scheme.
 * The one place where the CLI, the benchmarks, `converge` and the tests
 * turn a configuration into results. */
#ifndef STSL_RUN_H
#define STSL_RUN_H

#include "models/element_params.h"
#include "run/fixed_step.h"
#include "models/system.h"
#include "solver/hybrid.h"

/* Run the element `p` from t = 0 with `sim` into `sink` (borrowed; ops ==
 * NULL drops everything): event-driven (`sch` NULL or event_driven) by the
 * engine of systems as a system of one body, in the element's layout
 * (models/one_body.h), else with the fixed-step scheme on the one-body
 * view's forces (run/fixed_step.h); copy the statistics to `stats` (may be
 * NULL).  On a solver failure the sink is ended, marked incomplete,
 * and the failure is returned. */
int stsl_run_element(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                     const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                     stsl_error *err);

/* Run a system of bodies (models/multibody.h; resolved and checked) from
 * t = 0 with `sim`, event-driven, into `sink`: the contract of
 * stsl_run_element.  The Zeno guard allows at least 4 events per contact
 * and stop + 64 at one instant (several switch at once, one event each). */
int stsl_run_system(const stsl_system *s, const stsl_hsolver_opts *sim, stsl_sink *sink,
                    stsl_stats *stats, stsl_error *err);

/* The system run with `sim` and the scheme `sch`: event-driven
 * (stsl_run_system) when `sch` is NULL or event_driven, else the
 * fixed-step scheme (stsl_fixed_step_run_system). */
int stsl_run_system_scheme(const stsl_system *s, const stsl_hsolver_opts *sim,
                           const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                           stsl_error *err);

#endif
