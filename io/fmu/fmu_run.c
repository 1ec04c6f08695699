/* fmu_run.c - mapping an FMU onto the element's signals and driving it in
 * a child process (see fmu_run.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "io/fmu/fmu_run.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "physics/contact.h"
#include "physics/modes.h"
#include "io/fmu/fmi2.h"
#include "models/one_body.h"
#include "run/validation.h"

/* ---- signals ----------------------------------------------------------------- */

enum { SIG_FA, SIG_LOAD, SIG_XB, SIG_VB, SIG_AB, SIG_XA, SIG_VA, N_SIGS };
static const char *const sig_names[N_SIGS] = {
    "active_force",    "load",           "base_position", "base_velocity", "base_acceleration",
    "anchor_position", "anchor_velocity"};
/* The output column whose unit each signal has. */
static const int sig_col[N_SIGS] = {STSL_COL_FRICTION, STSL_COL_FRICTION, STSL_COL_X, STSL_COL_V,
                                    STSL_COL_A,        STSL_COL_X,        STSL_COL_V};

enum { OUT_X, OUT_V, OUT_F, N_OUTS };
static const char *const out_names[N_OUTS] = {"x", "v", "friction"};
static const int out_col[N_OUTS] = {STSL_COL_X, STSL_COL_V, STSL_COL_FRICTION};

typedef struct fmu_set {
    const stsl_fmu_var *var;
    double value;
} fmu_set;

struct stsl_fmu {
    stsl_fmu_model m;
    int rk4; /* model exchange: RK4, else explicit Euler */
    stsl_element_params p;
    char units[STSL_N_COLS][32];
    int n_in;
    const stsl_fmu_var *in_var[STSL_FMU_MAX_MAP];
    int in_sig[STSL_FMU_MAX_MAP];
    const stsl_fmu_var *out_var[N_OUTS]; /* friction may be NULL */
    int n_sets;
    fmu_set sets[STSL_FMU_MAX_MAP];
    /* A system of bodies (NULL: the element): its nb bodies and nc
     * contacts, a sample record's w doubles (t, then x, v of each body,
     * friction and slip velocity of each contact), the outputs (x, v of
     * each body, friction of each contact: NULL when it has none) and the
     * members as its columns name them (bodies, then contacts). */
    const stsl_system *sys;
    int nb, nc, w;
    double timeout; /* s a call into the FMU may take (INFINITY: no limit) */
    const stsl_fmu_var **sys_out;
    char (*member)[STSL_BODY_NAME_MAX + 16];
};

/* A system's signals: the force on each body, the load of each contact,
 * then base_position ... anchor_velocity (sig_names from SIG_XB on). */
#define SYS_FIXED (N_SIGS - SIG_XB)

static int sig_unit_col(const stsl_fmu *f, int sig)
{
    if (!f->sys) return sig_col[sig];
    return sig < f->nb + f->nc ? STSL_COL_FRICTION : sig_col[SIG_XB + sig - f->nb - f->nc];
}

static void sig_name(const stsl_fmu *f, int sig, char *buf, size_t size)
{
    if (!f->sys)
        snprintf(buf, size, "%s", sig_names[sig]);
    else if (sig < f->nb)
        snprintf(buf, size, "bodies.%s.force", f->sys->bodies[sig].name);
    else if (sig < f->nb + f->nc)
        snprintf(buf, size, "contacts.%d.load", sig - f->nb);
    else
        snprintf(buf, size, "%s", sig_names[SIG_XB + sig - f->nb - f->nc]);
}

/* "m/s^2" = "m/s2", "N·m" = "N*m" = "N.m". */
static void norm_unit(const char *u, char *out, size_t size)
{
    size_t k = 0;
    for (; *u && k + 1 < size; u++) {
        if (*u == '^' || *u == ' ') continue;
        if (*u == '*') {
            out[k++] = '.';
        } else if ((unsigned char)u[0] == 0xc2 && (unsigned char)u[1] == 0xb7) { /* U+00B7 */
            out[k++] = '.';
            u++;
        } else {
            out[k++] = *u;
        }
    }
    out[k] = '\0';
}

static int check_unit(const stsl_fmu *f, const stsl_fmu_var *v, int col, const char *what,
                      stsl_error *err)
{
    char a[64], b[64];
    if (!v->unit[0]) return STSL_OK;
    norm_unit(v->unit, a, sizeof a);
    norm_unit(f->units[col], b, sizeof b);
    if (!strcmp(a, b)) return STSL_OK;
    return stsl_error_set(err, STSL_EINPUT,
                          "%s: modelDescription.xml:%d: variable '%s' has unit '%s', but %s is "
                          "in %s",
                          f->m.path, v->line, v->name, v->unit, what, f->units[col]);
}

static int find_var(const stsl_fmu *f, const char *name, const char *opt, const stsl_fmu_var **out,
                    stsl_error *err)
{
    *out = stsl_fmu_model_find(&f->m, name);
    if (*out) return STSL_OK;
    return stsl_error_set(err, STSL_EINPUT,
                          "%s: %s: unknown variable '%s' (not in "
                          "modelDescription.xml)",
                          f->m.path, opt, name);
}

static int need(const stsl_fmu *f, const stsl_fmu_var *v, const char *opt, int ok_causality,
                const char *wanted, stsl_error *err)
{
    if (!ok_causality)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: %s: variable '%s' has causality %s (modelDescription.xml:%d), "
                              "need %s",
                              f->m.path, opt, v->name, stsl_fmu_causality_name(v->causality),
                              v->line, wanted);
    if (v->type != STSL_FMU_REAL && strcmp(wanted, "a parameter or input"))
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: %s: variable '%s' is of type %s (modelDescription.xml:%d), "
                              "need Real",
                              f->m.path, opt, v->name, stsl_fmu_type_name(v->type), v->line);
    return STSL_OK;
}

/* "NAME=VALUE" split at the first '='. */
static int split(const char *kv, const char *opt, char *name, size_t size, const char **value,
                 stsl_error *err)
{
    const char *eq = strchr(kv, '=');
    *value = eq ? eq + 1 : ""; /* set on every path: callers test rc, not it */
    if (!eq || eq == kv || !eq[1] || (size_t)(eq - kv) >= size)
        return stsl_error_set(err, STSL_EINPUT, "%s: expected NAME=VALUE, got '%s'", opt, kv);
    snprintf(name, size, "%.*s", (int)(eq - kv), kv);
    return STSL_OK;
}

/* A contact by its member name, its index "N" or "contacts.N"; -1: none. */
static int contact_index(const stsl_fmu *f, const char *s)
{
    for (int c = 0; c < f->nc; c++)
        if (!strcmp(s, f->member[f->nb + c])) return c;
    const char *num = !strncmp(s, "contacts.", 9) ? s + 9 : s;
    char *end;
    long c = strtol(num, &end, 10);
    return *num >= '0' && *num <= '9' && !*end && c < f->nc ? (int)c : -1;
}

static int signal_index(const stsl_fmu *f, const char *s)
{
    if (!f->sys) {
        for (int i = 0; i < N_SIGS; i++)
            if (!strcmp(s, sig_names[i])) return i;
        return -1;
    }
    for (int i = 0; i < SYS_FIXED; i++)
        if (!strcmp(s, sig_names[SIG_XB + i])) return f->nb + f->nc + i;
    size_t n = strlen(s);
    if (!strncmp(s, "bodies.", 7) && n > 13 && !strcmp(s + n - 6, ".force")) {
        char body[STSL_BODY_NAME_MAX + 1];
        snprintf(body, sizeof body, "%.*s", (int)(n - 13), s + 7);
        return n - 13 <= STSL_BODY_NAME_MAX ? stsl_system_body(f->sys, body) : -1;
    }
    if (!strncmp(s, "contacts.", 9) && n > 14 && !strcmp(s + n - 5, ".load")) {
        char contact[STSL_BODY_NAME_MAX + 1];
        snprintf(contact, sizeof contact, "%.*s", (int)(n - 14), s + 9);
        int c = n - 14 <= STSL_BODY_NAME_MAX ? contact_index(f, contact) : -1;
        return c < 0 ? -1 : f->nb + c;
    }
    return -1;
}

static int map_input(stsl_fmu *f, const stsl_fmu_var *v, int sig, const char *opt, stsl_error *err)
{
    for (int i = 0; i < f->n_in; i++)
        if (f->in_var[i] == v) {
            f->in_sig[i] = sig; /* an explicit mapping replaces the default by name */
            return STSL_OK;
        }
    int rc = need(f, v, opt, v->causality == STSL_FMU_INPUT, "input", err);
    char what[STSL_BODY_NAME_MAX + 32];
    sig_name(f, sig, what, sizeof what);
    if (!rc) rc = check_unit(f, v, sig_unit_col(f, sig), what, err);
    if (rc) return rc;
    if (f->n_in == STSL_FMU_MAX_MAP)
        return stsl_error_set(err, STSL_EINPUT, "%s: more than %d inputs", f->m.path,
                              STSL_FMU_MAX_MAP);
    f->in_var[f->n_in] = v;
    f->in_sig[f->n_in++] = sig;
    return STSL_OK;
}

