/* mat_result.c - a MAT result read back (mat_result.h).  The variables are
 * those io/result/mat_sink.c writes; matio reads them, mat_candidate.c's helpers
 * turn its elements into numbers. */
#include "io/result/mat_result.h"

#include <errno.h>
#include <iconv.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <matio.h>

#include "io/result/h5_bounds.h"
#include "io/result/h5_types.h"
#include "io/result/mat_sink.h"
#include "io/candidate/mat_candidate.h"

/* The file being read, for messages and the size bound. */
typedef struct rd {
    mat_t *mat;
    const char *path;
    double room; /* bytes a variable may claim: file size x STSL_FILTER_RATIO */
    stsl_error *err;
} rd;

static int bad(const rd *r, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return stsl_error_set(r->err, STSL_EINPUT, "%s: %s", r->path, msg);
}

static int no_memory(const rd *r)
{
    return stsl_error_set(r->err, STSL_ENOMEM, "%s: out of memory", r->path);
}

/* Why text_of gave no text for v, named `what`: not char data, or (errno,
 * as text_of left it) memory or the converter. */
static int not_text(const rd *r, const matvar_t *v, const char *what)
{
    if (!v || v->class_type != MAT_C_CHAR) return bad(r, "%s is not text", what);
    if (errno == ENOMEM) return no_memory(r);
    return stsl_error_set(r->err, STSL_EIO, "%s: %s: no UTF-16 to UTF-8 converter (iconv: %s)",
                          r->path, what, strerror(errno));
}

