/* test_api.c - the public C API (include/stickslip.h): set gives exactly
 * what the YAML round trip (the CLI's --set) gives, clones are deep, runs
 * into a summary, memory and files agree, the dissipated energy is the
 * closed form of a Coulomb element, errors are values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/config_api.h"
#include "include/stickslip.h"
#include "io/config/config.h"
#include "test/testutil.h"

#define EX(name) STSL_SOURCE_DIR "/examples/" name

/* ---- set: the fast path is the YAML round trip ------------------------- */

static const char *const KEYS[] = {"element.mass",
                                   "element.inertia",
                                   "element.spring.stiffness",
                                   "element.spring.free_position",
                                   "element.damper.coefficient",
                                   "friction.dynamic",
                                   "friction.static_ratio",
                                   "friction.efficiency_opposing",
                                   "friction.efficiency_aiding",
                                   "friction.stribeck_velocity",
                                   "friction.stribeck_exponent",
                                   "initial.position",
                                   "initial.velocity",
                                   "simulation.t_end",
                                   "simulation.output_step",
                                   "simulation.rtol",
                                   "simulation.atol",
                                   "simulation.karnopp_band",
                                   "simulation.regularisation_velocity",
                                   "friction.breakaway",
                                   "friction.coulomb",
                                   "friction.breakaway_velocity",
                                   "friction.viscous",
                                   "friction.tc",
                                   "friction.tst",
                                   "friction.slope",
                                   "friction.v_st",
                                   "friction.d",
                                   "friction.sigma0",
                                   "friction.sigma1",
                                   "inputs.base_motion.amplitude",
                                   "inputs.base_motion.f_max",
                                   "inputs.base_motion.t_max",
                                   "inputs.base_motion.slope",
                                   "inputs.base_motion.start_time",
                                   "inputs.base_motion.initial",
                                   "inputs.active_force.amplitude",
                                   "inputs.active_force.frequency",
                                   "inputs.active_force.phase",
                                   "inputs.anchor_motion.value",
                                   "inputs.load.value",
                                   "simulation.max_events",
                                   "friction.static",
                                   "end_stops.max",
                                   "simulation.step",
                                   "friction.nonsense"};
static const char *const VALUES[] = {"-1",   "0",   "0.5", "1", "2.5",   "1e400", "nan",  "1e-15",
                                     "3e-3", "abc", "'1'", "",  "1 # c", " 7",    "0x10", "1e-3"};

typedef struct variant {
    const char *file;
    const char *sets[2];
} variant;

static const variant VARIANTS[] = {
    {EX("janecek_chirp.yaml"), {NULL, NULL}},
    {EX("janecek_chirp.yaml"), {"friction.law=stribeck", "friction.stribeck_velocity=0.01"}},
    {EX("janecek_chirp.yaml"), {"simulation.scheme=karnopp", "simulation.step=1e-4"}},
    {EX("janecek_chirp.yaml"), {"simulation.scheme=smooth_rk4", "simulation.step=1e-4"}},
    {EX("simscape_rotational.yaml"), {NULL, NULL}},
    {EX("lugre_stick_slip.yaml"), {NULL, NULL}},
    {EX("20sim_scvs.yaml"), {NULL, NULL}},
    {EX("dv_end_stops.yaml"), {NULL, NULL}},
    {EX("dv_compliant_stops.yaml"), {NULL, NULL}},
    {EX("den_hartog.yaml"), {NULL, NULL}},
};

static void load_variant(const variant *v, stsl_config *cfg)
{
    stsl_error err = {0};
    int n = v->sets[0] ? (v->sets[1] ? 2 : 1) : 0;
    if (stsl_config_load(v->file, v->sets, n, cfg, &err)) fail_msg("%s", err.msg);
}

/* Every key x value on every variant: the same status, the same message,
 * the same effective configuration after, whichever path set takes. */
static void set_equals_round_trip(void **state)
{
    (void)state;
    long fast_ok = 0;
    for (size_t v = 0; v < sizeof VARIANTS / sizeof VARIANTS[0]; v++) {
        stsl_config base;
        load_variant(&VARIANTS[v], &base);
        for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++)
            for (size_t i = 0; i < sizeof VALUES / sizeof VALUES[0]; i++) {
                stsl_config a, b;
                stsl_error ea = {0}, eb = {0};
                assert_int_equal(stsl_config_copy(&a, &base, &ea), 0);
                assert_int_equal(stsl_config_copy(&b, &base, &eb), 0);
                int ra = stsl_config_set(&a, KEYS[k], VALUES[i], &ea);
                int rb = stsl_config_set_reload(&b, KEYS[k], VALUES[i], &eb);
                if (ra != rb || (ra && strcmp(ea.msg, eb.msg)))
                    fail_msg("%s %s=%s: fast %d '%s', round trip %d '%s'", VARIANTS[v].file,
                             KEYS[k], VALUES[i], ra, ea.msg, rb, eb.msg);
                if (!ra) {
                    char *ya = stsl_config_to_yaml(&a), *yb = stsl_config_to_yaml(&b);
                    assert_string_equal(ya, yb);
                    free(ya);
                    free(yb);
                    fast_ok++;
                }
                stsl_config_free(&a);
                stsl_config_free(&b);
            }
        stsl_config_free(&base);
    }
    assert_true(fast_ok > 100); /* the comparison covered accepted values too */
}

