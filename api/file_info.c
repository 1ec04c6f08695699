/* file_info.c - what `stickslip check` and `stickslip info` print, as text
 * for any program (stickslip.h: stsl_file_info, stsl_is_study_file,
 * stsl_cfg_describe, stsl_cfg_warnings). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/error.h"
#include "io/study/convergence_h5.h"
#include "io/result/h5_read.h"
#include "io/result/mat_result.h"
#include "io/study/study_h5.h"
#include "physics/end_stop.h"
#include "physics/friction.h"
#include "physics/signal.h"

static char *nomem(stsl_err *err)
{
    stsl_api_fail(err, STSL_ENOMEM, "out of memory");
    return NULL;
}

/* ---- check ------------------------------------------------------------------- */

/* A system's bodies, couplings, contacts, stops and forces, a line each. */
static void put_system(FILE *f, const stsl_system *s)
{
    int rot = s->domain == STSL_DOMAIN_ROTATIONAL;
    fprintf(f, "  %s system of %d bod%s:", rot ? "rotational" : "translational", s->n_bodies,
            s->n_bodies == 1 ? "y" : "ies");
    for (int i = 0; i < s->n_bodies; i++)
        fprintf(f, "%s %s (%s %g)", i ? "," : "", s->bodies[i].name, rot ? "inertia" : "mass",
                s->bodies[i].mass);
    fprintf(f, "\n  couplings: %d", s->n_couplings);
    for (int i = 0; i < s->n_couplings; i++)
        fprintf(f, "%s %s-%s (k %g, c %g)", i ? "," : "", s->couplings[i].ends[0].name,
                s->couplings[i].ends[1].name, s->couplings[i].stiffness, s->couplings[i].damping);
    fprintf(f, "\n  contacts: %d", s->n_contacts);
    for (int i = 0; i < s->n_contacts; i++)
        fprintf(f, "%s %s-%s (%s%s%s)", i ? "," : "", s->contacts[i].ends[0].name,
                s->contacts[i].ends[1].name, stsl_law_name(s->contacts[i].friction.law),
                s->contacts[i].has_load ? ", load " : "",
                s->contacts[i].has_load ? stsl_signal_type_names()[s->contacts[i].load.type] : "");
    fprintf(f, "\n  stops: %d", s->n_stops);
    for (int i = 0; i < s->n_stops; i++)
        fprintf(f, "%s %s-%s (%s, [%g, %g])", i ? "," : "", s->stops[i].ends[0].name,
                s->stops[i].ends[1].name, stsl_stop_model_names()[s->stops[i].model],
                s->stops[i].p.x_min, s->stops[i].p.x_max);
    fprintf(f, "\n  forces: %d", s->n_forces);
    for (int i = 0; i < s->n_forces; i++)
        fprintf(f, "%s %s (%s)", i ? "," : "", s->forces[i].on.name,
                stsl_signal_type_names()[s->forces[i].signal.type]);
    fputc('\n', f);
}

/* A system's line and its summary; the one element's line as it was
 * before systems existed. */
char *stsl_cfg_describe(const stsl_cfg *cfg, stsl_err *err)
{
    if (!cfg) return stsl_api_bad_arg(err, "stsl_cfg_describe: cfg is NULL"), NULL;
    const stsl_config *c = &cfg->c;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return nomem(err);
    if (c->is_system) {
        fprintf(f, "valid (t_end %g s)\n", c->sim.t_end);
        put_system(f, &c->system);
    } else {
        fprintf(f, "valid (t_end %g s, %s friction)\n", c->sim.t_end,
                stsl_law_name(c->element.friction.law));
    }
    return fclose(f) ? (free(buf), nomem(err)) : buf;
}

/* An explicit atol larger than the one the rule would derive for a
 * component (a system's: the smallest over its bodies) caps that
 * component's accuracy: tightening rtol alone then stops helping
 * (docs/numerics.md). */
