/* test_one_body.c - the element's configuration run by the engine of
 * systems (models/one_body.h) against the results of the element's own
 * model (the reference, removed since: its results are kept in
 * test/reference/one_body/, made by dev/one_body_golden.py from stickslip
 * 57ec593), for every element of examples/ and of
 * test/reference/effective: the same event kinds in the same order, event
 * times and samples within the bound argued at `bound`, and the element's
 * layout (columns, modes, event kinds) unchanged. */
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

#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "models/element_params.h"
#include "models/one_body.h"
#include "run/verify.h"
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

/* The run of p at sim by the engine; p's rtol and atol (the rebounds'
 * resolution) are sim's, as the element's reference runs had them. */
static const stsl_mem_result *run_engine(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                                         stsl_sink *sink)
{
    stsl_error err = {0};
    stsl_element_params q = *p;
    q.rtol = sim->rtol;
    q.atol = sim->atol;
    stsl_one_body *o = stsl_one_body_create(&q, &err);
    assert_non_null(o);
    double y0[STSL_ELEMENT_MAX_STATE];
    stsl_one_body_initial_state(o, y0);
    const stsl_mem_result *r = run_model(stsl_one_body_model(o), y0, sim, sink);
    stsl_one_body_free(o);
    return r;
}

/* ---- the element's results (test/reference/one_body/NAME.txt) ---------------------- */

#define MAX_GOLDEN_EVENTS  512
#define MAX_GOLDEN_SAMPLES 64

typedef struct golden {
    int n_cols, n_modes, n_kinds;
    char names[STSL_N_COLS][32];
    double size[STSL_N_COLS + 1]; /* max |column| and max |t| over every sample */
    long n_samples, n_events, n_read, n_kept;
    int kind[MAX_GOLDEN_EVENTS], mode_after[MAX_GOLDEN_EVENTS];
    double t_ev[MAX_GOLDEN_EVENTS];
    long index[MAX_GOLDEN_SAMPLES];
    int mode[MAX_GOLDEN_SAMPLES];
    double t[MAX_GOLDEN_SAMPLES], cols[MAX_GOLDEN_SAMPLES][STSL_N_COLS];
} golden;

/* The golden file of the configuration `path` (examples/NAME.yaml or
 * test/reference/effective/NAME.yaml): effective_NAME.txt when the
 * effective configuration has one of its own, else NAME.txt. */
static void read_golden(const char *path, golden *g)
{
    const char *base = strrchr(path, '/') + 1;
    char name[256], file[1024];
    snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 5), base);
    FILE *f = NULL;
    if (strstr(path, "/effective/")) {
        snprintf(file, sizeof file, "%s/test/reference/one_body/effective_%s.txt", STSL_SOURCE_DIR,
                 name);
        f = fopen(file, "r");
    }
    if (!f) {
        snprintf(file, sizeof file, "%s/test/reference/one_body/%s.txt", STSL_SOURCE_DIR, name);
        f = fopen(file, "r");
    }
    if (!f) print_error("no golden file %s\n", file);
    assert_non_null(f);
    memset(g, 0, sizeof *g);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *p = line, *end;
        if (!strncmp(p, "cols ", 5)) {
            g->n_cols = (int)strtol(p + 5, &p, 10);
            for (int c = 0; c < g->n_cols; c++) {
                int used = 0;
                assert_int_equal(sscanf(p, " %31s%n", g->names[c], &used), 1);
                p += used;
            }
        } else if (!strncmp(p, "layout ", 7)) {
            assert_int_equal(sscanf(p + 7, "%d %d", &g->n_modes, &g->n_kinds), 2);
        } else if (!strncmp(p, "size", 4)) {
            p += 4;
            for (int c = 0; c <= g->n_cols; c++, p = end)
                g->size[c] = strtod(p, &end);
        } else if (!strncmp(p, "samples ", 8)) {
            g->n_samples = strtol(p + 8, NULL, 10);
        } else if (!strncmp(p, "events ", 7)) {
            g->n_events = strtol(p + 7, NULL, 10);
            assert_true(g->n_events <= MAX_GOLDEN_EVENTS);
        } else if (p[0] == 'e') {
            long i = g->n_read++;
            assert_true(i < g->n_events);
            g->kind[i] = (int)strtol(p + 1, &p, 10);
            g->mode_after[i] = (int)strtol(p, &p, 10);
            g->t_ev[i] = strtod(p, NULL);
        } else if (p[0] == 's') {
            long k = g->n_kept++;
            assert_true(k < MAX_GOLDEN_SAMPLES);
            g->index[k] = strtol(p + 1, &p, 10);
            g->t[k] = strtod(p, &p);
            g->mode[k] = (int)strtol(p, &p, 10);
            for (int c = 0; c < g->n_cols; c++, p = end)
                g->cols[k][c] = strtod(p, &end);
        }
    }
    fclose(f);
}

/* The largest difference of run a from the element's results g, per
 * column over the kept samples (d[n_cols]) and of the event times
 * (d[n_cols]); -1 when their events or samples do not pair. */
