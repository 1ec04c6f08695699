/* transition.h - the transition decisions of the friction element (SPEC
 * §1.2), as small pure functions of forces and limits.
 *
 * Conventions: F_n is the non-friction net force along +x; fs_pos = F_S(+1)
 * and fs_neg = F_S(-1) are the static limits (magnitudes, >= 0).  Modes and
 * event kinds are those of events/modes.h. */
#ifndef STSL_TRANSITION_H
#define STSL_TRANSITION_H

/* An element at rest (v = 0) away from the stops: STUCK while
 * -fs_neg <= F_n <= fs_pos, else slip in the direction of F_n. */
int stsl_decide_rest(double fn, double fs_pos, double fs_neg);

/* An element at rest against a stop (side = +1: x_max, -1: x_min): it stays
 * (STOP_HIGH / STOP_LOW) unless F_n pulls it off harder than the static limit
 * of that direction, then it slips away (SLIP_NEG / SLIP_POS). */
int stsl_decide_at_stop(int side, double fn, double fs_pos, double fs_neg);

/* The velocity of slip mode `from` reached zero: the stick test on
 * F_n* = F_n(t*, x*, 0).  Sets *mode and *kind (STICK, REVERSAL, or -1 when
 * the element just touches zero velocity and goes on the same way). */
void stsl_decide_velocity_zero(int from, double fn, double fs_pos, double fs_neg, int *mode,
                               int *kind);

/* An impact with velocity v_minus (towards the stop) and restitution e.
 * a_up decelerates the rebounding element on its way out (> 0: it turns
 * back) and a_down brings it back to the stop.  The rebound is
 * v_plus = -e v_minus; it is too small to resolve when it rises less than
 * min_height off the stop.  Returns 1 when the element comes to rest on the
 * stop (then *v_plus = 0), 0 when it bounces. */
int stsl_decide_impact(double v_minus, double e, double a_up, double min_height, double *v_plus);

/* Duration of the bounces left out when a rebound v_plus is not resolved:
 * with constant accelerations a_up (out) and a_down (back), each flight lasts
 * |v|/a_up + |v|/sqrt(a_up a_down) and the next rebound is
 * r = e sqrt(a_down/a_up) times smaller, so the flights add up to
 * (|v_plus|/a_up)(1 + sqrt(a_up/a_down)) / (1 - r).  0 when the element
 * would not come back (a_down <= 0) or e = 0. */
double stsl_bounce_tail(double v_plus, double e, double a_up, double a_down);

#endif
