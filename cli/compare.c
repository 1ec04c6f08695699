/* compare.c - `stickslip compare REFERENCE.h5 CANDIDATE [--columns t,x,v | t=A,x=B:1,v=B:2]
 * [--stuck-velocity V] [--event-window T] [-o REPORT.json]`.
 *
 * The reference's /config is run again at the candidate's times and the
 * metrics computed by stsl_compare_files_run (api/compare_files.c, which
 * reads the two files and writes the table and the JSON report); this
 * file reads the arguments and prints what it returns. */
#include "cli/compare.h"
#include "cli/fmu_lazy.h"
#include "cli/fmu_opts.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"

static const char *const usage =
    "usage: stickslip compare REFERENCE.h5 CANDIDATE [--columns t,x,v[,friction] |\n"
    "                         --columns t=A,x=B:1,v=B:2[,friction=C]]\n"
    "                         [--stuck-velocity V] [--event-window T] [-o REPORT.json]\n"
    "       stickslip compare REFERENCE.h5 --fmu MODEL.fmu --step H [--fmu-input N=SIG]...\n"
    "                         [--fmu-output C=NAME]... [--fmu-set N=VALUE]... [options]\n"
    "\n"
    "Compare a trajectory (CANDIDATE: a stickslip result, an HDF5 file, a MAT file (v4,\n"
    "v5, v7, v7.3, Modelica results) or a CSV with a header) against the exact\n"
    "reference: the reference's /config is run again with the candidate's time points\n"
    "as output times, so both are compared at the same instants.\n"
    "Reports max, RMS and final errors of x and v, the stuck-time overlap (intersection\n"
    "over union), matched, missed and spurious events, and the dissipated energy.\n"
    "\n"
    "  --columns T,X,V[,F]     names of the time, position, velocity (and friction)\n"
    "                          columns (default t,x,v; a header 'x [m]' matches x;\n"
    "                          HDF5: datasets at the root or under /trajectory)\n"
    "  --columns t=A,x=B,v=C   by role; a source is a name, a MAT field path\n"
    "                          (simout.signals.values) or a Modelica variable\n"
    "                          (mass.s), NAME:N the N-th column (1-based) of a matrix\n"
    "  --stuck-velocity V      |v| <= V counts as stuck for a candidate without modes\n"
    "                          (default 1e-6 of the reference's max |v|, at least its atol)\n"
    "  --event-window T        events match within T seconds (default 5 median steps of\n"
    "                          the candidate)\n"
    "  -o, --output FILE.json  also write the report as JSON (whole or not at all; never\n"
    "                          REFERENCE or CANDIDATE)\n"
    "  --fmu MODEL.fmu         the candidate is an FMI 2.0 co-simulation FMU run at the\n"
    "                          communication step H (--step), the reference's signals\n"
    "                          as its inputs; --fmu-input, --fmu-output, --fmu-set map\n"
    "                          it as for converge, --fmu-scheme euler|rk4 integrates a\n"
    "                          model-exchange FMU (docs/fmu.md), --fmu-timeout\n"
    "                          SECONDS|none stops an FMU call that hangs (default 600)\n"
    "  -h, --help              this help\n"
    "\n"
    "Candidate times outside the reference's [0, t_end] are dropped (and counted).\n"
    "Two results of a system of bodies are compared member by member, matched by\n"
    "name: x[body], v[body] errors, per contact the stuck times (as info counts them)\n"
    "and their overlap, its events and its friction's energy, per stop its events\n"
    "(the reference re-run at the candidate's times as for the element; their bodies,\n"
    "contacts and stops must be the same).  With --fmu, a system's reference is\n"
    "compared in the same way with the FMU standing for the system (its outputs\n"
    "x[BODY], v[BODY], friction[CONTACT]; stops are not compared).\n"
    "exit codes: 0 ok, 2 bad input (file, line and column named), 3 the reference's\n"
    "re-run failed, 1 the report could not be written\n";
static const stsl_cli_cmd cmd = {"stickslip compare", usage};

