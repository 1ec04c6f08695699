/* test_system.c - the configuration of a system of bodies (issue 14, stage
 * 3a: configuration only): every validation error with its line, key path
 * and allowed range; the one-element configuration's effective YAML
 * unchanged for every example and its meaning as a system of one body; a
 * system's round trip through the effective YAML; --set by indexed key
 * paths (fast and full path alike) and their errors; `check` and the
 * refusal of `run`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/stickslip.h"
#include "io/config/config.h"
#include "models/system.h"
#include "test/testutil.h"

/* The issue's servo axis: motor and load, a shaft, motor friction, a clutch
 * between them and gear backlash. */
static const char *SERVO =
    "domain: rotational\n"                                                           /* 1 */
    "bodies:   {motor: {inertia: 1.0e-3}, load: {inertia: 5.0e-2, velocity: 0.5}}\n" /* 2 */
    "couplings:\n"                                                                   /* 3 */
    "  - {between: [motor, load], stiffness: 500.0, damping: 0.05}\n"                /* 4 */
    "contacts:\n"                                                                    /* 5 */
    "  - {body: motor, law: coulomb, dynamic: 0.02, static_ratio: 1.3}\n"            /* 6 */
    "  - {between: [motor, load], law: coulomb, dynamic: 0.5, static_ratio: 1.2}\n"  /* 7 */
    "stops:\n"                                                                       /* 8 */
    "  - {between: [motor, load], min: -0.01, max: 0.01, model: rigid, restitution: 0.0}\n"
    "inputs: {forces: {motor: {type: sine, amplitude: 0.1, frequency: 2}}}\n" /* 10 */
    "simulation: {t_end: 1.0}\n";

/* The servo with a load on its clutch (irreversible) and on the motor's
 * bearing. */
static const char *SERVO_LOAD =
    "domain: rotational\n"
    "bodies:   {motor: {inertia: 1.0e-3}, load: {inertia: 5.0e-2}}\n"
    "contacts:\n"
    "  - {body: motor, law: coulomb, dynamic: 0.02, load: {type: constant, value: -0.1}}\n"
    "  - {between: [motor, load], law: coulomb, dynamic: 0.5, efficiency_opposing: 0.7,\n"
    "     efficiency_aiding: -0.5, load: {type: sine, amplitude: 0.2, frequency: 3}}\n"
    "simulation: {t_end: 1.0}\n";

static int load(const char *text, stsl_config *cfg, stsl_error *err)
{
    return stsl_config_load_string(text, "s.yaml", NULL, NULL, 0, cfg, err);
}

/* ------------------------------------------------------------ errors */

typedef struct bad {
    const char *text;
    const char *msg; /* the whole message */
} bad;

