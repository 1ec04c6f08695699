/* bench_plain_cvode.c - the Janecek chirp (SPEC §3) the textbook way, as
 * the SUNDIALS examples switch modes (cvRocket_dns.c): one CVODE instance
 * per run (serial N_Vector), integrated with CVode(CV_NORMAL) to t_end with
 * rootfinding on the current mode's guards; at a root the mode changes and
 * CVodeReInit restarts the integration.  The stuck mode is integrated too,
 * as the ODE x' = v' = 0 (relative to the base) whose guards move with
 * time, under the one step bound a user would set for the input: 1/20 of
 * the chirp's highest period, for the whole run.  No special handling: no
 * guard sampling, no dense-output checks, no reuse of step sizes.
 *
 * This is the yardstick bench_janecek measures stickslip against; it must
 * give the reference's 13 events (plain_check_events).
 *
 * usage (the standalone program): bench_plain_cvode [RTOL] [RUNS_PER_BATCH] [BATCHES] [bdf]
 *
 * Built with BENCH_PLAIN_ONCE instead (bench_plain_once, linked with
 * SUNDIALS' static archives and nothing of stickslip): one run at the
 * tolerances of examples/janecek_chirp.yaml, silent, exit 0 when the
 * events are the reference's: the floor of bench_process.
 * usage: bench_plain_once [RTOL] */
#include "benchmarks/bench_plain_cvode.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "physics/modes.h"
#include "test/reference/janecek_events.h"

/* SPEC §3, examples/janecek_chirp.yaml. */
#define M_KG     100.0
#define C_NS_M   200.0
#define F_N_HZ   1.5
#define F_STAT   26.0
#define F_KIN    18.0
#define AMP      0.05
#define F_MAX_HZ 0.825
#define T_MAX    9.5
#define T_END    9.5
/* Steps per period of the input's highest frequency (stickslip's own
 * SAMPLES_PER_PERIOD), so that the stuck mode's guards are seen. */
#define STEPS_PER_PERIOD 20.0

typedef struct plain {
    double k, kw; /* spring stiffness, chirp rate pi f_max / T_max */
    int mode;     /* STSL_MODE_STUCK, _SLIP_POS or _SLIP_NEG */
} plain;

/* Base acceleration z1''(t) of z1 = A sin(kw t^2). */
static double base_acc(const plain *p, double t)
{
    double ph = p->kw * t * t;
    return 2.0 * AMP * p->kw * (cos(ph) - 2.0 * p->kw * t * t * sin(ph));
}

/* Non-friction force on the element (relative frame). */
static double f_net(const plain *p, double t, double x, double v)
{
    return -p->k * x - C_NS_M * v - M_KG * base_acc(p, t);
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *ud)
{
    const plain *p = ud;
    const double *u = N_VGetArrayPointer(y);
    double *du = N_VGetArrayPointer(ydot);
    if (p->mode == STSL_MODE_STUCK) {
        du[0] = du[1] = 0.0;
        return 0;
    }
    double s = p->mode == STSL_MODE_SLIP_POS ? 1.0 : -1.0;
    du[0] = u[1];
    du[1] = (f_net(p, t, u[0], u[1]) - s * F_KIN) / M_KG;
    return 0;
}

/* Stuck: breakaway forward (g0 rising) or backward (g1 rising).  Slip: the
 * velocity through zero (g0, falling in SLIP_POS, rising in SLIP_NEG). */
static int roots(sunrealtype t, N_Vector y, sunrealtype *g, void *ud)
{
    const plain *p = ud;
    const double *u = N_VGetArrayPointer(y);
    if (p->mode == STSL_MODE_STUCK) {
        double fn = f_net(p, t, u[0], 0.0);
        g[0] = fn - F_STAT;
        g[1] = -fn - F_STAT;
    } else {
        g[0] = u[1];
        g[1] = 1.0; /* unused */
    }
    return 0;
}

/* The mode after a root in the current mode (SPEC §1.2); sets v = 0 where
 * the element stops or reverses. */
static int next_mode(plain *p, double t, double *u, const int *found, int *kind)
{
    if (p->mode == STSL_MODE_STUCK) {
        *kind = STSL_EV_BREAKAWAY;
        return found[0] ? STSL_MODE_SLIP_POS : STSL_MODE_SLIP_NEG;
    }
    u[1] = 0.0;
    double fn = f_net(p, t, u[0], 0.0);
    if (fabs(fn) <= F_STAT) {
        *kind = STSL_EV_STICK;
        return STSL_MODE_STUCK;
    }
    int to = fn > 0.0 ? STSL_MODE_SLIP_POS : STSL_MODE_SLIP_NEG;
    *kind = to != p->mode ? STSL_EV_REVERSAL : -1;
    return to;
}

