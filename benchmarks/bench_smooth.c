/* bench_smooth.c - a steep smooth law is stiff: the Den Hartog element with
 * 20-sim's C law (slope 1e4 s/m, examples/compare_smooth_vs_hybrid.yaml)
 * under BDF (Newton on the dense Jacobian CVODE forms by difference
 * quotients: no analytic one is supplied) and under Adams with fixed-point
 * iteration, at the example's tolerances.  Prints one line per method.
 *
 * usage: bench_smooth [CONFIG] [RUNS_PER_BATCH] [BATCHES] */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/bench_util.h"

int main(int argc, char **argv)
{
    const char *path =
        argc > 1 ? argv[1] : STSL_SOURCE_DIR "/examples/compare_smooth_vs_hybrid.yaml";
    int runs = argc > 2 ? atoi(argv[2]) : 50;
    int batches = argc > 3 ? atoi(argv[3]) : 5;
    const char *methods[] = {"simulation.method=bdf", "simulation.method=adams"};
    const char *names[] = {"bdf+dq jacobian", "adams+fixed point"};
    for (int i = 0; i < 2; i++) {
        bench_result r;
        int rc = bench_config(path, &methods[i], 1, runs, batches, &r);
        if (rc) return rc;
        printf("den_hartog 20sim_c slope=1e4 %-22s: %9.1f us/run, %7ld steps/run, %7ld rhs/run, "
               "%5ld jac/run\n",
               names[i], r.us_median, r.stats.steps, r.stats.rhs_evals, r.stats.jac_evals);
    }
    printf("  (median of %d batches of %d runs, rtol/atol of the config)\n", batches, runs);
    return 0;
}
