/* test_multibody_cost.c - what the engine does to cost less must not change
 * what it computes.  The root and extremum searches on one guard ask the
 * model for that guard alone (stsl_hmodel_ops.guard): a band guard of a
 * body that is a leaf of a tree held by a fixed end is its own balance,
 * other guards the full solve.  Checked bit for bit, since the contract is
 * "equal to guards()'s g[i]": every call of the one-guard op during whole
 * runs of the four system examples and of a Burridge-Knopoff chain of 12
 * blocks (avalanches: leaves, slipping neighbours, many band guards) is
 * compared with the full evaluation at the same (t, y); and the chain's run
 * with the op is the run without it (guards() for every search), event for
 * event, bit for bit.  Likewise the evaluation of all guards: a mode whose
 * band guards each read a leaf's edge (most modes of the chain) takes
 * those forces from the leaves' own balances; every such evaluation in
 * the same runs is compared with the full constraint solve's
 * (stsl_multibody_set_full_guards), bit for bit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/config/config.h"
#include "io/result/mem_sink.h"
#include "models/multibody.h"
#include "solver/hybrid.h"
#include "test/testutil.h"

/* A model that forwards to the engine's and checks its one-guard op. */
typedef struct checked {
    const stsl_hmodel *inner;
    double *all;
    long calls, mismatches;
    stsl_multibody *m;
    double *full; /* guards() by the full solve */
    long all_calls, all_mismatches;
    long leaf_evals; /* of them, by the leaves' balances */
} checked;

static int c_rhs(void *self, stsl_mode_code mode, double t, const double *y, double *ydot)
{
    const checked *c = self;
    return c->inner->ops->rhs(c->inner->self, mode, t, y, ydot);
}

static int c_guards(void *self, stsl_mode_code mode, double t, const double *y, double *g)
{
    checked *c = self;
    int rc = c->inner->ops->guards(c->inner->self, mode, t, y, g);
    stsl_mode_desc d;
    if (rc || c->inner->ops->describe(c->inner->self, mode, &d)) return -1;
    stsl_multibody_set_full_guards(c->m, 1);
    rc = c->inner->ops->guards(c->inner->self, mode, t, y, c->full);
    stsl_multibody_set_full_guards(c->m, 0);
    c->all_calls++;
    if (memcmp(g, c->full, sizeof *g * (size_t)d.n_guards) != 0 && c->all_mismatches++ < 5)
        fprintf(stderr, "guards at t = %.17g differ from the full solve's\n", t);
    return rc;
}

static int c_guard(void *self, stsl_mode_code mode, double t, const double *y, int i, double *g)
{
    checked *c = self;
    int rc = c->inner->ops->guard(c->inner->self, mode, t, y, i, g);
    if (c->inner->ops->guards(c->inner->self, mode, t, y, c->all) || rc) return -1;
    c->calls++;
    if (memcmp(g, &c->all[i], sizeof *g) != 0) {
        if (c->mismatches++ < 5)
            fprintf(stderr, "guard %d at t = %.17g: alone %.17g, with all %.17g\n", i, t, *g,
                    c->all[i]);
    }
    return 0;
}

static int c_transition(void *self, stsl_mode_code mode, stsl_reason why, const int *fired,
                        double t, double *y, stsl_transition *out, stsl_error *err)
{
    const checked *c = self;
    return c->inner->ops->transition(c->inner->self, mode, why, fired, t, y, out, err);
}

static double c_max_step(void *self, stsl_mode_code mode, double t)
{
    const checked *c = self;
    return c->inner->ops->max_step(c->inner->self, mode, t);
}

static double c_next_time_event(void *self, double t)
{
    const checked *c = self;
    return c->inner->ops->next_time_event(c->inner->self, t);
}

static void c_outputs(void *self, stsl_mode_code mode, double t, const double *y, double *cols)
{
    const checked *c = self;
    c->inner->ops->outputs(c->inner->self, mode, t, y, cols);
}

static int c_describe(void *self, stsl_mode_code mode, stsl_mode_desc *out)
{
    const checked *c = self;
    return c->inner->ops->describe(c->inner->self, mode, out);
}

static void c_mode_name(void *self, stsl_mode_code mode, char *buf, size_t len)
{
    const checked *c = self;
    c->inner->ops->mode_name(c->inner->self, mode, buf, len);
}

static const stsl_hmodel_ops with_one = {
    c_rhs, c_guards,   c_transition, c_max_step, c_next_time_event, c_outputs, NULL,
    NULL,  c_describe, c_mode_name,  c_guard};
