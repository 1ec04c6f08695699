/* bench_sweep.c - what `stickslip sweep` costs per variant: a study of
 * 10,000 Janecek variants (friction.dynamic 10..25 N x base amplitude
 * 0.02..0.08 m, 100 x 100 grid, summary only) run with 1 and 2 jobs, next
 * to the in-process cost of a single run measured in the same invocation
 * on every 10th variant (configured beforehand; only stsl_run timed).
 *
 * Per-variant CPU of the sweep = the process CPU time of the whole sweep
 * (threads, clone, set, run, study file) / variants.
 *
 * With --grid: what the base's output grid costs a summary-only study,
 * which computes no samples: the same study over the example with
 * output_step 1e-3 (its own) and with 0, --jobs 1, run alternately REPS
 * times each; the medians of the per-variant CPU and their ratio.  Usage:
 *   bench_sweep [N_PER_AXIS]   (default 100: 10,000 variants)
 *   bench_sweep --grid [N_PER_AXIS [REPS]]   (default 20: 400 variants, 7) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/sweep.h"
#include "benchmarks/bench_util.h"
#include "include/stickslip.h"
#include "io/study/study.h"

#define JANECEK STSL_SOURCE_DIR "/examples/janecek_chirp.yaml"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Mean CPU seconds of stsl_run over every 10th variant of the study. */
static double single_runs(const stsl_study *s, long *count)
{
    stsl_err e;
    stsl_cfg *base = stsl_cfg_load(JANECEK, &e);
    if (!base) bench_die("bench_sweep", "load", e.message);
    double cpu = 0.0, vals[2];
    *count = 0;
    for (long i = 0; i < stsl_study_n_variants(s); i += 10) {
        stsl_cfg *c = stsl_cfg_clone(base, &e);
        stsl_study_values(s, i, vals);
        char v0[32], v1[32];
        snprintf(v0, sizeof v0, "%.17g", vals[0]);
        snprintf(v1, sizeof v1, "%.17g", vals[1]);
        if (!c || stsl_cfg_set(c, stsl_study_key(s, 0), v0, &e) ||
            stsl_cfg_set(c, stsl_study_key(s, 1), v1, &e))
            bench_die("bench_sweep", "configure", e.message);
        stsl_summary sum;
        double t0 = cpu_now();
        if (stsl_run(c, STSL_OUTPUT_NONE, NULL, &sum, &e))
            bench_die("bench_sweep", "run", e.message);
        cpu += cpu_now() - t0;
        stsl_cfg_free(c);
        ++*count;
    }
    stsl_cfg_free(base);
    return cpu / (double)*count;
}

static double sweep(const char *study, const char *out, int jobs, double single)
{
    stsl_sweep_opts o = {out, jobs, 0, NULL, 0, "bench", NULL, NULL, NULL, NULL};
    stsl_sweep_progress p;
    stsl_error err = {0};
    remove(out);
    double c0 = cpu_now();
    if (stsl_sweep_run(study, &o, &p, &err)) bench_die("bench_sweep", "sweep", err.msg);
    double cpu = (cpu_now() - c0) / (double)p.n_done;
    printf("sweep --jobs %d: %6ld variants in %6.2f s: %7.0f runs/s, CPU %6.0f us/variant "
           "(%+5.1f %% vs single run), %ld failed\n",
           jobs, p.n_done, p.seconds, (double)p.n_done / p.seconds, 1e6 * cpu,
           100.0 * (cpu / single - 1.0), p.n_failed);
    return (double)p.n_done / p.seconds;
}

