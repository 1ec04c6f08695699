/* compare_fmu.h - `compare REFERENCE.h5 --fmu MODEL.fmu --step H`: the
 * candidate is the FMU run at communication step H with the reference
 * configuration's signals as its inputs (io/fmu/fmu_run.h); an element's
 * samples are compared like a CSV candidate's (events seen in the
 * samples), a system's like a system's result file (api/compare.h). */
#ifndef STSL_CLI_COMPARE_FMU_H
#define STSL_CLI_COMPARE_FMU_H

#include "io/candidate.h"
#include "io/h5_read.h"
#include "io/config.h"
#include "io/fmu/fmu_run.h"

/* Run the FMU of `o` on the element of `cfg` from 0 to its t_end at step
 * h into *c (format: CSV, its rows the communication points); on failure
 * *c holds nothing to free. */
int stsl_cli_fmu_candidate(const stsl_fmu_opts *o, const stsl_config *cfg, double h,
                           stsl_candidate *c, stsl_error *err);

/* The same for the system of `cfg`: the FMU's run as a system's result *c
 * (stsl_cmp_fmu_system); on failure *c holds nothing to free. */
int stsl_cli_fmu_system_candidate(const stsl_fmu_opts *o, const stsl_config *cfg, double h,
                                  stsl_h5_system *c, stsl_error *err);

#endif
