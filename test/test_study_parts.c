/* test_study_parts.c - the study in parts of stickslip.h, as stickslip-mpi
 * uses it, through the public header alone: variants run by range in two
 * "processes" (two plans), their rows sent as bytes (stsl_study_rows) and
 * appended out of order of running but in variant order to one
 * stsl_study_file, give the same file as stsl_study_run_with in one call
 * (every summary column of stsl_study_read_overview equal, failures and
 * events included); a block of rows cut short or padded is refused with
 * STSL_RC_IO and leaves no rows; the counts and progress the run reports
 * are those of the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/stickslip.h"
#include "test/testutil.h"

#define JANECEK STSL_SOURCE_DIR "/examples/janecek_chirp.yaml"

static char g_dir[256];

/* Five variants, one of them failing (a negative dynamic level is not a
 * valid configuration): store: events, so rows carry their events. */
static const char *STUDY = "base: " JANECEK "\n"
                           "vary: {friction.dynamic: {values: [12, 15, -1, 18, 21]}}\n"
                           "store: events\n";

static void path_of(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

static int take_into(void *ctx, const stsl_study_row *row, stsl_err *err)
{
    return row ? stsl_study_rows_add(ctx, row, err) : STSL_RC_OK;
}

/* Run variants [first, end) of a plan of its own (another process) and
 * return their rows as bytes in *bytes (malloc'd). */
static long rows_of(const char *study, const stsl_study_opts *o, long first, long end, void **bytes)
{
    stsl_err err = {0};
    stsl_study_plan *p = stsl_study_plan_open(study, o, &err);
    assert_non_null(p);
    stsl_study_rows *rows = stsl_study_rows_new();
    assert_non_null(rows);
    assert_int_equal(stsl_study_plan_run(p, first, end, 2, NULL, take_into, rows, &err),
                     STSL_RC_OK);
    assert_int_equal(stsl_study_rows_count(rows), end - first);
    long n = 0;
    const void *b = stsl_study_rows_bytes(rows, &n);
    *bytes = malloc((size_t)n);
    memcpy(*bytes, b, (size_t)n);
    stsl_study_rows_free(rows);
    stsl_study_plan_free(p);
    return n;
}

/* The bytes as the receiving process parses them. */
static stsl_study_rows *received(const void *bytes, long n, stsl_rc expect)
{
    stsl_study_rows *rows = stsl_study_rows_new();
    void *space = stsl_study_rows_space(rows, n);
    assert_non_null(space);
    memcpy(space, bytes, (size_t)n);
    stsl_err err = {0};
    assert_int_equal(stsl_study_rows_parse(rows, &err), expect);
    return rows;
}

static int progress_calls;
static void count_progress(void *ctx, const stsl_study_stats *s)
{
    (void)ctx;
    assert_true(s->n_done <= s->n_runs);
    progress_calls++;
}

static void test_parts_equal_one_run(void **state)
{
    (void)state;
    char study[512], whole[512], parts[512];
    path_of("study.yaml", study, sizeof study);
    path_of("whole.h5", whole, sizeof whole);
    path_of("parts.h5", parts, sizeof parts);
    assert_int_equal(tu_write_file(study, STUDY), 0);
    stsl_err err = {0};
    stsl_study_stats st;
    stsl_study_opts o = {.output = whole, .jobs = 2, .progress = count_progress};
    assert_int_equal(stsl_study_run_with(study, &o, &st, &err), STSL_RC_OK);
    assert_int_equal(st.n_runs, 5);
    assert_int_equal(st.n_done, 5);
    assert_int_equal(st.n_session, 5);
    assert_int_equal(st.n_failed, 1); /* friction.dynamic = -1 */
    assert_true(progress_calls >= 1);

    /* Two "ranks", each with its plan: variants 0..2 and 3..4, appended by a
     * third in variant order. */
    stsl_study_opts po = {.output = parts, .jobs = 1};
    void *head_rows, *tail_rows;
    long n_head = rows_of(study, &po, 0, 3, &head_rows);
    long n_tail = rows_of(study, &po, 3, 5, &tail_rows);
    stsl_study_plan *p = stsl_study_plan_open(study, &po, &err);
    assert_non_null(p);
    assert_int_equal(stsl_study_plan_n_variants(p), 5);
    assert_int_equal(stsl_study_plan_store_full(p), 0);
    stsl_study_file *w = stsl_study_file_open(p, &po, &err);
    assert_non_null(w);
    assert_int_equal(stsl_study_file_end(w), 5); /* not held */
    stsl_study_rows *a = received(head_rows, n_head, STSL_RC_OK);
    stsl_study_rows *b = received(tail_rows, n_tail, STSL_RC_OK);
    assert_int_equal(stsl_study_rows_count(a), 3);
    assert_true(stsl_study_rows_seconds(a) > 0.0);
    assert_int_equal(stsl_study_file_append(w, a, &err), STSL_RC_OK);
    assert_int_equal(stsl_study_file_n_done(w), 3);
    assert_int_equal(stsl_study_file_append(w, b, &err), STSL_RC_OK);
    assert_int_equal(stsl_study_file_n_done(w), 5);
    assert_int_equal(stsl_study_file_n_failed(w), 1);
    assert_int_equal(stsl_study_file_close(w, &err), STSL_RC_OK);

    /* A block cut short, or with a byte too many, is no block of rows. */
    stsl_study_rows *cut = received(head_rows, n_head - 1, STSL_RC_IO);
    assert_int_equal(stsl_study_rows_count(cut), 0);
    void *longer = calloc(1, (size_t)n_head + 8);
    memcpy(longer, head_rows, (size_t)n_head);
    stsl_study_rows *pad = received(longer, n_head + 8, STSL_RC_IO);
    assert_int_equal(stsl_study_rows_count(pad), 0);
    stsl_study_rows_free(cut), stsl_study_rows_free(pad), free(longer);
    stsl_study_rows_free(a), stsl_study_rows_free(b);
    free(head_rows), free(tail_rows);
    stsl_study_plan_free(p);

    /* Both files: every column equal (the wall time aside), the failure
     * and its message too. */
    stsl_study_overview *x = malloc(sizeof *x), *y = malloc(sizeof *y);
    assert_int_equal(stsl_study_read_overview(whole, x, &err), STSL_RC_OK);
    assert_int_equal(stsl_study_read_overview(parts, y, &err), STSL_RC_OK);
    assert_int_equal(x->complete, 1);
    assert_int_equal(y->complete, 1);
    assert_int_equal(y->n_done, 5);
    assert_int_equal(y->n_failed, 1);
    assert_int_equal(x->n_cols, y->n_cols);
    for (int j = 0; j < x->n_cols; j++) {
        assert_string_equal(x->cols[j].name, y->cols[j].name);
        if (strstr(x->cols[j].name, "wall")) continue;
        assert_true(x->cols[j].min == y->cols[j].min ||
                    (isnan(x->cols[j].min) && isnan(y->cols[j].min)));
        assert_true(x->cols[j].max == y->cols[j].max ||
                    (isnan(x->cols[j].max) && isnan(y->cols[j].max)));
    }
    assert_int_equal(y->n_first_failures, 1);
    assert_int_equal(y->failure_index[0], 2);
    assert_string_equal(x->failure_message[0], y->failure_message[0]);
    free(x), free(y);
}

int main(void)
{
    tu_mkdtemp(g_dir, sizeof g_dir);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_parts_equal_one_run)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