/* The keys of the smooth laws and the keys that name a contact or stop by
 * its `name:` take the fast path (stsl_config_set_alone sets them in
 * place) and give what the full reload gives: the same effective
 * configuration, and a run bit for bit the same (every column, every
 * event).  A value that breaks the rule between two levels (tst >= tc,
 * breakaway >= coulomb) is left to the reload, whose message the fast set
 * then returns. */
#define LAW_BASE(law)                                                                              \
    "element: {mass: 1, spring: {stiffness: 100}}\nfriction: {law: " law "}\n"                     \
    "inputs: {base_motion: {type: ramp, slope: 0.1}}\nsimulation: {t_end: 0.3, output_step: "      \
    "0.01}\n"
static const char *const SMOOTH_BASES[] = {
    LAW_BASE("simscape, breakaway: 1.5, coulomb: 1, breakaway_velocity: 0.01, viscous: 0.5"),
    LAW_BASE("20sim_c, tc: 1, slope: 100"),
    LAW_BASE("20sim_v, d: 2"),
    LAW_BASE("20sim_cv, tc: 1, slope: 100, d: 0.5"),
    LAW_BASE("20sim_scvs, tc: 1, tst: 1.5, slope: 100, v_st: 0.001, d: 0.5"),
    LAW_BASE("lugre, tc: 1, tst: 1.5, v_st: 0.001, sigma0: 1e4, sigma1: 100, d: 0.5"),
    "domain: rotational\nbodies: {motor: {inertia: 2e-3}, gear: {inertia: 5e-4}, load: "
    "{inertia: 1e-2}}\ncouplings: [{between: [gear, load], stiffness: 500, damping: 0.1}]\n"
    "contacts:\n  - {name: bearing, body: motor, dynamic: 0.02, static_ratio: 1.3, load: "
    "{type: constant, value: 0.1}}\n  - {name: guide, body: load, law: lugre, tc: 0.3, tst: 0.45, "
    "v_st: 0.01, sigma0: 1e3, sigma1: 2, d: 0.01}\nstops: [{name: gap, between: [motor, gear], "
    "min: -0.01, max: 0.01, restitution: 0.2}]\ninputs: {forces: {motor: {type: sine, "
    "amplitude: 0.6, frequency: 1}}}\nsimulation: {t_end: 0.1, output_step: 0.001}\n"};

typedef struct alone_case {
    int base;
    const char *key, *ok, *broken; /* broken: a value the rule refuses, or NULL */
} alone_case;

static const alone_case ALONE[] = {
    {0, "friction.breakaway", "1.25", "0.5"},
    {0, "friction.coulomb", "1.25", "2"},
    {0, "friction.breakaway_velocity", "0.02", NULL},
    {0, "friction.viscous", "0.25", NULL},
    {1, "friction.tc", "1.25", NULL},
    {1, "friction.slope", "50", NULL},
    {2, "friction.d", "1", NULL},
    {3, "friction.tc", "0.75", NULL},
    {3, "friction.slope", "200", NULL},
    {3, "friction.d", "1", NULL},
    {4, "friction.tc", "1.25", "2"},
    {4, "friction.tst", "1.25", "0.5"},
    {4, "friction.slope", "50", NULL},
    {4, "friction.v_st", "0.002", NULL},
    {4, "friction.d", "1", NULL},
    {5, "friction.tc", "1.25", "2"},
    {5, "friction.tst", "1.25", "0.5"},
    {5, "friction.v_st", "0.002", NULL},
    {5, "friction.d", "1", NULL},
    {5, "friction.sigma0", "2e4", NULL},
    {5, "friction.sigma1", "50", NULL},
    {6, "contacts.bearing.dynamic", "0.03", NULL},
    {6, "contacts.bearing.static_ratio", "1.5", NULL},
    {6, "contacts.bearing.efficiency_opposing", "0.8", NULL},
    {6, "contacts.bearing.load.value", "0.2", NULL},
    {6, "contacts.guide.tc", "0.35", "0.5"},
    {6, "contacts.guide.tst", "0.5", "0.2"},
    {6, "contacts.guide.sigma0", "2e3", NULL},
    {6, "contacts.1.tst", "0.5", "0.2"},
    {6, "stops.gap.restitution", "0.5", NULL},
};

/* Two runs agree bit for bit: every column's samples and every event time. */
static void assert_same_run(const stsl_cfg *a, const stsl_cfg *b, const char *what)
{
    stsl_result *ra = NULL, *rb = NULL;
    stsl_err e;
    if (stsl_run_result(a, &ra, &e) || stsl_run_result(b, &rb, &e)) fail_msg("%s", e.message);
    long n = stsl_result_n_samples(ra), ne = stsl_result_n_events(ra);
    int nc = stsl_result_n_columns(ra);
    assert_true(n > 10 && n == stsl_result_n_samples(rb));
    assert_true(ne == stsl_result_n_events(rb) && nc == stsl_result_n_columns(rb));
    for (int c = 0; c < nc; c++) {
        const char *name = stsl_result_column_name(ra, c);
        const double *x = stsl_result_column(ra, name), *y = stsl_result_column(rb, name);
        if (!y || memcmp(x, y, (size_t)n * sizeof *x))
            fail_msg("%s: column %s differs", what, name);
    }
    double *ta = calloc((size_t)ne + 1, sizeof *ta), *tb = calloc((size_t)ne + 1, sizeof *tb);
    assert_true(ta && tb);
    if (ne && (stsl_result_events(ra, ta, NULL, NULL, NULL, NULL, NULL, 0, NULL, &e) ||
               stsl_result_events(rb, tb, NULL, NULL, NULL, NULL, NULL, 0, NULL, &e)))
        fail_msg("%s", e.message);
    assert_memory_equal(ta, tb, (size_t)ne * sizeof *ta);
    free(ta);
    free(tb);
    stsl_result_free(ra);
    stsl_result_free(rb);
}

