/* run_api.h - stsl_run of stickslip.h, and the one run routine the
 * in-memory result shares with it. */
#ifndef STSL_API_RUN_API_H
#define STSL_API_RUN_API_H

#include "api/config_api.h"
#include "solver/sink.h"

/* Run `cfg` with `sim` (its options; the cancel flag and progress of
 * `cfg` are added) into `sink`: a system's fixed-step scheme unverified
 * (it has no tolerance, as the element's), else verified as configured,
 * the check run's message into warn[size]. */
int stsl_api_run_sim(const stsl_cfg *cfg, stsl_hsolver_opts sim, stsl_sink *sink, char *warn,
                     size_t size, stsl_error *err);

/* Run `cfg` into `extra` (borrowed; NULL or ops == NULL: nowhere) and the
 * summary `sum` (never NULL), returning the run's status. */
int stsl_api_run_into(const stsl_cfg *cfg, stsl_sink *extra, stsl_summary *sum, stsl_error *err);

/* Output samples off in `sim` (the options of configuration `c`), for
 * runs whose samples nobody keeps and whose summary is used only for what
 * does not come from the grid: a study's row (its max_abs_x, max_abs_v are
 * the solver's exact extrema; the rest comes from the start, the events
 * and the end).  The summary's max_abs of the other columns (a, friction,
 * ...) is over the samples: without the grid, over those points only.
 * Not for a fixed-step scheme, whose output_step is the stride of its
 * samples. */
void stsl_api_no_grid(const stsl_config *c, stsl_hsolver_opts *sim);

#endif
