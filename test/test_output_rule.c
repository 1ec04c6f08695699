/* The output rule (docs/output-files.md), run through the real program and
 * the C API: every case asserts the exit code (or return code), the
 * message and what is left on disk, byte for byte where an input is at
 * stake.
 *
 * - no output is an input of the same invocation, and outputs are not
 *   each other (sweep -o/--csv against the study file and its base; two
 *   names of one file not yet created);
 * - --resume refuses, with exit 2 and one line, anything but an unfinished
 *   study of the same study file;
 * - FIFOs, directories and devices: refused (exit 2), never waited on;
 *   a character device takes a text output in place (/dev/null, and
 *   /dev/full as exit 1 with one line);
 * - the format follows the extension (run -o x.csv, unknown extensions,
 *   --format against a known one);
 * - every writer (MAT, HDF5, CSV, JSON, study) under a file-size limit:
 *   exit 1 naming the cause, nothing under the final name, no temporary
 *   file left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "include/stickslip.h"
#include "io/result/safe_output.h"
#include "test/testutil.h"

#define BELT STSL_SOURCE_DIR "/examples/belt_stick_slip.yaml"

static char dir[256];
static char out[65536];

#define cli(...) tu_cli(out, sizeof out, __VA_ARGS__)

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

/* The whole file (malloc'd, NUL-terminated), *n its size; NULL if absent. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    *n = fread(buf, 1, (size_t)size, f);
    buf[*n] = '\0';
    fclose(f);
    return buf;
}

/* Assert that `path` holds exactly `want` (n bytes). */
static void assert_unchanged(const char *path, const char *want, size_t n)
{
    size_t m = 0;
    char *now = slurp(path, &m);
    assert_non_null(now);
    assert_int_equal(m, n);
    assert_memory_equal(now, want, n);
    free(now);
}

/* The program's output is one line: its message and nothing else (no
 * HDF5 error stack, no second message). */
static void assert_one_line(void)
{
    char *nl = strchr(out, '\n');
    assert_non_null(nl);
    if (nl[1] != '\0') print_error("more than one line:\n%s", out);
    assert_int_equal(nl[1], '\0');
}

/* The program under `ulimit -f blocks` (sh's 512-byte blocks; -1: no
 * limit), its standard error (and output, unless `args` redirects it) in
 * `out`; SIGXFSZ is left at its default: the program ignores it itself. */
