/* element.h - the one-degree-of-freedom friction element of SPEC §1 as a
 * hybrid model for the solver.
 *
 * State y = (x, v): position and velocity relative to the base, and z, the
 * bristle deflection, for LuGre.  Modes: STUCK, SLIP_POS, SLIP_NEG,
 * STOP_LOW, STOP_HIGH for the hybrid laws, SMOOTH (plus the stop modes) for
 * the smooth laws (numbering fixed by the HDF5 layout).  Forces: F_n = F_a + F_R - k (x - x_s) - c
 * v - m a_b (or the anchor form), m a = F_n - F_f + R. */
#ifndef STSL_ELEMENT_H
#define STSL_ELEMENT_H

#include "models/signal.h"
#include "solver/hybrid.h"

enum stsl_mode {
    STSL_MODE_STUCK = 0,
    STSL_MODE_SLIP_POS = 1,
    STSL_MODE_SLIP_NEG = 2,
    STSL_MODE_STOP_LOW = 3,
    STSL_MODE_STOP_HIGH = 4,
    STSL_MODE_SMOOTH = 5, /* smooth friction laws: one continuous mode */
    STSL_N_MODES = 6
};

enum stsl_event_kind {
    STSL_EV_STICK = 0,
    STSL_EV_BREAKAWAY,
    STSL_EV_REVERSAL,
    STSL_EV_IMPACT,       /* bounce off a stop (rebound leaves it) */
    STSL_EV_STOP_CONTACT, /* comes to rest against a stop */
    STSL_EV_STOP_RELEASE,
    STSL_EV_LOAD_REVERSAL,
    STSL_EV_INPUT_STEP,
    STSL_N_EVENT_KINDS
};

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

typedef enum stsl_domain { STSL_DOMAIN_TRANSLATIONAL = 0, STSL_DOMAIN_ROTATIONAL = 1 } stsl_domain;
/* Friction laws.  The hybrid ones (coulomb, stribeck) have a true STUCK mode;
 * the smooth ones (SPEC §2: Simscape, 20-sim, LuGre) are one continuous mode. */
typedef enum stsl_law {
    STSL_LAW_COULOMB = 0,
    STSL_LAW_STRIBECK = 1,
    STSL_LAW_SIMSCAPE = 2,
    STSL_LAW_20SIM_C = 3,
    STSL_LAW_20SIM_V = 4,
    STSL_LAW_20SIM_CV = 5,
    STSL_LAW_20SIM_SCVS = 6,
    STSL_LAW_LUGRE = 7,
    STSL_N_LAWS = 8
} stsl_law;

typedef struct stsl_friction_params {
    stsl_law law;
    /* hybrid laws */
    double dynamic;           /* F_DJ >= 0 */
    double static_ratio;      /* FSD >= 1 */
    double eff_opposing;      /* EtO in (0, 1] */
    double eff_aiding;        /* EtA <= 1 */
    double stribeck_velocity; /* v_s > 0 (stribeck) */
    double stribeck_exponent; /* delta > 0 (stribeck) */
    /* simscape: T_brk, T_C, w_brk, f (the seed's names) */
    double breakaway, coulomb, breakaway_velocity, viscous;
    /* 20-sim C, V, CV, SCVS and LuGre: Tc, Tst, slope, v_st, d, sigma0, sigma1 */
    double tc, tst, slope, v_st, d, sigma0, sigma1;
} stsl_friction_params;

/* 1 for the smooth laws (no STUCK mode). */
int stsl_law_is_smooth(stsl_law law);
/* The configuration's name of a law ("coulomb", "20sim_scvs", ...). */
const char *stsl_law_name(stsl_law law);

typedef struct stsl_element_params {
    stsl_domain domain;
    double mass;      /* > 0 */
    double stiffness; /* k >= 0 (0: no spring) */
    double free_position;
    double damping; /* c >= 0 */
    stsl_friction_params friction;
    int has_stops; /* 0: no end stops */
    double x_min, x_max, restitution;
    stsl_signal_spec active_force, load, base_motion, anchor_motion;
    int has_anchor; /* 1: spring and damper attach to anchor_motion, not the base */
    double x0, v0;
    /* The solver's tolerances (simulation.rtol/atol): a rebound off a stop
     * lower than what they resolve ends the bouncing (0: 1e-10 and 1e-12). */
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
