/* mat_candidate.c - candidate columns from MAT files through matio
 * (sources and messages in mat_candidate.h). */
#include "io/candidate/mat_candidate.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <matio.h>

#include "io/result/h5_bounds.h"
#include "io/result/mat_bounds.h"
#include "io/result/mat_sink.h"

/* Longest source path (variable plus fields). */
#define PATH_LEN 256

/* How to get plain arrays out of what matio cannot read. */
#define EXPORT_HINT                                                                                \
    "MATLAB objects (timeseries, Simulink.SimulationData.Dataset) cannot be read outside "         \
    "MATLAB: save plain arrays instead, e.g. t = ts.Time; x = ts.Data; save('run.mat', 't', "      \
    "'x', '-v7'), or log with To Workspace as 'Structure With Time' or 'Array'"

/* matio logs to stderr by default; the library prints nothing, so its
 * messages are dropped (ours name the file and the variable).  Installed
 * once per process: it is matio's own global. */
static void quiet_log(int level, char *message)
{
    (void)level;
    (void)message;
}

static void install_quiet_log(void)
{
    Mat_LogInitFunc("stickslip", quiet_log);
}

void stsl_mat_quiet(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, install_quiet_log);
}

/* 1 when the file starts with the "MATLAB" text of v5, v7 and v7.3. */
static int has_text_header(const char *path)
{
    char head[6] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n == sizeof head && !memcmp(head, "MATLAB", 6);
}

int stsl_mat_is_mat_file(const char *path)
{
    return has_text_header(path) || stsl_mat_path(path);
}

/* ---- numbers out of a matio variable ------------------------------------------ */

/* MATLAB's name of a class (what `class(x)` says); NULL for empty and
 * for objects, function handles and opaque classes. */
static const char *class_name(enum matio_classes c)
{
    static const char *const NAMES[] = {
        [MAT_C_CELL] = "cell",     [MAT_C_STRUCT] = "struct", [MAT_C_CHAR] = "char",
        [MAT_C_SPARSE] = "sparse", [MAT_C_DOUBLE] = "double", [MAT_C_SINGLE] = "single",
        [MAT_C_INT8] = "int8",     [MAT_C_UINT8] = "uint8",   [MAT_C_INT16] = "int16",
        [MAT_C_UINT16] = "uint16", [MAT_C_INT32] = "int32",   [MAT_C_UINT32] = "uint32",
        [MAT_C_INT64] = "int64",   [MAT_C_UINT64] = "uint64"};
    return (unsigned)c < sizeof NAMES / sizeof NAMES[0] ? NAMES[c] : NULL;
}

/* The numeric classes: double to uint64. */
static int is_numeric(const matvar_t *v)
{
    return v->class_type >= MAT_C_DOUBLE && class_name(v->class_type) != NULL;
}

/* Element i of numeric or char data as a double (matio keeps the stored type). */
double stsl_mat_element(const matvar_t *v, size_t i)
{
    const void *d = v->data;
    switch (v->data_type) {
    case MAT_T_DOUBLE:
        return ((const double *)d)[i];
    case MAT_T_SINGLE:
        return ((const float *)d)[i];
    case MAT_T_INT8:
        return ((const int8_t *)d)[i];
    case MAT_T_UINT8:
    case MAT_T_UTF8:
        return ((const uint8_t *)d)[i];
    case MAT_T_INT16:
        return ((const int16_t *)d)[i];
    case MAT_T_UINT16:
    case MAT_T_UTF16:
        return ((const uint16_t *)d)[i];
    case MAT_T_INT32:
        return ((const int32_t *)d)[i];
    case MAT_T_UINT32:
    case MAT_T_UTF32:
        return ((const uint32_t *)d)[i];
    case MAT_T_INT64:
        return (double)((const int64_t *)d)[i];
    case MAT_T_UINT64:
        return (double)((const uint64_t *)d)[i];
    default:
        return NAN;
    }
}

