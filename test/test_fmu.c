/* test_fmu.c - FMI 2.0 co-simulation FMUs as candidates of `converge`:
 * the suite's Karnopp FMU (test/fmu/karnopp_cs.c) against the built-in
 * karnopp scheme, and one deliberately broken FMU per failure class, each
 * with its exit code and message.  The FMUs are built and packed by
 * cmake/test_fmus.cmake into STSL_TEST_FMU_DIR. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fmu/two_body_system.h"
#include "testutil.h"

#define EX     STSL_SOURCE_DIR "/examples/"
#define FMUDIR STSL_TEST_FMU_DIR "/"
/* The Janecek example's element as the FMU's parameters (its YAML). */
#define JANECEK_SETS                                                                               \
    "--fmu-set m=100 --fmu-set k=8882.643960980423 --fmu-set c=200 --fmu-set F_D=18 "              \
    "--fmu-set F_S=26"

static char tmp[256];
static char out[1 << 16];
static char cmd_buf[1024];

static int setup(void **state)
{
    (void)state;
    /* The FMUs are unpacked under TMPDIR: the tests check it is left empty. */
    return tu_mkdtemp_env(tmp, sizeof tmp);
}

static int teardown(void **state)
{
    (void)state;
    return tu_rm_tree(tmp);
}

/* Entries of tmp other than the files a test wrote itself (*.csv). */
static int unpacked_left(void)
{
    DIR *d = opendir(tmp);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += !strncmp(e->d_name, "stickslip-fmu-", 14);
    if (d) closedir(d);
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[2][1 << 14];
    static int which;
    char *b = buf[which ^= 1];
    size_t n = fread(b, 1, sizeof buf[0] - 1, f);
    b[n] = '\0';
    fclose(f);
    return b;
}

/* The table's CSV without its wall_seconds and rhs_evals fields (columns 6
 * and 7: the FMU's cost is not the scheme's), one line per row. */
static void strip_cost(const char *csv, char *outbuf, size_t size)
{
    size_t k = 0;
    int field = 1;
    for (const char *p = csv; *p && k + 1 < size; p++) {
        if (*p == '\n') field = 0;
        if (*p == ',' || *p == '\n') field++;
        if (field == 6 || field == 7) continue;
        outbuf[k++] = *p;
    }
    outbuf[k] = '\0';
}

/* converge --fmu on the suite's Karnopp FMU and converge --scheme karnopp
 * of the same configuration: the FMU computes the scheme's operations in
 * the scheme's order on the same inputs (the signals at the communication
 * points, left limits, as the scheme evaluates them), so every number of
 * the two tables but the cost is the same double, bit for bit: the bound
 * is 0, and the CSV (17 significant digits) must match character for
 * character.  Events are the scheme's recorded ones on one side and those
 * seen in the FMU's samples on the other: the counts, missed and invented
 * events must still agree (the scheme sets v = 0 exactly when stuck). */
static void same_table(const char *config, const char *sets, const char *steps)
{
    char a[512], b[512], sa[1 << 14], sb[1 << 14];
    snprintf(a, sizeof a, "%s/fmu.csv", tmp);
    snprintf(b, sizeof b, "%s/karnopp.csv", tmp);
    int rc = tu_cli(out, sizeof out, "converge '%s' --fmu '%s' %s --steps %s -o '%s'", config,
                    FMUDIR "karnopp.fmu", sets, steps, a);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "scheme fmu "));
    rc = tu_cli(out, sizeof out, "converge '%s' --scheme karnopp --steps %s -o '%s'", config, steps,
                b);
    assert_int_equal(rc, 0);
    strip_cost(slurp(a), sa, sizeof sa);
    strip_cost(slurp(b), sb, sizeof sb);
    if (strcmp(sa, sb)) fprintf(stderr, "FMU:\n%s\nkarnopp:\n%s\n", sa, sb);
    assert_string_equal(sa, sb);
    /* the comparison covers the friction and dissipated-energy errors */
    assert_non_null(strstr(sa, ",order,max_abs_error_friction [N],rms_error_friction [N],"
                               "dissipated_energy_error [J]\n"));
    assert_int_equal(unpacked_left(), 0);
}

static void t_janecek_matches_karnopp(void **state)
{
    (void)state;
    same_table(EX "janecek_chirp.yaml", JANECEK_SETS, "2e-3,1e-3,5e-4");
}

