/* compare.h - a candidate judged against the exact run of a configuration:
 * the metrics of `stickslip compare` (api/compare_files.c reads the files
 * and prints the report), stsl_compare() and stsl_compare_system()
 * (stickslip.h), computed by one core for elements and systems alike.
 *
 * The core takes the candidate as a result of bodies (a system's file, or
 * an element's trajectory as the result of its one body) and
 *   - keeps its times within [0, t_end]: candidate times outside are
 *     dropped (a longer export from another tool is common and its overlap
 *     is still worth comparing; the count is reported), times within
 *     TIME_SLACK (compare.c) of the ends count as the end itself,
 *     since a time accumulated step by step misses t_end by a few ulps;
 *   - runs the reference's configuration again, event-driven, with those
 *     times as its only output times (grid_only), so the reference is
 *     evaluated exactly there and no interpolation error is charged to the
 *     candidate.  Where the candidate repeats a time (a jump) and the
 *     reference has an event at exactly that time, the last row of that
 *     time is compared with the reference's value just after the event(s),
 *     the others with the value just before;
 *   - matches bodies (and contacts, stops) by name and takes every body's
 *     errors of x and v (run/validation.h).
 * Two views then judge the rest.  A system's (stsl_cmp_systems) per
 * contact and stop, from the columns a system's result has.  The element's
 * (stsl_cmp_one_body), the one-body view: a CSV, MAT or FMU trajectory has
 * no contact columns, no event rows and no subjects, so its stuck time is
 * that of the body at rest relative to the base -- modes STUCK, STOP_LOW,
 * STOP_HIGH and CONTACT_*_STUCK (a velocity-only candidate cannot tell a
 * stop from a stick), or, for samples of a smooth law (mode SMOOTH) and for
 * candidates without a mode column, |v| <= the stuck velocity -- counted
 * on both ends of an interval (stsl_compare_stuck); its events are matched
 * all together; its energy is from its friction column or the balance with
 * the model's F_n. */
#ifndef STSL_API_COMPARE_H
#define STSL_API_COMPARE_H

#include "include/stickslip.h"
#include "io/config/config.h"
#include "io/result/h5_read.h"
#include "run/validation.h"

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

/* Everything the one-body view computed: the public metrics and the lists
 * the command's table and report show. */
typedef struct stsl_cmp_report {
    stsl_compare_metrics p; /* its strings static */
    double t_end;
    int stuck_default, window_default;
    stsl_cmp_event *rev, *cev; /* owned */
    long n_rev, n_cev;
    stsl_cmp_matching m;
    int rerun_failed; /* on failure: the reference's re-run failed (exit 3) */
} stsl_cmp_report;

/* The one-body view: the element's trajectory `c` judged against `cfg`
 * (stuck_velocity, event_window < 0: the defaults of run/validation.h).
 * On failure *rep holds nothing to free and rep->rerun_failed says whether
 * the re-run of the reference failed (its message starts "re-running the
 * reference: "). */
int stsl_cmp_one_body(const stsl_config *cfg, const stsl_cmp_candidate *c, double stuck_velocity,
                      double event_window, stsl_cmp_report *rep, stsl_error *err);
void stsl_cmp_report_free(stsl_cmp_report *rep);

/* A system's view: `cand` (a system's result; `ref_name` names the
 * reference in messages; event_window < 0: the default) against the run
 * of `ref`, after the core per body, then
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
 * candidate without a stop_mode dataset (an FMU's run, api/compare_files.c:
 * its samples show no stop's state) has its stops left out of the comparison.  Into
 * the public report *out (freed with stsl_compare_system_free; members
 * named as in the candidate).  On failure *out holds nothing to free and
 * *rerun_failed says whether the reference's re-run failed (the message
 * then starts "re-running the reference: "). */
int stsl_cmp_systems(const stsl_config *ref, const char *ref_name, const stsl_h5_system *cand,
                     double event_window, stsl_compare_system_report *out, int *rerun_failed,
                     stsl_error *err);

#endif
