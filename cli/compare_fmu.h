/* compare_fmu.h - `compare REFERENCE.h5 --fmu MODEL.fmu --step H`: the
 * candidate is the FMU run at communication step H with the reference
 * configuration's signals as its inputs (io/fmu/fmu_run.h); its samples
 * are compared like a CSV candidate's (events seen in the samples). */
#ifndef STSL_CLI_COMPARE_FMU_H
#define STSL_CLI_COMPARE_FMU_H

#include "cli/fmu_opts.h"
#include "io/candidate.h"
#include "io/config.h"

/* Run the FMU of `o` on the element of `cfg` from 0 to its t_end at step
 * h into *c (format: CSV, its rows the communication points); on failure
 * *c holds nothing to free. */
int stsl_cli_fmu_candidate(const stsl_cli_fmu *o, const stsl_config *cfg, double h,
                           stsl_candidate *c, stsl_error *err);

#endif
