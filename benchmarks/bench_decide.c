/* bench_decide.c - the cost of one decision of SPEC §4 against the number
 * of contacts deciding together.  A stack of k boxes of 1 kg at rest (the
 * test_multibody_physics D11 system): b0 on the ground (F_D 60 N, F_S 72
 * N), each b_i on b_(i-1) (F_D 16 N, F_S 20 N), a push P = 10 t N on b0.
 * At t = 7.2 s b0's contact reaches its static level: all k contacts are
 * at w = 0 and joined through the boxes, so they are decided together (the
 * enumeration of main tested 3^k combinations and gave up beyond k = 10).
 *
 * For each k it times runs to 7.2 s + 1 ms (the decision and a few steps
 * after it) and runs to 7.2 s - 1 ms (the decision at t = 0 and the frozen
 * stretch, in which nothing is integrated), and prints the difference of
 * the medians: the breakaway's decision plus the first steps of the slip
 * (a constant few: the slip starts smooth).  Then the exponent p of cost ~
 * k^p fitted over k = 2 .. 50 (least squares on log-log).  Each test of a
 * combination solves the constraints of the whole stack (a dense QR of a
 * k-body cluster, O(k^3)); the search chooses with three tests whatever k
 * and then tests the 2k - 1 neighbours of the chosen one for `ambiguous`.
 * A benchmark, never a test.
 *
 * usage: bench_decide [RUNS] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/bench_util.h"
#include "io/config/config.h"
#include "run/run.h"
#include "run/validation.h"

#define N_SIZES 6

static char *stack_yaml(int k, double t_end)
{
    size_t cap = 512 + (size_t)k * 160, o = 0;
    char *y = malloc(cap);
    if (!y) return NULL;
    o += (size_t)snprintf(y + o, cap - o, "bodies:\n");
    for (int i = 0; i < k; i++)
        o += (size_t)snprintf(y + o, cap - o, "  b%d: {mass: 1}\n", i);
    o += (size_t)snprintf(y + o, cap - o,
                          "contacts:\n  - {body: b0, law: coulomb, dynamic: 60, "
                          "static_ratio: 1.2}\n");
    for (int i = 1; i < k; i++)
        o += (size_t)snprintf(y + o, cap - o,
                              "  - {between: [b%d, b%d], law: coulomb, dynamic: 16, "
                              "static_ratio: 1.25}\n",
                              i, i - 1);
    snprintf(y + o, cap - o,
             "inputs: {forces: {b0: {type: ramp, slope: 10}}}\n"
             "simulation: {t_end: %.17g, output_step: 0, rtol: 1e-10}\n",
             t_end);
    return y;
}

/* The median cost (us) of `runs` runs of the stack of k to t_end. */
static double median_cost(int k, double t_end, int runs, stsl_stats *st)
{
    char *yaml = stack_yaml(k, t_end);
    if (!yaml) bench_die("bench_decide", "stack", "out of memory");
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "bench_decide", NULL, NULL, 0, &cfg, &err))
        bench_die("bench_decide", "config", err.msg);
    free(yaml);
    double *us = malloc(sizeof *us * (size_t)runs);
    if (!us) bench_die("bench_decide", "runs", "out of memory");
    for (int r = 0; r < runs; r++) {
        stsl_sink none = {0};
        double t0 = bench_now();
        if (stsl_run_system(&cfg.system, &cfg.sim, &none, st, &err))
            bench_die("bench_decide", "run", err.msg);
        us[r] = 1e6 * (bench_now() - t0);
    }
    double med = bench_median(us, runs);
    free(us);
    stsl_config_free(&cfg);
    return med;
}

int main(int argc, char **argv)
{
    const int sizes[N_SIZES] = {2, 5, 10, 20, 35, 50};
    int runs = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 15;
    double k[N_SIZES], cost[N_SIZES];
    printf("stack of k boxes, the bottom breaks away at 7.2 s: all k contacts decided together\n");
    for (int i = 0; i < N_SIZES; i++) {
        stsl_stats before, after;
        double c0 = median_cost(sizes[i], 7.199, runs, &before);
        double c1 = median_cost(sizes[i], 7.201, runs, &after);
        k[i] = sizes[i];
        cost[i] = fmax(c1 - c0, 1e-3);
        printf("  k = %2d: %10.1f us to 7.201 s, %10.1f us to 7.199 s: %9.1f us for the instant "
               "(%ld events, %ld steps after it)\n",
               sizes[i], c1, c0, cost[i], after.events, after.steps - before.steps);
    }
    int used;
    printf("fitted exponent over k = 2 .. 50 (cost of the instant ~ k^p): p = %.2f\n",
           stsl_compare_fit_order(k, cost, N_SIZES, &used));
    return 0;
}