/* Den Hartog's free vibration: an initial state and no input. */
static void t_den_hartog_matches_karnopp(void **state)
{
    (void)state;
    same_table(EX "den_hartog.yaml", "--fmu-set k=100 --fmu-set x0=0.105", "1e-3,5e-4,2.5e-4");
    /* Coulomb friction of level F_D = F_S = 1 N: friction is +-1 N slipping
     * and the balancing net force, |F| <= 1 N, stuck, so no error exceeds
     * 2 N; it is 2 N where the two slip opposite ways, at a sample between
     * a reversal and the scheme's reversal one step late. */
    char path[512];
    snprintf(path, sizeof path, "%s/fmu.csv", tmp);
    const char *t = slurp(path);
    assert_non_null(t);
    for (int i = 0; i < 3; i++)
        assert_close(tu_csv_field(t, "max_abs_error_friction", i), 2.0, 0.0);
    /* the table prints them too */
    assert_non_null(strstr(out, "max|F err|      rms F err     energy err"));
}

/* One broken FMU: exit code and the message stickslip prints. */
static void broken(const char *fmu, const char *extra, int code, const char *message)
{
    int rc = tu_cli(out, sizeof out,
                    "converge '%s' --fmu '%s%s' " JANECEK_SETS " %s --steps "
                    "1e-3,5e-4",
                    EX "janecek_chirp.yaml", FMUDIR, fmu, extra);
    if (rc != code || !strstr(out, message))
        fprintf(stderr, "exit %d, wanted %d and '%s' in:\n%s\n", rc, code, message, out);
    assert_int_equal(rc, code);
    assert_non_null(strstr(out, message));
    /* stickslip itself reports it: it survived whatever the FMU did */
    assert_non_null(strstr(out, "stickslip converge: error: "));
    assert_int_equal(unpacked_left(), 0);
}

static void t_bad_xml(void **state)
{
    (void)state;
    /* bad_xml.xml line 19 opens a ScalarVariable that never closes. */
    broken("bad_xml.fmu", "", 2, "bad_xml.fmu: modelDescription.xml:20: bad XML: ");
}

static void t_missing_function(void **state)
{
    (void)state;
    broken("no_dostep.fmu", "", 2,
           "no_dostep.fmu: binaries/linux64/karnopp_cs.so: missing function fmi2DoStep (an FMI "
           "2.0 co-simulation FMU must export it)");
}

static void t_no_binary_for_platform(void **state)
{
    (void)state;
    broken("platform.fmu", "", 2,
           "platform.fmu: no binary for this platform: binaries/linux64/karnopp_cs.so (the FMU "
           "has binaries for: win64)");
}

static void t_guid_mismatch(void **state)
{
    (void)state;
    broken("guid.fmu", "", 2,
           "guid.fmu: fmi2Instantiate failed (guid {5b2f6a0e-karnopp-cs-stickslip-test}): GUID "
           "mismatch: this binary is {another-guid}");
}

static void t_step_error(void **state)
{
    (void)state;
    broken("step_error.fmu", "", 3,
           "at step 0.001: " FMUDIR "step_error.fmu: fmi2DoStep at t = 0.5 s returned fmi2Error: "
           "step refused on purpose at t = 0.5");
}

static void t_crash(void **state)
{
    (void)state;
    /* Under AddressSanitizer its handler reports the fault and exits 1
     * instead of dying of the signal: the place is named either way. */
#if defined(__SANITIZE_ADDRESS__)
    broken("crash.fmu", "", 3, "crash.fmu: the FMU ended its process");
#else
    broken("crash.fmu", "", 3, "crash.fmu: the FMU crashed (signal 11, ");
#endif
    assert_non_null(strstr(out, ") in fmi2DoStep at t = 0.5 s"));
}

/* An FMU that never returns from fmi2DoStep (from t = 0.5 s it waits for
 * signals for ever): with --fmu-timeout 1 the run is stopped, exit 3,
 * naming the call, its time and the limit.  Deterministic whatever the
 * machine's speed or load: the call never returns, so no limit is too
 * short or too long for it. */