size_t stsl_mat_numel(const matvar_t *v)
{
    size_t n = 1;
    for (int k = 0; k < v->rank; k++)
        n *= v->dims[k];
    return n;
}

static int is_object(const matvar_t *v)
{
    return v->class_type == MAT_C_OBJECT || v->class_type == MAT_C_FUNCTION ||
           v->class_type == MAT_C_OPAQUE;
}

/* What a variable is, for a message: "a 1001 x 2 double array", "a 1 x 1
 * struct", "a MATLAB object". */
static const char *class_word(const matvar_t *v, char *buf, size_t sz)
{
    if (v->class_type == MAT_C_EMPTY) return "empty";
    const char *name = class_name(v->class_type);
    /* logical wins over a numeric or unknown class, not over char, cell,
     * struct or sparse */
    const char *kind = v->isLogical && (!name || is_numeric(v)) ? "logical" : name;
    if (!kind || is_object(v)) return "a MATLAB object";
    size_t at = (size_t)snprintf(buf, sz, "a");
    for (int k = 0; k < v->rank && at < sz; k++)
        at += (size_t)snprintf(buf + at, sz - at, "%s%zu", k ? " x " : " ", v->dims[k]);
    if (at < sz)
        snprintf(buf + at, sz - at, " %s%s", kind,
                 v->class_type == MAT_C_STRUCT || v->class_type == MAT_C_CELL ? "" : " array");
    return buf;
}

/* ---- bounds: what a variable declares against what the file holds ---------------- */

/* The fewest bytes the data a variable declares can take: one per element
 * (MATLAB may store doubles as int8 or uint8 when the values fit, so the
 * class's size would be too strict), two when complex, and its struct
 * fields and cells; -1 when it is or holds a sparse matrix.  In double: a
 * crafted product may not fit 64 bits. */
static double least_bytes(const matvar_t *v)
{
    double n = 1.0;
    for (int k = 0; k < v->rank; k++)
        n *= (double)v->dims[k];
    /* A sparse matrix's arrays are sized by claims (nonzeros, columns) that
     * the header does not bound, and compare takes none: -1, not read. */
    if (v->class_type == MAT_C_SPARSE) return -1.0;
    if (is_object(v)) return 0.0; /* opaque: matio reads nothing */
    if (v->class_type != MAT_C_STRUCT && v->class_type != MAT_C_CELL)
        return n * (v->isComplex ? 2.0 : 1.0);
    /* The members matio holds: nbytes / data_size pointers (fewer than
     * the dimensions say when it stopped at a damaged member). */
    double sum = 0.0;
    matvar_t **sub = v->data;
    size_t subs = v->data_size > 0 ? v->nbytes / (size_t)v->data_size : 0;
    for (size_t i = 0; sub && i < subs; i++) {
        double b = sub[i] ? least_bytes(sub[i]) : 0.0;
        if (b < 0) return b;
        sum += b;
    }
    return sum;
}

/* Read variable `name` whole, after checking the sizes its header declares
 * against the file's (times STSL_FILTER_RATIO when compressed: v7 per
 * variable, v7.3 through HDF5's filters): a few bytes can declare 10^8
 * rows, and matio would allocate for them before it found no data.
 * *out is NULL (and STSL_OK) when there is no such variable. */
static int bounded_read(mat_t *mat, const char *file, const char *name, matvar_t **out,
                        stsl_error *err)
{
    char what[128];
    struct stat st;
    *out = NULL;
    matvar_t *info = Mat_VarReadInfo(mat, name);
    if (!info) return STSL_OK;
    int packed = info->compression != MAT_COMPRESSION_NONE || Mat_GetVersion(mat) == MAT_FT_MAT73;
    double fsize = stat(file, &st) == 0 ? (double)st.st_size : 0.0;
    double need = least_bytes(info), room = fsize * (packed ? STSL_FILTER_RATIO : 1.0);
    int rc = STSL_OK;
    if (need < 0)
        rc = stsl_error_set(err, STSL_EINPUT,
                            "%s: variable '%s' is or holds a sparse matrix, which compare does not "
                            "read: save full arrays (full(A) in MATLAB)",
                            file, name);
    else if (need > room)
        rc = stsl_error_set(err, STSL_EINPUT,
                            "%s: variable '%s' declares %s (at least %.4g bytes), more than the "
                            "file of %.0f bytes can hold%s: a truncated or damaged file",
                            file, name, class_word(info, what, sizeof what), need, fsize,
                            packed ? " compressed" : "");
    else if (!(*out = Mat_VarRead(mat, name)))
        rc = stsl_error_set(err, STSL_EINPUT,
                            "%s: variable '%s' (%s) cannot be read: its data is truncated or "
                            "damaged",
                            file, name, class_word(info, what, sizeof what));
    Mat_VarFree(info);
    return rc;
}

