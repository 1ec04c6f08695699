/* modes.c - the one name table of the modes and event kinds, and the
 * solver's description of the modes (names, frozen flags, guard directions;
 * the guards themselves are in guards.c). */
#include "events/modes.h"

/* Each mode name is written once: both tables below use it. */
#define NAME_STUCK     "STUCK"
#define NAME_SLIP_POS  "SLIP_POS"
#define NAME_SLIP_NEG  "SLIP_NEG"
#define NAME_STOP_LOW  "STOP_LOW"
#define NAME_STOP_HIGH "STOP_HIGH"
#define NAME_SMOOTH    "SMOOTH"

static const char *const mode_names[STSL_N_MODES] = {
    [STSL_MODE_STUCK] = NAME_STUCK,         [STSL_MODE_SLIP_POS] = NAME_SLIP_POS,
    [STSL_MODE_SLIP_NEG] = NAME_SLIP_NEG,   [STSL_MODE_STOP_LOW] = NAME_STOP_LOW,
    [STSL_MODE_STOP_HIGH] = NAME_STOP_HIGH, [STSL_MODE_SMOOTH] = NAME_SMOOTH};
static const char *const kind_names[STSL_N_EVENT_KINDS] = {
    "stick",        "breakaway",    "reversal",      "impact",
    "stop_contact", "stop_release", "load_reversal", "input_step"};

/* Guard numbering and meaning: guards.h. */
static const stsl_mode_desc modes[STSL_N_MODES] = {
    [STSL_MODE_STUCK] = {NAME_STUCK, 1, 2, {STSL_GUARD_RISING, STSL_GUARD_RISING}},
    [STSL_MODE_SLIP_POS] = {NAME_SLIP_POS,
                            0,
                            3,
                            {STSL_GUARD_FALLING, STSL_GUARD_RISING, STSL_GUARD_BOTH}},
    [STSL_MODE_SLIP_NEG] = {NAME_SLIP_NEG,
                            0,
                            3,
                            {STSL_GUARD_RISING, STSL_GUARD_FALLING, STSL_GUARD_BOTH}},
    [STSL_MODE_STOP_LOW] = {NAME_STOP_LOW, 1, 1, {STSL_GUARD_RISING}},
    [STSL_MODE_STOP_HIGH] = {NAME_STOP_HIGH, 1, 1, {STSL_GUARD_FALLING}},
    [STSL_MODE_SMOOTH] = {NAME_SMOOTH, 0, 2, {STSL_GUARD_RISING, STSL_GUARD_FALLING}},
};

const char *const *stsl_mode_names(void)
{
    return mode_names;
}

const char *const *stsl_event_kind_names(void)
{
    return kind_names;
}

const stsl_mode_desc *stsl_element_modes(void)
{
    return modes;
}
