/* test_io_system.c - the results of a system of bodies (issue 14, item 5;
 * docs/hdf5-layout.md "Systems"): a synthetic layout of 3 bodies, 2
 * contacts and 1 stop, with column groups and events about a contact or a
 * stop, through every writer (HDF5, CSV, MAT, memory) and back through the
 * readers (the HDF5 C API from outside, io/result/h5_read, stsl_result_read,
 * matio): shapes, names and every value exact (the writers copy doubles,
 * so equality is bitwise), and no /trajectory/mode without a scalar mode. */
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

#include "include/stickslip.h"
#include "io/result/csv_sink.h"
#include "io/result/h5_read.h"
#include "io/result/h5_sink.h"
#include "io/result/mat_sink.h"
#include "io/result/mem_sink.h"
#include "io/result/run_record.h"
#include "test/testutil.h"

/* ---- the synthetic system ---------------------------------------------------- */

enum {
    NB = 3, /* bodies */
    NC = 2, /* contacts */
    NS = 1, /* stops */
    X0 = 0,
    V0 = X0 + NB,
    A0 = V0 + NB,
    F0 = A0 + NB,
    W0 = F0 + NC,
    CM0 = W0 + NC,
    SR0 = CM0 + NC,
    SM0 = SR0 + NS,
    XB = SM0 + NS,
    VB = XB + 1,
    NCOL = VB + 1 /* 19 */
};
/* More samples than one 4096-row block and more events than one 256-row
 * block: the writers' flushes and extensions are crossed. */
#define N_GRID   4500
#define N_EVENTS 300
#define DT       0.01

static const char *const bodies[NB] = {"motor", "load", "tail"};
static const char *const contacts[NC] = {"bearing", "clutch"};
static const char *const stops[NS] = {"backlash"};
static const char *const contact_values[] = {"STUCK", "SLIP_POS", "SLIP_NEG", "SMOOTH"};
static const char *const stop_values[] = {"OPEN", "LOW", "HIGH"};
static const char *const subjects[NC + NS] = {"bearing", "clutch", "backlash"};
static const char *const kinds[] = {"stick", "breakaway", "impact", "ambiguous"};

static stsl_column cols[NCOL];
static const stsl_col_group groups[] = {
    {"x", "m", "position", X0, NB, bodies, 0, 0, NULL},
    {"v", "m/s", "velocity", V0, NB, bodies, 0, 0, NULL},
    {"a", "m/s^2", "acceleration", A0, NB, bodies, 0, 0, NULL},
    {"friction", "N", "friction force", F0, NC, contacts, 0, 0, NULL},
    {"slip_velocity", "m/s", "slip velocity", W0, NC, contacts, 0, 0, NULL},
    {"contact_mode", "", "contact mode", CM0, NC, contacts, 1, 4, contact_values},
    {"stop_reaction", "N", "stop reaction", SR0, NS, stops, 0, 0, NULL},
    {"stop_mode", "", "stop mode", SM0, NS, stops, 1, 3, stop_values}};
#define N_GROUPS ((int)(sizeof groups / sizeof groups[0]))

static stsl_layout system_layout(void)
{
    static char names[NCOL][32];
    for (int c = 0; c < NCOL; c++) {
        int g = -1;
        for (int k = 0; k < N_GROUPS; k++)
            if (c >= groups[k].first && c < groups[k].first + groups[k].width) g = k;
        if (g >= 0)
            snprintf(names[c], sizeof names[c], "%s[%s]", groups[g].name,
                     groups[g].member_names[c - groups[g].first]);
        else
            snprintf(names[c], sizeof names[c], "%s", c == XB ? "x_base" : "v_base");
        cols[c] = (stsl_column){names[c],
                                g >= 0    ? groups[g].units
                                : c == XB ? "m"
                                          : "m/s",
                                g >= 0 ? groups[g].long_name : "base motion"};
    }
    return (stsl_layout){NCOL, cols, "s", 0, NULL, 4, kinds, N_GROUPS, groups, NC + NS, subjects};
}

/* The value of column c at row r: distinct, not round in binary, and small
 * integers (mode numbers) in the int8 groups. */
static double value(long r, int c, int after)
{
    if (c >= CM0 && c < CM0 + NC) return (double)((r + c + after) % 4);
    if (c >= SM0 && c < SM0 + NS) return (double)((r + after) % 3);
    return 0.1 * (double)r + (double)c / 7.0 - (after ? 1.0 / 3.0 : 0.0);
}

