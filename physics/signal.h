/* signal.h - prescribed input signals: forces, loads, base and anchor motion.
 *
 * A signal gives its value and first two time derivatives analytically, the
 * time scale on which it varies (a bound for the solver's step, so that a
 * frozen mode never steps over a guard) and its discontinuities (time events).
 *
 * At a discontinuity exactly at t, `left` selects the left limit (1) or the
 * right limit (0): a segment that ends at a discontinuity must see the value
 * from before it, the segment that starts there the value after it. */
#ifndef STSL_SIGNAL_H
#define STSL_SIGNAL_H

#include "solver/status.h"

typedef enum stsl_signal_type {
    STSL_SIG_CONSTANT = 0,  /* value */
    STSL_SIG_STEP,          /* time, before, after */
    STSL_SIG_RAMP,          /* start_time, slope, initial */
    STSL_SIG_SINE,          /* amplitude, frequency [Hz], phase [rad], offset */
    STSL_SIG_JANECEK_CHIRP, /* amplitude, f_max, t_max: A sin(k t^2), k = pi f_max / t_max */
    STSL_SIG_LINEAR_CHIRP,  /* amplitude, f0, f1, t1: A sin(2 pi (f0 t + (f1 - f0) t^2 / (2 t1))) */
    STSL_SIG_TABLE          /* file, interpolation: linear | cubic */
} stsl_signal_type;

typedef enum stsl_interp { STSL_INTERP_LINEAR = 0, STSL_INTERP_CUBIC = 1 } stsl_interp;

#define STSL_PATH_MAX 4096

/* A signal's description, as the configuration gives it.  Fields not used
 * by `type` are ignored.  Table data (n, t, v) are owned by whoever filled
 * the spec (the configuration). */
typedef struct stsl_signal_spec {
    stsl_signal_type type;
    double value;                               /* constant */
    double time, before, after;                 /* step */
    double start_time, slope, initial;          /* ramp */
    double amplitude, frequency, phase, offset; /* sine (amplitude also for the chirps) */
    double f_max, t_max;                        /* janecek_chirp */
    double f0, f1, t1;                          /* linear_chirp */
    char file[STSL_PATH_MAX];                   /* table: path as resolved */
    stsl_interp interpolation;                  /* table */
    int n;                                      /* table: number of rows (>= 2) */
    double *tt;                                 /* table: strictly increasing times */
    double *vv;                                 /* table: values */
} stsl_signal_spec;

typedef struct stsl_signal stsl_signal;

/* Build a signal from its spec (copies table data). NULL on failure. */
stsl_signal *stsl_signal_create(const stsl_signal_spec *spec, stsl_error *err);
void stsl_signal_free(stsl_signal *s);
/* Copy a spec into *d, a table's data into new arrays (the specs never
 * share them): 0, or -1 out of memory (then d->tt = d->vv = NULL). */
int stsl_signal_spec_copy(stsl_signal_spec *d, const stsl_signal_spec *s);

/* out[0] = value, out[1] = d/dt, out[2] = d2/dt2 at t. */
void stsl_signal_eval(const stsl_signal *s, double t, int left, double out[3]);
/* d3/dt3 at t (a base acceleration's rate): exact, 0 where the signal is
 * piecewise linear or constant; `left` as for eval. */
double stsl_signal_third(const stsl_signal *s, double t, int left);
/* Value only (cheaper for forces). */
double stsl_signal_value(const stsl_signal *s, double t, int left);
/* Largest step over which the signal is resolved from t on (INFINITY: any). */
double stsl_signal_max_step(const stsl_signal *s, double t);
/* First discontinuity (of value or of its derivatives that matter) strictly
 * after t, or INFINITY. */
double stsl_signal_next_event(const stsl_signal *s, double t);
/* 1 when the signal is the same at all times. */
int stsl_signal_is_constant(const stsl_signal *s);

/* The size of a signal from its spec alone (natural scales): the largest
 * |value| it is described with (0 when none), and the amplitude of an
 * oscillating one (sine, chirps; else 0: a ramp or a step of a motion
 * shifts, it does not set a length to resolve). */
double stsl_signal_spec_size(const stsl_signal_spec *s);
double stsl_signal_spec_oscillation(const stsl_signal_spec *s);

/* The signal type names of the configuration ("sine", ...), index = type,
 * then NULL. */
const char *const *stsl_signal_type_names(void);

#endif
