/* MAT files: `compare` candidates written with matio in each layout a
 * MATLAB, Simulink or Modelica user has (v5 struct with time, v7.3 and v5
 * matrices in both orientations, Modelica v4 results in binTrans and
 * binNormal with aliases, negated aliases and a data_1 parameter), HDF5
 * matrices, every bad mapping (exit 2 naming file, variable and what was
 * expected), and `run -o OUT.mat` read back with matio against the HDF5
 * result of the same run.
 *
 * The candidates carry the reference's own samples (from belt.h5), so a
 * faithful reader gives errors of exactly 0 and a known offset gives
 * exactly the offset as the reader computes it: no tolerance anywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>
#include <matio.h>

#include "io/config/config.h"
#include "io/result/h5_read.h"
#include "io/result/mat_result.h"
#include "io/result/mat_sink.h"
#include "run/run.h"
#include "test/testutil.h"

#define EX STSL_SOURCE_DIR "/examples/"

static char dir[256];
static char out[65536];
static char belt_h5[512];
static long n;
static double *t, *x, *v, *f;
static long n_events;

#define cli(...) tu_cli(out, sizeof out, __VA_ARGS__)

static int setup(void **state)
{
    (void)state;
    tu_mkdtemp(dir, sizeof dir);
    snprintf(belt_h5, sizeof belt_h5, "%s/belt.h5", dir);
    if (cli("run %sbelt_stick_slip.yaml -o %s -q", EX, belt_h5)) return -1;
    stsl_error err;
    long m;
    stsl_h5_result res;
    if (stsl_h5_read_column(belt_h5, "t", &t, &n, &err) ||
        stsl_h5_read_column(belt_h5, "x", &x, &m, &err) ||
        stsl_h5_read_column(belt_h5, "v", &v, &m, &err) ||
        stsl_h5_read_column(belt_h5, "friction", &f, &m, &err) || stsl_h5_read(belt_h5, &res, &err))
        return -1;
    n_events = res.n_events;
    stsl_h5_result_free(&res);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(t);
    free(x);
    free(v);
    free(f);
    return 0;
}

/* ---- writing candidates ------------------------------------------------------- */

static void path_in_dir(char *buf, size_t sz, const char *name)
{
    snprintf(buf, sz, "%s/%s", dir, name);
}

static matvar_t *column(const char *name, const double *d, long rows, long cols)
{
    size_t dims[2] = {(size_t)rows, (size_t)cols};
    return Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, dims, (void *)d, 0);
}

static void put(mat_t *mat, matvar_t *var)
{
    assert_non_null(var);
    assert_int_equal(Mat_VarWrite(mat, var, MAT_COMPRESSION_ZLIB), 0);
    Mat_VarFree(var);
}

/* Column-major rows x cols from the given columns (signals): samples x
 * signals when `transposed` is 0, signals x samples when 1. */
static double *matrix(const double *const *sig, int ns, int transposed)
{
    double *m = malloc(sizeof *m * (size_t)n * (size_t)ns);
    assert_non_null(m);
    for (int k = 0; k < ns; k++)
        for (long i = 0; i < n; i++)
            m[transposed ? (size_t)k + (size_t)i * ns : (size_t)i + (size_t)k * n] = sig[k][i];
    return m;
}

/* Simulink "Structure With Time": simout.time, simout.signals.values
 * (samples x 2: x + dx, v). */
static void write_struct_with_time(const char *path, double dx)
{
    double *xs = malloc(sizeof *xs * (size_t)n);
    assert_non_null(xs);
    for (long i = 0; i < n; i++)
        xs[i] = x[i] + dx;
    const double *sig[] = {xs, v};
    double *vals = matrix(sig, 2, 0);
    mat_t *mat = Mat_CreateVer(path, NULL, MAT_FT_MAT5);
    assert_non_null(mat);
    size_t one[2] = {1, 1};
    const char *sfields[] = {"values", "dimensions"};
    matvar_t *signals = Mat_VarCreateStruct(NULL, 2, one, sfields, 2);
    double two = 2;
    Mat_VarSetStructFieldByName(signals, "values", 0, column(NULL, vals, n, 2));
    Mat_VarSetStructFieldByName(signals, "dimensions", 0, column(NULL, &two, 1, 1));
    const char *fields[] = {"time", "signals", "blockName"};
    matvar_t *simout = Mat_VarCreateStruct("simout", 2, one, fields, 3);
    size_t cd[2] = {1, 5};
    Mat_VarSetStructFieldByName(simout, "time", 0, column(NULL, t, n, 1));
    Mat_VarSetStructFieldByName(simout, "signals", 0, signals);
    Mat_VarSetStructFieldByName(simout, "blockName", 0,
                                Mat_VarCreate(NULL, MAT_C_CHAR, MAT_T_UINT8, 2, cd, "model", 0));
    put(mat, simout);
    /* Plain variables for the error cases: a short column and text. */
    put(mat, column("short", x, 10, 1));
    put(mat, Mat_VarCreate("label", MAT_C_CHAR, MAT_T_UINT8, 2, cd, "belts", 0));
    put(mat, column("tout", t, n, 1));
    Mat_Close(mat);
    free(vals);
    free(xs);
}

