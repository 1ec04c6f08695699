/* candidate.c - reading the candidate trajectory of `stickslip compare`
 * from CSV or HDF5 (formats and messages in candidate.h). */
#include "io/candidate/candidate.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "io/candidate/column_map.h"
#include "io/result/h5_bounds.h"
#include "io/result/h5_types.h"
#include "io/candidate/mat_candidate.h"
#include "io/config/text_input.h"

/* Indices of the columns in the order t, x, v, friction. */
enum { COL_T = 0, COL_X, COL_V, COL_F, N_WANTED };

/* ---- common -------------------------------------------------------------------- */

int stsl_candidate_name_matches(const char *field, const char *name)
{
    size_t n = strlen(name);
    if (strncasecmp(field, name, n)) return 0;
    const char *p = field + n;
    if (!*p) return 1;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '[') return 0;
    const char *close = strchr(p, ']');
    return close && close[1] == '\0';
}

static int alloc_arrays(stsl_candidate *c, long cap, int with_friction, stsl_error *err)
{
    size_t sz = sizeof(double) * (size_t)(cap > 0 ? cap : 1);
    c->t = malloc(sz);
    c->x = malloc(sz);
    c->v = malloc(sz);
    c->friction = with_friction ? malloc(sz) : NULL;
    if (!c->t || !c->x || !c->v || (with_friction && !c->friction))
        return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %ld rows", c->path, cap);
    return STSL_OK;
}

/* Time may not decrease; it may repeat (a jump).  The message names the
 * row by its CSV line (`lines`) or its HDF5 dataset and index. */
typedef struct row_namer {
    const long *lines;   /* CSV: line of each row; NULL for HDF5 */
    const char *dataset; /* HDF5: "dataset /t"; MAT: "'tout'" */
} row_namer;

static int check_time(const stsl_candidate *c, const char *tname, const row_namer *rn,
                      stsl_error *err)
{
    for (long i = 1; i < c->n; i++) {
        if (c->t[i] >= c->t[i - 1]) continue;
        char msg[256];
        snprintf(msg, sizeof msg, "time %.17g goes back from %.17g (time must increase)", c->t[i],
                 c->t[i - 1]);
        if (rn->lines)
            return stsl_error_set(err, STSL_EINPUT, "%s:%ld: column '%s': %s", c->path,
                                  rn->lines[i], tname, msg);
        return stsl_error_set(err, STSL_EINPUT, "%s: %s: row %ld: %s", c->path, rn->dataset, i,
                              msg);
    }
    if (c->n < 2 || !(c->t[c->n - 1] > c->t[0]))
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: column '%s': needs at least two different times (%ld rows)",
                              c->path, tname, c->n);
    return STSL_OK;
}

/* ---- CSV ------------------------------------------------------------------------ */

/* Split `line` in place at `delim` into at most `max` trimmed fields
 * (surrounding double quotes removed); returns the number of fields. */
static int split_fields(char *line, char delim, char **fields, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *end = strchr(p, delim);
        if (end) *end = '\0';
        while (isspace((unsigned char)*p))
            p++;
        char *q = p + strlen(p);
        while (q > p && isspace((unsigned char)q[-1]))
            *--q = '\0';
        if (q - p >= 2 && *p == '"' && q[-1] == '"') {
            q[-1] = '\0';
            p++;
        }
        if (n < max) fields[n++] = p;
        if (!end) return n;
        p = end + 1;
    }
}

/* The next line of the text at *p, cut at its '\n' (and a '\r' before it,
 * as Windows writes); *p moves past it, to NULL after the last; NULL when
 * none is left. */
static char *next_line(char **p)
{
    char *line = *p;
    if (!line) return NULL;
    char *nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    *p = nl ? nl + 1 : NULL;
    size_t len = strlen(line);
    if (len && line[len - 1] == '\r') line[len - 1] = '\0';
    return line;
}

static int blank_or_comment(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0' || *s == '#';
}

/* Fields looked at per row: a wanted column further right is reported as
 * not in the header (no real export is that wide). */
#define MAX_FIELDS 1024

static int parse_number(const char *path, long line, const char *col, const char *s, double *out,
                        stsl_error *err)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end)
        return stsl_error_set(err, STSL_EINPUT, "%s:%ld: column '%s': not a number: '%s'", path,
                              line, col, s);
    if (!isfinite(d))
        return stsl_error_set(err, STSL_EINPUT, "%s:%ld: column '%s': not a finite number: '%s'",
                              path, line, col, s);
    *out = d;
    return STSL_OK;
}

