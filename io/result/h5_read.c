/* h5_read.c - reading a result file written by io/result/h5_sink.c back.
 *
 * Every failure is STSL_EINPUT naming the file and the object that is
 * missing or unreadable: a file given to `stickslip info` is user input. */
#include "io/result/h5_read.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "io/result/h5_bounds.h"
#include "io/result/h5_types.h"
#include "io/result/mem_sink.h"
#include "run/validation.h"
#include "solver/text_width.h"

/* ---- helpers ---------------------------------------------------------------- */

/* STSL_EINPUT "FILE: WHAT", with HDF5's innermost error description when
 * there is one.  Call it right after the failing call. */
static int bad(stsl_error *err, const char *file, const char *what)
{
    char desc[512];
    stsl_h5_last_error(desc, sizeof desc);
    if (!desc[0]) return stsl_error_set(err, STSL_EINPUT, "%s: %s", file, what);
    return stsl_error_set(err, STSL_EINPUT, "%s: %s (HDF5: %s)", file, what, desc);
}

/* Open `path` read-only after checking that it exists and is HDF5, so that
 * the two common user errors get plain messages. */
static hid_t open_file(const char *path, stsl_error *err)
{
    struct stat st;
    if (!path || stat(path, &st) != 0) {
        stsl_error_set(err, STSL_EINPUT, "%s: cannot open: %s", path ? path : "(null)",
                       strerror(errno));
        return -1;
    }
    if (H5Fis_hdf5(path) <= 0) {
        stsl_error_set(err, STSL_EINPUT, "%s: not an HDF5 file", path);
        return -1;
    }
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) bad(err, path, "cannot open the HDF5 file");
    return f;
}

/* Rows of a 1-D dataset (*width 0) or of a 2-D one (*width its columns),
 * or -1. */
static long ds_shape(hid_t d, int *width)
{
    hid_t sp = H5Dget_space(d);
    if (sp < 0) return -1;
    hsize_t dim[2] = {0, 0};
    int rank = H5Sget_simple_extent_ndims(sp);
    long n = (rank == 1 || rank == 2) && H5Sget_simple_extent_dims(sp, dim, NULL) == rank
                 ? (long)dim[0]
                 : -1;
    *width = rank == 2 ? (int)dim[1] : 0;
    H5Sclose(sp);
    return n;
}

/* Length of a 1-D dataset, or -1. */
static long ds_length(hid_t d)
{
    int width = 0;
    long n = ds_shape(d, &width);
    return width == 0 ? n : -1;
}

/* Element i of a 1-D float64 dataset, NaN if unreadable. */
static double ds_at(hid_t d, hsize_t i)
{
    double v = NAN;
    return stsl_h5_rows(d, H5T_NATIVE_DOUBLE, i, 1, &v, NULL) < 0 ? NAN : v;
}

/* "0 STUCK, 1 SLIP_POS, ..." into a malloc'd array of malloc'd names by
 * number (the format of every mode_names); 0 or -1. */
static int split_numbered(const char *s, char ***out, int *n)
{
    char **names = NULL;
    *n = 0;
    while (*s) {
        while (*s == ' ' || *s == ',')
            s++;
        if (!*s) break;
        char *end;
        long idx = strtol(s, &end, 10);
        if (end == s || idx < 0 || idx > 127) goto fail; /* int8 values */
        s = end + strspn(end, " ");
        size_t len = strcspn(s, ",");
        while (len > 0 && s[len - 1] == ' ')
            len--;
        if (idx >= *n) {
            char **g = realloc(names, sizeof *g * (size_t)(idx + 1));
            if (!g) goto fail;
            names = g;
            for (long k = *n; k <= idx; k++)
                names[k] = NULL;
            *n = (int)idx + 1;
        }
        free(names[idx]);
        if (!(names[idx] = strndup(s, len))) goto fail;
        s += strcspn(s, ",");
    }
    for (int k = 0; k < *n; k++)
        if (!names[k] && !(names[k] = strdup(""))) goto fail;
    *out = names;
    return 0;
fail:
    stsl_h5_free_strs(names, *n);
    *n = 0;
    return -1;
}

/* "0 STUCK, 1 SLIP_POS, ..." into res->mode_names; returns the mode count. */
static int parse_mode_names(const char *s, stsl_h5_result *res)
{
    char **names = NULL;
    int n = 0;
    if (split_numbered(s, &names, &n) < 0) return -1;
    for (int i = 0; i < n && n <= STSL_MAX_MODES; i++)
        snprintf(res->mode_names[i], sizeof res->mode_names[i], "%s", names[i]);
    stsl_h5_free_strs(names, n);
    return n <= STSL_MAX_MODES ? n : -1;
}

/* ---- parts of the file ------------------------------------------------------ */

static int read_root(hid_t f, stsl_h5_result *res, stsl_error *err)
{
    const char *p = res->path;
    if (stsl_h5_get_attr_str(f, "program", res->program, sizeof res->program) < 0)
        return bad(err, p, "not a stickslip result: no string attribute 'program' on /");
    if (strcmp(res->program, "stickslip") != 0)
        return stsl_error_set(err, STSL_EINPUT, "%s: not a stickslip result (program = '%s')", p,
                              res->program);
    if (stsl_h5_get_attr_str(f, "version", res->version, sizeof res->version) < 0)
        return bad(err, p, "missing attribute /version");
    if (stsl_h5_get_attr_str(f, "created_utc", res->created_utc, sizeof res->created_utc) < 0)
        return bad(err, p, "missing attribute /created_utc");
    if (stsl_h5_get_attr_num(f, "complete", H5T_NATIVE_INT, &res->complete) < 0)
        return bad(err, p, "missing integer attribute /complete");
    if (stsl_h5_get_attr_str(f, "message", res->message, sizeof res->message) < 0)
        return bad(err, p, "missing attribute /message");

    if (H5Lexists(f, "config", H5P_DEFAULT) <= 0) return bad(err, p, "missing dataset /config");
    hid_t d = H5Dopen2(f, "config", H5P_DEFAULT);
    if (d < 0) return bad(err, p, "cannot open /config");
    res->config_yaml = stsl_h5_read_string(d, 0);
    H5Dclose(d);
    if (!res->config_yaml) return bad(err, p, "/config is not a readable string");
    return STSL_OK;
}