/* "yout" = [t x v friction] in one matrix. */
static void write_matrix(const char *path, enum mat_ft ver, int transposed)
{
    const double *sig[] = {t, x, v, f};
    double *m = matrix(sig, 4, transposed);
    mat_t *mat = Mat_CreateVer(path, NULL, ver);
    assert_non_null(mat);
    put(mat, column("yout", m, transposed ? 4 : n, transposed ? n : 4));
    Mat_Close(mat);
    free(m);
}

/* A Modelica result (Dymola/OpenModelica layout).  Variables: time;
 * mass.s (data_2 column 2); body.s, an alias of it; mass.nv = -v (column
 * 3); mass.v, the negated alias of mass.nv; friction.f (column 4); mass.m,
 * a parameter in data_1 (0.25). */
#define N_MOD    7
#define NAME_LEN 12
static const char *const mod_names[N_MOD] = {"time",   "mass.s",     "body.s", "mass.nv",
                                             "mass.v", "friction.f", "mass.m"};
static const int mod_info[N_MOD][4] = {{0, 1, 0, -1},  {2, 2, 0, -1}, {2, 2, 0, -1}, {2, 3, 0, -1},
                                       {2, -3, 0, -1}, {2, 4, 0, -1}, {1, 2, 0, 0}};
#define MASS_M 0.25

/* Element (r, c) of a rows x cols matrix stored as written: transposed
 * (binTrans) or not. */
static size_t at(int trans, size_t r, size_t c, size_t rows, size_t cols)
{
    return trans ? c + r * cols : r + c * rows;
}

static void write_modelica(const char *path, int trans)
{
    mat_t *mat = Mat_CreateVer(path, NULL, MAT_FT_MAT4);
    assert_non_null(mat);
    /* Aclass: 4 rows of text. */
    const char *aclass[4] = {"Atrajectory", "1.1", "", trans ? "binTrans" : "binNormal"};
    char ac[4 * 11];
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 11; j++)
            ac[r + j * 4] = j < (int)strlen(aclass[r]) ? aclass[r][j] : ' ';
    size_t acd[2] = {4, 11};
    put(mat, Mat_VarCreate("Aclass", MAT_C_CHAR, MAT_T_UINT8, 2, acd, ac, 0));
    /* name, description: one variable per row (binNormal) or column (binTrans). */
    char names[N_MOD * NAME_LEN];
    for (size_t i = 0; i < N_MOD; i++)
        for (size_t j = 0; j < NAME_LEN; j++)
            names[at(trans, i, j, N_MOD, NAME_LEN)] =
                j < strlen(mod_names[i]) ? mod_names[i][j] : ' ';
    size_t nd[2] = {trans ? NAME_LEN : N_MOD, trans ? N_MOD : NAME_LEN};
    put(mat, Mat_VarCreate("name", MAT_C_CHAR, MAT_T_UINT8, 2, nd, names, 0));
    put(mat, Mat_VarCreate("description", MAT_C_CHAR, MAT_T_UINT8, 2, nd, names, 0));
    int32_t info[N_MOD * 4];
    for (size_t i = 0; i < N_MOD; i++)
        for (size_t c = 0; c < 4; c++)
            info[at(trans, i, c, N_MOD, 4)] = mod_info[i][c];
    size_t id[2] = {trans ? 4 : N_MOD, trans ? N_MOD : 4};
    put(mat, Mat_VarCreate("dataInfo", MAT_C_INT32, MAT_T_INT32, 2, id, info, 0));
    /* data_1: time and mass.m at the start and the end. */
    double d1[4];
    const double d1v[2][2] = {{t[0], t[n - 1]}, {MASS_M, MASS_M}};
    for (size_t s = 0; s < 2; s++)
        for (size_t k = 0; k < 2; k++)
            d1[at(trans, s, k, 2, 2)] = d1v[k][s];
    put(mat, column("data_1", d1, 2, 2));
    double *d2 = malloc(sizeof *d2 * (size_t)n * 4);
    assert_non_null(d2);
    for (long s = 0; s < n; s++) {
        const double row[4] = {t[s], x[s], -v[s], f[s]};
        for (size_t k = 0; k < 4; k++)
            d2[at(trans, (size_t)s, k, (size_t)n, 4)] = row[k];
    }
    put(mat, column("data_2", d2, trans ? 4 : n, trans ? n : 4));
    Mat_Close(mat);
    free(d2);
}

