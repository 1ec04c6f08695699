/* h5_system.c - see h5_system.h.
 *
 * The writers store text as variable-length strings (io/h5_types.h), so
 * attributes are read as such; `names` may be one comma-separated string or
 * an array of strings, `mode_names` is "0 STUCK, 1 SLIP_POS, ..." as the
 * element's /trajectory/mode has it (a list of bare names is taken in
 * order). */
#include "io/h5_system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "io/h5_bounds.h"
#include "io/h5_types.h"

/* STSL_EINPUT "FILE: WHAT" (HDF5's description appended when there is one). */
static int bad(stsl_error *err, const char *file, const char *what)
{
    char desc[512];
    stsl_h5_last_error(desc, sizeof desc);
    return desc[0] ? stsl_error_set(err, STSL_EINPUT, "%s: %s (HDF5: %s)", file, what, desc)
                   : stsl_error_set(err, STSL_EINPUT, "%s: %s", file, what);
}

/* The strings of attribute `name` (a scalar or a 1-D array of variable-
 * length strings), joined by ',' into buf; the count, or -1. */
static int attr_strings(hid_t obj, const char *name, char *buf, size_t size)
{
    int n = -1;
    buf[0] = '\0';
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), sp = a >= 0 ? H5Aget_space(a) : -1;
    hid_t st = H5Tcopy(H5T_C_S1);
    hssize_t count = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (st >= 0 && count > 0 && count < 100000 && H5Tset_size(st, H5T_VARIABLE) >= 0 &&
        H5Tset_cset(st, H5T_CSET_UTF8) >= 0) {
        char **v = calloc((size_t)count, sizeof *v);
        if (v && H5Aread(a, st, v) >= 0) {
            size_t used = 0;
            for (hssize_t i = 0; i < count; i++) {
                int w = snprintf(buf + used, size - used, "%s%s", i ? "," : "", v[i] ? v[i] : "");
                used = w > 0 && (size_t)w < size - used ? used + (size_t)w : size - 1;
            }
            H5Dvlen_reclaim(st, sp, H5P_DEFAULT, v);
            n = (int)count;
        }
        free(v);
    }
    if (st >= 0) H5Tclose(st);
    if (sp >= 0) H5Sclose(sp);
    if (a >= 0) H5Aclose(a);
    return n;
}

static int attr_num(hid_t obj, const char *name, hid_t mtype, void *val)
{
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int rc = a >= 0 && H5Aread(a, mtype, val) >= 0 ? 0 : -1;
    if (a >= 0) H5Aclose(a);
    return rc;
}

/* Split "a,b,c" into n names of `width` bytes; the count found. */
static int split_names(const char *s, char *out, size_t width, int n)
{
    int k = 0;
    while (k < n && *s) {
        size_t len = strcspn(s, ",");
        while (len && s[0] == ' ')
            s++, len--;
        snprintf(out + (size_t)k * width, width, "%.*s", (int)len, s);
        k++;
        s += len + (s[len] == ',');
    }
    return k;
}

/* "0 STUCK, 1 SLIP_POS" or "STUCK,SLIP_POS" into g->values. */
static void parse_values(const char *s, stsl_h5_group *g)
{
    char item[64][24];
    int n = split_names(s, &item[0][0], sizeof item[0], 64);
    for (int k = 0; k < n; k++) {
        char *name = item[k], *end;
        long num = strtol(name, &end, 10);
        if (end != name && *end == ' ')
            name = end + 1;
        else
            num = k;
        if (num < 0 || num >= STSL_H5S_MAX_VALUES) continue;
        snprintf(g->values[num], sizeof g->values[num], "%s", name);
        if (num + 1 > g->n_values) g->n_values = (int)num + 1;
    }
}

/* ---- /trajectory ---------------------------------------------------------- */

