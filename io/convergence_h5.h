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
} stsl_convergence_table;

/* Write the group /convergence into `path`: an existing HDF5 file (a result
 * file, say) keeps everything else and has its /convergence replaced; a
 * missing file is created.  STSL_EIO naming the file and operation on
 * failure. */
int stsl_convergence_h5_write(const char *path, const stsl_convergence_table *t, stsl_error *err);

#endif
