/* main.c - the `stickslip` command: run, check, info.
 *
 * Exit codes: 0 ok, 2 bad input (configuration, arguments, unreadable
 * result), 3 solver failure (the result file is still written, marked
 * incomplete), 1 anything else (I/O). */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/compare.h"
#include "cli/converge.h"
#include "cli/fmu_export.h"
#include "cli/curve.h"
#include "cli/interrupt.h"
#include "cli/plot.h"
#include "cli/sweep.h"
#include "io/config.h"
#include "io/csv_sink.h"
#include "io/convergence_h5.h"
#include "io/h5_read.h"
#include "io/h5_sink.h"
#include "io/mat_result.h"
#include "io/mat_sink.h"
#include "io/out_file.h"
#include "io/safe_output.h"
#include "io/study_h5.h"
#include "models/one_body.h"
#include "models/multibody.h"
#include "models/run.h"
#include "models/verify.h"
#include "solver/hybrid.h"
#include "stsl_version.h"

static const char *const main_usage =
    "usage: stickslip <command> [options]\n"
    "\n"
    "Exact, event-driven simulation of mechanical elements and of systems of bodies\n"
    "with dry friction (stick, slip, reversal, breakaway, backlash, end stops): each\n"
    "mode integrated by CVODE, each switch located by rootfinding; results in HDF5 or MAT.\n"
    "\n"
    "commands:\n"
    "  run CONFIG     simulate a configuration and write the result file\n"
    "  check CONFIG   validate a configuration without simulating\n"
    "  info RESULT    summarise a result file and list its events\n"
    "  curve CONFIG   tabulate the friction law: force against velocity (CSV)\n"
    "  plot RESULT    draw a result file (PNG, PDF or SVG; needs python3-matplotlib)\n"
    "  converge CONFIG  a fixed-step scheme's error and cost against the exact reference\n"
    "  compare REF CANDIDATE  errors, stuck overlap, events of a trajectory against REF\n"
    "  fmu CONFIG -o E.fmu  the element as an FMI 2.0 co-simulation FMU (exact engine inside)\n"
    "  sweep STUDY    run every variant of a batch study in threads (resumable)\n"
    "\n"
    "options:\n"
    "  -h, --help     this help (also after a command: stickslip run --help)\n"
    "  --version      print the version\n"
    "\n"
    "Output files are never an input or each other, never a FIFO, directory or device\n"
    "(text outputs may be /dev/null); the format follows the extension; each is written\n"
    "whole or not at all (docs/output-files.md).\n"
    "\n"
    "exit codes: 0 ok, 2 bad input, 3 solver failure (results kept, marked incomplete),\n"
    "1 I/O error (nothing left under the output's name)\n";

static const char *const run_usage =
    "usage: stickslip run CONFIG [-o OUT.h5|OUT.mat] [--format h5|mat] [--csv PREFIX]\n"
    "                     [--set KEY=VALUE]... [--verify[=strict]] [--quiet]\n"
    "\n"
    "Simulate CONFIG (YAML) and write the result as HDF5 (or a MAT file for MATLAB/Octave).\n"
    "\n"
    "  -o, --output OUT.h5   result file (default: output.file from the config,\n"
    "                        else results/<config name>.h5); never the config or a\n"
    "                        table it reads, a FIFO, directory or device\n"
    "  --format h5|mat       result format (default: the extension says: .h5 or .hdf5\n"
    "                        HDF5, .mat MAT v5 (compressed, loadable with load()); any\n"
    "                        other extension needs --format)\n"
    "  --csv PREFIX          also write PREFIX_trajectory.csv and PREFIX_events.csv\n"
    "  --set KEY=VALUE       override a configuration key, e.g. --set simulation.t_end=2\n"
    "                        (repeatable; VALUE is YAML: --set 'inputs.load={type: constant, "
    "value: 5}')\n"
    "  --verify[=strict]     run the case again at rtol/100 and store the difference as\n"
    "                        the estimated error (/stats); a differing event sequence is\n"
    "                        a warning (exit 0), with =strict a failure (exit 3)\n"
    "                        (the same as --set simulation.verify=on|strict)\n"
    "  -q, --quiet           print nothing but errors\n"
    "  -h, --help            this help\n";

static const char *const check_usage =
    "usage: stickslip check CONFIG [--set KEY=VALUE]... [--print]\n"
    "\n"
    "Validate CONFIG; exit 0 when valid, 2 with a FILE:LINE: key: message when not.\n"
    "Warns when an explicit simulation.atol caps the accuracy simulation.rtol asks for.\n"
    "\n"
    "  --set KEY=VALUE       override a configuration key (repeatable)\n"
    "  -p, --print           print the effective configuration (defaults filled in)\n"
    "  -h, --help            this help\n";

