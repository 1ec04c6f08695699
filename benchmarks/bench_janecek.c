/* bench_janecek.c - cost of one Janecek chirp run (SPEC §3) at rtol 1e-8
 * without output samples, the setting of batch studies, against the plain
 * CVODE loop of bench_plain_cvode.c at the same rtol and atol, measured in
 * the same invocation: batches of stickslip runs and of plain runs
 * alternate (the order swapped every batch), so that both see the same load
 * on a shared machine.  Prints the median time per run of each, and the
 * median over batches of the ratio stickslip / plain of neighbouring
 * batches.
 *
 * usage: bench_janecek [CONFIG] [RUNS_PER_BATCH] [BATCHES] */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/bench_plain_cvode.h"
#include "benchmarks/bench_util.h"

#define MAX_BATCHES 101

static double plain_batch(const stsl_config *cfg, int runs, plain_result *r)
{
    double t0 = bench_now();
    for (int i = 0; i < runs; i++)
        if (plain_janecek_run(cfg->sim.rtol, cfg->sim.atol, 0, r))
            bench_die("bench_janecek", "plain CVODE loop", "CVODE failed");
    return (bench_now() - t0) / runs;
}

static void print_load(void)
{
    FILE *f = fopen("/proc/loadavg", "r");
    char line[128] = "?";
    if (f && fgets(line, sizeof line, f)) printf("  load average (1, 5, 15 min, ...): %s", line);
    if (f) fclose(f);
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : STSL_SOURCE_DIR "/examples/janecek_chirp.yaml";
    int runs = argc > 2 ? atoi(argv[2]) : 500;
    int batches = argc > 3 ? atoi(argv[3]) : 7;
    if (runs < 1 || batches < 1 || batches > MAX_BATCHES)
        bench_die(argv[0], "usage", "[CONFIG] [RUNS >= 1] [BATCHES 1..101]");
    const char *sets[] = {"simulation.rtol=1e-8"};
    stsl_config cfg;
    if (bench_load(path, sets, 1, &cfg)) return 2;
    double ss[MAX_BATCHES], pp[MAX_BATCHES], ratio[MAX_BATCHES];
    stsl_stats st;
    plain_result pr;
    int rc = 0;
    for (int b = 0; b < batches && !rc; b++) {
        if (b % 2) pp[b] = plain_batch(&cfg, runs, &pr);
        rc = bench_batch(&cfg, runs, &st, &ss[b]);
        if (b % 2 == 0) pp[b] = plain_batch(&cfg, runs, &pr);
        ratio[b] = ss[b] / pp[b];
    }
    char msg[256];
    /* The plain loop must be the same simulation: the reference's events,
     * at rtol 1e-8 good to ~1e-7 s (issue 11), checked to 1e-6 s. */
    if (!rc && plain_check_events(&pr, 1e-6, msg, sizeof msg))
        bench_die(argv[0], "the plain loop's events differ from the reference", msg);
    if (!rc) {
        printf("janecek_chirp rtol=%.0e atol=%.0e, median of %d batches of %d runs each:\n",
               cfg.sim.rtol, cfg.sim.atol, batches, runs);
        printf("  stickslip:   %7.1f us/run, %ld steps/run, %ld rhs/run, %ld events/run\n",
               1e6 * bench_median(ss, batches), st.steps, st.rhs_evals, st.events);
        printf("  plain CVODE: %7.1f us/run, %ld steps/run (%ld stuck), %ld rhs/run, %d events\n",
               1e6 * bench_median(pp, batches), pr.steps, pr.steps_stuck, pr.rhs_evals,
               pr.n_events);
        double r = bench_median(ratio, batches);
        printf("  stickslip / plain: %.3f (batch ratios %.3f .. %.3f)\n", r, ratio[0],
               ratio[batches - 1]);
        print_load();
    }
    stsl_config_free(&cfg);
    return rc;
}
