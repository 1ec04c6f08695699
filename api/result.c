/* result.c - see result.h.  The run goes into io/result/mem_sink (rows) and is
 * turned into columns once, when it ends: the accessors then only read, so
 * a result may be read by several threads at once. */
#include "api/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "api/run_api.h"

static void free_strings(char **s, int n)
{
    for (int i = 0; s && i < n; i++)
        free(s[i]);
    free(s);
}

void stsl_result_free(stsl_result *r)
{
    if (!r) return;
    free(r->t);
    free(r->mode);
    for (int i = 0; r->cols && i < r->n_cols; i++)
        free(r->cols[i]);
    free(r->cols);
    free_strings(r->col_names, r->n_cols);
    free_strings(r->col_attrs, 3 * r->n_cols);
    free_strings(r->subject_names, r->n_subjects);
    free(r->events);
    free(r->ev_values);
    free(r->names);
    free(r->err_cols);
    free(r);
}

static double *alloc_col(long n)
{
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
}

/* Column c's units, long_name and value names (of its group: "STUCK,
 * SLIP_POS, ..."; "" for a column without) into a[0..2]; 0 out of memory. */
static int take_attrs(const stsl_layout *l, int c, char **a)
{
    int g = stsl_layout_group_of(l, c);
    char values[512] = "";
    int n = g >= 0 ? l->groups[g].n_value_names : 0;
    for (int k = 0, at = 0; k < n && (size_t)at < sizeof values; k++)
        at += snprintf(values + at, sizeof values - (size_t)at, "%s%s", k ? "," : "",
                       l->groups[g].value_names[k]);
    const char *long_name = g >= 0 ? l->groups[g].long_name : l->cols[c].long_name;
    return (a[0] = strdup(stsl_layout_units(l, c))) &&
           (a[1] = strdup(long_name ? long_name : "")) && (a[2] = strdup(values));
}

/* The names and attributes of the columns (flat: "x[motor]" for a grouped
 * column) and of the events' subjects, copied from the layout the sink kept. */
static int take_names(stsl_result *r, const stsl_layout *l)
{
    size_t nc = (size_t)(r->n_cols > 0 ? r->n_cols : 1);
    if (!(r->col_names = calloc(nc, sizeof *r->col_names)) ||
        !(r->col_attrs = calloc(3 * nc, sizeof *r->col_attrs)))
        return 0;
    for (int c = 0; c < r->n_cols && c < l->n_cols; c++) {
        char name[256];
        stsl_layout_flat_name(l, c, name, sizeof name);
        if (!(r->col_names[c] = strdup(name)) || !take_attrs(l, c, r->col_attrs + 3 * c)) return 0;
    }
    r->n_subjects = l->n_subjects;
    if (!(r->subject_names = calloc((size_t)l->n_subjects + 1, sizeof *r->subject_names))) return 0;
    for (int s = 0; s < l->n_subjects; s++)
        if (!(r->subject_names[s] = strdup(l->subject_names[s]))) return 0;
    return 1;
}

/* The events with their values in one block of the result's own. */
static int take_events(stsl_result *r, const stsl_mem_result *m)
{
    size_t ne = (size_t)(m->n_events > 0 ? m->n_events : 1), nc = (size_t)m->n_cols;
    r->events = malloc(ne * sizeof *r->events);
    r->ev_values = malloc((2 * nc * ne + 1) * sizeof *r->ev_values);
    if (!r->events || !r->ev_values) return 0;
    r->n_events = m->n_events;
    for (long i = 0; i < m->n_events; i++) {
        stsl_mem_event *e = &r->events[i];
        *e = m->events[i];
        e->before = r->ev_values + 2 * nc * (size_t)i;
        e->after = e->before + nc;
        if (nc) memcpy(e->before, m->events[i].before, nc * sizeof *e->before);
        if (nc) memcpy(e->after, m->events[i].after, nc * sizeof *e->after);
    }
    return 1;
}

