/* compare_system.c - see compare_system.h. */
#include "api/compare_system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/compare.h"
#include "api/config_api.h"
#include "api/error.h"

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

/* The reference r holds the compared rows (row i: the candidate's row i0 + i). */
static void bodies(const stsl_h5_system *r, const stsl_h5_system *c, const double *t, long i0,
                   long n, const int *map, work *w, stsl_cmp_sys_report *rep)
{
    const stsl_h5_group *xr = stsl_h5_system_group(r, "x"), *vr = stsl_h5_system_group(r, "v");
    const stsl_h5_group *xc = stsl_h5_system_group(c, "x"), *vc = stsl_h5_system_group(c, "v");
    for (int k = 0; k < rep->n_bodies; k++) {
        for (long i = 0; i < n; i++) {
            w->ar[i] = stsl_h5_group_at(xr, i, map[k]);
            w->br[i] = vr ? stsl_h5_group_at(vr, i, map[k]) : NAN;
            w->ac[i] = stsl_h5_group_at(xc, i0 + i, k);
            w->bc[i] = vc ? stsl_h5_group_at(vc, i0 + i, k) : NAN;
        }
        rep->bodies[k].name = xc->members[k];
        stsl_compare_errors(t, w->ar, w->br, w->ac, w->bc, n, &rep->bodies[k].e);
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
                         const stsl_cmp_sys_report *rep, stsl_cmp_matching *m, stsl_error *err)
{
    stsl_cmp_event *er = malloc(sizeof *er * (size_t)(r->n_events + 1)),
                   *ec = malloc(sizeof *ec * (size_t)(c->n_events + 1));
    int rc = er && ec ? STSL_OK : stsl_error_set(err, STSL_ENOMEM, "out of memory for events");
    if (!rc) {
        long nr = subject_events(r, name, rep->t_first, rep->t_last, er);
        long nc = subject_events(c, name, rep->t_first, rep->t_last, ec);
        rc = stsl_compare_match_events(er, nr, ec, nc, rep->window, m, err);
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
                    long n, const int *map, work *w, stsl_cmp_sys_report *rep, stsl_error *err)
{
    const stsl_h5_group *mr = stsl_h5_system_group(r, "contact_mode"),
                        *mc = stsl_h5_system_group(c, "contact_mode");
    const stsl_h5_group *fr = stsl_h5_system_group(r, "friction"),
                        *fc = stsl_h5_system_group(c, "friction");
    const stsl_h5_group *wr = stsl_h5_system_group(r, "slip_velocity"),
                        *wc = stsl_h5_system_group(c, "slip_velocity");
    int rc = STSL_OK;
    for (int k = 0; !rc && k < rep->n_contacts; k++) {
        stsl_cmp_contact *o = &rep->contacts[k];
        o->name = mc->members[k];
        /* Stuck by the rule of `info` (stsl_h5_time_in), on both. */
        stsl_h5_group_flags(r, mr, map[k], "STUCK", w->sr);
        stsl_h5_group_flags(c, mc, k, "STUCK", w->sc);
        stsl_compare_stuck_held(t, w->sr, w->sc + i0, n, &o->stuck);
        o->energy_ref = friction_energy(fr, wr, map[k], 0, n, t, w->ar, w->br);
        o->energy_cand = friction_energy(fc, wc, k, i0, n, t, w->ac, w->bc);
        /* friction_energy left both in w: the errors of the same rows. */
        if (fr && wr && fc && wc)
            stsl_compare_errors(t, w->ar, w->br, w->ac, w->bc, n, &o->e);
        else
            o->e = (stsl_cmp_errors){NAN, NAN, NAN, NAN, NAN, NAN};
        rc = match_subject(r, c, o->name, rep, &o->m, err);
    }
    return rc;
}

static int stops(const stsl_h5_system *r, const stsl_h5_system *c, stsl_cmp_sys_report *rep,
                 stsl_error *err)
{
    const stsl_h5_group *sc = stsl_h5_system_group(c, "stop_mode");
    int rc = STSL_OK;
    for (int k = 0; !rc && k < rep->n_stops; k++) {
        rep->stops[k].name = sc->members[k];
        rc = match_subject(r, c, sc->members[k], rep, &rep->stops[k].m, err);
    }
    return rc;
}

/* ---- public ------------------------------------------------------------------- */

static int alloc_all(long n, long n_cand, work *w, stsl_cmp_sys_report *rep, stsl_error *err)
{
    size_t sz = (size_t)n;
    w->ar = malloc(sizeof(double) * sz);
    w->br = malloc(sizeof(double) * sz);
    w->ac = malloc(sizeof(double) * sz);
    w->bc = malloc(sizeof(double) * sz);
    w->sr = malloc(sz);
    w->sc = malloc((size_t)n_cand + 1);
    rep->bodies = calloc((size_t)rep->n_bodies + 1, sizeof *rep->bodies);
    rep->contacts = calloc((size_t)rep->n_contacts + 1, sizeof *rep->contacts);
    rep->stops = calloc((size_t)rep->n_stops + 1, sizeof *rep->stops);
    if (w->ar && w->br && w->ac && w->bc && w->sr && w->sc && rep->bodies && rep->contacts &&
        rep->stops)
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
                     stsl_h5_system *r, stsl_cmp_sys_report *rep, stsl_error *err)
{
    stsl_cmp_rerun rr;
    int rc = stsl_cmp_rerun_at(cfg, t, n, &rr, err);
    if (rc) {
        stsl_error_wrap(err, "re-running the reference");
        rep->rerun_failed = 1;
    } else {
        rc = stsl_h5_system_of_run(name, rr.mr, t, rr.rows, n, r, err);
    }
    stsl_cmp_rerun_free(&rr);
    return rc;
}

/* The members of both, matched by name: mb, mc, ms. */
static int match_all(const stsl_h5_system *r, const stsl_h5_system *c, int *map[3],
                     stsl_cmp_sys_report *rep, stsl_error *err)
{
    int rc = match_names(r, c, "x", "bodies", &rep->n_bodies, &map[0], err);
    if (!rc) rc = match_names(r, c, "contact_mode", "contacts", &rep->n_contacts, &map[1], err);
    if (!rc) rc = match_names(r, c, "stop_mode", "stops", &rep->n_stops, &map[2], err);
    return rc;
}

int stsl_cmp_systems(const stsl_config *ref, const char *ref_name, const stsl_h5_system *cand,
                     double event_window, stsl_cmp_sys_report *rep, stsl_error *err)
{
    memset(rep, 0, sizeof *rep);
    int *map[3] = {NULL, NULL, NULL};
    double *t = NULL;
    work w = {0};
    long i0 = 0;
    stsl_h5_system r = {0};
    int rc = stsl_cmp_span(ref->sim.t_end, cand->path, cand->time_units, cand->t, cand->n_samples,
                           &t, &i0, &rep->n, err);
    if (!rc) rc = reference(ref, ref_name, t, rep->n, &r, rep, err);
    if (!rc) rc = match_all(&r, cand, map, rep, err);
    if (!rc) rc = alloc_all(rep->n, cand->n_samples, &w, rep, err);
    if (!rc) {
        rep->dropped = cand->n_samples - rep->n;
        rep->t_first = t[0];
        rep->t_last = t[rep->n - 1];
        rep->window_default = event_window < 0;
        rep->window =
            rep->window_default ? stsl_compare_default_event_window(t, rep->n) : event_window;
        bodies(&r, cand, t, i0, rep->n, map[0], &w, rep);
        rc = contacts(&r, cand, t, i0, rep->n, map[1], &w, rep, err);
    }
    if (!rc) rc = stops(&r, cand, rep, err);
    work_free(&w);
    free(t);
    for (int k = 0; k < 3; k++)
        free(map[k]);
    stsl_h5_system_free(&r);
    if (rc) {
        int failed = rep->rerun_failed;
        stsl_cmp_sys_report_free(rep);
        rep->rerun_failed = failed;
    }
    return rc;
}

void stsl_cmp_sys_report_free(stsl_cmp_sys_report *rep)
{
    if (!rep) return;
    for (int k = 0; rep->contacts && k < rep->n_contacts; k++)
        stsl_compare_matching_free(&rep->contacts[k].m);
    for (int k = 0; rep->stops && k < rep->n_stops; k++)
        stsl_compare_matching_free(&rep->stops[k].m);
    free(rep->bodies);
    free(rep->contacts);
    free(rep->stops);
    memset(rep, 0, sizeof *rep);
}

/* ---- stsl_compare_system ------------------------------------------------------- */

static stsl_compare_events events_of(const stsl_cmp_matching *m)
{
    return (stsl_compare_events){m->n_matched, m->n_missed, m->n_spurious,
                                 m->n_matched ? m->max_abs_dt : NAN};
}

static int publish(const stsl_cmp_sys_report *p, stsl_compare_system_report *o)
{
    *o = (stsl_compare_system_report){p->n,      p->dropped,  p->t_first,    p->t_last,
                                      p->window, p->n_bodies, p->n_contacts, p->n_stops,
                                      NULL,      NULL,        NULL};
    o->bodies = calloc((size_t)p->n_bodies + 1, sizeof *o->bodies);
    o->contacts = calloc((size_t)p->n_contacts + 1, sizeof *o->contacts);
    o->stops = calloc((size_t)p->n_stops + 1, sizeof *o->stops);
    if (!o->bodies || !o->contacts || !o->stops) return -1;
    for (int k = 0; k < p->n_bodies; k++) {
        const stsl_cmp_errors *e = &p->bodies[k].e;
        stsl_compare_body *b = &o->bodies[k];
        snprintf(b->name, sizeof b->name, "%s", p->bodies[k].name);
        b->max_abs_error_x = e->max_abs_x;
        b->rms_error_x = e->rms_x;
        b->final_error_x = e->final_x;
        b->max_abs_error_v = e->max_abs_v;
        b->rms_error_v = e->rms_v;
        b->final_error_v = e->final_v;
    }
    for (int k = 0; k < p->n_contacts; k++) {
        const stsl_cmp_contact *c = &p->contacts[k];
        stsl_compare_contact *d = &o->contacts[k];
        snprintf(d->name, sizeof d->name, "%s", c->name);
        d->stuck_time_reference = c->stuck.ref_time;
        d->stuck_time_candidate = c->stuck.cand_time;
        d->stuck_iou = c->stuck.iou;
        d->dissipated_energy_reference = c->energy_ref;
        d->dissipated_energy_candidate = c->energy_cand;
        d->max_abs_error_friction = c->e.max_abs_x;
        d->rms_error_friction = c->e.rms_x;
        d->final_error_friction = c->e.final_x;
        d->max_abs_error_slip_velocity = c->e.max_abs_v;
        d->rms_error_slip_velocity = c->e.rms_v;
        d->final_error_slip_velocity = c->e.final_v;
        d->events = events_of(&c->m);
    }
    for (int k = 0; k < p->n_stops; k++) {
        snprintf(o->stops[k].name, sizeof o->stops[k].name, "%s", p->stops[k].name);
        o->stops[k].events = events_of(&p->stops[k].m);
    }
    return 0;
}

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
    stsl_cmp_sys_report p;
    const char *name = ref->c.source[0] ? ref->c.source : "the reference";
    int rc = stsl_cmp_systems(&ref->c, name, &c, isnan(event_window) ? -1 : event_window, &p, &e);
    if (rc) {
        stsl_h5_system_free(&c);
        return stsl_api_err(err, &e);
    }
    rc = publish(&p, out); /* the names are the candidate's: before it is freed */
    stsl_cmp_sys_report_free(&p);
    stsl_h5_system_free(&c);
    if (!rc) return STSL_RC_OK;
    stsl_compare_system_free(out);
    stsl_error_set(&e, STSL_ENOMEM, "stsl_compare_system: out of memory");
    return stsl_api_err(err, &e);
}
