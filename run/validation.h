/* validation.h - metrics of a candidate trajectory against a reference
 * evaluated at the same time points: the one definition used by both
 * `stickslip compare` and `stickslip converge`.
 *
 * Pure functions on arrays: no files, no solver, so that every definition
 * can be tested on hand-made data.  The two trajectories share one time
 * grid t[0..n-1], which is non-decreasing; a repeated time is a jump (the
 * value just before, then just after, as stickslip writes every event), so
 * an interval of zero length carries no weight in the time integrals. */
#ifndef STSL_COMPARE_H
#define STSL_COMPARE_H

#include "solver/status.h"

/* Errors of x and v, candidate minus reference. */
typedef struct stsl_cmp_errors {
    double max_abs_x, max_abs_v; /* max over all samples of |cand - ref| */
    /* Time-weighted RMS: sqrt(integral of e^2 dt / (t_last - t_first)), the
     * integral by the trapezoidal rule on the grid, so that the candidate's
     * sampling density does not weigh some parts of the run more. */
    double rms_x, rms_v;
    double final_x, final_v; /* signed error at the last sample */
} stsl_cmp_errors;

/* Errors of (xc, vc) against (xr, vr) on the grid t (n >= 1; with n == 1 or
 * a grid of zero length the RMS is that of the samples). */
void stsl_compare_errors(const double *t, const double *xr, const double *vr, const double *xc,
                         const double *vc, long n, stsl_cmp_errors *out);

/* Stuck time on the grid: the interval [t_i, t_{i+1}] counts as stuck when
 * the samples at both of its ends are stuck (an element found at rest at
 * one end only was moving during part of it). */
typedef struct stsl_cmp_stuck {
    double ref_time, cand_time; /* stuck time of each */
    double intersection, union_;
    double iou; /* intersection / union; 1 when neither is ever stuck (they agree) */
} stsl_cmp_stuck;

void stsl_compare_stuck(const double *t, const unsigned char *ref_stuck,
                        const unsigned char *cand_stuck, long n, stsl_cmp_stuck *out);

/* The same figures by the rule of a result's own rows (`stickslip info`'s
 * time in a mode, and the comparison of systems' results): sample i's
 * flag holds until sample i + 1.  On rows that hold both sides of every
 * event (a stickslip result: the two rows of an event instant add no
 * time) the times are then exact, whatever the grid between events. */
void stsl_compare_stuck_held(const double *t, const unsigned char *ref_stuck,
                             const unsigned char *cand_stuck, long n, stsl_cmp_stuck *out);

/* Event classes: kinds that are compatible for matching.  A candidate
 * without an event list (a CSV) can only see the element come to rest,
 * start moving, or turn round; the reference's finer kinds map onto those. */
typedef enum stsl_cmp_class {
    STSL_CMP_REST = 0,  /* stick, stop_contact: comes to rest */
    STSL_CMP_START = 1, /* breakaway, stop_release: starts moving */
    STSL_CMP_TURN = 2,  /* reversal, impact: velocity changes sign without rest */
    STSL_CMP_NONE = -1  /* load_reversal, input_step, unknown: restarts of the
                           integrator, invisible in a trajectory; not matched */
} stsl_cmp_class;

/* Class of an event kind name (as in /events/kind). */
stsl_cmp_class stsl_compare_event_class(const char *kind);

typedef struct stsl_cmp_event {
    double t;
    char kind[24];
    stsl_cmp_class cls;
} stsl_cmp_event;

/* An event at t of the kind named `kind` (NULL: "?"), its class from the name. */
void stsl_compare_event_set(stsl_cmp_event *e, double t, const char *kind);

/* Events seen in a sampled trajectory (for candidates without an event
 * list).  A run of stuck samples spanning some time is a rest: `stick` at
 * its first sample (unless it opens the trajectory), `breakaway` at its
 * last (unless it closes it).  A run of stuck samples at one instant (the
 * samples of an event: v = 0 just after a turning point) between moving
 * samples of opposite signs is a `reversal` at that instant; so is a sign
 * change between two moving samples, at the linearly interpolated zero.
 * *out is malloc'd (NULL when there are none); returns the count or -1
 * when out of memory. */
