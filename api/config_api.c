/* config_api.c - stsl_cfg_* of stickslip.h over io/config/config. */
#include "api/config_api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/error.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"

static stsl_cfg *new_cfg(stsl_err *err)
{
    stsl_cfg *c = calloc(1, sizeof *c);
    if (!c) stsl_api_fail(err, STSL_ENOMEM, "out of memory for a configuration");
    return c;
}

/* `c` once io/config/config filled it (rc), else NULL with the error in `err`. */
static stsl_cfg *filled(stsl_cfg *c, int rc, const stsl_error *e, stsl_err *err)
{
    if (!c || !rc) return c;
    stsl_api_err(err, e);
    free(c);
    return NULL;
}

/* With --set assignments (`stickslip curve`), or none (stsl_cfg_load). */
stsl_cfg *stsl_cfg_load_set(const char *path, const char *const *sets, int n_sets, stsl_err *err)
{
    stsl_error e = {0};
    if (!path || n_sets < 0 || (n_sets > 0 && !sets))
        return stsl_api_bad_arg(err, "stsl_cfg_load_set: bad arguments"), NULL;
    stsl_cfg *c = new_cfg(err);
    return filled(c, c ? stsl_config_load(path, sets, n_sets, &c->c, &e) : 0, &e, err);
}

stsl_cfg *stsl_cfg_load(const char *path, stsl_err *err)
{
    if (!path) return stsl_api_bad_arg(err, "stsl_cfg_load: path is NULL"), NULL;
    return stsl_cfg_load_set(path, NULL, 0, err);
}

stsl_cfg *stsl_cfg_parse(const char *yaml, const char *base_dir, stsl_err *err)
{
    stsl_error e = {0};
    if (!yaml) return stsl_api_bad_arg(err, "stsl_cfg_parse: yaml is NULL"), NULL;
    stsl_cfg *c = new_cfg(err);
    return filled(c, c ? stsl_config_load_string(yaml, NULL, base_dir, NULL, 0, &c->c, &e) : 0, &e,
                  err);
}

stsl_cfg *stsl_cfg_clone(const stsl_cfg *cfg, stsl_err *err)
{
    stsl_error e = {0};
    if (!cfg) return stsl_api_bad_arg(err, "stsl_cfg_clone: cfg is NULL"), NULL;
    stsl_cfg *c = new_cfg(err);
    c = filled(c, c ? stsl_config_copy(&c->c, &cfg->c, &e) : 0, &e, err);
    if (c) c->cancel = cfg->cancel;
    return c;
}

stsl_rc stsl_cfg_set(stsl_cfg *cfg, const char *key, const char *value, stsl_err *err)
{
    stsl_error e = {0};
    if (!cfg || !key || !value) return stsl_api_bad_arg(err, "stsl_cfg_set: NULL argument");
    return stsl_config_set(&cfg->c, key, value, &e) ? stsl_api_err(err, &e) : STSL_RC_OK;
}

stsl_rc stsl_cfg_set_all(stsl_cfg *cfg, const char *const *assignments, int n, stsl_err *err)
{
    stsl_error e = {0};
    if (!cfg || (n > 0 && !assignments) || n < 0)
        return stsl_api_bad_arg(err, "stsl_cfg_set_all: bad arguments");
    return stsl_config_apply(&cfg->c, assignments, n, &e) ? stsl_api_err(err, &e) : STSL_RC_OK;
}

char *stsl_cfg_get(const stsl_cfg *cfg, const char *key, stsl_err *err)
{
    stsl_error e = {0};
    if (!cfg || !key) return stsl_api_bad_arg(err, "stsl_cfg_get: NULL argument"), NULL;
    char *v = stsl_config_get(&cfg->c, key, &e);
    if (!v) stsl_api_err(err, &e);
    return v;
}

char *stsl_cfg_to_yaml(const stsl_cfg *cfg, stsl_err *err)
{
    if (!cfg) return stsl_api_bad_arg(err, "stsl_cfg_to_yaml: cfg is NULL"), NULL;
    char *y = stsl_config_to_yaml(&cfg->c);
    if (!y) stsl_api_fail(err, STSL_ENOMEM, "out of memory writing the configuration");
    return y;
}

/* The output rule (io/result/safe_output.h) for a configuration's YAML:
 * its own file may be replaced (writing a configuration back is the point
 * of the call), but never a table file it reads, nor a file whose name
 * says another format: a result (.h5, .hdf5, .mat), a table (.csv), a
 * report (.json). */
static int cfg_output_rule(const stsl_cfg *cfg, const char *path, stsl_error *e)
{
    if (stsl_output_format_of(path))
        return stsl_error_set(e, STSL_EINPUT,
                              "%s: the name of a result, table or report file (.h5, .hdf5, "
                              ".mat, .csv, .json): the configuration is written as YAML; choose "
                              "a .yaml name",
                              path);
    int n_in = 0;
    const char **in = stsl_out_config_inputs(&cfg->c, &n_in);
    if (!in) return stsl_error_set(e, STSL_ENOMEM, "out of memory for the output rule");
    in[0] = NULL; /* its own file: written back */
    stsl_output_file o = {path, "the configuration", 0, 0, 1};
    int rc = stsl_output_rule(in, n_in, &o, 1, e);
    free(in);
    return rc;
}

stsl_rc stsl_cfg_write(const stsl_cfg *cfg, const char *path, stsl_err *err)
{
    if (!path) return stsl_api_bad_arg(err, "stsl_cfg_write: path is NULL");
    char *y = stsl_cfg_to_yaml(cfg, err);
    if (!y) return err ? err->code : STSL_RC_NOMEM;
    /* Whole or not at all (io/result/out_file.h), as every result. */
    stsl_error e = {0};
    stsl_out_text t;
    int rc = cfg_output_rule(cfg, path, &e);
    if (!rc) rc = stsl_out_text_open(path, &t, &e);
    if (!rc) {
        fputs(y, t.f);
        rc = stsl_out_text_commit(&t, &e);
    }
    free(y);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}

void stsl_cfg_set_cancel(stsl_cfg *cfg, const volatile int *flag)
{
    if (cfg) cfg->cancel = flag;
}

void stsl_cfg_set_progress(stsl_cfg *cfg, stsl_progress_fn fn, void *ctx)
{
    if (!cfg) return;
    cfg->progress = fn;
    cfg->progress_ctx = ctx;
}

void stsl_cfg_free(stsl_cfg *cfg)
{
    if (!cfg) return;
    stsl_config_free(&cfg->c);
    free(cfg);
}
