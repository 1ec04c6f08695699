/* erk8.c - the erk8 stepper: Fehlberg 7(8) from ARKODE's table, stepped
 * with compensated sums, roots bracketed at step ends, dense output by
 * re-stepping (see erk8.h). */
#include "solver/erk8.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arkode/arkode_butcher_erk.h>

#define TABLE      ARKODE_FEHLBERG_13_7_8
#define MAX_STAGES 13
/* Step size control (Hairer, Norsett & Wanner, II.4): the new step is
 * SAFETY err^(-1/8) times the last (err: the embedded seventh-order
 * estimate's norm, 1 at the tolerance), within [SHRINK_MIN, GROW_MAX]. */
#define SAFETY     0.9
#define GROW_MAX   5.0
#define SHRINK_MIN 0.2
/* Failures of one step (error test or a recoverable right-hand side) before
 * the run fails. */
#define MAX_TRIES 60
/* The first step of a segment, as a fraction of the natural step |y|/|y'|
 * (in the error weights' norm); small, the controller grows it 5x a step. */
#define FIRST_FRACTION 1e-3

struct stsl_erk8 {
    stsl_erk8_spec sp;
    int N;        /* n + n_quad */
    double *atol; /* n */
    ARKodeButcherTable B;
    double tstop, h; /* h: the next step's proposed size (0: not yet chosen) */
    const int *dirs; /* the guards' directions (borrowed until the next reinit) */
    /* The last step [tn, tn1]: its start state yn (+ its compensation cn)
     * and its end state yn1 (+ cn1). */
    double tn, tn1;
    double *yn, *cn, *yn1, *cn1;
    double *gn, *gn1; /* the guards at tn and tn1 (n_roots) */
    int *found;       /* guards that crossed in the last step: +1 rising, -1 falling */
    int end_ok;       /* yn1 is the step's end (not yet replaced by a root's state) */
    double *K;        /* the step's stages (MAX_STAGES x N); K[0] = f(tn1, yn1) when k0_next */
    double *R;        /* the re-step's stages; R[0] = f(tn, yn) when r0_ok */
    int r0_ok;
    double *z, *w, *acc, *err; /* N each */
    long steps;
    char msg[256];
};

static int eval(stsl_erk8 *e, double t, const double *y, double *out)
{
    int rc = e->sp.rhs(t, y, out, e->sp.ud);
    if (!rc && e->sp.n_quad > 0) rc = e->sp.quad(t, y, out + e->sp.n, e->sp.ud);
    return rc;
}

/* ---- create / free ---------------------------------------------------------- */

stsl_erk8 *stsl_erk8_create(const stsl_erk8_spec *spec, const char **why)
{
    *why = "out of memory";
    stsl_erk8 *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->sp = *spec;
    e->N = spec->n + spec->n_quad;
    size_t N = (size_t)e->N, r = (size_t)(spec->n_roots > 0 ? spec->n_roots : 1);
    double **vec[] = {&e->yn, &e->cn, &e->yn1, &e->cn1, &e->z, &e->w, &e->acc, &e->err};
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++)
        if (!(*vec[i] = calloc(N, sizeof(double)))) goto fail;
    e->atol = malloc((size_t)spec->n * sizeof(double));
    e->gn = calloc(r, sizeof(double));
    e->gn1 = calloc(r, sizeof(double));
    e->found = calloc(r, sizeof(int));
    e->K = calloc(MAX_STAGES * N, sizeof(double));
    e->R = calloc(MAX_STAGES * N, sizeof(double));
    if (!e->atol || !e->gn || !e->gn1 || !e->found || !e->K || !e->R) goto fail;
    memcpy(e->atol, spec->atol, (size_t)spec->n * sizeof(double));
    e->sp.atol = e->atol;
    *why = "ARKODE has no Fehlberg 7(8) table";
    e->B = ARKodeButcherTable_LoadERK(TABLE);
    if (!e->B || e->B->stages > MAX_STAGES || !e->B->d) goto fail;
    return e;
fail:
    stsl_erk8_free(e);
    return NULL;
}

void stsl_erk8_free(stsl_erk8 *e)
{
    if (!e) return;
    if (e->B) ARKodeButcherTable_Free(e->B);
    void *all[] = {e->yn,  e->cn,   e->yn1, e->cn1, e->z,     e->w, e->acc,
                   e->err, e->atol, e->gn,  e->gn1, e->found, e->K, e->R};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i]);
    free(e);
}

/* ---- stepping --------------------------------------------------------------- */

