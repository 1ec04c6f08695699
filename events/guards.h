/* guards.h - the guard functions of the friction element's modes (SPEC
 * §1.2): a zero crossing in the listed direction ends the segment.
 *
 *   STUCK     0: F_n - F_S(+1) rising (breakaway +)  1: -F_n - F_S(-1) rising (breakaway -)
 *   SLIP_POS  0: v falling   1: x - x_max rising   2: F_R either way (load reversal)
 *   SLIP_NEG  0: v rising    1: x - x_min falling  2: F_R either way
 *   STOP_LOW  0: F_n - F_S(+1) rising (release into SLIP_POS)
 *   STOP_HIGH 0: F_n + F_S(-1) falling (release into SLIP_NEG)
 *   SMOOTH    0: x - x_max rising   1: x - x_min falling (smooth laws: impacts only;
 *             their static limits at a stop are 0)
 * (x - x_max, x - x_min: the rigid stop's contact guard; another kind of
 * stop supplies its own through stsl_end_stop_ops.guard.)
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
    STSL_G_RELEASE = 0,
    STSL_G_HIGH = 0, /* SMOOTH: x - x_max rising */
    STSL_G_LOW = 1   /* SMOOTH: x - x_min falling */
};

typedef struct stsl_guard_in {
    double fn;             /* non-friction net force at (t, x, v) (v = 0 at rest) */
    double fs_pos, fs_neg; /* static limits F_S(+1), F_S(-1) at t */
    double x, v, load;
    double x_min, x_max;
    int has_stops;
    int load_varies;
    const stsl_end_stop_ops *stop; /* the stops' kind (stsl_rigid_stop()) */
} stsl_guard_in;

/* Guard values of `mode` into g; returns the number of guards. */
int stsl_guards_eval(int mode, const stsl_guard_in *in, double *g);

#endif
