/* validation.c - metrics of a candidate trajectory against a reference on
 * the same time grid: errors, stuck-time overlap, event matching, dissipated
 * energy, order fit (definitions in validation.h). */
#include "run/validation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "physics/modes.h"

/* ---- errors ------------------------------------------------------------------ */

void stsl_compare_errors(const double *t, const double *xr, const double *vr, const double *xc,
                         const double *vc, long n, stsl_cmp_errors *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0) return;
    double ix = 0.0, iv = 0.0, sx = 0.0, sv = 0.0;
    for (long i = 0; i < n; i++) {
        double ex = xc[i] - xr[i], ev = vc[i] - vr[i];
        out->max_abs_x = fmax(out->max_abs_x, fabs(ex));
        out->max_abs_v = fmax(out->max_abs_v, fabs(ev));
        sx += ex * ex;
        sv += ev * ev;
        if (i + 1 < n) {
            double dt = t[i + 1] - t[i];
            double ex1 = xc[i + 1] - xr[i + 1], ev1 = vc[i + 1] - vr[i + 1];
            ix += 0.5 * dt * (ex * ex + ex1 * ex1);
            iv += 0.5 * dt * (ev * ev + ev1 * ev1);
        }
    }
    double span = t[n - 1] - t[0];
    if (span > 0) {
        out->rms_x = sqrt(ix / span);
        out->rms_v = sqrt(iv / span);
    } else {
        out->rms_x = sqrt(sx / (double)n);
        out->rms_v = sqrt(sv / (double)n);
    }
    out->final_x = xc[n - 1] - xr[n - 1];
    out->final_v = vc[n - 1] - vr[n - 1];
}

/* ---- stuck time ------------------------------------------------------------------ */

/* both_ends = 1: an interval counts when its two samples say so; 0: its first. */
static void stuck_figures(const double *t, const unsigned char *rs, const unsigned char *cs, long n,
                          int both_ends, stsl_cmp_stuck *out)
{
    memset(out, 0, sizeof *out);
    for (long i = 0; i + 1 < n; i++) {
        double dt = t[i + 1] - t[i];
        int r = rs[i] && (!both_ends || rs[i + 1]);
        int c = cs[i] && (!both_ends || cs[i + 1]);
        if (r) out->ref_time += dt;
        if (c) out->cand_time += dt;
        if (r && c) out->intersection += dt;
        if (r || c) out->union_ += dt;
    }
    out->iou = out->union_ > 0 ? out->intersection / out->union_ : 1.0;
}

void stsl_compare_stuck(const double *t, const unsigned char *ref_stuck,
                        const unsigned char *cand_stuck, long n, stsl_cmp_stuck *out)
{
    stuck_figures(t, ref_stuck, cand_stuck, n, 1, out);
}

void stsl_compare_stuck_held(const double *t, const unsigned char *ref_stuck,
                             const unsigned char *cand_stuck, long n, stsl_cmp_stuck *out)
{
    stuck_figures(t, ref_stuck, cand_stuck, n, 0, out);
}

/* ---- events ------------------------------------------------------------------ */

stsl_cmp_class stsl_compare_event_class(const char *kind)
{
    static const stsl_cmp_class cls[STSL_N_EVENT_KINDS] = {
        [STSL_EV_STICK] = STSL_CMP_REST,         [STSL_EV_STOP_CONTACT] = STSL_CMP_REST,
        [STSL_EV_BREAKAWAY] = STSL_CMP_START,    [STSL_EV_STOP_RELEASE] = STSL_CMP_START,
        [STSL_EV_REVERSAL] = STSL_CMP_TURN,      [STSL_EV_IMPACT] = STSL_CMP_TURN,
        [STSL_EV_LOAD_REVERSAL] = STSL_CMP_NONE, [STSL_EV_INPUT_STEP] = STSL_CMP_NONE};
    const char *const *names = stsl_event_kind_names();
    for (int k = 0; k < STSL_N_EVENT_KINDS; k++)
        if (!strcmp(kind, names[k])) return cls[k];
    return STSL_CMP_NONE;
}

void stsl_compare_event_set(stsl_cmp_event *e, double t, const char *kind)
{
    memset(e, 0, sizeof *e);
    e->t = t;
    snprintf(e->kind, sizeof e->kind, "%s", kind ? kind : "?");
    e->cls = stsl_compare_event_class(e->kind);
}

