/* guards.h - the guard functions of the friction element's modes (SPEC
 * §1.2): a zero crossing in the listed direction ends the segment.
 *
 *   STUCK     0: F_n - F_S(+1) rising (breakaway +)  1: -F_n - F_S(-1) rising (breakaway -)
 *   SLIP_POS  0: v falling   1: x_max's guard rising   2: F_R either way (load reversal)
 *             3 (compliant stops only): x_min's guard falling (back into contact)
 *   SLIP_NEG  0: v rising    1: x_min's guard falling  2: F_R either way
 *             3 (compliant stops only): x_max's guard rising
 *   STOP_LOW  0: F_n - F_S(+1) rising (release into SLIP_POS)
 *   STOP_HIGH 0: F_n + F_S(-1) falling (release into SLIP_NEG)
 *   SMOOTH    0: x_max's guard rising   1: x_min's guard falling (smooth laws: impacts only;
 *             their static limits at a stop are 0)
 *   CONTACT_*_STUCK  as STUCK, with F_n the net force including the stop's
 *   CONTACT_*_SLIP_* 0: v as in SLIP_*   1: the stop's guard leaving (contact end:
 *                    falling at x_max, rising at x_min)   2: F_R either way
 *   CONTACT_*_SMOOTH 0: the stop's guard leaving
 * (A stop's guard: stsl_end_stop_ops.guard, x - x_stop for the rigid stop.)
 * An absent stop or a load that never changes gives a constant 1 (never
 * crosses), so that CVODE sees no root that sits at zero. */
#ifndef STSL_GUARDS_H
#define STSL_GUARDS_H

#include "events/end_stop.h"
#include "events/modes.h"

enum {
    STSL_G_BREAK_POS = 0,
    STSL_G_BREAK_NEG = 1,
    STSL_G_VZERO = 0,
    STSL_G_STOP = 1,
    STSL_G_LOAD = 2,
    STSL_G_BEHIND = 3, /* SLIP_* with compliant stops: the stop it moves away from */
    STSL_G_RELEASE = 0,
    STSL_G_HIGH = 0, /* SMOOTH: x_max's guard rising */
    STSL_G_LOW = 1,  /* SMOOTH: x_min's guard falling */
    STSL_G_LEAVE = 0 /* CONTACT_*_SMOOTH: the contact's end */
};

/* The most guards an element mode has (a slip mode with compliant stops). */
#define STSL_ELEMENT_MAX_GUARDS 4

typedef struct stsl_guard_in {
    double fn;             /* net force at (t, x, v) (v = 0 at rest), the
                              compliant stop's force included in contact */
    double fs_pos, fs_neg; /* static limits F_S(+1), F_S(-1) at t */
    double x, v, load;
    const stsl_stop_params *sp; /* the stops' positions and parameters */
    int has_stops;
    int load_varies;
    const stsl_end_stop_ops *stop; /* the stops' kind (stsl_rigid_stop(), ...) */
} stsl_guard_in;

/* Guard values of `mode` into g; returns the number of guards. */
int stsl_guards_eval(int mode, const stsl_guard_in *in, double *g);

#endif
