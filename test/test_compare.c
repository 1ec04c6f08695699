/* `stickslip compare`: the pure metrics of run/validation on hand-made data
 * with known answers, then the command on synthetic pairs built from a
 * reference run (identical, shifted in x, shifted in time, one stick
 * interval removed), CSV and HDF5 from outside, the JSON report, and every
 * error path (exit 2 naming file, line and column; exit 3 when the
 * reference cannot be re-run). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "io/candidate/candidate.h"
#include "io/result/h5_read.h"
#include "run/validation.h"
#include "test/testutil.h"

#define EX STSL_SOURCE_DIR "/examples/"

static char dir[256];
static char out[65536];

/* Run stickslip with printf-style arguments; output in `out`. */
#define cli(...) tu_cli(out, sizeof out, __VA_ARGS__)

/* ---- pure functions -------------------------------------------------------------- */

static void errors_are_time_weighted(void **state)
{
    (void)state;
    const double t[] = {0, 1, 2, 3};
    const double zero[] = {0, 0, 0, 0};
    const double shift[] = {1e-3, 1e-3, 1e-3, 1e-3};
    stsl_cmp_errors e;
    stsl_compare_errors(t, zero, zero, shift, zero, 4, &e);
    assert_close(e.max_abs_x, 1e-3, 0);
    assert_close(e.rms_x, 1e-3, 1e-18);
    assert_close(e.final_x, 1e-3, 0);
    assert_close(e.max_abs_v, 0, 0);
    /* One error of 2 at the end: the trapezoid gives it half of the last
     * interval, integral 2 over a span of 3 (the sample RMS would be 1). */
    const double last[] = {0, 0, 0, 2};
    stsl_compare_errors(t, zero, zero, zero, last, 4, &e);
    assert_close(e.rms_v, sqrt(2.0 / 3.0), 1e-15);
    assert_close(e.final_v, 2, 0);
    assert_close(e.max_abs_v, 2, 0);
    /* A repeated time carries no weight. */
    const double tj[] = {0, 1, 1, 2};
    const double jump[] = {0, 0, 5, 5};
    stsl_compare_errors(tj, zero, zero, jump, zero, 4, &e);
    assert_close(e.rms_x, sqrt(25.0 / 2.0), 1e-14);
    assert_close(e.final_x, 5, 0);
}

static void stuck_iou_on_the_grid(void **state)
{
    (void)state;
    const double t[] = {0, 1, 2, 3, 4, 5};
    const unsigned char r[] = {0, 1, 1, 1, 0, 0}; /* stuck over [1, 3] */
    const unsigned char c[] = {0, 0, 1, 1, 1, 0}; /* stuck over [2, 4] */
    stsl_cmp_stuck s;
    stsl_compare_stuck(t, r, c, 6, &s);
    assert_close(s.ref_time, 2, 0);
    assert_close(s.cand_time, 2, 0);
    assert_close(s.intersection, 1, 0);
    assert_close(s.union_, 3, 0);
    assert_close(s.iou, 1.0 / 3.0, 1e-16);
    /* A single stuck sample is no stuck time; neither stuck: they agree. */
    const unsigned char one[] = {0, 0, 1, 0, 0, 0}, none[] = {0, 0, 0, 0, 0, 0};
    stsl_compare_stuck(t, one, none, 6, &s);
    assert_close(s.ref_time, 0, 0);
    assert_close(s.iou, 1, 0);
    stsl_compare_stuck(t, r, r, 6, &s);
    assert_close(s.iou, 1, 0);
    stsl_compare_stuck(t, r, none, 6, &s);
    assert_close(s.iou, 0, 0);
}

