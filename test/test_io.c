/* test_io.c - the result sinks (HDF5, CSV, memory, tee) and the HDF5 reader. */
#include <malloc.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "io/result/csv_sink.h"
#include "io/result/h5_read.h"
#include "io/result/h5_sink.h"
#include "io/result/mem_sink.h"
#include "test/testutil.h"

static const stsl_column cols[] = {
    {"x", "m", NULL}, {"v", "m/s", NULL}, {"friction", "N", NULL}, {"net_force", "N", NULL}};
static const char *const modes[] = {"STUCK", "SLIP_POS", "SLIP_NEG"};
static const char *const kinds[] = {"stick", "breakaway", "reversal"};
static const stsl_layout layout = {4, cols, "s", 3, modes, 3, kinds, 0, NULL, 0, NULL};

static const char *config_text = "element:\n  mass: 100  # kg\nsimulation:\n  t_end: 10\n";

/* The known run: sample i at t = i/1000 has x = sin t, v = cos t,
 * friction = t^2, net_force = -t, mode = i % 3. */
static double sample_t(long i)
{
    return (double)i * 1e-3;
}
static void sample_cols(long i, double *c)
{
    double t = sample_t(i);
    c[0] = sin(t);
    c[1] = cos(t);
    c[2] = t * t;
    c[3] = -t;
}

/* Event k at t = 0.5 (k+1), kind k % 3, modes k % 3 -> (k+1) % 3;
 * after = before + 100 so that before/after are told apart. */
static void event_vals(int k, double *before, double *after)
{
    for (int c = 0; c < 4; c++) {
        before[c] = 10.0 * k + c + 0.25;
        after[c] = before[c] + 100.0;
    }
}

static void write_run(stsl_sink *s, long n, int n_events)
{
    stsl_error err;
    double c[4], before[4], after[4];
    assert_int_equal(stsl_sink_begin(s, &layout, &err), STSL_OK);
    int k = 0;
    for (long i = 0; i < n; i++) {
        sample_cols(i, c);
        assert_int_equal(stsl_sink_sample(s, sample_t(i), (int)(i % 3), c, &err), STSL_OK);
        if (k < n_events && sample_t(i) >= 0.5 * (k + 1)) {
            event_vals(k, before, after);
            stsl_event_rec ev = {0.5 * (k + 1), k % 3, k % 3, (k + 1) % 3, before, after, 0};
            assert_int_equal(stsl_sink_event(s, &ev, &err), STSL_OK);
            k++;
        }
    }
    assert_int_equal(k, n_events);
}

static stsl_stats known_stats(void)
{
    stsl_stats st = {0};
    st.steps = 1234;
    st.rhs_evals = 5678;
    st.guard_evals = 91011;
    st.events = 5;
    st.segments = 6;
    st.wall_seconds = 0.125;
    st.n_modes = 3;
    st.mode_time[0] = 1.5;
    st.mode_time[1] = 2.25;
    st.mode_time[2] = 6.25;
    return st;
}

static void paths(char *dir, size_t dn, char *path, char *tmp, size_t pn)
{
    tu_mkdtemp(dir, dn);
    assert_true(dir[0] != '\0');
    /* Two directory levels that do not exist yet: create() must make them. */
    snprintf(path, pn, "%s/out/sub/run.h5", dir);
    /* tmp: the folder of the result, where its temporary file
     * "run.h5.<pid>-<random>.tmp" lives until end(). */
    snprintf(tmp, pn, "%s/out/sub", dir);
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void check_str_attr(hid_t obj, const char *name, const char *want)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t t = H5Aget_type(a);
    assert_int_equal(H5Tget_class(t), H5T_STRING);
    assert_true(H5Tis_variable_str(t) > 0);
    char *s = NULL;
    assert_true(H5Aread(a, t, &s) >= 0);
    assert_string_equal(s, want);
    H5free_memory(s);
    H5Tclose(t);
    H5Aclose(a);
}

/* ---- HDF5 ------------------------------------------------------------------- */

