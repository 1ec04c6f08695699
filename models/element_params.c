/* element_params.c - the natural scales of an element's state (see
 * element_params.h). */
#include "models/element_params.h"

#include <math.h>

#include "events/contact.h"
#include "models/one_body.h"

/* ---- natural scales -------------------------------------------------------- */

/* The force that sets the element's motion: the smallest of the friction's
 * static (breakaway) level and the sizes of the force inputs, 0 when there
 * is none.  The smallest, because a friction level far above the driving
 * force (a LuGre element of 1e8 N pushed with 1 N) says nothing about how
 * far or fast the element moves: the driving force does. */
static double force_scale(const stsl_element_params *p)
{
    double fs = INFINITY;
    stsl_contact_keep_smaller(&fs, stsl_friction_scale(&p->friction));
    stsl_contact_keep_smaller(&fs, stsl_signal_spec_size(&p->active_force));
    stsl_contact_keep_smaller(&fs, stsl_signal_spec_size(&p->load));
    return isfinite(fs) ? fs : 0.0;
}

/* Why these scales: CVODE weighs component i with 1 / (rtol |y_i| +
 * atol_i).  A fixed atol (the old 1e-12) is a length in metres whatever the
 * element: for the Janecek chirp (x ~ 3e-3 m) it capped the accuracy at
 * 4.5e-10 s whatever rtol asked for, and for an element of kilometres it
 * would be wasted work.  With atol_i proportional to rtol s_i
 * (stsl_hsolver_atol: rtol 0.001 s_i), a component near zero (v at every
 * stick, x at every crossing) is held to rtol relative to the size it has
 * in this element's motion, so event times, which follow from v or a force
 * reaching zero (dt = dv / |a|), keep following rtol down to round-off.
 *   Force F: the smallest of the static friction level and the force
 * inputs' sizes (force_scale).
 *   Length L: the smallest of the element's lengths, so that no feature
 * goes unresolved: the width of the stick band F/k, LuGre's presliding
 * deflection F/sigma0, the stops' range, a compliant stop's penetration
 * F/k_stop and its penetration at the initial speed |v0| sqrt(m/k_stop),
 * the amplitude of an oscillating base or anchor motion; 1 when there is
 * none.
 *   Time T: sqrt(m/k) with a spring (else sqrt(m/k_stop) with compliant
 * stops, the contact's time scale); without, the time sqrt(m L / F) in
 * which the force level moves the mass across L; m/c with only a damper;
 * else 1.  Velocity V = L / T (with a spring and L = F/k this is F /
 * sqrt(k m), the speed a released stick band reaches).
 *   LuGre's third state is the bristle force sigma0 z: scale F (else k L). */
void stsl_element_state_scales(const stsl_element_params *p, double scale[3])
{
    double f = force_scale(p), k = p->stiffness, m = p->mass, l = INFINITY;
    if (k > 0.0) stsl_contact_keep_smaller(&l, f / k);
    if (p->friction.law == STSL_LAW_LUGRE) stsl_contact_keep_smaller(&l, f / p->friction.sigma0);
    if (p->has_stops) stsl_contact_keep_smaller(&l, p->x_max - p->x_min);
    int compliant = p->has_stops && p->stop_model == STSL_STOP_COMPLIANT;
    if (compliant) { /* the penetration under F, and at the initial speed */
        stsl_contact_keep_smaller(&l, f / p->stop_stiffness);
        stsl_contact_keep_smaller(&l, fabs(p->v0) * sqrt(m / p->stop_stiffness));
    }
    stsl_contact_keep_smaller(&l, stsl_signal_spec_oscillation(&p->base_motion));
    if (p->has_anchor)
        stsl_contact_keep_smaller(&l, stsl_signal_spec_oscillation(&p->anchor_motion));
    if (!isfinite(l)) l = 1.0;
    /* Without a spring a compliant stop's stiffness sets the time. */
    double k_time = k > 0.0 ? k : compliant ? p->stop_stiffness : 0.0;
    double t = stsl_contact_time_scale(m, k_time, f, l, p->damping);
    scale[0] = l;
    scale[1] = l / t;
    scale[2] = f > 0.0 ? f : (k > 0.0 ? k * l : 1.0);
}

int stsl_element_atol(const stsl_element_params *p, double rtol, double atol, double out[3],
                      const char *units[3])
{
    const stsl_column *cols = stsl_one_body_columns(p->domain);
    int n = p->friction.law == STSL_LAW_LUGRE ? 3 : 2;
    double scale[3];
    stsl_element_state_scales(p, scale);
    stsl_hsolver_atol(scale, n, rtol, atol, out);
    units[0] = cols[STSL_COL_X].units;
    units[1] = cols[STSL_COL_V].units;
    units[2] = cols[STSL_COL_FRICTION].units; /* sigma0 z is a force */
    return n;
}