static const char *const info_usage =
    "usage: stickslip info FILE [--events N]\n"
    "\n"
    "Print the summary of a result file (HDF5 or MAT): completion, statistics, time per mode,\n"
    "event counts by kind and the event table; for a system of bodies per body\n"
    "(final x, v, range of x), per contact (time stuck, sticks, breakaways, largest\n"
    "|friction|), per stop (contacts, impacts) and events by kind and subject.  For a study file "
    "(stickslip\n"
    "sweep): counts, first failures, parameter ranges and summary column ranges.  For a file "
    "of\n"
    "stickslip converge --h5: its table of errors and costs per step.\n"
    "\n"
    "  -n, --events N        list at most N events (default 50; -1 for all)\n"
    "  -h, --help            this help\n";

static const stsl_cli_cmd cmd_main = {"stickslip", main_usage};

static int error_exit(const stsl_error *err)
{
    return stsl_cli_fail(&cmd_main, err);
}

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
    stsl_cli_cmd cmd = {"stickslip", usage};
    return stsl_cli_usage_error(&cmd, fmt, arg);
}

/* ---- run ------------------------------------------------------------------ */

typedef struct run_args {
    const char *config, *output, *csv;
    int format; /* --format: STSL_FMT_H5 or STSL_FMT_MAT; 0: the extension says */
    int mat;    /* the result is written as MAT (set by check_outputs) */
    const char *sets[STSL_CLI_MAX_SETS];
    int n_sets, quiet, print;
    long max_events;
} run_args;

/* --verify[=strict]: appended as a --set, so that the configuration's
 * checks (event-driven only) and its YAML in the result see it. */
static int add_verify(const char *usage, run_args *a, const char *arg)
{
    stsl_cli_cmd cmd = {"stickslip", usage};
    const char *set = NULL;
    if (!arg || !strcmp(arg, "on"))
        set = "simulation.verify=on";
    else if (!strcmp(arg, "strict"))
        set = "simulation.verify=strict";
    if (!set) return stsl_cli_usage_error(&cmd, "--verify: expected nothing or =strict: '%s'", arg);
    return stsl_cli_add_set(&cmd, a->sets, &a->n_sets, set) ? 2 : 0;
}

static void progress_line(void *ctx, double t, double t_end)
{
    (void)ctx;
    fprintf(stderr, "\rstickslip: t = %.4g / %.4g s (%3.0f%%)", t, t_end, 100.0 * t / t_end);
    fflush(stderr);
}

static void default_output(const stsl_config *cfg, const char *ext, char *buf, size_t n)
{
    if (cfg->output_file[0])
        snprintf(buf, n, "%s", cfg->output_file);
    else
        snprintf(buf, n, "results/%s.%s", cfg->name, ext);
}

/* MAT, as the output rule decided (check_outputs). */
static int wants_mat(const run_args *a, const char *out)
{
    (void)out;
    return a->mat;
}

static int make_sink(const run_args *a, const char *out, const char *yaml, stsl_sink *sink,
                     stsl_sink *h5_only, stsl_error *err)
{
    int rc = wants_mat(a, out) ? stsl_mat_sink_create(out, yaml, STSL_VERSION, 0, sink, err)
                               : stsl_h5_sink_create(out, yaml, STSL_VERSION, sink, err);
    *h5_only = *sink;
    if (rc || !a->csv) return rc;
    stsl_sink csv = {0};
    if ((rc = stsl_csv_sink_create(a->csv, &csv, err))) {
        stsl_sink_free(sink);
        return rc;
    }
    stsl_sink h5 = *sink;
    return stsl_sink_tee(h5, csv, sink, err);
}

/* The summary of a result read (a: a MAT file's samples, NULL for an HDF5
 * file, whose datasets a system's tables read), freed here: a system's per
 * body, contact and stop tables, or the element's (io/h5_read.h). */
static int print_read(stsl_h5_result *res, stsl_mat_arrays *a, long max_events, stsl_error *err)
{
    int rc = STSL_OK;
    if (stsl_h5_result_is_system(res)) {
        stsl_h5_system sys;
        rc = stsl_h5_system_from(res, a ? a->n : 0, a ? &a->t : NULL, a ? a->cols : NULL, &sys,
                                 err); /* takes a's arrays */
        if (!rc) stsl_h5_print_system_info(res, &sys, stdout, max_events);
        stsl_h5_system_free(&sys);
    } else {
        stsl_h5_print_info(res, stdout, max_events);
    }
    stsl_h5_result_free(res);
    return rc;
}