static int read_csv(stsl_candidate *c, const char *const want[N_WANTED], int friction_required,
                    stsl_error *err)
{
    /* Bounded, no NUL, valid UTF-8, without a BOM (io/config/text_input). */
    char *text = NULL;
    size_t text_len = 0;
    int trc = stsl_text_read(c->path, &stsl_candidate_limits, &text, &text_len, err);
    if (trc) return trc;
    char **fields = malloc(sizeof *fields * MAX_FIELDS);
    long *lines = NULL;
    int rc = STSL_OK;
    if (!fields) {
        rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", c->path);
        goto done;
    }
    /* Count lines for the arrays (an upper bound on the rows). */
    long cap = 1;
    for (const char *p = text; *p; p++)
        cap += *p == '\n';
    char *p = text, *line;
    long lineno = 0;
    /* Header. */
    int idx[N_WANTED] = {-1, -1, -1, -1}, nf = 0, header_line = 0;
    char delim = ',';
    while ((line = next_line(&p))) {
        lineno++;
        if (blank_or_comment(line)) continue;
        if (!strchr(line, ',')) delim = strchr(line, ';') ? ';' : strchr(line, '\t') ? '\t' : ',';
        nf = split_fields(line, delim, fields, MAX_FIELDS);
        header_line = (int)lineno;
        break;
    }
    if (!header_line) {
        rc = stsl_error_set(err, STSL_EINPUT, "%s: empty: no header line with column names",
                            c->path);
        goto done;
    }
    for (int w = 0; w < N_WANTED; w++) {
        if (!want[w]) continue;
        for (int f = 0; f < nf; f++) {
            if (!stsl_candidate_name_matches(fields[f], want[w])) continue;
            if (idx[w] >= 0) {
                rc = stsl_error_set(err, STSL_EINPUT,
                                    "%s:%d: column '%s': ambiguous: matches '%s' and '%s'", c->path,
                                    header_line, want[w], fields[idx[w]], fields[f]);
                goto done;
            }
            idx[w] = f;
        }
        if (idx[w] < 0 && (w != COL_F || friction_required)) {
            char list[1024] = "";
            for (int f = 0; f < nf && strlen(list) < sizeof list - 80; f++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%.60s'",
                         f ? ", " : "", fields[f]);
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s:%d: column '%s': not in the header (columns: %s)", c->path,
                                header_line, want[w], list);
            goto done;
        }
    }
    lines = malloc(sizeof *lines * (size_t)cap);
    if (!lines || (rc = alloc_arrays(c, cap, idx[COL_F] >= 0, err))) {
        if (!rc) rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", c->path);
        goto done;
    }
    while ((line = next_line(&p))) {
        lineno++;
        if (blank_or_comment(line)) continue;
        int n = split_fields(line, delim, fields, MAX_FIELDS);
        double *dst[N_WANTED] = {c->t, c->x, c->v, c->friction};
        for (int w = 0; w < N_WANTED; w++) {
            if (idx[w] < 0) continue;
            if (idx[w] >= n) {
                rc = stsl_error_set(err, STSL_EINPUT,
                                    "%s:%ld: column '%s': missing (the row has %d fields, the "
                                    "header %d)",
                                    c->path, lineno, want[w], n, nf);
                goto done;
            }
            if ((rc = parse_number(c->path, lineno, want[w], fields[idx[w]], &dst[w][c->n], err)))
                goto done;
        }
        lines[c->n++] = lineno;
    }
    row_namer rn = {lines, NULL};
    rc = check_time(c, want[COL_T], &rn, err);
done:
    free(lines);
    free(fields);
    free(text);
    return rc;
}

/* ---- HDF5 ------------------------------------------------------------------------ */

/* Read the numeric dataset `spec` ("name" or "name:N", column_map.h) at
 * the root or under /trajectory (a name with '/': from the root only) into
 * a malloc'd array; *where gets its full path.  Returns 1 when found and
 * read, 0 when absent, <0 on error (err set). */
