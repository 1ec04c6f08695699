/* compare.c - see compare.h; and stsl_compare, stsl_compare_system of
 * stickslip.h. */
#include "api/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "api/error.h"
#include "api/summary_sink.h"
#include "physics/modes.h"
#include "io/result/mat_result.h"
#include "io/result/mem_sink.h"
#include "models/one_body.h"
#include "run/run.h"
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

/* Relative tolerance on the ends of [0, t_end] for candidate times: far
 * above the rounding of an accumulated time (1e-16 per step), far below any
 * time step worth comparing. */
#define TIME_SLACK 1e-9

/* The reference's configuration re-run with the candidate's times t[0..n-1]
 * as its only output times, its samples aligned row by row with t (the
 * last row of a repeated time at which the reference has events holds the
 * values and mode just after the last of them, compare.h). */
typedef struct rerun {
    stsl_sink sink;            /* the memory sink the re-run went into */
    const stsl_mem_result *mr; /* its result: layout, events (with subjects) */
    double *rows;              /* n x n_cols, row-major: the reference at the candidate's rows */
    int *mode;                 /* n: the row's mode */
    int *mode_after; /* n: the mode after the last event at exactly t[i] (= mode without) */
} rerun;

static void rerun_free(rerun *r)
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
static int align(rerun *r, const double *t, long n, long nu, stsl_error *err)
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

/* On failure *r holds what to free (rerun_free). */
static int rerun_at(const stsl_config *cfg, const double *t, long n, rerun *r, stsl_error *err)
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
    r->rows = malloc(sizeof *r->rows * ((size_t)n * (size_t)r->mr->n_cols + 1));
    r->mode = malloc(sizeof *r->mode * (size_t)n);
    r->mode_after = malloc(sizeof *r->mode_after * (size_t)n);
    if (!r->rows || !r->mode || !r->mode_after)
        return stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld time points", n);
    return align(r, t, n, nu, err);
}

/* The compared span: the candidate's times ct[0..cn-1] inside [0, t_end]
 * (within TIME_SLACK), the ends snapped onto it, into *t
 * (malloc'd, *n values): rows [*i0, *i0 + *n) of the candidate.
 * STSL_EINPUT naming `name` when fewer than two distinct times remain. */