static void set_alone_law_and_named_keys(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ALONE / sizeof ALONE[0]; i++) {
        const alone_case *t = &ALONE[i];
        stsl_err e;
        stsl_cfg *base = stsl_cfg_parse(SMOOTH_BASES[t->base], NULL, &e);
        if (!base) fail_msg("base %d: %s", t->base, e.message);
        stsl_cfg *fast = stsl_cfg_clone(base, &e), *full = stsl_cfg_clone(base, &e);
        stsl_error ef = {0}, es = {0};
        int rf = stsl_config_set_alone(&fast->c, t->key, t->ok, &ef);
        if (rf != STSL_OK) fail_msg("%s=%s: not set alone (%d) %s", t->key, t->ok, rf, ef.msg);
        assert_int_equal(stsl_config_set_reload(&full->c, t->key, t->ok, &es), STSL_OK);
        char *ya = stsl_config_to_yaml(&fast->c), *yb = stsl_config_to_yaml(&full->c);
        assert_string_equal(ya, yb);
        char *got = stsl_config_get(&fast->c, t->key, &ef); /* the value is set */
        assert_true(got && strtod(got, NULL) == strtod(t->ok, NULL));
        free(got);
        assert_same_run(fast, full, t->key);
        free(ya);
        free(yb);
        stsl_cfg_free(fast);
        stsl_cfg_free(full);
        if (t->broken) {
            /* Refused by the rule: left to the reload, config unchanged; the
             * public set words it as the reload does. */
            fast = stsl_cfg_clone(base, &e);
            full = stsl_cfg_clone(base, &e);
            char *before = stsl_config_to_yaml(&fast->c), *after;
            assert_int_equal(stsl_config_set_alone(&fast->c, t->key, t->broken, &ef),
                             STSL_SET_RELOAD);
            after = stsl_config_to_yaml(&fast->c);
            assert_string_equal(before, after);
            int r1 = stsl_config_set(&fast->c, t->key, t->broken, &ef);
            int r2 = stsl_config_set_reload(&full->c, t->key, t->broken, &es);
            assert_int_equal(r1, STSL_EINPUT);
            assert_int_equal(r2, STSL_EINPUT);
            assert_string_equal(ef.msg, es.msg);
            assert_non_null(strstr(ef.msg, "must be >="));
            free(before);
            free(after);
            stsl_cfg_free(fast);
            stsl_cfg_free(full);
        }
        stsl_cfg_free(base);
    }
    /* Out of range: refused on the fast path with the reload's message. */
    static const alone_case BAD[] = {{6, "contacts.bearing.dynamic", "-1", NULL},
                                     {6, "contacts.guide.sigma0", "0", NULL},
                                     {6, "stops.gap.restitution", "2", NULL},
                                     {5, "friction.tst", "-1", NULL}};
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        stsl_err e;
        stsl_cfg *fast = stsl_cfg_parse(SMOOTH_BASES[BAD[i].base], NULL, &e),
                 *full = stsl_cfg_clone(fast, &e);
        stsl_error ef = {0}, es = {0};
        assert_int_equal(stsl_config_set_alone(&fast->c, BAD[i].key, BAD[i].ok, &ef), STSL_EINPUT);
        assert_int_equal(stsl_config_set_reload(&full->c, BAD[i].key, BAD[i].ok, &es), STSL_EINPUT);
        assert_string_equal(ef.msg, es.msg);
        stsl_cfg_free(fast);
        stsl_cfg_free(full);
    }
}

/* A message without its location ("FILE:LINE: " or "--set ARG: "). */
static const char *after_location(const char *msg)
{
    const char *p = strstr(msg, ": ");
    return p ? p + 2 : msg;
}

/* The static level means what the file says, whichever path sets a key:
 * the fast set, the effective YAML round trip and the file itself loaded
 * with `--set KEY=VALUE` (what `stickslip run BASE --set` and a sweep
 * variant do) give the same status, message and configuration, on a base
 * that gives the static level as a force, one that gives the ratio and one
 * that gives neither. */
