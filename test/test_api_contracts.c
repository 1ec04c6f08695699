/* test_api_contracts.c - promises of stickslip.h checked function by
 * function.  A NULL where an object or path belongs is bad input: each
 * function returns STSL_RC_INPUT (or NULL with it) and a message that
 * starts with its own name, as the configuration and run functions do,
 * instead of dereferencing it (the study-in-parts and text-output
 * functions did). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "include/stickslip.h"
#include "test/testutil.h"

/* The error `e` is bad input from function `fn`: its message "fn: ...". */
static void assert_input_from(stsl_rc rc, const stsl_err *e, const char *fn)
{
    assert_int_equal(rc, STSL_RC_INPUT);
    assert_int_equal(e->code, STSL_RC_INPUT);
    size_t n = strlen(fn);
    if (strncmp(e->message, fn, n) || e->message[n] != ':')
        fail_msg("\"%s\" does not name %s", e->message, fn);
}

static void test_study_parts_refuse_null(void **state)
{
    (void)state;
    stsl_err e;
    stsl_study_opts o = {.output = "never.h5", .jobs = 1};
    stsl_study_stats st;

    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_run_with("s.yaml", &o, NULL, &e), &e, "stsl_study_run_with");
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_run_with(NULL, &o, &st, &e), &e, "stsl_study_run_with");

    memset(&e, 0, sizeof e);
    assert_null(stsl_study_plan_open("s.yaml", NULL, &e));
    assert_input_from(e.code, &e, "stsl_study_plan_open");
    memset(&e, 0, sizeof e);
    assert_null(stsl_study_plan_open(NULL, &o, &e));
    assert_input_from(e.code, &e, "stsl_study_plan_open");

    stsl_study_rows *rows = stsl_study_rows_new();
    assert_non_null(rows);
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_rows_add(rows, NULL, &e), &e, "stsl_study_rows_add");
    assert_int_equal(stsl_study_rows_count(rows), 0);
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_rows_parse(NULL, &e), &e, "stsl_study_rows_parse");

    memset(&e, 0, sizeof e);
    assert_null(stsl_study_file_open(NULL, &o, &e));
    assert_input_from(e.code, &e, "stsl_study_file_open");
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_file_append(NULL, rows, &e), &e, "stsl_study_file_append");
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_file_flush(NULL, &e), &e, "stsl_study_file_flush");
    stsl_study_rows_free(rows);
}

/* The take function of the NULL-plan call below: never reached. */
static int take_nothing(void *ctx, const stsl_study_row *row, stsl_err *err)
{
    (void)ctx, (void)row, (void)err;
    return 1;
}

/* The study accessors answer NULL as the result accessors do (0, NULL;
 * they dereferenced it), and the calls with an error report name
 * themselves. */
static void test_study_accessors_take_null(void **state)
{
    (void)state;
    stsl_err e;
    long size = -1;
    assert_int_equal(stsl_result_n_samples(NULL), 0); /* the model they follow */
    assert_int_equal(stsl_study_plan_n_variants(NULL), 0);
    assert_int_equal(stsl_study_plan_store_full(NULL), 0);
    stsl_study_rows_clear(NULL);
    assert_int_equal(stsl_study_rows_count(NULL), 0);
    assert_true(stsl_study_rows_seconds(NULL) == 0.0);
    assert_null(stsl_study_rows_bytes(NULL, &size));
    assert_int_equal(size, 0);
    assert_null(stsl_study_rows_bytes(NULL, NULL));
    assert_null(stsl_study_rows_space(NULL, 16));
    assert_int_equal(stsl_study_file_n_done(NULL), 0);
    assert_int_equal(stsl_study_file_n_failed(NULL), 0);
    assert_int_equal(stsl_study_file_end(NULL), 0);
    stsl_study_plan_free(NULL);
    stsl_study_rows_free(NULL);
    assert_int_equal(stsl_study_file_close(NULL, NULL), STSL_RC_OK);
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_file_hold(NULL, &e), &e, "stsl_study_file_hold");
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_plan_run(NULL, 0, 1, 1, NULL, take_nothing, NULL, &e), &e,
                      "stsl_study_plan_run");
}

