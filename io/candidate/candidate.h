/* candidate.h - reading a trajectory to compare against a reference
 * (`stickslip compare`): a stickslip result, a user's HDF5 file or a CSV.
 *
 * Columns are found by name: time, position, velocity and optionally
 * friction.  CSV: the first line that is neither empty nor a '#' comment is
 * the header; the delimiter is ',' (';' or a tab when the header has no
 * comma); a name matches case-insensitively, and a header field may carry a
 * unit in brackets ("x [m]" matches x); any column order; other columns are
 * ignored.  HDF5: datasets of those names at the root or under /trajectory,
 * 1-D (or N x 1), float or integer, or "name:N", column N (1-based) of a
 * matrix of samples x signals, either orientation (column_map.h); a name
 * with '/' is a path from the root.  MAT files (v4, v5, v7, v7.3, Modelica
 * results): io/candidate/mat_candidate.h.  A stickslip result (root attribute
 * program = "stickslip") also gives its mode column and its /events.
 *
 * Time must not decrease.  A time may repeat: a jump, the values just
 * before and just after (stickslip writes every event so, in its CSV
 * export too, and a grid point that falls on an event makes three rows).
 * There must be two different times at least.  Every value must be a
 * finite number.  Every failure is STSL_EINPUT with one line naming the
 * file, line (CSV) or dataset and row (HDF5), and column:
 *   cand.csv:7: column 'x': not a number: 'abc' */
#ifndef STSL_CANDIDATE_H
#define STSL_CANDIDATE_H

#include "io/result/h5_read.h"

typedef enum stsl_cand_format {
    STSL_CAND_CSV = 0,
    STSL_CAND_HDF5 = 1,      /* a user's HDF5 file */
    STSL_CAND_STICKSLIP = 2, /* a stickslip result file */
    STSL_CAND_MAT = 3,       /* a MAT file */
    STSL_CAND_MODELICA = 4   /* a Modelica result (MAT v4) */
} stsl_cand_format;

/* Column names to look for.  friction may be NULL: then a column named
 * "friction" is used when there is one. */
typedef struct stsl_cand_columns {
    const char *t, *x, *v, *friction;
} stsl_cand_columns;

typedef struct stsl_candidate {
    char path[4096];
    stsl_cand_format format;
    long n;
    double *t, *x, *v;    /* n values each (malloc'd) */
    double *friction;     /* n values, or NULL without a friction column */
    int *mode;            /* n values for a stickslip result, else NULL */
    stsl_h5_result *info; /* a stickslip result's attributes and /events, else NULL */
} stsl_candidate;

/* Read `path`; on failure *c holds nothing to free. */
int stsl_candidate_read(const char *path, const stsl_cand_columns *cols, stsl_candidate *c,
                        stsl_error *err);
/* Free what *c owns. NULL-safe. */
void stsl_candidate_free(stsl_candidate *c);

/* 1 when the header field `field` names the column `name`: equal ignoring
 * case, or `name` followed by a unit in brackets ("x [m]"). */
int stsl_candidate_name_matches(const char *field, const char *name);

#endif