/* The units (long_name) of the column `name` as list_columns read them;
 * "" when the file has no such column.  Each opening of a dataset costs
 * HDF5 more than reading all its attributes: once a column is enough. */
static const char *col_attr(const stsl_h5_result *res, const char *name, int long_name)
{
    for (int c = 0; c < res->n_cols; c++)
        if (!strcmp(res->col_names[c], name))
            return long_name ? res->col_long_names[c] : res->col_units[c];
    return "";
}

void stsl_h5_result_describe(stsl_h5_result *res)
{
    static const char *const names[] = {"x", "v", "friction", "net_force", "z"};
    snprintf(res->x_units, sizeof res->x_units, "%s", col_attr(res, "x", 0));
    snprintf(res->v_units, sizeof res->v_units, "%s", col_attr(res, "v", 0));
    snprintf(res->net_force_units, sizeof res->net_force_units, "%s",
             col_attr(res, "net_force", 0));
    snprintf(res->friction_units, sizeof res->friction_units, "%s", col_attr(res, "friction", 0));
    size_t used = 0;
    res->quantities[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *lname = col_attr(res, names[i], 1), *units = col_attr(res, names[i], 0);
        if (!lname[0] || used >= sizeof res->quantities) continue;
        int w = snprintf(res->quantities + used, sizeof res->quantities - used, "%s%s: %s [%s]",
                         used ? ", " : "", names[i], lname, units);
        if (w > 0) used += (size_t)w;
    }
}

/* A 2-D dataset of /trajectory is a system's column group: its width, its
 * members' `names`, whether it holds int8 mode numbers and their names. */
static int read_group(hid_t traj, const char *name, stsl_h5_result *res, int c, stsl_error *err)
{
    int rc = STSL_OK, n = 0;
    hid_t d = H5Dopen2(traj, name, H5P_DEFAULT), t = -1;
    if (d < 0 || ds_shape(d, &res->col_width[c]) < 0 || (t = H5Dget_type(d)) < 0) {
        rc = bad(err, res->path, "cannot read the shape of a /trajectory dataset");
        goto done;
    }
    stsl_h5_get_attr_str(d, "units", res->col_units[c], sizeof res->col_units[c]);
    stsl_h5_get_attr_str(d, "long_name", res->col_long_names[c], sizeof res->col_long_names[c]);
    if (res->col_width[c] == 0) goto done;
    res->col_integer[c] = H5Tget_class(t) == H5T_INTEGER;
    res->col_members[c] = stsl_h5_get_attr_strs(d, "names", &n);
    if (!res->col_members[c] || n != res->col_width[c]) {
        rc = stsl_error_set(err, STSL_EINPUT,
                            "%s: /trajectory/%s: no attribute 'names' with one name per column "
                            "(%d)",
                            res->path, name, res->col_width[c]);
        goto done;
    }
    char values[4096];
    if (res->col_integer[c] && stsl_h5_get_attr_str(d, "mode_names", values, sizeof values) == 0 &&
        split_numbered(values, &res->col_values[c], &res->col_n_values[c]) < 0)
        rc = stsl_error_set(err, STSL_EINPUT, "%s: cannot parse /trajectory/%s mode_names '%s'",
                            res->path, name, values);
done:
    if (t >= 0) H5Tclose(t);
    if (d >= 0) H5Dclose(d);
    return rc;
}

/* The datasets of /trajectory besides t and mode, in creation order (the
 * writer's column order, h5_sink.c), with their units and long names. */
static int list_columns(hid_t traj, stsl_h5_result *res, stsl_error *err)
{
    H5G_info_t info;
    if (H5Gget_info(traj, &info) < 0) return bad(err, res->path, "cannot list /trajectory");
    res->n_cols = 0;
    for (hsize_t i = 0; i < info.nlinks; i++) {
        char name[sizeof res->col_names[0]];
        ssize_t len = H5Lget_name_by_idx(traj, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, name,
                                         sizeof name, H5P_DEFAULT);
        if (len < 0 || (size_t)len >= sizeof res->col_names[0])
            return bad(err, res->path, "cannot list /trajectory in creation order");
        if (strcmp(name, "t") == 0 || strcmp(name, "mode") == 0) continue;
        if (res->n_cols == STSL_H5_MAX_COLS)
            return stsl_error_set(err, STSL_EINPUT, "%s: /trajectory has more than %d columns",
                                  res->path, STSL_H5_MAX_COLS);
        int c = res->n_cols++;
        memcpy(res->col_names[c], name, sizeof name);
        int rc = read_group(traj, name, res, c, err);
        if (rc) return rc;
    }
    return STSL_OK;
}

/* Some dataset of /trajectory is 2-D (a column group): a system's file. */
static int has_groups(hid_t traj)
{
    H5G_info_t info;
    if (H5Gget_info(traj, &info) < 0) return 0;
    for (hsize_t i = 0; i < info.nlinks; i++) {
        hid_t d = H5Oopen_by_idx(traj, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT);
        int width = 0;
        long n = d >= 0 && H5Iget_type(d) == H5I_DATASET ? ds_shape(d, &width) : -1;
        if (d >= 0) H5Oclose(d);
        if (n >= 0 && width > 0) return 1;
    }
    return 0;
}

/* A system's file has no scalar mode (its modes are groups) and groups. */
static int traj_is_system(hid_t traj)
{
    return H5Lexists(traj, "mode", H5P_DEFAULT) <= 0 && has_groups(traj);
}

