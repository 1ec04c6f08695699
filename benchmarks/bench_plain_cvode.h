/* bench_plain_cvode.h - the yardstick of bench_janecek: the Janecek chirp
 * (SPEC §3) integrated the textbook way with CVODE, without stickslip's
 * hybrid machinery (see bench_plain_cvode.c). */
#ifndef STSL_BENCH_PLAIN_CVODE_H
#define STSL_BENCH_PLAIN_CVODE_H

#define PLAIN_MAX_EVENTS 64

typedef struct plain_event {
    int kind; /* STSL_EV_* (physics/modes.h) */
    double t, x;
} plain_event;

typedef struct plain_result {
    plain_event ev[PLAIN_MAX_EVENTS];
    int n_events;
    long steps, steps_stuck, rhs_evals;
} plain_result;

/* One run, t = 0 .. 9.5 s: its own SUNContext, CVODE memory and vectors,
 * freed before returning.  bdf = 0: Adams with fixed-point iteration (the
 * setup stickslip uses for the element), 1: BDF with a dense Newton solver.
 * Returns 0, or the (negative) CVODE flag that ended it. */
/* atol: one absolute tolerance per state component (x, v), as stickslip's
 * own rule gives it (stsl_element_atol) or a scalar repeated. */
int plain_janecek_run(double rtol, const double atol[2], int bdf, plain_result *out);

/* Compare the events with test/reference/janecek_events.h: 0 when the
 * kinds match one for one and every time is within tol_t seconds (*max_err:
 * the largest time difference); else 1 with the first difference in msg. */
int plain_check_events(const plain_result *r, double tol_t, double *max_err, char *msg, int n);

#endif