/* ---- reading the report --------------------------------------------------------- */

/* The JSON report of `compare REF CAND OPTS`. */
static const char *compare_json_to(const char *ref, const char *cand, const char *opts)
{
    static char text[1 << 20];
    char js[600];
    path_in_dir(js, sizeof js, "report.json");
    remove(js);
    int rc = cli("compare %s %s %s -o %s", ref, cand, opts, js);
    if (rc) print_error("%s\n", out);
    assert_int_equal(rc, 0);
    FILE *fp = fopen(js, "r");
    assert_non_null(fp);
    size_t got = fread(text, 1, sizeof text - 1, fp);
    text[got] = '\0';
    fclose(fp);
    return text;
}

static const char *compare_json(const char *cand, const char *opts)
{
    return compare_json_to(belt_h5, cand, opts);
}

/* Every error zero, every event matched, the same dissipated energy. */
static void assert_exact(const char *j)
{
    const char *keys[] = {"max_abs_error_x", "max_abs_error_v", "rms_error_x",
                          "rms_error_v",     "final_error_x",   "final_error_v",
                          "events_missed",   "events_spurious", "dissipated_energy_difference"};
    for (int k = 0; k < 9; k++) {
        if (tu_json_value(j, keys[k]) != 0)
            print_error("%s = %g\n", keys[k], tu_json_value(j, keys[k]));
        assert_true(tu_json_value(j, keys[k]) == 0);
    }
    assert_true(tu_json_value(j, "stuck_iou") == 1);
    assert_true(tu_json_value(j, "n_points") == (double)n);
}

/* ---- candidates ------------------------------------------------------------------- */

static void v5_struct_with_time(void **state)
{
    (void)state;
    char p[600];
    path_in_dir(p, sizeof p, "simout.mat");
    write_struct_with_time(p, 0);
    const char *j =
        compare_json(p, "--columns t=simout.time,x=simout.signals.values:1,v=simout.signals."
                        "values:2");
    assert_exact(j);
    assert_non_null(strstr(j, "\"candidate_format\": \"mat\""));
    /* x shifted by 1e-3: the error is exactly what (x + dx) - x rounds to. */
    const double dx = 1e-3;
    write_struct_with_time(p, dx);
    double max = 0;
    for (long i = 0; i < n; i++)
        max = fmax(max, fabs((x[i] + dx) - x[i]));
    j = compare_json(p, "--columns t=simout.time,x=simout.signals.values:1,v=simout.signals."
                        "values:2");
    assert_true(tu_json_value(j, "max_abs_error_x") == max);
    assert_true(tu_json_value(j, "final_error_x") == (x[n - 1] + dx) - x[n - 1]);
    assert_true(tu_json_value(j, "max_abs_error_v") == 0);
}

static void matrices_either_orientation(void **state)
{
    (void)state;
    char p[600];
    /* v7.3 (HDF5 inside): Debian's matio is built with HDF5 and writes it. */
    path_in_dir(p, sizeof p, "yout73.mat");
    write_matrix(p, MAT_FT_MAT73, 0);
    const char *j = compare_json(p, "--columns t=yout:1,x=yout:2,v=yout:3,friction=yout:4");
    assert_exact(j);
    assert_non_null(strstr(j, "\"energy_method\": \"friction column"));
    /* v5, signals x samples. */
    path_in_dir(p, sizeof p, "yout5t.mat");
    write_matrix(p, MAT_FT_MAT5, 1);
    assert_exact(compare_json(p, "--columns t=yout:1,x=yout:2,v=yout:3"));
    /* The result itself, as MATLAB would load it. */
    path_in_dir(p, sizeof p, "belt.mat");
    assert_int_equal(cli("run %sbelt_stick_slip.yaml -o %s -q", EX, p), 0);
    j = compare_json(p, "--columns t=trajectory.t,x=trajectory.x,v=trajectory.v,friction="
                        "trajectory.friction");
    assert_exact(j);
}

