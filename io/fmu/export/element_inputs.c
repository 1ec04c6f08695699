/* element_inputs.c - the inputs of the element's FMU (see element_inputs.h). */
#include "io/fmu/export/element_inputs.h"

#include "models/one_body.h"
#include "physics/signal.h"

/* Value and first two derivatives of `spec` at t = 0 (left limit). */
static int at_zero(const stsl_signal_spec *spec, double out[3], stsl_error *err)
{
    stsl_signal *s = stsl_signal_create(spec, err);
    if (!s) return -1;
    out[0] = out[1] = out[2] = 0.0;
    stsl_signal_eval(s, 0.0, 1, out);
    stsl_signal_free(s);
    return 0;
}

int stsl_element_fmu_inputs(const stsl_element_params *p, stsl_fmu_input in[STSL_FMU_IN_MAX],
                            stsl_error *err)
{
    const stsl_column *c = stsl_one_body_columns(p->domain);
    const char *f = c[STSL_COL_FRICTION].units, *x = c[STSL_COL_X_BASE].units,
               *v = c[STSL_COL_V_BASE].units, *a = c[STSL_COL_A].units;
    double fa[3], load[3], b[3], an[3] = {0.0, 0.0, 0.0};
    if (at_zero(&p->active_force, fa, err) || at_zero(&p->load, load, err) ||
        at_zero(&p->base_motion, b, err) || (p->has_anchor && at_zero(&p->anchor_motion, an, err)))
        return -1;
    const stsl_fmu_input all[STSL_FMU_IN_MAX] = {
        {"active_force", f, fa[0]},     {"load", f, load[0]},
        {"base_position", x, b[0]},     {"base_velocity", v, b[1]},
        {"base_acceleration", a, b[2]}, {"anchor_position", x, an[0]},
        {"anchor_velocity", v, an[1]},
    };
    int n = p->has_anchor ? STSL_FMU_IN_MAX : STSL_FMU_IN_XA;
    for (int i = 0; i < n; i++)
        in[i] = all[i];
    return n;
}