static void events_seen_in_samples(void **state)
{
    (void)state;
    /* Turns at 1.5 (chord zero), rests over [4, 5], turns through a zero at
     * t = 7 given twice (an event's samples), touches zero at 9 and goes on. */
    const double t[] = {0, 1, 2, 3, 4, 5, 6, 7, 7, 8, 9, 10};
    const double v[] = {1, 0.5, -0.5, -1, 0, 0, 1, 0, 0, -1, 0, -1};
    unsigned char stuck[12];
    for (int i = 0; i < 12; i++)
        stuck[i] = v[i] == 0;
    stsl_cmp_event *ev = NULL;
    long n = stsl_compare_derive_events(t, v, stuck, 12, &ev);
    assert_int_equal(n, 4);
    const char *kinds[] = {"reversal", "stick", "breakaway", "reversal"};
    const double times[] = {1.5, 4, 5, 7};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(ev[i].kind, kinds[i]);
        assert_close(ev[i].t, times[i], 1e-15);
    }
    assert_int_equal(ev[1].cls, STSL_CMP_REST);
    assert_int_equal(ev[2].cls, STSL_CMP_START);
    assert_int_equal(ev[3].cls, STSL_CMP_TURN);
    free(ev);
    /* Stuck at both ends: no stick at the start, no breakaway at the end. */
    const double t2[] = {0, 1, 2, 3};
    const double v2[] = {0, 0, 1, 0};
    const unsigned char s2[] = {1, 1, 0, 1};
    n = stsl_compare_derive_events(t2, v2, s2, 4, &ev);
    assert_int_equal(n, 1);
    assert_string_equal(ev[0].kind, "breakaway");
    assert_close(ev[0].t, 1, 0);
    free(ev);
}

static stsl_cmp_event mk(double t, const char *kind)
{
    stsl_cmp_event e;
    memset(&e, 0, sizeof e);
    e.t = t;
    snprintf(e.kind, sizeof e.kind, "%s", kind);
    e.cls = stsl_compare_event_class(kind);
    return e;
}

static void events_matched_closest_first(void **state)
{
    (void)state;
    stsl_cmp_event ref[] = {mk(1.0, "stick"), mk(2.0, "breakaway"), mk(3.0, "reversal"),
                            mk(3.5, "load_reversal"), mk(5.0, "stick")};
    stsl_cmp_event cand[] = {mk(1.01, "stick"), mk(2.5, "breakaway"), mk(2.98, "impact"),
                             mk(4.96, "stop_contact"), mk(5.02, "stick")};
    stsl_cmp_matching m;
    assert_int_equal(stsl_compare_match_events(ref, 5, cand, 5, 0.1, &m, NULL), STSL_OK);
    assert_int_equal(m.n_matched, 3);
    assert_int_equal(m.n_missed, 1);   /* the breakaway: its partner is 0.5 s late */
    assert_int_equal(m.n_spurious, 2); /* that breakaway, and the farther of two sticks */
    assert_int_equal(m.n_ignored_ref, 1);
    assert_int_equal(m.pairs[0].ref, 0);
    assert_int_equal(m.pairs[0].cand, 0);
    assert_int_equal(m.pairs[1].ref, 2); /* a reversal and an impact both turn round */
    assert_int_equal(m.pairs[1].cand, 2);
    assert_int_equal(m.pairs[2].ref, 4);
    assert_int_equal(m.pairs[2].cand, 4); /* 5.02 is closer than 4.96 */
    assert_close(m.pairs[2].dt, 0.02, 1e-15);
    assert_close(m.max_abs_dt, 0.02, 1e-15);
    assert_int_equal(m.missed[0], 1);
    assert_int_equal(m.spurious[0], 1);
    assert_int_equal(m.spurious[1], 3);
    stsl_compare_matching_free(&m);
    /* Closest first: the late reference event gets the candidate, not the
     * first one in time order. */
    stsl_cmp_event r2[] = {mk(1.0, "stick"), mk(1.1, "stick")};
    stsl_cmp_event c2[] = {mk(1.08, "stick")};
    assert_int_equal(stsl_compare_match_events(r2, 2, c2, 1, 0.1, &m, NULL), STSL_OK);
    assert_int_equal(m.n_matched, 1);
    assert_int_equal(m.pairs[0].ref, 1);
    assert_int_equal(m.missed[0], 0);
    stsl_compare_matching_free(&m);
    /* Empty lists. */
    assert_int_equal(stsl_compare_match_events(NULL, 0, NULL, 0, 1.0, &m, NULL), STSL_OK);
    assert_int_equal(m.n_matched + m.n_missed + m.n_spurious, 0);
    stsl_compare_matching_free(&m);
}

