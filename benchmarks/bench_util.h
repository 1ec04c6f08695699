/* bench_util.h - time whole runs of a configuration, as a batch study would
 * run its variants: each run builds its element and solver (own SUNContext),
 * runs to t_end without output and frees them. */
#ifndef STSL_BENCH_UTIL_H
#define STSL_BENCH_UTIL_H

#include "io/config/config.h"
#include "solver/sink.h"

typedef struct bench_result {
    double us_median, us_min, us_max; /* per run, over batches */
    stsl_stats stats;                 /* of the last run */
    double rtol;
} bench_result;

/* Load `path` with `sets` (plus output_step=0), run it `runs` times in each
 * of `batches` batches. Prints the reason and returns nonzero on failure. */
int bench_config(const char *path, const char *const *sets, int n_sets, int runs, int batches,
                 bench_result *out);

/* Load `path` with `sets` plus output_step=0 into cfg (free it with
 * stsl_config_free).  Prints the reason and returns nonzero on failure. */
int bench_load(const char *path, const char *const *sets, int n_sets, stsl_config *cfg);
/* Run cfg `runs` times; *per_run: the mean wall time of one run (s), *st:
 * the last run's statistics.  Prints the reason and returns 3 on failure. */
int bench_batch(const stsl_config *cfg, int runs, stsl_stats *st, double *per_run);

/* Monotonic clock in seconds. */
double bench_now(void);
/* Print "PROG: WHAT: MSG" to stderr and exit 1 (a benchmark that cannot
 * measure). */
void bench_die(const char *prog, const char *what, const char *msg);
/* The median of v[0..n-1] (sorts v in place). */
double bench_median(double *v, int n);

#endif