static int read_trajectory(hid_t f, stsl_h5_result *res, stsl_error *err)
{
    const char *p = res->path;
    int rc = STSL_OK;
    hid_t traj = -1, t = -1, m = -1;
    if (H5Lexists(f, "trajectory", H5P_DEFAULT) <= 0)
        return bad(err, p, "missing group /trajectory");
    if ((traj = H5Gopen2(f, "trajectory", H5P_DEFAULT)) < 0)
        return bad(err, p, "cannot open /trajectory");
    if (H5Lexists(traj, "t", H5P_DEFAULT) <= 0 || (t = H5Dopen2(traj, "t", H5P_DEFAULT)) < 0 ||
        (res->n_samples = ds_length(t)) < 0) {
        rc = bad(err, p, "missing 1-D dataset /trajectory/t");
        goto done;
    }
    res->t_first = res->n_samples > 0 ? ds_at(t, 0) : NAN;
    res->t_last = res->n_samples > 0 ? ds_at(t, (hsize_t)res->n_samples - 1) : NAN;

    char names[1024] = "";
    int system = traj_is_system(traj);
    if (!system && (H5Lexists(traj, "mode", H5P_DEFAULT) <= 0 ||
                    (m = H5Dopen2(traj, "mode", H5P_DEFAULT)) < 0 ||
                    stsl_h5_get_attr_str(m, "mode_names", names, sizeof names) < 0)) {
        rc = bad(err, p, "missing /trajectory/mode or its attribute mode_names");
        goto done;
    }
    if ((res->stats.n_modes = parse_mode_names(names, res)) < 0) {
        rc = stsl_error_set(err, STSL_EINPUT, "%s: cannot parse /trajectory/mode mode_names '%s'",
                            p, names);
        goto done;
    }
    stsl_h5_get_attr_str(t, "units", res->time_units, sizeof res->time_units);
    if ((rc = list_columns(traj, res, err)) != STSL_OK) goto done;
    stsl_h5_result_describe(res);
done:
    if (m >= 0) H5Dclose(m);
    if (t >= 0) H5Dclose(t);
    H5Gclose(traj);
    return rc;
}

/* The memory layout of stsl_h5_event; HDF5 matches compound members by name
 * and converts int8 to int and the 16-byte null-padded kind to char[24]. */
static const stsl_h5_event_layout event_layout = {
    sizeof(stsl_h5_event),
    {offsetof(stsl_h5_event, t), offsetof(stsl_h5_event, kind),
     offsetof(stsl_h5_event, mode_before), offsetof(stsl_h5_event, mode_after),
     offsetof(stsl_h5_event, x), offsetof(stsl_h5_event, v_before),
     offsetof(stsl_h5_event, v_after), offsetof(stsl_h5_event, net_force),
     offsetof(stsl_h5_event, friction), offsetof(stsl_h5_event, subject)},
    sizeof(int),
    sizeof((stsl_h5_event *)0)->kind,
    H5T_STR_NULLTERM,
    {0},
    0};

/* "stick,breakaway,..." into res->kind_names; 0 or -1 (too many, too long). */
static int parse_kind_names(const char *s, stsl_h5_result *res)
{
    res->n_kinds = 0;
    while (*s) {
        size_t len = strcspn(s, ",");
        if (res->n_kinds == STSL_H5_MAX_KINDS || len >= sizeof res->kind_names[0]) return -1;
        memcpy(res->kind_names[res->n_kinds], s, len);
        res->kind_names[res->n_kinds++][len] = '\0';
        s += len + (s[len] == ',');
    }
    return 0;
}

/* event_layout with what /events holds beyond the element's members
 * (file type ft): value members that are arrays (a system's grouped
 * columns: not read into the scalar members) and the subject's index (read
 * into subject). */
static stsl_h5_event_layout event_ext(hid_t ft)
{
    stsl_h5_event_layout ext = event_layout;
    for (int i = 0; i < STSL_H5_EVENT_VALUES; i++) {
        int k = H5Tget_member_index(ft, stsl_h5_event_members[4 + i]);
        if (k >= 0 && H5Tget_member_class(ft, (unsigned)k) == H5T_ARRAY) ext.width[i] = -1;
    }
    ext.subject = H5Tget_member_index(ft, "index") >= 0 ? STSL_H5_EV_INDEX : 0;
    return ext;
}

/* Members left unread are NaN; index (-1: none) becomes subject. */
static int event_arrays(stsl_h5_result *res, stsl_h5_event *e, const stsl_h5_event_layout *ext,
                        stsl_error *err)
{
    double *v[STSL_H5_EVENT_VALUES] = {&e->x, &e->v_before, &e->v_after, &e->net_force,
                                       &e->friction};
    for (int i = 0; i < STSL_H5_EVENT_VALUES; i++)
        if (ext->width[i] < 0) *v[i] = NAN;
    if (!ext->subject) return STSL_OK;
    e->subject += 1; /* read as the index */
    if (e->subject < 0 || e->subject > res->n_subjects)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: /events index %d out of range (-1..%d: subject_names)",
                              res->path, e->subject - 1, res->n_subjects - 1);
    return STSL_OK;
}

static int read_events(hid_t f, stsl_h5_result *res, stsl_error *err)
{
    const char *p = res->path;
    int rc = STSL_OK;
    hid_t d = -1, mt = -1, ft = -1, xfer = -1;
    if (H5Lexists(f, "events", H5P_DEFAULT) <= 0) return bad(err, p, "missing dataset /events");
    if ((d = H5Dopen2(f, "events", H5P_DEFAULT)) < 0) return bad(err, p, "cannot open /events");
    char kinds[1024];
    if (stsl_h5_get_attr_str(d, "kind_names", kinds, sizeof kinds) == 0 &&
        parse_kind_names(kinds, res) < 0) {
        rc = stsl_error_set(err, STSL_EINPUT, "%s: cannot parse /events kind_names '%s'", p, kinds);
        goto done;
    }
    res->subject_names = stsl_h5_get_attr_strs(d, "subject_names", &res->n_subjects);
    long n = ds_length(d);
    if (n < 0 || (ft = H5Dget_type(d)) < 0 || H5Tget_class(ft) != H5T_COMPOUND) {
        rc = bad(err, p, "/events is not a 1-D compound dataset");
        goto done;
    }
    if ((rc = stsl_h5_check_rows(d, (hsize_t)n, p, "/events", err))) goto done;
    res->n_events = n;
    if (n == 0) goto done;
    if (!(res->events = calloc((size_t)n, sizeof *res->events))) {
        rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %ld events", p, n);
        goto done;
    }
    stsl_h5_event_layout ext = event_ext(ft);
    if ((mt = stsl_h5_event_type(&ext, 0)) < 0 || (xfer = stsl_h5_xfer(d, mt, (hsize_t)n)) < 0 ||
        H5Dread(d, mt, H5S_ALL, H5S_ALL, xfer, res->events) < 0) {
        rc = bad(err, p,
                 "cannot read /events (members t, kind, mode_before, mode_after, x, "
                 "v_before, v_after, net_force, friction)");
        goto done;
    }
    for (long i = 0; i < n; i++)
        rc = rc ? rc : event_arrays(res, &res->events[i], &ext, err);
done:
    if (xfer >= 0) H5Pclose(xfer);
    if (mt >= 0) H5Tclose(mt);
    if (ft >= 0) H5Tclose(ft);
    H5Dclose(d);
    return rc;
}

