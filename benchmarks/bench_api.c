/* bench_api.c - what a parameter sweep pays for the public API: the
 * Janecek case (examples/janecek_chirp.yaml) run into a summary only,
 * plainly (the same configuration every time) and as clone -> set
 * friction.dynamic -> run -> free.  Median of several batches of each,
 * interleaved so that both see the same machine load. */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/bench_util.h"
#include "api/config_api.h"
#include "include/stickslip.h"
#include "run/run.h"

#define BATCHES 7
#define RUNS    40

static void die(const char *what, const stsl_err *e)
{
    fprintf(stderr, "bench_api: %s: %s\n", what, e->message);
    exit(1);
}

/* Seconds per run of a batch of plain runs. */
static double plain_batch(const stsl_cfg *cfg)
{
    stsl_err e;
    stsl_summary s;
    double t0 = bench_now();
    for (int i = 0; i < RUNS; i++)
        if (stsl_run(cfg, STSL_OUTPUT_NONE, NULL, &s, &e)) die("run", &e);
    return (bench_now() - t0) / RUNS;
}

/* The same with a fresh clone and one set per run (18 N, the file's own
 * value, so that the runs are the same physics as the plain ones). */
static double sweep_batch(const stsl_cfg *cfg)
{
    stsl_err e;
    stsl_summary s;
    double t0 = bench_now();
    for (int i = 0; i < RUNS; i++) {
        stsl_cfg *c = stsl_cfg_clone(cfg, &e);
        if (!c) die("clone", &e);
        if (stsl_cfg_set(c, "friction.dynamic", "18", &e)) die("set", &e);
        if (stsl_run(c, STSL_OUTPUT_NONE, NULL, &s, &e)) die("run", &e);
        stsl_cfg_free(c);
    }
    return (bench_now() - t0) / RUNS;
}

/* Seconds per clone -> set -> free without the run: what the sweep adds,
 * measured on its own (the difference of two noisy run timings on a shared
 * machine can be larger than the thing itself). */
static double clone_set_batch(const stsl_cfg *cfg)
{
    enum { N = 2000 };
    stsl_err e;
    double t0 = bench_now();
    for (int i = 0; i < N; i++) {
        stsl_cfg *c = stsl_cfg_clone(cfg, &e);
        if (!c) die("clone", &e);
        if (stsl_cfg_set(c, "friction.dynamic", "18", &e)) die("set", &e);
        stsl_cfg_free(c);
    }
    return (bench_now() - t0) / N;
}

/* The same plain runs through the internal run function without the
 * dissipated energy: what the summary's energy costs (coulomb: F_D dx per segment). */
static double internal_batch(const stsl_cfg *cfg, int power)
{
    const stsl_config *c = &cfg->c;
    stsl_hsolver_opts sim = c->sim;
    stsl_error e = {0};
    stsl_sink none = {0};
    sim.integrate_power = power;
    double t0 = bench_now();
    for (int i = 0; i < RUNS; i++)
        if (stsl_run_element(&c->element, &sim, &c->scheme, &none, NULL, &e)) {
            fprintf(stderr, "bench_api: run: %s\n", e.msg);
            exit(1);
        }
    return (bench_now() - t0) / RUNS;
}

int main(void)
{
    stsl_err e;
    stsl_cfg *cfg = stsl_cfg_load(STSL_SOURCE_DIR "/examples/janecek_chirp.yaml", &e);
    if (!cfg) die("load", &e);
    /* As bench_janecek: the cost of the run, not of an output grid. */
    if (stsl_cfg_set(cfg, "simulation.output_step", "0", &e)) die("set", &e);
    double plain[BATCHES], sweep[BATCHES], cs[BATCHES], with[BATCHES], without[BATCHES];
    plain_batch(cfg); /* warm caches and the allocator */
    for (int b = 0; b < BATCHES; b++) {
        /* Alternate the order: the machine's load drifts within a pair. */
        if (b % 2) plain[b] = plain_batch(cfg);
        sweep[b] = sweep_batch(cfg);
        if (!(b % 2)) plain[b] = plain_batch(cfg);
        cs[b] = clone_set_batch(cfg);
        without[b] = internal_batch(cfg, 0);
        with[b] = internal_batch(cfg, 1);
    }
    double p = bench_median(plain, BATCHES), s = bench_median(sweep, BATCHES);
    double c = bench_median(cs, BATCHES);
    double w1 = bench_median(with, BATCHES), w0 = bench_median(without, BATCHES);
    printf("janecek, summary only, median of %d batches of %d runs\n", BATCHES, RUNS);
    printf("  plain run            %8.1f us/run\n", 1e6 * p);
    printf("  clone + set + run    %8.1f us/run\n", 1e6 * s);
    printf("  overhead             %8.2f %% (difference of the two timings)\n",
           100.0 * (s - p) / p);
    printf("  clone + set + free   %8.2f us alone = %.3f %% of a plain run\n", 1e6 * c,
           100.0 * c / p);
    printf("  internal run, dissipated energy off %8.1f us, on %8.1f us (%+.2f %%)\n", 1e6 * w0,
           1e6 * w1, 100.0 * (w1 - w0) / w0);
    stsl_cfg_free(cfg);
    return 0;
}
