/* friction.h - friction levels of the hybrid laws (SPEC §1.1 and §2).
 *
 * Dalla Vedova's load-dependent levels, generalised to both directions: for a
 * slip (or incipient slip) direction s = +1 or -1 under the external load F_R,
 * the load opposes s when s F_R < 0 and aids it when s F_R > 0, and
 *   F_D(s) = F_DJ + (1/EtO - 1) |F_R|   (opposing)
 *   F_D(s) = F_DJ + (1 - EtA) |F_R|     (aiding)
 *   F_S(s) = FSD F_D(s). */
#ifndef STSL_FRICTION_H
#define STSL_FRICTION_H

#include "models/element.h"

/* Dynamic (*fd) and static (*fs) friction magnitudes for direction s. */
void stsl_friction_levels(const stsl_friction_params *p, int s, double load, double *fd,
                          double *fs);

/* Magnitude of the dry friction while slipping at |v| = speed, given the
 * levels: F_D for coulomb; for stribeck F_D + (F_S - F_D) exp(-(speed/v_s)^delta). */
double stsl_friction_slip(const stsl_friction_params *p, double fd, double fs, double speed);

/* Steady-state friction force at relative velocity v != 0 under the load
 * `load`, opposing v: sign(v) times the slip level for the hybrid laws,
 * the smooth law's steady state (LuGre: z' = 0) otherwise.  At v = 0 a
 * hybrid law is the static band [-F_S(-1), F_S(+1)] (stsl_friction_levels);
 * this returns 0 there. */
double stsl_friction_steady(const stsl_friction_params *p, double load, double v);

#endif