typedef struct cmp_args {
    const char *reference, *candidate, *output;
    const char *columns_given;           /* --columns as given (NULL: the default) */
    double stuck_velocity, event_window; /* < 0: default */
    stsl_cli_fmu fmu;                    /* fmu.path: the candidate is an FMU */
    double step;                         /* its communication step (--step) */
} cmp_args;

static int arg_error(const char *fmt, const char *arg)
{
    return stsl_cli_usage_error(&cmd, fmt, arg);
}

static int parse_positive(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(*out) || *out < 0) {
        stsl_cli_error(&cmd, "%s: not a number >= 0: '%s'", opt, s);
        return 2;
    }
    return 0;
}

static int parse_columns(cmp_args *a, const char *s)
{
    (void)a;
    stsl_err err = {0};
    if (stsl_compare_columns(s, &err)) return arg_error("%s", err.message);
    return 0;
}

/* With --fmu: REFERENCE only, and a step > 0. */
static int fmu_args(int argc, char **argv, cmp_args *a)
{
    if (optind != argc - 1) return arg_error("with --fmu, expected REFERENCE.h5 only%s", "");
    if (!(a->step > 0.0)) return arg_error("--fmu needs --step H (> 0, s)%s", "");
    if (a->columns_given) return arg_error("--columns %s: not with --fmu", a->columns_given);
    a->reference = argv[optind];
    a->candidate = a->fmu.path;
    return 0;
}

static int parse_args(int argc, char **argv, cmp_args *a)
{
    static const struct option longopts[] = {{"columns", required_argument, NULL, 'c'},
                                             {"stuck-velocity", required_argument, NULL, 's'},
                                             {"event-window", required_argument, NULL, 'w'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"step", required_argument, NULL, 'H'},
                                             STSL_CLI_FMU_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->stuck_velocity = a->event_window = -1.0;
    int rc = parse_columns(a, "t,x,v");
    optind = 1;
    opterr = 0;
    int c;
    while (!rc && (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            a->columns_given = optarg;
            rc = parse_columns(a, optarg);
            break;
        case 's':
            rc = parse_positive("--stuck-velocity", optarg, &a->stuck_velocity);
            break;
        case 'w':
            rc = parse_positive("--event-window", optarg, &a->event_window);
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'h':
            return stsl_cli_help(&cmd);
        STSL_CLI_FMU_CASES:
            rc = stsl_cli_fmu_option(&cmd, &a->fmu, c, optarg);
            break;
        case 'H':
            rc = parse_positive("--step", optarg, &a->step);
            break;
        default:
            return arg_error("unknown or incomplete option: %s", argv[optind - 1]);
        }
    }
    if (rc) return rc;
    if (a->fmu.path) return fmu_args(argc, argv, a);
    if (optind != argc - 2) return arg_error("expected REFERENCE.h5 and CANDIDATE%s", "");
    a->reference = argv[optind];
    a->candidate = argv[optind + 1];
    return 0;
}

/* Each line of `text` as a warning on stderr. */
static void print_warnings(const char *text)
{
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        int n = nl ? (int)(nl - p) : (int)strlen(p);
        fprintf(stderr, "%s: warning: %.*s\n", cmd.prefix, n, p);
        p += n + (nl != NULL);
    }
}

int stsl_cli_compare(int argc, char **argv)
{
    cmp_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    char module[4200];
    stsl_compare_files f = {
        .reference = a.reference,
        .candidate = a.candidate,
        .columns = a.columns_given,
        .stuck_velocity = a.stuck_velocity,
        .event_window = a.event_window,
        STSL_CLI_FMU_FIELDS(a.fmu, module),
        .fmu_step = a.step,
        .json = a.output,
    };
    char *text = NULL, *warnings = NULL;
    stsl_err err = {0};
    rc = stsl_compare_files_run(&f, &text, &warnings, &err);
    print_warnings(warnings);
    if (text) fputs(text, stdout);
    stsl_free(text);
    stsl_free(warnings);
    if (rc && f.usage) return arg_error("%s", err.message);
    if (rc) return stsl_cli_fail_err(&cmd, &err);
    if (a.output) printf("\nreport: %s\n", a.output);
    return 0;
}
