/* transition.h - the transition decisions of the friction element (SPEC
 * §1.2), as small pure functions of forces and limits.
 *
 * Conventions: F_n is the non-friction net force along +x; fs_pos = F_S(+1)
 * and fs_neg = F_S(-1) are the static limits (magnitudes, >= 0).  Modes and
 * event kinds are those of models/element.h. */
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
 * a_back is the acceleration that brings the rebounding element back to the
 * stop (> 0: it returns).  The rebound is v_plus = -e v_minus; it is too
 * small to resolve when its flight 2|v_plus|/a_back is shorter than
 * min_flight.  Returns 1 when the element comes to rest on the stop (then
 * *v_plus = 0), 0 when it bounces. */
int stsl_decide_impact(double v_minus, double e, double a_back, double min_flight,
                       double *v_plus);

#endif
