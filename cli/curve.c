/* curve.c - `stickslip curve CONFIG [-o FILE.csv] [--vmin V --vmax V --n N]`.
 *
 * N evenly spaced velocities from vmin to vmax inclusive, with the law's
 * steady-state force (LuGre: z' = 0).  A hybrid law (coulomb, stribeck) has
 * no single value at zero velocity but the static band: when 0 lies in
 * [vmin, vmax] the curve gets the two rows (0, -F_S(-1)) and (0, F_S(+1))
 * there, so that a plot shows the vertical segment of the stick.  Load-
 * dependent levels use the load at t = 0; the element's damper is not part
 * of the law and is not included.  A system of bodies has one curve per
 * contact, a column each named by the contact's name (or contacts.N), on
 * one grid of velocities. */
#include "cli/curve.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "include/stickslip.h"

/* Default range: this many velocity scales of the law on each side. */
#define SCALES_SHOWN   5.0
#define DEFAULT_POINTS 201

static const char *const usage =
    "usage: stickslip curve CONFIG [-o FILE.csv] [--vmin V --vmax V --n N] [--set KEY=VALUE]...\n"
    "\n"
    "Tabulate the friction law of CONFIG: steady-state force (torque) against relative\n"
    "velocity, as CSV with the header 'velocity [m/s],force [N]' (rotational:\n"
    "'velocity [rad/s],force [N·m]').  N evenly spaced velocities\n"
    "from vmin to vmax inclusive; a hybrid law (coulomb, stribeck) adds its static\n"
    "band at zero velocity as the rows (0, -F_S(-1)) and (0, F_S(+1)).  The load at\n"
    "t = 0 sets load-dependent levels.  A system of bodies gets one column per contact,\n"
    "'force.NAME [N]' (NAME: the contact's name, or contacts.N), on one velocity grid\n"
    "spanning all of them.\n"
    "\n"
    "  -o, --output FILE.csv   write here (default: standard output); written whole or\n"
    "                          not at all; a character device (/dev/null) in place\n"
    "  --vmin V, --vmax V      velocity range (default: +-5 velocity scales of the law)\n"
    "  --n N                   number of velocities, >= 2 (default 201)\n"
    "  --set KEY=VALUE         override a configuration key (repeatable)\n"
    "  -h, --help              this help\n";
static const stsl_cli_cmd cmd = {"stickslip curve", usage};

typedef struct curve_args {
    const char *config, *output;
    const char *sets[STSL_CLI_MAX_SETS];
    int n_sets, have_vmin, have_vmax;
    double vmin, vmax;
    long n;
} curve_args;

static int arg_error(const char *what, const char *arg)
{
    return stsl_cli_error(&cmd, "%s%s", what, arg ? arg : "");
}

static int parse_number(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(*out)) {
        stsl_cli_error(&cmd, "%s: not a finite number: '%s'", opt, s);
        return 2;
    }
    return 0;
}

static int parse_args(int argc, char **argv, curve_args *a)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"vmin", required_argument, NULL, 'a'},
                                             {"vmax", required_argument, NULL, 'b'},
                                             {"n", required_argument, NULL, 'n'},
                                             {"set", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->n = DEFAULT_POINTS;
    optind = 1;
    opterr = 0;
    int c, rc = 0;
    double n;
    while (!rc && (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            a->output = optarg;
            break;
        case 'a':
            rc = parse_number("--vmin", optarg, &a->vmin);
            a->have_vmin = 1;
            break;
        case 'b':
            rc = parse_number("--vmax", optarg, &a->vmax);
            a->have_vmax = 1;
            break;
        case 'n':
            rc = parse_number("--n", optarg, &n);
            if (!rc && (n < 2 || n > 1e7 || n != floor(n)))
                rc = arg_error("--n must be a whole number from 2 to 1e7, got ", optarg);
            a->n = (long)n;
            break;
        case 's':
            rc = stsl_cli_add_set(&cmd, a->sets, &a->n_sets, optarg);
            break;
        case 'h':
            return stsl_cli_help(&cmd);
        default:
            return arg_error("unknown or incomplete option: ", argv[optind - 1]);
        }
    }
    if (rc) return rc;
    if (optind != argc - 1) return arg_error("expected exactly one configuration file", NULL);
    a->config = argv[optind];
    return 0;
}

/* +-5 velocity scales of the law, or +-1 (velocity units) when it has none. */
static double default_vmax(const stsl_curve *l, int k)
{
    double scale = stsl_curve_velocity_scale(l, k);
    return scale > 0.0 ? SCALES_SHOWN * scale : 1.0;
}

/* Where the table goes: standard output, or the file of -o. */
typedef struct table_out {
    FILE *f;
    stsl_text_file *t;
} table_out;

