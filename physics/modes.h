/* modes.h - the modes of a friction contact with end stops and the kinds of
 * event that switch between them (SPEC §1.2), with their one name table.
 *
 * The numbers are fixed by the HDF5 layout (/trajectory/mode and
 * /events/kind store them; their names are written beside them). */
#ifndef STSL_MODES_H
#define STSL_MODES_H

#include "physics/contact.h"
#include "solver/hybrid.h"

enum stsl_mode {
    /* The friction states of the contact (physics/contact.h) ... */
    STSL_MODE_STUCK = STSL_CONTACT_STUCK,
    STSL_MODE_SLIP_POS = STSL_CONTACT_SLIP_POS,
    STSL_MODE_SLIP_NEG = STSL_CONTACT_SLIP_NEG,
    /* ... and at rest against a rigid stop. */
    STSL_MODE_STOP_LOW = 3,
    STSL_MODE_STOP_HIGH = 4,
    STSL_MODE_SMOOTH = 5, /* smooth friction laws: one continuous mode */
    /* In contact with a compliant stop (the body penetrates it and moves
     * under its force; friction acts as off the stop): the friction state
     * and the side. */
    STSL_MODE_CONTACT_LOW_STUCK = 6,
    STSL_MODE_CONTACT_LOW_SLIP_POS = 7,
    STSL_MODE_CONTACT_LOW_SLIP_NEG = 8,
    STSL_MODE_CONTACT_HIGH_STUCK = 9,
    STSL_MODE_CONTACT_HIGH_SLIP_POS = 10,
    STSL_MODE_CONTACT_HIGH_SLIP_NEG = 11,
    STSL_MODE_CONTACT_LOW_SMOOTH = 12,
    STSL_MODE_CONTACT_HIGH_SMOOTH = 13,
    STSL_N_MODES = 14,
    /* An element with rigid stops (or none) has only the first six: its
     * layout lists those, as before compliant stops existed. */
    STSL_N_RIGID_MODES = 6
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
    STSL_EV_CONTACT_BEGIN, /* a compliant stop: penetration begins (or resumes) */
    STSL_EV_CONTACT_END,   /* a compliant stop: its force has fallen to 0 */
    STSL_N_EVENT_KINDS,
    STSL_N_RIGID_EVENT_KINDS = STSL_EV_CONTACT_BEGIN /* kinds without compliant stops */
};

/* The STSL_N_MODES mode names ("STUCK", ...), index = mode. */
const char *const *stsl_mode_names(void);
/* The STSL_N_EVENT_KINDS event kind names ("stick", ...), index = kind,
 * then systems' "ambiguous" (index STSL_N_EVENT_KINDS). */
const char *const *stsl_event_kind_names(void);

/* The parts of a mode: its contact side (+1 CONTACT_HIGH_*, -1
 * CONTACT_LOW_*, 0 otherwise) and its friction state (STUCK, SLIP_POS,
 * SLIP_NEG or SMOOTH for a contact mode; the mode itself otherwise). */
int stsl_mode_contact_side(int mode);
int stsl_mode_friction(int mode);
/* The mode of friction state `friction` (STUCK, SLIP_*, SMOOTH) in contact
 * with the compliant stop `side` (0: not in contact: `friction` itself). */
int stsl_mode_in_contact(int friction, int side);

#endif
