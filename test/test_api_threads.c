/* test_api_threads.c - the API from several threads at once: 4 threads x
 * 25 runs of 100 different configurations (four examples, each with one
 * parameter varied), some into HDF5 files (through the library's HDF5
 * lock), the others into memory.  Each result must equal, bit for bit,
 * the same run done alone beforehand: event times, kinds and modes, and
 * the final state.  Run in the tsan preset, ThreadSanitizer also checks
 * that nothing is shared without synchronisation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/stickslip.h"
#include "test/testutil.h"

#define N_THREADS  4
#define PER_THREAD 25
#define N_RUNS     (N_THREADS * PER_THREAD)
#define MAX_EVENTS 4096

typedef struct outcome {
    int rc;
    stsl_summary sum;
    long n_events;
    double t[MAX_EVENTS];
    const char *kind[MAX_EVENTS], *before[MAX_EVENTS], *after[MAX_EVENTS];
} outcome;

/* Configuration i: one of four examples with one key set to a value that
 * depends on i. */
static stsl_cfg *variant(int i, stsl_err *err)
{
    static const char *const files[4] = {"janecek_chirp.yaml", "den_hartog.yaml",
                                         "dv_end_stops.yaml", "belt_stick_slip.yaml"};
    /* Janecek's first breakaway (from rest, locked) depends on its static
     * level alone, which friction.dynamic keeps: vary that level. */
    static const char *const keys[4] = {"friction.static", "initial.velocity",
                                        "inputs.active_force.amplitude", "element.mass"};
    static const double base[4] = {18.0, 0.5, 40.0, 1.0}, step[4] = {0.6, 0.02, 1.0, 0.05};
    char path[1024], value[32];
    snprintf(path, sizeof path, "%s/examples/%s", STSL_SOURCE_DIR, files[i % 4]);
    snprintf(value, sizeof value, "%.17g", base[i % 4] + step[i % 4] * (i / 4));
    stsl_cfg *c = stsl_cfg_load(path, err);
    if (c && stsl_cfg_set(c, keys[i % 4], value, err)) {
        stsl_cfg_free(c);
        return NULL;
    }
    return c;
}

/* Run variant i; every fifth run also writes an HDF5 file into `dir`. */
static void run_one(int i, const char *dir, outcome *o)
{
    stsl_err err;
    stsl_cfg *c = variant(i, &err);
    memset(o, 0, sizeof *o);
    if (!c) {
        o->rc = err.code;
        return;
    }
    if (dir && i % 5 == 0) {
        char h5[1024];
        snprintf(h5, sizeof h5, "%s/run%d.h5", dir, i);
        o->rc = stsl_run(c, STSL_OUTPUT_HDF5, h5, &o->sum, &err);
        o->n_events = -1; /* events compared through the summary only */
        stsl_cfg_free(c);
        return;
    }
    stsl_result *r = NULL;
    o->rc = stsl_run_result(c, &r, &err);
    if (r) {
        o->sum = *stsl_result_summary(r);
        o->n_events = stsl_result_n_events(r);
        for (long k = 0; k < o->n_events && k < MAX_EVENTS; k++) {
            stsl_event ev;
            stsl_result_event(r, k, &ev, &err);
            o->t[k] = ev.t;
            o->kind[k] = ev.kind;
            o->before[k] = ev.mode_before;
            o->after[k] = ev.mode_after;
        }
    }
    stsl_result_free(r);
    stsl_cfg_free(c);
}

typedef struct job {
    int thread;
    const char *dir;
    outcome *out; /* N_RUNS, this thread writes its own indices only */
} job;

static void *worker(void *p)
{
    job *j = p;
    for (int k = 0; k < PER_THREAD; k++) {
        int i = j->thread + N_THREADS * k; /* neighbours run other examples */
        run_one(i, j->dir, &j->out[i]);
    }
    return NULL;
}

static void same_outcome(int i, const outcome *a, const outcome *b)
{
    const stsl_summary *x = &a->sum, *y = &b->sum;
    if (a->rc || b->rc) fail_msg("run %d: rc %d alone, %d in a thread", i, a->rc, b->rc);
    assert_int_equal(x->complete, y->complete);
    assert_memory_equal(x->final, y->final, sizeof x->final);
    assert_memory_equal(x->events, y->events, sizeof x->events);
    assert_memory_equal(x->first_event_time, y->first_event_time, sizeof x->first_event_time);
    assert_memory_equal(x->mode_time, y->mode_time, sizeof x->mode_time);
    assert_memory_equal(&x->dissipated_energy, &y->dissipated_energy, sizeof(double));
    assert_int_equal(x->steps, y->steps);
    if (a->n_events < 0) return;
    assert_int_equal(a->n_events, b->n_events);
    assert_memory_equal(a->t, b->t, (size_t)a->n_events * sizeof a->t[0]);
    for (long k = 0; k < a->n_events; k++) {
        assert_string_equal(a->kind[k], b->kind[k]);
        assert_string_equal(a->before[k], b->before[k]);
        assert_string_equal(a->after[k], b->after[k]);
    }
}

static void concurrent_runs_equal_lone_runs(void **state)
{
    (void)state;
    char dir_alone[256], dir_threads[256];
    tu_mkdtemp(dir_alone, sizeof dir_alone);
    tu_mkdtemp(dir_threads, sizeof dir_threads);
    outcome *alone = calloc(N_RUNS, sizeof *alone), *threaded = calloc(N_RUNS, sizeof *threaded);
    assert_non_null(alone);
    assert_non_null(threaded);
    for (int i = 0; i < N_RUNS; i++)
        run_one(i, dir_alone, &alone[i]);
    pthread_t th[N_THREADS];
    job jobs[N_THREADS];
    for (int t = 0; t < N_THREADS; t++) {
        jobs[t] = (job){t, dir_threads, threaded};
        assert_int_equal(pthread_create(&th[t], NULL, worker, &jobs[t]), 0);
    }
    for (int t = 0; t < N_THREADS; t++)
        pthread_join(th[t], NULL);
    int with_events = 0;
    for (int i = 0; i < N_RUNS; i++) {
        same_outcome(i, &alone[i], &threaded[i]);
        with_events += alone[i].sum.n_events > 0;
        if (i % 5 == 0) {
            char h5[300];
            snprintf(h5, sizeof h5, "%s/run%d.h5", dir_threads, i);
            assert_true(tu_file_exists(h5));
        }
    }
    /* The variants differ: not every run is the same run. */
    assert_true(with_events > N_RUNS / 2);
    assert_true(alone[0].sum.first_event_time[1] != alone[4].sum.first_event_time[1]);
    free(alone);
    free(threaded);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(concurrent_runs_equal_lone_runs)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