static void dissipated_energy_and_defaults(void **state)
{
    (void)state;
    const double t[] = {0, 0.5, 1, 2};
    const double f[] = {2, 2, 2, 2}, v[] = {3, 3, 3, 3};
    assert_close(stsl_compare_energy_friction(t, f, v, 4), 12, 1e-14);
    /* Friction growing as 1 + t at v = 1 on an uneven grid: the integral of
     * a linear F_f v is exact under the trapezoidal rule, 4 J (a left
     * rectangle rule would give 3.25 J); rounding: a few ulps of 4. */
    const double fg[] = {1, 1.5, 2, 3}, v1[] = {1, 1, 1, 1};
    assert_close(stsl_compare_energy_friction(t, fg, v1, 4), 4, 4 * 4 * DBL_EPSILON);
    /* Free acceleration by F_n = m a = 2 (mass 1, v 0 -> 2): no friction work. */
    const double ta[] = {0, 0.5, 1}, va[] = {0, 1, 2}, fa[] = {2, 2};
    assert_close(stsl_compare_energy_balance(ta, va, fa, 1.0, 3), 0, 1e-15);
    /* Braked to rest by friction alone (F_n = 0): all kinetic energy, 2 J. */
    const double vb[] = {2, 1, 0}, fb[] = {0, 0};
    assert_close(stsl_compare_energy_balance(ta, vb, fb, 1.0, 3), 2, 1e-15);
    /* A varying F_n (mass 1): held at rest against 1 N for 0.5 s, then
     * 3 N against 1 N of friction, v 0 -> 1 m/s in 0.5 s.  Friction work
     * 1 N x 0.25 m = 0.25 J = 0.75 J of F_n work less 0.5 J kinetic (a left
     * rectangle rule gives -0.5 J, 5 % more F_n 0.2875 J); rounding: a few
     * ulps of 1. */
    const double vg[] = {0, 0, 1}, fng[] = {1, 3};
    assert_close(stsl_compare_energy_balance(ta, vg, fng, 1.0, 3), 0.25, 4 * DBL_EPSILON);
    const double vr[] = {0.5, -2, 1};
    assert_close(stsl_compare_default_stuck_velocity(vr, 3, 1e-12), 2e-6, 1e-21);
    assert_close(stsl_compare_default_stuck_velocity(vr, 3, 1e-3), 1e-3, 0);
    const double tg[] = {0, 0.1, 0.1, 0.2, 0.5, 0.6};
    assert_close(stsl_compare_default_event_window(tg, 6), 5 * 0.1, 1e-15);
    assert_true(stsl_candidate_name_matches("x [m]", "x"));
    assert_true(stsl_candidate_name_matches("Time", "time"));
    assert_false(stsl_candidate_name_matches("x_base [m]", "x"));
    assert_false(stsl_candidate_name_matches("x [m] extra", "x"));
}

/* ---- synthetic pairs from a reference run ----------------------------------------- */

typedef struct traj {
    long n;
    double *t, *x, *v, *f;
    stsl_h5_result res;
} traj;

static traj belt, dh;
static char belt_h5[512], dh_h5[512];

static void load_traj(const char *path, traj *tr)
{
    long n;
    stsl_error err;
    assert_int_equal(stsl_h5_read_column(path, "t", &tr->t, &tr->n, &err), 0);
    assert_int_equal(stsl_h5_read_column(path, "x", &tr->x, &n, &err), 0);
    assert_int_equal(stsl_h5_read_column(path, "v", &tr->v, &n, &err), 0);
    assert_int_equal(stsl_h5_read_column(path, "friction", &tr->f, &n, &err), 0);
    assert_int_equal(stsl_h5_read(path, &tr->res, &err), 0);
}

