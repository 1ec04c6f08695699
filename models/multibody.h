/* multibody.h - a system of bodies (models/system.h) as a hybrid model for
 * the solver (issue 14, SPEC §4).
 *
 * State: the positions and velocities of the bodies (absolute, or in the
 * base's frame: stsl_multibody_in_base_frame), then the
 * bristle force sigma0 z of each LuGre contact in the contacts' order,
 * y = (x_1..x_N, v_1..v_N, s_1..s_L) (the element's scaling of z).  Each
 * friction contact is STUCK, SLIP_POS, SLIP_NEG (hybrid laws) or SMOOTH
 * (smooth laws and LuGre); each stop OPEN, LOW or HIGH
 * (rigid: resting against its limit, a constraint; compliant: in contact,
 * its force k delta + c delta' acting, never pulling).  A mode is the
 * vector of these states, interned in a table the model owns (the code is
 * its index: k contacts give up to 4^k vectors, more than 64 bits hold).
 *
 * Stuck contacts and closed rigid stops are constraints: the bodies they
 * hold together (with ground, base or anchor) form clusters whose
 * accelerations and constraint forces lambda come from models/cluster.h.
 * Guards: w_c of slipping contacts; the static band of stuck ones; gaps of
 * open stops; reactions of closed rigid stops; the compliant stop's
 * contact guard.  At an event the contacts at w_c = 0 that interact are
 * decided together by physics/consistency.h (SPEC §4: consistency and its
 * order of choice, which ends in a rule on names, never on the order of
 * the file), wherever the event reached one of them (a velocity jump
 * through dampers and clusters too); one event per contact or stop that
 * changed, all at the same instant.  Contacts and stops are named by their
 * name: in the columns and events, else contacts.N and stops.N.
 *
 * Friction levels are those of physics/friction.h (SPEC §1.1) under each
 * contact's load F_R (0 without one), which also pushes the contact's first
 * body along +x; a slipping contact whose load varies has a guard on F_R
 * (load reversal: the level changes branch, the integrator restarts). */
#ifndef STSL_MULTIBODY_H
#define STSL_MULTIBODY_H

#include "models/system.h"
#include "solver/hybrid.h"

/* The per-stop mode values, as stored in the results (stop_mode; their
 * names "OPEN", "LOW", "HIGH").  The per-contact ones
 * (contact_mode) are the contact's states, physics/contact.h. */
enum { STSL_SM_OPEN = 0, STSL_SM_LOW = 1, STSL_SM_HIGH = 2 };
/* The event kind a system adds to the element's (physics/modes.h):
 * several consistent combinations at one instant (SPEC §4). */
#define STSL_EV_AMBIGUOUS STSL_N_EVENT_KINDS

typedef struct stsl_multibody stsl_multibody;

/* Build the model of a resolved and checked system (borrowed: it must
 * outlive the model).  rtol, atol: the run's tolerances (atol 0: derived),
 * for the resolution of rebounds off rigid stops.  NULL with err filled. */
stsl_multibody *stsl_multibody_create(const stsl_system *s, double rtol, double atol,
                                      stsl_error *err);
/* The same, with `absolute` 1: the state is the bodies' absolute positions
 * and velocities even where the engine would integrate in the base's frame
 * (stsl_multibody_in_base_frame), as the fixed-step schemes step them. */
stsl_multibody *stsl_multibody_create_in(const stsl_system *s, double rtol, double atol,
                                         int absolute, stsl_error *err);
void stsl_multibody_free(stsl_multibody *m);
/* The absolute tolerance of each state component that a run of `s` at
 * (rtol, atol) uses (atol 0: derived from rtol and the natural scales), in
 * the state's order: x of every body, v of every body, then sigma0 z of
 * each LuGre contact.  malloc'd, *n values; NULL with err filled. */
double *stsl_multibody_atol(const stsl_system *s, double rtol, double atol, int *n,
                            stsl_error *err);
const stsl_hmodel *stsl_multibody_model(const stsl_multibody *m);
/* (x0 of every body, v0 of every body, 0 for every LuGre bristle state):
 * model->n_state values. */
void stsl_multibody_initial_state(const stsl_multibody *m, double *y0);
/* 1 when the model's state is in the base's frame: the bodies' positions
 * and velocities relative to the base (every contact and stop joins a
 * body to the base, no coupling joins two bodies, the base is not the
 * ground at rest; the element's view, SPEC §1); the system's columns stay
 * absolute.  stsl_multibody_initial_state converts the start to it. */
int stsl_multibody_in_base_frame(const stsl_multibody *m);
/* The state in `mode` of contact i (0 <= i < n_contacts: a contact
 * state, physics/contact.h) or of stop i - n_contacts (STSL_SM_*); -1 when
 * `mode` or i is not the model's. */
int stsl_multibody_member_state(const stsl_multibody *m, stsl_mode_code mode, int i);
/* The events a system records: the element's kinds plus "ambiguous". */
const char *const *stsl_multibody_kind_names(void);

/* ---- fixed-step use (run/fixed_step_system.c) ------------------------------- */

/* What the forces of a mode vector are at (t, y), for schemes that step the
 * system themselves: arrays the caller owns, of the sizes given. */
typedef struct stsl_multibody_forces {
    double *acc;      /* n_bodies: accelerations (a cluster held together: one value) */
    double *zrate;    /* n_state: d/dt of LuGre's bristle forces at their indices, else 0 */
    double *friction; /* n_contacts: each contact's force on its ends[0]: the law's force
                         (slipping, smooth), the constraint force (stuck), or its share of a
                         closed rigid stop's hold (stuck and held by the stop) */
    double *w;        /* n_contacts: relative velocity ends[0] - ends[1] */
    double *fd_pos, *fs_pos, *fd_neg, *fs_neg; /* n_contacts: levels at the load at t */
    double *stop_x, *stop_w;                   /* n_stops: relative position and velocity */
    double *stop_pull; /* n_stops: a closed rigid stop's pull beyond what it and its
                          parallel stuck contacts hold (> 0: it lets go); 0 when open */
} stsl_multibody_forces;

/* Position, velocity and acceleration of the fixed ends ground, base and
 * anchor (in this order) at t, the inputs as left limits. */
void stsl_multibody_fixed_motion(const stsl_multibody *m, double t, double x[3], double v[3],
                                 double a[3]);

/* The code of the mode vector `vec` (n_contacts contact states, then
 * n_stops stop states), interned on first sight: what the model's ops
 * (outputs, mode names) take; -1 when out of memory. */
stsl_mode_code stsl_multibody_mode_code(stsl_multibody *m, const uint8_t *vec);
/* The forces of the mode vector `vec` at (t, y) into *out, with the inputs
 * as left limits at their discontinuities (as the element's
 * stsl_element_eval_forces).  Returns 0, 1 when the constraints conflict
 * (two moving fixed ends held together), -1 out of memory or a failed
 * solve.  The model must not be run by the solver at the same time. */
int stsl_multibody_eval_forces(stsl_multibody *m, const uint8_t *vec, double t, const double *y,
                               stsl_multibody_forces *out);
/* For tests of the guards' shortcut: full = 1 makes every evaluation of
 * all guards take the full constraint solve (the reference), 0 (the
 * default) lets a mode whose band guards read leaves' edges take each
 * from its leaf's own balance; stsl_multibody_leaf_evals counts the
 * evaluations that did. */
void stsl_multibody_set_full_guards(stsl_multibody *m, int full);
long stsl_multibody_leaf_evals(const stsl_multibody *m);

#endif