static int compared_span(double t_end, const char *name, const char *t_units, const double *ct,
                         long cn, double **t, long *i0, long *n, stsl_error *err)
{
    double slack = TIME_SLACK * fmax(1.0, t_end);
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

/* ---- members matched by name ------------------------------------------------- */

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

/* The work arrays in one block (freed as w->ar): four of n values, then
 * the flags (n, and n_cand + 1 for sc). */
static int alloc_all(long n, long n_cand, work *w, stsl_compare_system_report *out, stsl_error *err)
{
    size_t sz = (size_t)n;
    double *b = malloc(4 * sz * sizeof *b + sz + (size_t)n_cand + 1);
    unsigned char *flags = b ? (unsigned char *)(b + 4 * sz) : NULL;
    if (b) *w = (work){b, b + sz, b + 2 * sz, b + 3 * sz, flags, flags + sz};
    out->bodies = calloc((size_t)out->n_bodies + 1, sizeof *out->bodies);
    out->contacts = calloc((size_t)out->n_contacts + 1, sizeof *out->contacts);
    out->stops = calloc((size_t)out->n_stops + 1, sizeof *out->stops);
    if (b && out->bodies && out->contacts && out->stops) return STSL_OK;
    return stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld time points", n);
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

/* ---- the core: span, re-run, bodies -------------------------------------------- */

/* The compared rows and what both views read from them: the reference re-run
 * at the candidate's times t (row i: the candidate's row i0 + i) as a result
 * `ref`, its modes around events (rr), and the members matched by name. */
typedef struct core {
    double *t;
    long i0;
    rerun rr;
    stsl_h5_system ref;
    int *map[3];
    work w;
} core;

static void core_free(core *k)
{
    free(k->t);
    rerun_free(&k->rr);
    stsl_h5_system_free(&k->ref);
    for (int m = 0; m < 3; m++)
        free(k->map[m]);
    free(k->w.ar);
}

/* The span of `cand`, the re-run of `cfg` there, the members matched by
 * name and every body's errors into *out (its contacts and stops named and
 * counted, left for the view to judge).  On failure *rerun_failed says
 * whether the re-run failed; *k is freed by the caller in any case. */
static int core_run(const stsl_config *cfg, const char *ref_name, const stsl_h5_system *cand,
                    double event_window, core *k, stsl_compare_system_report *out,
                    int *rerun_failed, stsl_error *err)
{
    memset(out, 0, sizeof *out);
    memset(k, 0, sizeof *k);
    *rerun_failed = 0;
    long n = 0;
    int rc = compared_span(cfg->sim.t_end, cand->path, cand->time_units, cand->t, cand->n_samples,
                           &k->t, &k->i0, &n, err);
    if (!rc && (rc = rerun_at(cfg, k->t, n, &k->rr, err))) {
        stsl_error_wrap(err, "re-running the reference");
        *rerun_failed = 1;
    }
    if (!rc) rc = stsl_h5_system_of_run(ref_name, k->rr.mr, k->t, k->rr.rows, n, &k->ref, err);
    if (!rc) rc = match_all(&k->ref, cand, k->map, out, err);
    if (!rc) rc = alloc_all(n, cand->n_samples, &k->w, out, err);
    if (rc) return rc;
    out->n_points = n;
    out->points_dropped = cand->n_samples - n;
    out->t_first = k->t[0];
    out->t_last = k->t[n - 1];
    out->event_window =
        event_window < 0 ? stsl_compare_default_event_window(k->t, n) : event_window;
    bodies(&k->ref, cand, k->t, k->i0, n, k->map[0], &k->w, out);
    return STSL_OK;
}

/* ==== a system's view: per contact and stop =================================== */

/* The events of `s` about the subject called `name` (NULL: every event)
 * within [t0, t1]. */
static long subject_events(const stsl_h5_system *s, const char *name, double t0, double t1,
                           stsl_cmp_event *out)
{
    long k = 0;
    for (long i = 0; i < s->n_events; i++) {
        const stsl_h5_sys_event *e = &s->events[i];
        if ((!name || (e->index >= 0 && !strcmp(e->name, name))) && e->t >= t0 && e->t <= t1)
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

int stsl_cmp_systems(const stsl_config *ref, const char *ref_name, const stsl_h5_system *cand,
                     double event_window, stsl_compare_system_report *out, int *rerun_failed,
                     stsl_error *err)
{
    core k;
    int rc = core_run(ref, ref_name, cand, event_window, &k, out, rerun_failed, err);
    if (!rc) rc = contacts(&k.ref, cand, k.t, k.i0, out->n_points, k.map[1], &k.w, out, err);
    if (!rc) rc = stops(&k.ref, cand, out, err);
    core_free(&k);
    if (rc) stsl_compare_system_free(out);
    return rc;
}

/* ==== the one-body view: an element's trajectory =============================== */
/* An element's candidate is its one body's trajectory (x, v, maybe friction,
 * modes and events) without contacts' columns: a CSV's rows hold no event
 * instants and its events no subject.  So after the core (span, re-run,
 * the body's errors) its rest is judged by modes or |v| on both ends of an
 * interval (stsl_compare_stuck), its events all together, and its energy
 * by its friction column or the balance with the model's F_n. */

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

/* The reference's column `name` of the one body (a group of one member:
 * its data are the column). */
static const double *column(const core *k, const char *name)
{
    return stsl_h5_system_group(&k->ref, name)->data;
}

/* Stuck flags of both, the stuck-time overlap and the events matched. */
static int judge_rest(const stsl_cmp_candidate *c, const core *k, long n, stsl_cmp_report *rep,
                      stsl_error *err)
{
    const double *t = k->t, *rv = column(k, "v"), *v = c->v + k->i0;
    const int *mode = c->mode ? c->mode + k->i0 : NULL;
    unsigned char *rs = malloc((size_t)n), *cs = malloc((size_t)n);
    rep->rev = malloc(sizeof *rep->rev * (size_t)(k->ref.n_events + 1));
    int rc = rs && cs && rep->rev ? STSL_OK : stsl_error_set(err, STSL_ENOMEM, "out of memory");
    int smooth = 0;
    for (long i = 0; !rc && i < n; i++) {
        rs[i] = (unsigned char)(mode_is_stuck(k->rr.mode[i], rv[i], rep->p.stuck_velocity) ||
                                mode_is_stuck(k->rr.mode_after[i], rv[i], rep->p.stuck_velocity));
        cs[i] = (unsigned char)(mode ? mode_is_stuck(mode[i], v[i], rep->p.stuck_velocity)
                                     : fabs(v[i]) <= rep->p.stuck_velocity);
        smooth |= mode && mode[i] == STSL_MODE_SMOOTH;
    }
    rep->p.candidate_stuck_rule = !mode    ? "candidate: |v| <= stuck velocity"
                                  : smooth ? "candidate: its modes; SMOOTH: |v| <= stuck velocity"
                                           : "candidate: its mode column";
    stsl_cmp_stuck st;
    if (!rc) stsl_compare_stuck(t, rs, cs, n, &st);
    rep->p.stuck_time_reference = st.ref_time, rep->p.stuck_time_candidate = st.cand_time;
    rep->p.stuck_iou = st.iou;
    /* Every event the candidate could see: a CSV's events name no subject. */
    if (!rc) rep->n_rev = subject_events(&k->ref, NULL, t[0], t[n - 1], rep->rev);
    int from_list = 0;
    if (!rc && (rep->n_cev = candidate_events(c, mode, t, v, cs, n, &from_list, &rep->cev)) < 0)
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory for the candidate's events");
    rep->p.candidate_events_source =
        from_list ? "candidate events: its /events" : "candidate events: from its samples";
    if (!rc && !(rc = stsl_compare_match_events(rep->rev, rep->n_rev, rep->cev, rep->n_cev,
                                                rep->p.event_window, &rep->m, err))) {
        rep->p.events_matched = rep->m.n_matched, rep->p.events_missed = rep->m.n_missed;
        rep->p.events_spurious = rep->m.n_spurious;
        rep->p.events_ignored_reference = rep->m.n_ignored_ref;
        rep->p.events_ignored_candidate = rep->m.n_ignored_cand;
        rep->p.max_event_time_error = rep->m.n_matched ? rep->m.max_abs_dt : NAN;
    }
    free(rs);
    free(cs);
    return rc;
}

/* The same quadrature for both, so that the difference is the candidate's
 * and not the quadrature's. */
static int judge_energy(const stsl_one_body *el, const stsl_cmp_candidate *c, const core *k, long n,
                        stsl_cmp_report *rep, stsl_error *err)
{
    const double *t = k->t, *rx = column(k, "x"), *rv = column(k, "v");
    const double *x = c->x + k->i0, *v = c->v + k->i0;
    if (c->friction) {
        rep->p.energy_method = "friction column, trapezoidal rule";
        rep->p.dissipated_energy_reference =
            stsl_compare_energy_friction(t, column(k, "friction"), rv, n);
        rep->p.dissipated_energy_candidate =
            stsl_compare_energy_friction(t, c->friction + k->i0, v, n);
        return STSL_OK;
    }
    double *fn_mid = malloc(sizeof *fn_mid * (size_t)n);
    if (!fn_mid) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    rep->p.energy_method = "energy balance with the reference model's F_n";
    rep->p.dissipated_energy_reference = energy_balance(el, t, rx, rv, n, fn_mid);
    rep->p.dissipated_energy_candidate = energy_balance(el, t, x, v, n, fn_mid);
    free(fn_mid);
    return STSL_OK;
}

static void describe_units(const stsl_one_body *el, stsl_cmp_report *rep)
{
    const stsl_layout *l = stsl_one_body_model(el)->layout;
    int ix = stsl_layout_find(l, "x"), iv = stsl_layout_find(l, "v");
    rep->p.t_units = l->time_units ? l->time_units : "s";
    rep->p.x_units = ix >= 0 && l->cols[ix].units ? l->cols[ix].units : "";
    rep->p.v_units = iv >= 0 && l->cols[iv].units ? l->cols[iv].units : "";
}

/* The element's candidate as the result of one body: the groups x and v
 * of one member each, borrowing its arrays (the core reads nothing else). */
static void one_body_result(const stsl_cmp_candidate *c, const char *t_units, stsl_h5_system *s)
{
    static char names[2][64] = {"x", "v"};
    const double *cols[2] = {c->x, c->v};
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", c->name);
    snprintf(s->time_units, sizeof s->time_units, "%s", t_units);
    s->complete = 1;
    s->n_samples = c->n;
    s->t = (double *)c->t;
    for (int g = 0; g < 2; g++) {
        stsl_h5_group *o = &s->groups[s->n_groups++];
        snprintf(o->name, sizeof o->name, "%.31s", names[g]);
        o->width = 1;
        o->members = &names[g];
        o->data = (double *)cols[g];
    }
}

int stsl_cmp_one_body(const stsl_config *cfg, const stsl_cmp_candidate *c, double stuck_velocity,
                      double event_window, stsl_cmp_report *rep, stsl_error *err)
{
    memset(rep, 0, sizeof *rep);
    stsl_one_body *el = stsl_one_body_create(&cfg->element, err);
    if (!el) return err->code;
    describe_units(el, rep);
    stsl_h5_system cand;
    one_body_result(c, rep->p.t_units, &cand);
    stsl_compare_system_report out;
    core k;
    int rc = core_run(cfg, "the reference", &cand, event_window, &k, &out, &rep->rerun_failed, err);
    long n = out.n_points;
    if (!rc) {
        const stsl_compare_body *b = &out.bodies[0];
        stsl_compare_metrics *p = &rep->p;
        p->n_points = n, p->points_dropped = out.points_dropped;
        p->t_first = out.t_first, p->t_last = out.t_last;
        p->max_abs_error_x = b->max_abs_error_x, p->max_abs_error_v = b->max_abs_error_v;
        p->rms_error_x = b->rms_error_x, p->rms_error_v = b->rms_error_v;
        p->final_error_x = b->final_error_x, p->final_error_v = b->final_error_v;
        rep->t_end = cfg->sim.t_end;
        rep->stuck_default = stuck_velocity < 0;
        p->stuck_velocity =
            rep->stuck_default
                ? stsl_compare_default_stuck_velocity(column(&k, "v"), n, velocity_atol(cfg))
                : stuck_velocity;
        rep->window_default = event_window < 0;
        p->event_window = out.event_window;
        rc = judge_rest(c, &k, n, rep, err);
    }
    if (!rc) rc = judge_energy(el, c, &k, n, rep, err);
    rep->p.dissipated_energy_difference =
        rep->p.dissipated_energy_candidate - rep->p.dissipated_energy_reference;
    rep->p.energy_units = STSL_ENERGY_UNITS;
    core_free(&k);
    stsl_compare_system_free(&out);
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
    if (stsl_cmp_one_body(&ref->c, &c, isnan(stuck_velocity) ? -1 : stuck_velocity,
                          isnan(event_window) ? -1 : event_window, &rep, &e))
        return stsl_api_err(err, &e);
    *out = rep.p;
    stsl_cmp_report_free(&rep);
    return STSL_RC_OK;
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
    stsl_hdf5_lock(); /* stickslip.h, Threads: the API's HDF5 calls hold it */
    int unread = stsl_system_result_read(candidate, &c, &e);
    stsl_hdf5_unlock();
    if (unread) return stsl_api_err(err, &e);
    const char *name = ref->c.source[0] ? ref->c.source : "the reference";
    int failed;
    int rc = stsl_cmp_systems(&ref->c, name, &c, isnan(event_window) ? -1 : event_window, out,
                              &failed, &e);
    stsl_h5_system_free(&c);
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
