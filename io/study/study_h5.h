/* study_h5.h - the study file of `stickslip sweep` (layout in
 * docs/hdf5-layout.md): /study with its attributes, the study YAML and the
 * base configuration; /study/parameters (one column per varied key, all
 * variants, written at creation); /study/summary (one column per summary
 * quantity, one row per variant, written in variant order); with store:
 * events, /study/events (every variant's events, in variant order); with
 * store: full, /runs/NNNNNN (each variant's result in the layout of a
 * single run, written by io/result/h5_sink into the group).
 *
 * Rows are appended in variant order into a fixed block and written to the
 * file when the block is full; stsl_study_h5_flush() makes everything
 * appended so far durable: it writes the block, then sets the attributes
 * n_done and n_failed and flushes the file.  HDF5's metadata cache is
 * kept from evicting (writing) anything between flushes, so a process
 * killed at any other moment leaves the file as of its last flush: rows
 * [0, n_done) complete, `complete` = 0.  --resume continues from there.
 *
 * Not thread-safe (Debian's HDF5 is built without thread-safety): one
 * thread owns a writer and makes every HDF5 call of the process. */
#ifndef STSL_STUDY_H5_H
#define STSL_STUDY_H5_H

#include <stdio.h>

#include "io/study/study.h"

/* Most event kinds a model may have (one events_<kind> column each). */
#define STSL_STUDY_MAX_KINDS 16
/* Most per-member columns of a system's study (x_final.<body>, ...; see
 * api/summary_sink.h), and most summary columns a study file has. */
#define STSL_STUDY_MAX_MEMBERS 128
#define STSL_STUDY_MAX_COLS    192
/* Longest message kept in a row (longer ones are cut, ending in "..."). */
#define STSL_ROW_MSG_MAX 1024

typedef enum stsl_row_status {
    STSL_ROW_NOT_RUN = -1, /* the fill value: no row yet */
    STSL_ROW_OK = 0,       /* the run reached t_end */
    STSL_ROW_INVALID = 1,  /* the variant is not a valid configuration */
    STSL_ROW_FAILED = 2    /* the run stopped early (solver, Zeno, max_events) */
} stsl_row_status;

/* One event of a variant (store: events), as a row of a single run's
 * /events; a column the model lacks is NaN. */
typedef struct stsl_study_event {
    double t;
    int kind, mode_before, mode_after;
    double x, v_before, v_after, net_force, friction;
} stsl_study_event;

/* One variant's summary.  Times of events that did not happen, and every
 * quantity of a variant that did not run, are NaN. */
typedef struct stsl_study_row {
    int status; /* stsl_row_status */
    char message[STSL_ROW_MSG_MAX];
    double t_reached;
    long events[STSL_STUDY_MAX_KINDS]; /* by kind, in the model's kind order */
    double first_breakaway, last_stick;
    double stuck_fraction;    /* time in STUCK / t reached */
    double stop_contact_time; /* time resting on an end stop (STOP_LOW + STOP_HIGH) */
    double max_abs_x, max_abs_v, x_final, v_final;
    double dissipated_energy; /* work of the dry friction, >= 0 */
    long steps, rhs_evals;
    double wall_seconds;
    /* A system's per-member figures, one per stsl_study_info.member_names
     * (NaN when not run); a fixed array, so that a row is plain bytes (the
     * MPI sweep sends rows as such). */
    double member[STSL_STUDY_MAX_MEMBERS];
    /* store: events: the variant's events (borrowed by append; NULL, 0
     * otherwise). */
    stsl_study_event *ev;
    long n_ev;
    /* store: full: the variant's whole run (borrowed by append; NULL, 0 for
     * an invalid variant and with the other stores): its effective
     * configuration as YAML text and its NUL, then the run's record
     * (io/result/run_record), written as /runs/NNNNNN. */
    void *run;
    size_t run_size;
} stsl_study_row;