static int map_inputs(stsl_fmu *f, const stsl_fmu_opts *o, stsl_error *err)
{
    int rc = STSL_OK;
    for (int i = 0; !rc && i < o->n_inputs; i++) {
        char name[256];
        const char *sig, *opt = "--fmu-input";
        const stsl_fmu_var *v = NULL;
        rc = split(o->inputs[i], opt, name, sizeof name, &sig, err);
        if (!rc) rc = find_var(f, name, opt, &v, err);
        int s = rc ? -1 : signal_index(f, sig);
        if (!rc && s < 0)
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s: --fmu-input %s: unknown signal '%s' (%s, base_position, "
                                "base_velocity, base_acceleration, anchor_position, "
                                "anchor_velocity)",
                                f->m.path, o->inputs[i], sig,
                                f->sys ? "bodies.BODY.force, contacts.N.load"
                                       : "active_force, load");
        if (!rc) rc = map_input(f, v, s, opt, err);
    }
    /* Every other input by its name, or it is left without a signal. */
    for (int k = 0; !rc && k < f->m.n_vars; k++) {
        const stsl_fmu_var *v = &f->m.vars[k];
        int mapped = 0;
        for (int i = 0; i < f->n_in; i++)
            mapped |= f->in_var[i] == v;
        if (v->causality != STSL_FMU_INPUT || mapped) continue;
        int s = signal_index(f, v->name);
        if (s < 0)
            return stsl_error_set(err, STSL_EINPUT,
                                  "%s: input '%s' of the FMU receives no signal: map it with "
                                  "--fmu-input %s=SIGNAL",
                                  f->m.path, v->name, v->name);
        rc = map_input(f, v, s, "input", err);
    }
    return rc;
}

/* A system output's slot from "x[BODY]", "v[BODY]" or
 * "friction[CONTACT]": x, v of each body, then friction of each contact. */
static int sys_slot(const stsl_fmu *f, const char *what, const char *arg, int *slot,
                    stsl_error *err)
{
    size_t n = strlen(what);
    const char *lb = strchr(what, '[');
    int g = 0;
    while (g < N_OUTS && !(lb && (size_t)(lb - what) == strlen(out_names[g]) &&
                           !strncmp(what, out_names[g], strlen(out_names[g]))))
        g++;
    if (g == N_OUTS || what[n - 1] != ']' || lb + 2 >= what + n)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: --fmu-output %s: '%s' is not x[BODY], v[BODY] or "
                              "friction[CONTACT] (the configuration is a system of bodies)",
                              f->m.path, arg, what);
    char mem[STSL_BODY_NAME_MAX + 16];
    snprintf(mem, sizeof mem, "%.*s", (int)(what + n - 2 - lb), lb + 1);
    int b = g < OUT_F ? stsl_system_body(f->sys, mem) : contact_index(f, mem);
    if (b >= 0) {
        *slot = g == OUT_X ? b : g == OUT_V ? f->nb + b : 2 * f->nb + b;
        return STSL_OK;
    }
    char list[512] = "";
    int first = g < OUT_F ? 0 : f->nb, count = g < OUT_F ? f->nb : f->nc;
    for (int i = 0; i < count; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 f->member[first + i]);
    return stsl_error_set(err, STSL_EINPUT,
                          "%s: --fmu-output %s: the configuration has no %s '%s' (its %s: %s)",
                          f->m.path, arg, g < OUT_F ? "body" : "contact", mem,
                          g < OUT_F ? "bodies" : "contacts", count ? list : "none");
}

/* A system's outputs: each slot's variable, named by --fmu-output or by
 * its column's name. */
static int map_sys_outputs(stsl_fmu *f, const stsl_fmu_opts *o, stsl_error *err)
{
    int n = 2 * f->nb + f->nc, rc = STSL_OK;
    const char **given = calloc((size_t)n, sizeof *given);
    if (!given) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    for (int i = 0; !rc && i < o->n_outputs; i++) {
        char what[STSL_BODY_NAME_MAX + 32];
        const char *name;
        int slot = 0;
        rc = split(o->outputs[i], "--fmu-output", what, sizeof what, &name, err);
        if (!rc) rc = sys_slot(f, what, o->outputs[i], &slot, err);
        if (!rc) given[slot] = name;
    }
    for (int k = 0; !rc && k < n; k++) {
        int g = k < f->nb ? OUT_X : k < 2 * f->nb ? OUT_V : OUT_F;
        char col[STSL_BODY_NAME_MAX + 32];
        snprintf(col, sizeof col, "%s[%s]", out_names[g],
                 f->member[g == OUT_X   ? k
                           : g == OUT_V ? k - f->nb
                                        : k - f->nb]);
        const char *name = given[k] ? given[k] : col;
        const stsl_fmu_var *v = stsl_fmu_model_find(&f->m, name);
        if (!v && g == OUT_F && !given[k]) continue; /* friction is optional */
        if (!v) {
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s: no output '%s' for %s: name the FMU's output with "
                                "--fmu-output %s=NAME",
                                f->m.path, name, col, col);
            break;
        }
        int ok = v->causality == STSL_FMU_OUTPUT || v->causality == STSL_FMU_LOCAL;
        rc = need(f, v, "--fmu-output", ok, "output", err);
        if (!rc) rc = check_unit(f, v, out_col[g], col, err);
        f->sys_out[k] = v;
    }
    free(given);
    return rc;
}

static int map_outputs(stsl_fmu *f, const stsl_fmu_opts *o, stsl_error *err)
{
    if (f->sys) return map_sys_outputs(f, o, err);
    const char *names[N_OUTS] = {"x", "v", "friction"};
    for (int i = 0; i < o->n_outputs; i++) {
        char what[64];
        const char *name;
        int rc = split(o->outputs[i], "--fmu-output", what, sizeof what, &name, err);
        if (rc) return rc;
        int k = 0;
        while (k < N_OUTS && strcmp(what, out_names[k]))
            k++;
        if (k == N_OUTS)
            return stsl_error_set(err, STSL_EINPUT, "--fmu-output %s: '%s' is not x, v or friction",
                                  o->outputs[i], what);
        names[k] = name;
    }
    for (int k = 0; k < N_OUTS; k++) {
        const stsl_fmu_var *v = stsl_fmu_model_find(&f->m, names[k]);
        if (!v && k == OUT_F && names[k] == out_names[k]) continue; /* friction is optional */
        if (!v)
            return stsl_error_set(err, STSL_EINPUT,
                                  "%s: no output '%s' for %s: name the FMU's output with "
                                  "--fmu-output %s=NAME",
                                  f->m.path, names[k], out_names[k], out_names[k]);
        int ok = v->causality == STSL_FMU_OUTPUT || v->causality == STSL_FMU_LOCAL;
        int rc = need(f, v, "--fmu-output", ok, "output", err);
        if (!rc) rc = check_unit(f, v, out_col[k], out_names[k], err);
        if (rc) return rc;
        f->out_var[k] = v;
    }
    return STSL_OK;
}

static int parse_value(const stsl_fmu *f, const stsl_fmu_var *v, const char *s, double *out,
                       stsl_error *err)
{
    if (v->type == STSL_FMU_BOOLEAN) {
        if (!strcmp(s, "true") || !strcmp(s, "1")) return *out = 1.0, STSL_OK;
        if (!strcmp(s, "false") || !strcmp(s, "0")) return *out = 0.0, STSL_OK;
    } else {
        char *end;
        errno = 0;
        *out = strtod(s, &end);
        int whole = v->type != STSL_FMU_INTEGER || (*out == floor(*out) && fabs(*out) < 2e9);
        if (end != s && !*end && !errno && isfinite(*out) && whole) return STSL_OK;
    }
    return stsl_error_set(err, STSL_EINPUT, "%s: --fmu-set %s: '%s' is not a%s value", f->m.path,
                          v->name, s,
                          v->type == STSL_FMU_BOOLEAN   ? " Boolean (true, false)"
                          : v->type == STSL_FMU_INTEGER ? "n Integer"
                                                        : " Real");
}