static void test_h5_roundtrip(void **state)
{
    (void)state;
    char dir[256], path[512], tmp[520];
    paths(dir, sizeof dir, path, tmp, sizeof path);
    stsl_error err;
    stsl_sink s;
    assert_int_equal(stsl_h5_sink_create(path, config_text, "0.1.0", &s, &err), STSL_OK);
    write_run(&s, 10000, 5);
    /* Until end() only the (one) temporary file exists. */
    assert_int_equal(tu_count_temps(tmp), 1);
    assert_false(tu_file_exists(path));
    stsl_stats st = known_stats();
    assert_int_equal(stsl_sink_end(&s, &st, 1, NULL, &err), STSL_OK);
    stsl_sink_free(&s);
    assert_int_equal(tu_count_temps(tmp), 0);
    assert_true(tu_file_exists(path));

    /* Through the reader. */
    stsl_h5_result r;
    assert_int_equal(stsl_h5_read(path, &r, &err), STSL_OK);
    assert_string_equal(r.program, "stickslip");
    assert_string_equal(r.version, "0.1.0");
    assert_int_equal(strlen(r.created_utc), 20);
    assert_int_equal(r.created_utc[10], 'T');
    assert_int_equal(r.created_utc[19], 'Z');
    assert_int_equal(r.complete, 1);
    assert_string_equal(r.message, "");
    assert_string_equal(r.config_yaml, config_text);
    assert_int_equal(r.n_samples, 10000);
    assert_true(r.t_first == 0.0 && r.t_last == sample_t(9999));
    assert_int_equal(r.stats.n_modes, 3);
    for (int i = 0; i < 3; i++)
        assert_string_equal(r.mode_names[i], modes[i]);
    assert_int_equal(r.stats.steps, 1234);
    assert_int_equal(r.stats.rhs_evals, 5678);
    assert_int_equal(r.stats.guard_evals, 91011);
    assert_int_equal(r.stats.events, 5);
    assert_int_equal(r.stats.segments, 6);
    assert_true(r.stats.wall_seconds == 0.125);
    assert_true(r.stats.mode_time[0] == 1.5 && r.stats.mode_time[1] == 2.25 &&
                r.stats.mode_time[2] == 6.25);
    assert_string_equal(r.time_units, "s");
    assert_string_equal(r.x_units, "m");
    assert_string_equal(r.v_units, "m/s");
    assert_string_equal(r.net_force_units, "N");
    assert_int_equal(r.n_events, 5);
    for (int k = 0; k < 5; k++) {
        double b[4], a[4];
        event_vals(k, b, a);
        const stsl_h5_event *e = &r.events[k];
        assert_true(e->t == 0.5 * (k + 1));
        assert_string_equal(e->kind, kinds[k % 3]);
        assert_int_equal(e->mode_before, k % 3);
        assert_int_equal(e->mode_after, (k + 1) % 3);
        assert_true(e->x == b[0]);        /* x of before */
        assert_true(e->v_before == b[1]); /* v of before */
        assert_true(e->v_after == a[1]);  /* v of after */
        assert_true(e->friction == a[2]); /* friction of after */
        assert_true(e->net_force == a[3]);
    }
    stsl_h5_result_free(&r);

    double *x = NULL;
    long n = 0;
    assert_int_equal(stsl_h5_read_column(path, "x", &x, &n, &err), STSL_OK);
    assert_int_equal(n, 10000);
    for (long i = 0; i < n; i++)
        assert_true(x[i] == sin(sample_t(i)));
    free(x);
    assert_int_equal(stsl_h5_read_column(path, "nope", &x, &n, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "nope"));
    assert_null(x);

    /* Through raw HDF5 calls: what users' scripts see. */
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    check_str_attr(f, "program", "stickslip");
    int complete = -1;
    hid_t a = H5Aopen(f, "complete", H5P_DEFAULT);
    assert_true(H5Aread(a, H5T_NATIVE_INT, &complete) >= 0);
    H5Aclose(a);
    assert_int_equal(complete, 1);
    const char *names[] = {"t", "x", "v", "friction", "net_force"};
    const char *units[] = {"s", "m", "m/s", "N", "N"};
    for (int i = 0; i < 5; i++) {
        char p[64];
        snprintf(p, sizeof p, "/trajectory/%s", names[i]);
        hid_t d = H5Dopen2(f, p, H5P_DEFAULT);
        assert_true(d >= 0);
        check_str_attr(d, "units", units[i]);
        hid_t t = H5Dget_type(d);
        assert_true(H5Tequal(t, H5T_IEEE_F64LE) > 0);
        H5Tclose(t);
        hid_t dcpl = H5Dget_create_plist(d);
        assert_int_equal(H5Pget_layout(dcpl), H5D_CHUNKED);
        H5Pclose(dcpl);
        hid_t sp = H5Dget_space(d);
        hsize_t dim, maxdim;
        H5Sget_simple_extent_dims(sp, &dim, &maxdim);
        assert_int_equal(dim, 10000);
        assert_true(maxdim == H5S_UNLIMITED);
        H5Sclose(sp);
        H5Dclose(d);
    }
    hid_t d = H5Dopen2(f, "/trajectory/mode", H5P_DEFAULT);
    hid_t t = H5Dget_type(d);
    assert_true(H5Tequal(t, H5T_STD_I8LE) > 0);
    H5Tclose(t);
    check_str_attr(d, "mode_names", "0 STUCK, 1 SLIP_POS, 2 SLIP_NEG");
    int8_t m[10000];
    assert_true(H5Dread(d, H5T_NATIVE_INT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, m) >= 0);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(m[i], i % 3);
    H5Dclose(d);
    d = H5Dopen2(f, "/events", H5P_DEFAULT);
    check_str_attr(d, "kind_names", "stick,breakaway,reversal");
    check_str_attr(d, "units",
                   "t [s], x [m], v_before [m/s], v_after [m/s], net_force [N], friction [N]");
    t = H5Dget_type(d);
    int ki = H5Tget_member_index(t, "kind");
    hid_t kt = H5Tget_member_type(t, (unsigned)ki);
    assert_int_equal(H5Tget_size(kt), 16);
    assert_int_equal(H5Tget_strpad(kt), H5T_STR_NULLPAD);
    H5Tclose(kt);
    H5Tclose(t);
    H5Dclose(d);
    hid_t g = H5Gopen2(f, "/stats", H5P_DEFAULT);
    double ts = 0;
    a = H5Aopen(g, "time_SLIP_POS", H5P_DEFAULT);
    assert_true(H5Aread(a, H5T_NATIVE_DOUBLE, &ts) >= 0);
    assert_true(ts == 2.25);
    H5Aclose(a);
    H5Gclose(g);
    H5Fclose(f);
    rm_rf(dir);
}