int stsl_mat_result_file(const char *path)
{
    static const unsigned char hdf5[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8] = {0};
    size_t n = 0;
    FILE *f = fopen(path, "rb");
    if (f) {
        n = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    if (n >= 6 && !memcmp(head, "MATLAB", 6)) return 1;
    return stsl_mat_path(path) && !(n == sizeof head && !memcmp(head, hdf5, sizeof hdf5));
}

/* ---- variables and their parts ----------------------------------------------- */

/* Bytes the variable (with its fields or cells) declares, counted as 8 per
 * element: a bound, computed before matio allocates anything. */
static double claimed(const matvar_t *v, int depth)
{
    double n = 1.0;
    for (int k = 0; k < v->rank; k++)
        n *= (double)v->dims[k];
    double bytes = 8.0 * n;
    if (depth > 4 || n > 1e6) return bytes; /* our files nest two deep; counting stops */
    if (v->class_type == MAT_C_STRUCT) {
        unsigned nf = Mat_VarGetNumberOfFields((matvar_t *)v);
        for (size_t i = 0; i < (size_t)n; i++)
            for (unsigned f = 0; f < nf; f++) {
                const matvar_t *c = Mat_VarGetStructFieldByIndex((matvar_t *)v, f, i);
                if (c) bytes += claimed(c, depth + 1);
            }
    } else if (v->class_type == MAT_C_CELL) {
        for (size_t i = 0; i < (size_t)n; i++) {
            const matvar_t *c = Mat_VarGetCell((matvar_t *)v, (int)i);
            if (c) bytes += claimed(c, depth + 1);
        }
    }
    return bytes;
}

/* The top-level variable `name`; NULL with *rc = 0 when it is absent and
 * optional. */
static matvar_t *read_var(const rd *r, const char *name, int required, int *rc)
{
    *rc = STSL_OK;
    matvar_t *info = Mat_VarReadInfo(r->mat, name);
    if (!info) {
        if (required)
            *rc = bad(r,
                      "not a stickslip result: no variable '%s' (a MAT result of `stickslip "
                      "run -o OUT.mat` has trajectory, events, units, stats, config, ...)",
                      name);
        return NULL;
    }
    double claim = claimed(info, 0);
    Mat_VarFree(info);
    if (claim > r->room) {
        *rc = bad(r,
                  "variable '%s' claims %.3g bytes, more than the file can hold: a damaged "
                  "or crafted file",
                  name, claim);
        return NULL;
    }
    matvar_t *v = Mat_VarRead(r->mat, name);
    if (!v) *rc = bad(r, "cannot read variable '%s' (damaged file?)", name);
    return v;
}

static const matvar_t *field(const matvar_t *s, const char *name)
{
    if (!s || s->class_type != MAT_C_STRUCT) return NULL;
    return Mat_VarGetStructFieldByName((matvar_t *)s, name, 0);
}

static int is_struct1(const matvar_t *v)
{
    return v && v->class_type == MAT_C_STRUCT && stsl_mat_numel(v) == 1;
}

/* The text of a char variable as UTF-8 (malloc'd); NULL when v is not
 * char, out of memory or without the converter (errno says which, for
 * not_text).  The writer stores UTF-16
 * code units (miUTF16); 8-bit data is taken as UTF-8 bytes.  An unpaired
 * surrogate becomes U+FFFD: glibc's iconv stops there (EILSEQ, or EINVAL
 * for a high surrogate ending the text) with `in` at that unit, so writing
 * U+FFFD and stepping one unit is exactly the replacement, and a high
 * surrogate followed by a non-surrogate keeps the unit after it. */
static char *text_of(const matvar_t *v)
{
    if (!v || v->class_type != MAT_C_CHAR) return NULL;
    size_t n = v->data ? stsl_mat_numel(v) : 0, out_left = 3 * n + 1; /* a unit gives <= 3 bytes */
    int bytes =
        v->data_type == MAT_T_UTF8 || v->data_type == MAT_T_UINT8 || v->data_type == MAT_T_INT8;
    char *s = malloc(out_left), *outp = s;
    uint16_t *w = bytes ? NULL : malloc(sizeof *w * (n ? n : 1));
    static const uint16_t one = 1;
    iconv_t cd = bytes
                     ? (iconv_t)-1
                     : iconv_open("UTF-8", *(const unsigned char *)&one ? "UTF-16LE" : "UTF-16BE");
    if (!s || (!bytes && (!w || cd == (iconv_t)-1))) {
        int cause = errno;
        free(s);
        free(w);
        if (cd != (iconv_t)-1) iconv_close(cd);
        errno = cause;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) { /* matio's element, whatever its storage */
        unsigned long u = (unsigned long)stsl_mat_element(v, i);
        if (bytes)
            *outp++ = (char)u;
        else /* a value beyond 16 bits is no UTF-16 unit: U+FFFD, not its low half */
            w[i] = u > 0xFFFF ? 0xFFFD : (uint16_t)u;
    }
    char *in = (char *)w;
    size_t in_left = bytes ? 0 : sizeof *w * n;
    out_left -= (size_t)(outp - s) + 1;
    while (in_left && iconv(cd, &in, &in_left, &outp, &out_left) == (size_t)-1) {
        memcpy(outp, "\xef\xbf\xbd", 3); /* U+FFFD: 3 bytes, as the unit's bound */
        outp += 3;
        out_left -= 3;
        in += sizeof *w;
        in_left -= sizeof *w;
    }
    *outp = '\0';
    if (cd != (iconv_t)-1) iconv_close(cd);
    free(w);
    return s;
}

/* Text into a fixed buffer; "" for an absent field. */
static int text_into(const rd *r, const matvar_t *v, const char *what, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!v) return STSL_OK;
    char *s = text_of(v);
    if (!s) return not_text(r, v, what);
    snprintf(buf, size, "%s", s);
    free(s);
    return STSL_OK;
}

/* A cell of n texts as malloc'd strings. */
static int cell_texts(const rd *r, const matvar_t *v, const char *what, char ***out, int *n)
{
    *out = NULL;
    *n = 0;
    if (!v || v->class_type != MAT_C_CELL) return bad(r, "%s is not a cell array of text", what);
    size_t count = stsl_mat_numel(v);
    if (count > 100000) return bad(r, "%s: %zu names", what, count);
    char **s = calloc(count ? count : 1, sizeof *s);
    if (!s) return no_memory(r);
    for (size_t i = 0; i < count; i++) {
        const matvar_t *c = Mat_VarGetCell((matvar_t *)v, (int)i);
        if (!(s[i] = text_of(c))) {
            char item[160];
            snprintf(item, sizeof item, "%s{%zu}", what, i + 1);
            int rc = not_text(r, c, item); /* before free: it reads errno */
            stsl_h5_free_strs(s, (int)i);
            return rc;
        }
    }
    *out = s;
    *n = (int)count;
    return STSL_OK;
}

/* A real numeric rows x cols matrix (rows given: -1 takes the variable's). */
static int matrix(const rd *r, const matvar_t *v, const char *what, long *rows, size_t *cols)
{
    if (!v) return bad(r, "no %s", what);
    if (!stsl_mat_is_numeric(v) && stsl_mat_numel(v) > 0)
        return bad(r, "%s is not real numbers", what);
    if (v->rank != 2) return bad(r, "%s has %d dimensions, expected 2", what, v->rank);
    if (*rows >= 0 && v->dims[0] != (size_t)*rows)
        return bad(r, "%s has %zu rows, expected %ld", what, v->dims[0], *rows);
    *rows = (long)v->dims[0];
    *cols = v->dims[1];
    return STSL_OK;
}

