/* test_config.c - the YAML configuration: valid files with every field
 * checked, defaults, one malformed file per validation rule (code, key path,
 * line, single line), --set overrides and the to_yaml round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/config/config.h"
#include "test/testutil.h"

/* The reference configuration of the brief (Janecek's chirp). */
static const char *FULL = "description: \"free text\"\n"
                          "domain: translational\n"
                          "element:\n"
                          "  mass: 100.0\n"
                          "  spring: {stiffness: 8882.64, free_position: 0.0}\n"
                          "  damper: {coefficient: 200.0}\n"
                          "friction:\n"
                          "  law: coulomb\n"
                          "  dynamic: 18.0\n"
                          "  static_ratio: 1.4444444444\n"
                          "  efficiency_opposing: 1.0\n"
                          "  efficiency_aiding: 1.0\n"
                          "end_stops: {min: -0.2, max: 0.2, restitution: 0.0}\n"
                          "inputs:\n"
                          "  active_force: {type: constant, value: 0.0}\n"
                          "  load:         {type: sine, amplitude: 50.0, frequency: 0.5, phase: "
                          "0.0, offset: 0.0}\n"
                          "  base_motion:  {type: janecek_chirp, amplitude: 0.05, f_max: 0.825, "
                          "t_max: 9.5}\n"
                          "  anchor_motion: {type: constant, value: 0.0}\n"
                          "initial: {position: 0.0, velocity: 0.0}\n"
                          "simulation:\n"
                          "  t_end: 9.5\n"
                          "  output_step: 0.001\n"
                          "  rtol: 1.0e-10\n"
                          "  atol: 1.0e-12\n"
                          "  max_events: 100000\n"
                          "output: {file: results/janecek_chirp.h5}\n";

/* The smallest valid configuration: three lines, every other key defaulted. */
static const char *MIN = "element: {mass: 2}\n"
                         "friction: {dynamic: 3}\n"
                         "simulation: {t_end: 4}\n";

static int load(const char *text, const char *const *sets, int n, stsl_config *cfg, stsl_error *err)
{
    return stsl_config_load_string(text, "t.yaml", NULL, sets, n, cfg, err);
}

static void test_full(void **state)
{
    (void)state;
    stsl_config c;
    stsl_error err = {0};
    assert_int_equal(load(FULL, NULL, 0, &c, &err), STSL_OK);
    const stsl_element_params *e = &c.element;
    assert_string_equal(c.source, "<string>");
    assert_string_equal(c.name, "t");
    assert_int_equal(e->domain, STSL_DOMAIN_TRANSLATIONAL);
    assert_true(e->mass == 100.0);
    assert_true(e->stiffness == 8882.64);
    assert_true(e->free_position == 0.0);
    assert_true(e->damping == 200.0);
    assert_int_equal(e->friction.law, STSL_LAW_COULOMB);
    assert_true(e->friction.dynamic == 18.0);
    assert_true(e->friction.static_ratio == 1.4444444444);
    assert_true(e->friction.eff_opposing == 1.0);
    assert_true(e->friction.eff_aiding == 1.0);
    assert_int_equal(e->has_stops, 1);
    assert_true(e->x_min == -0.2 && e->x_max == 0.2 && e->restitution == 0.0);
    assert_int_equal(e->active_force.type, STSL_SIG_CONSTANT);
    assert_true(e->active_force.value == 0.0);
    assert_int_equal(e->load.type, STSL_SIG_SINE);
    assert_true(e->load.amplitude == 50.0 && e->load.frequency == 0.5);
    assert_true(e->load.phase == 0.0 && e->load.offset == 0.0);
    assert_int_equal(e->base_motion.type, STSL_SIG_JANECEK_CHIRP);
    assert_true(e->base_motion.amplitude == 0.05);
    assert_true(e->base_motion.f_max == 0.825 && e->base_motion.t_max == 9.5);
    assert_int_equal(e->has_anchor, 1);
    assert_int_equal(e->anchor_motion.type, STSL_SIG_CONSTANT);
    assert_true(e->x0 == 0.0 && e->v0 == 0.0);
    assert_true(c.sim.t_end == 9.5 && c.sim.output_step == 0.001);
    assert_true(c.sim.rtol == 1e-10 && c.sim.atol == 1e-12);
    assert_int_equal(c.sim.max_events, 100000);
    assert_int_equal(c.sim.max_same_instant, 0);
    assert_null(c.sim.progress);
    assert_string_equal(c.output_file, "results/janecek_chirp.h5");
    stsl_config_free(&c);
}

static char g_dir[256];

