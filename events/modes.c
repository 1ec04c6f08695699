/* modes.c - the one name table of the modes and event kinds, and the
 * solver's description of the modes (frozen flags, guard directions; the
 * guards themselves are in guards.c). */
#include "events/modes.h"

static const char *const mode_names[STSL_N_MODES] = {
    [STSL_MODE_STUCK] = "STUCK",
    [STSL_MODE_SLIP_POS] = "SLIP_POS",
    [STSL_MODE_SLIP_NEG] = "SLIP_NEG",
    [STSL_MODE_STOP_LOW] = "STOP_LOW",
    [STSL_MODE_STOP_HIGH] = "STOP_HIGH",
    [STSL_MODE_SMOOTH] = "SMOOTH",
    [STSL_MODE_CONTACT_LOW_STUCK] = "CONTACT_LOW_STUCK",
    [STSL_MODE_CONTACT_LOW_SLIP_POS] = "CONTACT_LOW_SLIP_POS",
    [STSL_MODE_CONTACT_LOW_SLIP_NEG] = "CONTACT_LOW_SLIP_NEG",
    [STSL_MODE_CONTACT_HIGH_STUCK] = "CONTACT_HIGH_STUCK",
    [STSL_MODE_CONTACT_HIGH_SLIP_POS] = "CONTACT_HIGH_SLIP_POS",
    [STSL_MODE_CONTACT_HIGH_SLIP_NEG] = "CONTACT_HIGH_SLIP_NEG",
    [STSL_MODE_CONTACT_LOW_SMOOTH] = "CONTACT_LOW_SMOOTH",
    [STSL_MODE_CONTACT_HIGH_SMOOTH] = "CONTACT_HIGH_SMOOTH"};
/* One more than the element's kinds: "ambiguous", which only systems of
 * bodies record (models/multibody.h, STSL_EV_AMBIGUOUS); the element's
 * layout lists the first STSL_N_EVENT_KINDS. */
static const char *const kind_names[STSL_N_EVENT_KINDS + 1] = {
    "stick",         "breakaway",  "reversal",      "impact",      "stop_contact", "stop_release",
    "load_reversal", "input_step", "contact_begin", "contact_end", "ambiguous"};

#define R STSL_GUARD_RISING
#define F STSL_GUARD_FALLING
#define B STSL_GUARD_BOTH
/* The contact modes (guards.h): stuck ones watch breakaway with the stop's
 * force included; slip ones v, the contact's end (the stop's guard falling
 * at the upper stop, rising at the lower one) and the load. */
#define CONTACT_MODES                                                                              \
    [STSL_MODE_CONTACT_LOW_STUCK] = {1, 2, (const int[]){R, R}},                                   \
    [STSL_MODE_CONTACT_LOW_SLIP_POS] = {0, 3, (const int[]){F, R, B}},                             \
    [STSL_MODE_CONTACT_LOW_SLIP_NEG] = {0, 3, (const int[]){R, R, B}},                             \
    [STSL_MODE_CONTACT_HIGH_STUCK] = {1, 2, (const int[]){R, R}},                                  \
    [STSL_MODE_CONTACT_HIGH_SLIP_POS] = {0, 3, (const int[]){F, F, B}},                            \
    [STSL_MODE_CONTACT_HIGH_SLIP_NEG] = {0, 3, (const int[]){R, F, B}},                            \
    [STSL_MODE_CONTACT_LOW_SMOOTH] = {0, 1, (const int[]){R}},                                     \
    [STSL_MODE_CONTACT_HIGH_SMOOTH] = {0, 1, (const int[]){F}}

/* Guard numbering and meaning: guards.h. */
static const stsl_mode_desc rigid_modes[STSL_N_MODES] = {
    [STSL_MODE_STUCK] = {1, 2, (const int[]){R, R}},
    [STSL_MODE_SLIP_POS] = {0, 3, (const int[]){F, R, B}},
    [STSL_MODE_SLIP_NEG] = {0, 3, (const int[]){R, F, B}},
    [STSL_MODE_STOP_LOW] = {1, 1, (const int[]){R}},
    [STSL_MODE_STOP_HIGH] = {1, 1, (const int[]){F}},
    [STSL_MODE_SMOOTH] = {0, 2, (const int[]){R, F}},
    CONTACT_MODES};