/* ---- plain MAT files: variables and struct fields ------------------------------ */

/* Number of variables matio can only see as objects (it cannot even read
 * their names). */
static int count_objects(mat_t *mat)
{
    int n = 0;
    matvar_t *v;
    Mat_Rewind(mat);
    while ((v = Mat_VarReadNextInfo(mat))) {
        n += is_object(v);
        Mat_VarFree(v);
    }
    return n;
}

/* Names of the readable variables, for a message. */
static void list_variables(mat_t *mat, char *buf, size_t sz)
{
    matvar_t *v;
    buf[0] = '\0';
    Mat_Rewind(mat);
    while ((v = Mat_VarReadNextInfo(mat))) {
        size_t at = strlen(buf);
        if (v->name && at + strlen(v->name) + 8 < sz)
            snprintf(buf + at, sz - at, "%s'%s'", at ? ", " : "", v->name);
        Mat_VarFree(v);
    }
}

static int no_variable(mat_t *mat, const char *file, const char *var, stsl_error *err)
{
    int objects = count_objects(mat);
    if (objects)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: no variable '%s' (the file holds %d MATLAB object%s that "
                              "cannot be read: " EXPORT_HINT ")",
                              file, var, objects, objects == 1 ? "" : "s");
    char list[1024];
    list_variables(mat, list, sizeof list);
    if (!list[0])
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: no variable '%s': matio reads no variable in the file (a "
                              "truncated or damaged file?)",
                              file, var);
    return stsl_error_set(err, STSL_EINPUT,
                          "%s: no variable '%s' (variables: %s; choose them with --columns "
                          "t=A,x=B,v=C)",
                          file, var, list[0] ? list : "none");
}

/* The numeric array at "var.field.field" as a column-major rows x cols
 * matrix of doubles (malloc'd). */
static int read_path(mat_t *mat, const char *file, const char *path, double **out, size_t *rows,
                     size_t *cols, stsl_error *err)
{
    char buf[PATH_LEN];
    snprintf(buf, sizeof buf, "%s", path);
    char *field = strchr(buf, '.');
    if (field) *field++ = '\0';
    char what[128];
    matvar_t *top = NULL;
    int rc = bounded_read(mat, file, buf, &top, err);
    if (rc) return rc;
    if (!top) return no_variable(mat, file, buf, err);
    matvar_t *v = top;
    while (field && !rc) {
        char *next = strchr(field, '.');
        if (next) *next++ = '\0';
        if (v->class_type != MAT_C_STRUCT || stsl_mat_numel(v) != 1)
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s: '%s': no field '%s': %s, expected a 1 x 1 struct", file, path,
                                field, class_word(v, what, sizeof what));
        else if (!(v = Mat_VarGetStructFieldByName(v, field, 0)))
            rc = stsl_error_set(err, STSL_EINPUT, "%s: '%s': the struct has no field '%s'", file,
                                path, field);
        field = next;
    }
    if (!rc && is_object(v))
        rc =
            stsl_error_set(err, STSL_EINPUT, "%s: '%s': a MATLAB object: " EXPORT_HINT, file, path);
    else if (!rc && (!is_numeric(v) || v->isComplex || !v->data))
        rc = stsl_error_set(err, STSL_EINPUT, "%s: '%s': not numeric (%s%s), expected real numbers",
                            file, path, v->isComplex ? "complex" : class_word(v, what, sizeof what),
                            v->isComplex ? " numbers" : "");
    else if (!rc && v->rank > 2)
        rc = stsl_error_set(err, STSL_EINPUT,
                            "%s: '%s': has %d dimensions, expected a vector or a samples x "
                            "signals matrix",
                            file, path, v->rank);
    if (!rc) {
        size_t n = stsl_mat_numel(v);
        double *d = malloc(sizeof *d * (n ? n : 1));
        if (!d) rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %zu values", file, n);
        for (size_t i = 0; d && i < n; i++)
            d[i] = stsl_mat_element(v, i);
        *out = d;
        *rows = v->dims[0];
        *cols = v->rank == 2 ? v->dims[1] : 1;
    }
    Mat_VarFree(top);
    return rc;
}

