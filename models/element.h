/* element.h - the one-degree-of-freedom friction element of SPEC §1 as a
 * hybrid model for the solver.
 *
 * State y = (x, v): position and velocity relative to the base, and z, the
 * bristle deflection, for LuGre.  Modes: STUCK, SLIP_POS, SLIP_NEG,
 * STOP_LOW, STOP_HIGH for the hybrid laws, SMOOTH (plus the stop modes) for
 * the smooth laws, and with compliant stops the CONTACT_* modes inside them
 * (numbering fixed by the HDF5 layout; events/modes.h).  Forces: F_n = F_a + F_R - k (x - x_s) - c
 * v - m a_b (or the anchor form), m a = F_n - F_f + R. */
#ifndef STSL_ELEMENT_H
#define STSL_ELEMENT_H

#include "events/end_stop.h"
#include "events/modes.h"
#include "models/friction.h"
#include "models/signal.h"
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
    /* The stops' model (events/end_stop.h); a compliant stop's contact
     * stiffness (> 0) and damping (>= 0). */
    stsl_stop_model stop_model;
    double stop_stiffness, stop_damping;
    stsl_signal_spec active_force, load, base_motion, anchor_motion;
    int has_anchor; /* 1: spring and damper attach to anchor_motion, not the base */
    double x0, v0;
    /* The solver's tolerances (simulation.rtol/atol): a rebound off a stop
     * lower than what they resolve ends the bouncing (rtol 0: 1e-10; atol
     * 0: derived, rtol times the position scale, stsl_element_state_scales). */
    double rtol, atol;
} stsl_element_params;

typedef struct stsl_element stsl_element;

/* Build the element (and its signals) from validated parameters. */
stsl_element *stsl_element_create(const stsl_element_params *p, stsl_error *err);
void stsl_element_free(stsl_element *e);
/* The hybrid model view of the element (valid while the element lives). */
const stsl_hmodel *stsl_element_model(const stsl_element *e);
/* Initial state (x0, v0, and z0 = 0 for LuGre): model->n_state values. */
void stsl_element_initial_state(const stsl_element *e, double *y0);

/* The natural size of each state component, in its units (x, v and
 * LuGre's bristle force sigma0 z: up to 3 values), from the parameters
 * alone: with an atol derived from rtol (simulation.atol: auto) the solver's
 * absolute tolerance of component i is rtol * scale[i].  The rule and why
 * are at the definition and in docs/numerics.md. */
void stsl_element_state_scales(const stsl_element_params *p, double scale[3]);
/* The absolute tolerance of each state component that a run of `p` with
 * (rtol, atol) uses (atol 0: derived, stsl_hsolver_atol), and the units of
 * each ("m", "m/s", "N"; "rad", ... when rotational); returns the number of
 * components (3 for LuGre, else 2). */
int stsl_element_atol(const stsl_element_params *p, double rtol, double atol, double out[3],
                      const char *units[3]);

/* The forces at (t, y) for schemes that step the element themselves (the
 * fixed-step validation schemes): the non-friction net force F_n and the
 * dynamic and static friction levels of both directions (0 for smooth
 * laws).  Inputs are taken as left limits at their discontinuities. */
typedef struct stsl_element_forces {
    double fn;
    double fd_pos, fs_pos, fd_neg, fs_neg;
} stsl_element_forces;
void stsl_element_eval_forces(const stsl_element *e, double t, const double *y,
                              stsl_element_forces *out);
/* The parameters the element was made from. */
const stsl_element_params *stsl_element_get_params(const stsl_element *e);

/* Column and mode names and units of this element's results. */
const stsl_layout *stsl_element_layout(const stsl_element *e);

#endif
