/* bench_janecek.c - cost of one Janecek chirp run (SPEC §3) at rtol 1e-8
 * without output samples, the setting of batch studies, against the plain
 * CVODE loop of bench_plain_cvode.c at the same rtol and atol (with the
 * setup stickslip uses, Adams + fixed point, and with the textbook BDF +
 * dense Newton), measured in the same invocation: batches of stickslip runs
 * and of each plain loop alternate (the order rotated every batch), so
 * that all see the same load on a shared machine.  Prints the median time
 * per run of each, and the median over batches of the ratio stickslip /
 * plain within a batch.
 *
 * usage: bench_janecek [CONFIG] [RUNS_PER_BATCH] [BATCHES] */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/bench_plain_cvode.h"
#include "benchmarks/bench_util.h"
#include "models/element_params.h"

#define MAX_BATCHES 101
#define N_PLAIN     2 /* the plain loop with Adams + fixed point, and with BDF + dense */

static double plain_batch(const stsl_config *cfg, int runs, int bdf, plain_result *r)
{
    /* The same tolerances as stickslip's run: a given atol, or the rule's
     * per-component one from the element's scales. */
    double atol[3];
    const char *units[3];
    stsl_element_atol(&cfg->element, cfg->sim.rtol, cfg->sim.atol, atol, units);
    double t0 = bench_now();
    for (int i = 0; i < runs; i++)
        if (plain_janecek_run(cfg->sim.rtol, atol, bdf, r))
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

/* One batch of each, in an order rotated from batch to batch: slot 0 is
 * stickslip, slot 1 + k the plain loop (k = bdf). */
static int one_round(const stsl_config *cfg, int runs, int b, double *per_run, stsl_stats *st,
                     plain_result *pr)
{
    for (int i = 0; i < 1 + N_PLAIN; i++) {
        int who = (i + b) % (1 + N_PLAIN);
        if (who == 0) {
            int rc = bench_batch(cfg, runs, st, &per_run[0]);
            if (rc) return rc;
        } else {
            per_run[who] = plain_batch(cfg, runs, who - 1, &pr[who - 1]);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : STSL_SOURCE_DIR "/examples/janecek_chirp.yaml";
    int runs = argc > 2 ? atoi(argv[2]) : 300;
    int batches = argc > 3 ? atoi(argv[3]) : 7;
    if (runs < 1 || batches < 1 || batches > MAX_BATCHES)
        bench_die(argv[0], "usage", "[CONFIG] [RUNS >= 1] [BATCHES 1..101]");
    /* atol 1e-12 as in the figures of README "Speed" and issue 11 (the
     * example itself now leaves atol to the rule). */
    const char *sets[] = {"simulation.rtol=1e-8", "simulation.atol=1e-12"};
    stsl_config cfg;
    if (bench_load(path, sets, 2, &cfg)) return 2;
    double t[1 + N_PLAIN][MAX_BATCHES], ratio[N_PLAIN][MAX_BATCHES];
    stsl_stats st;
    plain_result pr[N_PLAIN];
    int rc = 0;
    for (int b = 0; b < batches && !rc; b++) {
        double per_run[1 + N_PLAIN];
        rc = one_round(&cfg, runs, b, per_run, &st, pr);
        for (int k = 0; k < 1 + N_PLAIN; k++)
            t[k][b] = per_run[k];
        for (int k = 0; k < N_PLAIN; k++)
            ratio[k][b] = per_run[0] / per_run[1 + k];
    }
    char msg[256];
    /* The plain loop must be the same simulation: the reference's events,
     * at rtol 1e-8 good to ~1e-7 s (issue 11), checked to 1e-6 s. */
    double err[N_PLAIN];
    for (int k = 0; k < N_PLAIN && !rc; k++)
        if (plain_check_events(&pr[k], 1e-6, &err[k], msg, sizeof msg))
            bench_die(argv[0], "the plain loop's events differ from the reference", msg);
    if (!rc) {
        const char *name[N_PLAIN] = {"adams+fixed point", "bdf+dense"};
        printf("janecek_chirp rtol=%.0e atol=%.0e, median of %d batches of %d runs each:\n",
               cfg.sim.rtol, cfg.sim.atol, batches, runs);
        printf("  stickslip:                      %7.1f us/run, %4ld steps/run, %4ld rhs/run, "
               "%ld events\n",
               1e6 * bench_median(t[0], batches), st.steps, st.rhs_evals, st.events);
        for (int k = 0; k < N_PLAIN; k++)
            printf("  plain CVODE, %-17s: %7.1f us/run, %4ld steps/run, %4ld rhs/run, %d events "
                   "(%ld steps stuck; times within %.1e s of the reference)\n",
                   name[k], 1e6 * bench_median(t[1 + k], batches), pr[k].steps, pr[k].rhs_evals,
                   pr[k].n_events, pr[k].steps_stuck, err[k]);
        for (int k = 0; k < N_PLAIN; k++) {
            double r = bench_median(ratio[k], batches);
            printf("  stickslip / plain CVODE, %-17s: %.3f (batches %.3f .. %.3f)\n", name[k], r,
                   ratio[k][0], ratio[k][batches - 1]);
        }
        print_load();
    }
    stsl_config_free(&cfg);
    return rc;
}
