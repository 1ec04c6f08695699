/* compare.h - a candidate trajectory judged against the exact run of a
 * configuration: the metrics of `stickslip compare` (cli/compare.c, which
 * reads the files and prints the report) and of stsl_compare()
 * (stickslip.h), computed here once.
 *
 * The configuration is run again with the candidate's times as its only
 * output times (grid_only), so the reference is evaluated exactly there and
 * no interpolation error is charged to the candidate.  Candidate times
 * outside [0, t_end] are dropped (a longer export from another tool is
 * common and its overlap is still worth comparing; the count is reported);
 * times within STSL_CMP_TIME_SLACK of the ends count as the end itself,
 * since a time accumulated step by step misses t_end by a few ulps.  Where
 * the candidate repeats a time (a jump) and the reference has an event at
 * exactly that time, the last row of that time is compared with the
 * reference's value just after the event(s), the others with the value
 * just before.
 *
 * Metric definitions: models/validation.h.  Stuck means at rest relative to
 * the base: modes STUCK, STOP_LOW, STOP_HIGH and CONTACT_*_STUCK (a
 * velocity-only candidate cannot tell a stop from a stick), or, for samples
 * of a smooth law (mode SMOOTH) and for candidates without a mode column,
 * |v| <= the stuck velocity. */
#ifndef STSL_API_COMPARE_H
#define STSL_API_COMPARE_H

#include "include/stickslip.h"
#include "io/config.h"
#include "io/fmu/fmu_module.h"
#include "io/h5_read.h"
#include "io/mem_sink.h"
#include "models/validation.h"

/* Relative tolerance on the ends of [0, t_end] for candidate times: far
 * above the rounding of an accumulated time (1e-16 per step), far below any
 * time step worth comparing. */
#define STSL_CMP_TIME_SLACK 1e-9

/* The reference's configuration (an element or a system) run again,
 * event-driven, with the candidate's times t[0..n-1] (non-decreasing,
 * within [0, t_end]) as its only output times, and its samples aligned row
 * by row with t: where t repeats a time at which the reference has events,
 * the last row of that time holds the values just after the last of them
 * (and mode the mode after), the others the values just before. */
typedef struct stsl_cmp_rerun {
    stsl_sink sink;            /* the memory sink the re-run went into */
    const stsl_mem_result *mr; /* its result: layout, events (with subjects) */
    long n;
    int n_cols;
    double *rows;    /* n x n_cols, row-major: the reference at the candidate's rows */
    int *mode;       /* n: the row's mode */
    int *mode_after; /* n: the mode after the last event at exactly t[i] (= mode without) */
} stsl_cmp_rerun;

/* On failure *r holds what to free (stsl_cmp_rerun_free). */
int stsl_cmp_rerun_at(const stsl_config *cfg, const double *t, long n, stsl_cmp_rerun *r,
                      stsl_error *err);
void stsl_cmp_rerun_free(stsl_cmp_rerun *r);

/* The compared span: the candidate's times ct[0..cn-1] inside [0, t_end]
 * (within STSL_CMP_TIME_SLACK), the ends snapped onto it, into *t
 * (malloc'd, *n values): rows [*i0, *i0 + *n) of the candidate.
 * STSL_EINPUT naming `name` when fewer than two distinct times remain. */
int stsl_cmp_span(double t_end, const char *name, const char *t_units, const double *ct, long cn,
                  double **t, long *i0, long *n, stsl_error *err);

/* The candidate: n samples, time non-decreasing, values finite (checked by
 * whoever read them).  Borrowed. */
typedef struct stsl_cmp_candidate {
    const char *name; /* for messages: its file, or "candidate" */
    long n;
    const double *t, *x, *v;
    const double *friction; /* NULL: the energy from the balance with F_n */
    const int *mode;        /* a stickslip result's modes, else NULL */
    /* A stickslip result's own events (used unless it has SMOOTH samples),
     * else NULL: events seen in the samples. */
    const stsl_cmp_event *events;
    long n_events;
} stsl_cmp_candidate;