static int setup(void **state)
{
    (void)state;
    tu_mkdtemp(dir, sizeof dir);
    snprintf(belt_h5, sizeof belt_h5, "%s/belt.h5", dir);
    snprintf(dh_h5, sizeof dh_h5, "%s/dh.h5", dir);
    if (cli("run %sbelt_stick_slip.yaml -o %s -q", EX, belt_h5)) return -1;
    if (cli("run %sden_hartog.yaml -o %s -q", EX, dh_h5)) return -1;
    load_traj(belt_h5, &belt);
    load_traj(dh_h5, &dh);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    traj *all[] = {&belt, &dh};
    for (int k = 0; k < 2; k++) {
        free(all[k]->t);
        free(all[k]->x);
        free(all[k]->v);
        free(all[k]->f);
        stsl_h5_result_free(&all[k]->res);
    }
    return 0;
}

/* Write t, x, v of `tr` (x + dx, t + dt; v replaced by v_stuck on
 * [ta, tb]) as CSV with the header "t,x,v". */
static void write_csv(const char *path, const traj *tr, double dt, double dx, double ta, double tb,
                      double v_set)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "t,x,v\n");
    for (long i = 0; i < tr->n; i++) {
        double v = tr->t[i] >= ta && tr->t[i] <= tb ? v_set : tr->v[i];
        fprintf(f, "%.17g,%.17g,%.17g\n", tr->t[i] + dt, tr->x[i] + dx, v);
    }
    fclose(f);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Compare and read the report back, checking that it is valid JSON. */
static const char *compare_json(const char *ref, const char *cand, const char *opts)
{
    char js[600];
    snprintf(js, sizeof js, "%s/report.json", dir);
    remove(js);
    int rc = cli("compare %s %s %s -o %s", ref, cand, opts, js);
    if (rc) print_error("%s\n", out);
    assert_int_equal(rc, 0);
    if (tu_file_exists("/usr/bin/python3")) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "/usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s", js);
        assert_int_equal(system(cmd), 0);
    }
    const char *text = slurp(js);
    assert_non_null(text);
    assert_null(strstr(text, "nan"));
    assert_null(strstr(text, "inf"));
    return text;
}

static long count_kind(const stsl_h5_result *res, const char *kind)
{
    long k = 0;
    for (long i = 0; i < res->n_events; i++)
        k += !strcmp(res->events[i].kind, kind);
    return k;
}

static void assert_identical(const char *j, long n_events)
{
    const char *keys[] = {"max_abs_error_x", "max_abs_error_v", "rms_error_x",
                          "rms_error_v",     "final_error_x",   "max_event_time_error",
                          "events_missed",   "events_spurious", "dissipated_energy_difference"};
    for (int k = 0; k < 9; k++) {
        if (tu_json_value(j, keys[k]) != 0) print_error("%s\n", keys[k]);
        assert_true(tu_json_value(j, keys[k]) == 0);
    }
    assert_true(tu_json_value(j, "stuck_iou") == 1);
    assert_true(tu_json_value(j, "events_matched") == (double)n_events);
}

