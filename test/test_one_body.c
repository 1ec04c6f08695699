/* test_one_body.c - the element's configuration run by the engine of
 * systems (models/one_body.h) against the element's own model
 * (models/element.h, the reference), for every element of examples/ and
 * of test/reference/effective: the same event kinds in the same order,
 * event times and samples within the bound argued at `bound`, and the
 * element's layout (columns, modes, event kinds) unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/config.h"
#include "io/mem_sink.h"
#include "models/element.h"
#include "models/one_body.h"
#include "models/verify.h"
#include "test/testutil.h"

/* Run `model` from y0 with `sim` into a fresh memory sink (complete run
 * asserted). */
static const stsl_mem_result *run_model(const stsl_hmodel *model, const double *y0,
                                        const stsl_hsolver_opts *sim, stsl_sink *sink)
{
    stsl_error err = {0};
    assert_int_equal(stsl_mem_sink_create(sink, &err), STSL_OK);
    stsl_hsolver *h = stsl_hsolver_create(model, sim, &err);
    assert_non_null(h);
    int rc = stsl_hsolver_run(h, 0.0, y0, sink, &err);
    if (rc) fprintf(stderr, "run: %s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    stsl_hsolver_free(h);
    return stsl_mem_sink_result(sink);
}

/* The run of p at sim by the engine (engine = 1) or the element's own
 * model (0); p's rtol and atol (the rebounds' resolution) are sim's. */
static const stsl_mem_result *run_case(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                                       int engine, stsl_sink *sink)
{
    stsl_error err = {0};
    stsl_element_params q = *p;
    q.rtol = sim->rtol;
    q.atol = sim->atol;
    stsl_one_body *o = engine ? stsl_one_body_create(&q, &err) : NULL;
    stsl_element *e = engine ? NULL : stsl_element_create(&q, &err);
    assert_true(o || e);
    double y0[STSL_ELEMENT_MAX_STATE];
    o ? stsl_one_body_initial_state(o, y0) : stsl_element_initial_state(e, y0);
    const stsl_mem_result *r =
        run_model(o ? stsl_one_body_model(o) : stsl_element_model(e), y0, sim, sink);
    stsl_one_body_free(o);
    stsl_element_free(e);
    return r;
}

static const stsl_mem_result *run_engine(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                                         stsl_sink *sink)
{
    return run_case(p, sim, 1, sink);
}

static const stsl_mem_result *run_element(const stsl_element_params *p,
                                          const stsl_hsolver_opts *sim, stsl_sink *sink)
{
    return run_case(p, sim, 0, sink);
}

/* The largest difference of two runs with the same events, per column
 * over the paired samples (d[n_cols]) and of the event times
 * (d[n_cols]); -1 when their events or samples do not pair. */
static int differences(const stsl_mem_result *a, const stsl_mem_result *b, double *d)
{
    if (a->n_events != b->n_events || a->n_samples != b->n_samples || a->n_cols != b->n_cols)
        return -1;
    for (int c = 0; c <= a->n_cols; c++)
        d[c] = 0.0;
    for (long i = 0; i < a->n_events; i++) {
        if (a->events[i].kind != b->events[i].kind) return -1;
        d[a->n_cols] = fmax(d[a->n_cols], fabs(a->events[i].t - b->events[i].t));
    }
    for (long i = 0; i < a->n_samples; i++)
        for (int c = 0; c < a->n_cols; c++)
            d[c] = fmax(d[c], fabs(tu_col(a, i, c) - tu_col(b, i, c)));
    return 0;
}

/* The --verify estimate of run a against its check run b (rtol/100), per
 * column and of the event times (est[n_cols]): the events paired by order
 * up to the first of another kind (the check run may resolve a bounce
 * more), their times and the columns before and after each; and the
 * samples both have at the same time (the output grid) up to that
 * event's time. */
static void estimate(const stsl_mem_result *a, const stsl_mem_result *b, double *est)
{
    int n = a->n_cols;
    for (int c = 0; c <= n; c++)
        est[c] = 0.0;
    double until = INFINITY;
    for (long i = 0; i < a->n_events; i++) {
        if (i >= b->n_events || a->events[i].kind != b->events[i].kind) {
            until = a->events[i].t;
            break;
        }
        const stsl_mem_event *ea = &a->events[i], *eb = &b->events[i];
        est[n] = fmax(est[n], fabs(ea->t - eb->t));
        for (int c = 0; c < n; c++)
            est[c] = fmax(est[c], fmax(fabs(ea->before[c] - eb->before[c]),
                                       fabs(ea->after[c] - eb->after[c])));
    }
    for (long i = 0, j = 0; i < a->n_samples && j < b->n_samples && a->t[i] < until;) {
        if (a->t[i] < b->t[j]) {
            i++;
        } else if (b->t[j] < a->t[i]) {
            j++;
        } else {
            for (int c = 0; c < n; c++)
                est[c] = fmax(est[c], fabs(tu_col(a, i, c) - tu_col(b, j, c)));
            i++;
            j++;
        }
    }
}

/* The bound: two runs of the same equations under the same rtol on
 * different step sequences (the engine's arithmetic is not the element's
 * to the last bit: its forces are summed in another order, its step
 * bounds and guards are written otherwise) differ by the local errors
 * CVODE's error control admits on each, which is what the run's own
 * --verify estimate measures (the difference of a run at rtol/100, whose
 * error is about 100 times smaller).  So each column and the event times
 * are asked to agree within 10 times that estimate of the engine's run,
 * plus 64 ulps of the column's size for a column both runs compute from
 * the same state (there the estimate can be 0). */
/* The cases whose results the engine reproduces bit for bit (every
 * column of every sample, every event time): asserted exactly.  They are
 * those whose forces the engine sums in the element's order up to
 * rounding-free terms (a base at rest or a rigid stop; Coulomb levels),
 * so that both take the same steps. */
static const char *const identical[] = {
    "belt_stick_slip",   "den_hartog",         "dv_breakaway_aiding",  "dv_breakaway_opposing",
    "dv_irreversible",   "dv_slipping_aiding", "dv_slipping_opposing", "dv_stops_aiding",
    "dv_stops_opposing", "dv_stuck_aiding",    "dv_stuck_opposing"};

static int expect_identical(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof identical / sizeof identical[0]; i++) {
        size_t n = strlen(identical[i]);
        if (!strncmp(base, identical[i], n) && !strcmp(base + n, ".yaml")) return 1;
    }
    return 0;
}

