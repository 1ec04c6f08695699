/* mat_sink.c - the MAT v5 result writer (variables and limits in
 * mat_sink.h).  Samples and events are kept by a memory sink; end() writes
 * them with matio and renames the file into place. */
#include "io/result/mat_sink.h"

#include <iconv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <matio.h>

#include "io/result/h5_types.h"
#include "io/result/mem_sink.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"

typedef struct mat_sink {
    char *path, *tmp, *yaml, *version;
    stsl_output_mark mark; /* the final path when the run began */
    int replaced;          /* end() replaced a result another run wrote meanwhile */
    char created[32];
    stsl_sink mem;
    int began, ended;
    long max_bytes, max_samples;
    int no_layout; /* end() before begin(): the element's empty layout, with mode */
} mat_sink;

int stsl_mat_path(const char *path)
{
    size_t len = strlen(path);
    return len > 4 && !strcasecmp(path + len - 4, ".mat");
}

/* ---- small utilities ---------------------------------------------------------- */

/* NULL (a layout without units) is written as "". */
static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* A copy of s or ""; NULL when out of memory. */
static char *dup_str(const char *s)
{
    return strdup(or_empty(s));
}

/* ---- matio variables (NULL name: a struct field or a cell) ---------------------- */

/* UTF-16 code units (native byte order, as matio writes every element) of
 * the UTF-8 text s; *n their count.  A byte that is not valid UTF-8 (a
 * message quoting a file name, say) becomes U+FFFD, so every text can be
 * written.  NULL when out of memory or without the converter. */
static uint16_t *utf16_of(const char *s, size_t *n)
{
    static const uint16_t one = 1;
    size_t in_left = strlen(s), cap = in_left + 1; /* never more units than bytes */
    uint16_t *w = malloc(sizeof *w * cap);
    iconv_t cd = iconv_open(*(const unsigned char *)&one ? "UTF-16LE" : "UTF-16BE", "UTF-8");
    if (!w || cd == (iconv_t)-1) {
        free(w);
        if (cd != (iconv_t)-1) iconv_close(cd);
        return NULL;
    }
    char *in = (char *)s, *outp = (char *)w;
    size_t out_left = sizeof *w * cap;
    while (in_left && iconv(cd, &in, &in_left, &outp, &out_left) == (size_t)-1) {
        /* EILSEQ or EINVAL (a truncated sequence at the end): replace one
         * byte; out_left suffices as each byte gives at most one unit. */
        const uint16_t bad = 0xFFFD;
        memcpy(outp, &bad, sizeof bad);
        outp += sizeof bad;
        out_left -= sizeof bad;
        in++;
        in_left--;
    }
    iconv_close(cd);
    *n = (size_t)(outp - (char *)w) / sizeof *w;
    return w;
}

/* A 1 x n char row of the UTF-8 text s, stored as miUTF16 (UTF-16 is
 * MATLAB's own char storage; n counts UTF-16 units, as MATLAB's length
 * does).  Not miUINT16: scipy's loadmat reads miUINT16 chars byte by byte
 * as UTF-8 unless told otherwise, so "N·m" fails to load there; miUTF16 it
 * decodes as UTF-16, as MATLAB, Octave and matio do.  Not 8-bit data:
 * matio 1.5.23 sizes compressed 8-bit char data inside structs and cells
 * as if it were 16-bit, and Octave's load rejects the result. */
static matvar_t *mat_text(const char *name, const char *s)
{
    size_t n = 0;
    uint16_t *w = utf16_of(or_empty(s), &n);
    if (!w) return NULL;
    size_t dims[2] = {1, n};
    matvar_t *v = Mat_VarCreate(name, MAT_C_CHAR, MAT_T_UTF16, 2, dims, w, 0);
    free(w);
    return v;
}

/* A rows x cols matrix of doubles, or (integer) of int8; the data is copied. */
static matvar_t *mat_matrix(const char *name, size_t rows, size_t cols, const void *v, int integer)
{
    size_t dims[2] = {rows, cols};
    return integer ? Mat_VarCreate(name, MAT_C_INT8, MAT_T_INT8, 2, dims, (void *)v, 0)
                   : Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, (void *)v, 0);
}