static const stsl_hmodel_ops without_one = {
    c_rhs, c_guards,   c_transition, c_max_step, c_next_time_event, c_outputs, NULL,
    NULL,  c_describe, c_mode_name,  NULL};

/* Run cfg's system through the checking model (`one`: with the one-guard
 * op) into sink; the checker's counts into *c. */
static void run_checked(const stsl_config *cfg, int one, stsl_sink *sink, checked *c)
{
    stsl_error err = {0};
    stsl_multibody *m = stsl_multibody_create(&cfg->system, cfg->sim.rtol, cfg->sim.atol, &err);
    if (!m) fail_msg("create: %s", err.msg);
    const stsl_hmodel *inner = stsl_multibody_model(m);
    assert_non_null(inner->ops->guard);
    size_t ng = (size_t)(inner->max_guards > 0 ? inner->max_guards : 1);
    *c = (checked){inner, calloc(ng, sizeof(double)), 0, 0, m, calloc(ng, sizeof(double)), 0, 0, 0};
    assert_non_null(c->all);
    assert_non_null(c->full);
    stsl_hmodel outer = *inner;
    outer.ops = one ? &with_one : &without_one;
    outer.self = c;
    stsl_hsolver_opts o = cfg->sim;
    int zeno = 4 * (cfg->system.n_contacts + cfg->system.n_stops) + 64;
    if (o.max_same_instant < zeno) o.max_same_instant = zeno; /* as stsl_run_system */
    stsl_hsolver *h = stsl_hsolver_create(&outer, &o, &err);
    if (!h) fail_msg("solver: %s", err.msg);
    double *y0 = calloc((size_t)inner->n_state, sizeof *y0);
    assert_non_null(y0);
    stsl_multibody_initial_state(m, y0);
    assert_int_equal(stsl_mem_sink_create(sink, &err), STSL_OK);
    int rc = stsl_hsolver_run(h, 0.0, y0, sink, &err);
    if (rc) fail_msg("run: %s", err.msg);
    free(y0);
    free(c->all);
    free(c->full);
    c->all = c->full = NULL;
    c->leaf_evals = stsl_multibody_leaf_evals(m);
    stsl_hsolver_free(h);
    stsl_multibody_free(m);
    c->m = NULL;
}

static void load_file(const char *name, stsl_config *cfg)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", STSL_SOURCE_DIR, name);
    stsl_error err = {0};
    if (stsl_config_load(path, NULL, 0, cfg, &err)) fail_msg("%s: %s", path, err.msg);
    assert_true(cfg->is_system);
}

/* Every one-guard evaluation of the system examples equals the full one. */
static void examples_one_guard_exact(void **state)
{
    (void)state;
    const char *names[] = {"burridge_knopoff.yaml", "clutch.yaml", "servo_backlash.yaml",
                           "servo_two_mass.yaml"};
    long calls = 0;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        stsl_config cfg;
        load_file(names[k], &cfg);
        stsl_sink sink;
        checked c;
        run_checked(&cfg, 1, &sink, &c);
        assert_true(stsl_mem_sink_result(&sink)->complete);
        if (c.mismatches) fail_msg("%s: %ld of %ld differ", names[k], c.mismatches, c.calls);
        if (c.all_mismatches)
            fail_msg("%s: %ld of %ld evaluations of all guards differ from the full solve's",
                     names[k], c.all_mismatches, c.all_calls);
        calls += c.calls;
        sink.ops->destroy(sink.self);
        stsl_config_free(&cfg);
    }
    assert_true(calls > 100); /* the searches did ask for single guards */
}

/* The chain of bench_chain (12 blocks, 60 s): every one-guard evaluation
 * equals the full one, and the run is the run without the op. */
