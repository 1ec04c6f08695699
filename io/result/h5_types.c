/* h5_types.c - the HDF5 pieces shared by io/ (see h5_types.h). */
#include "io/result/h5_types.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- /events ---------------------------------------------------------------- */

enum { EV_MEMBERS = STSL_H5_EVENT_MEMBERS }; /* the element's nine, index, name */

const char *const stsl_h5_event_members[STSL_H5_EVENT_MEMBERS] = {
    "t",       "kind",      "mode_before", "mode_after", "x",      "v_before",
    "v_after", "net_force", "friction",    "index",      "subject"};

/* The member types of /events (types[i] < 0: left out); the ones this
 * makes are listed in own[] for closing. */
static int member_types(const stsl_h5_event_layout *l, int packed, hid_t types[EV_MEMBERS],
                        hid_t own[EV_MEMBERS], int *n_own)
{
    hid_t f64 = packed ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
    hid_t mode = packed ? H5T_STD_I8LE : l->mode_size == 1 ? H5T_NATIVE_INT8 : H5T_NATIVE_INT;
    hid_t s = H5Tcopy(H5T_C_S1);
    if (s < 0) return -1;
    own[(*n_own)++] = s;
    if (H5Tset_size(s, packed ? STSL_H5_KIND_LEN : l->kind_size) < 0 ||
        H5Tset_strpad(s, packed ? H5T_STR_NULLPAD : l->kind_pad) < 0)
        return -1;
    types[0] = f64, types[1] = s, types[2] = types[3] = mode;
    for (int i = 0; i < STSL_H5_EVENT_VALUES; i++) {
        int w = l->width[i];
        hsize_t dim = (hsize_t)(w > 0 ? w : 1);
        types[4 + i] = w < 0 ? -1 : w == 0 ? f64 : H5Tarray_create2(f64, 1, &dim);
        if (w > 0 && (own[(*n_own)++] = types[4 + i]) < 0) return -1;
    }
    types[9] = types[10] = -1;
    if (l->subject & STSL_H5_EV_INDEX) types[9] = packed ? H5T_STD_I32LE : H5T_NATIVE_INT32;
    if ((l->subject & STSL_H5_EV_NAME) &&
        (types[10] = own[(*n_own)++] = stsl_h5_vlen_str_type()) < 0)
        return -1;
    return 0;
}

hid_t stsl_h5_event_type(const stsl_h5_event_layout *layout, int in_file)
{
    int n_own = 0;
    hid_t c = -1, types[EV_MEMBERS], own[EV_MEMBERS];
    if (member_types(layout, in_file, types, own, &n_own) < 0) goto err;
    size_t size = 0, off[EV_MEMBERS];
    for (int i = 0; i < EV_MEMBERS; i++)
        if (types[i] >= 0) {
            off[i] = in_file ? size : layout->off[i];
            size += H5Tget_size(types[i]);
        }
    if ((c = H5Tcreate(H5T_COMPOUND, in_file ? size : layout->size)) < 0) goto err;
    for (int i = 0; i < EV_MEMBERS; i++)
        if (types[i] >= 0 && H5Tinsert(c, stsl_h5_event_members[i], off[i], types[i]) < 0) goto err;
    for (int i = 0; i < n_own; i++)
        H5Tclose(own[i]);
    return c;
err:
    if (c >= 0) H5Tclose(c);
    for (int i = 0; i < n_own; i++)
        if (own[i] >= 0) H5Tclose(own[i]);
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

hid_t stsl_h5_xfer(hid_t d, hid_t mtype, hsize_t n)
{
    hid_t ftype = H5Dget_type(d), x = -1;
    size_t fsize = ftype >= 0 ? H5Tget_size(ftype) : 0, msize = H5Tget_size(mtype);
    if (ftype >= 0) H5Tclose(ftype);
    size_t dflt = H5Pget_buffer(H5P_DATASET_XFER_DEFAULT, NULL, NULL);
    if (fsize == 0 || msize == 0 || dflt == 0 || (x = H5Pcreate(H5P_DATASET_XFER)) < 0) return -1;
    /* Twice the larger size per element: a variable-length string takes 16
     * bytes in the file, 8 in memory, and H5Dget_type states the memory
     * size.  At least one page (a buffer smaller than one element in the
     * file is an error; one smaller than n elements only converts in
     * several passes), at most the default. */
    size_t elem = 2 * (fsize > msize ? fsize : msize), size = 4096;
    if (n > size / elem) size = n < dflt / elem ? elem * (size_t)n : dflt;
    if (size < elem) size = elem;
    if (H5Pset_buffer(x, size, NULL, NULL) < 0) {
        H5Pclose(x);
        return -1;
    }
    return x;
}

int stsl_h5_rows(hid_t d, hid_t mtype, hsize_t first, hsize_t n, void *into, const void *from)
{
    int rc = -1;
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &n, NULL);
    if (fs >= 0 && ms >= 0 &&
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &first, NULL, &n, NULL) >= 0 &&
        (from ? H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, from)
              : H5Dread(d, mtype, ms, fs, H5P_DEFAULT, into)) >= 0)
        rc = 0;
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    return rc;
}

