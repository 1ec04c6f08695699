/* hybrid.h - a generic hybrid (mode-switching) integrator on CVODE.
 *
 * It knows nothing of friction or files.  A model (stsl_hmodel) supplies its
 * state size, its modes (opaque codes; each with a right-hand side and guard
 * functions whose zero crossings, in the directions ops->describe lists, end
 * the segment), a transition function called when guards fire or a time event is reached, a
 * step bound (the time scale of its inputs) and its next time event.
 *
 * Segments in ordinary modes are integrated by one CVODE instance per run
 * (CVodeReInit at every switch; nothing is allocated per segment) with
 * rootfinding on the current mode's guards and CVodeSetStopTime at time
 * events.  A mode declared `frozen` has a right-hand side that is identically
 * zero (a stuck element, a body resting on a stop): its state does not move,
 * only the guards do, as functions of time.  Such segments are not
 * integrated: the guards are sampled at the model's step bound and every
 * bracketed crossing, or a crossing hidden between samples next to a local
 * extremum, is located with Brent's method (GSL).  The output grid is sampled
 * with CVodeGetDky and never forces a step.
 *
 * With opts.method = STSL_METHOD_ERK8 the ordinary modes are integrated by
 * solver/erk8.h instead (an explicit eighth-order Runge-Kutta method whose
 * dense output re-steps), with the same guards, checks and output, and
 * every root located to adjacent doubles of t.
 *
 * Use: create, start, then either run() or a loop of step() until done(),
 * then finish() (which hands statistics and the completion flag to the sink). */
#ifndef STSL_HYBRID_H
#define STSL_HYBRID_H

#include <stddef.h>
#include <stdint.h>

#include "solver/sink.h"
#include "solver/status.h"

#define STSL_NO_EVENT (-1)

/* Guard directions, as in CVodeSetRootDirection. */
enum { STSL_GUARD_FALLING = -1, STSL_GUARD_BOTH = 0, STSL_GUARD_RISING = 1 };

/* Why the transition function is called. */
typedef enum stsl_reason {
    STSL_REASON_INIT = 0,   /* at t0: choose the initial mode */
    STSL_REASON_GUARD = 1,  /* one or more guards crossed (see `fired`) */
    STSL_REASON_TIME = 2,   /* a time event (input discontinuity) was reached */
    STSL_REASON_RECHECK = 3 /* after an event with `again` set: is the new mode consistent? */
} stsl_reason;

/* A mode is an opaque code the model defines and the solver only passes
 * back to it (ops->describe says what the solver needs of it).  64 bits,
 * not an index into a table: a system of k contacts has up to 3^k modes,
 * which it packs as bit fields (2 bits per contact and per stop). */
typedef int64_t stsl_mode_code;
#define STSL_NO_MODE ((stsl_mode_code)-1) /* before the initial mode is chosen */

/* What the solver needs of one mode, asked for (ops->describe) whenever the
 * mode changes; it keeps the current mode's only. */
typedef struct stsl_mode_desc {
    int frozen;   /* 1: the right-hand side is identically zero in this mode */
    int n_guards; /* <= stsl_hmodel.max_guards */
    /* n_guards directions (STSL_GUARD_*), owned by the model and valid
     * until its next describe call (the solver copies them). */
    const int *guard_dir;
    /* The mode's number in the results: the value sinks receive for it
     * (layout.mode_names[record] names it) and its slot in
     * stsl_stats.mode_time; -1: none (not tallied, sinks get -1).  The
     * element's modes are their own numbers: record == code. */
    int record;
} stsl_mode_desc;

/* What the transition function decides. */
typedef struct stsl_transition {
    stsl_mode_code mode; /* mode to continue in (may equal the current one: a restart) */
    int kind;            /* event kind to record (index into layout.kind_names), or STSL_NO_EVENT */
    int again;           /* 1: record this event, then call again with STSL_REASON_RECHECK */
    int subject;         /* 1 + index into layout.subject_names of the contact or stop the
                            event is about; 0: none (the element's events) */
} stsl_transition;

/* A segment whose power is a constant times the rate of one state
 * component: its work is coef * (y_end[index] - y_start[index]), exactly,
 * with no quadrature (ops->work_form). */
typedef struct stsl_work_form {
    int index;   /* the state component whose rate the power is proportional to */
    double coef; /* the constant over the whole segment */
} stsl_work_form;