int stsl_erk8_reinit(stsl_erk8 *e, double t, const double *y, const int *dirs, double tstop)
{
    size_t bytes = (size_t)e->N * sizeof(double);
    memset(e->yn1, 0, bytes);
    memcpy(e->yn1, y, (size_t)e->sp.n * sizeof(double));
    memset(e->cn1, 0, bytes);
    memcpy(e->yn, e->yn1, bytes);
    memset(e->cn, 0, bytes);
    e->tn = e->tn1 = t;
    e->tstop = tstop;
    e->dirs = dirs;
    e->h = 0.0;
    e->end_ok = 1;
    e->r0_ok = 0;
    e->steps = 0;
    if (eval(e, t, e->yn1, e->K)) return -1; /* the first step's first stage */
    return e->sp.n_roots > 0 ? e->sp.roots(t, e->yn1, e->gn1, e->sp.ud) : 0;
}

/* 1 / (rtol |y_i| + atol_i): CVODE's error weights, on the state only (the
 * quadratures are not controlled). */
static double weight(const stsl_erk8 *e, const double *y, int i)
{
    return 1.0 / (e->sp.rtol * fabs(y[i]) + e->atol[i]);
}

/* Root mean square of v in the error weights at y, over the state. */
static double wrms(const stsl_erk8 *e, const double *y, const double *v)
{
    double s = 0.0;
    for (int i = 0; i < e->sp.n; i++) {
        double x = v[i] * weight(e, y, i);
        s += x * x;
    }
    return sqrt(s / e->sp.n);
}

/* The stages of a step of size h from (t, y + c) into K (K[0] given):
 * acc = sum b_i K_i and, with est, err = h sum (b_i - d_i) K_i.  The
 * compensation c joins every stage's argument, so that the state is
 * y + c to the last bit it carries. */
static int stages(stsl_erk8 *e, double t, double h, const double *y, const double *c, double *K,
                  int est)
{
    const ARKodeButcherTable B = e->B;
    int S = B->stages, N = e->N;
    for (int i = 1; i < S; i++) {
        for (int m = 0; m < N; m++) {
            double a = 0.0;
            for (int j = 0; j < i; j++)
                a += B->A[i][j] * K[j * N + m];
            e->z[m] = y[m] + (h * a + c[m]);
        }
        int rc = eval(e, t + B->c[i] * h, e->z, K + i * N);
        if (rc) return rc;
    }
    for (int m = 0; m < N; m++) {
        double a = 0.0, d = 0.0;
        for (int i = 0; i < S; i++) {
            a += B->b[i] * K[i * N + m];
            if (est) d += (B->b[i] - B->d[i]) * K[i * N + m];
        }
        e->acc[m] = a;
        e->err[m] = h * d;
    }
    return 0;
}

/* A first step for a segment at (tn, yn) with rate K[0]. */
static double first_step(const stsl_erk8 *e, double hmax, double room)
{
    double d0 = wrms(e, e->yn, e->yn), d1 = wrms(e, e->yn, e->K);
    double h = d1 > 1e-5 && d0 > 1e-5 ? FIRST_FRACTION * d0 / d1 : 1e-6;
    if (hmax > 0.0 && h > hmax) h = hmax;
    return h < room ? h : room;
}

/* Guards that crossed between gn and gn1 in their directions (CVODE's
 * convention: a guard at 0 where the step starts has not crossed). */
static int find_roots(stsl_erk8 *e)
{
    int any = 0;
    for (int i = 0; i < e->sp.n_roots; i++) {
        double a = e->gn[i], b = e->gn1[i];
        int up = a < 0.0 && b >= 0.0, down = a > 0.0 && b <= 0.0, d = e->dirs ? e->dirs[i] : 0;
        e->found[i] = (d >= 0 && up) ? 1 : (d <= 0 && down) ? -1 : 0;
        any |= e->found[i] != 0;
    }
    return any;
}

/* Accept the step of size h from (tn, yn + cn) to t1: the state update as
 * a compensated (Kahan) sum, so that the increments' roundings, each of
 * them half an ulp of y, do not accumulate over thousands of steps. */
static void accept(stsl_erk8 *e, double t1, double h)
{
    for (int m = 0; m < e->N; m++) {
        double inc = h * e->acc[m] + e->cn[m], y1 = e->yn[m] + inc;
        e->cn1[m] = inc - (y1 - e->yn[m]);
        e->yn1[m] = y1;
    }
    e->tn1 = t1;
    e->steps++;
}