static void write_table(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    assert_int_equal(tu_write_file(path, text), 0);
}

/* Header, comments, blank lines and CRLF are skipped; 3 data rows. */
static const char *TABLE = "time,force\r\n# a comment\n\n0, 1.5\n0.5,2\n  1.0 , -3e1\n";

static const char *STRIBECK = "domain: rotational\n"
                              "element: {mass: 0.5}\n"
                              "friction:\n"
                              "  law: stribeck\n"
                              "  dynamic: 18\n"
                              "  static: 26\n"
                              "  efficiency_opposing: 0.8\n"
                              "  efficiency_aiding: -0.5\n"
                              "  stribeck_velocity: 0.001\n"
                              "inputs:\n"
                              "  load: {type: table, file: tab.csv}\n"
                              "  base_motion: {type: table, file: tab.csv}\n"
                              "  active_force: {type: table, file: tab.csv, interpolation: cubic}\n"
                              "  anchor_motion: {type: step, time: 1, after: 2}\n"
                              "initial: {velocity: -0.25}\n"
                              "simulation: {t_end: 1, max_events: 7}\n";

static void check_table(const stsl_signal_spec *s, stsl_interp interp)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tab.csv", g_dir);
    assert_int_equal(s->type, STSL_SIG_TABLE);
    assert_string_equal(s->file, path);
    assert_int_equal(s->interpolation, interp);
    assert_int_equal(s->n, 3);
    assert_true(s->tt[0] == 0.0 && s->tt[1] == 0.5 && s->tt[2] == 1.0);
    assert_true(s->vv[0] == 1.5 && s->vv[1] == 2.0 && s->vv[2] == -30.0);
}

static void test_stribeck_table_rotational(void **state)
{
    (void)state;
    stsl_config c;
    stsl_error err = {0};
    write_table("tab.csv", TABLE);
    int rc = stsl_config_load_string(STRIBECK, NULL, g_dir, NULL, 0, &c, &err);
    assert_int_equal(rc, STSL_OK);
    const stsl_element_params *e = &c.element;
    assert_string_equal(c.name, "config");
    assert_int_equal(e->domain, STSL_DOMAIN_ROTATIONAL);
    assert_int_equal(e->friction.law, STSL_LAW_STRIBECK);
    assert_true(e->friction.static_ratio == 26.0 / 18.0);
    assert_true(e->friction.eff_opposing == 0.8 && e->friction.eff_aiding == -0.5);
    assert_true(e->friction.stribeck_velocity == 0.001);
    assert_true(e->friction.stribeck_exponent == 2.0);
    check_table(&e->load, STSL_INTERP_LINEAR);
    check_table(&e->base_motion, STSL_INTERP_CUBIC);
    check_table(&e->active_force, STSL_INTERP_CUBIC);
    assert_int_equal(e->has_anchor, 1);
    assert_int_equal(e->anchor_motion.type, STSL_SIG_STEP);
    assert_true(e->anchor_motion.time == 1.0 && e->anchor_motion.before == 0.0);
    assert_true(e->anchor_motion.after == 2.0);
    assert_true(e->x0 == 0.0 && e->v0 == -0.25);
    assert_int_equal(c.sim.max_events, 7);
    stsl_config_free(&c);
    stsl_config_free(&c); /* twice: the first call leaves nothing behind */
}

/* The file loader: name, source, and tables relative to the file. */
static void test_file_loader(void **state)
{
    (void)state;
    char path[512];
    stsl_config c;
    stsl_error err = {0};
    write_table("tab.csv", TABLE);
    snprintf(path, sizeof path, "%s/my.case.yaml", g_dir);
    assert_int_equal(tu_write_file(path, STRIBECK), 0);
    assert_int_equal(stsl_config_load(path, NULL, 0, &c, &err), STSL_OK);
    assert_string_equal(c.source, path);
    assert_string_equal(c.name, "my.case");
    check_table(&c.element.load, STSL_INTERP_LINEAR);
    stsl_config_free(&c);
}

