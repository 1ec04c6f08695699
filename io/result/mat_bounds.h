/* mat_bounds.h - a MAT file's structure checked against its size before
 * matio reads it.
 *
 * matio trusts the lengths in a file: a name, a dimensions list or a
 * struct's field table is allocated at the size its header claims, even
 * while matio only lists the variables, and a variable cut short is read
 * as far as it goes with the rest left as it was.  So a few bytes could
 * make `compare` allocate gigabytes, and a truncated file could be
 * compared with exit 0.  These checks read the file first, at the
 * positions matio reads it (matio 1.5, mat5.c: by position, not by each
 * sub-element's own length):
 * - v4: each variable's header, name and data lie within the file;
 * - v5/v7: each variable lies within the file; within it the dimensions
 *   and name lie within the variable, a struct's field names too, a
 *   struct or cell claims no more members than its bytes hold (a tag
 *   each), a field or cell no more elements than its bytes (one each:
 *   matio reads small ones while listing), nesting stops at
 *   STSL_MAT_MAX_DEPTH; a compressed (v7) variable is inflated, at most
 *   STSL_FILTER_RATIO times its size, and checked the same way.
 * v7.3 files are HDF5: matio reads them through HDF5, whose extents are
 * checked by the declared-size check in mat_candidate.c.
 * Failures are STSL_EINPUT: "FILE: truncated or damaged: variable N (at
 * byte B): what". */
#ifndef STSL_MAT_BOUNDS_H
#define STSL_MAT_BOUNDS_H

#include "solver/status.h"

/* Nested structs and cells deeper than this are refused (matio recurses). */
#define STSL_MAT_MAX_DEPTH 32

/* A file without the "MATLAB" text header, as matio would read it as v4. */
int stsl_mat_check_v4(const char *path, stsl_error *err);
/* A file with the v5/v7 header. */
int stsl_mat_check_v5(const char *path, stsl_error *err);

#endif
