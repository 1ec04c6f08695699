/* test_member_metrics.c - a system's per-member figures for a sweep (issue
 * 14 stage 7): the columns a system's configuration gives, the sink that
 * computes them from a run's samples through the layout's column groups
 * (stuck fractions exact on a constructed run whose stuck intervals are
 * known), the study file's per-member columns, and the study's key paths
 * into a system (contacts.0.dynamic, bodies.load.inertia,
 * couplings.0.stiffness) set on a clone of the base as a variant is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/summary_sink.h"
#include "include/stickslip.h"
#include "io/config/config.h"
#include "io/study/study.h"
#include "io/study/study_h5.h"
#include "run/run.h"
#include "test/testutil.h"

static char g_dir[256];

static const char *SERVO =
    "domain: rotational\n"
    "bodies:   {motor: {inertia: 1.0e-3}, load: {inertia: 5.0e-2}}\n"
    "couplings:\n"
    "  - {between: [motor, load], stiffness: 500.0, damping: 0.05}\n"
    "contacts:\n"
    "  - {body: motor, law: coulomb, dynamic: 0.02, static_ratio: 1.3}\n"
    "  - {between: [motor, load], law: coulomb, dynamic: 0.5, static_ratio: 1.2}\n"
    "simulation: {t_end: 1.0}\n";

static void servo_cols(stsl_member_cols *cols)
{
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load_string(SERVO, "s.yaml", NULL, NULL, 0, &cfg, &err), STSL_OK);
    stsl_member_cols_of(&cfg.system, cols);
    stsl_config_free(&cfg);
}

static void test_columns_of_a_system(void **state)
{
    (void)state;
    stsl_member_cols c;
    servo_cols(&c);
    const char *want[] = {
        "x_final.motor", "x_final.load", "stuck_fraction.contacts.0", "stuck_fraction.contacts.1",
        "v_final.motor", "v_final.load"};
    const char *units[] = {"rad", "rad", "", "", "rad/s", "rad/s"};
    assert_int_equal(c.n, 6);
    for (int k = 0; k < 6; k++) {
        assert_string_equal(c.name_ptrs[k], want[k]);
        assert_string_equal(c.units[k], units[k]);
    }
}

/* A layout as mb-interfaces section 3 has it: x, v (2 bodies), contact_mode
 * (2 contacts, integer, named values); flat columns x.motor, x.load,
 * v.motor, v.load, contact_mode.contacts.0, contact_mode.contacts.1. */
static const char *const BODIES[] = {"motor", "load"};
static const char *const CONTACTS[] = {"contacts.0", "contacts.1"};
static const char *const CMODES[] = {"STUCK", "SLIP_POS", "SLIP_NEG", "SMOOTH"};
static const stsl_column COLS[] = {{"x.motor", "rad", "angle"},
                                   {"x.load", "rad", "angle"},
                                   {"v.motor", "rad/s", "angular velocity"},
                                   {"v.load", "rad/s", "angular velocity"},
                                   {"contact_mode.contacts.0", "", "contact mode"},
                                   {"contact_mode.contacts.1", "", "contact mode"}};
static const stsl_col_group GROUPS[] = {
    {"x", "rad", "angle", 0, 2, BODIES, 0, 0, NULL},
    {"v", "rad/s", "angular velocity", 2, 2, BODIES, 0, 0, NULL},
    {"contact_mode", "", "contact mode", 4, 2, CONTACTS, 1, 4, CMODES},
};

static void feed(stsl_sink *s, double t, double xm, double xl, double vm, double vl, int c0, int c1)
{
    stsl_error err = {0};
    double row[6] = {xm, xl, vm, vl, c0, c1};
    assert_int_equal(stsl_sink_sample(s, t, 0, row, &err), STSL_OK);
}