#define SIM "simulation: {t_end: 1}\n"
#define TWO "bodies: {a: {mass: 1}, b: {mass: 2}}\n"
static const bad BAD[] = {
    {TWO "couplings:\n  - {between: [a, c], stiffness: 1}\n" SIM,
     "s.yaml:3: couplings.0.between.1: unknown body 'c' (bodies: a, b; fixed ends: ground, base, "
     "anchor)"},
    {TWO "couplings:\n  - {between: [a, a], stiffness: 1}\n" SIM,
     "s.yaml:3: couplings.0.between.1: joins body 'a' to itself (the two ends must differ)"},
    {"bodies: {a: {mass: 0}}\n" SIM, "s.yaml:1: bodies.a.mass: must be > 0 (got 0)"},
    {"bodies:\n  a: {mass: 1}\n  b: {inertia: -2}\n" SIM,
     "s.yaml:3: bodies.b.inertia: must be > 0 (got -2)"},
    {"bodies:\n  a: {mass: 1, inertia: 1}\n" SIM,
     "s.yaml:2: bodies.a.inertia: give either bodies.a.mass or bodies.a.inertia, not both"},
    {"bodies:\n  a: {velocity: 1}\n" SIM,
     "s.yaml:2: bodies.a.mass: missing required key (a number > 0)"},
    {"bodies:\n  a: {mass: 1, colour: red}\n" SIM,
     "s.yaml:2: bodies.a.colour: unknown key (allowed: mass, inertia, position, velocity)"},
    {"bodies:\n  ground: {mass: 1}\n" SIM,
     "s.yaml:2: bodies.ground: 'ground' is a reserved end name (ground, base, anchor)"},
    {"bodies:\n  a.b: {mass: 1}\n" SIM,
     "s.yaml:2: bodies: a body name is a letter or _ followed by letters, digits, _ or - (got "
     "'a.b')"},
    {"bodies: {}\n" SIM,
     "s.yaml:1: bodies: expected a mapping of at least one body, NAME: {mass: M} (got no body)"},
    {TWO "contacts:\n  - {body: c, dynamic: 1}\n" SIM,
     "s.yaml:3: contacts.0.body: unknown body 'c' (bodies: a, b; fixed ends: ground, base, "
     "anchor)"},
    {TWO "contacts:\n  - {body: a, between: [a, b], dynamic: 1}\n" SIM,
     "s.yaml:3: contacts.0.body: give either body: or between:, not both"},
    {TWO "contacts:\n  - {dynamic: 1}\n" SIM,
     "s.yaml:3: contacts.0.body: missing required key (body: NAME, or between: [a, b])"},
    {TWO "contacts:\n  - {body: a, dynamic: -1}\n" SIM,
     "s.yaml:3: contacts.0.dynamic: must be >= 0 (got -1)"},
    /* A contact or stop with a name is named by it (the key path --set
     * takes), whichever check refuses it; one without keeps its index. */
    {TWO
     "contacts:\n  - {body: a, dynamic: 1}\n  - {name: clutch, between: [a, b], dynamic: -1}\n" SIM,
     "s.yaml:4: contacts.clutch.dynamic: must be >= 0 (got -1)"},
    {TWO "contacts:\n  - {name: clutch, body: c, dynamic: 1}\n" SIM,
     "s.yaml:3: contacts.clutch.body: unknown body 'c' (bodies: a, b; fixed ends: ground, base, "
     "anchor)"},
    {TWO "stops:\n  - {name: gap, between: [a, b], min: 1, max: -1}\n" SIM,
     "s.yaml:3: stops.gap.max: must be > stops.gap.min (got min 1, max -1)"},
    {TWO "stops:\n  - {body: a, min: 1, max: -1}\n" SIM,
     "s.yaml:3: stops.0.max: must be > stops.0.min (got min 1, max -1)"},
    {TWO
     "contacts:\n  - {body: a, dynamic: 1}\n  - {between: [a, b], dynamic: 1, static: 0.5}\n" SIM,
     "s.yaml:4: contacts.1.static: must be >= 1 (got 0.5)"},
    {TWO "contacts:\n  - {body: a, law: lugre, dynamic: 1}\n" SIM,
     "s.yaml:3: contacts.0.dynamic: not a parameter of contacts.0.law: lugre"},
    {TWO "contacts:\n  - {body: a, dynamic: 1,\n     load: {type: sine, amplitude: 1, frequency: "
         "0}}\n" SIM,
     "s.yaml:4: contacts.0.load.frequency: must be > 0 (got 0)"},
    {TWO "contacts:\n  - {body: a, dynamic: 1, load: 3}\n" SIM,
     "s.yaml:3: contacts.0.load: expected a signal mapping with a 'type' key (got '3')"},
    {TWO "contacts:\n  - {body: a, dynamic: 1, efficiency_aiding: 1.5}\n" SIM,
     "s.yaml:3: contacts.0.efficiency_aiding: must be <= 1 (got 1.5)"},
    {TWO "contacts:\n  - {body: a, dynamic: 1}\n  - {body: b, dynamic: 1, efficiency_opposing: "
         "0}\n" SIM,
     "s.yaml:4: contacts.1.efficiency_opposing: must be in (0, 1] (got 0)"},
    {TWO "contacts:\n  - {between: [a, b, ground], dynamic: 1}\n" SIM,
     "s.yaml:3: contacts.0.between: expected two names [a, b] (got 3 names)"},
    {TWO "contacts:\n  - {between: [a, anchor], dynamic: 1}\ninputs: {anchor_motion: {type: "
         "constant, value: 0}}\n" SIM,
     "s.yaml:3: contacts.0.between.1: a contact rubs on a body, the ground or the base (got "
     "anchor)"},
    {TWO "contacts:\n  - {name: a/b, body: a, dynamic: 1}\n" SIM,
     "s.yaml:3: contacts.0.name: a name is a letter or _ followed by letters, digits, _ or - "
     "(got 'a/b')"},
    {TWO "contacts:\n  - {name: brake, body: a, dynamic: 1}\n  - {name: brake, body: b, "
         "dynamic: 1}\n" SIM,
     "s.yaml:4: contacts.1.name: 'brake' is already the name of contacts.0"},
    {TWO "contacts:\n  - {name: brake, body: a, dynamic: 1}\nstops:\n  - {name: brake, body: "
         "b, min: -1, max: 1}\n" SIM,
     "s.yaml:5: stops.0.name: 'brake' is already the name of contacts.0"},
    {TWO "couplings:\n  - {between: [a, anchor], stiffness: 1}\n" SIM,
     "s.yaml:3: couplings.0.between.1: an anchor end needs inputs.anchor_motion"},
    {TWO "couplings:\n  - {body: a, stiffness: 1}\n" SIM,
     "s.yaml:3: couplings.0.body: unknown key (allowed: between, stiffness, damping, free_length)"},
    {TWO "couplings:\n  - {between: [ground, a], stiffness: 1}\n" SIM,
     "s.yaml:3: couplings.0.between.0: the first end must be a body (got ground)"},
    {TWO "couplings:\n  - {between: [a, b], damping: -0.5}\n" SIM,
     "s.yaml:3: couplings.0.damping: must be >= 0 (got -0.5)"},
    {TWO "couplings: {between: [a, b]}\n" SIM,
     "s.yaml:2: couplings: expected a sequence of mappings (got a mapping)"},
    {TWO "stops:\n  - {between: [a, b], min: 0.1, max: -0.1}\n" SIM,
     "s.yaml:3: stops.0.max: must be > stops.0.min (got min 0.1, max -0.1)"},
    {TWO "stops:\n  - {body: a, min: -1, max: 1, restitution: 1.5}\n" SIM,
     "s.yaml:3: stops.0.restitution: must be in [0, 1] (got 1.5)"},
    {TWO "stops:\n  - {body: a, min: -1, max: 1, stiffness: 1e6}\n" SIM,
     "s.yaml:3: stops.0.stiffness: not a parameter of stops.0.model: rigid"},
    {TWO "stops:\n  - {body: a, min: -1, max: 1, model: compliant}\n" SIM,
     "s.yaml:3: stops.0.stiffness: missing required key (a number > 0)"},
    {"bodies: {a: {mass: 1, position: 2}}\nstops:\n  - {body: a, min: -1, max: 1}\n" SIM,
     "s.yaml:1: bodies.a.position: must lie within the stops [-1, 1] (got 2)"},
    {TWO "inputs: {forces: {c: {type: constant, value: 1}}}\n" SIM,
     "s.yaml:2: inputs.forces.c: unknown body 'c' (bodies: a, b; fixed ends: ground, base, "
     "anchor)"},
    {TWO "inputs: {forces: {ground: {type: constant, value: 1}}}\n" SIM,
     "s.yaml:2: inputs.forces.ground: a force acts on a body (got ground)"},
    {TWO "inputs: {forces: {a: {type: sine, amplitude: 1, frequency: 0}}}\n" SIM,
     "s.yaml:2: inputs.forces.a.frequency: must be > 0 (got 0)"},
    {TWO "inputs: {active_force: {type: constant, value: 1}}\n" SIM,
     "s.yaml:2: inputs.active_force: unknown key (allowed: forces, base_motion, anchor_motion)"},
    {TWO "friction: {dynamic: 1}\n" SIM,
     "s.yaml:2: friction: not in a system of bodies (bodies: is given): use contacts:, stops: "
     "and bodies.NAME.position/velocity"},
    {"element: {mass: 1}\nfriction: {dynamic: 1}\ncontacts: []\n" SIM,
     "s.yaml:3: contacts: only in a system of bodies (give bodies: too; the one element takes "
     "friction: and end_stops:)"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        stsl_config cfg;
        stsl_error err = {0};
        int rc = load(BAD[i].text, &cfg, &err);
        if (rc != STSL_EINPUT || strcmp(err.msg, BAD[i].msg) != 0)
            fail_msg("case %zu: rc %d\n  got:      %s\n  expected: %s", i, rc, err.msg, BAD[i].msg);
    }
}