static void identical_files(void **state)
{
    (void)state;
    /* The result itself as the candidate: modes and /events from the file. */
    const char *j = compare_json(belt_h5, belt_h5, "");
    assert_identical(j, belt.res.n_events);
    assert_non_null(strstr(j, "\"candidate_format\": \"stickslip result\""));
    assert_non_null(strstr(j, "\"energy_method\": \"friction column"));
    /* The same as CSV (velocity rule, events from the samples, energy
     * balance): the same zeros, also for the reversals of Den Hartog. */
    char csv[600];
    snprintf(csv, sizeof csv, "%s/belt_same.csv", dir);
    write_csv(csv, &belt, 0, 0, 1, 0, 0);
    j = compare_json(belt_h5, csv, "");
    assert_identical(j, belt.res.n_events);
    assert_non_null(strstr(j, "\"energy_method\": \"energy balance"));
    assert_non_null(strstr(out, "stuck-time overlap (IoU)"));
    assert_non_null(strstr(out, "m/s"));
    snprintf(csv, sizeof csv, "%s/dh_same.csv", dir);
    write_csv(csv, &dh, 0, 0, 1, 0, 0);
    j = compare_json(dh_h5, csv, "");
    assert_identical(j, dh.res.n_events);
    assert_int_equal(count_kind(&dh.res, "reversal"), 4);
    assert_true(tu_json_value(j, "dissipated_energy_reference") > 0.5499);
    /* Two-sided: the spring energy released, k (0.105^2 - 0.005^2) / 2 =
     * 0.55 J, less the trapezoidal rule's deficit on each slip half-cycle's
     * sinusoidal velocity, (omega h)^2 / 12 relative (omega = 10 rad/s,
     * h = 1 ms: 4.58e-6 J).  What remains is the higher-order term,
     * (omega h)^4 / 720 relative (1e-11 J), and the shorter intervals at the
     * five events (each at most (omega h)^2 / 12 of one interval's share,
     * 1e-9 J): 2e-8 J.  The energy-balance estimate (this CSV) and the
     * friction column (the file itself) alike. */
    const double e_dh = 0.55 * (1.0 - 1e-4 / 12.0);
    assert_close(tu_json_value(j, "dissipated_energy_reference"), e_dh, 2e-8);
    assert_close(tu_json_value(j, "dissipated_energy_candidate"), e_dh, 2e-8);
    j = compare_json(dh_h5, dh_h5, "");
    assert_close(tu_json_value(j, "dissipated_energy_reference"), e_dh, 2e-8);
    /* One row per instant (the value just before each event only): the
     * reference at an event instant is at rest if it is on either side, so
     * the stuck phase still starts at the stick, exactly. */
    snprintf(csv, sizeof csv, "%s/dh_once.csv", dir);
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "t,x,v\n");
    long rows = 0;
    for (long i = 0; i < dh.n; i++)
        if (i == 0 || dh.t[i] > dh.t[i - 1])
            rows += fprintf(f, "%.17g,%.17g,%.17g\n", dh.t[i], dh.x[i], dh.v[i]) > 0;
    fclose(f);
    assert_true(rows < dh.n);
    j = compare_json(dh_h5, csv, "");
    assert_identical(j, dh.res.n_events);
}

static void shifted_copies(void **state)
{
    (void)state;
    char csv[600];
    snprintf(csv, sizeof csv, "%s/belt_dx.csv", dir);
    write_csv(csv, &belt, 0, 1e-3, 1, 0, 0);
    const char *j = compare_json(belt_h5, csv, "");
    /* Each error is fl(fl(x + d) - x), d = 1e-3: two roundings, at most
     * eps (|x|_max + d) from d; the RMS adds the rounding of a sum of n
     * squares, n eps relative at worst (recursive summation). */
    double xmax = 0.0;
    for (long i = 0; i < belt.n; i++)
        xmax = fmax(xmax, fabs(belt.x[i]));
    double tol = DBL_EPSILON * (xmax + 1e-3), tol_rms = tol + (double)belt.n * DBL_EPSILON * 1e-3;
    assert_close(tu_json_value(j, "max_abs_error_x"), 1e-3, tol);
    assert_close(tu_json_value(j, "rms_error_x"), 1e-3, tol_rms);
    assert_close(tu_json_value(j, "final_error_x"), 1e-3, tol);
    assert_true(tu_json_value(j, "max_abs_error_v") == 0);
    assert_true(tu_json_value(j, "stuck_iou") == 1);
    assert_true(tu_json_value(j, "events_matched") == (double)belt.res.n_events);
    /* 2 ms late: every event matched 2 ms late, the rows beyond t_end
     * dropped (and counted), the first stuck phase still starts the run. */
    long beyond = 0;
    for (long i = 0; i < belt.n; i++)
        beyond += belt.t[i] + 2e-3 > 5.0 + 1e-9 * 5.0;
    snprintf(csv, sizeof csv, "%s/belt_dt.csv", dir);
    write_csv(csv, &belt, 2e-3, 0, 1, 0, 0);
    j = compare_json(belt_h5, csv, "");
    assert_true(tu_json_value(j, "events_matched") == (double)belt.res.n_events);
    assert_true(tu_json_value(j, "events_missed") == 0);
    assert_close(tu_json_value(j, "max_event_time_error"), 2e-3, 1e-12);
    assert_true(beyond >= 2);
    assert_true(tu_json_value(j, "points_dropped") == (double)beyond);
    assert_close(tu_json_value(j, "t_first"), 2e-3, 1e-15);
    /* With a window narrower than the shift nothing matches any more. */
    j = compare_json(belt_h5, csv, "--event-window 1e-3");
    assert_true(tu_json_value(j, "events_matched") == 0);
    assert_true(tu_json_value(j, "events_missed") == (double)belt.res.n_events);
    assert_true(tu_json_value(j, "events_spurious") == (double)belt.res.n_events);
    assert_non_null(strstr(j, "\"max_event_time_error\": null"));
}