static void modelica_results(void **state)
{
    (void)state;
    for (int trans = 0; trans < 2; trans++) {
        char p[600];
        path_in_dir(p, sizeof p, trans ? "dsres_trans.mat" : "dsres_normal.mat");
        write_modelica(p, trans);
        /* body.s is an alias, mass.v a negated alias of -v. */
        const char *j = compare_json(p, "--columns t=time,x=body.s,v=mass.v,friction=friction.f");
        assert_exact(j);
        assert_non_null(strstr(j, "\"candidate_format\": \"modelica result\""));
        /* The parameter mass.m at every sample: error max |0.25 - x|. */
        double max = 0;
        for (long i = 0; i < n; i++)
            max = fmax(max, fabs(MASS_M - x[i]));
        j = compare_json(p, "--columns t=time,x=mass.m,v=mass.v");
        assert_true(tu_json_value(j, "max_abs_error_x") == max);
        assert_true(tu_json_value(j, "max_abs_error_v") == 0);
    }
}

static void hdf5_matrices(void **state)
{
    (void)state;
    char p[600];
    path_in_dir(p, sizeof p, "user.h5");
    hid_t file = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(file >= 0);
    const double *sig[] = {t, x, v};
    for (int transposed = 0; transposed < 2; transposed++) {
        /* matrix() is column-major; as a row-major dataset it is the
         * transpose: samples x signals when `transposed`. */
        double *m = matrix(sig, 3, transposed);
        hsize_t dims[2] = {transposed ? (hsize_t)n : 3, transposed ? 3 : (hsize_t)n};
        hid_t sp = H5Screate_simple(2, dims, NULL);
        hid_t d = H5Dcreate2(file, transposed ? "rows" : "cols", H5T_IEEE_F64LE, sp, H5P_DEFAULT,
                             H5P_DEFAULT, H5P_DEFAULT);
        assert_true(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m) >= 0);
        H5Dclose(d);
        H5Sclose(sp);
        free(m);
    }
    H5Fclose(file);
    assert_exact(compare_json(p, "--columns t=rows:1,x=rows:2,v=rows:3"));
    assert_exact(compare_json(p, "--columns t=cols:1,x=cols:2,v=cols:3"));
    /* The positional form takes columns too. */
    assert_exact(compare_json(p, "--columns rows:1,rows:2,rows:3"));
}

/* ---- bad mappings ------------------------------------------------------------------- */

/* Exit 2, one line, containing `want`. */
static void expect_bad(const char *file, const char *opts, const char *want)
{
    char p[600];
    path_in_dir(p, sizeof p, file);
    int rc = cli("compare %s %s %s", belt_h5, p, opts);
    if (rc != 2 || !strstr(out, want)) print_error("got %d: %s\nwant: %s\n", rc, out, want);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, want));
    assert_int_equal((int)(strchr(out, '\n') - out + 1), (int)strlen(out));
}

/* A MATLAB timeseries object as MATLAB saves it (an mxOPAQUE_CLASS matrix
 * of the MCOS system).  matio cannot write objects, so these bytes are
 * laid out here by hand (MAT-file format, "Opaque" class). */
static void write_timeseries_object(const char *path)
{
    static const char head[] = "MATLAB 5.0 MAT-file, a timeseries object as MATLAB writes it";
    unsigned char b[512] = {0};
    memset(b, ' ', 116);
    memcpy(b, head, strlen(head));
    b[124] = 0x00, b[125] = 0x01, b[126] = 'I', b[127] = 'M';
    /* miMATRIX: flags (opaque, 17), name, class system, class name, metadata. */
    static const uint32_t body[] = {
        14, 136,                                        /* miMATRIX, 136 bytes */
        6,  8,   17,         0,                         /* array flags: class 17 */
        1,  6,   0x6f6d6973, 0x00007475,                /* "simout" */
        1,  4,   0x534f434d, 0,                         /* "MCOS" */
        1,  10,  0x656d6974, 0x69726573, 0x00007365, 0, /* "timeseries" */
        14, 56,  6,          8,          13,         0, /* uint32 metadata matrix */
        5,  8,   1,          2,          1,          0, /* dims 1 x 2, empty name */
        6,  8,   0xdd000000, 2};
    memcpy(b + 128, body, sizeof body);
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(b, 1, 128 + sizeof body, fp), 128 + sizeof body);
    fclose(fp);
}

