#include "physics/signal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_spline.h>

#include "solver/gsl_setup.h"

/* Samples per period that bound a step: with 20 a window of two steps spans a
 * tenth of a period, so a sinusoidal guard has at most one extremum in it and
 * the frozen-mode scan cannot miss a crossing hidden between samples. */
#define SAMPLES_PER_PERIOD 20.0

struct stsl_signal {
    stsl_signal_spec spec; /* table pointers replaced by our own copies */
    double k;              /* janecek_chirp: pi f_max / t_max */
    double c;              /* linear_chirp: (f1 - f0) / (2 t1) */
    gsl_spline *spline;    /* table, cubic */
};

static const char *const type_names[] = {"constant",      "step",         "ramp",  "sine",
                                         "janecek_chirp", "linear_chirp", "table", NULL};

const char *const *stsl_signal_type_names(void)
{
    return type_names;
}

stsl_signal *stsl_signal_create(const stsl_signal_spec *spec, stsl_error *err)
{
    stsl_signal *s = calloc(1, sizeof *s);
    if (!s) goto nomem;
    s->spec = *spec;
    s->spec.tt = s->spec.vv = NULL;
    if (spec->type == STSL_SIG_JANECEK_CHIRP) s->k = M_PI * spec->f_max / spec->t_max;
    if (spec->type == STSL_SIG_LINEAR_CHIRP) s->c = (spec->f1 - spec->f0) / (2.0 * spec->t1);
    if (spec->type != STSL_SIG_TABLE) return s;
    if (spec->n < 2 || !spec->tt || !spec->vv) {
        stsl_error_set(err, STSL_EINPUT, "table %s: needs at least 2 rows", spec->file);
        goto fail;
    }
    if (stsl_signal_spec_copy(&s->spec, spec)) goto nomem; /* our own copy of the table */
    for (int i = 1; i < spec->n; i++)
        if (!(spec->tt[i] > spec->tt[i - 1])) {
            stsl_error_set(err, STSL_EINPUT, "table %s: times must increase (row %d)", spec->file,
                           i + 1);
            goto fail;
        }
    if (spec->interpolation == STSL_INTERP_CUBIC) {
        /* A natural cubic spline (GSL): position, velocity and acceleration
         * continuous, which base motion needs. Fewer than 3 points: linear. */
        const gsl_interp_type *ty = spec->n >= 3 ? gsl_interp_cspline : gsl_interp_linear;
        stsl_gsl_setup(); /* a bad table is an error code, not an abort */
        s->spline = gsl_spline_alloc(ty, (size_t)spec->n);
        if (!s->spline) goto nomem;
        if (gsl_spline_init(s->spline, s->spec.tt, s->spec.vv, (size_t)spec->n)) {
            stsl_error_set(err, STSL_EINPUT, "table %s: spline setup failed", spec->file);
            goto fail;
        }
    }
    return s;
nomem:
    stsl_error_set(err, STSL_ENOMEM, "out of memory creating a signal");
fail:
    stsl_signal_free(s);
    return NULL;
}

void stsl_signal_free(stsl_signal *s)
{
    if (!s) return;
    if (s->spline) gsl_spline_free(s->spline);
    free(s->spec.tt);
    free(s->spec.vv);
    free(s);
}

/* Index i of the table interval [tt[i], tt[i+1]] holding t; at a breakpoint
 * the left interval when `left`. Requires tt[0] <= t <= tt[n-1]. */