static double scalar(const matvar_t *v, double fallback)
{
    return v && stsl_mat_is_numeric(v) && stsl_mat_numel(v) == 1 ? stsl_mat_element(v, 0)
                                                                 : fallback;
}

/* ---- the result's parts --------------------------------------------------------- */

static int read_root(const rd *r, stsl_h5_result *res)
{
    int rc;
    matvar_t *v = read_var(r, "program", 1, &rc);
    if (!rc) rc = text_into(r, v, "variable 'program'", res->program, sizeof res->program);
    Mat_VarFree(v);
    if (!rc && strcmp(res->program, "stickslip"))
        rc = bad(r, "not a stickslip result (variable program is '%s')", res->program);
    static const struct {
        const char *name;
        size_t off, size;
    } texts[] = {{"version", offsetof(stsl_h5_result, version), sizeof res->version},
                 {"created_utc", offsetof(stsl_h5_result, created_utc), sizeof res->created_utc},
                 {"message", offsetof(stsl_h5_result, message), sizeof res->message}};
    for (size_t i = 0; !rc && i < sizeof texts / sizeof texts[0]; i++) {
        v = read_var(r, texts[i].name, 1, &rc);
        if (!rc) rc = text_into(r, v, texts[i].name, (char *)res + texts[i].off, texts[i].size);
        Mat_VarFree(v);
    }
    if (!rc && (v = read_var(r, "complete", 1, &rc))) {
        double c = scalar(v, NAN);
        if (c != 0.0 && c != 1.0) rc = bad(r, "variable 'complete' is not 0 or 1");
        res->complete = c == 1.0;
        Mat_VarFree(v);
    }
    if (!rc && (v = read_var(r, "config", 1, &rc))) {
        if (!(res->config_yaml = text_of(v))) rc = not_text(r, v, "variable 'config'");
        Mat_VarFree(v);
    }
    return rc;
}

/* Names of modes or kinds into fixed rows. */
static int names_into(const rd *r, const char *var, char (*rows)[24], int max, int *n)
{
    int rc, count = 0;
    char **s = NULL;
    matvar_t *v = read_var(r, var, 1, &rc);
    if (!rc) rc = cell_texts(r, v, var, &s, &count);
    if (!rc && count > max) rc = bad(r, "%s: %d names, at most %d", var, count, max);
    for (int i = 0; !rc && i < count; i++)
        snprintf(rows[i], sizeof rows[0], "%s", s[i]);
    if (!rc) *n = count;
    stsl_h5_free_strs(s, count);
    Mat_VarFree(v);
    return rc;
}

/* Column c of the trajectory, field f: its values, width and names. */
static int read_column(const rd *r, const matvar_t *f, const char *name, const matvar_t *units,
                       const matvar_t *names, const matvar_t *vnames, stsl_h5_result *res,
                       stsl_mat_arrays *a)
{
    char what[96];
    snprintf(what, sizeof what, "trajectory.%s", name);
    if (res->n_cols == STSL_H5_MAX_COLS)
        return bad(r, "trajectory has more than %d columns", STSL_H5_MAX_COLS);
    long n = a->n;
    size_t w = 0;
    int rc = matrix(r, f, what, &n, &w);
    const matvar_t *members = field(names, name);
    if (!rc && !members && w != 1) rc = bad(r, "%s is %ld x %zu, expected %ld x 1", what, n, w, n);
    if (!rc && w > 64) rc = bad(r, "%s: %zu members", what, w);
    if (rc) return rc;
    int c = res->n_cols, width = members ? (int)w : 0, nm = 0;
    snprintf(res->col_names[c], sizeof res->col_names[c], "%s", name);
    if ((rc = text_into(r, field(units, name), what, res->col_units[c], sizeof res->col_units[c])))
        return rc;
    if (members && (rc = cell_texts(r, members, what, &res->col_members[c], &nm))) return rc;
    res->n_cols++; /* from here its names are freed with res */
    res->col_width[c] = width;
    if (members && nm != width)
        return bad(r, "names.%s has %d names for the %d columns of %s", name, nm, width, what);
    const matvar_t *values = field(vnames, name);
    res->col_integer[c] = f->class_type == MAT_C_INT8;
    if (values && (rc = cell_texts(r, values, what, &res->col_values[c], &res->col_n_values[c])))
        return rc;
    size_t wd = w ? w : 1;
    double *d = malloc(sizeof *d * ((size_t)n * wd + 1));
    if (!d) return no_memory(r);
    for (size_t i = 0; i < (size_t)n; i++)
        for (size_t k = 0; k < wd; k++)
            d[i * wd + k] = stsl_mat_element(f, i + k * (size_t)n); /* MATLAB's column-major */
    a->cols[c] = d;
    return STSL_OK;
}

