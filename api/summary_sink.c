/* summary_sink.c - see summary_sink.h. */
#include "api/summary_sink.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/validation.h"

static int sum_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    stsl_summary_sink *ss = self;
    stsl_summary *s = ss->sum;
    int rc = ss->next ? stsl_sink_begin(ss->next, l, err) : STSL_OK;
    if (rc) return rc;
    /* A system's grouped columns may be more than the summary holds: it
     * then summarises the first STSL_SUMMARY_MAX_COLS (the whole result,
     * stsl_result, keeps them all). */
    int grouped = l->n_groups > 0;
    if ((l->n_cols > STSL_SUMMARY_MAX_COLS && !grouped) || l->n_kinds > STSL_SUMMARY_MAX_KINDS ||
        l->n_modes > STSL_SUMMARY_MAX_MODES)
        return stsl_error_set(err, STSL_EMODEL,
                              "summary: the model has %d columns, %d event kinds, %d modes "
                              "(at most %d, %d, %d)",
                              l->n_cols, l->n_kinds, l->n_modes, STSL_SUMMARY_MAX_COLS,
                              STSL_SUMMARY_MAX_KINDS, STSL_SUMMARY_MAX_MODES);
    s->n_cols = l->n_cols < STSL_SUMMARY_MAX_COLS ? l->n_cols : STSL_SUMMARY_MAX_COLS;
    for (int i = 0; i < s->n_cols; i++) {
        snprintf(s->col_names[i], sizeof s->col_names[i], "%s", l->cols[i].name);
        s->col_units[i] = l->cols[i].units ? l->cols[i].units : "";
    }
    s->time_units = l->time_units ? l->time_units : "";
    s->n_kinds = l->n_kinds;
    for (int i = 0; i < l->n_kinds; i++) {
        s->kind_names[i] = l->kind_names[i];
        s->first_event_time[i] = NAN;
        s->last_event_time[i] = NAN;
    }
    s->n_modes = l->n_modes;
    for (int i = 0; i < l->n_modes; i++)
        s->mode_names[i] = l->mode_names[i];
    return STSL_OK;
}

static int sum_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    stsl_summary_sink *ss = self;
    stsl_summary *s = ss->sum;
    int rc = ss->next ? stsl_sink_sample(ss->next, t, mode, cols, err) : STSL_OK;
    if (rc) return rc;
    s->t_reached = t;
    s->final_mode = mode >= 0 && mode < s->n_modes ? s->mode_names[mode] : "none";
    memcpy(s->final, cols, (size_t)s->n_cols * sizeof *cols);
    for (int i = 0; i < s->n_cols; i++)
        if (fabs(cols[i]) > s->max_abs[i]) s->max_abs[i] = fabs(cols[i]);
    return STSL_OK;
}

static int sum_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    stsl_summary_sink *ss = self;
    stsl_summary *s = ss->sum;
    int rc = ss->next ? stsl_sink_event(ss->next, ev, err) : STSL_OK;
    if (rc) return rc;
    if (ev->kind < 0 || ev->kind >= s->n_kinds) return STSL_OK;
    if (s->events[ev->kind]++ == 0) s->first_event_time[ev->kind] = ev->t;
    s->last_event_time[ev->kind] = ev->t;
    return STSL_OK;
}

/* The columns whose exact extrema the solver tracked (x and v) get them
 * instead of the largest sample: the same value whatever the output grid
 * (the solver's points include every sample but the grid's, which lie on
 * the same dense output). */
static void take_extrema(stsl_summary *s, const stsl_stats *st)
{
    for (int i = 0; i < s->n_cols && i < st->n_extrema; i++)
        if (!isnan(st->col_min[i]) && !isnan(st->col_max[i]))
            s->max_abs[i] = fmax(fabs(st->col_min[i]), fabs(st->col_max[i]));
}

static int sum_end(void *self, const stsl_stats *st, int complete, const char *message,
                   stsl_error *err)
{
    stsl_summary_sink *ss = self;
    stsl_summary *s = ss->sum;
    /* The summary is filled even when the next sink fails to end. */
    int rc = ss->next ? stsl_sink_end(ss->next, st, complete, message, err) : STSL_OK;
    s->complete = complete;
    snprintf(s->message, sizeof s->message, "%s", complete || !message ? "" : message);
    for (int i = 0; i < s->n_modes && i < st->n_modes; i++)
        s->mode_time[i] = st->mode_time[i];
    s->dissipated_energy = st->work;
    s->n_events = st->events;
    s->steps = st->steps;
    s->rhs_evals = st->rhs_evals;
    s->guard_evals = st->guard_evals;
    s->segments = st->segments;
    s->jac_evals = st->jac_evals;
    s->wall_seconds = st->wall_seconds;
    s->verify = st->verify;
    s->verify_rtol = st->verify_rtol;
    s->err_event_time = st->err_event_time;
    s->err_x = st->err_x;
    s->err_v = st->err_v;
    take_extrema(s, st);
    return rc;
}

/* No destroy: everything is borrowed. */
static const stsl_sink_ops summary_ops = {sum_begin, sum_sample, sum_event, sum_end, NULL};

void stsl_summary_sink_init(stsl_summary_sink *ss, stsl_summary *sum, stsl_sink *next,
                            stsl_sink *out)
{
    memset(sum, 0, sizeof *sum);
    sum->final_mode = "none";
    sum->dissipated_energy = NAN;
    sum->time_units = "";
    sum->energy_units = STSL_ENERGY_UNITS;
    *ss = (stsl_summary_sink){sum, next};
    *out = (stsl_sink){&summary_ops, ss};
}

