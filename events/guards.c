#include "events/guards.h"

#include "models/element.h"

static const stsl_mode_desc modes[STSL_N_MODES] = {
    [STSL_MODE_STUCK] = {"STUCK", 1, 2, {STSL_GUARD_RISING, STSL_GUARD_RISING}},
    [STSL_MODE_SLIP_POS] = {"SLIP_POS",
                            0,
                            3,
                            {STSL_GUARD_FALLING, STSL_GUARD_RISING, STSL_GUARD_BOTH}},
    [STSL_MODE_SLIP_NEG] = {"SLIP_NEG",
                            0,
                            3,
                            {STSL_GUARD_RISING, STSL_GUARD_FALLING, STSL_GUARD_BOTH}},
    [STSL_MODE_STOP_LOW] = {"STOP_LOW", 1, 1, {STSL_GUARD_RISING}},
    [STSL_MODE_STOP_HIGH] = {"STOP_HIGH", 1, 1, {STSL_GUARD_FALLING}},
    [STSL_MODE_SMOOTH] = {"SMOOTH", 0, 2, {STSL_GUARD_RISING, STSL_GUARD_FALLING}},
};

const stsl_mode_desc *stsl_element_modes(void)
{
    return modes;
}

int stsl_guards_eval(int mode, const stsl_guard_in *in, double *g)
{
    switch (mode) {
    case STSL_MODE_STUCK:
        g[STSL_G_BREAK_POS] = in->fn - in->fs_pos;
        g[STSL_G_BREAK_NEG] = -in->fn - in->fs_neg;
        return 2;
    case STSL_MODE_SLIP_POS:
    case STSL_MODE_SLIP_NEG: {
        double stop = mode == STSL_MODE_SLIP_POS ? in->x_max : in->x_min;
        g[STSL_G_VZERO] = in->v;
        g[STSL_G_STOP] = in->has_stops ? in->x - stop : 1.0;
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
        g[STSL_G_HIGH] = in->has_stops ? in->x - in->x_max : 1.0;
        g[STSL_G_LOW] = in->has_stops ? in->x - in->x_min : 1.0;
        return 2;
    }
    return 0;
}