typedef struct stsl_hmodel_ops {
    /* ydot = f(t, y) in `mode`; return 0, >0 recoverable, <0 fatal (CVODE's convention). */
    int (*rhs)(void *self, stsl_mode_code mode, double t, const double *y, double *ydot);
    /* g[0..n_guards-1] for `mode`. */
    int (*guards)(void *self, stsl_mode_code mode, double t, const double *y, double *g);
    /* Decide the next mode at an event; may reset y (in place: the solver passes
     * a scratch copy and commits it only on success).  `fired[i]` is nonzero for
     * guards that crossed (NULL unless why == STSL_REASON_GUARD). */
    int (*transition)(void *self, stsl_mode_code mode, stsl_reason why, const int *fired, double t,
                      double *y, stsl_transition *out, stsl_error *err);
    /* Largest step allowed in `mode` at time t (the time scale of the inputs;
     * INFINITY for none). Frozen modes rely on it to sample their guards. */
    double (*max_step)(void *self, stsl_mode_code mode, double t);
    /* Smallest time event strictly after t, or INFINITY. */
    double (*next_time_event)(void *self, double t);
    /* Output columns (layout.n_cols) at (t, y) in `mode`. */
    void (*outputs)(void *self, stsl_mode_code mode, double t, const double *y, double *cols);
    /* Optional (NULL: none): a power whose integral over the run the solver
     * accumulates in stsl_stats.work (the element: friction power F_f v)
     * when opts.integrate_power is set.  Integrated in ordinary modes only: it must
     * vanish in frozen ones. */
    double (*power)(void *self, stsl_mode_code mode, double t, const double *y);
    /* Optional (NULL: every segment's power is integrated): called when a
     * segment in an ordinary `mode` opens at (t, y).  Return 1 and fill `out`
     * when the power over the whole segment (until its next event or time
     * event) is out->coef * dy[out->index]/dt with a constant coef: its work
     * is then taken as a difference of states, exactly and for free.
     * Return 0 when the power must be integrated. */
    int (*work_form)(void *self, stsl_mode_code mode, double t, const double *y,
                     stsl_work_form *out);
    /* What the solver needs of `mode` (frozen, guards and their directions,
     * its number in the results).  Return 0, or nonzero when `mode` is not
     * one of the model's (the solver fails with "invalid mode"). */
    int (*describe)(void *self, stsl_mode_code mode, stsl_mode_desc *out);
    /* The name of `mode` for messages, into buf (len bytes, always
     * terminated), for any code (an unknown one: its number). */
    void (*mode_name)(void *self, stsl_mode_code mode, char *buf, size_t len);
    /* Optional (NULL: guards() and its g[i]): guard i of `mode` alone into
     * *g, equal bit for bit to guards()'s g[i]; 0, or < 0 on failure.  The
     * root and extremum searches on one guard call it (a system of many
     * contacts evaluates one guard for a fraction of all of them). */
    int (*guard)(void *self, stsl_mode_code mode, double t, const double *y, int i, double *g);
} stsl_hmodel_ops;

/* The integration method of the ordinary modes: a linear multistep method
 * of CVODE, or ARKODE's explicit eighth-order Runge-Kutta pair for the
 * tightest tolerances (solver/erk8.h; events located to the rounding of t). */
typedef enum stsl_method {
    STSL_METHOD_AUTO = 0,  /* BDF when the model says it is stiff, else Adams */
    STSL_METHOD_ADAMS = 1, /* Adams-Moulton, fixed-point iteration: smooth, non-stiff modes */
    STSL_METHOD_BDF = 2,   /* BDF, Newton iteration with a dense Jacobian: stiff modes */
    STSL_METHOD_ERK8 = 3   /* Fehlberg 7(8), explicit: non-stiff models only */
} stsl_method;

typedef struct stsl_hmodel {
    const stsl_hmodel_ops *ops;
    void *self;
    int n_state;
    /* The most guards any mode has: CVODE's root function count, fixed
     * for the run (the solver's guard arrays are sized from it once);
     * modes with fewer fill the rest with a constant. */
    int max_guards;
    const stsl_layout *layout;
    const char *const *state_names; /* n_state names for messages (may be NULL) */
    int stiff;                      /* 1: STSL_METHOD_AUTO picks BDF */
    /* The natural size of each state component (n_state values, > 0; may be
     * NULL: 1 each), in the component's units: with opts.atol = 0 the
     * absolute tolerance of component i follows from opts.rtol and it
     * (stsl_hsolver_atol). */
    const double *state_scale;
    /* Which output columns are state components: col_state[c] = j when
     * column c is y[j] in every mode (the element's x and v), else -1
     * (layout.n_cols values; NULL: none).  Their exact extrema are what
     * opts.track_extrema reports. */
    const int *col_state;
} stsl_hmodel;

