/* bench_study_write.c - how many summary rows per second one process can
 * write to a study file: the ceiling of `stickslip-mpi sweep`'s rank 0
 * (which only receives rows and writes them) and of a threaded sweep's
 * writing thread.  Rows as a run leaves them (every column set, an empty
 * message), appended in variant order, flushed every second as the sweep
 * does, store: summary.  Usage: bench_study_write [N_ROWS] (default 10^6) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/sweep.h"
#include "benchmarks/bench_util.h"

#define JANECEK STSL_SOURCE_DIR "/examples/janecek_chirp.yaml"

static void fill(stsl_study_row *r, long i)
{
    stsl_study_row_clear(r);
    r->status = STSL_ROW_OK;
    r->t_reached = 10.0;
    for (int k = 0; k < 4; k++)
        r->events[k] = i % 7 + k;
    r->first_breakaway = r->last_stick = r->stuck_fraction = 1e-3 * (double)(i % 1000);
    r->max_abs_x = r->max_abs_v = r->x_final = r->v_final = r->dissipated_energy = 0.5;
    r->steps = r->rhs_evals = 1000 + i % 13;
    r->wall_seconds = 1e-3;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (n < 1) bench_die("bench_study_write", "usage", "bench_study_write [N_ROWS >= 1]");
    char dir[] = "/tmp/bench_study_write.XXXXXX", study[256], out[256], text[1024];
    if (!mkdtemp(dir))
        bench_die("bench_study_write", "mkdtemp", "cannot make a temporary directory");
    snprintf(study, sizeof study, "%s/study.yaml", dir);
    snprintf(out, sizeof out, "%s/study.h5", dir);
    snprintf(text, sizeof text, "base: %s\nvary:\n  friction.dynamic: {linspace: [10, 25, %ld]}\n",
             JANECEK, n);
    FILE *f = fopen(study, "w");
    if (!f || fputs(text, f) < 0 || fclose(f)) bench_die("bench_study_write", "write", study);
    stsl_sweep_opts o = {out, 1, 0, NULL, 0, "bench", NULL, NULL, NULL, NULL};
    stsl_sweep_plan *sp = NULL;
    stsl_study_h5 *w = NULL;
    stsl_error err = {0};
    if (stsl_sweep_plan_open(study, &o, &sp, &err))
        bench_die("bench_study_write", "study", err.msg);
    double t0 = bench_now();
    if (stsl_sweep_plan_output(sp, &o, &w, &err)) bench_die("bench_study_write", "create", err.msg);
    double t1 = bench_now(), last = t1;
    stsl_study_row row;
    for (long i = 0; i < n; i++) {
        fill(&row, i);
        if (stsl_study_h5_append(w, &row, &err)) bench_die("bench_study_write", "append", err.msg);
        if (bench_now() - last >= 1.0) {
            if (stsl_study_h5_flush(w, &err)) bench_die("bench_study_write", "flush", err.msg);
            last = bench_now();
        }
    }
    if (stsl_study_h5_close(w, &err)) bench_die("bench_study_write", "close", err.msg);
    double t2 = bench_now();
    printf("study file of %ld variants: created (parameters) in %.2f s; rows written in %.2f s "
           "= %.0f rows/s (%.2f us/row)\n",
           n, t1 - t0, t2 - t1, (double)n / (t2 - t1), 1e6 * (t2 - t1) / (double)n);
    stsl_sweep_plan_free(sp);
    remove(out);
    remove(study);
    rmdir(dir);
    return 0;
}