static void t_hang(void **state)
{
    (void)state;
    /* The FMU never returns from fmi2DoStep once t >= 0.5 s, so the limit
     * ends the run there.  The watchdog measures wall time: on a machine so
     * loaded that the child made no call for a whole second before 0.5 s,
     * it would stop an earlier call instead.  What holds under any load is
     * asserted: exit 3, a call and a time no later than the hang's, the
     * limit, and the process stopped. */
    broken("hang.fmu", "--fmu-timeout 1", 3,
           "within 1 s (--fmu-timeout); stickslip stopped its process");
    const char *what = strstr(out, FMUDIR "hang.fmu: the FMU did not return from fmi2");
    assert_non_null(what);
    const char *at = strstr(what, " at t = ");
    assert_non_null(at);
    assert_true(strtod(at + strlen(" at t = "), NULL) <= 0.5);
    /* The option's values: a time > 0, or none (a run that ends is not
     * affected by it). */
    const char *bad[] = {"0", "-1", "1s", "nan", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char extra[64];
        snprintf(extra, sizeof extra, "--fmu-timeout '%s'", bad[i]);
        broken("karnopp.fmu", extra, 2, "--fmu-timeout: '");
        assert_non_null(strstr(out, "' is not a number of seconds > 0 or none"));
    }
    int rc =
        tu_cli(out, sizeof out,
               "converge '%s' --fmu '%s' " JANECEK_SETS " --fmu-timeout none --steps 1e-3,5e-4",
               EX "janecek_chirp.yaml", FMUDIR "karnopp.fmu");
    assert_int_equal(rc, 0);
}

static void t_mapping_errors(void **state)
{
    (void)state;
    broken("karnopp.fmu", "--fmu-input base_acceleration=active_force", 2,
           "karnopp.fmu: modelDescription.xml:21: variable 'base_acceleration' has unit 'm/s2', "
           "but active_force is in N");
    broken("karnopp.fmu", "--fmu-set nope=1", 2,
           "karnopp.fmu: --fmu-set: unknown variable 'nope' (not in modelDescription.xml)");
    broken("karnopp.fmu", "--fmu-output x=m", 2,
           "karnopp.fmu: --fmu-output: variable 'm' has causality parameter "
           "(modelDescription.xml:29), need output");
    broken("karnopp.fmu", "--fmu-input x=load", 2,
           "karnopp.fmu: --fmu-input: variable 'x' has causality output (modelDescription.xml:23), "
           "need input");
    broken("karnopp.fmu", "--fmu-output x=mode", 2,
           "karnopp.fmu: --fmu-output: variable 'mode' is of type Integer "
           "(modelDescription.xml:47), need Real");
    broken("karnopp.fmu", "--fmu-input active_force=thrust", 2,
           "--fmu-input active_force=thrust: unknown signal 'thrust'");
}

static void t_not_an_fmu(void **state)
{
    (void)state;
    int rc = tu_cli(out, sizeof out, "converge '%s' --fmu '%s' --steps 1e-3,5e-4",
                    EX "janecek_chirp.yaml", EX "den_hartog.yaml");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "den_hartog.yaml: cannot open the FMU (Not a zip archive): an "
                                "FMU is a zip archive"));
    rc = tu_cli(out, sizeof out, "converge '%s' --fmu '%s' --steps 1e-3,5e-4",
                EX "janecek_chirp.yaml", FMUDIR "absent.fmu");
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "absent.fmu: cannot open the FMU (No such file)"));
    rc = tu_cli(out, sizeof out, "converge '%s' --fmu '%s' --scheme karnopp --steps 1e-3,5e-4",
                EX "janecek_chirp.yaml", FMUDIR "karnopp.fmu");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--fmu and --scheme exclude each other"));
}

/* compare REFERENCE.h5 --fmu: the same FMU run at one step against the
 * reference re-run at its communication points.  converge evaluates its
 * reference at the same instants with the same tolerances (rtol 1e-10):
 * the two reference runs agree exactly when they take the same steps and
 * within their position tolerance, rtol times the position scale
 * (5e-2 m): 5e-12 m, otherwise, so the max |x error| of both tools agree
 * within 1e-11 m (it is 9.3e-6 m). */