/* What the file records besides the study itself. */
typedef struct stsl_study_info {
    const char *base_yaml; /* the effective base configuration (after --set) */
    const char *version;   /* program version */
    const char *x_units, *v_units, *energy_units, *time_units, *force_units; /* `units` */
    int n_kinds;
    const char *const *kind_names;
    int n_modes; /* store: events: the mode names of mode_before/after */
    const char *const *mode_names;
    /* A system's per-member columns after the element's (0 for the element):
     * their names and units, in the order of stsl_study_row.member. */
    int n_members;
    const char *const *member_names;
    const char *const *member_units;
} stsl_study_info;

/* Set a row to "not run": status, NaNs, zero counts, empty message. */
void stsl_study_row_clear(stsl_study_row *row);

typedef struct stsl_study_h5 stsl_study_h5;

/* Create `path` (parent directories too; an existing file is replaced)
 * with /study, its texts, /study/parameters filled for every variant and
 * /study/summary empty; flushed, marked complete = 0. */
int stsl_study_h5_create(const char *path, const stsl_study *s, const stsl_study_info *info,
                         stsl_study_h5 **out, stsl_error *err);
/* Open a study file left incomplete to continue it.  STSL_EINPUT when it
 * is not a study file, or records another study text, base configuration
 * or event kinds than `s` and `info` (resuming would mix two studies).
 * With store: full, the groups /runs/NNNNNN of rows not declared done
 * (half written when the study stopped) are deleted, and the file flushed,
 * before anything new is written. */
int stsl_study_h5_resume(const char *path, const stsl_study *s, const stsl_study_info *info,
                         stsl_study_h5 **out, stsl_error *err);
long stsl_study_h5_n_done(const stsl_study_h5 *w);
long stsl_study_h5_n_failed(const stsl_study_h5 *w);
/* Append the row of variant n_done (rows come in variant order); with
 * store: events also its events to /study/events, with store: full its
 * run as /runs/NNNNNN. */
int stsl_study_h5_append(stsl_study_h5 *w, const stsl_study_row *row, stsl_error *err);
/* Make every appended row durable (see above). */
int stsl_study_h5_flush(stsl_study_h5 *w, stsl_error *err);
/* Flush, set `complete` (1 when every variant has its row) and close.
 * Frees w also on failure; NULL-safe. */
int stsl_study_h5_close(stsl_study_h5 *w, stsl_error *err);

/* --- reading -------------------------------------------------------------- */

/* 1 when `path` is an HDF5 file with a /study group, else 0. */
int stsl_study_h5_is_study(const char *path);

typedef struct stsl_study_col_range {
    char name[64];
    char units[32];
    double min, max; /* over the rows with status ok; NaN when none */
    long n_finite;   /* of those, how many are finite */
} stsl_study_col_range;

typedef struct stsl_study_summary {
    char version[64], created[64], store[16], combine[32];
    int complete;
    long n_runs, n_done, n_failed;
    int n_keys;
    char keys[STSL_STUDY_MAX_KEYS][256];
    double key_min[STSL_STUDY_MAX_KEYS], key_max[STSL_STUDY_MAX_KEYS];
    int n_cols;
    stsl_study_col_range cols[STSL_STUDY_MAX_COLS];
    long n_full_runs;     /* store: full: the groups under /runs */
    int n_first_failures; /* at most 5: variant index and message */
    long failure_index[5];
    char failure_message[5][STSL_ROW_MSG_MAX];
} stsl_study_summary;

/* Read the attributes and walk the done rows in blocks (memory flat). */
int stsl_study_h5_summarise(const char *path, stsl_study_summary *sum, stsl_error *err);

/* One summary column of the done rows as doubles (malloc'd, *n rows);
 * integer columns are converted. For tests and small studies. */
int stsl_study_h5_read_column(const char *path, const char *name, double **data, long *n,
                              stsl_error *err);
/* The done rows as CSV: variant, the parameters, then every summary
 * column ("name [units]" in the header; NaN as nan; the message quoted). */
int stsl_study_h5_write_csv(const char *path, const char *csv_path, stsl_error *err);
/* Row i's message (malloc'd). */
int stsl_study_h5_read_message(const char *path, long i, char **msg, stsl_error *err);

#endif
