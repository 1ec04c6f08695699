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

static int error_exit(const stsl_err *err)
{
    return stsl_cli_fail_err(&cmd_main, err);
}

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
    stsl_cli_cmd cmd = {"stickslip", usage};
    return stsl_cli_usage_error(&cmd, fmt, arg);
}

/* ---- run ------------------------------------------------------------------ */

typedef struct run_args {
    const char *config, *output, *csv;
    stsl_output format; /* --format: HDF5 or MAT; AUTO: the extension says */
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

/* The summary of the result file just written, on stdout. */
static void print_summary(const run_args *a, const stsl_run_files *f)
{
    if (a->quiet) return;
    const char *out = f->path_used;
    if (f->mat) {
        printf("output: %s (MAT v5: load('%s') in MATLAB or Octave)\n", out, out);
        return;
    }
    stsl_err err;
    char *text = NULL;
    if (stsl_file_info(out, 10, &text, &err)) {
        stsl_free(text);
        fprintf(stderr, "stickslip: warning: cannot read back %s: %s\n", out, err.message);
        return;
    }
    fputs(text, stdout);
    stsl_free(text);
    printf("output: %s\n", out);
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
    a->format = STSL_OUTPUT_AUTO;
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
            a->format = strcmp(optarg, "mat") ? STSL_OUTPUT_HDF5 : STSL_OUTPUT_MAT;
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
static int cfg_verify_failed(const stsl_err *err)
{
    return !strncmp(err->message, "verify strict:", 14);
}

static int cmd_run(int argc, char **argv)
{
    run_args a;
    int rc = parse_common(argc, argv, run_usage, &a);
    if (rc) return rc < 0 ? 0 : rc;
    stsl_err err = {0};
    stsl_cfg *cfg = stsl_cfg_load_set(a.config, a.sets, a.n_sets, &err);
    if (!cfg) return error_exit(&err);
    /* Only `run` polls the flag; elsewhere Ctrl-C keeps its default. */
    stsl_cli_interrupt_install();
    stsl_cfg_set_cancel(cfg, stsl_cli_interrupt_flag());
    int progress = !a.quiet && isatty(STDERR_FILENO);
    if (progress) stsl_cfg_set_progress(cfg, progress_line, NULL);
    stsl_run_files f = {.path = a.output, .format = a.format, .csv = a.csv, .read_back = 1};
    rc = stsl_run_into_files(cfg, &f, &err);
    stsl_cfg_free(cfg);
    const char *out = f.path_used;
    if (f.started && progress) fprintf(stderr, "\r%60s\r", "");
    if (!rc && f.verify_warning[0])
        fprintf(stderr, "stickslip: warning: verify: %s\n", f.verify_warning);
    if (f.replaced)
        fprintf(stderr,
                "stickslip: warning: %s was written by another run while this one ran; "
                "replaced it with this run's result\n",
                out);
    if (rc == STSL_RC_OK) {
        print_summary(&a, &f);
        return 0;
    }
    int sig = stsl_cli_interrupt_signal();
    if (rc == STSL_RC_CANCELLED && sig) {
        fprintf(stderr, "stickslip: interrupted by %s: %s\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
                err.message);
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

/* Each line of `text` as a warning on stderr. */
static void print_warnings(const char *text)
{
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "stickslip: warning: %.*s\n", n, p);
        p += n + (nl != NULL);
    }
}

static int cmd_check(int argc, char **argv)
{
    run_args a;
    int rc = parse_common(argc, argv, check_usage, &a);
    if (rc) return rc < 0 ? 0 : rc;
    stsl_err err = {0};
    stsl_cfg *cfg = stsl_cfg_load_set(a.config, a.sets, a.n_sets, &err);
    if (!cfg) return error_exit(&err);
    char *warnings = stsl_cfg_warnings(cfg, NULL);
    print_warnings(warnings);
    stsl_free(warnings);
    if (a.print) {
        char *yaml = stsl_cfg_to_yaml(cfg, NULL);
        if (yaml) fputs(yaml, stdout);
        stsl_free(yaml);
    } else {
        char *text = stsl_cfg_describe(cfg, NULL);
        if (text) printf("%s: %s", a.config, text);
        stsl_free(text);
    }
    stsl_cfg_free(cfg);
    return 0;
}

static int cmd_info(int argc, char **argv)
{
    run_args a;
    int rc = parse_common(argc, argv, info_usage, &a);
    if (rc) return rc < 0 ? 0 : rc;
    /* Only a regular file is read: opening a FIFO would wait for a writer. */
    struct stat st;
    if (stat(a.config, &st) == 0 && !S_ISREG(st.st_mode))
        return stsl_cli_error(&cmd_main, "%s: %s, not a result file", a.config,
                              S_ISDIR(st.st_mode)
                                  ? "is a directory"
                                  : "not a regular file (a FIFO, socket or device)");
    if (stsl_is_study_file(a.config)) return stsl_cli_study_info(a.config);
    stsl_err err = {0};
    char *text = NULL;
    rc = stsl_file_info(a.config, a.max_events, &text, &err);
    if (text) fputs(text, stdout);
    stsl_free(text);
    if (!rc) return 0;
    fflush(stdout);
    return error_exit(&err);
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
    stsl_process_setup();
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
