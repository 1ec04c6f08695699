/* curve_api.c - what `stickslip curve` reads through stickslip.h: the
 * friction laws of a configuration as steady curves (stsl_curve), and a
 * text output under the output rule (stsl_text_file). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/error.h"
#include "include/stickslip.h"
#include "io/config/config.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"
#include "physics/friction.h"
#include "physics/signal.h"
#include "physics/smooth_friction.h"

/* ---- the friction laws as curves ----------------------------------------- */

struct stsl_curve {
    int n, is_system, rotational;
    const stsl_friction_params **p; /* borrowed from the configuration */
    double *load;                   /* each law's load at t = 0 */
    char (*name)[STSL_BODY_NAME_MAX + 16];
};

static double load_at_start(const stsl_signal_spec *spec)
{
    stsl_error err;
    stsl_signal *s = stsl_signal_create(spec, &err);
    double v = s ? stsl_signal_value(s, 0.0, 0) : 0.0;
    stsl_signal_free(s);
    return v;
}

stsl_curve *stsl_curve_new(const stsl_cfg *cfg, stsl_err *err)
{
    if (!cfg) return stsl_api_bad_arg(err, "stsl_curve_new: cfg is NULL"), NULL;
    const stsl_config *c = &cfg->c;
    const stsl_system *s = &c->system;
    stsl_curve *l = calloc(1, sizeof *l);
    if (!l) return stsl_api_fail(err, STSL_ENOMEM, "out of memory for a curve"), NULL;
    l->is_system = c->is_system;
    l->n = c->is_system ? s->n_contacts : 1;
    l->rotational = (c->is_system ? s->domain : c->element.domain) == STSL_DOMAIN_ROTATIONAL;
    l->p = calloc((size_t)l->n + 1, sizeof *l->p);
    l->load = calloc((size_t)l->n + 1, sizeof *l->load);
    l->name = calloc((size_t)l->n + 1, sizeof *l->name);
    if (!l->p || !l->load || !l->name) {
        stsl_curve_free(l);
        return stsl_api_fail(err, STSL_ENOMEM, "out of memory for a curve"), NULL;
    }
    if (!c->is_system) {
        l->p[0] = &c->element.friction;
        l->load[0] = load_at_start(&c->element.load);
        return l;
    }
    for (int k = 0; k < l->n; k++) {
        l->p[k] = &s->contacts[k].friction;
        l->load[k] = s->contacts[k].has_load ? load_at_start(&s->contacts[k].load) : 0.0;
        stsl_system_member_name(s, k, l->name[k], sizeof l->name[k]);
    }
    return l;
}

int stsl_curve_n(const stsl_curve *c)
{
    return c->n;
}

const char *stsl_curve_name(const stsl_curve *c, int k)
{
    return c->is_system && k >= 0 && k < c->n ? c->name[k] : NULL;
}

const char *stsl_curve_law(const stsl_curve *c, int k)
{
    return stsl_law_name(c->p[k]->law);
}

int stsl_curve_rotational(const stsl_curve *c)
{
    return c->rotational;
}

int stsl_curve_hybrid(const stsl_curve *c, int k)
{
    return !stsl_law_is_smooth(c->p[k]->law);
}

double stsl_curve_velocity_scale(const stsl_curve *c, int k)
{
    const stsl_friction_params *p = c->p[k];
    if (stsl_law_is_smooth(p->law)) return stsl_smooth_velocity_scale(p);
    return p->law == STSL_LAW_STRIBECK ? p->stribeck_velocity : 0.0;
}

double stsl_curve_force(const stsl_curve *c, int k, double v)
{
    return stsl_friction_steady(c->p[k], c->load[k], v);
}

void stsl_curve_band(const stsl_curve *c, int k, double *fs_neg, double *fs_pos)
{
    double fd;
    *fs_neg = *fs_pos = 0.0;
    if (!stsl_curve_hybrid(c, k)) return;
    stsl_friction_levels(c->p[k], -1, c->load[k], &fd, fs_neg);
    stsl_friction_levels(c->p[k], +1, c->load[k], &fd, fs_pos);
}

void stsl_curve_free(stsl_curve *c)
{
    if (!c) return;
    free(c->p), free(c->load), free(c->name);
    free(c);
}

/* ---- a text output --------------------------------------------------------- */

struct stsl_text_file {
    stsl_out_text t;
};

stsl_text_file *stsl_text_open(const char *path, const char *what, const stsl_cfg *inputs,
                               stsl_err *err)
{
    if (!path || !what) return stsl_api_bad_arg(err, "stsl_text_open: NULL argument"), NULL;
    stsl_error e = {0};
    int n_in = 0;
    const char **in = inputs ? stsl_out_config_inputs(&inputs->c, &n_in) : NULL;
    if (inputs && !in)
        return stsl_api_fail(err, STSL_ENOMEM, "out of memory for the output rule"), NULL;
    stsl_output_file o = {path, what, STSL_FMT_CSV, 0, 1};
    int rc = stsl_output_rule(in, n_in, &o, 1, &e);
    free(in);
    stsl_text_file *f = rc ? NULL : calloc(1, sizeof *f);
    if (!rc && !f) rc = stsl_error_set(&e, STSL_ENOMEM, "out of memory for %s", what);
    if (!rc && (rc = stsl_out_text_open(path, &f->t, &e))) free(f), f = NULL;
    if (rc) stsl_api_err(err, &e);
    return f;
}

void stsl_text_write(stsl_text_file *f, const char *text, long n)
{
    if (n > 0) fwrite(text, 1, (size_t)n, f->t.f);
}

stsl_rc stsl_text_commit(stsl_text_file *f, stsl_err *err)
{
    if (!f) return stsl_api_bad_arg(err, "stsl_text_commit: file is NULL");
    stsl_error e = {0};
    int rc = stsl_out_text_commit(&f->t, &e);
    free(f);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}

void stsl_text_discard(stsl_text_file *f)
{
    if (!f) return;
    stsl_out_text_discard(&f->t);
    free(f);
}