int stsl_name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

long stsl_summary_events(const stsl_summary *s, const char *kind)
{
    int i = s ? stsl_name_index(s->kind_names, s->n_kinds, kind) : -1;
    return i >= 0 ? s->events[i] : -1;
}

double stsl_summary_first_event(const stsl_summary *s, const char *kind)
{
    int i = s ? stsl_name_index(s->kind_names, s->n_kinds, kind) : -1;
    return i >= 0 ? s->first_event_time[i] : NAN;
}

/* ---- a system's per-member figures ---------------------------------------------- */

static void add_col(stsl_member_cols *c, const char *what, const char *member, const char *units)
{
    if (c->n == STSL_STUDY_MAX_MEMBERS) return;
    snprintf(c->names[c->n], sizeof c->names[c->n], "%s.%s", what, member);
    c->name_ptrs[c->n] = c->names[c->n];
    c->units[c->n++] = units;
}

void stsl_member_cols_of(const stsl_system *s, stsl_member_cols *out)
{
    int rot = s->domain == STSL_DOMAIN_ROTATIONAL;
    out->n = 0;
    for (int b = 0; b < s->n_bodies; b++)
        add_col(out, "x_final", s->bodies[b].name, rot ? "rad" : "m");
    for (int c = 0; c < s->n_contacts; c++) {
        char name[sizeof s->contacts[c].name + 16];
        add_col(out, "stuck_fraction", stsl_system_member_name(s, c, name, sizeof name), "");
    }
    for (int b = 0; b < s->n_bodies; b++)
        add_col(out, "v_final", s->bodies[b].name, rot ? "rad/s" : "m/s");
}

/* ---- the sink ------------------------------------------------------------------ */

/* Column of member `member` of group `group` in the layout, or -1; *g the group. */
static int find_member(const stsl_layout *l, const char *group, const char *member,
                       const stsl_col_group **g)
{
    int i = stsl_layout_find_group(l, group);
    *g = i >= 0 ? &l->groups[i] : NULL;
    for (int k = 0; *g && k < (*g)->width; k++)
        if (!strcmp((*g)->member_names[k], member)) return (*g)->first + k;
    return -1;
}

static int ms_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    stsl_member_sink *ms = self;
    int rc = ms->next ? stsl_sink_begin(ms->next, l, err) : STSL_OK;
    for (int k = 0; k < ms->cols->n; k++) {
        const char *name = ms->cols->names[k], *dot = strchr(name, '.');
        const char *group = !strncmp(name, "x_final.", 8)   ? "x"
                            : !strncmp(name, "v_final.", 8) ? "v"
                                                            : "contact_mode";
        const stsl_col_group *g = NULL;
        ms->src[k] = find_member(l, group, dot + 1, &g);
        ms->fraction[k] = !strcmp(group, "contact_mode");
        ms->stuck_value[k] =
            ms->fraction[k] && g ? stsl_name_index(g->value_names, g->n_value_names, "STUCK") : -1;
        ms->stuck_time[k] = 0.0;
        ms->values[k] = NAN;
    }
    ms->have_prev = 0;
    return rc;
}

static int ms_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    stsl_member_sink *ms = self;
    int rc = ms->next ? stsl_sink_sample(ms->next, t, mode, cols, err) : STSL_OK;
    if (!ms->have_prev) ms->t0 = t;
    for (int k = 0; k < ms->cols->n; k++) {
        if (ms->src[k] < 0) continue;
        if (!ms->fraction[k]) {
            ms->values[k] = cols[ms->src[k]]; /* a final value: the last sample's */
            continue;
        }
        if (ms->have_prev) { /* the interval by the rule of `info` and compare */
            double tt[2] = {ms->t_prev, t};
            unsigned char f[2] = {ms->prev_stuck[k], 0};
            stsl_cmp_stuck held;
            stsl_compare_stuck_held(tt, f, f, 2, &held);
            ms->stuck_time[k] += held.ref_time;
        }
        ms->prev_stuck[k] = ms->stuck_value[k] >= 0 && (int)cols[ms->src[k]] == ms->stuck_value[k];
    }
    ms->t_prev = t;
    ms->have_prev = 1;
    return rc;
}

static int ms_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    stsl_member_sink *ms = self;
    return ms->next ? stsl_sink_event(ms->next, ev, err) : STSL_OK;
}

static int ms_end(void *self, const stsl_stats *st, int complete, const char *msg, stsl_error *err)
{
    stsl_member_sink *ms = self;
    double span = ms->have_prev ? ms->t_prev - ms->t0 : 0.0;
    for (int k = 0; k < ms->cols->n; k++)
        if (ms->src[k] >= 0 && ms->fraction[k])
            ms->values[k] = ms->stuck_value[k] >= 0 && span > 0 ? ms->stuck_time[k] / span : NAN;
    return ms->next ? stsl_sink_end(ms->next, st, complete, msg, err) : STSL_OK;
}

/* No destroy: it owns nothing (next is borrowed). */
static const stsl_sink_ops member_ops = {ms_begin, ms_sample, ms_event, ms_end, NULL};

void stsl_member_sink_init(stsl_member_sink *ms, const stsl_member_cols *cols, double *values,
                           stsl_sink *next, stsl_sink *out)
{
    memset(ms, 0, sizeof *ms);
    ms->cols = cols;
    ms->values = values;
    ms->next = next && next->ops ? next : NULL;
    *out = (stsl_sink){&member_ops, ms};
}
