/* The `stickslip` command end to end: help and version, run/info/check,
 * re-running a result's /config, malformed input (exit 2, one line naming
 * key and line, nothing written), and a solver failure (exit 3, the result
 * kept and marked incomplete). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/stickslip.h"
#include "io/result/h5_read.h"
#include "test/testutil.h"

#define EX STSL_SOURCE_DIR "/examples/"

static char dir[256];
static char out[65536];

/* Run stickslip with printf-style arguments; output in `out`. */
#define cli(...) tu_cli(out, sizeof out, __VA_ARGS__)

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void help_and_version(void **state)
{
    (void)state;
    assert_int_equal(cli("--help"), 0);
    assert_non_null(strstr(out, "usage: stickslip"));
    /* The headline names both things it simulates, and how. */
    assert_non_null(strstr(out, "\n\nExact, event-driven simulation of mechanical elements and "
                                "of systems of bodies\nwith dry friction"));
    const char *cmds[] = {"run", "check", "info"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(cli("%s --help", cmds[i]), 0);
        assert_non_null(strstr(out, "usage: stickslip"));
    }
    assert_int_equal(cli("--version"), 0);
    assert_non_null(strstr(out, "stickslip 0."));
    assert_int_equal(cli("frobnicate"), 2);
    assert_int_equal(cli("run"), 2);
    assert_int_equal(cli("%s", ""), 2);
}

/* run writes the result and prints the summary; info reads it back; the CSV
 * export has a header with units; check accepts the example. */
static void run_info_check(void **state)
{
    (void)state;
    char h5[512], csv[512];
    snprintf(h5, sizeof h5, "%s/dh.h5", dir);
    snprintf(csv, sizeof csv, "%s/dh", dir);
    assert_int_equal(cli("run %sden_hartog.yaml -o %s --csv %s", EX, h5, csv), 0);
    assert_non_null(strstr(out, "stick"));
    assert_non_null(strstr(out, h5));
    assert_true(tu_file_exists(h5));
    assert_int_equal(cli("info %s", h5), 0);
    assert_non_null(strstr(out, "complete"));
    assert_non_null(strstr(out, "reversal"));
    char path[600];
    snprintf(path, sizeof path, "%s_trajectory.csv", csv);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char header[512] = "";
    assert_non_null(fgets(header, sizeof header, f));
    fclose(f);
    assert_non_null(strstr(header, "x [m]"));
    assert_int_equal(cli("check %sjanecek_chirp.yaml", EX), 0);
    assert_non_null(strstr(out, "valid"));
    /* check names the configured law, whichever it is (it once said
     * "coulomb friction" for every law but stribeck). */
    assert_int_equal(cli("check %slugre_stick_slip.yaml", EX), 0);
    assert_non_null(strstr(out, "lugre friction"));
    assert_int_equal(cli("check %s20sim_scvs.yaml", EX), 0);
    assert_non_null(strstr(out, "20sim_scvs friction"));
    /* Every shipped example passes check and runs to completion. */
    glob_t g;
    assert_int_equal(glob(EX "*.yaml", 0, NULL, &g), 0);
    assert_true(g.gl_pathc >= 17);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        if (cli("check %s", g.gl_pathv[i]) != 0) print_error("%s: %s", g.gl_pathv[i], out);
        assert_int_equal(cli("check %s", g.gl_pathv[i]), 0);
        assert_int_equal(cli("run %s -o %s/ex.h5 -q", g.gl_pathv[i], dir), 0);
    }
    globfree(&g);
}

/* Without -o the result goes to output.file, else results/<config name>.h5
 * relative to the working directory. */
static void default_output_paths(void **state)
{
    (void)state;
    char cfg[512], cmd[2048], want[600];
    snprintf(cfg, sizeof cfg, "%s/plain_case.yaml", dir);
    assert_int_equal(tu_write_file(cfg, "element: {mass: 1.0}\nfriction: {dynamic: 1.0}\n"
                                        "simulation: {t_end: 0.1}\n"),
                     0);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' run plain_case.yaml -q", dir, STSL_CLI);
    assert_int_equal(system(cmd), 0);
    snprintf(want, sizeof want, "%s/results/plain_case.h5", dir);
    assert_true(tu_file_exists(want));
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' run plain_case.yaml -q --set output.file=elsewhere.h5", dir,
             STSL_CLI);
    assert_int_equal(system(cmd), 0);
    snprintf(want, sizeof want, "%s/elsewhere.h5", dir);
    assert_true(tu_file_exists(want));
}