/* The pure check of a system built in code (no file): its key paths. */
static void test_check_pure(void **state)
{
    (void)state;
    stsl_body bodies[2] = {{"m", 1.0, 0, 0}, {"n", -1.0, 0, 0}};
    stsl_system s = {.n_bodies = 2, .bodies = bodies};
    stsl_system_issue is;
    assert_int_equal(stsl_system_check(&s, &is), 1);
    assert_string_equal(is.path, "bodies.n");
    assert_string_equal(is.msg, "mass must be > 0 (got -1)");
    bodies[1].mass = 2.0;
    stsl_coupling c = {{{"m", STSL_END_BODY, 0}, {"m", STSL_END_BODY, 0}}, 1.0, 0.0, 0.0};
    s.n_couplings = 1;
    s.couplings = &c;
    assert_int_equal(stsl_system_check(&s, &is), 1);
    assert_string_equal(is.path, "couplings.0.between.1");
    c.ends[1].body = 1;
    assert_int_equal(stsl_system_check(&s, &is), 0);
    assert_int_equal(stsl_system_is_multibody(&s), 1);
}

/* ------------------------------------------------------------ one element */

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

static int is_system_example(const char *file)
{
    static const char *const systems[] = {"servo_two_mass.yaml", "servo_backlash.yaml",
                                          "clutch.yaml", "burridge_knopoff.yaml"};
    for (size_t i = 0; i < sizeof systems / sizeof *systems; i++)
        if (!strcmp(file, systems[i])) return 1;
    return 0;
}