static void test_sink_stuck_fractions_and_finals(void **state)
{
    (void)state;
    stsl_member_cols c;
    servo_cols(&c);
    stsl_layout l = {.n_cols = 6, .cols = COLS, .time_units = "s", .n_groups = 3, .groups = GROUPS};
    double values[STSL_STUDY_MAX_MEMBERS];
    stsl_member_sink ms;
    stsl_sink sink;
    stsl_error err = {0};
    stsl_member_sink_init(&ms, &c, values, NULL, &sink);
    assert_int_equal(stsl_sink_begin(&sink, &l, &err), STSL_OK);
    /* contacts.0 stuck on [0, 0.3) and [0.7, 2]; contacts.1 stuck on
     * [0.3, 0.7); each switch an event instant with its two rows. */
    feed(&sink, 0.0, 0, 0, 0, 0, 0, 1);
    feed(&sink, 0.25, 0, 0, 0, 0, 0, 1);
    feed(&sink, 0.3, 0, 0, 0, 0, 0, 1); /* before */
    feed(&sink, 0.3, 0, 0, 0, 0, 1, 0); /* after */
    feed(&sink, 0.5, 1, 2, 3, 4, 1, 0);
    feed(&sink, 0.7, 1, 2, 3, 4, 1, 0);
    feed(&sink, 0.7, 1, 2, 3, 4, 0, 2);
    feed(&sink, 2.0, -1.5, 2.5, 0.25, -0.75, 0, 2);
    stsl_stats st = {0};
    assert_int_equal(stsl_sink_end(&sink, &st, 1, "", &err), STSL_OK);
    /* 0.3 + 1.3 of 2 s, and 0.4 of 2 s: sums of sample intervals (0.25 +
     * 0.05 + 1.3, 0.2 + 0.2) rounded once each, a few ulps. */
    assert_close(values[2], 1.6 / 2.0, 1e-15);
    assert_close(values[3], 0.4 / 2.0, 1e-15);
    assert_true(values[0] == -1.5 && values[1] == 2.5);
    assert_true(values[4] == 0.25 && values[5] == -0.75);
    stsl_sink_free(&sink);

    /* A layout without v and without contact modes: those columns NaN. */
    stsl_layout bare = {
        .n_cols = 6, .cols = COLS, .time_units = "s", .n_groups = 1, .groups = GROUPS};
    stsl_member_sink_init(&ms, &c, values, NULL, &sink);
    assert_int_equal(stsl_sink_begin(&sink, &bare, &err), STSL_OK);
    feed(&sink, 0.0, 1, 2, 3, 4, 0, 0);
    feed(&sink, 1.0, 5, 6, 7, 8, 0, 0);
    assert_int_equal(stsl_sink_end(&sink, &st, 1, "", &err), STSL_OK);
    assert_true(values[0] == 5.0 && values[1] == 6.0);
    for (int k = 2; k < 6; k++)
        assert_true(isnan(values[k]));
    stsl_sink_free(&sink);
}

/* A contact with a `name:` is a member by that name in the run's layout:
 * its column is stuck_fraction.NAME, and its fraction from a real run is
 * the one the same system without names gives (names change no physics),
 * bit for bit, and not NaN (the column found its member). */
static double run_fraction(const char *yaml, int k, const char *want_name)
{
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load_string(yaml, "s.yaml", NULL, NULL, 0, &cfg, &err))
        fail_msg("%s\n%s", err.msg, yaml);
    stsl_member_cols c;
    stsl_member_cols_of(&cfg.system, &c);
    assert_string_equal(c.name_ptrs[k], want_name);
    double values[STSL_STUDY_MAX_MEMBERS];
    stsl_member_sink ms;
    stsl_sink sink;
    stsl_member_sink_init(&ms, &c, values, NULL, &sink);
    assert_int_equal(stsl_run_system(&cfg.system, &cfg.sim, &sink, NULL, &err), STSL_OK);
    stsl_sink_free(&sink);
    stsl_config_free(&cfg);
    return values[k];
}

static void test_named_contact_has_its_fraction(void **state)
{
    (void)state;
    char named[1024];
    const char *at = strstr(SERVO, "  - {between: [motor, load], law");
    snprintf(named, sizeof named, "%.*s  - {name: clutch, %s", (int)(at - SERVO), SERVO,
             at + strlen("  - {"));
    double plain = run_fraction(SERVO, 3, "stuck_fraction.contacts.1");
    double by_name = run_fraction(named, 3, "stuck_fraction.clutch");
    assert_false(isnan(plain));
    assert_true(by_name == plain);
}

