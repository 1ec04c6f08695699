/* test_input_bounds.c - every input is bounded before anything is
 * allocated for it, and a bad one is refused with its file, line, key and
 * the allowed range (exit 2 from the command):
 * - study files: variant counts (linspace, lists, grid products, Latin
 *   hypercube sizes) against the documented maxima, generated values that
 *   overflow or underflow, and the text bounds of configurations (size,
 *   line length, nesting, NUL, UTF-8 at its line, /dev/zero, directories),
 *   for the study file and for a base it names;
 * - MAT candidates of `compare`: dimensions against the file size, a
 *   truncated file said to be one (v5 and v7.3), and classes named as
 *   MATLAB names them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <matio.h>
#include <zlib.h>

#include "io/study/study.h"
#include "test/testutil.h"

static char g_dir[256];
static char g_out[65536];

#define BASE "base: {element: {mass: 1}, friction: {dynamic: 2}, simulation: {t_end: 1}}\n"

static void path_of(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", g_dir, name);
}

/* Write `len` bytes (NULs allowed). */
static void write_bytes(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* The study is refused with STSL_EINPUT, a one-line message that begins
 * with `want`, and nothing to free. */
static void refused(int rc, stsl_study *s, const stsl_error *err, const char *want)
{
    if (rc != STSL_EINPUT || strncmp(err->msg, want, strlen(want)) != 0)
        fail_msg("rc %d, got  '%s'\n         want '%s'", rc, err->msg, want);
    assert_null(s);
    assert_null(strchr(err->msg, '\n'));
}

static void refused_text(const char *text, const char *want)
{
    stsl_study *s = (stsl_study *)1;
    stsl_error err = {0};
    int rc = stsl_study_load_string(text, "s.yaml", g_dir, &s, &err);
    refused(rc, s, &err, want);
}

static void refused_file(const char *path, const char *want)
{
    stsl_study *s = (stsl_study *)1;
    stsl_error err = {0};
    int rc = stsl_study_load(path, &s, &err);
    refused(rc, s, &err, want);
}

/* Variant counts: each at most 10^7 (STSL_STUDY_MAX_VARIANTS), a grid's
 * product too, and variants x keys at most 10^8; refused before the
 * values are allocated.  The old limit was 2^31 - 1 for each. */
static void test_variant_counts(void **state)
{
    (void)state;
    assert_int_equal(STSL_STUDY_MAX_VARIANTS, 10000000L);
    assert_int_equal(STSL_STUDY_MAX_VALUES, 100000000L);
    refused_text(BASE "vary:\n  a.b: {linspace: [0, 1, 10000001]}\n",
                 "s.yaml:3: vary.a.b.linspace.count: must be a whole number in [1, 10000000] "
                 "(got 10000001)");
    refused_text(BASE "vary:\n  a.b: {logspace: [0, 1, 2147483647]}\n",
                 "s.yaml:3: vary.a.b.logspace.count: must be a whole number in [1, 10000000] "
                 "(got 2147483647)");
    /* 46340^2 = 2147395600 variants: below 2^31 - 1, accepted before. */
    refused_text(BASE "vary:\n  a.b: {linspace: [0, 1, 46340]}\n"
                      "  c.d: {linspace: [0, 1, 46340]}\n",
                 "s.yaml:4: vary.c.d.linspace: the grid would have 2.147e+09 variants (46340 x "
                 "46340), more than 10000000 (the study limit)");
    /* Three keys whose product overflows 64 bits if multiplied. */
    refused_text(BASE "vary:\n  a.b: {linspace: [0, 1, 4000]}\n  c.d: {values: [1, 2]}\n"
                      "  e.f: {linspace: [0, 1, 10000000]}\n",
                 "s.yaml:5: vary.e.f.linspace: the grid would have 8e+10 variants (4000 x 2 x "
                 "10000000), more than 10000000 (the study limit)");
    /* The grid at the limit itself is fine: 2000 x 5000. */
    stsl_study *s = NULL;
    stsl_error err = {0};
    assert_int_equal(stsl_study_load_string(BASE "vary:\n  a.b: {linspace: [0, 1, 2000]}\n"
                                                 "  c.d: {linspace: [0, 1, 5000]}\n",
                                            "s.yaml", g_dir, &s, &err),
                     STSL_OK);
    assert_int_equal(stsl_study_n_variants(s), STSL_STUDY_MAX_VARIANTS);
    stsl_study_free(s);
    /* zip: 10^7 variants of 11 keys are 1.1e8 parameter values; refused at
     * the 11th key, before its values exist. */
    char text[2048];
    int at = snprintf(text, sizeof text, BASE "combine: zip\nvary:\n");
    for (int k = 0; k < 11; k++)
        at += snprintf(text + at, sizeof text - (size_t)at,
                       "  k%d.x: {linspace: [0, 1, 10000000]}\n", k);
    refused_text(text, "s.yaml:14: vary.k10.x.linspace: 10000000 variants x 11 keys = 1.1e+08 "
                       "parameter values, more than 100000000 (the study limit)");
    refused_text(BASE "sample: {method: latin_hypercube, n: 10000001, ranges: {a: [0, 1]}}\n",
                 "s.yaml:2: sample.n: must be a whole number in [1, 10000000] (got 10000001)");
    refused_text(BASE "sample:\n  method: latin_hypercube\n  n: 10000000\n"
                      "  ranges: {a: [0, 1], b: [0, 1], c: [0, 1], d: [0, 1], e: [0, 1], f: [0, "
                      "1],\n    g: [0, 1], h: [0, 1], i: [0, 1], j: [0, 1], k: [0, 1]}\n",
                 "s.yaml:4: sample.n: 10000000 variants x 11 keys = 1.1e+08 parameter values, "
                 "more than 100000000 (the study limit)");
}

/* Generated values that are not the finite, normal numbers asked for. */
static void test_generated_values(void **state)
{
    (void)state;
    /* 10^-400 is 0 in double: it ran as 0 before. */
    refused_text(BASE "vary:\n  a.b: {logspace: [-400, -399, 2]}\n",
                 "s.yaml:3: vary.a.b.logspace: 10^-400 underflows below the smallest normal "
                 "double (2.225e-308): exponents must be at least -307.7");
    /* 10^-310 is subnormal: 1e-310 with 3 significant digits. */
    refused_text(BASE "vary:\n  a.b: {logspace: [-310, 0, 2]}\n",
                 "s.yaml:3: vary.a.b.logspace: 10^-310 underflows");
    refused_text(BASE "vary:\n  a.b: {logspace: [0, 309, 2]}\n",
                 "s.yaml:3: vary.a.b.logspace: 10^309 exceeds the largest double (1.798e+308): "
                 "exponents must be at most 308.3");
    /* stop - start = 2e308 overflows: the middle point was inf or nan. */
    refused_text(BASE "vary:\n  a.b: {linspace: [-1e308, 1e308, 3]}\n",
                 "s.yaml:3: vary.a.b.linspace: stop - start exceeds the largest double");
    refused_text(BASE "sample: {method: latin_hypercube, n: 4, ranges: {a: [-1e308, 1e308]}}\n",
                 "s.yaml:2: sample.ranges.a: high - low exceeds the largest double");
    refused_text(BASE "vary:\n  a.b: {values: [1, 1e-400]}\n",
                 "s.yaml:3: vary.a.b.values: '1e-400' underflows: nonzero magnitudes must be at "
                 "least 2.225e-308");
    /* The smallest normal double and 0 itself are numbers. */
    stsl_study *s = NULL;
    stsl_error err = {0};
    assert_int_equal(
        stsl_study_load_string(BASE "vary:\n  a.b: {values: [0, 2.2250738585072014e-308]}\n",
                               "s.yaml", g_dir, &s, &err),
        STSL_OK);
    stsl_study_free(s);
}

/* The text bounds of a configuration apply to a study file. */
static void test_study_text(void **state)
{
    (void)state;
    /* An invalid byte on line 4: reported there (libyaml said line 1). */
    refused_text(BASE "vary:\n  a.b: {values: [1]}\n# caf\xe9\n",
                 "s.yaml:4: invalid UTF-8 (byte 0xe9 at column 6)");
    /* 65 levels of flow nesting. */
    char deep[256];
    int n = snprintf(deep, sizeof deep, BASE "description: ");
    for (int i = 0; i < 65; i++)
        deep[n++] = '[';
    deep[n] = '\0';
    refused_text(deep, "s.yaml:2: nested deeper than 64 levels (the study limit)");
    /* A line of 64 KiB + 1 bytes. */
    size_t line = 64 * 1024 + 1;
    char *big = malloc(strlen(BASE) + line + 64);
    strcpy(big, BASE "#");
    memset(big + strlen(big), 'x', line - 1);
    strcpy(big + strlen(BASE) + line, "\n");
    refused_text(big, "s.yaml:2: line longer than 65536 bytes (the study limit");
    free(big);
    /* 1 MiB + 1 bytes of comments. */
    size_t size = 1024 * 1024 + 1;
    big = malloc(size + 1);
    for (size_t i = 0; i < size; i++)
        big[i] = i % 64 == 63 ? '\n' : '#';
    big[size] = '\0';
    refused_text(big, "s.yaml: larger than 1048576 bytes (the study limit)");
    free(big);
}

/* Files: NUL, /dev/zero, directories, and a base under the same bounds. */
static void test_study_files(void **state)
{
    (void)state;
    char study[512], base[512], sub[512];
    /* Everything after the NUL was ignored: here a second key. */
    static const char nul[] = BASE "vary:\n  a.b: {values: [1]}\n\0  c.d: {values: [1, 2]}\n";
    path_of("nul.yaml", study, sizeof study);
    write_bytes(study, nul, sizeof nul - 1);
    char want[1024];
    snprintf(want, sizeof want, "%s:4: NUL byte at column 1", study);
    refused_file(study, want);
    /* A study file that never ends: refused after one read. */
    refused_file("/dev/zero", "/dev/zero:1: NUL byte at column 1");
    /* A directory is bad input (it was an I/O error, exit 1). */
    snprintf(want, sizeof want, "%s: is a directory, not a study file", g_dir);
    refused_file(g_dir, want);
    /* A base that never ends, that is a directory, or has a bad byte. */
    refused_text("base: /dev/zero\nvary: {a.b: {values: [1]}}\n",
                 "s.yaml:1: base: /dev/zero:1: NUL byte at column 1");
    path_of("sub", sub, sizeof sub);
    mkdir(sub, 0700);
    snprintf(want, sizeof want, "s.yaml:1: base: %s: is a directory, not a configuration file",
             sub);
    refused_text("base: sub\nvary: {a.b: {values: [1]}}\n", want);
    path_of("bad_base.yaml", base, sizeof base);
    assert_int_equal(tu_write_file(base, "element: {mass: 1}\nfriction: {dynamic: 2}\n"
                                         "simulation: {t_end: 1}\n# \xff\n"),
                     0);
    snprintf(want, sizeof want, "s.yaml:1: base: %s:4: invalid UTF-8 (byte 0xff", base);
    refused_text("base: bad_base.yaml\nvary: {a.b: {values: [1]}}\n", want);
    /* A byte order mark is dropped, as in a configuration. */
    stsl_study *s = NULL;
    stsl_error err = {0};
    assert_int_equal(stsl_study_load_string("\xef\xbb\xbf" BASE "vary: {a.b: {values: [1]}}\n",
                                            "s.yaml", g_dir, &s, &err),
                     STSL_OK);
    stsl_study_free(s);
}

/* `sweep` exits 2 with the message and writes nothing. */
static void sweep_refuses(const char *study, const char *want)
{
    char out[512];
    path_of("never.h5", out, sizeof out);
    remove(out);
    int rc = tu_cli(g_out, sizeof g_out, "sweep '%s' -o '%s' -q", study, out);
    if (rc != 2 || !strstr(g_out, want))
        fail_msg("exit %d, output '%s'; want 2 and '%s'", rc, g_out, want);
    assert_false(tu_file_exists(out));
}

static void test_sweep_exit_codes(void **state)
{
    (void)state;
    char study[512];
    path_of("grid.yaml", study, sizeof study);
    assert_int_equal(tu_write_file(study, BASE "vary:\n  friction.dynamic: {linspace: [1, 2, "
                                               "46341]}\n  element.mass: {linspace: [1, 2, "
                                               "46341]}\n"),
                     0);
    sweep_refuses(study, "grid.yaml:4: vary.element.mass.linspace: the grid would have "
                         "2.147e+09 variants (46341 x 46341), more than 10000000");
    sweep_refuses(g_dir, "is a directory, not a study file");
    path_of("zero.yaml", study, sizeof study);
    assert_int_equal(tu_write_file(study, "base: /dev/zero\nvary: {a.b: {values: [1]}}\n"), 0);
    sweep_refuses(study, "zero.yaml:1: base: /dev/zero:1: NUL byte");
}

/* ---- MAT candidates of `compare` ------------------------------------------------- */

static char g_ref[512];

/* A v5 (or v7.3) file with yout (rows x 3) and tout (rows x 1), plain doubles. */
static void write_mat(const char *path, int v73, size_t rows)
{
    mat_t *m = Mat_CreateVer(path, NULL, v73 ? MAT_FT_MAT73 : MAT_FT_MAT5);
    assert_non_null(m);
    double *d = malloc(rows * 3 * sizeof *d);
    for (size_t i = 0; i < rows * 3; i++)
        d[i] = (double)(i % rows) * 1e-3;
    size_t dy[2] = {rows, 3}, dt[2] = {rows, 1};
    matvar_t *y = Mat_VarCreate("yout", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dy, d, 0);
    matvar_t *t = Mat_VarCreate("tout", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dt, d, 0);
    assert_int_equal(Mat_VarWrite(m, y, MAT_COMPRESSION_NONE), 0);
    assert_int_equal(Mat_VarWrite(m, t, MAT_COMPRESSION_NONE), 0);
    Mat_VarFree(y);
    Mat_VarFree(t);
    Mat_Close(m);
    free(d);
}

static long file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (long)st.st_size;
}

