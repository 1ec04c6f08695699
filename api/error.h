/* error.h - the API's errors: internal status values turned into the
 * public stsl_err. */
#ifndef STSL_API_ERROR_H
#define STSL_API_ERROR_H

#include "include/stickslip.h"
#include "solver/status.h"

/* Copy an internal error into the public one (either may be NULL); returns
 * the public code. */
stsl_rc stsl_api_err(stsl_err *out, const stsl_error *in);

/* Fill `out` with STSL_RC_INPUT and a message (for argument checks). */
stsl_rc stsl_api_bad_arg(stsl_err *out, const char *what);

/* Fill `out` (may be NULL) with `code` and the formatted message; returns
 * the public code. */
stsl_rc stsl_api_fail(stsl_err *out, stsl_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