static void t_compare_fmu(void **state)
{
    (void)state;
    char ref[512], csv[512], json[512];
    snprintf(ref, sizeof ref, "%s/ref.h5", tmp);
    snprintf(csv, sizeof csv, "%s/conv.csv", tmp);
    snprintf(json, sizeof json, "%s/cmp.json", tmp);
    assert_int_equal(tu_cli(out, sizeof out, "run '%s' -o '%s'", EX "janecek_chirp.yaml", ref), 0);
    assert_int_equal(tu_cli(out, sizeof out,
                            "converge '%s' --fmu '%s' " JANECEK_SETS " --steps 1e-3,5e-4 -o '%s'",
                            EX "janecek_chirp.yaml", FMUDIR "karnopp.fmu", csv),
                     0);
    int rc = tu_cli(out, sizeof out, "compare '%s' --fmu '%s' --step 1e-3 " JANECEK_SETS " -o '%s'",
                    ref, FMUDIR "karnopp.fmu", json);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "karnopp.fmu (fmu), t = 0 .. 9.5 s"));
    const char *j = slurp(json), *table = slurp(csv);
    double conv = strtod(strchr(table, '\n') + 1 + strlen("0.001,"), NULL);
    assert_true(conv > 1e-6);
    assert_close(tu_json_value(j, "max_abs_error_x"), conv, 1e-11);
    assert_close(tu_json_value(j, "n_points"), 9501, 0.0); /* t_end / h + 1 points */
    assert_close(tu_json_value(j, "events_missed"), 0, 0.0);
    assert_close(tu_json_value(j, "events_spurious"), 0, 0.0);
    /* A failure of the FMU is the candidate's: exit 3 and its message. */
    rc = tu_cli(out, sizeof out, "compare '%s' --fmu '%s' --step 1e-3", ref,
                FMUDIR "step_error.fmu");
    assert_int_equal(rc, 3);
    assert_non_null(strstr(out, "step_error.fmu: fmi2DoStep at t = 0.5 s returned fmi2Error"));
    rc = tu_cli(out, sizeof out, "compare '%s' --fmu '%s'", ref, FMUDIR "karnopp.fmu");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "--fmu needs --step H"));
    assert_int_equal(unpacked_left(), 0);
}

/* A model-exchange FMU of a smooth law (test/fmu/smooth_me.c: the element
 * under 20-sim's CV law) integrated by stickslip's explicit Euler and RK4
 * against the exact reference of the same configuration.  The right-hand
 * side is smooth (tanh of slope 10 s/m, natural frequency 10 rad/s), so at
 * h <= 1e-2 s (h times the largest rate <= 0.1) each scheme is in its
 * asymptotic regime: the fitted order is the scheme's, 1 and 4, within
 * 0.25 (the next error term is O(h) smaller; the reference's own error at
 * rtol 1e-12 is below 1e-11 m, 80 times below RK4's smallest error).  The
 * FMU fails any derivative evaluation after a step over which v changed
 * sign unless an event iteration came first: that the runs succeed shows
 * the state events are handled. */
static void t_model_exchange_order(void **state)
{
    (void)state;
    char cfg[512], csv[512];
    snprintf(cfg, sizeof cfg, "%s/cv.yaml", tmp);
    snprintf(csv, sizeof csv, "%s/me.csv", tmp);
    assert_int_equal(tu_write_file(cfg, "element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
                                        "friction: {law: 20sim_cv, tc: 1.0, slope: 10.0, d: 0.5}\n"
                                        "inputs:\n"
                                        "  active_force: {type: sine, amplitude: 5.0, frequency: "
                                        "1.0}\n"
                                        "simulation: {t_end: 2.0, output_step: 0.001, rtol: "
                                        "1.0e-12}\n"),
                     0);
    const char *schemes[2] = {"euler", "rk4"};
    const double order[2] = {1.0, 4.0};
    for (int i = 0; i < 2; i++) {
        int rc = tu_cli(out, sizeof out,
                        "converge '%s' --fmu '%s' --fmu-scheme %s --fmu-set k=100 --fmu-set tc=1 "
                        "--fmu-set slope=10 --fmu-set d=0.5 --steps 1e-2,5e-3,2.5e-3 -o '%s'",
                        cfg, FMUDIR "smooth_me.fmu", schemes[i], csv);
        if (rc) fprintf(stderr, "%s\n", out);
        assert_int_equal(rc, 0);
        assert_close(tu_csv_field(slurp(csv), "order", 2), order[i], 0.25);
    }
    /* The kind the FMU offers must be the one asked for. */
    int rc = tu_cli(out, sizeof out, "converge '%s' --fmu '%s' --steps 1e-2,5e-3", cfg,
                    FMUDIR "smooth_me.fmu");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "no CoSimulation element: a model-exchange FMU needs the scheme "
                                "that integrates it (--fmu-scheme euler or rk4)"));
    rc = tu_cli(out, sizeof out, "converge '%s' --fmu '%s' --fmu-scheme rk4 --steps 1e-2,5e-3", cfg,
                FMUDIR "karnopp.fmu");
    assert_int_equal(rc, 2);
    assert_non_null(strstr(out, "no ModelExchange element"));
    assert_int_equal(unpacked_left(), 0);
}

