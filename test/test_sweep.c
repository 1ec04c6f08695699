/* test_sweep.c - `stickslip sweep` end to end: --jobs 1 and --jobs 2 give
 * the same file (grid and Latin hypercube); one variant's row equals a
 * single `stickslip run` of that configuration to the last bit; every bad
 * study gives exit 2 with its line and writes nothing; a failing variant is
 * a row with its message (exit 3); a study killed with SIGKILL, or stopped
 * with SIGINT, after exactly its first 7 variants (held there, so that the
 * signal lands mid-study whatever the machine's speed) resumes with
 * --resume to the uninterrupted summary. */
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
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "io/result/h5_read.h"
#include "io/study/study.h"
#include "io/study/study_h5.h"
#include "test/testutil.h"

static char g_dir[256];
static char g_out[65536];

#define JANECEK STSL_SOURCE_DIR "/examples/janecek_chirp.yaml"

static void path_of(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

static void write_study(const char *name, const char *text, char *path, size_t n)
{
    path_of(name, path, n);
    assert_int_equal(tu_write_file(path, text), 0);
}

/* Every summary column of two study files equal bit for bit (NaN equal to
 * NaN), except the wall time; messages equal. */
static void assert_same_summary(const char *a, const char *b)
{
    stsl_study_summary sa, sb;
    stsl_error err = {0};
    assert_int_equal(stsl_study_h5_summarise(a, &sa, &err), STSL_OK);
    assert_int_equal(stsl_study_h5_summarise(b, &sb, &err), STSL_OK);
    assert_int_equal(sa.complete, 1);
    assert_int_equal(sb.complete, 1);
    assert_int_equal(sa.n_done, sb.n_done);
    assert_int_equal(sa.n_failed, sb.n_failed);
    assert_int_equal(sa.n_cols, sb.n_cols);
    const char *extra[] = {"status"};
    for (int j = -1; j < sa.n_cols; j++) {
        const char *name = j < 0 ? extra[0] : sa.cols[j].name;
        if (!strcmp(name, "wall_seconds")) continue;
        double *x = NULL, *y = NULL;
        long nx = 0, ny = 0;
        assert_int_equal(stsl_study_h5_read_column(a, name, &x, &nx, &err), STSL_OK);
        assert_int_equal(stsl_study_h5_read_column(b, name, &y, &ny, &err), STSL_OK);
        assert_int_equal(nx, ny);
        if (memcmp(x, y, (size_t)nx * sizeof *x) != 0) fail_msg("column %s differs", name);
        free(x);
        free(y);
    }
    for (long i = 0; i < sa.n_done; i++) {
        char *ma = NULL, *mb = NULL;
        assert_int_equal(stsl_study_h5_read_message(a, i, &ma, &err), STSL_OK);
        assert_int_equal(stsl_study_h5_read_message(b, i, &mb, &err), STSL_OK);
        assert_string_equal(ma, mb);
        free(ma);
        free(mb);
    }
}

static const char *GRID = "base: " JANECEK "\n"
                          "vary:\n"
                          "  friction.dynamic: {linspace: [10, 25, 6]}\n"
                          "  inputs.base_motion.amplitude: {values: [0.02, 0.05, 0.08]}\n";

static void test_jobs_identical(void **state)
{
    (void)state;
    char study[512], a[512], b[512];
    write_study("grid.yaml", GRID, study, sizeof study);
    path_of("grid1.h5", a, sizeof a);
    path_of("grid2.h5", b, sizeof b);
    assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' --jobs 1", study, a), 0);
    assert_non_null(strstr(g_out, "study: 18 variants, 18 done"));
    assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' --jobs 2 -q", study, b), 0);
    assert_string_equal(g_out, "");
    assert_same_summary(a, b);

    write_study("lhs.yaml",
                "base: " JANECEK "\n"
                "sample: {method: latin_hypercube, n: 12, seed: 7,\n"
                "         ranges: {friction.dynamic: [10, 25], inputs.base_motion.amplitude: "
                "[0.02, 0.08]}}\n",
                study, sizeof study);
    path_of("lhs1.h5", a, sizeof a);
    path_of("lhs2.h5", b, sizeof b);
    assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' -j 1 -q", study, a), 0);
    assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' -j 2 -q", study, b), 0);
    assert_same_summary(a, b);
}

static double row_value(const char *h5, const char *col, long i)
{
    double *v = NULL, out;
    long n = 0;
    stsl_error err = {0};
    assert_int_equal(stsl_study_h5_read_column(h5, col, &v, &n, &err), STSL_OK);
    assert_true(i < n);
    out = v[i];
    free(v);
    return out;
}

static void assert_bits(double a, double b, const char *what)
{
    if (memcmp(&a, &b, sizeof a) != 0) fail_msg("%s: %.17g != %.17g", what, a, b);
}

static double first_or_last(const stsl_h5_result *r, const char *kind, int last)
{
    double t = NAN;
    for (long e = 0; e < r->n_events; e++)
        if (!strcmp(r->events[e].kind, kind) && (last || isnan(t))) t = r->events[e].t;
    return t;
}

/* /study/base_config of a study file into the file `dst`. */
static void extract_base(const char *h5, const char *dst)
{
    char *text = NULL;
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "study/base_config", H5P_DEFAULT);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    assert_true(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, &text) >= 0);
    assert_int_equal(tu_write_file(dst, text), 0);
    H5free_memory(text);
    H5Tclose(t);
    H5Dclose(d);
    H5Fclose(f);
}

