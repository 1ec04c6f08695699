#include "physics/smooth_friction.h"

#include <math.h>

static double sgn(double w)
{
    return (w > 0.0) - (w < 0.0);
}

static double simscape(const stsl_friction_params *p, double w)
{
    double wst = p->breakaway_velocity * M_SQRT2, wc = p->breakaway_velocity / 10.0;
    double a = sqrt(2.0 * M_E) * (p->breakaway - p->coulomb), u = w / wst, e = exp(-u * u);
    return a * e * u + p->coulomb * tanh(w / wc) + p->viscous * w;
}

static double scvs(const stsl_friction_params *p, double w)
{
    double th = tanh(p->slope * w), e = exp(-(w / p->v_st) * (w / p->v_st));
    return (p->tc + (p->tst * fabs(th) - p->tc) * e) * sgn(w) + p->d * w;
}

double stsl_smooth_force(const stsl_friction_params *p, double w)
{
    double c = 0.0;
    switch (p->law) {
    case STSL_LAW_SIMSCAPE:
        return simscape(p, w);
    case STSL_LAW_20SIM_SCVS:
        return scvs(p, w);
    case STSL_LAW_20SIM_C:
    case STSL_LAW_20SIM_CV:
        c = p->tc * tanh(p->slope * w);
        break;
    default:
        break;
    }
    /* 20sim_c has no d term (its d is 0); V and CV add d w. */
    double d = p->law == STSL_LAW_20SIM_C ? 0.0 : p->d;
    return c + d * w;
}

double stsl_lugre_g(const stsl_friction_params *p, double w)
{
    double e = exp(-(w / p->v_st) * (w / p->v_st));
    return p->tc + (p->tst - p->tc) * e;
}

double stsl_lugre_zdot(const stsl_friction_params *p, double w, double z)
{
    return w - p->sigma0 * fabs(w) / stsl_lugre_g(p, w) * z;
}

double stsl_lugre_force(const stsl_friction_params *p, double w, double z)
{
    double zd = stsl_lugre_zdot(p, w, z);
    return p->sigma0 * z + p->sigma1 * zd + p->d * w;
}

double stsl_smooth_steady(const stsl_friction_params *p, double w)
{
    if (p->law == STSL_LAW_LUGRE) return stsl_lugre_g(p, w) * sgn(w) + p->d * w;
    return stsl_smooth_force(p, w);
}

double stsl_smooth_velocity_scale(const stsl_friction_params *p)
{
    switch (p->law) {
    case STSL_LAW_SIMSCAPE:
        return p->breakaway_velocity;
    case STSL_LAW_20SIM_C:
    case STSL_LAW_20SIM_CV:
        return 1.0 / p->slope;
    case STSL_LAW_20SIM_SCVS:
        return fmin(1.0 / p->slope, p->v_st);
    case STSL_LAW_LUGRE:
        return p->v_st;
    default:
        return 0.0;
    }
}
