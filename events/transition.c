#include "events/transition.h"

#include <math.h>

#include "events/modes.h"

int stsl_decide_rest(double fn, double fs_pos, double fs_neg)
{
    if (fn > fs_pos) return STSL_MODE_SLIP_POS;
    if (fn < -fs_neg) return STSL_MODE_SLIP_NEG;
    return STSL_MODE_STUCK;
}

int stsl_decide_at_stop(int side, double fn, double fs_pos, double fs_neg)
{
    if (side > 0) return fn < -fs_neg ? STSL_MODE_SLIP_NEG : STSL_MODE_STOP_HIGH;
    return fn > fs_pos ? STSL_MODE_SLIP_POS : STSL_MODE_STOP_LOW;
}

void stsl_decide_velocity_zero(int from, double fn, double fs_pos, double fs_neg, int *mode,
                               int *kind)
{
    int to = stsl_decide_rest(fn, fs_pos, fs_neg);
    *mode = to;
    if (to == STSL_MODE_STUCK)
        *kind = STSL_EV_STICK;
    else if (to != from)
        *kind = STSL_EV_REVERSAL; /* Janecek's case b: the sign flips without locking */
    else
        *kind = -1;
}

int stsl_decide_impact(double v_minus, double e, double a_up, double min_height, double *v_plus)
{
    *v_plus = -e * v_minus;
    int rests =
        e <= 0.0 || *v_plus == 0.0 || (a_up > 0.0 && *v_plus * *v_plus / (2.0 * a_up) < min_height);
    if (rests) *v_plus = 0.0;
    return rests;
}

double stsl_bounce_tail(double v_plus, double e, double a_up, double a_down)
{
    if (e <= 0.0 || !(a_up > 0.0) || !(a_down > 0.0)) return 0.0;
    double r = e * sqrt(a_down / a_up);
    if (r >= 1.0) return 0.0;
    double v = fabs(v_plus);
    return (v / a_up) * (1.0 + sqrt(a_up / a_down)) / (1.0 - r);
}