static void test_h5_incomplete_and_info(void **state)
{
    (void)state;
    char dir[256], path[512], tmp[520];
    paths(dir, sizeof dir, path, tmp, sizeof path);
    stsl_error err;
    stsl_sink s;
    assert_int_equal(stsl_h5_sink_create(path, config_text, "0.1.0", &s, &err), STSL_OK);
    write_run(&s, 3000, 2);
    stsl_stats st = known_stats();
    assert_int_equal(stsl_sink_end(&s, &st, 0, "solver failed at t = 2.9 s", &err), STSL_OK);
    stsl_sink_free(&s);
    assert_int_equal(tu_count_temps(tmp), 0);

    stsl_h5_result r;
    assert_int_equal(stsl_h5_read(path, &r, &err), STSL_OK);
    assert_int_equal(r.complete, 0);
    assert_string_equal(r.message, "solver failed at t = 2.9 s");
    assert_int_equal(r.n_samples, 3000);
    assert_int_equal(r.n_events, 2);

    FILE *out = tmpfile();
    assert_non_null(out);
    stsl_h5_print_info(&r, out, 1);
    char text[8192];
    rewind(out);
    size_t n = fread(text, 1, sizeof text - 1, out);
    text[n] = '\0';
    fclose(out);
    assert_non_null(strstr(text, "INCOMPLETE"));
    assert_non_null(strstr(text, "solver failed at t = 2.9 s"));
    assert_non_null(strstr(text, "stick"));
    assert_non_null(strstr(text, "breakaway"));
    assert_non_null(strstr(text, "STUCK -> SLIP_POS"));
    assert_non_null(strstr(text, "v_before [m/s]"));
    assert_non_null(strstr(text, "... 1 more"));
    stsl_h5_result_free(&r);
    rm_rf(dir);
}

