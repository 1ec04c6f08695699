#include "solver/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *stsl_strerror(stsl_status code)
{
    switch (code) {
    case STSL_OK:
        return "success";
    case STSL_EINPUT:
        return "bad input";
    case STSL_EIO:
        return "input/output error";
    case STSL_ESOLVER:
        return "solver failure";
    case STSL_EZENO:
        return "Zeno behaviour (events without time advancing)";
    case STSL_EMAXEVENTS:
        return "too many events";
    case STSL_ENOMEM:
        return "out of memory";
    case STSL_EMODEL:
        return "model callback failed";
    case STSL_ECANCELLED:
        return "cancelled";
    }
    return "unknown status";
}

int stsl_error_set(stsl_error *err, stsl_status code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

int stsl_error_wrap(stsl_error *err, const char *fmt, ...)
{
    if (!err) return STSL_OK;
    char prefix[STSL_ERRMSG_MAX];
    char old[STSL_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* Build "prefix: old" piecewise; truncation of a long message is fine. */
    size_t n = strlen(prefix);
    if (n > sizeof err->msg - 3) n = sizeof err->msg - 3;
    memcpy(err->msg, prefix, n);
    memcpy(err->msg + n, ": ", 2);
    size_t room = sizeof err->msg - n - 3;
    size_t m = strnlen(old, room);
    memcpy(err->msg + n + 2, old, m);
    err->msg[n + 2 + m] = '\0';
    return err->code;
}

int stsl_exit_code(stsl_status code)
{
    switch (code) {
    case STSL_OK:
        return 0;
    case STSL_EINPUT:
        return 2;
    case STSL_ESOLVER:
    case STSL_EZENO:
    case STSL_EMAXEVENTS:
    case STSL_EMODEL:
        return 3;
    default:
        return 1;
    }
}
