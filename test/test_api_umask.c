/* test_api_umask.c - stickslip.h (Threads): nothing is process-wide but
 * GSL's handler and the HDF5 mutex.  The process's umask is process-wide:
 * a library that sets it, even for an instant to read it back, makes the
 * files that other threads create in that instant world-writable (umask
 * 0).  A race is not reproducible on purpose; the rule is: this test
 * defines umask() itself (the library is linked statically, so its calls
 * land here), counts every call made while the API writes outputs, and
 * asserts none; the files still get mode 0666 less the umask, as fopen's
 * do. */
#define _GNU_SOURCE /* syscall() */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "include/stickslip.h"

#define EX STSL_SOURCE_DIR "/examples/"

static long calls;

mode_t umask(mode_t mask)
{
    calls++;
    return (mode_t)syscall(SYS_umask, mask);
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

static void test_outputs_leave_the_umask_alone(void **state)
{
    (void)state;
    char dir[] = "/tmp/stsl_umask_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    syscall(SYS_umask, (mode_t)022);
    calls = 0;

    stsl_err err = {0};
    snprintf(path, sizeof path, "%s/table.csv", dir);
    stsl_text_file *f = stsl_text_open(path, "the table", NULL, &err);
    assert_non_null(f);
    stsl_text_write(f, "a,b\n", 4);
    assert_int_equal(stsl_text_commit(f, &err), STSL_RC_OK);
    assert_int_equal(mode_of(path), 0644);

    stsl_cfg *cfg = stsl_cfg_load(EX "janecek_chirp.yaml", &err);
    assert_non_null(cfg);
    assert_int_equal(stsl_cfg_set(cfg, "simulation.t_end", "0.1", &err), STSL_RC_OK);
    snprintf(path, sizeof path, "%s/r", dir);
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_CSV, path, NULL, &err), STSL_RC_OK);
    snprintf(path, sizeof path, "%s/r_trajectory.csv", dir);
    assert_int_equal(mode_of(path), 0644);
    snprintf(path, sizeof path, "%s/r.mat", dir);
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_MAT, path, NULL, &err), STSL_RC_OK);
    assert_int_equal(mode_of(path), 0644);
    stsl_cfg_free(cfg);

    assert_int_equal(calls, 0);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outputs_leave_the_umask_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
