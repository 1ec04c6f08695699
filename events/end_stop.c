/* end_stop.c - the rigid end stop's ops (see end_stop.h). */
#include "events/end_stop.h"

#include <math.h>

#include "events/transition.h"

static double rigid_guard(double x, double stop)
{
    return x - stop;
}

/* The compressive part of fn: towards +x on the upper stop, -x on the lower. */
static double rigid_reaction(int side, double fn)
{
    return fmax(side * fn, 0.0);
}

static const stsl_end_stop_ops rigid = {rigid_guard, stsl_decide_impact, stsl_bounce_tail,
                                        stsl_decide_at_stop, rigid_reaction};

const stsl_end_stop_ops *stsl_rigid_stop(void)
{
    return &rigid;
}