/* The effective YAML is what a result stores as /config and what --set
 * round-trips through; %.17g makes it exact, so it is compared byte for
 * byte against main's before this stage (test/reference/effective). */
static void test_examples_unchanged(void **state)
{
    (void)state;
    char path[1024], ref[1024];
    int n = 0;
    DIR *d = opendir(STSL_SOURCE_DIR "/examples");
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml")) continue;
        snprintf(path, sizeof path, "%s/examples/%s", STSL_SOURCE_DIR, e->d_name);
        snprintf(ref, sizeof ref, "%s/test/reference/effective/%s", STSL_SOURCE_DIR, e->d_name);
        stsl_config cfg;
        stsl_error err = {0};
        if (stsl_config_load(path, NULL, 0, &cfg, &err)) fail_msg("%s: %s", path, err.msg);
        char *yaml = stsl_config_to_yaml(&cfg), *want = read_text(ref);
        if (!want) fail_msg("%s: no reference %s", e->d_name, ref);
        if (strcmp(yaml, want)) fail_msg("%s: effective YAML changed:\n%s", e->d_name, yaml);
        /* Issue 14's examples are systems; every other one is the one
         * element it was before systems existed. */
        int system = is_system_example(e->d_name);
        assert_int_equal(cfg.is_system, system);
        if (!system) assert_int_equal(stsl_config_require_element(&cfg, &err), STSL_OK);
        free(yaml);
        free(want);
        stsl_config_free(&cfg);
        n += !system;
    }
    closedir(d);
    assert_true(n >= 18); /* every element example of main at this stage */
}

/* The one element means a system of one body: its friction one contact
 * against the base, its end stops one stop, its spring one coupling. */
