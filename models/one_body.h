/* one_body.h - the element's configuration run by the engine of systems
 * (models/multibody.h) as a system of one body (stsl_system_from_element),
 * seen as the element is seen: a hybrid model with the element's state
 * (x, v relative to the base; LuGre's sigma0 z), its result layout (x, v,
 * a, friction, net_force, stop_reaction, x_base, v_base, z), its mode
 * numbers (physics/modes.h, from the contact's and the stop's states) and
 * its event record (no subjects; a change of mode at an input
 * discontinuity is input_step), so every reader of the element's results
 * sees no change.  The engine integrates this body in the base's frame,
 * as the element does (stsl_multibody_in_base_frame). */
#ifndef STSL_ONE_BODY_H
#define STSL_ONE_BODY_H

#include "models/element_params.h"
#include "solver/hybrid.h"

typedef struct stsl_one_body stsl_one_body;

/* Build the engine's model of the element `p` (copied).  NULL with err
 * filled (out of memory, a signal that cannot be built). */
stsl_one_body *stsl_one_body_create(const stsl_element_params *p, stsl_error *err);
void stsl_one_body_free(stsl_one_body *o);
/* The hybrid model (valid while `o` lives). */
const stsl_hmodel *stsl_one_body_model(const stsl_one_body *o);
/* (x0, v0, and 0 for LuGre's bristles): model->n_state values, relative
 * to the base as the element's. */
void stsl_one_body_initial_state(const stsl_one_body *o, double *y0);

/* The one-body system `o` runs (valid while `o` lives). */
const struct stsl_system *stsl_one_body_system(const stsl_one_body *o);
/* The element's mode number (physics/modes.h) of the contact's state and
 * the stop's (STSL_SM_*; STSL_SM_OPEN without stops). */
int stsl_one_body_mode_of(const stsl_one_body *o, int contact_state, int stop_state);

/* The parameters `o` was made from. */
const stsl_element_params *stsl_one_body_params(const stsl_one_body *o);

/* The forces at (t, y) for the tools that step or judge the element
 * themselves (the fixed-step schemes, compare's energy balance): the
 * non-friction net force F_n and the dynamic and static friction levels of
 * both directions (0 for smooth laws), in the element's arithmetic.
 * Inputs are taken as left limits at their discontinuities. */
typedef struct stsl_one_body_forces {
    double fn, load; /* load: the friction's load F_R */
    double fd_pos, fs_pos, fd_neg, fs_neg;
} stsl_one_body_forces;
void stsl_one_body_eval_forces(const stsl_one_body *o, double t, const double *y,
                               stsl_one_body_forces *out);
/* The element's columns (STSL_N_COLS values) in element mode `mode`
 * (physics/modes.h) at (t, y), inputs as left limits. */
void stsl_one_body_mode_outputs(const stsl_one_body *o, int mode, double t, const double *y,
                                double *cols);

/* The element's result columns of a domain (STSL_N_COLS; names, units). */
const stsl_column *stsl_one_body_columns(stsl_domain domain);

#endif