static void test_defaults(void **state)
{
    (void)state;
    stsl_config c;
    stsl_error err = {0};
    assert_int_equal(load(MIN, NULL, 0, &c, &err), STSL_OK);
    const stsl_element_params *e = &c.element;
    assert_int_equal(e->domain, STSL_DOMAIN_TRANSLATIONAL);
    assert_true(e->mass == 2.0);
    assert_true(e->stiffness == 0.0 && e->free_position == 0.0 && e->damping == 0.0);
    assert_int_equal(e->friction.law, STSL_LAW_COULOMB);
    assert_true(e->friction.dynamic == 3.0 && e->friction.static_ratio == 1.0);
    assert_true(e->friction.eff_opposing == 1.0 && e->friction.eff_aiding == 1.0);
    assert_int_equal(e->has_stops, 0);
    assert_int_equal(e->has_anchor, 0);
    const stsl_signal_spec *s[4] = {&e->active_force, &e->load, &e->base_motion, &e->anchor_motion};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(s[i]->type, STSL_SIG_CONSTANT);
        assert_true(s[i]->value == 0.0);
        assert_null(s[i]->tt);
    }
    assert_true(e->x0 == 0.0 && e->v0 == 0.0);
    assert_true(c.sim.t_end == 4.0 && c.sim.output_step == 0.001);
    /* No atol given: 0, derived from rtol per state component at run time
     * (issue 11; the old default was a fixed 1e-12). */
    assert_true(c.sim.rtol == 1e-10 && c.sim.atol == 0.0);
    assert_int_equal(c.verify, STSL_VERIFY_OFF);
    assert_int_equal(c.sim.max_events, 100000);
    assert_int_equal(c.scheme.kind, STSL_SCHEME_EVENT_DRIVEN);
    assert_true(c.scheme.step == 0.0 && c.scheme.karnopp_band == 0.0);
    assert_string_equal(c.output_file, "");
    stsl_config_free(&c);

    /* Optional keys inside optional sections default too. */
    const char *partial = "element: {mass: 1, spring: {stiffness: 5}}\n"
                          "friction: {dynamic: 1, law: stribeck, stribeck_velocity: 0.1}\n"
                          "end_stops: {min: -1, max: 1}\n"
                          "inputs: {load: {type: sine, amplitude: 1, frequency: 2},"
                          " base_motion: {type: ramp, slope: 3}}\n"
                          "simulation: {t_end: 1}\n";
    assert_int_equal(load(partial, NULL, 0, &c, &err), STSL_OK);
    assert_true(c.element.stiffness == 5.0 && c.element.free_position == 0.0);
    assert_true(c.element.friction.stribeck_exponent == 2.0);
    assert_true(c.element.restitution == 0.0 && c.element.has_stops == 1);
    assert_true(c.element.load.phase == 0.0 && c.element.load.offset == 0.0);
    assert_true(c.element.base_motion.start_time == 0.0 && c.element.base_motion.initial == 0.0);
    assert_true(c.element.base_motion.slope == 3.0);
    stsl_config_free(&c);
}

/* ------------------------------------------------------------ error cases */

static void check_message(const stsl_error *err, const char *where, const char *path,
                          const char *what)
{
    if (!strstr(err->msg, where) || (path && !strstr(err->msg, path)) ||
        (what && !strstr(err->msg, what)))
        fail_msg("message '%s' lacks '%s' / '%s' / '%s'", err->msg, where, path ? path : "",
                 what ? what : "");
    assert_null(strchr(err->msg, '\n'));
}

/* `text` must be refused with a message naming `path` at t.yaml:`line`. */
static void expect_error(const char *text, int line, const char *path, const char *what)
{
    char where[64];
    stsl_config c;
    stsl_error err = {0};
    int rc = load(text, NULL, 0, &c, &err);
    if (rc != STSL_EINPUT) fail_msg("accepted (rc %d) for:\n%s", rc, text);
    assert_int_equal(err.code, STSL_EINPUT);
    /* SHOW=1 prints every rejection, to read them as a user would. */
    if (getenv("SHOW")) printf("%s\n", err.msg);
    snprintf(where, sizeof where, "t.yaml:%d: ", line);
    check_message(&err, where, path, what);
    assert_null(c.element.load.tt); /* nothing to free after a failure */
}

typedef struct bad_case {
    const char *text;
    int line;
    const char *path;
    const char *what;
} bad_case;

#define BASE "element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n"