static void test_h5_empty_events_and_missing_columns(void **state)
{
    (void)state;
    char dir[256], path[512], tmp[520];
    paths(dir, sizeof dir, path, tmp, sizeof path);
    stsl_error err;
    stsl_sink s;
    /* Only v: the events' x, net_force and friction are NaN. */
    static const stsl_column vonly[] = {{"v", "rad/s", NULL}};
    stsl_layout l = {1, vonly, "s", 3, modes, 3, kinds, 0, NULL, 0, NULL};
    assert_int_equal(stsl_h5_sink_create(path, "", "0.1.0", &s, &err), STSL_OK);
    assert_int_equal(stsl_sink_begin(&s, &l, &err), STSL_OK);
    double b = 1.0, a = -1.0;
    stsl_event_rec ev = {0.0, 2, 1, 2, &b, &a, 0};
    assert_int_equal(stsl_sink_event(&s, &ev, &err), STSL_OK);
    ev.kind = 7;
    assert_int_equal(stsl_sink_event(&s, &ev, &err), STSL_EINPUT);
    assert_int_equal(stsl_sink_end(&s, NULL, 1, NULL, &err), STSL_OK);
    stsl_sink_free(&s);
    stsl_h5_result r;
    assert_int_equal(stsl_h5_read(path, &r, &err), STSL_OK);
    assert_int_equal(r.n_samples, 0);
    assert_int_equal(r.n_events, 1);
    assert_true(isnan(r.events[0].x) && isnan(r.events[0].net_force) &&
                isnan(r.events[0].friction));
    assert_true(r.events[0].v_before == 1.0 && r.events[0].v_after == -1.0);
    stsl_h5_result_free(&r);

    /* No events at all: the table still exists, with 0 rows. */
    assert_int_equal(stsl_h5_sink_create(path, "", "0.1.0", &s, &err), STSL_OK);
    write_run(&s, 10, 0);
    assert_int_equal(stsl_sink_end(&s, NULL, 1, NULL, &err), STSL_OK);
    stsl_sink_free(&s);
    assert_int_equal(stsl_h5_read(path, &r, &err), STSL_OK);
    assert_int_equal(r.n_events, 0);
    assert_int_equal(r.n_samples, 10);
    stsl_h5_result_free(&r);
    rm_rf(dir);
}

static void test_h5_destroy_without_end(void **state)
{
    (void)state;
    char dir[256], path[512], tmp[520];
    paths(dir, sizeof dir, path, tmp, sizeof path);
    stsl_error err;
    stsl_sink s;
    assert_int_equal(stsl_h5_sink_create(path, config_text, "0.1.0", &s, &err), STSL_OK);
    write_run(&s, 5000, 1);
    assert_int_equal(tu_count_temps(tmp), 1);
    stsl_sink_free(&s);
    assert_null(s.ops);
    assert_int_equal(tu_count_temps(tmp), 0);
    assert_false(tu_file_exists(path));
    stsl_sink_free(&s); /* a freed sink frees again harmlessly */
    rm_rf(dir);
}

