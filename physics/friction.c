#include "physics/friction.h"

#include "physics/contact.h"
#include "physics/smooth_friction.h"

#include <math.h>
#include <stddef.h>

void stsl_friction_levels(const stsl_friction_params *p, int s, double load, double *fd, double *fs)
{
    stsl_contact_friction f = {p->dynamic, p->static_ratio, p->eff_opposing, p->eff_aiding};
    stsl_contact_levels(&f, s, load, fd, fs);
}

double stsl_friction_scale(const stsl_friction_params *p)
{
    if (stsl_law_is_smooth(p->law))
        return fmax(fmax(p->breakaway, p->coulomb), fmax(p->tc, p->tst));
    double fd, fs;
    stsl_friction_levels(p, +1, 0.0, &fd, &fs);
    return fs;
}

double stsl_friction_slip(const stsl_friction_params *p, double fd, double fs, double speed)
{
    if (p->law != STSL_LAW_STRIBECK || fs == fd) return fd;
    double r = speed / p->stribeck_velocity;
    /* exp(-r^2) for the default delta = 2 without a pow() call in the hot path. */
    double e = p->stribeck_exponent == 2.0 ? exp(-r * r) : exp(-pow(r, p->stribeck_exponent));
    return fd + (fs - fd) * e;
}

int stsl_law_is_smooth(stsl_law law)
{
    return law >= STSL_LAW_SIMSCAPE && law < STSL_N_LAWS;
}

static const char *const law_names[STSL_N_LAWS + 1] = {"coulomb",    "stribeck", "simscape",
                                                       "20sim_c",    "20sim_v",  "20sim_cv",
                                                       "20sim_scvs", "lugre",    NULL};

const char *stsl_law_name(stsl_law law)
{
    return (law >= 0 && law < STSL_N_LAWS) ? law_names[law] : "unknown";
}

const char *const *stsl_law_names(void)
{
    return law_names;
}

double stsl_friction_steady(const stsl_friction_params *p, double load, double v)
{
    if (stsl_law_is_smooth(p->law)) return stsl_smooth_steady(p, v);
    if (v == 0.0) return 0.0;
    int s = v > 0.0 ? +1 : -1;
    double fd, fs;
    stsl_friction_levels(p, s, load, &fd, &fs);
    return s * stsl_friction_slip(p, fd, fs, fabs(v));
}