static int limited(int blocks, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int limited(int blocks, const char *fmt, ...)
{
    char args[4096], cmd[4600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    char lim[32] = "unlimited";
    if (blocks >= 0) snprintf(lim, sizeof lim, "%d", blocks);
    /* Under a file-size limit HDF5 cannot close a file whose last writes
     * failed (io/result/h5_sink.c, discard_storage): its chunk buffers are lost
     * inside the library, and the process exits right after.  In a
     * sanitizer build LeakSanitizer would add that to the one-line output
     * this test checks, so it is off for these runs only (every other
     * test keeps it). */
    const char *env =
        blocks >= 0 ? "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" " : "";
    snprintf(cmd, sizeof cmd, "(ulimit -f %s; %sexec '%s' %s) 2>&1", lim, env, STSL_CLI, args);
    return tu_shell(cmd, out, sizeof out);
}

/* A study of three variants over a copy of the belt example. */
static void write_study(const char *name, char *study, char *base, size_t n)
{
    path_in(base, n, "base.yaml");
    path_in(study, n, name);
    size_t len;
    char *text = slurp(BELT, &len);
    assert_non_null(text);
    assert_int_equal(tu_write_file(base, text), 0);
    free(text);
    assert_int_equal(tu_write_file(study, "base: base.yaml\n"
                                          "vary:\n"
                                          "  friction.dynamic: {linspace: [8, 12, 3]}\n"),
                     0);
}

static int setup(void **state)
{
    (void)state;
    tu_mkdtemp(dir, sizeof dir);
    return 0;
}

/* ---- no output is an input, nor another output ---------------------------------- */

static void sweep_outputs_are_not_inputs(void **state)
{
    (void)state;
    char study[512], base[512], res[512], csv[512];
    write_study("st.yaml", study, base, sizeof study);
    size_t ns, nb, nr;
    char *study0 = slurp(study, &ns), *base0 = slurp(base, &nb);
    /* -o or --csv naming the study file or its base: refused, unchanged. */
    const char *victims[] = {study, base};
    for (int v = 0; v < 2; v++) {
        assert_int_equal(cli("sweep '%s' -o '%s' -q", study, victims[v]), 2);
        assert_non_null(strstr(out, "is the input"));
        assert_one_line();
        assert_int_equal(cli("sweep '%s' -o '%s/x.h5' --csv '%s' -q", study, dir, victims[v]), 2);
        assert_non_null(strstr(out, "is the input"));
        assert_false(tu_file_exists(strcat(strcpy(res, dir), "/x.h5")));
    }
    assert_unchanged(study, study0, ns);
    assert_unchanged(base, base0, nb);
    /* --csv the same file as -o: the study just written is not replaced
     * (an existing one: same inode; a new one: same path by two names). */
    path_in(res, sizeof res, "s.h5");
    assert_int_equal(cli("sweep '%s' -o '%s' -q", study, res), 0);
    char *res0 = slurp(res, &nr);
    assert_int_equal(cli("sweep '%s' -o '%s' --csv '%s' -q", study, res, res), 2);
    assert_non_null(strstr(out, "are the same file"));
    assert_one_line();
    assert_unchanged(res, res0, nr);
    path_in(csv, sizeof csv, "sub");
    assert_int_equal(mkdir(csv, 0700), 0);
    assert_int_equal(
        cli("sweep '%s' -o '%s/new.out' --csv '%s/sub/../new.out' -q", study, dir, dir), 2);
    assert_non_null(strstr(out, "are the same file"));
    assert_false(tu_file_exists(strcat(strcpy(csv, dir), "/new.out")));
    /* And the CSV written beside it is the summary, the study intact. */
    path_in(csv, sizeof csv, "s.csv");
    assert_int_equal(cli("sweep '%s' -o '%s' --csv '%s' -q", study, res, csv), 0);
    size_t nc;
    char *text = slurp(csv, &nc);
    assert_non_null(text);
    assert_memory_equal(text, "variant,friction.dynamic,", 25);
    assert_int_equal(cli("info '%s'", res), 0);
    assert_non_null(strstr(out, "Status:      complete"));
    free(text);
    free(res0);
    free(study0);
    free(base0);
}

/* The rule itself: two names of one file that does not exist yet, an
 * input through a hard link, and outputs with no path skipped. */
static void rule_on_paths(void **state)
{
    (void)state;
    char in[512], hard[512], a[600], b[600];
    path_in(in, sizeof in, "in.yaml");
    path_in(hard, sizeof hard, "link.h5");
    assert_int_equal(tu_write_file(in, "x: 1\n"), 0);
    assert_int_equal(link(in, hard), 0);
    const char *inputs[] = {in, NULL};
    stsl_error err = {0};
    stsl_output_file o1 = {hard, "the result", STSL_FMT_H5, 0, 0};
    assert_int_equal(stsl_output_rule(inputs, 2, &o1, 1, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "is the input"));
    snprintf(a, sizeof a, "%s/none/../n.h5", dir);
    snprintf(b, sizeof b, "%s/./n.h5", dir);
    stsl_output_file two[3] = {{a, "first", STSL_FMT_H5, 0, 0},
                               {NULL, "skipped", STSL_FMT_CSV, 0, 0},
                               {b, "second", STSL_FMT_H5, 0, 0}};
    assert_int_equal(stsl_output_rule(inputs, 2, two, 3, &err), STSL_EINPUT);
    assert_non_null(strstr(err.msg, "(first) and"));
    assert_non_null(strstr(err.msg, "(second) are the same file"));
    snprintf(b, sizeof b, "%s/m.hdf5", dir);
    assert_int_equal(stsl_output_rule(inputs, 2, two, 3, &err), STSL_OK);
    assert_int_equal(two[2].format, STSL_FMT_H5);
}

/* ---- --resume -------------------------------------------------------------------- */

/* sweep STUDY -o PATH --resume: exit 2, one line with `why`, PATH as it was. */
static void resume_refused(const char *study, const char *path, const char *why)
{
    size_t n;
    char *before = slurp(path, &n);
    assert_non_null(before);
    assert_int_equal(cli("sweep '%s' -o '%s' --resume -q", study, path), 2);
    assert_non_null(strstr(out, why));
    assert_one_line();
    assert_unchanged(path, before, n);
    free(before);
}

/* What an interrupted study leaves: complete = 0 and only the first
 * `n_done` rows declared done. */
static void make_unfinished(const char *path, long long n_done)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t g = H5Gopen2(f, "study", H5P_DEFAULT);
    assert_true(g >= 0);
    int complete = 0;
    hid_t a = H5Aopen(g, "complete", H5P_DEFAULT);
    assert_true(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, &complete) >= 0);
    H5Aclose(a);
    a = H5Aopen(g, "n_done", H5P_DEFAULT);
    assert_true(a >= 0 && H5Awrite(a, H5T_NATIVE_LLONG, &n_done) >= 0);
    H5Aclose(a);
    H5Gclose(g);
    assert_true(H5Fclose(f) >= 0);
}

