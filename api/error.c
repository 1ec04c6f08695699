/* error.c - see error.h.  The public codes are spelled in stickslip.h and
 * the internal ones in solver/status.h (which may not include the public
 * header: solver/ is the lowest layer); the assertions below keep the two
 * spellings on the same numbers. */
#include "api/error.h"
#include "io/fmu/fmu_run.h"
#include "run/validation.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(STSL_RC_OK == (int)STSL_OK, "public and internal codes differ");
_Static_assert(STSL_RC_INPUT == (int)STSL_EINPUT, "public and internal codes differ");
_Static_assert(STSL_RC_IO == (int)STSL_EIO, "public and internal codes differ");
_Static_assert(STSL_RC_SOLVER == (int)STSL_ESOLVER, "public and internal codes differ");
_Static_assert(STSL_RC_ZENO == (int)STSL_EZENO, "public and internal codes differ");
_Static_assert(STSL_RC_MAXEVENTS == (int)STSL_EMAXEVENTS, "public and internal codes differ");
_Static_assert(STSL_RC_NOMEM == (int)STSL_ENOMEM, "public and internal codes differ");
_Static_assert(STSL_RC_MODEL == (int)STSL_EMODEL, "public and internal codes differ");
_Static_assert(STSL_RC_CANCELLED == (int)STSL_ECANCELLED, "public and internal codes differ");
_Static_assert(STSL_ERR_MAX == STSL_ERRMSG_MAX, "public and internal messages differ in size");
/* Two more constants the public header states for its programs. */
_Static_assert(STSL_FMU_MAP_MAX == STSL_FMU_MAX_MAP, "public and internal FMU maps differ");
/* A comparison of two floating constants is no integer constant expression
 * (C17 6.6p6: floating constants only as immediate operands of casts; gcc
 * takes it as an extension, clang refuses it, so scripts/fuzz did not build).
 * The window is a whole number of steps, so its cast is the whole value. */
_Static_assert((int)STSL_COMPARE_WINDOW_STEPS == (int)STSL_CMP_WINDOW_STEPS,
               "event windows differ");

stsl_rc stsl_api_err(stsl_err *out, const stsl_error *in)
{
    stsl_rc code = in ? (stsl_rc)in->code : STSL_RC_OK;
    if (out) {
        out->code = code;
        memcpy(out->message, in ? in->msg : "", in ? sizeof out->message : 1);
    }
    return code;
}

stsl_rc stsl_api_bad_arg(stsl_err *out, const char *what)
{
    return stsl_api_fail(out, STSL_EINPUT, "%s", what);
}

stsl_rc stsl_api_fail(stsl_err *out, stsl_status code, const char *fmt, ...)
{
    stsl_error e = {code, ""};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof e.msg, fmt, ap);
    va_end(ap);
    return stsl_api_err(out, &e);
}

const char *stsl_rc_name(stsl_rc code)
{
    return stsl_strerror((stsl_status)code);
}

int stsl_rc_exit_code(stsl_rc code)
{
    return stsl_exit_code((stsl_status)code);
}

const char *stsl_lib_version(void)
{
    return STSL_LIB_VERSION;
}

void stsl_free(void *p)
{
    free(p);
}