/* domain: rotational labels the result with angles and torques. */
static void rotational_units(void **state)
{
    (void)state;
    char h5[512];
    snprintf(h5, sizeof h5, "%s/rot.h5", dir);
    assert_int_equal(cli("run %sden_hartog.yaml -o %s --set domain=rotational -q", EX, h5), 0);
    stsl_h5_result r;
    stsl_error err = {0};
    assert_int_equal(stsl_h5_read(h5, &r, &err), STSL_OK);
    assert_string_equal(r.x_units, "rad");
    assert_string_equal(r.v_units, "rad/s");
    assert_string_equal(r.friction_units, "N·m");
    stsl_h5_result_free(&r);
    assert_int_equal(cli("info %s", h5), 0);
    assert_non_null(strstr(out, "x [rad]"));
    assert_non_null(strstr(out, "x: angle [rad]"));
    assert_non_null(strstr(out, "friction: friction torque [N·m]"));
}

/* ---- tables whose headers carry multibyte units -------------------------- */

/* The displayed column of byte `off` of `line`: a UTF-8 continuation byte
 * ("·" is C2 B7) takes none. */
static int display_col(const char *line, size_t off)
{
    int col = 0;
    for (size_t i = 0; i < off; i++)
        col += ((unsigned char)line[i] & 0xC0) != 0x80;
    return col;
}

/* The line of `text` that begins with `start` (NULL-terminated copy in buf). */
static const char *line_at(const char *text, const char *start, char *buf, size_t n)
{
    const char *p = strstr(text, start);
    if (!p) fail_msg("no line '%s' in:\n%s", start, text);
    snprintf(buf, n, "%.*s", (int)strcspn(p, "\n"), p);
    return buf;
}

/* Right-aligned columns line up: the last n fields of `row` (runs without
 * spaces) end at the displayed columns where `cells` end in `header`. */
static void assert_edges(const char *header, const char *const *cells, int n, const char *row)
{
    size_t end = strlen(row);
    for (int i = n - 1; i >= 0; i--) {
        while (end > 0 && row[end - 1] == ' ')
            end--;
        const char *c = strstr(header, cells[i]);
        assert_non_null(c);
        int want = display_col(header, (size_t)(c - header) + strlen(cells[i]));
        if (display_col(row, end) != want)
            fail_msg("'%s' ends at column %d, its header '%s' at %d:\n%s\n%s", row + end - 1,
                     display_col(row, end), cells[i], want, header, row);
        while (end > 0 && row[end - 1] != ' ')
            end--;
    }
}

/* Tables whose headers carry N·m (two bytes for "·") are padded by
 * displayed columns, not bytes: info's event table of a rotational element
 * and a system's contact table, converge's friction block.  Each header is
 * the exact expected text (every cell right-aligned to its width: 14, 16,
 * 13, 20 columns) and every row's fields end where their header cells do. */
static void unit_headers_line_up(void **state)
{
    (void)state;
    assert_int_equal(stsl_field_width("[N·m]", 13), 14);
    assert_int_equal(stsl_field_width("kg·m²", 8), 10);
    assert_int_equal(stsl_field_width("[N]", 13), 13);
    char h5[512], hdr[512], row[512];
    snprintf(h5, sizeof h5, "%s/rot_table.h5", dir);
    assert_int_equal(cli("run %sden_hartog.yaml -o %s --set domain=rotational -q", EX, h5), 0);
    assert_int_equal(cli("info %s", h5), 0);
    const char *want_hdr =
        "         t [s]  kind             mode                            x [rad] "
        "v_before [rad/s]  v_after [rad/s]  net_force [N·m]   friction [N·m]";
    assert_string_equal(line_at(out, "         t [s]", hdr, sizeof hdr), want_hdr);
    const char *ev_cells[5] = {"x [rad]", "v_before [rad/s]", "v_after [rad/s]", "net_force [N·m]",
                               "friction [N·m]"};
    /* Den Hartog's five events: four reversals and the stick at 5 pi / 10. */
    const char *starts[5] = {"   0.314159265  reversal", "   0.628318531  reversal",
                             "   0.942477796  reversal", "    1.25663706  reversal",
                             "    1.57079633  stick"};
    for (int i = 0; i < 5; i++) {
        line_at(out, starts[i], row, sizeof row);
        assert_edges(hdr, ev_cells, 5, row);
        size_t t_end = strspn(row, " ") + strcspn(row + strspn(row, " "), " ");
        assert_int_equal(display_col(row, t_end), display_col(hdr, strlen("         t [s]")));
    }

    assert_int_equal(cli("converge %sden_hartog.yaml --set domain=rotational --scheme karnopp "
                         "--steps 1e-3,5e-4",
                         EX),
                     0);
    const char *titles =
        "                    step [s]     max|F err|      rms F err     energy err";
    assert_string_equal(
        line_at(out, "                    step [s]     max|F err|", hdr, sizeof hdr), titles);
    const char *f_cells[4] = {"step [s]", "max|F err|", "rms F err", "energy err"};
    const char *units = "                                      [N·m]          [N·m]            [J]";
    assert_non_null(strstr(out, units));
    assert_edges(hdr, f_cells + 1, 3, units);
    assert_edges(hdr, f_cells, 4, line_at(out, "friction               0.001", row, sizeof row));

    snprintf(h5, sizeof h5, "%s/servo_table.h5", dir);
    assert_int_equal(cli("run %sservo_two_mass.yaml -o %s -q", EX, h5), 0);
    assert_int_equal(cli("info %s", h5), 0);
    assert_string_equal(line_at(out, "  contact  ", hdr, sizeof hdr),
                        "  contact              time stuck [s]  stuck %   sticks breakaways "
                        "max |friction| [N·m]");
    const char *c_cells[2] = {"time stuck [s]", "max |friction| [N·m]"};
    for (int k = 0; k < 2; k++) {
        char start[32];
        snprintf(start, sizeof start, "  contacts.%d  ", k);
        line_at(out, start, row, sizeof row);
        assert_edges(hdr, c_cells + 1, 1, row);
        assert_int_equal(display_col(row, strlen(row)), display_col(hdr, strlen(hdr)));
    }
}