/* The optional error estimate of a verified run (simulation.verify). */
static void read_verify(hid_t g, stsl_h5_result *res)
{
    static const char *const status[] = {"none", "matched", "mismatch", "failed"};
    stsl_stats *st = &res->stats;
    char buf[32];
    if (stsl_h5_get_attr_str(g, "verify", buf, sizeof buf) < 0) return;
    for (int i = 1; i < 4; i++)
        if (!strcmp(buf, status[i])) st->verify = i;
    stsl_h5_get_attr_num(g, "verify_rtol", H5T_NATIVE_DOUBLE, &st->verify_rtol);
    stsl_h5_get_attr_str(g, "estimated_error_units", res->err_units, sizeof res->err_units);
    st->err_event_time = st->err_x = st->err_v = NAN;
    stsl_h5_get_attr_num(g, "estimated_error_event_time", H5T_NATIVE_DOUBLE, &st->err_event_time);
    stsl_h5_get_attr_num(g, "estimated_error_x", H5T_NATIVE_DOUBLE, &st->err_x);
    stsl_h5_get_attr_num(g, "estimated_error_v", H5T_NATIVE_DOUBLE, &st->err_v);
    st->diff_event = -1;
    stsl_h5_get_attr_num(g, "verify_first_difference", H5T_NATIVE_LONG, &st->diff_event);
}

static int read_stats(hid_t f, stsl_h5_result *res, stsl_error *err)
{
    const char *p = res->path;
    stsl_stats *st = &res->stats;
    int rc = STSL_OK;
    if (H5Lexists(f, "stats", H5P_DEFAULT) <= 0) return bad(err, p, "missing group /stats");
    hid_t g = H5Gopen2(f, "stats", H5P_DEFAULT);
    if (g < 0) return bad(err, p, "cannot open /stats");
    struct {
        const char *name;
        hid_t type;
        void *val;
    } req[] = {{"steps", H5T_NATIVE_LONG, &st->steps},
               {"rhs_evals", H5T_NATIVE_LONG, &st->rhs_evals},
               {"guard_evals", H5T_NATIVE_LONG, &st->guard_evals},
               {"events", H5T_NATIVE_LONG, &st->events},
               {"segments", H5T_NATIVE_LONG, &st->segments},
               {"wall_seconds", H5T_NATIVE_DOUBLE, &st->wall_seconds}};
    enum { N_REQ = sizeof req / sizeof req[0] };
    /* Those, then the time in each mode (time_STUCK, ...). */
    for (int k = 0; k < N_REQ + st->n_modes; k++) {
        char name[64];
        int m = k - N_REQ;
        snprintf(name, sizeof name, "%s%s", m < 0 ? "" : "time_",
                 m < 0 ? req[k].name : res->mode_names[m]);
        if (stsl_h5_get_attr_num(g, name, m < 0 ? req[k].type : H5T_NATIVE_DOUBLE,
                                 m < 0 ? req[k].val : &st->mode_time[m]) < 0) {
            rc = stsl_error_set(err, STSL_EINPUT, "%s: missing attribute /stats/%s", p, name);
            goto done;
        }
    }
    /* Written since the smooth laws (BDF); older files lack it: 0. */
    if (stsl_h5_get_attr_num(g, "jac_evals", H5T_NATIVE_LONG, &st->jac_evals) < 0)
        st->jac_evals = 0;
    if (!rc) read_verify(g, res);
done:
    H5Gclose(g);
    return rc;
}

/* ---- public ----------------------------------------------------------------- */

static int read_result(const char *path, stsl_h5_result *res, stsl_error *err)
{
    memset(res, 0, sizeof *res);
    res->t_first = res->t_last = NAN;
    snprintf(res->path, sizeof res->path, "%s", path ? path : "(null)");
    hid_t f = open_file(path, err);
    if (f < 0) return err ? err->code : STSL_EINPUT;
    int rc = read_root(f, res, err);
    if (!rc) rc = read_trajectory(f, res, err);
    if (!rc) rc = read_events(f, res, err);
    if (!rc) rc = read_stats(f, res, err);
    H5Fclose(f);
    if (rc) stsl_h5_result_free(res);
    return rc;
}

void stsl_h5_result_free(stsl_h5_result *res)
{
    if (!res) return;
    free(res->config_yaml);
    free(res->events);
    res->config_yaml = NULL;
    res->events = NULL;
    res->n_events = 0;
    for (int c = 0; c < STSL_H5_MAX_COLS; c++) {
        stsl_h5_free_strs(res->col_members[c], res->col_width[c]);
        stsl_h5_free_strs(res->col_values[c], res->col_n_values[c]);
        res->col_members[c] = NULL;
        res->col_values[c] = NULL;
        res->col_n_values[c] = 0;
    }
    stsl_h5_free_strs(res->subject_names, res->n_subjects);
    res->subject_names = NULL;
    res->n_subjects = 0;
}

