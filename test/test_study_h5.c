/* test_study_h5.c - the study file: rows written in order and read back
 * exactly, parameters for every variant, the counts and `complete`; a
 * process killed (SIGKILL) after a flush leaves exactly the flushed rows;
 * resuming continues from there and refuses another study or base. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "io/study/study_h5.h"
#include "test/testutil.h"

static char g_dir[256];

static const char *const KINDS[] = {"stick", "breakaway", "reversal"};

static const char *STUDY = "base: {element: {mass: 1}, friction: {dynamic: 2}}\n"
                           "vary:\n"
                           "  friction.dynamic: {linspace: [1, 2, 50]}\n"
                           "  element.mass: {values: [1, 3, 5]}\n";

static const char *BIG = "base: {element: {mass: 1}, friction: {dynamic: 2}}\n"
                         "vary:\n"
                         "  friction.dynamic: {linspace: [1, 2, 1000]}\n"
                         "  element.mass: {values: [1, 3, 5]}\n"
                         "store: events\n";

static stsl_study_info info(const char *base)
{
    static const char *const MODES[] = {"STUCK", "SLIP_POS"};
    stsl_study_info i = {.base_yaml = base,
                         .version = "9.9",
                         .x_units = "m",
                         .v_units = "m/s",
                         .energy_units = "J",
                         .time_units = "s",
                         .force_units = "N",
                         .n_kinds = 3,
                         .kind_names = KINDS,
                         .n_modes = 2,
                         .mode_names = MODES};
    return i;
}

static stsl_study *study(const char *text)
{
    stsl_study *s = NULL;
    stsl_error err = {0};
    assert_int_equal(stsl_study_load_string(text, "s.yaml", NULL, &s, &err), STSL_OK);
    return s;
}

/* A row whose every value is a function of its index. */
static void fake_row(long i, stsl_study_row *r)
{
    stsl_study_row_clear(r);
    r->status = i % 7 == 3 ? STSL_ROW_INVALID : STSL_ROW_OK;
    if (r->status != STSL_ROW_OK) {
        snprintf(r->message, sizeof r->message, "variant %ld: friction.dynamic: bad", i);
        return;
    }
    r->t_reached = 1.0 + (double)i;
    for (int k = 0; k < 3; k++)
        r->events[k] = i * 3 + k;
    r->first_breakaway = i % 2 ? NAN : 0.1 * (double)i;
    r->last_stick = 1.0 / (double)(i + 1);
    r->stuck_fraction = (double)i / 200.0;
    r->stop_contact_time = 0.0;
    r->max_abs_x = 1e-3 * (double)i;
    r->max_abs_v = -0.0;
    r->x_final = -1.0 / 3.0 * (double)i;
    r->v_final = 1e-300 * (double)i;
    r->dissipated_energy = 2.0 * (double)i;
    r->steps = 100 + i;
    r->rhs_evals = 200 + i;
    r->wall_seconds = 1e-4;
}