/* Row i of the study `h5` against the single run in the file `run`:
 * events by kind, final state and statistics to the last bit.  max_abs_v is
 * the exact extremum (found between the samples, which the study does not
 * compute): at least the largest sample, and above it by no more than
 * max|a| dt / 2 (the peak lies within half a grid spacing dt of a sample,
 * or is an event's, which the file holds).  x moves monotonically between
 * events (v changes sign only at them), so its extremum is a sample's. */
static void assert_row_is_run(const char *h5, long i, const char *run)
{
    stsl_h5_result r;
    stsl_error err = {0};
    assert_int_equal(stsl_h5_read(run, &r, &err), STSL_OK);
    double *t = NULL, *x = NULL, *vv = NULL, *a = NULL;
    long n = 0;
    assert_int_equal(stsl_h5_read_column(run, "t", &t, &n, &err), STSL_OK);
    assert_int_equal(stsl_h5_read_column(run, "x", &x, &n, &err), STSL_OK);
    assert_int_equal(stsl_h5_read_column(run, "v", &vv, &n, &err), STSL_OK);
    assert_int_equal(stsl_h5_read_column(run, "a", &a, &n, &err), STSL_OK);
    double max_x = 0.0, max_v = 0.0, max_a = 0.0, dt = 0.0;
    for (long k = 0; k < n; k++) {
        max_x = fmax(max_x, fabs(x[k]));
        max_v = fmax(max_v, fabs(vv[k]));
        max_a = fmax(max_a, fabs(a[k]));
        if (k > 0) dt = fmax(dt, t[k] - t[k - 1]);
    }
    assert_int_equal((int)row_value(h5, "status", i), STSL_ROW_OK);
    assert_bits(row_value(h5, "t_reached", i), t[n - 1], "t_reached");
    assert_bits(row_value(h5, "x_final", i), x[n - 1], "x_final");
    assert_bits(row_value(h5, "v_final", i), vv[n - 1], "v_final");
    assert_bits(row_value(h5, "max_abs_x", i), max_x, "max_abs_x");
    double row_v = row_value(h5, "max_abs_v", i);
    if (!(row_v >= max_v && row_v <= max_v + 0.5 * max_a * dt))
        fail_msg("max_abs_v %.17g outside [%.17g, %.17g]", row_v, max_v, max_v + 0.5 * max_a * dt);
    assert_true(row_v > max_v); /* the grid misses the true peak */
    const char *kinds[] = {"stick", "breakaway", "reversal", "impact", "stop_contact"};
    long total = 0;
    for (int k = 0; k < 5; k++) {
        char col[64];
        long count = 0;
        for (long e = 0; e < r.n_events; e++)
            count += !strcmp(r.events[e].kind, kinds[k]);
        snprintf(col, sizeof col, "events_%s", kinds[k]);
        assert_int_equal((long)row_value(h5, col, i), count);
        total += count;
    }
    assert_true(total > 5); /* the variant does stick and break away */
    assert_bits(row_value(h5, "first_breakaway", i), first_or_last(&r, "breakaway", 0),
                "first_breakaway");
    assert_bits(row_value(h5, "last_stick", i), first_or_last(&r, "stick", 1), "last_stick");
    assert_bits(row_value(h5, "stuck_fraction", i), r.stats.mode_time[0] / t[n - 1],
                "stuck_fraction");
    assert_int_equal((long)row_value(h5, "steps", i), r.stats.steps);
    assert_int_equal((long)row_value(h5, "rhs_evals", i), r.stats.rhs_evals);
    free(t), free(x), free(vv), free(a);
    stsl_h5_result_free(&r);
}

