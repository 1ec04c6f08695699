/* compare_system.h - `stickslip compare REF.h5 CAND.h5` when both are the
 * results of a system of bodies: the report of api/compare_system.h as a
 * table (x[body], v[body], per contact, per stop) and, with -o, as JSON. */
#ifndef STSL_CLI_COMPARE_SYSTEM_H
#define STSL_CLI_COMPARE_SYSTEM_H

#include "cli/args.h"
#include "io/config.h"

/* `cfg` is the configuration read from `ref`'s /config.  The exit code: 0,
 * 2 bad input (a file is not a system's result, their bodies, contacts or
 * stops differ), 3 the reference's re-run failed, 1 the JSON could not be
 * written. */
int stsl_cli_compare_systems(const stsl_cli_cmd *cmd, const stsl_config *cfg, const char *ref,
                             const char *cand, double event_window, const char *json);

#endif