static void bad_mappings(void **state)
{
    (void)state;
    char p[600];
    path_in_dir(p, sizeof p, "bad.mat");
    write_struct_with_time(p, 0);
    const char *sv = "v=simout.signals.values:2";
    char o[256];
    snprintf(o, sizeof o, "--columns t=simout.time,x=nothing,%s", sv);
    expect_bad("bad.mat", o, "bad.mat: no variable 'nothing' (variables: 'simout', 'short'");
    snprintf(o, sizeof o, "--columns t=simout.time,x=simout.signals.valuez,%s", sv);
    expect_bad("bad.mat", o, "bad.mat: 'simout.signals.valuez': the struct has no field 'valuez'");
    snprintf(o, sizeof o, "--columns t=simout.time,x=simout.signals.values:3,%s", sv);
    char want[256];
    snprintf(want, sizeof want,
             "bad.mat: 'simout.signals.values': column 3 out of range (a %ld x 2 matrix has 2 "
             "signals)",
             n);
    expect_bad("bad.mat", o, want);
    snprintf(o, sizeof o, "--columns t=simout.time,x=simout.signals.values,%s", sv);
    snprintf(want, sizeof want,
             "bad.mat: 'simout.signals.values': a %ld x 2 matrix: choose a column with "
             "'simout.signals.values:N' (N = 1..2)",
             n);
    expect_bad("bad.mat", o, want);
    snprintf(o, sizeof o, "--columns t=tout,x=short,%s", sv);
    snprintf(want, sizeof want,
             "bad.mat: 'short': 10 rows, but the time 'tout' has %ld (expected equal lengths)", n);
    expect_bad("bad.mat", o, want);
    snprintf(o, sizeof o, "--columns t=tout,x=label,%s", sv);
    expect_bad("bad.mat", o,
               "bad.mat: 'label': not numeric (a 1 x 5 char array), expected real numbers");
    snprintf(o, sizeof o, "--columns t=tout,x=simout.signals,%s", sv);
    expect_bad("bad.mat", o, "bad.mat: 'simout.signals': not numeric (a 1 x 1 struct)");
    snprintf(o, sizeof o, "--columns t=tout,x=simout.time.values,%s", sv);
    expect_bad("bad.mat", o, "bad.mat: 'simout.time.values': no field 'values'");
    /* Default names in a file that has none of them. */
    expect_bad("bad.mat", "", "bad.mat: no variable 't' (variables: 'simout'");
    /* A timeseries object: say how to export instead. */
    path_in_dir(p, sizeof p, "ts.mat");
    write_timeseries_object(p);
    expect_bad("ts.mat", "--columns t=simout,x=simout,v=simout",
               "ts.mat: no variable 'simout' (the file holds 1 MATLAB object that cannot be "
               "read: MATLAB objects (timeseries, Simulink.SimulationData.Dataset) cannot be read "
               "outside MATLAB: save plain arrays instead");
    /* Modelica: a name the model does not have. */
    path_in_dir(p, sizeof p, "dsres_bad.mat");
    write_modelica(p, 1);
    expect_bad("dsres_bad.mat", "--columns t=time,x=mass.z,v=mass.v",
               "dsres_bad.mat: no variable 'mass.z' in the Modelica result (7 variables: 'time', "
               "'mass.s', 'body.s', 'mass.nv', ...");
    /* A matrix column out of range in a v7.3 file and in HDF5. */
    expect_bad("yout73.mat", "--columns t=yout:1,x=yout:5,v=yout:3",
               "yout73.mat: 'yout': column 5 out of range");
    expect_bad("user.h5", "--columns t=rows:1,x=rows:4,v=rows:3",
               "user.h5: dataset /rows: column 4 out of range");
    expect_bad("user.h5", "--columns t=rows,x=rows:2,v=rows:3", "user.h5: dataset /rows: a 3 x");
    /* Not a MAT file at all. */
    path_in_dir(p, sizeof p, "text.mat");
    assert_int_equal(tu_write_file(p, "t,x,v\n"), 0);
    expect_bad("text.mat", "", "text.mat: not a MAT file matio can read");
    /* The mapping itself: the message, then the usage. */
    const char *opt_bad[][2] = {
        {"t=tout,x=a,v=b,q=c", "--columns: unknown role 'q' in 't=tout,x=a,v=b,q=c'"},
        {"t=tout,x=a", "--columns: no source for 'v' in 't=tout,x=a'"},
        {"t=tout,x,v", "--columns: use either t,x,v or t=A,x=B,v=C, not both"},
        {"t=a,t=b,x=c,v=d", "--columns: role 't' given twice"}};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(cli("compare %s %s --columns %s", belt_h5, p, opt_bad[k][0]), 2);
        if (!strstr(out, opt_bad[k][1])) print_error("%s\nwant: %s\n", out, opt_bad[k][1]);
        assert_non_null(strstr(out, opt_bad[k][1]));
    }
}