/* Variant 13 of GRID (a friction.dynamic below the file's static 26 N)
 * against `stickslip run` with the variant's values as --set, both of the
 * study's base file and of the base configuration recorded in the study
 * (the effective one, which states `static: 26` as the file does): a
 * variant keeps the static force the file gives, as the run does. */
static void test_row_equals_run(void **state)
{
    (void)state;
    char study[512], h5[512], run[512], base[512];
    write_study("grid.yaml", GRID, study, sizeof study);
    path_of("grid1.h5", h5, sizeof h5);
    path_of("one.h5", run, sizeof run);
    if (!tu_file_exists(h5))
        assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' -q", study, h5), 0);
    stsl_study *s = NULL;
    stsl_error err = {0};
    assert_int_equal(stsl_study_load(study, &s, &err), STSL_OK);
    const long i = 13;
    double v[2];
    stsl_study_values(s, i, v);
    stsl_study_free(s);
    assert_true(v[0] != 18.0 && v[0] < 26.0); /* another dynamic level, a valid one */
    path_of("base_config.yaml", base, sizeof base);
    extract_base(h5, base);
    const char *bases[2] = {JANECEK, base};
    for (int b = 0; b < 2; b++) {
        assert_int_equal(tu_cli(g_out, sizeof g_out,
                                "run '%s' -o '%s' -q --set friction.dynamic=%.17g "
                                "--set inputs.base_motion.amplitude=%.17g",
                                bases[b], run, v[0], v[1]),
                         0);
        assert_row_is_run(h5, i, run);
    }
}

/* Sweep a two-variant study into `h5`: exit 3, variant 0 runs, variant 1
 * is invalid; its message (the caller frees it). */
static char *valid_then_invalid(const char *study, const char *h5)
{
    char *m = NULL;
    stsl_error err = {0};
    assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' -q", study, h5), 3);
    assert_int_equal((int)row_value(h5, "status", 0), STSL_ROW_OK);
    assert_int_equal((int)row_value(h5, "status", 1), STSL_ROW_INVALID);
    assert_int_equal(stsl_study_h5_read_message(h5, 1, &m, &err), STSL_OK);
    return m;
}

/* A dynamic level above the file's static force is an invalid variant
 * whose message is the loader's, as `stickslip run BASE --set` refuses it;
 * the dynamic level equal to the static force is allowed. */
static void test_dynamic_above_static_variant(void **state)
{
    (void)state;
    char study[512], h5[512], run[512];
    write_study("above.yaml",
                "base: " JANECEK "\n"
                "vary: {friction.dynamic: {values: [26, 30]}}\n",
                study, sizeof study);
    path_of("above.h5", h5, sizeof h5);
    path_of("above_one.h5", run, sizeof run);
    char *m = valid_then_invalid(study, h5);
    assert_string_equal(m, "friction.static: must be >= 30 (got 26)");
    free(m);
    assert_int_equal(
        tu_cli(g_out, sizeof g_out, "run '%s' -o '%s' -q --set friction.dynamic=30", JANECEK, run),
        2);
    assert_false(tu_file_exists(run));
    assert_non_null(strstr(g_out, ": friction.static: must be >= 30 (got 26"));
}

/* store: events: /study/events holds each variant's events, in variant
 * order, equal to those of `stickslip run` of the variant (times and
 * states to the bit). */