/* The summary of the result file `path` on stdout.  system >= 0: a file
 * this process has just written, HDF5 (no need to ask whether it is MAT). */
static int print_result(const char *path, long max_events, int system, stsl_error *err)
{
    stsl_h5_result res;
    stsl_mat_arrays a;
    int mat = system < 0 && stsl_mat_result_file(path);
    int rc = mat ? stsl_mat_result_read(path, &res, &a, err) : stsl_h5_read(path, &res, err);
    if (rc) return rc;
    rc = print_read(&res, mat ? &a : NULL, max_events, err);
    if (mat) stsl_mat_arrays_free(&a);
    return rc;
}

static void print_summary(const run_args *a, const char *out, int system)
{
    if (a->quiet) return;
    if (wants_mat(a, out)) {
        printf("output: %s (MAT v5: load('%s') in MATLAB or Octave)\n", out, out);
        return;
    }
    stsl_error err;
    if (print_result(out, 10, system, &err)) {
        fprintf(stderr, "stickslip: warning: cannot read back %s: %s\n", out, err.msg);
        return;
    }
    printf("output: %s\n", out);
}

/* Build the model (and free it) to find bad parameters: 0, or nonzero
 * with err filled. */
static int check_model(const stsl_config *cfg, stsl_error *err)
{
    if (cfg->is_system) {
        stsl_multibody *mb = stsl_multibody_create(&cfg->system, cfg->sim.rtol, cfg->sim.atol, err);
        stsl_multibody_free(mb);
        return !mb;
    }
    stsl_one_body *el = stsl_one_body_create(&cfg->element, err);
    stsl_one_body_free(el);
    return !el;
}

static int simulate(const run_args *a, stsl_config *cfg, const char *out, stsl_error *err)
{
    char *yaml = stsl_config_to_yaml(cfg);
    if (!yaml) return stsl_error_set(err, STSL_ENOMEM, "out of memory writing the configuration");
    /* Bad parameters are bad input: check them before a file is created. */
    int bad = check_model(cfg, err);
    stsl_sink sink = {0}, h5 = {0};
    int rc = !bad ? make_sink(a, out, yaml, &sink, &h5, err) : err->code;
    if (!rc) {
        cfg->sim.progress = (!a->quiet && isatty(STDERR_FILENO)) ? progress_line : NULL;
        cfg->sim.cancel = stsl_cli_interrupt_cancel;
        char check[STSL_ERRMSG_MAX + 256] = "";
        if (cfg->is_system)
            /* A fixed-step scheme has no tolerance and runs unverified, as
             * the element's does. */
            rc = cfg->scheme.kind != STSL_SCHEME_EVENT_DRIVEN
                     ? stsl_run_system_scheme(&cfg->system, &cfg->sim, &cfg->scheme, &sink, NULL,
                                              err)
                     : stsl_run_system_verified(&cfg->system, &cfg->sim, cfg->verify, &sink, NULL,
                                                check, sizeof check, err);
        else
            rc = stsl_run_verified(&cfg->element, &cfg->sim, &cfg->scheme, cfg->verify, &sink, NULL,
                                   check, sizeof check, err);
        if (cfg->sim.progress) fprintf(stderr, "\r%60s\r", "");
        if (!rc && check[0]) fprintf(stderr, "stickslip: warning: verify: %s\n", check);
        if (stsl_h5_sink_replaced(&h5) || stsl_mat_sink_replaced(&h5))
            fprintf(stderr,
                    "stickslip: warning: %s was written by another run while this one ran; "
                    "replaced it with this run's result\n",
                    out);
    }
    stsl_sink_free(&sink);
    free(yaml);
    return rc;
}

/* The output rule (io/safe_output.h) for the result and the CSV files
 * against the configuration and its table files; decides the format. */
