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

#endif
