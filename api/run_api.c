/* run_api.c - see run_api.h. */
#include "api/run_api.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "api/summary_sink.h"
#include "io/config/config.h"
#include "io/result/csv_sink.h"
#include "io/result/h5_sink.h"
#include "io/result/mat_sink.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"
#include "run/run.h"
#include "run/verify.h"

/* The solver's cancel callback over stsl_cfg_set_cancel's flag.  Another
 * thread sets it while the run reads it: an atomic load (relaxed: the flag
 * orders nothing else), as stsl_cancel_request stores it. */
static int flag_set(void *ctx)
{
    return __atomic_load_n((const int *)ctx, __ATOMIC_RELAXED) != 0;
}

void stsl_cancel_request(volatile int *flag)
{
    if (flag) __atomic_store_n((int *)(uintptr_t)flag, 1, __ATOMIC_RELAXED);
}

int stsl_cancel_requested(const volatile int *flag)
{
    return flag && __atomic_load_n((const int *)(uintptr_t)flag, __ATOMIC_RELAXED) != 0;
}

void stsl_api_no_grid(const stsl_config *c, stsl_hsolver_opts *sim)
{
    if (!c->is_system && c->scheme.kind != STSL_SCHEME_EVENT_DRIVEN) return;
    sim->output_step = 0.0;
    sim->output_times = NULL;
    sim->n_output_times = 0;
}

int stsl_api_run_sim(const stsl_cfg *cfg, stsl_hsolver_opts sim, stsl_sink *sink, char *warn,
                     size_t size, stsl_error *err)
{
    const stsl_config *c = &cfg->c;
    if (cfg->cancel) {
        sim.cancel = flag_set;
        sim.cancel_ctx = (void *)(uintptr_t)cfg->cancel; /* read only, through flag_set */
    }
    sim.progress = cfg->progress;
    sim.progress_ctx = cfg->progress_ctx;
    if (!c->is_system)
        return stsl_run_verified(&c->element, &sim, &c->scheme, c->verify, sink, NULL, warn, size,
                                 err);
    if (c->scheme.kind != STSL_SCHEME_EVENT_DRIVEN)
        return stsl_run_system_scheme(&c->system, &sim, &c->scheme, sink, NULL, err);
    return stsl_run_system_verified(&c->system, &sim, c->verify, sink, NULL, warn, size, err);
}

int stsl_api_run_into(const stsl_cfg *cfg, stsl_sink *extra, stsl_summary *sum, stsl_error *err)
{
    stsl_summary_sink ss;
    stsl_sink s;
    stsl_summary_sink_init(&ss, sum, extra && extra->ops ? extra : NULL, &s);
    const stsl_config *c = &cfg->c;
    stsl_hsolver_opts sim = c->sim;
    int refused = stsl_config_require_runnable(c, err);
    if (refused) return refused;
    /* The summary's max_abs of x and v: exact extrema (solver/hybrid.c). */
    sim.track_extrema = 1;
    sim.integrate_power = !c->is_system; /* the element's summary's dissipated energy */
    int rc = stsl_api_run_sim(cfg, sim, &s, sum->verify_message, sizeof sum->verify_message, err);
    /* A system's power is not the friction-only figure the summary's
     * dissipated energy promises: NaN.  The work quadrature rides on
     * CVODE's steps; the fixed-step schemes have none, and a trapezoid
     * over their samples would not be the accurate figure either. */
    if (c->is_system || c->scheme.kind != STSL_SCHEME_EVENT_DRIVEN) sum->dissipated_energy = NAN;
    return rc;
}

static int lk_begin(void *self, const stsl_layout *layout, stsl_error *err)
{
    stsl_hdf5_lock();
    int rc = stsl_sink_begin(self, layout, err);
    stsl_hdf5_unlock();
    return rc;
}

static int lk_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    stsl_hdf5_lock();
    int rc = stsl_sink_sample(self, t, mode, cols, err);
    stsl_hdf5_unlock();
    return rc;
}

static int lk_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    stsl_hdf5_lock();
    int rc = stsl_sink_event(self, ev, err);
    stsl_hdf5_unlock();
    return rc;
}

static int lk_end(void *self, const stsl_stats *stats, int complete, const char *message,
                  stsl_error *err)
{
    stsl_hdf5_lock();
    int rc = stsl_sink_end(self, stats, complete, message, err);
    stsl_hdf5_unlock();
    return rc;
}