static int set_directions(void *cv, int mode)
{
    int dir[2] = {1, 1};
    if (mode == STSL_MODE_SLIP_POS) dir[0] = -1;
    return CVodeSetRootDirection(cv, dir);
}

typedef struct plain_mem {
    SUNContext ctx;
    N_Vector y, atol;
    void *cv;
    SUNNonlinearSolver nls;
    SUNMatrix J;
    SUNLinearSolver ls;
} plain_mem;

static void plain_free(plain_mem *m)
{
    if (m->cv) CVodeFree(&m->cv);
    if (m->nls) SUNNonlinSolFree(m->nls);
    if (m->ls) SUNLinSolFree(m->ls);
    if (m->J) SUNMatDestroy(m->J);
    if (m->y) N_VDestroy(m->y);
    if (m->atol) N_VDestroy(m->atol);
    if (m->ctx) SUNContext_Free(&m->ctx);
}

static int plain_setup(plain_mem *m, plain *p, double rtol, const double atol[2], int bdf)
{
    if (SUNContext_Create(NULL, &m->ctx)) return -1;
    m->y = N_VNew_Serial(2, m->ctx);
    m->atol = N_VNew_Serial(2, m->ctx);
    if (!m->y || !m->atol) return -1;
    NV_Ith_S(m->atol, 0) = atol[0];
    NV_Ith_S(m->atol, 1) = atol[1];
    N_VConst(0.0, m->y); /* at rest, stuck (|m z1''(0)| = 2.7 N < F_STAT) */
    m->cv = CVodeCreate(bdf ? CV_BDF : CV_ADAMS, m->ctx);
    if (!m->cv || CVodeInit(m->cv, rhs, 0.0, m->y) || CVodeSVtolerances(m->cv, rtol, m->atol) ||
        CVodeSetUserData(m->cv, p) || CVodeRootInit(m->cv, 2, roots))
        return -1;
    if (bdf) {
        m->J = SUNDenseMatrix(2, 2, m->ctx);
        m->ls = m->J ? SUNLinSol_Dense(m->y, m->J, m->ctx) : NULL;
        if (!m->ls || CVodeSetLinearSolver(m->cv, m->ls, m->J)) return -1;
    } else {
        m->nls = SUNNonlinSol_FixedPoint(m->y, 0, m->ctx);
        if (!m->nls || CVodeSetNonlinearSolver(m->cv, m->nls)) return -1;
    }
    if (CVodeSetNoInactiveRootWarn(m->cv) || CVodeSetMaxNumSteps(m->cv, 100000)) return -1;
    if (CVodeSetMaxStep(m->cv, 1.0 / (STEPS_PER_PERIOD * F_MAX_HZ))) return -1;
    return set_directions(m->cv, p->mode);
}

/* Add the segment's counters to the run's. */
static void count(plain_mem *m, const plain *p, plain_result *out)
{
    long nst = 0, nfe = 0;
    CVodeGetNumSteps(m->cv, &nst);
    CVodeGetNumRhsEvals(m->cv, &nfe);
    out->steps += nst;
    out->rhs_evals += nfe;
    if (p->mode == STSL_MODE_STUCK) out->steps_stuck += nst;
}

int plain_janecek_run(double rtol, const double atol[2], int bdf, plain_result *out)
{
    plain p = {M_KG * pow(2.0 * M_PI * F_N_HZ, 2), M_PI * F_MAX_HZ / T_MAX, STSL_MODE_STUCK};
    plain_mem m = {0};
    out->n_events = 0;
    out->steps = out->steps_stuck = out->rhs_evals = 0;
    int rc = plain_setup(&m, &p, rtol, atol, bdf);
    double t = 0.0;
    while (!rc && t < T_END) {
        rc = CVode(m.cv, T_END, m.y, &t, CV_NORMAL);
        if (rc != CV_ROOT_RETURN) break;
        int found[2], kind;
        double *u = N_VGetArrayPointer(m.y);
        CVodeGetRootInfo(m.cv, found);
        count(&m, &p, out);
        int to = next_mode(&p, t, u, found, &kind);
        if (kind >= 0 && out->n_events < PLAIN_MAX_EVENTS)
            out->ev[out->n_events++] = (plain_event){kind, t, u[0]};
        p.mode = to;
        rc = CVodeReInit(m.cv, t, m.y) || set_directions(m.cv, p.mode) ? -1 : 0;
    }
    if (rc >= 0) {
        count(&m, &p, out);
        rc = 0;
    }
    plain_free(&m);
    return rc;
}

