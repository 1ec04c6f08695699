/* mem_sink.c - a sink that keeps the whole run in growing arrays. */
#include "io/result/mem_sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEM_FIRST_CAP 256

typedef struct mem_sink {
    stsl_mem_result r;
    long cap_samples, cap_events;
    int began;
} mem_sink;

static int mem_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    mem_sink *m = self;
    if (m->began) return stsl_error_set(err, STSL_EINPUT, "memory sink: begun twice");
    if (l->n_cols < 0 || (l->n_cols > 0 && !l->cols))
        return stsl_error_set(err, STSL_EINPUT, "memory sink: invalid layout (%d columns)",
                              l->n_cols);
    int rc = stsl_layout_check_groups(l, "memory sink", err);
    if (!rc) rc = stsl_layout_copy(l, &m->r.layout, err);
    if (rc) return rc;
    m->r.n_cols = l->n_cols;
    m->began = 1;
    return STSL_OK;
}

/* Double the sample arrays; on failure the old arrays stay valid. */
static int grow_samples(mem_sink *m, stsl_error *err)
{
    long cap = m->cap_samples ? 2 * m->cap_samples : MEM_FIRST_CAP;
    size_t nc = (size_t)(m->r.n_cols > 0 ? m->r.n_cols : 1);
    double *t = realloc(m->r.t, sizeof *t * (size_t)cap);
    if (t) m->r.t = t;
    int *mode = realloc(m->r.mode, sizeof *mode * (size_t)cap);
    if (mode) m->r.mode = mode;
    double *cols = realloc(m->r.cols, sizeof *cols * (size_t)cap * nc);
    if (cols) m->r.cols = cols;
    if (!t || !mode || !cols)
        return stsl_error_set(err, STSL_ENOMEM, "memory sink: out of memory at %ld samples",
                              m->r.n_samples);
    m->cap_samples = cap;
    return STSL_OK;
}

static int mem_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    mem_sink *m = self;
    int rc;
    if (!m->began || m->r.ended)
        return stsl_error_set(err, STSL_EINPUT, "memory sink: sample outside begin()/end()");
    if (m->r.n_samples == m->cap_samples && (rc = grow_samples(m, err)) != STSL_OK) return rc;
    long i = m->r.n_samples++;
    m->r.t[i] = t;
    m->r.mode[i] = mode;
    if (m->r.n_cols > 0)
        memcpy(m->r.cols + (size_t)i * (size_t)m->r.n_cols, cols,
               sizeof *cols * (size_t)m->r.n_cols);
    return STSL_OK;
}

static int mem_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    mem_sink *m = self;
    if (!m->began || m->r.ended)
        return stsl_error_set(err, STSL_EINPUT, "memory sink: event outside begin()/end()");
    if (ev->subject < 0 || ev->subject > m->r.layout.n_subjects)
        return stsl_error_set(err, STSL_EINPUT,
                              "memory sink: event subject %d out of range (0..%d)", ev->subject,
                              m->r.layout.n_subjects);
    if (m->r.n_events == m->cap_events) {
        long cap = m->cap_events ? 2 * m->cap_events : 16;
        stsl_mem_event *e = realloc(m->r.events, sizeof *e * (size_t)cap);
        if (!e) return stsl_error_set(err, STSL_ENOMEM, "memory sink: out of memory");
        m->r.events = e;
        m->cap_events = cap;
    }
    /* The values of each event in a block of their own: the event array
     * may move as it grows, they do not. */
    size_t n = (size_t)m->r.n_cols;
    double *v = calloc(2 * n + 1, sizeof *v);
    if (!v) return stsl_error_set(err, STSL_ENOMEM, "memory sink: out of memory");
    stsl_mem_event *e = &m->r.events[m->r.n_events++];
    *e = (stsl_mem_event){ev->t, ev->kind, ev->mode_before, ev->mode_after, v, v + n, ev->subject};
    if (n && ev->before) memcpy(e->before, ev->before, n * sizeof *v);
    if (n && ev->after) memcpy(e->after, ev->after, n * sizeof *v);
    return STSL_OK;
}

static int mem_end(void *self, const stsl_stats *st, int complete, const char *message,
                   stsl_error *err)
{
    mem_sink *m = self;
    if (m->r.ended) return stsl_error_set(err, STSL_EINPUT, "memory sink: ended twice");
    if (st) m->r.stats = *st;
    /* The estimate per column is the verified run's, valid during end(). */
    if (st && st->err_cols && m->r.n_cols > 0) {
        size_t bytes = sizeof *m->r.err_cols * (size_t)m->r.n_cols;
        if (!(m->r.err_cols = malloc(bytes)))
            return stsl_error_set(err, STSL_ENOMEM, "memory sink: out of memory");
        memcpy(m->r.err_cols, st->err_cols, bytes);
    }
    m->r.stats.err_cols = m->r.err_cols;
    m->r.complete = complete ? 1 : 0;
    snprintf(m->r.message, sizeof m->r.message, "%s", complete || !message ? "" : message);
    m->r.ended = 1;
    return STSL_OK;
}

static void mem_destroy(void *self)
{
    mem_sink *m = self;
    if (!m) return;
    free(m->r.t);
    free(m->r.mode);
    free(m->r.err_cols);
    free(m->r.cols);
    for (long i = 0; i < m->r.n_events; i++)
        free(m->r.events[i].before);
    free(m->r.events);
    stsl_layout_free(&m->r.layout);
    free(m);
}

static const stsl_sink_ops mem_ops = {mem_begin, mem_sample, mem_event, mem_end, mem_destroy};

int stsl_mem_sink_create(stsl_sink *out, stsl_error *err)
{
    mem_sink *m = calloc(1, sizeof *m);
    if (!m) return stsl_error_set(err, STSL_ENOMEM, "memory sink: out of memory");
    out->ops = &mem_ops;
    out->self = m;
    return STSL_OK;
}

const stsl_mem_result *stsl_mem_sink_result(const stsl_sink *s)
{
    /* Only our own ops table identifies a memory sink; anything else is not one. */
    if (!s || s->ops != &mem_ops) return NULL;
    return &((const mem_sink *)s->self)->r;
}
