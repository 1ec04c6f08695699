/* h5_system.c - see h5_system.h.
 *
 * The file is read by io/h5_read (the one reader of the layout: root
 * attributes, /config, /events with their subjects, /stats, the groups'
 * member and value names) and its datasets by stsl_h5_read_matrix; this
 * module gathers them into one value per dataset for the tools. */
#include "io/h5_system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "io/h5_read.h"
#include "io/h5_types.h"
#include "io/mem_sink.h"
#include "models/validation.h"

/* Dataset c of the file into g (data, members, value names): its values
 * taken from *data when given, else read from the file. */
static int take_group(const stsl_h5_result *h, int c, long n, double **data, stsl_h5_group *g,
                      stsl_error *err)
{
    long rows = n;
    int width = h->col_width[c];
    snprintf(g->name, sizeof g->name, "%s", h->col_names[c]);
    snprintf(g->units, sizeof g->units, "%s", h->col_units[c]);
    snprintf(g->long_name, sizeof g->long_name, "%s", h->col_long_names[c]);
    int rc = STSL_OK;
    if (data && *data) {
        g->data = *data;
        *data = NULL;
    } else {
        rc = stsl_h5_read_matrix(h->path, g->name, &g->data, &rows, &width, err);
    }
    if (rc) return rc;
    if (rows != n)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: /trajectory/%s has %ld rows, /trajectory/t %ld", h->path,
                              g->name, rows, n);
    g->two_d = width > 0;
    g->width = width > 0 ? width : 1;
    if (!(g->members = calloc((size_t)g->width, sizeof *g->members)))
        return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", h->path);
    for (int m = 0; m < g->width; m++)
        snprintf(g->members[m], sizeof g->members[m], "%s",
                 g->two_d ? h->col_members[c][m] : g->name);
    for (int k = 0; k < h->col_n_values[c] && k < STSL_H5S_MAX_VALUES; k++)
        snprintf(g->values[g->n_values++], sizeof g->values[0], "%s", h->col_values[c][k]);
    return STSL_OK;
}

static int take_events(const stsl_h5_result *h, stsl_h5_system *s, stsl_error *err)
{
    s->n_events = h->n_events;
    if (!(s->events = calloc((size_t)h->n_events + 1, sizeof *s->events)))
        return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %ld events", h->path,
                              h->n_events);
    for (long i = 0; i < h->n_events; i++) {
        const stsl_h5_event *e = &h->events[i];
        stsl_h5_sys_event *o = &s->events[i];
        o->t = e->t;
        snprintf(o->kind, sizeof o->kind, "%s", e->kind);
        o->index = e->subject - 1;
        snprintf(o->name, sizeof o->name, "%s",
                 e->subject > 0 ? h->subject_names[e->subject - 1] : "");
    }
    return STSL_OK;
}

static int take_all(const stsl_h5_result *h, long n, double **t, double **data, stsl_h5_system *s,
                    stsl_error *err)
{
    snprintf(s->version, sizeof s->version, "%s", h->version);
    snprintf(s->created_utc, sizeof s->created_utc, "%s", h->created_utc);
    snprintf(s->message, sizeof s->message, "%s", h->message);
    snprintf(s->time_units, sizeof s->time_units, "%s", h->time_units);
    s->complete = h->complete;
    s->stats = h->stats;
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
    stsl_h5_result h;
    int rc = stsl_h5_read(path, &h, err);
    if (rc) return rc;
    rc = take_all(&h, 0, NULL, NULL, s, err);
    stsl_h5_result_free(&h);
    if (rc) stsl_h5_system_free(s);
    return rc;
}

int stsl_h5_system_read(const char *path, stsl_h5_system *s, stsl_error *err)
{
    return read_system(path, s, err); /* io/h5_read keeps HDF5 quiet itself */
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

/* ---- a run's rows as a result -------------------------------------------------- */

/* Columns [first, first + width) of `rows` into g (a group of the layout
 * when lg is given, else the column of its own `c`). */
static int group_of_rows(const stsl_layout *l, const stsl_col_group *lg, int c, const double *rows,
                         long n, stsl_h5_group *g)
{
    int first = lg ? lg->first : c, width = lg ? lg->width : 1;
    const stsl_column *col = &l->cols[first];
    snprintf(g->name, sizeof g->name, "%s", lg ? lg->name : col->name);
    snprintf(g->units, sizeof g->units, "%s", lg ? lg->units : col->units ? col->units : "");
    const char *ln = lg ? lg->long_name : col->long_name;
    snprintf(g->long_name, sizeof g->long_name, "%s", ln ? ln : "");
    g->two_d = lg != NULL;
    g->width = width;
    g->members = calloc((size_t)width, sizeof *g->members);
    g->data = malloc(sizeof *g->data * ((size_t)n * (size_t)width + 1));
    if (!g->members || !g->data) return -1;
    for (int m = 0; m < width; m++)
        snprintf(g->members[m], sizeof g->members[m], "%s", lg ? lg->member_names[m] : g->name);
    for (int k = 0; lg && k < lg->n_value_names && k < STSL_H5S_MAX_VALUES; k++)
        snprintf(g->values[g->n_values++], sizeof g->values[0], "%s", lg->value_names[k]);
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
        stsl_h5_sys_event *o = &s->events[i];
        o->t = e->t;
        snprintf(o->kind, sizeof o->kind, "%s",
                 e->kind >= 0 && e->kind < l->n_kinds ? l->kind_names[e->kind] : "?");
        o->index = e->subject - 1;
        snprintf(o->name, sizeof o->name, "%s",
                 e->subject > 0 ? l->subject_names[e->subject - 1] : "");
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
    s->stats = mr->stats;
    s->stats.err_cols = NULL;
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
    int want = g ? stsl_h5_group_value(g, value) : -1;
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