static void put(table_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(table_out *o, const char *fmt, ...)
{
    char buf[256]; /* a number, or a contact's column name */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    n = n < 0 ? 0 : n < (int)sizeof buf ? n : (int)sizeof buf - 1;
    if (o->t)
        stsl_text_write(o->t, buf, n);
    else
        fwrite(buf, 1, (size_t)n, o->f);
}

/* The header names each column's unit, as every other table does: a
 * rotational law is a torque against an angular velocity. */
static void curve_header(table_out *f, const stsl_curve *l)
{
    int rot = stsl_curve_rotational(l);
    put(f, "%s", rot ? "velocity [rad/s]" : "velocity [m/s]");
    for (int k = 0; k < stsl_curve_n(l); k++) {
        if (stsl_curve_name(l, k))
            put(f, ",force.%s", stsl_curve_name(l, k));
        else
            put(f, ",force");
        put(f, "%s", rot ? " [N·m]" : " [N]");
    }
    put(f, "\n");
}

/* The static bands at zero velocity: (0, -F_S(-1)), then (0, F_S(+1));
 * a smooth law's value there (0) in both. */
static void write_band(table_out *f, const stsl_curve *l)
{
    for (int row = 0; row < 2; row++) {
        put(f, "0");
        for (int k = 0; k < stsl_curve_n(l); k++) {
            double fs_neg, fs_pos;
            stsl_curve_band(l, k, &fs_neg, &fs_pos);
            put(f, ",%.17g", row ? fs_pos : -fs_neg);
        }
        put(f, "\n");
    }
}

static void write_curve(table_out *f, const stsl_curve *l, double vmin, double vmax, long n)
{
    int hybrid = 0;
    for (int k = 0; k < stsl_curve_n(l); k++)
        hybrid |= stsl_curve_hybrid(l, k);
    int band_due = hybrid && vmin <= 0.0 && vmax >= 0.0;
    curve_header(f, l);
    for (long i = 0; i < n; i++) {
        /* Both ends exact: interpolate from each end, not by accumulation. */
        double v = (i == n - 1) ? vmax : vmin + (vmax - vmin) * (double)i / (double)(n - 1);
        if (band_due && v >= 0.0) {
            write_band(f, l);
            band_due = 0;
            if (v == 0.0) continue;
        }
        put(f, "%.17g", v);
        for (int k = 0; k < stsl_curve_n(l); k++)
            put(f, ",%.17g", stsl_curve_force(l, k, v));
        put(f, "\n");
    }
}

/* Velocities beyond this make no physical sense and their differences
 * overflow (vmax - vmin = inf gives NaN rows). */
#define CURVE_VLIMIT 1e15

/* The range is bounded and every force of it finite: checked before a
 * byte is written, so a bad range leaves no half table. */
static int check_curve(const stsl_curve *l, double vmin, double vmax, long n)
{
    if (!(fabs(vmin) <= CURVE_VLIMIT && fabs(vmax) <= CURVE_VLIMIT)) {
        fprintf(stderr,
                "stickslip curve: error: --vmin %g / --vmax %g outside the allowed range "
                "[-%g, %g]\n",
                vmin, vmax, CURVE_VLIMIT, CURVE_VLIMIT);
        return 2;
    }
    for (long i = 0; i < n; i++) {
        double v = (i == n - 1) ? vmax : vmin + (vmax - vmin) * (double)i / (double)(n - 1);
        for (int k = 0; k < stsl_curve_n(l); k++)
            if (!isfinite(stsl_curve_force(l, k, v))) {
                fprintf(stderr,
                        "stickslip curve: error: the friction force is not finite at velocity "
                        "%g; choose a smaller --vmin/--vmax\n",
                        v);
                return 2;
            }
    }
    return 0;
}

/* The default range: the widest of the laws'. */
static double widest_vmax(const stsl_curve *l)
{
    double v = 0.0;
    for (int k = 0; k < stsl_curve_n(l); k++)
        v = fmax(v, default_vmax(l, k));
    return v > 0.0 ? v : 1.0;
}

static int tabulate(const curve_args *a, const stsl_cfg *cfg, const stsl_curve *l)
{
    stsl_err err = {0};
    double vmax =
        a->have_vmax ? a->vmax : (a->have_vmin && a->vmin >= 0 ? a->vmin + 1.0 : widest_vmax(l));
    double vmin = a->have_vmin ? a->vmin : -vmax;
    if (!(vmin < vmax)) {
        stsl_cli_error(&cmd, "--vmin (%g) must be below --vmax (%g)", vmin, vmax);
        return 2;
    }
    int rc = check_curve(l, vmin, vmax, a->n);
    if (rc) return rc;
    /* The output rule: -o is a CSV table, not the configuration or a table
     * it reads.  Standard output's errors are main's to report. */
    table_out t = {.f = stdout};
    if (a->output && !(t.t = stsl_text_open(a->output, "the curve table", cfg, &err)))
        return stsl_cli_fail_err(&cmd, &err);
    write_curve(&t, l, vmin, vmax, a->n);
    rc = a->output && stsl_text_commit(t.t, &err) ? stsl_cli_fail_err(&cmd, &err) : 0;
    if (!rc && a->output && !stsl_curve_name(l, 0))
        fprintf(stderr, "stickslip curve: wrote %s (%ld velocities, %s)\n", a->output, a->n,
                stsl_curve_law(l, 0));
    else if (!rc && a->output)
        fprintf(stderr, "stickslip curve: wrote %s (%ld velocities, %d contacts)\n", a->output,
                a->n, stsl_curve_n(l));
    return rc;
}

int stsl_cli_curve(int argc, char **argv)
{
    curve_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    stsl_err err = {0};
    stsl_cfg *cfg = stsl_cfg_load_set(a.config, a.sets, a.n_sets, &err);
    if (!cfg) return stsl_cli_fail_err(&cmd, &err);
    stsl_curve *l = stsl_curve_new(cfg, &err);
    if (!l)
        rc = stsl_cli_fail_err(&cmd, &err);
    else if (stsl_curve_n(l) == 0)
        rc = stsl_cli_error(&cmd, "%s: the system has no contacts: no friction law to tabulate",
                            a.config);
    else
        rc = tabulate(&a, cfg, l);
    stsl_curve_free(l);
    stsl_cfg_free(cfg);
    return rc;
}
