/* sweep.c - `stickslip sweep` and `stickslip info` of a study file.
 *
 * Exit codes: 0 every variant ran to t_end; 3 some variants failed (their
 * rows say why); 2 a bad study file, base configuration, --set or
 * argument (nothing written); 1 the study file could not be written;
 * 130 stopped by Ctrl-C (or SIGTERM): the file is left incomplete. */
#define _GNU_SOURCE /* sched_getaffinity: the cores this process may use */
#include "cli/sweep.h"

#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "include/stickslip.h"

#define MAX_JOBS 1024

static const char *const usage =
    "usage: stickslip sweep STUDY.yaml [-o STUDY.h5] [--jobs N] [--resume] [--csv FILE]\n"
    "                       [--set KEY=VALUE]... [--quiet]\n"
    "\n"
    "Run every variant of a study (a base configuration, keys varied over a grid,\n"
    "row by row or a Latin hypercube sample) and write one summary row per variant\n"
    "to an HDF5 study file, in variant order.\n"
    "\n"
    "  -o, --output STUDY.h5  study file (default: results/<study name>.h5)\n"
    "  -j, --jobs N           worker threads (default: the cores available)\n"
    "  --resume               continue an unfinished study file of STUDY.yaml: run\n"
    "                         only the variants it does not hold yet (any other\n"
    "                         existing file is refused; a missing one is started)\n"
    "  --csv FILE             also write the summary as CSV\n"
    "  --set KEY=VALUE        override a key of the base configuration (repeatable)\n"
    "  -q, --quiet            no progress line and no summary\n"
    "  -h, --help             this help\n"
    "\n"
    "Outputs may not be the study file, its base or each other, nor a FIFO,\n"
    "directory or device (--csv may be /dev/null); see docs/output-files.md.\n"
    "\n"
    "exit codes: 0 all variants complete, 3 some failed (each row says why),\n"
    "2 bad study or output, 1 I/O error, 130 interrupted (resume with --resume)\n";

typedef struct sweep_args {
    const char *study, *output, *csv;
    const char *sets[STSL_CLI_MAX_SETS];
    int n_sets, jobs, resume, quiet;
} sweep_args;

/* Set by SIGINT/SIGTERM: stop cleanly (an int, the library's cancel flag:
 * sig_atomic_t is an int on every platform the library builds on). */
static volatile int g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static int cores_available(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* `cmd` names the program in messages (stickslip sweep, stickslip-mpi sweep). */
static int parse(int argc, char **argv, const stsl_cli_cmd *cmd, sweep_args *a)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"jobs", required_argument, NULL, 'j'},
        {"resume", no_argument, NULL, 'r'},       {"csv", required_argument, NULL, 'c'},
        {"set", required_argument, NULL, 's'},    {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->jobs = cores_available();
    optind = 1;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "o:j:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            a->output = optarg;
            break;
        case 'j':
            a->jobs = (int)strtol(optarg, &end, 10);
            if (*end || end == optarg || a->jobs < 1 || a->jobs > MAX_JOBS)
                return stsl_cli_usage_error(
                    cmd, "--jobs: expected a whole number in [1, %d], got %s", MAX_JOBS, optarg);
            break;
        case 'r':
            a->resume = 1;
            break;
        case 'c':
            a->csv = optarg;
            break;
        case 's':
            if (stsl_cli_add_set(cmd, a->sets, &a->n_sets, optarg)) return 2;
            break;
        case 'q':
            a->quiet = 1;
            break;
        case 'h':
            return stsl_cli_help(cmd);
        default:
            return stsl_cli_usage_error(cmd, "unknown or incomplete option: %s", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) return stsl_cli_usage_error(cmd, "expected exactly one study file");
    a->study = argv[optind];
    return 0;
}

static void progress_line(void *ctx, const stsl_study_stats *p)
{
    (void)ctx;
    double rate = p->seconds > 0.0 ? (double)p->n_session / p->seconds : 0.0;
    double eta = rate > 0.0 ? (double)(p->n_runs - p->n_done) / rate : NAN;
    fprintf(stderr, "\rsweep: %ld/%ld (%5.1f%%), %.0f runs/s, ETA %.0f s, %ld failed   ", p->n_done,
            p->n_runs, p->n_runs ? 100.0 * (double)p->n_done / (double)p->n_runs : 100.0, rate,
            isfinite(eta) ? eta : 0.0, p->n_failed);
    fflush(stderr);
}

static void default_output(const char *study, char *buf, size_t n)
{
    const char *base = strrchr(study, '/');
    base = base ? base + 1 : study;
    const char *dot = strrchr(base, '.');
    int len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    snprintf(buf, n, "results/%.*s.h5", len, base);
}

static void install_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* A second Ctrl-C kills at once (the file stays as of its last flush). */
    sa.sa_flags = (int)SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* The failed rows' count and first messages, from the file. */
static void print_failures(const char *name, const char *out, long n_failed)
{
    stsl_study_overview sum;
    if (stsl_study_read_overview(out, &sum, NULL) != STSL_RC_OK) return;
    fprintf(stderr, "%s: %ld variant%s failed; first:\n", name, n_failed, n_failed == 1 ? "" : "s");
    for (int i = 0; i < sum.n_first_failures; i++)
        fprintf(stderr, "  variant %ld: %s\n", sum.failure_index[i], sum.failure_message[i]);
}

