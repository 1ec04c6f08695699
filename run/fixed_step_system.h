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
 * at which the scheme noticed it; or, through a view (the element's
 * configuration: run/fixed_step.c), the view's layout, modes and
 * events. */
#ifndef STSL_FIXED_STEP_SYSTEM_H
#define STSL_FIXED_STEP_SYSTEM_H

#include "run/fixed_step.h"
#include "models/one_body.h"
#include "models/system.h"

/* Integrate the system (resolved and checked) with scheme `sch` from t = 0
 * to sim->t_end: the contract of stsl_fixed_step_run (the sampling, the
 * statistics, the failures).  karnopp and fixed_step_hybrid need hybrid
 * laws on every contact; every scheme needs rigid stops. */
int stsl_fixed_step_run_system(const stsl_system *s, const stsl_hsolver_opts *sim,
                               const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                               stsl_error *err);

/* The same, seen through the one-body view `view` (NULL: the system's
 * own), the bodies' positions absolute or (absolute 0) in the base's frame
 * where the engine integrates in it (stsl_multibody_in_base_frame).  The
 * element's configuration runs so (run/fixed_step.c): `s` is the view's
 * one-body system, recorded with the element's layout, modes and events
 * (one event a step, without subject, between its modes), its net force
 * and friction levels the view's (stsl_one_body_eval_forces, so that its
 * sums round as the element's; one body needs no constraint solve), and
 * force evaluations counted as the element's scheme did (one per step
 * point, four per RK4 step, one more for a rebound). */
int stsl_fixed_step_run_view(const stsl_system *s, int absolute, const stsl_one_body *view,
                             const stsl_hsolver_opts *sim, const stsl_scheme_opts *sch,
                             stsl_sink *sink, stsl_stats *stats, stsl_error *err);

/* The checks stsl_fixed_step_run_system makes before it starts (the
 * step, every contact's law against the scheme, rigid stops, the band and
 * the regularisation velocity): 0, or STSL_EINPUT naming the key. */
int stsl_fixed_step_system_check(const stsl_system *s, const stsl_hsolver_opts *sim,
                                 const stsl_scheme_opts *sch, stsl_error *err);

#endif
