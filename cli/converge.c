/* converge.c - `stickslip converge CONFIG --scheme S --steps H1,H2,...`:
 * the arguments, the configuration, and the table printed from the study
 * stsl_converge runs (api/converge.c, which also writes -o and --h5). */
#include "cli/converge.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/fmu_lazy.h"
#include "cli/fmu_opts.h"

#define MAX_STEPS 64

static const char *const usage =
    "usage: stickslip converge CONFIG --scheme S --steps H1,H2,... [-o TABLE.csv] [--h5 OUT.h5]\n"
    "                          [--set KEY=VALUE]...\n"
    "       stickslip converge CONFIG --fmu MODEL.fmu --steps H1,H2,... [--fmu-input N=SIG]...\n"
    "                          [--fmu-output C=NAME]... [--fmu-set N=VALUE]... [-o, --h5]\n"
    "\n"
    "Run the fixed-step scheme S (karnopp, fixed_step_hybrid, smooth_rk4) of CONFIG at\n"
    "each step H (s), and the event-driven reference once, evaluated exactly at the\n"
    "scheme's time points at the configuration's tolerances.  Prints, per step, the\n"
    "max and RMS error of x, the max error of v, the error of x at t_end, the wall time\n"
    "(median of up to 5 runs without output), the RHS (force) evaluations, the events\n"
    "missed and invented against the reference (as compare matches them: same class,\n"
    "closest first, within 5 steps), and the\n"
    "fitted order of convergence; then the reference's own cost; then the max and RMS\n"
    "error of friction and the error of the energy it dissipates (a system's: per\n"
    "contact, after each body's errors).  -o appends these after the column 'order'.\n"
    "\n"
    "  --scheme S          karnopp | fixed_step_hybrid | smooth_rk4\n"
    "  --fmu MODEL.fmu     the candidate is an FMI 2.0 co-simulation FMU stepped at each H\n"
    "                      (fmi2DoStep), its inputs the configuration's signals at each\n"
    "                      communication point, its events seen in its samples (docs/fmu.md)\n"
    "  --fmu-input NAME=SIGNAL   FMU input NAME receives SIGNAL: active_force, load,\n"
    "                      base_position, base_velocity, base_acceleration, anchor_position,\n"
    "                      anchor_velocity (default: the input named like the signal);\n"
    "                      a system's: bodies.BODY.force, contacts.N.load, base_..., anchor_...\n"
    "  --fmu-output C=NAME the FMU's output NAME is the column C: x, v or friction\n"
    "                      (default: the outputs named x, v, friction); a system's:\n"
    "                      x[BODY], v[BODY], friction[CONTACT] (default: so named)\n"
    "  --fmu-set NAME=VALUE      set the FMU's parameter NAME before it starts\n"
    "  --fmu-scheme euler|rk4    a model-exchange FMU, integrated by explicit Euler or\n"
    "                      classical RK4 at each H (its state events at the step points)\n"
    "  --fmu-timeout SECONDS|none  stop a run whose FMU call has not returned after\n"
    "                      SECONDS (exit 3; default 600)\n"
    "  --steps H1,H2,...   at least two distinct steps, each > 0 and <= t_end\n"
    "  -o, --output FILE   also write the table as CSV (whole or not at all)\n"
    "  --h5 FILE           also write it as the HDF5 group /convergence (file created,\n"
    "                      or an existing one gets its /convergence replaced, in a copy\n"
    "                      renamed over it: a failure leaves it as it was)\n"
    "  --set KEY=VALUE     override a configuration key (repeatable)\n"
    "  -h, --help          this help\n";
static const stsl_cli_cmd cmd = {"stickslip converge", usage};

typedef struct conv_args {
    const char *config, *output, *h5, *scheme;
    stsl_cli_fmu fmu; /* fmu.path: the candidate is an FMU */
    char label[4200]; /* "fmu PATH": the candidate's name in the table */
    const char *sets[STSL_CLI_MAX_SETS + 2];
    int n_sets;
    double steps[MAX_STEPS];
    int n_steps;
} conv_args;

static int arg_error(const char *what, const char *arg)
{
    return stsl_cli_error(&cmd, "%s%s", what, arg ? arg : "");
}