static const bad_case BAD[] = {
    /* unparsable YAML */
    {"element: {mass: 1}\nfriction: dynamic: 1\n", 2, NULL, "invalid YAML"},
    {"element: [1, 2\n", 2, NULL, "invalid YAML"},
    /* top level */
    {"- 1\n- 2\n", 1, "(top level)", "expected a mapping"},
    {"", 1, "(top level)", "empty"},
    {BASE "---\n" BASE, 4, "(top level)", "one YAML document"},
    /* unknown keys, at every level */
    {BASE "colour: red\n", 4, "colour", "allowed: description, domain"},
    {"element:\n  mass: 1\n  spring:\n    stiffness: 1\n    lenght: 2\n"
     "friction: {dynamic: 1}\nsimulation: {t_end: 1}\n",
     5, "element.spring.lenght", "allowed: stiffness, free_position"},
    {BASE "inputs:\n  load: {type: sine, amplitude: 1, frequency: 1, value: 3}\n", 5,
     "inputs.load.value", "allowed: type, amplitude, frequency, phase, offset"},
    {BASE "inputs:\n  force: {type: constant, value: 1}\n", 5, "inputs.force", "unknown key"},
    /* duplicate key */
    {BASE "element: {mass: 2}\n", 4, "element", "duplicate key (first given on line 1)"},
    {"element: {mass: 1, mass: 2}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n", 1,
     "element.mass", "duplicate"},
    /* wrong types */
    {"element: {mass: heavy}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n", 1, "element.mass",
     "expected a number > 0 (got 'heavy')"},
    {"element: {mass: 1}\nfriction: {dynamic: {value: 1}}\nsimulation: {t_end: 1}\n", 2,
     "friction.dynamic", "got a mapping"},
    {"element: {mass: '1'}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n", 1, "element.mass",
     "expected a number"},
    {"element: [1]\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n", 1, "element",
     "expected a mapping (got a sequence)"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: }\n", 3, "simulation.t_end",
     "got nothing"},
    {BASE "output: {file: {a: 1}}\n", 4, "output.file", "expected a string"},
    /* missing required keys: named, at the line of the parent mapping */
    {"friction: {dynamic: 1}\nelement:\n  spring: {stiffness: 1}\nsimulation: {t_end: 1}\n", 3,
     "element.mass", "missing required key"},
    {"\n\nelement: {mass: 1}\nfriction: {dynamic: 1}\n", 3, "simulation", "missing required"},
    {"element: {mass: 1}\nfriction: {law: coulomb}\nsimulation: {t_end: 1}\n", 2,
     "friction.dynamic", "missing required key (a number >= 0)"},
    {"element: {mass: 1, spring: {free_position: 1}}\nfriction: {dynamic: 1}\n"
     "simulation: {t_end: 1}\n",
     1, "element.spring.stiffness", "missing"},
    /* out of range */
    {"element: {mass: -1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n", 1, "element.mass",
     "must be > 0 (got -1)"},
    {"element: {mass: 1}\nfriction:\n  dynamic: 1\n  efficiency_opposing: 1.5\n"
     "simulation: {t_end: 1}\n",
     4, "friction.efficiency_opposing", "must be in (0, 1] (got 1.5)"},
    {"element: {mass: 1}\nfriction:\n  dynamic: 1\n  efficiency_opposing: 0\n"
     "simulation: {t_end: 1}\n",
     4, "friction.efficiency_opposing", "must be in (0, 1]"},
    {"element: {mass: 1}\nfriction: {dynamic: 1, efficiency_aiding: 1.01}\n"
     "simulation: {t_end: 1}\n",
     2, "friction.efficiency_aiding", "must be <= 1"},
    {"element: {mass: 1}\nfriction: {dynamic: 1, static_ratio: 0.9}\nsimulation: {t_end: 1}\n", 2,
     "friction.static_ratio", "must be >= 1"},
    {"element: {mass: 1, damper: {coefficient: -2}}\nfriction: {dynamic: 1}\n"
     "simulation: {t_end: 1}\n",
     1, "element.damper.coefficient", "must be >= 0"},
    {"element: {mass: 1}\nfriction: {dynamic: -1}\nsimulation: {t_end: 1}\n", 2, "friction.dynamic",
     "must be >= 0"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1, rtol: 0.1}\n", 3,
     "simulation.rtol", "must be in [1e-14, 0.01]"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1, atol: 0}\n", 3,
     "simulation.atol", "must be > 0"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 0}\n", 3, "simulation.t_end",
     "must be > 0"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1, output_step: -1}\n", 3,
     "simulation.output_step", "must be >= 0"},
    {BASE "end_stops: {min: 0, max: 1, restitution: 2}\n", 4, "end_stops.restitution",
     "must be in [0, 1]"},
    /* NaN and infinity */
    {"element: {mass: .nan}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n", 1, "element.mass",
     "must be a finite number"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: .inf}\n", 3,
     "simulation.t_end", "must be a finite number"},
    {"element: {mass: 1e999}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n", 1, "element.mass",
     "must be a finite number"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n"
     "initial: {position: -.Inf}\n",
     4, "initial.position", "must be a finite number"},
    /* static: either static or static_ratio; static >= dynamic > 0 */
    {"element: {mass: 1}\nfriction:\n  dynamic: 1\n  static_ratio: 2\n  static: 2\n"
     "simulation: {t_end: 1}\n",
     5, "friction.static", "not both"},
    {"element: {mass: 1}\nfriction: {dynamic: 2, static: 1}\nsimulation: {t_end: 1}\n", 2,
     "friction.static", "must be >= 2 (got 1)"},
    {"element: {mass: 1}\nfriction: {dynamic: 0, static: 1}\nsimulation: {t_end: 1}\n", 2,
     "friction.static", "needs friction.dynamic > 0"},
    /* stribeck keys */
    {"element: {mass: 1}\nfriction:\n  dynamic: 1\n  stribeck_velocity: 0.1\n"
     "simulation: {t_end: 1}\n",
     4, "friction.stribeck_velocity", "only allowed with friction.law: stribeck"},
    {"element: {mass: 1}\nfriction: {dynamic: 1, law: coulomb, stribeck_exponent: 2}\n"
     "simulation: {t_end: 1}\n",
     2, "friction.stribeck_exponent", "only allowed"},
    {"element: {mass: 1}\nfriction: {dynamic: 1, law: stribeck}\nsimulation: {t_end: 1}\n", 2,
     "friction.stribeck_velocity", "missing required key (a number > 0)"},
    {"element: {mass: 1}\nfriction:\n  dynamic: 1\n  law: stribeck\n  stribeck_velocity: 1\n"
     "  stribeck_exponent: 0\nsimulation: {t_end: 1}\n",
     6, "friction.stribeck_exponent", "must be > 0"},
    /* enumerations */
    {"element: {mass: 1}\nfriction: {dynamic: 1, law: viscous}\nsimulation: {t_end: 1}\n", 2,
     "friction.law",
     "must be one of: coulomb, stribeck, simscape, 20sim_c, 20sim_v, 20sim_cv, 20sim_scvs, lugre "
     "(got 'viscous')"},
    {"domain: linear\n" BASE, 1, "domain", "must be one of: translational, rotational"},
    /* signals */
    {BASE "inputs:\n  load: {type: square, amplitude: 1}\n", 5, "inputs.load.type",
     "must be one of: constant, step, ramp, sine, janecek_chirp, linear_chirp, table"},
    {BASE "inputs:\n  load: {amplitude: 1}\n", 5, "inputs.load.type", "missing required key"},
    {BASE "inputs:\n  load: 5\n", 5, "inputs.load", "expected a signal mapping"},
    {BASE "inputs:\n  base_motion:\n    type: sine\n    amplitude: 1\n", 6,
     "inputs.base_motion.frequency", "missing required key (a number > 0)"},
    {BASE "inputs:\n  load: {type: sine, amplitude: 1, frequency: 0}\n", 5, "inputs.load.frequency",
     "must be > 0"},
    {BASE "inputs:\n  load: {type: step, time: 1}\n", 5, "inputs.load.after", "missing"},
    {BASE "inputs:\n  load: {type: linear_chirp, amplitude: 1, f0: -1, f1: 1, t1: 1}\n", 5,
     "inputs.load.f0", "must be >= 0"},
    {BASE "inputs:\n  load: {type: janecek_chirp, amplitude: 1, f_max: 1, t_max: 0}\n", 5,
     "inputs.load.t_max", "must be > 0"},
    {BASE "inputs:\n  load: {type: table}\n", 5, "inputs.load.file", "missing required key"},
    {BASE "inputs:\n  load: {type: table, file: /nonexistent/x.csv}\n", 5, "inputs.load.file",
     "cannot open /nonexistent/x.csv: No such file or directory"},
    {BASE "inputs:\n  load: {type: table, file: /dev/null, interpolation: spline}\n", 5,
     "inputs.load.interpolation", "must be one of: linear, cubic"},
    /* end stops and the initial position */
    {BASE "end_stops: {min: 1, max: 1}\n", 4, "end_stops.max", "must be > end_stops.min"},
    {BASE "end_stops:\n  min: 1\n", 5, "end_stops.max", "missing required key"},
    {BASE "end_stops: {min: -1, max: 1}\ninitial: {position: 2}\n", 5, "initial.position",
     "must lie within the end stops [-1, 1] (got 2)"},
    {BASE "end_stops: {min: 0.5, max: 1}\n", 1, "initial.position", "must lie within"},
    /* max_events */
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1, max_events: 2.5}\n", 3,
     "simulation.max_events", "must be a positive integer"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1, max_events: 0}\n", 3,
     "simulation.max_events", "must be a positive integer"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1, max_events: many}\n", 3,
     "simulation.max_events", "expected a number"},