/* A /trajectory dataset, rank 1 (*width 0) or 2 when `matrix`. */
static int read_column(const char *path, const char *name, double **data, long *n, int *width,
                       int matrix, stsl_error *err)
{
    int rc = STSL_OK;
    hid_t d = -1, t = -1;
    *data = NULL;
    *n = 0;
    *width = 0;
    hid_t f = open_file(path, err);
    if (f < 0) return err ? err->code : STSL_EINPUT;
    char what[256];
    snprintf(what, sizeof what, "no %sfloat64 dataset /trajectory/%.200s",
             matrix ? "1-D or 2-D " : "", name);
    if (H5Lexists(f, "trajectory", H5P_DEFAULT) <= 0) {
        rc = bad(err, path, "missing group /trajectory");
        goto done;
    }
    char full[256];
    snprintf(full, sizeof full, "trajectory/%.200s", name);
    if (strchr(name, '/') || H5Lexists(f, full, H5P_DEFAULT) <= 0 ||
        (d = H5Dopen2(f, full, H5P_DEFAULT)) < 0 || (t = H5Dget_type(d)) < 0 ||
        (H5Tget_class(t) != H5T_FLOAT && H5Tget_class(t) != H5T_INTEGER)) {
        rc = bad(err, path, what);
        goto done;
    }
    long len = ds_shape(d, width);
    if (len < 0 || (*width > 0 && !matrix)) {
        rc = bad(err, path, what);
        goto done;
    }
    if ((rc = stsl_h5_check_rows(d, (hsize_t)len, path, full, err))) goto done;
    size_t cells = (size_t)len * (size_t)(*width > 0 ? *width : 1);
    double *buf = malloc(sizeof *buf * (cells > 0 ? cells : 1));
    if (!buf) {
        rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %ld values", path, len);
        goto done;
    }
    if (len > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        rc = bad(err, path, what);
        goto done;
    }
    *data = buf;
    *n = len;
done:
    if (t >= 0) H5Tclose(t);
    if (d >= 0) H5Dclose(d);
    H5Fclose(f);
    return rc;
}

/* Our messages say what went wrong; HDF5's stack dump would only repeat it
 * (and is turned off only around our own calls, h5_types.h). */
int stsl_h5_result_is_system(const stsl_h5_result *res)
{
    for (int c = 0; c < res->n_cols; c++)
        if (res->col_width[c] > 0) return 1;
    return 0;
}

int stsl_h5_read(const char *path, stsl_h5_result *res, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(read_result(path, res, err));
}

int stsl_h5_read_column(const char *path, const char *name, double **data, long *n, stsl_error *err)
{
    int width;
    STSL_H5_RETURN_QUIET(read_column(path, name, data, n, &width, 0, err));
}

int stsl_h5_read_matrix(const char *path, const char *name, double **data, long *n, int *width,
                        stsl_error *err)
{
    STSL_H5_RETURN_QUIET(read_column(path, name, data, n, width, 1, err));
}

static const char *mode_name(const stsl_h5_result *res, int m)
{
    return m >= 0 && m < res->stats.n_modes && res->mode_names[m][0] ? res->mode_names[m] : "?";
}

/* "Est. error:  event times 1.2e-13 s, x 3e-15 m, v 2e-14 m/s (check run
 * at rtol 1e-15; events matched)"; a system's: the largest over the bodies
 * (each body's: /stats estimated_error_x[BODY], ...). */
static void print_verify(const stsl_h5_result *res, int system, FILE *out)
{
    const stsl_stats *st = &res->stats;
    if (st->verify == STSL_VERIFY_NONE) return;
    if (st->verify == STSL_VERIFY_FAILED) {
        fprintf(out, "Est. error:  unknown: the check run at rtol %g failed\n", st->verify_rtol);
        return;
    }
    fprintf(out,
            "Est. error:  event times %.2g %s, x %.2g %s, v %.2g %s%s (check run at rtol %g; %s)\n",
            st->err_event_time, res->time_units, st->err_x, res->x_units, st->err_v, res->v_units,
            system ? ", largest over the bodies" : "", st->verify_rtol,
            st->verify == STSL_VERIFY_MATCHED
                ? "events matched"
                : "EVENT SEQUENCES DIFFER, estimate over the events before the difference");
    if (st->verify == STSL_VERIFY_MISMATCH)
        fprintf(out, "             first differing event: number %ld\n", st->diff_event + 1);
}

/* The widths of the mode-name column (at least 16) and of the events'
 * "before -> after" column (at least 24): the compliant stops' CONTACT_*
 * names are longer than the rest, whose tables keep their widths. */
static void name_widths(const stsl_h5_result *res, int *w_mode, int *w_pair)
{
    int longest = 0;
    for (int i = 0; i < res->stats.n_modes; i++) {
        int n = (int)strlen(mode_name(res, i));
        if (n > longest) longest = n;
    }
    *w_mode = longest > 16 ? longest : 16;
    *w_pair = 2 * longest + 4 > 24 ? 2 * longest + 4 : 24;
}

/* The lines every summary begins with (a system's names no quantities: its
 * tables do). */
static void print_head(const stsl_h5_result *res, int system, FILE *out)
{
    const stsl_stats *st = &res->stats;
    fprintf(out, "File:        %s\n", res->path);
    fprintf(out, "Program:     %s %s, created %s\n", res->program, res->version, res->created_utc);
    if (res->complete)
        fprintf(out, "Status:      complete\n");
    else
        fprintf(out, "Status:      INCOMPLETE: %s\n",
                res->message[0] ? res->message : "(no message)");
    fprintf(out, "Samples:     %ld\n", res->n_samples);
    if (res->quantities[0] && !system) fprintf(out, "Quantities:  %s\n", res->quantities);
    if (res->n_samples > 0 && !isnan(res->t_first))
        fprintf(out, "Time span:   %.9g .. %.9g %s\n", res->t_first, res->t_last, res->time_units);
    fprintf(out,
            "Statistics:  %ld steps, %ld RHS evaluations, %ld guard evaluations, %ld events, "
            "%ld segments, wall time %.3f s\n",
            st->steps, st->rhs_evals, st->guard_evals, st->events, st->segments, st->wall_seconds);
    if (st->jac_evals > 0) fprintf(out, "             %ld Jacobian evaluations\n", st->jac_evals);
    print_verify(res, system, out);
}

/* The events counted by kind (a system's: by kind and subject), in order
 * of first appearance (a file's events are few: a quadratic count). */
