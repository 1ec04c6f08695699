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

/* How the configuration gave a hybrid law's static level: what a later
 * change of the dynamic level keeps (the force, or the ratio).  The
 * physics reads static_ratio only. */
typedef enum stsl_static_given {
    STSL_STATIC_DEFAULT, /* neither key: static_ratio 1, the ratio is kept */
    STSL_STATIC_RATIO,   /* static_ratio given: the ratio is kept */
    STSL_STATIC_FORCE    /* static given (a force): the force is kept */
} stsl_static_given;

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
    stsl_static_given static_given; /* configuration only: see above */
    double static_force;            /* the static level as given (STSL_STATIC_FORCE) */
} stsl_friction_params;

/* 1 for the smooth laws (no STUCK mode). */
int stsl_law_is_smooth(stsl_law law);
/* The configuration's name of a law ("coulomb", "20sim_scvs", ...). */
const char *stsl_law_name(stsl_law law);
/* The STSL_N_LAWS law names, index = law, then NULL (the table behind
 * stsl_law_name and the configuration's friction.law). */
const char *const *stsl_law_names(void);

/* Dynamic (*fd) and static (*fs) friction magnitudes for direction s
 * (the contact's rule, stsl_contact_levels). */
void stsl_friction_levels(const stsl_friction_params *p, int s, double load, double *fd,
                          double *fs);

/* The law's force level, for the natural scales: the static level without
 * load for a hybrid law, the largest of the smooth laws' levels. */
double stsl_friction_scale(const stsl_friction_params *p);

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