/* With compliant stops a slip mode also watches the stop behind it (guard
 * 3): a body that left a stop while still inside it (its force fell to 0
 * before the penetration did) comes back into contact if it turns back. */
static const stsl_mode_desc compliant_modes[STSL_N_MODES] = {
    [STSL_MODE_STUCK] = {1, 2, (const int[]){R, R}},
    [STSL_MODE_SLIP_POS] = {0, 4, (const int[]){F, R, B, F}},
    [STSL_MODE_SLIP_NEG] = {0, 4, (const int[]){R, F, B, R}},
    [STSL_MODE_STOP_LOW] = {1, 1, (const int[]){R}},
    [STSL_MODE_STOP_HIGH] = {1, 1, (const int[]){F}},
    [STSL_MODE_SMOOTH] = {0, 2, (const int[]){R, F}},
    CONTACT_MODES};
#undef R
#undef F
#undef B

const char *const *stsl_mode_names(void)
{
    return mode_names;
}

const char *const *stsl_event_kind_names(void)
{
    return kind_names;
}

const stsl_mode_desc *stsl_element_modes_for(int compliant)
{
    return compliant ? compliant_modes : rigid_modes;
}

const stsl_mode_desc *stsl_element_modes(void)
{
    return rigid_modes;
}

int stsl_mode_contact_side(int mode)
{
    switch (mode) {
    case STSL_MODE_CONTACT_LOW_STUCK:
    case STSL_MODE_CONTACT_LOW_SLIP_POS:
    case STSL_MODE_CONTACT_LOW_SLIP_NEG:
    case STSL_MODE_CONTACT_LOW_SMOOTH:
        return -1;
    case STSL_MODE_CONTACT_HIGH_STUCK:
    case STSL_MODE_CONTACT_HIGH_SLIP_POS:
    case STSL_MODE_CONTACT_HIGH_SLIP_NEG:
    case STSL_MODE_CONTACT_HIGH_SMOOTH:
        return +1;
    default:
        return 0;
    }
}

int stsl_mode_friction(int mode)
{
    switch (mode) {
    case STSL_MODE_CONTACT_LOW_STUCK:
    case STSL_MODE_CONTACT_HIGH_STUCK:
        return STSL_MODE_STUCK;
    case STSL_MODE_CONTACT_LOW_SLIP_POS:
    case STSL_MODE_CONTACT_HIGH_SLIP_POS:
        return STSL_MODE_SLIP_POS;
    case STSL_MODE_CONTACT_LOW_SLIP_NEG:
    case STSL_MODE_CONTACT_HIGH_SLIP_NEG:
        return STSL_MODE_SLIP_NEG;
    case STSL_MODE_CONTACT_LOW_SMOOTH:
    case STSL_MODE_CONTACT_HIGH_SMOOTH:
        return STSL_MODE_SMOOTH;
    default:
        return mode;
    }
}

int stsl_mode_in_contact(int friction, int side)
{
    static const int low[] = {STSL_MODE_CONTACT_LOW_STUCK, STSL_MODE_CONTACT_LOW_SLIP_POS,
                              STSL_MODE_CONTACT_LOW_SLIP_NEG};
    static const int high[] = {STSL_MODE_CONTACT_HIGH_STUCK, STSL_MODE_CONTACT_HIGH_SLIP_POS,
                               STSL_MODE_CONTACT_HIGH_SLIP_NEG};
    if (side == 0) return friction;
    if (friction == STSL_MODE_SMOOTH)
        return side > 0 ? STSL_MODE_CONTACT_HIGH_SMOOTH : STSL_MODE_CONTACT_LOW_SMOOTH;
    if (friction < STSL_MODE_STUCK || friction > STSL_MODE_SLIP_NEG) return friction;
    return side > 0 ? high[friction] : low[friction];
}