/* Dataset `name` of /trajectory into g: shape checked against n samples. */
static int read_group(hid_t traj, const char *name, long n, stsl_h5_group *g, const char *path,
                      stsl_error *err)
{
    char what[160];
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(what, sizeof what, "/trajectory/%s", name);
    hid_t d = H5Dopen2(traj, name, H5P_DEFAULT), sp = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t dims[2] = {0, 1};
    int nd = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1, rc = STSL_OK;
    if (nd < 1 || nd > 2 || H5Sget_simple_extent_dims(sp, dims, NULL) < 0) {
        rc = bad(err, path, "a /trajectory dataset is not 1-D or 2-D");
        goto done;
    }
    if ((long)dims[0] != n || dims[1] < 1 || dims[1] > 100000) {
        rc = stsl_error_set(err, STSL_EINPUT, "%s: %s has %llu x %llu values for %ld samples", path,
                            what, (unsigned long long)dims[0], (unsigned long long)dims[1], n);
        goto done;
    }
    g->width = (int)dims[1];
    g->two_d = nd == 2;
    if ((rc = stsl_h5_check_rows(d, dims[0] * dims[1], path, what, err))) goto done;
    g->members = calloc((size_t)g->width, sizeof *g->members);
    g->data = malloc(sizeof *g->data * (size_t)(n > 0 ? n : 1) * (size_t)g->width);
    size_t big = 64 * (size_t)g->width + 64;
    char *names = malloc(big), buf[1024];
    if (!g->members || !g->data || !names) {
        free(names);
        rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %s", path, what);
        goto done;
    }
    if (n > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, g->data) < 0)
        rc = bad(err, path, "cannot read a /trajectory dataset as numbers");
    if (!rc && g->two_d &&
        (attr_strings(d, "names", names, big) < 0 ||
         split_names(names, &g->members[0][0], sizeof g->members[0], g->width) != g->width))
        rc =
            stsl_error_set(err, STSL_EINPUT, "%s: %s: attribute names does not name its %d columns",
                           path, what, g->width);
    if (!g->two_d) snprintf(g->members[0], sizeof g->members[0], "%s", name);
    free(names);
    attr_strings(d, "units", g->units, sizeof g->units);
    attr_strings(d, "long_name", g->long_name, sizeof g->long_name);
    if (attr_strings(d, "mode_names", buf, sizeof buf) > 0) parse_values(buf, g);
done:
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    return rc;
}

static int read_trajectory(hid_t f, stsl_h5_system *s, stsl_error *err)
{
    hid_t traj = H5Gopen2(f, "trajectory", H5P_DEFAULT), td = -1;
    if (traj < 0) return bad(err, s->path, "missing group /trajectory");
    int rc = STSL_OK;
    H5G_info_t info;
    hsize_t n = 0;
    hid_t sp = -1;
    if ((td = H5Dopen2(traj, "t", H5P_DEFAULT)) < 0 || (sp = H5Dget_space(td)) < 0 ||
        H5Sget_simple_extent_ndims(sp) != 1 || H5Sget_simple_extent_dims(sp, &n, NULL) < 0 ||
        (rc = stsl_h5_check_rows(td, n, s->path, "/trajectory/t", err))) {
        rc = rc ? rc : bad(err, s->path, "missing 1-D dataset /trajectory/t");
        goto done;
    }
    s->n_samples = (long)n;
    if (!(s->t = malloc(sizeof *s->t * (n ? n : 1)))) {
        rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", s->path);
        goto done;
    }
    if (n && H5Dread(td, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s->t) < 0) {
        rc = bad(err, s->path, "cannot read /trajectory/t");
        goto done;
    }
    attr_strings(td, "units", s->time_units, sizeof s->time_units);
    if (H5Gget_info(traj, &info) < 0) {
        rc = bad(err, s->path, "cannot list /trajectory");
        goto done;
    }
    for (hsize_t i = 0; !rc && i < info.nlinks; i++) {
        char name[32];
        ssize_t len = H5Lget_name_by_idx(traj, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, name,
                                         sizeof name, H5P_DEFAULT);
        if (len < 0 || (size_t)len >= sizeof name) {
            rc = bad(err, s->path, "cannot list /trajectory in creation order");
        } else if (strcmp(name, "t") != 0) {
            if (s->n_groups == STSL_H5S_MAX_GROUPS)
                rc = stsl_error_set(err, STSL_EINPUT, "%s: /trajectory has more than %d datasets",
                                    s->path, STSL_H5S_MAX_GROUPS);
            else
                rc = read_group(traj, name, s->n_samples, &s->groups[s->n_groups++], s->path, err);
        }
    }
done:
    if (sp >= 0) H5Sclose(sp);
    if (td >= 0) H5Dclose(td);
    H5Gclose(traj);
    return rc;
}

