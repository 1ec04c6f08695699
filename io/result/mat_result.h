/* mat_result.h - a MAT result of `stickslip run -o OUT.mat` (the variables
 * of io/result/mat_sink.h) read back into the HDF5 reader's structures
 * (io/result/h5_read.h), so that `stickslip info`,
 * stsl_result_read and whatever else reads results use one code for both
 * formats after this step.
 *
 * What a MAT file does not hold: the datasets' long names (so no
 * "Quantities" line), the first differing event of a verification that
 * failed.  Every failure is STSL_EINPUT naming the file and the variable
 * (STSL_ENOMEM when out of memory); a variable whose declared size is more
 * than the file could hold (compressed at most STSL_FILTER_RATIO:1) is
 * refused before it is read. */
#ifndef STSL_MAT_RESULT_H
#define STSL_MAT_RESULT_H

#include "io/result/h5_read.h"

/* The samples: t and mode (NULL for a system) of n rows, and per column
 * of the stsl_h5_result its values row-major, n x max(width, 1). */
typedef struct stsl_mat_arrays {
    long n;
    double *t, *mode;
    double *cols[STSL_H5_MAX_COLS];
} stsl_mat_arrays;

/* 1 when `path` should be read as a MAT file: it begins with MATLAB's
 * text header ("MATLAB"), or its name ends in .mat and it is not HDF5
 * (an HDF5 result may be named .mat with --format h5). */
int stsl_mat_result_file(const char *path);

/* Read everything; on failure *res and *a hold nothing to free. */
int stsl_mat_result_read(const char *path, stsl_h5_result *res, stsl_mat_arrays *a,
                         stsl_error *err);
void stsl_mat_arrays_free(stsl_mat_arrays *a);

/* A system's result as stsl_h5_system_read reads it, from an HDF5 or a MAT
 * file (`compare` takes either as its candidate); on failure *s holds
 * nothing to free. */
int stsl_system_result_read(const char *path, stsl_h5_system *s, stsl_error *err);
/* 1 when `path` is a system's result, HDF5 (stsl_h5_is_system) or MAT;
 * 0 when it is not, with *damaged (may be NULL) set when it is a MAT file
 * that fails the structure checks of a candidate. */
int stsl_system_result_is(const char *path, stsl_error *damaged);

#endif