static void test_element_as_system(void **state)
{
    (void)state;
    stsl_config cfg;
    stsl_error err = {0};
    stsl_system s;
    stsl_system_issue is;
    assert_int_equal(
        stsl_config_load(STSL_SOURCE_DIR "/examples/dv_compliant_stops.yaml", NULL, 0, &cfg, &err),
        STSL_OK);
    assert_int_equal(stsl_system_from_element(&cfg.element, &s), 0);
    assert_int_equal(s.n_bodies, 1);
    assert_int_equal(s.n_contacts, 1);
    assert_int_equal(s.n_stops, 1);
    assert_int_equal(s.stops[0].model, STSL_STOP_COMPLIANT);
    assert_true(s.stops[0].p.x_min == cfg.element.x_min && s.stops[0].p.x_max == cfg.element.x_max);
    assert_true(s.stops[0].p.stiffness == cfg.element.stop_stiffness);
    assert_true(s.bodies[0].mass == cfg.element.mass);
    assert_int_equal(s.contacts[0].ends[1].kind, STSL_END_BASE);
    assert_true(s.contacts[0].friction.dynamic == cfg.element.friction.dynamic);
    assert_int_equal(s.n_couplings, cfg.element.stiffness > 0 || cfg.element.damping > 0);
    assert_int_equal(stsl_system_check(&s, &is), 0);
    assert_int_equal(stsl_system_is_multibody(&s), 0);
    stsl_system_free(&s);
    stsl_config_free(&cfg);
}

/* ------------------------------------------------------------ round trip */

/* The effective YAML of `a` reads back to the same text, and the deep copy
 * writes the same text and owns its arrays. */
static void written_back(const stsl_config *a)
{
    stsl_config b, c;
    stsl_error err = {0};
    char *y1 = stsl_config_to_yaml(a);
    assert_int_equal(load(y1, &b, &err), STSL_OK);
    char *y2 = stsl_config_to_yaml(&b);
    assert_string_equal(y1, y2);
    assert_int_equal(stsl_config_copy(&c, &b, &err), STSL_OK);
    stsl_config_free(&b);
    char *y3 = stsl_config_to_yaml(&c);
    assert_string_equal(y1, y3);
    free(y1);
    free(y2);
    free(y3);
    stsl_config_free(&c);
}

static void test_round_trip(void **state)
{
    (void)state;
    stsl_config a;
    stsl_error err = {0};
    assert_int_equal(load(SERVO, &a, &err), STSL_OK);
    const stsl_system *s = &a.system;
    assert_int_equal(a.is_system, 1);
    assert_int_equal(s->domain, STSL_DOMAIN_ROTATIONAL);
    assert_int_equal(s->n_bodies, 2);
    assert_string_equal(s->bodies[1].name, "load");
    assert_true(s->bodies[1].mass == 5.0e-2 && s->bodies[1].v0 == 0.5);
    assert_int_equal(s->n_couplings, 1);
    assert_true(s->couplings[0].stiffness == 500.0 && s->couplings[0].damping == 0.05);
    assert_int_equal(s->n_contacts, 2);
    assert_int_equal(s->contacts[0].ends[1].kind, STSL_END_BASE);
    assert_int_equal(s->contacts[1].ends[1].kind, STSL_END_BODY);
    assert_int_equal(s->contacts[1].ends[1].body, 1);
    assert_true(s->contacts[1].friction.dynamic == 0.5);
    assert_true(s->contacts[1].friction.static_ratio == 1.2);
    assert_int_equal(s->n_stops, 1);
    assert_true(s->stops[0].p.x_min == -0.01 && s->stops[0].p.x_max == 0.01);
    assert_int_equal(s->n_forces, 1);
    assert_string_equal(s->forces[0].on.name, "motor");
    assert_true(s->forces[0].signal.amplitude == 0.1);
    written_back(&a);
    stsl_config_free(&a);
}

/* A contact's load and efficiencies survive the write-back and the copy;
 * a contact without one gets none. */
static void test_round_trip_load(void **state)
{
    (void)state;
    stsl_config a, b;
    stsl_error err = {0};
    assert_int_equal(load(SERVO_LOAD, &a, &err), STSL_OK);
    const stsl_contact *ct = a.system.contacts;
    assert_int_equal(ct[0].has_load, 1);
    assert_true(ct[0].load.type == STSL_SIG_CONSTANT && ct[0].load.value == -0.1);
    assert_true(ct[1].load.type == STSL_SIG_SINE && ct[1].load.amplitude == 0.2);
    assert_true(ct[1].friction.eff_opposing == 0.7 && ct[1].friction.eff_aiding == -0.5);
    written_back(&a);
    assert_int_equal(load(SERVO, &b, &err), STSL_OK);
    assert_int_equal(b.system.contacts[0].has_load, 0);
    char *y1 = stsl_config_to_yaml(&b);
    assert_null(strstr(y1, ", load: {type"));
    free(y1);
    stsl_config_free(&b);
    stsl_config_free(&a);
}

