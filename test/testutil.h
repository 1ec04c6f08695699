/* testutil.h - small helpers shared by the tests (cmocka). */
#ifndef STSL_TESTUTIL_H
#define STSL_TESTUTIL_H

#include <stddef.h>

#include "io/config/config.h"
#include "io/result/mem_sink.h"

/* Weighted RMS norm of (a - ref) with weights 1/(rtol |ref| + atol): < 1
 * means "equal within the tolerance" (STYLE.md, rule 7). */
double tu_wrms(const double *a, const double *ref, int n, double rtol, double atol);
/* The same for one value. */
double tu_wrms1(double a, double ref, double rtol, double atol);

/* cmocka 1.1.5 (Debian bookworm) compares only floats: these compare
 * doubles, |a - b| <= tol, and report both values to 17 digits on failure. */
#define assert_close(a, b, tol) tu_assert_close((a), (b), (tol), #a, __FILE__, __LINE__)
void tu_assert_close(double a, double b, double tol, const char *expr, const char *file, int line);
/* Weighted RMS norm of one value below 1 (STYLE.md rule 7). */
#define assert_wrms1(a, ref, rtol, atol)                                                           \
    tu_assert_wrms1((a), (ref), (rtol), (atol), #a, __FILE__, __LINE__)
void tu_assert_wrms1(double a, double ref, double rtol, double atol, const char *expr,
                     const char *file, int line);

/* Run the stickslip executable with `args` (a shell-quoted string), merging
 * stdout and stderr into `out` (truncated to outsz). Returns the exit code. */
int tu_run_cli(const char *args, char *out, size_t outsz);

/* Run the shell command line `cmd` (popen), its output into `out`; the
 * exit code, or -1 when it did not exit. */
int tu_shell(const char *cmd, char *out, size_t outsz);

/* tu_run_cli with printf-style arguments. */
int tu_cli(char *out, size_t outsz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Run a loaded configuration (its scheme, or event-driven) into a new
 * memory sink; asserts that the run succeeded and completed. */
const stsl_mem_result *tu_run_config(const stsl_config *cfg, stsl_sink *sink);
/* The same from YAML text with overrides. */
const stsl_mem_result *tu_run_yaml(const char *yaml, const char *const *sets, int n_sets,
                                   stsl_sink *sink);
/* SPEC §4's band invariant on a system's result: in every sample, every
 * contact whose contact_mode is STUCK has its friction (the force on its
 * first end) within [-F_S(+1), F_S(-1)] of its levels under its load at
 * the sample's time (either side of a load step), to
 * within 1e-9 of the level (the force at a located breakaway is the level
 * up to the root's location, ~1e-15 s, times its rate, and 64 ulps of the
 * forces' balance: far below 1e-9 relative; a contact held past its
 * level is off by the excess, 0.5 N in the case that found it).  Fails
 * the test naming the sample, contact and force.  Returns the number of
 * stuck samples checked. */
long tu_assert_bands(const stsl_mem_result *r, const stsl_system *s);

/* Run a system of bodies from YAML text into a new memory sink,
 * integrating the model's power into stats.work when `power`; asserts that
 * it is a system and that the run succeeded and completed. */
const stsl_mem_result *tu_run_system_yaml(const char *yaml, int power, stsl_sink *sink);
/* Number of events of one kind in a result. */
int tu_count_kind(const stsl_mem_result *r, int kind);
/* Column c of sample i. */
double tu_col(const stsl_mem_result *r, long i, int c);
/* v never of the wrong sign in a slip mode (SLIP_POS: v >= -v_round,
 * SLIP_NEG: v <= v_round; v_round: the rounding the caller argues for). */
void tu_assert_slip_sign(const stsl_mem_result *r, double v_round);
/* The index of the n-th event (0-based) of `kind`, -1 when there is none. */
long tu_nth_event(const stsl_mem_result *r, int kind, int n);

/* Field `name` of data row `row` (0: the first) of a CSV table whose
 * header spells it `name`, `name [unit]` (a `converge -o` table); fails
 * the test when there is no such column or row. */
double tu_csv_field(const char *csv, const char *name, int row);
/* A whole text file (malloc'd; the caller frees), NULL when unreadable. */
char *tu_slurp(const char *path);

/* The number after "key": in a JSON text (a report of compare); NAN for
 * null or absent. */
double tu_json_value(const char *json, const char *key);

/* A fresh temporary directory (static buffer per call site is the caller's). */
void tu_mkdtemp(char *buf, size_t bufsz);
/* A new directory as tu_mkdtemp makes, also set as TMPDIR (where FMUs are
 * unpacked); 0, or -1 when either fails. */
int tu_mkdtemp_env(char *buf, size_t bufsz);
/* Remove the directory `dir` and all it holds; 0 on success. */
int tu_rm_tree(const char *dir);
/* Write text to a file; returns 0 on success. */
int tu_write_file(const char *path, const char *text);
/* 1 when the file exists. */
int tu_file_exists(const char *path);
/* Number of files named *.tmp in `dir` (temporary results left behind). */
int tu_count_temps(const char *dir);

#endif