static int differences(const stsl_mem_result *a, const golden *g, double *d)
{
    if (a->n_events != g->n_events || a->n_samples != g->n_samples || a->n_cols != g->n_cols)
        return -1;
    for (int c = 0; c <= a->n_cols; c++)
        d[c] = 0.0;
    for (long i = 0; i < a->n_events; i++) {
        if (a->events[i].kind != g->kind[i]) return -1;
        d[a->n_cols] = fmax(d[a->n_cols], fabs(a->events[i].t - g->t_ev[i]));
    }
    for (long k = 0; k < g->n_kept; k++) {
        long i = g->index[k];
        if (a->t[i] != g->t[k] && fabs(a->t[i] - g->t[k]) > d[a->n_cols])
            d[a->n_cols] = fabs(a->t[i] - g->t[k]);
        for (int c = 0; c < a->n_cols; c++)
            d[c] = fmax(d[c], fabs(tu_col(a, i, c) - g->cols[k][c]));
    }
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
    static golden re;
    read_golden(path, &re);
    stsl_sink so, sc;
    const stsl_mem_result *ro = run_engine(&p, &sim, &so);
    stsl_hsolver_opts chk = sim;
    stsl_verify_tolerances(sim.rtol, sim.atol, &chk.rtol, &chk.atol);
    const stsl_mem_result *rc = run_engine(&p, &chk, &sc);
    /* The layout is the element's. */
    assert_int_equal(ro->n_cols, re.n_cols);
    assert_int_equal(ro->layout.n_modes, re.n_modes);
    assert_int_equal(ro->layout.n_kinds, re.n_kinds);
    for (int c = 0; c < re.n_cols; c++)
        assert_string_equal(ro->layout.cols[c].name, re.names[c]);
    /* The same events, kind for kind, and samples. */
    if (ro->n_events != re.n_events) {
        for (long i = 0; i < re.n_events || i < ro->n_events; i++)
            printf("  %ld: element %s %.17g  engine %s %.17g\n", i,
                   i < re.n_events ? stsl_event_kind_names()[re.kind[i]] : "-",
                   i < re.n_events ? re.t_ev[i] : NAN,
                   i < ro->n_events ? stsl_event_kind_names()[ro->events[i].kind] : "-",
                   i < ro->n_events ? ro->events[i].t : NAN);
    }
    assert_int_equal(ro->n_events, re.n_events);
    for (long i = 0; i < re.n_events; i++) {
        if (ro->events[i].kind != re.kind[i])
            printf("%s: event %ld is %s, the element's %s at t = %.17g\n", path, i,
                   stsl_event_kind_names()[ro->events[i].kind], stsl_event_kind_names()[re.kind[i]],
                   re.t_ev[i]);
        assert_int_equal(ro->events[i].kind, re.kind[i]);
        assert_int_equal(ro->events[i].mode_after, re.mode_after[i]);
    }
    assert_int_equal(ro->n_samples, re.n_samples);
    double diff[STSL_N_COLS + 1], est[STSL_N_COLS + 1];
    assert_int_equal(differences(ro, &re, diff), 0);
    estimate(ro, rc, est);
    int same = 1;
    double worst = 0.0;
    for (int c = 0; c <= re.n_cols; c++) {
        double bound = 10.0 * est[c] + 64.0 * DBL_EPSILON * re.size[c];
        if (diff[c] > bound)
            printf("%s: %s differs by %.3g, bound %.3g\n", path,
                   c < re.n_cols ? re.names[c] : "event time", diff[c], bound);
        assert_true(diff[c] <= bound);
        same &= diff[c] == 0.0;
        if (bound > 0.0) worst = fmax(worst, diff[c] / bound);
    }
    for (long k = 0; k < re.n_kept; k++)
        assert_int_equal(ro->mode[re.index[k]], re.mode[k]);
    if (expect_identical(path) && !same) printf("%s: not bit-identical\n", path);
    assert_true(same || !expect_identical(path));
    printf("%-60s %3ld events %s, worst difference %.3g of the bound\n", path, re.n_events,
           same ? "bit-identical" : "within the bound", worst);
    *n_same += same;
    (*n_cases)++;
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
 * the Janecek chirp gives the engine's samples exactly, and so does a
 * free mass under a law with F_S = F_D (the class the element's model ran
 * until the engine had its rule for a slip from rest that returns to
 * w = 0, models/multibody.c stick_rest_slips). */
static void run_takes_the_engine(void **state)
{
    (void)state;
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(
        stsl_config_load(STSL_SOURCE_DIR "/examples/janecek_chirp.yaml", NULL, 0, &cfg, &err),
        STSL_OK);
    for (int free_mass = 0; free_mass < 2; free_mass++) {
        if (free_mass) {
            cfg.element.friction.static_ratio = 1.0;
            cfg.element.stiffness = cfg.element.damping = 0.0;
            cfg.element.has_stops = 0;
        }
        stsl_sink sr, so;
        const stsl_mem_result *rr = tu_run_config(&cfg, &sr);
        const stsl_mem_result *ro = run_engine(&cfg.element, &cfg.sim, &so);
        assert_int_equal(rr->n_samples, ro->n_samples);
        assert_int_equal(rr->n_events, ro->n_events);
        for (long i = 0; i < rr->n_samples * rr->n_cols; i++)
            assert_true(rr->cols[i] == ro->cols[i]);
        for (long i = 0; i < rr->n_events; i++)
            assert_true(rr->events[i].t == ro->events[i].t);
        stsl_sink_free(&sr);
        stsl_sink_free(&so);
    }
    stsl_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(examples_through_the_engine),
                                       cmocka_unit_test(run_takes_the_engine)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