/* ------------------------------------------------------------ set, get */

/* The fast set and the full reload agree on value and text. */
static void set_both_in(const char *text, const char *key, const char *value)
{
    stsl_config fast, full;
    stsl_error e1 = {0}, e2 = {0};
    assert_int_equal(load(text, &fast, &e1), STSL_OK);
    assert_int_equal(load(text, &full, &e1), STSL_OK);
    assert_int_equal(stsl_config_set(&fast, key, value, &e1), STSL_OK);
    assert_int_equal(stsl_config_set_reload(&full, key, value, &e2), STSL_OK);
    char *a = stsl_config_to_yaml(&fast), *b = stsl_config_to_yaml(&full);
    assert_string_equal(a, b);
    char *got = stsl_config_get(&fast, key, &e1);
    assert_non_null(got);
    assert_true(strtod(got, NULL) == strtod(value, NULL));
    free(got);
    free(a);
    free(b);
    stsl_config_free(&fast);
    stsl_config_free(&full);
}

static void set_both(const char *key, const char *value)
{
    set_both_in(SERVO, key, value);
}

static void test_set_indexed(void **state)
{
    (void)state;
    set_both_in(SERVO_LOAD, "contacts.1.load.amplitude", "0.3");
    set_both_in(SERVO_LOAD, "contacts.0.load.value", "0.25");
    set_both_in(SERVO_LOAD, "contacts.1.efficiency_aiding", "0.4");
    set_both("contacts.0.dynamic", "0.03");
    set_both("contacts.1.static_ratio", "1.5");
    set_both("bodies.load.inertia", "2");
    set_both("bodies.motor.velocity", "-3");
    set_both("couplings.0.stiffness", "1000");
    set_both("inputs.forces.motor.amplitude", "0.25");
    set_both("stops.0.restitution", "0.5");
    set_both("stops.0.max", "0.02"); /* tied to min: through the reload */
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(load(SERVO, &cfg, &err), STSL_OK);
    assert_int_equal(stsl_config_set(&cfg, "contacts.1.dynamic", "0.7", &err), STSL_OK);
    assert_true(cfg.system.contacts[1].friction.dynamic == 0.7);
    assert_int_equal(stsl_config_set(&cfg, "bodies.load.inertia", "3", &err), STSL_OK);
    assert_true(cfg.system.bodies[1].mass == 3.0);
    stsl_config_free(&cfg);
}

/* A contact and a stop with a `name:` are reached by it as by their index,
 * in an override, stsl_config_set and stsl_config_get alike (the one rule
 * a study's `vary` keys follow too); an unknown name is refused as an
 * index past the end is. */