static void compare_case(const char *path, int *n_same, int *n_cases)
{
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load(path, NULL, 0, &cfg, &err), STSL_OK);
    if (cfg.is_system) {
        stsl_config_free(&cfg);
        return;
    }
    stsl_hsolver_opts sim = cfg.sim;
    stsl_element_params p = cfg.element;
    assert_true(stsl_one_body_covers(&p)); /* `run` takes the engine for it */
    stsl_sink se, so, sc;
    const stsl_mem_result *re = run_element(&p, &sim, &se);
    const stsl_mem_result *ro = run_engine(&p, &sim, &so);
    stsl_hsolver_opts chk = sim;
    stsl_verify_tolerances(sim.rtol, sim.atol, &chk.rtol, &chk.atol);
    const stsl_mem_result *rc = run_engine(&p, &chk, &sc);
    /* The layout is the element's. */
    assert_int_equal(ro->n_cols, re->n_cols);
    assert_int_equal(ro->layout.n_modes, re->layout.n_modes);
    assert_int_equal(ro->layout.n_kinds, re->layout.n_kinds);
    for (int c = 0; c < re->n_cols; c++)
        assert_string_equal(ro->layout.cols[c].name, re->layout.cols[c].name);
    /* The same events, kind for kind, and samples. */
    if (ro->n_events != re->n_events) {
        for (long i = 0; i < re->n_events || i < ro->n_events; i++)
            printf("  %ld: element %s %.17g  engine %s %.17g\n", i,
                   i < re->n_events ? stsl_event_kind_names()[re->events[i].kind] : "-",
                   i < re->n_events ? re->events[i].t : NAN,
                   i < ro->n_events ? stsl_event_kind_names()[ro->events[i].kind] : "-",
                   i < ro->n_events ? ro->events[i].t : NAN);
    }
    assert_int_equal(ro->n_events, re->n_events);
    for (long i = 0; i < re->n_events; i++) {
        if (ro->events[i].kind != re->events[i].kind)
            printf("%s: event %ld is %s, the element's %s at t = %.17g\n", path, i,
                   stsl_event_kind_names()[ro->events[i].kind],
                   stsl_event_kind_names()[re->events[i].kind], re->events[i].t);
        assert_int_equal(ro->events[i].kind, re->events[i].kind);
        assert_int_equal(ro->events[i].mode_after, re->events[i].mode_after);
    }
    assert_int_equal(ro->n_samples, re->n_samples);
    double diff[STSL_N_COLS + 1], est[STSL_N_COLS + 1];
    assert_int_equal(differences(ro, re, diff), 0);
    estimate(ro, rc, est);
    int same = 1;
    double worst = 0.0;
    for (int c = 0; c <= re->n_cols; c++) {
        double size = 0.0;
        for (long i = 0; i < re->n_samples; i++)
            size = fmax(size, c < re->n_cols ? fabs(tu_col(re, i, c)) : fabs(re->t[i]));
        double bound = 10.0 * est[c] + 64.0 * DBL_EPSILON * size;
        if (diff[c] > bound)
            printf("%s: %s differs by %.3g, bound %.3g\n", path,
                   c < re->n_cols ? re->layout.cols[c].name : "event time", diff[c], bound);
        assert_true(diff[c] <= bound);
        same &= diff[c] == 0.0;
        if (bound > 0.0) worst = fmax(worst, diff[c] / bound);
    }
    for (long i = 0; i < re->n_samples; i++)
        assert_int_equal(ro->mode[i], re->mode[i]);
    if (expect_identical(path) && !same) printf("%s: not bit-identical\n", path);
    assert_true(same || !expect_identical(path));
    printf("%-60s %3ld events %s, worst difference %.3g of the bound\n", path, re->n_events,
           same ? "bit-identical" : "within the bound", worst);
    *n_same += same;
    (*n_cases)++;
    stsl_sink_free(&se);
    stsl_sink_free(&so);
    stsl_sink_free(&sc);
    stsl_config_free(&cfg);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.yaml of a folder, in name order. */
