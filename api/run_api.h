/* run_api.h - stsl_run of stickslip.h, and the one run routine the
 * in-memory result shares with it. */
#ifndef STSL_API_RUN_API_H
#define STSL_API_RUN_API_H

#include "api/config_api.h"
#include "solver/sink.h"

/* Run `cfg` into `extra` (borrowed; NULL or ops == NULL: nowhere) and the
 * summary `sum` (never NULL), returning the run's status. */
int stsl_api_run_into(const stsl_cfg *cfg, stsl_sink *extra, stsl_summary *sum, stsl_error *err);

#endif