static void test_set_by_name(void **state)
{
    (void)state;
    static const char *named =
        "domain: rotational\n"
        "bodies: {motor: {inertia: 1.0e-3}, load: {inertia: 5.0e-2}}\n"
        "contacts:\n"
        "  - {name: bearing, body: motor, law: coulomb, dynamic: 0.02}\n"
        "  - {name: clutch, between: [motor, load], law: coulomb, dynamic: 0.5}\n"
        "stops: [{name: backlash, between: [motor, load], min: -0.01, max: 0.01}]\n"
        "simulation: {t_end: 1.0}\n";
    const char *sets[2] = {"contacts.clutch.dynamic=0.75", "stops.backlash.max=0.02"};
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(stsl_config_load_string(named, "s.yaml", NULL, sets, 2, &cfg, &err), STSL_OK);
    assert_true(cfg.system.contacts[1].friction.dynamic == 0.75);
    assert_true(cfg.system.contacts[0].friction.dynamic == 0.02);
    assert_true(cfg.system.stops[0].p.x_max == 0.02);
    assert_int_equal(stsl_config_set(&cfg, "contacts.bearing.dynamic", "0.03", &err), STSL_OK);
    assert_true(cfg.system.contacts[0].friction.dynamic == 0.03);
    char *v = stsl_config_get(&cfg, "contacts.bearing.dynamic", &err);
    assert_string_equal(v, "0.029999999999999999");
    free(v);
    v = stsl_config_get(&cfg, "stops.backlash.max", &err);
    assert_string_equal(v, "0.02");
    free(v);
    /* Indices stay valid beside the names. */
    assert_int_equal(stsl_config_set(&cfg, "contacts.1.dynamic", "0.6", &err), STSL_OK);
    assert_true(cfg.system.contacts[1].friction.dynamic == 0.6);
    assert_int_equal(stsl_config_set(&cfg, "contacts.gear.dynamic", "1", &err), STSL_EINPUT);
    assert_string_equal(err.msg, "contacts: no item 'gear' (expected an index in [0, 1])");
    /* Refusals name the item by its name, set by index or name, alone or
     * through the full load (a rule between keys). */
    assert_int_equal(stsl_config_set(&cfg, "contacts.1.dynamic", "-1", &err), STSL_EINPUT);
    assert_string_equal(err.msg, "contacts.clutch.dynamic: must be >= 0 (got -1)");
    assert_int_equal(stsl_config_set(&cfg, "contacts.clutch.dynamic", "x", &err), STSL_EINPUT);
    assert_string_equal(err.msg, "contacts.clutch.dynamic: expected a number >= 0 (got 'x')");
    assert_int_equal(stsl_config_set(&cfg, "stops.0.max", "-1", &err), STSL_EINPUT);
    assert_string_equal(err.msg,
                        "stops.backlash.max: must be > stops.backlash.min (got min -0.01, max -1)");
    v = stsl_config_get(&cfg, "contacts.gear.dynamic", &err);
    assert_null(v);
    assert_string_equal(err.msg, "contacts.gear.dynamic: not a key of the effective configuration");
    stsl_config_free(&cfg);
}

static void expect_set_error(const char *key, const char *value, const char *msg)
{
    stsl_config cfg;
    stsl_error err = {0};
    assert_int_equal(load(SERVO, &cfg, &err), STSL_OK);
    char *before = stsl_config_to_yaml(&cfg);
    int rc = stsl_config_set(&cfg, key, value, &err);
    if (rc != STSL_EINPUT || strcmp(err.msg, msg))
        fail_msg("%s=%s: rc %d\n  got:      %s\n  expected: %s", key, value, rc, err.msg, msg);
    char *after = stsl_config_to_yaml(&cfg);
    assert_string_equal(before, after); /* unchanged on failure */
    free(before);
    free(after);
    stsl_config_free(&cfg);
}

static void test_set_errors(void **state)
{
    (void)state;
    expect_set_error("contacts.0.dynamic", "-1", "contacts.0.dynamic: must be >= 0 (got -1)");
    expect_set_error("bodies.load.inertia", "0", "bodies.load.inertia: must be > 0 (got 0)");
    expect_set_error("stops.0.restitution", "2", "stops.0.restitution: must be in [0, 1] (got 2)");
    expect_set_error("couplings.0.damping", "-1", "couplings.0.damping: must be >= 0 (got -1)");
    expect_set_error("contacts.7.dynamic", "1",
                     "contacts: no item '7' (expected an index in [0, 1])");
    expect_set_error("contacts.x.dynamic", "1",
                     "contacts: no item 'x' (expected an index in [0, 1])");
    /* A rule between keys blames a key the caller did not set, by its path
     * alone: the effective YAML's line numbers mean nothing to the caller. */
    expect_set_error("stops.0.min", "0.5",
                     "stops.0.max: must be > stops.0.min (got min 0.5, max 0.01)");
    expect_set_error("couplings.0.between", "[motor, motor]",
                     "couplings.0.between.1: joins body 'motor' to itself (the two ends must "
                     "differ)");
    expect_set_error(
        "bodies.load.mass", "1",
        "bodies.load.inertia: give either bodies.load.mass or bodies.load.inertia, not both");
}

