#include "events/guards.h"

#include "events/contact.h"

/* The guard of the stop `side`, or a constant 1 without stops. */
static double stop_guard(const stsl_guard_in *in, int side)
{
    return in->has_stops ? in->stop->guard(in->sp, side, in->x, in->v) : 1.0;
}

int stsl_guards_eval(int mode, const stsl_guard_in *in, double *g)
{
    int side = stsl_mode_contact_side(mode), fr = stsl_mode_friction(mode);
    switch (fr) {
    case STSL_MODE_STUCK:
        g[STSL_G_BREAK_POS] = stsl_contact_band_excess(in->fn, +1, in->fs_pos);
        g[STSL_G_BREAK_NEG] = stsl_contact_band_excess(in->fn, -1, in->fs_neg);
        return 2;
    case STSL_MODE_SLIP_POS:
    case STSL_MODE_SLIP_NEG: {
        int ahead = fr == STSL_MODE_SLIP_POS ? +1 : -1;
        g[STSL_G_VZERO] = in->v;
        /* In contact the stop's own guard ends it; else the stop ahead begins one. */
        g[STSL_G_STOP] = stop_guard(in, side ? side : ahead);
        g[STSL_G_LOAD] = in->load_varies ? in->load : 1.0;
        if (side || !in->stop->compliant) return 3;
        g[STSL_G_BEHIND] = stop_guard(in, -ahead);
        return 4;
    }
    case STSL_MODE_STOP_LOW:
        g[STSL_G_RELEASE] = in->fn - in->fs_pos;
        return 1;
    case STSL_MODE_STOP_HIGH:
        g[STSL_G_RELEASE] = in->fn + in->fs_neg;
        return 1;
    case STSL_MODE_SMOOTH:
        if (side) {
            g[STSL_G_LEAVE] = stop_guard(in, side);
            return 1;
        }
        g[STSL_G_HIGH] = stop_guard(in, +1);
        g[STSL_G_LOW] = stop_guard(in, -1);
        return 2;
    }
    return 0;
}
