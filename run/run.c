#include "run/run.h"

#include <stdlib.h>

#include "run/fixed_step_system.h"
#include "models/multibody.h"
#include "models/one_body.h"

/* `model` run from y0 at t = 0 into `sink`, its statistics into *stats. */
static int run_model(const stsl_hmodel *model, const stsl_hsolver_opts *sim, const double *y0,
                     stsl_sink *sink, stsl_stats *stats, stsl_error *err)
{
    stsl_hsolver *s = stsl_hsolver_create(model, sim, err);
    if (!s) return err ? err->code : STSL_ESOLVER;
    int rc = stsl_hsolver_run(s, 0.0, y0, sink, err);
    if (stats) *stats = *stsl_hsolver_stats(s);
    stsl_hsolver_free(s);
    return rc;
}

/* The element's configuration, event-driven: the engine's one-body model
 * (models/one_body.h), written in the element's layout. */
static int run_event_driven(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                            stsl_sink *sink, stsl_stats *stats, stsl_error *err)
{
    stsl_one_body *o = stsl_one_body_create(p, err);
    if (!o) return err ? err->code : STSL_EINPUT;
    double y0[STSL_ELEMENT_MAX_STATE];
    stsl_one_body_initial_state(o, y0);
    int rc = run_model(stsl_one_body_model(o), sim, y0, sink, stats, err);
    stsl_one_body_free(o);
    return rc;
}

int stsl_run_element(const stsl_element_params *p, const stsl_hsolver_opts *sim,
                     const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                     stsl_error *err)
{
    if (sch && sch->kind != STSL_SCHEME_EVENT_DRIVEN)
        return stsl_fixed_step_run(p, sim, sch, sink, stats, err);
    return run_event_driven(p, sim, sink, stats, err);
}

int stsl_run_system(const stsl_system *s, const stsl_hsolver_opts *sim, stsl_sink *sink,
                    stsl_stats *stats, stsl_error *err)
{
    stsl_multibody *m = stsl_multibody_create(s, sim->rtol, sim->atol, err);
    if (!m) return err ? err->code : STSL_EINPUT;
    stsl_hsolver_opts o = *sim;
    int zeno = 4 * (s->n_contacts + s->n_stops) + 64;
    if (o.max_same_instant < zeno) o.max_same_instant = zeno;
    const stsl_hmodel *model = stsl_multibody_model(m);
    double *y0 = malloc((size_t)model->n_state * sizeof *y0);
    int rc = y0 ? STSL_OK : stsl_error_set(err, STSL_ENOMEM, "out of memory starting the system");
    if (!rc) {
        stsl_multibody_initial_state(m, y0);
        rc = run_model(model, &o, y0, sink, stats, err);
    }
    free(y0);
    stsl_multibody_free(m);
    return rc;
}

int stsl_run_system_scheme(const stsl_system *s, const stsl_hsolver_opts *sim,
                           const stsl_scheme_opts *sch, stsl_sink *sink, stsl_stats *stats,
                           stsl_error *err)
{
    if (sch && sch->kind != STSL_SCHEME_EVENT_DRIVEN)
        return stsl_fixed_step_run_system(s, sim, sch, sink, stats, err);
    return stsl_run_system(s, sim, sink, stats, err);
}
