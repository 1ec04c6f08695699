/* element_params.h - the configuration of one friction element (SPEC §1):
 * its parameters, its result columns and the natural scales of its state,
 * which the automatic atol follows.  The engine runs it as a system of one
 * body (models/one_body.h).
 *
 * State y = (x, v): position and velocity relative to the base, and for
 * LuGre the bristle force sigma0 z.  Forces: F_n = F_a + F_R - k (x - x_s)
 * - c v - m a_b (or the anchor form), m a = F_n - F_f + R. */
#ifndef STSL_ELEMENT_PARAMS_H
#define STSL_ELEMENT_PARAMS_H

#include "physics/end_stop.h"
#include "physics/modes.h"
#include "physics/friction.h"
#include "physics/signal.h"
#include "solver/hybrid.h"

/* Output columns (HDF5 /trajectory datasets, CSV columns), in this order. */
enum stsl_col {
    STSL_COL_X = 0,
    STSL_COL_V,
    STSL_COL_A,
    STSL_COL_FRICTION,
    STSL_COL_NET_FORCE,
    STSL_COL_STOP_REACTION,
    STSL_COL_X_BASE,
    STSL_COL_V_BASE,
    STSL_COL_Z, /* LuGre's bristle deflection (lugre only) */
    STSL_N_COLS
};

/* The element's state size at most: x, v and LuGre's sigma0 z. */
#define STSL_ELEMENT_MAX_STATE 3

typedef enum stsl_domain { STSL_DOMAIN_TRANSLATIONAL = 0, STSL_DOMAIN_ROTATIONAL = 1 } stsl_domain;
typedef struct stsl_element_params {
    stsl_domain domain;
    double mass;      /* > 0 */
    double stiffness; /* k >= 0 (0: no spring) */
    double free_position;
    double damping; /* c >= 0 */
    stsl_friction_params friction;
    int has_stops; /* 0: no end stops */
    double x_min, x_max, restitution;
    /* The stops' model (physics/end_stop.h); a compliant stop's contact
     * stiffness (> 0) and damping (>= 0). */
    stsl_stop_model stop_model;
    double stop_stiffness, stop_damping;
    stsl_signal_spec active_force, load, base_motion, anchor_motion;
    int has_anchor; /* 1: spring and damper attach to anchor_motion, not the base */
    double x0, v0;
    /* The solver's tolerances (simulation.rtol/atol): a rebound off a stop
     * lower than what they resolve ends the bouncing (rtol 0: 1e-10; atol
     * 0: derived, rtol times the natural scales, stsl_element_atol). */
    double rtol, atol;
} stsl_element_params;

/* The absolute tolerance of each state component (x, v and LuGre's
 * bristle force sigma0 z) that a run of `p` with (rtol, atol) uses (atol 0:
 * derived from rtol and the state's natural scales, stsl_hsolver_atol; the
 * rule and why in docs/numerics.md), and the units of each ("m", "m/s",
 * "N"; "rad", ... when rotational); returns the number of components (3
 * for LuGre, else 2), 0 when out of memory (out: NaN). */
int stsl_element_atol(const stsl_element_params *p, double rtol, double atol, double out[3],
                      const char *units[3]);

#endif
