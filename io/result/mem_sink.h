/* mem_sink.h - keeps a whole run in memory (for tests and for callers that
 * post-process in C).  The sink owns the data; read it through the accessors
 * while the sink lives. */
#ifndef STSL_MEM_SINK_H
#define STSL_MEM_SINK_H

#include "solver/sink.h"

typedef struct stsl_mem_event {
    double t;
    int kind, mode_before, mode_after;
    double *before, *after; /* n_cols values each, owned by the sink */
    int subject;            /* stsl_event_rec.subject: 1 + index into layout.subject_names */
} stsl_mem_event;

typedef struct stsl_mem_result {
    stsl_layout layout; /* a copy of the layout begin() was given (column groups, subjects) */
    int n_cols;
    long n_samples;
    double *t;    /* n_samples */
    int *mode;    /* n_samples */
    double *cols; /* n_samples * n_cols, row-major */
    long n_events;
    stsl_mem_event *events;
    stsl_stats stats; /* stats.err_cols: err_cols below */
    double *err_cols; /* a verified run's estimate per column (n_cols), else NULL */
    int ended, complete;
    char message[1024];
} stsl_mem_result;

int stsl_mem_sink_create(stsl_sink *out, stsl_error *err);
/* The data collected so far by a sink made by stsl_mem_sink_create. */
const stsl_mem_result *stsl_mem_sink_result(const stsl_sink *s);

#endif
