#include "solver/sink.h"

#include <stdlib.h>
#include <string.h>

int stsl_sink_begin(stsl_sink *s, const stsl_layout *layout, stsl_error *err)
{
    return (s && s->ops) ? s->ops->begin(s->self, layout, err) : STSL_OK;
}

int stsl_sink_sample(stsl_sink *s, double t, int mode, const double *cols, stsl_error *err)
{
    return (s && s->ops) ? s->ops->sample(s->self, t, mode, cols, err) : STSL_OK;
}

int stsl_sink_event(stsl_sink *s, const stsl_event_rec *ev, stsl_error *err)
{
    return (s && s->ops) ? s->ops->event(s->self, ev, err) : STSL_OK;
}

int stsl_sink_end(stsl_sink *s, const stsl_stats *stats, int complete, const char *message,
                  stsl_error *err)
{
    return (s && s->ops) ? s->ops->end(s->self, stats, complete, message, err) : STSL_OK;
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
