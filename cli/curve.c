/* curve.c - `stickslip curve CONFIG [-o FILE.csv] [--vmin V --vmax V --n N]`.
 *
 * N evenly spaced velocities from vmin to vmax inclusive, with the law's
 * steady-state force (LuGre: z' = 0).  A hybrid law (coulomb, stribeck) has
 * no single value at zero velocity but the static band: when 0 lies in
 * [vmin, vmax] the curve gets the two rows (0, -F_S(-1)) and (0, F_S(+1))
 * there, so that a plot shows the vertical segment of the stick.  Load-
 * dependent levels use the load at t = 0; the element's damper is not part
 * of the law and is not included. */
#include "cli/curve.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "io/config.h"
#include "io/config_system.h"
#include "io/out_file.h"
#include "io/safe_output.h"
#include "models/friction.h"
#include "models/signal.h"
#include "models/smooth_friction.h"

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
    "t = 0 sets load-dependent levels.\n"
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
static double default_vmax(const stsl_friction_params *p)
{
    double scale = 0.0;
    if (stsl_law_is_smooth(p->law))
        scale = stsl_smooth_velocity_scale(p);
    else if (p->law == STSL_LAW_STRIBECK)
        scale = p->stribeck_velocity;
    return scale > 0.0 ? SCALES_SHOWN * scale : 1.0;
}

static double load_at_start(const stsl_element_params *e)
{
    stsl_error err;
    stsl_signal *s = stsl_signal_create(&e->load, &err);
    double v = s ? stsl_signal_value(s, 0.0, 0) : 0.0;
    stsl_signal_free(s);
    return v;
}

static void write_band(FILE *f, const stsl_friction_params *p, double load)
{
    double fd, fs_pos, fs_neg;
    stsl_friction_levels(p, +1, load, &fd, &fs_pos);
    stsl_friction_levels(p, -1, load, &fd, &fs_neg);
    fprintf(f, "0,%.17g\n0,%.17g\n", -fs_neg, fs_pos);
}

/* The header names each column's unit, as every other table does: a
 * rotational law is a torque against an angular velocity. */
static const char *curve_header(stsl_domain d)
{
    return d == STSL_DOMAIN_ROTATIONAL ? "velocity [rad/s],force [N·m]\n"
                                       : "velocity [m/s],force [N]\n";
}

static void write_curve(FILE *f, const stsl_friction_params *p, stsl_domain d, double load,
                        double vmin, double vmax, long n)
{
    int hybrid = !stsl_law_is_smooth(p->law), band_due = hybrid && vmin <= 0.0 && vmax >= 0.0;
    fputs(curve_header(d), f);
    for (long i = 0; i < n; i++) {
        /* Both ends exact: interpolate from each end, not by accumulation. */
        double v = (i == n - 1) ? vmax : vmin + (vmax - vmin) * (double)i / (double)(n - 1);
        if (band_due && v >= 0.0) {
            write_band(f, p, load);
            band_due = 0;
            if (v == 0.0) continue;
        }
        fprintf(f, "%.17g,%.17g\n", v, stsl_friction_steady(p, load, v));
    }
}

/* Velocities beyond this make no physical sense and their differences
 * overflow (vmax - vmin = inf gives NaN rows). */
#define CURVE_VLIMIT 1e15

/* The range is bounded and every force of it finite: checked before a
 * byte is written, so a bad range leaves no half table. */
static int check_curve(const stsl_friction_params *p, double load, double vmin, double vmax, long n)
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
        if (!isfinite(stsl_friction_steady(p, load, v))) {
            fprintf(stderr,
                    "stickslip curve: error: the friction force is not finite at velocity %g; "
                    "choose a smaller --vmin/--vmax\n",
                    v);
            return 2;
        }
    }
    return 0;
}

/* The output rule: -o is a CSV table, not the configuration or a table
 * it reads. */
static int check_output(const stsl_config *cfg, const char *out, stsl_error *err)
{
    int n_in = 0;
    const char **in = stsl_out_config_inputs(cfg, &n_in);
    if (!in) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    stsl_output_file o = {out, "the curve table", STSL_FMT_CSV, 0, 1};
    int rc = stsl_output_rule(in, n_in, &o, 1, err);
    free(in);
    return rc;
}

int stsl_cli_curve(int argc, char **argv)
{
    curve_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    stsl_config cfg;
    stsl_error err = {0};
    if (stsl_config_load(a.config, a.sets, a.n_sets, &cfg, &err)) return stsl_cli_fail(&cmd, &err);
    if (stsl_config_require_element(&cfg, &err)) {
        stsl_config_free(&cfg);
        return stsl_cli_fail(&cmd, &err);
    }
    const stsl_friction_params *p = &cfg.element.friction;
    double vmax =
        a.have_vmax ? a.vmax : (a.have_vmin && a.vmin >= 0 ? a.vmin + 1.0 : default_vmax(p));
    double vmin = a.have_vmin ? a.vmin : -vmax;
    if (!(vmin < vmax)) {
        stsl_config_free(&cfg);
        stsl_cli_error(&cmd, "--vmin (%g) must be below --vmax (%g)", vmin, vmax);
        return 2;
    }
    double load = load_at_start(&cfg.element);
    rc = check_curve(p, load, vmin, vmax, a.n);
    if (!rc && a.output) rc = check_output(&cfg, a.output, &err) ? stsl_cli_fail(&cmd, &err) : 0;
    if (rc) {
        stsl_config_free(&cfg);
        return rc;
    }
    /* Standard output's errors are main's to report. */
    stsl_out_text t = {.f = stdout};
    if (a.output && stsl_out_text_open(a.output, &t, &err)) {
        stsl_config_free(&cfg);
        return stsl_cli_fail(&cmd, &err);
    }
    write_curve(t.f, p, cfg.element.domain, load, vmin, vmax, a.n);
    rc = a.output && stsl_out_text_commit(&t, &err) ? stsl_cli_fail(&cmd, &err) : 0;
    if (!rc && a.output)
        fprintf(stderr, "stickslip curve: wrote %s (%ld velocities, %s)\n", a.output, a.n,
                stsl_law_name(p->law));
    stsl_config_free(&cfg);
    return rc;
}
