/* convergence_h5.h - the table of `stickslip converge` as the HDF5 group
 * /convergence: one 1-D dataset per column (each with a `units` attribute)
 * and the attributes order, scheme, config (effective YAML), and the
 * reference's cost. */
#ifndef STSL_CONVERGENCE_H5_H
#define STSL_CONVERGENCE_H5_H

#include "solver/status.h"

typedef struct stsl_convergence_table {
    const char *scheme;      /* "karnopp", ... */
    const char *config_yaml; /* effective configuration of the study */
    const char *x_units, *v_units;
    int n; /* rows, one per step */
    const double *step, *max_abs_error_x, *rms_error_x, *max_abs_error_v, *final_error_x;
    const double *wall_seconds;
    const long *rhs_evals, *events;
    double order; /* fitted slope of log(max |x error|) against log(step); NaN if none */
    double reference_wall_seconds;
    long reference_rhs_evals, reference_steps, reference_events;
    /* Further columns (a system's per body and per contact errors): n_extra
     * 1-D datasets extra_data[k] of n values named extra_name[k], with
     * units extra_units[k]; written, not read back. */
    int n_extra;
    const char *const *extra_name, *const *extra_units;
    const double *const *extra_data;
} stsl_convergence_table;

/* Write the group /convergence into `path`: an existing HDF5 file (a result
 * file, say) keeps everything else and has its /convergence replaced; a
 * missing file is created.  STSL_EIO naming the file and operation on
 * failure. */
int stsl_convergence_h5_write(const char *path, const stsl_convergence_table *t, stsl_error *err);

/* What stsl_convergence_h5_present finds at a path. */
enum { STSL_CONV_NONE = 0, STSL_CONV_ONLY = 1, STSL_CONV_BESIDE_RESULT = 2 };

/* STSL_CONV_ONLY when `path` is an HDF5 file with a /convergence group and
 * no /trajectory, STSL_CONV_BESIDE_RESULT with both (converge --h5 into a
 * result file), STSL_CONV_NONE otherwise (no HDF5 file, no group). */
int stsl_convergence_h5_present(const char *path);

/* The group read back: t's pointers point into this structure's arrays
 * (the missed and invented event counts are not in the file). */
typedef struct stsl_convergence_file {
    stsl_convergence_table t;
    char scheme[32], x_units[24], v_units[24];
    /* t's arrays: step, the four errors, wall_seconds (double), rhs_evals,
     * events (long) */
    void *cols[8];
} stsl_convergence_file;

/* STSL_EINPUT naming the file and the dataset when the group is not as
 * written (missing or mismatched datasets, more rows than the file can
 * hold); on failure *f holds nothing to free. */
int stsl_convergence_h5_read(const char *path, stsl_convergence_file *f, stsl_error *err);
void stsl_convergence_file_free(stsl_convergence_file *f);

#endif