static void set_static_level_as_file(void **state)
{
    (void)state;
    static const char *const bases[] = {
        "element: {mass: 1}\nfriction: {dynamic: 18, static: 26}\nsimulation: {t_end: 1}\n",
        "element: {mass: 1}\nfriction: {dynamic: 18, static_ratio: 1.5}\nsimulation: {t_end: 1}\n",
        "element: {mass: 1}\nfriction: {dynamic: 18}\nsimulation: {t_end: 1}\n"};
    static const char *const sets[] = {
        "friction.dynamic=12",     "friction.dynamic=18",      "friction.dynamic=26",
        "friction.dynamic=30",     "friction.dynamic=0",       "friction.dynamic=-1",
        "friction.dynamic=abc",    "friction.static=26",       "friction.static=30",
        "friction.static=18",      "friction.static=10",       "friction.static=0",
        "friction.static=nan",     "friction.static='30'",     "friction.static_ratio=2",
        "friction.static_ratio=1", "friction.static_ratio=0.5"};
    int n_ok = 0, n_refused = 0;
    for (size_t b = 0; b < 3; b++)
        for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
            char key[64];
            const char *eq = strchr(sets[i], '=');
            snprintf(key, sizeof key, "%.*s", (int)(eq - sets[i]), sets[i]);
            stsl_config base, ref, fast, slow;
            stsl_error e0 = {0}, ef = {0}, es = {0};
            assert_int_equal(stsl_config_load_string(bases[b], "base", NULL, NULL, 0, &base, &e0),
                             0);
            int rr = stsl_config_load_string(bases[b], "base", NULL, &sets[i], 1, &ref, &e0);
            assert_int_equal(stsl_config_copy(&fast, &base, &ef), 0);
            assert_int_equal(stsl_config_copy(&slow, &base, &es), 0);
            int rf = stsl_config_set(&fast, key, eq + 1, &ef);
            int rs = stsl_config_set_reload(&slow, key, eq + 1, &es);
            if (rf != rr || rs != rr ||
                (rr && (strcmp(ef.msg, es.msg) || strcmp(ef.msg, after_location(e0.msg)))))
                fail_msg("base %zu --set %s: file %d '%s', fast %d '%s', round trip %d '%s'", b,
                         sets[i], rr, e0.msg, rf, ef.msg, rs, es.msg);
            if (!rr) {
                char *yr = stsl_config_to_yaml(&ref), *yf = stsl_config_to_yaml(&fast),
                     *ys = stsl_config_to_yaml(&slow);
                assert_string_equal(yf, yr);
                assert_string_equal(ys, yr);
                assert_true(fast.element.friction.static_ratio ==
                            ref.element.friction.static_ratio);
                free(yr);
                free(yf);
                free(ys);
                stsl_config_free(&ref);
                n_ok++;
            } else
                n_refused++;
            stsl_config_free(&base);
            stsl_config_free(&fast);
            stsl_config_free(&slow);
        }
    assert_true(n_ok >= 15 && n_refused >= 15); /* both outcomes compared */
}

/* What each base keeps when friction.dynamic changes, and what is refused. */
static void set_dynamic_keeps_what_file_gave(void **state)
{
    (void)state;
    stsl_error err = {0};
    stsl_config c;
    assert_int_equal(stsl_config_load(EX("janecek_chirp.yaml"), NULL, 0, &c, &err), 0);
    /* static: 26 (N) stays 26 N: the ratio is recomputed. */
    assert_int_equal(stsl_config_set(&c, "friction.dynamic", "12", &err), 0);
    assert_true(c.element.friction.static_ratio == 26.0 / 12.0);
    char *y = stsl_config_to_yaml(&c);
    assert_non_null(strstr(y, "\n  static: 26\n"));
    assert_null(strstr(y, "static_ratio"));
    free(y);
    /* A dynamic level above the static one: the loader's message. */
    assert_int_equal(stsl_config_set(&c, "friction.dynamic", "30", &err), STSL_EINPUT);
    assert_string_equal(err.msg, "friction.static: must be >= 30 (got 26)");
    assert_true(c.element.friction.dynamic == 12.0);
    /* The static level itself, with the loader's range. */
    assert_int_equal(stsl_config_set(&c, "friction.static", "40", &err), 0);
    assert_true(c.element.friction.static_ratio == 40.0 / 12.0);
    assert_int_equal(stsl_config_set(&c, "friction.static", "11", &err), STSL_EINPUT);
    assert_string_equal(err.msg, "friction.static: must be >= 12 (got 11)");
    stsl_config_free(&c);
    /* static_ratio: 1.0 stays the ratio. */
    assert_int_equal(stsl_config_load(EX("den_hartog.yaml"), NULL, 0, &c, &err), 0);
    double d = c.element.friction.dynamic;
    assert_int_equal(stsl_config_set(&c, "friction.dynamic", "2.5", &err), 0);
    assert_true(c.element.friction.static_ratio == 1.0 && d != 2.5);
    stsl_config_free(&c);
}

/* The message is the CLI's --set message without its "--set ..." prefix. */
static void set_message_as_cli(void **state)
{
    (void)state;
    stsl_err err;
    char out[4096];
    stsl_cfg *c = stsl_cfg_load(EX("janecek_chirp.yaml"), &err);
    assert_non_null(c);
    assert_int_equal(stsl_cfg_set(c, "element.mass", "-1", &err), STSL_RC_INPUT);
    assert_int_equal(err.code, STSL_RC_INPUT);
    assert_string_equal(err.message, "element.mass: must be > 0 (got -1)");
    assert_int_equal(
        tu_cli(out, sizeof out, "check %s --set element.mass=-1", EX("janecek_chirp.yaml")), 2);
    assert_non_null(strstr(out, "--set element.mass=-1: element.mass: must be > 0 (got -1)"));
    /* A failed set leaves the configuration as it was. */
    char *m = stsl_cfg_get(c, "element.mass", &err);
    assert_string_equal(m, "100");
    stsl_free(m);
    /* Keys the effective configuration does not have. */
    assert_int_equal(stsl_cfg_set(c, "friction.nonsense", "1", &err), STSL_RC_INPUT);
    assert_non_null(strstr(err.message, "friction.nonsense: unknown key"));
    assert_null(stsl_cfg_get(c, "friction.nonsense", &err));
    assert_string_equal(err.message, "friction.nonsense: not a key of the effective configuration");
    stsl_cfg_free(c);
}