static int table_interval(const stsl_signal *s, double t, int left)
{
    int lo = 0, hi = s->spec.n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (s->spec.tt[mid] < t || (!left && s->spec.tt[mid] == t))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void eval_table(const stsl_signal *s, double t, int left, double out[3])
{
    const double *tt = s->spec.tt, *vv = s->spec.vv;
    int n = s->spec.n;
    /* Outside the table the value holds: derivatives are zero. */
    out[1] = out[2] = 0.0;
    if (t < tt[0] || (t == tt[0] && left)) {
        out[0] = vv[0];
        return;
    }
    if (t > tt[n - 1] || (t == tt[n - 1] && !left)) {
        out[0] = vv[n - 1];
        return;
    }
    if (s->spline) {
        out[0] = gsl_spline_eval(s->spline, t, NULL);
        out[1] = gsl_spline_eval_deriv(s->spline, t, NULL);
        out[2] = gsl_spline_eval_deriv2(s->spline, t, NULL);
        return;
    }
    int i = table_interval(s, t, left);
    double slope = (vv[i + 1] - vv[i]) / (tt[i + 1] - tt[i]);
    out[0] = vv[i] + slope * (t - tt[i]);
    out[1] = slope;
}

void stsl_signal_eval(const stsl_signal *s, double t, int left, double out[3])
{
    const stsl_signal_spec *p = &s->spec;
    out[0] = out[1] = out[2] = 0.0;
    switch (p->type) {
    case STSL_SIG_CONSTANT:
        out[0] = p->value;
        break;
    case STSL_SIG_STEP:
        out[0] = (t > p->time || (t == p->time && !left)) ? p->after : p->before;
        break;
    case STSL_SIG_RAMP:
        if (t > p->start_time || (t == p->start_time && !left)) {
            out[0] = p->initial + p->slope * (t - p->start_time);
            out[1] = p->slope;
        } else {
            out[0] = p->initial;
        }
        break;
    case STSL_SIG_SINE: {
        double w = 2.0 * M_PI * p->frequency, ph = w * t + p->phase;
        out[0] = p->offset + p->amplitude * sin(ph);
        out[1] = p->amplitude * w * cos(ph);
        out[2] = -p->amplitude * w * w * sin(ph);
        break;
    }
    case STSL_SIG_JANECEK_CHIRP: { /* Janecek eqs. (12)-(14) */
        double k = s->k, ph = k * t * t, sn = sin(ph), cs = cos(ph);
        out[0] = p->amplitude * sn;
        out[1] = 2.0 * p->amplitude * k * t * cs;
        out[2] = 2.0 * p->amplitude * k * (cs - 2.0 * k * t * t * sn);
        break;
    }
    case STSL_SIG_LINEAR_CHIRP: {
        double ph = 2.0 * M_PI * (p->f0 * t + s->c * t * t);
        double d1 = 2.0 * M_PI * (p->f0 + 2.0 * s->c * t), d2 = 4.0 * M_PI * s->c;
        out[0] = p->amplitude * sin(ph);
        out[1] = p->amplitude * cos(ph) * d1;
        out[2] = p->amplitude * (cos(ph) * d2 - sin(ph) * d1 * d1);
        break;
    }
    case STSL_SIG_TABLE:
        eval_table(s, t, left, out);
        break;
    }
}

/* A cubic table piece's third derivative, constant over its interval: the
 * change of its second derivative (continuous at the knots) over the
 * interval's length; 0 outside the table and for linear pieces. */
static double table_third(const stsl_signal *s, double t, int left)
{
    const double *tt = s->spec.tt;
    int n = s->spec.n;
    if (!s->spline || t < tt[0] || (t == tt[0] && left) || t > tt[n - 1] ||
        (t == tt[n - 1] && !left))
        return 0.0;
    int i = table_interval(s, t, left);
    return (gsl_spline_eval_deriv2(s->spline, tt[i + 1], NULL) -
            gsl_spline_eval_deriv2(s->spline, tt[i], NULL)) /
           (tt[i + 1] - tt[i]);
}

double stsl_signal_third(const stsl_signal *s, double t, int left)
{
    const stsl_signal_spec *p = &s->spec;
    switch (p->type) {
    case STSL_SIG_SINE: {
        double w = 2.0 * M_PI * p->frequency;
        return -p->amplitude * w * w * w * cos(w * t + p->phase);
    }
    case STSL_SIG_JANECEK_CHIRP: { /* d/dt of 2 A k (cos - 2 k t^2 sin) */
        double k = s->k, ph = k * t * t;
        return -4.0 * p->amplitude * k * k * t * (3.0 * sin(ph) + 2.0 * k * t * t * cos(ph));
    }
    case STSL_SIG_LINEAR_CHIRP: { /* the phase's second derivative is constant */
        double ph = 2.0 * M_PI * (p->f0 * t + s->c * t * t);
        double d1 = 2.0 * M_PI * (p->f0 + 2.0 * s->c * t), d2 = 4.0 * M_PI * s->c;
        return -p->amplitude * (3.0 * sin(ph) * d1 * d2 + cos(ph) * d1 * d1 * d1);
    }
    case STSL_SIG_TABLE:
        return table_third(s, t, left);
    default: /* constant, step, ramp: pieces of degree <= 1 */
        return 0.0;
    }
}

double stsl_signal_value(const stsl_signal *s, double t, int left)
{
    double out[3];
    if (s->spec.type == STSL_SIG_CONSTANT) return s->spec.value;
    stsl_signal_eval(s, t, left, out);
    return out[0];
}

double stsl_signal_max_step(const stsl_signal *s, double t)
{
    const stsl_signal_spec *p = &s->spec;
    switch (p->type) {
    case STSL_SIG_SINE:
        return p->frequency > 0 ? 1.0 / (SAMPLES_PER_PERIOD * p->frequency) : INFINITY;
    case STSL_SIG_JANECEK_CHIRP: {
        /* Phase k t^2 may advance by 2 pi / SAMPLES_PER_PERIOD over the step. */
        double dph = 2.0 * M_PI / SAMPLES_PER_PERIOD;
        double tt = fabs(t), c = dph / s->k;
        /* sqrt(t^2 + c) - t, written without the cancellation at large t. */
        return s->k > 0 ? c / (sqrt(tt * tt + c) + tt) : INFINITY;
    }
    case STSL_SIG_LINEAR_CHIRP: {
        double f = fmax(fmax(fabs(p->f0), fabs(p->f1)), fabs(p->f0 + 2.0 * s->c * t));
        return f > 0 ? 1.0 / (SAMPLES_PER_PERIOD * f) : INFINITY;
    }
    case STSL_SIG_TABLE: {
        if (!s->spline) return INFINITY; /* linear pieces, breakpoints are time events */
        int n = p->n;
        if (t < p->tt[0] || t >= p->tt[n - 1]) return INFINITY;
        int i = table_interval(s, t, 0);
        double h = p->tt[i + 1] - p->tt[i];
        if (i + 2 < n && p->tt[i + 2] - p->tt[i + 1] < h) h = p->tt[i + 2] - p->tt[i + 1];
        /* A cubic piece has at most two extrema: half an interval isolates them. */
        return 0.5 * h;
    }
    default:
        return INFINITY;
    }
}

double stsl_signal_next_event(const stsl_signal *s, double t)
{
    const stsl_signal_spec *p = &s->spec;
    switch (p->type) {
    case STSL_SIG_STEP:
        return p->time > t ? p->time : INFINITY;
    case STSL_SIG_RAMP:
        return p->start_time > t ? p->start_time : INFINITY;
    case STSL_SIG_TABLE: {
        int n = p->n;
        if (t < p->tt[0]) return p->tt[0];
        if (t >= p->tt[n - 1]) return INFINITY;
        if (s->spline) return p->tt[n - 1]; /* only the ends are discontinuities */
        return p->tt[table_interval(s, t, 0) + 1];
    }
    default:
        return INFINITY;
    }
}

int stsl_signal_is_constant(const stsl_signal *s)
{
    const stsl_signal_spec *p = &s->spec;
    switch (p->type) {
    case STSL_SIG_CONSTANT:
        return 1;
    case STSL_SIG_STEP:
        return p->before == p->after;
    case STSL_SIG_RAMP:
        return p->slope == 0.0;
    case STSL_SIG_SINE:
    case STSL_SIG_JANECEK_CHIRP:
    case STSL_SIG_LINEAR_CHIRP:
        return p->amplitude == 0.0;
    case STSL_SIG_TABLE: {
        for (int i = 1; i < p->n; i++)
            if (p->vv[i] != p->vv[0]) return 0;
        return 1;
    }
    }
    return 0;
}

int stsl_signal_spec_copy(stsl_signal_spec *d, const stsl_signal_spec *s)
{
    *d = *s;
    d->tt = d->vv = NULL;
    if (!s->tt) return 0;
    size_t bytes = (size_t)s->n * sizeof(double);
    d->tt = malloc(bytes);
    d->vv = malloc(bytes);
    if (!d->tt || !d->vv) {
        free(d->tt);
        free(d->vv);
        d->tt = d->vv = NULL;
        return -1;
    }
    memcpy(d->tt, s->tt, bytes);
    memcpy(d->vv, s->vv, bytes);
    return 0;
}

double stsl_signal_spec_oscillation(const stsl_signal_spec *s)
{
    int osc = s->type == STSL_SIG_SINE || s->type == STSL_SIG_JANECEK_CHIRP ||
              s->type == STSL_SIG_LINEAR_CHIRP;
    return osc ? fabs(s->amplitude) : 0.0;
}

double stsl_signal_spec_size(const stsl_signal_spec *s)
{
    switch (s->type) {
    case STSL_SIG_CONSTANT:
        return fabs(s->value);
    case STSL_SIG_STEP:
        return fmax(fabs(s->before), fabs(s->after));
    case STSL_SIG_RAMP:
        return fabs(s->initial);
    case STSL_SIG_TABLE: {
        double m = 0.0;
        for (int i = 0; s->vv && i < s->n; i++)
            m = fmax(m, fabs(s->vv[i]));
        return m;
    }
    default:
        return fabs(s->amplitude) + fabs(s->offset);
    }
}
