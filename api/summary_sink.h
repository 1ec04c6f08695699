/* summary_sink.h - a sink that fills a stsl_summary as the run goes and
 * stores nothing else: the summary of a run costs no memory that grows
 * with its length. */
#ifndef STSL_API_SUMMARY_SINK_H
#define STSL_API_SUMMARY_SINK_H

#include "include/stickslip.h"
#include "io/study/study_h5.h"
#include "models/system.h"
#include "solver/sink.h"

/* The unit of dissipated_energy: work of a force over metres or of a torque
 * over radians, joules both. */
#define STSL_ENERGY_UNITS "J"

/* The sink's content: where the summary goes and the sink (borrowed, may
 * be NULL) that every operation is passed on to first. */
typedef struct stsl_summary_sink {
    stsl_summary *sum;
    stsl_sink *next;
} stsl_summary_sink;

/* The index of `name` among n names (-1: none, or name NULL). */
int stsl_name_index(const char *const *names, int n, const char *name);

/* Clear `*sum` and make `*out` a sink over `ss` (both borrowed: they must
 * outlive the sink, which owns nothing). */
void stsl_summary_sink_init(stsl_summary_sink *ss, stsl_summary *sum, stsl_sink *next,
                            stsl_sink *out);

/* ---- a system's per-member figures for a sweep's row -----------------------
 * Next to the summary's figures every run has (events per kind, first
 * breakaway, last stick, steps, ...):
 *   x_final.<body>            position at the end of the run, every body;
 *   stuck_fraction.<contact>  time the contact was stuck / time reached;
 *   v_final.<body>            velocity at the end of the run.
 * In this order, at most STSL_STUDY_MAX_MEMBERS columns (a larger system
 * keeps the first: positions, then contacts, then velocities).  Members are
 * named as in the system's results: bodies by name, contacts by their
 * `name:` or contacts.N.  The element's own columns of the row
 * (stuck_fraction, x_final, max_abs_x, ...) stay NaN for a system: they
 * are about the one element. */
typedef struct stsl_member_cols {
    int n;
    char names[STSL_STUDY_MAX_MEMBERS][96];        /* "x_final.motor" */
    const char *name_ptrs[STSL_STUDY_MAX_MEMBERS]; /* into names */
    const char *units[STSL_STUDY_MAX_MEMBERS];     /* the domain's, "" for fractions */
} stsl_member_cols;

/* The columns of system `s` (from its configuration, before any run: the
 * study file's columns are made before the first variant runs). */
void stsl_member_cols_of(const stsl_system *s, stsl_member_cols *out);

/* The sink's state (caller-owned, no allocation). */
typedef struct stsl_member_sink {
    const stsl_member_cols *cols;
    double *values; /* cols->n values: the row's member[] */
    stsl_sink *next;
    /* Per column: its column index in the layout (-1: absent, NaN), and for
     * a stuck fraction the value STUCK has. */
    int src[STSL_STUDY_MAX_MEMBERS], stuck_value[STSL_STUDY_MAX_MEMBERS];
    unsigned char fraction[STSL_STUDY_MAX_MEMBERS]; /* 1: a stuck fraction, 0: a final value */
    double stuck_time[STSL_STUDY_MAX_MEMBERS];
    double t0, t_prev;
    unsigned char prev_stuck[STSL_STUDY_MAX_MEMBERS]; /* the previous sample's */
    int have_prev;
} stsl_member_sink;

/* Make `*out` a sink that computes the values of `cols` from a run's
 * samples, finding each column through the layout's column groups (x, v,
 * contact_mode and their member names), into values[0 .. cols->n) (NaN
 * for a member the layout lacks), and passes everything on to `next`
 * (borrowed, may be NULL) first.  A stuck fraction counts sample i's mode
 * until sample i + 1: the two rows of an event instant add nothing. */
void stsl_member_sink_init(stsl_member_sink *ms, const stsl_member_cols *cols, double *values,
                           stsl_sink *next, stsl_sink *out);

#endif