static int map_sets(stsl_fmu *f, const stsl_fmu_opts *o, stsl_error *err)
{
    for (int i = 0; i < o->n_sets; i++) {
        char name[256];
        const char *val, *opt = "--fmu-set";
        const stsl_fmu_var *v = NULL;
        int rc = split(o->sets[i], opt, name, sizeof name, &val, err);
        if (!rc) rc = find_var(f, name, opt, &v, err);
        int ok = !rc && (v->causality == STSL_FMU_PARAMETER || v->causality == STSL_FMU_INPUT) &&
                 !v->constant;
        if (!rc) rc = need(f, v, opt, ok, "a parameter or input", err);
        if (!rc && v->type != STSL_FMU_REAL && v->type != STSL_FMU_INTEGER &&
            v->type != STSL_FMU_BOOLEAN)
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s: --fmu-set %s: variable of type %s cannot be set (Real, "
                                "Integer or Boolean)",
                                f->m.path, name, stsl_fmu_type_name(v->type));
        if (!rc) rc = parse_value(f, v, val, &f->sets[f->n_sets].value, err);
        if (rc) return rc;
        f->sets[f->n_sets++].var = v;
    }
    return STSL_OK;
}

/* A system's sizes, members (as its columns name them) and units. */
static int open_system(stsl_fmu *f, const stsl_system *s)
{
    f->sys = s;
    f->nb = s->n_bodies, f->nc = s->n_contacts;
    f->w = 1 + 2 * f->nb + 2 * f->nc;
    f->sys_out = calloc((size_t)(2 * f->nb + f->nc + 1), sizeof *f->sys_out);
    f->member = calloc((size_t)(f->nb + f->nc), sizeof *f->member);
    if (!f->sys_out || !f->member) return -1;
    for (int b = 0; b < f->nb; b++)
        snprintf(f->member[b], sizeof f->member[b], "%s", s->bodies[b].name);
    for (int c = 0; c < f->nc; c++) /* as the engine names its columns */
        stsl_system_member_name(s, c, f->member[f->nb + c], sizeof f->member[0]);
    int rot = s->domain == STSL_DOMAIN_ROTATIONAL;
    snprintf(f->units[STSL_COL_X], sizeof f->units[0], "%s", rot ? "rad" : "m");
    snprintf(f->units[STSL_COL_V], sizeof f->units[0], "%s", rot ? "rad/s" : "m/s");
    snprintf(f->units[STSL_COL_A], sizeof f->units[0], "%s", rot ? "rad/s^2" : "m/s^2");
    snprintf(f->units[STSL_COL_FRICTION], sizeof f->units[0], "%s", rot ? "N·m" : "N");
    return 0;
}

int stsl_fmu_open(const stsl_fmu_opts *o, const stsl_element_params *p, stsl_fmu **out,
                  stsl_error *err)
{
    *out = NULL;
    stsl_fmu *f = calloc(1, sizeof *f);
    if (!f) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    f->p = *p;
    f->w = 4;
    f->timeout = o->timeout == 0.0 ? STSL_FMU_TIMEOUT_DEFAULT : o->timeout;
    if (o->system && open_system(f, o->system)) {
        stsl_fmu_close(f);
        return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    }
    /* The element's units from its model; a system's are set above. */
    stsl_one_body *el = o->system ? NULL : stsl_one_body_create(p, err);
    int me = o->scheme != NULL, rc = STSL_OK;
    if (!(f->timeout > 0.0)) /* NaN too */
        rc =
            stsl_error_set(err, STSL_EINPUT,
                           "--fmu-timeout: %g s is not a time > 0 (or none: no limit)", o->timeout);
    if (!rc && me && strcmp(o->scheme, "euler") && strcmp(o->scheme, "rk4"))
        rc = stsl_error_set(err, STSL_EINPUT, "--fmu-scheme: '%s' is not euler or rk4", o->scheme);
    f->rk4 = me && !strcmp(o->scheme, "rk4");
    if (!rc) rc = el || f->sys ? stsl_fmu_model_open(o->path, me, &f->m, err) : err->code;
    for (int c = 0; el && c < STSL_N_COLS - 1; c++)
        snprintf(f->units[c], sizeof f->units[c], "%s",
                 stsl_one_body_model(el)->layout->cols[c].units);
    stsl_one_body_free(el);
    if (!rc) rc = map_inputs(f, o, err);
    if (!rc) rc = map_outputs(f, o, err);
    if (!rc) rc = map_sets(f, o, err);
    if (rc) {
        stsl_fmu_close(f);
        return rc;
    }
    *out = f;
    return STSL_OK;
}

void stsl_fmu_close(stsl_fmu *f)
{
    if (!f) return;
    stsl_fmu_model_close(&f->m);
    free(f->sys_out);
    free(f->member);
    free(f);
}

/* ---- the child: load and drive the FMU ---------------------------------------------- */

/* Records of the pipe: a tag byte, then the payload. */
#define REC_SAMPLE 'S' /* double t, x, v, friction */
#define REC_ERROR  'E' /* int code, int length, the message */
#define REC_DONE   'D' /* long steps, long evaluations, double wall seconds */

typedef struct fmi2_api {
    fmi2GetTypesPlatformTYPE *getTypesPlatform;
    fmi2GetVersionTYPE *getVersion;
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *freeInstance;
    fmi2SetupExperimentTYPE *setupExperiment;
    fmi2EnterInitializationModeTYPE *enterInit;
    fmi2ExitInitializationModeTYPE *exitInit;
    fmi2TerminateTYPE *terminate;
    fmi2GetRealTYPE *getReal;
    fmi2SetRealTYPE *setReal;
    fmi2SetIntegerTYPE *setInteger;
    fmi2SetBooleanTYPE *setBoolean;
    fmi2DoStepTYPE *doStep;
    fmi2SetRealInputDerivativesTYPE *setRealInputDerivatives; /* canInterpolateInputs only */
    /* model exchange */
    fmi2EnterEventModeTYPE *enterEventMode;
    fmi2NewDiscreteStatesTYPE *newDiscreteStates;
    fmi2EnterContinuousTimeModeTYPE *enterContinuousTimeMode;
    fmi2CompletedIntegratorStepTYPE *completedIntegratorStep;
    fmi2SetTimeTYPE *setTime;
    fmi2SetContinuousStatesTYPE *setContinuousStates;
    fmi2GetDerivativesTYPE *getDerivatives;
    fmi2GetEventIndicatorsTYPE *getEventIndicators;
    fmi2GetContinuousStatesTYPE *getContinuousStates;
} fmi2_api;

static void put_now(int fd, const void *p, size_t n)
{
    const char *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(4); /* the parent is gone */
        b += w;
        n -= (size_t)w;
    }
}

/* Where the child is, in memory shared with the parent: what a crash
 * report names (the pipe's samples are buffered), and the number of calls
 * into the FMU entered so far, the progress the parent's watchdog sees. */
typedef struct where {
    volatile double t;
    volatile char call[48];
    volatile unsigned long calls;
} where;

/* The child's state. */
typedef struct child {
    where *at;
    const stsl_fmu *f;
    int fd;
    fmi2_api api;
    fmi2Component c;
    stsl_signal *sig[4]; /* active force, load, base motion, anchor motion */
    /* a system's: its forces, each contact's load (NULL: none), base and
     * anchor motion (NULL: none); every signal's value (sig_name's order),
     * a sample's output references, values and record */
    stsl_signal **ssig;
    double *all, *y, *rec;
    fmi2ValueReference *vr;
    char log[1024]; /* the FMU's last logged message (its errors' first) */
    int log_is_error;
    size_t n_out;      /* bytes waiting in out: a write per sample would cost more */
    char out[1 << 16]; /* than a step of a simple FMU */
} child;

static void flush(child *ch)
{
    put_now(ch->fd, ch->out, ch->n_out);
    ch->n_out = 0;
}

static void put(child *ch, const void *p, size_t n)
{
    if (ch->n_out + n > sizeof ch->out) flush(ch);
    memcpy(ch->out + ch->n_out, p, n);
    ch->n_out += n;
}

static _Noreturn void child_fail(child *ch, int code, const char *fmt, ...)
{
    char msg[STSL_ERRMSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int len = (int)strlen(msg);
    char tag = REC_ERROR;
    put(ch, &tag, 1);
    put(ch, &code, sizeof code);
    put(ch, &len, sizeof len);
    put(ch, msg, (size_t)len);
    flush(ch);
    _exit(0);
}

/* The logger's environment is the child (componentEnvironment). */
static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status,
                   fmi2String category, fmi2String message, ...)
{
    (void)instance, (void)category;
    child *ch = env;
    if (!ch || !message || (ch->log_is_error && status < fmi2Error)) return;
    va_list ap;
    va_start(ap, message);
    vsnprintf(ch->log, sizeof ch->log, message, ap);
    va_end(ap);
    ch->log_is_error = status >= fmi2Error;
}

static const char *status_name(fmi2Status s)
{
    static const char *const names[] = {"fmi2OK",    "fmi2Warning", "fmi2Discard",
                                        "fmi2Error", "fmi2Fatal",   "fmi2Pending"};
    return (unsigned)s < 6 ? names[s] : "an unknown status";
}

static void entering(child *ch, const char *call, double t)
{
    ch->at->t = t;
    for (size_t i = 0; i < sizeof ch->at->call; i++)
        if (!(ch->at->call[i] = call[i])) break;
    ch->at->calls++;
}

