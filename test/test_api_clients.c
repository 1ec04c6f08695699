/* test_api_clients.c - the public functions the command line is built on
 * (stickslip.h: stsl_run_into_files, stsl_file_info, stsl_cfg_describe,
 * stsl_cfg_warnings, stsl_is_study_file, stsl_compare_files_run,
 * stsl_compare_columns, stsl_fmu_export) called from C, and the one FNV-1a
 * hash behind the exported FMU's GUID.  That their text is the command's
 * byte for byte is test_cli's and test_system_tools' (the command prints
 * it); here: files made, codes, and values known without the library. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "include/stickslip.h"
#include "solver/fnv1a.h"
#include "testutil.h"

#define EX STSL_SOURCE_DIR "/examples/"

static stsl_cfg *load(const char *path)
{
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_load(path, &err);
    if (!cfg) fail_msg("%s", err.message);
    return cfg;
}

/* The published FNV-1a 64-bit test vectors (Fowler, Noll, Vo: the offset
 * basis 14695981039346656037 is the hash of ""), and a hash continued
 * over two pieces equal to the hash of the whole. */
static void t_fnv1a_vectors(void **state)
{
    (void)state;
    assert_true(stsl_fnv1a(STSL_FNV1A_BASIS, "", 0) == 0xcbf29ce484222325ULL);
    assert_true(stsl_fnv1a(STSL_FNV1A_BASIS, "a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(stsl_fnv1a(STSL_FNV1A_BASIS, "foobar", 6) == 0x85944171f73967e8ULL);
    assert_true(stsl_fnv1a(stsl_fnv1a(STSL_FNV1A_BASIS, "foo", 3), "bar", 3) ==
                0x85944171f73967e8ULL);
}

/* The FMU's guid.txt (read from the archive by Python's zipfile) is
 * "{stickslip-HASH}", HASH the FNV-1a of the configuration it carries
 * (resources/config.yaml), computed here. */
static void t_fmu_export_guid(void **state)
{
    (void)state;
    char dir[256], fmu[512], cmd[1400], out[4096];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(fmu, sizeof fmu, "%s/e.fmu", dir);
    stsl_cfg *cfg = load(EX "belt_stick_slip.yaml");
    stsl_err err;
    assert_int_equal(stsl_fmu_export(cfg, fmu, NULL, NULL, &err), STSL_RC_OK);
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import zipfile; z = zipfile.ZipFile('%s'); "
             "print(z.read('resources/guid.txt').decode()); "
             "open('%s/config.yaml', 'wb').write(z.read('resources/config.yaml'))\"",
             fmu, dir);
    assert_int_equal(tu_shell(cmd, out, sizeof out), 0);
    char path[600], *yaml = NULL;
    snprintf(path, sizeof path, "%s/config.yaml", dir);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 1 << 20;
    yaml = calloc(1, cap);
    size_t n = fread(yaml, 1, cap - 1, f);
    fclose(f);
    char want[64];
    snprintf(want, sizeof want, "{stickslip-%016llx}\n",
             (unsigned long long)stsl_fnv1a(STSL_FNV1A_BASIS, yaml, n));
    assert_string_equal(out, want);
    free(yaml);
    /* A system has no FMU of its own: bad input, nothing written. */
    stsl_cfg *sys = load(EX "servo_backlash.yaml");
    snprintf(fmu, sizeof fmu, "%s/s.fmu", dir);
    assert_int_equal(stsl_fmu_export(sys, fmu, NULL, NULL, &err), STSL_RC_INPUT);
    assert_int_equal(access(fmu, F_OK), -1);
    assert_string_equal(stsl_fmu_platform(), "linux64");
    stsl_cfg_free(sys);
    stsl_cfg_free(cfg);
}

/* A run into a result file, CSV tables beside it; MAT by the extension;
 * the output rule refuses the configuration itself before any run. */
static void t_run_into_files(void **state)
{
    (void)state;
    char dir[256], h5[512], csv[512], mat[512], tab[600];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/r.h5", dir);
    snprintf(csv, sizeof csv, "%s/c", dir);
    snprintf(mat, sizeof mat, "%s/r.mat", dir);
    stsl_cfg *cfg = load(EX "belt_stick_slip.yaml");
    stsl_err err;
    stsl_run_files f = {.path = h5, .format = STSL_OUTPUT_AUTO, .csv = csv};
    assert_int_equal(stsl_run_into_files(cfg, &f, &err), STSL_RC_OK);
    assert_string_equal(f.path_used, h5);
    assert_int_equal(f.started, 1);
    assert_int_equal(f.mat, 0);
    assert_int_equal(f.replaced, 0);
    assert_string_equal(f.verify_warning, "");
    snprintf(tab, sizeof tab, "%s_trajectory.csv", csv);
    assert_int_equal(access(tab, R_OK), 0);
    snprintf(tab, sizeof tab, "%s_events.csv", csv);
    assert_int_equal(access(tab, R_OK), 0);
    stsl_result *r = NULL;
    assert_int_equal(stsl_result_read(h5, &r, NULL, &err), STSL_RC_OK);
    assert_int_equal(stsl_result_summary(r)->complete, 1);
    stsl_result_free(r);

    stsl_run_files m = {.path = mat, .format = STSL_OUTPUT_AUTO};
    assert_int_equal(stsl_run_into_files(cfg, &m, &err), STSL_RC_OK);
    assert_int_equal(m.mat, 1);
    assert_int_equal(access(mat, R_OK), 0);

    stsl_run_files bad = {.path = EX "belt_stick_slip.yaml", .format = STSL_OUTPUT_HDF5};
    assert_int_equal(stsl_run_into_files(cfg, &bad, &err), STSL_RC_INPUT);
    assert_int_equal(bad.started, 0);
    assert_non_null(strstr(err.message, "is the input"));
    stsl_cfg_free(cfg);
}

/* info of a file: its path, status and sample count as the file holds
 * them (read by stsl_result_read); a missing file is bad input naming it,
 * with no text. */
static void t_file_info(void **state)
{
    (void)state;
    char dir[256], h5[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/r.h5", dir);
    stsl_cfg *cfg = load(EX "belt_stick_slip.yaml");
    stsl_err err;
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_HDF5, h5, NULL, &err), STSL_RC_OK);
    char *text = NULL;
    assert_int_equal(stsl_file_info(h5, -1, &text, &err), STSL_RC_OK);
    assert_non_null(text);
    stsl_result *r = NULL;
    assert_int_equal(stsl_result_read(h5, &r, NULL, &err), STSL_RC_OK);
    char want[700];
    snprintf(want, sizeof want, "File:        %s\n", h5);
    assert_true(!strncmp(text, want, strlen(want)));
    assert_non_null(strstr(text, "\nStatus:      complete\n"));
    snprintf(want, sizeof want, "\nSamples:     %ld\n", stsl_result_n_samples(r));
    assert_non_null(strstr(text, want));
    stsl_result_free(r);
    assert_int_equal(stsl_is_study_file(h5), 0);
    stsl_free(text);
    snprintf(h5, sizeof h5, "%s/none.h5", dir);
    assert_int_not_equal(stsl_file_info(h5, 10, &text, &err), STSL_RC_OK);
    assert_null(text);
    assert_non_null(strstr(err.message, h5));
    assert_int_equal(stsl_is_study_file(h5), 0);
    stsl_cfg_free(cfg);
}

