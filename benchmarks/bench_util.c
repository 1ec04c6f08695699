#include "benchmarks/bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "io/config/config.h"
#include "run/run.h"
#include "solver/hybrid.h"

#define MAX_SETS    16
#define MAX_BATCHES 101

double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void bench_die(const char *prog, const char *what, const char *msg)
{
    fprintf(stderr, "%s: %s: %s\n", prog, what, msg);
    exit(1);
}

static int one_run(const stsl_config *cfg, stsl_stats *st, stsl_error *err)
{
    stsl_sink none = {0}; /* a sink without ops drops everything */
    return stsl_run_element(&cfg->element, &cfg->sim, &cfg->scheme, &none, st, err);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp);
    return v[n / 2];
}

int bench_load(const char *path, const char *const *sets, int n_sets, stsl_config *cfg)
{
    if (n_sets >= MAX_SETS) {
        fprintf(stderr, "bench: at most %d settings\n", MAX_SETS - 1);
        return 2;
    }
    const char *all[MAX_SETS];
    for (int i = 0; i < n_sets; i++)
        all[i] = sets[i];
    all[n_sets] = "simulation.output_step=0";
    stsl_error err = {0};
    if (stsl_config_load(path, all, n_sets + 1, cfg, &err)) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 2;
    }
    return 0;
}

int bench_batch(const stsl_config *cfg, int runs, stsl_stats *st, double *per_run)
{
    stsl_error err = {0};
    int rc = 0;
    double t0 = bench_now();
    for (int r = 0; r < runs && !rc; r++)
        rc = one_run(cfg, st, &err);
    *per_run = (bench_now() - t0) / runs;
    if (rc) fprintf(stderr, "bench: run failed: %s\n", err.msg);
    return rc ? 3 : 0;
}

int bench_config(const char *path, const char *const *sets, int n_sets, int runs, int batches,
                 bench_result *out)
{
    if (runs < 1 || batches < 1 || batches > MAX_BATCHES) {
        fprintf(stderr, "bench: runs >= 1, batches 1..%d\n", MAX_BATCHES);
        return 2;
    }
    stsl_config cfg;
    int rc = bench_load(path, sets, n_sets, &cfg);
    if (rc) return rc;
    double per_run[MAX_BATCHES];
    for (int b = 0; b < batches && !rc; b++)
        rc = bench_batch(&cfg, runs, &out->stats, &per_run[b]);
    out->us_median = 1e6 * bench_median(per_run, batches);
    out->us_min = 1e6 * per_run[0];
    out->us_max = 1e6 * per_run[batches - 1];
    out->rtol = cfg.sim.rtol;
    stsl_config_free(&cfg);
    return rc;
}