/* ---- results as MAT ------------------------------------------------------------------ */

static matvar_t *field(matvar_t *s, const char *name)
{
    matvar_t *f = Mat_VarGetStructFieldByName(s, name, 0);
    if (!f) print_error("no field %s\n", name);
    assert_non_null(f);
    return f;
}

/* A char row as a C string (UTF-16 or 8-bit as matio stored it). */
static void text_of(const matvar_t *c, char *buf, size_t sz)
{
    assert_int_equal(c->class_type, MAT_C_CHAR);
    size_t len = c->rank == 2 ? c->dims[0] * c->dims[1] : 0;
    assert_true(len < sz);
    for (size_t i = 0; i < len; i++)
        buf[i] = c->data_type == MAT_T_UINT16 || c->data_type == MAT_T_UTF16
                     ? (char)((const uint16_t *)c->data)[i]
                     : ((const char *)c->data)[i];
    buf[len] = '\0';
}

static void result_as_mat(void **state)
{
    (void)state;
    char p[600], txt[65536];
    path_in_dir(p, sizeof p, "belt_result.mat");
    assert_int_equal(cli("run %sbelt_stick_slip.yaml -o %s -q", EX, p), 0);
    mat_t *mat = Mat_Open(p, MAT_ACC_RDONLY);
    assert_non_null(mat);
    assert_int_equal(Mat_GetVersion(mat), MAT_FT_MAT5);
    matvar_t *tr = Mat_VarRead(mat, "trajectory");
    assert_non_null(tr);
    const double *want[] = {t, x, v, f};
    const char *names[] = {"t", "x", "v", "friction"};
    for (int k = 0; k < 4; k++) {
        matvar_t *c = field(tr, names[k]);
        assert_int_equal(c->dims[0], n);
        assert_memory_equal(c->data, want[k], sizeof(double) * (size_t)n);
    }
    assert_int_equal(field(tr, "mode")->class_type, MAT_C_INT8);
    Mat_VarFree(tr);
    stsl_h5_result res;
    stsl_error err;
    assert_int_equal(stsl_h5_read(belt_h5, &res, &err), 0);
    matvar_t *ev = Mat_VarRead(mat, "events");
    assert_non_null(ev);
    matvar_t *et = field(ev, "t"), *kind = field(ev, "kind");
    assert_int_equal(et->dims[0], n_events);
    assert_int_equal(kind->class_type, MAT_C_CELL);
    for (long i = 0; i < n_events; i++) {
        assert_true(((const double *)et->data)[i] == res.events[i].t);
        text_of(Mat_VarGetCell(kind, (int)i), txt, sizeof txt);
        assert_string_equal(txt, res.events[i].kind);
    }
    Mat_VarFree(ev);
    matvar_t *cfg = Mat_VarRead(mat, "config"), *complete = Mat_VarRead(mat, "complete"),
             *units = Mat_VarRead(mat, "units");
    text_of(cfg, txt, sizeof txt);
    assert_string_equal(txt, res.config_yaml);
    assert_true(*(const double *)complete->data == 1);
    text_of(field(units, "v"), txt, sizeof txt);
    assert_string_equal(txt, "m/s");
    Mat_VarFree(cfg);
    Mat_VarFree(complete);
    Mat_VarFree(units);
    Mat_Close(mat);
    stsl_h5_result_free(&res);
    /* An incomplete run is written too, saying why. */
    path_in_dir(p, sizeof p, "inc.mat");
    assert_int_equal(
        cli("run %sbelt_stick_slip.yaml --set simulation.max_events=3 -o %s -q", EX, p), 3);
    mat = Mat_Open(p, MAT_ACC_RDONLY);
    assert_non_null(mat);
    complete = Mat_VarRead(mat, "complete");
    matvar_t *msg = Mat_VarRead(mat, "message");
    assert_true(*(const double *)complete->data == 0);
    text_of(msg, txt, sizeof txt);
    assert_non_null(strstr(txt, "more than simulation.max_events"));
    Mat_VarFree(complete);
    Mat_VarFree(msg);
    Mat_Close(mat);
    /* --format mat whatever the name; a bad format is bad input. */
    path_in_dir(p, sizeof p, "named.out");
    assert_int_equal(cli("run %sbelt_stick_slip.yaml --format mat -o %s -q", EX, p), 0);
    FILE *fp = fopen(p, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(txt, 1, 19, fp), 19);
    fclose(fp);
    assert_memory_equal(txt, "MATLAB 5.0 MAT-file", 19);
    assert_int_equal(cli("run %sbelt_stick_slip.yaml --format xls -o %s", EX, p), 2);
    assert_non_null(strstr(out, "--format: expected h5 or mat: 'xls'"));
}