static void resume_refuses_what_is_not_an_unfinished_study(void **state)
{
    (void)state;
    char study[512], base[512], res[512], dmg[512], other[512], fresh[512];
    write_study("rs.yaml", study, base, sizeof study);
    /* A run's result. */
    path_in(res, sizeof res, "run.h5");
    assert_int_equal(cli("run '%s' -o '%s' -q --set simulation.t_end=0.2", BELT, res), 0);
    resume_refused(study, res, "not a study file");
    /* A damaged study: the first 4 kB of a complete one. */
    path_in(dmg, sizeof dmg, "dmg.h5");
    assert_int_equal(cli("sweep '%s' -o '%s' -q", study, dmg), 0);
    assert_int_equal(truncate(dmg, 4096), 0);
    resume_refused(study, dmg, "not a study file");
    /* A complete study: nothing to resume. */
    assert_int_equal(cli("sweep '%s' -o '%s' -q", study, dmg), 0);
    resume_refused(study, dmg, "the study is complete (3 of 3 variants)");
    /* An unfinished study of this study file resumes; of another study
     * file it is refused. */
    char unf[512];
    path_in(unf, sizeof unf, "unfinished.h5");
    assert_int_equal(cli("sweep '%s' -o '%s' -q", study, unf), 0);
    make_unfinished(unf, 2);
    path_in(other, sizeof other, "other.yaml");
    assert_int_equal(tu_write_file(other, "base: base.yaml\n"
                                          "vary:\n"
                                          "  friction.dynamic: {linspace: [8, 12, 4]}\n"),
                     0);
    resume_refused(other, unf, "was started from another study file");
    assert_int_equal(cli("sweep '%s' -o '%s' --resume", study, unf), 0);
    assert_non_null(strstr(out, "3 variants, 3 done (1 in"));
    /* --resume of a file that is not there starts the study. */
    path_in(fresh, sizeof fresh, "fresh.h5");
    assert_int_equal(cli("sweep '%s' -o '%s' --resume -q", study, fresh), 0);
}

/* ---- FIFOs, directories, devices --------------------------------------------------- */

/* The wait is a guard against a hang (the refusal takes milliseconds), not
 * a measure of speed: 60 s is beyond any load. */
