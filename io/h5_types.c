/* h5_types.c - the HDF5 pieces shared by io/ (see h5_types.h). */
#include "io/h5_types.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- /events ---------------------------------------------------------------- */

hid_t stsl_h5_event_type(const stsl_h5_event_layout *layout)
{
    static const char *const names[9] = {"t",        "kind",    "mode_before", "mode_after", "x",
                                         "v_before", "v_after", "net_force",   "friction"};
    int packed = layout == NULL;
    hid_t c = -1, s = -1;
    hid_t f64 = packed ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
    hid_t mode = packed ? H5T_STD_I8LE : layout->mode_size == 1 ? H5T_NATIVE_INT8 : H5T_NATIVE_INT;
    size_t kind_size = packed ? STSL_H5_KIND_LEN : layout->kind_size;
    if ((s = H5Tcopy(H5T_C_S1)) < 0) return -1;
    if (H5Tset_size(s, kind_size) < 0 ||
        H5Tset_strpad(s, packed ? H5T_STR_NULLPAD : layout->kind_pad) < 0)
        goto err;
    hid_t types[9] = {f64, s, mode, mode, f64, f64, f64, f64, f64};
    size_t size = 0;
    for (int i = 0; i < 9; i++)
        size += H5Tget_size(types[i]);
    if ((c = H5Tcreate(H5T_COMPOUND, packed ? size : layout->size)) < 0) goto err;
    size_t off = 0;
    for (int i = 0; i < 9; i++) {
        if (H5Tinsert(c, names[i], packed ? off : layout->off[i], types[i]) < 0) goto err;
        off += H5Tget_size(types[i]);
    }
    H5Tclose(s);
    return c;
err:
    if (c >= 0) H5Tclose(c);
    H5Tclose(s);
    return -1;
}

/* ---- attributes ---------------------------------------------------------------- */

hid_t stsl_h5_vlen_str_type(void)
{
    /* Variable-length UTF-8: h5py returns these attributes as str. */
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return t;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

int stsl_h5_put_attr(hid_t obj, const char *name, hid_t ftype, hid_t mtype, const void *val)
{
    int rc = -1;
    hid_t space = -1, a = -1;
    htri_t ex = H5Aexists(obj, name);
    if (ex < 0) return -1;
    if (ex > 0 && H5Adelete(obj, name) < 0) return -1;
    if ((space = H5Screate(H5S_SCALAR)) < 0) goto err;
    if ((a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT)) < 0) goto err;
    if (H5Awrite(a, mtype, val) < 0) goto err;
    rc = 0;
err:
    if (a >= 0) H5Aclose(a);
    if (space >= 0) H5Sclose(space);
    return rc;
}

int stsl_h5_put_attr_str(hid_t obj, const char *name, const char *value)
{
    hid_t t = stsl_h5_vlen_str_type();
    if (t < 0) return -1;
    const char *p = value ? value : "";
    int rc = stsl_h5_put_attr(obj, name, t, t, &p);
    H5Tclose(t);
    return rc;
}

int stsl_h5_put_attr_int(hid_t obj, const char *name, int value)
{
    return stsl_h5_put_attr(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT, &value);
}

int stsl_h5_put_attr_i64(hid_t obj, const char *name, long value)
{
    int64_t v = value;
    return stsl_h5_put_attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

int stsl_h5_put_attr_f64(hid_t obj, const char *name, double value)
{
    return stsl_h5_put_attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

/* ---- errors ---------------------------------------------------------------------- */

typedef struct walk_buf {
    char *buf;
    size_t size;
} walk_buf;

static herr_t walk_first(unsigned n, const H5E_error2_t *e, void *data)
{
    walk_buf *w = data;
    /* Walking upward, entry 0 is the innermost error: the most specific. */
    if (n == 0 && e->desc) snprintf(w->buf, w->size, "%s", e->desc);
    return 0;
}

void stsl_h5_last_error(char *buf, size_t size)
{
    walk_buf w = {buf, size};
    if (size) buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_first, &w);
}

int stsl_h5_fail(stsl_error *err, const char *file, const char *what)
{
    /* A full disk or a file-size limit is the usual cause of a failed
     * write: say which (HDF5's own description does not). */
    int e = errno;
    int space = e == ENOSPC || e == EFBIG || e == EDQUOT;
    char desc[512];
    stsl_h5_last_error(desc, sizeof desc);
    return stsl_error_set(err, STSL_EIO, "%s: HDF5 could not %s%s%s%s%s", file, what,
                          desc[0] ? ": " : "", desc, space ? ": " : "", space ? strerror(e) : "");
}
