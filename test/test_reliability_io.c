/* Reliability of stickslip's input and output (issue 9, parts 3 and 4):
 * every case runs the real program and asserts the exit code, the message
 * and what is left on disk.
 *
 * Output never destroys: an input as output (run, curve, converge,
 * compare) is refused and left byte for byte; a device or FIFO is refused
 * and is still a device or FIFO; a full disk and a file-size limit give
 * exit 1 and leave no temporary file; two runs writing one output leave one
 * complete result; SIGINT and SIGTERM leave a readable incomplete result.
 *
 * Bounded, exact input: deep nesting, invalid UTF-8 (with its line), a
 * directory, NUL bytes, a table without line breaks, a BOM (stripped), a
 * crafted HDF5 extent, a relative table path re-run from elsewhere, an
 * absurd curve range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "io/config/config.h"
#include "io/result/h5_read.h"
#include "io/result/h5_sink.h"
#include "test/testutil.h"

#define EX   STSL_SOURCE_DIR "/examples/"
#define BELT EX "belt_stick_slip.yaml"

extern char **environ;

static char dir[256];
static char out[65536];

#define cli(...) tu_cli(out, sizeof out, __VA_ARGS__)

/* A shell command line (for cd and ulimit), output in `out`. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[8192], full[8300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(full, sizeof full, "(%s) 2>&1", cmd);
    FILE *p = popen(full, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The whole file, malloc'd (NUL-terminated); *n its size. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *n = fread(buf, 1, (1 << 20) - 1, f);
    buf[*n] = '\0';
    fclose(f);
    return buf;
}

static void path_in(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *text = slurp(from, &n);
    FILE *f = fopen(to, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    free(text);
}

static int is_char_device(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

/* ---- output never destroys ---------------------------------------------------- */

/* Each command with -o naming one of its inputs: exit 2 naming both, and
 * the input byte for byte as before. */
static void input_as_output_refused(void **state)
{
    (void)state;
    char cfg[512], res[512], csv[512];
    path_in(cfg, sizeof cfg, "same.yaml");
    path_in(res, sizeof res, "same.h5");
    path_in(csv, sizeof csv, "same.csv");
    copy_file(BELT, cfg);
    assert_int_equal(cli("run %s -o %s -q --set simulation.t_end=0.5", cfg, res), 0);
    assert_int_equal(cli("run %s -o %s --csv %s/same -q --set simulation.t_end=0.5", cfg, res, dir),
                     0);
    snprintf(csv, sizeof csv, "%s/same_trajectory.csv", dir);
    size_t n0, n1;
    char *before = slurp(cfg, &n0);
    const char *cmds[] = {"run %s -o %s", "curve %s -o %s",
                          "converge %s -o %s --scheme karnopp --steps 1e-2,2e-2"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(cli(cmds[i], cfg, cfg), 2);
        assert_non_null(strstr(out, "is the input"));
        assert_non_null(strstr(out, "same.yaml"));
        char *after = slurp(cfg, &n1);
        assert_int_equal(n0, n1);
        assert_memory_equal(before, after, n0);
        free(after);
    }
    /* The CSV export may not overwrite the configuration either. */
    char prefix[512];
    path_in(prefix, sizeof prefix, "same.yaml");
    char cfgcsv[600];
    snprintf(cfgcsv, sizeof cfgcsv, "%s_trajectory.csv", prefix);
    copy_file(cfg, cfgcsv);
    assert_int_equal(cli("run %s -o %s --csv %s -q", cfgcsv, res, prefix), 2);
    assert_non_null(strstr(out, "is the input"));
    /* compare: the report may be neither the reference nor the candidate. */
    char *cand = slurp(csv, &n0);
    assert_int_equal(cli("compare %s %s -o %s", res, csv, csv), 2);
    assert_non_null(strstr(out, "is the input"));
    char *cand_after = slurp(csv, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(cand, cand_after, n0);
    assert_int_equal(cli("compare %s %s -o %s", res, csv, res), 2);
    assert_non_null(strstr(out, "same.h5"));
    assert_int_equal(cli("info %s", res), 0);
    free(cand);
    free(cand_after);
    free(before);
}

/* A device or FIFO is never replaced: refused with a message, still there. */
static void devices_and_fifos_refused(void **state)
{
    (void)state;
    assert_int_equal(cli("run %s -o /dev/null -q", BELT), 2);
    assert_non_null(strstr(out, "/dev/null is a character device"));
    assert_true(is_char_device("/dev/null"));
    char fifo[512], node[512];
    path_in(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(cli("run %s -o %s -q", BELT, fifo), 2);
    assert_non_null(strstr(out, "is a FIFO"));
    struct stat st;
    assert_int_equal(stat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(tu_count_temps(dir), 0);
    /* A character device node of our own (the null device), as root only. */
    path_in(node, sizeof node, "null_node");
    if (mknod(node, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        assert_int_equal(cli("run %s -o %s -q", BELT, node), 2);
        assert_non_null(strstr(out, "is a character device"));
        assert_true(is_char_device(node));
    } else {
        print_message("mknod: %s: the own-device case skipped\n", strerror(errno));
    }
    /* CSV outputs are written directly: a device stays a device. */
    assert_int_equal(cli("curve %s -o /dev/null", BELT), 0);
    assert_true(is_char_device("/dev/null"));
}

/* A file-size limit: exit 1 with the cause, no temporary file, no crash. */
static void file_size_limit(void **state)
{
    (void)state;
    char res[512];
    path_in(res, sizeof res, "big.h5");
    int rc = sh("ulimit -f 256; exec '%s' run %s -o %s -q --set simulation.t_end=100 "
                "--set simulation.output_step=1e-4",
                STSL_CLI, BELT, res);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "File too large"));
    /* The write fails at the flush of a full block of samples, mid-run:
     * our one message, no HDF5 error stack (HDF5's printing is off around
     * every call that reaches HDF5, though not around each sample). */
    assert_null(strstr(out, "HDF5-DIAG"));
    assert_null(strstr(out, "Segmentation"));
    assert_false(tu_file_exists(res));
    assert_int_equal(tu_count_temps(dir), 0);
}

/* A full disk (a 1 MiB tmpfs, as root): exit 1 naming the cause, nothing
 * left, and no crash in HDF5's exit handler. */
static void disk_full(void **state)
{
    (void)state;
    char mnt[512], res[600];
    path_in(mnt, sizeof mnt, "small");
    assert_int_equal(mkdir(mnt, 0700), 0);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0) {
        print_message("mount tmpfs: %s: the disk-full case skipped\n", strerror(errno));
        skip();
    }
    snprintf(res, sizeof res, "%s/full.h5", mnt);
    int rc = cli("run %s -o %s -q --set simulation.t_end=100 --set simulation.output_step=1e-4",
                 BELT, res);
    int temps = tu_count_temps(mnt), left = tu_file_exists(res);
    umount(mnt);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "No space left on device"));
    assert_false(left);
    assert_int_equal(temps, 0);
}