/* Event k: at the middle of grid interval 15 k, about subject k % 4 (0:
 * none), its values those of the rows written at it. */
static double event_time(int k)
{
    return (15.0 * k + 0.5) * DT;
}

/* Rows of the run, in order: grid rows i (t = i DT) and, at each event, its
 * two rows (before, after) as the solver writes them.  row_t/row_v give
 * row r's time and values. */
typedef struct run_rows {
    long n;
    double t[N_GRID + 2 * N_EVENTS];
    long key[N_GRID + 2 * N_EVENTS]; /* value(key, c, after) */
    int after[N_GRID + 2 * N_EVENTS];
} run_rows;

static void push(run_rows *rr, double t, long key, int after)
{
    rr->t[rr->n] = t;
    rr->key[rr->n] = key;
    rr->after[rr->n++] = after;
}

/* Feed the run to a sink; with `rr` keep its rows for checking. */
static void write_system(stsl_sink *s, run_rows *rr)
{
    stsl_error err = {0};
    stsl_layout l = system_layout();
    run_rows local;
    if (!rr) rr = &local;
    rr->n = 0;
    assert_int_equal(stsl_sink_begin(s, &l, &err), STSL_OK);
    double row[NCOL], before[NCOL], after[NCOL];
    int k = 0;
    for (long i = 0; i < N_GRID; i++) {
        for (int c = 0; c < NCOL; c++)
            row[c] = value(i, c, 0);
        push(rr, i * DT, i, 0);
        assert_int_equal(stsl_sink_sample(s, i * DT, -1, row, &err), STSL_OK);
        if (k < N_EVENTS && i == 15L * k) {
            long key = 100000 + k;
            for (int c = 0; c < NCOL; c++) {
                before[c] = value(key, c, 0);
                after[c] = value(key, c, 1);
            }
            stsl_event_rec ev = {event_time(k), k % 4, -1, -1, before, after, k % 4};
            assert_int_equal(stsl_sink_event(s, &ev, &err), STSL_OK);
            assert_int_equal(stsl_sink_sample(s, ev.t, -1, before, &err), STSL_OK);
            assert_int_equal(stsl_sink_sample(s, ev.t, -1, after, &err), STSL_OK);
            push(rr, ev.t, key, 0);
            push(rr, ev.t, key, 1);
            k++;
        }
    }
    assert_int_equal(k, N_EVENTS);
    stsl_stats st = {0};
    st.steps = 1234;
    st.events = N_EVENTS;
    assert_int_equal(stsl_sink_end(s, &st, 1, NULL, &err), STSL_OK);
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* ---- HDF5, checked with the HDF5 C API (from outside our reader) ------------- */

static void check_dims(hid_t d, int rank, hsize_t d0, hsize_t d1)
{
    hid_t sp = H5Dget_space(d);
    hsize_t dims[2] = {0, 0};
    assert_int_equal(H5Sget_simple_extent_ndims(sp), rank);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    assert_int_equal(dims[0], d0);
    if (rank == 2) assert_int_equal(dims[1], d1);
    H5Sclose(sp);
}

static void check_str_attr(hid_t obj, const char *name, const char *want)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = H5Aget_type(a);
    char *s = NULL;
    assert_int_equal(H5Aread(a, t, &s), 0);
    assert_string_equal(s, want);
    H5free_memory(s);
    H5Tclose(t);
    H5Aclose(a);
}

/* A 1-D attribute of vlen strings equal to want[0..n-1]. */
static void check_names_attr(hid_t obj, const char *name, const char *const *want, int n)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT), sp = H5Aget_space(a);
    hssize_t got = H5Sget_simple_extent_npoints(sp);
    assert_int_equal(got, n);
    char *s[8] = {0};
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    assert_int_equal(H5Aread(a, t, s), 0);
    for (int i = 0; i < n; i++)
        assert_string_equal(s[i], want[i]);
    H5Dvlen_reclaim(t, sp, H5P_DEFAULT, s);
    H5Tclose(t);
    H5Sclose(sp);
    H5Aclose(a);
}

