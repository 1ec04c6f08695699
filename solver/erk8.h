/* erk8.h - the explicit eighth-order stepper of the hybrid solver's `erk8`
 * method: Fehlberg's 13-stage 7(8) pair (the coefficients: ARKODE's table,
 * the one eighth-order explicit table SUNDIALS 6.4 ships), the eighth-order
 * solution propagated, the seventh-order one for the step size control.
 *
 * Why not ARKODE's ERKStep itself: it adds each stage's share to the state
 * separately (a linear combination of 14 vectors), about nine roundings of
 * half an ulp of y a step, and they accumulate: on the Janecek chirp the
 * event times stopped improving at 4e-14 s, whatever the tolerance (and
 * got worse below rtol 1e-13, with more steps; its controller also took
 * 3 to 4 times the steps of this one).  Here the increment h sum b_i K_i
 * is summed first and added once: 1.8e-15 s, one ulp of t.
 * The addition is a compensated (Kahan) sum besides, so that a long run
 * without events does not accumulate even that half ulp a step (the cases
 * measured have events often enough not to show it).  ARKODE's rootfinding
 * (to 100 uround (|t| + |h|)) and its Hermite dense output (degree <= 5,
 * far less accurate than the steps) were of no use at this accuracy.
 *
 * Dense output.  The state at a time t inside the last step [tn, tn+1] is
 * computed by re-stepping: one step of the same table from (tn, yn) with
 * h = t - tn, whose local error, C (t - tn)^9, is below the accepted
 * step's.  It costs one step (12 right-hand sides; the first stage is
 * kept), and it is a smooth function of t, so roots on it can be located
 * to the rounding of t (the hybrid solver does that).
 *
 * Roots: a guard that changes sign between two step ends in its direction
 * (CVODE's convention) ends the step with STSL_ERK8_ROOT; the caller
 * locates it on the dense output.
 *
 * Quadratures: n_quad components appended to the state, integrated by the
 * same steps without weight in the error control (the hybrid solver's work
 * integral), so that they cannot change a single step of the state. */
#ifndef STSL_ERK8_H
#define STSL_ERK8_H

/* out = f(t, y): the state's rate, the quadratures' integrands, or the
 * guards (y: the state, n values, followed by the quadratures).  Return 0,
 * > 0 recoverable, < 0 fatal (ARKODE's convention). */
typedef int (*stsl_erk8_fn)(double t, const double *y, double *out, void *ud);

typedef struct stsl_erk8_spec {
    int n, n_quad, n_roots;
    stsl_erk8_fn rhs, quad, roots; /* quad: NULL when n_quad == 0 */
    void *ud;
    double rtol;
    const double *atol; /* n values */
} stsl_erk8_spec;

/* What a step ended on. */
enum { STSL_ERK8_STEP = 0, STSL_ERK8_TSTOP = 1, STSL_ERK8_ROOT = 2 };

typedef struct stsl_erk8 stsl_erk8;

/* NULL on failure (allocation or setup; *why names it). */
stsl_erk8 *stsl_erk8_create(const stsl_erk8_spec *spec, const char **why);
void stsl_erk8_free(stsl_erk8 *e);

/* A new segment at (t, y) (n values; the quadratures restart at 0), with
 * the guards' directions (n_roots values, CVODE's convention) and a stop
 * time the steps land on.  0, or < 0. */
int stsl_erk8_reinit(stsl_erk8 *e, double t, const double *y, const int *dirs, double tstop);

/* One step, at most hmax long (0: unbounded), landing on the stop time if
 * it reaches it: *tret and y (n + n_quad values) get the step's end.
 * Returns STSL_ERK8_*, or < 0 for a failure (stsl_erk8_message says why). */
int stsl_erk8_step(stsl_erk8 *e, double hmax, double *tret, double *y);

/* The state (k = 0) or its rate (k = 1) at t in the last step [tn, tn+1],
 * by re-stepping (see above): n values, then the n_quad quadratures (their
 * integrals since the segment's start, or their integrands).  0, or < 0
 * for a t outside the step or a failed right-hand side. */
int stsl_erk8_dense(stsl_erk8 *e, double t, int k, double *out);

/* The last step: [*tn, *tn1]. */
void stsl_erk8_last_step(const stsl_erk8 *e, double *tn, double *tn1);
/* Which guards crossed in the last step (after STSL_ERK8_ROOT): n_roots
 * values, +1 rising, -1 falling, 0 none. */
int stsl_erk8_root_info(stsl_erk8 *e, int *found);
/* Steps since the last reinit. */
long stsl_erk8_steps(const stsl_erk8 *e);
/* Why the last step failed, and the name of a failure flag. */
const char *stsl_erk8_message(const stsl_erk8 *e);
const char *stsl_erk8_flag_name(int flag);

#endif