/* Append one event, growing the array geometrically; -1 when out of memory. */
static int push_event(stsl_cmp_event **ev, long *n, long *cap, double t, const char *kind)
{
    if (*n == *cap) {
        long c = *cap ? 2 * *cap : 16;
        stsl_cmp_event *p = realloc(*ev, sizeof *p * (size_t)c);
        if (!p) return -1;
        *ev = p;
        *cap = c;
    }
    stsl_compare_event_set(&(*ev)[(*n)++], t, kind);
    return 0;
}

/* The name of an event kind (the one name table, physics/modes). */
#define KIND(k) (stsl_event_kind_names()[k])

static int opposite(double a, double b)
{
    return (a > 0 && b < 0) || (a < 0 && b > 0);
}

long stsl_compare_derive_events(const double *t, const double *v, const unsigned char *stuck,
                                long n, stsl_cmp_event **out)
{
    stsl_cmp_event *ev = NULL;
    long ne = 0, cap = 0;
    int rc = 0;
    for (long i = 0; i < n && !rc;) {
        if (!stuck[i]) {
            if (i + 1 < n && !stuck[i + 1] && opposite(v[i], v[i + 1])) {
                /* The zero of the chord; a jump (equal times) turns at that time. */
                double tz = t[i] + (t[i + 1] - t[i]) * (v[i] / (v[i] - v[i + 1]));
                rc = push_event(&ev, &ne, &cap, tz, KIND(STSL_EV_REVERSAL));
            }
            i++;
            continue;
        }
        long j = i;
        while (j + 1 < n && stuck[j + 1])
            j++;
        if (t[j] > t[i]) { /* at rest for a while: the same rule as the stuck time */
            if (i > 0) rc = push_event(&ev, &ne, &cap, t[i], KIND(STSL_EV_STICK));
            if (!rc && j + 1 < n) rc = push_event(&ev, &ne, &cap, t[j], KIND(STSL_EV_BREAKAWAY));
        } else if (i > 0 && j + 1 < n && opposite(v[i - 1], v[j + 1])) {
            /* Through zero in no time (an event's samples, v = 0 just after a
             * turning point): a reversal, not a rest. */
            rc = push_event(&ev, &ne, &cap, t[i], KIND(STSL_EV_REVERSAL));
        }
        i = j + 1;
    }
    if (rc) {
        free(ev);
        *out = NULL;
        return -1;
    }
    *out = ev;
    return ne;
}

typedef struct cand_pair {
    long r, c;
    double adt;
} cand_pair;

static int by_abs_dt(const void *a, const void *b)
{
    const cand_pair *p = a, *q = b;
    if (p->adt != q->adt) return p->adt < q->adt ? -1 : 1;
    if (p->r != q->r) return p->r < q->r ? -1 : 1;
    return (p->c > q->c) - (p->c < q->c);
}

static int by_ref(const void *a, const void *b)
{
    const stsl_cmp_pair *p = a, *q = b;
    return (p->ref > q->ref) - (p->ref < q->ref);
}