/* Group g's dataset: samples x width, its attributes, every value exact. */
static void check_group_dataset(hid_t traj, const stsl_col_group *g, const run_rows *rr)
{
    hid_t d = H5Dopen2(traj, g->name, H5P_DEFAULT);
    assert_true(d >= 0);
    check_dims(d, 2, (hsize_t)rr->n, (hsize_t)g->width);
    hid_t t = H5Dget_type(d);
    assert_int_equal(H5Tget_class(t), g->integer ? H5T_INTEGER : H5T_FLOAT);
    assert_int_equal(H5Tget_size(t), g->integer ? 1 : 8);
    H5Tclose(t);
    check_str_attr(d, "units", g->units);
    check_str_attr(d, "long_name", g->long_name);
    check_names_attr(d, "names", g->member_names, g->width);
    if (g->integer)
        check_str_attr(d, "mode_names",
                       g->n_value_names == 4 ? "0 STUCK, 1 SLIP_POS, 2 SLIP_NEG, 3 SMOOTH"
                                             : "0 OPEN, 1 LOW, 2 HIGH");
    double *v = malloc(sizeof *v * (size_t)rr->n * (size_t)g->width);
    assert_int_equal(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
    for (long r = 0; r < rr->n; r++)
        for (int k = 0; k < g->width; k++)
            assert_true(v[r * g->width + k] == value(rr->key[r], g->first + k, rr->after[r]));
    free(v);
    H5Dclose(d);
}

/* One /events row as a memory compound with the arrays of the widest
 * layout here (3 bodies). */
typedef struct ev_row {
    double t;
    char kind[17];
    double x[NB], v_before[NB], v_after[NB], friction[NC];
    double net_force;
    int32_t index;
    char *name;
} ev_row;

static hid_t ev_row_type(void)
{
    hsize_t nb = NB, nc = NC;
    hid_t c = H5Tcreate(H5T_COMPOUND, sizeof(ev_row)), s = H5Tcopy(H5T_C_S1);
    hid_t ab = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &nb),
          ac = H5Tarray_create2(H5T_NATIVE_DOUBLE, 1, &nc);
    hid_t vs = H5Tcopy(H5T_C_S1);
    H5Tset_size(s, 17);
    H5Tset_size(vs, H5T_VARIABLE);
    H5Tset_cset(vs, H5T_CSET_UTF8);
    H5Tinsert(c, "t", offsetof(ev_row, t), H5T_NATIVE_DOUBLE);
    H5Tinsert(c, "kind", offsetof(ev_row, kind), s);
    H5Tinsert(c, "x", offsetof(ev_row, x), ab);
    H5Tinsert(c, "v_before", offsetof(ev_row, v_before), ab);
    H5Tinsert(c, "v_after", offsetof(ev_row, v_after), ab);
    H5Tinsert(c, "friction", offsetof(ev_row, friction), ac);
    H5Tinsert(c, "net_force", offsetof(ev_row, net_force), H5T_NATIVE_DOUBLE);
    H5Tinsert(c, "index", offsetof(ev_row, index), H5T_NATIVE_INT32);
    H5Tinsert(c, "subject", offsetof(ev_row, name), vs);
    H5Tclose(s);
    H5Tclose(ab);
    H5Tclose(ac);
    H5Tclose(vs);
    return c;
}

static void check_h5_events(hid_t f)
{
    hid_t d = H5Dopen2(f, "events", H5P_DEFAULT);
    assert_true(d >= 0);
    check_dims(d, 1, N_EVENTS, 0);
    check_names_attr(d, "subject_names", subjects, NC + NS);
    check_str_attr(d, "kind_names", "stick,breakaway,impact,ambiguous");
    check_str_attr(d, "units",
                   "t [s], x [m], v_before [m/s], v_after [m/s], net_force [], friction [N]");
    /* The file's members: x an array of 3 (bodies), friction of 2 (contacts). */
    hid_t ft = H5Dget_type(d);
    int ix = H5Tget_member_index(ft, "x"), ifr = H5Tget_member_index(ft, "friction");
    assert_int_equal(H5Tget_member_class(ft, (unsigned)ix), H5T_ARRAY);
    hid_t mx = H5Tget_member_type(ft, (unsigned)ifr);
    hsize_t dim = 0;
    H5Tget_array_dims2(mx, &dim);
    assert_int_equal(dim, NC);
    H5Tclose(mx);
    assert_int_equal(H5Tget_member_class(ft, (unsigned)H5Tget_member_index(ft, "index")),
                     H5T_INTEGER);
    H5Tclose(ft);

    ev_row *e = calloc(N_EVENTS, sizeof *e);
    hid_t mt = ev_row_type();
    assert_int_equal(H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, e), 0);
    for (int k = 0; k < N_EVENTS; k++) {
        long key = 100000 + k;
        assert_true(e[k].t == event_time(k));
        assert_string_equal(e[k].kind, kinds[k % 4]);
        assert_int_equal(e[k].index, k % 4 - 1);
        assert_string_equal(e[k].name, k % 4 ? subjects[k % 4 - 1] : "");
        for (int b = 0; b < NB; b++) {
            assert_true(e[k].x[b] == value(key, X0 + b, 0));
            assert_true(e[k].v_before[b] == value(key, V0 + b, 0));
            assert_true(e[k].v_after[b] == value(key, V0 + b, 1));
        }
        for (int c = 0; c < NC; c++)
            assert_true(e[k].friction[c] == value(key, F0 + c, 1));
        assert_true(isnan(e[k].net_force)); /* a system has no net_force column */
    }
    hid_t sp = H5Dget_space(d);
    H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, e);
    H5Sclose(sp);
    H5Tclose(mt);
    free(e);
    H5Dclose(d);
}