static pid_t spawn_run(const char *cfg, const char *res, const char *const *extra, int n_extra)
{
    const char *argv[16] = {STSL_CLI, "run", cfg, "-o", res, "-q"};
    int n = 6;
    for (int i = 0; i < n_extra; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, STSL_CLI, &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    assert_int_equal(rc, 0);
    return pid;
}

static int wait_exit(pid_t pid)
{
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Two runs to one output at once: both succeed, one complete result. */
static void concurrent_runs(void **state)
{
    (void)state;
    char res[512];
    path_in(res, sizeof res, "both.h5");
    const char *extra[] = {"--set", "simulation.t_end=20", "--set", "simulation.output_step=1e-4"};
    pid_t a = spawn_run(BELT, res, extra, 4), b = spawn_run(BELT, res, extra, 4);
    assert_int_equal(wait_exit(a), 0);
    assert_int_equal(wait_exit(b), 0);
    assert_int_equal(tu_count_temps(dir), 0);
    assert_int_equal(cli("info %s -n 0", res), 0);
    assert_non_null(strstr(out, "Status:      complete"));
    assert_non_null(strstr(out, "Samples:     200"));
}

/* Two writers of one path, interleaved in one process: each has its own
 * temporary file; the one that ends second replaces the first's result and
 * says so; the result is complete and readable. */
static void replaced_output_is_reported(void **state)
{
    (void)state;
    char res[512];
    path_in(res, sizeof res, "twice.h5");
    stsl_sink a, b;
    stsl_error err;
    assert_int_equal(stsl_h5_sink_create(res, "", "test", &a, &err), STSL_OK);
    assert_int_equal(stsl_h5_sink_create(res, "", "test", &b, &err), STSL_OK);
    assert_int_equal(tu_count_temps(dir), 2);
    stsl_stats st = {0};
    assert_int_equal(stsl_sink_end(&a, &st, 1, NULL, &err), STSL_OK);
    assert_int_equal(stsl_h5_sink_replaced(&a), 0);
    assert_int_equal(stsl_sink_end(&b, &st, 1, NULL, &err), STSL_OK);
    assert_int_equal(stsl_h5_sink_replaced(&b), 1);
    stsl_sink_free(&a);
    stsl_sink_free(&b);
    assert_int_equal(tu_count_temps(dir), 0);
    stsl_h5_result r;
    assert_int_equal(stsl_h5_read(res, &r, &err), STSL_OK);
    assert_int_equal(r.complete, 1);
    stsl_h5_result_free(&r);
}

/* Size of the largest *.tmp file in dir (0: none). */
static long temp_size(void)
{
    DIR *d = opendir(dir);
    long size = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        char p[1024];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (l > 4 && !strcmp(e->d_name + l - 4, ".tmp") && !stat(p, &st) && st.st_size > size)
            size = (long)st.st_size;
    }
    if (d) closedir(d);
    return size;
}

/* The unfinished temporary file of a run, once samples are in it. */
static int wait_for_temp(void)
{
    for (int i = 0; i < 400; i++) {
        if (temp_size() > 1000000) return 1;
        struct timespec ts = {0, 25 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* SIGINT and SIGTERM mid-run: exit 130 / 143, the result under its final
 * name, readable and marked incomplete, no temporary file. */
static void signals_leave_incomplete_result(void **state)
{
    (void)state;
    const int sigs[] = {SIGINT, SIGTERM};
    for (int k = 0; k < 2; k++) {
        char res[512];
        path_in(res, sizeof res, k ? "term.h5" : "int.h5");
        const char *extra[] = {"--set", "simulation.t_end=1e5", "--set",
                               "simulation.output_step=1e-3"};
        pid_t pid = spawn_run(BELT, res, extra, 4);
        assert_true(wait_for_temp());
        assert_int_equal(kill(pid, sigs[k]), 0);
        assert_int_equal(wait_exit(pid), 128 + sigs[k]);
        assert_int_equal(tu_count_temps(dir), 0);
        assert_int_equal(cli("info %s -n 0", res), 0);
        assert_non_null(strstr(out, "INCOMPLETE: run cancelled at t = "));
        stsl_h5_result r;
        stsl_error err;
        assert_int_equal(stsl_h5_read(res, &r, &err), STSL_OK);
        assert_int_equal(r.complete, 0);
        assert_true(r.t_last > 0.0 && r.t_last < 1e5);
        stsl_h5_result_free(&r);
    }
}

/* ---- bounded, exact input ----------------------------------------------------- */

static void write_bytes(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static const char *const base_yaml = "element: {mass: 1}\n"
                                     "friction: {law: coulomb, dynamic: 1}\n";

static void config_limits(void **state)
{
    (void)state;
    char cfg[512];
    path_in(cfg, sizeof cfg, "deep.yaml");
    /* 150,000 nested '[' on lines of their own: refused at the depth
     * limit, before libyaml (whose time grows with the square). */
    size_t n = 300000;
    char *deep = malloc(n);
    assert_non_null(deep);
    for (size_t i = 0; i < n; i += 2) {
        deep[i] = '[';
        deep[i + 1] = '\n';
    }
    write_bytes(cfg, deep, n);
    assert_int_equal(cli("check %s", cfg), 2);
    assert_non_null(strstr(out, "deep.yaml:65: nested deeper than 64 levels"));
    /* On one line: the line-length limit. */
    for (size_t i = 0; i < n; i++)
        deep[i] = '[';
    write_bytes(cfg, deep, n);
    assert_int_equal(cli("check %s", cfg), 2);
    assert_non_null(strstr(out, "deep.yaml:1: line longer than 65536 bytes"));
    free(deep);
    /* Too large. */
    char *big = malloc((2 << 20) + 1);
    assert_non_null(big);
    for (size_t i = 0; i < (size_t)(2 << 20); i++)
        big[i] = (i % 64 == 63) ? '\n' : '#';
    write_bytes(cfg, big, 2 << 20);
    free(big);
    assert_int_equal(cli("check %s", cfg), 2);
    assert_non_null(strstr(out, "larger than 1048576 bytes (the configuration limit)"));
    /* A non-UTF-8 byte on line 7 is reported on line 7; a NUL on line 3. */
    char text[512];
    int len = snprintf(text, sizeof text, "%s# 3\n# 4\n# 5\n# 6\nsimulation: {t_end: 1} # \xff\n",
                       base_yaml);
    write_bytes(cfg, text, (size_t)len);
    assert_int_equal(cli("check %s", cfg), 2);
    assert_non_null(strstr(out, "deep.yaml:7: invalid UTF-8 (byte 0xff"));
    len = snprintf(text, sizeof text, "%s# x", base_yaml);
    text[len - 1] = '\0';
    write_bytes(cfg, text, (size_t)len);
    assert_int_equal(cli("check %s", cfg), 2);
    assert_non_null(strstr(out, "deep.yaml:3: NUL byte at column 3"));
    /* A BOM is fine. */
    len = snprintf(text, sizeof text, "\xef\xbb\xbf%ssimulation: {t_end: 1}\n", base_yaml);
    write_bytes(cfg, text, (size_t)len);
    assert_int_equal(cli("check %s", cfg), 0);
    /* A directory. */
    assert_int_equal(cli("check %s", dir), 2);
    assert_non_null(strstr(out, "is a directory, not a configuration file"));
    /* Deep nesting in a --set value is bounded the same way. */
    char set[400];
    memset(set, '[', 100);
    set[100] = '\0';
    assert_int_equal(cli("check %s --set 'simulation.t_end=%s'", BELT, set), 2);
    assert_non_null(strstr(out, "nested deeper than 64 levels"));
}

static void table_yaml(char *buf, size_t n, const char *table)
{
    snprintf(buf, n, "%sinputs: {load: {type: table, file: \"%s\"}}\nsimulation: {t_end: 1}\n",
             base_yaml, table);
}

static void table_limits(void **state)
{
    (void)state;
    char yaml[1024], tab[512];
    stsl_config cfg;
    stsl_error err;
    /* A BOM and no header: the first row is kept. */
    path_in(tab, sizeof tab, "bom.csv");
    write_bytes(tab,
                "\xef\xbb\xbf"
                "0,1\n1,2\n2,4\n",
                15);
    table_yaml(yaml, sizeof yaml, tab);
    assert_int_equal(stsl_config_load_string(yaml, "t.yaml", NULL, NULL, 0, &cfg, &err), STSL_OK);
    assert_int_equal(cfg.element.load.n, 3);
    assert_true(cfg.element.load.tt[0] == 0.0 && cfg.element.load.vv[0] == 1.0);
    stsl_config_free(&cfg);
    /* A NUL byte on line 2: refused with the line, not a row dropped. */
    path_in(tab, sizeof tab, "nul.csv");
    write_bytes(tab, "0,1\n1,\0002\n2,4\n", 13);
    table_yaml(yaml, sizeof yaml, tab);
    assert_int_equal(stsl_config_load_string(yaml, "t.yaml", NULL, NULL, 0, &cfg, &err),
                     STSL_EINPUT);
    assert_non_null(strstr(err.msg, "nul.csv:2: NUL byte at column 3"));
    /* No line breaks at all (/dev/zero, or text): refused after a chunk. */
    table_yaml(yaml, sizeof yaml, "/dev/zero");
    assert_int_equal(stsl_config_load_string(yaml, "t.yaml", NULL, NULL, 0, &cfg, &err),
                     STSL_EINPUT);
    assert_non_null(strstr(err.msg, "/dev/zero:1: NUL byte at column 1"));
    path_in(tab, sizeof tab, "oneline.csv");
    char *line = malloc(100000);
    assert_non_null(line);
    memset(line, '1', 100000);
    write_bytes(tab, line, 100000);
    free(line);
    table_yaml(yaml, sizeof yaml, tab);
    assert_int_equal(stsl_config_load_string(yaml, "t.yaml", NULL, NULL, 0, &cfg, &err),
                     STSL_EINPUT);
    assert_non_null(
        strstr(err.msg, "oneline.csv:1: line longer than 65536 bytes (the table limit"));
}

/* A result whose configuration names a table by a relative path can be
 * re-run (compare) from any working directory: /config records it whole. */
static void relative_table_rerun(void **state)
{
    (void)state;
    char sub[512], yaml[1024];
    path_in(sub, sizeof sub, "rel");
    assert_int_equal(mkdir(sub, 0700), 0);
    char tab[600], cfg[600];
    snprintf(tab, sizeof tab, "%s/load.csv", sub);
    snprintf(cfg, sizeof cfg, "%s/rel.yaml", sub);
    assert_int_equal(tu_write_file(tab, "0,0\n1,2\n2,0.2\n"), 0);
    snprintf(yaml, sizeof yaml,
             "%sinputs: {active_force: {type: table, file: load.csv}}\nsimulation: {t_end: 2, "
             "output_step: 0.01}\n",
             base_yaml);
    assert_int_equal(tu_write_file(cfg, yaml), 0);
    assert_int_equal(sh("cd '%s' && '%s' run rel/rel.yaml -o rel/rel.h5 -q", dir, STSL_CLI), 0);
    assert_int_equal(sh("cd / && '%s' compare '%s/rel.h5' '%s/rel.h5'", STSL_CLI, sub, sub), 0);
    assert_non_null(strstr(out, "max |x error|                             0.000000e+00  m"));
    assert_non_null(strstr(out, "breakaway"));
}

/* Candidate CSV: a BOM before the header is dropped; a NUL is refused with
 * its line instead of cutting the file short. */
static void candidate_bom_and_nul(void **state)
{
    (void)state;
    char res[512], csv[512];
    path_in(res, sizeof res, "cand.h5");
    path_in(csv, sizeof csv, "cand");
    assert_int_equal(cli("run %s -o %s --csv %s -q --set simulation.t_end=1", BELT, res, csv), 0);
    snprintf(csv, sizeof csv, "%s/cand_trajectory.csv", dir);
    size_t n;
    char *text = slurp(csv, &n);
    char bom[512];
    path_in(bom, sizeof bom, "bom_cand.csv");
    char *withbom = malloc(n + 3);
    assert_non_null(withbom);
    memcpy(withbom, "\xef\xbb\xbf", 3);
    memcpy(withbom + 3, text, n);
    write_bytes(bom, withbom, n + 3);
    assert_int_equal(cli("compare %s %s", res, bom), 0);
    /* A NUL in the middle (line 10). */
    char *p = text;
    for (int line = 1; line < 10; line++)
        p = strchr(p, '\n') + 1;
    p[1] = '\0';
    write_bytes(bom, text, n);
    assert_int_equal(cli("compare %s %s", res, bom), 2);
    assert_non_null(strstr(out, "bom_cand.csv:10: NUL byte at column 2"));
    free(withbom);
    free(text);
}

/* A small result whose /events claims 10^7 rows: refused before allocating,
 * by info and by plot (one line, no traceback). */
static void crafted_hdf5_extent(void **state)
{
    (void)state;
    char res[512];
    path_in(res, sizeof res, "crafted.h5");
    assert_int_equal(cli("run %s -o %s -q --set simulation.t_end=0.5", BELT, res), 0);
    hid_t f = H5Fopen(res, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t d = H5Dopen2(f, "events", H5P_DEFAULT);
    hsize_t rows = 10000000;
    assert_true(H5Dset_extent(d, &rows) >= 0);
    H5Dclose(d);
    H5Fclose(f);
    struct stat st;
    assert_int_equal(stat(res, &st), 0);
    assert_true(st.st_size < 1000000); /* vs 10^7 rows of 66 bytes */
    assert_int_equal(cli("info %s", res), 2);
    assert_non_null(strstr(out, "dataset /events claims 10000000 rows"));
    if (access("/usr/bin/python3", X_OK) == 0) {
        char png[600];
        snprintf(png, sizeof png, "%s/crafted.png", dir);
        assert_int_equal(cli("plot %s -o %s", res, png), 2);
        assert_non_null(strstr(out, "claims 10000000 rows"));
        assert_null(strstr(out, "Traceback"));
        assert_false(tu_file_exists(png));
    }
}

/* curve: a range whose rows would be inf or NaN is refused, nothing written. */
static void curve_range(void **state)
{
    (void)state;
    char csv[512];
    path_in(csv, sizeof csv, "curve.csv");
    assert_int_equal(cli("curve %s --vmin -1e308 --vmax 1e308 -o %s", BELT, csv), 2);
    assert_non_null(strstr(out, "outside the allowed range [-1e+15, 1e+15]"));
    assert_false(tu_file_exists(csv));
    assert_int_equal(cli("curve %s --vmin -1e15 --vmax 1e15 -o %s", BELT, csv), 0);
    size_t n;
    char *text = slurp(csv, &n);
    assert_null(strstr(text, "nan"));
    assert_null(strstr(text, "inf"));
    free(text);
}

int main(void)
{
    tu_mkdtemp(dir, sizeof dir);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(input_as_output_refused),
        cmocka_unit_test(devices_and_fifos_refused),
        cmocka_unit_test(file_size_limit),
        cmocka_unit_test(disk_full),
        cmocka_unit_test(concurrent_runs),
        cmocka_unit_test(replaced_output_is_reported),
        cmocka_unit_test(signals_leave_incomplete_result),
        cmocka_unit_test(config_limits),
        cmocka_unit_test(table_limits),
        cmocka_unit_test(relative_table_rerun),
        cmocka_unit_test(candidate_bom_and_nul),
        cmocka_unit_test(crafted_hdf5_extent),
        cmocka_unit_test(curve_range),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (rc == 0 && system(cmd) != 0) rc = 1;
    return rc;
}
