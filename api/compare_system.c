/* compare_system.c - see compare_system.h. */
#include "api/compare_system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/compare.h"

/* Where candidate row i lies in the reference: its value is
 * (1 - w) row[lo] + w row[lo + 1] (w = 0: exactly row lo); `other` is the
 * reference's other row at an event instant (its row just after, or just
 * before), else lo. */
typedef struct ref_at {
    long lo, other;
    double w;
} ref_at;

/* First reference row with t >= x (upper = 0) or t > x (upper = 1). */
static long bound(const stsl_h5_system *r, double x, int upper)
{
    long lo = 0, hi = r->n_samples;
    while (lo < hi) {
        long mid = (lo + hi) / 2;
        if (r->t[mid] < x || (upper && r->t[mid] == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void locate(const stsl_h5_system *r, const double *t, long n, ref_at *at)
{
    for (long i = 0; i < n; i++) {
        long a = bound(r, t[i], 0), b = bound(r, t[i], 1);
        if (a < b) { /* on a reference sample (both rows of an event instant) */
            int last_of_repeat = i > 0 && t[i] == t[i - 1] && (i + 1 == n || t[i + 1] > t[i]);
            at[i] = last_of_repeat ? (ref_at){b - 1, a, 0.0} : (ref_at){a, b - 1, 0.0};
        } else { /* inside the span (clipped): 1 <= a < n_samples */
            at[i] = (ref_at){a - 1, a - 1, (t[i] - r->t[a - 1]) / (r->t[a] - r->t[a - 1])};
        }
    }
}

static double ref_value(const stsl_h5_group *g, int m, ref_at a)
{
    double v = stsl_h5_group_at(g, a.lo, m);
    return a.w == 0.0 ? v : (1.0 - a.w) * v + a.w * stsl_h5_group_at(g, a.lo + 1, m);
}

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

/* ---- the compared span ---------------------------------------------------------- */

/* Candidate rows within the reference's span (the ends snapped onto it, as
 * the element's comparison does): rows [*i0, *i0 + rep->n) into *t. */
static int span(const stsl_h5_system *r, const stsl_h5_system *c, double **t, long *i0,
                stsl_cmp_sys_report *rep, stsl_error *err)
{
    if (r->n_samples < 2)
        return stsl_error_set(err, STSL_EINPUT, "%s: fewer than two samples", r->path);
    double t0 = r->t[0], t1 = r->t[r->n_samples - 1];
    double slack = STSL_CMP_TIME_SLACK * fmax(1.0, fabs(t1));
    long a = 0, b = c->n_samples;
    while (a < b && c->t[a] < t0 - slack)
        a++;
    while (b > a && c->t[b - 1] > t1 + slack)
        b--;
    long n = b - a;
    if (n < 2 || !(c->t[b - 1] > c->t[a]))
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: fewer than two distinct times within the reference's [%.9g, "
                              "%.9g] %s",
                              c->path, t0, t1, r->time_units);
    if (!(*t = malloc(sizeof **t * (size_t)n)))
        return stsl_error_set(err, STSL_ENOMEM, "out of memory for %ld time points", n);
    for (long i = 0; i < n; i++)
        (*t)[i] = fmin(fmax(c->t[a + i], t0), t1);
    *i0 = a;
    rep->n = n;
    rep->dropped = c->n_samples - n;
    rep->t_first = (*t)[0];
    rep->t_last = (*t)[n - 1];
    return STSL_OK;
}

/* ---- per member ---------------------------------------------------------------- */

/* Work arrays of n values, shared by the members. */
typedef struct work {
    double *ar, *br, *ac, *bc;
    unsigned char *sr, *sc;
} work;

static void bodies(const stsl_h5_system *r, const stsl_h5_system *c, const double *t,
                   const ref_at *at, long i0, long n, const int *map, work *w,
                   stsl_cmp_sys_report *rep)
{
    const stsl_h5_group *xr = stsl_h5_system_group(r, "x"), *vr = stsl_h5_system_group(r, "v");
    const stsl_h5_group *xc = stsl_h5_system_group(c, "x"), *vc = stsl_h5_system_group(c, "v");
    for (int k = 0; k < rep->n_bodies; k++) {
        for (long i = 0; i < n; i++) {
            w->ar[i] = ref_value(xr, map[k], at[i]);
            w->br[i] = vr ? ref_value(vr, map[k], at[i]) : NAN;
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

/* Stuck flags of contact (ref member j, cand member k) on the compared rows:
 * the reference at rest on either side of an event instant, as the
 * element's comparison has it. */
static void stuck_flags(const stsl_h5_group *mr, const stsl_h5_group *mc, int j, int k,
                        const ref_at *at, long i0, long n, work *w)
{
    int sr = stsl_h5_group_value(mr, "STUCK"), sc = stsl_h5_group_value(mc, "STUCK");
    for (long i = 0; i < n; i++) {
        w->sr[i] = (unsigned char)(sr >= 0 && ((int)stsl_h5_group_at(mr, at[i].lo, j) == sr ||
                                               (int)stsl_h5_group_at(mr, at[i].other, j) == sr));
        w->sc[i] = (unsigned char)(sc >= 0 && (int)stsl_h5_group_at(mc, i0 + i, k) == sc);
    }
}

static double friction_energy(const stsl_h5_group *f, const stsl_h5_group *s, int m,
                              const ref_at *at, long i0, long n, const double *t, double *fa,
                              double *sa)
{
    if (!f || !s) return NAN;
    for (long i = 0; i < n; i++) {
        fa[i] = at ? ref_value(f, m, at[i]) : stsl_h5_group_at(f, i0 + i, m);
        sa[i] = at ? ref_value(s, m, at[i]) : stsl_h5_group_at(s, i0 + i, m);
    }
    /* `friction` is the contact's force on its first end, which opposes the
     * slip w: its power F w is what the contact takes out, with a minus. */
    return -stsl_compare_energy_friction(t, fa, sa, n);
}

static int contacts(const stsl_h5_system *r, const stsl_h5_system *c, const double *t,
                    const ref_at *at, long i0, long n, const int *map, work *w,
                    stsl_cmp_sys_report *rep, stsl_error *err)
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
        stuck_flags(mr, mc, map[k], k, at, i0, n, w);
        stsl_compare_stuck(t, w->sr, w->sc, n, &o->stuck);
        o->energy_ref = friction_energy(fr, wr, map[k], at, 0, n, t, w->ar, w->br);
        o->energy_cand = friction_energy(fc, wc, k, NULL, i0, n, t, w->ac, w->bc);
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

static int alloc_all(long n, work *w, ref_at **at, stsl_cmp_sys_report *rep, stsl_error *err)
{
    size_t sz = (size_t)n;
    w->ar = malloc(sizeof(double) * sz);
    w->br = malloc(sizeof(double) * sz);
    w->ac = malloc(sizeof(double) * sz);
    w->bc = malloc(sizeof(double) * sz);
    w->sr = malloc(sz);
    w->sc = malloc(sz);
    *at = malloc(sizeof **at * sz);
    rep->bodies = calloc((size_t)rep->n_bodies + 1, sizeof *rep->bodies);
    rep->contacts = calloc((size_t)rep->n_contacts + 1, sizeof *rep->contacts);
    rep->stops = calloc((size_t)rep->n_stops + 1, sizeof *rep->stops);
    if (w->ar && w->br && w->ac && w->bc && w->sr && w->sc && *at && rep->bodies && rep->contacts &&
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

int stsl_cmp_systems(const stsl_h5_system *ref, const stsl_h5_system *cand, double event_window,
                     stsl_cmp_sys_report *rep, stsl_error *err)
{
    memset(rep, 0, sizeof *rep);
    int *mb = NULL, *mc = NULL, *ms = NULL;
    double *t = NULL;
    ref_at *at = NULL;
    work w = {0};
    long i0 = 0;
    int rc = match_names(ref, cand, "x", "bodies", &rep->n_bodies, &mb, err);
    if (!rc) rc = match_names(ref, cand, "contact_mode", "contacts", &rep->n_contacts, &mc, err);
    if (!rc) rc = match_names(ref, cand, "stop_mode", "stops", &rep->n_stops, &ms, err);
    if (!rc) rc = span(ref, cand, &t, &i0, rep, err);
    if (!rc) rc = alloc_all(rep->n, &w, &at, rep, err);
    if (!rc) {
        rep->window_default = event_window < 0;
        rep->window =
            rep->window_default ? stsl_compare_default_event_window(t, rep->n) : event_window;
        locate(ref, t, rep->n, at);
        bodies(ref, cand, t, at, i0, rep->n, mb, &w, rep);
        rc = contacts(ref, cand, t, at, i0, rep->n, mc, &w, rep, err);
    }
    if (!rc) rc = stops(ref, cand, rep, err);
    work_free(&w);
    free(at);
    free(t);
    free(mb);
    free(mc);
    free(ms);
    if (rc) stsl_cmp_sys_report_free(rep);
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