static void check_h5_file(const char *path, const run_rows *rr)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t traj = H5Gopen2(f, "trajectory", H5P_DEFAULT);
    /* No scalar mode: the system's modes are the groups. */
    assert_int_equal(H5Lexists(traj, "mode", H5P_DEFAULT), 0);
    /* t, the groups and the 1-D columns in the model's order. */
    const char *order[] = {"t",
                           "x",
                           "v",
                           "a",
                           "friction",
                           "slip_velocity",
                           "contact_mode",
                           "stop_reaction",
                           "stop_mode",
                           "x_base",
                           "v_base"};
    H5G_info_t info;
    H5Gget_info(traj, &info);
    assert_int_equal(info.nlinks, 11);
    for (hsize_t i = 0; i < info.nlinks; i++) {
        char name[64];
        H5Lget_name_by_idx(traj, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, name, sizeof name,
                           H5P_DEFAULT);
        assert_string_equal(name, order[i]);
    }
    for (int g = 0; g < N_GROUPS; g++)
        check_group_dataset(traj, &groups[g], rr);
    hid_t d = H5Dopen2(traj, "v_base", H5P_DEFAULT);
    check_dims(d, 1, (hsize_t)rr->n, 0);
    double *v = malloc(sizeof *v * (size_t)rr->n);
    assert_int_equal(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), 0);
    for (long r = 0; r < rr->n; r++)
        assert_true(v[r] == value(rr->key[r], VB, rr->after[r]));
    free(v);
    H5Dclose(d);
    H5Gclose(traj);
    check_h5_events(f);
    H5Fclose(f);
}

/* io/result/h5_read: the groups, their names and the subjects. */
static void check_h5_read(const char *path)
{
    stsl_error err = {0};
    stsl_h5_result *h = calloc(1, sizeof *h);
    assert_int_equal(stsl_h5_read(path, h, &err), STSL_OK);
    assert_int_equal(h->stats.n_modes, 0);
    assert_int_equal(h->n_cols, N_GROUPS + 2);
    assert_int_equal(h->n_events, N_EVENTS);
    assert_int_equal(h->n_subjects, NC + NS);
    for (int s = 0; s < NC + NS; s++)
        assert_string_equal(h->subject_names[s], subjects[s]);
    for (int g = 0; g < N_GROUPS; g++) {
        assert_string_equal(h->col_names[g], groups[g].name);
        assert_int_equal(h->col_width[g], groups[g].width);
        assert_int_equal(h->col_integer[g], groups[g].integer);
        for (int k = 0; k < groups[g].width; k++)
            assert_string_equal(h->col_members[g][k], groups[g].member_names[k]);
        assert_int_equal(h->col_n_values[g], groups[g].n_value_names);
        for (int k = 0; k < groups[g].n_value_names; k++)
            assert_string_equal(h->col_values[g][k], groups[g].value_names[k]);
    }
    assert_int_equal(h->col_width[N_GROUPS], 0); /* x_base */
    for (int k = 0; k < N_EVENTS; k++) {
        assert_int_equal(h->events[k].subject, k % 4);
        assert_string_equal(h->events[k].kind, kinds[k % 4]);
        assert_true(isnan(h->events[k].x)); /* an array in the file */
    }
    /* `stickslip info` reads it too (its system view is stage 7's). */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    stsl_h5_print_info(h, out, 2);
    fclose(out);
    char want[64];
    snprintf(want, sizeof want, "Samples:     %d\n", N_GRID + 2 * N_EVENTS);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "Events:      300\n"));
    free(text);
    stsl_h5_result_free(h);
    free(h);
}

