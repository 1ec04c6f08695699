/* compare.c - see compare.h; and stsl_compare of stickslip.h. */
#include "api/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/error.h"
#include "api/summary_sink.h"
#include "events/modes.h"
#include "models/one_body.h"
#include "models/run.h"
#include "solver/hybrid.h"

/* The reference's absolute tolerance on v: atol as given, or the one the
 * rule derives from rtol (docs/numerics.md). */
static double velocity_atol(const stsl_config *cfg)
{
    double a[3];
    const char *units[3];
    stsl_element_atol(&cfg->element, cfg->sim.rtol, cfg->sim.atol, a, units);
    return a[1];
}

/* ---- the reference at the candidate's times ------------------------------------ */

void stsl_cmp_rerun_free(stsl_cmp_rerun *r)
{
    stsl_sink_free(&r->sink);
    free(r->rows);
    free(r->mode);
    free(r->mode_after);
    memset(r, 0, sizeof *r);
}

/* Index of the last event at exactly time t, or -1. */
static long last_event_at(const stsl_mem_result *mr, double t)
{
    long lo = 0, hi = mr->n_events; /* first event with time > t */
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (mr->events[mid].t <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && mr->events[lo - 1].t == t ? lo - 1 : -1;
}

/* The re-run's samples (one per distinct time, nu) row by row of t. */
static int align(stsl_cmp_rerun *r, const double *t, long n, long nu, stsl_error *err)
{
    const stsl_mem_result *mr = r->mr;
    size_t nc = (size_t)mr->n_cols;
    if (mr->n_samples != nu)
        return stsl_error_set(err, STSL_ESOLVER,
                              "the re-run gave %ld samples for %ld distinct candidate times",
                              mr->n_samples, nu);
    for (long i = 0, j = -1; i < n; i++) {
        if (i == 0 || t[i] > t[i - 1]) j++;
        int last_of_repeat = i > 0 && t[i] == t[i - 1] && (i + 1 == n || t[i + 1] > t[i]);
        long k = last_event_at(mr, t[i]);
        int after = last_of_repeat && k >= 0;
        r->mode_after[i] = k >= 0 ? mr->events[k].mode_after : mr->mode[j];
        r->mode[i] = after ? mr->events[k].mode_after : mr->mode[j];
        if (nc)
            memcpy(r->rows + (size_t)i * nc,
                   after ? mr->events[k].after : mr->cols + (size_t)j * nc, nc * sizeof *r->rows);
    }
    return STSL_OK;
}

int stsl_cmp_rerun_at(const stsl_config *cfg, const double *t, long n, stsl_cmp_rerun *r,
                      stsl_error *err)
{
    memset(r, 0, sizeof *r);
    double *u = malloc(sizeof *u * (size_t)n);
    int rc = u ? stsl_mem_sink_create(&r->sink, err)
               : stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld time points", n);
    long nu = 0;
    for (long i = 0; !rc && i < n; i++)
        if (nu == 0 || t[i] > u[nu - 1]) u[nu++] = t[i];
    stsl_hsolver_opts o = cfg->sim;
    o.output_times = u;
    o.n_output_times = nu;
    o.grid_only = 1;
    o.progress = NULL;
    /* Event-driven, whatever scheme the reference names: it is the exact run. */
    if (!rc)
        rc = cfg->is_system ? stsl_run_system(&cfg->system, &o, &r->sink, NULL, err)
                            : stsl_run_element(&cfg->element, &o, NULL, &r->sink, NULL, err);
    free(u);
    if (rc) return rc;
    r->mr = stsl_mem_sink_result(&r->sink);
    r->n = n;
    r->n_cols = r->mr->n_cols;
    r->rows = malloc(sizeof *r->rows * ((size_t)n * (size_t)r->n_cols + 1));
    r->mode = malloc(sizeof *r->mode * (size_t)n);
    r->mode_after = malloc(sizeof *r->mode_after * (size_t)n);
    if (!r->rows || !r->mode || !r->mode_after)
        return stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld time points", n);
    return align(r, t, n, nu, err);
}

/* The element's reference aligned row by row with the candidate. */
typedef struct aligned {
    stsl_cmp_rerun rr; /* mode, mode_after: at the instant of a stick or a breakaway the
                          element is at rest, whichever side the row's values come from */
    double *x, *v, *f;
    stsl_cmp_event *events; /* the re-run's events within the compared span */
    long n_events;
} aligned;

static void aligned_free(aligned *r)
{
    stsl_cmp_rerun_free(&r->rr);
    free(r->x);
    free(r->v);
    free(r->f);
    free(r->events);
}

/* Re-run the configuration at the times t[0..n-1] (clipped, non-decreasing)
 * and take the element's x, v, friction and events out of it. */
static int rerun(const stsl_config *cfg, const double *t, long n, aligned *r, stsl_error *err)
{
    int rc = stsl_cmp_rerun_at(cfg, t, n, &r->rr, err);
    if (rc) return rc;
    const stsl_layout *lay = &r->rr.mr->layout;
    int cx = stsl_layout_find(lay, "x"), cv = stsl_layout_find(lay, "v"),
        cf = stsl_layout_find(lay, "friction");
    if (cx < 0 || cv < 0 || cf < 0)
        return stsl_error_set(err, STSL_ESOLVER, "the re-run has no x, v or friction column");
    r->x = malloc(sizeof *r->x * (size_t)n);
    r->v = malloc(sizeof *r->v * (size_t)n);
    r->f = malloc(sizeof *r->f * (size_t)n);
    r->events = malloc(sizeof *r->events * (size_t)(r->rr.mr->n_events + 1));
    if (!r->x || !r->v || !r->f || !r->events)
        return stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld time points", n);
    for (long i = 0; i < n; i++) {
        const double *row = r->rr.rows + (size_t)i * (size_t)r->rr.n_cols;
        r->x[i] = row[cx];
        r->v[i] = row[cv];
        r->f[i] = row[cf];
    }
    /* Events within the compared span: the candidate cannot see others. */
    for (long k = 0; k < r->rr.mr->n_events; k++) {
        const stsl_mem_event *ev = &r->rr.mr->events[k];
        if (ev->t < t[0] || ev->t > t[n - 1]) continue;
        stsl_compare_event_set(&r->events[r->n_events++], ev->t,
                               ev->kind >= 0 && ev->kind < lay->n_kinds ? lay->kind_names[ev->kind]
                                                                        : NULL);
    }
    return STSL_OK;
}

/* ---- metrics -------------------------------------------------------------------- */

static int mode_is_stuck(int mode, double v, double thr)
{
    int fr = stsl_mode_friction(mode); /* stuck inside a compliant stop too */
    if (fr == STSL_MODE_STUCK || mode == STSL_MODE_STOP_LOW || mode == STSL_MODE_STOP_HIGH)
        return 1;
    return mode == STSL_MODE_SMOOTH && fabs(v) <= thr;
}

/* Energy dissipated along (t, x, v) from the balance with the reference
 * model's non-friction force F_n at the middle of each interval. */
static double energy_balance(const stsl_one_body *el, const double *t, const double *x,
                             const double *v, long n, double *fn_mid)
{
    for (long i = 0; i + 1 < n; i++) {
        double y[STSL_ELEMENT_MAX_STATE] = {0};
        y[0] = 0.5 * (x[i] + x[i + 1]);
        y[1] = 0.5 * (v[i] + v[i + 1]);
        stsl_one_body_forces f;
        stsl_one_body_eval_forces(el, 0.5 * (t[i] + t[i + 1]), y, &f);
        fn_mid[i] = f.fn;
    }
    return stsl_compare_energy_balance(t, v, fn_mid, stsl_one_body_params(el)->mass, n);
}

/* The candidate's events within [t[0], t[n-1]]: a hybrid stickslip result's
 * own, else those seen in its samples (a smooth law's result has no stick
 * events to list). */
static long candidate_events(const stsl_cmp_candidate *c, const int *mode, const double *t,
                             const double *v, const unsigned char *stuck, long n, int *from_list,
                             stsl_cmp_event **out)
{
    int smooth = 0;
    for (long i = 0; mode && i < n; i++)
        smooth |= mode[i] == STSL_MODE_SMOOTH;
    *from_list = c->events && mode && !smooth;
    if (!*from_list) return stsl_compare_derive_events(t, v, stuck, n, out);
    stsl_cmp_event *ev = malloc(sizeof *ev * (size_t)(c->n_events + 1));
    if (!ev) return -1;
    long k = 0;
    for (long i = 0; i < c->n_events; i++)
        if (c->events[i].t >= t[0] && c->events[i].t <= t[n - 1]) ev[k++] = c->events[i];
    *out = ev;
    return k;
}

/* Stuck flags of both, the stuck-time overlap and the events matched. */
static int judge_rest(const stsl_cmp_candidate *c, const aligned *r, const double *t,
                      const double *v, const int *mode, long n, double event_window,
                      stsl_cmp_report *rep, stsl_error *err)
{
    unsigned char *rs = malloc((size_t)n), *cs = malloc((size_t)n);
    int rc = STSL_OK;
    if (!rs || !cs) {
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
        goto done;
    }
    int smooth = 0;
    for (long i = 0; i < n; i++) {
        rs[i] = (unsigned char)(mode_is_stuck(r->rr.mode[i], r->v[i], rep->stuck_velocity) ||
                                mode_is_stuck(r->rr.mode_after[i], r->v[i], rep->stuck_velocity));
        cs[i] = (unsigned char)(mode ? mode_is_stuck(mode[i], v[i], rep->stuck_velocity)
                                     : fabs(v[i]) <= rep->stuck_velocity);
        smooth |= mode && mode[i] == STSL_MODE_SMOOTH;
    }
    rep->cand_stuck_rule = !mode    ? "candidate: |v| <= stuck velocity"
                           : smooth ? "candidate: its modes; SMOOTH: |v| <= stuck velocity"
                                    : "candidate: its mode column";
    stsl_compare_stuck(t, rs, cs, n, &rep->stuck);
    int from_list = 0;
    rep->n_cev = candidate_events(c, mode, t, v, cs, n, &from_list, &rep->cev);
    if (rep->n_cev < 0) {
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory for the candidate's events");
        goto done;
    }
    rep->cand_events_source =
        from_list ? "candidate events: its /events" : "candidate events: from its samples";
    rep->window_default = event_window < 0;
    rep->window = rep->window_default ? stsl_compare_default_event_window(t, n) : event_window;
    rc = stsl_compare_match_events(rep->rev, rep->n_rev, rep->cev, rep->n_cev, rep->window, &rep->m,
                                   err);
done:
    free(rs);
    free(cs);
    return rc;
}

/* The same quadrature for both, so that the difference is the candidate's
 * and not the quadrature's. */
static int judge_energy(const stsl_one_body *el, const aligned *r, const double *t, const double *x,
                        const double *v, const double *f, long n, stsl_cmp_report *rep,
                        stsl_error *err)
{
    if (f) {
        rep->energy_method = "friction column, trapezoidal rule";
        rep->energy_ref = stsl_compare_energy_friction(t, r->f, r->v, n);
        rep->energy_cand = stsl_compare_energy_friction(t, f, v, n);
        return STSL_OK;
    }
    double *fn_mid = malloc(sizeof *fn_mid * (size_t)n);
    if (!fn_mid) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    rep->energy_method = "energy balance with the reference model's F_n";
    rep->energy_ref = energy_balance(el, t, r->x, r->v, n, fn_mid);
    rep->energy_cand = energy_balance(el, t, x, v, n, fn_mid);
    free(fn_mid);
    return STSL_OK;
}

int stsl_cmp_span(double t_end, const char *name, const char *t_units, const double *ct, long cn,
                  double **t, long *i0, long *n, stsl_error *err)
{
    double slack = STSL_CMP_TIME_SLACK * fmax(1.0, t_end);
    long a = 0, b = cn;
    while (a < cn && ct[a] < -slack)
        a++;
    while (b > a && ct[b - 1] > t_end + slack)
        b--;
    *n = b - a;
    if (*n < 2 || !(ct[b - 1] > ct[a]))
        return stsl_error_set(
            err, STSL_EINPUT,
            "%s: fewer than two distinct times within the reference's [0, %.9g] %s", name, t_end,
            t_units);
    if (!(*t = malloc(sizeof **t * (size_t)*n)))
        return stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld time points", *n);
    for (long i = 0; i < *n; i++)
        (*t)[i] = fmin(fmax(ct[a + i], 0.0), t_end);
    *i0 = a;
    return STSL_OK;
}

/* The compared span into rep. */
static int span(const stsl_config *cfg, const stsl_cmp_candidate *c, const char *t_units,
                double **t, long *i0, stsl_cmp_report *rep, stsl_error *err)
{
    int rc = stsl_cmp_span(cfg->sim.t_end, c->name, t_units, c->t, c->n, t, i0, &rep->n, err);
    if (rc) return rc;
    rep->dropped = c->n - rep->n;
    rep->t_first = (*t)[0];
    rep->t_last = (*t)[rep->n - 1];
    rep->t_end = cfg->sim.t_end;
    return STSL_OK;
}

static void describe_units(const stsl_one_body *el, stsl_cmp_report *rep)
{
    const stsl_layout *l = stsl_one_body_model(el)->layout;
    int ix = stsl_layout_find(l, "x"), iv = stsl_layout_find(l, "v");
    rep->t_units = l->time_units ? l->time_units : "s";
    rep->x_units = ix >= 0 && l->cols[ix].units ? l->cols[ix].units : "";
    rep->v_units = iv >= 0 && l->cols[iv].units ? l->cols[iv].units : "";
}

int stsl_cmp_against(const stsl_config *cfg, const stsl_cmp_candidate *c, double stuck_velocity,
                     double event_window, stsl_cmp_report *rep, stsl_error *err)
{
    memset(rep, 0, sizeof *rep);
    aligned r = {0};
    double *t = NULL;
    long i0 = 0;
    stsl_one_body *el = stsl_one_body_create(&cfg->element, err);
    int rc = el ? STSL_OK : (err ? err->code : STSL_EINPUT);
    if (!rc) describe_units(el, rep);
    if (!rc) rc = span(cfg, c, rep->t_units, &t, &i0, rep, err);
    long n = rep->n;
    if (!rc && (rc = rerun(cfg, t, n, &r, err))) {
        stsl_error_wrap(err, "re-running the reference");
        rep->rerun_failed = 1;
    }
    const double *x = c->x + i0, *v = c->v + i0;
    const int *mode = c->mode ? c->mode + i0 : NULL;
    if (!rc) {
        stsl_compare_errors(t, r.x, r.v, x, v, n, &rep->e);
        rep->stuck_default = stuck_velocity < 0;
        rep->stuck_velocity = rep->stuck_default
                                  ? stsl_compare_default_stuck_velocity(r.v, n, velocity_atol(cfg))
                                  : stuck_velocity;
        rep->rev = r.events;
        rep->n_rev = r.n_events;
        r.events = NULL;
        rc = judge_rest(c, &r, t, v, mode, n, event_window, rep, err);
    }
    if (!rc) rc = judge_energy(el, &r, t, x, v, c->friction ? c->friction + i0 : NULL, n, rep, err);
    aligned_free(&r);
    free(t);
    stsl_one_body_free(el);
    if (rc) {
        int failed = rep->rerun_failed;
        stsl_cmp_report_free(rep);
        rep->rerun_failed = failed;
    }
    return rc;
}

void stsl_cmp_report_free(stsl_cmp_report *rep)
{
    if (!rep) return;
    free(rep->rev);
    free(rep->cev);
    stsl_compare_matching_free(&rep->m);
    memset(rep, 0, sizeof *rep);
}

/* ---- stsl_compare ------------------------------------------------------------------ */

/* The arrays as stsl_compare promises to check them. */
static int check_arrays(const double *t, const double *x, const double *v, const double *f, long n,
                        stsl_error *err)
{
    if (!t || !x || !v)
        return stsl_error_set(err, STSL_EINPUT, "stsl_compare: t, x and v must not be NULL");
    const double *cols[4] = {t, x, v, f};
    const char *names[4] = {"t", "x", "v", "friction"};
    for (int c = 0; c < 4; c++)
        for (long i = 0; cols[c] && i < n; i++)
            if (!isfinite(cols[c][i]))
                return stsl_error_set(err, STSL_EINPUT, "candidate: %s[%ld] is not finite (%g)",
                                      names[c], i, cols[c][i]);
    for (long i = 1; i < n; i++)
        if (t[i] < t[i - 1])
            return stsl_error_set(err, STSL_EINPUT,
                                  "candidate: t[%ld] = %.17g goes back from %.17g (time must "
                                  "increase)",
                                  i, t[i], t[i - 1]);
    return STSL_OK;
}

static void fill_metrics(const stsl_cmp_report *r, stsl_compare_metrics *m)
{
    *m = (stsl_compare_metrics){
        .n_points = r->n,
        .points_dropped = r->dropped,
        .t_first = r->t_first,
        .t_last = r->t_last,
        .max_abs_error_x = r->e.max_abs_x,
        .rms_error_x = r->e.rms_x,
        .final_error_x = r->e.final_x,
        .max_abs_error_v = r->e.max_abs_v,
        .rms_error_v = r->e.rms_v,
        .final_error_v = r->e.final_v,
        .stuck_iou = r->stuck.iou,
        .stuck_time_reference = r->stuck.ref_time,
        .stuck_time_candidate = r->stuck.cand_time,
        .stuck_velocity = r->stuck_velocity,
        .events_matched = r->m.n_matched,
        .events_missed = r->m.n_missed,
        .events_spurious = r->m.n_spurious,
        .events_ignored_reference = r->m.n_ignored_ref,
        .events_ignored_candidate = r->m.n_ignored_cand,
        .max_event_time_error = r->m.n_matched ? r->m.max_abs_dt : NAN,
        .event_window = r->window,
        .dissipated_energy_reference = r->energy_ref,
        .dissipated_energy_candidate = r->energy_cand,
        .dissipated_energy_difference = r->energy_cand - r->energy_ref,
        .energy_method = r->energy_method,
        .candidate_stuck_rule = r->cand_stuck_rule,
        .candidate_events_source = r->cand_events_source,
        .t_units = r->t_units,
        .x_units = r->x_units,
        .v_units = r->v_units,
        .energy_units = STSL_ENERGY_UNITS,
    };
}

stsl_rc stsl_compare(const stsl_cfg *ref, const double *t, const double *x, const double *v,
                     const double *friction, long n, double stuck_velocity, double event_window,
                     stsl_compare_metrics *out, stsl_err *err)
{
    stsl_error e = {0};
    stsl_cmp_report rep;
    if (!ref || !out) return stsl_api_bad_arg(err, "stsl_compare: ref and out must not be NULL");
    if (ref->c.is_system)
        return stsl_api_bad_arg(err, "stsl_compare: ref is a system of bodies: "
                                     "stsl_compare_system compares its results");
    if (check_arrays(t, x, v, friction, n, &e)) return stsl_api_err(err, &e);
    stsl_cmp_candidate c = {"candidate", n, t, x, v, friction, NULL, NULL, 0};
    if (stsl_cmp_against(&ref->c, &c, isnan(stuck_velocity) ? -1 : stuck_velocity,
                         isnan(event_window) ? -1 : event_window, &rep, &e))
        return stsl_api_err(err, &e);
    fill_metrics(&rep, out);
    stsl_cmp_report_free(&rep);
    return STSL_RC_OK;
}

/* ==== a system's result, member by member ==================================== */

/* ---- names ------------------------------------------------------------------ */

/* map[k] = the reference's member with the candidate's member k's name.
 * Missing groups have no members. */
static int match_names(const stsl_h5_system *r, const stsl_h5_system *c, const char *group,
                       const char *what, int *width, int **map, stsl_error *err)
{
    const stsl_h5_group *gr = stsl_h5_system_group(r, group), *gc = stsl_h5_system_group(c, group);
    int nr = gr ? gr->width : 0, nc = gc ? gc->width : 0, differ = nr != nc;
    *width = nc;
    *map = malloc(sizeof **map * (size_t)(nc + 1));
    if (!*map) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    for (int k = 0; k < nc; k++) {
        (*map)[k] = -1;
        for (int j = 0; j < nr; j++)
            if (!strcmp(gr->members[j], gc->members[k])) (*map)[k] = j;
        differ |= (*map)[k] < 0;
    }
    if (!differ) return STSL_OK;
    char only_r[1024] = "", only_c[1024] = "";
    size_t ur = 0, uc = 0;
    for (int j = 0; j < nr; j++) {
        int found = 0;
        for (int k = 0; k < nc; k++)
            found |= !strcmp(gr->members[j], gc->members[k]);
        if (!found && ur < sizeof only_r)
            ur += (size_t)snprintf(only_r + ur, sizeof only_r - ur, "%s%s", ur ? ", " : "",
                                   gr->members[j]);
    }
    for (int k = 0; k < nc; k++)
        if ((*map)[k] < 0 && uc < sizeof only_c)
            uc += (size_t)snprintf(only_c + uc, sizeof only_c - uc, "%s%s", uc ? ", " : "",
                                   gc->members[k]);
    return stsl_error_set(err, STSL_EINPUT,
                          "%s and %s have different %s: only in %s: %s; only in %s: %s", r->path,
                          c->path, what, r->path, ur ? only_r : "-", c->path, uc ? only_c : "-");
}

/* ---- per member ---------------------------------------------------------------- */

/* Work arrays of n values, shared by the members (sc: of every candidate row). */
typedef struct work {
    double *ar, *br, *ac, *bc;
    unsigned char *sr, *sc;
} work;

/* The errors of the candidate's (ac, bc) against the reference's (ar, br)
 * on the grid t into six figures of the report (NaN when not `have`). */
static void errors_into(const double *t, const work *w, long n, int have, double *max_a,
                        double *rms_a, double *final_a, double *max_b, double *rms_b,
                        double *final_b)
{
    stsl_cmp_errors e = {NAN, NAN, NAN, NAN, NAN, NAN};
    if (have) stsl_compare_errors(t, w->ar, w->br, w->ac, w->bc, n, &e);
    *max_a = e.max_abs_x, *rms_a = e.rms_x, *final_a = e.final_x;
    *max_b = e.max_abs_v, *rms_b = e.rms_v, *final_b = e.final_v;
}

/* The reference r holds the compared rows (row i: the candidate's row i0 + i). */
static void bodies(const stsl_h5_system *r, const stsl_h5_system *c, const double *t, long i0,
                   long n, const int *map, work *w, stsl_compare_system_report *out)
{
    const stsl_h5_group *xr = stsl_h5_system_group(r, "x"), *vr = stsl_h5_system_group(r, "v");
    const stsl_h5_group *xc = stsl_h5_system_group(c, "x"), *vc = stsl_h5_system_group(c, "v");
    for (int k = 0; k < out->n_bodies; k++) {
        for (long i = 0; i < n; i++) {
            w->ar[i] = stsl_h5_group_at(xr, i, map[k]);
            w->br[i] = vr ? stsl_h5_group_at(vr, i, map[k]) : NAN;
            w->ac[i] = stsl_h5_group_at(xc, i0 + i, k);
            w->bc[i] = vc ? stsl_h5_group_at(vc, i0 + i, k) : NAN;
        }
        stsl_compare_body *b = &out->bodies[k];
        snprintf(b->name, sizeof b->name, "%s", xc->members[k]);
        errors_into(t, w, n, 1, &b->max_abs_error_x, &b->rms_error_x, &b->final_error_x,
                    &b->max_abs_error_v, &b->rms_error_v, &b->final_error_v);
    }
}

/* The events of `s` about the subject called `name` within [t0, t1]. */
static long subject_events(const stsl_h5_system *s, const char *name, double t0, double t1,
                           stsl_cmp_event *out)
{
    long k = 0;
    for (long i = 0; i < s->n_events; i++) {
        const stsl_h5_sys_event *e = &s->events[i];
        if (e->index >= 0 && !strcmp(e->name, name) && e->t >= t0 && e->t <= t1)
            stsl_compare_event_set(&out[k++], e->t, e->kind);
    }
    return k;
}

static int match_subject(const stsl_h5_system *r, const stsl_h5_system *c, const char *name,
                         const stsl_compare_system_report *out, stsl_compare_events *ev,
                         stsl_error *err)
{
    stsl_cmp_event *er = malloc(sizeof *er * (size_t)(r->n_events + 1)),
                   *ec = malloc(sizeof *ec * (size_t)(c->n_events + 1));
    int rc = er && ec ? STSL_OK : stsl_error_set(err, STSL_ENOMEM, "out of memory for events");
    stsl_cmp_matching m;
    if (!rc) {
        long nr = subject_events(r, name, out->t_first, out->t_last, er);
        long nc = subject_events(c, name, out->t_first, out->t_last, ec);
        rc = stsl_compare_match_events(er, nr, ec, nc, out->event_window, &m, err);
    }
    if (!rc) {
        *ev = (stsl_compare_events){m.n_matched, m.n_missed, m.n_spurious,
                                    m.n_matched ? m.max_abs_dt : NAN};
        stsl_compare_matching_free(&m);
    }
    free(er);
    free(ec);
    return rc;
}

/* Rows [i0, i0 + n) of member m of f and s. */
static double friction_energy(const stsl_h5_group *f, const stsl_h5_group *s, int m, long i0,
                              long n, const double *t, double *fa, double *sa)
{
    if (!f || !s) return NAN;
    for (long i = 0; i < n; i++) {
        fa[i] = stsl_h5_group_at(f, i0 + i, m);
        sa[i] = stsl_h5_group_at(s, i0 + i, m);
    }
    /* `friction` is the contact's force on its first end, which opposes the
     * slip w: its power F w is what the contact takes out, with a minus. */
    return -stsl_compare_energy_friction(t, fa, sa, n);
}

static int contacts(const stsl_h5_system *r, const stsl_h5_system *c, const double *t, long i0,
                    long n, const int *map, work *w, stsl_compare_system_report *out,
                    stsl_error *err)
{
    const stsl_h5_group *mr = stsl_h5_system_group(r, "contact_mode"),
                        *mc = stsl_h5_system_group(c, "contact_mode");
    const stsl_h5_group *fr = stsl_h5_system_group(r, "friction"),
                        *fc = stsl_h5_system_group(c, "friction");
    const stsl_h5_group *wr = stsl_h5_system_group(r, "slip_velocity"),
                        *wc = stsl_h5_system_group(c, "slip_velocity");
    int rc = STSL_OK;
    for (int k = 0; !rc && k < out->n_contacts; k++) {
        stsl_compare_contact *o = &out->contacts[k];
        snprintf(o->name, sizeof o->name, "%s", mc->members[k]);
        /* Stuck by the rule of `info` (stsl_h5_time_in), on both. */
        stsl_h5_group_flags(r, mr, map[k], "STUCK", w->sr);
        stsl_h5_group_flags(c, mc, k, "STUCK", w->sc);
        stsl_cmp_stuck stuck;
        stsl_compare_stuck_held(t, w->sr, w->sc + i0, n, &stuck);
        o->stuck_time_reference = stuck.ref_time;
        o->stuck_time_candidate = stuck.cand_time;
        o->stuck_iou = stuck.iou;
        o->dissipated_energy_reference = friction_energy(fr, wr, map[k], 0, n, t, w->ar, w->br);
        o->dissipated_energy_candidate = friction_energy(fc, wc, k, i0, n, t, w->ac, w->bc);
        /* friction_energy left both in w: the errors of the same rows. */
        errors_into(t, w, n, fr && wr && fc && wc, &o->max_abs_error_friction,
                    &o->rms_error_friction, &o->final_error_friction,
                    &o->max_abs_error_slip_velocity, &o->rms_error_slip_velocity,
                    &o->final_error_slip_velocity);
        rc = match_subject(r, c, o->name, out, &o->events, err);
    }
    return rc;
}

static int stops(const stsl_h5_system *r, const stsl_h5_system *c, stsl_compare_system_report *out,
                 stsl_error *err)
{
    const stsl_h5_group *sc = stsl_h5_system_group(c, "stop_mode");
    int rc = STSL_OK;
    for (int k = 0; !rc && k < out->n_stops; k++) {
        snprintf(out->stops[k].name, sizeof out->stops[k].name, "%s", sc->members[k]);
        rc = match_subject(r, c, sc->members[k], out, &out->stops[k].events, err);
    }
    return rc;
}

/* ---- public ------------------------------------------------------------------- */

static int alloc_all(long n, long n_cand, work *w, stsl_compare_system_report *out, stsl_error *err)
{
    size_t sz = (size_t)n;
    w->ar = malloc(sizeof(double) * sz);
    w->br = malloc(sizeof(double) * sz);
    w->ac = malloc(sizeof(double) * sz);
    w->bc = malloc(sizeof(double) * sz);
    w->sr = malloc(sz);
    w->sc = malloc((size_t)n_cand + 1);
    out->bodies = calloc((size_t)out->n_bodies + 1, sizeof *out->bodies);
    out->contacts = calloc((size_t)out->n_contacts + 1, sizeof *out->contacts);
    out->stops = calloc((size_t)out->n_stops + 1, sizeof *out->stops);
    if (w->ar && w->br && w->ac && w->bc && w->sr && w->sc && out->bodies && out->contacts &&
        out->stops)
        return STSL_OK;
    return stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld time points", n);
}

static void work_free(work *w)
{
    free(w->ar);
    free(w->br);
    free(w->ac);
    free(w->bc);
    free(w->sr);
    free(w->sc);
}

/* The reference run at the compared times t (n of them) as a result *r. */
static int reference(const stsl_config *cfg, const char *name, const double *t, long n,
                     stsl_h5_system *r, int *rerun_failed, stsl_error *err)
{
    stsl_cmp_rerun rr;
    int rc = stsl_cmp_rerun_at(cfg, t, n, &rr, err);
    if (rc) {
        stsl_error_wrap(err, "re-running the reference");
        *rerun_failed = 1;
    } else {
        rc = stsl_h5_system_of_run(name, rr.mr, t, rr.rows, n, r, err);
    }
    stsl_cmp_rerun_free(&rr);
    return rc;
}

/* The members of both, matched by name: bodies, contacts, stops. */
static int match_all(const stsl_h5_system *r, const stsl_h5_system *c, int *map[3],
                     stsl_compare_system_report *out, stsl_error *err)
{
    int rc = match_names(r, c, "x", "bodies", &out->n_bodies, &map[0], err);
    if (!rc) rc = match_names(r, c, "contact_mode", "contacts", &out->n_contacts, &map[1], err);
    /* An FMU's run has no stop_mode: its stops cannot be judged (compare.h). */
    if (!rc && stsl_h5_system_group(c, "stop_mode"))
        rc = match_names(r, c, "stop_mode", "stops", &out->n_stops, &map[2], err);
    return rc;
}

int stsl_cmp_systems(const stsl_config *ref, const char *ref_name, const stsl_h5_system *cand,
                     double event_window, stsl_compare_system_report *out, int *rerun_failed,
                     stsl_error *err)
{
    memset(out, 0, sizeof *out);
    *rerun_failed = 0;
    int *map[3] = {NULL, NULL, NULL};
    double *t = NULL;
    work w = {0};
    long i0 = 0;
    stsl_h5_system r = {0};
    int rc = stsl_cmp_span(ref->sim.t_end, cand->path, cand->time_units, cand->t, cand->n_samples,
                           &t, &i0, &out->n_points, err);
    if (!rc) rc = reference(ref, ref_name, t, out->n_points, &r, rerun_failed, err);
    if (!rc) rc = match_all(&r, cand, map, out, err);
    if (!rc) rc = alloc_all(out->n_points, cand->n_samples, &w, out, err);
    if (!rc) {
        out->points_dropped = cand->n_samples - out->n_points;
        out->t_first = t[0];
        out->t_last = t[out->n_points - 1];
        out->event_window =
            event_window < 0 ? stsl_compare_default_event_window(t, out->n_points) : event_window;
        bodies(&r, cand, t, i0, out->n_points, map[0], &w, out);
        rc = contacts(&r, cand, t, i0, out->n_points, map[1], &w, out, err);
    }
    if (!rc) rc = stops(&r, cand, out, err);
    work_free(&w);
    free(t);
    for (int k = 0; k < 3; k++)
        free(map[k]);
    stsl_h5_system_free(&r);
    if (rc) stsl_compare_system_free(out);
    return rc;
}

/* ---- an FMU of the system as the candidate ------------------------------------------ */

int stsl_cmp_fmu_system(const stsl_fmu_module_api *m, const stsl_fmu_opts *o,
                        const stsl_config *cfg, double h, stsl_h5_system *c, stsl_error *err)
{
    memset(c, 0, sizeof *c);
    if (!cfg->is_system)
        return stsl_error_set(err, STSL_EINPUT, "%s: the reference is not a system of bodies",
                              o->path);
    stsl_fmu_opts so = *o;
    so.system = &cfg->system; /* the FMU stands for the whole system */
    stsl_fmu *f = NULL;
    stsl_sink sink = {0};
    int rc = m->open(&so, &cfg->element, &f, err);
    if (!rc) rc = stsl_mem_sink_create(&sink, err);
    if (!rc) rc = m->run(f, cfg->sim.t_end, h, &sink, NULL, err);
    m->close(f);
    if (!rc) {
        const stsl_mem_result *mr = stsl_mem_sink_result(&sink);
        rc = stsl_h5_system_of_run(o->path, mr, mr->t, mr->cols, mr->n_samples, c, err);
    }
    stsl_sink_free(&sink);
    return rc;
}

/* ---- stsl_compare_system ------------------------------------------------------- */

void stsl_compare_system_free(stsl_compare_system_report *r)
{
    if (!r) return;
    free(r->bodies);
    free(r->contacts);
    free(r->stops);
    memset(r, 0, sizeof *r);
}

stsl_rc stsl_compare_system(const stsl_cfg *ref, const char *candidate, double event_window,
                            stsl_compare_system_report *out, stsl_err *err)
{
    stsl_error e = {0};
    if (!ref || !candidate || !out)
        return stsl_api_bad_arg(err,
                                "stsl_compare_system: ref, candidate and out must not be NULL");
    memset(out, 0, sizeof *out);
    if (!ref->c.is_system)
        return stsl_api_bad_arg(err, "stsl_compare_system: ref is the one element, not a system "
                                     "of bodies (stsl_compare compares its trajectories)");
    stsl_h5_system c;
    if (stsl_h5_system_read(candidate, &c, &e)) return stsl_api_err(err, &e);
    const char *name = ref->c.source[0] ? ref->c.source : "the reference";
    int failed;
    int rc = stsl_cmp_systems(&ref->c, name, &c, isnan(event_window) ? -1 : event_window, out,
                              &failed, &e);
    stsl_h5_system_free(&c);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