/* stsl_cfg_set_all names the assignment as its caller gave it, not as an
 * option the caller never typed ("--set ..." it said); the command's
 * --set message is the same text after its own name, byte for byte. */
static void set_all_names_the_assignment(void **state)
{
    (void)state;
    stsl_err err;
    char out[4096];
    stsl_cfg *c = stsl_cfg_load(EX("janecek_chirp.yaml"), &err);
    assert_non_null(c);
    const char *sets[] = {"simulation.scheme=karnopp", "simulation.step=0"};
    assert_int_equal(stsl_cfg_set_all(c, sets, 2, &err), STSL_RC_INPUT);
    assert_string_equal(err.message,
                        "set 'simulation.step=0': simulation.step: must be > 0 (got 0)");
    const char *bad[] = {"simulation.t_end"};
    assert_int_equal(stsl_cfg_set_all(c, bad, 1, &err), STSL_RC_INPUT);
    assert_string_equal(err.message, "set 'simulation.t_end': expected KEY.PATH=VALUE");
    assert_int_equal(tu_cli(out, sizeof out,
                            "check %s --set simulation.scheme=karnopp --set simulation.step=0",
                            EX("janecek_chirp.yaml")),
                     2);
    assert_string_equal(out, "stickslip: error: --set simulation.step=0: simulation.step: must be "
                             "> 0 (got 0)\n");
    stsl_cfg_free(c);
}

static void get_values(void **state)
{
    (void)state;
    stsl_err err;
    stsl_cfg *c = stsl_cfg_load(EX("janecek_chirp.yaml"), &err);
    char *v = stsl_cfg_get(c, "friction.dynamic", &err);
    assert_string_equal(v, "18");
    stsl_free(v);
    v = stsl_cfg_get(c, "friction.law", &err);
    assert_string_equal(v, "coulomb");
    stsl_free(v);
    v = stsl_cfg_get(c, "element.spring", &err);
    assert_string_equal(v, "{stiffness: 8882.6439609804238, free_position: 0}");
    stsl_free(v);
    /* A value read back and set again changes nothing. */
    assert_int_equal(
        stsl_cfg_set(c, "inputs.base_motion", "{type: sine, amplitude: 0.01, frequency: 2}", &err),
        0);
    v = stsl_cfg_get(c, "inputs.base_motion", &err);
    assert_string_equal(v, "{type: sine, amplitude: 0.01, frequency: 2, phase: 0, offset: 0}");
    char *before = stsl_cfg_to_yaml(c, &err);
    assert_int_equal(stsl_cfg_set(c, "inputs.base_motion", v, &err), 0);
    char *after = stsl_cfg_to_yaml(c, &err);
    assert_string_equal(before, after);
    stsl_free(v);
    stsl_free(before);
    stsl_free(after);
    stsl_cfg_free(c);
}

/* ---- clone -------------------------------------------------------------- */

/* A clone owns its table: freeing the original and running the clone is
 * clean (asan would see a shared table as use-after-free or double free),
 * and both give the same run while both live. */
static void clone_is_deep(void **state)
{
    (void)state;
    char dir[256], path[300], yaml[512];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/force.csv", dir);
    assert_int_equal(tu_write_file(path, "time,force\n0,0\n0.5,30\n1,-30\n2,0\n"), 0);
    snprintf(yaml, sizeof yaml,
             "element: {mass: 1}\nfriction: {dynamic: 10, static_ratio: 1.5}\n"
             "inputs: {active_force: {type: table, file: force.csv}}\n"
             "simulation: {t_end: 2}\n");
    stsl_err err;
    stsl_cfg *a = stsl_cfg_parse(yaml, dir, &err);
    assert_non_null(a);
    stsl_cfg *b = stsl_cfg_clone(a, &err);
    assert_non_null(b);
    stsl_summary sa, sb;
    assert_int_equal(stsl_run(a, STSL_OUTPUT_NONE, NULL, &sa, &err), 0);
    stsl_cfg_free(a);
    assert_int_equal(stsl_run(b, STSL_OUTPUT_NONE, NULL, &sb, &err), 0);
    assert_true(sa.n_events > 0);
    assert_int_equal(sa.n_events, sb.n_events);
    assert_memory_equal(sa.final, sb.final, sizeof sa.final);
    assert_memory_equal(sa.first_event_time, sb.first_event_time, sizeof sa.first_event_time);
    stsl_cfg_free(b);
}

/* ---- runs ------------------------------------------------------------------ */

/* The summary of a run without storage, the in-memory result and an HDF5
 * and a CSV run are the same run. */