/* simulation.scheme and its keys */
#define SIMH "element: {mass: 1}\nfriction: {dynamic: 1}\nsimulation:\n  t_end: 1\n"
    {SIMH "  scheme: euler\n", 5, "simulation.scheme",
     "must be one of: event_driven, karnopp, fixed_step_hybrid, smooth_rk4"},
    {SIMH "  scheme: karnopp\n", 4, "simulation.step", "missing required key (a number > 0)"},
    {SIMH "  scheme: karnopp\n  step: 0\n", 6, "simulation.step", "must be > 0"},
    {SIMH "  scheme: karnopp\n  step: 2\n", 6, "simulation.step", "must be in (0, t_end = 1]"},
    {SIMH "  step: 0.001\n", 5, "simulation.step", "only for the fixed-step schemes"},
    {SIMH "  scheme: karnopp\n  step: 1e-3\n  karnopp_band: -1\n", 7, "simulation.karnopp_band",
     "must be > 0"},
    {SIMH "  scheme: fixed_step_hybrid\n  step: 1e-3\n  karnopp_band: 1e-3\n", 7,
     "simulation.karnopp_band", "only for simulation.scheme: karnopp"},
    {SIMH "  scheme: karnopp\n  step: 1e-3\n  regularisation_velocity: 1e-3\n", 7,
     "simulation.regularisation_velocity", "only for simulation.scheme: smooth_rk4"},
    {SIMH "  scheme: smooth_rk4\n  step: 1e-3\n  regularisation_velocity: 0\n", 7,
     "simulation.regularisation_velocity", "must be > 0"},
    {"element: {mass: 1}\nfriction: {law: 20sim_v, d: 1}\n"
     "simulation: {t_end: 1, scheme: karnopp, step: 0.01}\n",
     3, "simulation.scheme", "karnopp needs a hybrid friction law"},
    {"element: {mass: 1}\nfriction: {law: 20sim_v, d: 1}\n"
     "simulation: {t_end: 1, scheme: smooth_rk4, step: 0.01, regularisation_velocity: 1}\n",
     3, "simulation.regularisation_velocity", "with a hybrid friction law"},
    /* description must be text */
    {"description: {a: 1}\n" BASE, 1, "description", "expected a string"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++)
        expect_error(BAD[i].text, BAD[i].line, BAD[i].path, BAD[i].what);
}

