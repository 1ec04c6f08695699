/* compare_fmu.c - an FMU run as the candidate of `compare` (see compare_fmu.h). */
#include "cli/compare_fmu.h"

#include <stdio.h>
#include <string.h>

#include "api/compare.h"
#include "cli/fmu_lazy.h"

int stsl_cli_fmu_candidate(const stsl_fmu_opts *o, const stsl_config *cfg, double h,
                           stsl_candidate *c, stsl_error *err)
{
    memset(c, 0, sizeof *c);
    if (cfg->is_system)
        return stsl_error_set(err, STSL_EINPUT,
                              "--fmu: the reference's /config is a system of bodies, but its "
                              "file is not a system's result");
    const stsl_fmu_module_api *m = stsl_cli_fmu_module(err);
    if (!m) return err->code;
    stsl_fmu *f = NULL;
    stsl_fmu_samples s;
    int rc = m->open(o, &cfg->element, &f, err);
    if (!rc) rc = m->run_samples(f, cfg->sim.t_end, h, &s, err);
    m->close(f);
    if (rc) return rc;
    snprintf(c->path, sizeof c->path, "%s", o->path);
    c->format = STSL_CAND_CSV;
    c->n = s.n;
    c->t = s.t, c->x = s.x, c->v = s.v, c->friction = s.friction;
    return STSL_OK;
}

int stsl_cli_fmu_system_candidate(const stsl_fmu_opts *o, const stsl_config *cfg, double h,
                                  stsl_h5_system *c, stsl_error *err)
{
    memset(c, 0, sizeof *c);
    const stsl_fmu_module_api *m = stsl_cli_fmu_module(err);
    return m ? stsl_cmp_fmu_system(m, o, cfg, h, c, err) : err->code;
}