static void print_counts(const stsl_h5_result *res, int by_subject, FILE *out)
{
    fprintf(out, "Events:      %ld\n", res->n_events);
    for (long i = 0; i < res->n_events; i++) {
        const stsl_h5_event *e = &res->events[i];
        long count = 0, earlier = 0;
        for (long j = 0; j < res->n_events; j++) {
            int same = !strcmp(res->events[j].kind, e->kind) &&
                       (!by_subject || res->events[j].subject == e->subject);
            count += same;
            earlier |= same && j < i;
        }
        if (earlier) continue;
        if (by_subject)
            fprintf(out, "  %-16s %-16s %ld\n", e->kind,
                    e->subject > 0 ? res->subject_names[e->subject - 1] : "-", count);
        else
            fprintf(out, "  %-16s %ld\n", e->kind, count);
    }
}

void stsl_h5_print_info(const stsl_h5_result *res, FILE *out, long max_events)
{
    const stsl_stats *st = &res->stats;
    int w_mode, w_pair;
    name_widths(res, &w_mode, &w_pair);
    print_head(res, 0, out);

    double total = 0.0;
    for (int i = 0; i < st->n_modes; i++)
        total += st->mode_time[i];
    if (st->n_modes > 0) fprintf(out, "Time per mode:\n");
    for (int i = 0; i < st->n_modes; i++)
        fprintf(out, "  %-*s %14.6g %s  %6.2f %%\n", w_mode, mode_name(res, i), st->mode_time[i],
                res->time_units, total > 0 ? 100.0 * st->mode_time[i] / total : 0.0);

    print_counts(res, 0, out);
    if (res->n_events == 0) return;

    char h[6][48];
    snprintf(h[0], sizeof h[0], "t [%s]", res->time_units);
    snprintf(h[1], sizeof h[1], "x [%s]", res->x_units);
    snprintf(h[2], sizeof h[2], "v_before [%s]", res->v_units);
    snprintf(h[3], sizeof h[3], "v_after [%s]", res->v_units);
    snprintf(h[4], sizeof h[4], "net_force [%s]", res->net_force_units);
    snprintf(h[5], sizeof h[5], "friction [%s]", res->friction_units);
    /* Padded by displayed columns: N·m has more bytes than characters. */
    static const int w[6] = {14, 14, 16, 16, 16, 16};
    fprintf(out, "\n%*s  %-16s %-*s", stsl_text_field(h[0], w[0]), h[0], "kind", w_pair, "mode");
    for (int c = 1; c < 6; c++)
        fprintf(out, " %*s", stsl_text_field(h[c], w[c]), h[c]);
    fputc('\n', out);
    long shown = max_events < 0 || max_events > res->n_events ? res->n_events : max_events;
    for (long i = 0; i < shown; i++) {
        const stsl_h5_event *e = &res->events[i];
        char modes[64];
        snprintf(modes, sizeof modes, "%s -> %s", mode_name(res, e->mode_before),
                 mode_name(res, e->mode_after));
        fprintf(out, "%14.9g  %-16s %-*s %14.6g %16.6g %16.6g %16.6g %16.6g\n", e->t, e->kind,
                w_pair, modes, e->x, e->v_before, e->v_after, e->net_force, e->friction);
    }
    if (shown < res->n_events) fprintf(out, "... %ld more\n", res->n_events - shown);
}

/* ---- a result as one value per dataset ------------------------------------ */

/* g's description: its name, units, width (0: a 1-D column, a group of
 * one member named after it), member names and value names. */
static int describe_group(stsl_h5_group *g, const char *name, const char *units, int width,
                          const char *const *members, int n_values, const char *const *values)
{
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(g->units, sizeof g->units, "%s", units ? units : "");
    g->width = width > 0 ? width : 1;
    if (!(g->members = calloc((size_t)g->width, sizeof *g->members))) return -1;
    for (int m = 0; m < g->width; m++)
        snprintf(g->members[m], sizeof g->members[m], "%s", width > 0 ? members[m] : name);
    for (int k = 0; k < n_values && k < STSL_H5S_MAX_VALUES; k++)
        snprintf(g->values[g->n_values++], sizeof g->values[0], "%s", values[k]);
    return 0;
}

/* Dataset c of the file into g (data, members, value names): its values
 * taken from *data when given, else read from the file. */
static int take_group(const stsl_h5_result *h, int c, long n, double **data, stsl_h5_group *g,
                      stsl_error *err)
{
    long rows = n;
    int width = h->col_width[c];
    int rc = STSL_OK;
    if (data && *data) {
        g->data = *data;
        *data = NULL;
    } else {
        rc = stsl_h5_read_matrix(h->path, h->col_names[c], &g->data, &rows, &width, err);
    }
    if (rc) return rc;
    if (rows != n)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: /trajectory/%s has %ld rows, /trajectory/t %ld", h->path,
                              h->col_names[c], rows, n);
    if (describe_group(g, h->col_names[c], h->col_units[c], width,
                       (const char *const *)h->col_members[c], h->col_n_values[c],
                       (const char *const *)h->col_values[c]))
        return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", h->path);
    return STSL_OK;
}

/* Event o at t of `kind` about `subject` (1 + index into names; 0: none). */
static void put_event(stsl_h5_sys_event *o, double t, const char *kind, int subject,
                      const char *const *names)
{
    o->t = t;
    snprintf(o->kind, sizeof o->kind, "%s", kind);
    o->index = subject - 1;
    snprintf(o->name, sizeof o->name, "%s", subject > 0 ? names[subject - 1] : "");
}

static int take_events(const stsl_h5_result *h, stsl_h5_system *s, stsl_error *err)
{
    s->n_events = h->n_events;
    if (!(s->events = calloc((size_t)h->n_events + 1, sizeof *s->events)))
        return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %ld events", h->path,
                              h->n_events);
    for (long i = 0; i < h->n_events; i++)
        put_event(&s->events[i], h->events[i].t, h->events[i].kind, h->events[i].subject,
                  (const char *const *)h->subject_names);
    return STSL_OK;
}

