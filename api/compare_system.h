/* compare_system.h - a candidate result of a system of bodies judged
 * against the exact run of the reference's configuration, member by
 * member (`stickslip compare REF.h5 CAND.h5` when both are systems'
 * results): the metrics of the element's comparison (api/compare.h,
 * models/validation.h) applied to each column, matched by name:
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
 * order); otherwise STSL_EINPUT naming what only one of them has.
 *
 * The reference's configuration is run again with the candidate's times
 * as its only output times (stsl_cmp_rerun_at), so that it is evaluated
 * exactly there: nothing is interpolated, and a result compared with
 * itself has errors of exactly 0.  Candidate times outside [0, t_end] are
 * dropped (and counted). */
#ifndef STSL_API_COMPARE_SYSTEM_H
#define STSL_API_COMPARE_SYSTEM_H

#include "io/config.h"
#include "io/h5_system.h"
#include "models/validation.h"

typedef struct stsl_cmp_body {
    const char *name;  /* borrowed from the candidate */
    stsl_cmp_errors e; /* x and v */
} stsl_cmp_body;

typedef struct stsl_cmp_contact {
    const char *name;
    stsl_cmp_stuck stuck;
    stsl_cmp_matching m;            /* events about this contact */
    double energy_ref, energy_cand; /* NaN without friction and slip_velocity */
    stsl_cmp_errors e; /* its friction (as x) and slip velocity (as v); NaN without them */
} stsl_cmp_contact;

typedef struct stsl_cmp_stop {
    const char *name;
    stsl_cmp_matching m; /* events about this stop */
} stsl_cmp_stop;

typedef struct stsl_cmp_sys_report {
    long n, dropped; /* candidate samples compared, and outside [0, t_end] */
    double t_first, t_last, window;
    int window_default;
    int rerun_failed; /* on failure: the reference's re-run failed (exit 3) */
    int n_bodies, n_contacts, n_stops;
    stsl_cmp_body *bodies;
    stsl_cmp_contact *contacts;
    stsl_cmp_stop *stops;
} stsl_cmp_sys_report;

/* Compare `cand` against the run of `ref` (a system's configuration;
 * `ref_name` names it in messages; event_window < 0: the default of
 * models/validation.h).  On failure *rep holds nothing to free but
 * rep->rerun_failed (the message then starts "re-running the
 * reference: "). */
int stsl_cmp_systems(const stsl_config *ref, const char *ref_name, const stsl_h5_system *cand,
                     double event_window, stsl_cmp_sys_report *rep, stsl_error *err);
void stsl_cmp_sys_report_free(stsl_cmp_sys_report *rep);

#endif