/* Attribute `name` of file type `ftype` from `mtype` memory, created or
 * overwritten: a scalar (n < 0) or n values. */
static int put_attr(hid_t obj, const char *name, hid_t ftype, hid_t mtype, int n, const void *val)
{
    int rc = -1;
    hsize_t dim = (hsize_t)(n > 0 ? n : 0);
    hid_t space = -1, a = -1;
    htri_t ex = H5Aexists(obj, name);
    if (ex < 0) return -1;
    if (ex > 0 && H5Adelete(obj, name) < 0) return -1;
    if ((space = n < 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &dim, NULL)) < 0) goto err;
    if ((a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT)) < 0) goto err;
    if (n != 0 && H5Awrite(a, mtype, val) < 0) goto err;
    rc = 0;
err:
    if (a >= 0) H5Aclose(a);
    if (space >= 0) H5Sclose(space);
    return rc;
}

int stsl_h5_put_attr_str(hid_t obj, const char *name, const char *value)
{
    const char *p = value ? value : "";
    return stsl_h5_put_attr_strs(obj, name, &p, -1);
}

int stsl_h5_put_attr_int(hid_t obj, const char *name, int value)
{
    return put_attr(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT, -1, &value);
}

int stsl_h5_put_attr_i64(hid_t obj, const char *name, long value)
{
    int64_t v = value;
    return put_attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, -1, &v);
}

int stsl_h5_put_attr_f64(hid_t obj, const char *name, double value)
{
    return put_attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, -1, &value);
}

int stsl_h5_put_attr_strs(hid_t obj, const char *name, const char *const *values, int n)
{
    hid_t t = stsl_h5_vlen_str_type();
    if (t < 0) return -1;
    int rc = put_attr(obj, name, t, t, n, values);
    H5Tclose(t);
    return rc;
}

int stsl_h5_put_text(hid_t loc, const char *name, const char *text)
{
    hid_t t = stsl_h5_vlen_str_type(), space = H5Screate(H5S_SCALAR), d = -1, xfer = -1;
    const char *p = text ? text : "";
    int rc = -1;
    if (t >= 0 && space >= 0)
        d = H5Dcreate2(loc, name, t, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (d >= 0 && (xfer = stsl_h5_xfer(d, t, 1)) >= 0 &&
        H5Dwrite(d, t, H5S_ALL, H5S_ALL, xfer, &p) >= 0)
        rc = 0;
    if (xfer >= 0) H5Pclose(xfer);
    if (d >= 0) H5Dclose(d);
    if (space >= 0) H5Sclose(space);
    if (t >= 0) H5Tclose(t);
    return rc;
}

hid_t stsl_h5_ordered_group(hid_t loc, const char *name)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), g = -1;
    if (gcpl >= 0 &&
        H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0)
        g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (gcpl >= 0) H5Pclose(gcpl);
    return g;
}

char *stsl_h5_join_names(const char *const *names, int n, int numbered)
{
    size_t len = 1;
    for (int i = 0; i < n; i++)
        len += strlen(names[i]) + 16;
    char *s = malloc(len);
    if (!s) return NULL;
    size_t at = 0;
    s[0] = '\0';
    for (int i = 0; i < n; i++) {
        int w = numbered ? snprintf(s + at, len - at, "%s%d %s", i ? ", " : "", i, names[i])
                         : snprintf(s + at, len - at, "%s%s", i ? "," : "", names[i]);
        at += (size_t)w;
    }
    return s;
}

/* 1 when the attribute or dataset holds one element: a text stored as an
 * array of strings would be read past the one string's buffer. */
static int one_element(hid_t id, int is_attr)
{
    hid_t sp = is_attr ? H5Aget_space(id) : H5Dget_space(id);
    hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (sp >= 0) H5Sclose(sp);
    return n == 1;
}