static int take_all(const stsl_h5_result *h, long n, double **t, double **data, stsl_h5_system *s,
                    stsl_error *err)
{
    snprintf(s->message, sizeof s->message, "%s", h->message);
    snprintf(s->time_units, sizeof s->time_units, "%s", h->time_units);
    s->complete = h->complete;
    int rc = STSL_OK;
    if (t && *t) {
        s->t = *t;
        s->n_samples = n;
        *t = NULL;
    } else {
        rc = stsl_h5_read_column(h->path, "t", &s->t, &s->n_samples, err);
    }
    for (int c = 0; !rc && c < h->n_cols; c++) {
        if (s->n_groups == STSL_H5S_MAX_GROUPS)
            return stsl_error_set(err, STSL_EINPUT, "%s: /trajectory has more than %d datasets",
                                  h->path, STSL_H5S_MAX_GROUPS);
        rc = take_group(h, c, s->n_samples, data ? &data[c] : NULL, &s->groups[s->n_groups++], err);
    }
    return rc ? rc : take_events(h, s, err);
}

/* ---- public ------------------------------------------------------------------- */

static int is_system(const char *path)
{
    if (!path || H5Fis_hdf5(path) <= 0) return 0;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), traj = -1;
    int yes = f >= 0 && H5Lexists(f, "trajectory", H5P_DEFAULT) > 0 &&
              (traj = H5Gopen2(f, "trajectory", H5P_DEFAULT)) >= 0 && traj_is_system(traj);
    if (traj >= 0) H5Gclose(traj);
    if (f >= 0) H5Fclose(f);
    return yes;
}

int stsl_h5_is_system(const char *path)
{
    STSL_H5_RETURN_QUIET(is_system(path));
}

int stsl_h5_system_read(const char *path, stsl_h5_system *s, stsl_error *err)
{
    memset(s, 0, sizeof *s);
    if (!stsl_h5_is_system(path))
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: not the result of a system of bodies (no 2-D /trajectory/x)",
                              path);
    stsl_h5_result h;
    int rc = stsl_h5_read(path, &h, err); /* io/result/h5_read keeps HDF5 quiet itself */
    if (rc) return rc;
    rc = stsl_h5_system_from(&h, 0, NULL, NULL, s, err);
    stsl_h5_result_free(&h);
    return rc;
}

int stsl_h5_system_from(const stsl_h5_result *h, long n, double **t, double **data,
                        stsl_h5_system *s, stsl_error *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", h->path);
    int rc = take_all(h, n, t, data, s, err);
    if (rc) stsl_h5_system_free(s);
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
    memset(s, 0, sizeof *s);
}

const stsl_h5_group *stsl_h5_system_group(const stsl_h5_system *s, const char *name)
{
    for (int g = 0; g < s->n_groups; g++)
        if (!strcmp(s->groups[g].name, name)) return &s->groups[g];
    return NULL;
}

/* ---- a run's rows as a result -------------------------------------------------- */

/* Columns [first, first + width) of `rows` into g (a group of the layout
 * when lg is given, else the column of its own `c`). */
static int group_of_rows(const stsl_layout *l, const stsl_col_group *lg, int c, const double *rows,
                         long n, stsl_h5_group *g)
{
    int first = lg ? lg->first : c, width = lg ? lg->width : 1;
    const stsl_column *col = &l->cols[first];
    if (lg ? describe_group(g, lg->name, lg->units, width, lg->member_names, lg->n_value_names,
                            lg->value_names)
           : describe_group(g, col->name, col->units, 0, NULL, 0, NULL))
        return -1;
    if (!(g->data = malloc(sizeof *g->data * ((size_t)n * (size_t)width + 1)))) return -1;
    for (long i = 0; i < n; i++)
        for (int m = 0; m < width; m++)
            g->data[(size_t)i * (size_t)width + (size_t)m] =
                rows[(size_t)i * (size_t)l->n_cols + (size_t)(first + m)];
    return 0;
}

static int take_run_events(const stsl_mem_result *mr, stsl_h5_system *s)
{
    const stsl_layout *l = &mr->layout;
    if (!(s->events = calloc((size_t)mr->n_events + 1, sizeof *s->events))) return -1;
    s->n_events = mr->n_events;
    for (long i = 0; i < mr->n_events; i++) {
        const stsl_mem_event *e = &mr->events[i];
        put_event(&s->events[i], e->t,
                  e->kind >= 0 && e->kind < l->n_kinds ? l->kind_names[e->kind] : "?", e->subject,
                  l->subject_names);
    }
    return 0;
}

int stsl_h5_system_of_run(const char *name, const stsl_mem_result *mr, const double *t,
                          const double *rows, long n, stsl_h5_system *s, stsl_error *err)
{
    const stsl_layout *l = &mr->layout;
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", name);
    snprintf(s->time_units, sizeof s->time_units, "%s", l->time_units ? l->time_units : "");
    s->complete = mr->complete;
    int ok = (s->t = malloc(sizeof *s->t * (size_t)(n + 1))) != NULL && take_run_events(mr, s) == 0;
    if (ok) memcpy(s->t, t, sizeof *s->t * (size_t)n);
    s->n_samples = n;
    for (int c = 0; ok && c < l->n_cols; c++) {
        int gi = stsl_layout_group_of(l, c);
        if (gi >= 0 && l->groups[gi].first != c) continue; /* inside a group already taken */
        if (s->n_groups == STSL_H5S_MAX_GROUPS) {
            stsl_h5_system_free(s);
            return stsl_error_set(err, STSL_EINPUT, "%s: more than %d datasets", name,
                                  STSL_H5S_MAX_GROUPS);
        }
        ok = group_of_rows(l, gi >= 0 ? &l->groups[gi] : NULL, c, rows, n,
                           &s->groups[s->n_groups++]) == 0;
    }
    if (ok) return STSL_OK;
    stsl_h5_system_free(s);
    return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %ld samples", name, n);
}

void stsl_h5_group_flags(const stsl_h5_system *s, const stsl_h5_group *g, int m, const char *value,
                         unsigned char *flags)
{
    int want = -1;
    for (int k = 0; g && k < g->n_values; k++)
        if (!strcmp(g->values[k], value)) want = k;
    for (long i = 0; i < s->n_samples; i++)
        flags[i] = (unsigned char)(want >= 0 && (int)stsl_h5_group_at(g, i, m) == want);
}