typedef struct stsl_hsolver_opts {
    double t_end;       /* > t0 */
    double output_step; /* >= 0; 0: only segment ends and events */
    double rtol;        /* CVODE relative tolerance */
    double atol;     /* CVODE absolute tolerance; 0: per component from rtol (stsl_hsolver_atol) */
    long max_events; /* a run recording more events fails with STSL_EMAXEVENTS */
    int max_same_instant; /* events allowed at one instant before STSL_EZENO (0: default 64) */
    stsl_method method;   /* STSL_METHOD_AUTO unless set */
    /* Explicit output times (borrowed, increasing; used instead of
     * output_step when n_output_times > 0), and grid_only = 1 to emit only
     * those samples (no samples at events, none extra at t_end): a result
     * evaluated exactly at another run's time points. */
    const double *output_times;
    long n_output_times;
    int grid_only;
    /* 1: integrate the model's power (ops->power) into stsl_stats.work: a
     * difference of states where ops->work_form says the segment allows it,
     * else a CVODES quadrature (one power evaluation per step, so it is
     * asked for). */
    int integrate_power;
    /* 1: report the exact extrema of the columns that are state components
     * (model->col_state) in stsl_stats.col_min / col_max, found on the dense
     * output between step ends (see "Extrema" in hybrid.c); independent of
     * the output grid. */
    int track_extrema;
    /* Called now and then with the current time (may be NULL). */
    void (*progress)(void *ctx, double t, double t_end);
    void *progress_ctx;
    /* Asked before every advance and every output sample (may be NULL):
     * nonzero stops the run with STSL_ECANCELLED, the result ended as
     * incomplete.  How a program asks (a signal flag) is its own business. */
    int (*cancel)(void *ctx);
    void *cancel_ctx;
} stsl_hsolver_opts;

typedef struct stsl_hsolver stsl_hsolver;

/* Allocate a solver (its own SUNContext, CVODE memory, vectors, root
 * workspaces).  The model must outlive the solver.  NULL on failure. */
stsl_hsolver *stsl_hsolver_create(const stsl_hmodel *model, const stsl_hsolver_opts *opts,
                                  stsl_error *err);
/* Free everything the solver owns. NULL-safe. */
void stsl_hsolver_free(stsl_hsolver *s);

/* Set (t0, y0), choose the initial mode, begin the sink (borrowed; may be
 * NULL) and emit the first sample. */
int stsl_hsolver_start(stsl_hsolver *s, double t0, const double *y0, stsl_sink *sink,
                       stsl_error *err);
/* Advance to the next event, time event or t_end, whichever comes first,
 * emitting output samples on the way.  On failure, time/state/mode stay at
 * the last good point and err names time, mode and state. */
int stsl_hsolver_step(stsl_hsolver *s, stsl_error *err);
/* 1 once t_end has been reached. */
int stsl_hsolver_done(const stsl_hsolver *s);
/* start + step until done, then hand the statistics to the sink and end
 * it (complete once t_end was reached).  On a failed step the sink is still
 * finished (incomplete) and the step's error is returned. */
int stsl_hsolver_run(stsl_hsolver *s, double t0, const double *y0, stsl_sink *sink,
                     stsl_error *err);

/* The absolute tolerance of each of n state components of natural sizes
 * `scale` (NULL: 1 each) that a solver with (rtol, atol) uses: atol when
 * > 0, else rtol * 0.001 * scale[i] (0.001: see ATOL_RESOLUTION). */
void stsl_hsolver_atol(const double *scale, int n, double rtol, double atol, double *out);

double stsl_hsolver_time(const stsl_hsolver *s);
stsl_mode_code stsl_hsolver_mode(const stsl_hsolver *s);
const double *stsl_hsolver_state(const stsl_hsolver *s);
const stsl_stats *stsl_hsolver_stats(const stsl_hsolver *s);

#endif
