/* bench_janecek.c - cost of one Janecek chirp run (SPEC §3) at rtol 1e-8
 * without output samples, the setting of batch studies.
 *
 * Each run builds its element and solver (own SUNContext) from the loaded
 * configuration, runs to t_end and frees them, as a batch of variants would.
 * Prints the median over several batches of the time per run.
 *
 * usage: bench_janecek [CONFIG] [RUNS_PER_BATCH] [BATCHES] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "io/config.h"
#include "models/element.h"
#include "solver/hybrid.h"

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int one_run(const stsl_config *cfg, stsl_stats *st, stsl_error *err)
{
    stsl_element *el = stsl_element_create(&cfg->element, err);
    if (!el) return err->code;
    stsl_hsolver *s = stsl_hsolver_create(stsl_element_model(el), &cfg->sim, err);
    int rc = s ? STSL_OK : err->code;
    if (!rc) {
        double y0[STSL_MAX_STATE];
        stsl_element_initial_state(el, y0);
        stsl_sink none = {0}; /* a sink without ops drops everything */
        rc = stsl_hsolver_run(s, 0.0, y0, &none, err);
        *st = *stsl_hsolver_stats(s);
    }
    stsl_hsolver_free(s);
    stsl_element_free(el);
    return rc;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : STSL_SOURCE_DIR "/examples/janecek_chirp.yaml";
    int runs = argc > 2 ? atoi(argv[2]) : 500;
    int batches = argc > 3 ? atoi(argv[3]) : 7;
    if (runs < 1 || batches < 1 || batches > 101) {
        fprintf(stderr, "usage: bench_janecek [CONFIG] [RUNS_PER_BATCH >= 1] [BATCHES 1..101]\n");
        return 2;
    }
    const char *sets[] = {"simulation.rtol=1e-8", "simulation.output_step=0"};
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(path, sets, 2, &cfg, &err)) {
        fprintf(stderr, "bench_janecek: %s\n", err.msg);
        return 2;
    }
    stsl_stats st = {0};
    double per_run[101];
    for (int b = 0; b < batches; b++) {
        double t0 = seconds();
        for (int r = 0; r < runs; r++)
            if (one_run(&cfg, &st, &err)) {
                fprintf(stderr, "bench_janecek: run failed: %s\n", err.msg);
                stsl_config_free(&cfg);
                return 3;
            }
        per_run[b] = (seconds() - t0) / runs;
    }
    qsort(per_run, (size_t)batches, sizeof per_run[0], cmp);
    printf("janecek_chirp rtol=%.0e: %.1f us/run, %ld steps/run, %ld rhs/run, %ld events/run\n",
           cfg.sim.rtol, 1e6 * per_run[batches / 2], st.steps, st.rhs_evals, st.events);
    printf("  (median of %d batches of %d runs; fastest %.1f us, slowest %.1f us)\n", batches, runs,
           1e6 * per_run[0], 1e6 * per_run[batches - 1]);
    stsl_config_free(&cfg);
    return 0;
}