/* A rotational result: its char data is UTF-16 (miUTF16), so "N·m" is the
 * three characters N, U+00B7, m, and the candidate reader reads the
 * trajectory back exactly against the HDF5 result of the same run. */
static void rotational_as_mat(void **state)
{
    (void)state;
    char p[600], h5[600];
    path_in_dir(p, sizeof p, "rot.mat");
    path_in_dir(h5, sizeof h5, "rot.h5");
    assert_int_equal(cli("run %s20sim_scvs.yaml -o %s -q", EX, p), 0);
    assert_int_equal(cli("run %s20sim_scvs.yaml -o %s -q", EX, h5), 0);
    mat_t *mat = Mat_Open(p, MAT_ACC_RDONLY);
    assert_non_null(mat);
    matvar_t *units = Mat_VarRead(mat, "units");
    assert_non_null(units);
    const matvar_t *fr = field(units, "friction");
    const uint16_t torque[] = {'N', 0x00B7, 'm'};
    assert_int_equal(fr->data_type, MAT_T_UTF16);
    assert_int_equal(fr->dims[0] * fr->dims[1], 3);
    assert_memory_equal(fr->data, torque, sizeof torque);
    Mat_VarFree(units);
    Mat_Close(mat);
    const char *j =
        compare_json_to(h5, p, "--columns t=trajectory.t,x=trajectory.x,v=trajectory.v");
    assert_true(tu_json_value(j, "max_abs_error_x") == 0);
    assert_true(tu_json_value(j, "max_abs_error_v") == 0);
    assert_true(tu_json_value(j, "final_error_x") == 0);
}

/* Text that is not valid UTF-8 (a message quoting a file name) is still
 * written: each bad byte becomes U+FFFD; a 4-byte character becomes a
 * surrogate pair, as MATLAB counts it. */
static void mat_text_encoding(void **state)
{
    (void)state;
    char p[600];
    path_in_dir(p, sizeof p, "text.mat");
    stsl_sink sink = {0};
    stsl_error err = {0};
    assert_int_equal(
        stsl_mat_sink_create(p, "a\xc2\xb7\xf0\x9f\x98\x80\xff\xc2", "test", 0, &sink, &err), 0);
    assert_int_equal(stsl_sink_end(&sink, &(stsl_stats){0}, 1, "", &err), 0);
    stsl_sink_free(&sink);
    mat_t *mat = Mat_Open(p, MAT_ACC_RDONLY);
    assert_non_null(mat);
    matvar_t *cfg = Mat_VarRead(mat, "config");
    assert_non_null(cfg);
    const uint16_t want[] = {'a', 0x00B7, 0xD83D, 0xDE00, 0xFFFD, 0xFFFD};
    assert_int_equal(cfg->data_type, MAT_T_UTF16);
    assert_int_equal(cfg->dims[0] * cfg->dims[1], 6);
    assert_memory_equal(cfg->data, want, sizeof want);
    Mat_VarFree(cfg);
    Mat_Close(mat);
}

/* An empty run's MAT result written as DIR/name (its path into p), opened
 * to be changed, with its variable `var` deleted. */
static mat_t *result_without(const char *name, const char *var, char *p, size_t size)
{
    path_in_dir(p, size, name);
    stsl_sink sink = {0};
    stsl_error err = {0};
    assert_int_equal(stsl_mat_sink_create(p, "yaml: 1", "test", 0, &sink, &err), 0);
    assert_int_equal(stsl_sink_end(&sink, &(stsl_stats){0}, 1, "", &err), 0);
    stsl_sink_free(&sink);
    mat_t *mat = Mat_Open(p, MAT_ACC_RDWR);
    assert_non_null(mat);
    assert_int_equal(Mat_VarDelete(mat, var), 0);
    return mat;
}

