/* sink.h - where results go.
 *
 * A sink is a small ops table plus its own content pointer, in the manner of
 * a SUNDIALS N_Vector.  The solver pushes the layout once, then samples and
 * events as they are computed, then the statistics; it never opens a file.
 * Implementations: io/result/h5_sink (HDF5), io/result/csv_sink (CSV), io/result/mem_sink (memory,
 * for tests) and stsl_sink_tee below (two sinks at once).
 *
 * Every op returns STSL_OK or a negative stsl_status with `err` filled. */
#ifndef STSL_SINK_H
#define STSL_SINK_H

#include <stddef.h>

#include "solver/status.h"

#define STSL_MAX_MODES 16
/* Columns whose extrema the solver can track (stsl_stats.col_min): as many
 * as a run's summary holds. */
#define STSL_EXTREMA_MAX_COLS 16

/* One trajectory column (besides time and mode). */
typedef struct stsl_column {
    const char *name;      /* dataset / CSV header name, e.g. "x" */
    const char *units;     /* unit label, e.g. "m" */
    const char *long_name; /* what it is, e.g. "angle" (may be NULL) */
} stsl_column;

/* Columns [first, first + width) of layout.cols stored together as one 2-D
 * dataset `name` (samples x width) with a `names` attribute (member_names:
 * bodies, contacts or stops).  integer = 1: values are small integers stored
 * as int8 (per-contact mode numbers), named by value_names (attribute
 * `mode_names`).  The grouped columns keep their own entries in cols (the
 * solver and the models see flat columns); only writers and readers group. */
typedef struct stsl_col_group {
    const char *name, *units, *long_name;
    int first, width;
    const char *const *member_names; /* width names */
    int integer;
    int n_value_names;
    const char *const *value_names;
} stsl_col_group;

/* What a model's results look like: given once to sink->begin().
 * Zero-initialised groups and subjects mean the element's layout: every
 * column its own 1-D dataset, events about no contact or stop. */
typedef struct stsl_layout {
    int n_cols;
    const stsl_column *cols;
    const char *time_units;
    int n_modes;
    const char *const *mode_names; /* index = mode number */
    int n_kinds;
    const char *const *kind_names; /* index = event kind */
    int n_groups;
    const stsl_col_group *groups; /* 0: every column its own 1-D dataset */
    /* What events can be about: contacts then stops (names like "contacts.0"
     * or the given ones); 0: none.  n_modes == 0 means no scalar mode (no
     * /trajectory/mode: a system's modes are the groups contact_mode and
     * stop_mode). */
    int n_subjects;
    const char *const *subject_names;
} stsl_layout;

/* One event with the model's output columns just before and just after. */
typedef struct stsl_event_rec {
    double t;
    int kind;
    int mode_before;
    int mode_after;
    const double *before; /* layout.n_cols values */
    const double *after;  /* layout.n_cols values */
    int subject;          /* 1 + index into layout.subject_names of the contact or stop the
                             event is about; 0: none (so zero-initialised records mean "none") */
} stsl_event_rec;

/* Statistics of one run. */
typedef struct stsl_stats {
    long steps;       /* CVODE steps (plus guard-scan steps in frozen modes) */
    long rhs_evals;   /* right-hand side evaluations */
    long guard_evals; /* guard (root function) evaluations */
    long events;      /* events recorded */
    long segments;    /* integration segments (one per mode entry / restart) */
    long jac_evals;   /* Jacobian evaluations (BDF only) */
    double wall_seconds;
    int n_modes;
    double mode_time[STSL_MAX_MODES]; /* simulated time spent in each mode */
    double work; /* integral of the model's power (opts.integrate_power), else 0 */
    /* The run's estimate of its own error (run/verify.h: the run repeated
     * at a 100x tighter tolerance, events paired by order); all 0 when not
     * asked for (verify == STSL_VERIFY_NONE). */
    int verify;            /* stsl_verify_status */
    double verify_rtol;    /* rtol of the check run */
    double err_event_time; /* largest |t - t_check| of paired events (time units) */
    double err_x, err_v;   /* largest |x - x_check|, |v - v_check| after events and at the end
                              (a system: the largest over its bodies) */
    long diff_event;       /* STSL_VERIFY_MISMATCH: index of the first event that differs */
    double diff_t[2];      /* ... its time in this run and in the check run (NaN: none) */
    int diff_kind[2];      /* ... its kind in both (-1: that run has no such event) */
    /* err_x, err_v per output column, layout.n_cols values: for the element's
     * x and v, a system's x[body] and v[body]; NaN for the columns not
     * estimated.  Borrowed from the verified run and valid only while the
     * sink's end() runs (NULL elsewhere and when not verified). */
    const double *err_cols;
    /* The exact extrema of the output columns that are state components
     * (stsl_hmodel.col_state), when the solver was asked for them
     * (stsl_hsolver_opts.track_extrema): the smallest and largest value
     * over the whole trajectory (start, every step end, both sides of
     * every event, and every extremum inside a step, located on the
     * integrator's dense output), for columns [0, n_extrema); NaN for a
     * column that is not a state component.  n_extrema = 0: not tracked
     * (a fixed-step scheme, or not asked). */
    int n_extrema;
    double col_min[STSL_EXTREMA_MAX_COLS], col_max[STSL_EXTREMA_MAX_COLS];
} stsl_stats;