static matvar_t *mat_scalar(const char *name, double v)
{
    return mat_matrix(name, 1, 1, &v, 0);
}

/* An n x 1 cell array of char rows. */
static matvar_t *mat_cellstr(const char *name, const char *const *s, long n)
{
    matvar_t **cells = calloc((size_t)(n > 0 ? n : 1), sizeof *cells);
    if (!cells) return NULL;
    int ok = 1;
    for (long i = 0; i < n; i++)
        ok &= (cells[i] = mat_text(NULL, s[i])) != NULL;
    size_t dims[2] = {(size_t)n, 1};
    matvar_t *c = ok ? Mat_VarCreate(name, MAT_C_CELL, MAT_T_CELL, 2, dims, cells, 0) : NULL;
    if (!c)
        for (long i = 0; i < n; i++)
            Mat_VarFree(cells[i]);
    free(cells);
    return c;
}

/* A 1 x 1 struct of the given fields (taken over, also on failure). */
static matvar_t *mat_struct(const char *name, const char *const *fields, matvar_t **vals, int n)
{
    size_t dims[2] = {1, 1};
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= vals[i] != NULL;
    matvar_t *s =
        ok ? Mat_VarCreateStruct(name, 2, dims, (const char **)fields, (unsigned)n) : NULL;
    for (int i = 0; i < n; i++) {
        if (s && Mat_VarSetStructFieldByName(s, fields[i], 0, vals[i]) == NULL) continue;
        if (!s) Mat_VarFree(vals[i]);
    }
    return s;
}

/* Write and free one variable. */
static int put(mat_t *mat, matvar_t *v)
{
    int rc = v ? Mat_VarWrite(mat, v, MAT_COMPRESSION_ZLIB) : -1;
    Mat_VarFree(v);
    return rc;
}

/* ---- the groups ----------------------------------------------------------------- */

/* An n x w matrix (column-major, as MATLAB stores it) of columns
 * [first, first + w) of the rows; int8 for mode numbers. */
static matvar_t *mat_columns(const stsl_mem_result *r, int first, int w, int integer)
{
    size_t n = (size_t)r->n_samples, nc = (size_t)r->n_cols, cells = n * (size_t)w;
    void *data = malloc(cells ? cells * (integer ? 1 : sizeof(double)) : 1);
    if (!data) return NULL;
    for (size_t k = 0; k < (size_t)w; k++)
        for (size_t i = 0; i < n; i++) {
            double v = r->cols[i * nc + (size_t)first + k];
            if (integer)
                ((int8_t *)data)[i + k * n] = (int8_t)lrint(v);
            else
                ((double *)data)[i + k * n] = v;
        }
    matvar_t *v = mat_matrix(NULL, n, (size_t)w, data, integer);
    free(data);
    return v;
}

/* The trajectory's fields (t, a column's or a group's, mode): their
 * samples, or (units) their units. */
static int write_fields(mat_t *mat, const mat_sink *m, const stsl_mem_result *r, int units)
{
    const stsl_layout *l = &r->layout;
    int nf = l->n_cols + 2;
    const char **fields = calloc((size_t)nf, sizeof *fields);
    matvar_t **vals = calloc((size_t)nf, sizeof *vals);
    /* the mode as int8 (the samples only: units have no copy to make) */
    int8_t *mode = units ? NULL : malloc((size_t)(r->n_samples + 1));
    int rc = -1, f = 1;
    if (!fields || !vals || (!units && !mode)) goto out;
    fields[0] = "t";
    vals[0] =
        units ? mat_text(NULL, l->time_units) : mat_matrix(NULL, (size_t)r->n_samples, 1, r->t, 0);
    for (int c = 0; c < l->n_cols; c++) {
        int gi = stsl_layout_group_of(l, c);
        const stsl_col_group *g = gi >= 0 ? &l->groups[gi] : NULL;
        if (g && g->first != c) continue; /* inside a group's field */
        fields[f] = g ? g->name : l->cols[c].name;
        vals[f++] = units ? mat_text(NULL, stsl_layout_units(l, c))
                          : mat_columns(r, c, g ? g->width : 1, g && g->integer);
    }
    for (long i = 0; !units && i < r->n_samples; i++)
        mode[i] = (int8_t)r->mode[i];
    /* A scalar mode field: the element's (a system's modes are groups); a run
     * that failed before begin() keeps the element's empty one. */
    if (l->n_modes > 0 || m->no_layout) {
        fields[f] = "mode";
        vals[f++] = units ? mat_text(NULL, "") : mat_matrix(NULL, (size_t)r->n_samples, 1, mode, 1);
    }
    rc = put(mat, mat_struct(units ? "units" : "trajectory", fields, vals, f));
out:
    free(fields);
    free(vals);
    free(mode);
    return rc;
}

