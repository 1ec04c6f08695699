/* contact.h - the rules of one contact, written once for the single element
 * and for every contact of a system of bodies (SPEC §1.1, §1.2, §4).
 *
 * Plain numbers in, plain numbers out: forces, levels, velocities,
 * tolerances.  The module knows no element, body or system; the engines
 * evaluate the forces and call it.  The end stops' ops are beside it
 * (physics/end_stop.h).
 *
 * Sign conventions: F_n is the non-friction net force along the contact's
 * positive relative motion; fs_pos = F_S(+1) and fs_neg = F_S(-1) are the
 * static levels (magnitudes, >= 0); a stop `side` is +1 at the upper limit,
 * -1 at the lower one. */
#ifndef STSL_CONTACT_H
#define STSL_CONTACT_H

/* ---- states ------------------------------------------------------------------ */

/* The state of a friction contact.  The numbers are stored in result files
 * (the element's /trajectory/mode, whose first three modes are these; a
 * system's contact_mode columns). */
typedef enum stsl_contact_state {
    STSL_CONTACT_STUCK = 0,
    STSL_CONTACT_SLIP_POS = 1,
    STSL_CONTACT_SLIP_NEG = 2,
    STSL_CONTACT_SMOOTH = 3, /* a smooth law or LuGre: no stuck state */
    STSL_N_CONTACT_STATES = 4
} stsl_contact_state;

/* "STUCK", "SLIP_POS", "SLIP_NEG", "SMOOTH", then NULL; index = state. */
const char *const *stsl_contact_state_names(void);
/* The slip state of direction s (> 0: SLIP_POS, else SLIP_NEG).  Inline,
 * as stsl_contact_band_excess: a fixed-step scheme asks at every step. */
static inline int stsl_contact_slip_state(double s)
{
    return s > 0.0 ? STSL_CONTACT_SLIP_POS : STSL_CONTACT_SLIP_NEG;
}

/* ---- static level (SPEC §1.1) ------------------------------------------------- */

/* Dalla Vedova's load-dependent friction of one contact. */
typedef struct stsl_contact_friction {
    double dynamic;      /* F_DJ >= 0, the level without load */
    double static_ratio; /* FSD >= 1: F_S = FSD F_D */
    double eff_opposing; /* EtO in (0, 1] */
    double eff_aiding;   /* EtA <= 1; <= 0: irreversible (the load cannot back-drive) */
} stsl_contact_friction;

/* The dynamic (*fd) and static (*fs) levels of direction s (+1, -1) under
 * the load F_R = `load`: the load opposes s when s F_R < 0, aids it when
 * s F_R > 0;  F_D = F_DJ + (1/EtO - 1)|F_R| opposing, F_DJ + (1 - EtA)|F_R|
 * aiding, F_DJ without load;  F_S = FSD F_D. */
void stsl_contact_levels(const stsl_contact_friction *f, int s, double load, double *fd,
                         double *fs);

/* ---- decisions (SPEC §1.2) ---------------------------------------------------- */

/* How far the force F_n that a stuck contact holds lies beyond the static
 * level fs of direction s (+1, -1): s F_n - fs; > 0 outside the band, where
 * it breaks away in direction s (the STUCK guards cross 0 there).  A
 * constraint force lambda on the contact's first end holds F_n = -lambda. */
static inline double stsl_contact_band_excess(double fn, int s, double fs)
{
    return s > 0 ? fn - fs : -fn - fs;
}

/* At rest (v = 0) away from the stops: STUCK while -fs_neg <= F_n <= fs_pos
 * (the band is closed), else the slip state in the direction of F_n. */
int stsl_contact_decide_rest(double fn, double fs_pos, double fs_neg);

/* At rest against the rigid stop `side`: it stays (the element's
 * STOP_HIGH / STOP_LOW, physics/modes.h) unless F_n pulls it off harder than
 * the static level of that direction; then it slips away (SLIP_NEG /
 * SLIP_POS). */
int stsl_contact_decide_at_stop(int side, double fn, double fs_pos, double fs_neg);

/* The event a change of state from `from` to `to` records: STICK into
 * STUCK, BREAKAWAY out of it, REVERSAL from one slip direction to the
 * other; STSL_NO_EVENT (-1, solver/hybrid.h) without a change or to or
 * from SMOOTH. */
int stsl_contact_event(int from, int to);

/* The rounding level of a force balance whose terms add up to `scale` in
 * magnitude: STSL_CONTACT_NOISE_ULPS ulps of it.  A margin (a force minus a
 * level, a slip excess) within it is decided by the look-ahead below. */
