/* event_log.h - the last few events of a run, kept for error messages, and
 * the Zeno guard: a count of events that happen at one instant.
 *
 * Generic (no friction here): the solver pushes every event it records. */
#ifndef STSL_EVENT_LOG_H
#define STSL_EVENT_LOG_H

#include <stddef.h>
#include <stdint.h>

#define STSL_EVENT_LOG_SIZE  6
#define STSL_EVENT_LOG_STATE 8

typedef struct stsl_logged_event {
    double t;
    int kind;
    int64_t mode_before, mode_after; /* the model's mode codes (stsl_mode_code) */
    int n_state;
    double y[STSL_EVENT_LOG_STATE]; /* state just after the event */
} stsl_logged_event;

typedef struct stsl_event_log {
    stsl_logged_event ring[STSL_EVENT_LOG_SIZE];
    long total;        /* events pushed so far */
    double instant_t;  /* time of the current cluster of simultaneous events */
    int instant_count; /* events in that cluster */
} stsl_event_log;

void stsl_event_log_init(stsl_event_log *log);

/* Record an event; returns how many events (this one included) happened at
 * this instant.  Two events are at one instant when their times differ by
 * no more than `same_tol` (seconds). */
int stsl_event_log_push(stsl_event_log *log, double t, int kind, int64_t mode_before,
                        int64_t mode_after, const double *y, int n_state, double same_tol);

/* Writes the name of a mode code into buf (len bytes): the model's
 * ops->mode_name, since codes are opaque (no table to index). */
typedef void (*stsl_mode_namer)(void *ctx, int64_t mode, char *buf, size_t len);

/* The last events, oldest first, as "t=... kind (A->B)" separated by "; ",
 * with kind names looked up in kind_names (may be NULL) and mode names from
 * name_mode (may be NULL: the codes' numbers). */
void stsl_event_log_format(const stsl_event_log *log, const char *const *kind_names,
                           stsl_mode_namer name_mode, void *ctx, char *buf, size_t bufsz);

#endif