static void test_missing_file(void **state)
{
    (void)state;
    stsl_config c;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load("/nonexistent/dir/x.yaml", NULL, 0, &c, &err), STSL_EINPUT);
    check_message(&err, "cannot open /nonexistent/dir/x.yaml", NULL, "No such file or directory");
}

/* A bad table is reported at its own line; the config names the key. */
static void expect_table_error(const char *table, int line, const char *what)
{
    char text[1024], where[512];
    stsl_config c;
    stsl_error err = {0};
    write_table("bad.csv", table);
    snprintf(text, sizeof text, BASE "inputs: {load: {type: table, file: bad.csv}}\n");
    assert_int_equal(stsl_config_load_string(text, "t.yaml", g_dir, NULL, 0, &c, &err),
                     STSL_EINPUT);
    snprintf(where, sizeof where, "%s/bad.csv:%d: inputs.load.file: ", g_dir, line);
    check_message(&err, where, NULL, what);
}

static void test_table_errors(void **state)
{
    (void)state;
    expect_table_error("t,v\n0,1\n0,2\n", 3, "strictly increasing");
    expect_table_error("0,1\n2,1\n1,2\n", 3, "strictly increasing");
    expect_table_error("# only one\n0,1\n", 2, "at least 2 data rows (found 1)");
    expect_table_error("", 1, "at least 2 data rows (found 0)");
    expect_table_error("0,1\n1,x\n", 2, "expected two numbers");
    expect_table_error("0,1\nt,v\n", 2, "expected two numbers");
    expect_table_error("0,1,2\n1,2,3\n", 1, "expected two numbers");
    expect_table_error("0 1\n1 2\n", 2, "expected two numbers"); /* line 1 reads as a header */
    expect_table_error("0,1\n1,nan\n", 2, "finite");
    expect_table_error("0,1\n1,1e999\n", 2, "finite");
}

/* ---------------------------------------------------------------- --set */