/* "1e-2,5e-3": finite numbers > 0, at least two distinct. */
static int parse_steps(const char *s, conv_args *a)
{
    char buf[2048];
    if (strlen(s) >= sizeof buf) return arg_error("--steps: list too long", NULL);
    strcpy(buf, s);
    a->n_steps = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *end;
        errno = 0;
        double h = strtod(tok, &end);
        if (end == tok || *end || errno || !isfinite(h) || !(h > 0.0)) {
            stsl_cli_error(&cmd, "--steps: '%s' is not a step (a number > 0, s)", tok);
            return 2;
        }
        if (a->n_steps == MAX_STEPS) return arg_error("--steps: more than 64 steps", NULL);
        a->steps[a->n_steps++] = h;
    }
    int distinct = 0;
    for (int i = 1; i < a->n_steps; i++)
        distinct |= a->steps[i] != a->steps[0];
    if (!distinct)
        return arg_error("--steps: need at least two distinct steps to fit an order, got ", s);
    return 0;
}

static int parse_args(int argc, char **argv, conv_args *a)
{
    static const struct option longopts[] = {{"scheme", required_argument, NULL, 'S'},
                                             {"steps", required_argument, NULL, 'H'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"h5", required_argument, NULL, '5'},
                                             {"set", required_argument, NULL, 's'},
                                             {"help", no_argument, NULL, 'h'},
                                             STSL_CLI_FMU_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = 0;
    int c, rc = 0, have_steps = 0;
    while (!rc && (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'S':
            a->scheme = optarg;
            break;
        case 'H':
            rc = parse_steps(optarg, a);
            have_steps = 1;
            break;
        case 'o':
            a->output = optarg;
            break;
        case '5':
            a->h5 = optarg;
            break;
        case 's':
            rc = stsl_cli_add_set(&cmd, a->sets, &a->n_sets, optarg);
            break;
        case 'h':
            return stsl_cli_help(&cmd);
        STSL_CLI_FMU_CASES:
            rc = stsl_cli_fmu_option(&cmd, &a->fmu, c, optarg);
            break;
        default:
            return arg_error("unknown or incomplete option: ", argv[optind - 1]);
        }
    }
    if (rc) return rc;
    if (a->fmu.path && a->scheme) return arg_error("--fmu and --scheme exclude each other", NULL);
    if (a->fmu.path) snprintf(a->label, sizeof a->label, "fmu %s", a->fmu.path);
    if (optind != argc - 1) return arg_error("expected exactly one configuration file", NULL);
    a->config = argv[optind];
    if (a->fmu.path) {
        a->scheme = a->label;
        if (have_steps) return 0;
        return arg_error("--steps is required, e.g. --steps 1e-2,5e-3,2.5e-3", NULL);
    }
    if (!a->scheme)
        return arg_error("--scheme is required (karnopp, fixed_step_hybrid, smooth_rk4)", NULL);
    if (strcmp(a->scheme, "karnopp") && strcmp(a->scheme, "fixed_step_hybrid") &&
        strcmp(a->scheme, "smooth_rk4"))
        return arg_error("--scheme must be karnopp, fixed_step_hybrid or smooth_rk4, got ",
                         a->scheme);
    if (!have_steps) return arg_error("--steps is required, e.g. --steps 1e-2,5e-3,2.5e-3", NULL);
    return 0;
}

/* ---- the table, from the study's result ------------------------------------------- */

static const double *col(const stsl_convergence *c, const char *name)
{
    return stsl_convergence_column(c, name);
}

/* A number key of the configuration as its YAML states it; 0 for one that
 * is not a number ("auto"). */
static double cfg_number(const stsl_cfg *cfg, const char *key)
{
    char *v = stsl_cfg_get(cfg, key, NULL), *end = v;
    double d = v ? strtod(v, &end) : 0.0;
    d = end == v ? 0.0 : d;
    stsl_free(v);
    return d;
}

static void print_table(const conv_args *a, const stsl_cfg *cfg, const stsl_convergence *c)
{
    char hx[32], hv[32];
    char atol[32] = "auto";
    const char *xu = stsl_convergence_column_units(c, "max_abs_error_x");
    const char *vu = stsl_convergence_column_units(c, "max_abs_error_v");
    double ref[4];
    static const char *const ref_stat[4] = {"wall_seconds", "rhs_evals", "steps", "events"};
    for (int k = 0; k < 4; k++)
        stsl_convergence_reference(c, ref_stat[k], &ref[k], NULL);
    double atol_value = cfg_number(cfg, "simulation.atol");
    if (atol_value > 0.0) snprintf(atol, sizeof atol, "%g", atol_value);
    printf("converge: %s, scheme %s, reference event_driven at rtol %g, atol %s\n", a->config,
           a->scheme, cfg_number(cfg, "simulation.rtol"), atol);
    printf("errors at every step point%s; events matched as by compare (by class, closest first, "
           "within %g steps)\n\n",
           stsl_convergence_n_bodies(c) ? " (the largest over the bodies)" : "",
           STSL_COMPARE_WINDOW_STEPS);
    snprintf(hx, sizeof hx, "[%s]", xu);
    snprintf(hv, sizeof hv, "[%s]", vu);
    printf("%10s  %13s  %13s  %13s  %13s  %10s  %10s  %6s  %6s  %8s\n", "step", "max|x err|",
           "rms x err", "max|v err|", "final x err", "wall", "RHS", "events", "missed", "invented");
    printf("%10s  %13s  %13s  %13s  %13s  %10s  %10s  %6s  %6s  %8s\n", "[s]", hx, hx, hv, hx,
           "[s]", "evals", "", "", "");
    const double *h = col(c, "step"), *mx = col(c, "max_abs_error_x"), *rx = col(c, "rms_error_x"),
                 *mv = col(c, "max_abs_error_v"), *fx = col(c, "final_error_x"),
                 *w = col(c, "wall_seconds"), *rhs = col(c, "rhs_evals"), *ev = col(c, "events"),
                 *mi = col(c, "events_missed"), *sp = col(c, "events_spurious");
    for (int i = 0; i < stsl_convergence_n_steps(c); i++)
        printf("%10.4g  %13.6g  %13.6g  %13.6g  %13.6g  %10.4g  %10ld  %6ld  %6ld  %8ld\n", h[i],
               mx[i], rx[i], mv[i], fx[i], w[i], (long)rhs[i], (long)ev[i], (long)mi[i],
               (long)sp[i]);
    int used;
    double order = stsl_convergence_order(c, "max_abs_error_x", &used);
    printf("\nfitted order (slope of log max|x err| against log step, %d points): %.3f\n", used,
           order);
    printf("reference cost (event_driven, no output): wall %.4g s, %ld RHS evaluations, %ld "
           "steps, %ld events\n",
           ref[0], (long)ref[1], (long)ref[2], (long)ref[3]);
}

/* Column `what` of member `name` ("max_abs_error_x.motor"). */
static const double *member_col(const stsl_convergence *c, const char *what, const char *name)
{
    char key[256];
    snprintf(key, sizeof key, "%s.%s", what, name);
    return col(c, key);
}

static const char *const contact_cols[4] = {"max_abs_error_friction", "rms_error_friction",
                                            "stuck_iou", "dissipated_energy_error"};

/* One contact's rows of the friction errors (NULL name: the element's
 * columns, which have no contact suffix); NaN is printed as n/a, not
 * measured (an FMU without a friction output). */
static void print_contact(const stsl_convergence *c, const char *label, const char *name,
                          const int *which, int n_which)
{
    const double *h = col(c, "step"), *p[4];
    for (int j = 0; j < n_which; j++)
        p[j] = name ? member_col(c, contact_cols[which[j]], name) : col(c, contact_cols[which[j]]);
    for (int i = 0; i < stsl_convergence_n_steps(c); i++) {
        printf("%-16s  %10.4g", i ? "" : label, h[i]);
        for (int j = 0; j < n_which; j++)
            if (isnan(p[j][i]))
                printf("  %13s", "n/a");
            else
                printf("  %13.6g", p[j][i]);
        putchar('\n');
    }
}

/* The friction block's header: the columns `which` of contact_cols. */
static void print_contact_header(const char *first, const char *funits, const int *which,
                                 int n_which)
{
    static const char *const title[4] = {"max|F err|", "rms F err", "stuck IoU", "energy err"};
    char hf[32];
    snprintf(hf, sizeof hf, "[%s]", funits);
    const char *units[4] = {hf, hf, "", "[J]"};
    printf("\n%-16s  %10s", first, "step [s]");
    for (int j = 0; j < n_which; j++)
        printf("  %13s", title[which[j]]);
    printf("\n%-16s  %10s", "", "");
    for (int j = 0; j < n_which; j++) /* N·m: fewer columns than bytes */
        printf("  %*s", stsl_field_width(units[which[j]], 13), units[which[j]]);
    putchar('\n');
}

/* The element's friction and dissipated-energy errors, after the table
 * (the columns its files carry). */
static void print_element_friction(const stsl_convergence *c)
{
    static const int which[3] = {0, 1, 3};
    print_contact_header("", stsl_convergence_column_units(c, "max_abs_error_friction"), which, 3);
    print_contact(c, "friction", NULL, which, 3);
}

/* A system's errors per body and per contact, after the table. */
static void print_parts(const stsl_convergence *c)
{
    static const char *const body[4] = {"max_abs_error_x", "rms_error_x", "max_abs_error_v",
                                        "final_error_x"};
    static const int all[4] = {0, 1, 2, 3};
    char hx[32], hv[32], fu[32] = "";
    int n = stsl_convergence_n_steps(c);
    const double *h = col(c, "step");
    const char *c0 = stsl_convergence_contact(c, 0);
    snprintf(hx, sizeof hx, "[%s]", stsl_convergence_column_units(c, "max_abs_error_x"));
    snprintf(hv, sizeof hv, "[%s]", stsl_convergence_column_units(c, "max_abs_error_v"));
    if (c0) {
        char key[256];
        snprintf(key, sizeof key, "max_abs_error_friction.%s", c0);
        snprintf(fu, sizeof fu, "%s", stsl_convergence_column_units(c, key));
    }
    printf("\n%-16s  %10s  %13s  %13s  %13s  %13s\n", "body", "step [s]", "max|x err|", "rms x err",
           "max|v err|", "final x err");
    printf("%-16s  %10s  %13s  %13s  %13s  %13s\n", "", "", hx, hx, hv, hx);
    for (int b = 0; b < stsl_convergence_n_bodies(c); b++) {
        const char *name = stsl_convergence_body(c, b);
        const double *p[4];
        for (int j = 0; j < 4; j++)
            p[j] = member_col(c, body[j], name);
        for (int i = 0; i < n; i++)
            printf("%-16s  %10.4g  %13.6g  %13.6g  %13.6g  %13.6g\n", i ? "" : name, h[i], p[0][i],
                   p[1][i], p[2][i], p[3][i]);
        printf("%-16s  fitted order of max|x err|: %.3f\n", "", member_col(c, "order", name)[0]);
    }
    print_contact_header("contact", fu, all, 4);
    for (int k = 0; k < stsl_convergence_n_contacts(c); k++) {
        const char *name = stsl_convergence_contact(c, k);
        print_contact(c, name, name, all, 4);
    }
}

/* The library names its options ("steps: ...", "fmu: ..."); the command
 * names them as options. */
static int fail(const stsl_err *err)
{
    if (strncmp(err->message, "steps: ", 7) && strncmp(err->message, "fmu: ", 5))
        return stsl_cli_fail_err(&cmd, err);
    stsl_err e = *err;
    e.message[0] = e.message[1] = '-';
    memcpy(e.message + 2, err->message, sizeof e.message - 3);
    e.message[sizeof e.message - 1] = '\0';
    return stsl_cli_fail_err(&cmd, &e);
}

int stsl_cli_converge(int argc, char **argv)
{
    conv_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc < 0 ? 0 : rc;
    /* The scheme and a step are set like any key when the file is read, so
     * that the file's other keys are validated against them (a
     * karnopp_band with another scheme, a hybrid-only scheme on a smooth
     * law); the smallest step stands in for all of them there. */
    char scheme_set[96], step_set[64];
    double hmin = INFINITY;
    for (int i = 0; i < a.n_steps; i++)
        hmin = fmin(hmin, a.steps[i]);
    /* a.scheme is one of parse_args' three names here (an FMU's label,
     * which can be long, is never set): the precision says so. */
    snprintf(scheme_set, sizeof scheme_set, "simulation.scheme=%.32s", a.scheme);
    snprintf(step_set, sizeof step_set, "simulation.step=%.17g", hmin);
    if (!a.fmu.path) { /* an FMU's own scheme is not the configuration's */
        a.sets[a.n_sets++] = scheme_set;
        a.sets[a.n_sets++] = step_set;
    }
    stsl_err err = {0};
    stsl_cfg *cfg = stsl_cfg_load_set(a.config, a.sets, a.n_sets, &err);
    if (!cfg) {
        /* The step set above is ours, not the user's: name --steps. */
        const char *why =
            strstr(err.message, step_set) ? strstr(err.message, "simulation.step: ") : NULL;
        if (why)
            return stsl_cli_error(&cmd, "--steps: %g: %s", hmin, why + strlen("simulation.step: "));
        return stsl_cli_fail_err(&cmd, &err);
    }
    char module[4200];
    stsl_converge_opts o = {
        .scheme = a.fmu.path ? NULL : a.scheme,
        STSL_CLI_FMU_FIELDS(a.fmu, module),
        .steps = a.steps,
        .n_steps = a.n_steps,
        .csv = a.output,
        .h5 = a.h5,
    };
    stsl_convergence *c = NULL;
    rc = stsl_converge(cfg, &o, &c, &err);
    /* A result whose files failed is still printed, then the failure. */
    if (c) {
        print_table(&a, cfg, c);
        if (stsl_convergence_n_bodies(c))
            print_parts(c);
        else
            print_element_friction(c);
    }
    stsl_convergence_free(c);
    stsl_cfg_free(cfg);
    return rc ? fail(&err) : 0;
}
