/* test_fmu_lazy.c - the FMU support is a module the CLI and the library
 * load only for what needs it: neither the executable nor libstickslip
 * links libzip or libxml2, and a missing or wrong module is an I/O error (exit 1) naming the
 * module's path, before any file is written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testutil.h"

#define JANECEK STSL_SOURCE_DIR "/examples/janecek_chirp.yaml"
#define NO_SUCH "/nonexistent/stickslip_fmu.so"

static char tmp[256];
static char out[1 << 14];
static char cmd[2048];

static int setup(void **state)
{
    (void)state;
    tu_mkdtemp(tmp, sizeof tmp);
    return tmp[0] ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char rm[512];
    snprintf(rm, sizeof rm, "rm -rf '%s'", tmp);
    return system(rm) == 0 ? 0 : -1;
}

/* The dynamic loader's list of the executable's libraries: libc is there
 * (ldd did list them), the FMU support's libraries are not. */
static void t_cli_links_no_fmu_library(void **state)
{
    (void)state;
    assert_int_equal(tu_shell("ldd " STSL_CLI, out, sizeof out), 0);
    assert_non_null(strstr(out, "libc.so"));
    assert_null(strstr(out, "libzip"));
    assert_null(strstr(out, "libxml2"));
}

/* The library too: stsl_converge loads the module only for an FMU. */
static void t_library_links_no_fmu_library(void **state)
{
    (void)state;
    assert_int_equal(tu_shell("ldd " STSL_SHARED_LIB, out, sizeof out), 0);
    assert_non_null(strstr(out, "libc.so"));
    assert_null(strstr(out, "libzip"));
    assert_null(strstr(out, "libxml2"));
}

/* `stickslip fmu` with STICKSLIP_FMU_MODULE naming `module`: exit 1, the
 * message `want` (with the module's path) and no FMU written. */
static void fmu_export_fails(const char *module, const char *want)
{
    snprintf(cmd, sizeof cmd,
             "STICKSLIP_FMU_MODULE='%s' " STSL_CLI " fmu " JANECEK " -o '%s/e.fmu' 2>&1", module,
             tmp);
    assert_int_equal(tu_shell(cmd, out, sizeof out), 1);
    if (!strstr(out, want)) fail_msg("expected \"%s\" in:\n%s", want, out);
    snprintf(cmd, sizeof cmd, "%s/e.fmu", tmp);
    assert_false(tu_file_exists(cmd));
    assert_int_equal(tu_count_temps(tmp), 0);
}

static void t_missing_module(void **state)
{
    (void)state;
    fmu_export_fails(NO_SUCH,
                     "stickslip fmu: error: cannot load the FMU module " NO_SUCH ": " NO_SUCH);
}

/* A shared object that is not the FMU module (the exported FMU's binary). */
static void t_not_the_module(void **state)
{
    (void)state;
    fmu_export_fails(STSL_FMU_ELEMENT_SO,
                     "stickslip fmu: error: the FMU module " STSL_FMU_ELEMENT_SO
                     " has no stsl_fmu_module");
}

/* converge --fmu loads the module too (before it opens the FMU). */
static void t_converge_missing_module(void **state)
{
    (void)state;
    snprintf(cmd, sizeof cmd,
             "STICKSLIP_FMU_MODULE=" NO_SUCH " " STSL_CLI " converge " JANECEK
             " --fmu '%s/m.fmu' --steps 1e-3,5e-4 -o '%s/c.csv' 2>&1",
             tmp, tmp);
    assert_int_equal(tu_shell(cmd, out, sizeof out), 1);
    const char *want = "stickslip converge: error: cannot load the FMU module " NO_SUCH;
    if (!strstr(out, want)) fail_msg("expected \"%s\" in:\n%s", want, out);
    snprintf(cmd, sizeof cmd, "%s/c.csv", tmp);
    assert_false(tu_file_exists(cmd));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_cli_links_no_fmu_library),
        cmocka_unit_test(t_library_links_no_fmu_library),
        cmocka_unit_test(t_missing_module),
        cmocka_unit_test(t_not_the_module),
        cmocka_unit_test(t_converge_missing_module),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