static void test_set_scalar_and_create(void **state)
{
    (void)state;
    stsl_config c;
    stsl_error err = {0};
    const char *sets[] = {"simulation.t_end=2", "element.damper.coefficient=7",
                          "simulation.max_events=12", "output.file=out dir/r.h5"};
    assert_int_equal(load(MIN, sets, 4, &c, &err), STSL_OK);
    assert_true(c.sim.t_end == 2.0);
    assert_true(c.element.damping == 7.0);
    assert_int_equal(c.sim.max_events, 12);
    assert_string_equal(c.output_file, "out dir/r.h5");
    stsl_config_free(&c);
    /* Later overrides win over earlier ones. */
    const char *twice[] = {"element.mass=5", "element.mass=6"};
    assert_int_equal(load(MIN, twice, 2, &c, &err), STSL_OK);
    assert_true(c.element.mass == 6.0);
    stsl_config_free(&c);
}

static void test_set_signal(void **state)
{
    (void)state;
    stsl_config c;
    stsl_error err = {0};
    const char *sets[] = {"inputs.load={type: sine, amplitude: 1, frequency: 2}"};
    assert_int_equal(load(FULL, sets, 1, &c, &err), STSL_OK);
    assert_int_equal(c.element.load.type, STSL_SIG_SINE);
    assert_true(c.element.load.amplitude == 1.0 && c.element.load.frequency == 2.0);
    stsl_config_free(&c);
    /* Replacing a whole signal drops the keys of the old one. */
    const char *step[] = {"inputs.base_motion={type: step, time: 1, after: 3}"};
    assert_int_equal(load(FULL, step, 1, &c, &err), STSL_OK);
    assert_int_equal(c.element.base_motion.type, STSL_SIG_STEP);
    assert_true(c.element.base_motion.after == 3.0);
    stsl_config_free(&c);
}

static void expect_set_error(const char *text, const char *set, const char *where, const char *path,
                             const char *what)
{
    stsl_config c;
    stsl_error err = {0};
    const char *sets[] = {set};
    assert_int_equal(load(text, sets, 1, &c, &err), STSL_EINPUT);
    check_message(&err, where, path, what);
}

static void test_set_errors(void **state)
{
    (void)state;
    expect_set_error(MIN, "simulation.t_end", "--set simulation.t_end: ", NULL,
                     "expected KEY.PATH=VALUE");
    expect_set_error(MIN, "=3", "--set =3: ", NULL, "expected KEY.PATH=VALUE");
    expect_set_error(MIN, "a..b=3", "--set a..b=3: ", NULL, "expected KEY.PATH=VALUE");
    expect_set_error(MIN, "element.mass=-1", "--set element.mass=-1: ", "element.mass",
                     "must be > 0 (got -1)");
    expect_set_error(MIN, "element.mass=heavy", "--set element.mass=heavy: ", "element.mass",
                     "expected a number");
    expect_set_error(MIN, "element.colour=red", "--set element.colour=red: ", "element.colour",
                     "unknown key");
    expect_set_error(MIN, "element.mass.x=1", "--set element.mass.x=1: ", "element.mass",
                     "not a mapping");
    expect_set_error(MIN, "inputs.load={type: sine, amplitude: 1}",
                     "--set inputs.load=", "inputs.load.frequency", "missing required key");
    expect_set_error(MIN, "element.mass=[1", "--set element.mass=[1:", NULL, "invalid YAML");
    /* A key created by an override that misses a sibling names the --set. */
    expect_set_error(MIN, "end_stops.min=0", "--set end_stops.min=0: ", "end_stops.max",
                     "missing required key");
    /* Errors elsewhere still name the file. */
    expect_set_error("element: {mass: -1}\nfriction: {dynamic: 1}\nsimulation: {t_end: 1}\n",
                     "simulation.t_end=2", "t.yaml:1: ", "element.mass", "must be > 0");
}

/* ---------------------------------------------------------------- round trip */

static void same_signal(const stsl_signal_spec *a, const stsl_signal_spec *b)
{
    assert_int_equal(a->type, b->type);
    assert_true(a->value == b->value && a->time == b->time && a->before == b->before);
    assert_true(a->after == b->after && a->start_time == b->start_time);
    assert_true(a->slope == b->slope && a->initial == b->initial);
    assert_true(a->amplitude == b->amplitude && a->frequency == b->frequency);
    assert_true(a->phase == b->phase && a->offset == b->offset);
    assert_true(a->f_max == b->f_max && a->t_max == b->t_max);
    assert_true(a->f0 == b->f0 && a->f1 == b->f1 && a->t1 == b->t1);
    assert_string_equal(a->file, b->file);
    assert_int_equal(a->interpolation, b->interpolation);
    assert_int_equal(a->n, b->n);
    for (int i = 0; i < a->n; i++)
        assert_true(a->tt[i] == b->tt[i] && a->vv[i] == b->vv[i]);
}

