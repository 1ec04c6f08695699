/* test_run_record.c - a run recorded (io/result/run_record) and replayed into a
 * memory sink equals the same run fed to a memory sink directly, bit for
 * bit: every sample, every event with both sides, the statistics, the
 * end state and message (a complete run and one stopped by max_events).
 * A block cut short, with bytes after its end, or missing is refused with
 * STSL_EINPUT; a run that never ended its sink has nothing to take. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/run_api.h"
#include "io/result/mem_sink.h"
#include "io/result/run_record.h"
#include "test/testutil.h"

#define JANECEK STSL_SOURCE_DIR "/examples/janecek_chirp.yaml"

static void same_bits(const void *a, const void *b, size_t n, const char *what)
{
    if (memcmp(a, b, n) != 0) fail_msg("%s differs", what);
}

static void assert_same_result(const stsl_mem_result *a, const stsl_mem_result *b)
{
    assert_int_equal(a->n_cols, b->n_cols);
    assert_int_equal(a->n_samples, b->n_samples);
    assert_int_equal(a->n_events, b->n_events);
    size_t n = (size_t)a->n_samples;
    same_bits(a->t, b->t, n * sizeof *a->t, "t");
    same_bits(a->mode, b->mode, n * sizeof *a->mode, "mode");
    same_bits(a->cols, b->cols, n * (size_t)a->n_cols * sizeof *a->cols, "columns");
    /* Each event's fields and its values before and after (kept apart from
     * the event since a system's rows are longer than the element's). */
    for (long i = 0; i < a->n_events; i++) {
        const stsl_mem_event *x = &a->events[i], *y = &b->events[i];
        same_bits(&x->t, &y->t, sizeof x->t, "event time");
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->mode_before, y->mode_before);
        assert_int_equal(x->mode_after, y->mode_after);
        assert_int_equal(x->subject, y->subject);
        same_bits(x->before, y->before, (size_t)a->n_cols * sizeof *x->before, "event before");
        same_bits(x->after, y->after, (size_t)a->n_cols * sizeof *x->after, "event after");
    }
    same_bits(&a->stats, &b->stats, sizeof a->stats, "stats");
    assert_int_equal(a->ended, b->ended);
    assert_int_equal(a->complete, b->complete);
    assert_string_equal(a->message, b->message);
}

/* Run the Janecek example (with `set`) into a memory sink and a recorder;
 * replay the record into a second memory sink; compare.  The record is
 * returned for the error-path tests. */
static void record_and_replay(const char *set, int want_complete, void **bytes, size_t *size)
{
    stsl_err e = {0};
    stsl_cfg *cfg = stsl_cfg_load(JANECEK, &e);
    assert_non_null(cfg);
    if (set) {
        const char *sets[1] = {set};
        assert_int_equal(stsl_cfg_set_all(cfg, sets, 1, &e), STSL_RC_OK);
    }
    stsl_sink direct = {0}, rec = {0}, both = {0}, replayed = {0};
    stsl_error err = {0};
    assert_int_equal(stsl_mem_sink_create(&direct, &err), STSL_OK);
    assert_int_equal(stsl_record_sink_create(&rec, &err), STSL_OK);
    assert_int_equal(stsl_sink_tee(direct, rec, &both, &err), STSL_OK);
    stsl_summary sum;
    int rc = stsl_api_run_into(cfg, &both, &sum, &err);
    assert_int_equal(rc == STSL_OK, want_complete);
    stsl_record_take(&rec, bytes, size);
    assert_non_null(*bytes);
    assert_int_equal(stsl_mem_sink_create(&replayed, &err), STSL_OK);
    assert_int_equal(stsl_record_replay(*bytes, *size, &replayed, &err), STSL_OK);
    const stsl_mem_result *a = stsl_mem_sink_result(&direct), *b = stsl_mem_sink_result(&replayed);
    assert_int_equal(a->complete, want_complete);
    assert_true(a->n_samples > 1000 && a->n_events >= 2);
    assert_same_result(a, b);
    stsl_sink_free(&replayed);
    stsl_sink_free(&both);
    stsl_cfg_free(cfg);
}

static void test_replay_complete(void **state)
{
    (void)state;
    void *bytes = NULL;
    size_t size = 0;
    record_and_replay(NULL, 1, &bytes, &size);
    free(bytes);
}

static void test_replay_failed(void **state)
{
    (void)state;
    void *bytes = NULL;
    size_t size = 0;
    record_and_replay("simulation.max_events=2", 0, &bytes, &size);
    free(bytes);
}

/* Every cut of a block is refused (and never read past its end: the asan
 * pass checks that), as are trailing bytes and no block. */
static void test_damaged_blocks(void **state)
{
    (void)state;
    void *bytes = NULL;
    size_t size = 0;
    record_and_replay(NULL, 1, &bytes, &size);
    stsl_error err = {0};
    size_t cuts[] = {0, 1, 5, 40, size / 2, size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        stsl_sink m = {0};
        void *copy = malloc(cuts[i] + 1); /* exactly the cut: asan sees any overread */
        memcpy(copy, bytes, cuts[i]);
        assert_int_equal(stsl_mem_sink_create(&m, &err), STSL_OK);
        assert_int_equal(stsl_record_replay(copy, cuts[i], &m, &err), STSL_EINPUT);
        assert_non_null(strstr(err.msg, "run record: damaged or cut short"));
        stsl_sink_free(&m);
        free(copy);
    }
    unsigned char *longer = malloc(size + 1);
    memcpy(longer, bytes, size);
    longer[size] = 'S';
    stsl_sink m = {0};
    assert_int_equal(stsl_mem_sink_create(&m, &err), STSL_OK);
    assert_int_equal(stsl_record_replay(longer, size + 1, &m, &err), STSL_EINPUT);
    stsl_sink_free(&m);
    assert_int_equal(stsl_mem_sink_create(&m, &err), STSL_OK);
    assert_int_equal(stsl_record_replay(NULL, 0, &m, &err), STSL_EINPUT);
    stsl_sink_free(&m);
    free(longer);
    free(bytes);
}

/* A record whose run never ended its sink has no whole result. */
static void test_unended(void **state)
{
    (void)state;
    stsl_sink rec = {0};
    stsl_error err = {0};
    static const stsl_column cols[1] = {{"x", "m", "position"}};
    static const char *const modes[1] = {"STUCK"}, *const kinds[1] = {"stick"};
    const stsl_layout l = {1, cols, "s", 1, modes, 1, kinds, 0, NULL, 0, NULL};
    double x = 1.0;
    assert_int_equal(stsl_record_sink_create(&rec, &err), STSL_OK);
    assert_int_equal(stsl_sink_begin(&rec, &l, &err), STSL_OK);
    assert_int_equal(stsl_sink_sample(&rec, 0.0, 0, &x, &err), STSL_OK);
    void *bytes = (void *)1;
    size_t size = 1;
    stsl_record_take(&rec, &bytes, &size);
    assert_null(bytes);
    assert_int_equal(size, 0);
    stsl_sink_free(&rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_complete),
        cmocka_unit_test(test_replay_failed),
        cmocka_unit_test(test_damaged_blocks),
        cmocka_unit_test(test_unended),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
