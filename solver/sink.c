#include "solver/sink.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stsl_sink_begin(stsl_sink *s, const stsl_layout *layout, stsl_error *err)
{
    return (s && s->ops) ? s->ops->begin(s->self, layout, err) : STSL_OK;
}

int stsl_sink_sample(stsl_sink *s, double t, int mode, const double *cols, stsl_error *err)
{
    return (s && s->ops && s->ops->sample) ? s->ops->sample(s->self, t, mode, cols, err) : STSL_OK;
}

int stsl_sink_event(stsl_sink *s, const stsl_event_rec *ev, stsl_error *err)
{
    return (s && s->ops) ? s->ops->event(s->self, ev, err) : STSL_OK;
}

int stsl_sink_end(stsl_sink *s, const stsl_stats *stats, int complete, const char *message,
                  stsl_error *err)
{
    return (s && s->ops && s->ops->end) ? s->ops->end(s->self, stats, complete, message, err)
                                        : STSL_OK;
}

int stsl_sink_end_run(stsl_sink *s, const stsl_stats *stats, int status, int reached_end,
                      stsl_error *err)
{
    if (status == STSL_OK)
        return stsl_sink_end(s, stats, reached_end, reached_end ? "" : "run did not reach t_end",
                             err);
    stsl_error end_err;
    stsl_sink_end(s, stats, 0, err ? err->msg : stsl_strerror(status), &end_err);
    return status;
}

void stsl_sink_free(stsl_sink *s)
{
    if (s && s->ops) {
        if (s->ops->destroy) s->ops->destroy(s->self);
        s->ops = NULL;
        s->self = NULL;
    }
}

int stsl_layout_find(const stsl_layout *layout, const char *name)
{
    for (int i = 0; i < layout->n_cols; i++)
        if (strcmp(layout->cols[i].name, name) == 0) return i;
    return -1;
}

/* ---- tee ---------------------------------------------------------------- */

typedef struct tee {
    stsl_sink a, b;
} tee;

static int tee_begin(void *self, const stsl_layout *layout, stsl_error *err)
{
    tee *t = self;
    int rc = stsl_sink_begin(&t->a, layout, err);
    return rc ? rc : stsl_sink_begin(&t->b, layout, err);
}

static int tee_sample(void *self, double time, int mode, const double *cols, stsl_error *err)
{
    tee *t = self;
    int rc = stsl_sink_sample(&t->a, time, mode, cols, err);
    return rc ? rc : stsl_sink_sample(&t->b, time, mode, cols, err);
}

static int tee_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    tee *t = self;
    int rc = stsl_sink_event(&t->a, ev, err);
    return rc ? rc : stsl_sink_event(&t->b, ev, err);
}

/* Both ends are always called so that neither file is left unfinished. */
static int tee_end(void *self, const stsl_stats *st, int complete, const char *msg, stsl_error *err)
{
    tee *t = self;
    int ra = stsl_sink_end(&t->a, st, complete, msg, err);
    stsl_error eb;
    int rb = stsl_sink_end(&t->b, st, complete, msg, &eb);
    if (ra == STSL_OK && rb != STSL_OK && err) *err = eb;
    return ra ? ra : rb;
}

static void tee_destroy(void *self)
{
    tee *t = self;
    if (!t) return;
    stsl_sink_free(&t->a);
    stsl_sink_free(&t->b);
    free(t);
}

static const stsl_sink_ops tee_ops = {tee_begin, tee_sample, tee_event, tee_end, tee_destroy};

int stsl_sink_tee(stsl_sink a, stsl_sink b, stsl_sink *out, stsl_error *err)
{
    tee *t = malloc(sizeof *t);
    if (!t) {
        stsl_sink_free(&a);
        stsl_sink_free(&b);
        return stsl_error_set(err, STSL_ENOMEM, "out of memory creating a tee sink");
    }
    t->a = a;
    t->b = b;
    out->ops = &tee_ops;
    out->self = t;
    return STSL_OK;
}

/* ---- systems: groups and subjects ------------------------------------------ */