/* The effective /config of a result, run again, gives the same events. */
static void rerun_config_reproduces_events(void **state)
{
    (void)state;
    char a[512], b[512], yaml[512];
    snprintf(a, sizeof a, "%s/a.h5", dir);
    snprintf(b, sizeof b, "%s/b.h5", dir);
    snprintf(yaml, sizeof yaml, "%s/effective.yaml", dir);
    assert_int_equal(cli("run %sbelt_stick_slip.yaml -o %s --set simulation.t_end=2 -q", EX, a), 0);
    stsl_h5_result ra, rb;
    stsl_error err = {0};
    assert_int_equal(stsl_h5_read(a, &ra, &err), STSL_OK);
    assert_int_equal(tu_write_file(yaml, ra.config_yaml), 0);
    assert_int_equal(cli("run %s -o %s -q", yaml, b), 0);
    assert_int_equal(stsl_h5_read(b, &rb, &err), STSL_OK);
    assert_true(ra.n_events >= 4);
    assert_int_equal(ra.n_events, rb.n_events);
    for (long i = 0; i < ra.n_events; i++) {
        assert_string_equal(ra.events[i].kind, rb.events[i].kind);
        assert_close(ra.events[i].t, rb.events[i].t, 0.0);
    }
    assert_string_equal(ra.config_yaml, rb.config_yaml);
    stsl_h5_result_free(&ra);
    stsl_h5_result_free(&rb);
}

typedef struct bad_case {
    const char *name;
    const char *yaml; /* NULL: a file that does not exist */
    const char *set;  /* extra --set, or NULL */
    const char *key;  /* must appear in the message */
    const char *line; /* ":N:" that must appear, or NULL */
} bad_case;

#define OK_TAIL "friction: {dynamic: 1.0}\nsimulation: {t_end: 1.0}\n"