/* A system's names: `names` (per group, its members: bodies, contacts or
 * stops), `value_names` (per group of mode numbers, the names of the
 * values) and `subject_names` (what events are about).  Nothing for the
 * element. */
static int write_group_names(mat_t *mat, const stsl_layout *l)
{
    int n = l->n_groups, ni = 0, rc = 0;
    if (n > 0) {
        const char **f = calloc((size_t)n, sizeof *f), **fi = calloc((size_t)n, sizeof *fi);
        matvar_t **v = calloc((size_t)n, sizeof *v), **vi = calloc((size_t)n, sizeof *vi);
        if (f && fi && v && vi) {
            for (int g = 0; g < n; g++) {
                const stsl_col_group *cg = &l->groups[g];
                f[g] = cg->name;
                v[g] = mat_cellstr(NULL, cg->member_names, cg->width);
                if (!cg->integer) continue;
                fi[ni] = cg->name;
                vi[ni++] = mat_cellstr(NULL, cg->value_names, cg->n_value_names);
            }
            rc = put(mat, mat_struct("names", f, v, n));
            if (!rc && ni > 0) rc = put(mat, mat_struct("value_names", fi, vi, ni));
        } else {
            rc = -1;
        }
        free(f);
        free(fi);
        free(v);
        free(vi);
    }
    if (!rc && l->n_subjects > 0)
        rc = put(mat, mat_cellstr("subject_names", l->subject_names, l->n_subjects));
    return rc;
}

/* The events' values of one member (stsl_event_value): M x 1, or M x w
 * for a grouped column; NaN when the layout has no source. */
static matvar_t *event_values(const stsl_mem_result *r, const stsl_event_value *v)
{
    size_t n = (size_t)r->n_events, w = (size_t)(v->width > 0 ? v->width : 1);
    double *d = malloc(sizeof *d * (n * w + 1));
    if (!d) return NULL;
    for (size_t k = 0; k < w; k++)
        for (size_t i = 0; i < n; i++)
            d[i + k * n] = stsl_event_value_at(v, r->events[i].before, r->events[i].after, (int)k);
    matvar_t *m = mat_matrix(NULL, n, w, d, 0);
    free(d);
    return m;
}

/* A system's events: `index` (int32, subject - 1, -1 for none) and `subject`
 * (its name). */
static void event_subjects(const stsl_mem_result *r, int32_t *idx, const char **names)
{
    for (long i = 0; i < r->n_events; i++) {
        int s = r->events[i].subject;
        idx[i] = s - 1;
        names[i] = s > 0 && s <= r->layout.n_subjects ? r->layout.subject_names[s - 1] : "";
    }
}