int stsl_compare_match_events(const stsl_cmp_event *ref, long n_ref, const stsl_cmp_event *cand,
                              long n_cand, double window, stsl_cmp_matching *m, stsl_error *err)
{
    memset(m, 0, sizeof *m);
    cand_pair *all = NULL;
    long n_all = 0, cap = 0;
    unsigned char *ref_used = calloc((size_t)n_ref + 1, 1);
    unsigned char *cand_used = calloc((size_t)n_cand + 1, 1);
    m->pairs = malloc(sizeof *m->pairs * (size_t)(n_ref + 1));
    m->missed = malloc(sizeof *m->missed * (size_t)(n_ref + 1));
    m->spurious = malloc(sizeof *m->spurious * (size_t)(n_cand + 1));
    if (!ref_used || !cand_used || !m->pairs || !m->missed || !m->spurious) goto nomem;
    /* Admissible pairs: both lists are sorted, so the candidates within the
     * window of each reference event form a run that only moves forward. */
    long lo = 0;
    for (long r = 0; r < n_ref; r++) {
        if (ref[r].cls == STSL_CMP_NONE) continue;
        while (lo < n_cand && cand[lo].t < ref[r].t - window)
            lo++;
        for (long c = lo; c < n_cand && cand[c].t <= ref[r].t + window; c++) {
            if (cand[c].cls != ref[r].cls) continue;
            if (n_all == cap) {
                long nc = cap ? 2 * cap : 64;
                cand_pair *p = realloc(all, sizeof *p * (size_t)nc);
                if (!p) goto nomem;
                all = p;
                cap = nc;
            }
            all[n_all++] = (cand_pair){r, c, fabs(cand[c].t - ref[r].t)};
        }
    }
    if (n_all) qsort(all, (size_t)n_all, sizeof *all, by_abs_dt);
    for (long k = 0; k < n_all; k++) {
        if (ref_used[all[k].r] || cand_used[all[k].c]) continue;
        ref_used[all[k].r] = cand_used[all[k].c] = 1;
        double dt = cand[all[k].c].t - ref[all[k].r].t;
        m->pairs[m->n_matched++] = (stsl_cmp_pair){all[k].r, all[k].c, dt};
        m->max_abs_dt = fmax(m->max_abs_dt, fabs(dt));
    }
    if (m->n_matched) qsort(m->pairs, (size_t)m->n_matched, sizeof *m->pairs, by_ref);
    for (long r = 0; r < n_ref; r++) {
        if (ref[r].cls == STSL_CMP_NONE)
            m->n_ignored_ref++;
        else if (!ref_used[r])
            m->missed[m->n_missed++] = r;
    }
    for (long c = 0; c < n_cand; c++) {
        if (cand[c].cls == STSL_CMP_NONE)
            m->n_ignored_cand++;
        else if (!cand_used[c])
            m->spurious[m->n_spurious++] = c;
    }
    free(all);
    free(ref_used);
    free(cand_used);
    return STSL_OK;
nomem:
    free(all);
    free(ref_used);
    free(cand_used);
    stsl_compare_matching_free(m);
    return stsl_error_set(err, STSL_ENOMEM, "event matching: out of memory (%ld and %ld events)",
                          n_ref, n_cand);
}

void stsl_compare_matching_free(stsl_cmp_matching *m)
{
    if (!m) return;
    free(m->pairs);
    free(m->missed);
    free(m->spurious);
    memset(m, 0, sizeof *m);
}

/* ---- dissipated energy ---------------------------------------------------------- */

double stsl_compare_energy_friction(const double *t, const double *friction, const double *v,
                                    long n)
{
    double e = 0.0;
    for (long i = 0; i + 1 < n; i++)
        e += 0.5 * (t[i + 1] - t[i]) * (friction[i] * v[i] + friction[i + 1] * v[i + 1]);
    return e;
}

double stsl_compare_energy_balance(const double *t, const double *v, const double *fn_mid,
                                   double mass, long n)
{
    if (n < 1) return 0.0;
    double w = 0.0;
    for (long i = 0; i + 1 < n; i++)
        w += fn_mid[i] * 0.5 * (v[i] + v[i + 1]) * (t[i + 1] - t[i]);
    return w - 0.5 * mass * (v[n - 1] * v[n - 1] - v[0] * v[0]);
}

/* ---- defaults ------------------------------------------------------------------ */

double stsl_compare_default_stuck_velocity(const double *v_ref, long n, double atol)
{
    double vmax = 0.0;
    for (long i = 0; i < n; i++)
        vmax = fmax(vmax, fabs(v_ref[i]));
    return fmax(STSL_CMP_STUCK_REL * vmax, atol);
}

static int by_value(const void *a, const void *b)
{
    double p = *(const double *)a, q = *(const double *)b;
    return (p > q) - (p < q);
}

double stsl_compare_default_event_window(const double *t, long n)
{
    double *dt = malloc(sizeof *dt * (size_t)(n > 1 ? n : 1));
    if (!dt) return 0.0;
    long k = 0;
    for (long i = 0; i + 1 < n; i++)
        if (t[i + 1] > t[i]) dt[k++] = t[i + 1] - t[i];
    double med = 0.0;
    if (k > 0) {
        qsort(dt, (size_t)k, sizeof *dt, by_value);
        med = k % 2 ? dt[k / 2] : 0.5 * (dt[k / 2 - 1] + dt[k / 2]);
    }
    free(dt);
    return STSL_CMP_WINDOW_STEPS * med;
}

/* ---- order ------------------------------------------------------------------ */

double stsl_compare_fit_order(const double *h, const double *err, int n, int *used)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (!(err[i] > 0.0)) continue;
        double x = log(h[i]), y = log(err[i]);
        sx += x, sy += y, sxx += x * x, sxy += x * y;
        m++;
    }
    *used = m;
    double den = m * sxx - sx * sx;
    return m >= 2 && den > 0.0 ? (m * sxy - sx * sy) / den : NAN;
}