static int check_outputs(run_args *a, const stsl_config *cfg, const char *out, stsl_error *err)
{
    int n_in = 0;
    const char **inputs = stsl_out_config_inputs(cfg, &n_in);
    if (!inputs) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    char csv[2][STSL_PATH_MAX + 32];
    for (int k = 0; a->csv && k < 2; k++)
        snprintf(csv[k], sizeof csv[k], "%s_%s.csv", a->csv, k ? "events" : "trajectory");
    stsl_output_file outs[3] = {
        {out, "a run's result file", STSL_FMT_H5 | STSL_FMT_MAT, a->format, 0},
        {a->csv ? csv[0] : NULL, "--csv's trajectory table", STSL_FMT_CSV, 0, 0},
        {a->csv ? csv[1] : NULL, "--csv's event table", STSL_FMT_CSV, 0, 0}};
    int rc = stsl_output_rule(inputs, n_in, outs, 3, err);
    size_t len = strlen(err->msg);
    if (rc && !a->format && stsl_output_format_of(out) == STSL_FMT_CSV) /* what x.csv meant */
        snprintf(err->msg + len, sizeof err->msg - len, " (for CSV tables: --csv PREFIX)");
    a->mat = outs[0].format == STSL_FMT_MAT;
    free(inputs);
    return rc;
}

static int parse_common(int argc, char **argv, const char *usage, run_args *a)
{
    stsl_cli_cmd cmd = {"stickslip", usage};
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"csv", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 's'},    {"quiet", no_argument, NULL, 'q'},
        {"print", no_argument, NULL, 'p'},        {"events", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'}, {"verify", optional_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->max_events = 50;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:qpn:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            a->output = optarg;
            break;
        case 'c':
            a->csv = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "mat") && strcmp(optarg, "h5") && strcmp(optarg, "hdf5"))
                return usage_error(
                    usage, "--format: expected h5 or mat: '%s' (CSV tables: --csv PREFIX)", optarg);
            a->format = strcmp(optarg, "mat") ? STSL_FMT_H5 : STSL_FMT_MAT;
            break;
        case 's':
            if (stsl_cli_add_set(&cmd, a->sets, &a->n_sets, optarg)) return 2;
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'V':
            if (add_verify(usage, a, optarg)) return 2;
            break;
        case 'p':
            a->print = 1;
            break;
        case 'n': {
            char *end;
            a->max_events = strtol(optarg, &end, 10);
            if (*end || end == optarg)
                return usage_error(usage, "--events: not a number: %s", optarg);
            break;
        }
        case 'h':
            return stsl_cli_help(&cmd);
        default:
            return usage_error(usage, "unknown or incomplete option: %s", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) return usage_error(usage, "expected exactly one file argument%s", "");
    a->config = argv[optind];
    return 0;
}

/* The failure of --verify=strict (the run itself completed). */
static int cfg_verify_failed(const stsl_error *err)
{
    return !strncmp(err->msg, "verify strict:", 14);
}

static int cmd_run(int argc, char **argv)
{
    run_args a;
    int rc = parse_common(argc, argv, run_usage, &a);
    if (rc) return rc < 0 ? 0 : rc;
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(a.config, a.sets, a.n_sets, &cfg, &err)) return error_exit(&err);
    if (stsl_config_require_runnable(&cfg, &err)) {
        stsl_config_free(&cfg);
        return error_exit(&err);
    }
    char out[STSL_PATH_MAX + 16];
    if (a.output)
        snprintf(out, sizeof out, "%s", a.output);
    else
        default_output(&cfg, a.format == STSL_FMT_MAT ? "mat" : "h5", out, sizeof out);
    rc = check_outputs(&a, &cfg, out, &err);
    /* Only `run` polls the flag; elsewhere Ctrl-C keeps its default. */
    stsl_cli_interrupt_install();
    if (!wants_mat(&a, out)) stsl_output_h5_keep_freed();
    if (!rc) rc = simulate(&a, &cfg, out, &err);
    int system = cfg.is_system;
    stsl_config_free(&cfg);
    if (rc == STSL_OK) {
        print_summary(&a, out, system);
        return 0;
    }
    int sig = stsl_cli_interrupt_signal();
    if (rc == STSL_ECANCELLED && sig) {
        fprintf(stderr, "stickslip: interrupted by %s: %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
                err.msg);
        fprintf(stderr, "stickslip: results up to then are in %s (marked incomplete)\n", out);
        return 128 + sig;
    }
    int code = error_exit(&err);
    if (code == 3 && cfg_verify_failed(&err))
        fprintf(stderr, "stickslip: the result is in %s (its /stats hold the comparison)\n", out);
    else if (code == 3)
        fprintf(stderr, "stickslip: results up to the failure are in %s (marked incomplete)\n",
                out);
    return code;
}

/* ---- check and info ---------------------------------------------------------- */

/* An explicit atol larger than the one the rule would derive for a
 * component (a system's: the smallest over its bodies) caps that
 * component's accuracy: tightening rtol alone then
 * stops helping (docs/numerics.md). */
