/* bench_janecek.c - cost of one Janecek chirp run (SPEC §3) at rtol 1e-8
 * without output samples, the setting of batch studies.  Prints the median
 * over several batches of the time per run.
 *
 * usage: bench_janecek [CONFIG] [RUNS_PER_BATCH] [BATCHES] */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/bench_util.h"

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : STSL_SOURCE_DIR "/examples/janecek_chirp.yaml";
    int runs = argc > 2 ? atoi(argv[2]) : 500;
    int batches = argc > 3 ? atoi(argv[3]) : 7;
    const char *sets[] = {"simulation.rtol=1e-8"};
    bench_result r;
    int rc = bench_config(path, sets, 1, runs, batches, &r);
    if (rc) return rc;
    printf("janecek_chirp rtol=%.0e: %.1f us/run, %ld steps/run, %ld rhs/run, %ld events/run\n",
           r.rtol, r.us_median, r.stats.steps, r.stats.rhs_evals, r.stats.events);
    printf("  (median of %d batches of %d runs; fastest %.1f us, slowest %.1f us)\n", batches, runs,
           r.us_min, r.us_max);
    return 0;
}
