/* status.h - the one status enum of stickslip and the error value that
 * carries a message naming the cause.
 *
 * Codes follow SUNDIALS' sign convention: 0 is success, negative is failure.
 * Every function that can fail takes a `stsl_error *` (which may be NULL),
 * fills it with a message that names the cause, and returns the code.  There
 * is no global "last error": a run owns its error value. */
#ifndef STSL_STATUS_H
#define STSL_STATUS_H

typedef enum stsl_status {
    STSL_OK = 0,
    STSL_EINPUT = -1,     /* bad configuration, argument or input file */
    STSL_EIO = -2,        /* a file could not be read or written */
    STSL_ESOLVER = -3,    /* CVODE failed (step size too small, too much work, ...) */
    STSL_EZENO = -4,      /* events keep firing at one instant */
    STSL_EMAXEVENTS = -5, /* simulation.max_events exceeded */
    STSL_ENOMEM = -6,     /* an allocation failed */
    STSL_EMODEL = -7,     /* the model returned an error from a callback */
    STSL_ECANCELLED = -8  /* the caller's cancel callback stopped the run (e.g. Ctrl-C) */
} stsl_status;

#define STSL_ERRMSG_MAX 2048

typedef struct stsl_error {
    stsl_status code;
    char msg[STSL_ERRMSG_MAX];
} stsl_error;

/* Short name of a status code ("bad input", "solver failure", ...). */
const char *stsl_strerror(stsl_status code);

/* Fill `err` (if not NULL) with `code` and a printf-style message; returns
 * `code` so that callers can write `return stsl_error_set(err, ...)`. */
int stsl_error_set(stsl_error *err, stsl_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix the message already in `err` with more context ("while X: ...").
 * Returns err->code (STSL_OK if err is NULL). */
int stsl_error_wrap(stsl_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Process exit code for a status: 0 ok, 2 bad input, 3 solver failure,
 * 1 anything else (I/O, memory). */
int stsl_exit_code(stsl_status code);

#endif