int plain_check_events(const plain_result *r, double tol_t, double *max_err, char *msg, int n)
{
    *max_err = 0.0;
    if (r->n_events != N_REF) {
        snprintf(msg, (size_t)n, "%d events, the reference has %ld", r->n_events, N_REF);
        return 1;
    }
    for (int i = 0; i < N_REF; i++) {
        if (r->ev[i].kind != janecek_ref[i].kind ||
            !(fabs(r->ev[i].t - janecek_ref[i].t) <= tol_t)) {
            snprintf(msg, (size_t)n, "event %d: kind %d at t = %.17g, the reference: %d at %.17g",
                     i, r->ev[i].kind, r->ev[i].t, janecek_ref[i].kind, janecek_ref[i].t);
            return 1;
        }
        *max_err = fmax(*max_err, fabs(r->ev[i].t - janecek_ref[i].t));
    }
    return 0;
}

#ifdef BENCH_PLAIN_MAIN
#include "benchmarks/bench_util.h"

#define MAX_BATCHES 101

int main(int argc, char **argv)
{
    double rtol = argc > 1 ? atof(argv[1]) : 1e-8;
    int runs = argc > 2 ? atoi(argv[2]) : 500;
    int batches = argc > 3 ? atoi(argv[3]) : 7;
    int bdf = argc > 4 && argv[4][0] == 'b';
    if (runs < 1 || batches < 1 || batches > MAX_BATCHES)
        bench_die(argv[0], "usage", "[RTOL] [RUNS >= 1] [BATCHES 1..101] [bdf]");
    double per_run[MAX_BATCHES];
    plain_result r;
    for (int b = 0; b < batches; b++) {
        double t0 = bench_now();
        for (int i = 0; i < runs; i++)
            if (plain_janecek_run(rtol, (const double[2]){1e-12, 1e-12}, bdf, &r))
                bench_die(argv[0], "run", "CVODE failed");
        per_run[b] = (bench_now() - t0) / runs;
    }
    char msg[256];
    double err;
    /* 1e-6 s: at rtol 1e-8 the event times are good to ~1e-7 s (issue 11). */
    if (plain_check_events(&r, 1e-6 + 1e4 * rtol, &err, msg, sizeof msg))
        bench_die(argv[0], "events differ from the reference", msg);
    printf("plain CVODE (%s) janecek rtol=%.0e: %.1f us/run, %ld steps/run (%ld stuck), %ld "
           "rhs/run, %d events (the reference's, times within %.1e s)\n",
           bdf ? "bdf+dense" : "adams+fixed point", rtol, 1e6 * bench_median(per_run, batches),
           r.steps, r.steps_stuck, r.rhs_evals, r.n_events, err);
    return 0;
}
#endif

#ifdef BENCH_PLAIN_ONCE
/* The example's tolerances: rtol 1e-10, atol by stickslip's rule
 * (README, Numerics): rtol x 1e-3 x the natural scales, length F_STAT/k
 * (the stick band's width, below the base amplitude) and velocity that
 * length over sqrt(m/k). */
int main(int argc, char **argv)
{
    double rtol = argc > 1 ? atof(argv[1]) : 1e-10;
    double k = M_KG * pow(2.0 * M_PI * F_N_HZ, 2), len = F_STAT / k;
    double atol[2] = {rtol * 1e-3 * len, rtol * 1e-3 * len / sqrt(M_KG / k)};
    plain_result r;
    if (plain_janecek_run(rtol, atol, 0, &r)) {
        fprintf(stderr, "%s: CVODE failed\n", argv[0]);
        return 3;
    }
    char msg[256];
    double err;
    if (plain_check_events(&r, 1e-6 + 1e4 * rtol, &err, msg, sizeof msg)) {
        fprintf(stderr, "%s: events differ from the reference: %s\n", argv[0], msg);
        return 1;
    }
    return 0;
}
#endif
