/* fixed_step_system.h - the fixed-step schemes (run/fixed_step.h) on a
 * system of bodies (models/system.h), stepping the engine's forces
 * (stsl_multibody_eval_forces).
 *
 * Every contact is decided as the element's scheme decides its one contact:
 * karnopp sticks a contact while its relative velocity is inside the band
 * |w| < dv and its constraint force inside the static band;
 * fixed_step_hybrid sticks a slipping contact whose relative velocity would
 * change sign over the step (the step is then taken again from its start
 * with that contact stuck), and a stuck contact breaks away when its
 * constraint force at a step point leaves the static band; smooth_rk4 steps
 * the smooth laws (and the hybrid ones tanh-regularised) with classical
 * RK4.  Stuck contacts and closed rigid stops are constraints: the bodies
 * they hold together move as one (the engine's cluster solve).  When
 * several stuck contacts (and stops) leave their bands at one step point,
 * the one furthest beyond its level lets go first and the others are
 * judged again without it.  A rigid stop passed during a step puts its
 * ends on its limit with Newton's restitution (the bodies held by closed
 * stops move with them) and rests there by the element's rule.
 *
 * The result has the engine's layout (stsl_multibody_model's), every
 * change of a contact's or stop's state is an event about it, at the step
 * at which the scheme noticed it. */
#ifndef STSL_FIXED_STEP_SYSTEM_H
#define STSL_FIXED_STEP_SYSTEM_H

#include "run/fixed_step.h"
#include "models/system.h"

/* Integrate the system (resolved and checked) with scheme `sch` from t = 0
 * to sim->t_end: the contract of stsl_fixed_step_run (the sampling, the
 * statistics, the failures).  karnopp and fixed_step_hybrid need hybrid
 * laws on every contact; every scheme needs rigid stops. */
int stsl_fixed_step_run_system(const stsl_system *s, const stsl_hsolver_opts *sim,
                               const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                               stsl_error *err);

/* The checks stsl_fixed_step_run_system makes before it starts (the
 * step, every contact's law against the scheme, rigid stops, the band and
 * the regularisation velocity): 0, or STSL_EINPUT naming the key. */
int stsl_fixed_step_system_check(const stsl_system *s, const stsl_hsolver_opts *sim,
                                 const stsl_scheme_opts *sch, stsl_error *err);

#endif