static void fifo_directory_device(void **state)
{
    (void)state;
    char study[512], base[512], fifo[512], sub[512], res[512];
    write_study("fd.yaml", study, base, sizeof study);
    path_in(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    char args[2048];
    snprintf(args, sizeof args, "sweep '%s' -o '%s' -q", study, fifo);
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "timeout 60 '%s' %s 2>&1", STSL_CLI, args);
    int st = tu_shell(cmd, out, sizeof out);
    assert_int_equal(st, 2);
    assert_non_null(strstr(out, "is a FIFO"));
    assert_one_line();
    struct stat sb;
    assert_int_equal(stat(fifo, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    /* --csv to a FIFO: refused before the study runs. */
    path_in(res, sizeof res, "fd.h5");
    assert_int_equal(cli("sweep '%s' -o '%s' --csv '%s' -q", study, res, fifo), 2);
    assert_non_null(strstr(out, "is a FIFO"));
    assert_false(tu_file_exists(res));
    /* Directories, for each writing command. */
    path_in(sub, sizeof sub, "adir");
    assert_int_equal(mkdir(sub, 0700), 0);
    const char *cmds[] = {"sweep '%s' -o '%s' -q", "run " BELT " -o '%s' -q%s",
                          "curve " BELT " -o '%s'%s"};
    assert_int_equal(cli(cmds[0], study, sub), 2);
    assert_non_null(strstr(out, "is a directory"));
    assert_one_line();
    assert_int_equal(cli(cmds[1], sub, ""), 2);
    assert_non_null(strstr(out, "is a directory"));
    assert_int_equal(cli(cmds[2], sub, ""), 2);
    assert_non_null(strstr(out, "is a directory"));
    /* A result file on a device: refused, one line, no HDF5 stack. */
    assert_int_equal(cli("sweep '%s' -o /dev/null -q", study), 2);
    assert_non_null(strstr(out, "/dev/null is a character device"));
    assert_one_line();
    assert_int_equal(
        cli("converge " BELT " --scheme karnopp --steps 1e-2,2e-2 --h5 /dev/full -o %s/c.csv", dir),
        2);
    assert_non_null(strstr(out, "/dev/full is a character device"));
    assert_null(strstr(out, "HDF5-DIAG"));
    /* A text output on a character device is written in place: /dev/null
     * takes it, /dev/full is a write error (exit 1, one line). */
    assert_int_equal(cli("curve " BELT " -o /dev/null"), 0);
    assert_int_equal(cli("curve " BELT " -o /dev/full"), 1);
    assert_non_null(strstr(out, "/dev/full: cannot write: No space left on device"));
    assert_one_line();
    assert_int_equal(cli("sweep '%s' -o '%s' --csv /dev/full -q", study, res), 1);
    assert_non_null(strstr(out, "No space left on device"));
    assert_one_line();
    /* Standard output on a full device: exit 1 too. */
    assert_int_equal(limited(-1, "info '%s' >/dev/full", res), 1);
    assert_non_null(strstr(out, "standard output: No space left on device"));
    assert_one_line();
}

/* A study file or base that is a directory is bad input, called one. */
static void directory_as_study_or_base(void **state)
{
    (void)state;
    char d[512], study[512];
    path_in(d, sizeof d, "cfgdir");
    assert_int_equal(mkdir(d, 0700), 0);
    assert_int_equal(cli("sweep '%s' -q", d), 2);
    assert_non_null(strstr(out, "cfgdir: is a directory, not a study file"));
    assert_one_line();
    path_in(study, sizeof study, "dirbase.yaml");
    assert_int_equal(tu_write_file(study, "base: cfgdir\n"
                                          "vary:\n"
                                          "  friction.dynamic: {linspace: [8, 12, 3]}\n"),
                     0);
    assert_int_equal(cli("sweep '%s' -q", study), 2);
    assert_non_null(strstr(out, "base: "));
    assert_non_null(strstr(out, "cfgdir: is a directory, not a configuration file"));
    assert_one_line();
}

/* ---- the format follows the extension ------------------------------------------------ */

static int starts_with(const char *path, const char *magic, size_t n)
{
    size_t m;
    char *text = slurp(path, &m);
    int yes = text && m >= n && !memcmp(text, magic, n);
    free(text);
    return yes;
}

static void format_from_extension(void **state)
{
    (void)state;
    char p[512];
    path_in(p, sizeof p, "x.csv");
    assert_int_equal(cli("run " BELT " -o '%s' -q", p), 2);
    assert_non_null(strstr(out, "not CSV"));
    assert_non_null(strstr(out, "--csv PREFIX"));
    assert_one_line();
    assert_false(tu_file_exists(p));
    path_in(p, sizeof p, "x.out");
    assert_int_equal(cli("run " BELT " -o '%s' -q", p), 2);
    assert_non_null(strstr(out, "unknown extension"));
    assert_false(tu_file_exists(p));
    assert_int_equal(cli("run " BELT " -o '%s' --format h5 -q", p), 0);
    assert_true(starts_with(p, "\x89HDF\r\n\x1a\n", 8));
    path_in(p, sizeof p, "x.MAT");
    assert_int_equal(cli("run " BELT " -o '%s' -q", p), 0);
    assert_true(starts_with(p, "MATLAB 5.0 MAT-file", 19));
    path_in(p, sizeof p, "y.h5");
    assert_int_equal(cli("run " BELT " -o '%s' --format mat -q", p), 2);
    assert_non_null(strstr(out, "the name says HDF5 but --format says MAT"));
    assert_false(tu_file_exists(p));
    /* Fixed-format outputs: a study file named .csv, a curve named .h5. */
    char study[512], base[512];
    write_study("ff.yaml", study, base, sizeof study);
    path_in(p, sizeof p, "study.csv");
    assert_int_equal(cli("sweep '%s' -o '%s' -q", study, p), 2);
    assert_non_null(strstr(out, "the study file is written as HDF5"));
    assert_false(tu_file_exists(p));
    path_in(p, sizeof p, "curve.h5");
    assert_int_equal(cli("curve " BELT " -o '%s'", p), 2);
    assert_false(tu_file_exists(p));
}

/* ---- write errors: nothing under the final name ------------------------------------------ */

/* Each writer under a 64-block limit (32 kB, far below each output):
 * exit 1 with "File too large", no file, no temporary file. */
static void file_size_limit_every_writer(void **state)
{
    (void)state;
    char d[512], p[600], study[512], base[512];
    path_in(d, sizeof d, "lim");
    assert_int_equal(mkdir(d, 0700), 0);
    const char *long_run = "--set simulation.t_end=20 --set simulation.output_step=1e-4";
    snprintf(p, sizeof p, "%s/r.mat", d);
    assert_int_equal(limited(64, "run " BELT " -o '%s' -q %s", p, long_run), 1);
    assert_non_null(strstr(out, "File too large"));
    assert_one_line();
    assert_false(tu_file_exists(p));
    snprintf(p, sizeof p, "%s/r.h5", d);
    assert_int_equal(limited(64, "run " BELT " -o '%s' -q %s", p, long_run), 1);
    assert_non_null(strstr(out, "File too large"));
    assert_one_line();
    assert_false(tu_file_exists(p));
    /* The HDF5 result fits; its CSV tables do not. */
    snprintf(p, sizeof p, "%s/pre", d);
    assert_int_equal(limited(64, "run " BELT " -o '%s/ok.h5' --csv '%s' -q %s", d, p, long_run), 1);
    assert_non_null(strstr(out, "File too large"));
    snprintf(p, sizeof p, "%s/pre_trajectory.csv", d);
    assert_false(tu_file_exists(p));
    snprintf(p, sizeof p, "%s/pre_events.csv", d);
    assert_false(tu_file_exists(p));
    /* A text table. */
    snprintf(p, sizeof p, "%s/c.csv", d);
    assert_int_equal(limited(64, "curve " BELT " -o '%s' --n 100000", p), 1);
    assert_non_null(strstr(out, "File too large"));
    assert_one_line();
    assert_false(tu_file_exists(p));
    /* A study begun in this call: removed. */
    write_study("lim.yaml", study, base, sizeof study);
    assert_int_equal(tu_write_file(study, "base: base.yaml\n"
                                          "vary:\n"
                                          "  friction.dynamic: {linspace: [8, 12, 200]}\n"
                                          "store: full\n"),
                     0);
    snprintf(p, sizeof p, "%s/s.h5", d);
    assert_int_equal(limited(64, "sweep '%s' -o '%s' -q -j 1", study, p), 1);
    assert_non_null(strstr(out, "File too large"));
    assert_non_null(strstr(out, "the unfinished study file is removed"));
    assert_one_line();
    assert_false(tu_file_exists(p));
    assert_int_equal(tu_count_temps(d), 0);
    /* converge --h5 into an existing result: the result as it was. */
    char res[600];
    snprintf(res, sizeof res, "%s/conv.h5", d);
    assert_int_equal(cli("run " BELT " -o '%s' -q", res), 0);
    size_t n;
    char *res0 = slurp(res, &n);
    assert_int_equal(limited((int)(n / 512),
                             "converge " BELT " --scheme karnopp --steps "
                             "1e-4,2e-4 --h5 '%s'",
                             res),
                     1);
    assert_non_null(strstr(out, "File too large"));
    assert_unchanged(res, res0, n);
    assert_int_equal(tu_count_temps(d), 0);
    free(res0);
}

/* ---- the C API ------------------------------------------------------------------------ */

static void api_output_rule(void **state)
{
    (void)state;
    char cfgp[512], p[512];
    path_in(cfgp, sizeof cfgp, "api.yaml");
    size_t n;
    char *text = slurp(BELT, &n);
    assert_int_equal(tu_write_file(cfgp, text), 0);
    stsl_err err = {0};
    stsl_cfg *cfg = stsl_cfg_load(cfgp, &err);
    assert_non_null(cfg);
    assert_int_equal(stsl_cfg_set(cfg, "simulation.t_end", "0.5", &err), STSL_RC_OK);
    /* The configuration it was loaded from, as any output. */
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_HDF5, cfgp, NULL, &err), STSL_RC_INPUT);
    assert_non_null(strstr(err.message, "is the input"));
    assert_unchanged(cfgp, text, n);
    /* The format follows the extension (AUTO), and must agree with it. */
    path_in(p, sizeof p, "api.csv");
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_AUTO, p, NULL, &err), STSL_RC_INPUT);
    assert_false(tu_file_exists(p));
    path_in(p, sizeof p, "api.mat");
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_HDF5, p, NULL, &err), STSL_RC_INPUT);
    assert_non_null(strstr(err.message, "the name says MAT but --format says HDF5"));
    assert_false(tu_file_exists(p));
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_AUTO, p, NULL, &err), STSL_RC_OK);
    assert_true(starts_with(p, "MATLAB 5.0 MAT-file", 19));
    path_in(p, sizeof p, "api.h5");
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_AUTO, p, NULL, &err), STSL_RC_OK);
    assert_true(starts_with(p, "\x89HDF\r\n\x1a\n", 8));
    /* A FIFO is refused, not opened. */
    path_in(p, sizeof p, "api_fifo");
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_AUTO, p, NULL, &err), STSL_RC_INPUT);
    assert_non_null(strstr(err.message, "is a FIFO"));
    stsl_cfg_free(cfg);
    free(text);
}