/* The reader decodes UTF-16 char data to UTF-8 the way the Unicode
 * standard says: a pair is one 4-byte character (U+1F600 = F0 9F 98 80),
 * each unpaired surrogate (a high one before a non-surrogate, a lone low
 * one, a high one ending the text) is U+FFFD (EF BF BD), and the unit after
 * a lone high surrogate is kept. */
static void mat_text_decoding(void **state)
{
    (void)state;
    char p[600];
    stsl_error err = {0};
    mat_t *mat = result_without("decode.mat", "message", p, sizeof p);
    uint16_t units[] = {'a', 0xD83D, 0xDE00, 0xD800, 'b', 0xDC00, 'c', 0xD83D};
    size_t dims[2] = {1, sizeof units / sizeof units[0]};
    put(mat, Mat_VarCreate("message", MAT_C_CHAR, MAT_T_UTF16, 2, dims, units, 0));
    Mat_Close(mat);
    stsl_h5_result res;
    stsl_mat_arrays a;
    assert_int_equal(stsl_mat_result_read(p, &res, &a, &err), 0);
    assert_string_equal(res.message, "a\xf0\x9f\x98\x80\xef\xbf\xbd"
                                     "b\xef\xbf\xbd"
                                     "c\xef\xbf\xbd");
    stsl_h5_result_free(&res);
    stsl_mat_arrays_free(&a);
}

/* A MAT file without the variable `program` is refused naming it, and the
 * program read is "": the reader once copied the name from a buffer it
 * had not filled (past its end when the stack held no zero byte; only a
 * memory checker sees it every time: `valgrind test_mat` reported the
 * uninitialised reads in read_root before the fix). */
static void mat_without_program(void **state)
{
    (void)state;
    char p[600];
    stsl_error err = {0};
    Mat_Close(result_without("noprogram.mat", "program", p, sizeof p));
    stsl_h5_result res;
    stsl_mat_arrays a;
    assert_int_equal(stsl_mat_result_read(p, &res, &a, &err), STSL_EINPUT);
    assert_non_null(
        strstr(err.msg, "noprogram.mat: not a stickslip result: no variable 'program'"));
    assert_string_equal(res.program, "");
}

/* Above its limit the MAT sink stops the run with a message naming the
 * limit and the way out, and still writes what it has, marked incomplete. */
static void mat_sink_limit(void **state)
{
    (void)state;
    char p[600], txt[4096];
    path_in_dir(p, sizeof p, "limited.mat");
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load(EX "belt_stick_slip.yaml", NULL, 0, &cfg, &err), 0);
    stsl_sink sink = {0};
    /* 8 bytes x (t + the 8 columns of the element) x 1000 samples. */
    assert_int_equal(stsl_mat_sink_create(p, "yaml: 1", "test", 72000, &sink, &err), 0);
    int rc = stsl_run_element(&cfg.element, &cfg.sim, &cfg.scheme, &sink, NULL, &err);
    stsl_sink_free(&sink);
    stsl_config_free(&cfg);
    assert_int_equal(rc, STSL_EIO);
    if (rc != STSL_EIO || !strstr(err.msg, "more than 1000")) print_error("%d %s\n", rc, err.msg);
    assert_non_null(strstr(err.msg, "limited.mat: more than 1000 samples at t = "));
    assert_non_null(strstr(err.msg, "limited to 72000 bytes (STSL_MAT_MAX_BYTES); write HDF5"));
    mat_t *mat = Mat_Open(p, MAT_ACC_RDONLY);
    assert_non_null(mat);
    matvar_t *complete = Mat_VarRead(mat, "complete"), *msg = Mat_VarRead(mat, "message"),
             *tr = Mat_VarRead(mat, "trajectory");
    assert_true(*(const double *)complete->data == 0);
    text_of(msg, txt, sizeof txt);
    assert_non_null(strstr(txt, "more than 1000 samples"));
    assert_int_equal(field(tr, "t")->dims[0], 1000);
    Mat_VarFree(complete);
    Mat_VarFree(msg);
    Mat_VarFree(tr);
    Mat_Close(mat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v5_struct_with_time), cmocka_unit_test(matrices_either_orientation),
        cmocka_unit_test(modelica_results),    cmocka_unit_test(hdf5_matrices),
        cmocka_unit_test(bad_mappings),        cmocka_unit_test(result_as_mat),
        cmocka_unit_test(mat_sink_limit),      cmocka_unit_test(rotational_as_mat),
        cmocka_unit_test(mat_text_encoding),   cmocka_unit_test(mat_text_decoding),
        cmocka_unit_test(mat_without_program),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