static void one_stick_interval_removed(void **state)
{
    (void)state;
    /* Stuck from 0 to the first breakaway, then from each stick to the next
     * breakaway (the belt's events alternate breakaway, stick, ...). */
    const stsl_h5_event *ev = belt.res.events;
    long ne = belt.res.n_events;
    assert_string_equal(ev[0].kind, "breakaway");
    double stuck = ev[0].t;
    for (long k = 1; k + 1 < ne; k += 2) {
        assert_string_equal(ev[k].kind, "stick");
        stuck += ev[k + 1].t - ev[k].t;
    }
    /* Slipping slowly (-1 mm/s, the sign of the slip around it) through the
     * third stick phase: no sign change, just no rest. */
    double ta = ev[3].t, tb = ev[4].t;
    char csv[600];
    snprintf(csv, sizeof csv, "%s/belt_nostick.csv", dir);
    write_csv(csv, &belt, 0, 0, ta, tb, -1e-3);
    const char *j = compare_json(belt_h5, csv, "");
    assert_close(tu_json_value(j, "stuck_time_reference"), stuck, 1e-12);
    assert_close(tu_json_value(j, "stuck_time_candidate"), stuck - (tb - ta), 1e-12);
    assert_close(tu_json_value(j, "stuck_iou"), (stuck - (tb - ta)) / stuck, 1e-12);
    assert_true(tu_json_value(j, "events_missed") == 2);
    assert_true(tu_json_value(j, "events_spurious") == 0);
    assert_true(tu_json_value(j, "events_matched") == (double)ne - 2);
    assert_close(tu_json_value(j, "max_abs_error_v"), 1e-3, 1e-15);
    assert_true(tu_json_value(j, "max_abs_error_x") == 0);
    assert_non_null(strstr(j, "\"missed_events\": [\n    {\"kind\": \"stick\""));
}

/* ---- from outside ----------------------------------------------------------------- */

