/* janecek_events.h - the Janecek chirp's 13 events (kind, time, position
 * after) from the independent high-precision reference
 * test/reference/janecek_events.py (mpmath, 45 digits, piecewise Taylor
 * series): one copy of its numbers for every test that checks them. */
#ifndef STSL_TEST_JANECEK_EVENTS_H
#define STSL_TEST_JANECEK_EVENTS_H

#include "physics/modes.h"

/* The reference's digits: it agrees with itself to all 22 printed digits when
 * rerun at 60 digits, 90 terms and steps of 0.02 s, so these 17-digit copies
 * carry only the rounding of the decimal to a double (1e-16 relative). */
typedef struct ref_event {
    int kind;
    double t, x;
} ref_event;

static const ref_event janecek_ref[] = {
    {STSL_EV_BREAKAWAY, 4.1724534070758207, 0.0},
    {STSL_EV_STICK, 4.4834902483432051, -0.0015964898230197848},
    {STSL_EV_BREAKAWAY, 4.9507095876704539, -0.0015964898230197848},
    {STSL_EV_STICK, 5.4258098360888650, 0.0042692413396497675},
    {STSL_EV_BREAKAWAY, 5.8197859532764126, 0.0042692413396497675},
    {STSL_EV_STICK, 6.3681701761992695, -0.0066499908012233828},
    {STSL_EV_BREAKAWAY, 6.6549291815505216, -0.0066499908012233828},
    {STSL_EV_STICK, 7.2272648324166112, 0.0095948287032288877},
    {STSL_EV_BREAKAWAY, 7.3970622816901430, 0.0095948287032288877},
    {STSL_EV_STICK, 7.9968403582814783, -0.012633583874010677},
    {STSL_EV_BREAKAWAY, 8.0738191341824970, -0.012633583874010677},
    {STSL_EV_REVERSAL, 8.7025063900817839, 0.015869703084007744},
    {STSL_EV_REVERSAL, 9.3565757251486526, -0.019195228862956436},
};
#define N_REF ((long)(sizeof janecek_ref / sizeof janecek_ref[0]))

#endif
