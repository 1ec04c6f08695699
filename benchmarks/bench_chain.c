/* bench_chain.c - the cost of a system of bodies as it grows (issue 14,
 * D10): a Burridge-Knopoff chain of N blocks (mass 1) on the ground, each
 * with Coulomb friction (static 1.5x dynamic; the dynamic levels vary
 * from block to block, 1.0 .. 1.3 N, so that avalanches have sizes), each
 * pulled by a leaf spring (1 N/m) from a driver plate (the anchor, moving
 * at 0.05 m/s), neighbours joined by springs of 25 N/m with a little
 * damping.  The plate loads the blocks until one breaks away; it slips,
 * loads its neighbours, which may follow: slip avalanches.
 *
 * For N = 2, 10 and 50 it runs the chain for 200 s (rtol 1e-8, no output
 * samples) several times, building and freeing system and solver every
 * run, and prints the median cost per run, the events and steps, the cost
 * per event and per step, and the exponent p of cost ~ N^p fitted over the
 * three sizes (least squares on log-log).  A benchmark, never a test.
 *
 * usage: bench_chain [RUNS_N2] [RUNS_N10] [RUNS_N50] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/bench_util.h"
#include "io/config/config.h"
#include "run/run.h"
#include "run/validation.h"

#define T_END 200.0
#define RTOL  1e-8

/* The chain of n blocks as a configuration (malloc'd YAML). */
static char *chain_yaml(int n)
{
    size_t cap = 512 + (size_t)n * 320, o = 0;
    char *y = malloc(cap);
    if (!y) return NULL;
    o += (size_t)snprintf(y + o, cap - o, "bodies:\n");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(y + o, cap - o, "  b%d: {mass: 1.0}\n", i);
    o += (size_t)snprintf(y + o, cap - o, "couplings:\n");
    for (int i = 0; i < n; i++) {
        o += (size_t)snprintf(y + o, cap - o, "  - {between: [b%d, anchor], stiffness: 1.0}\n", i);
        if (i + 1 < n)
            o += (size_t)snprintf(y + o, cap - o,
                                  "  - {between: [b%d, b%d], stiffness: 25.0, damping: 0.1}\n", i,
                                  i + 1);
    }
    o += (size_t)snprintf(y + o, cap - o, "contacts:\n");
    for (int i = 0; i < n; i++) {
        /* A deterministic spread of the levels (golden-ratio sequence). */
        double fd = 1.0 + 0.3 * fmod(0.6180339887498949 * (i + 1), 1.0);
        o += (size_t)snprintf(y + o, cap - o,
                              "  - {between: [b%d, ground], law: coulomb, dynamic: %.17g, "
                              "static_ratio: 1.5}\n",
                              i, fd);
    }
    snprintf(y + o, cap - o,
             "inputs: {anchor_motion: {type: ramp, slope: 0.05}}\n"
             "simulation: {t_end: %g, output_step: 0, rtol: %g, max_events: 10000000}\n",
             T_END, RTOL);
    return y;
}

typedef struct chain_cost {
    int n;
    double us_median;
    stsl_stats st;
} chain_cost;

/* `runs` runs of the chain of n blocks: the median cost, the last run's
 * statistics. */
static int measure(int n, int runs, chain_cost *out)
{
    char *yaml = chain_yaml(n);
    if (!yaml) bench_die("bench_chain", "chain", "out of memory");
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "bench_chain", NULL, NULL, 0, &cfg, &err))
        bench_die("bench_chain", "config", err.msg);
    free(yaml);
    double *us = malloc(sizeof *us * (size_t)runs);
    if (!us) bench_die("bench_chain", "runs", "out of memory");
    int rc = 0;
    for (int r = 0; r < runs && !rc; r++) {
        stsl_sink none = {0}; /* drops everything: the cost of the run itself */
        double t0 = bench_now();
        rc = stsl_run_system(&cfg.system, &cfg.sim, &none, &out->st, &err);
        us[r] = 1e6 * (bench_now() - t0);
    }
    if (rc) fprintf(stderr, "bench_chain: N = %d: run failed: %s\n", n, err.msg);
    out->n = n;
    out->us_median = bench_median(us, runs);
    free(us);
    stsl_config_free(&cfg);
    return rc ? 3 : 0;
}

/* The least-squares slope of log(y) against log(n) over the three sizes. */
static double slope(const double *n, const double *y)
{
    int used;
    return stsl_compare_fit_order(n, y, 3, &used);
}

int main(int argc, char **argv)
{
    const int sizes[3] = {2, 10, 50};
    int runs[3] = {21, 11, 5};
    for (int i = 0; i < 3 && i + 1 < argc; i++)
        runs[i] = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : runs[i];
    chain_cost c[3];
    double n[3], cost[3], per_event[3], per_step[3], events[3], steps[3];
    printf("Burridge-Knopoff chain, %g s, rtol %g, no output; median cost per run:\n", T_END, RTOL);
    for (int i = 0; i < 3; i++) {
        int rc = measure(sizes[i], runs[i], &c[i]);
        if (rc) return rc;
        n[i] = sizes[i];
        cost[i] = c[i].us_median;
        events[i] = (double)c[i].st.events;
        steps[i] = (double)c[i].st.steps;
        per_event[i] = cost[i] / fmax(events[i], 1.0);
        per_step[i] = cost[i] / fmax(steps[i], 1.0);
        printf("  N = %2d bodies (%2d contacts): %11.1f us/run (median of %2d), %7ld events, "
               "%8ld steps, %7ld segments, %7.1f us/event, %6.2f us/step, %8ld rhs, %8ld "
               "guard evaluations\n",
               sizes[i], sizes[i], cost[i], runs[i], c[i].st.events, c[i].st.steps,
               c[i].st.segments, per_event[i], per_step[i], c[i].st.rhs_evals, c[i].st.guard_evals);
    }
    printf("fitted exponents over N = 2, 10, 50 (quantity ~ N^p):\n"
           "  cost per run p = %.2f, events p = %.2f, steps p = %.2f, cost per event p = %.2f, "
           "cost per step p = %.2f\n",
           slope(n, cost), slope(n, events), slope(n, steps), slope(n, per_event),
           slope(n, per_step));
    return 0;
}