static void warn_atol_cap(const stsl_config *cfg, FILE *f)
{
    double a[3];
    const char *units[3], *names[3] = {"x", "v", "sigma0 z"};
    if (!(cfg->sim.atol > 0.0) || cfg->scheme.kind != STSL_SCHEME_EVENT_DRIVEN) return;
    int n = stsl_config_auto_atol(cfg, a, units), capped = 0;
    char rule[256] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof rule; i++) {
        capped |= cfg->sim.atol > a[i];
        int w = snprintf(rule + used, sizeof rule - used, "%s%s %.3g %s", i ? ", " : "", names[i],
                         a[i], units[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    if (capped)
        fprintf(f,
                "simulation.atol = %g caps the accuracy rtol = %g asks for "
                "(atol: auto would give %s): tightening rtol alone stops helping; remove atol "
                "or set it to auto\n",
                cfg->sim.atol, cfg->sim.rtol, rule);
}

char *stsl_cfg_warnings(const stsl_cfg *cfg, stsl_err *err)
{
    if (!cfg) return stsl_api_bad_arg(err, "stsl_cfg_warnings: cfg is NULL"), NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return nomem(err);
    warn_atol_cap(&cfg->c, f);
    return fclose(f) ? (free(buf), nomem(err)) : buf;
}

/* ---- info -------------------------------------------------------------------- */

/* The summary of a result file: a system's per body, contact and stop
 * tables (from a MAT file's samples, or the HDF5 file's datasets), or the
 * element's (io/result/h5_read.h). */
static int print_result(const char *path, long max_events, FILE *out, stsl_error *err)
{
    stsl_h5_result res;
    stsl_mat_arrays a = {0};
    int mat = stsl_mat_result_file(path);
    int rc = mat ? stsl_mat_result_read(path, &res, &a, err) : stsl_h5_read(path, &res, err);
    if (rc) return rc;
    if (stsl_h5_result_is_system(&res)) {
        stsl_h5_system sys;
        rc = stsl_h5_system_from(&res, a.n, mat ? &a.t : NULL, mat ? a.cols : NULL, &sys,
                                 err); /* takes a's arrays */
        if (!rc) stsl_h5_print_system_info(&res, &sys, out, max_events);
        stsl_h5_system_free(&sys);
    } else {
        stsl_h5_print_info(&res, out, max_events);
    }
    stsl_h5_result_free(&res);
    stsl_mat_arrays_free(&a);
    return rc;
}

/* The table of a file with a /convergence group (converge --h5). */
static int print_convergence(const char *path, FILE *out, stsl_error *err)
{
    stsl_convergence_file f;
    int rc = stsl_convergence_h5_read(path, &f, err);
    if (rc) return rc;
    const stsl_convergence_table *t = &f.t;
    char hx[32], hv[32];
    snprintf(hx, sizeof hx, "[%s]", t->x_units);
    snprintf(hv, sizeof hv, "[%s]", t->v_units);
    fprintf(out, "File:        %s\n", path);
    fprintf(out,
            "Convergence: scheme %s against the event-driven reference (stickslip converge), %d "
            "steps\n\n",
            t->scheme[0] ? t->scheme : "?", t->n);
    fprintf(out, "%10s  %13s  %13s  %13s  %13s  %10s  %10s  %6s\n", "step", "max|x err|",
            "rms x err", "max|v err|", "final x err", "wall", "RHS", "events");
    fprintf(out, "%10s  %13s  %13s  %13s  %13s  %10s  %10s  %6s\n", "[s]", hx, hx, hv, hx, "[s]",
            "evals", "");
    for (int i = 0; i < t->n; i++)
        fprintf(out, "%10.4g  %13.6g  %13.6g  %13.6g  %13.6g  %10.4g  %10ld  %6ld\n", t->step[i],
                t->max_abs_error_x[i], t->rms_error_x[i], t->max_abs_error_v[i],
                t->final_error_x[i], t->wall_seconds[i], t->rhs_evals[i], t->events[i]);
    fprintf(out, "\nfitted order (slope of log max|x err| against log step): %.3f\n", t->order);
    fprintf(out,
            "reference cost (event_driven, no output): wall %.4g s, %ld RHS evaluations, %ld "
            "steps, %ld events\n",
            t->reference_wall_seconds, t->reference_rhs_evals, t->reference_steps,
            t->reference_events);
    stsl_convergence_file_free(&f);
    return STSL_OK;
}

int stsl_is_study_file(const char *path)
{
    if (!path) return 0;
    stsl_hdf5_lock();
    int is = stsl_study_h5_is_study(path);
    stsl_hdf5_unlock();
    return is;
}

/* converge --h5 writes its table alone or beside a result. */
static int file_info(const char *path, long max_events, FILE *out, stsl_error *err)
{
    int conv = stsl_convergence_h5_present(path);
    if (conv == STSL_CONV_ONLY) return print_convergence(path, out, err);
    int rc = print_result(path, max_events, out, err);
    if (rc || conv != STSL_CONV_BESIDE_RESULT) return rc;
    fputs("\n", out);
    return print_convergence(path, out, err);
}

stsl_rc stsl_file_info(const char *path, long max_events, char **text, stsl_err *err)
{
    if (!path || !text) return stsl_api_bad_arg(err, "stsl_file_info: NULL argument");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *text = NULL;
    if (!f) return stsl_api_fail(err, STSL_ENOMEM, "out of memory");
    stsl_error e = {0};
    stsl_hdf5_lock();
    int rc = file_info(path, max_events, f, &e);
    stsl_hdf5_unlock();
    if (fclose(f)) {
        free(buf);
        return stsl_api_fail(err, STSL_ENOMEM, "out of memory");
    }
    if (len)
        *text = buf;
    else
        free(buf); /* nothing read */
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