/* converge --fmu of a system: the FMU's outputs x[a] ... friction[guide]
 * are found by their names, its input F by --fmu-input.  Semi-implicit
 * Euler with a stick decision at the communication points is first order:
 * smooth phases add O(h) per unit time, and each of the 5 stick/slip
 * switches is taken up to one step late, an O(h) error in position and
 * velocity carried on.  Over a factor 4 of steps the fitted slope of each
 * body's max |x err| and max |v err| still carries the pre-asymptotic
 * part (where a switch falls inside a step changes with h), so the test
 * accepts [0.75, 1.5]: a wrong mapping (bodies swapped, the force on the
 * wrong body, friction's sign) leaves an O(1) error, slope about 0.  The
 * events are derived from the contact's slip velocity; each lies within
 * one step of the exact one (matching allows 5), so at the smallest step
 * none is missed or invented. */
/* converge --fmu FMU (of test/fmu) of the two-body system at `steps`: the
 * table it writes (the printed one in `out`). */
static const char *converge_two_body(const char *fmu, const char *steps)
{
    char cfg[512], csv[512];
    snprintf(cfg, sizeof cfg, "%s/two.yaml", tmp);
    snprintf(csv, sizeof csv, "%s/two.csv", tmp);
    assert_int_equal(tu_write_file(cfg, TWO_BODY_YAML), 0);
    int rc = tu_cli(out, sizeof out,
                    "converge '%s' --fmu '%s%s' --fmu-input F=bodies.b.force --steps %s -o '%s'",
                    cfg, FMUDIR, fmu, steps, csv);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    return slurp(csv);
}

static void t_system_converges(void **state)
{
    (void)state;
    const char *t = converge_two_body("two_body.fmu", "1e-3,5e-4,2.5e-4");
    const char *fields[4] = {"max_abs_error_x.a", "max_abs_error_v.a", "max_abs_error_x.b",
                             "max_abs_error_v.b"};
    for (int k = 0; k < 4; k++) {
        /* least-squares slope of log err against log h over the 3 steps */
        double lh[3], le[3], mh = 0, me = 0, sxy = 0, sxx = 0;
        for (int i = 0; i < 3; i++) {
            lh[i] = log(tu_csv_field(t, "step", i)), le[i] = log(tu_csv_field(t, fields[k], i));
            mh += lh[i] / 3, me += le[i] / 3;
        }
        for (int i = 0; i < 3; i++)
            sxy += (lh[i] - mh) * (le[i] - me), sxx += (lh[i] - mh) * (lh[i] - mh);
        double slope = sxy / sxx;
        if (slope < 0.75 || slope > 1.5) fprintf(stderr, "%s: slope %g\n", fields[k], slope);
        assert_true(slope >= 0.75 && slope <= 1.5);
    }
    assert_close(tu_csv_field(t, "events_missed", 2), 0, 0);
    assert_close(tu_csv_field(t, "events_spurious", 2), 0, 0);
    assert_true(tu_csv_field(t, "events", 2) >= 5);
    assert_int_equal(unpacked_left(), 0);
}

/* converge --fmu of a system whose FMU has no friction output: the
 * contact's friction errors are not measured, so the table says n/a (never
 * the 0 a maximum over NaN samples gave) and the CSV nan, while the stuck
 * IoU, which the slip velocity derived from the bodies' v decides, is a
 * number in (0, 1]. */