/* What the check of a verified run found (stsl_stats.verify). */
typedef enum stsl_verify_status {
    STSL_VERIFY_NONE = 0,     /* not verified */
    STSL_VERIFY_MATCHED = 1,  /* same event sequence; the errors are estimated */
    STSL_VERIFY_MISMATCH = 2, /* the event sequences differ (diff_*) */
    STSL_VERIFY_FAILED = 3    /* the check run itself failed */
} stsl_verify_status;

/* begin and event are required; sample, end and destroy may be NULL (a
 * sink that keeps no samples, or has nothing to finish or free). */
typedef struct stsl_sink_ops {
    int (*begin)(void *self, const stsl_layout *layout, stsl_error *err);
    int (*sample)(void *self, double t, int mode, const double *cols, stsl_error *err);
    int (*event)(void *self, const stsl_event_rec *ev, stsl_error *err);
    /* complete = 1 for a run that reached t_end; message says why if not. */
    int (*end)(void *self, const stsl_stats *stats, int complete, const char *message,
               stsl_error *err);
    void (*destroy)(void *self); /* frees self; NULL-safe */
} stsl_sink_ops;

typedef struct stsl_sink {
    const stsl_sink_ops *ops;
    void *self;
} stsl_sink;

/* Convenience wrappers; a sink with ops == NULL accepts and drops everything. */
int stsl_sink_begin(stsl_sink *s, const stsl_layout *layout, stsl_error *err);
int stsl_sink_sample(stsl_sink *s, double t, int mode, const double *cols, stsl_error *err);
int stsl_sink_event(stsl_sink *s, const stsl_event_rec *ev, stsl_error *err);
int stsl_sink_end(stsl_sink *s, const stsl_stats *stats, int complete, const char *message,
                  stsl_error *err);
/* The end of a run, the same for every integrator: a run that failed with
 * `status` still ends its sink, marked incomplete with the cause (err's
 * message, or the status's description), so that what was computed is
 * kept, and returns `status` (an error in ending is dropped: err keeps the
 * cause).  A run that succeeded ends the sink complete when it reached its
 * end (reached_end = 1; else incomplete, "run did not reach t_end") and
 * returns the result of ending it. */
int stsl_sink_end_run(stsl_sink *s, const stsl_stats *stats, int status, int reached_end,
                      stsl_error *err);
/* Destroys the sink's content and sets s->ops = NULL. NULL-safe. */
void stsl_sink_free(stsl_sink *s);

/* A sink forwarding to `a` then `b`; takes ownership of both. */
int stsl_sink_tee(stsl_sink a, stsl_sink b, stsl_sink *out, stsl_error *err);

/* Index of a named column in `layout`, or -1. */
int stsl_layout_find(const stsl_layout *layout, const char *name);

/* ---- systems: column groups and event subjects ---------------------------- */

/* The group holding column c, or -1 (a column of its own). */
int stsl_layout_group_of(const stsl_layout *layout, int c);
/* Index of the group named `name`, or -1. */
int stsl_layout_find_group(const stsl_layout *layout, const char *name);
/* The groups and subjects of `layout` are well formed: each group a
 * non-empty run of columns inside [0, n_cols), no column in two groups,
 * names (and member names, value names) given; subject names given.
 * STSL_OK, or STSL_EINPUT with err naming `who` (a file) and the group. */
int stsl_layout_check_groups(const stsl_layout *layout, const char *who, stsl_error *err);
/* The name a grouped column shows where columns are flat (CSV headers,
 * stsl_result_column): "name[member]", e.g. "x[motor]", into buf (len
 * bytes, always terminated).  A column of its own: its name. */
void stsl_layout_flat_name(const stsl_layout *layout, int c, char *buf, size_t len);
/* The units of column c: its group's for a grouped column; "" when the
 * layout gives none or c < 0 (no such column). */
const char *stsl_layout_units(const stsl_layout *layout, int c);
/* The values each event keeps in the files (HDF5 /events, the events CSV,
 * the MAT events struct), in this order: x just before, v just before and
 * after, net_force and friction just after, each taken from the column of
 * that name or, in a system, from the group of that name (then one value
 * per member). */
#define STSL_EVENT_VALUES 5
typedef struct stsl_event_value {
    const char *name; /* "x", "v_before", "v_after", "net_force", "friction" */
    int after;        /* 1: the value just after the event (ev->after), 0: just before */
    int first;        /* its first source column; -1: the layout has none (NaN) */
    int width;        /* 0: one column of its own; w > 0: a group of w columns */
} stsl_event_value;
void stsl_layout_event_values(const stsl_layout *layout, stsl_event_value out[STSL_EVENT_VALUES]);
/* Value k (0 <= k < max(width, 1)) of `v` for an event whose columns just
 * before and after are `before` and `after`: NaN when the layout has no
 * source column or the event no values. */
double stsl_event_value_at(const stsl_event_value *v, const double *before, const double *after,
                           int k);

/* A deep copy of `src` into *dst (strings and arrays owned by dst, freed by
 * stsl_layout_free), so that a sink may keep the layout after begin(). */
int stsl_layout_copy(const stsl_layout *src, stsl_layout *dst, stsl_error *err);
void stsl_layout_free(stsl_layout *l); /* NULL-safe; leaves *l zeroed */

#endif