static void same_config(const stsl_config *a, const stsl_config *b)
{
    const stsl_element_params *x = &a->element, *y = &b->element;
    assert_int_equal(x->domain, y->domain);
    assert_true(x->mass == y->mass && x->stiffness == y->stiffness);
    assert_true(x->free_position == y->free_position && x->damping == y->damping);
    assert_memory_equal(&x->friction, &y->friction, sizeof x->friction);
    assert_int_equal(x->has_stops, y->has_stops);
    assert_true(x->x_min == y->x_min && x->x_max == y->x_max);
    assert_true(x->restitution == y->restitution);
    same_signal(&x->active_force, &y->active_force);
    same_signal(&x->load, &y->load);
    same_signal(&x->base_motion, &y->base_motion);
    same_signal(&x->anchor_motion, &y->anchor_motion);
    assert_int_equal(x->has_anchor, y->has_anchor);
    assert_true(x->x0 == y->x0 && x->v0 == y->v0);
    assert_memory_equal(&a->sim, &b->sim, sizeof a->sim);
    assert_memory_equal(&a->scheme, &b->scheme, sizeof a->scheme);
    assert_string_equal(a->output_file, b->output_file);
}

static void round_trip(const char *text)
{
    stsl_config a, b;
    stsl_error err = {0};
    int rc = stsl_config_load_string(text, "t.yaml", g_dir, NULL, 0, &a, &err);
    if (rc) fail_msg("%s", err.msg);
    char *y = stsl_config_to_yaml(&a);
    assert_non_null(y);
    rc = stsl_config_load_string(y, "t.yaml", NULL, NULL, 0, &b, &err);
    if (rc) fail_msg("%s\n%s", err.msg, y);
    same_config(&a, &b);
    char *y2 = stsl_config_to_yaml(&b);
    assert_string_equal(y, y2);
    free(y);
    free(y2);
    stsl_config_free(&a);
    stsl_config_free(&b);
}

static void test_round_trip(void **state)
{
    (void)state;
    write_table("tab.csv", TABLE);
    round_trip(FULL);
    round_trip(STRIBECK);
    round_trip(MIN);
    /* The scheme keys: each scheme with its own parameters, defaults filled. */
    round_trip("element: {mass: 1}\nfriction: {dynamic: 1}\n"
               "simulation: {t_end: 1, scheme: karnopp, step: 0.001, karnopp_band: 3e-5}\n");
    round_trip("element: {mass: 1}\nfriction: {dynamic: 1}\n"
               "simulation: {t_end: 1, scheme: karnopp, step: 0.001}\n");
    round_trip("element: {mass: 1}\nfriction: {dynamic: 1}\n"
               "simulation: {t_end: 1, scheme: fixed_step_hybrid, step: 0.1}\n");
    round_trip("element: {mass: 1}\nfriction: {dynamic: 1}\n"
               "simulation: {t_end: 1, scheme: smooth_rk4, step: 1e-5, "
               "regularisation_velocity: 0.01}\n");
    round_trip("element: {mass: 1}\nfriction: {law: 20sim_v, d: 2}\n"
               "simulation: {t_end: 1, scheme: smooth_rk4, step: 1e-5}\n");
    round_trip("domain: rotational\n"
               "element: {mass: 0.1, spring: {stiffness: 3.3, free_position: -0.1}}\n"
               "friction: {dynamic: 0.3, static: 0.7, efficiency_aiding: 0}\n"
               "end_stops: {min: -1e-3, max: 2.5e-3, restitution: 0.7}\n"
               "inputs:\n"
               "  active_force: {type: ramp, start_time: 0.25, slope: 1.1, initial: -2}\n"
               "  load: {type: linear_chirp, amplitude: 3, f0: 0.1, f1: 7, t1: 3}\n"
               "  base_motion: {type: sine, amplitude: 1.2345678901234567, frequency: 0.1,"
               " phase: 0.33333333333333331, offset: 2}\n"
               "initial: {position: 1e-3, velocity: 0.1}\n"
               "simulation: {t_end: 0.3, output_step: 0, rtol: 1e-14, atol: 1e-300, "
               "max_events: 1000000000000}\n"
               "output: {file: \"we\\\"ird\\\\ name:#.h5\"}\n");
}

int main(void)
{
    tu_mkdtemp(g_dir, sizeof g_dir);
    if (!g_dir[0]) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full),         cmocka_unit_test(test_stribeck_table_rotational),
        cmocka_unit_test(test_file_loader),  cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_table_errors), cmocka_unit_test(test_set_scalar_and_create),
        cmocka_unit_test(test_set_signal),   cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_round_trip),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
