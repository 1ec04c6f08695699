/* member_metrics.c - see member_metrics.h. */
#include "api/member_metrics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
        char name[32];
        snprintf(name, sizeof name, "contacts.%d", c);
        add_col(out, "stuck_fraction", name, "");
    }
    for (int b = 0; b < s->n_bodies; b++)
        add_col(out, "v_final", s->bodies[b].name, rot ? "rad/s" : "m/s");
}

/* ---- the sink ------------------------------------------------------------------ */

/* Column of member `member` of group `group` in the layout, or -1; *g the group. */
static int find_member(const stsl_layout *l, const char *group, const char *member,
                       const stsl_col_group **g)
{
    for (int i = 0; i < l->n_groups; i++) {
        if (strcmp(l->groups[i].name, group)) continue;
        *g = &l->groups[i];
        for (int k = 0; k < l->groups[i].width; k++)
            if (!strcmp(l->groups[i].member_names[k], member)) return l->groups[i].first + k;
    }
    return -1;
}

static int value_of(const stsl_col_group *g, const char *name)
{
    for (int k = 0; g && k < g->n_value_names; k++)
        if (!strcmp(g->value_names[k], name)) return k;
    return -1;
}

static int ms_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    stsl_member_sink *ms = self;
    int rc = ms->next ? stsl_sink_begin(ms->next, l, err) : STSL_OK;
    for (int k = 0; k < ms->cols->n; k++) {
        const char *name = ms->cols->names[k], *dot = strchr(name, '.');
        char what[32];
        snprintf(what, sizeof what, "%.*s", (int)(dot - name), name);
        const char *group = !strcmp(what, "x_final")   ? "x"
                            : !strcmp(what, "v_final") ? "v"
                                                       : "contact_mode";
        const stsl_col_group *g = NULL;
        ms->src[k] = find_member(l, group, dot + 1, &g);
        ms->fraction[k] = !strcmp(group, "contact_mode");
        ms->stuck_value[k] = ms->fraction[k] ? value_of(g, "STUCK") : -1;
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
        if (ms->have_prev && ms->prev_stuck[k]) ms->stuck_time[k] += t - ms->t_prev;
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

static void ms_destroy(void *self)
{
    (void)self; /* owns nothing: next is borrowed */
}

static const stsl_sink_ops member_ops = {ms_begin, ms_sample, ms_event, ms_end, ms_destroy};

void stsl_member_sink_init(stsl_member_sink *ms, const stsl_member_cols *cols, double *values,
                           stsl_sink *next, stsl_sink *out)
{
    memset(ms, 0, sizeof *ms);
    ms->cols = cols;
    ms->values = values;
    ms->next = next && next->ops ? next : NULL;
    *out = (stsl_sink){&member_ops, ms};
}