long stsl_compare_derive_events(const double *t, const double *v, const unsigned char *stuck,
                                long n, stsl_cmp_event **out);

typedef struct stsl_cmp_pair {
    long ref, cand; /* indices into the two event lists */
    double dt;      /* t_cand - t_ref */
} stsl_cmp_pair;

typedef struct stsl_cmp_matching {
    long n_matched, n_missed, n_spurious;
    stsl_cmp_pair *pairs;               /* n_matched, in order of the reference events */
    long *missed;                       /* n_missed reference indices */
    long *spurious;                     /* n_spurious candidate indices */
    double max_abs_dt;                  /* max |dt| over the pairs; 0 without pairs */
    long n_ignored_ref, n_ignored_cand; /* events of class STSL_CMP_NONE */
} stsl_cmp_matching;

/* One-to-one matching of events of the same class with |t_cand - t_ref| <=
 * window: the closest pairs first (all admissible pairs sorted by |dt|,
 * taken greedily while both events are free; ties by reference time), so
 * that a late candidate event cannot take the partner of a closer one.
 * Reference events left are missed, candidate events left spurious; events
 * of class STSL_CMP_NONE are counted as ignored.  Both lists must be sorted
 * by time.  On failure (out of memory) *m holds nothing to free. */
int stsl_compare_match_events(const stsl_cmp_event *ref, long n_ref, const stsl_cmp_event *cand,
                              long n_cand, double window, stsl_cmp_matching *m, stsl_error *err);
void stsl_compare_matching_free(stsl_cmp_matching *m);

/* Energy dissipated by friction, integral of F_f v dt, by the trapezoidal
 * rule on the grid (zero-length intervals contribute nothing). */
double stsl_compare_energy_friction(const double *t, const double *friction, const double *v,
                                    long n);
/* The same from the energy balance m a = F_n - F_f (+ R, which does no work:
 * v = 0 on a stop):  integral of F_f v dt = integral of F_n v dt - m [v^2/2],
 * the first integral by the midpoint rule with fn_mid[i] = F_n at the middle
 * of interval i (n - 1 values) and v at the middle as the mean of its ends.
 * This is the discrete form of F_f = F_n - m dv/dt with dv/dt the velocity
 * difference over each interval.  A velocity jump (an impact) counts its
 * kinetic-energy loss as dissipated. */
double stsl_compare_energy_balance(const double *t, const double *v, const double *fn_mid,
                                   double mass, long n);

/* Order of convergence: the least-squares slope of log(err[i]) against
 * log(h[i]) over the points with err > 0 (*used of them); NaN with fewer
 * than two such points or a single step. */
double stsl_compare_fit_order(const double *h, const double *err, int n, int *used);

/* Default --stuck-velocity: STSL_CMP_STUCK_REL times the largest |v| of
 * the reference, but at least `atol` (the reference's absolute tolerance:
 * a velocity it cannot tell from zero).  Relative, because a fixed-step
 * scheme's or a smooth law's "at rest" is small compared with the motion,
 * not with 1 m/s; taken from the reference so that every candidate of one
 * reference is judged by the same threshold. */
#define STSL_CMP_STUCK_REL 1e-6
double stsl_compare_default_stuck_velocity(const double *v_ref, long n, double atol);
/* Default --event-window: STSL_CMP_WINDOW_STEPS times the candidate's median
 * time step (of the steps > 0; 0 when there is none).  A fixed-step scheme
 * places an event on a step boundary, so locating it costs up to one step,
 * and its accumulated phase error a few more; the window stays far below
 * the spacing of same-kind events (hundreds of steps in a resolved run), so
 * that a missed event is not paired with a distant spurious one. */
#define STSL_CMP_WINDOW_STEPS 5.0
double stsl_compare_default_event_window(const double *t, long n);

#endif
