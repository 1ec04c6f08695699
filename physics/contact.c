/* contact.c - one contact's rules (see contact.h). */
#include "physics/contact.h"

#include <float.h>
#include <math.h>

#include "physics/modes.h"

static const char *const state_names[STSL_N_CONTACT_STATES + 1] = {"STUCK", "SLIP_POS", "SLIP_NEG",
                                                                   "SMOOTH", NULL};

const char *const *stsl_contact_state_names(void)
{
    return state_names;
}

/* ---- static level ------------------------------------------------------------ */

void stsl_contact_levels(const stsl_contact_friction *f, int s, double load, double *fd, double *fs)
{
    double sl = (double)s * load;
    double d = f->dynamic;
    if (sl < 0.0)
        d += (1.0 / f->eff_opposing - 1.0) * fabs(load);
    else if (sl > 0.0)
        d += (1.0 - f->eff_aiding) * fabs(load);
    *fd = d;
    *fs = f->static_ratio * d;
}

/* ---- decisions ------------------------------------------------------------------ */

int stsl_contact_decide_rest(double fn, double fs_pos, double fs_neg)
{
    if (fn > fs_pos) return STSL_CONTACT_SLIP_POS;
    if (fn < -fs_neg) return STSL_CONTACT_SLIP_NEG;
    return STSL_CONTACT_STUCK;
}

int stsl_contact_decide_at_stop(int side, double fn, double fs_pos, double fs_neg)
{
    if (side > 0) return fn < -fs_neg ? STSL_MODE_SLIP_NEG : STSL_MODE_STOP_HIGH;
    return fn > fs_pos ? STSL_MODE_SLIP_POS : STSL_MODE_STOP_LOW;
}

int stsl_contact_event(int from, int to)
{
    if (from == to || to == STSL_CONTACT_SMOOTH || from == STSL_CONTACT_SMOOTH)
        return STSL_NO_EVENT;
    if (to == STSL_CONTACT_STUCK) return STSL_EV_STICK;
    if (from == STSL_CONTACT_STUCK) return STSL_EV_BREAKAWAY;
    return STSL_EV_REVERSAL;
}

double stsl_contact_noise(double scale)
{
    return STSL_CONTACT_NOISE_ULPS * DBL_EPSILON * scale;
}

double stsl_contact_lookahead_start(double t)
{
    return STSL_CONTACT_NOISE_ULPS * DBL_EPSILON * fmax(1.0, fabs(t));
}

double stsl_contact_lookahead_horizon(double t, double max_step, double next_event)
{
    double h = max_step;
    if (!isfinite(h)) h = STSL_CONTACT_LOOKAHEAD_REL * fmax(1.0, fabs(t));
    return fmin(h, next_event - t);
}

/* ---- impact ----------------------------------------------------------------------- */

double stsl_contact_min_height(double rtol, double x_stop, double atol)
{
    return STSL_CONTACT_RESOLVABLE_HEIGHT * (rtol * fabs(x_stop) + atol);
}

int stsl_contact_decide_impact(double v_minus, double e, double a_up, double min_height,
                               double *v_plus)
{
    *v_plus = -e * v_minus;
    int rests =
        e <= 0.0 || *v_plus == 0.0 || (a_up > 0.0 && *v_plus * *v_plus / (2.0 * a_up) < min_height);
    if (rests) *v_plus = 0.0;
    return rests;
}

double stsl_contact_bounce_tail(double v_plus, double e, double a_up, double a_down)
{
    if (e <= 0.0 || !(a_up > 0.0) || !(a_down > 0.0)) return 0.0;
    double r = e * sqrt(a_down / a_up);
    if (r >= 1.0) return 0.0;
    double v = fabs(v_plus);
    return (v / a_up) * (1.0 + sqrt(a_up / a_down)) / (1.0 - r);
}

void stsl_contact_impact_at(double t, double v_minus, double e, double a_up, double a_down,
                            double min_height, stsl_contact_impact *out)
{
    out->rests = stsl_contact_decide_impact(v_minus, e, a_up, min_height, &out->v_plus);
    double tail = out->rests ? stsl_contact_bounce_tail(e * v_minus, e, a_up, a_down) : 0.0;
    /* A tail below the resolution of t is no pending bounce: the body has
     * come to rest now. */
    out->pending = out->rests && t + tail > t;
    out->settle_at = out->pending ? t + tail : INFINITY;
    out->kind = !out->rests || out->pending ? STSL_EV_IMPACT : STSL_EV_STOP_CONTACT;
}

/* ---- natural scales ------------------------------------------------------------------ */

void stsl_contact_keep_smaller(double *l, double cand)
{
    if (cand > 0.0 && isfinite(cand) && !(*l <= cand)) *l = cand;
}

double stsl_contact_time_scale(double m, double k, double f, double l, double c)
{
    if (k > 0.0) return sqrt(m / k);
    if (f > 0.0) return sqrt(m * l / f);
    if (c > 0.0) return m / c;
    return 1.0;
}

double stsl_contact_natural_step(double period)
{
    return period / STSL_CONTACT_SAMPLES_PER_PERIOD;
}