/* ---- /events, root, /stats ---------------------------------------------------- */

/* The members t, kind, index and name of the file's /events rows (the
 * others, the element's x, v_before, ..., stay in the file: NaN for a
 * system). */
typedef struct ev_row {
    double t;
    char kind[24];
    int index;
    char *name;
} ev_row;

static hid_t event_mtype(hid_t str)
{
    hid_t k = H5Tcopy(H5T_C_S1), m = H5Tcreate(H5T_COMPOUND, sizeof(ev_row));
    if (k < 0 || m < 0 || H5Tset_size(k, sizeof((ev_row *)0)->kind) < 0 ||
        H5Tset_strpad(k, H5T_STR_NULLTERM) < 0 ||
        H5Tinsert(m, "t", offsetof(ev_row, t), H5T_NATIVE_DOUBLE) < 0 ||
        H5Tinsert(m, "kind", offsetof(ev_row, kind), k) < 0 ||
        H5Tinsert(m, "index", offsetof(ev_row, index), H5T_NATIVE_INT) < 0 ||
        H5Tinsert(m, "name", offsetof(ev_row, name), str) < 0) {
        if (m >= 0) H5Tclose(m);
        m = -1;
    }
    if (k >= 0) H5Tclose(k);
    return m;
}

static int read_events(hid_t f, stsl_h5_system *s, stsl_error *err)
{
    hid_t d = H5Dopen2(f, "events", H5P_DEFAULT), sp = -1, str = H5Tcopy(H5T_C_S1), mt = -1;
    int rc = STSL_OK;
    ev_row *rows = NULL;
    hsize_t n = 0;
    if (d < 0 || (sp = H5Dget_space(d)) < 0 || H5Sget_simple_extent_ndims(sp) != 1 ||
        H5Sget_simple_extent_dims(sp, &n, NULL) < 0) {
        rc = bad(err, s->path, "missing 1-D dataset /events");
        goto done;
    }
    if ((rc = stsl_h5_check_rows(d, n, s->path, "/events", err))) goto done;
    s->n_events = (long)n;
    rows = calloc(n ? n : 1, sizeof *rows);
    s->events = calloc(n ? n : 1, sizeof *s->events);
    if (!rows || !s->events) {
        rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %llu events", s->path,
                            (unsigned long long)n);
        goto done;
    }
    if (str < 0 || H5Tset_size(str, H5T_VARIABLE) < 0 || H5Tset_cset(str, H5T_CSET_UTF8) < 0 ||
        (mt = event_mtype(str)) < 0 ||
        (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0)) {
        rc = bad(err, s->path, "cannot read /events (members t, kind, index, name)");
        goto done;
    }
    for (hsize_t i = 0; i < n; i++) {
        stsl_h5_sys_event *e = &s->events[i];
        e->t = rows[i].t;
        memcpy(e->kind, rows[i].kind, sizeof e->kind);
        e->index = rows[i].index;
        snprintf(e->name, sizeof e->name, "%s", rows[i].name ? rows[i].name : "");
    }
    if (n) H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, rows);
done:
    free(rows);
    if (mt >= 0) H5Tclose(mt);
    if (str >= 0) H5Tclose(str);
    if (sp >= 0) H5Sclose(sp);
    if (d >= 0) H5Dclose(d);
    return rc;
}