/* Under a file-size limit (SIGXFSZ ignored, as the program does), the
 * MAT and HDF5 writers return STSL_RC_IO naming the cause and leave
 * nothing.  In a child that ends with _exit: HDF5's exit handler crashes on
 * a file whose close failed at the limit (h5_sink.c), which no caller can
 * prevent short of turning it off for the whole process. */
static void api_write_errors(void **state)
{
    (void)state;
    char d[512], p[600], report[600];
    path_in(d, sizeof d, "apilim");
    assert_int_equal(mkdir(d, 0700), 0);
    snprintf(report, sizeof report, "%s/report.txt", dir);
    const char *names[] = {"l.mat", "l.h5"};
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        stsl_err err = {0};
        stsl_cfg *cfg = stsl_cfg_load(BELT, &err);
        FILE *f = fopen(report, "w");
        if (!cfg || !f || stsl_cfg_set(cfg, "simulation.t_end", "20", &err) ||
            stsl_cfg_set(cfg, "simulation.output_step", "1e-4", &err))
            _exit(1);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim;
        getrlimit(RLIMIT_FSIZE, &lim);
        lim.rlim_cur = 32768;
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(1);
        for (int k = 0; k < 2; k++) {
            snprintf(p, sizeof p, "%s/%s", d, names[k]);
            int rc = stsl_run(cfg, STSL_OUTPUT_AUTO, p, NULL, &err);
            fprintf(f, "%d %s\n", rc, err.message);
        }
        fclose(f);
        _exit(0);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    size_t n;
    char *text = slurp(report, &n);
    assert_non_null(text);
    char *line = text;
    for (int k = 0; k < 2; k++) {
        char *nl = strchr(line, '\n');
        assert_non_null(nl);
        *nl = '\0';
        assert_int_equal(atoi(line), STSL_RC_IO);
        assert_non_null(strstr(line, "File too large"));
        snprintf(p, sizeof p, "%s/%s", d, names[k]);
        assert_false(tu_file_exists(p));
        line = nl + 1;
    }
    assert_int_equal(tu_count_temps(d), 0);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sweep_outputs_are_not_inputs),
        cmocka_unit_test(rule_on_paths),
        cmocka_unit_test(resume_refuses_what_is_not_an_unfinished_study),
        cmocka_unit_test(fifo_directory_device),
        cmocka_unit_test(directory_as_study_or_base),
        cmocka_unit_test(format_from_extension),
        cmocka_unit_test(file_size_limit_every_writer),
        cmocka_unit_test(api_output_rule),
        cmocka_unit_test(api_write_errors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