static void outputs_agree(void **state)
{
    (void)state;
    char dir[256], h5[300], csv[300], csvfile[320];
    tu_mkdtemp(dir, sizeof dir);
    snprintf(h5, sizeof h5, "%s/run.h5", dir);
    snprintf(csv, sizeof csv, "%s/run", dir);
    snprintf(csvfile, sizeof csvfile, "%s/run_events.csv", dir);
    stsl_err err;
    stsl_cfg *c = stsl_cfg_load(EX("janecek_chirp.yaml"), &err);
    stsl_summary s0, s1, s2;
    stsl_result *r = NULL;
    assert_int_equal(stsl_run(c, STSL_OUTPUT_NONE, NULL, &s0, &err), 0);
    assert_int_equal(stsl_run(c, STSL_OUTPUT_HDF5, h5, &s1, &err), 0);
    assert_int_equal(stsl_run(c, STSL_OUTPUT_CSV, csv, &s2, &err), 0);
    assert_int_equal(stsl_run_result(c, &r, &err), 0);
    assert_true(tu_file_exists(h5) && tu_file_exists(csvfile));
    const stsl_summary *sr = stsl_result_summary(r);
    assert_int_equal(s0.complete, 1);
    assert_string_equal(s0.message, "");
    assert_true(s0.t_reached == 9.5);
    const stsl_summary *all[3] = {&s1, &s2, sr};
    for (int i = 0; i < 3; i++) {
        assert_memory_equal(s0.final, all[i]->final, sizeof s0.final);
        assert_memory_equal(s0.events, all[i]->events, sizeof s0.events);
        assert_memory_equal(s0.mode_time, all[i]->mode_time, sizeof s0.mode_time);
        assert_true(s0.dissipated_energy == all[i]->dissipated_energy);
    }
    /* Read by name. */
    long n = stsl_result_n_samples(r), ne = stsl_result_n_events(r);
    const double *t = stsl_result_column(r, "t"), *x = stsl_result_column(r, "x");
    assert_non_null(t);
    assert_non_null(x);
    assert_null(stsl_result_column(r, "nonsense"));
    assert_true(t[n - 1] == 9.5);
    assert_true(x[n - 1] == s0.final[0]);
    assert_string_equal(s0.col_names[0], "x");
    assert_int_equal(ne, s0.n_events);
    stsl_event ev;
    assert_int_equal(stsl_result_event(r, 0, &ev, &err), 0);
    assert_string_equal(ev.kind, "breakaway");
    assert_string_equal(ev.mode_before, "STUCK");
    assert_true(ev.t == stsl_summary_first_event(&s0, "breakaway"));
    assert_int_equal(stsl_result_event(r, ne, &ev, &err), STSL_RC_INPUT);
    assert_true(isnan(stsl_result_event_value(r, 0, "nonsense", 0)));
    assert_true(stsl_result_event_value(r, 0, "v", 0) == 0.0);
    double v;
    assert_int_equal(stsl_result_stat(r, "events.breakaway", &v, &err), 0);
    assert_true(v == (double)stsl_summary_events(&s0, "breakaway"));
    assert_int_equal(stsl_result_stat(r, "mode_time.STUCK", &v, &err), 0);
    assert_true(v > 0 && v == s0.mode_time[0]);
    assert_int_equal(stsl_result_stat(r, "steps", &v, &err), 0);
    assert_true(v == (double)s0.steps);
    assert_int_equal(stsl_result_stat(r, "nonsense", &v, &err), STSL_RC_INPUT);
    assert_int_equal(stsl_summary_events(&s0, "nonsense"), -1);
    stsl_result_free(r);
    stsl_cfg_free(c);
}

/* jac_evals counts CVODE's Jacobian evaluations (CVodeGetNumJacEvals),
 * summed over the segments: every mode switch restarts CVODE (CVodeReInit),
 * which restarts the count.  Den Hartog's element (x0 = 0.105 m, k = 100
 * N/m, F = 1 N) slides in 5 half-cycles (|x| falls by 2F/k = 0.02 m each,
 * from 0.105 to 0.005 <= F/k) and then sticks for good; the stuck segment
 * is not integrated.  What the CVODE user guide (6.4.1, "Mathematical
 * considerations", and CVodeGetNumRhsEvals / CVodeGetNumLinRhsEvals)
 * guarantees for BDF with the dense difference-quotient Jacobian:
 * - J is evaluated when "starting the problem", and each of the 5 slip
 *   segments is a restarted problem that takes steps: at least 5;
 * - each difference-quotient Jacobian costs n = 2 (x, v) calls of the
 *   right-hand side, and every step's corrector calls it at least once;
 *   rhs_evals counts every call: 2 jac_evals + steps <= rhs_evals.
 * Adams (fixed-point iteration) and erk8 form no Jacobian: 0.  The count
 * reaches the file (HDF5 and MAT) and the summary alike. */
static void jac_evals_counted(void **state)
{
    (void)state;
    char dir[256], path[300];
    tu_mkdtemp(dir, sizeof dir);
    const char *methods[] = {"bdf", "adams", "erk8"};
    const char *exts[] = {"h5", "mat"};
    for (int m = 0; m < 3; m++)
        for (int e = 0; e < 2; e++) {
            stsl_err err;
            stsl_cfg *c = stsl_cfg_load(EX("den_hartog.yaml"), &err);
            assert_non_null(c);
            assert_int_equal(stsl_cfg_set(c, "simulation.method", methods[m], &err), 0);
            snprintf(path, sizeof path, "%s/%s.%s", dir, methods[m], exts[e]);
            stsl_summary s;
            assert_int_equal(stsl_run(c, STSL_OUTPUT_AUTO, path, &s, &err), 0);
            stsl_result *r = NULL;
            assert_int_equal(stsl_result_read(path, &r, NULL, &err), 0);
            double jac, steps, rhs;
            assert_int_equal(stsl_result_stat(r, "jac_evals", &jac, &err), 0);
            assert_int_equal(stsl_result_stat(r, "steps", &steps, &err), 0);
            assert_int_equal(stsl_result_stat(r, "rhs_evals", &rhs, &err), 0);
            assert_true(jac == (double)s.jac_evals);
            print_message("%s: %.0f Jacobian evaluations, %.0f steps, %.0f rhs\n", methods[m], jac,
                          steps, rhs);
            if (m == 0) {
                assert_true(jac >= 5.0);
                assert_true(2.0 * jac + steps <= rhs);
            } else {
                assert_true(jac == 0.0);
            }
            stsl_result_free(r);
            stsl_cfg_free(c);
        }
    assert_int_equal(tu_rm_tree(dir), 0);
}