static void lk_destroy(void *self)
{
    if (!self) return;
    stsl_hdf5_lock();
    stsl_sink_free(self);
    stsl_hdf5_unlock();
    free(self);
}

static const stsl_sink_ops locked_ops = {lk_begin, lk_sample, lk_event, lk_end, lk_destroy};

/* The HDF5 sink of io/result/h5_sink, created under the lock (h5_lock.c)
 * and wrapped so that each of its operations holds the lock. */
static int locked_h5_sink_create(const char *path, const char *config_yaml, const char *version,
                                 stsl_sink *out, stsl_error *err)
{
    stsl_sink *inner = calloc(1, sizeof *inner);
    if (!inner) return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path);
    stsl_hdf5_lock();
    int rc = stsl_h5_sink_create(path, config_yaml, version, inner, err);
    stsl_hdf5_unlock();
    if (rc) {
        free(inner);
        return rc;
    }
    *out = (stsl_sink){&locked_ops, inner};
    return STSL_OK;
}

/* The output rule (io/result/safe_output.h) for `path` as `output` writes it,
 * against the configuration's file and tables; *fmt gets the format. */
static int check_output(const stsl_cfg *cfg, stsl_output output, const char *path, int *fmt,
                        stsl_error *err)
{
    static const char *const suffix[2] = {"_trajectory.csv", "_events.csv"};
    char *csv[2] = {NULL, NULL};
    stsl_output_file outs[2] = {{path, "the result file", STSL_FMT_H5 | STSL_FMT_MAT, 0, 0},
                                {NULL, "the event table", STSL_FMT_CSV, 0, 1}};
    if (output == STSL_OUTPUT_HDF5) outs[0].format = STSL_FMT_H5;
    if (output == STSL_OUTPUT_MAT) outs[0].format = STSL_FMT_MAT;
    for (int k = 0; output == STSL_OUTPUT_CSV && k < 2; k++) {
        size_t n = strlen(path) + strlen(suffix[k]) + 1;
        if ((csv[k] = malloc(n))) snprintf(csv[k], n, "%s%s", path, suffix[k]);
        outs[k] = (stsl_output_file){csv[k], k ? "the event table" : "the trajectory table",
                                     STSL_FMT_CSV, 0, 1};
    }
    int n_in = 0;
    const char **in = stsl_out_config_inputs(&cfg->c, &n_in);
    int rc = !in || (output == STSL_OUTPUT_CSV && (!csv[0] || !csv[1]))
                 ? stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path)
                 : stsl_output_rule(in, n_in, outs, 2, err);
    *fmt = outs[0].format;
    free(in);
    free(csv[0]);
    free(csv[1]);
    return rc;
}

static int make_output(const stsl_cfg *cfg, stsl_output output, const char *path, stsl_sink *out,
                       stsl_error *err)
{
    *out = (stsl_sink){0};
    if (output == STSL_OUTPUT_NONE) return STSL_OK;
    if (!path || !*path)
        return stsl_error_set(err, STSL_EINPUT, "stsl_run: an output file needs a path");
    if (output < STSL_OUTPUT_HDF5 || output > STSL_OUTPUT_AUTO)
        return stsl_error_set(err, STSL_EINPUT, "stsl_run: unknown output %d", (int)output);
    int fmt = 0, rc = check_output(cfg, output, path, &fmt, err);
    if (rc) return rc;
    if (output == STSL_OUTPUT_CSV) return stsl_csv_sink_create(path, out, err);
    char *yaml = stsl_config_to_yaml(&cfg->c);
    if (!yaml) return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path);
    rc = fmt == STSL_FMT_MAT ? stsl_mat_sink_create(path, yaml, stsl_lib_version(), 0, out, err)
                             : locked_h5_sink_create(path, yaml, stsl_lib_version(), out, err);
    free(yaml);
    return rc;
}

stsl_rc stsl_run(const stsl_cfg *cfg, stsl_output output, const char *path, stsl_summary *summary,
                 stsl_err *err)
{
    stsl_error e = {0};
    stsl_summary local;
    stsl_sink extra;
    if (!cfg) return stsl_api_bad_arg(err, "stsl_run: cfg is NULL");
    /* Refused before an output file is made. */
    int rc = stsl_config_require_runnable(&cfg->c, &e);
    extra = (stsl_sink){0};
    if (!rc) rc = make_output(cfg, output, path, &extra, &e);
    if (!rc) rc = stsl_api_run_into(cfg, &extra, summary ? summary : &local, &e);
    stsl_sink_free(&extra);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
