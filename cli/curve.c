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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "io/config.h"
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
static double default_vmax(const stsl_friction_params *p)
{
    double scale = 0.0;
    if (stsl_law_is_smooth(p->law))
        scale = stsl_smooth_velocity_scale(p);
    else if (p->law == STSL_LAW_STRIBECK)
        scale = p->stribeck_velocity;
    return scale > 0.0 ? SCALES_SHOWN * scale : 1.0;
}

static double load_at_start(const stsl_signal_spec *spec)
{
    stsl_error err;
    stsl_signal *s = stsl_signal_create(spec, &err);
    double v = s ? stsl_signal_value(s, 0.0, 0) : 0.0;
    stsl_signal_free(s);
    return v;
}

/* The laws to tabulate: the element's one, or every contact of a system
 * (name[k] its column's name; NULL for the element's "force"). */
typedef struct laws {
    int n;
    const stsl_friction_params **p;
    double *load;
    char (*name)[STSL_BODY_NAME_MAX + 16];
    stsl_domain domain;
} laws;

static void laws_free(laws *l)
{
    free(l->p), free(l->load), free(l->name);
    memset(l, 0, sizeof *l);
}

static int laws_of(const stsl_config *cfg, laws *l)
{
    const stsl_system *s = &cfg->system;
    l->n = cfg->is_system ? s->n_contacts : 1;
    l->domain = cfg->is_system ? s->domain : cfg->element.domain;
    l->p = calloc((size_t)l->n + 1, sizeof *l->p);
    l->load = calloc((size_t)l->n + 1, sizeof *l->load);
    l->name = cfg->is_system ? calloc((size_t)l->n + 1, sizeof *l->name) : NULL;
    if (!l->p || !l->load || (cfg->is_system && !l->name)) return -1;
    if (!cfg->is_system) {
        l->p[0] = &cfg->element.friction;
        l->load[0] = load_at_start(&cfg->element.load);
        return 0;
    }
    for (int c = 0; c < l->n; c++) {
        l->p[c] = &s->contacts[c].friction;
        l->load[c] = s->contacts[c].has_load ? load_at_start(&s->contacts[c].load) : 0.0;
        if (s->contacts[c].name[0])
            snprintf(l->name[c], sizeof l->name[c], "%s", s->contacts[c].name);
        else
            snprintf(l->name[c], sizeof l->name[c], "contacts.%d", c);
    }
    return 0;
}

/* The header names each column's unit, as every other table does: a
 * rotational law is a torque against an angular velocity. */
static void curve_header(FILE *f, const laws *l)
{
    int rot = l->domain == STSL_DOMAIN_ROTATIONAL;
    fputs(rot ? "velocity [rad/s]" : "velocity [m/s]", f);
    for (int k = 0; k < l->n; k++) {
        if (l->name)
            fprintf(f, ",force.%s", l->name[k]);
        else
            fputs(",force", f);
        fputs(rot ? " [N·m]" : " [N]", f);
    }
    fputc('\n', f);
}

/* The static bands at zero velocity: (0, -F_S(-1)), then (0, F_S(+1));
 * a smooth law's value there (0) in both. */
static void write_band(FILE *f, const laws *l)
{
    for (int row = 0; row < 2; row++) {
        fputc('0', f);
        for (int k = 0; k < l->n; k++) {
            double fd, fs = 0.0;
            if (!stsl_law_is_smooth(l->p[k]->law))
                stsl_friction_levels(l->p[k], row ? +1 : -1, l->load[k], &fd, &fs);
            fprintf(f, ",%.17g", row ? fs : -fs);
        }
        fputc('\n', f);
    }
}

static void write_curve(FILE *f, const laws *l, double vmin, double vmax, long n)
{
    int hybrid = 0;
    for (int k = 0; k < l->n; k++)
        hybrid |= !stsl_law_is_smooth(l->p[k]->law);
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
        fprintf(f, "%.17g", v);
        for (int k = 0; k < l->n; k++)
            fprintf(f, ",%.17g", stsl_friction_steady(l->p[k], l->load[k], v));
        fputc('\n', f);
    }
}

/* Velocities beyond this make no physical sense and their differences
 * overflow (vmax - vmin = inf gives NaN rows). */
#define CURVE_VLIMIT 1e15

/* The range is bounded and every force of it finite: checked before a
 * byte is written, so a bad range leaves no half table. */
static int check_curve(const laws *l, double vmin, double vmax, long n)
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
        for (int k = 0; k < l->n; k++)
            if (!isfinite(stsl_friction_steady(l->p[k], l->load[k], v))) {
                fprintf(stderr,
                        "stickslip curve: error: the friction force is not finite at velocity "
                        "%g; choose a smaller --vmin/--vmax\n",
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

/* The default range: the widest of the laws'. */
static double widest_vmax(const laws *l)
{
    double v = 0.0;
    for (int k = 0; k < l->n; k++)
        v = fmax(v, default_vmax(l->p[k]));
    return v > 0.0 ? v : 1.0;
}

static int tabulate(const curve_args *a, const stsl_config *cfg, const laws *l)
{
    stsl_error err = {0};
    double vmax =
        a->have_vmax ? a->vmax : (a->have_vmin && a->vmin >= 0 ? a->vmin + 1.0 : widest_vmax(l));
    double vmin = a->have_vmin ? a->vmin : -vmax;
    if (!(vmin < vmax)) {
        stsl_cli_error(&cmd, "--vmin (%g) must be below --vmax (%g)", vmin, vmax);
        return 2;
    }
    int rc = check_curve(l, vmin, vmax, a->n);
    if (!rc && a->output) rc = check_output(cfg, a->output, &err) ? stsl_cli_fail(&cmd, &err) : 0;
    if (rc) return rc;
    /* Standard output's errors are main's to report. */
    stsl_out_text t = {.f = stdout};
    if (a->output && stsl_out_text_open(a->output, &t, &err)) return stsl_cli_fail(&cmd, &err);
    write_curve(t.f, l, vmin, vmax, a->n);
    rc = a->output && stsl_out_text_commit(&t, &err) ? stsl_cli_fail(&cmd, &err) : 0;
    if (!rc && a->output && !cfg->is_system)
        fprintf(stderr, "stickslip curve: wrote %s (%ld velocities, %s)\n", a->output, a->n,
                stsl_law_name(l->p[0]->law));
    else if (!rc && a->output)
        fprintf(stderr, "stickslip curve: wrote %s (%ld velocities, %d contacts)\n", a->output,
                a->n, l->n);
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
    laws l = {0};
    if (laws_of(&cfg, &l))
        rc = stsl_cli_fail(&cmd, (stsl_error_set(&err, STSL_ENOMEM, "out of memory"), &err));
    else if (l.n == 0)
        rc = stsl_cli_error(&cmd, "%s: the system has no contacts: no friction law to tabulate",
                            a.config);
    else
        rc = tabulate(&a, &cfg, &l);
    laws_free(&l);
    stsl_config_free(&cfg);
    return rc;
}
