/* test_study.c - the study file and its expansion: grid, zip and Latin
 * hypercube counts and order, reproducible seeds, linspace/logspace end
 * points, the base (a path relative to the study file, or inline with the
 * study file's line numbers), and one malformed study per rule with its
 * line and key path. */
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
#include "io/study/study.h"
#include "test/testutil.h"

static char g_dir[256];

#define BASE "base: {element: {mass: 1}, friction: {dynamic: 2}, simulation: {t_end: 1}}\n"

static stsl_study *load_ok(const char *text)
{
    stsl_study *s = NULL;
    stsl_error err = {0};
    int rc = stsl_study_load_string(text, "s.yaml", g_dir, &s, &err);
    if (rc) fprintf(stderr, "unexpected error: %s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    return s;
}

/* Grid: every combination, the first key slowest; values exact. */
static void test_grid(void **state)
{
    (void)state;
    stsl_study *s = load_ok(BASE "vary:\n"
                                 "  friction.dynamic: {linspace: [10, 25, 4]}\n"
                                 "  element.mass: {values: [1, 2.5]}\n"
                                 "  element.spring.stiffness: {logspace: [3, 5, 3]}\n"
                                 "combine: grid\n");
    assert_int_equal(stsl_study_n_variants(s), 4 * 2 * 3);
    assert_int_equal(stsl_study_n_keys(s), 3);
    assert_string_equal(stsl_study_key(s, 0), "friction.dynamic");
    assert_string_equal(stsl_study_key(s, 2), "element.spring.stiffness");
    assert_int_equal(stsl_study_key_line(s, 1), 4);
    assert_int_equal(stsl_study_combine(s), STSL_COMBINE_GRID);
    assert_int_equal(stsl_study_store(s), STSL_STORE_SUMMARY);
    const double dyn[4] = {10, 15, 20, 25}, mass[2] = {1, 2.5}, k[3] = {1e3, 1e4, 1e5};
    double v[3];
    for (long i = 0; i < 24; i++) {
        stsl_study_values(s, i, v);
        /* linspace 10..25 in 3 steps of 5: every point is exact in binary. */
        assert_true(v[0] == dyn[i / 6]);
        assert_true(v[1] == mass[(i / 3) % 2]);
        /* pow(10, integer) is exact for these powers. */
        assert_true(v[2] == k[i % 3]);
    }
    stsl_study_free(s);
}

/* linspace ends exactly at stop; a single point is the start. */
static void test_spaces(void **state)
{
    (void)state;
    stsl_study *s = load_ok(BASE "vary:\n  a.b: {linspace: [0.1, 0.7, 7]}\n");
    double v;
    stsl_study_values(s, 6, &v);
    assert_true(v == 0.7);
    stsl_study_values(s, 3, &v);
    assert_true(v == 0.1 + (0.7 - 0.1) * 3.0 / 6.0);
    stsl_study_free(s);
    s = load_ok(BASE "vary:\n  a.b: {linspace: [4, 9, 1]}\n");
    assert_int_equal(stsl_study_n_variants(s), 1);
    stsl_study_values(s, 0, &v);
    assert_true(v == 4.0);
    stsl_study_free(s);
    s = load_ok(BASE "vary:\n  a.b: {logspace: [-2, 1, 4]}\n");
    stsl_study_values(s, 0, &v);
    assert_true(v == 0.01);
    stsl_study_values(s, 3, &v);
    assert_true(v == 10.0);
    stsl_study_free(s);
}

/* Zip: row by row. */
static void test_zip(void **state)
{
    (void)state;
    stsl_study *s = load_ok(BASE "vary:\n"
                                 "  x.y: {values: [1, 2, 3]}\n"
                                 "  x.z: {linspace: [0, 1, 3]}\n"
                                 "combine: zip\nstore: events\n");
    assert_int_equal(stsl_study_n_variants(s), 3);
    assert_int_equal(stsl_study_store(s), STSL_STORE_EVENTS);
    double v[2];
    stsl_study_values(s, 2, v);
    assert_true(v[0] == 3.0 && v[1] == 1.0);
    stsl_study_values(s, 1, v);
    assert_true(v[0] == 2.0 && v[1] == 0.5);
    stsl_study_free(s);
}

static double *lhs(const char *seed_line, long n, const double lo[2], const double hi[2])
{
    char text[1024];
    snprintf(text, sizeof text,
             BASE "sample:\n  method: latin_hypercube\n  n: %ld\n%s"
                  "  ranges: {friction.dynamic: [%g, %g], inputs.load.amplitude: [%g, %g]}\n"
                  "store: full\n",
             n, seed_line, lo[0], hi[0], lo[1], hi[1]);
    stsl_study *s = load_ok(text);
    assert_int_equal(stsl_study_n_variants(s), n);
    assert_int_equal(stsl_study_combine(s), STSL_COMBINE_LATIN_HYPERCUBE);
    assert_int_equal(stsl_study_store(s), STSL_STORE_FULL);
    assert_string_equal(stsl_study_key(s, 1), "inputs.load.amplitude");
    double *v = malloc((size_t)n * 2 * sizeof *v);
    for (long i = 0; i < n; i++)
        stsl_study_values(s, i, v + 2 * i);
    stsl_study_free(s);
    return v;
}

/* Latin hypercube: each of the n strata of each key holds exactly one
 * variant; the same seed draws the same sample, another seed another. */
static void test_latin_hypercube(void **state)
{
    (void)state;
    const long n = 1000;
    const double lo[2] = {10, 0}, hi[2] = {25, 80};
    double *a = lhs("  seed: 7\n", n, lo, hi), *b = lhs("  seed: 7\n", n, lo, hi);
    double *c = lhs("  seed: 8\n", n, lo, hi), *d = lhs("", n, lo, hi);
    double *e = lhs("  seed: 0\n", n, lo, hi);
    assert_memory_equal(a, b, (size_t)n * 2 * sizeof *a);
    assert_memory_equal(d, e, (size_t)n * 2 * sizeof *a); /* seed defaults to 0 */
    assert_true(memcmp(a, c, (size_t)n * 2 * sizeof *a) != 0);
    for (int j = 0; j < 2; j++) {
        char *hit = calloc((size_t)n, 1);
        for (long i = 0; i < n; i++) {
            double x = a[2 * i + j];
            assert_true(x >= lo[j] && x < hi[j]);
            long k = (long)floor((x - lo[j]) / (hi[j] - lo[j]) * (double)n);
            assert_true(k >= 0 && k < n);
            hit[k]++;
        }
        for (long k = 0; k < n; k++)
            assert_int_equal(hit[k], 1);
        free(hit);
    }
    free(a), free(b), free(c), free(d), free(e);
}

/* The first draws of MT19937 seeded with 7 are fixed by the algorithm
 * (not by this program): a change in how the sample is drawn shows here. */
static void test_lhs_documented_draw(void **state)
{
    (void)state;
    const double lo[2] = {0, 0}, hi[2] = {1, 1};
    double *a = lhs("  seed: 7\n", 1, lo, hi);
    /* n = 1: the permutation is (0) and the values are the first two
     * uniforms of the stream: gsl_rng_uniform = mt19937 output / 2^32.
     * Outputs of MT19937 seeded with init_genrand(7) (Matsumoto and
     * Nishimura's reference algorithm, computed outside GSL by a transcript
     * of it that gives the published 3499211612 for the default seed 5489):
     * 327741615, 976413892. */
    assert_true(a[0] == 327741615.0 / 4294967296.0);
    assert_true(a[1] == 976413892.0 / 4294967296.0);
    free(a);
}

/* A base path is resolved against the study file's directory and read. */
static void test_base_path(void **state)
{
    (void)state;
    char path[512], cfg[512];
    snprintf(cfg, sizeof cfg, "%s/sub/b.yaml", g_dir);
    snprintf(path, sizeof path, "mkdir -p '%s/sub'", g_dir);
    assert_int_equal(system(path), 0);
    assert_int_equal(tu_write_file(cfg, "element: {mass: 3}\n"), 0);
    snprintf(path, sizeof path, "%s/study.yaml", g_dir);
    assert_int_equal(tu_write_file(path, "base: sub/b.yaml\nvary: {a.b: {values: [1]}}\n"), 0);
    stsl_study *s = NULL;
    stsl_error err = {0};
    assert_int_equal(stsl_study_load(path, &s, &err), STSL_OK);
    assert_string_equal(stsl_study_base_text(s), "element: {mass: 3}\n");
    assert_string_equal(stsl_study_base_origin(s), cfg);
    snprintf(cfg, sizeof cfg, "%s/sub", g_dir);
    assert_string_equal(stsl_study_base_dir(s), cfg);
    assert_string_equal(stsl_study_origin(s), path);
    assert_string_equal(stsl_study_text(s), "base: sub/b.yaml\nvary: {a.b: {values: [1]}}\n");
    stsl_study_free(s);
}

/* An inline base (block or flow) loads as a configuration whose messages
 * carry the study file's lines. */
static void test_base_inline(void **state)
{
    (void)state;
    const char *texts[2] = {"# a study\n"
                            "base:\n"
                            "  element: {mass: 1}\n"
                            "  friction:\n"
                            "    dynamic: -2\n"
                            "  simulation: {t_end: 1}\n"
                            "vary: {friction.dynamic: {values: [1]}}\n",
                            "# a study\n"
                            "base: {element: {mass: 1},\n"
                            "  simulation: {t_end: 1},\n"
                            "  friction: {\n"
                            "    dynamic: -2}}\n"
                            "vary: {friction.dynamic: {values: [1]}}\n"};
    for (int i = 0; i < 2; i++) {
        stsl_study *s = load_ok(texts[i]);
        stsl_config cfg;
        stsl_error err = {0};
        assert_int_equal(stsl_config_load_string(stsl_study_base_text(s), stsl_study_base_origin(s),
                                                 NULL, NULL, 0, &cfg, &err),
                         STSL_EINPUT);
        assert_non_null(strstr(err.msg, "s.yaml:5: friction.dynamic: must be >= 0"));
        const char *fix = "friction.dynamic=2";
        assert_int_equal(
            stsl_config_load_string(stsl_study_base_text(s), "s.yaml", NULL, &fix, 1, &cfg, &err),
            STSL_OK);
        assert_true(cfg.element.mass == 1.0 && cfg.sim.t_end == 1.0);
        stsl_config_free(&cfg);
        stsl_study_free(s);
    }
}

/* A system's contact is varied by its `name:` as by its index: the study
 * loads (its keys are checked on the base as --set checks them) and keeps
 * the key as written. */
static void test_vary_by_name(void **state)
{
    (void)state;
    stsl_study *s = load_ok("base:\n"
                            "  bodies: {cart: {mass: 1}}\n"
                            "  contacts: [{name: gear, body: cart, law: coulomb, dynamic: 2}]\n"
                            "  simulation: {t_end: 1}\n"
                            "vary:\n"
                            "  contacts.gear.dynamic: {values: [1, 3]}\n"
                            "  contacts.0.static_ratio: {values: [1.5]}\n");
    assert_int_equal(stsl_study_n_variants(s), 2);
    assert_string_equal(stsl_study_key(s, 0), "contacts.gear.dynamic");
    stsl_study_free(s);
}

/* Every rule: exact code, line and key path. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"", "s.yaml:1: (top level): empty study file"},
        {"[1, 2]\n", "s.yaml:1: (top level): expected a mapping (got a sequence)"},
        {"base: {a: 1\n", "s.yaml:2: (top level): YAML syntax error"},
        {BASE "vary: {a.b: {values: [1]}}\nfoo: 1\n", "s.yaml:3: foo: unknown key (allowed: "},
        {"vary: {a.b: {values: [1]}}\n", "s.yaml:1: base: missing required key"},
        {"base: [1]\nvary: {a.b: {values: [1]}}\n",
         "s.yaml:1: base: expected a configuration file or mapping (got a sequence)"},
        {"base: nowhere.yaml\nvary: {a.b: {values: [1]}}\n", "s.yaml:1: base: cannot open "},
        {BASE "store: summary\n", "s.yaml:1: vary: missing required key: vary (or sample)"},
        {BASE "vary: {a.b: {values: [1]}}\nsample: {method: latin_hypercube}\n",
         "s.yaml:3: sample: give either vary (with combine) or sample, not both"},
        {BASE "vary: {a.b: {values: [1]}}\ncombine: cross\n",
         "s.yaml:3: combine: must be one of: grid, zip (got 'cross')"},
        {BASE "vary: {a.b: {values: [1]}}\nstore: all\n",
         "s.yaml:3: store: must be one of: summary, events, full (got 'all')"},
        {BASE "vary: {}\n",
         "s.yaml:2: vary: expected at least one key to vary, e.g. {friction.dynamic: {linspace: "
         "[0.5, 2, 4]}} (got an empty mapping)"},
        {BASE "vary: [1]\n",
         "s.yaml:2: vary: expected a mapping of key paths to vary, e.g. {friction.dynamic: "
         "{linspace: [0.5, 2, 4]}} (got a sequence)"},
        {BASE "vary:\n  - friction.dynamic: {values: [1, 2]}\n",
         "s.yaml:3: vary: expected a mapping of key paths to vary"},
        {BASE "sample: {method: latin_hypercube, n: 2, ranges: {}}\n",
         "s.yaml:2: sample.ranges: expected at least one key: [low, high], e.g. "
         "{friction.dynamic: [0.5, 2]} (got an empty mapping)"},
        {BASE "vary:\n  a.b: {values: [1]}\n  a.b: {values: [2]}\n",
         "s.yaml:4: vary.a.b: duplicate key (first given on line 3)"},
        {BASE "vary:\n  a..b: {values: [1]}\n", "s.yaml:3: vary.a..b: not a configuration key"},
        {BASE "vary:\n  a.b: 3\n", "s.yaml:3: vary.a.b: expected a mapping (got '3')"},
        {BASE "vary:\n  a.b: {range: [1, 2]}\n",
         "s.yaml:3: vary.a.b.range: unknown key (allowed: linspace, logspace, values)"},
        {BASE "vary:\n  a.b: {values: [1], linspace: [1, 2, 3]}\n",
         "s.yaml:3: vary.a.b: give exactly one of linspace, logspace, values"},
        {BASE "vary:\n  a.b: {linspace: [1, 2]}\n",
         "s.yaml:3: vary.a.b.linspace: expected [start, stop, count] (got 2 items)"},
        {BASE "vary:\n  a.b:\n    linspace: [1, 2, 2.5]\n",
         "s.yaml:4: vary.a.b.linspace.count: must be a whole number in [1, 10000000] (got 2.5)"},
        {BASE "vary:\n  a.b: {logspace: [1, x, 3]}\n",
         "s.yaml:3: vary.a.b.logspace: expected a number (got 'x')"},
        {BASE "vary:\n  a.b: {logspace: [1, 400, 3]}\n",
         "s.yaml:3: vary.a.b.logspace: 10^400 exceeds the largest double"},
        {BASE "vary:\n  a.b: {values: []}\n",
         "s.yaml:3: vary.a.b.values: expected a list of numbers (got 0 items)"},
        {BASE "vary:\n  a.b: {values: [1,\n    \"2\"]}\n",
         "s.yaml:4: vary.a.b.values: expected a number (got '2')"},
        {BASE "vary:\n  a.b: {values: [1, 1e999]}\n",
         "s.yaml:3: vary.a.b.values: must be a finite number (got '1e999')"},
        {BASE "vary:\n  a.b: {values: [1, 2]}\n  c.d: {values: [1]}\ncombine: zip\n",
         "s.yaml:5: combine: zip needs lists of one length (a.b has 2 values, c.d has 1)"},
        {BASE "vary:\n  a.b: {linspace: [0, 1, 100000]}\n  c.d: {linspace: [0, 1, 100000]}\n",
         "s.yaml:4: vary.c.d.linspace: the grid would have 1e+10 variants (100000 x 100000), "
         "more than 10000000 (the study limit)"},
        {BASE "sample: {n: 3, ranges: {a: [0, 1]}}\n",
         "s.yaml:2: sample.method: missing required key (latin_hypercube)"},
        {BASE "sample: {method: sobol, n: 3, ranges: {a: [0, 1]}}\n",
         "s.yaml:2: sample.method: must be one of: latin_hypercube (got 'sobol')"},
        {BASE "sample: {method: latin_hypercube, ranges: {a: [0, 1]}}\n",
         "s.yaml:2: sample.n: missing required key"},
        {BASE "sample: {method: latin_hypercube, n: 0, ranges: {a: [0, 1]}}\n",
         "s.yaml:2: sample.n: must be a whole number in [1, 10000000] (got 0)"},
        {BASE "sample: {method: latin_hypercube, n: 2, seed: -1, ranges: {a: [0, 1]}}\n",
         "s.yaml:2: sample.seed: must be a whole number in [0, 4294967295] (got -1)"},
        {BASE "sample: {method: latin_hypercube, n: 2}\n",
         "s.yaml:2: sample.ranges: missing required key"},
        {BASE "sample: {method: latin_hypercube, n: 2, ranges: {a: [1, 0]}}\n",
         "s.yaml:2: sample.ranges.a: low must not exceed high (got [1, 0])"},
        {BASE "sample: {method: latin_hypercube, n: 2, ranges: {a: [1]}}\n",
         "s.yaml:2: sample.ranges.a: expected [low, high] (got 1 item)"},
        {BASE "sample: {method: latin_hypercube, n: 2, ranges: {a: 1}}\n",
         "s.yaml:2: sample.ranges.a: expected [low, high] (got '1')"},
        {BASE "sample: {method: latin_hypercube, n: 2, size: 3, ranges: {a: [0, 1]}}\n",
         "s.yaml:2: sample.size: unknown key (allowed: method, n, seed, ranges)"},
        {BASE "sample: {method: latin_hypercube, n: 2, ranges: {a: [0, 1]}}\ncombine: grid\n",
         "s.yaml:3: combine: applies to vary; sample draws its own variants"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        stsl_study *s = (stsl_study *)1;
        stsl_error err = {0};
        int rc = stsl_study_load_string(cases[i].text, "s.yaml", g_dir, &s, &err);
        if (rc != STSL_EINPUT || strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) != 0)
            fprintf(stderr, "case %zu: rc %d, got  '%s'\n        want '%s'\n", i, rc, err.msg,
                    cases[i].msg);
        assert_int_equal(rc, STSL_EINPUT);
        assert_null(s);
        assert_int_equal(strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)), 0);
        assert_null(strchr(err.msg, '\n'));
    }
}

static void test_missing_file(void **state)
{
    (void)state;
    stsl_study *s = (stsl_study *)1;
    stsl_error err = {0};
    assert_int_equal(stsl_study_load("/nonexistent/s.yaml", &s, &err), STSL_EINPUT);
    assert_null(s);
    assert_non_null(strstr(err.msg, "cannot open /nonexistent/s.yaml"));
}

int main(void)
{
    tu_mkdtemp(g_dir, sizeof g_dir);
    if (!g_dir[0]) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid),
        cmocka_unit_test(test_vary_by_name),
        cmocka_unit_test(test_spaces),
        cmocka_unit_test(test_zip),
        cmocka_unit_test(test_latin_hypercube),
        cmocka_unit_test(test_lhs_documented_draw),
        cmocka_unit_test(test_base_path),
        cmocka_unit_test(test_base_inline),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_missing_file),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