static int write_events(mat_t *mat, const stsl_mem_result *r)
{
    enum { N_FIELDS = STSL_H5_EVENT_MEMBERS }; /* as /events of the HDF5 result */
    long n = r->n_events;
    size_t sz = (size_t)(n > 0 ? n : 1);
    double *t = malloc(sizeof *t * sz);
    int8_t *mb = malloc(sz), *ma = malloc(sz);
    int32_t *idx = malloc(sizeof *idx * sz);
    const char **kinds = calloc(sz, sizeof *kinds), **subj = calloc(sz, sizeof *subj);
    int rc = -1, nf = r->layout.n_subjects > 0 ? N_FIELDS : N_FIELDS - 2;
    if (!t || !mb || !ma || !idx || !kinds || !subj) goto out;
    for (long i = 0; i < n; i++) {
        const stsl_mem_event *e = &r->events[i];
        t[i] = e->t;
        kinds[i] = e->kind >= 0 && e->kind < r->layout.n_kinds ? r->layout.kind_names[e->kind] : "";
        mb[i] = (int8_t)e->mode_before;
        ma[i] = (int8_t)e->mode_after;
    }
    event_subjects(r, idx, subj);
    stsl_event_value val[STSL_EVENT_VALUES];
    stsl_layout_event_values(&r->layout, val);
    size_t dims[2] = {(size_t)n, 1};
    matvar_t *vals[N_FIELDS] = {
        mat_matrix(NULL, (size_t)n, 1, t, 0),
        mat_cellstr(NULL, kinds, n),
        mat_matrix(NULL, (size_t)n, 1, mb, 1),
        mat_matrix(NULL, (size_t)n, 1, ma, 1),
        event_values(r, &val[0]),
        event_values(r, &val[1]),
        event_values(r, &val[2]),
        event_values(r, &val[3]),
        event_values(r, &val[4]),
        nf == N_FIELDS ? Mat_VarCreate(NULL, MAT_C_INT32, MAT_T_INT32, 2, dims, idx, 0) : NULL,
        nf == N_FIELDS ? mat_cellstr(NULL, subj, n) : NULL};
    rc = put(mat, mat_struct("events", stsl_h5_event_members, vals, nf));
out:
    free(t);
    free(mb);
    free(ma);
    free(idx);
    free(kinds);
    free(subj);
    return rc;
}

static int write_stats(mat_t *mat, const stsl_layout *l, const stsl_stats *st)
{
    enum { N_FIXED = 7, N_VERIFY = 5 };
    /* A verified run's estimate (as /stats of the HDF5 result; verify:
     * 1 matched, 2 the event sequences differ, 3 the check run failed). */
    const char *vnames[N_VERIFY] = {"verify", "verify_rtol", "estimated_error_event_time",
                                    "estimated_error_x", "estimated_error_v"};
    double vvals[N_VERIFY] = {(double)st->verify, st->verify_rtol, st->err_event_time, st->err_x,
                              st->err_v};
    int nv = st->verify != STSL_VERIFY_NONE ? N_VERIFY : 0;
    int nf = N_FIXED + l->n_modes + nv;
    const char *fixed[N_FIXED] = {"steps",    "rhs_evals", "guard_evals", "events",
                                  "segments", "jac_evals", "wall_seconds"};
    double vfixed[N_FIXED] = {(double)st->steps,  (double)st->rhs_evals, (double)st->guard_evals,
                              (double)st->events, (double)st->segments,  (double)st->jac_evals,
                              st->wall_seconds};
    const char **fields = calloc((size_t)nf, sizeof *fields);
    char **mode_fields = calloc((size_t)(l->n_modes + 1), sizeof *mode_fields);
    matvar_t **vals = calloc((size_t)nf, sizeof *vals);
    int rc = -1;
    if (!fields || !mode_fields || !vals) goto out;
    for (int k = 0; k < N_FIXED; k++) {
        fields[k] = fixed[k];
        vals[k] = mat_scalar(NULL, vfixed[k]);
    }
    for (int k = 0; k < l->n_modes; k++) {
        size_t len = strlen(or_empty(l->mode_names[k])) + 6;
        if (!(mode_fields[k] = malloc(len))) goto out;
        snprintf(mode_fields[k], len, "time_%s", or_empty(l->mode_names[k]));
        fields[N_FIXED + k] = mode_fields[k];
        vals[N_FIXED + k] = mat_scalar(NULL, k < STSL_MAX_MODES ? st->mode_time[k] : NAN);
    }
    for (int k = 0; k < nv; k++) {
        fields[N_FIXED + l->n_modes + k] = vnames[k];
        vals[N_FIXED + l->n_modes + k] = mat_scalar(NULL, vvals[k]);
    }
    rc = put(mat, mat_struct("stats", fields, vals, nf));
    memset(vals, 0, sizeof *vals * (size_t)nf);
out:
    for (int k = 0; vals && k < nf; k++)
        Mat_VarFree(vals[k]);
    for (int k = 0; mode_fields && k < l->n_modes; k++)
        free(mode_fields[k]);
    free(mode_fields);
    free(fields);
    free(vals);
    return rc;
}