/* ---- Modelica result files ------------------------------------------------------ */

typedef struct modelica {
    matvar_t *name, *info, *data1, *data2;
    int trans; /* binTrans: one column per variable in name and dataInfo, one row in data_k */
    size_t n_vars, name_len;
} modelica;

static void modelica_free(modelica *m)
{
    Mat_VarFree(m->name);
    Mat_VarFree(m->info);
    Mat_VarFree(m->data1);
    Mat_VarFree(m->data2);
}

/* Row 4 of Aclass says binTrans or binNormal (default binNormal). */
static int aclass_is_trans(mat_t *mat, const char *file)
{
    matvar_t *a = NULL;
    stsl_error ignored;
    bounded_read(mat, file, "Aclass", &a, &ignored); /* unreadable: binNormal */
    int trans = 0;
    if (a && a->class_type == MAT_C_CHAR && a->rank == 2 && a->dims[0] >= 4) {
        char row[16] = {0};
        for (size_t j = 0; j < a->dims[1] && j + 1 < sizeof row; j++)
            row[j] = (char)stsl_mat_element(a, 3 + j * a->dims[0]);
        trans = !strncmp(row, "binTrans", 8);
    }
    Mat_VarFree(a);
    return trans;
}

/* 1 when the file is a Modelica result (read into *m), 0 when not. */
static int modelica_open(mat_t *mat, const char *file, modelica *m, stsl_error *err)
{
    memset(m, 0, sizeof *m);
    matvar_t *probe = Mat_VarReadInfo(mat, "dataInfo");
    if (!probe) return 0;
    Mat_VarFree(probe);
    m->trans = aclass_is_trans(mat, file);
    int rc = bounded_read(mat, file, "name", &m->name, err);
    if (!rc) rc = bounded_read(mat, file, "dataInfo", &m->info, err);
    if (!rc) rc = bounded_read(mat, file, "data_2", &m->data2, err);
    if (!rc) rc = bounded_read(mat, file, "data_1", &m->data1, err);
    if (rc) {
        modelica_free(m);
        return -1;
    }
    if (!m->name || !m->info || !m->data2 || m->name->rank != 2 || m->info->rank != 2 ||
        m->data2->rank != 2 || m->name->class_type != MAT_C_CHAR) {
        modelica_free(m);
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: a Modelica result (it has dataInfo) without readable 'name' "
                              "(char matrix) and 'data_2' matrices",
                              file);
    }
    m->n_vars = m->name->dims[m->trans ? 1 : 0];
    m->name_len = m->name->dims[m->trans ? 0 : 1];
    size_t need_rows = m->trans ? 4 : m->n_vars, need_cols = m->trans ? m->n_vars : 4;
    if (m->info->dims[0] < need_rows || m->info->dims[1] < need_cols) {
        modelica_free(m);
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: dataInfo is %zu x %zu, expected %zu x %zu for %zu names (%s)",
                              file, m->info->dims[0], m->info->dims[1], need_rows, need_cols,
                              m->n_vars, m->trans ? "binTrans" : "binNormal");
    }
    return 1;
}

/* Element (a, b) of v, a the variable (or sample) and b its column: a
 * binTrans file stores the transpose. */
