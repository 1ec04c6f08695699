/* convergence_h5.c - /convergence (see convergence_h5.h). */
#include "io/study/convergence_h5.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/result/h5_bounds.h"
#include "io/result/h5_driver.h"
#include "io/result/h5_types.h"
#include "io/result/safe_output.h"

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
    /* HDF5 converts the counts from long to the file's int64. */
    hid_t I = H5T_STD_I64LE, L = H5T_NATIVE_LONG;
    if (put_column(g, "rhs_evals", I, L, n, t->rhs_evals, "1") < 0) return -1;
    if (put_column(g, "events", I, L, n, t->events, "1") < 0) return -1;
    for (int k = 0; k < t->n_extra; k++)
        if (put_column(g, t->extra_name[k], F, M, n, t->extra_data[k], t->extra_units[k]) < 0)
            return -1;
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
    hid_t g = -1, f = -1, fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && stsl_h5_use_driver(fapl) >= 0)
        f = exists ? H5Fopen(file, H5F_ACC_RDWR, fapl)
                   : H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (fapl >= 0) H5Pclose(fapl);
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
    if (stsl_h5_close_written(f) < 0 && !rc) rc = stsl_h5_fail(err, path, "close the file");
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
    STSL_H5_RETURN_QUIET(write_safely(path, t, err));
}

/* ---- reading it back ---------------------------------------------------------- */

static int present(const char *path)
{
    hid_t f = H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : -1;
    int found = f < 0 || H5Lexists(f, "convergence", H5P_DEFAULT) <= 0 ? STSL_CONV_NONE
                : H5Lexists(f, "trajectory", H5P_DEFAULT) > 0          ? STSL_CONV_BESIDE_RESULT
                                                                       : STSL_CONV_ONLY;
    if (f >= 0) H5Fclose(f);
    return found;
}

int stsl_convergence_h5_present(const char *path)
{
    STSL_H5_RETURN_QUIET(present(path));
}

/* Dataset `name` of the group: n values (n < 0: taken from the first one)
 * into `out` (memory type mtype) after the bounds check. */
static int get_column(hid_t g, const char *path, const char *name, hid_t mtype, long *n, void **out,
                      size_t size, char *units, size_t units_size, stsl_error *err)
{
    char what[64];
    snprintf(what, sizeof what, "/convergence/%s", name);
    hid_t d = H5Lexists(g, name, H5P_DEFAULT) > 0 ? H5Dopen2(g, name, H5P_DEFAULT) : -1;
    hid_t sp = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t dim = 0;
    int rc = STSL_OK;
    if (sp < 0 || H5Sget_simple_extent_ndims(sp) != 1 ||
        H5Sget_simple_extent_dims(sp, &dim, NULL) != 1)
        rc = stsl_error_set(err, STSL_EINPUT, "%s: no 1-D dataset %s", path, what);
    if (!rc && *n >= 0 && dim != (hsize_t)*n)
        rc = stsl_error_set(err, STSL_EINPUT, "%s: %s has %llu rows, /convergence/step %ld", path,
                            what, (unsigned long long)dim, *n);
    if (!rc) rc = stsl_h5_check_rows(d, dim, path, what, err);
    if (!rc && *n < 0) *n = (long)dim;
    if (!rc && !(*out = malloc(size * (size_t)(dim ? dim : 1))))
        rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %s", path, what);
    if (!rc && dim > 0 && H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0)
        rc = stsl_error_set(err, STSL_EINPUT, "%s: cannot read %s as numbers", path, what);
    if (!rc && units) stsl_h5_get_attr_str(d, "units", units, units_size);
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    return rc;
}

static int read_group(hid_t g, const char *path, stsl_convergence_file *f, stsl_error *err)
{
    static const char *const names[6] = {"step",          "max_abs_error_x",
                                         "rms_error_x",   "max_abs_error_v",
                                         "final_error_x", "wall_seconds"};
    void **col = f->cols;
    long n = -1;
    int rc = STSL_OK;
    for (int k = 0; !rc && k < 6; k++)
        rc = get_column(g, path, names[k], H5T_NATIVE_DOUBLE, &n, &col[k], sizeof(double),
                        k == 1   ? f->x_units
                        : k == 3 ? f->v_units
                                 : NULL,
                        sizeof f->x_units, err);
    for (int k = 0; !rc && k < 2; k++)
        rc = get_column(g, path, k ? "events" : "rhs_evals", H5T_NATIVE_LONG, &n, &col[6 + k],
                        sizeof(long), NULL, 0, err);
    if (rc) return rc;
    stsl_convergence_table *t = &f->t;
    t->n = (int)n;
    t->step = col[0], t->max_abs_error_x = col[1], t->rms_error_x = col[2];
    t->max_abs_error_v = col[3], t->final_error_x = col[4], t->wall_seconds = col[5];
    t->rhs_evals = col[6], t->events = col[7];
    stsl_h5_get_attr_str(g, "scheme", f->scheme, sizeof f->scheme);
    t->scheme = f->scheme, t->x_units = f->x_units, t->v_units = f->v_units;
    t->order = t->reference_wall_seconds = NAN;
    stsl_h5_get_attr_num(g, "order", H5T_NATIVE_DOUBLE, &t->order);
    stsl_h5_get_attr_num(g, "reference_wall_seconds", H5T_NATIVE_DOUBLE,
                         &t->reference_wall_seconds);
    stsl_h5_get_attr_num(g, "reference_rhs_evals", H5T_NATIVE_LONG, &t->reference_rhs_evals);
    stsl_h5_get_attr_num(g, "reference_steps", H5T_NATIVE_LONG, &t->reference_steps);
    stsl_h5_get_attr_num(g, "reference_events", H5T_NATIVE_LONG, &t->reference_events);
    return STSL_OK;
}

static int read_file(const char *path, stsl_convergence_file *f, stsl_error *err)
{
    memset(f, 0, sizeof *f);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), g = -1;
    if (file < 0) return stsl_error_set(err, STSL_EINPUT, "%s: cannot open as HDF5", path);
    g = H5Lexists(file, "convergence", H5P_DEFAULT) > 0 ? H5Gopen2(file, "convergence", H5P_DEFAULT)
                                                        : -1;
    int rc = g < 0 ? stsl_error_set(err, STSL_EINPUT, "%s: no group /convergence", path)
                   : read_group(g, path, f, err);
    if (g >= 0) H5Gclose(g);
    H5Fclose(file);
    if (rc) stsl_convergence_file_free(f);
    return rc;
}

int stsl_convergence_h5_read(const char *path, stsl_convergence_file *f, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(read_file(path, f, err));
}

void stsl_convergence_file_free(stsl_convergence_file *f)
{
    if (!f) return;
    for (int k = 0; k < 8; k++)
        free(f->cols[k]);
    memset(f, 0, sizeof *f);
}