static void chain_one_guard_same_run(void **state)
{
    (void)state;
    char yaml[8192];
    size_t o = 0, cap = sizeof yaml;
    const int n = 12;
    o += (size_t)snprintf(yaml + o, cap - o, "bodies:\n");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(yaml + o, cap - o, "  b%d: {mass: 1.0}\n", i);
    o += (size_t)snprintf(yaml + o, cap - o, "couplings:\n");
    for (int i = 0; i < n; i++) {
        o += (size_t)snprintf(yaml + o, cap - o, "  - {between: [b%d, anchor], stiffness: 1.0}\n",
                              i);
        if (i + 1 < n)
            o += (size_t)snprintf(yaml + o, cap - o,
                                  "  - {between: [b%d, b%d], stiffness: 25.0, damping: 0.1}\n", i,
                                  i + 1);
    }
    o += (size_t)snprintf(yaml + o, cap - o, "contacts:\n");
    for (int i = 0; i < n; i++)
        o += (size_t)snprintf(yaml + o, cap - o,
                              "  - {between: [b%d, ground], law: coulomb, dynamic: %.17g, "
                              "static_ratio: 1.5}\n",
                              i, 1.0 + 0.3 * fmod(0.6180339887498949 * (i + 1), 1.0));
    snprintf(yaml + o, cap - o,
             "inputs: {anchor_motion: {type: ramp, slope: 0.05}}\n"
             "simulation: {t_end: 60, output_step: 0, rtol: 1e-8}\n");
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "<chain>", NULL, NULL, 0, &cfg, &err))
        fail_msg("config: %s", err.msg);
    stsl_sink with, without;
    checked c, c0;
    run_checked(&cfg, 1, &with, &c);
    run_checked(&cfg, 0, &without, &c0);
    if (c.mismatches) fail_msg("chain: %ld of %ld differ", c.mismatches, c.calls);
    if (c.all_mismatches + c0.all_mismatches)
        fail_msg("chain: %ld of %ld evaluations of all guards differ from the full solve's",
                 c.all_mismatches + c0.all_mismatches, c.all_calls + c0.all_calls);
    assert_true(c.calls > 1000);
    /* Most of the chain's guard evaluations are of modes with leaves (a
     * block stuck between stuck neighbours): the shortcut was compared. */
    assert_true(2 * c.leaf_evals > c.all_calls);
    assert_int_equal(c0.calls, 0);
    const stsl_mem_result *a = stsl_mem_sink_result(&with), *b = stsl_mem_sink_result(&without);
    assert_true(a->complete && b->complete);
    assert_true(a->n_events > 50); /* avalanches */
    assert_int_equal(a->n_events, b->n_events);
    assert_int_equal(a->n_cols, b->n_cols);
    for (long i = 0; i < a->n_events; i++) {
        assert_true(a->events[i].t == b->events[i].t);
        assert_int_equal(a->events[i].kind, b->events[i].kind);
        assert_int_equal(a->events[i].subject, b->events[i].subject);
        assert_memory_equal(a->events[i].after, b->events[i].after,
                            sizeof(double) * (size_t)a->n_cols);
    }
    with.ops->destroy(with.self);
    without.ops->destroy(without.self);
    stsl_config_free(&cfg);
}

/* A clutch slipping on a block stuck to the ground: the block is a leaf
 * (its one edge the ground's) whose band force carries the clutch's
 * friction, beside a second stuck block (two of three bodies are leaves:
 * the shortcut sums every pair's force once).  Every evaluation of all
 * guards equals the full solve's, bit for bit. */
static void clutch_on_leaf_exact(void **state)
{
    (void)state;
    const char *yaml = "bodies: {a: {mass: 1.0}, b: {mass: 1.0}, c: {mass: 0.5}}\n"
                       "couplings:\n"
                       "  - {between: [a, anchor], stiffness: 1.0}\n"
                       "  - {between: [b, anchor], stiffness: 1.0}\n"
                       "  - {between: [c, anchor], stiffness: 2.0, damping: 0.1}\n"
                       "contacts:\n"
                       "  - {between: [a, ground], law: coulomb, dynamic: 1.0, static_ratio: 1.5}\n"
                       "  - {between: [b, ground], law: coulomb, dynamic: 1.2, static_ratio: 1.5}\n"
                       "  - {between: [a, c], law: coulomb, dynamic: 0.2, static_ratio: 1.5}\n"
                       "inputs: {anchor_motion: {type: ramp, slope: 0.05}}\n"
                       "simulation: {t_end: 60, output_step: 0, rtol: 1e-8}\n";
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "<clutch>", NULL, NULL, 0, &cfg, &err))
        fail_msg("config: %s", err.msg);
    stsl_sink sink;
    checked c;
    run_checked(&cfg, 1, &sink, &c);
    assert_true(stsl_mem_sink_result(&sink)->complete);
    if (c.all_mismatches)
        fail_msg("clutch: %ld of %ld evaluations of all guards differ from the full solve's",
                 c.all_mismatches, c.all_calls);
    assert_true(c.leaf_evals > 100); /* the clutch slipped on the stuck block */
    sink.ops->destroy(sink.self);
    stsl_config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(examples_one_guard_exact),
        cmocka_unit_test(chain_one_guard_same_run),
        cmocka_unit_test(clutch_on_leaf_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