int stsl_erk8_step(stsl_erk8 *e, double hmax, double *tret, double *y)
{
    size_t bytes = (size_t)e->N * sizeof(double);
    /* The step about to be taken starts where the last one ended. */
    double *sw = e->yn;
    e->yn = e->yn1, e->yn1 = sw;
    sw = e->cn, e->cn = e->cn1, e->cn1 = sw;
    sw = e->gn, e->gn = e->gn1, e->gn1 = sw;
    e->tn = e->tn1;
    memcpy(e->R, e->K, bytes); /* f(tn, yn): the re-steps' first stage */
    e->r0_ok = 1;
    e->end_ok = 0;
    e->msg[0] = '\0';
    double room = e->tstop - e->tn;
    if (!(room > 0.0)) {
        snprintf(e->msg, sizeof e->msg, "no room before the stop time %.17g", e->tstop);
        return -1;
    }
    double h = e->h > 0.0 ? e->h : first_step(e, hmax, room);
    for (int tries = 0;; tries++) {
        if (hmax > 0.0 && h > hmax) h = hmax;
        /* A step that would leave a sliver before the stop time reaches it. */
        double t1 = h >= room || room - h < 0.01 * h ? e->tstop : e->tn + h;
        h = t1 - e->tn; /* the step's size as t carries it */
        if (!(h > 0.0) || tries > MAX_TRIES) {
            snprintf(e->msg, sizeof e->msg, "step size %.3g s below the resolution of t = %.17g s",
                     h, e->tn);
            return -2;
        }
        memcpy(e->K, e->R, bytes);
        int rc = stages(e, e->tn, h, e->yn, e->cn, e->K, 1);
        if (rc < 0) return -3;
        if (rc > 0) {
            h *= 0.25; /* a recoverable failure of the right-hand side: retry smaller */
            continue;
        }
        double en = wrms(e, e->yn, e->err);
        double fac = en > 0.0 ? SAFETY * pow(en, -1.0 / 8.0) : GROW_MAX;
        if (!(en <= 1.0)) {
            h *= fmax(SHRINK_MIN, fmin(fac, 1.0));
            continue;
        }
        accept(e, t1, h);
        e->h = h * fmin(GROW_MAX, fmax(SHRINK_MIN, fac));
        break;
    }
    e->end_ok = 1;
    if (eval(e, e->tn1, e->yn1, e->K)) return -3; /* the next step's first stage */
    if (e->sp.n_roots > 0 && e->sp.roots(e->tn1, e->yn1, e->gn1, e->sp.ud)) return -4;
    *tret = e->tn1;
    memcpy(y, e->yn1, bytes);
    if (find_roots(e)) return STSL_ERK8_ROOT;
    return e->tn1 == e->tstop ? STSL_ERK8_TSTOP : STSL_ERK8_STEP;
}

/* e->w = one step of the table from (tn, yn + cn) to t. */
static int restep(stsl_erk8 *e, double t)
{
    double h = t - e->tn;
    if (!e->r0_ok) {
        if (eval(e, e->tn, e->yn, e->R)) return -1;
        e->r0_ok = 1;
    }
    if (stages(e, e->tn, h, e->yn, e->cn, e->R, 0)) return -1;
    for (int m = 0; m < e->N; m++)
        e->w[m] = e->yn[m] + (h * e->acc[m] + e->cn[m]);
    return 0;
}

int stsl_erk8_dense(stsl_erk8 *e, double t, int k, double *out)
{
    size_t bytes = (size_t)e->N * sizeof(double);
    if (!(t >= e->tn && t <= e->tn1)) return -1;
    const double *y;
    if (t == e->tn) {
        y = e->yn;
    } else if (t == e->tn1 && e->end_ok) {
        y = e->yn1;
    } else {
        if (restep(e, t)) return -1;
        y = e->w;
    }
    if (k == 0) {
        memcpy(out, y, bytes);
        return 0;
    }
    if (y == e->yn) {
        if (!e->r0_ok && eval(e, e->tn, e->yn, e->R)) return -1;
        e->r0_ok = 1;
        memcpy(out, e->R, bytes);
        return 0;
    }
    if (y == e->yn1) {
        memcpy(out, e->K, bytes); /* f(tn1, yn1), the next step's first stage */
        return 0;
    }
    return eval(e, t, y, out) ? -1 : 0;
}

void stsl_erk8_last_step(const stsl_erk8 *e, double *tn, double *tn1)
{
    *tn = e->tn;
    *tn1 = e->tn1;
}

int stsl_erk8_root_info(stsl_erk8 *e, int *found)
{
    memcpy(found, e->found, (size_t)(e->sp.n_roots > 0 ? e->sp.n_roots : 0) * sizeof(int));
    return 0;
}

long stsl_erk8_steps(const stsl_erk8 *e)
{
    return e->steps;
}

const char *stsl_erk8_message(const stsl_erk8 *e)
{
    return e->msg[0] ? e->msg : "a right-hand side or guard failed";
}

const char *stsl_erk8_flag_name(int flag)
{
    switch (flag) {
    case -1:
        return "ERK8_NO_ROOM";
    case -2:
        return "ERK8_TOO_SMALL_STEP";
    case -3:
        return "ERK8_RHSFUNC_FAIL";
    case -4:
        return "ERK8_RTFUNC_FAIL";
    default:
        return "ERK8_FAILURE";
    }
}