static void path_of(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

/* Variant i has i % 3 events, kind k at t = i + k / 10. */
static void write_rows(stsl_study_h5 *w, long from, long to)
{
    stsl_error err = {0};
    stsl_study_row r;
    stsl_study_event ev[2];
    for (long i = from; i < to; i++) {
        fake_row(i, &r);
        r.n_ev = i % 3;
        r.ev = ev;
        for (int k = 0; k < r.n_ev; k++)
            ev[k] = (stsl_study_event){(double)i + 0.1 * k, k, 0, 1, 1, 2, 3, 4, 5};
        assert_int_equal(stsl_study_h5_append(w, &r, &err), STSL_OK);
    }
}

/* /study/events: exactly the events of variants [0, n), in order. */
static void check_events(const char *path, long n)
{
    typedef struct {
        int64_t variant;
        double t;
    } vt;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "study/events", H5P_DEFAULT);
    hid_t m = H5Tcreate(H5T_COMPOUND, sizeof(vt));
    H5Tinsert(m, "variant", offsetof(vt, variant), H5T_NATIVE_INT64);
    H5Tinsert(m, "t", offsetof(vt, t), H5T_NATIVE_DOUBLE);
    hid_t sp = H5Dget_space(d);
    long rows = (long)H5Sget_simple_extent_npoints(sp), want = 0;
    for (long i = 0; i < n; i++)
        want += i % 3;
    assert_int_equal(rows, want);
    vt *buf = malloc((size_t)(rows ? rows : 1) * sizeof *buf);
    assert_true(H5Dread(d, m, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    long at = 0;
    for (long i = 0; i < n; i++)
        for (int k = 0; k < i % 3; k++, at++) {
            assert_int_equal(buf[at].variant, i);
            assert_true(buf[at].t == (double)i + 0.1 * k);
        }
    free(buf);
    H5Sclose(sp);
    H5Tclose(m);
    H5Dclose(d);
    H5Fclose(f);
}

static void check_rows(const char *path, long n_expected)
{
    stsl_error err = {0};
    double *x = NULL, *st = NULL, *ev = NULL, *fb = NULL, *steps = NULL;
    long n = 0;
    assert_int_equal(stsl_study_h5_read_column(path, "x_final", &x, &n, &err), STSL_OK);
    assert_int_equal(n, n_expected);
    assert_int_equal(stsl_study_h5_read_column(path, "status", &st, &n, &err), STSL_OK);
    assert_int_equal(stsl_study_h5_read_column(path, "events_reversal", &ev, &n, &err), STSL_OK);
    assert_int_equal(stsl_study_h5_read_column(path, "first_breakaway", &fb, &n, &err), STSL_OK);
    assert_int_equal(stsl_study_h5_read_column(path, "steps", &steps, &n, &err), STSL_OK);
    for (long i = 0; i < n; i++) {
        stsl_study_row r;
        fake_row(i, &r);
        assert_int_equal((int)st[i], r.status);
        /* Bit for bit: the file stores what the row held (NaN as NaN). */
        assert_memory_equal(&x[i], &r.x_final, sizeof(double));
        assert_memory_equal(&fb[i], &r.first_breakaway, sizeof(double));
        assert_true(ev[i] == (double)r.events[2]);
        assert_true(steps[i] == (double)r.steps);
        if (r.status != STSL_ROW_OK) {
            char *m = NULL;
            assert_int_equal(stsl_study_h5_read_message(path, i, &m, &err), STSL_OK);
            assert_string_equal(m, r.message);
            free(m);
        }
    }
    free(x), free(st), free(ev), free(fb), free(steps);
}

static void test_write_read(void **state)
{
    (void)state;
    char path[512];
    path_of("sub/dir/a.h5", path, sizeof path);
    stsl_study *s = study(STUDY);
    stsl_study_info in = info("element: {mass: 1}\n");
    stsl_study_h5 *w = NULL;
    stsl_error err = {0};
    assert_int_equal(stsl_study_h5_create(path, s, &in, &w, &err), STSL_OK);
    /* 150 rows cross no block boundary; 1500 do: use the latter. */
    stsl_study_free(s);
    s = study("base: {a: 1}\nvary: {friction.dynamic: {linspace: [1, 2, 1500]}}\n");
    stsl_study_h5_close(w, &err);
    assert_true(stsl_study_h5_is_study(path)); /* closed: a file being written is locked */
    assert_int_equal(stsl_study_h5_create(path, s, &in, &w, &err), STSL_OK);
    write_rows(w, 0, 1500);
    assert_int_equal(stsl_study_h5_n_done(w), 1500);
    assert_int_equal(stsl_study_h5_n_failed(w), 1500 / 7 + (1500 % 7 > 3));
    assert_int_equal(stsl_study_h5_close(w, &err), STSL_OK);
    check_rows(path, 1500);

    stsl_study_summary sum;
    assert_int_equal(stsl_study_h5_summarise(path, &sum, &err), STSL_OK);
    assert_int_equal(sum.complete, 1);
    assert_int_equal(sum.n_runs, 1500);
    assert_int_equal(sum.n_done, 1500);
    assert_int_equal(sum.n_failed, 1500 / 7 + (1500 % 7 > 3));
    assert_string_equal(sum.version, "9.9");
    assert_string_equal(sum.store, "summary");
    assert_string_equal(sum.combine, "grid");
    assert_int_equal(sum.n_keys, 1);
    assert_string_equal(sum.keys[0], "friction.dynamic");
    assert_true(sum.key_min[0] == 1.0 && sum.key_max[0] == 2.0);
    assert_int_equal(sum.n_first_failures, 5);
    assert_int_equal(sum.failure_index[0], 3);
    assert_int_equal(sum.failure_index[4], 31);
    assert_string_equal(sum.failure_message[1], "variant 10: friction.dynamic: bad");
    /* Columns after status and message, in file order, with units. */
    assert_string_equal(sum.cols[0].name, "t_reached");
    assert_string_equal(sum.cols[0].units, "s");
    assert_string_equal(sum.cols[1].name, "events_stick");
    int ix = 0;
    while (strcmp(sum.cols[ix].name, "max_abs_x"))
        ix++;
    assert_string_equal(sum.cols[ix].units, "m");
    /* max over the ok rows: 1499 is ok (1499 % 7 = 1). */
    assert_true(sum.cols[ix].min == 0.0 && sum.cols[ix].max == 1e-3 * 1499.0);
    stsl_study_free(s);
}

/* A writer killed after a flush and two blocks of unflushed rows (written
 * to the file's raw data, not declared done): the file holds exactly the
 * flushed rows and resumes from there to a complete file equal to an
 * uninterrupted one. */
static void test_kill_and_resume(void **state)
{
    (void)state;
    char path[512];
    path_of("k.h5", path, sizeof path);
    stsl_study *s = study(BIG);
    stsl_study_info in = info("element: {mass: 1}\n");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        stsl_study_h5 *w = NULL;
        stsl_error err = {0};
        if (stsl_study_h5_create(path, s, &in, &w, &err)) _exit(10);
        write_rows(w, 0, 40);
        if (stsl_study_h5_flush(w, &err)) _exit(11);
        write_rows(w, 40, 2100);
        raise(SIGKILL);
        _exit(12);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    stsl_study_summary sum;
    stsl_error err = {0};
    assert_int_equal(stsl_study_h5_summarise(path, &sum, &err), STSL_OK);
    assert_int_equal(sum.complete, 0);
    assert_int_equal(sum.n_done, 40);
    check_rows(path, 40);
    /* The events of the unflushed rows are in the file but not counted. */

    /* Another study text or base: refused, file untouched. */
    stsl_study *other = study("base: {element: {mass: 1}, friction: {dynamic: 2}}\n"
                              "vary: {friction.dynamic: {linspace: [1, 2, 150]}}\n");
    stsl_study_h5 *w = NULL;
    assert_int_equal(stsl_study_h5_resume(path, other, &in, &w, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "was started from another study file"));
    stsl_study_info in2 = info("element: {mass: 2}\n");
    assert_int_equal(stsl_study_h5_resume(path, s, &in2, &w, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "another base configuration"));
    stsl_study_free(other);

    assert_int_equal(stsl_study_h5_resume(path, s, &in, &w, &err), STSL_OK);
    assert_int_equal(stsl_study_h5_n_done(w), 40);
    write_rows(w, 40, 3000);
    assert_int_equal(stsl_study_h5_close(w, &err), STSL_OK);
    assert_int_equal(stsl_study_h5_summarise(path, &sum, &err), STSL_OK);
    assert_int_equal(sum.complete, 1);
    assert_int_equal(sum.n_done, 3000);
    check_rows(path, 3000);
    check_events(path, 3000);
    stsl_study_free(s);
}

static void test_not_a_study(void **state)
{
    (void)state;
    char path[512];
    path_of("plain.txt", path, sizeof path);
    assert_int_equal(tu_write_file(path, "hello\n"), 0);
    stsl_study_summary sum;
    stsl_error err = {0};
    assert_false(stsl_study_h5_is_study(path));
    assert_int_equal(stsl_study_h5_summarise(path, &sum, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "not a stickslip study file (cannot open it as HDF5)"));
    stsl_study *s = study(STUDY);
    stsl_study_info in = info("x");
    stsl_study_h5 *w = NULL;
    assert_int_equal(stsl_study_h5_resume(path, s, &in, &w, &err), STSL_EINPUT);
    assert_null(w);
    assert_non_null(strstr(err.msg, "cannot open it to resume"));
    stsl_study_free(s);
}

int main(void)
{
    tu_mkdtemp(g_dir, sizeof g_dir);
    if (!g_dir[0]) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_read),
        cmocka_unit_test(test_kill_and_resume),
        cmocka_unit_test(test_not_a_study),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
