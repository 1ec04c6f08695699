/* event_log.h - the last few events of a run, kept for error messages, and
 * the Zeno guard: a count of events that happen at one instant.
 *
 * Generic (no friction here): the solver pushes every event it records. */
#ifndef STSL_EVENT_LOG_H
#define STSL_EVENT_LOG_H

#include <stddef.h>

#define STSL_EVENT_LOG_SIZE  6
#define STSL_EVENT_LOG_STATE 8

typedef struct stsl_logged_event {
    double t;
    int kind, mode_before, mode_after;
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
int stsl_event_log_push(stsl_event_log *log, double t, int kind, int mode_before, int mode_after,
                        const double *y, int n_state, double same_tol);

/* The last events, oldest first, as "t=... kind (A->B)" separated by "; ",
 * with names looked up in kind_names and mode_names (may be NULL). */
void stsl_event_log_format(const stsl_event_log *log, const char *const *kind_names,
                           const char *const *mode_names, char *buf, size_t bufsz);

#endif
