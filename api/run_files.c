/* run_files.c - stsl_run_files (stickslip.h): a run into its result file
 * (HDF5 or MAT) and CSV tables, what `stickslip run` does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/error.h"
#include "api/run_api.h"
#include "physics/signal.h"
#include "io/result/csv_sink.h"
#include "io/result/h5_sink.h"
#include "io/result/mat_sink.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"
#include "models/multibody.h"
#include "models/one_body.h"

_Static_assert(sizeof((stsl_run_files *)0)->path_used == STSL_PATH_MAX + 16,
               "stsl_run_files.path_used holds a path and its default's extension");

_Static_assert(sizeof((stsl_run_files *)0)->verify_warning == STSL_ERRMSG_MAX + 256,
               "stsl_run_files.verify_warning holds the check run's message");

static void default_output(const stsl_config *cfg, const char *ext, char *buf, size_t n)
{
    if (cfg->output_file[0])
        snprintf(buf, n, "%s", cfg->output_file);
    else
        snprintf(buf, n, "results/%s.%s", cfg->name, ext);
}

static int make_sink(const stsl_run_files *f, const char *yaml, stsl_sink *sink, stsl_sink *h5_only,
                     stsl_error *err)
{
    const char *out = f->path_used;
    int rc = f->mat ? stsl_mat_sink_create(out, yaml, stsl_lib_version(), 0, sink, err)
                    : stsl_h5_sink_create(out, yaml, stsl_lib_version(), sink, err);
    *h5_only = *sink;
    if (rc || !f->csv) return rc;
    stsl_sink csv = {0};
    if ((rc = stsl_csv_sink_create(f->csv, &csv, err))) {
        stsl_sink_free(sink);
        return rc;
    }
    stsl_sink h5 = *sink;
    return stsl_sink_tee(h5, csv, sink, err);
}

/* Build the model (and free it) to find bad parameters: 0, or nonzero
 * with err filled. */
static int check_model(const stsl_config *cfg, stsl_error *err)
{
    if (cfg->is_system) {
        stsl_multibody *mb = stsl_multibody_create(&cfg->system, cfg->sim.rtol, cfg->sim.atol, err);
        stsl_multibody_free(mb);
        return !mb;
    }
    stsl_one_body *el = stsl_one_body_create(&cfg->element, err);
    stsl_one_body_free(el);
    return !el;
}

static int simulate(const stsl_cfg *c, stsl_run_files *f, stsl_error *err)
{
    const stsl_config *cfg = &c->c;
    char *yaml = stsl_config_to_yaml(cfg);
    if (!yaml) return stsl_error_set(err, STSL_ENOMEM, "out of memory writing the configuration");
    /* Bad parameters are bad input: check them before a file is created. */
    int bad = check_model(cfg, err);
    stsl_sink sink = {0}, h5 = {0};
    int rc = !bad ? make_sink(f, yaml, &sink, &h5, err) : err->code;
    if (!rc) {
        f->started = 1;
        rc = stsl_api_run_sim(c, cfg->sim, &sink, f->verify_warning, sizeof f->verify_warning, err);
        if (rc) f->verify_warning[0] = '\0';
        f->replaced = stsl_h5_sink_replaced(&h5) || stsl_mat_sink_replaced(&h5);
    }
    stsl_sink_free(&sink);
    free(yaml);
    return rc;
}

/* The output rule (io/result/safe_output.h) for the result and the CSV files
 * against the configuration and its table files; decides the format. */
static int check_outputs(const stsl_config *cfg, stsl_run_files *f, stsl_error *err)
{
    int n_in = 0, format = f->format == STSL_OUTPUT_MAT    ? STSL_FMT_MAT
                           : f->format == STSL_OUTPUT_HDF5 ? STSL_FMT_H5
                                                           : 0;
    const char **inputs = stsl_out_config_inputs(cfg, &n_in);
    if (!inputs) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    char csv[2][STSL_PATH_MAX + 32];
    for (int k = 0; f->csv && k < 2; k++)
        snprintf(csv[k], sizeof csv[k], "%s_%s.csv", f->csv, k ? "events" : "trajectory");
    const char *out = f->path_used;
    stsl_output_file outs[3] = {
        {out, "a run's result file", STSL_FMT_H5 | STSL_FMT_MAT, format, 0},
        {f->csv ? csv[0] : NULL, "--csv's trajectory table", STSL_FMT_CSV, 0, 0},
        {f->csv ? csv[1] : NULL, "--csv's event table", STSL_FMT_CSV, 0, 0}};
    int rc = stsl_output_rule(inputs, n_in, outs, 3, err);
    size_t len = strlen(err->msg);
    if (rc && !format && stsl_output_format_of(out) == STSL_FMT_CSV) /* what x.csv meant */
        snprintf(err->msg + len, sizeof err->msg - len, " (for CSV tables: --csv PREFIX)");
    f->mat = outs[0].format == STSL_FMT_MAT;
    free(inputs);
    return rc;
}

stsl_rc stsl_run_into_files(const stsl_cfg *cfg, stsl_run_files *f, stsl_err *err)
{
    if (!cfg || !f) return stsl_api_bad_arg(err, "stsl_run_into_files: NULL argument");
    f->path_used[0] = f->verify_warning[0] = '\0';
    f->started = f->mat = f->replaced = 0;
    if (f->format != STSL_OUTPUT_AUTO && f->format != STSL_OUTPUT_HDF5 &&
        f->format != STSL_OUTPUT_MAT)
        return stsl_api_bad_arg(err, "stsl_run_into_files: format must be AUTO, HDF5 or MAT");
    stsl_error e = {0};
    const stsl_config *c = &cfg->c;
    int rc = stsl_config_require_runnable(c, &e);
    if (rc) return stsl_api_err(err, &e);
    if (f->path)
        snprintf(f->path_used, sizeof f->path_used, "%s", f->path);
    else
        default_output(c, f->format == STSL_OUTPUT_MAT ? "mat" : "h5", f->path_used,
                       sizeof f->path_used);
    rc = check_outputs(c, f, &e);
    if (!rc && !f->mat && f->read_back) stsl_output_h5_keep_freed();
    if (!rc) rc = simulate(cfg, f, &e);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