/* Everything the comparison computed. */
typedef struct stsl_cmp_report {
    long n, dropped; /* candidate samples compared, and outside [0, t_end] */
    double t_first, t_last, t_end;
    const char *t_units, *x_units, *v_units; /* the model's (static) */
    stsl_cmp_errors e;
    double stuck_velocity;
    int stuck_default, window_default;
    const char *cand_stuck_rule, *cand_events_source, *energy_method;
    stsl_cmp_stuck stuck;
    double window;
    stsl_cmp_event *rev, *cev; /* owned */
    long n_rev, n_cev;
    stsl_cmp_matching m;
    double energy_ref, energy_cand;
    int rerun_failed; /* on failure: the reference's re-run failed (exit 3) */
} stsl_cmp_report;

/* Judge `c` against `cfg` (stuck_velocity, event_window < 0: the defaults
 * of models/validation.h).  On failure *rep holds nothing to free and
 * rep->rerun_failed says whether the re-run of the reference failed (its
 * message starts "re-running the reference: "). */
int stsl_cmp_against(const stsl_config *cfg, const stsl_cmp_candidate *c, double stuck_velocity,
                     double event_window, stsl_cmp_report *rep, stsl_error *err);
void stsl_cmp_report_free(stsl_cmp_report *rep);

/* ---- a system's result, member by member ---------------------------------
 * `stickslip compare REF.h5 CAND.h5` when both are systems' results, and
 * stsl_compare_system: the metrics above applied to each column, matched by
 * name (the reference re-run at the candidate's times as above, so a
 * result compared with itself has errors of exactly 0):
 *   per body     x[body], v[body]: max |error|, RMS error, final error;
 *   per contact  the errors of friction[contact] and slip_velocity[contact]
 *                as of x and v, stuck time of both and their overlap (IoU) from
 *                contact_mode STUCK, by the rule of `stickslip info`
 *                (stsl_h5_time_in: a row's mode holds until the next row),
 *                the events about the contact matched within the window,
 *                and the energy its friction dissipated (-integral of
 *                friction * slip_velocity: friction is the force on the
 *                contact's first end, opposing its slip) in both;
 *   per stop     the events about the stop matched within the window.
 * Bodies, contacts and stops must have the same names in both (in any
 * order); otherwise STSL_EINPUT naming what only one of them has.  A
 * candidate without a stop_mode dataset (an FMU's run, below: its samples
 * show no stop's state) has its stops left out of the comparison.
 *
 * `cand` against the run of `ref` (a system's configuration; `ref_name`
 * names it in messages; event_window < 0: the default of
 * models/validation.h) into the public report *out (freed with
 * stsl_compare_system_free; members named as in the candidate).  On
 * failure *out holds nothing to free and *rerun_failed says whether the
 * reference's re-run failed (the message then starts "re-running the
 * reference: "). */
int stsl_cmp_systems(const stsl_config *ref, const char *ref_name, const stsl_h5_system *cand,
                     double event_window, stsl_compare_system_report *out, int *rerun_failed,
                     stsl_error *err);

/* `compare REF.h5 --fmu MODEL.fmu --step H` when REF is a system's result:
 * the FMU (of module `m`, mapped by `o` onto the system of `cfg`,
 * io/fmu/fmu_run.h) run from 0 to t_end at communication step h, its
 * samples as a system's result *c named by the FMU's path, which
 * stsl_cmp_systems then compares as it compares a result file: groups x,
 * v, friction (NaN for a contact without a friction output),
 * slip_velocity and contact_mode (stuck by the slip velocity), the events
 * seen per contact, no stops.  On failure *c holds nothing to free; the
 * FMU's file or mapping is STSL_EINPUT, its failure during the run
 * STSL_EMODEL (io/fmu/fmu_run.h). */
int stsl_cmp_fmu_system(const stsl_fmu_module_api *m, const stsl_fmu_opts *o,
                        const stsl_config *cfg, double h, stsl_h5_system *c, stsl_error *err);

#endif
