/* test_fmu_compare.c - `compare REFERENCE.h5 --fmu MODEL.fmu --step H`
 * when the reference is a system of bodies: the suite's two-body FMU
 * (test/fmu/two_body_cs.c, built by cmake/test_fmus.cmake into
 * STSL_TEST_FMU_DIR) compared member by member, as a system's result file
 * is compared, and its mapping errors. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api/fmu_lazy.h"
#include "io/result/h5_sink.h"
#include "fmu/two_body_system.h"
#include "testutil.h"

#define FMU     STSL_TEST_FMU_DIR "/two_body.fmu"
#define MAP_F   "--fmu-input F=bodies.b.force"
#define MAP_F_1 "F=bodies.b.force"

static char tmp[256];
static char out[1 << 16];

static int setup(void **state)
{
    (void)state;
    /* The FMU is unpacked under TMPDIR. */
    return tu_mkdtemp_env(tmp, sizeof tmp);
}

static int teardown(void **state)
{
    (void)state;
    return tu_rm_tree(tmp);
}

/* `name` in tmp, the configuration written there and its reference run
 * into name.h5 (into ref). */
static void reference(const char *name, const char *yaml, char *ref, size_t size)
{
    char cfg[512];
    snprintf(cfg, sizeof cfg, "%s/%s.yaml", tmp, name);
    snprintf(ref, size, "%s/%s.h5", tmp, name);
    assert_int_equal(tu_write_file(cfg, yaml), 0);
    int rc = tu_cli(out, sizeof out, "run '%s' -o '%s'", cfg, ref);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
}

/* The number `key` of the JSON object {"name": "member", ...}. */
static double member_value(const char *json, const char *member, const char *key)
{
    char pat[128];
    snprintf(pat, sizeof pat, "{\"name\": \"%s\"", member);
    const char *p = strstr(json, pat);
    assert_non_null(p);
    const char *end = strchr(p, '}');
    double v = tu_json_value(p, key);
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    assert_true(strstr(p, pat) < end); /* the member's own key */
    return v;
}

/* compare --fmu of the system against converge --fmu of the same
 * configuration, FMU and step: two separate computations of the same
 * errors (converge's per-body table, compare's per-member report).  With
 * steps 2e-3 and 1e-3 converge re-runs the reference at the union of the
 * two grids, which is the 1e-3 grid itself (2e-3 is 2 x 1e-3 exactly in
 * binary, so k 2e-3 and 2k 1e-3 round from the same real), and compare
 * re-runs it at the FMU's points of step 1e-3: the same output times, the
 * same reference values; the FMU is deterministic, so both see the same
 * samples and every max, RMS and final error must be the same double (the
 * bound is 0; both print 17 significant digits).  The energy error is one
 * subtraction of the same two doubles.  A wrong mapping in compare (the
 * force on the wrong body, the bodies' outputs swapped) would show here
 * as errors of another size. */
static void t_system_matches_converge(void **state)
{
    (void)state;
    char ref[512], json[512], csv[512];
    reference("two", TWO_BODY_YAML, ref, sizeof ref);
    snprintf(json, sizeof json, "%s/rep.json", tmp);
    snprintf(csv, sizeof csv, "%s/conv.csv", tmp);
    int rc = tu_cli(out, sizeof out, "compare '%s' --fmu '%s' " MAP_F " --step 1e-3 -o '%s'", ref,
                    FMU, json);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    /* The columns of a system's result compared with another. */
    const char *rows[] = {
        "x[a]", "v[a]", "x[b]", "v[b]", "friction[guide]", "slip_velocity[guide]"};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        assert_non_null(strstr(out, rows[i]));
    assert_non_null(strstr(out, "events about"));
    rc = tu_cli(out, sizeof out,
                "converge '%s/two.yaml' --fmu '%s' " MAP_F " --steps 2e-3,1e-3 -o '%s'", tmp, FMU,
                csv);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    char *j = tu_slurp(json), *t = tu_slurp(csv);
    assert_true(j && t);
    assert_close(tu_json_value(j, "n_points"), 2001, 0);
    const char *body[2] = {"a", "b"};
    for (int b = 0; b < 2; b++) {
        static const char *const keys[4][2] = {{"max_abs_error_x", "max_abs_error_x.%s"},
                                               {"rms_error_x", "rms_error_x.%s"},
                                               {"final_error_x", "final_error_x.%s"},
                                               {"max_abs_error_v", "max_abs_error_v.%s"}};
        for (int k = 0; k < 4; k++) {
            char col[64];
            snprintf(col, sizeof col, keys[k][1], body[b]);
            assert_close(member_value(j, body[b], keys[k][0]), tu_csv_field(t, col, 1), 0);
        }
    }
    assert_close(member_value(j, "guide", "max_abs_error_friction"),
                 tu_csv_field(t, "max_abs_error_friction.guide", 1), 0);
    assert_close(member_value(j, "guide", "rms_error_friction"),
                 tu_csv_field(t, "rms_error_friction.guide", 1), 0);
    double de = member_value(j, "guide", "dissipated_energy_candidate") -
                member_value(j, "guide", "dissipated_energy_reference");
    assert_close(de, tu_csv_field(t, "dissipated_energy_error.guide", 1), 0);
    /* Events about the contact, seen in its slip velocity on both sides. */
    assert_close(member_value(j, "guide", "events_matched"), tu_csv_field(t, "events", 1), 0);
    assert_close(member_value(j, "guide", "events_missed"), tu_csv_field(t, "events_missed", 1), 0);
    assert_close(member_value(j, "guide", "events_spurious"), tu_csv_field(t, "events_spurious", 1),
                 0);
    free(j), free(t);
}

