#include "solver/event_log.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void stsl_event_log_init(stsl_event_log *log)
{
    memset(log, 0, sizeof *log);
    log->instant_t = -INFINITY;
}

int stsl_event_log_push(stsl_event_log *log, double t, int kind, int64_t mode_before,
                        int64_t mode_after, const double *y, int n_state, double same_tol)
{
    stsl_logged_event *e = &log->ring[log->total % STSL_EVENT_LOG_SIZE];
    e->t = t;
    e->kind = kind;
    e->mode_before = mode_before;
    e->mode_after = mode_after;
    e->n_state = n_state < STSL_EVENT_LOG_STATE ? n_state : STSL_EVENT_LOG_STATE;
    for (int i = 0; i < e->n_state; i++)
        e->y[i] = y[i];
    log->total++;
    if (fabs(t - log->instant_t) <= same_tol) {
        log->instant_count++;
    } else {
        log->instant_t = t;
        log->instant_count = 1;
    }
    return log->instant_count;
}

static const char *name_of(const char *const *names, int i, char *tmp, size_t n)
{
    if (names && i >= 0) return names[i];
    snprintf(tmp, n, "%d", i);
    return tmp;
}

static const char *mode_of(stsl_mode_namer name_mode, void *ctx, int64_t mode, char *tmp, size_t n)
{
    if (name_mode)
        name_mode(ctx, mode, tmp, n);
    else
        snprintf(tmp, n, "%" PRId64, mode);
    return tmp;
}

void stsl_event_log_format(const stsl_event_log *log, const char *const *kind_names,
                           stsl_mode_namer name_mode, void *ctx, char *buf, size_t bufsz)
{
    size_t used = 0;
    buf[0] = '\0';
    long first = log->total > STSL_EVENT_LOG_SIZE ? log->total - STSL_EVENT_LOG_SIZE : 0;
    for (long k = first; k < log->total && used < bufsz; k++) {
        const stsl_logged_event *e = &log->ring[k % STSL_EVENT_LOG_SIZE];
        char a[16], b[64], c[64];
        int w = snprintf(buf + used, bufsz - used, "%st=%.17g %s (%s->%s)", k > first ? "; " : "",
                         e->t, name_of(kind_names, e->kind, a, sizeof a),
                         mode_of(name_mode, ctx, e->mode_before, b, sizeof b),
                         mode_of(name_mode, ctx, e->mode_after, c, sizeof c));
        if (w < 0) break;
        used += (size_t)w;
    }
    if (log->total == 0) snprintf(buf, bufsz, "none");
}
