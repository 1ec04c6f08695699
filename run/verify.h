/* verify.h - a run that states its own accuracy (simulation.verify,
 * `stickslip run --verify`).
 *
 * The case is run a second time, the check run, at a tolerance 100 times
 * tighter (stsl_verify_tolerances); the events of both runs are paired by
 * order and must agree in kind and mode; the largest differences of event
 * times and of the states after events and at the end are the estimated
 * errors of the run, handed to its sink with the statistics (stsl_stats
 * verify, err_*).  A run's error falls with rtol (docs/numerics.md), so
 * the check run's is about 100 times smaller and the difference is the
 * run's own error to about 1 %, down to the attainable limit, where the
 * estimate is floored (VERIFY_ROOT_LIMIT). */
#ifndef STSL_VERIFY_H
#define STSL_VERIFY_H

#include <stddef.h>

#include "models/element_params.h"
#include "run/fixed_step.h"
#include "models/system.h"
#include "solver/hybrid.h"

typedef enum stsl_verify_mode {
    STSL_VERIFY_OFF = 0,
    STSL_VERIFY_ON = 1,    /* a mismatch of the event sequences is a warning */
    STSL_VERIFY_STRICT = 2 /* ... a failure (the CLI's exit 3) */
} stsl_verify_mode;

/* "off", "on", "strict" (index = mode), then NULL. */
const char *const *stsl_verify_mode_names(void);

/* The check run's tolerances for a run at (rtol, atol): rtol / 100, but
 * not below the attainable limit (STSL_VERIFY_RTOL_MIN), and atol / 100
 * when atol is given, else 0 (the rule of the run, applied to the new rtol). */
void stsl_verify_tolerances(double rtol, double atol, double *rtol_check, double *atol_check);

/* stsl_run_element, and with mode != OFF (event-driven only; a fixed-step
 * scheme has no tolerance and runs unverified) the check run first and the
 * comparison filled into the statistics the sink ends with and into
 * *stats.  When the event sequences differ or the check run fails,
 * `check_msg` (may be NULL; `n` bytes) says so, naming the first differing
 * event (number, kind, time in both runs), else it is "".  Returns the
 * run's own status, except in STRICT mode, where such a finding of a run
 * that succeeded is STSL_ESOLVER with that message. */
int stsl_run_verified(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                      const stsl_scheme_opts *sch, stsl_verify_mode mode, stsl_sink *sink,
                      stsl_stats *stats, char *check_msg, size_t n, stsl_error *err);

/* The same for a system of bodies (stsl_run_system; resolved and
 * checked): the check run at the same tolerances, the events paired by
 * order and by the contact or stop they are about, the estimate per body
 * (x[body], v[body]: stsl_stats.err_cols, the largest in err_x, err_v). */
int stsl_run_system_verified(const stsl_system *s, const stsl_hsolver_opts *sim,
                             stsl_verify_mode mode, stsl_sink *sink, stsl_stats *stats,
                             char *check_msg, size_t n, stsl_error *err);

#endif