/* stsl_result_read: the flat columns by "GROUP[MEMBER]", every sample and
 * event value exact, each event's subject. */
static void check_result_read(const char *path, const run_rows *rr)
{
    stsl_result *r = NULL;
    stsl_err e = {0};
    assert_int_equal(stsl_result_read(path, &r, NULL, &e), STSL_RC_OK);
    assert_int_equal(stsl_result_n_samples(r), rr->n);
    assert_int_equal(stsl_result_n_columns(r), NCOL);
    stsl_layout l = system_layout();
    for (int c = 0; c < NCOL; c++) {
        assert_string_equal(stsl_result_column_name(r, c), l.cols[c].name);
        const double *v = stsl_result_column(r, l.cols[c].name);
        assert_non_null(v);
        for (long i = 0; i < rr->n; i++)
            assert_true(v[i] == value(rr->key[i], c, rr->after[i]));
    }
    assert_null(stsl_result_column_name(r, NCOL));
    /* Each column's attributes as written: its group's units, long name
     * and value names (the mode groups' only), a 1-D column's own. */
    assert_string_equal(stsl_result_column_attr(r, F0 + 1, "units"), "N");
    assert_string_equal(stsl_result_column_attr(r, F0 + 1, "long_name"), "friction force");
    assert_string_equal(stsl_result_column_attr(r, F0 + 1, "value_names"), "");
    assert_string_equal(stsl_result_column_attr(r, CM0 + 1, "value_names"),
                        "STUCK,SLIP_POS,SLIP_NEG,SMOOTH");
    assert_string_equal(stsl_result_column_attr(r, SM0, "value_names"), "OPEN,LOW,HIGH");
    assert_string_equal(stsl_result_column_attr(r, VB, "units"), "m/s");
    assert_string_equal(stsl_result_column_attr(r, VB, "long_name"), "base motion");
    assert_null(stsl_result_column_attr(r, NCOL, "units"));
    assert_null(stsl_result_column_attr(r, 0, "colour"));
    /* No scalar mode in the file: the replayed samples carry none (-1). */
    const double *mode = stsl_result_column(r, "mode");
    for (long i = 0; i < rr->n; i++)
        assert_true(mode[i] == -1.0);
    assert_int_equal(stsl_result_n_events(r), N_EVENTS);
    for (long k = 0; k < N_EVENTS; k++) {
        stsl_event ev;
        assert_int_equal(stsl_result_event(r, k, &ev, &e), STSL_RC_OK);
        assert_true(ev.t == event_time((int)k));
        assert_string_equal(ev.kind, kinds[k % 4]);
        const char *s = stsl_result_event_subject(r, k);
        if (k % 4 == 0)
            assert_null(s);
        else
            assert_string_equal(s, subjects[k % 4 - 1]);
        assert_true(stsl_result_event_value(r, k, "friction[clutch]", 1) ==
                    value(100000 + k, F0 + 1, 1));
        assert_true(stsl_result_event_value(r, k, "x[tail]", 0) == value(100000 + k, X0 + 2, 0));
        assert_true(stsl_result_event_value(r, k, "contact_mode[bearing]", 1) ==
                    value(100000 + k, CM0, 1));
    }
    assert_null(stsl_result_event_subject(r, N_EVENTS));
    const stsl_summary *sum = stsl_result_summary(r);
    assert_int_equal(sum->n_cols, 16); /* the summary keeps the first 16 of 19 */
    assert_string_equal(sum->col_names[15], "stop_reaction[backlash]");
    assert_int_equal(stsl_summary_events(sum, "impact"), N_EVENTS / 4);
    stsl_result_free(r);
}

/* The file as users read it (docs/hdf5-layout.md): Debian's python with
 * h5py, from outside the library (test/check_system_h5.py). */
static void check_with_h5py(const char *path, const run_rows *rr)
{
    if (system("/usr/bin/python3 -c 'import h5py' 2>/dev/null") != 0) {
        print_message("h5py not found: the file is not checked from Python\n");
        return;
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/test/check_system_h5.py '%s' %ld %d",
             STSL_SOURCE_DIR, path, rr->n, N_EVENTS);
    assert_int_equal(system(cmd), 0);
}

