/* modes.h - the modes of a friction contact with end stops and the kinds of
 * event that switch between them (SPEC §1.2), with their one name table.
 *
 * The numbers are fixed by the HDF5 layout (/trajectory/mode and
 * /events/kind store them; their names are written beside them). */
#ifndef STSL_MODES_H
#define STSL_MODES_H

#include "solver/hybrid.h"

enum stsl_mode {
    STSL_MODE_STUCK = 0,
    STSL_MODE_SLIP_POS = 1,
    STSL_MODE_SLIP_NEG = 2,
    STSL_MODE_STOP_LOW = 3,
    STSL_MODE_STOP_HIGH = 4,
    STSL_MODE_SMOOTH = 5, /* smooth friction laws: one continuous mode */
    STSL_N_MODES = 6
};

enum stsl_event_kind {
    STSL_EV_STICK = 0,
    STSL_EV_BREAKAWAY,
    STSL_EV_REVERSAL,
    STSL_EV_IMPACT,       /* bounce off a stop (rebound leaves it) */
    STSL_EV_STOP_CONTACT, /* comes to rest against a stop */
    STSL_EV_STOP_RELEASE,
    STSL_EV_LOAD_REVERSAL,
    STSL_EV_INPUT_STEP,
    STSL_N_EVENT_KINDS
};

/* The STSL_N_MODES mode names ("STUCK", ...), index = mode. */
const char *const *stsl_mode_names(void);
/* The STSL_N_EVENT_KINDS event kind names ("stick", ...), index = kind. */
const char *const *stsl_event_kind_names(void);
/* The STSL_N_MODES mode descriptions for the solver (names, frozen flags,
 * guard directions; guards.h numbers the guards). */
const stsl_mode_desc *stsl_element_modes(void);

#endif