static const bad_case bad[] = {
    {"unparsable", "element: {mass: 1.0\n" OK_TAIL, NULL, "invalid YAML", ":"},
    {"missing_file", NULL, NULL, "cannot open", NULL},
    {"unknown_key", "element: {mass: 1.0, colour: red}\n" OK_TAIL, NULL, "element.colour", ":1:"},
    {"wrong_type", "element:\n  mass: heavy\n" OK_TAIL, NULL, "element.mass", ":2:"},
    {"missing_key", "element: {mass: 1.0}\nfriction: {static_ratio: 1.2}\nsimulation: {t_end: 1}\n",
     NULL, "friction.dynamic", ":2:"},
    {"negative_mass", "element: {mass: -1.0}\n" OK_TAIL, NULL, "element.mass", ":1:"},
    {"efficiency_range",
     "element: {mass: 1.0}\nfriction:\n  dynamic: 1.0\n  efficiency_opposing: 1.5\n"
     "simulation: {t_end: 1.0}\n",
     NULL, "friction.efficiency_opposing", ":4:"},
    {"static_ratio_below_1",
     "element: {mass: 1.0}\nfriction: {dynamic: 1.0, static_ratio: 0.5}\nsimulation: {t_end: 1}\n",
     NULL, "friction.static_ratio", ":2:"},
    {"nan", "element: {mass: 1.0}\nfriction: {dynamic: 1.0}\nsimulation:\n  t_end: .nan\n", NULL,
     "simulation.t_end", ":4:"},
    {"inf",
     "element: {mass: 1.0}\nfriction: {dynamic: 1.0}\nsimulation:\n  t_end: 1\n  rtol: 1e999\n",
     NULL, "simulation.rtol", ":5:"},
    {"outside_stops",
     "element: {mass: 1.0}\n" OK_TAIL "end_stops: {min: -0.1, max: 0.1}\n"
     "initial: {position: 0.5}\n",
     NULL, "initial.position", ":5:"},
    {"stops_reversed", "element: {mass: 1.0}\n" OK_TAIL "end_stops: {min: 0.1, max: -0.1}\n", NULL,
     "end_stops", ":4:"},
    {"static_and_ratio",
     "element: {mass: 1.0}\nfriction: {dynamic: 1.0, static: 2.0, static_ratio: 2.0}\n"
     "simulation: {t_end: 1}\n",
     NULL, "friction.stati", ":2:"},
    {"unknown_signal",
     "element: {mass: 1.0}\n" OK_TAIL "inputs:\n  load: {type: square, amplitude: 1}\n", NULL,
     "inputs.load.type", ":5:"},
    {"restitution_range",
     "element: {mass: 1.0}\n" OK_TAIL "end_stops: {min: -1, max: 1, restitution: 2}\n", NULL,
     "end_stops.restitution", ":4:"},
    {"bad_set", "element: {mass: 1.0}\n" OK_TAIL, "simulation.t_end", "--set", NULL},
    {"set_out_of_range", "element: {mass: 1.0}\n" OK_TAIL, "element.mass=0", "element.mass", NULL},
};

/* Every malformed input: exit 2, one line naming the key (and line), and no
 * result file, not even a temporary one. */
static void bad_input_exit_2(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const bad_case *c = &bad[i];
        char cfg[512], res[512];
        snprintf(cfg, sizeof cfg, "%s/%s.yaml", dir, c->name);
        snprintf(res, sizeof res, "%s/%s.h5", dir, c->name);
        if (c->yaml) assert_int_equal(tu_write_file(cfg, c->yaml), 0);
        char set[256] = "";
        if (c->set) snprintf(set, sizeof set, "--set '%s'", c->set);
        int rc = cli("run %s -o %s %s", cfg, res, set);
        if (rc != 2 || !strstr(out, c->key) || (c->line && !strstr(out, c->line)) ||
            count_lines(out) != 1)
            print_error("case %s: exit %d, output: %s", c->name, rc, out);
        assert_int_equal(rc, 2);
        assert_non_null(strstr(out, c->key));
        if (c->line) assert_non_null(strstr(out, c->line));
        assert_int_equal(count_lines(out), 1);
        assert_false(tu_file_exists(res));
        assert_int_equal(tu_count_temps(dir), 0);
        /* check agrees with run. */
        assert_int_equal(cli("check %s %s", cfg, set), 2);
    }
}

/* A run that exceeds max_events fails with exit 3, names time, mode and
 * state, and keeps what it computed in a file marked incomplete. */
static void solver_failure_exit_3(void **state)
{
    (void)state;
    char res[512];
    snprintf(res, sizeof res, "%s/fail.h5", dir);
    int rc = cli("run %sjanecek_chirp.yaml -o %s --set simulation.max_events=3 -q", EX, res);
    assert_int_equal(rc, 3);
    assert_non_null(strstr(out, "max_events"));
    assert_non_null(strstr(out, "mode "));
    assert_non_null(strstr(out, "x = "));
    assert_true(tu_file_exists(res));
    stsl_h5_result r;
    stsl_error err = {0};
    assert_int_equal(stsl_h5_read(res, &r, &err), STSL_OK);
    assert_int_equal(r.complete, 0);
    assert_non_null(strstr(r.message, "max_events"));
    assert_true(r.n_events >= 3);
    assert_true(r.n_samples > 100);
    stsl_h5_result_free(&r);
    assert_int_equal(cli("info %s", res), 0);
    assert_non_null(strstr(out, "INCOMPLETE"));
}

