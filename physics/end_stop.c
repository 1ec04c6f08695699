/* end_stop.c - the end stops' ops (see end_stop.h). */
#include "physics/end_stop.h"

#include <math.h>
#include <stddef.h>

#include "physics/contact.h"

static double stop_position(const stsl_stop_params *p, int side)
{
    return side > 0 ? p->x_max : p->x_min;
}

static double rigid_guard(const stsl_stop_params *p, int side, double x, double v)
{
    (void)v;
    return x - stop_position(p, side);
}

/* The compressive part of fn: towards +x on the upper stop, -x on the lower. */
static double rigid_reaction(const stsl_stop_params *p, int side, double fn, double x, double v)
{
    (void)p;
    (void)x;
    (void)v;
    return fmax(side * fn, 0.0);
}

/* k delta + c min(delta', 0): k delta while moving in (so contact begins
 * exactly at delta = 0, where P = c delta' jumps up from 0), P while moving
 * out (so contact ends exactly where P reaches 0, and a body that left the
 * stop while still inside it comes back into contact where P would turn
 * positive again).  Continuous in (x, v); signed by the side so that the
 * lower stop's guard keeps the rigid one's direction. */
static double compliant_guard(const stsl_stop_params *p, int side, double x, double v)
{
    double delta = side * (x - stop_position(p, side)), rate = side * v;
    return side * (p->stiffness * delta + p->damping * fmin(rate, 0.0));
}

/* Never pulling: the contact ends where P reaches 0, and the clamp keeps a
 * step that the integrator takes past that instant physical. */
static double compliant_reaction(const stsl_stop_params *p, int side, double fn, double x, double v)
{
    (void)fn;
    double delta = side * (x - stop_position(p, side)), rate = side * v;
    return fmax(p->stiffness * delta + p->damping * rate, 0.0);
}

static const stsl_end_stop_ops rigid = {0, rigid_guard, rigid_reaction,
                                        stsl_contact_decide_at_stop};
static const stsl_end_stop_ops compliant = {1, compliant_guard, compliant_reaction, NULL};
static const char *const model_names[] = {"rigid", "compliant", NULL};

const stsl_end_stop_ops *stsl_end_stop(stsl_stop_model model)
{
    return model == STSL_STOP_COMPLIANT ? &compliant : &rigid;
}

const char *const *stsl_stop_model_names(void)
{
    return model_names;
}

int stsl_end_stop_side(const stsl_stop_params *p, double x)
{
    if (x >= p->x_max) return +1;
    if (x <= p->x_min) return -1;
    return 0;
}

int stsl_end_stop_in_contact(const stsl_end_stop_ops *ops, const stsl_stop_params *p, int side,
                             double x, double v)
{
    double delta = side * (x - stop_position(p, side));
    return delta >= 0.0 && (side * v > 0.0 || ops->reaction(p, side, 0.0, x, v) > 0.0);
}

double stsl_impact_share(double mi, double mj)
{
    return isinf(mj) ? 1.0 : isinf(mi) ? 0.0 : mj / (mi + mj);
}