static double cell(const modelica *m, const matvar_t *v, size_t a, size_t b)
{
    return stsl_mat_element(v, m->trans ? b + a * v->dims[0] : a + b * v->dims[0]);
}

/* Name i without its padding. */
static void modelica_name(const modelica *m, size_t i, char *buf, size_t sz)
{
    size_t k = 0;
    for (size_t j = 0; j < m->name_len && k + 1 < sz; j++)
        buf[k++] = (char)cell(m, m->name, i, j);
    while (k > 0 && (buf[k - 1] == ' ' || buf[k - 1] == '\0'))
        k--;
    buf[k] = '\0';
}

/* Samples and signals of data_k. */
static void data_shape(const modelica *m, const matvar_t *d, size_t *samples, size_t *signals)
{
    *samples = d->dims[m->trans ? 1 : 0];
    *signals = d->dims[m->trans ? 0 : 1];
}

static int modelica_column(const modelica *m, const char *file, const char *spec, double **out,
                           long *n, stsl_error *err)
{
    char want[PATH_LEN], name[PATH_LEN],
        first[4 * (PATH_LEN + 4)] = ""; /* the first four names, whole */
    size_t i;
    snprintf(want, sizeof want, "%s", spec);
    for (i = 0; i < m->n_vars; i++) {
        modelica_name(m, i, name, sizeof name);
        if (i < 4)
            snprintf(first + strlen(first), sizeof first - strlen(first), "%s'%s'", i ? ", " : "",
                     name);
        if (!strcmp(name, want)) break;
    }
    if (i == m->n_vars)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: no variable '%s' in the Modelica result (%zu variables: %s, "
                              "...; name them as in the model, e.g. t=time,x=mass.s,v=mass.v)",
                              file, want, m->n_vars, first);
    /* dataInfo(i, 0..1): which data_k, and its column (negated: the sign) */
    long which = (long)cell(m, m->info, i, 0), idx = (long)cell(m, m->info, i, 1);
    const matvar_t *d = which == 1 ? m->data1 : m->data2; /* 0: the abscissa, time in data_2 */
    size_t samples = 0, signals = 0, data2_samples, unused;
    data_shape(m, m->data2, &data2_samples, &unused);
    if (d && which >= 0 && which <= 2) data_shape(m, d, &samples, &signals);
    if (idx == 0 || (size_t)labs(idx) > signals || samples == 0)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: variable '%s': dataInfo points to data_%ld column %ld, which "
                              "the file does not have",
                              file, want, which ? which : 2, idx);
    double *v = malloc(sizeof *v * (data2_samples ? data2_samples : 1));
    if (!v) return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", file);
    double sign = idx < 0 ? -1.0 : 1.0;
    for (size_t s = 0; s < data2_samples; s++)
        v[s] = sign * cell(m, d, which == 1 ? 0 : s, (size_t)labs(idx) - 1);
    *out = v;
    *n = (long)data2_samples;
    return STSL_OK;
}

/* ---- entry ----------------------------------------------------------------------- */

/* One source, from a Modelica result or a plain file. */
static int read_source(mat_t *mat, const modelica *m, const char *file, const char *spec,
                       double **out, long *n, stsl_error *err)
{
    char path[PATH_LEN];
    long col;
    if (stsl_column_ref_split(spec, path, sizeof path, &col))
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: '%s': a name up to %d characters, then "
                              "optionally ':N' with N >= 1",
                              file, spec, PATH_LEN - 1);
    if (m) {
        /* Model names never end in ":N": the whole source is the name. */
        return modelica_column(m, file, spec, out, n, err);
    }
    double *d = NULL;
    size_t rows = 0, cols = 0;
    int rc = read_path(mat, file, path, &d, &rows, &cols, err);
    char what[PATH_LEN + 16];
    snprintf(what, sizeof what, "'%s'", path);
    if (!rc) rc = stsl_column_pick(file, what, path, d, rows, cols, col, out, n, err);
    free(d);
    return rc;
}