static void warn_atol_cap(const stsl_config *cfg)
{
    double a[3];
    const char *units[3], *names[3] = {"x", "v", "sigma0 z"};
    if (!(cfg->sim.atol > 0.0) || cfg->scheme.kind != STSL_SCHEME_EVENT_DRIVEN) return;
    int n = stsl_config_auto_atol(cfg, a, units), capped = 0;
    char rule[256] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof rule; i++) {
        capped |= cfg->sim.atol > a[i];
        int w = snprintf(rule + used, sizeof rule - used, "%s%s %.3g %s", i ? ", " : "", names[i],
                         a[i], units[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (capped)
        fprintf(stderr,
                "stickslip: warning: simulation.atol = %g caps the accuracy rtol = %g asks for "
                "(atol: auto would give %s): tightening rtol alone stops helping; remove atol "
                "or set it to auto\n",
                cfg->sim.atol, cfg->sim.rtol, rule);
}

static int cmd_check(int argc, char **argv)
{
    run_args a;
    int rc = parse_common(argc, argv, check_usage, &a);
    if (rc) return rc < 0 ? 0 : rc;
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(a.config, a.sets, a.n_sets, &cfg, &err)) return error_exit(&err);
    warn_atol_cap(&cfg);
    if (a.print) {
        char *yaml = stsl_config_to_yaml(&cfg);
        if (yaml) fputs(yaml, stdout);
        free(yaml);
    } else {
        char *sum = stsl_config_summary(&cfg);
        if (cfg.is_system)
            printf("%s: valid (t_end %g s)\n", a.config, cfg.sim.t_end);
        else
            printf("%s: valid (t_end %g s, %s friction)\n", a.config, cfg.sim.t_end,
                   stsl_law_name(cfg.element.friction.law));
        if (sum) fputs(sum, stdout);
        free(sum);
    }
    stsl_config_free(&cfg);
    return 0;
}

static int cmd_info(int argc, char **argv)
{
    run_args a;
    int rc = parse_common(argc, argv, info_usage, &a);
    if (rc) return rc < 0 ? 0 : rc;
    stsl_error err = {0};
    /* Only a regular file is read: opening a FIFO would wait for a writer. */
    struct stat st;
    if (stat(a.config, &st) == 0 && !S_ISREG(st.st_mode)) {
        stsl_error_set(&err, STSL_EINPUT, "%s: %s, not a result file", a.config,
                       S_ISDIR(st.st_mode) ? "is a directory"
                                           : "not a regular file (a FIFO, socket or device)");
        return error_exit(&err);
    }
    if (stsl_study_h5_is_study(a.config)) return stsl_cli_study_info(a.config);
    /* converge --h5 writes its table alone or beside a result. */
    int conv = stsl_convergence_h5_present(a.config);
    if (conv == STSL_CONV_ONLY)
        return stsl_cli_convergence_info(a.config, &err) ? error_exit(&err) : 0;
    if (print_result(a.config, a.max_events, -1, &err)) return error_exit(&err);
    if (conv == STSL_CONV_BESIDE_RESULT) {
        printf("\n");
        fflush(stdout);
        if (stsl_cli_convergence_info(a.config, &err)) return error_exit(&err);
    }
    return 0;
}

/* What a command printed must have arrived: standard output on a full
 * disk (> /dev/full) is an I/O error (exit 1) like any output file. */
static int stdout_checked(int rc)
{
    if ((fflush(stdout) == 0 && !ferror(stdout)) || rc) return rc;
    int e = errno;
    fprintf(stderr, "stickslip: error: cannot write to standard output: %s\n",
            e ? strerror(e) : "write error");
    return 1;
}

int main(int argc, char **argv)
{
    stsl_output_process_setup();
    if (argc < 2) {
        fputs(main_usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        stsl_cli_help(&cmd_main);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("stickslip %s\n", STSL_VERSION);
        return 0;
    }
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {{"run", cmd_run},
                {"check", cmd_check},
                {"info", cmd_info},
                {"curve", stsl_cli_curve},
                {"plot", stsl_cli_plot},
                {"converge", stsl_cli_converge},
                {"compare", stsl_cli_compare},
                {"fmu", stsl_cli_fmu_export},
                {"sweep", stsl_cli_sweep}};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name)) return stdout_checked(cmds[i].fn(argc - 1, argv + 1));
    return stsl_cli_usage_error(&cmd_main, "unknown command '%s'", cmd);
}