static void test_h5_system(void **state)
{
    (void)state;
    char dir[256], path[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/system.h5", dir);
    stsl_error err = {0};
    stsl_sink s = {0};
    static run_rows rr;
    assert_int_equal(stsl_h5_sink_create(path, "bodies: {}\n", "test", &s, &err), STSL_OK);
    write_system(&s, &rr);
    stsl_sink_free(&s);
    check_h5_file(path, &rr);
    check_h5_read(path);
    check_result_read(path, &rr);
    check_with_h5py(path, &rr);
    rm_rf(dir);
}

/* ---- memory ------------------------------------------------------------------- */

static void test_mem_system(void **state)
{
    (void)state;
    stsl_error err = {0};
    stsl_sink s = {0};
    static run_rows rr;
    assert_int_equal(stsl_mem_sink_create(&s, &err), STSL_OK);
    write_system(&s, &rr);
    const stsl_mem_result *m = stsl_mem_sink_result(&s);
    assert_int_equal(m->n_cols, NCOL);
    assert_int_equal(m->layout.n_groups, N_GROUPS);
    assert_string_equal(m->layout.groups[5].name, "contact_mode");
    assert_string_equal(m->layout.groups[5].value_names[3], "SMOOTH");
    assert_string_equal(m->layout.groups[0].member_names[2], "tail");
    assert_string_equal(m->layout.subject_names[2], "backlash");
    assert_int_equal(m->n_samples, rr.n);
    for (long k = 0; k < N_EVENTS; k++) {
        assert_int_equal(m->events[k].subject, k % 4);
        assert_true(m->events[k].after[VB] == value(100000 + k, VB, 1));
    }
    /* A subject outside the layout's is refused. */
    stsl_sink s2 = {0};
    stsl_layout l = system_layout();
    double v[NCOL] = {0};
    stsl_event_rec bad = {0.0, 0, -1, -1, v, v, NC + NS + 1};
    assert_int_equal(stsl_mem_sink_create(&s2, &err), STSL_OK);
    assert_int_equal(stsl_sink_begin(&s2, &l, &err), STSL_OK);
    assert_int_equal(stsl_sink_event(&s2, &bad, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "subject 4 out of range (0..3)"));
    stsl_sink_free(&s2);
    stsl_sink_free(&s);
}

/* A recorded run (a study's `store: full`) replays the groups, the
 * subjects and each event's subject. */
static void test_record_system(void **state)
{
    (void)state;
    stsl_error err = {0};
    stsl_sink rec = {0}, mem = {0};
    assert_int_equal(stsl_record_sink_create(&rec, &err), STSL_OK);
    write_system(&rec, NULL);
    void *bytes = NULL;
    size_t size = 0;
    stsl_record_take(&rec, &bytes, &size);
    assert_non_null(bytes);
    assert_int_equal(stsl_mem_sink_create(&mem, &err), STSL_OK);
    assert_int_equal(stsl_record_replay(bytes, size, &mem, &err), STSL_OK);
    const stsl_mem_result *m = stsl_mem_sink_result(&mem);
    const stsl_layout *l = &m->layout;
    assert_int_equal(l->n_groups, N_GROUPS);
    for (int g = 0; g < N_GROUPS; g++) {
        assert_string_equal(l->groups[g].name, groups[g].name);
        assert_string_equal(l->groups[g].units, groups[g].units);
        assert_string_equal(l->groups[g].long_name, groups[g].long_name);
        assert_int_equal(l->groups[g].first, groups[g].first);
        assert_int_equal(l->groups[g].width, groups[g].width);
        assert_int_equal(l->groups[g].integer, groups[g].integer);
        for (int k = 0; k < groups[g].width; k++)
            assert_string_equal(l->groups[g].member_names[k], groups[g].member_names[k]);
        assert_int_equal(l->groups[g].n_value_names, groups[g].n_value_names);
        for (int k = 0; k < groups[g].n_value_names; k++)
            assert_string_equal(l->groups[g].value_names[k], groups[g].value_names[k]);
    }
    assert_int_equal(l->n_subjects, NC + NS);
    assert_string_equal(l->subject_names[1], "clutch");
    assert_int_equal(m->n_events, N_EVENTS);
    for (long k = 0; k < N_EVENTS; k++)
        assert_int_equal(m->events[k].subject, k % 4);
    free(bytes);
    stsl_sink_free(&mem);
    stsl_sink_free(&rec);
}

/* Overlapping groups are refused by every writer, naming both. */
static void test_bad_groups(void **state)
{
    (void)state;
    char dir[256], path[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/bad.h5", dir);
    stsl_layout l = system_layout();
    stsl_col_group g[2] = {groups[0], groups[1]};
    g[1].first = 2; /* v over x's last column */
    l.n_groups = 2;
    l.groups = g;
    stsl_error err = {0};
    stsl_sink s = {0};
    assert_int_equal(stsl_h5_sink_create(path, "", "test", &s, &err), STSL_OK);
    assert_int_equal(stsl_sink_begin(&s, &l, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "column groups 'x' and 'v' overlap"));
    stsl_sink_free(&s);
    assert_int_equal(stsl_mem_sink_create(&s, &err), STSL_OK);
    assert_int_equal(stsl_sink_begin(&s, &l, &err), STSL_EINPUT);
    stsl_sink_free(&s);
    rm_rf(dir);
}

/* ---- CSV ---------------------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void test_csv_system(void **state)
{
    (void)state;
    char dir[256], prefix[512], path[600];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(prefix, sizeof prefix, "%s/sys", dir);
    stsl_error err = {0};
    stsl_sink s = {0};
    assert_int_equal(stsl_csv_sink_create(prefix, &s, &err), STSL_OK);
    write_system(&s, NULL);
    stsl_sink_free(&s);

    snprintf(path, sizeof path, "%s_trajectory.csv", prefix);
    char *t = slurp(path);
    const char *head =
        "t [s],x[motor] [m],x[load] [m],x[tail] [m],v[motor] [m/s],v[load] [m/s],v[tail] [m/s],"
        "a[motor] [m/s^2],a[load] [m/s^2],a[tail] [m/s^2],friction[bearing] [N],"
        "friction[clutch] [N],slip_velocity[bearing] [m/s],slip_velocity[clutch] [m/s],"
        "contact_mode[bearing] [],contact_mode[clutch] [],stop_reaction[backlash] [N],"
        "stop_mode[backlash] [],x_base [m],v_base [m/s]\n";
    assert_memory_equal(t, head, strlen(head));
    /* Grid row 1 (t = 0.01; after the header, row 0 and event 0's two
     * rows): 20 fields, no mode. */
    char *row1 = t;
    for (int i = 0; i < 4; i++)
        row1 = strchr(row1, '\n') + 1;
    char want[1024];
    int at = snprintf(want, sizeof want, "%.17g", DT);
    for (int c = 0; c < NCOL; c++)
        at += snprintf(want + at, sizeof want - (size_t)at, ",%.17g", value(1, c, 0));
    snprintf(want + at, sizeof want - (size_t)at, "\n");
    assert_memory_equal(row1, want, strlen(want));
    free(t);

    snprintf(path, sizeof path, "%s_events.csv", prefix);
    char *e = slurp(path);
    const char *ehead = "t [s],kind,mode_before,mode_after,x[motor] [m],x[load] [m],x[tail] [m],"
                        "v_before[motor] [m/s],v_before[load] [m/s],v_before[tail] [m/s],"
                        "v_after[motor] [m/s],v_after[load] [m/s],v_after[tail] [m/s],"
                        "net_force [],friction[bearing] [N],friction[clutch] [N],subject\n";
    assert_memory_equal(e, ehead, strlen(ehead));
    /* Event 2 (about "clutch"): x before, v before and after, friction after. */
    const char *p = e;
    for (int i = 0; i < 3; i++)
        p = strchr(p, '\n') + 1;
    long key = 100002;
    at = snprintf(want, sizeof want, "%.17g,impact,-1,-1", event_time(2));
    for (int b = 0; b < NB; b++)
        at += snprintf(want + at, sizeof want - (size_t)at, ",%.17g", value(key, X0 + b, 0));
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < NB; b++)
            at += snprintf(want + at, sizeof want - (size_t)at, ",%.17g", value(key, V0 + b, k));
    at += snprintf(want + at, sizeof want - (size_t)at, ",nan");
    for (int c = 0; c < NC; c++)
        at += snprintf(want + at, sizeof want - (size_t)at, ",%.17g", value(key, F0 + c, 1));
    snprintf(want + at, sizeof want - (size_t)at, ",clutch\n");
    assert_memory_equal(p, want, strlen(want));
    free(e);
    rm_rf(dir);
}