static void csv_from_outside(void **state)
{
    (void)state;
    /* Odd column order, units, a text column, CRLF, a comment line. */
    char csv[600];
    snprintf(csv, sizeof csv, "%s/simulink.csv", dir);
    FILE *f = fopen(csv, "w");
    assert_non_null(f);
    fprintf(f, "# exported by hand\r\nvelocity_v [m/s],note,X,time [s]\r\n");
    for (long i = 0; i < dh.n; i++)
        fprintf(f, "%.17g,ok %ld,%.17g,%.17g\r\n", dh.v[i], i, dh.x[i], dh.t[i]);
    fclose(f);
    const char *j = compare_json(dh_h5, csv, "--columns time,x,velocity_v");
    assert_identical(j, dh.res.n_events);
    /* The same through a user's HDF5 file with datasets at the root. */
    char h5[600];
    snprintf(h5, sizeof h5, "%s/user.h5", dir);
    hid_t fh = H5Fcreate(h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(fh >= 0);
    hsize_t dims[2] = {(hsize_t)dh.n, 1};
    const char *names[] = {"time", "pos", "vel"};
    const double *data[] = {dh.t, dh.x, dh.v};
    for (int k = 0; k < 3; k++) {
        hid_t sp = H5Screate_simple(k == 1 ? 2 : 1, dims, NULL); /* one N x 1 */
        hid_t d =
            H5Dcreate2(fh, names[k], H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        assert_true(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data[k]) >= 0);
        H5Dclose(d);
        H5Sclose(sp);
    }
    H5Fclose(fh);
    j = compare_json(dh_h5, h5, "--columns time,pos,vel");
    assert_identical(j, dh.res.n_events);
    assert_non_null(strstr(j, "\"candidate_format\": \"hdf5\""));
    assert_int_equal(cli("compare %s %s", dh_h5, h5), 2);
    assert_non_null(strstr(out, "column 't'"));
}

/* One line, exit 2, naming file, line and column. */
static void expect_bad(const char *name, const char *text, const char *opts, const char *want)
{
    char csv[600], js[600];
    snprintf(csv, sizeof csv, "%s/%s", dir, name);
    snprintf(js, sizeof js, "%s/bad.json", dir);
    remove(js);
    assert_int_equal(tu_write_file(csv, text), 0);
    int rc = cli("compare %s %s %s -o %s", belt_h5, csv, opts, js);
    if (rc != 2 || !strstr(out, want)) print_error("got %d: %s\nwant: %s\n", rc, out, want);
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, want));
    assert_int_equal((int)(strchr(out, '\n') - out + 1), (int)strlen(out));
    assert_false(tu_file_exists(js));
}

static void malformed_input(void **state)
{
    (void)state;
    expect_bad("nocol.csv", "t,x,speed\n0,0,0\n0.1,0,0\n", "",
               "nocol.csv:1: column 'v': not in the header (columns: 't', 'x', 'speed')");
    expect_bad("text.csv", "t,x,v\n0,0,0\n0.1,0,0\n0.2,abc,0\n", "",
               "text.csv:4: column 'x': not a number: 'abc'");
    expect_bad("empty_field.csv", "t,x,v\n0,0,0\n0.1,,0\n", "",
               "empty_field.csv:3: column 'x': not a number: ''");
    expect_bad("nan.csv", "t,x,v\n0,0,0\n0.1,0,nan\n", "",
               "nan.csv:3: column 'v': not a finite number: 'nan'");
    expect_bad("back.csv", "t,x,v\n0,0,0\n0.2,0,0\n\n0.1,0,0\n", "",
               "back.csv:5: column 't': time 0.10000000000000001 goes back from 0.2000");
    expect_bad("short.csv", "x,v,t\n0,0,0\n0,0\n", "",
               "short.csv:3: column 't': missing (the row has 2 fields, the header 3)");
    expect_bad("empty.csv", "", "", "empty.csv: empty: no header line");
    expect_bad("one.csv", "t,x,v\n0,0,0\n", "", "one.csv: column 't': needs at least two");
    expect_bad("outside.csv", "t,x,v\n7,0,0\n8,0,0\n", "",
               "outside.csv: fewer than two distinct times within the reference's [0, 5] s");
    expect_bad("ambig.csv", "t,x,x [m],v\n0,0,0,0\n1,0,0,0\n", "",
               "ambig.csv:1: column 'x': ambiguous: matches 'x' and 'x [m]'");
    /* Bad options: the message, then the usage. */
    char csv[600];
    snprintf(csv, sizeof csv, "%s/text.csv", dir);
    assert_int_equal(cli("compare %s %s --columns t,x", belt_h5, csv), 2);
    assert_non_null(strstr(out, "--columns: expected time,position,velocity names"));
    assert_int_equal(cli("compare %s %s --stuck-velocity fast", belt_h5, csv), 2);
    assert_non_null(strstr(out, "--stuck-velocity: not a number >= 0: 'fast'"));
    /* Missing files, a reference that is not a stickslip result. */
    assert_int_equal(cli("compare %s/nothing.h5 %s", dir, csv), 2);
    assert_non_null(strstr(out, "nothing.h5: cannot open"));
    assert_int_equal(cli("compare %s %s/nothing.csv", belt_h5, dir), 2);
    assert_non_null(strstr(out, "nothing.csv: cannot open"));
    assert_int_equal(cli("compare %s %s", csv, csv), 2);
    assert_non_null(strstr(out, "text.csv: not an HDF5 file"));
    char h5[600];
    snprintf(h5, sizeof h5, "%s/user.h5", dir);
    assert_int_equal(cli("compare %s %s", h5, belt_h5), 2);
    assert_non_null(strstr(out, "user.h5"));
    assert_int_equal(cli("compare %s", belt_h5), 2);
    assert_int_equal(cli("compare --help"), 0);
    assert_non_null(strstr(out, "usage: stickslip compare"));
}