/* A 1-D n x 1 field as a malloc'd array. */
static int column_of(const rd *r, const matvar_t *f, const char *what, long *n, double **out)
{
    size_t w = 0;
    int rc = matrix(r, f, what, n, &w);
    if (!rc && w != 1) rc = bad(r, "%s is %ld x %zu, expected %ld x 1", what, *n, w, *n);
    if (rc) return rc;
    if (!(*out = malloc(sizeof **out * ((size_t)*n + 1)))) return no_memory(r);
    for (long i = 0; i < *n; i++)
        (*out)[i] = stsl_mat_element(f, (size_t)i);
    return STSL_OK;
}

static int read_trajectory(const rd *r, const matvar_t *traj, const matvar_t *units,
                           const matvar_t *names, const matvar_t *vnames, stsl_h5_result *res,
                           stsl_mat_arrays *a)
{
    if (!is_struct1(traj)) return bad(r, "variable 'trajectory' is not a 1 x 1 struct");
    if (!is_struct1(units)) return bad(r, "variable 'units' is not a 1 x 1 struct");
    a->n = -1;
    int rc = column_of(r, field(traj, "t"), "trajectory.t", &a->n, &a->t);
    /* A system's file has names and no scalar mode (its modes are groups). */
    if (!rc && !names) rc = column_of(r, field(traj, "mode"), "trajectory.mode", &a->n, &a->mode);
    unsigned nf = Mat_VarGetNumberOfFields((matvar_t *)traj);
    char *const *fn = Mat_VarGetStructFieldnames(traj);
    for (unsigned k = 0; !rc && k < nf; k++) {
        if (!strcmp(fn[k], "t") || (!names && !strcmp(fn[k], "mode"))) continue;
        rc = read_column(r, Mat_VarGetStructFieldByIndex((matvar_t *)traj, k, 0), fn[k], units,
                         names, vnames, res, a);
    }
    if (rc) return rc;
    res->n_samples = a->n;
    res->t_first = a->n > 0 ? a->t[0] : NAN;
    res->t_last = a->n > 0 ? a->t[a->n - 1] : NAN;
    stsl_h5_result_describe(res); /* no long names: no quantities */
    return text_into(r, field(units, "t"), "units", res->time_units, sizeof res->time_units);
}

/* Event values: of the element's scalar columns; NaN in a system's file
 * (arrays there, as the HDF5 reader leaves them). */
static int event_value(const rd *r, const matvar_t *ev, const char *name, long m, int system,
                       stsl_h5_event *events, size_t off)
{
    char what[64];
    snprintf(what, sizeof what, "events.%s", name);
    const matvar_t *f = field(ev, name);
    size_t w = 0;
    long rows = m;
    int rc = matrix(r, f, what, &rows, &w);
    if (!rc && !system && w != 1) rc = bad(r, "%s is %ld x %zu, expected %ld x 1", what, m, w, m);
    for (long i = 0; !rc && i < m; i++)
        *(double *)((char *)&events[i] + off) = system ? NAN : stsl_mat_element(f, (size_t)i);
    return rc;
}