static void test_store_events(void **state)
{
    (void)state;
    char study[512], h5[512], run[512], base[512];
    write_study("events.yaml",
                "base: " JANECEK "\n"
                "vary:\n"
                "  friction.dynamic: {values: [12, 18]}\n"
                "  inputs.base_motion.amplitude: {values: [0.03, 0.06]}\n"
                "store: events\n",
                study, sizeof study);
    path_of("events.h5", h5, sizeof h5);
    path_of("events_one.h5", run, sizeof run);
    path_of("events_base.yaml", base, sizeof base);
    assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' -q -j 2", study, h5), 0);
    extract_base(h5, base);
    assert_int_equal(tu_cli(g_out, sizeof g_out,
                            "run '%s' -o '%s' -q --set friction.dynamic=18 "
                            "--set inputs.base_motion.amplitude=0.03",
                            base, run),
                     0);
    stsl_h5_result r;
    stsl_error err = {0};
    assert_int_equal(stsl_h5_read(run, &r, &err), STSL_OK);
    typedef struct {
        int64_t variant;
        double t, x, v_after;
        char kind[16];
    } ev;
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, "study/events", H5P_DEFAULT);
    hid_t k = H5Tcopy(H5T_C_S1);
    H5Tset_size(k, 16);
    hid_t m = H5Tcreate(H5T_COMPOUND, sizeof(ev));
    H5Tinsert(m, "variant", offsetof(ev, variant), H5T_NATIVE_INT64);
    H5Tinsert(m, "t", offsetof(ev, t), H5T_NATIVE_DOUBLE);
    H5Tinsert(m, "x", offsetof(ev, x), H5T_NATIVE_DOUBLE);
    H5Tinsert(m, "v_after", offsetof(ev, v_after), H5T_NATIVE_DOUBLE);
    H5Tinsert(m, "kind", offsetof(ev, kind), k);
    hid_t sp = H5Dget_space(d);
    long n = (long)H5Sget_simple_extent_npoints(sp), total = 0, at = 0;
    ev *buf = calloc((size_t)n, sizeof *buf);
    assert_true(H5Dread(d, m, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    for (long i = 0; i < 4; i++) {
        const char *kinds[] = {"stick", "breakaway", "reversal"};
        for (int j = 0; j < 3; j++) {
            char col[32];
            snprintf(col, sizeof col, "events_%s", kinds[j]);
            total += (long)row_value(h5, col, i);
        }
    }
    assert_int_equal(n, total); /* only these three kinds occur here */
    for (long i = 1; i < n; i++)
        assert_true(buf[i].variant >= buf[i - 1].variant);
    while (at < n && buf[at].variant < 2)
        at++;
    /* Variant 2 = (18, 0.03). */
    for (long e = 0; e < r.n_events; e++, at++) {
        assert_true(at < n && buf[at].variant == 2);
        assert_bits(buf[at].t, r.events[e].t, "event t");
        assert_bits(buf[at].x, r.events[e].x, "event x");
        assert_bits(buf[at].v_after, r.events[e].v_after, "event v_after");
        assert_int_equal(strncmp(buf[at].kind, r.events[e].kind, 16), 0);
    }
    assert_true(at == n || buf[at].variant == 3);
    free(buf);
    H5Sclose(sp);
    H5Tclose(m);
    H5Tclose(k);
    H5Dclose(d);
    H5Fclose(f);
    stsl_h5_result_free(&r);
}

/* Exit 2, the message, and no study file. */
static void bad(const char *study_text, const char *args, const char *msg)
{
    char study[512], out[512];
    write_study("bad.yaml", study_text, study, sizeof study);
    path_of("bad.h5", out, sizeof out);
    remove(out);
    int rc = tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' %s", study, out, args);
    if (rc != 2 || !strstr(g_out, msg))
        fail_msg("exit %d, output '%s'; want 2 and '%s'", rc, g_out, msg);
    assert_false(tu_file_exists(out));
}

static void test_bad_study(void **state)
{
    (void)state;
    bad("base: " JANECEK "\nvary: {friction.dynamic: {values: [1]}}\nstore: everything\n", "",
        "bad.yaml:3: store: must be one of: summary, events, full (got 'everything')");
    bad("base: " JANECEK "\nvary:\n  friction.dynamic: {values: [1]}\n  friction.nonsense: "
        "{values: [1]}\n",
        "", "bad.yaml:4: vary.friction.nonsense: not a key of the base configuration");
    bad("base: " JANECEK "\nsample: {method: latin_hypercube, n: 3,\n  ranges: {element.colour: "
        "[0, 1]}}\n",
        "", "bad.yaml:3: sample.ranges.element.colour: not a key of the base configuration");
    bad("# inline base\nbase:\n  element: {mass: -1}\n  friction: {dynamic: 1}\n"
        "  simulation: {t_end: 1}\nvary: {friction.dynamic: {values: [1]}}\n",
        "", "bad.yaml:3: element.mass: must be > 0 (got -1)");
    bad(GRID, "--set friction.dynamic=-3", "--set friction.dynamic=-3: friction.dynamic: must be");
    bad(GRID, "--jobs 0", "--jobs: expected a whole number in [1, 1024], got 0");
    bad("base: missing.yaml\nvary: {friction.dynamic: {values: [1]}}\n", "",
        "bad.yaml:1: base: cannot open ");
}

/* An invalid variant and one that fails in the solver are rows with
 * their messages; the others run; exit 3 with the count. */
static void test_failing_variant(void **state)
{
    (void)state;
    char study[512], out[512], csv[512];
    write_study("fail.yaml",
                "base: " JANECEK "\n"
                "vary:\n"
                "  friction.dynamic: {values: [18, -1, 18]}\n"
                "  simulation.max_events: {values: [100000, 100000, 2]}\n"
                "combine: zip\n",
                study, sizeof study);
    path_of("fail.h5", out, sizeof out);
    path_of("fail.csv", csv, sizeof csv);
    int rc = tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' --csv '%s'", study, out, csv);
    assert_int_equal(rc, 3);
    assert_non_null(strstr(g_out, "2 variants failed"));
    assert_int_equal((int)row_value(out, "status", 0), STSL_ROW_OK);
    assert_int_equal((int)row_value(out, "status", 1), STSL_ROW_INVALID);
    assert_int_equal((int)row_value(out, "status", 2), STSL_ROW_FAILED);
    char *m = NULL;
    stsl_error err = {0};
    assert_int_equal(stsl_study_h5_read_message(out, 1, &m, &err), STSL_OK);
    assert_string_equal(m, "friction.dynamic: must be >= 0 (got -1)");
    assert_non_null(strstr(g_out, "variant 1: friction.dynamic: must be >= 0 (got -1)"));
    free(m);
    assert_int_equal(stsl_study_h5_read_message(out, 2, &m, &err), STSL_OK);
    assert_non_null(strstr(m, "max_events"));
    free(m);
    /* The failed run stopped at its third event, well before t_end. */
    assert_true(row_value(out, "t_reached", 2) < 9.5);
    assert_true(row_value(out, "t_reached", 0) == 9.5);
    assert_true(isnan(row_value(out, "x_final", 1)));
    /* CSV: header and three rows, the message quoted. */
    FILE *f = fopen(csv, "r");
    assert_non_null(f);
    char line[8192];
    int rows = 0;
    assert_non_null(fgets(line, sizeof line, f));
    assert_int_equal(strncmp(line,
                             "variant,friction.dynamic,simulation.max_events,status,message,"
                             "t_reached [s],events_stick,",
                             60),
                     0);
    while (fgets(line, sizeof line, f))
        if (++rows == 2) assert_non_null(strstr(line, "1,-1,100000,1,\"friction.dynamic: must"));
    fclose(f);
    assert_int_equal(rows, 3);
    assert_int_equal(tu_cli(g_out, sizeof g_out, "info '%s'", out), 0);
    assert_non_null(strstr(g_out, "Done:        3, failed 2"));
    assert_non_null(strstr(g_out, "variant 1: friction.dynamic: must be >= 0 (got -1)"));
}

/* Keys valid only together: moving the lower stop past the initial
 * position is refused key by key, accepted with the position moved too. */
static void test_keys_together(void **state)
{
    (void)state;
    char study[512], out[512];
    write_study("together.yaml",
                "base: " STSL_SOURCE_DIR "/examples/dv_end_stops.yaml\n"
                "vary:\n"
                "  end_stops.min: {values: [0.01, 0.01]}\n"
                "  initial.position: {values: [0.02, 0.0]}\n"
                "combine: zip\n",
                study, sizeof study);
    path_of("together.h5", out, sizeof out);
    char *m = valid_then_invalid(study, out);
    assert_non_null(
        strstr(m, "initial.position: must lie within the end stops [0.01, 0.05] (got 0)"));
    free(m);
}

/* n_done of a study file another process is writing (-1 when unreadable
 * at this instant). */
static long peek_done(const char *path)
{
    int64_t n = -1;
    H5E_BEGIN_TRY
    {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f >= 0) {
            hid_t a = H5Aopen_by_name(f, "study", "n_done", H5P_DEFAULT, H5P_DEFAULT);
            if (a >= 0) {
                if (H5Aread(a, H5T_NATIVE_INT64, &n) < 0) n = -1;
                H5Aclose(a);
            }
            H5Fclose(f);
        }
    }
    H5E_END_TRY;
    return (long)n;
}