static int read_root(hid_t f, stsl_h5_system *s, stsl_error *err)
{
    char program[64];
    if (attr_strings(f, "program", program, sizeof program) != 1 || strcmp(program, "stickslip"))
        return stsl_error_set(err, STSL_EINPUT, "%s: not a stickslip result", s->path);
    attr_strings(f, "version", s->version, sizeof s->version);
    attr_strings(f, "created_utc", s->created_utc, sizeof s->created_utc);
    attr_strings(f, "message", s->message, sizeof s->message);
    if (attr_num(f, "complete", H5T_NATIVE_INT, &s->complete) < 0)
        return bad(err, s->path, "missing integer attribute /complete");
    hid_t g = H5Gopen2(f, "stats", H5P_DEFAULT);
    if (g < 0) return bad(err, s->path, "missing group /stats");
    stsl_stats *st = &s->stats;
    attr_num(g, "steps", H5T_NATIVE_LONG, &st->steps);
    attr_num(g, "rhs_evals", H5T_NATIVE_LONG, &st->rhs_evals);
    attr_num(g, "guard_evals", H5T_NATIVE_LONG, &st->guard_evals);
    attr_num(g, "events", H5T_NATIVE_LONG, &st->events);
    attr_num(g, "segments", H5T_NATIVE_LONG, &st->segments);
    attr_num(g, "jac_evals", H5T_NATIVE_LONG, &st->jac_evals);
    attr_num(g, "wall_seconds", H5T_NATIVE_DOUBLE, &st->wall_seconds);
    H5Gclose(g);
    return STSL_OK;
}

/* ---- public ------------------------------------------------------------------- */

static int is_system(const char *path)
{
    if (!path || H5Fis_hdf5(path) <= 0) return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return 0;
    int yes = 0;
    if (H5Lexists(f, "trajectory", H5P_DEFAULT) > 0 &&
        H5Lexists(f, "trajectory/mode", H5P_DEFAULT) == 0 &&
        H5Lexists(f, "trajectory/x", H5P_DEFAULT) > 0) {
        hid_t d = H5Dopen2(f, "trajectory/x", H5P_DEFAULT), sp = d >= 0 ? H5Dget_space(d) : -1;
        yes = sp >= 0 && H5Sget_simple_extent_ndims(sp) == 2;
        if (sp >= 0) H5Sclose(sp);
        if (d >= 0) H5Dclose(d);
    }
    H5Fclose(f);
    return yes;
}

int stsl_h5_is_system(const char *path)
{
    int yes;
    STSL_H5_QUIET(yes, is_system(path));
    return yes;
}

static int read_system(const char *path, stsl_h5_system *s, stsl_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    if (!stsl_h5_is_system(path))
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: not the result of a system of bodies (no 2-D /trajectory/x)",
                              path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return bad(err, path, "cannot open the HDF5 file");
    int rc = read_root(f, s, err);
    if (!rc) rc = read_trajectory(f, s, err);
    if (!rc) rc = read_events(f, s, err);
    H5Fclose(f);
    if (rc) stsl_h5_system_free(s);
    return rc;
}

int stsl_h5_system_read(const char *path, stsl_h5_system *s, stsl_error *err)
{
    int rc;
    STSL_H5_QUIET(rc, read_system(path, s, err));
    return rc;
}

void stsl_h5_system_free(stsl_h5_system *s)
{
    if (!s) return;
    for (int g = 0; g < s->n_groups; g++) {
        free(s->groups[g].members);
        free(s->groups[g].data);
    }
    free(s->t);
    free(s->events);
    s->t = NULL;
    s->events = NULL;
    s->n_groups = 0;
    s->n_events = 0;
}

const stsl_h5_group *stsl_h5_system_group(const stsl_h5_system *s, const char *name)
{
    for (int g = 0; g < s->n_groups; g++)
        if (!strcmp(s->groups[g].name, name)) return &s->groups[g];
    return NULL;
}

int stsl_h5_group_value(const stsl_h5_group *g, const char *value)
{
    for (int k = 0; k < g->n_values; k++)
        if (!strcmp(g->values[k], value)) return k;
    return -1;
}