static void t_system_without_friction(void **state)
{
    (void)state;
    const char *t = converge_two_body("two_body_nofric.fmu", "1e-3,5e-4");
    const char *row = strstr(out, "\nguide  ");
    assert_non_null(row);
    double h, iou;
    char a[16], b[16], e[16];
    assert_int_equal(sscanf(row, " guide %lf %15s %15s %lf %15s", &h, a, b, &iou, e), 5);
    assert_true(h == 1e-3 && iou > 0.0 && iou <= 1.0);
    assert_string_equal(a, "n/a");
    assert_string_equal(b, "n/a");
    assert_string_equal(e, "n/a");
    for (int i = 0; i < 2; i++) {
        assert_true(isnan(tu_csv_field(t, "max_abs_error_friction.guide", i)));
        assert_true(isnan(tu_csv_field(t, "rms_error_friction.guide", i)));
        assert_true(isnan(tu_csv_field(t, "dissipated_energy_error.guide", i)));
        double u = tu_csv_field(t, "stuck_iou.guide", i);
        assert_true(u > 0.0 && u <= 1.0);
    }
    assert_int_equal(unpacked_left(), 0);
}

/* A system's mapping errors: exit 2 naming the FMU, the option and what
 * is wrong. */
static void t_system_mapping_errors(void **state)
{
    (void)state;
    char cfg[512];
    snprintf(cfg, sizeof cfg, "%s/two.yaml", tmp);
    assert_int_equal(tu_write_file(cfg, TWO_BODY_YAML), 0);
    struct {
        const char *opts, *message;
    } cases[] = {
        {"--fmu-input F=bodies.b.force --fmu-output x[c]=x[a]",
         "two_body.fmu: --fmu-output x[c]=x[a]: the configuration has no body 'c' (its bodies: "
         "a, b)"},
        {"--fmu-input F=bodies.b.force --fmu-output friction[2]=F",
         "two_body.fmu: --fmu-output friction[2]=F: the configuration has no contact '2' (its "
         "contacts: guide)"},
        {"--fmu-input F=bodies.b.force --fmu-output x=x[a]",
         "two_body.fmu: --fmu-output x=x[a]: 'x' is not x[BODY], v[BODY] or friction[CONTACT]"},
        {"--fmu-input F=bodies.c.force", "two_body.fmu: --fmu-input F=bodies.c.force: unknown "
                                         "signal 'bodies.c.force' (bodies.BODY.force, "
                                         "contacts.N.load, base_position"},
        {"--fmu-input F=base_velocity",
         "two_body.fmu: modelDescription.xml:17: variable 'F' has unit 'N', but base_velocity "
         "is in m/s"},
        {"", "two_body.fmu: input 'F' of the FMU receives no signal: map it with --fmu-input "
             "F=SIGNAL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int rc = tu_cli(out, sizeof out, "converge '%s' --fmu '%s' %s --steps 1e-3,5e-4", cfg,
                        FMUDIR "two_body.fmu", cases[i].opts);
        if (rc != 2 || !strstr(out, cases[i].message)) fprintf(stderr, "%s\n", out);
        assert_int_equal(rc, 2);
        assert_non_null(strstr(out, cases[i].message));
    }
    assert_int_equal(unpacked_left(), 0);
}

/* `stickslip fmu CONFIG -o E.fmu`, loaded back by the importer: its
 * modelDescription.xml passes the FMI 2.0 rules of test/check_fmu_md.py,
 * and `compare REF.h5 --fmu E.fmu --step 1e-3` (the FMU driven with the
 * configuration's own inputs) agrees with `stickslip run` of the same
 * configuration.  Where the inputs are absent, constant, or a base moving
 * at constant velocity, holding them over a step is exact: what differs is
 * only the engine restarted at every communication point, each step
 * integrated to the configuration's tolerance, rtol 1e-10 relative to the
 * motion's size X.  Over the N = t_end / h restarts that is at most
 * N rtol X (max_x); the events the samples show (rest, start, turn) must
 * all be the reference's, and the stuck intervals overlap at least
 * min_iou (1 when exact). */
static void round_trip(const char *config, double max_x, int all_events, double min_iou)
{
    char ref[512], fmu[512], json[512];
    snprintf(ref, sizeof ref, "%s/rt.h5", tmp);
    snprintf(fmu, sizeof fmu, "%s/element.fmu", tmp);
    snprintf(json, sizeof json, "%s/rt.json", tmp);
    assert_int_equal(tu_cli(out, sizeof out, "run '%s' -o '%s'", config, ref), 0);
    int rc = tu_cli(out, sizeof out, "fmu '%s' -o '%s'", config, fmu);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s/test/check_fmu_md.py' '%s' 2>&1",
             STSL_SOURCE_DIR, fmu);
    rc = tu_shell(cmd, out, sizeof out);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    rc = tu_cli(out, sizeof out, "compare '%s' --fmu '%s' --step 1e-3 -o '%s'", ref, fmu, json);
    if (rc) fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    const char *j = slurp(json);
    double ex = tu_json_value(j, "max_abs_error_x");
    if (ex > max_x) fprintf(stderr, "%s: max x error %g > %g\n", config, ex, max_x);
    assert_true(ex <= max_x);
    assert_true(tu_json_value(j, "stuck_iou") >= min_iou);
    assert_close(tu_json_value(j, "events_spurious"), 0, 0.0);
    if (all_events) assert_close(tu_json_value(j, "events_missed"), 0, 0.0);
    assert_true(tu_json_value(j, "events_matched") >= 5);
    assert_int_equal(unpacked_left(), 0);
}

