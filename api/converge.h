/* converge.h - the convergence study behind stsl_converge (stickslip.h),
 * on an internal configuration: what `stickslip converge` runs after
 * loading its configuration with the scheme and step set. */
#ifndef STSL_API_CONVERGE_H
#define STSL_API_CONVERGE_H

#include "include/stickslip.h"
#include "io/config.h"

/* stsl_converge on `cfg` (not changed), with the internal error. */
int stsl_converge_study(const stsl_config *cfg, const stsl_converge_opts *o, stsl_convergence **out,
                        stsl_error *err);

#endif
