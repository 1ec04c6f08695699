/* bench_process.c - what a user waits for: the CPU time of whole processes.
 * Times, interleaved in one invocation, `/bin/true` (the cost of any
 * process), bench_plain_once (the Janecek case as a plain CVODE Adams loop
 * at the example's tolerances, without output, linked with SUNDIALS' static
 * archives only: the floor), `stickslip --version` (start-up and exit) and
 * `stickslip run examples/janecek_chirp.yaml -o OUT.h5` (the example's
 * samples, HDF5 output).  Each round runs every command once, in an order
 * rotated from round to round so that all see the same load; the cost of a
 * run is the child's user + system CPU time (getrusage RUSAGE_CHILDREN).  Prints per command
 * the median over the rounds and its ratio to the floor, and the median
 * over rounds of the ratio within a round.
 *
 * More executables to compare (e.g. builds with other link options) are
 * given as LABEL=PATH: each adds its --version and run rows.
 *
 * usage: bench_process [--rounds N] [--keep] [LABEL=STICKSLIP]...
 * (defaults: 15 rounds, the build's stickslip; --keep leaves OUT.h5) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CMDS   24
#define MAX_ARGS   8
#define MAX_ROUNDS 101

typedef struct cmd {
    char label[96];
    const char *argv[MAX_ARGS];
    const char *out; /* removed before each run: every run writes a new file */
    double cpu[MAX_ROUNDS];
} cmd;

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "bench_process: %s: %s\n", what, msg);
    exit(1);
}

/* User + system CPU seconds of all waited-for children so far. */
static double children_cpu(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0) die("getrusage", strerror(errno));
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* User + system CPU seconds of one run of c (stdout to /dev/null): the
 * growth of RUSAGE_CHILDREN over it, the only child. */
static double run_once(const cmd *c)
{
    double before = children_cpu();
    if (c->out && unlink(c->out) != 0 && errno != ENOENT) die(c->out, strerror(errno));
    pid_t pid = fork();
    if (pid < 0) die("fork", strerror(errno));
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(126);
        execv(c->argv[0], (char *const *)c->argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid) die("waitpid", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_process: %s failed (status %d):", c->label, status);
        for (int i = 0; c->argv[i]; i++)
            fprintf(stderr, " %s", c->argv[i]);
        fputc('\n', stderr);
        exit(1);
    }
    return children_cpu() - before;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, sizeof *v * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static cmd *add(cmd *c, int *n, const char *label, const char *out)
{
    if (*n == MAX_CMDS) die("usage", "too many executables");
    cmd *k = &c[(*n)++];
    snprintf(k->label, sizeof k->label, "%s", label);
    k->out = out;
    return k;
}

/* The --version and run rows of one stickslip executable. */
static void add_stickslip(cmd *c, int *n, const char *name, const char *exe)
{
    char label[96];
    snprintf(label, sizeof label, "%s --version", name);
    cmd *v = add(c, n, label, NULL);
    v->argv[0] = exe;
    v->argv[1] = "--version";
    snprintf(label, sizeof label, "%s run janecek -o h5", name);
    cmd *r = add(c, n, label, STSL_BENCH_OUT);
    const char *a[] = {exe,  "run",          STSL_SOURCE_DIR "/examples/janecek_chirp.yaml",
                       "-o", STSL_BENCH_OUT, NULL};
    memcpy(r->argv, a, sizeof a);
}

int main(int argc, char **argv)
{
    static cmd c[MAX_CMDS];
    int n = 0, rounds = 15, keep = 0;
    cmd *t = add(c, &n, "/bin/true", NULL);
    t->argv[0] = "/bin/true";
    cmd *p = add(c, &n, "static CVODE-only Adams loop", NULL);
    p->argv[0] = STSL_PLAIN_ONCE;
    int n_exes = 0;
    for (int i = 1; i < argc; i++) {
        char *eq = strchr(argv[i], '=');
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--keep"))
            keep = 1;
        else if (eq && eq != argv[i]) {
            *eq = '\0';
            add_stickslip(c, &n, argv[i], eq + 1);
            n_exes++;
        } else
            die("usage", "bench_process [--rounds N] [--keep] [LABEL=STICKSLIP]...");
    }
    if (rounds < 1 || rounds > MAX_ROUNDS) die("usage", "--rounds: 1..101");
    if (n_exes == 0) add_stickslip(c, &n, "stickslip", STSL_STICKSLIP);
    for (int k = 0; k < n; k++) /* warm the page cache; not counted */
        run_once(&c[k]);
    double ratio[MAX_CMDS][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < n; j++) {
            int k = (j + r) % n;
            c[k].cpu[r] = run_once(&c[k]);
        }
        for (int k = 0; k < n; k++)
            ratio[k][r] = c[k].cpu[r] / c[1].cpu[r];
    }
    if (!keep) unlink(STSL_BENCH_OUT);
    double floor = median(c[1].cpu, rounds);
    printf("process CPU (user + system of the child), median of %d interleaved rounds:\n", rounds);
    printf("  %-40s %10s %10s %12s %12s\n", "command", "ms", "min ms", "x floor", "x in round");
    for (int k = 0; k < n; k++) {
        double m = median(c[k].cpu, rounds), lo = m;
        for (int r = 0; r < rounds; r++)
            lo = c[k].cpu[r] < lo ? c[k].cpu[r] : lo;
        printf("  %-40s %10.3f %10.3f %12.2f %12.2f\n", c[k].label, 1e3 * m, 1e3 * lo, m / floor,
               median(ratio[k], rounds));
    }
    return 0;
}
