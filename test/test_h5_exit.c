/* A write that fails (here a file-size limit) in a program that did not
 * call stsl_process_setup, as any library user and the Python package:
 * the library reports it, leaves no file and no open HDF5 identifier
 * (H5Fget_obj_count), and the process then exits normally, HDF5's exit
 * handler included.  With HDF5 1.10's own driver the failed file could not
 * be closed and the exit handler crashed on it (SIGSEGV): see
 * io/result/h5_driver.h.
 *
 * Each case runs in a child process (the limit and the exit are the
 * process's) that reports by its exit status: 0 all held, 10 + k the k-th
 * check failed; the parent asserts a normal exit with status 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "include/stickslip.h"
#include "test/testutil.h"

#define BELT STSL_SOURCE_DIR "/examples/belt_stick_slip.yaml"

/* HDF5 1.10 itself leaks the chunk buffer of a write that fails (32 KiB,
 * allocated in H5D__write; HDF5 then says "infinite loop closing library"
 * at exit, and exits 0): under LeakSanitizer the children, which exit
 * through the exit handlers, would report it as theirs.  Its stack stops
 * in libhdf5 (no frame pointers there): the library is the one name. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libhdf5\n";
}

/* A limit the files reach within their first results (the study's
 * creation, well under it, succeeds) and SIGXFSZ ignored as Python does:
 * the writes fail with EFBIG. */
static void limit_file_size(void)
{
    struct rlimit lim;
    signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &lim);
    lim.rlim_cur = 64 * 1024;
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(2);
}

/* The checks after a failed write: the code, the cause named, nothing
 * left under `path`, every HDF5 identifier closed.  Then exit(), not
 * _exit(): the exit handlers run. */
static void exit_after(int rc, const stsl_err *err, const char *path)
{
    int status = rc != STSL_RC_IO                                  ? 11
                 : !strstr(err->message, "File too large")         ? 12
                 : tu_file_exists(path)                            ? 13
                 : H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL) != 0 ? 14
                                                                   : 0;
    if (status) fprintf(stderr, "check %d failed: rc %d, %s\n", status - 10, rc, err->message);
    exit(status);
}

static void run_in_child(void (*body)(const char *dir))
{
    char dir[512];
    tu_mkdtemp(dir, sizeof dir);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGSEGV, SIG_DFL); /* cmocka's handler would carry on in the child */
        body(dir);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_false(WIFSIGNALED(status)); /* SIGSEGV in HDF5's exit handler before */
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(tu_count_temps(dir), 0);
    tu_rm_tree(dir);
}

static void run_body(const char *dir)
{
    char path[600];
    stsl_err err = {0};
    snprintf(path, sizeof path, "%s/run.h5", dir);
    stsl_cfg *cfg = stsl_cfg_load(BELT, &err);
    if (!cfg || stsl_cfg_set(cfg, "simulation.t_end", "20", &err) ||
        stsl_cfg_set(cfg, "simulation.output_step", "1e-4", &err))
        _exit(3);
    limit_file_size();
    int rc = stsl_run(cfg, STSL_OUTPUT_AUTO, path, NULL, &err);
    stsl_cfg_free(cfg);
    exit_after(rc, &err, path);
}

static void a_run_into_hdf5(void **state)
{
    (void)state;
    run_in_child(run_body);
}

static void study_body(const char *dir)
{
    char study[600], path[600], text[1200];
    stsl_err err = {0};
    snprintf(study, sizeof study, "%s/study.yaml", dir);
    snprintf(path, sizeof path, "%s/study.h5", dir);
    snprintf(text, sizeof text,
             "base: %s\nstore: full\nvary:\n  friction.dynamic: {values: [0.5, 0.7, 0.9, 1.1]}\n",
             BELT);
    if (tu_write_file(study, text) != 0) _exit(3);
    limit_file_size();
    int rc = stsl_study_run(study, path, 1, 0, NULL, NULL, NULL, NULL, &err);
    exit_after(rc, &err, path);
}

static void a_new_study(void **state)
{
    (void)state;
    run_in_child(study_body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_run_into_hdf5),
        cmocka_unit_test(a_new_study),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