/* The public API: indexed set and get; stsl_run runs the system. */
static void test_public_api(void **state)
{
    (void)state;
    stsl_err err = {0};
    stsl_summary sum;
    stsl_cfg *cfg = stsl_cfg_parse(SERVO, NULL, &err);
    assert_non_null(cfg);
    assert_int_equal(stsl_cfg_set(cfg, "contacts.1.dynamic", "0.25", &err), STSL_RC_OK);
    char *v = stsl_cfg_get(cfg, "contacts.1.dynamic", &err);
    assert_string_equal(v, "0.25");
    stsl_free(v);
    v = stsl_cfg_get(cfg, "contacts.1", &err);
    assert_non_null(strstr(v, "{between: [motor, load], law: coulomb, dynamic: 0.25,"));
    stsl_free(v);
    assert_int_equal(stsl_cfg_set(cfg, "contacts.2.dynamic", "1", &err), STSL_RC_INPUT);
    assert_string_equal(err.message, "contacts: no item '2' (expected an index in [0, 1])");
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_NONE, NULL, &sum, &err), STSL_RC_OK);
    assert_int_equal(sum.complete, 1);
    assert_true(sum.t_reached == 1.0);
    assert_true(isnan(sum.dissipated_energy)); /* the element's friction-only figure */
    /* The fixed-step schemes run systems too (test_fixed_step_system). */
    stsl_cfg_free(cfg);
    char text[2048];
    snprintf(text, sizeof text, "%.*s%s", (int)(strstr(SERVO, "simulation:") - SERVO), SERVO,
             "simulation: {t_end: 1.0, scheme: karnopp, step: 1e-4}\n");
    cfg = stsl_cfg_parse(text, NULL, &err);
    assert_non_null(cfg);
    assert_int_equal(stsl_run(cfg, STSL_OUTPUT_NONE, NULL, &sum, &err), STSL_RC_OK);
    assert_int_equal(sum.complete, 1);
    assert_true(sum.t_reached == 1.0);
    stsl_cfg_free(cfg);
}

/* ------------------------------------------------------------ CLI */

static void test_cli(void **state)
{
    (void)state;
    char dir[256], path[512], out[4096], expect[1024];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/servo.yaml", dir);
    assert_int_equal(tu_write_file(path, SERVO), 0);
    assert_int_equal(tu_cli(out, sizeof out, "check %s", path), 0);
    assert_non_null(strstr(out, "rotational system of 2 bodies: motor (inertia 0.001), load "
                                "(inertia 0.05)\n"));
    assert_non_null(strstr(out, "couplings: 1 motor-load (k 500, c 0.05)\n"));
    assert_non_null(strstr(out, "contacts: 2 motor-base (coulomb), motor-load (coulomb)\n"));
    assert_non_null(strstr(out, "stops: 1 motor-load (rigid, [-0.01, 0.01])\n"));
    /* The one element's check line is what it was. */
    assert_int_equal(
        tu_cli(out, sizeof out, "check %s/examples/dv_end_stops.yaml", STSL_SOURCE_DIR), 0);
    snprintf(expect, sizeof expect,
             "%s/examples/dv_end_stops.yaml: valid (t_end 4 s, coulomb friction)\n",
             STSL_SOURCE_DIR);
    assert_string_equal(out, expect);
    assert_int_equal(tu_cli(out, sizeof out, "check %s --set contacts.1.dynamic=-2", path), 2);
    assert_non_null(strstr(out, "contacts.1.dynamic: must be >= 0 (got -2)"));
    /* run: the system is simulated, with --verify too: its estimate is
     * stated by info (test_system_verify checks the numbers). */
    char res[600];
    snprintf(res, sizeof res, "%s/out.h5", dir);
    assert_int_equal(tu_cli(out, sizeof out, "run -q %s -o %s", path, res), 0);
    assert_true(tu_file_exists(res));
    remove(res);
    assert_int_equal(tu_cli(out, sizeof out, "run %s --verify -o %s", path, res), 0);
    assert_non_null(strstr(out, "\nEst. error:  event times "));
    assert_non_null(strstr(out, ", largest over the bodies (check run at rtol 1e-12; events "
                                "matched)\n"));
    remove(res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_check_pure),
        cmocka_unit_test(test_examples_unchanged),
        cmocka_unit_test(test_element_as_system),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_load),
        cmocka_unit_test(test_set_indexed),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_set_by_name),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_public_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
