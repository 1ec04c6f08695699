#include "models/run.h"

static int run_event_driven(stsl_element *el, const stsl_hsolver_opts *sim, stsl_sink *sink,
                            stsl_stats *stats, stsl_error *err)
{
    stsl_hsolver *s = stsl_hsolver_create(stsl_element_model(el), sim, err);
    if (!s) return err ? err->code : STSL_ESOLVER;
    double y0[STSL_ELEMENT_MAX_STATE];
    stsl_element_initial_state(el, y0);
    int rc = stsl_hsolver_run(s, 0.0, y0, sink, err);
    if (stats) *stats = *stsl_hsolver_stats(s);
    stsl_hsolver_free(s);
    return rc;
}

int stsl_run_element(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                     const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                     stsl_error *err)
{
    stsl_element *el = stsl_element_create(p, err);
    if (!el) return err ? err->code : STSL_EINPUT;
    int rc = (sch && sch->kind != STSL_SCHEME_EVENT_DRIVEN)
                 ? stsl_fixed_step_run(el, sim, sch, sink, stats, err)
                 : run_event_driven(el, sim, sink, stats, err);
    stsl_element_free(el);
    return rc;
}