char *stsl_h5_read_string(hid_t id, int is_attr)
{
    char *out = NULL;
    hid_t ftype = is_attr ? H5Aget_type(id) : H5Dget_type(id);
    hid_t mtype = -1;
    if (ftype < 0) return NULL;
    if (H5Tget_class(ftype) != H5T_STRING || !one_element(id, is_attr)) goto done;
    if ((mtype = H5Tcopy(ftype)) < 0) goto done;
    htri_t vl = H5Tis_variable_str(ftype);
    if (vl < 0) goto done;
    if (vl) {
        char *p = NULL;
        herr_t r = -1;
        if (is_attr)
            r = H5Aread(id, mtype, &p);
        else {
            hid_t xfer = stsl_h5_xfer(id, mtype, 1);
            if (xfer >= 0) r = H5Dread(id, mtype, H5S_ALL, H5S_ALL, xfer, &p);
            if (xfer >= 0) H5Pclose(xfer);
        }
        if (r < 0) goto done;
        size_t n = p ? strlen(p) : 0;
        if ((out = malloc(n + 1))) {
            if (n) memcpy(out, p, n);
            out[n] = '\0';
        }
        H5free_memory(p);
    } else {
        /* Read as NUL-terminated, one byte longer: HDF5's conversion keeps
         * every character and drops NUL or space padding (another writer's
         * fixed-length text; stickslip writes variable-length ones). */
        size_t n = H5Tget_size(ftype);
        if (n == 0 || H5Tset_size(mtype, n + 1) < 0 || H5Tset_strpad(mtype, H5T_STR_NULLTERM) < 0 ||
            !(out = calloc(n + 1, 1)))
            goto done;
        herr_t r = is_attr ? H5Aread(id, mtype, out)
                           : H5Dread(id, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, out);
        if (r < 0) {
            free(out);
            out = NULL;
        }
    }
done:
    if (mtype >= 0) H5Tclose(mtype);
    H5Tclose(ftype);
    return out;
}

int stsl_h5_get_attr_str(hid_t obj, const char *name, char *buf, size_t n)
{
    buf[0] = '\0';
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    char *s = stsl_h5_read_string(a, 1);
    H5Aclose(a);
    if (!s) return -1;
    snprintf(buf, n, "%s", s);
    free(s);
    return 0;
}

int stsl_h5_get_attr_num(hid_t obj, const char *name, hid_t mtype, void *val)
{
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t t = H5Aget_type(a), sp = H5Aget_space(a);
    H5T_class_t c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    int rc = (c == H5T_INTEGER || c == H5T_FLOAT) && sp >= 0 &&
                     H5Sget_simple_extent_npoints(sp) == 1 && H5Aread(a, mtype, val) >= 0
                 ? 0
                 : -1;
    if (sp >= 0) H5Sclose(sp);
    if (t >= 0) H5Tclose(t);
    H5Aclose(a);
    return rc;
}

void stsl_h5_free_strs(char **s, int n)
{
    for (int i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

/* The values of an open 1-D string attribute (vlen strings read by HDF5 into
 * its own memory, copied out). */
static char **read_strs(hid_t a, int *n)
{
    char **out = NULL, **raw = NULL;
    hid_t t = stsl_h5_vlen_str_type(), ft = H5Aget_type(a), sp = H5Aget_space(a);
    hsize_t dim = 0;
    if (t < 0 || ft < 0 || sp < 0 || H5Tget_class(ft) != H5T_STRING ||
        H5Sget_simple_extent_ndims(sp) != 1 || H5Sget_simple_extent_dims(sp, &dim, NULL) != 1 ||
        H5Tis_variable_str(ft) <= 0)
        goto done;
    size_t m = (size_t)(dim ? dim : 1);
    if (!(raw = calloc(m, sizeof *raw)) || !(out = calloc(m, sizeof *out))) goto done;
    if (dim > 0 && H5Aread(a, t, raw) < 0) {
        free(out);
        out = NULL;
        goto done;
    }
    for (hsize_t i = 0; i < dim; i++)
        if (!(out[i] = strdup(raw[i] ? raw[i] : ""))) {
            stsl_h5_free_strs(out, (int)dim);
            out = NULL;
            break;
        }
    H5Dvlen_reclaim(t, sp, H5P_DEFAULT, raw);
    if (out) *n = (int)dim;
done:
    free(raw);
    if (sp >= 0) H5Sclose(sp);
    if (ft >= 0) H5Tclose(ft);
    if (t >= 0) H5Tclose(t);
    return out;
}

char **stsl_h5_get_attr_strs(hid_t obj, const char *name, int *n)
{
    *n = 0;
    if (H5Aexists(obj, name) <= 0) return NULL;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return NULL;
    char **s = read_strs(a, n);
    H5Aclose(a);
    return s;
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
    /* HDF5's description of a failed write is a multi-line dump (time,
     * descriptor, buffer address) that says no more than errno: one line. */
    if (space) desc[0] = '\0';
    for (char *p = desc; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    return stsl_error_set(err, STSL_EIO, "%s: HDF5 could not %s%s%s%s%s", file, what,
                          desc[0] ? ": " : "", desc, space ? ": " : "", space ? strerror(e) : "");
}