static double sweep_cpu(const char *study, const char *out)
{
    stsl_sweep_opts o = {out, 1, 0, NULL, 0, "bench", NULL, NULL, NULL, NULL};
    stsl_sweep_progress p;
    stsl_error err = {0};
    remove(out);
    double c0 = cpu_now();
    if (stsl_sweep_run(study, &o, &p, &err)) bench_die("bench_sweep", "sweep", err.msg);
    return (cpu_now() - c0) / (double)p.n_done;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The --grid measurement (see the top). */
static int grid_cost(const char *dir, int n, int reps)
{
    char base[2][256], study[2][256], out[256], text[1024];
    const char *step[2] = {"1e-3", "0"};
    double cpu[2][64];
    if (reps > 64) reps = 64;
    for (int k = 0; k < 2; k++) {
        stsl_err e;
        stsl_cfg *c = stsl_cfg_load(JANECEK, &e);
        snprintf(base[k], sizeof base[k], "%s/base%d.yaml", dir, k);
        if (!c || stsl_cfg_set(c, "simulation.output_step", step[k], &e) ||
            stsl_cfg_write(c, base[k], &e))
            bench_die("bench_sweep", "base", e.message);
        stsl_cfg_free(c);
        snprintf(study[k], sizeof study[k], "%s/study%d.yaml", dir, k);
        snprintf(text, sizeof text,
                 "base: %s\nvary:\n  friction.dynamic: {linspace: [10, 25, %d]}\n"
                 "  inputs.base_motion.amplitude: {linspace: [0.02, 0.08, %d]}\n",
                 base[k], n, n);
        FILE *f = fopen(study[k], "w");
        if (!f || fputs(text, f) < 0 || fclose(f)) bench_die("bench_sweep", "write", study[k]);
    }
    snprintf(out, sizeof out, "%s/study.h5", dir);
    for (int r = 0; r < reps; r++) /* alternating: a change of load hits both */
        for (int k = 0; k < 2; k++)
            cpu[k][r] = sweep_cpu(study[k], out);
    double m1 = median(cpu[0], reps), m0 = median(cpu[1], reps);
    printf("janecek_chirp, %d variants, summary only, --jobs 1, medians of %d alternating runs\n",
           n * n, reps);
    printf("output_step 1e-3: CPU %6.0f us/variant\noutput_step 0:    CPU %6.0f us/variant\n"
           "ratio: %.3f\n",
           1e6 * m1, 1e6 * m0, m1 / m0);
    for (int k = 0; k < 2; k++) {
        remove(base[k]);
        remove(study[k]);
    }
    remove(out);
    rmdir(dir);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--grid")) {
        char dir[] = "/tmp/bench_sweep.XXXXXX";
        if (!mkdtemp(dir)) bench_die("bench_sweep", "mkdtemp", "cannot make a temporary directory");
        return grid_cost(dir, argc > 2 ? atoi(argv[2]) : 20, argc > 3 ? atoi(argv[3]) : 7);
    }
    int n = argc > 1 ? atoi(argv[1]) : 100;
    if (n < 2) bench_die("bench_sweep", "usage", "bench_sweep [N_PER_AXIS >= 2]");
    char dir[] = "/tmp/bench_sweep.XXXXXX", study[256], out[256], text[1024];
    if (!mkdtemp(dir)) bench_die("bench_sweep", "mkdtemp", "cannot make a temporary directory");
    snprintf(study, sizeof study, "%s/study.yaml", dir);
    snprintf(out, sizeof out, "%s/study.h5", dir);
    snprintf(text, sizeof text,
             "base: %s\nvary:\n  friction.dynamic: {linspace: [10, 25, %d]}\n"
             "  inputs.base_motion.amplitude: {linspace: [0.02, 0.08, %d]}\n",
             JANECEK, n, n);
    FILE *f = fopen(study, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) bench_die("bench_sweep", "write", study);
    stsl_study *s = NULL;
    stsl_error err;
    if (stsl_study_load(study, &s, &err)) bench_die("bench_sweep", "study", err.msg);
    long count;
    double single = single_runs(s, &count);
    printf("janecek_chirp, %ld variants, summary only\n", stsl_study_n_variants(s));
    printf("single in-process run (stsl_run, %ld of the variants): CPU %6.0f us/run = %7.0f "
           "runs/s per core\n",
           count, 1e6 * single, 1.0 / single);
    double r1 = sweep(study, out, 1, single), r2 = sweep(study, out, 2, single);
    printf("2 jobs / 1 job: %.2fx the throughput\n", r2 / r1);
    stsl_study_free(s);
    remove(out);
    remove(study);
    rmdir(dir);
    return 0;
}