/* The study runs HOLD variants, flushes them and waits for the signal as
 * though still running (STICKSLIP_TEST_SWEEP_HOLD, api/sweep.h): the signal
 * lands mid-study however fast the machine is. */
#define HOLD 7

static pid_t spawn_sweep(const char *study, const char *out)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        char hold[16];
        snprintf(hold, sizeof hold, "%d", HOLD);
        setenv("STICKSLIP_TEST_SWEEP_HOLD", hold, 1);
        execl(STSL_CLI, STSL_CLI, "sweep", study, "-o", out, "--jobs", "1", (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Stop the study with `sig` once it holds, then resume. */
static void interrupt_and_resume(int sig, const char *name)
{
    char study[512], out[512], ref[512];
    write_study("long.yaml",
                "base: " JANECEK "\n"
                "vary:\n"
                "  friction.dynamic: {linspace: [10, 25, 40]}\n"
                "  inputs.base_motion.amplitude: {linspace: [0.02, 0.08, 10]}\n",
                study, sizeof study);
    path_of(name, out, sizeof out);
    path_of("long_ref.h5", ref, sizeof ref);
    pid_t pid = spawn_sweep(study, out);
    /* No time limit: the study holds until signalled; an early end fails. */
    struct timespec pause = {0, 10 * 1000 * 1000};
    int status = 0;
    while (peek_done(out) < HOLD) {
        assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
        nanosleep(&pause, NULL);
    }
    kill(pid, sig);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (sig == SIGKILL)
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    else
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 130);
    stsl_study_summary sum;
    stsl_error err = {0};
    assert_int_equal(stsl_study_h5_summarise(out, &sum, &err), STSL_OK);
    assert_int_equal(sum.complete, 0);
    /* Stopped mid-study: exactly the rows of the hold. */
    assert_int_equal(sum.n_done, HOLD);
    assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s'", study, out), 2);
    assert_non_null(strstr(g_out, "holds an unfinished study"));
    assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' --resume -j 2", study, out),
                     0);
    char want[64];
    snprintf(want, sizeof want, "400 done (%ld in", 400 - sum.n_done);
    assert_non_null(strstr(g_out, want));
    if (!tu_file_exists(ref))
        assert_int_equal(tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' -q", study, ref), 0);
    assert_same_summary(out, ref);
}

static void test_kill9_resume(void **state)
{
    (void)state;
    interrupt_and_resume(SIGKILL, "killed.h5");
}

static void test_sigint_resume(void **state)
{
    (void)state;
    interrupt_and_resume(SIGINT, "interrupted.h5");
}

int main(void)
{
    /* peek_done reads a file that another process is writing. */
    setenv("HDF5_USE_FILE_LOCKING", "FALSE", 1);
    tu_mkdtemp(g_dir, sizeof g_dir);
    if (!g_dir[0]) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jobs_identical),
        cmocka_unit_test(test_row_equals_run),
        cmocka_unit_test(test_dynamic_above_static_variant),
        cmocka_unit_test(test_store_events),
        cmocka_unit_test(test_bad_study),
        cmocka_unit_test(test_failing_variant),
        cmocka_unit_test(test_keys_together),
        cmocka_unit_test(test_kill9_resume),
        cmocka_unit_test(test_sigint_resume),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
