#include "events/guards.h"

int stsl_guards_eval(int mode, const stsl_guard_in *in, double *g)
{
    const stsl_end_stop_ops *st = in->stop;
    switch (mode) {
    case STSL_MODE_STUCK:
        g[STSL_G_BREAK_POS] = in->fn - in->fs_pos;
        g[STSL_G_BREAK_NEG] = -in->fn - in->fs_neg;
        return 2;
    case STSL_MODE_SLIP_POS:
    case STSL_MODE_SLIP_NEG: {
        double stop = mode == STSL_MODE_SLIP_POS ? in->x_max : in->x_min;
        g[STSL_G_VZERO] = in->v;
        g[STSL_G_STOP] = in->has_stops ? st->guard(in->x, stop) : 1.0;
        g[STSL_G_LOAD] = in->load_varies ? in->load : 1.0;
        return 3;
    }
    case STSL_MODE_STOP_LOW:
        g[STSL_G_RELEASE] = in->fn - in->fs_pos;
        return 1;
    case STSL_MODE_STOP_HIGH:
        g[STSL_G_RELEASE] = in->fn + in->fs_neg;
        return 1;
    case STSL_MODE_SMOOTH:
        g[STSL_G_HIGH] = in->has_stops ? st->guard(in->x, in->x_max) : 1.0;
        g[STSL_G_LOW] = in->has_stops ? st->guard(in->x, in->x_min) : 1.0;
        return 2;
    }
    return 0;
}
