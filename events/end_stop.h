/* end_stop.h - an end stop as a small ops table: its contact guard, what an
 * impact does, whether a body resting on it stays or is pulled off, and the
 * reaction it carries.  The rigid stop (SPEC §1.2: position clamped,
 * restitution, the bounces too small to resolve summed in closed form) is
 * the one there is today; a compliant stop (a spring-damper contact) can be
 * added beside it with the same four operations.
 *
 * Sides: +1 is the upper stop x_max, -1 the lower stop x_min. */
#ifndef STSL_END_STOP_H
#define STSL_END_STOP_H

typedef struct stsl_end_stop_ops {
    /* Contact guard of the stop at `stop` (+1: rising through zero at the
     * upper stop, -1: falling through zero at the lower one). */
    double (*guard)(double x, double stop);
    /* An impact with velocity v_minus towards the stop (stsl_decide_impact):
     * 1 when the body comes to rest on it, 0 when it bounces with *v_plus. */
    int (*impact)(double v_minus, double e, double a_up, double min_height, double *v_plus);
    /* Duration of the bounces left out after an unresolved rebound
     * (stsl_bounce_tail). */
    double (*bounce_tail)(double v_plus, double e, double a_up, double a_down);
    /* A body at rest against the stop `side`: the mode it stays in or slips
     * away in (stsl_decide_at_stop). */
    int (*contact)(int side, double fn, double fs_pos, double fs_neg);
    /* Magnitude of the reaction the stop `side` carries under the
     * non-friction net force fn (>= 0: a stop only pushes). */
    double (*reaction)(int side, double fn);
} stsl_end_stop_ops;

/* The rigid stop. */
const stsl_end_stop_ops *stsl_rigid_stop(void);

#endif