/* ---- MAT ---------------------------------------------------------------------- */

static matvar_t *field(matvar_t *s, const char *name)
{
    matvar_t *f = Mat_VarGetStructFieldByName(s, name, 0);
    assert_non_null(f);
    return f;
}

static void check_text(const matvar_t *c, const char *want)
{
    assert_non_null(c);
    size_t n = c->dims[0] * c->dims[1];
    assert_int_equal(n, strlen(want));
    for (size_t k = 0; k < n; k++) /* UTF-16 units of ASCII text */
        assert_int_equal(((const uint16_t *)c->data)[k], (uint16_t)want[k]);
}

static void check_cell_text(matvar_t *cell, int i, const char *want)
{
    check_text(Mat_VarGetCell(cell, i), want);
}

static void test_mat_system(void **state)
{
    (void)state;
    char dir[256], path[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/system.mat", dir);
    stsl_error err = {0};
    stsl_sink s = {0};
    static run_rows rr;
    assert_int_equal(stsl_mat_sink_create(path, "", "test", 0, &s, &err), STSL_OK);
    write_system(&s, &rr);
    stsl_sink_free(&s);

    mat_t *mat = Mat_Open(path, MAT_ACC_RDONLY);
    assert_non_null(mat);
    matvar_t *tr = Mat_VarRead(mat, "trajectory");
    assert_non_null(tr);
    assert_null(Mat_VarGetStructFieldByName(tr, "mode", 0));
    for (int g = 0; g < N_GROUPS; g++) {
        matvar_t *v = field(tr, groups[g].name);
        assert_int_equal(v->dims[0], (size_t)rr.n);
        assert_int_equal(v->dims[1], (size_t)groups[g].width);
        assert_int_equal(v->class_type, groups[g].integer ? MAT_C_INT8 : MAT_C_DOUBLE);
        for (long r = 0; r < rr.n; r++)
            for (int k = 0; k < groups[g].width; k++) {
                size_t at = (size_t)r + (size_t)k * (size_t)rr.n; /* column-major */
                double got = groups[g].integer ? ((const int8_t *)v->data)[at]
                                               : ((const double *)v->data)[at];
                assert_true(got == value(rr.key[r], groups[g].first + k, rr.after[r]));
            }
    }
    assert_int_equal(field(tr, "x_base")->dims[1], 1);
    Mat_VarFree(tr);

    matvar_t *names = Mat_VarRead(mat, "names");
    assert_non_null(names);
    check_cell_text(field(names, "x"), 2, "tail");
    check_cell_text(field(names, "stop_mode"), 0, "backlash");
    Mat_VarFree(names);
    matvar_t *vn = Mat_VarRead(mat, "value_names");
    assert_non_null(vn);
    check_cell_text(field(vn, "contact_mode"), 1, "SLIP_POS");
    check_cell_text(field(vn, "stop_mode"), 2, "HIGH");
    Mat_VarFree(vn);
    matvar_t *sn = Mat_VarRead(mat, "subject_names");
    assert_non_null(sn);
    check_cell_text(sn, 1, "clutch");
    Mat_VarFree(sn);
    matvar_t *units = Mat_VarRead(mat, "units");
    assert_null(Mat_VarGetStructFieldByName(units, "mode", 0));
    check_text(field(units, "t"), "s");
    check_text(field(units, "contact_mode"), "");
    check_text(field(units, "friction"), "N");
    Mat_VarFree(units);

    matvar_t *ev = Mat_VarRead(mat, "events");
    assert_non_null(ev);
    matvar_t *x = field(ev, "x"), *fr = field(ev, "friction"), *idx = field(ev, "index");
    assert_int_equal(x->dims[0], N_EVENTS);
    assert_int_equal(x->dims[1], NB);
    assert_int_equal(fr->dims[1], NC);
    assert_int_equal(idx->class_type, MAT_C_INT32);
    for (int k = 0; k < N_EVENTS; k++) {
        assert_true(((const double *)x->data)[k + 2 * N_EVENTS] == value(100000 + k, X0 + 2, 0));
        assert_true(((const double *)fr->data)[k + N_EVENTS] == value(100000 + k, F0 + 1, 1));
        assert_int_equal(((const int32_t *)idx->data)[k], k % 4 - 1);
    }
    check_cell_text(field(ev, "subject"), 3, "backlash");
    check_cell_text(field(ev, "subject"), 4, "");
    Mat_VarFree(ev);
    Mat_Close(mat);
    rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h5_system),  cmocka_unit_test(test_mem_system),
        cmocka_unit_test(test_bad_groups), cmocka_unit_test(test_csv_system),
        cmocka_unit_test(test_mat_system), cmocka_unit_test(test_record_system),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
