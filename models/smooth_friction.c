#include "models/smooth_friction.h"

#include <math.h>
#include <stddef.h>

static double sgn(double w)
{
    return (w > 0.0) - (w < 0.0);
}

/* sech^2(u) = 1 - tanh^2(u), accurate also where tanh saturates. */
static double sech2(double u)
{
    double c = cosh(u);
    return isinf(c) ? 0.0 : 1.0 / (c * c);
}

static double simscape(const stsl_friction_params *p, double w, double *d)
{
    double wst = p->breakaway_velocity * M_SQRT2, wc = p->breakaway_velocity / 10.0;
    double a = sqrt(2.0 * M_E) * (p->breakaway - p->coulomb), u = w / wst, e = exp(-u * u);
    if (d) *d = a * e * (1.0 - 2.0 * u * u) / wst + p->coulomb * sech2(w / wc) / wc + p->viscous;
    return a * e * u + p->coulomb * tanh(w / wc) + p->viscous * w;
}

static double scvs(const stsl_friction_params *p, double w, double *d)
{
    double th = tanh(p->slope * w), e = exp(-(w / p->v_st) * (w / p->v_st));
    if (d) {
        /* For w != 0, sign(w) |tanh| = tanh: T = Tc sign(w)(1 - e) + Tst tanh e + d w. */
        double de = -2.0 * w / (p->v_st * p->v_st) * e;
        *d = -p->tc * sgn(w) * de + p->tst * (p->slope * sech2(p->slope * w) * e + th * de) + p->d;
    }
    return (p->tc + (p->tst * fabs(th) - p->tc) * e) * sgn(w) + p->d * w;
}

double stsl_smooth_force(const stsl_friction_params *p, double w, double *dT_dw)
{
    double c = 0.0, dc = 0.0;
    switch (p->law) {
    case STSL_LAW_SIMSCAPE:
        return simscape(p, w, dT_dw);
    case STSL_LAW_20SIM_SCVS:
        return scvs(p, w, dT_dw);
    case STSL_LAW_20SIM_C:
    case STSL_LAW_20SIM_CV:
        c = p->tc * tanh(p->slope * w);
        dc = p->tc * p->slope * sech2(p->slope * w);
        break;
    default:
        break;
    }
    /* 20sim_c has no d term (its d is 0); V and CV add d w. */
    double d = p->law == STSL_LAW_20SIM_C ? 0.0 : p->d;
    if (dT_dw) *dT_dw = dc + d;
    return c + d * w;
}

double stsl_lugre_g(const stsl_friction_params *p, double w, double *dg_dw)
{
    double e = exp(-(w / p->v_st) * (w / p->v_st));
    if (dg_dw) *dg_dw = (p->tst - p->tc) * e * (-2.0 * w / (p->v_st * p->v_st));
    return p->tc + (p->tst - p->tc) * e;
}

double stsl_lugre_zdot(const stsl_friction_params *p, double w, double z, double *dzd_dw,
                       double *dzd_dz)
{
    double dg, g = stsl_lugre_g(p, w, &dg);
    double r = p->sigma0 * fabs(w) / g;
    /* d/dw (|w| / g) = (sign(w) g - |w| g') / g^2; |w| taken as having
     * derivative 0 at w = 0, where the bristles neither load nor relax. */
    if (dzd_dw) *dzd_dw = 1.0 - p->sigma0 * z * (sgn(w) * g - fabs(w) * dg) / (g * g);
    if (dzd_dz) *dzd_dz = -r;
    return w - r * z;
}

double stsl_lugre_force(const stsl_friction_params *p, double w, double z, double *dT_dw,
                        double *dT_dz)
{
    double zw, zz, zd = stsl_lugre_zdot(p, w, z, &zw, &zz);
    if (dT_dw) *dT_dw = p->sigma1 * zw + p->d;
    if (dT_dz) *dT_dz = p->sigma0 + p->sigma1 * zz;
    return p->sigma0 * z + p->sigma1 * zd + p->d * w;
}

double stsl_smooth_steady(const stsl_friction_params *p, double w)
{
    if (p->law == STSL_LAW_LUGRE) return stsl_lugre_g(p, w, NULL) * sgn(w) + p->d * w;
    return stsl_smooth_force(p, w, NULL);
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