static int read_events(const rd *r, const matvar_t *ev, int system, stsl_h5_result *res)
{
    if (!is_struct1(ev)) return bad(r, "variable 'events' is not a 1 x 1 struct");
    long m = -1;
    size_t w = 0;
    int rc = matrix(r, field(ev, "t"), "events.t", &m, &w);
    if (rc) return rc;
    if (!(res->events = calloc((size_t)m + 1, sizeof *res->events))) return no_memory(r);
    res->n_events = m;
    char **kinds = NULL;
    int nk = 0;
    rc = cell_texts(r, field(ev, "kind"), "events.kind", &kinds, &nk);
    if (!rc && nk != m) rc = bad(r, "events.kind has %d rows, events.t %ld", nk, m);
    /* The modes, and a system's subject indices. */
    const char *ints[3] = {"mode_before", "mode_after", "index"};
    const matvar_t *mf[3] = {field(ev, ints[0]), field(ev, ints[1]), field(ev, ints[2])};
    for (int k = 0; !rc && k < (system ? 3 : 2); k++) {
        long rows = m;
        char what[32];
        snprintf(what, sizeof what, "events.%s", ints[k]);
        rc = matrix(r, mf[k], what, &rows, &w);
    }
    for (long i = 0; !rc && i < m; i++) {
        stsl_h5_event *e = &res->events[i];
        e->t = stsl_mat_element(field(ev, "t"), (size_t)i);
        snprintf(e->kind, sizeof e->kind, "%s", kinds[i]);
        e->mode_before = (int)stsl_mat_element(mf[0], (size_t)i);
        e->mode_after = (int)stsl_mat_element(mf[1], (size_t)i);
        e->subject = system ? (int)stsl_mat_element(mf[2], (size_t)i) + 1 : 0;
        if (e->subject < 0 || e->subject > res->n_subjects)
            rc = bad(r, "events.index %d out of range (-1..%d: subject_names)", e->subject - 1,
                     res->n_subjects - 1);
    }
    stsl_h5_free_strs(kinds, nk);
    static const size_t off[STSL_H5_EVENT_VALUES] = {
        offsetof(stsl_h5_event, x), offsetof(stsl_h5_event, v_before),
        offsetof(stsl_h5_event, v_after), offsetof(stsl_h5_event, net_force),
        offsetof(stsl_h5_event, friction)};
    for (int k = 0; !rc && k < STSL_H5_EVENT_VALUES; k++)
        rc = event_value(r, ev, stsl_h5_event_members[4 + k], m, system, res->events, off[k]);
    return rc;
}

static int read_stats(const rd *r, const matvar_t *st, stsl_h5_result *res)
{
    if (!is_struct1(st)) return bad(r, "variable 'stats' is not a 1 x 1 struct");
    stsl_stats *s = &res->stats;
    struct {
        const char *name;
        long *val;
    } counts[] = {{"steps", &s->steps},
                  {"rhs_evals", &s->rhs_evals},
                  {"guard_evals", &s->guard_evals},
                  {"events", &s->events},
                  {"segments", &s->segments}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        double v = scalar(field(st, counts[i].name), NAN);
        if (!(v >= 0 && v < 9e18)) return bad(r, "stats.%s is not a count", counts[i].name);
        *counts[i].val = (long)v;
    }
    s->jac_evals = (long)scalar(field(st, "jac_evals"), 0.0);
    s->wall_seconds = scalar(field(st, "wall_seconds"), NAN);
    for (int k = 0; k < s->n_modes; k++) {
        char name[40];
        snprintf(name, sizeof name, "time_%s", res->mode_names[k]);
        if (isnan(s->mode_time[k] = scalar(field(st, name), NAN)))
            return bad(r, "no stats.%s", name);
    }
    s->verify = (int)scalar(field(st, "verify"), 0.0);
    if (s->verify < STSL_VERIFY_NONE || s->verify > STSL_VERIFY_FAILED)
        return bad(r, "stats.verify is %d, expected 0 to 3", s->verify);
    s->verify_rtol = scalar(field(st, "verify_rtol"), 0.0);
    s->err_event_time = scalar(field(st, "estimated_error_event_time"), NAN);
    s->err_x = scalar(field(st, "estimated_error_x"), NAN);
    s->err_v = scalar(field(st, "estimated_error_v"), NAN);
    s->diff_event = -1;                /* not in a MAT file */
    if (s->verify != STSL_VERIFY_NONE) /* the HDF5 writer's attribute, from the units */
        snprintf(res->err_units, sizeof res->err_units,
                 "estimated_error_event_time [%s], estimated_error_x [%s], estimated_error_v [%s]",
                 res->time_units, res->x_units, res->v_units);
    return STSL_OK;
}

/* ---- entry -------------------------------------------------------------------- */

enum { V_TRAJ, V_EVENTS, V_UNITS, V_STATS, V_NAMES, V_VNAMES, V_SUBJECTS, N_VARS };