int stsl_cli_sweep(int argc, char **argv)
{
    static const stsl_cli_sweep_runner threads = {stsl_study_run_with, 1, "stickslip sweep"};
    return stsl_cli_sweep_with(argc, argv, &threads);
}

int stsl_cli_sweep_with(int argc, char **argv, const stsl_cli_sweep_runner *r)
{
    sweep_args a;
    const stsl_cli_cmd named = {r->name, usage};
    int rc = parse(argc, argv, &named, &a);
    if (rc) return rc < 0 ? 0 : rc;
    char out[4096];
    if (a.output)
        snprintf(out, sizeof out, "%s", a.output);
    else
        default_output(a.study, out, sizeof out);
    if (!r->writer) a.quiet = 1;
    int tty = !a.quiet && isatty(STDERR_FILENO);
    stsl_study_opts o = {.output = out,
                         .jobs = a.jobs,
                         .resume = a.resume,
                         .sets = a.sets,
                         .n_sets = a.n_sets,
                         .csv = a.csv,
                         .progress = tty ? progress_line : NULL,
                         .cancel = &g_stop};
    install_handlers();
    stsl_study_stats p;
    stsl_err err = {0};
    rc = r->run(a.study, &o, &p, &err);
    if (tty) fprintf(stderr, "\n");
    if (rc) return r->writer ? stsl_cli_fail_err(&named, &err) : 0;
    if (!r->writer) return 0;
    if (a.csv && stsl_study_write_csv(out, a.csv, &err)) return stsl_cli_fail_err(&named, &err);
    if (!a.quiet)
        printf("study: %ld variants, %ld done (%ld in %.2f s, %d jobs), %ld failed\noutput: %s\n",
               p.n_runs, p.n_done, p.n_session, p.seconds, a.jobs, p.n_failed, out);
    if (p.n_done < p.n_runs) {
        fprintf(stderr,
                "%s: interrupted: %ld of %ld variants done; continue with "
                "%s %s -o %s --resume\n",
                r->name, p.n_done, p.n_runs, r->name, a.study, out);
        return 130;
    }
    if (p.n_failed) {
        print_failures(r->name, out, p.n_failed);
        return 3;
    }
    return 0;
}

/* ---- info -------------------------------------------------------------------- */

/* One line naming the columns without a value in any completed variant. */
static void print_empty(const stsl_study_overview *s, int empty)
{
    printf("  (%d column%s without a value in any completed variant left out:", empty,
           empty == 1 ? "" : "s");
    for (int j = 0, k = 0; j < s->n_cols; j++)
        if (isnan(s->cols[j].min) && isnan(s->cols[j].max))
            printf("%s %s", k++ ? "," : "", s->cols[j].name);
    printf(")\n");
}

int stsl_cli_study_info(const char *path)
{
    stsl_study_overview s;
    stsl_err err = {0};
    static const stsl_cli_cmd info = {"stickslip info", ""};
    if (stsl_study_read_overview(path, &s, &err)) return stsl_cli_fail_err(&info, &err);
    printf("File:        %s (study, stickslip %s, created %s)\n", path, s.version, s.created);
    if (s.complete)
        printf("Status:      complete\n");
    else
        printf("Status:      INCOMPLETE: %ld of %ld variants done (continue with --resume)\n",
               s.n_done, s.n_runs);
    printf("Variants:    %ld (%s), store: %s\n", s.n_runs, s.combine, s.store);
    printf("Done:        %ld, failed %ld\n", s.n_done, s.n_failed);
    if (!strcmp(s.store, "full"))
        printf("Runs:        %ld results under /runs/NNNNNN (NNNNNN: the variant; invalid "
               "variants have none),\n             each in the layout of a single run "
               "(h5py: f[\"runs/000042\"][\"trajectory/x\"])\n",
               s.n_full_runs);
    for (int i = 0; i < s.n_first_failures; i++)
        printf("  variant %ld: %s\n", s.failure_index[i], s.failure_message[i]);
    printf("Parameters:\n");
    for (int j = 0; j < s.n_keys; j++)
        printf("  %-32s %14.6g .. %-14.6g\n", s.keys[j], s.key_min[j], s.key_max[j]);
    /* 22 wide, wider for a system's longer per-member names. */
    int w = 22;
    for (int j = 0; j < s.n_cols; j++)
        if ((int)strlen(s.cols[j].name) > w) w = (int)strlen(s.cols[j].name);
    printf("Summary of the completed variants:\n  %-*s %14s %14s  %s\n", w, "column", "min", "max",
           "units");
    int empty = 0;
    for (int j = 0; j < s.n_cols; j++) {
        /* A column no completed variant filled (a single element's x_final
           in a system's study, whose values are per body): a row of nan
           says nothing, so it is counted below instead. */
        if (isnan(s.cols[j].min) && isnan(s.cols[j].max)) {
            empty++;
            continue;
        }
        printf("  %-*s %14.6g %14.6g  %s\n", w, s.cols[j].name, s.cols[j].min, s.cols[j].max,
               s.cols[j].units);
    }
    if (empty) print_empty(&s, empty);
    return 0;
}
