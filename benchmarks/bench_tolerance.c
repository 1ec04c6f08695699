/* bench_tolerance.c - the tolerance study of issue 11: the Janecek chirp
 * (SPEC §3) with simulation.rtol alone set (atol: auto, the rule of README
 * "Numerics"), rtol 1e-6 ... 1e-14.  Per rtol it prints the largest
 * event-time error against the exact reference (test/reference/
 * janecek_events.h, mpmath at 45 digits), the estimate of --verify (the
 * check run at rtol/100), their ratio, and the cost: CPU time per plain run
 * and per verified run (medians), steps.
 *
 * usage: bench_tolerance [RUNS_PER_RTOL]     (cmake target: tolerance_study) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "benchmarks/bench_util.h"
#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "run/verify.h"
#include "test/reference/janecek_events.h"

#define MAX_RUNS 101

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void load(double rtol, stsl_verify_mode mode, stsl_config *cfg)
{
    char set[64];
    snprintf(set, sizeof set, "simulation.rtol=%.17g", rtol);
    const char *sets[] = {set, "simulation.atol=auto", "simulation.output_step=0"};
    stsl_error err = {0};
    if (stsl_config_load(STSL_SOURCE_DIR "/examples/janecek_chirp.yaml", sets, 3, cfg, &err))
        bench_die("bench_tolerance", "config", err.msg);
    cfg->verify = mode;
}

/* One run into memory; its largest event-time error against the reference
 * (INFINITY when the event sequence differs from it). */
static double one_run(const stsl_config *cfg, stsl_stats *st)
{
    stsl_sink sink;
    stsl_error err = {0};
    char msg[512];
    if (stsl_mem_sink_create(&sink, &err)) bench_die("bench_tolerance", "sink", err.msg);
    if (stsl_run_verified(&cfg->element, &cfg->sim, &cfg->scheme, cfg->verify, &sink, st, msg,
                          sizeof msg, &err))
        bench_die("bench_tolerance", "run", err.msg);
    const stsl_mem_result *r = stsl_mem_sink_result(&sink);
    double e = r->n_events == N_REF ? 0.0 : INFINITY;
    for (long i = 0; i < r->n_events && i < N_REF; i++) {
        if (r->events[i].kind != janecek_ref[i].kind) e = INFINITY;
        e = fmax(e, fabs(r->events[i].t - janecek_ref[i].t));
    }
    stsl_sink_free(&sink);
    return e;
}

/* Median CPU time of `runs` runs, in ms. */
static double cost_ms(const stsl_config *cfg, int runs)
{
    double t[MAX_RUNS];
    stsl_stats st;
    for (int i = 0; i < runs; i++) {
        double t0 = cpu_now();
        one_run(cfg, &st);
        t[i] = 1e3 * (cpu_now() - t0);
    }
    return bench_median(t, runs);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 21;
    if (runs < 1 || runs > MAX_RUNS) runs = 21;
    printf("Janecek chirp, rtol alone set (atol: auto), %ld events; reference: mpmath, 45 digits\n",
           N_REF);
    printf("%8s %12s %12s %9s %8s %10s %10s %7s\n", "rtol", "true err s", "estimate s", "est/true",
           "check at", "ms/run", "ms/verif.", "steps");
    int ok = 1;
    for (int k = 6; k <= 14; k++) {
        double rtol = pow(10.0, -k);
        stsl_config plain, ver;
        load(rtol, STSL_VERIFY_OFF, &plain);
        load(rtol, STSL_VERIFY_ON, &ver);
        stsl_stats st;
        double err = one_run(&ver, &st);
        double ratio = st.err_event_time / err;
        double c0 = cost_ms(&plain, runs), c1 = cost_ms(&ver, runs);
        printf("%8.0e %12.3e %12.3e %9.2f %8.0e %10.3f %10.3f %7ld%s\n", rtol, err,
               st.err_event_time, ratio, st.verify_rtol, c0, c1, st.steps,
               st.verify == STSL_VERIFY_MATCHED ? "" : "  (event sequences differ)");
        ok &= ratio >= 0.1 && ratio <= 10.0 && st.verify == STSL_VERIFY_MATCHED;
        if (k == 13) ok &= err <= 5e-13;
        stsl_config_free(&plain);
        stsl_config_free(&ver);
    }
    printf("done-when (error <= 5e-13 s at rtol 1e-13, estimate within 10x everywhere): %s\n",
           ok ? "met" : "NOT met");
    return ok ? 0 : 1;
}