/* matio does not check its own writes (a full disk or a file-size limit
 * leaves a short file and every call "succeeds"): read the file back up to
 * its last variable, created_utc, which must be whole (a file cut short
 * anywhere lacks it: writes stop at the limit and never resume). */
static int complete_on_disk(const char *tmp, const char *created)
{
    mat_t *mat = Mat_Open(tmp, MAT_ACC_RDONLY);
    if (!mat) return 0;
    matvar_t *v = Mat_VarRead(mat, "created_utc");
    size_t n = strlen(created);
    /* An ASCII time stamp: as many UTF-16 units as bytes. */
    int ok = v && v->data && v->class_type == MAT_C_CHAR && v->rank == 2 && v->dims[1] == n;
    Mat_VarFree(v);
    Mat_Close(mat);
    return ok;
}

static int write_file(mat_sink *m, stsl_error *err)
{
    const stsl_mem_result *r = stsl_mem_sink_result(&m->mem);
    char header[116];
    /* The text must begin "MATLAB 5.0 MAT-file": readers look for it. */
    snprintf(header, sizeof header, "MATLAB 5.0 MAT-file, written by stickslip %s", m->version);
    mat_t *mat = Mat_CreateVer(m->tmp, header, MAT_FT_MAT5);
    if (!mat) return stsl_error_set(err, STSL_EIO, "%s: cannot create the MAT file", m->tmp);
    const char *what = "trajectory";
    int bad = write_fields(mat, m, r, 0);
    if (!bad) bad = write_events(mat, r), what = "events";
    const stsl_layout *l = &r->layout;
    if (!bad) bad = write_fields(mat, m, r, 1), what = "units";
    if (!bad) bad = write_group_names(mat, l), what = "names";
    if (!bad)
        bad = put(mat, mat_cellstr("mode_names", l->mode_names, l->n_modes)), what = "mode_names";
    if (!bad)
        bad = put(mat, mat_cellstr("kind_names", l->kind_names, l->n_kinds)), what = "kind_names";
    if (!bad) bad = write_stats(mat, l, &r->stats), what = "stats";
    if (!bad) bad = put(mat, mat_text("config", m->yaml)), what = "config";
    if (!bad) bad = put(mat, mat_scalar("complete", r->complete ? 1.0 : 0.0)), what = "complete";
    if (!bad) bad = put(mat, mat_text("message", r->complete ? "" : r->message)), what = "message";
    if (!bad) bad = put(mat, mat_text("program", "stickslip")), what = "program";
    if (!bad) bad = put(mat, mat_text("version", m->version)), what = "version";
    if (!bad) bad = put(mat, mat_text("created_utc", m->created)), what = "created_utc";
    if (Mat_Close(mat) != 0 && !bad) bad = 1, what = "the end of the file";
    if (!bad && !complete_on_disk(m->tmp, m->created)) bad = 1, what = "the whole file";
    if (bad) {
        const char *cause = stsl_output_write_cause(m->tmp);
        return stsl_error_set(err, STSL_EIO, "%s: cannot write %s of the MAT file: %s", m->path,
                              what, cause ? cause : "write error");
    }
    return STSL_OK;
}

/* ---- the sink ops ---------------------------------------------------------------- */

static int ms_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    mat_sink *m = self;
    if (m->began) return stsl_error_set(err, STSL_EINPUT, "%s: sink begun twice", m->path);
    m->max_samples = m->max_bytes / (8L * (l->n_cols + 1));
    int rc = stsl_layout_check_groups(l, m->path, err);
    if (rc) return rc;
    m->began = 1;
    return stsl_sink_begin(&m->mem, l, err);
}