int stsl_layout_group_of(const stsl_layout *layout, int c)
{
    for (int g = 0; g < layout->n_groups; g++)
        if (c >= layout->groups[g].first && c < layout->groups[g].first + layout->groups[g].width)
            return g;
    return -1;
}

int stsl_layout_find_group(const stsl_layout *layout, const char *name)
{
    for (int g = 0; g < layout->n_groups; g++)
        if (strcmp(layout->groups[g].name, name) == 0) return g;
    return -1;
}

static int names_given(const char *const *names, int n)
{
    if (n > 0 && !names) return 0;
    for (int i = 0; i < n; i++)
        if (!names[i]) return 0;
    return 1;
}

int stsl_layout_check_groups(const stsl_layout *l, const char *who, stsl_error *err)
{
    if (l->n_groups < 0 || (l->n_groups > 0 && !l->groups))
        return stsl_error_set(err, STSL_EINPUT, "%s: invalid layout: %d column groups", who,
                              l->n_groups);
    for (int g = 0; g < l->n_groups; g++) {
        const stsl_col_group *cg = &l->groups[g];
        const char *n = cg->name ? cg->name : "(null)";
        if (!cg->name || cg->width < 1 || cg->first < 0 || cg->first + cg->width > l->n_cols)
            return stsl_error_set(err, STSL_EINPUT,
                                  "%s: invalid layout: column group '%s' holds columns [%d, %d) "
                                  "of %d",
                                  who, n, cg->first, cg->first + cg->width, l->n_cols);
        if (!names_given(cg->member_names, cg->width) || cg->n_value_names < 0 ||
            !names_given(cg->value_names, cg->n_value_names))
            return stsl_error_set(err, STSL_EINPUT,
                                  "%s: invalid layout: column group '%s' lacks member or value "
                                  "names",
                                  who, n);
        /* group_of finds the first group holding a column: an earlier one
         * found for a column of g overlaps it. */
        for (int c = cg->first; c < cg->first + cg->width; c++) {
            int h = stsl_layout_group_of(l, c);
            if (h != g)
                return stsl_error_set(err, STSL_EINPUT,
                                      "%s: invalid layout: column groups '%s' and '%s' overlap",
                                      who, l->groups[h].name, n);
        }
    }
    if (l->n_subjects < 0 || !names_given(l->subject_names, l->n_subjects))
        return stsl_error_set(err, STSL_EINPUT, "%s: invalid layout: %d event subjects", who,
                              l->n_subjects);
    return STSL_OK;
}

void stsl_layout_flat_name(const stsl_layout *layout, int c, char *buf, size_t len)
{
    int g = stsl_layout_group_of(layout, c);
    if (g < 0) {
        snprintf(buf, len, "%s", layout->cols[c].name);
        return;
    }
    const stsl_col_group *cg = &layout->groups[g];
    snprintf(buf, len, "%s[%s]", cg->name, cg->member_names[c - cg->first]);
}

const char *stsl_layout_units(const stsl_layout *layout, int c)
{
    if (c < 0) return "";
    int g = stsl_layout_group_of(layout, c);
    const char *u = g >= 0 ? layout->groups[g].units : layout->cols[c].units;
    return u ? u : "";
}

void stsl_layout_event_values(const stsl_layout *l, stsl_event_value out[STSL_EVENT_VALUES])
{
    static const char *const names[STSL_EVENT_VALUES] = {"x", "v_before", "v_after", "net_force",
                                                         "friction"};
    static const char *const source[STSL_EVENT_VALUES] = {"x", "v", "v", "net_force", "friction"};
    for (int i = 0; i < STSL_EVENT_VALUES; i++) {
        int g = stsl_layout_find_group(l, source[i]);
        int c = g >= 0 ? l->groups[g].first : stsl_layout_find(l, source[i]);
        /* A member of some group that merely has the name is not the column. */
        if (g < 0 && c >= 0 && stsl_layout_group_of(l, c) >= 0) c = -1;
        out[i] = (stsl_event_value){names[i], i >= 2, c, g >= 0 ? l->groups[g].width : 0};
    }
}