static int read_dataset(hid_t f, const stsl_candidate *c, const char *spec, double **out, long *n,
                        char *where, size_t wsz, stsl_error *err)
{
    char name[256];
    long col;
    if (stsl_column_ref_split(spec, name, sizeof name, &col)) return 0;
    const char *prefixes[] = {"/", "/trajectory/"};
    for (int k = 0; k < 2; k++) {
        if (k == 1 && strchr(name, '/')) return 0;
        snprintf(where, wsz, "%s%s", prefixes[k], name + (name[0] == '/'));
        if (k == 1 && H5Lexists(f, "trajectory", H5P_DEFAULT) <= 0) return 0;
        if (H5Lexists(f, where, H5P_DEFAULT) <= 0) continue;
        /* A group of that name is not the column: look further. */
        hid_t d = H5Dopen2(f, where, H5P_DEFAULT), t = -1, s = -1;
        if (d < 0) continue;
        int rc = -1;
        char desc[512] = "";
        double *buf = NULL;
        if ((t = H5Dget_type(d)) < 0 || (s = H5Dget_space(d)) < 0) {
            stsl_h5_last_error(desc, sizeof desc);
            stsl_error_set(err, STSL_EINPUT, "%s: dataset %s: cannot open (%s)", c->path, where,
                           desc);
            goto out;
        }
        H5T_class_t cls = H5Tget_class(t);
        int rank = H5Sget_simple_extent_ndims(s);
        hsize_t dims[2] = {0, 1};
        if (rank >= 1 && rank <= 2) H5Sget_simple_extent_dims(s, dims, NULL);
        if (cls != H5T_FLOAT && cls != H5T_INTEGER) {
            stsl_error_set(err, STSL_EINPUT, "%s: dataset %s: not numbers", c->path, where);
            goto out;
        }
        if (rank < 1 || rank > 2) {
            stsl_error_set(err, STSL_EINPUT,
                           "%s: dataset %s: expected a column of values or a samples x signals "
                           "matrix, has rank %d",
                           c->path, where, rank);
            goto out;
        }
        long len = (long)(dims[0] * dims[1]);
        if (stsl_h5_check_rows(d, (hsize_t)len, c->path, where, err)) goto out;
        buf = malloc(sizeof *buf * (size_t)(len > 0 ? len : 1));
        if (!buf) {
            stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %ld values", c->path, len);
            goto out;
        }
        if (len > 0 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
            stsl_h5_last_error(desc, sizeof desc);
            stsl_error_set(err, STSL_EINPUT, "%s: dataset %s: cannot read (%s)", c->path, where,
                           desc);
            goto out;
        }
        /* Row-major d0 x d1 is column-major d1 x d0. */
        char what[320];
        snprintf(what, sizeof what, "dataset %s", where);
        if (stsl_column_pick(c->path, what, name, buf, (size_t)dims[1], (size_t)dims[0], col, out,
                             n, err))
            goto out;
        if (col) snprintf(where + strlen(where), wsz - strlen(where), ":%ld", col);
        for (long i = 0; i < *n; i++)
            if (!isfinite((*out)[i])) {
                stsl_error_set(err, STSL_EINPUT, "%s: dataset %s: row %ld: not a finite number",
                               c->path, where, i);
                free(*out);
                *out = NULL;
                goto out;
            }
        rc = 1;
    out:
        free(buf);
        if (s >= 0) H5Sclose(s);
        if (t >= 0) H5Tclose(t);
        if (d >= 0) H5Dclose(d);
        return rc;
    }
    return 0;
}