/* info on something that is not a result: exit 2 with the file named. */
static void info_rejects_non_results(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/not.h5", dir);
    assert_int_equal(tu_write_file(path, "this is not HDF5\n"), 0);
    assert_int_equal(cli("info %s", path), 2);
    assert_non_null(strstr(out, path));
    assert_int_equal(cli("info %s/missing.h5", dir), 2);
    /* A file HDF5 itself fails to open: our one-line message, and no HDF5
     * error stack (HDF5-DIAG) on stderr, although the library no longer
     * silences HDF5 for the whole process. */
    snprintf(path, sizeof path, "%s/trunc.h5", dir);
    assert_int_equal(tu_write_file(path, "\x89HDF\r\n\x1a\nnot a superblock"), 0);
    assert_int_equal(cli("info %s", path), 2);
    assert_non_null(strstr(out, "cannot open the HDF5 file"));
    assert_null(strstr(out, "HDF5-DIAG"));
    assert_non_null(strchr(out, '\n'));
    assert_string_equal(strchr(out, '\n'), "\n"); /* exactly one line */
}

/* check --print on a system writes the automatic atol of every body, and
 * the warning about an explicit atol covers systems.  Independent values
 * from servo_backlash.yaml's parameters by the documented rule (rtol x 1e-3
 * x natural scale): force F = the motor contact's static level 0.02 x 1.3
 * (the smallest force), length L = F / k with the coupling's k = 500 (less
 * than the stop's range 0.02), so x: 1e-10 x 1e-3 x L for every body;
 * time T = sqrt(J L / F) for the motor (no spring), sqrt(J / k) for the
 * gear and the load (joined by the spring), v: 1e-13 x L / T. */
static void check_prints_system_atol(void **state)
{
    (void)state;
    double f = 0.02 * 1.3, l = f / 500.0, ax = 1e-13 * l;
    double tm = sqrt(0.002 * l / f), tg = sqrt(0.0005 / 500.0), tl = sqrt(0.01 / 500.0);
    char want[512];
    snprintf(want, sizeof want,
             "  atol: auto   # derived (rtol x 1e-3 x natural scale), per body:\n"
             "  #   motor: x %.3g rad, v %.3g rad/s\n"
             "  #   gear: x %.3g rad, v %.3g rad/s\n"
             "  #   load: x %.3g rad, v %.3g rad/s\n  max_events:",
             ax, 1e-13 * l / tm, ax, 1e-13 * l / tg, ax, 1e-13 * l / tl);
    assert_int_equal(cli("check --print %sservo_backlash.yaml", EX), 0);
    if (!strstr(out, want)) print_error("want:\n%s\ngot:\n%s", want, out);
    assert_non_null(strstr(out, want));
    /* An explicit atol above the smallest derived x and v caps them. */
    assert_int_equal(cli("check %sservo_backlash.yaml --set simulation.atol=1e-9", EX), 0);
    snprintf(want, sizeof want,
             "stickslip: warning: simulation.atol = 1e-09 caps the accuracy rtol = 1e-10 asks "
             "for (atol: auto would give x %.3g rad, v %.3g rad/s)",
             ax, 1e-13 * l / tl);
    if (!strstr(out, want)) print_error("want:\n%s\ngot:\n%s", want, out);
    assert_non_null(strstr(out, want));
}

/* `stickslip fmu` on a system of bodies: exit 2, one line that speaks of
 * the program only (the system's counts from servo_backlash.yaml: three
 * bodies, one coupling, two contacts, one stop), and no FMU written. */
static void fmu_rejects_system(void **state)
{
    (void)state;
    char fmu[512], want[1024];
    snprintf(fmu, sizeof fmu, "%s/servo.fmu", dir);
    assert_int_equal(cli("fmu %sservo_backlash.yaml -o %s", EX, fmu), 2);
    snprintf(want, sizeof want,
             "stickslip fmu: error: %sservo_backlash.yaml: this command cannot handle a system "
             "of bodies yet (bodies 3, couplings 1, contacts 2, stops 1): `stickslip run` and "
             "the API's stsl_run simulate it, `stickslip check` validates it\n",
             EX);
    assert_string_equal(out, want);
    assert_false(tu_file_exists(fmu));
}

int main(void)
{
    tu_mkdtemp(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_and_version),
        cmocka_unit_test(run_info_check),
        cmocka_unit_test(default_output_paths),
        cmocka_unit_test(rotational_units),
        cmocka_unit_test(unit_headers_line_up),
        cmocka_unit_test(rerun_config_reproduces_events),
        cmocka_unit_test(bad_input_exit_2),
        cmocka_unit_test(solver_failure_exit_3),
        cmocka_unit_test(info_rejects_non_results),
        cmocka_unit_test(fmu_rejects_system),
        cmocka_unit_test(check_prints_system_atol),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (rc == 0 && system(cmd) != 0) rc = 1;
    return rc;
}