#define STSL_CONTACT_NOISE_ULPS 64.0 /* half a dozen terms, each rounded once or twice */
double stsl_contact_noise(double scale);

/* SPEC "Touching the static level": a margin within rounding at time t is
 * decided by its first sample after t that stands clear of rounding, at
 * t + tau with tau = lookahead_start(t) 2^k up to lookahead_horizon (the
 * inputs' time scale `max_step`, or STSL_CONTACT_LOOKAHEAD_REL max(1, |t|)
 * when no input sets one, and never past the next input discontinuity).
 * The relative horizon: a ramp's slope r shows after 1e-3 s once r 1e-3
 * exceeds the rounding level, i.e. for every slope above ~1e-11 N/s at forces
 * of order 1 N. */
#define STSL_CONTACT_LOOKAHEAD_REL 1e-3
double stsl_contact_lookahead_start(double t);
double stsl_contact_lookahead_horizon(double t, double max_step, double next_event);

/* ---- impact (SPEC §1.2, end stop) --------------------------------------------- */

/* A rebound that rises less than STSL_CONTACT_RESOLVABLE_HEIGHT position
 * tolerances (rtol |x_stop| + atol) off its stop is not resolved.  The
 * integrator's error on x is about one tolerance, so a flight of height h is
 * timed to about tol / sqrt(2 a h): small bounces carry large timing
 * errors, and their sum is dominated by the last one resolved,
 * ~ sqrt(tol / (2 a K)); with K = 1000 that is below 1e-7 s for tol ~ 1e-11 m
 * and a ~ 1 m/s^2.  The bounces left out are summed in closed form
 * (the bounce tail). */
#define STSL_CONTACT_RESOLVABLE_HEIGHT 1000.0
double stsl_contact_min_height(double rtol, double x_stop, double atol);

/* An impact with velocity v_minus (towards the stop) and restitution e.
 * a_up decelerates the rebound on its way out (> 0: it turns back) and
 * a_down brings it back to the stop.  The rebound is v_plus = -e v_minus;
 * it is too small to resolve when it rises less than min_height.  Returns 1
 * when the body comes to rest on the stop (then *v_plus = 0), 0 when it
 * bounces. */
int stsl_contact_decide_impact(double v_minus, double e, double a_up, double min_height,
                               double *v_plus);

/* Duration of the bounces left out when a rebound v_plus is not resolved:
 * with constant accelerations a_up (out) and a_down (back), each flight lasts
 * |v|/a_up + |v|/sqrt(a_up a_down) and the next rebound is
 * r = e sqrt(a_down/a_up) times smaller, so the flights add up to
 * (|v_plus|/a_up)(1 + sqrt(a_up/a_down)) / (1 - r).  0 when the body would
 * not come back (a_down <= 0), e = 0 or r >= 1. */
double stsl_contact_bounce_tail(double v_plus, double e, double a_up, double a_down);

/* What an impact at time t does (decide_impact, then the bounce tail of an
 * unresolved rebound): the body rests on the stop from the impact on (the
 * stop carries on average what the bounces would) and `stop_contact` is
 * recorded when they would have ended. */
typedef struct stsl_contact_impact {
    int rests;        /* 1: at rest on the stop from now on; 0: it bounces with v_plus */
    double v_plus;    /* the rebound velocity (0 when it rests) */
    int kind;         /* the event: IMPACT (bounces, or rests with bounces pending), else
                         STOP_CONTACT (physics/modes.h) */
    int pending;      /* 1: bounces left out end at settle_at (record stop_contact then) */
    double settle_at; /* t + the bounce tail when pending */
} stsl_contact_impact;
void stsl_contact_impact_at(double t, double v_minus, double e, double a_up, double a_down,
                            double min_height, stsl_contact_impact *out);

/* ---- natural scales (the automatic atol, the step bound) ----------------------- */

/* Keep the smaller of *l and cand; a cand that is 0, negative or not finite
 * is a feature that is absent and leaves *l as it is. */
void stsl_contact_keep_smaller(double *l, double cand);
/* The time scale of a mass m: sqrt(m/k) with a stiffness k > 0, else the
 * time sqrt(m l / f) in which the force f > 0 moves it across the length l,
 * else m/c with a damping c > 0, else 1. */
double stsl_contact_time_scale(double m, double k, double f, double l, double c);
/* The largest step while moving: STSL_CONTACT_SAMPLES_PER_PERIOD steps per
 * natural period (INFINITY: none), so that CVODE cannot step over a guard
 * that crosses twice. */
#define STSL_CONTACT_SAMPLES_PER_PERIOD 20.0
double stsl_contact_natural_step(double period);

#endif