static int ms_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    mat_sink *m = self;
    if (stsl_mem_sink_result(&m->mem)->n_samples >= m->max_samples)
        return stsl_error_set(err, STSL_EIO,
                              "%s: more than %ld samples at t = %.9g: a MAT file's trajectory is "
                              "held in memory and limited to %ld bytes (STSL_MAT_MAX_BYTES); "
                              "write HDF5 (-o OUT.h5) for runs this long",
                              m->path, m->max_samples, t, m->max_bytes);
    return stsl_sink_sample(&m->mem, t, mode, cols, err);
}

static int ms_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    return stsl_sink_event(&((mat_sink *)self)->mem, ev, err);
}

static int ms_end(void *self, const stsl_stats *st, int complete, const char *message,
                  stsl_error *err)
{
    mat_sink *m = self;
    if (m->ended) return stsl_error_set(err, STSL_EINPUT, "%s: sink ended twice", m->path);
    int rc;
    if (!m->began) {
        /* A run that failed before begin() still leaves a readable file. */
        stsl_layout empty = {0, NULL, "s", 0, NULL, 0, NULL, 0, NULL, 0, NULL};
        m->no_layout = 1;
        if ((rc = ms_begin(m, &empty, err)) != STSL_OK) return rc;
    }
    if ((rc = stsl_sink_end(&m->mem, st, complete, message, err)) != STSL_OK) return rc;
    if ((rc = write_file(m, err)) != STSL_OK) return rc;
    if ((rc = stsl_output_commit(m->tmp, m->path, &m->mark, &m->replaced, err)) != STSL_OK)
        return rc;
    m->ended = 1;
    return STSL_OK;
}

static void ms_destroy(void *self)
{
    mat_sink *m = self;
    if (!m) return;
    /* Without a successful end() the .tmp file is an unfinished result. */
    if (!m->ended && m->tmp) remove(m->tmp);
    stsl_sink_free(&m->mem);
    free(m->path);
    free(m->tmp);
    free(m->yaml);
    free(m->version);
    free(m);
}

static const stsl_sink_ops mat_ops = {ms_begin, ms_sample, ms_event, ms_end, ms_destroy};

int stsl_mat_sink_replaced(const stsl_sink *s)
{
    if (!s || s->ops != &mat_ops) return 0;
    return ((const mat_sink *)s->self)->replaced;
}

int stsl_mat_sink_create(const char *path, const char *config_yaml, const char *program_version,
                         long max_bytes, stsl_sink *out, stsl_error *err)
{
    if (!path || !path[0] || !out)
        return stsl_error_set(err, STSL_EINPUT, "MAT sink: no output path given");
    mat_sink *m = calloc(1, sizeof *m);
    if (!m) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    int rc = STSL_OK;
    if (!(m->path = dup_str(path)) || !(m->yaml = dup_str(config_yaml)) ||
        !(m->version = dup_str(program_version)))
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
    if (!rc) rc = stsl_output_check_regular(path, "a MAT result", err);
    if (!rc) rc = stsl_out_make_parent_dirs(path, err);
    if (!rc) rc = stsl_output_temp(path, &m->tmp, &m->mark, err);
    if (!rc) rc = stsl_mem_sink_create(&m->mem, err);
    /* Fail now, before the run, when the file cannot be created. */
    mat_t *probe = rc ? NULL : Mat_CreateVer(m->tmp, NULL, MAT_FT_MAT5);
    if (!rc && !probe) rc = stsl_error_set(err, STSL_EIO, "%s: cannot create the MAT file", m->tmp);
    if (probe) Mat_Close(probe);
    if (rc) {
        ms_destroy(m);
        return rc;
    }
    stsl_out_utc_now(m->created, sizeof m->created);
    m->max_bytes = max_bytes > 0 ? max_bytes : STSL_MAT_MAX_BYTES;
    out->ops = &mat_ops;
    out->self = m;
    return STSL_OK;
}