static void test_h5_streaming(void **state)
{
    (void)state;
    char dir[256], path[512], tmp[520];
    paths(dir, sizeof dir, path, tmp, sizeof path);
    stsl_error err;
    stsl_sink s;
    const long n = 2000000;
    assert_int_equal(stsl_h5_sink_create(path, config_text, "0.1.0", &s, &err), STSL_OK);
    write_run(&s, n / 2, 0);
    /* Heap in use must not grow with the run: the second million samples
     * are 40 MB of data, and by now HDF5's caches are full.  (glibc's
     * counter; under valgrind it reads 0 and the check is void.) */
    size_t heap0 = mallinfo2().uordblks;
    double c[4];
    for (long i = n / 2; i < n; i++) {
        sample_cols(i, c);
        assert_int_equal(stsl_sink_sample(&s, sample_t(i), (int)(i % 3), c, &err), STSL_OK);
    }
    size_t heap1 = mallinfo2().uordblks;
    assert_true(heap1 < heap0 + 256u * 1024);
    stsl_stats st = known_stats();
    assert_int_equal(stsl_sink_end(&s, &st, 1, NULL, &err), STSL_OK);
    stsl_sink_free(&s);

    double *t = NULL;
    long len = 0;
    assert_int_equal(stsl_h5_read_column(path, "t", &t, &len, &err), STSL_OK);
    assert_int_equal(len, n);
    /* Around block boundaries (4096 rows) and at the very end. */
    long at[] = {0, 4095, 4096, 4097, 1234567, n - 1};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        assert_true(t[at[i]] == sample_t(at[i]));
    free(t);
    double *fr = NULL;
    assert_int_equal(stsl_h5_read_column(path, "friction", &fr, &len, &err), STSL_OK);
    assert_int_equal(len, n);
    assert_true(fr[n - 1] == sample_t(n - 1) * sample_t(n - 1));
    free(fr);
    rm_rf(dir);
}

static void test_h5_create_errors(void **state)
{
    (void)state;
    char dir[256], path[512];
    tu_mkdtemp(dir, sizeof dir);
    stsl_error err;
    stsl_sink s = {0};
    /* The parent "directory" is a regular file. */
    snprintf(path, sizeof path, "%s/plain", dir);
    assert_int_equal(tu_write_file(path, "x"), 0);
    snprintf(path, sizeof path, "%s/plain/run.h5", dir);
    assert_int_equal(stsl_h5_sink_create(path, "", "0.1.0", &s, &err), STSL_EIO);
    assert_non_null(strstr(err.msg, path));
    assert_null(s.ops);
    /* An unwritable directory: HDF5 fails, the message names the .tmp file. */
    snprintf(path, sizeof path, "/proc/stsl_no_such/run.h5");
    assert_int_equal(stsl_h5_sink_create(path, "", "0.1.0", &s, &err), STSL_EIO);
    assert_non_null(strstr(err.msg, "run.h5"));
    rm_rf(dir);
}