/* The first `n` bytes of `src` as `dst`, with `patch` (4 bytes) at `at`. */
static void copy_bytes(const char *src, const char *dst, long n, long at, const char *patch)
{
    char *b = malloc((size_t)n);
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    if (patch) memcpy(b + at, patch, 4);
    write_bytes(dst, b, (size_t)n);
    free(b);
}

/* `dst`: the v5 header of `src` and its first element (`len` bytes from
 * byte 128, tag included) as one v7 compressed element. */
static void write_v7_copy(const char *src, const char *dst, long len)
{
    unsigned char *b = malloc(128 + (size_t)len);
    FILE *f = fopen(src, "rb");
    assert_non_null(f);
    assert_int_equal(fread(b, 1, 128 + (size_t)len, f), 128 + (size_t)len);
    fclose(f);
    uLongf zlen = compressBound((uLong)len);
    unsigned char *out = malloc(128 + 8 + zlen);
    memcpy(out, b, 128);
    assert_int_equal(compress2(out + 136, &zlen, b + 128, (uLong)len, 6), Z_OK);
    const uint32_t tag[2] = {15, (uint32_t)zlen}; /* miCOMPRESSED, little-endian host */
    memcpy(out + 128, tag, 8);
    write_bytes(dst, (const char *)out, 136 + zlen);
    free(out);
    free(b);
}

