/* compare_system.h - two results of a system of bodies compared member by
 * member (`stickslip compare REF.h5 CAND.h5` when both are systems'
 * results): the metrics of the element's comparison (api/compare.h,
 * models/validation.h) applied to each column, matched by name:
 *   per body     x[body], v[body]: max |error|, RMS error, final error;
 *   per contact  stuck-time overlap (IoU) from contact_mode STUCK, the
 *                events about the contact matched within the window, and
 *                the energy its friction dissipated (-integral of
 *                friction * slip_velocity: friction is the force on the
 *                contact's first end, opposing its slip) in both;
 *   per stop     the events about the stop matched within the window.
 * Bodies, contacts and stops must have the same names in both files (in
 * any order); otherwise STSL_EINPUT naming what only one of them has.
 *
 * The reference is read from its file at the candidate's times: a
 * candidate time on a reference sample takes it (at an event instant, the
 * row just before, and for the last of the candidate's repeated rows of
 * that time the row just after, as the element's comparison pairs them);
 * between samples x, v, friction and slip velocity are linear in time and
 * the modes are those of the sample before.  Between two runs on the same
 * output grid nothing is interpolated but at events the other run does
 * not have.  Candidate times outside the reference's span are dropped. */
#ifndef STSL_API_COMPARE_SYSTEM_H
#define STSL_API_COMPARE_SYSTEM_H

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
} stsl_cmp_contact;

typedef struct stsl_cmp_stop {
    const char *name;
    stsl_cmp_matching m; /* events about this stop */
} stsl_cmp_stop;

typedef struct stsl_cmp_sys_report {
    long n, dropped; /* candidate samples compared, and outside the reference's span */
    double t_first, t_last, window;
    int window_default;
    int n_bodies, n_contacts, n_stops;
    stsl_cmp_body *bodies;
    stsl_cmp_contact *contacts;
    stsl_cmp_stop *stops;
} stsl_cmp_sys_report;

/* Compare `cand` against `ref` (event_window < 0: the default of
 * models/validation.h).  On failure *rep holds nothing to free. */
int stsl_cmp_systems(const stsl_h5_system *ref, const stsl_h5_system *cand, double event_window,
                     stsl_cmp_sys_report *rep, stsl_error *err);
void stsl_cmp_sys_report_free(stsl_cmp_sys_report *rep);

#endif