/* The FMU's run written as a system's result file by the library (the
 * FMU module into the HDF5 sink `run -o` writes with) and compared as a
 * file: the report is the one compare --fmu gives, byte for byte (the
 * same samples, events and modes through the same comparison: bound 0). */
static void t_system_same_as_file(void **state)
{
    (void)state;
    char ref[512], cand[512], a[512], b[512], cfgp[512];
    reference("two", TWO_BODY_YAML, ref, sizeof ref);
    snprintf(cfgp, sizeof cfgp, "%s/two.yaml", tmp);
    snprintf(cand, sizeof cand, "%s/fmu_run.h5", tmp);
    snprintf(a, sizeof a, "%s/fmu.json", tmp);
    snprintf(b, sizeof b, "%s/file.json", tmp);
    stsl_error err = {0};
    stsl_config cfg;
    assert_int_equal(stsl_config_load(cfgp, NULL, 0, &cfg, &err), STSL_OK);
    const stsl_fmu_module_api *m = stsl_fmu_module_load(NULL, &err);
    if (!m) fprintf(stderr, "%s\n", err.msg);
    assert_non_null(m);
    stsl_fmu_opts o = {.path = FMU, .inputs = {MAP_F_1}, .n_inputs = 1, .system = &cfg.system};
    stsl_fmu *f = NULL;
    stsl_sink sink = {0};
    int rc = m->open(&o, &cfg.element, &f, &err);
    if (!rc) rc = stsl_h5_sink_create(cand, "", "0", &sink, &err);
    if (!rc) rc = m->run(f, cfg.sim.t_end, 1e-3, &sink, NULL, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, STSL_OK);
    m->close(f);
    stsl_sink_free(&sink);
    stsl_config_free(&cfg);
    rc = tu_cli(out, sizeof out, "compare '%s' --fmu '%s' " MAP_F " --step 1e-3 -o '%s'", ref, FMU,
                a);
    assert_int_equal(rc, 0);
    rc = tu_cli(out, sizeof out, "compare '%s' '%s' -o '%s'", ref, cand, b);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    char *ja = tu_slurp(a), *jb = tu_slurp(b);
    assert_true(ja && jb);
    assert_string_equal(ja, jb);
    free(ja), free(jb);
}

/* A reference with a stop: the FMU's samples show no stop's state, so
 * its stops are left out (none in the report) and the rest is compared
 * as without it (the stop at +-1 m is never reached: |x| < 0.1 m). */
static void t_system_stops_left_out(void **state)
{
    (void)state;
    char ref[512], json[512];
    reference("stop",
              TWO_BODY_YAML "stops:\n"
                            "  - {body: a, name: wall, min: -1.0, max: 1.0, model: rigid, "
                            "restitution: 0.0}\n",
              ref, sizeof ref);
    snprintf(json, sizeof json, "%s/stop.json", tmp);
    int rc = tu_cli(out, sizeof out, "compare '%s' --fmu '%s' " MAP_F " --step 1e-3 -o '%s'", ref,
                    FMU, json);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    char *j = tu_slurp(json);
    assert_non_null(j);
    assert_non_null(strstr(j, "\"stops\": [\n  ]"));
    assert_null(strstr(j, "wall"));
    assert_true(member_value(j, "a", "max_abs_error_x") < 1e-2);
    free(j);
}

/* The mapping onto the system's members: exit 2 naming the FMU and the
 * variable, before anything is run. */
static void t_system_mapping_errors(void **state)
{
    (void)state;
    char ref[512], three[512];
    reference("two", TWO_BODY_YAML, ref, sizeof ref);
    /* A third body c, which the FMU has no output for. */
    reference("three",
              "bodies:\n  a: {mass: 1.0}\n  b: {mass: 0.5}\n  c: {mass: 2.0}\n"
              "couplings:\n  - {between: [a, b], stiffness: 100.0}\n"
              "  - {between: [b, c], stiffness: 100.0}\n"
              "contacts:\n  - {body: a, name: guide, law: coulomb, dynamic: 1.0, "
              "static_ratio: 1.5}\n"
              "inputs:\n  forces:\n    b: {type: sine, amplitude: 3.0, frequency: 1.0}\n"
              "simulation: {t_end: 2.0, output_step: 0.001}\n",
              three, sizeof three);
    struct {
        const char *ref, *opts, *message;
    } cases[] = {
        {ref, MAP_F " --fmu-output x[c]=x[a]",
         "two_body.fmu: --fmu-output x[c]=x[a]: the configuration has no body 'c' (its bodies: "
         "a, b)"},
        {ref, MAP_F " --fmu-output v[b]=speed",
         "two_body.fmu: no output 'speed' for v[b]: name the FMU's output with --fmu-output "
         "v[b]=NAME"},
        {three, MAP_F,
         "two_body.fmu: no output 'x[c]' for x[c]: name the FMU's output with --fmu-output "
         "x[c]=NAME"},
        {ref, "", "two_body.fmu: input 'F' of the FMU receives no signal"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = tu_cli(out, sizeof out, "compare '%s' --fmu '%s' %s --step 1e-3", cases[i].ref,
                        FMU, cases[i].opts);
        if (rc != 2 || !strstr(out, cases[i].message)) fprintf(stderr, "%s\n", out);
        assert_int_equal(rc, 2);
        assert_non_null(strstr(out, cases[i].message));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_system_matches_converge),
        cmocka_unit_test(t_system_same_as_file),
        cmocka_unit_test(t_system_stops_left_out),
        cmocka_unit_test(t_system_mapping_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