/* 1 when the optional friction source exists. */
static int has_source(mat_t *mat, const modelica *m, const char *name)
{
    if (m) {
        char buf[PATH_LEN];
        for (size_t i = 0; i < m->n_vars; i++) {
            modelica_name(m, i, buf, sizeof buf);
            if (!strcmp(buf, name)) return 1;
        }
        return 0;
    }
    matvar_t *v = Mat_VarReadInfo(mat, name);
    Mat_VarFree(v);
    return v != NULL;
}

static int check_columns(const char *file, const char *const names[STSL_N_ROLES],
                         const stsl_mat_columns *c, const long len[STSL_N_ROLES], stsl_error *err)
{
    for (int r = 0; r < STSL_N_ROLES; r++) {
        if (!c->data[r]) continue;
        if (len[r] != len[STSL_ROLE_T])
            return stsl_error_set(err, STSL_EINPUT,
                                  "%s: '%s': %ld rows, but the time '%s' has %ld (expected equal "
                                  "lengths)",
                                  file, names[r], len[r], names[STSL_ROLE_T], len[STSL_ROLE_T]);
        for (long i = 0; i < len[r]; i++)
            if (!isfinite(c->data[r][i]))
                return stsl_error_set(err, STSL_EINPUT, "%s: '%s': row %ld: not a finite number",
                                      file, names[r], i + 1);
    }
    return STSL_OK;
}

mat_t *stsl_mat_open_checked(const char *path, stsl_error *err)
{
    stsl_mat_quiet();
    /* Without the text header matio tries v4, and its probe allocates the
     * first name's claimed length: the headers are checked first. */
    if (!has_text_header(path) && stsl_mat_check_v4(path, err)) return NULL;
    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    if (!mat) {
        stsl_error_set(err, STSL_EINPUT,
                       "%s: not a MAT file matio can read (MAT v4, v5, v7 or v7.3)", path);
        return NULL;
    }
    if (Mat_GetVersion(mat) == MAT_FT_MAT5 && stsl_mat_check_v5(path, err)) {
        Mat_Close(mat);
        return NULL;
    }
    return mat;
}

int stsl_mat_read_columns(const char *path, const char *const names_in[STSL_N_ROLES],
                          int friction_required, stsl_mat_columns *out, stsl_error *err)
{
    memset(out, 0, sizeof *out);
    mat_t *mat = stsl_mat_open_checked(path, err);
    if (!mat) return err ? err->code : STSL_EINPUT;
    modelica m;
    int rc = STSL_OK;
    int is_mod = modelica_open(mat, path, &m, err);
    if (is_mod < 0) rc = err ? err->code : STSL_EINPUT;
    const char *names[STSL_N_ROLES] = {names_in[0], names_in[1], names_in[2], names_in[3]};
    if (!rc && !names[STSL_ROLE_F] && !friction_required &&
        has_source(mat, is_mod > 0 ? &m : NULL, "friction"))
        names[STSL_ROLE_F] = "friction";
    long len[STSL_N_ROLES] = {0};
    for (int r = 0; r < STSL_N_ROLES && !rc; r++)
        if (names[r])
            rc = read_source(mat, is_mod > 0 ? &m : NULL, path, names[r], &out->data[r], &len[r],
                             err);
    if (!rc) rc = check_columns(path, names, out, len, err);
    out->n = len[STSL_ROLE_T];
    out->modelica = is_mod > 0;
    if (is_mod > 0) modelica_free(&m);
    Mat_Close(mat);
    if (rc) stsl_mat_columns_free(out);
    return rc;
}

void stsl_mat_columns_free(stsl_mat_columns *c)
{
    if (!c) return;
    for (int r = 0; r < STSL_N_ROLES; r++)
        free(c->data[r]);
    memset(c, 0, sizeof *c);
}

/* ---- for the other MAT readers (mat_candidate.h) ------------------------------ */

int stsl_mat_is_numeric(const matvar_t *v)
{
    return is_numeric(v) && !v->isComplex && v->data;
}