/* A call's status: fmi2OK and fmi2Warning go on, anything else ends the run. */
static void check(child *ch, fmi2Status s, const char *call, double t)
{
    if (s == fmi2OK || s == fmi2Warning) return;
    child_fail(ch, STSL_EMODEL, "%s: %s at t = %.17g s returned %s%s%s", ch->f->m.path, call, t,
               status_name(s), ch->log[0] ? ": " : "", ch->log);
}

/* A call into the FMU, its place noted first. */
#define CALL(ch, expr, name, t) (entering((ch), (name), (t)), check((ch), (expr), (name), (t)))

static void *resolve(child *ch, void *lib, const char *name)
{
    void *fn = dlsym(lib, name);
    if (!fn)
        child_fail(ch, STSL_EINPUT,
                   "%s: binaries/" STSL_FMU_PLATFORM "/%s" STSL_FMU_SO_EXT
                   ": missing function %s (an FMI 2.0 %s FMU must export it)",
                   ch->f->m.path, ch->f->m.model_identifier, name,
                   ch->f->m.model_exchange ? "model-exchange" : "co-simulation");
    return fn;
}

/* fmi2SetRealInputDerivatives, looked for only when the FMU declares
 * canInterpolateInputs: FMI 2.0 asks every co-simulation FMU to export it,
 * but one that does not interpolate has no use for it and may omit it. */
static void load_interpolation(child *ch, void *lib)
{
    *(void **)&ch->api.setRealInputDerivatives = dlsym(lib, "fmi2SetRealInputDerivatives");
    if (!ch->api.setRealInputDerivatives)
        child_fail(ch, STSL_EINPUT,
                   "%s: binaries/" STSL_FMU_PLATFORM "/%s" STSL_FMU_SO_EXT
                   ": missing function fmi2SetRealInputDerivatives (modelDescription.xml "
                   "declares canInterpolateInputs=\"true\")",
                   ch->f->m.path, ch->f->m.model_identifier);
}