static void test_study_file_has_the_member_columns(void **state)
{
    (void)state;
    stsl_member_cols c;
    servo_cols(&c);
    static const char *const KINDS[] = {"stick", "breakaway"};
    stsl_study_info in = {.base_yaml = SERVO,
                          .version = "9.9",
                          .x_units = "rad",
                          .v_units = "rad/s",
                          .energy_units = "J",
                          .time_units = "s",
                          .force_units = "N·m",
                          .n_kinds = 2,
                          .kind_names = KINDS,
                          .n_members = c.n,
                          .member_names = c.name_ptrs,
                          .member_units = c.units};
    stsl_study *s = NULL;
    stsl_error err = {0};
    assert_int_equal(stsl_study_load_string("base: {a: 1}\nvary: {contacts.0.dynamic: {linspace: "
                                            "[0.01, 0.05, 5]}}\n",
                                            "s.yaml", NULL, &s, &err),
                     STSL_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/members.h5", g_dir);
    stsl_study_h5 *w = NULL;
    assert_int_equal(stsl_study_h5_create(path, s, &in, &w, &err), STSL_OK);
    for (long i = 0; i < 5; i++) {
        stsl_study_row r;
        stsl_study_row_clear(&r);
        r.status = STSL_ROW_OK;
        for (int k = 0; k < c.n; k++)
            r.member[k] = (double)(10 * i + k);
        assert_int_equal(stsl_study_h5_append(w, &r, &err), STSL_OK);
    }
    assert_int_equal(stsl_study_h5_close(w, &err), STSL_OK);
    for (int k = 0; k < c.n; k++) {
        double *v = NULL;
        long n = 0;
        assert_int_equal(stsl_study_h5_read_column(path, c.name_ptrs[k], &v, &n, &err), STSL_OK);
        assert_int_equal(n, 5);
        for (long i = 0; i < n; i++)
            assert_true(v[i] == (double)(10 * i + k));
        free(v);
    }
    stsl_study_summary sum;
    assert_int_equal(stsl_study_h5_summarise(path, &sum, &err), STSL_OK);
    int found = 0;
    for (int j = 0; j < sum.n_cols; j++)
        if (!strcmp(sum.cols[j].name, "v_final.load")) {
            found = 1;
            assert_string_equal(sum.cols[j].units, "rad/s");
            assert_true(sum.cols[j].min == 5.0 && sum.cols[j].max == 45.0);
        }
    assert_true(found);
    stsl_study_free(s);
}

/* The keys of a system study, set on a clone of the base as each variant's
 * are (api/sweep.c configure: stsl_cfg_set, the checks of --set): indices
 * and body names; a key the base lacks names the allowed range. */
static void test_system_key_paths(void **state)
{
    (void)state;
    stsl_err e = {0};
    stsl_cfg *base = stsl_cfg_parse(SERVO, NULL, &e);
    assert_non_null(base);
    const char *keys[] = {"contacts.0.dynamic", "bodies.load.inertia", "couplings.0.stiffness",
                          "contacts.1.static_ratio"};
    const char *vals[] = {"0.03", "0.125", "1000", "1.5"};
    stsl_cfg *v = stsl_cfg_clone(base, &e);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(stsl_cfg_set(v, keys[k], vals[k], &e), STSL_RC_OK);
        char *got = stsl_cfg_get(v, keys[k], &e);
        assert_non_null(got);
        assert_true(strtod(got, NULL) == strtod(vals[k], NULL));
        stsl_free(got);
        got = stsl_cfg_get(base, keys[k], &e); /* the base is untouched */
        assert_true(strtod(got, NULL) != strtod(vals[k], NULL));
        stsl_free(got);
    }
    assert_int_equal(stsl_cfg_set(v, "contacts.2.dynamic", "0.1", &e), STSL_RC_INPUT);
    assert_string_equal(e.message, "contacts: no item '2' (expected an index in [0, 1])");
    assert_int_equal(stsl_cfg_set(v, "contacts.0.dynamic", "-1", &e), STSL_RC_INPUT);
    assert_string_equal(e.message, "contacts.0.dynamic: must be >= 0 (got -1)");
    stsl_cfg_free(v);
    stsl_cfg_free(base);
}

int main(void)
{
    tu_mkdtemp(g_dir, sizeof g_dir);
    if (!g_dir[0]) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_columns_of_a_system),
        cmocka_unit_test(test_sink_stuck_fractions_and_finals),
        cmocka_unit_test(test_named_contact_has_its_fraction),
        cmocka_unit_test(test_study_file_has_the_member_columns),
        cmocka_unit_test(test_system_key_paths),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
