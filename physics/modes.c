/* modes.c - the one name table of the modes and event kinds, and the
 * parts of a contact mode. */
#include "physics/modes.h"

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

const char *const *stsl_mode_names(void)
{
    return mode_names;
}

const char *const *stsl_event_kind_names(void)
{
    return kind_names;
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