static void load(child *ch)
{
    const stsl_fmu_model *m = &ch->f->m;
    entering(ch, "dlopen (loading the binary)", 0.0);
    void *lib = dlopen(m->binary, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        child_fail(ch, STSL_EINPUT,
                   "%s: binaries/" STSL_FMU_PLATFORM "/%s" STSL_FMU_SO_EXT ": cannot be loaded: %s",
                   m->path, m->model_identifier, dlerror());
    fmi2_api *a = &ch->api;
    /* Object to function pointer: POSIX dlsym's documented use. */
#define RESOLVE(field, name) *(void **)&a->field = resolve(ch, lib, name)
    RESOLVE(getTypesPlatform, "fmi2GetTypesPlatform");
    RESOLVE(getVersion, "fmi2GetVersion");
    RESOLVE(instantiate, "fmi2Instantiate");
    RESOLVE(freeInstance, "fmi2FreeInstance");
    RESOLVE(setupExperiment, "fmi2SetupExperiment");
    RESOLVE(enterInit, "fmi2EnterInitializationMode");
    RESOLVE(exitInit, "fmi2ExitInitializationMode");
    RESOLVE(terminate, "fmi2Terminate");
    RESOLVE(getReal, "fmi2GetReal");
    RESOLVE(setReal, "fmi2SetReal");
    RESOLVE(setInteger, "fmi2SetInteger");
    RESOLVE(setBoolean, "fmi2SetBoolean");
    if (!m->model_exchange) {
        RESOLVE(doStep, "fmi2DoStep");
        if (m->can_interpolate) load_interpolation(ch, lib);
    } else {
        RESOLVE(enterEventMode, "fmi2EnterEventMode");
        RESOLVE(newDiscreteStates, "fmi2NewDiscreteStates");
        RESOLVE(enterContinuousTimeMode, "fmi2EnterContinuousTimeMode");
        RESOLVE(completedIntegratorStep, "fmi2CompletedIntegratorStep");
        RESOLVE(setTime, "fmi2SetTime");
        RESOLVE(setContinuousStates, "fmi2SetContinuousStates");
        RESOLVE(getDerivatives, "fmi2GetDerivatives");
        RESOLVE(getEventIndicators, "fmi2GetEventIndicators");
        RESOLVE(getContinuousStates, "fmi2GetContinuousStates");
    }
#undef RESOLVE
    entering(ch, "fmi2GetVersion", 0.0);
    const char *v = a->getVersion(), *tp = a->getTypesPlatform();
    if (!v || strcmp(v, "2.0"))
        child_fail(ch, STSL_EINPUT, "%s: fmi2GetVersion returns '%s', not '2.0'", m->path,
                   v ? v : "(null)");
    if (!tp || strcmp(tp, "default"))
        child_fail(ch, STSL_EINPUT, "%s: fmi2GetTypesPlatform returns '%s', not 'default'", m->path,
                   tp ? tp : "(null)");
}

static void set_params(child *ch)
{
    const stsl_fmu *f = ch->f;
    for (int i = 0; i < f->n_sets; i++) {
        const stsl_fmu_var *v = f->sets[i].var;
        double x = f->sets[i].value;
        fmi2Status s;
        if (v->type == STSL_FMU_REAL) {
            entering(ch, "fmi2SetReal (--fmu-set)", 0.0);
            s = ch->api.setReal(ch->c, &v->vr, 1, &x);
        } else {
            int k = (int)x;
            entering(ch, "fmi2SetInteger or fmi2SetBoolean (--fmu-set)", 0.0);
            s = v->type == STSL_FMU_INTEGER ? ch->api.setInteger(ch->c, &v->vr, 1, &k)
                                            : ch->api.setBoolean(ch->c, &v->vr, 1, &k);
        }
        char call[320];
        snprintf(call, sizeof call, "setting %s (--fmu-set)", v->name);
        check(ch, s, call, 0.0);
    }
}

/* The inputs at t: left limits, at t = 0 too (as the built-in schemes see
 * them: a step at a communication point acts from the next step on). */
static void sys_signals(child *ch, double t)
{
    const stsl_fmu *f = ch->f;
    const stsl_system *s = f->sys;
    int nb = f->nb, nc = f->nc, left = 1, nf = s->n_forces;
    double b[3] = {0, 0, 0}, a[3] = {0, 0, 0}, *all = ch->all;
    for (int i = 0; i < nb + nc; i++)
        all[i] = 0.0;
    for (int i = 0; i < nf; i++)
        all[s->forces[i].on.body] += stsl_signal_value(ch->ssig[i], t, left);
    for (int c = 0; c < nc; c++)
        if (ch->ssig[nf + c]) all[nb + c] = stsl_signal_value(ch->ssig[nf + c], t, left);
    if (ch->ssig[nf + nc]) stsl_signal_eval(ch->ssig[nf + nc], t, left, b);
    if (ch->ssig[nf + nc + 1]) stsl_signal_eval(ch->ssig[nf + nc + 1], t, left, a);
    const double fixed[SYS_FIXED] = {b[0], b[1], b[2], a[0], a[1]};
    memcpy(all + nb + nc, fixed, sizeof fixed);
}

static void set_sys_inputs(child *ch, double t)
{
    const stsl_fmu *f = ch->f;
    double u[STSL_FMU_MAX_MAP];
    fmi2ValueReference vr[STSL_FMU_MAX_MAP];
    sys_signals(ch, t);
    for (int i = 0; i < f->n_in; i++) {
        vr[i] = f->in_var[i]->vr;
        u[i] = ch->all[f->in_sig[i]];
    }
    CALL(ch, ch->api.setReal(ch->c, vr, (size_t)f->n_in, u), "fmi2SetReal (inputs)", t);
}

static void set_inputs(child *ch, double t)
{
    const stsl_fmu *f = ch->f;
    if (!f->n_in) return;
    if (f->sys) {
        set_sys_inputs(ch, t);
        return;
    }
    double b[3] = {0, 0, 0}, a[3] = {0, 0, 0}, u[STSL_FMU_MAX_MAP];
    fmi2ValueReference vr[STSL_FMU_MAX_MAP];
    int left = 1;
    double fa = stsl_signal_value(ch->sig[0], t, left),
           load = stsl_signal_value(ch->sig[1], t, left);
    stsl_signal_eval(ch->sig[2], t, left, b);
    if (ch->sig[3]) stsl_signal_eval(ch->sig[3], t, left, a);
    const double all[N_SIGS] = {fa, load, b[0], b[1], b[2], a[0], a[1]};
    for (int i = 0; i < f->n_in; i++) {
        vr[i] = f->in_var[i]->vr;
        u[i] = all[f->in_sig[i]];
    }
    CALL(ch, ch->api.setReal(ch->c, vr, (size_t)f->n_in, u), "fmi2SetReal (inputs)", t);
}

/* ---- input derivatives: an FMU that interpolates its inputs --------------------------- */

/* Derivative `order` (1 to 3) of s at t from the right: over the step that
 * starts at t the signal is what follows t (at a ramp's start or a table's
 * corner, its new slope; a step's jump has no derivative: 0). */
static double rate(const stsl_signal *s, double t, int order)
{
    if (!s) return 0.0;
    if (order == 3) return stsl_signal_third(s, t, 0);
    double d[3];
    stsl_signal_eval(s, t, 0, d);
    return d[order];
}

/* The time derivative of signal `sig` (sig_name's order) at t: of a motion's
 * position its velocity, of its velocity its acceleration, and so on. */
static double signal_rate(const child *ch, int sig, double t)
{
    const stsl_fmu *f = ch->f;
    const stsl_system *s = f->sys;
    int k = sig, nf = s ? s->n_forces : 0;
    if (!s && (sig == SIG_FA || sig == SIG_LOAD)) return rate(ch->sig[sig], t, 1);
    if (s && sig < f->nb) {
        double d = 0.0;
        for (int i = 0; i < nf; i++)
            if (s->forces[i].on.body == sig) d += rate(ch->ssig[i], t, 1);
        return d;
    }
    if (s && sig < f->nb + f->nc) return rate(ch->ssig[nf + sig - f->nb], t, 1);
    if (s) k = SIG_XB + sig - f->nb - f->nc;
    const stsl_signal *base = s ? ch->ssig[nf + f->nc] : ch->sig[2];
    const stsl_signal *anchor = s ? ch->ssig[nf + f->nc + 1] : ch->sig[3];
    return k <= SIG_AB ? rate(base, t, 1 + k - SIG_XB) : rate(anchor, t, 1 + k - SIG_XA);
}

/* Before the step from t, for an FMU that interpolates its inputs: the
 * first derivative of every input's signal at t (order 1 only: FMI 2.0
 * gives no flag for the highest order an FMU takes, and an fmi2Error would
 * end the run). */
static void set_input_derivatives(child *ch, double t)
{
    const stsl_fmu *f = ch->f;
    if (!f->m.can_interpolate || !f->n_in) return;
    double du[STSL_FMU_MAX_MAP];
    fmi2ValueReference vr[STSL_FMU_MAX_MAP];
    fmi2Integer order[STSL_FMU_MAX_MAP];
    for (int i = 0; i < f->n_in; i++) {
        vr[i] = f->in_var[i]->vr;
        order[i] = 1;
        du[i] = signal_rate(ch, f->in_sig[i], t);
    }
    CALL(ch, ch->api.setRealInputDerivatives(ch->c, vr, (size_t)f->n_in, order, du),
         "fmi2SetRealInputDerivatives", t);
}

/* The velocity of a contact's end at the sample (ch->all at its time). */
static double end_velocity(const child *ch, stsl_end e, const double *v)
{
    const stsl_fmu *f = ch->f;
    if (e.kind == STSL_END_BODY) return v[e.body];
    if (e.kind == STSL_END_BASE) return ch->all[f->nb + f->nc + 1];
    if (e.kind == STSL_END_ANCHOR) return ch->all[f->nb + f->nc + 4];
    return 0.0;
}

/* A system's sample: t, x and v of each body, friction (NaN without an
 * output) and slip velocity of each contact. */
static void sample_system(child *ch, double t)
{
    const stsl_fmu *f = ch->f;
    int n = 2 * f->nb + f->nc, m = 0;
    for (int k = 0; k < n; k++)
        if (f->sys_out[k]) ch->vr[m++] = f->sys_out[k]->vr;
    CALL(ch, ch->api.getReal(ch->c, ch->vr, (size_t)m, ch->y), "fmi2GetReal (outputs)", t);
    double *rec = ch->rec;
    rec[0] = t;
    for (int k = 0, i = 0; k < n; k++)
        rec[1 + k] = f->sys_out[k] ? ch->y[i++] : NAN;
    sys_signals(ch, t);
    const double *v = rec + 1 + f->nb;
    for (int c = 0; c < f->nc; c++) {
        const stsl_contact *ct = &f->sys->contacts[c];
        rec[1 + n + c] = end_velocity(ch, ct->ends[0], v) - end_velocity(ch, ct->ends[1], v);
    }
    char tag = REC_SAMPLE;
    put(ch, &tag, 1);
    put(ch, rec, sizeof *rec * (size_t)f->w);
}

static void sample(child *ch, double t)
{
    const stsl_fmu *f = ch->f;
    if (f->sys) {
        sample_system(ch, t);
        return;
    }
    fmi2ValueReference vr[N_OUTS];
    double y[N_OUTS] = {0, 0, NAN};
    size_t n = f->out_var[OUT_F] ? 3 : 2;
    for (size_t k = 0; k < n; k++)
        vr[k] = f->out_var[k]->vr;
    CALL(ch, ch->api.getReal(ch->c, vr, n, y), "fmi2GetReal (outputs)", t);
    double rec[4] = {t, y[0], y[1], y[2]};
    char tag = REC_SAMPLE;
    put(ch, &tag, 1);
    put(ch, rec, sizeof rec);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A system's signals and buffers. */
static void make_sys_signals(child *ch)
{
    const stsl_fmu *f = ch->f;
    const stsl_system *s = f->sys;
    int nf = s->n_forces, nc = f->nc, n = nf + nc + 2;
    ch->ssig = calloc((size_t)n, sizeof *ch->ssig);
    ch->all = calloc((size_t)(f->nb + nc + SYS_FIXED), sizeof *ch->all);
    ch->y = calloc((size_t)(2 * f->nb + nc + 1), sizeof *ch->y);
    ch->rec = calloc((size_t)f->w, sizeof *ch->rec);
    ch->vr = calloc((size_t)(2 * f->nb + nc + 1), sizeof *ch->vr);
    if (!ch->ssig || !ch->all || !ch->y || !ch->rec || !ch->vr)
        child_fail(ch, STSL_ENOMEM, "out of memory for the system's signals");
    for (int i = 0; i < n; i++) {
        const stsl_signal_spec *spec =
            i < nf          ? &s->forces[i].signal
            : i < nf + nc   ? (s->contacts[i - nf].has_load ? &s->contacts[i - nf].load : NULL)
            : i == nf + nc  ? &s->base_motion
            : s->has_anchor ? &s->anchor_motion
                            : NULL;
        stsl_error e = {0};
        if (spec && !(ch->ssig[i] = stsl_signal_create(spec, &e)))
            child_fail(ch, e.code, "%s", e.msg);
    }
}

static void make_signals(child *ch)
{
    if (ch->f->sys) {
        make_sys_signals(ch);
        return;
    }
    const stsl_element_params *p = &ch->f->p;
    const stsl_signal_spec *specs[4] = {&p->active_force, &p->load, &p->base_motion,
                                        p->has_anchor ? &p->anchor_motion : NULL};
    for (int i = 0; i < 4; i++) {
        stsl_error e = {0};
        if (specs[i] && !(ch->sig[i] = stsl_signal_create(specs[i], &e)))
            child_fail(ch, e.code, "%s", e.msg);
    }
}

/* Steps as the fixed-step schemes count them (run/fixed_step.c). */
#define STEP_COUNT_SLACK 1e-9

/* ---- model exchange: stickslip integrates the FMU ------------------------------------ */

typedef struct me_state {
    int nx, ni;
    double *x, *k[4], *tmp, *z, *z_prev;
    long evals;
    fmi2EventInfo ei;
} me_state;

/* dx = f(t, x) with the inputs at t. */
static void deriv(child *ch, me_state *s, double t, const double *x, double *dx)
{
    set_inputs(ch, t);
    CALL(ch, ch->api.setTime(ch->c, t), "fmi2SetTime", t);
    if (s->nx) {
        CALL(ch, ch->api.setContinuousStates(ch->c, x, (size_t)s->nx), "fmi2SetContinuousStates",
             t);
        CALL(ch, ch->api.getDerivatives(ch->c, dx, (size_t)s->nx), "fmi2GetDerivatives", t);
    }
    s->evals++;
}

/* Event mode at t: the FMU's event iteration, then continuous time again. */
static void handle_event(child *ch, me_state *s, double t)
{
    CALL(ch, ch->api.enterEventMode(ch->c), "fmi2EnterEventMode", t);
    s->ei.newDiscreteStatesNeeded = fmi2True;
    while (s->ei.newDiscreteStatesNeeded) {
        CALL(ch, ch->api.newDiscreteStates(ch->c, &s->ei), "fmi2NewDiscreteStates", t);
        if (s->ei.terminateSimulation)
            child_fail(ch, STSL_EMODEL, "%s: the FMU ended the simulation at t = %.17g s%s%s",
                       ch->f->m.path, t, ch->log[0] ? ": " : "", ch->log);
    }
    CALL(ch, ch->api.enterContinuousTimeMode(ch->c), "fmi2EnterContinuousTimeMode", t);
    if (s->nx && s->ei.valuesOfContinuousStatesChanged)
        CALL(ch, ch->api.getContinuousStates(ch->c, s->x, (size_t)s->nx), "fmi2GetContinuousStates",
             t);
}

static void indicators(child *ch, me_state *s, double *z, double t)
{
    if (s->ni)
        CALL(ch, ch->api.getEventIndicators(ch->c, z, (size_t)s->ni), "fmi2GetEventIndicators", t);
}

/* One step of the scheme from (t, x) to t1 = t + h, into s->x. */
static void me_step(child *ch, me_state *s, double t, double h)
{
    int n = s->nx, rk4 = ch->f->rk4;
    deriv(ch, s, t, s->x, s->k[0]);
    if (rk4) {
        for (int i = 0; i < n; i++)
            s->tmp[i] = s->x[i] + 0.5 * h * s->k[0][i];
        deriv(ch, s, t + 0.5 * h, s->tmp, s->k[1]);
        for (int i = 0; i < n; i++)
            s->tmp[i] = s->x[i] + 0.5 * h * s->k[1][i];
        deriv(ch, s, t + 0.5 * h, s->tmp, s->k[2]);
        for (int i = 0; i < n; i++)
            s->tmp[i] = s->x[i] + h * s->k[2][i];
        deriv(ch, s, t + h, s->tmp, s->k[3]);
    }
    for (int i = 0; i < n; i++)
        s->x[i] += rk4 ? h / 6.0 * (s->k[0][i] + 2.0 * s->k[1][i] + 2.0 * s->k[2][i] + s->k[3][i])
                       : h * s->k[0][i];
}

/* After a step to t1: the state set, the step completed, and an event
 * handled there when the FMU asks for one, an indicator changed sign over
 * the step (z > 0 against z <= 0) or a time event fell inside it: at the
 * step point, as a fixed-step tool handles them, not at the located time. */
static void me_after_step(child *ch, me_state *s, double t1)
{
    fmi2Boolean enter = fmi2False, stop = fmi2False;
    set_inputs(ch, t1);
    CALL(ch, ch->api.setTime(ch->c, t1), "fmi2SetTime", t1);
    if (s->nx)
        CALL(ch, ch->api.setContinuousStates(ch->c, s->x, (size_t)s->nx), "fmi2SetContinuousStates",
             t1);
    CALL(ch, ch->api.completedIntegratorStep(ch->c, fmi2True, &enter, &stop),
         "fmi2CompletedIntegratorStep", t1);
    if (stop)
        child_fail(ch, STSL_EMODEL, "%s: the FMU ended the simulation at t = %.17g s",
                   ch->f->m.path, t1);
    indicators(ch, s, s->z, t1);
    int event = enter || (s->ei.nextEventTimeDefined && t1 >= s->ei.nextEventTime);
    for (int i = 0; i < s->ni; i++)
        event |= (s->z[i] > 0.0) != (s->z_prev[i] > 0.0);
    if (event) {
        handle_event(ch, s, t1);
        indicators(ch, s, s->z, t1);
    }
    memcpy(s->z_prev, s->z, sizeof *s->z * (size_t)s->ni);
}

/* The communication points: inputs at t_k, the sample at t_k, then a step
 * (the FMU's own for co-simulation, s == NULL; else the scheme's). */
static void drive(child *ch, me_state *s, double t_end, double h, long n_steps)
{
    double t = 0.0;
    for (long k = 0;; k++) {
        set_inputs(ch, t);
        sample(ch, t);
        if (k == n_steps) break;
        double t1 = k + 1 == n_steps ? t_end : (double)(k + 1) * h;
        if (s) {
            me_step(ch, s, t, t1 - t);
            me_after_step(ch, s, t1);
        } else {
            set_input_derivatives(ch, t);
            CALL(ch, ch->api.doStep(ch->c, t, t1 - t, fmi2True), "fmi2DoStep", t);
        }
        t = t1;
    }
    CALL(ch, ch->api.terminate(ch->c), "fmi2Terminate", t);
}

static long me_loop(child *ch, double t_end, double h, long n_steps)
{
    static me_state s;
    s.nx = ch->f->m.n_states, s.ni = ch->f->m.n_indicators;
    double **arrays[] = {&s.x, &s.k[0], &s.k[1], &s.k[2], &s.k[3], &s.tmp, &s.z, &s.z_prev};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        if (!(*arrays[i] = calloc((size_t)(s.nx + s.ni + 1), sizeof(double))))
            child_fail(ch, STSL_ENOMEM, "out of memory for the FMU's %d states", s.nx);
    handle_event(ch, &s, 0.0); /* exitInitializationMode leaves it in event mode */
    if (s.nx)
        CALL(ch, ch->api.getContinuousStates(ch->c, s.x, (size_t)s.nx), "fmi2GetContinuousStates",
             0.0);
    indicators(ch, &s, s.z_prev, 0.0);
    drive(ch, &s, t_end, h, n_steps);
    return s.evals;
}

static void instantiate(child *ch, double t_end)
{
    const stsl_fmu *f = ch->f;
    static fmi2CallbackFunctions cb;
    cb = (fmi2CallbackFunctions){logger, calloc, free, NULL, ch};
    entering(ch, "fmi2Instantiate", 0.0);
    ch->c = ch->api.instantiate(f->m.model_identifier,
                                f->m.model_exchange ? fmi2ModelExchange : fmi2CoSimulation,
                                f->m.guid, f->m.resources, &cb, fmi2False, fmi2False);
    if (!ch->c)
        child_fail(ch, STSL_EINPUT, "%s: fmi2Instantiate failed (guid %s)%s%s", f->m.path,
                   f->m.guid, ch->log[0] ? ": " : "", ch->log);
    set_params(ch);
    CALL(ch, ch->api.setupExperiment(ch->c, fmi2False, 0.0, 0.0, fmi2True, t_end),
         "fmi2SetupExperiment", 0.0);
    CALL(ch, ch->api.enterInit(ch->c), "fmi2EnterInitializationMode", 0.0);
    set_inputs(ch, 0.0);
    CALL(ch, ch->api.exitInit(ch->c), "fmi2ExitInitializationMode", 0.0);
}

/* Co-simulation: the FMU steps itself from point to point. */
static void cs_loop(child *ch, double t_end, double h, long n_steps)
{
    const stsl_fmu *f = ch->f;
    if (!f->m.can_vary_step && (double)n_steps * h != t_end)
        child_fail(ch, STSL_EINPUT,
                   "%s: t_end = %g s is not a whole number of steps %g s, and the FMU cannot "
                   "shorten its last step (canHandleVariableCommunicationStepSize is false)",
                   f->m.path, t_end, h);
    drive(ch, NULL, t_end, h, n_steps);
}

static _Noreturn void child_main(const stsl_fmu *f, int fd, where *at, double t_end, double h)
{
    static child ch; /* 64 kB of buffer: not on the stack the FMU runs on */
    ch.f = f;
    ch.fd = fd;
    ch.at = at;
    make_signals(&ch);
    load(&ch);
    long n_steps = (long)ceil(t_end / h - STEP_COUNT_SLACK);
    if (n_steps < 1) n_steps = 1;
    double wall0 = now();
    instantiate(&ch, t_end);
    long evals = n_steps;
    if (f->m.model_exchange)
        evals = me_loop(&ch, t_end, h, n_steps);
    else
        cs_loop(&ch, t_end, h, n_steps);
    entering(&ch, "fmi2FreeInstance", t_end);
    ch.api.freeInstance(ch.c);
    double wall = now() - wall0;
    char tag = REC_DONE;
    put(&ch, &tag, 1);
    put(&ch, &n_steps, sizeof n_steps);
    put(&ch, &evals, sizeof evals);
    put(&ch, &wall, sizeof wall);
    flush(&ch);
    _exit(0);
}

/* Samples of one run held in memory at most (32 bytes each: 3.2 GB). */
#define MAX_POINTS 1e8

/* ---- the parent: collect the samples ------------------------------------------------ */

typedef struct collected {
    int w; /* doubles per sample */
    long n, cap;
    double *rec; /* w per sample */
    int failed, code;
    char msg[STSL_ERRMSG_MAX];
    int done, hung; /* hung: the watchdog stopped a call that did not return */
    long steps, evals;
    double wall;
} collected;

/* The parent's watch on the child: a call into the FMU that has not
 * returned after `limit` seconds (no new call entered, no data) is a hang.
 * The clock is CLOCK_MONOTONIC, which stands still while the machine
 * sleeps, so a suspended laptop is not a hang. */
typedef struct watch {
    int fd;
    const where *at;
    double limit, since; /* since: when progress was last seen */
    unsigned long calls; /* at->calls then */
} watch;

static double monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wait until the pipe has data (or its end): 0, or -1 when the child made
 * no progress for the limit.  The calls are counted at wake-ups every
 * 1/16 of the limit, so a hang is declared between the limit and 17/16 of
 * it after its call began, never before. */
static int wait_data(watch *w)
{
    for (;;) {
        double left = fmin(w->since + w->limit - monotonic(), w->limit / 16.0);
        int ms = !isfinite(w->limit) ? -1
                 : left <= 0.0       ? 0
                 : left > 2e9        ? 2000000000
                                     : (int)ceil(1e3 * left);
        struct pollfd pf = {w->fd, POLLIN, 0};
        int r = poll(&pf, 1, ms);
        if (r > 0) {
            w->since = monotonic();
            return 0;
        }
        if (r < 0 && errno != EINTR) return 0; /* the read reports it */
        if (w->at->calls != w->calls) {
            w->calls = w->at->calls;
            w->since = monotonic();
        } else if (r == 0 && monotonic() >= w->since + w->limit) {
            return -1;
        }
    }
}

static int get(watch *w, void *p, size_t n, int *hung)
{
    char *b = p;
    while (n) {
        if (wait_data(w)) return *hung = 1, -1;
        ssize_t r = read(w->fd, b, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        b += r;
        n -= (size_t)r;
    }
    return 0;
}

static int collect(watch *w, collected *c, stsl_error *err)
{
    char tag;
    int *hung = &c->hung;
    while (get(w, &tag, 1, hung) == 0) {
        if (tag == REC_SAMPLE) {
            if (c->n == c->cap) {
                long cap = c->cap ? 2 * c->cap : 4096;
                double *q = realloc(c->rec, (size_t)cap * (size_t)c->w * sizeof *q);
                if (!q) return stsl_error_set(err, STSL_ENOMEM, "out of memory for the samples");
                c->rec = q, c->cap = cap;
            }
            if (get(w, c->rec + c->w * c->n, (size_t)c->w * sizeof(double), hung)) break;
            c->n++;
        } else if (tag == REC_ERROR) {
            int len = 0;
            if (get(w, &c->code, sizeof c->code, hung) || get(w, &len, sizeof len, hung) ||
                len < 0 || len >= (int)sizeof c->msg || get(w, c->msg, (size_t)len, hung))
                break;
            c->msg[len] = '\0';
            c->failed = 1;
        } else if (tag == REC_DONE) {
            if (get(w, &c->steps, sizeof c->steps, hung) ||
                get(w, &c->evals, sizeof c->evals, hung) || get(w, &c->wall, sizeof c->wall, hung))
                break;
            c->done = 1;
        } else {
            break;
        }
    }
    return STSL_OK;
}

/* The child's end as an error: its own message, or how it died. */
static int child_result(const stsl_fmu *f, const collected *c, const where *at, int status,
                        stsl_error *err)
{
    if (c->failed) return stsl_error_set(err, (stsl_status)c->code, "%s", c->msg);
    if (c->done && WIFEXITED(status) && WEXITSTATUS(status) == 0) return STSL_OK;
    char after[128], call[sizeof at->call + 1];
    for (size_t i = 0; i < sizeof at->call; i++)
        call[i] = at->call[i];
    call[sizeof at->call] = '\0';
    if (c->hung)
        return stsl_error_set(err, STSL_EMODEL,
                              "%s: the FMU did not return from %s at t = %.17g s within %g s "
                              "(--fmu-timeout); stickslip stopped its process",
                              f->m.path, call[0] ? call : "its start", at->t, f->timeout);
    snprintf(after, sizeof after, "in %s at t = %.17g s", call[0] ? call : "its start", at->t);
    if (WIFSIGNALED(status))
        return stsl_error_set(err, STSL_EMODEL,
                              "%s: the FMU crashed (signal %d, %s) %s; stickslip ran it in a "
                              "separate process",
                              f->m.path, WTERMSIG(status), strsignal(WTERMSIG(status)), after);
    return stsl_error_set(err, STSL_EMODEL, "%s: the FMU ended its process (exit status %d) %s",
                          f->m.path, WIFEXITED(status) ? WEXITSTATUS(status) : -1, after);
}

static int run_child(const stsl_fmu *f, double t_end, double h, collected *c, stsl_error *err)
{
    int fds[2];
    if (pipe(fds))
        return stsl_error_set(err, STSL_EIO, "%s: cannot make a pipe: %s", f->m.path,
                              strerror(errno));
    where *at = mmap(NULL, sizeof *at, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (at == MAP_FAILED) {
        close(fds[0]);
        close(fds[1]);
        return stsl_error_set(err, STSL_ENOMEM, "%s: cannot share memory with the FMU's process",
                              f->m.path);
    }
    memset((void *)at, 0, sizeof *at);
    c->w = f->w;
    fflush(NULL); /* the child must not write the parent's buffered output again */
    pid_t pid = fork();
    if (pid < 0) {
        munmap(at, sizeof *at);
        close(fds[0]);
        close(fds[1]);
        return stsl_error_set(err, STSL_EIO, "%s: cannot start a process: %s", f->m.path,
                              strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_DFL);
        dup2(2, 1); /* what the FMU prints must not mix into stickslip's tables */
        child_main(f, fds[1], at, t_end, h);
    }
    close(fds[1]);
    watch w = {fds[0], at, f->timeout, monotonic(), 0};
    int rc = collect(&w, c, err);
    if (c->hung) kill(pid, SIGKILL); /* our own child, stuck in the FMU's code */
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!rc) rc = child_result(f, c, at, status, err);
    munmap(at, sizeof *at);
    return rc;
}

/* ---- the sink ------------------------------------------------------------------------ */

static int kind_of(const char *name)
{
    const char *const *names = stsl_event_kind_names();
    for (int k = 0; names[k]; k++)
        if (!strcmp(names[k], name)) return k;
    return STSL_EV_REVERSAL;
}

/* The run's statistics, and the sink ended with them. */
static int end_run(const collected *c, long ne, stsl_sink *sink, stsl_stats *st, stsl_error *err)
{
    memset(st, 0, sizeof *st);
    st->steps = c->steps;
    st->rhs_evals = c->evals;
    st->events = ne > 0 ? ne : 0;
    st->segments = 1;
    st->wall_seconds = c->wall;
    return stsl_sink_end(sink, st, 1, NULL, err);
}

static int emit(const stsl_fmu *f, const collected *c, stsl_sink *sink, stsl_stats *st,
                stsl_error *err)
{
    long n = c->n;
    double *t = malloc(sizeof *t * (size_t)(n + 1)), *v = malloc(sizeof *v * (size_t)(n + 1));
    unsigned char *stuck = malloc((size_t)(n + 1));
    stsl_cmp_event *ev = NULL;
    long ne = 0;
    int rc = t && v && stuck ? STSL_OK : stsl_error_set(err, STSL_ENOMEM, "out of memory");
    double vmax = 0.0;
    for (long i = 0; !rc && i < n; i++) {
        t[i] = c->rec[4 * i], v[i] = c->rec[4 * i + 2];
        vmax = fmax(vmax, fabs(v[i]));
    }
    for (long i = 0; !rc && i < n; i++)
        stuck[i] = fabs(v[i]) <= STSL_CMP_STUCK_REL * vmax;
    if (!rc && (ne = stsl_compare_derive_events(t, v, stuck, n, &ev)) < 0)
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory for the events");
    stsl_column cols[3] = {{"x", f->units[STSL_COL_X], "position"},
                           {"v", f->units[STSL_COL_V], "velocity"},
                           {"friction", f->units[STSL_COL_FRICTION], "friction force"}};
    stsl_layout l = {0};
    l.n_cols = 3, l.cols = cols, l.time_units = "s";
    l.n_kinds = STSL_N_RIGID_EVENT_KINDS, l.kind_names = stsl_event_kind_names();
    if (!rc) rc = stsl_sink_begin(sink, &l, err);
    long e = 0;
    for (long i = 0; !rc && i < n; i++) {
        const double *row = c->rec + 4 * i + 1;
        for (; !rc && e < ne && ev[e].t <= t[i]; e++) {
            stsl_event_rec r = {ev[e].t, kind_of(ev[e].kind), 0, 0, row, row, 0};
            rc = stsl_sink_event(sink, &r, err);
        }
        /* An FMU has no modes: the mode is the stuck rule the events above
         * were derived with (|v| within STSL_CMP_STUCK_REL of the largest),
         * else the direction of slip, so that a reader's stuck times (a
         * converge study's stuck_iou) agree with the candidate's events. */
        int mode = stuck[i]     ? STSL_MODE_STUCK
                   : v[i] > 0.0 ? STSL_MODE_SLIP_POS
                                : STSL_MODE_SLIP_NEG;
        if (!rc) rc = stsl_sink_sample(sink, t[i], mode, row, err);
    }
    if (!rc) rc = end_run(c, ne, sink, st, err);
    free(t), free(v), free(stuck), free(ev);
    return rc;
}

/* A system's event: a contact's, derived from its slip velocity. */
typedef struct sys_event {
    double t;
    int kind, subject;
} sys_event;

static int by_time(const void *a, const void *b)
{
    const sys_event *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : x->subject - y->subject;
}

/* Each contact's stuck flags (n per contact; the element's rule on its
 * slip velocity) and events, all contacts' in time order; -1: no memory. */
static long sys_events(const stsl_fmu *f, const collected *c, const double *t, double *w,
                       unsigned char *stuck, sys_event **out)
{
    long n = c->n, ne = 0;
    *out = NULL;
    for (int k = 0; k < f->nc; k++) {
        double wmax = 0.0;
        for (long i = 0; i < n; i++)
            wmax = fmax(wmax,
                        fabs(w[i] = c->rec[(size_t)f->w * (size_t)i + 1 + 2 * f->nb + f->nc + k]));
        unsigned char *st = stuck + (size_t)k * (size_t)n;
        for (long i = 0; i < n; i++)
            st[i] = fabs(w[i]) <= STSL_CMP_STUCK_REL * wmax;
        stsl_cmp_event *ev = NULL;
        long m = stsl_compare_derive_events(t, w, st, n, &ev);
        sys_event *q = m < 0 ? NULL : realloc(*out, sizeof *q * (size_t)(ne + m + 1));
        if (!q) {
            free(ev);
            return -1;
        }
        *out = q;
        for (long e = 0; e < m; e++)
            q[ne++] = (sys_event){ev[e].t, kind_of(ev[e].kind), 1 + k};
        free(ev);
    }
    if (ne) qsort(*out, (size_t)ne, sizeof **out, by_time);
    return ne;
}

/* The system's layout: groups x, v, friction, slip_velocity, contact_mode. */
static void sys_layout(const stsl_fmu *f, stsl_column *cols, char (*names)[STSL_BODY_NAME_MAX + 32],
                       const char **members, stsl_col_group *groups, stsl_layout *l)
{
    int nb = f->nb, nc = f->nc;
    static const char *const grp[5] = {"x", "v", "friction", "slip_velocity", "contact_mode"};
    static const char *const what[5] = {"position", "velocity",
                                        "friction force on the contact's first end",
                                        "slip velocity", "contact mode"};
    const char *units[5] = {f->units[STSL_COL_X], f->units[STSL_COL_V], f->units[STSL_COL_FRICTION],
                            f->units[STSL_COL_V], ""};
    const int first[5] = {0, nb, 2 * nb, 2 * nb + nc, 2 * nb + 2 * nc};
    const int width[5] = {nb, nb, nc, nc, nc};
    for (int i = 0; i < nb + nc; i++)
        members[i] = f->member[i];
    int ng = 0;
    for (int g = 0; g < 5; g++) {
        const char **mem = members + (g < 2 ? 0 : nb);
        for (int i = 0; i < width[g]; i++) {
            int col = first[g] + i;
            snprintf(names[col], sizeof names[col], "%s[%s]", grp[g], mem[i]);
            cols[col] = (stsl_column){names[col], units[g], what[g]};
        }
        if (width[g])
            groups[ng++] = (stsl_col_group){
                grp[g],   units[g],       what[g],
                first[g], width[g],       mem,
                g == 4,   g == 4 ? 4 : 0, g == 4 ? stsl_contact_state_names() : NULL};
    }
    memset(l, 0, sizeof *l);
    l->n_cols = 2 * nb + 3 * nc, l->cols = cols, l->time_units = "s";
    l->n_kinds = STSL_N_RIGID_EVENT_KINDS, l->kind_names = stsl_event_kind_names();
    l->n_groups = ng, l->groups = groups;
    l->n_subjects = nc, l->subject_names = members + nb;
}

/* A system's samples and events into the sink. */
static int emit_system(const stsl_fmu *f, const collected *c, stsl_sink *sink, stsl_stats *st,
                       stsl_error *err)
{
    long n = c->n;
    int nb = f->nb, nc = f->nc, nv = 2 * nb + 3 * nc;
    double *t = malloc(sizeof *t * (size_t)(n + 1)), *w = malloc(sizeof *w * (size_t)(n + 1));
    double *row = malloc(sizeof *row * (size_t)nv);
    unsigned char *stuck = malloc((size_t)(n + 1) * (size_t)(nc + 1));
    stsl_column *cols = calloc((size_t)nv, sizeof *cols);
    char(*names)[STSL_BODY_NAME_MAX + 32] = calloc((size_t)nv, sizeof *names);
    const char **members = calloc((size_t)(nb + nc), sizeof *members);
    sys_event *ev = NULL;
    long ne = 0;
    int rc = t && w && row && stuck && cols && names && members
                 ? STSL_OK
                 : stsl_error_set(err, STSL_ENOMEM, "out of memory");
    for (long i = 0; !rc && i < n; i++)
        t[i] = c->rec[(size_t)f->w * (size_t)i];
    if (!rc && (ne = sys_events(f, c, t, w, stuck, &ev)) < 0)
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory for the events");
    stsl_col_group groups[5];
    stsl_layout l;
    if (!rc) sys_layout(f, cols, names, members, groups, &l);
    if (!rc) rc = stsl_sink_begin(sink, &l, err);
    long e = 0;
    for (long i = 0; !rc && i < n; i++) {
        const double *r = c->rec + (size_t)f->w * (size_t)i + 1;
        memcpy(row, r, sizeof *row * (size_t)(2 * nb + 2 * nc));
        for (int k = 0; k < nc; k++) { /* the stuck rule the events were derived with */
            double wk = r[2 * nb + nc + k];
            row[2 * nb + 2 * nc + k] = stuck[(size_t)k * (size_t)n + (size_t)i] ? STSL_CONTACT_STUCK
                                       : wk > 0.0 ? STSL_CONTACT_SLIP_POS
                                                  : STSL_CONTACT_SLIP_NEG;
        }
        for (; !rc && e < ne && ev[e].t <= t[i]; e++) {
            stsl_event_rec rec = {ev[e].t, ev[e].kind, 0, 0, row, row, ev[e].subject};
            rc = stsl_sink_event(sink, &rec, err);
        }
        if (!rc) rc = stsl_sink_sample(sink, t[i], 0, row, err);
    }
    if (!rc) rc = end_run(c, ne, sink, st, err);
    free(t), free(w), free(row), free(stuck), free(cols), free(names), free(members), free(ev);
    return rc;
}

static int run_checked(const stsl_fmu *f, double t_end, double h, collected *c, stsl_error *err)
{
    if (!(h > 0.0) || !isfinite(h) || !(t_end > 0.0))
        return stsl_error_set(err, STSL_EINPUT, "%s: step %g s over t_end = %g s: not a step",
                              f->m.path, h, t_end);
    if (t_end / h > MAX_POINTS)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: step %g s makes more than %.0e communication points over "
                              "t_end = %g s (all are held in memory); use a larger step",
                              f->m.path, h, MAX_POINTS, t_end);
    return run_child(f, t_end, h, c, err);
}

int stsl_fmu_run_samples(stsl_fmu *f, double t_end, double h, stsl_fmu_samples *s, stsl_error *err)
{
    memset(s, 0, sizeof *s);
    if (f->sys)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: an FMU of a system of bodies runs into a sink "
                              "(stsl_fmu_run), not as one element's samples",
                              f->m.path);
    collected c = {0};
    int rc = run_checked(f, t_end, h, &c, err);
    long n = c.n;
    double *cols[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; !rc && k < 4; k++)
        if (!(cols[k] = malloc(sizeof(double) * (size_t)(n + 1))))
            rc = stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld samples", n);
    for (long i = 0; !rc && i < n; i++)
        for (int k = 0; k < 4; k++)
            cols[k][i] = c.rec[4 * i + k];
    if (!rc) {
        s->n = n;
        s->t = cols[0], s->x = cols[1], s->v = cols[2];
        s->friction = f->out_var[OUT_F] ? cols[3] : (free(cols[3]), NULL);
        s->stats.steps = c.steps;
        s->stats.rhs_evals = c.evals;
        s->stats.segments = 1;
        s->stats.wall_seconds = c.wall;
    } else {
        for (int k = 0; k < 4; k++)
            free(cols[k]);
    }
    free(c.rec);
    return rc;
}

void stsl_fmu_samples_free(stsl_fmu_samples *s)
{
    if (!s) return;
    free(s->t), free(s->x), free(s->v), free(s->friction);
    memset(s, 0, sizeof *s);
}

int stsl_fmu_run(stsl_fmu *f, double t_end, double h, stsl_sink *sink, stsl_stats *stats,
                 stsl_error *err)
{
    collected c = {0};
    stsl_stats st;
    int rc = run_checked(f, t_end, h, &c, err);
    if (!rc) rc = f->sys ? emit_system(f, &c, sink, &st, err) : emit(f, &c, sink, &st, err);
    if (!rc && stats) *stats = st;
    free(c.rec);
    return rc;
}