/* Columns and events out of the memory sink's rows. */
int stsl_api_result_take(stsl_result *r, const stsl_mem_result *m, stsl_error *err)
{
    r->n = m->n_samples;
    r->n_cols = m->n_cols;
    r->t = alloc_col(r->n);
    r->mode = alloc_col(r->n);
    r->cols = calloc((size_t)(r->n_cols > 0 ? r->n_cols : 1), sizeof *r->cols);
    int ok = r->t && r->mode && r->cols;
    for (int c = 0; ok && c < r->n_cols; c++)
        ok = (r->cols[c] = alloc_col(r->n)) != NULL;
    ok = ok && take_names(r, &m->layout) && take_events(r, m);
    if (ok && m->err_cols && r->n_cols > 0) {
        size_t bytes = sizeof *r->err_cols * (size_t)r->n_cols;
        if ((ok = (r->err_cols = malloc(bytes)) != NULL)) memcpy(r->err_cols, m->err_cols, bytes);
    }
    if (!ok) return stsl_error_set(err, STSL_ENOMEM, "out of memory for a result");
    /* The summary (filled first) holds its own copies of the names (a
     * system's, or a file's "x[motor]", need not outlive the run or the
     * reading); the result's are the same text. */
    for (int c = 0; c < r->sum.n_cols && c < r->n_cols; c++)
        snprintf(r->sum.col_names[c], sizeof r->sum.col_names[c], "%s", r->col_names[c]);
    for (long i = 0; i < r->n; i++) {
        r->t[i] = m->t[i];
        r->mode[i] = m->mode[i];
        for (int c = 0; c < r->n_cols; c++)
            r->cols[c][i] = m->cols[i * m->n_cols + c];
    }
    return STSL_OK;
}

stsl_rc stsl_run_result(const stsl_cfg *cfg, stsl_result **out, stsl_err *err)
{
    stsl_error e = {0};
    stsl_sink mem = {0};
    if (!out) return stsl_api_bad_arg(err, "stsl_run_result: out is NULL");
    *out = NULL;
    if (!cfg) return stsl_api_bad_arg(err, "stsl_run_result: cfg is NULL");
    stsl_result *r = calloc(1, sizeof *r);
    int rc = r ? stsl_mem_sink_create(&mem, &e)
               : stsl_error_set(&e, STSL_ENOMEM, "out of memory for a result");
    if (rc) {
        free(r);
        return stsl_api_err(err, &e);
    }
    rc = stsl_api_run_into(cfg, &mem, &r->sum, &e);
    stsl_error taking = {0};
    int trc = stsl_api_result_take(r, stsl_mem_sink_result(&mem), &taking);
    stsl_sink_free(&mem);
    if (trc) {
        stsl_result_free(r);
        return stsl_api_err(err, &taking);
    }
    *out = r;
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}

const stsl_summary *stsl_result_summary(const stsl_result *r)
{
    return r ? &r->sum : NULL;
}

long stsl_result_n_samples(const stsl_result *r)
{
    return r ? r->n : 0;
}

static int col_index(const stsl_result *r, const char *name)
{
    for (int c = 0; name && c < r->n_cols; c++)
        if (r->col_names[c] && strcmp(r->col_names[c], name) == 0) return c;
    return -1;
}

const double *stsl_result_column(const stsl_result *r, const char *name)
{
    if (!r || !name) return NULL;
    if (strcmp(name, "t") == 0) return r->t;
    if (strcmp(name, "mode") == 0) return r->mode;
    int c = col_index(r, name);
    return c >= 0 ? r->cols[c] : NULL;
}

long stsl_result_n_events(const stsl_result *r)
{
    return r ? r->n_events : 0;
}

static const char *name_in(const char *const *names, int n, int i)
{
    return i >= 0 && i < n ? names[i] : "none";
}

stsl_rc stsl_result_event(const stsl_result *r, long i, stsl_event *ev, stsl_err *err)
{
    if (!r || !ev || i < 0 || i >= r->n_events)
        return stsl_api_fail(err, STSL_EINPUT,
                             "stsl_result_event: no event %ld (the result has %ld)", i,
                             r ? r->n_events : 0);
    const stsl_mem_event *m = &r->events[i];
    ev->t = m->t;
    ev->kind = name_in(r->sum.kind_names, r->sum.n_kinds, m->kind);
    ev->mode_before = name_in(r->sum.mode_names, r->sum.n_modes, m->mode_before);
    ev->mode_after = name_in(r->sum.mode_names, r->sum.n_modes, m->mode_after);
    return STSL_RC_OK;
}

const char *stsl_result_event_subject(const stsl_result *r, long i)
{
    if (!r || i < 0 || i >= r->n_events) return NULL;
    int s = r->events[i].subject;
    return s > 0 && s <= r->n_subjects ? r->subject_names[s - 1] : NULL;
}

int stsl_result_n_columns(const stsl_result *r)
{
    return r ? r->n_cols : 0;
}

const char *stsl_result_column_name(const stsl_result *r, int i)
{
    return r && i >= 0 && i < r->n_cols ? r->col_names[i] : NULL;
}

const char *stsl_result_column_attr(const stsl_result *r, int i, const char *attr)
{
    static const char *const attrs[3] = {"units", "long_name", "value_names"};
    for (int k = 0; r && attr && i >= 0 && i < r->n_cols && k < 3; k++)
        if (!strcmp(attr, attrs[k])) return r->col_attrs[3 * i + k];
    return NULL;
}