static int read_hdf5(stsl_candidate *c, const char *const want[N_WANTED], int friction_required,
                     stsl_error *err)
{
    /* A stickslip result?  Its reader fails on anything else; that only
     * means a user's file. */
    stsl_h5_result *info = calloc(1, sizeof *info);
    if (!info) return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", c->path);
    if (stsl_h5_read(c->path, info, NULL) == STSL_OK) {
        c->info = info;
        c->format = STSL_CAND_STICKSLIP;
    } else {
        free(info);
        c->format = STSL_CAND_HDF5;
    }
    hid_t f = H5Fopen(c->path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) {
        char desc[512];
        stsl_h5_last_error(desc, sizeof desc);
        return stsl_error_set(err, STSL_EINPUT, "%s: cannot open the HDF5 file (%s)", c->path,
                              desc);
    }
    double **dst[N_WANTED] = {&c->t, &c->x, &c->v, &c->friction};
    char where[N_WANTED][300];
    long len[N_WANTED] = {0};
    int rc = STSL_OK;
    for (int w = 0; w < N_WANTED && !rc; w++) {
        if (!want[w]) continue;
        int found = read_dataset(f, c, want[w], dst[w], &len[w], where[w], sizeof where[w], err);
        if (found < 0)
            rc = err ? err->code : STSL_EINPUT;
        else if (!found && (w != COL_F || friction_required))
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s: column '%s': no dataset /%s or /trajectory/%s (choose the "
                                "names with --columns)",
                                c->path, want[w], want[w], want[w]);
    }
    if (!rc && c->format == STSL_CAND_STICKSLIP) {
        double *m = NULL;
        long nm = 0;
        char mwhere[300];
        int found = read_dataset(f, c, "mode", &m, &nm, mwhere, sizeof mwhere, err);
        if (found < 0) rc = err ? err->code : STSL_EINPUT;
        if (found > 0) {
            if (nm == len[COL_T] && (c->mode = malloc(sizeof *c->mode * (size_t)(nm ? nm : 1))))
                for (long i = 0; i < nm; i++) /* modes are int8 in a result: beyond, -1 */
                    c->mode[i] = fabs(m[i]) <= 127.0 ? (int)m[i] : -1;
            else if (nm != len[COL_T])
                rc = stsl_error_set(err, STSL_EINPUT,
                                    "%s: dataset /trajectory/mode: %ld rows, time has %ld", c->path,
                                    nm, len[COL_T]);
            else
                rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", c->path);
        }
        free(m);
    }
    H5Fclose(f);
    for (int w = 1; w < N_WANTED && !rc; w++)
        if (want[w] && *dst[w] && len[w] != len[COL_T])
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s: dataset %s: %ld rows, but the time column %s has %ld", c->path,
                                where[w], len[w], where[COL_T], len[COL_T]);
    if (rc) return rc;
    c->n = len[COL_T];
    char what[320];
    snprintf(what, sizeof what, "dataset %s", where[COL_T]);
    row_namer rn = {NULL, what};
    return check_time(c, want[COL_T], &rn, err);
}

/* ---- MAT -------------------------------------------------------------------------- */

static int read_mat(stsl_candidate *c, const char *const want[N_WANTED], int friction_required,
                    stsl_error *err)
{
    stsl_mat_columns m;
    int rc = stsl_mat_read_columns(c->path, want, friction_required, &m, err);
    if (rc) return rc;
    c->format = m.modelica ? STSL_CAND_MODELICA : STSL_CAND_MAT;
    c->n = m.n;
    c->t = m.data[COL_T];
    c->x = m.data[COL_X];
    c->v = m.data[COL_V];
    c->friction = m.data[COL_F];
    char what[300];
    snprintf(what, sizeof what, "'%s'", want[COL_T]);
    row_namer rn = {NULL, what};
    return check_time(c, want[COL_T], &rn, err);
}

/* ---- entry ----------------------------------------------------------------------- */

int stsl_candidate_read(const char *path, const stsl_cand_columns *cols, stsl_candidate *c,
                        stsl_error *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", path);
    const char *want[N_WANTED] = {cols->t, cols->x, cols->v,
                                  cols->friction ? cols->friction : "friction"};
    struct stat st;
    if (stat(path, &st) != 0)
        return stsl_error_set(err, STSL_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return stsl_error_set(err, STSL_EINPUT, "%s: is a directory, not a trajectory file", path);
    int rc;
    if (stsl_mat_is_mat_file(path)) {
        /* Before HDF5: a v7.3 MAT file is an HDF5 file too. */
        const char *mw[N_WANTED] = {cols->t, cols->x, cols->v, cols->friction};
        STSL_H5_QUIET(rc, read_mat(c, mw, cols->friction != NULL, err));
    } else {
        /* HDF5's stack dump is off only around our own calls (h5_types.h). */
        STSL_H5_QUIET(rc, H5Fis_hdf5(path) > 0 ? read_hdf5(c, want, cols->friction != NULL, err)
                                               : (c->format = STSL_CAND_CSV,
                                                  read_csv(c, want, cols->friction != NULL, err)));
    }
    if (rc) stsl_candidate_free(c);
    return rc;
}

void stsl_candidate_free(stsl_candidate *c)
{
    if (!c) return;
    free(c->t);
    free(c->x);
    free(c->v);
    free(c->friction);
    free(c->mode);
    if (c->info) {
        stsl_h5_result_free(c->info);
        free(c->info);
    }
    char path[sizeof c->path];
    memcpy(path, c->path, sizeof path);
    memset(c, 0, sizeof *c);
    memcpy(c->path, path, sizeof path);
}