/* The exported FMU's inputs in its modelDescription.xml: name, value
 * reference, unit and start value, one line each.  A base sine
 * x_b = A sin(w t + phi) (A = 0.02 m, f = 2 Hz, phi = 0.5) starts at
 * A sin(phi), A w cos(phi) and -A w^2 sin(phi); an anchor ramp
 * (initial 0.3 m, slope 0.2 m/s, from t = 0) at its left limit at t = 0,
 * 0.3 m at rest, as the importer samples it; a step of active force from
 * 4 N to 9 N at t = 0 at 4 N.  Without an anchor there are no anchor
 * inputs: they would act on nothing. */
static void t_export_inputs(void **state)
{
    (void)state;
    char cfg[512], fmu[512], cmd[2048];
    snprintf(cfg, sizeof cfg, "%s/inputs.yaml", tmp);
    snprintf(fmu, sizeof fmu, "%s/inputs.fmu", tmp);
    const char *yaml = "element: {mass: 2.0, spring: {stiffness: 50.0}}\n"
                       "friction: {law: coulomb, dynamic: 1.0}\n"
                       "inputs:\n"
                       "  active_force: {type: step, time: 0.0, before: 4.0, after: 9.0}\n"
                       "  base_motion: {type: sine, amplitude: 0.02, frequency: 2.0, phase: 0.5}\n"
                       "%s"
                       "simulation: {t_end: 0.5, output_step: 0.01}\n";
    const char *lister = "/usr/bin/python3 -c \"import sys, zipfile, xml.etree.ElementTree as E\n"
                         "r = E.fromstring(zipfile.ZipFile(sys.argv[1]).read('modelDescription."
                         "xml'))\nfor v in r.iter('ScalarVariable'):\n"
                         "  if v.get('causality') == 'input':\n"
                         "    t = v.find('Real'); print(v.get('name'), v.get('valueReference'), "
                         "t.get('unit'), float(t.get('start')))\" '%s' 2>&1";
    char text[1024];
    snprintf(text, sizeof text, yaml,
             "  anchor_motion: {type: ramp, start_time: 0.0, slope: 0.2, initial: 0.3}\n");
    assert_int_equal(tu_write_file(cfg, text), 0);
    assert_int_equal(tu_cli(out, sizeof out, "fmu '%s' -o '%s'", cfg, fmu), 0);
    snprintf(cmd, sizeof cmd, lister, fmu);
    assert_int_equal(tu_shell(cmd, out, sizeof out), 0);
    double A = 0.02, w = 2.0 * M_PI * 2.0, phi = 0.5;
    char want[512];
    snprintf(want, sizeof want,
             "active_force 0 N 4.0\nload 1 N 0.0\nbase_position 2 m %.17g\n"
             "base_velocity 3 m/s %.17g\nbase_acceleration 4 m/s^2 %.17g\n"
             "anchor_position 5 m 0.3\nanchor_velocity 6 m/s 0.0\n",
             A * sin(phi), A * w * cos(phi), -A * w * w * sin(phi));
    /* Python prints the shortest repr of each double, %.17g may not: compare
     * the numbers through the same repr. */
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import sys\nfor l in sys.stdin: "
             "n = l.split(); print(*n[:3], float(n[3]))\" <<'EOF'\n%sEOF",
             want);
    char expect[1024];
    assert_int_equal(tu_shell(cmd, expect, sizeof expect), 0);
    assert_string_equal(out, expect);
    /* No anchor: five inputs, no anchor_*. */
    snprintf(text, sizeof text, yaml, "");
    assert_int_equal(tu_write_file(cfg, text), 0);
    assert_int_equal(tu_cli(out, sizeof out, "fmu '%s' -o '%s'", cfg, fmu), 0);
    snprintf(cmd, sizeof cmd, lister, fmu);
    assert_int_equal(tu_shell(cmd, out, sizeof out), 0);
    assert_null(strstr(out, "anchor"));
    assert_non_null(strstr(out, "base_acceleration 4 m/s^2 "));
}