double stsl_event_value_at(const stsl_event_value *v, const double *before, const double *after,
                           int k)
{
    const double *src = v->after ? after : before;
    return v->first >= 0 && src ? src[v->first + k] : NAN;
}

/* ---- copies ---- */

static char *copy_str(const char *s, int *ok)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) *ok = 0;
    return d;
}

static const char *const *copy_strs(const char *const *s, int n, int *ok)
{
    if (!s || n <= 0) return NULL;
    char **d = calloc((size_t)n, sizeof *d);
    if (!d) {
        *ok = 0;
        return NULL;
    }
    for (int i = 0; i < n; i++)
        d[i] = copy_str(s[i], ok);
    return (const char *const *)d;
}

static void free_strs(const char *const *s, int n)
{
    for (int i = 0; s && i < n; i++)
        free((char *)s[i]);
    free((void *)s);
}

int stsl_layout_copy(const stsl_layout *src, stsl_layout *dst, stsl_error *err)
{
    int ok = 1;
    memset(dst, 0, sizeof *dst);
    dst->n_cols = src->n_cols;
    dst->n_modes = src->n_modes;
    dst->n_kinds = src->n_kinds;
    dst->n_groups = src->n_groups;
    dst->n_subjects = src->n_subjects;
    dst->time_units = copy_str(src->time_units, &ok);
    dst->mode_names = copy_strs(src->mode_names, src->n_modes, &ok);
    dst->kind_names = copy_strs(src->kind_names, src->n_kinds, &ok);
    dst->subject_names = copy_strs(src->subject_names, src->n_subjects, &ok);
    stsl_column *cols = src->n_cols > 0 ? calloc((size_t)src->n_cols, sizeof *cols) : NULL;
    stsl_col_group *gs = src->n_groups > 0 ? calloc((size_t)src->n_groups, sizeof *gs) : NULL;
    dst->cols = cols;
    dst->groups = gs;
    if ((src->n_cols > 0 && !cols) || (src->n_groups > 0 && !gs)) ok = 0;
    for (int c = 0; cols && c < src->n_cols; c++)
        cols[c] = (stsl_column){copy_str(src->cols[c].name, &ok), copy_str(src->cols[c].units, &ok),
                                copy_str(src->cols[c].long_name, &ok)};
    for (int g = 0; gs && g < src->n_groups; g++) {
        const stsl_col_group *s = &src->groups[g];
        gs[g] = *s;
        gs[g].name = copy_str(s->name, &ok);
        gs[g].units = copy_str(s->units, &ok);
        gs[g].long_name = copy_str(s->long_name, &ok);
        gs[g].member_names = copy_strs(s->member_names, s->width, &ok);
        gs[g].value_names = copy_strs(s->value_names, s->n_value_names, &ok);
    }
    if (ok) return STSL_OK;
    stsl_layout_free(dst);
    return stsl_error_set(err, STSL_ENOMEM, "out of memory for a copy of the layout");
}

void stsl_layout_free(stsl_layout *l)
{
    if (!l) return;
    stsl_column *cols = (stsl_column *)l->cols;
    for (int c = 0; cols && c < l->n_cols; c++) {
        free((char *)cols[c].name);
        free((char *)cols[c].units);
        free((char *)cols[c].long_name);
    }
    free(cols);
    stsl_col_group *gs = (stsl_col_group *)l->groups;
    for (int g = 0; gs && g < l->n_groups; g++) {
        free((char *)gs[g].name);
        free((char *)gs[g].units);
        free((char *)gs[g].long_name);
        free_strs(gs[g].member_names, gs[g].width);
        free_strs(gs[g].value_names, gs[g].n_value_names);
    }
    free(gs);
    free((char *)l->time_units);
    free_strs(l->mode_names, l->n_modes);
    free_strs(l->kind_names, l->n_kinds);
    free_strs(l->subject_names, l->n_subjects);
    memset(l, 0, sizeof *l);
}