static void test_reader_errors(void **state)
{
    (void)state;
    char dir[256], path[512];
    tu_mkdtemp(dir, sizeof dir);
    stsl_error err;
    stsl_h5_result r;

    snprintf(path, sizeof path, "%s/missing.h5", dir);
    assert_int_equal(stsl_h5_read(path, &r, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, path));

    snprintf(path, sizeof path, "%s/text.h5", dir);
    assert_int_equal(tu_write_file(path, "this is not HDF5\n"), 0);
    assert_int_equal(stsl_h5_read(path, &r, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "not an HDF5 file"));
    double *d = NULL;
    long n = 0;
    assert_int_equal(stsl_h5_read_column(path, "t", &d, &n, &err), STSL_EINPUT);

    /* HDF5, but not ours: names the first thing that is missing. */
    snprintf(path, sizeof path, "%s/other.h5", dir);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    H5Fclose(f);
    assert_int_equal(stsl_h5_read(path, &r, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "program"));
    assert_int_equal(stsl_h5_read_column(path, "t", &d, &n, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "/trajectory"));

    /* Ours, but a part removed: the reader says which. */
    stsl_sink s;
    snprintf(path, sizeof path, "%s/cut.h5", dir);
    assert_int_equal(stsl_h5_sink_create(path, "", "0.1.0", &s, &err), STSL_OK);
    write_run(&s, 1000, 1);
    assert_int_equal(stsl_sink_end(&s, NULL, 1, NULL, &err), STSL_OK);
    stsl_sink_free(&s);
    f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(H5Ldelete(f, "stats", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    assert_int_equal(stsl_h5_read(path, &r, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "/stats"));
    assert_null(r.config_yaml);
    rm_rf(dir);
}

/* ---- CSV, memory, tee --------------------------------------------------------- */

/* The readers and the sink turn HDF5's error printing off only around
 * their own calls: after they fail, the process's handler (what h5py or a
 * caller's own HDF5 code relies on) is still the one it was. */
/* Samples until the sink fails (a write error); its status. */
static int write_run_rc(stsl_sink *s, long n, stsl_error *err)
{
    double c[4];
    int rc = stsl_sink_begin(s, &layout, err);
    for (long i = 0; rc == STSL_OK && i < n; i++) {
        sample_cols(i, c);
        rc = stsl_sink_sample(s, sample_t(i), (int)(i % 3), c, err);
    }
    return rc;
}

static void test_h5_errors_stay_local(void **state)
{
    (void)state;
    char dir[256], path[512];
    tu_mkdtemp(dir, sizeof dir);
    stsl_error err;
    stsl_h5_result r;
    stsl_sink s = {0};
    H5E_auto2_t before_fn, after_fn;
    void *before_data, *after_data;
    assert_true(H5Eget_auto2(H5E_DEFAULT, &before_fn, &before_data) >= 0);
    assert_non_null(before_fn); /* HDF5's default: print the stack */
    snprintf(path, sizeof path, "%s/bad.h5", dir);
    /* HDF5's signature, then garbage: H5Fopen itself fails. */
    assert_int_equal(tu_write_file(path, "\x89HDF\r\n\x1a\nnot a superblock"), 0);
    assert_int_equal(stsl_h5_read(path, &r, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "cannot open the HDF5 file"));
    assert_true(H5Eget_auto2(H5E_DEFAULT, &after_fn, &after_data) >= 0);
    assert_ptr_equal(after_fn, before_fn);
    assert_ptr_equal(after_data, before_data);
    /* The sink's temporary name is unique (nothing can be put in its way):
     * a file-size limit of 64 KiB makes HDF5's writes fail instead (EFBIG,
     * SIGXFSZ ignored as the CLI does).  In a child process, so that the
     * limit stays there; _exit skips HDF5's exit handler, whose shutdown
     * after a given-up file test_h5_exit checks. */
    snprintf(path, sizeof path, "%s/out.h5", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit small = {64 * 1024, RLIM_INFINITY};
        struct rlimit lim;
        getrlimit(RLIMIT_FSIZE, &lim);
        small.rlim_max = lim.rlim_max;
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &small) != 0) _exit(10);
        int rc = stsl_h5_sink_create(path, "", "0.1.0", &s, &err);
        stsl_stats st = {0};
        if (rc == STSL_OK) rc = write_run_rc(&s, 100000, &err);
        if (rc == STSL_OK) rc = stsl_sink_end(&s, &st, 1, NULL, &err);
        stsl_sink_free(&s);
        H5Eget_auto2(H5E_DEFAULT, &after_fn, &after_data);
        _exit(rc != STSL_EIO                       ? 11
              : !strstr(err.msg, "HDF5 could not") ? 12
              : !strstr(err.msg, "File too large") ? 13
              : after_fn != before_fn              ? 14
              : after_data != before_data          ? 15
              : tu_count_temps(dir) != 0           ? 16
                                                   : 0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void check_csv(const char *prefix, long n, int n_events)
{
    char p[600];
    snprintf(p, sizeof p, "%s_trajectory.csv", prefix);
    char *text = slurp(p);
    char *line = strtok(text, "\n");
    assert_string_equal(line, "t [s],x [m],v [m/s],friction [N],net_force [N],mode");
    long rows = 0;
    while ((line = strtok(NULL, "\n"))) {
        double c[4], v[5];
        char *q = line;
        for (int j = 0; j < 5; j++) {
            v[j] = strtod(q, &q);
            assert_int_equal(*q, ',');
            q++;
        }
        long mode = strtol(q, &q, 10);
        assert_int_equal(*q, '\0');
        sample_cols(rows, c);
        /* %.17g round-trips exactly. */
        assert_true(v[0] == sample_t(rows));
        for (int j = 0; j < 4; j++)
            assert_true(v[j + 1] == c[j]);
        assert_int_equal(mode, rows % 3);
        rows++;
    }
    assert_int_equal(rows, n);
    free(text);

    snprintf(p, sizeof p, "%s_events.csv", prefix);
    text = slurp(p);
    line = strtok(text, "\n");
    assert_string_equal(line, "t [s],kind,mode_before,mode_after,x [m],v_before [m/s],"
                              "v_after [m/s],net_force [N],friction [N]");
    int k = 0;
    while ((line = strtok(NULL, "\n"))) {
        double b[4], a[4];
        event_vals(k, b, a);
        char kind[32];
        double t, x, vb, va, nf, fr;
        int mb, ma;
        assert_int_equal(sscanf(line, "%lf,%31[^,],%d,%d,%lf,%lf,%lf,%lf,%lf", &t, kind, &mb, &ma,
                                &x, &vb, &va, &nf, &fr),
                         9);
        assert_true(t == 0.5 * (k + 1));
        assert_string_equal(kind, kinds[k % 3]);
        assert_int_equal(mb, k % 3);
        assert_int_equal(ma, (k + 1) % 3);
        assert_true(x == b[0] && vb == b[1] && va == a[1] && nf == a[3] && fr == a[2]);
        k++;
    }
    assert_int_equal(k, n_events);
    free(text);
}

static void test_csv(void **state)
{
    (void)state;
    char dir[256], prefix[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(prefix, sizeof prefix, "%s/run", dir);
    stsl_error err;
    stsl_sink s;
    assert_int_equal(stsl_csv_sink_create(prefix, &s, &err), STSL_OK);
    write_run(&s, 2000, 3);
    assert_int_equal(stsl_sink_end(&s, NULL, 1, NULL, &err), STSL_OK);
    stsl_sink_free(&s);
    check_csv(prefix, 2000, 3);

    snprintf(prefix, sizeof prefix, "%s/no/such/dir/run", dir);
    assert_int_equal(stsl_csv_sink_create(prefix, &s, &err), STSL_EIO);
    assert_non_null(strstr(err.msg, "run_trajectory.csv"));
    rm_rf(dir);
}

static void check_mem(const stsl_mem_result *m, long n, int n_events)
{
    assert_non_null(m);
    assert_int_equal(m->n_cols, 4);
    assert_int_equal(m->n_samples, n);
    for (long i = 0; i < n; i++) {
        double c[4];
        sample_cols(i, c);
        assert_true(m->t[i] == sample_t(i));
        assert_int_equal(m->mode[i], i % 3);
        assert_memory_equal(&m->cols[i * 4], c, sizeof c);
    }
    assert_int_equal(m->n_events, n_events);
    for (int k = 0; k < n_events; k++) {
        double b[4], a[4];
        event_vals(k, b, a);
        assert_int_equal(m->events[k].kind, k % 3);
        assert_int_equal(m->events[k].mode_after, (k + 1) % 3);
        assert_memory_equal(m->events[k].before, b, sizeof b);
        assert_memory_equal(m->events[k].after, a, sizeof a);
    }
}

static void test_mem(void **state)
{
    (void)state;
    stsl_error err;
    stsl_sink s;
    assert_int_equal(stsl_mem_sink_create(&s, &err), STSL_OK);
    /* Before begin(): no samples accepted. */
    double c[4] = {0};
    assert_int_equal(stsl_sink_sample(&s, 0.0, 0, c, &err), STSL_EINPUT);
    write_run(&s, 2500, 4);
    const stsl_mem_result *m = stsl_mem_sink_result(&s);
    assert_int_equal(m->ended, 0);
    stsl_stats st = known_stats();
    assert_int_equal(stsl_sink_end(&s, &st, 0, "stopped", &err), STSL_OK);
    check_mem(m, 2500, 4);
    assert_int_equal(m->ended, 1);
    assert_int_equal(m->complete, 0);
    assert_string_equal(m->message, "stopped");
    assert_int_equal(m->stats.rhs_evals, 5678);
    stsl_sink_free(&s);
    assert_null(stsl_mem_sink_result(&s));

    /* More columns than the element's 16 (a system's): kept whole, in the
     * samples and in the events' values, not truncated. */
    stsl_column many[17];
    double vb[17], va[17];
    for (int i = 0; i < 17; i++) {
        many[i] = (stsl_column){"c", "1", NULL};
        vb[i] = i + 0.25;
        va[i] = -i - 0.5;
    }
    stsl_layout l = {17, many, "s", 0, NULL, 1, kinds, 0, NULL, 0, NULL};
    assert_int_equal(stsl_mem_sink_create(&s, &err), STSL_OK);
    assert_int_equal(stsl_sink_begin(&s, &l, &err), STSL_OK);
    assert_int_equal(stsl_sink_sample(&s, 0.0, -1, vb, &err), STSL_OK);
    stsl_event_rec big = {1.0, 0, -1, -1, vb, va, 0};
    assert_int_equal(stsl_sink_event(&s, &big, &err), STSL_OK);
    m = stsl_mem_sink_result(&s);
    assert_int_equal(m->n_cols, 17);
    assert_true(m->cols[16] == vb[16]);
    assert_true(m->events[0].before[16] == vb[16] && m->events[0].after[16] == va[16]);
    stsl_sink_free(&s);
}

static void test_tee(void **state)
{
    (void)state;
    char dir[256], prefix[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(prefix, sizeof prefix, "%s/tee", dir);
    stsl_error err;
    stsl_sink mem, csv, tee;
    assert_int_equal(stsl_mem_sink_create(&mem, &err), STSL_OK);
    assert_int_equal(stsl_csv_sink_create(prefix, &csv, &err), STSL_OK);
    /* `mem` stays a valid view of the content the tee now owns. */
    assert_int_equal(stsl_sink_tee(mem, csv, &tee, &err), STSL_OK);
    write_run(&tee, 1500, 2);
    assert_int_equal(stsl_sink_end(&tee, NULL, 1, NULL, &err), STSL_OK);
    check_mem(stsl_mem_sink_result(&mem), 1500, 2);
    stsl_sink_free(&tee);
    check_csv(prefix, 1500, 2);
    rm_rf(dir);
}

/* A sink that counts events only: no sample, end or destroy (NULL ops). */
static int ev_begin(void *self, const stsl_layout *layout, stsl_error *err)
{
    (void)layout, (void)err;
    *(int *)self = 0;
    return STSL_OK;
}

static int ev_count(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    (void)ev, (void)err;
    ++*(int *)self;
    return STSL_OK;
}

/* NULL sample and end are no-ops: the run goes on to the other sink of a
 * tee, which gets every sample and its end. */
static void test_events_only_sink(void **state)
{
    (void)state;
    static const stsl_sink_ops ev_only = {ev_begin, NULL, ev_count, NULL, NULL};
    int n_events = -1;
    stsl_error err;
    stsl_sink mem, tee;
    assert_int_equal(stsl_mem_sink_create(&mem, &err), STSL_OK);
    assert_int_equal(stsl_sink_tee((stsl_sink){&ev_only, &n_events}, mem, &tee, &err), STSL_OK);
    write_run(&tee, 1500, 2);
    stsl_stats st = known_stats();
    assert_int_equal(stsl_sink_end(&tee, &st, 1, "", &err), STSL_OK);
    assert_int_equal(n_events, 2);
    const stsl_mem_result *m = stsl_mem_sink_result(&mem);
    check_mem(m, 1500, 2);
    assert_int_equal(m->ended, 1);
    stsl_sink_free(&tee);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h5_roundtrip),
        cmocka_unit_test(test_h5_incomplete_and_info),
        cmocka_unit_test(test_h5_empty_events_and_missing_columns),
        cmocka_unit_test(test_h5_destroy_without_end),
        cmocka_unit_test(test_h5_streaming),
        cmocka_unit_test(test_h5_create_errors),
        cmocka_unit_test(test_reader_errors),
        cmocka_unit_test(test_h5_errors_stay_local),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_mem),
        cmocka_unit_test(test_tee),
        cmocka_unit_test(test_events_only_sink),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