static int each_yaml(const char *dir, int *n_same, int *n_cases)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    char *names[256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml")) names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        compare_case(path, n_same, n_cases);
        free(names[i]);
    }
    return n;
}

static void examples_through_the_engine(void **state)
{
    (void)state;
    int same = 0, cases = 0;
    assert_true(each_yaml(STSL_SOURCE_DIR "/examples", &same, &cases) > 10);
    assert_true(each_yaml(STSL_SOURCE_DIR "/test/reference/effective", &same, &cases) > 10);
    printf("%d element cases, %d bit-identical\n", cases, same);
    assert_true(cases >= 30);
    assert_int_equal(same, 2 * (int)(sizeof identical / sizeof identical[0]));
}

/* `run` (stsl_run_element, event-driven) is the engine's one-body run:
 * the Janecek chirp, whose engine run is not the element's to the bit,
 * gives the engine's samples exactly.  The one class left on the element
 * (stsl_one_body_covers): a free mass under a law with F_S = F_D. */
static void run_takes_the_engine(void **state)
{
    (void)state;
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(
        stsl_config_load(STSL_SOURCE_DIR "/examples/janecek_chirp.yaml", NULL, 0, &cfg, &err),
        STSL_OK);
    stsl_sink sr, so, se;
    const stsl_mem_result *rr = tu_run_config(&cfg, &sr);
    const stsl_mem_result *ro = run_engine(&cfg.element, &cfg.sim, &so);
    const stsl_mem_result *re = run_element(&cfg.element, &cfg.sim, &se);
    double d[STSL_N_COLS + 1];
    assert_int_equal(differences(rr, ro, d), 0);
    for (int c = 0; c <= rr->n_cols; c++)
        assert_true(d[c] == 0.0);
    assert_int_equal(differences(rr, re, d), 0);
    assert_true(d[STSL_COL_X] > 0.0);
    stsl_element_params p = cfg.element;
    p.friction.static_ratio = 1.0;
    assert_true(stsl_one_body_covers(&p));
    p.stiffness = p.damping = 0.0;
    p.has_stops = 0;
    assert_false(stsl_one_body_covers(&p));
    p.damping = 1.0;
    assert_true(stsl_one_body_covers(&p));
    stsl_sink_free(&sr);
    stsl_sink_free(&so);
    stsl_sink_free(&se);
    stsl_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(examples_through_the_engine),
                                       cmocka_unit_test(run_takes_the_engine)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