/* Coulomb friction with efficiencies 1 is F_D against the motion, so the
 * energy it dissipates is F_D times the distance slid: the sum of |dx|
 * over the slip segments between events (the velocity keeps its sign
 * inside a segment: a reversal is an event).  The positions at events
 * carry the solver's error (rtol 1e-10 over a few oscillations: ~1e-9
 * relative), and so does the quadrature; 1e-8 relative is asked.  The
 * output grid does not enter: with output_step 0 the figure is the same
 * to the last bit. */
static void dissipated_energy_closed_form(void **state)
{
    (void)state;
    stsl_err err;
    stsl_cfg *c = stsl_cfg_load(EX("janecek_chirp.yaml"), &err);
    stsl_result *r = NULL;
    assert_int_equal(stsl_run_result(c, &r, &err), 0);
    const stsl_summary *s = stsl_result_summary(r);
    double dist = 0.0;
    long ne = stsl_result_n_events(r);
    for (long i = 0; i < ne; i++) {
        stsl_event ev;
        stsl_result_event(r, i, &ev, &err);
        if (strncmp(ev.mode_after, "SLIP", 4)) continue;
        double x0 = stsl_result_event_value(r, i, "x", 1);
        double x1 = i + 1 < ne ? stsl_result_event_value(r, i + 1, "x", 0) : s->final[0];
        dist += fabs(x1 - x0);
    }
    assert_true(dist > 0.01);
    assert_close(s->dissipated_energy, 18.0 * dist, 1e-8 * 18.0 * dist);
    stsl_summary s0;
    assert_int_equal(stsl_cfg_set(c, "simulation.output_step", "0", &err), 0);
    assert_int_equal(stsl_run(c, STSL_OUTPUT_NONE, NULL, &s0, &err), 0);
    assert_true(s0.dissipated_energy == s->dissipated_energy);
    /* Fixed-step schemes have no quadrature: NaN, not a rough figure. */
    const char *karnopp[] = {"simulation.scheme=karnopp", "simulation.step=1e-3"};
    assert_int_equal(stsl_cfg_set(c, "simulation.scheme", "karnopp", &err), STSL_RC_INPUT);
    assert_non_null(strstr(err.message, "simulation.step: missing required key"));
    assert_int_equal(stsl_cfg_set_all(c, karnopp, 2, &err), 0);
    assert_int_equal(stsl_run(c, STSL_OUTPUT_NONE, NULL, &s0, &err), 0);
    assert_true(isnan(s0.dissipated_energy));
    stsl_result_free(r);
    stsl_cfg_free(c);
}

/* Run a YAML text into a summary that must end stuck (v = 0). */
static void run_to_rest(const char *yaml, stsl_summary *s)
{
    stsl_err err;
    stsl_cfg *c = stsl_cfg_parse(yaml, NULL, &err);
    assert_non_null(c);
    assert_int_equal(stsl_run(c, STSL_OUTPUT_NONE, NULL, s, &err), 0);
    assert_int_equal(s->complete, 1);
    assert_string_equal(s->final_mode, "STUCK");
    assert_string_equal(s->col_names[0], "x");
    assert_string_equal(s->col_names[1], "v");
    assert_true(s->final[1] == 0.0);
    stsl_cfg_free(c);
}

/* A Stribeck level varies with the speed, so the energy is the quadrature
 * of F_f v.  Checked against the energy balance, which does not use it: a
 * spring-mass released from x0 at rest, with no damper and no input, comes
 * to rest at x_end (several reversals on the way), so friction took
 * k (x0^2 - x_end^2) / 2.  The quadrature rides on the state's steps with
 * the state's method and order; its error is of the state's order (rtol
 * 1e-10 over ~10 segments: ~1e-9 relative), and x_end carries the state's
 * error (~1e-12 m, 1e-11 of the energy).  1e-7 relative leaves a margin of
 * 100 and still catches a segment left out or counted twice (each carries
 * more than 1 % of the energy). */
static void dissipated_energy_stribeck_balance(void **state)
{
    (void)state;
    const char *yaml = "element: {mass: 1.0, spring: {stiffness: 100.0}}\n"
                       "friction: {law: stribeck, dynamic: 1.0, static_ratio: 1.5,\n"
                       "           stribeck_velocity: 0.1}\n"
                       "initial: {position: 0.2, velocity: 0.0}\n"
                       "simulation: {t_end: 10.0, output_step: 0, rtol: 1e-10, atol: 1e-12}\n";
    stsl_summary s;
    run_to_rest(yaml, &s);
    assert_true(stsl_summary_events(&s, "reversal") >= 4);
    double x1 = s.final[0];
    double balance = 0.5 * 100.0 * (0.2 * 0.2 - x1 * x1);
    assert_true(balance > 1.9);
    assert_close(s.dissipated_energy, balance, 1e-7 * balance);
}

