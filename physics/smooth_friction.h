/* smooth_friction.h - the smooth and dynamic friction laws of the seeds
 * (SPEC §2).  Values only: no model gives CVODE a Jacobian, its BDF forms
 * one by difference quotients of the right-hand side (docs/numerics.md).
 *
 * w is the relative velocity; every force returned opposes it (it enters the
 * equation of motion as -T).
 *   simscape: T = sqrt(2e)(T_brk - T_C) exp(-(w/w_St)^2) (w/w_St)
 *                 + T_C tanh(w/w_Coul) + f w,   w_St = w_brk sqrt(2), w_Coul = w_brk/10
 *   20sim_c:  T = Tc tanh(slope w)           20sim_v: T = d w
 *   20sim_cv: T = Tc tanh(slope w) + d w
 *   20sim_scvs: T = (Tc + (Tst |tanh(slope w)| - Tc) exp(-(w/v_st)^2)) sign(w) + d w
 *   lugre:    z' = w - sigma0 |w| z / g(w),  g(w) = Tc + (Tst - Tc) exp(-(w/v_st)^2),
 *             T = sigma0 z + sigma1 z' + d w */
#ifndef STSL_SMOOTH_FRICTION_H
#define STSL_SMOOTH_FRICTION_H

#include "physics/friction.h"

/* T(w) of a memoryless smooth law (not lugre). */
double stsl_smooth_force(const stsl_friction_params *p, double w);

/* LuGre's g(w), z'(w, z) and T(w, z). */
double stsl_lugre_g(const stsl_friction_params *p, double w);
double stsl_lugre_zdot(const stsl_friction_params *p, double w, double z);
double stsl_lugre_force(const stsl_friction_params *p, double w, double z);

/* Steady-state force at constant w: the law itself for memoryless laws,
 * g(w) sign(w) + d w for LuGre (z' = 0).  Smooth laws only. */
double stsl_smooth_steady(const stsl_friction_params *p, double w);

/* A velocity scale of the law (w_brk, 1/slope, v_st), for default plot
 * ranges and step bounds; 0 when the law has none (20sim_v). */
double stsl_smooth_velocity_scale(const stsl_friction_params *p);

#endif
