/* result.h - the in-memory result of stickslip.h (stsl_result): a run kept
 * whole, its columns stored by column so that each is one array.  Made from
 * the memory sink's rows, by a run (result.c) or by replaying a result file
 * (result_read.c). */
#ifndef STSL_API_RESULT_H
#define STSL_API_RESULT_H

#include "include/stickslip.h"
#include "io/result/mem_sink.h"

struct stsl_result {
    stsl_summary sum;
    long n, n_events;
    int n_cols;
    double *t, *mode;       /* n each */
    double **cols;          /* n_cols columns of n each */
    char **col_names;       /* n_cols: flat names ("x[motor]" for a grouped column) */
    char **col_attrs;       /* 3 n_cols: units, long_name, value_names of each column */
    stsl_mem_event *events; /* n_events, values in ev_values (2 n_cols each) */
    double *ev_values;
    int n_subjects;
    char **subject_names; /* what events are about (a system's contacts and stops) */
    void *names;          /* a result read from a file: the strings sum points into */
    double *err_cols;     /* a verified run's estimate per column (n_cols), else NULL */
};

/* Fill the empty result `r` with the columns and events of `m`. */
int stsl_api_result_take(stsl_result *r, const stsl_mem_result *m, stsl_error *err);

#endif
