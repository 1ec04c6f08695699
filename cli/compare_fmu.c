/* compare_fmu.c - an FMU run as the candidate of `compare` (see compare_fmu.h). */
#include "cli/compare_fmu.h"

#include <stdio.h>
#include <string.h>

#include "api/fmu_lazy.h"
#include "cli/fmu_lazy.h"

int stsl_cli_fmu_candidate(const stsl_cli_fmu *cli, const stsl_config *cfg, double h,
                           stsl_candidate *c, stsl_error *err)
{
    memset(c, 0, sizeof *c);
    if (cfg->is_system)
        return stsl_error_set(err, STSL_EINPUT,
                              "--fmu: the reference is a system of bodies; compare takes an "
                              "element's FMU (a system's FMU runs in converge --fmu)");
    char module[4200];
    const stsl_fmu_module_api *m =
        stsl_fmu_module_load(stsl_cli_fmu_module_path(module, sizeof module), err);
    if (!m) return err->code;
    stsl_fmu_opts opts = {.path = cli->path, .scheme = cli->scheme}, *o = &opts;
    memcpy(opts.inputs, cli->inputs, sizeof opts.inputs);
    memcpy(opts.outputs, cli->outputs, sizeof opts.outputs);
    memcpy(opts.sets, cli->sets, sizeof opts.sets);
    opts.n_inputs = cli->n_inputs, opts.n_outputs = cli->n_outputs, opts.n_sets = cli->n_sets;
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