double stsl_h5_time_in(const stsl_h5_system *s, const stsl_h5_group *g, int m, const char *value)
{
    unsigned char *f = malloc((size_t)s->n_samples + 1);
    if (!f) return NAN;
    stsl_h5_group_flags(s, g, m, value, f);
    stsl_cmp_stuck held;
    stsl_compare_stuck_held(s->t, f, f, s->n_samples, &held);
    free(f);
    return held.ref_time;
}

/* ---- `stickslip info` of a system: per body, contact and stop ----------------- */

/* Events of `kind` (NULL: any) about subject `index`. */
static long count_events(const stsl_h5_system *s, const char *kind, int index)
{
    long n = 0;
    for (long i = 0; i < s->n_events; i++)
        n += s->events[i].index == index && (!kind || !strcmp(s->events[i].kind, kind));
    return n;
}

/* Per body: final x, v and the range of x. */
static void print_bodies(const stsl_h5_system *s, FILE *out)
{
    const stsl_h5_group *x = stsl_h5_system_group(s, "x"), *v = stsl_h5_system_group(s, "v");
    long last = s->n_samples - 1;
    if (!x || last < 0) return;
    char h[4][48];
    snprintf(h[0], sizeof h[0], "final x [%s]", x->units);
    snprintf(h[1], sizeof h[1], "final v [%s]", v ? v->units : "");
    snprintf(h[2], sizeof h[2], "min x [%s]", x->units);
    snprintf(h[3], sizeof h[3], "max x [%s]", x->units);
    fprintf(out, "Bodies:      %d\n  %-16s %16s %16s %16s %16s\n", x->width, "body", h[0], h[1],
            h[2], h[3]);
    for (int m = 0; m < x->width; m++) {
        double lo = INFINITY, hi = -INFINITY;
        for (long i = 0; i <= last; i++) {
            lo = fmin(lo, stsl_h5_group_at(x, i, m));
            hi = fmax(hi, stsl_h5_group_at(x, i, m));
        }
        double vf = v && v->width == x->width ? stsl_h5_group_at(v, last, m) : NAN;
        fprintf(out, "  %-16s %16.9g %16.9g %16.9g %16.9g\n", x->members[m],
                stsl_h5_group_at(x, last, m), vf, lo, hi);
    }
}

/* Per contact: time stuck, stick and breakaway events, largest |friction|. */
static void print_contacts(const stsl_h5_system *s, FILE *out)
{
    const stsl_h5_group *cm = stsl_h5_system_group(s, "contact_mode"),
                        *fr = stsl_h5_system_group(s, "friction");
    if (!cm) return;
    double span = s->n_samples > 0 ? s->t[s->n_samples - 1] - s->t[0] : 0.0;
    char h[2][48];
    snprintf(h[0], sizeof h[0], "time stuck [%s]", s->time_units);
    snprintf(h[1], sizeof h[1], "max |friction| [%s]", fr ? fr->units : "");
    fprintf(out, "Contacts:    %d\n  %-16s %18s %8s %8s %10s %*s\n", cm->width, "contact", h[0],
            "stuck %", "sticks", "breakaways", stsl_text_field(h[1], 20), h[1]);
    for (int m = 0; m < cm->width; m++) {
        double stuck = stsl_h5_time_in(s, cm, m, "STUCK"), fmax_abs = 0.0;
        for (long i = 0; fr && m < fr->width && i < s->n_samples; i++)
            fmax_abs = fmax(fmax_abs, fabs(stsl_h5_group_at(fr, i, m)));
        fprintf(out, "  %-16s %18.9g %8.2f %8ld %10ld %20.9g\n", cm->members[m], stuck,
                span > 0 ? 100.0 * stuck / span : 0.0, count_events(s, "stick", m),
                count_events(s, "breakaway", m), fr ? fmax_abs : NAN);
    }
}

/* Per stop: contacts (rigid: stop_contact, compliant: contact_begin), impacts. */
static void print_stops(const stsl_h5_system *s, FILE *out, int first_subject)
{
    const stsl_h5_group *sm = stsl_h5_system_group(s, "stop_mode");
    if (!sm) return;
    char h[48];
    snprintf(h, sizeof h, "time in contact [%s]", s->time_units);
    fprintf(out, "Stops:       %d\n  %-16s %9s %9s %22s\n", sm->width, "stop", "contacts",
            "impacts", h);
    for (int m = 0; m < sm->width; m++) {
        int subj = first_subject + m;
        long contacts =
            count_events(s, "stop_contact", subj) + count_events(s, "contact_begin", subj);
        double t_in = stsl_h5_time_in(s, sm, m, "LOW") + stsl_h5_time_in(s, sm, m, "HIGH");
        fprintf(out, "  %-16s %9ld %9ld %22.9g\n", sm->members[m], contacts,
                count_events(s, "impact", subj), t_in);
    }
}

void stsl_h5_print_system_info(const stsl_h5_result *res, const stsl_h5_system *s, FILE *out,
                               long max_events)
{
    print_head(res, 1, out);
    print_bodies(s, out);
    print_contacts(s, out);
    const stsl_h5_group *cm = stsl_h5_system_group(s, "contact_mode");
    print_stops(s, out, cm ? cm->width : 0); /* subjects: contacts, then stops */
    print_counts(res, 1, out);
    if (s->n_events == 0) return;
    char h[32];
    snprintf(h, sizeof h, "t [%s]", s->time_units);
    fprintf(out, "\n%18s  %-16s %s\n", h, "kind", "subject");
    long shown = max_events < 0 || max_events > s->n_events ? s->n_events : max_events;
    for (long i = 0; i < shown; i++)
        fprintf(out, "%18.12g  %-16s %s\n", s->events[i].t, s->events[i].kind,
                s->events[i].index >= 0 ? s->events[i].name : "-");
    if (shown < s->n_events) fprintf(out, "... %ld more\n", s->n_events - shown);
}
