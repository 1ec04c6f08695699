/* test_hdf5_lock.c - every HDF5 file the API opens or creates, it opens
 * or creates under the library's HDF5 lock (stickslip.h, Threads): with
 * Debian's serial libhdf5 two threads inside HDF5 at once corrupt its
 * state, so a comparison or a convergence file beside runs that write HDF5
 * must wait its turn.  A race is not reproducible on purpose; the rule is:
 * this test is linked with --wrap for H5Fopen, H5Fcreate, H5Fis_hdf5 and
 * stsl_hdf5_lock/unlock (CMakeLists.txt), counts the lock's depth per
 * thread and every file call made outside it.  Each case also asserts
 * that HDF5 was called at all, so that none passes by not reaching it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <hdf5.h>

#include "include/stickslip.h"
#include "testutil.h"

#define EX STSL_SOURCE_DIR "/examples/"

static _Thread_local int depth;
static long calls, outside;

void __real_stsl_hdf5_lock(void);
void __real_stsl_hdf5_unlock(void);
hid_t __real_H5Fopen(const char *name, unsigned flags, hid_t fapl);
hid_t __real_H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl);
htri_t __real_H5Fis_hdf5(const char *name);

void __wrap_stsl_hdf5_lock(void)
{
    __real_stsl_hdf5_lock();
    depth++;
}

void __wrap_stsl_hdf5_unlock(void)
{
    depth--;
    __real_stsl_hdf5_unlock();
}

static void seen(const char *what, const char *name)
{
    calls++;
    if (depth > 0) return;
    outside++;
    fprintf(stderr, "%s(%s) outside the HDF5 lock\n", what, name);
}

hid_t __wrap_H5Fopen(const char *name, unsigned flags, hid_t fapl)
{
    seen("H5Fopen", name);
    return __real_H5Fopen(name, flags, fapl);
}

hid_t __wrap_H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl)
{
    seen("H5Fcreate", name);
    return __real_H5Fcreate(name, flags, fcpl, fapl);
}

htri_t __wrap_H5Fis_hdf5(const char *name)
{
    seen("H5Fis_hdf5", name);
    return __real_H5Fis_hdf5(name);
}

static stsl_cfg *load(const char *path)
{
    stsl_err err;
    stsl_cfg *cfg = stsl_cfg_load(path, &err);
    if (!cfg) fail_msg("%s", err.message);
    return cfg;
}

/* The calls made since the last check reached HDF5, all under the lock. */
static void all_locked(const char *what)
{
    if (calls == 0) fail_msg("%s: no HDF5 file call at all", what);
    if (outside) fail_msg("%s: %ld of %ld HDF5 file calls outside the lock", what, outside, calls);
    assert_int_equal(depth, 0);
    calls = outside = 0;
}

/* Compare a result file with itself through the command's function. */
static void compare_self(const char *h5)
{
    stsl_compare_files o = {
        .reference = h5, .candidate = h5, .stuck_velocity = -1, .event_window = -1};
    char *text = NULL, *warn = NULL;
    stsl_err err;
    assert_int_equal(stsl_compare_files_run(&o, &text, &warn, &err), STSL_RC_OK);
    stsl_free(text);
    stsl_free(warn);
}

static void t_element_files(void **state)
{
    (void)state;
    calls = outside = 0;
    char dir[256], h5[512], conv[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/r.h5", dir);
    snprintf(conv, sizeof conv, "%s/c.h5", dir);
    stsl_err err;
    stsl_cfg *cfg = load(EX "belt_stick_slip.yaml");
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_HDF5, h5, NULL, &err), STSL_RC_OK);
    all_locked("stsl_run into HDF5");
    char *text = NULL;
    assert_int_equal(stsl_file_info(h5, 3, &text, &err), STSL_RC_OK);
    stsl_free(text);
    all_locked("stsl_file_info");
    stsl_result *r = NULL;
    assert_int_equal(stsl_result_read(h5, &r, NULL, &err), STSL_RC_OK);
    stsl_result_free(r);
    all_locked("stsl_result_read");
    assert_int_equal(stsl_is_study_file(h5), 0);
    all_locked("stsl_is_study_file");
    compare_self(h5);
    all_locked("stsl_compare_files_run (element)");
    static const double steps[2] = {1e-3, 5e-4};
    stsl_converge_opts o = {.scheme = "karnopp", .steps = steps, .n_steps = 2, .h5 = conv};
    stsl_convergence *c = NULL;
    assert_int_equal(stsl_converge(cfg, &o, &c, &err), STSL_RC_OK);
    stsl_convergence_free(c);
    all_locked("stsl_converge --h5");
    stsl_cfg_free(cfg);
}

static void t_system_files(void **state)
{
    (void)state;
    calls = outside = 0;
    char dir[256], h5[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/s.h5", dir);
    stsl_err err;
    stsl_cfg *cfg = load(EX "clutch.yaml");
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_HDF5, h5, NULL, &err), STSL_RC_OK);
    all_locked("stsl_run of a system into HDF5");
    compare_self(h5);
    all_locked("stsl_compare_files_run (system)");
    stsl_compare_system_report p;
    assert_int_equal(stsl_compare_system(cfg, h5, -1, &p, &err), STSL_RC_OK);
    stsl_compare_system_free(&p);
    all_locked("stsl_compare_system");
    stsl_cfg_free(cfg);
}

/* A study written by stsl_study_run (which takes the lock; the _with
 * variant, documented not to, is the command's) and read back. */
static void t_study_file(void **state)
{
    (void)state;
    calls = outside = 0;
    char dir[256], study[512], out[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(study, sizeof study, "%s/s.yaml", dir);
    snprintf(out, sizeof out, "%s/s.h5", dir);
    FILE *f = fopen(study, "w");
    assert_non_null(f);
    fprintf(f,
            "base: %sbelt_stick_slip.yaml\nstore: full\n"
            "vary:\n  friction.static_ratio: {linspace: [1.1, 1.5, 3]}\n",
            EX);
    fclose(f);
    stsl_err err;
    long n = 0;
    if (stsl_study_run(study, out, 2, 0, NULL, NULL, NULL, &n, &err)) fail_msg("%s", err.message);
    assert_int_equal(n, 3);
    all_locked("stsl_study_run");
    assert_int_equal(stsl_is_study_file(out), 1);
    stsl_study_overview ov;
    assert_int_equal(stsl_study_read_overview(out, &ov, &err), STSL_RC_OK);
    char csv[512];
    snprintf(csv, sizeof csv, "%s/s.csv", dir);
    assert_int_equal(stsl_study_write_csv(out, csv, &err), STSL_RC_OK);
    all_locked("stsl_is_study_file, stsl_study_read_overview, stsl_study_write_csv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_element_files),
        cmocka_unit_test(t_system_files),
        cmocka_unit_test(t_study_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