static int read_all(const rd *r, stsl_h5_result *res, stsl_mat_arrays *a)
{
    static const char *const names[N_VARS] = {"trajectory", "events",      "units",        "stats",
                                              "names",      "value_names", "subject_names"};
    matvar_t *v[N_VARS] = {0};
    int rc = read_root(r, res);
    for (int k = 0; !rc && k < N_VARS; k++)
        v[k] = read_var(r, names[k], k < V_NAMES, &rc);
    if (!rc && v[V_NAMES] && !is_struct1(v[V_NAMES]))
        rc = bad(r, "variable 'names' is not a 1 x 1 struct");
    if (!rc) rc = names_into(r, "mode_names", res->mode_names, STSL_MAX_MODES, &res->stats.n_modes);
    if (!rc) rc = names_into(r, "kind_names", res->kind_names, STSL_H5_MAX_KINDS, &res->n_kinds);
    if (!rc && v[V_SUBJECTS])
        rc = cell_texts(r, v[V_SUBJECTS], "subject_names", &res->subject_names, &res->n_subjects);
    if (!rc) rc = read_trajectory(r, v[V_TRAJ], v[V_UNITS], v[V_NAMES], v[V_VNAMES], res, a);
    if (!rc) rc = read_events(r, v[V_EVENTS], v[V_NAMES] != NULL, res);
    if (!rc) rc = read_stats(r, v[V_STATS], res);
    for (int k = 0; k < N_VARS; k++)
        Mat_VarFree(v[k]);
    return rc;
}

int stsl_mat_result_read(const char *path, stsl_h5_result *res, stsl_mat_arrays *a, stsl_error *err)
{
    memset(res, 0, sizeof *res);
    memset(a, 0, sizeof *a);
    res->t_first = res->t_last = NAN;
    snprintf(res->path, sizeof res->path, "%s", path);
    struct stat st;
    if (stat(path, &st) != 0)
        return stsl_error_set(err, STSL_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return stsl_error_set(err, STSL_EINPUT, "%s: is a directory, not a result file", path);
    stsl_mat_quiet();
    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    if (!mat)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: not a MAT file matio can read (MAT v4, v5, "
                              "v7 or v7.3)",
                              path);
    rd r = {mat, path, (double)st.st_size * STSL_FILTER_RATIO, err};
    int rc = read_all(&r, res, a);
    Mat_Close(mat);
    if (rc) {
        stsl_h5_result_free(res);
        stsl_mat_arrays_free(a);
    }
    return rc;
}

void stsl_mat_arrays_free(stsl_mat_arrays *a)
{
    if (!a) return;
    free(a->t);
    free(a->mode);
    for (int c = 0; c < STSL_H5_MAX_COLS; c++)
        free(a->cols[c]);
    memset(a, 0, sizeof *a);
}

/* ---- a system's result, either format ------------------------------------------ */

/* A MAT file's system: *s filled from its samples (they are taken), or the
 * error (not a system's result: the element's readers take it). */
static int mat_system(const char *path, stsl_h5_system *s, stsl_error *err)
{
    stsl_h5_result res;
    stsl_mat_arrays a = {0};
    memset(s, 0, sizeof *s);
    mat_t *checked = stsl_mat_open_checked(path, err); /* a candidate: any program's file */
    if (!checked) return err ? err->code : STSL_EINPUT;
    Mat_Close(checked);
    int rc = stsl_mat_result_read(path, &res, &a, err);
    if (rc) return rc;
    if (stsl_h5_result_is_system(&res))
        rc = stsl_h5_system_from(&res, a.n, &a.t, a.cols, s, err);
    else
        rc = stsl_error_set(err, STSL_EINPUT, "%s: not the result of a system of bodies", path);
    stsl_h5_result_free(&res);
    stsl_mat_arrays_free(&a);
    return rc;
}

int stsl_system_result_read(const char *path, stsl_h5_system *s, stsl_error *err)
{
    return stsl_mat_result_file(path) ? mat_system(path, s, err)
                                      : stsl_h5_system_read(path, s, err);
}

/* A candidate MAT file is checked before matio lists it (it may be any
 * program's); a system's result is stickslip's with a `names` variable
 * (mat_sink.h), which only the variables' headers need. */
int stsl_system_result_is(const char *path, stsl_error *damaged)
{
    if (!stsl_mat_result_file(path)) return stsl_h5_is_system(path);
    stsl_error e = {0};
    mat_t *mat = stsl_mat_open_checked(path, damaged ? damaged : &e);
    if (!mat) return 0;
    matvar_t *program = Mat_VarReadInfo(mat, "program"), *names = Mat_VarReadInfo(mat, "names");
    int is = program && names;
    Mat_VarFree(program);
    Mat_VarFree(names);
    Mat_Close(mat);
    return is;
}