/* The readers named "(null)" as the file ("(null): not a stickslip study
 * file"): the message must name the function and the argument instead. */
static void test_study_readers_name_themselves(void **state)
{
    (void)state;
    stsl_err e;
    stsl_study_overview *ov = test_malloc(sizeof *ov);
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_read_overview(NULL, ov, &e), &e, "stsl_study_read_overview");
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_study_write_csv(NULL, "x.csv", &e), &e, "stsl_study_write_csv");
    test_free(ov);
}

static void test_text_output_refuses_null(void **state)
{
    (void)state;
    stsl_err e;
    memset(&e, 0, sizeof e);
    assert_null(stsl_text_open(NULL, "the curve table", NULL, &e));
    assert_input_from(e.code, &e, "stsl_text_open");
    memset(&e, 0, sizeof e);
    assert_input_from(stsl_text_commit(NULL, &e), &e, "stsl_text_commit");
    stsl_text_discard(NULL); /* NULL-safe, as the header says */
}

/* stsl_compare_files_run: *text and *warnings are "NULL when there is
 * none"; a reference that cannot be read prints nothing and warns of
 * nothing (it gave two empty strings). */
static void test_compare_files_nothing_is_null(void **state)
{
    (void)state;
    stsl_err e = {0};
    char *text = NULL, *warn = NULL;
    stsl_compare_files o = {.reference = "no-such-reference.h5",
                            .candidate = "no-such-candidate.csv",
                            .stuck_velocity = -1,
                            .event_window = -1};
    assert_int_equal(stsl_compare_files_run(&o, &text, &warn, &e), STSL_RC_INPUT);
    assert_non_null(strstr(e.message, "no-such-reference.h5"));
    assert_null(text);
    assert_null(warn);
}

/* stsl_fmu_export follows the output rule of every output: never over
 * the configuration file it is made from nor one of its table files
 * (STSL_RC_INPUT, the file's bytes unchanged); it replaced either with
 * the FMU's archive. */
static void test_fmu_never_over_its_inputs(void **state)
{
    (void)state;
    static const char yaml[] = "element: {mass: 1}\nfriction: {dynamic: 10}\n"
                               "inputs: {active_force: {type: table, file: force.csv}}\n"
                               "simulation: {t_end: 1}\n";
    static const char table[] = "time,force\n0,0\n1,30\n";
    char dir[256], conf[300], tab[300], *text;
    tu_mkdtemp(dir, sizeof dir);
    snprintf(conf, sizeof conf, "%s/c.yaml", dir);
    snprintf(tab, sizeof tab, "%s/force.csv", dir);
    assert_int_equal(tu_write_file(conf, yaml), 0);
    assert_int_equal(tu_write_file(tab, table), 0);
    stsl_err e = {0};
    stsl_cfg *cfg = stsl_cfg_load(conf, &e);
    assert_non_null(cfg);
    const char *outs[2] = {conf, tab};
    for (int i = 0; i < 2; i++) {
        memset(&e, 0, sizeof e);
        assert_int_equal(stsl_fmu_export(cfg, outs[i], NULL, NULL, &e), STSL_RC_INPUT);
        assert_non_null(strstr(e.message, "it would be overwritten"));
    }
    assert_non_null(text = tu_slurp(conf));
    assert_string_equal(text, yaml);
    free(text);
    assert_non_null(text = tu_slurp(tab));
    assert_string_equal(text, table);
    free(text);
    stsl_cfg_free(cfg);
    assert_int_equal(tu_rm_tree(dir), 0);
}

/* stsl_cfg_write writes a configuration back over its own file, but
 * never over a table file it reads nor over a result (it replaced either
 * with YAML): STSL_RC_INPUT, the file's bytes unchanged. */