/* A system's result beside something that is no system's result: a missing
 * file is named as such (the element's wording and exit code, above), and
 * so is a missing FMU (an FMU may stand for the system: its file is read as
 * for an element's FMU). */
static void system_against_other(void **state)
{
    (void)state;
    char sys[600];
    snprintf(sys, sizeof sys, "%s/sys.h5", dir);
    assert_int_equal(cli("run %sservo_backlash.yaml -o %s -q", EX, sys), 0);
    assert_int_equal(cli("compare %s %s/missing.h5", sys, dir), 2);
    assert_non_null(strstr(out, "missing.h5: cannot open: No such file or directory"));
    assert_null(strstr(out, "is not"));
    assert_int_equal(cli("compare %s/missing.h5 %s", dir, sys), 2);
    assert_non_null(strstr(out, "missing.h5: cannot open: No such file or directory"));
    assert_int_equal(cli("compare %s --fmu %s/model.fmu --step 1e-3", sys, dir), 1);
    char want[800];
    snprintf(want, sizeof want,
             "stickslip compare: error: %s/model.fmu: cannot open the FMU (No such file)\n", dir);
    assert_string_equal(out, want);
    /* An element's result beside it still gets the system's explanation. */
    assert_int_equal(cli("compare %s %s", sys, belt_h5), 2);
    assert_non_null(strstr(out, "belt.h5 is not: compare a system's result with another"));
}

/* A reference whose run failed (max_events) fails again when re-run: exit 3. */
static void rerun_failure_is_exit_3(void **state)
{
    (void)state;
    char h5[600], csv[600];
    snprintf(h5, sizeof h5, "%s/fails.h5", dir);
    snprintf(csv, sizeof csv, "%s/dh_same.csv", dir);
    assert_int_equal(cli("run %sden_hartog.yaml -o %s -q --set simulation.max_events=2", EX, h5),
                     3);
    assert_int_equal(cli("compare %s %s", h5, csv), 3);
    assert_non_null(strstr(out, "re-running the reference"));
    assert_non_null(strstr(out, "max_events"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(errors_are_time_weighted),
        cmocka_unit_test(stuck_iou_on_the_grid),
        cmocka_unit_test(events_seen_in_samples),
        cmocka_unit_test(events_matched_closest_first),
        cmocka_unit_test(dissipated_energy_and_defaults),
        cmocka_unit_test(identical_files),
        cmocka_unit_test(shifted_copies),
        cmocka_unit_test(one_stick_interval_removed),
        cmocka_unit_test(csv_from_outside),
        cmocka_unit_test(malformed_input),
        cmocka_unit_test(rerun_failure_is_exit_3),
        cmocka_unit_test(system_against_other),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
