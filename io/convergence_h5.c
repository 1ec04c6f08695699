/* convergence_h5.c - /convergence (see convergence_h5.h). */
#include "io/convergence_h5.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/h5_types.h"
#include "io/safe_output.h"

/* A 1-D dataset of n values from `data` (memory type mtype), with units. */
static int put_column(hid_t g, const char *name, hid_t ftype, hid_t mtype, int n, const void *data,
                      const char *units)
{
    hsize_t dim = (hsize_t)n;
    hid_t space = H5Screate_simple(1, &dim, NULL), d = -1;
    int rc = -1;
    if (space < 0) return -1;
    if ((d = H5Dcreate2(g, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) >= 0 &&
        (n == 0 || H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0) &&
        stsl_h5_put_attr_str(d, "units", units) >= 0)
        rc = 0;
    if (d >= 0) H5Dclose(d);
    H5Sclose(space);
    return rc;
}

static int put_longs(hid_t g, const char *name, int n, const long *v)
{
    int64_t *buf = malloc((size_t)(n > 0 ? n : 1) * sizeof *buf);
    if (!buf) return -1;
    for (int i = 0; i < n; i++)
        buf[i] = v[i];
    int rc = put_column(g, name, H5T_STD_I64LE, H5T_NATIVE_INT64, n, buf, "1");
    free(buf);
    return rc;
}

static int write_group(hid_t g, const stsl_convergence_table *t)
{
    hid_t F = H5T_IEEE_F64LE, M = H5T_NATIVE_DOUBLE;
    int n = t->n;
    if (put_column(g, "step", F, M, n, t->step, "s") < 0) return -1;
    if (put_column(g, "max_abs_error_x", F, M, n, t->max_abs_error_x, t->x_units) < 0) return -1;
    if (put_column(g, "rms_error_x", F, M, n, t->rms_error_x, t->x_units) < 0) return -1;
    if (put_column(g, "max_abs_error_v", F, M, n, t->max_abs_error_v, t->v_units) < 0) return -1;
    if (put_column(g, "final_error_x", F, M, n, t->final_error_x, t->x_units) < 0) return -1;
    if (put_column(g, "wall_seconds", F, M, n, t->wall_seconds, "s") < 0) return -1;
    if (put_longs(g, "rhs_evals", n, t->rhs_evals) < 0) return -1;
    if (put_longs(g, "events", n, t->events) < 0) return -1;
    if (stsl_h5_put_attr_f64(g, "order", t->order) < 0 ||
        stsl_h5_put_attr_str(g, "scheme", t->scheme) < 0 ||
        stsl_h5_put_attr_str(g, "config", t->config_yaml) < 0)
        return -1;
    if (stsl_h5_put_attr_f64(g, "reference_wall_seconds", t->reference_wall_seconds) < 0 ||
        stsl_h5_put_attr_i64(g, "reference_rhs_evals", t->reference_rhs_evals) < 0 ||
        stsl_h5_put_attr_i64(g, "reference_steps", t->reference_steps) < 0 ||
        stsl_h5_put_attr_i64(g, "reference_events", t->reference_events) < 0)
        return -1;
    return 0;
}

/* The table into the file `file` (created, or opened when it exists). */
static int write_table(const char *path, const char *file, int exists,
                       const stsl_convergence_table *t, stsl_error *err)
{
    int rc = STSL_OK;
    hid_t f = -1, g = -1;
    H5E_BEGIN_TRY
    {
        f = exists ? H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT)
                   : H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    }
    H5E_END_TRY
    if (f < 0) return stsl_h5_fail(err, path, exists ? "open the file" : "create the file");
    htri_t ex = H5Lexists(f, "convergence", H5P_DEFAULT);
    if (ex > 0 && H5Ldelete(f, "convergence", H5P_DEFAULT) < 0)
        rc = stsl_h5_fail(err, path, "replace /convergence");
    else if (ex < 0)
        rc = stsl_h5_fail(err, path, "look for /convergence");
    if (!rc && (g = H5Gcreate2(f, "convergence", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        rc = stsl_h5_fail(err, path, "create /convergence");
    if (!rc && write_group(g, t) < 0) rc = stsl_h5_fail(err, path, "write /convergence");
    if (g >= 0) H5Gclose(g);
    if (H5Fclose(f) < 0 && !rc) rc = stsl_h5_fail(err, path, "close the file");
    return rc;
}

/* An existing file is changed in a copy, renamed over it once whole: a
 * failure (a full disk) leaves the file as it was. */
static int write_safely(const char *path, const stsl_convergence_table *t, stsl_error *err)
{
    char *tmp = NULL;
    stsl_output_mark mark;
    int exists = access(path, F_OK) == 0, replaced;
    int rc = exists ? stsl_output_temp_copy(path, &tmp, &mark, err)
                    : stsl_output_temp(path, &tmp, &mark, err);
    if (!rc) rc = write_table(path, tmp, exists, t, err);
    if (!rc) rc = stsl_output_commit(tmp, path, &mark, &replaced, err);
    if (rc && tmp) remove(tmp);
    free(tmp);
    return rc;
}

/* HDF5's stack dump is off only around our own calls (h5_types.h). */
int stsl_convergence_h5_write(const char *path, const stsl_convergence_table *t, stsl_error *err)
{
    int rc;
    STSL_H5_QUIET(rc, write_safely(path, t, err));
    return rc;
}
