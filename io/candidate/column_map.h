/* column_map.h - which data of a candidate file are t, x, v and friction
 * (`stickslip compare --columns`), and one column out of a matrix.
 *
 * Two spellings of --columns:
 *   t,x,v[,friction]                     by position (the default "t,x,v")
 *   t=tout,x=yout:1,v=yout:2[,friction=F] by role, any order
 * Each source is a name: a CSV header field, an HDF5 dataset, a MAT
 * variable or field path ("simout.signals.values"), a Modelica result
 * variable ("mass.s"), optionally followed by ":N", the N-th column (1-based,
 * as MATLAB counts) of a matrix of samples x signals.  Only a suffix of
 * digits after the last ':' is a column: "a:b" stays a name. */
#ifndef STSL_COLUMN_MAP_H
#define STSL_COLUMN_MAP_H

#include <stddef.h>

#include "solver/status.h"

/* Roles in the order of the positional form. */
enum { STSL_ROLE_T = 0, STSL_ROLE_X, STSL_ROLE_V, STSL_ROLE_F, STSL_N_ROLES };

typedef struct stsl_column_map {
    char buf[512];
    /* The source of each role (pointing into buf); names[STSL_ROLE_F] is
     * NULL when not given. */
    const char *names[STSL_N_ROLES];
} stsl_column_map;

/* Parse a --columns value; on failure err names the option and the token. */
int stsl_column_map_parse(const char *spec, stsl_column_map *m, stsl_error *err);

/* Split "name:N" into name (copied into path) and N >= 1; col = 0 without
 * a column suffix.  Returns STSL_EINPUT when the name is longer than pathsz
 * or N is 0. */
int stsl_column_ref_split(const char *spec, char *path, size_t pathsz, long *col);

/* One signal out of a column-major rows x cols matrix (MATLAB's order; a
 * row-major HDF5 dataset d0 x d1 is column-major d1 x d0).  Samples run
 * along the longer dimension (either orientation of samples x signals;
 * a square matrix has samples in rows); col is the 1-based signal, 0 for a
 * vector.  *out is malloc'd with *n values.  Errors name `file`, `what`
 * (e.g. "variable 'yout'", "dataset /yout") and what was expected:
 *   f.mat: variable 'yout': column 3 out of range (a 100 x 2 matrix has 2 signals)
 * `name` is the source without its column, for the hint "name:N". */
int stsl_column_pick(const char *file, const char *what, const char *name, const double *data,
                     size_t rows, size_t cols, long col, double **out, long *n, stsl_error *err);

#endif
