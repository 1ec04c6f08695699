/* end_stop.h - an end stop as a small ops table: its contact guard, the
 * reaction it carries, and (rigid stop) what an impact does and whether a
 * body resting on it stays or is pulled off.  Two entries:
 *
 *  - rigid (SPEC §1.2): the position is clamped; an impact rebounds with
 *    restitution e, the bounces too small to resolve are summed in closed
 *    form (the contact's rule: stsl_contact_impact_at, physics/contact.h),
 *    and the body rests on the stop (modes STOP_LOW, STOP_HIGH);
 *  - compliant (the Simscape Hard Stop, never pulling): while the body
 *    penetrates the stop by delta = s (x - x_stop) >= 0 (s = +1 at x_max,
 *    -1 at x_min) the stop pushes it out with P = k delta + c delta'
 *    (delta' = s v).  The contact is a mode in which the body moves
 *    (CONTACT_*); it begins when delta crosses 0 inwards and ends when P
 *    falls to 0 (with c > 0 before delta is back at 0: the damper would
 *    otherwise pull at the end of the rebound).
 *
 * Sides: +1 is the upper stop x_max, -1 the lower stop x_min. */
#ifndef STSL_END_STOP_H
#define STSL_END_STOP_H

/* The configuration's end_stops.model, index = name (stsl_stop_model_names). */
typedef enum stsl_stop_model { STSL_STOP_RIGID = 0, STSL_STOP_COMPLIANT = 1 } stsl_stop_model;

typedef struct stsl_stop_params {
    double x_min, x_max;
    double restitution;        /* rigid: e in [0, 1] */
    double stiffness, damping; /* compliant: k > 0, c >= 0 */
} stsl_stop_params;

typedef struct stsl_end_stop_ops {
    /* 1: contact is a mode in which the body moves under the stop's force
     * (compliant); 0: the stop clamps the position (rigid). */
    int compliant;
    /* Contact guard of the stop `side` at (x, v): it rises through zero at
     * the upper stop, and falls through zero at the lower one, when contact
     * begins (and, compliant, the other way when it ends).  Rigid: x - stop.
     * Compliant: s (k delta + c min(delta', 0)), continuous, equal to s k delta
     * while moving in and to s P while moving out. */
    double (*guard)(const stsl_stop_params *p, int side, double x, double v);
    /* Magnitude (>= 0) of the reaction of the stop `side`.  Rigid, for a
     * body resting on it under the non-friction net force fn: the
     * compressive part of fn.  Compliant, at (x, v): max(P, 0). */
    double (*reaction)(const stsl_stop_params *p, int side, double fn, double x, double v);
    /* Rigid only (NULL for the compliant stop, whose contact is a mode):
     * a body at rest against the stop `side`: the mode it stays in or
     * slips away in (stsl_contact_decide_at_stop). */
    int (*contact)(int side, double fn, double fs_pos, double fs_neg);
} stsl_end_stop_ops;

/* The stop of `model`: rigid, or compliant (spring-damper, never pulling). */
const stsl_end_stop_ops *stsl_end_stop(stsl_stop_model model);
/* The model names ("rigid", "compliant"), index = stsl_stop_model, NULL-terminated. */
const char *const *stsl_stop_model_names(void);

/* The limit the position x is at or beyond: +1 (x >= x_max), -1
 * (x <= x_min), 0 between them. */
int stsl_end_stop_side(const stsl_stop_params *p, double x);
/* Is a body at (x, v) in contact with the compliant stop `side`?  In
 * contact: penetrating it (delta >= 0) and either moving in or pushed out
 * (P = k delta + c delta' > 0); a body at delta = 0 at rest only touches. */
int stsl_end_stop_in_contact(const stsl_end_stop_ops *ops, const stsl_stop_params *p, int side,
                             double x, double v);

/* Newton's law of impact between two rigid clusters of masses mi, mj (a
 * cluster held by a fixed end has infinite mass): the part of a jump of
 * their relative position or velocity that cluster i takes (mj / (mi +
 * mj)); cluster j takes the rest the other way, so momentum is conserved.
 * Both held: nothing moves (the caller's case). */
double stsl_impact_share(double mi, double mj);

#endif