double stsl_result_event_value(const stsl_result *r, long i, const char *name, int after)
{
    int c = r ? col_index(r, name) : -1;
    if (c < 0 || i < 0 || i >= r->n_events) return NAN;
    return after ? r->events[i].after[c] : r->events[i].before[c];
}

static int index_in(int n, int i)
{
    return i >= 0 && i < n ? i : -1;
}

stsl_rc stsl_result_events(const stsl_result *r, double *t, int *kind, int *mode_before,
                           int *mode_after, int *subject, const char *const *names, int n_names,
                           double *values, stsl_err *err)
{
    if (!r || n_names < 0 || (n_names > 0 && !names))
        return stsl_api_bad_arg(err, "stsl_result_events: NULL result or bad column names");
    size_t n = (size_t)r->n_events;
    for (size_t i = 0; i < n; i++) {
        const stsl_mem_event *m = &r->events[i];
        if (t) t[i] = m->t;
        if (kind) kind[i] = index_in(r->sum.n_kinds, m->kind);
        if (mode_before) mode_before[i] = index_in(r->sum.n_modes, m->mode_before);
        if (mode_after) mode_after[i] = index_in(r->sum.n_modes, m->mode_after);
        if (subject) subject[i] = m->subject > 0 && m->subject <= r->n_subjects ? m->subject : 0;
    }
    for (int k = 0; values && k < n_names; k++) {
        int c = names[k] ? col_index(r, names[k]) : -1;
        double *before = values + 2 * (size_t)k * n, *after = before + n;
        for (size_t i = 0; i < n; i++) {
            before[i] = c >= 0 ? r->events[i].before[c] : NAN;
            after[i] = c >= 0 ? r->events[i].after[c] : NAN;
        }
    }
    return STSL_RC_OK;
}

/* "events_KIND" and "time_MODE" (api/names.c), and their former
 * spellings "events.KIND" and "mode_time.MODE", still taken. */
static int named_entry(const stsl_summary *s, const char *name, double *v)
{
    size_t ke = !strncmp(name, "events_", 7) || !strncmp(name, "events.", 7) ? 7 : 0;
    size_t km = !strncmp(name, "time_", 5) ? 5 : !strncmp(name, "mode_time.", 10) ? 10 : 0;
    for (int i = 0; ke && i < s->n_kinds; i++)
        if (strcmp(name + ke, s->kind_names[i]) == 0) return *v = (double)s->events[i], 1;
    for (int i = 0; km && i < s->n_modes; i++)
        if (strcmp(name + km, s->mode_names[i]) == 0) return *v = s->mode_time[i], 1;
    return 0;
}

stsl_rc stsl_result_stat(const stsl_result *r, const char *name, double *value, stsl_err *err)
{
    if (!r || !name || !value) return stsl_api_bad_arg(err, "stsl_result_stat: NULL argument");
    const stsl_summary *s = &r->sum;
    const struct {
        const char *name;
        double v;
    } stats[] = {{"steps", (double)s->steps},
                 {"rhs_evals", (double)s->rhs_evals},
                 {"guard_evals", (double)s->guard_evals},
                 {"segments", (double)s->segments},
                 {"jac_evals", (double)s->jac_evals},
                 {"events", (double)s->n_events},
                 {"wall_seconds", s->wall_seconds},
                 {"t_reached", s->t_reached},
                 {"dissipated_energy", s->dissipated_energy},
                 {"complete", (double)s->complete},
                 {"verify", (double)s->verify},
                 {"estimated_error_event_time", s->err_event_time},
                 {"estimated_error_x", s->err_x},
                 {"estimated_error_v", s->err_v},
                 /* the former spellings, still taken */
                 {"err_event_time", s->err_event_time},
                 {"err_x", s->err_x},
                 {"err_v", s->err_v}};
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
        if (strcmp(name, stats[i].name) == 0) return *value = stats[i].v, STSL_RC_OK;
    if (named_entry(s, name, value)) return STSL_RC_OK;
    /* estimated_error_x[motor] (formerly err_x[motor]): a column's own
     * estimate (NaN when it has none). */
    int c = !strncmp(name, "estimated_error_", 16) ? col_index(r, name + 16)
            : !strncmp(name, "err_", 4)            ? col_index(r, name + 4)
                                                   : -1;
    if (c >= 0) return *value = r->err_cols ? r->err_cols[c] : NAN, STSL_RC_OK;
    return stsl_api_fail(err, STSL_EINPUT, "stsl_result_stat: no statistic '%.64s'", name);
}
