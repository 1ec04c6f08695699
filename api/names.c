/* names.c - the one vocabulary of results: every name a quantity has in
 * the result files (HDF5 /trajectory, /events, /stats; MAT; CSV), the
 * study file (/study/summary), the C summary's statistics
 * (stsl_result_stat) and the Python package, with its unit and meaning,
 * behind stsl_names (include/stickslip.h).  docs/names.md lists this table
 * (test_names compares the two, and the names the files and the package
 * hold with it).  A name in <angle brackets> stands for each
 * member of a list the model has: <kind> its event kinds (stick,
 * breakaway, ...), <MODE> its modes (STUCK, SLIP_POS, ...), <column> its
 * trajectory columns, <body> and <contact> a system's members.  Units are
 * the kind of unit (the model's: m or rad, N or N·m, ...): time,
 * position, velocity, acceleration, force, energy, wall-clock seconds s,
 * the unit of the column named, or - for a count, flag or ratio. */
#include "include/stickslip.h"

/* Where a name is used: the result's samples, its events, its statistics,
 * a study's rows. */
#define TRAJ  "trajectory"
#define EV    "events"
#define STATS "stats"
#define STUDY "study"

static const stsl_name NAMES[] = {
    /* samples: /trajectory, MAT trajectory, CSV *_trajectory.csv, Result */
    {"t", "time", TRAJ ", " EV, "simulated time (of the sample, of the event)"},
    {"mode", "-", TRAJ, "mode number of the element (names: mode_names)"},
    {"x", "position", TRAJ ", " EV, "position or angle (an event's: just before)"},
    {"v", "velocity", TRAJ, "velocity"},
    {"a", "acceleration", TRAJ, "acceleration"},
    {"friction", "force", TRAJ ", " EV, "friction force or torque (an event's: just after)"},
    {"net_force", "force", TRAJ ", " EV, "non-friction net force (an event's: just after)"},
    {"stop_reaction", "force", TRAJ, "end-stop reaction"},
    {"x_base", "position", TRAJ, "base position"},
    {"v_base", "velocity", TRAJ, "base velocity"},
    {"z", "position", TRAJ, "bristle deflection (LuGre)"},
    {"slip_velocity", "velocity", TRAJ, "a system's contact slip velocity"},
    {"contact_mode", "-", TRAJ, "a system's contact mode number (names: mode_names)"},
    {"stop_mode", "-", TRAJ, "a system's stop mode number (names: mode_names)"},
    /* events: /events, MAT events, CSV *_events.csv, Result.events */
    {"kind", "-", EV, "event kind (stick, breakaway, reversal, impact, ...)"},
    {"mode_before", "-", EV, "mode just before the event"},
    {"mode_after", "-", EV, "mode just after the event"},
    {"v_before", "velocity", EV, "velocity just before the event"},
    {"v_after", "velocity", EV, "velocity just after the event (differs at an impact)"},
    {"subject", "-", EV, "a system's contact or stop the event is about (its name)"},
    {"index", "-", EV, "a system's event subject as its position in subject_names (-1: none)"},
    /* statistics: /stats and the root's attributes, MAT stats,
     * stsl_result_stat, Result.stats */
    {"complete", "-", STATS, "1 when the run reached t_end"},
    {"message", "-", STATS ", " STUDY, "why a run stopped early (empty when complete)"},
    {"steps", "-", STATS ", " STUDY, "integrator steps"},
    {"rhs_evals", "-", STATS ", " STUDY, "right-hand side evaluations"},
    {"guard_evals", "-", STATS, "guard (root function) evaluations"},
    {"segments", "-", STATS, "integration segments (mode entries, restarts)"},
    {"jac_evals", "-", STATS, "Jacobian evaluations"},
    {"events", "-", STATS ", " STUDY, "events recorded"},
    {"events_<kind>", "-", STATS ", " STUDY, "events of one kind"},
    {"time_<MODE>", "time", STATS ", " STUDY, "simulated time spent in one mode"},
    {"t_reached", "time", STATS ", " STUDY,
     "time of the last sample: t_end, or where the run stopped"},
    {"dissipated_energy", "energy", STATS ", " STUDY, "work of the friction force"},
    {"wall_seconds", "s", STATS ", " STUDY, "wall-clock time of the run"},
    {"verify", "-", STATS, "the run's own check: matched, mismatch or failed"},
    {"verify_rtol", "-", STATS, "rtol of the check run"},
    {"estimated_error_event_time", "time", STATS, "largest event time difference to the check run"},
    {"estimated_error_x", "position", STATS, "largest position difference to the check run"},
    {"estimated_error_v", "velocity", STATS, "largest velocity difference to the check run"},
    {"estimated_error_units", "-", STATS, "the units of the three estimated errors"},
    {"verify_first_difference", "-", STATS, "row of the first event that differs (mismatch)"},
    {"verify_message", "-", STATS, "what the check found, in words (C summary, Python)"},
    /* a study's rows: /study/summary, its CSV, ss.sweep, ss.study */
    {"status", "-", STUDY, "0 ok, 1 invalid configuration, 2 failed run, -1 not run yet"},
    {"first_<kind>", "time", STUDY, "time of the first event of one kind (NaN: none)"},
    {"last_<kind>", "time", STUDY, "time of the last event of one kind (NaN: none)"},
    {"stuck_fraction", "-", STUDY, "time in STUCK / t_reached"},
    {"stop_contact_time", "time", STUDY, "time at rest on an end stop (STOP_LOW + STOP_HIGH)"},
    {"<column>_final", "<column>", STUDY, "a column's value at t_reached"},
    {"max_abs_<column>", "<column>", STUDY, "largest absolute value of a column over the run"},
    {"x_final.<body>", "position", STUDY, "a system's body position at t_reached"},
    {"v_final.<body>", "velocity", STUDY, "a system's body velocity at t_reached"},
    {"stuck_fraction.<contact>", "-", STUDY, "time a system's contact was stuck / t_reached"},
};

int stsl_names(const stsl_name **table)
{
    if (table) *table = NAMES;
    return (int)(sizeof NAMES / sizeof NAMES[0]);
}