/* check's description states the file's t_end and law (belt_stick_slip:
 * t_end 5, coulomb); a system's names its bodies.  An explicit atol far
 * above what rtol asks for is warned about, the default is not. */
static void t_describe_warnings(void **state)
{
    (void)state;
    stsl_cfg *cfg = load(EX "belt_stick_slip.yaml");
    stsl_err err;
    char *d = stsl_cfg_describe(cfg, &err), *w = stsl_cfg_warnings(cfg, &err);
    assert_string_equal(d, "valid (t_end 5 s, coulomb friction)\n");
    assert_string_equal(w, "");
    stsl_free(d);
    stsl_free(w);
    assert_int_equal(stsl_cfg_set(cfg, "simulation.atol", "1", &err), STSL_RC_OK);
    w = stsl_cfg_warnings(cfg, &err);
    assert_non_null(strstr(w, "simulation.atol = 1 caps the accuracy"));
    assert_true(strchr(w, '\n') == w + strlen(w) - 1); /* one line */
    stsl_free(w);
    stsl_cfg_free(cfg);
    stsl_cfg *sys = load(EX "servo_backlash.yaml");
    d = stsl_cfg_describe(sys, &err);
    assert_true(!strncmp(d, "valid (t_end 2 s)\n", 18));
    assert_non_null(strstr(d, "motor"));
    stsl_free(d);
    stsl_cfg_free(sys);
}

/* compare of a result with itself: every error exactly 0 in the JSON
 * report; the options that do not fit systems set `usage`. */
static void t_compare_files(void **state)
{
    (void)state;
    char dir[256], h5[512], sys[512], json[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/r.h5", dir);
    snprintf(sys, sizeof sys, "%s/s.h5", dir);
    snprintf(json, sizeof json, "%s/r.json", dir);
    stsl_err err;
    stsl_cfg *cfg = load(EX "belt_stick_slip.yaml");
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_HDF5, h5, NULL, &err), STSL_RC_OK);
    stsl_compare_files o = {
        .reference = h5, .candidate = h5, .stuck_velocity = -1, .event_window = -1, .json = json};
    char *text = NULL, *warn = NULL;
    assert_int_equal(stsl_compare_files_run(&o, &text, &warn, &err), STSL_RC_OK);
    assert_non_null(strstr(text, "max |x error|"));
    assert_null(warn); /* no warnings: NULL, as stickslip.h says */
    stsl_free(text);
    stsl_free(warn);
    FILE *f = fopen(json, "r");
    assert_non_null(f);
    char buf[1 << 16];
    buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
    fclose(f);
    assert_true(tu_json_value(buf, "max_abs_error_x") == 0.0);
    assert_true(tu_json_value(buf, "max_abs_error_v") == 0.0);
    assert_true(tu_json_value(buf, "events_missed") == 0.0);

    stsl_cfg *s = load(EX "servo_backlash.yaml");
    assert_int_equal(stsl_run(s, STSL_OUTPUT_HDF5, sys, NULL, &err), STSL_RC_OK);
    stsl_compare_files c = {.reference = sys,
                            .candidate = sys,
                            .columns = "t,x,v",
                            .stuck_velocity = -1,
                            .event_window = -1};
    assert_int_equal(stsl_compare_files_run(&c, &text, &warn, &err), STSL_RC_INPUT);
    assert_int_equal(c.usage, 1);
    assert_non_null(strstr(err.message, "--columns t,x,v: not for systems' results"));
    stsl_free(text);
    stsl_free(warn);
    assert_int_equal(stsl_compare_columns("t,x,v,friction", &err), STSL_RC_OK);
    assert_int_equal(stsl_compare_columns("t=a,q=b", &err), STSL_RC_INPUT);
    stsl_cfg_free(s);
    stsl_cfg_free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_fnv1a_vectors),     cmocka_unit_test(t_fmu_export_guid),
        cmocka_unit_test(t_run_into_files),    cmocka_unit_test(t_file_info),
        cmocka_unit_test(t_describe_warnings), cmocka_unit_test(t_compare_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