/* A constant aiding load with EtA < 1 raises the level to F_D = 3 +
 * (1 - 0.5) 2 = 4 N (a constant level: the exact path, with the load's
 * share).  From v0 = 1 m/s the net deceleration is (4 - 2) / 1 = 2 m/s^2,
 * so the element stops at x = 1 / (2 2) = 0.25 m having taken
 * 4 0.25 = 1 J, which the energy balance confirms: m v0^2 / 2 + F_R x_end.
 * x_end carries the state's error (rtol 1e-10): 1e-9 relative is asked. */
static void dissipated_energy_constant_load(void **state)
{
    (void)state;
    const char *yaml = "element: {mass: 1.0}\n"
                       "friction: {law: coulomb, dynamic: 3.0, static_ratio: 1.5,\n"
                       "           efficiency_opposing: 0.8, efficiency_aiding: 0.5}\n"
                       "inputs: {load: {type: constant, value: 2.0}}\n"
                       "initial: {position: 0.0, velocity: 1.0}\n"
                       "simulation: {t_end: 1.0, output_step: 0, rtol: 1e-10, atol: 1e-12}\n";
    stsl_summary s;
    run_to_rest(yaml, &s);
    assert_close(s.final[0], 0.25, 1e-9 * 0.25);
    assert_close(s.dissipated_energy, 1.0, 1e-9);
    assert_close(s.dissipated_energy, 0.5 + 2.0 * s.final[0], 1e-9);
}

/* ---- errors ---------------------------------------------------------------- */

static void errors_are_values(void **state)
{
    (void)state;
    stsl_err err;
    assert_null(stsl_cfg_load("/nonexistent/x.yaml", &err));
    assert_int_equal(err.code, STSL_RC_INPUT);
    assert_non_null(strstr(err.message, "cannot open /nonexistent/x.yaml"));
    assert_null(stsl_cfg_parse("element: {mass: 0}\n", NULL, &err));
    assert_non_null(strstr(err.message, "<string>:1: element.mass: must be > 0 (got 0)"));
    assert_null(stsl_cfg_load(NULL, NULL)); /* NULL err is allowed */
    /* A run that fails still reports how far it got. */
    stsl_cfg *c = stsl_cfg_load(EX("janecek_chirp.yaml"), &err);
    assert_int_equal(stsl_cfg_set(c, "simulation.max_events", "3", &err), 0);
    stsl_summary s;
    assert_int_equal(stsl_run(c, STSL_OUTPUT_NONE, NULL, &s, &err), STSL_RC_MAXEVENTS);
    assert_int_equal(s.complete, 0);
    assert_true(s.t_reached > 0 && s.t_reached < 9.5);
    assert_true(strlen(s.message) > 0);
    assert_int_equal(stsl_run(c, STSL_OUTPUT_HDF5, "", &s, &err), STSL_RC_INPUT);
    assert_string_equal(stsl_rc_name(STSL_RC_SOLVER), "solver failure");
    assert_string_equal(stsl_lib_version(), "0.1.0");
    stsl_cfg_free(c);
}

/* A system's summary names its columns after the run is gone (the model
 * that made "x[a]" is freed when stsl_run returns; ASan sees a dangling
 * name), with the run's own values: a body pushed by 2 N against 1 N of
 * Coulomb friction from rest moves x = (2 - 1) t^2 / (2 m) = 0.25 m by t = 1 s. */
static void system_summary_owns_names(void **state)
{
    (void)state;
    stsl_err err;
    stsl_cfg *c = stsl_cfg_parse("bodies: {a: {mass: 2.0}, b: {mass: 1.0}}\n"
                                 "contacts:\n  - {body: a, law: coulomb, dynamic: 1.0}\n"
                                 "inputs: {forces: {a: {type: constant, value: 2.0}}}\n"
                                 "simulation: {t_end: 1.0, rtol: 1e-10}\n",
                                 NULL, &err);
    assert_non_null(c);
    stsl_summary s;
    assert_int_equal(stsl_run(c, STSL_OUTPUT_NONE, NULL, &s, &err), STSL_RC_OK);
    stsl_cfg_free(c);
    assert_string_equal(s.col_names[0], "x[a]");
    assert_string_equal(s.col_names[1], "x[b]");
    /* 1e-8: the position to rtol 1e-10 of a 0.25 m swing, with room */
    assert_true(fabs(s.final[0] - 0.25) < 1e-8);
    assert_true(s.final[1] == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_equals_round_trip),
        cmocka_unit_test(set_message_as_cli),
        cmocka_unit_test(set_all_names_the_assignment),
        cmocka_unit_test(set_alone_law_and_named_keys),
        cmocka_unit_test(set_static_level_as_file),
        cmocka_unit_test(set_dynamic_keeps_what_file_gave),
        cmocka_unit_test(get_values),
        cmocka_unit_test(clone_is_deep),
        cmocka_unit_test(outputs_agree),
        cmocka_unit_test(jac_evals_counted),
        cmocka_unit_test(dissipated_energy_closed_form),
        cmocka_unit_test(dissipated_energy_stribeck_balance),
        cmocka_unit_test(dissipated_energy_constant_load),
        cmocka_unit_test(errors_are_values),
        cmocka_unit_test(system_summary_owns_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