static void t_export_round_trip(void **state)
{
    (void)state;
    /* Den Hartog: N = 2000, X = 0.105 m. */
    round_trip(EX "den_hartog.yaml", 2000 * 1e-10 * 0.105, 1, 1.0);
    /* The belt: its base (the belt, a ramp at 0.1 m/s) and its anchor (the
     * wall) are the FMU's inputs base_position, base_velocity,
     * base_acceleration, anchor_position and anchor_velocity, driven with
     * the configuration's signals.  A held velocity with the position it
     * moves is the belt's motion exactly (at t = 0 the importer gives the
     * ramp's left limit, v = 0, over the first step: the block sticks to
     * the belt through it either way, relative state 0).  N = 5000,
     * X = 0.5 m (x is relative to the base, which travels 0.5 m). */
    round_trip(EX "belt_stick_slip.yaml", 5000 * 1e-10 * 0.5, 1, 1.0);
    /* Janecek: the chirped base through the same inputs.  Its acceleration
     * is held over each step, so the FMU's element is the reference's
     * driven by a base acceleration late by less than a step h: its motion
     * is late by less than h, an x error below h max|v| = 1e-3 s *
     * 0.1 m/s (the reference's largest speed 0.095 m/s), on top of
     * N rtol X = 9500 * 1e-10 * 0.05 m.  Each of the 13 events is seen at
     * most a step and a sample late (2 h), so the stuck time (5.56 s)
     * overlaps at least 1 - 13 * 2 h / 5.56 s = 0.995. */
    round_trip(EX "janecek_chirp.yaml", 1e-3 * 0.1 + 9500 * 1e-10 * 0.05, 1,
               1.0 - 13 * 2e-3 / 5.56);
    /* Against an end stop under a constant force: N = 1000, X = 0.05 m.
     * The bounces shorter than a communication step are not seen in its
     * samples (missed), the rest on the stop is. */
    char cfg[512];
    snprintf(cfg, sizeof cfg, "%s/stop.yaml", tmp);
    assert_int_equal(tu_write_file(cfg, "element: {mass: 1.0}\n"
                                        "friction: {law: coulomb, dynamic: 10.0, static_ratio: "
                                        "1.2}\n"
                                        "end_stops: {min: -0.05, max: 0.05, restitution: 0.3}\n"
                                        "inputs: {active_force: {type: constant, value: 15.0}}\n"
                                        "simulation: {t_end: 1.0, output_step: 0.001, rtol: "
                                        "1.0e-10}\n"),
                     0);
    round_trip(cfg, 1000 * 1e-10 * 0.05, 0, 1.0);
    /* The checker itself finds what it checks (its self-test) and refuses
     * an FMU that breaks the rules: the suite's bad XML is not XML. */
    snprintf(cmd_buf, sizeof cmd_buf, "/usr/bin/python3 '%s/test/check_fmu_md.py' '%s' 2>&1",
             STSL_SOURCE_DIR, FMUDIR "bad_xml.fmu");
    assert_int_not_equal(tu_shell(cmd_buf, out, sizeof out), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_janecek_matches_karnopp),
        cmocka_unit_test(t_den_hartog_matches_karnopp),
        cmocka_unit_test(t_bad_xml),
        cmocka_unit_test(t_missing_function),
        cmocka_unit_test(t_no_binary_for_platform),
        cmocka_unit_test(t_guid_mismatch),
        cmocka_unit_test(t_step_error),
        cmocka_unit_test(t_crash),
        cmocka_unit_test(t_hang),
        cmocka_unit_test(t_mapping_errors),
        cmocka_unit_test(t_not_an_fmu),
        cmocka_unit_test(t_compare_fmu),
        cmocka_unit_test(t_model_exchange_order),
        cmocka_unit_test(t_export_inputs),
        cmocka_unit_test(t_export_round_trip),
        cmocka_unit_test(t_system_converges),
        cmocka_unit_test(t_system_without_friction),
        cmocka_unit_test(t_system_mapping_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