/* `compare` exits 2 with one line containing `want`. */
static void compare_refuses(const char *cand, const char *cols, const char *want)
{
    int rc = tu_cli(g_out, sizeof g_out, "compare '%s' '%s' --columns %s", g_ref, cand, cols);
    if (rc != 2 || !strstr(g_out, want))
        fail_msg("exit %d, output '%s'; want 2 and '%s'", rc, g_out, want);
    assert_int_equal((int)(strchr(g_out, '\n') - g_out + 1), (int)strlen(g_out));
}

static void test_mat_candidates(void **state)
{
    (void)state;
    path_of("ref.h5", g_ref, sizeof g_ref);
    assert_int_equal(tu_cli(g_out, sizeof g_out,
                            "run '%s/examples/belt_stick_slip.yaml' --set simulation.t_end=0.3 "
                            "-q -o '%s'",
                            STSL_SOURCE_DIR, g_ref),
                     0);
    char ok[512], bad[512], want[512];
    const char *cols = "t=yout:1,x=yout:2,v=yout:3";
    path_of("ok.mat", ok, sizeof ok);
    write_mat(ok, 0, 1000);
    long size = file_size(ok);
    /* yout's rows, an int32 in the dimensions element: 128 bytes of
     * header, the matrix tag (8), the array flags (16), the dims tag (8). */
    FILE *f = fopen(ok, "rb");
    unsigned char dims[4];
    assert_int_equal(fseek(f, 160, SEEK_SET), 0);
    assert_int_equal(fread(dims, 1, 4, f), 4);
    fclose(f);
    assert_int_equal(dims[0] | dims[1] << 8 | dims[2] << 16, 1000);
    /* 10^8 rows declared in a 32 kB file: refused before matio allocates
     * the 2.4 GB they would take (it did, then read what it found). */
    path_of("huge.mat", bad, sizeof bad);
    copy_bytes(ok, bad, size, 160, "\x00\xe1\xf5\x05");
    snprintf(want, sizeof want,
             "huge.mat: variable 'yout' declares a 100000000 x 3 double array (at least 3e+08 "
             "bytes), more than the file of %ld bytes can hold: a truncated or damaged file",
             size);
    compare_refuses(bad, cols, want);
    /* yout's name (a small element at byte 168) made an 8-byte tag claiming
     * a 2 GB name: matio allocated it while listing the variables (found
     * by fuzz_mat). */
    path_of("name.mat", ok, sizeof ok);
    copy_bytes(bad, ok, size, 168, "\x01\x00\x00\x00");
    copy_bytes(ok, ok, size, 172, "\xff\xff\xff\x7f");
    compare_refuses(ok, cols,
                    "name.mat: truncated or damaged: variable 1 (at byte 128): a name past the end "
                    "of the matrix");
    /* The same variable compressed (v7, as MATLAB and Simulink save by
     * default): the claim is checked against 1100 times the file, deflate's
     * bound, and still refused. */
    path_of("huge7.mat", ok, sizeof ok);
    write_v7_copy(bad, ok, 24056);
    snprintf(want, sizeof want,
             "huge7.mat: variable 'yout' declares a 100000000 x 3 double array (at least 3e+08 "
             "bytes), more than the file of %ld bytes can hold compressed",
             file_size(ok));
    compare_refuses(ok, cols, want);
    path_of("ok.mat", ok, sizeof ok);
    /* Cut inside yout's data (24056 bytes from byte 128): it was compared
     * as if the missing rows were there, with exit 0. */
    path_of("cut.mat", bad, sizeof bad);
    copy_bytes(ok, bad, 20000, 0, NULL);
    compare_refuses(bad, cols,
                    "cut.mat: truncated or damaged: variable 1 (at byte 128): needs 24056 bytes, "
                    "the file ends 19872 bytes later");
    /* A v7.3 (HDF5) file cut short: nothing readable, said so (it was
     * "no variable 't' (variables: none ...)"). */
    path_of("ok73.mat", ok, sizeof ok);
    write_mat(ok, 1, 1000);
    path_of("cut73.mat", bad, sizeof bad);
    copy_bytes(ok, bad, file_size(ok) / 2, 0, NULL);
    compare_refuses(bad, cols,
                    "cut73.mat: no variable 'yout': matio reads no variable in the file (a "
                    "truncated or damaged file?)");
    /* A v4 file (no header: known by its name) whose second variable
     * claims a 1.4 GB name: matio allocated it on every pass over the
     * variables (found by fuzz_mat). */
    static const int32_t v4[] = {0, 1, 2, 0, 4, 0x74, 0, 0, 0, 0x3ff00000, 0, 1, 1, 0, 0x54414d4c};
    path_of("v4.mat", bad, sizeof bad);
    write_bytes(bad, (const char *)v4, sizeof v4);
    compare_refuses(bad, "t=t,x=t,v=t",
                    "v4.mat: truncated or not a MAT file: variable 2 (at byte 40) declares "
                    "1.414e+09 bytes, the file has 0 after its header");
    /* A v4 sparse matrix (type 2) of 2^30 rows and no columns: no data to
     * check, yet matio allocated 4 GB for its indices (found by
     * fuzz_mat).  compare reads no sparse matrix. */
    static const int32_t v4s[] = {2, 0x40000c01, 0, 0, 2, 0x74};
    path_of("v4s.mat", bad, sizeof bad);
    write_bytes(bad, (const char *)v4s, sizeof v4s);
    compare_refuses(bad, "t=t,x=t,v=t",
                    "v4s.mat: variable 't' is or holds a sparse matrix, which compare does not "
                    "read");
    /* Classes named as MATLAB names them (a double was "a MATLAB object"). */
    path_of("ok.mat", ok, sizeof ok);
    compare_refuses(ok, "t=tout.time,x=yout:2,v=yout:3",
                    "ok.mat: 'tout.time': no field 'time': a 1000 x 1 double array, expected a "
                    "1 x 1 struct");
}

int main(void)
{
    tu_mkdtemp(g_dir, sizeof g_dir);
    if (!g_dir[0]) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variant_counts),   cmocka_unit_test(test_generated_values),
        cmocka_unit_test(test_study_text),       cmocka_unit_test(test_study_files),
        cmocka_unit_test(test_sweep_exit_codes), cmocka_unit_test(test_mat_candidates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