static void test_cfg_write_back_but_never_over_a_result(void **state)
{
    (void)state;
    static const char yaml[] = "element: {mass: 1}\nfriction: {dynamic: 10}\n"
                               "inputs: {active_force: {type: table, file: force.txt}}\n"
                               "simulation: {t_end: 1}\n";
    static const char table[] = "time,force\n0,0\n1,30\n";
    char dir[256], conf[300], tab[300], res[2][300], *text;
    tu_mkdtemp(dir, sizeof dir);
    snprintf(conf, sizeof conf, "%s/c.yaml", dir);
    snprintf(tab, sizeof tab, "%s/force.txt", dir);
    snprintf(res[0], sizeof res[0], "%s/r.h5", dir);
    snprintf(res[1], sizeof res[1], "%s/r.mat", dir);
    assert_int_equal(tu_write_file(conf, yaml), 0);
    assert_int_equal(tu_write_file(tab, table), 0);
    stsl_err e = {0};
    stsl_cfg *cfg = stsl_cfg_load(conf, &e);
    assert_non_null(cfg);
    for (int i = 0; i < 2; i++)
        assert_int_equal(stsl_run(cfg, STSL_OUTPUT_AUTO, res[i], NULL, &e), STSL_RC_OK);
    char *before[2] = {tu_slurp(res[0]), tu_slurp(res[1])};
    memset(&e, 0, sizeof e);
    assert_int_equal(stsl_cfg_write(cfg, tab, &e), STSL_RC_INPUT);
    assert_non_null(strstr(e.message, "it would be overwritten"));
    for (int i = 0; i < 2; i++) {
        memset(&e, 0, sizeof e);
        assert_int_equal(stsl_cfg_write(cfg, res[i], &e), STSL_RC_INPUT);
        assert_non_null(strstr(e.message, "the configuration is written as YAML"));
        assert_non_null(text = tu_slurp(res[i]));
        assert_memory_equal(text, before[i], 64); /* the file's header, untouched */
        free(text);
        free(before[i]);
    }
    assert_non_null(text = tu_slurp(tab));
    assert_string_equal(text, table);
    free(text);
    /* Written back: the file is now the effective configuration. */
    assert_int_equal(stsl_cfg_set(cfg, "element.mass", "2", &e), STSL_RC_OK);
    assert_int_equal(stsl_cfg_write(cfg, conf, &e), STSL_RC_OK);
    char *want = stsl_cfg_to_yaml(cfg, &e);
    assert_non_null(text = tu_slurp(conf));
    assert_string_equal(text, want);
    free(text);
    stsl_free(want);
    stsl_cfg_free(cfg);
    assert_int_equal(tu_rm_tree(dir), 0);
}

/* stsl_study_write_csv never writes its CSV over the study file it reads
 * (the output rule, as for the command's --csv): it replaced the study
 * with its own export. */
static void test_study_csv_never_over_the_study(void **state)
{
    (void)state;
    char dir[256], study[300], out[300];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(study, sizeof study, "%s/s.yaml", dir);
    snprintf(out, sizeof out, "%s/s.h5", dir);
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "base: %s/examples/belt_stick_slip.yaml\n"
             "vary:\n  friction.static_ratio: {linspace: [1.1, 1.5, 2]}\n",
             STSL_SOURCE_DIR);
    assert_int_equal(tu_write_file(study, yaml), 0);
    stsl_err e = {0};
    long n = 0;
    if (stsl_study_run(study, out, 1, 0, NULL, NULL, NULL, &n, &e)) fail_msg("%s", e.message);
    assert_int_equal(n, 2);
    memset(&e, 0, sizeof e);
    assert_int_equal(stsl_study_write_csv(out, out, &e), STSL_RC_INPUT);
    assert_non_null(strstr(e.message, "it would be overwritten"));
    assert_int_equal(stsl_is_study_file(out), 1);
    assert_int_equal(tu_rm_tree(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_study_parts_refuse_null),
        cmocka_unit_test(test_study_accessors_take_null),
        cmocka_unit_test(test_study_readers_name_themselves),
        cmocka_unit_test(test_text_output_refuses_null),
        cmocka_unit_test(test_compare_files_nothing_is_null),
        cmocka_unit_test(test_fmu_never_over_its_inputs),
        cmocka_unit_test(test_study_csv_never_over_the_study),
        cmocka_unit_test(test_cfg_write_back_but_never_over_a_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
