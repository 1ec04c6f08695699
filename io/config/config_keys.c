/* config_keys.c - see config_keys.h. */
#include "io/config/config_keys.h"

#include <stdlib.h>
#include <string.h>

#include "run/fixed_step.h"

/* Tighter than 1e-14 is below double rounding for CVODE; looser than 1e-2
 * would locate events too coarsely to be worth running (erk8 goes to
 * 1e-15: io/config/config.c). */
static const stsl_cr_range stsl_key_rtol = {1e-14, 1e-2, 0, 0, NULL, 0.0};

#define NUM(path, also, r, req, def, dtext, units, doc, home, type, field, when)                   \
    {                                                                                              \
        path, also, STSL_KEY_NUMBER, r, req, def, dtext, units, doc, STSL_HOME_##home,             \
            offsetof(type, field), STSL_WHEN_##when                                                \
    }
#define CFG(path, r, req, def, dtext, units, doc, field, when)                                     \
    NUM(path, NULL, r, req, def, dtext, units, doc, CONFIG, stsl_config, field, when)
#define FRI(key, r, req, def, dtext, units, doc, field, when)                                      \
    NUM("friction." key, "contacts.N", r, req, def, dtext, units, doc, FRICTION,                   \
        stsl_friction_params, field, when)
#define STP(key, r, req, def, dtext, units, doc, field, when)                                      \
    NUM("end_stops." key, "stops.N", r, req, def, dtext, units, doc, STOP, stsl_system_stop,       \
        p.field, when)
#define OTHER(path, also, type, dtext, doc)                                                        \
    {                                                                                              \
        path, also, STSL_KEY_##type, NULL, 0, 0.0, dtext, "", doc, STSL_HOME_NONE, 0,              \
            STSL_WHEN_NEVER                                                                        \
    }
/* A smooth law's parameter: its range and default are the law's
 * (config_read.c).  The levels a rule ties together (breakaway >= coulomb,
 * tst >= tc) are set alone too: stsl_config_set checks the rule after. */
#define LAW(field, units, doc, when)                                                               \
    {                                                                                              \
        "friction." #field, "contacts.N", STSL_KEY_LAW_PARAM, NULL, 0, 0.0, NULL, units, doc,      \
            STSL_HOME_FRICTION, offsetof(stsl_friction_params, field), STSL_WHEN_##when            \
    }

#define R_POS    (&stsl_cr_pos)
#define R_NONNEG (&stsl_cr_nonneg)

static const stsl_key KEYS[] = {
    OTHER("description", NULL, TEXT, "—", "free text"),
    OTHER("domain", NULL, NAME, "`translational`",
          "`translational` \\| `rotational` (labels and units only)"),
    CFG("element.mass", R_POS, 1, 0, NULL, "kg", "mass (rotational: `element.inertia`)",
        element.mass, TRANSL),
    CFG("element.inertia", R_POS, 1, 0, NULL, "kg·m²", "the rotational element's mass",
        element.mass, ROT),
    CFG("element.spring.stiffness", R_NONNEG, 1, 0, "no spring", "N/m", "spring stiffness k",
        element.stiffness, ALWAYS),
    CFG("element.spring.free_position", NULL, 0, 0, NULL, "m", "x_s", element.free_position,
        ALWAYS),
    CFG("element.damper.coefficient", R_NONNEG, 1, 0, "no damper", "N·s/m",
        "c (also viscous friction)", element.damping, ALWAYS),
    OTHER("friction.law", "contacts.N", NAME, "`coulomb`",
          "`coulomb` \\| `stribeck` (hybrid); `simscape` \\| `20sim_c` \\| `20sim_v` \\| "
          "`20sim_cv` \\| `20sim_scvs` \\| `lugre` (smooth)"),
    FRI("dynamic", R_NONNEG, 1, 0, NULL, "N", "F_DJ, the dynamic level without load", dynamic,
        HYBRID),
    FRI("static_ratio", &stsl_cr_ge1, 0, 1, NULL, "", "FSD = static / dynamic level", static_ratio,
        NOT_FORCE),
    FRI("static", NULL, 0, 0, "—", "N", "static level >= dynamic > 0, instead of `static_ratio`",
        static_force, NOT_RATIO),
    FRI("efficiency_opposing", &stsl_cr_eff_opp, 0, 1, NULL, "", "EtO", eff_opposing, HYBRID),
    FRI("efficiency_aiding", &stsl_cr_eff_aid, 0, 1, NULL, "", "EtA; <= 0 irreversible", eff_aiding,
        HYBRID),
    FRI("stribeck_velocity", R_POS, 1, 0, "required for `stribeck`", "m/s", "v_s",
        stribeck_velocity, STRIBECK),
    FRI("stribeck_exponent", R_POS, 0, 2, NULL, "", "delta (`stribeck` only)", stribeck_exponent,
        STRIBECK),
    LAW(breakaway, "N", "T_brk >= `coulomb`", ALWAYS),
    LAW(coulomb, "N", "T_C", ALWAYS),
    LAW(breakaway_velocity, "m/s", "w_brk", ALWAYS),
    LAW(viscous, "N·s/m", "f", ALWAYS),
    LAW(tc, "N", "Coulomb level Tc", ALWAYS),
    LAW(tst, "N", "static level Tst >= `tc`", ALWAYS),
    LAW(slope, "s/m", "steepness", ALWAYS),
    LAW(v_st, "m/s", "Stribeck velocity", ALWAYS),
    LAW(d, "N·s/m", "viscous d", ALWAYS),
    LAW(sigma0, "N/m", "bristle stiffness", ALWAYS),
    LAW(sigma1, "N·s/m", "bristle damping", ALWAYS),
    STP("min", NULL, 1, 0, "no stops", "m", "x_min < `max`", x_min, NEVER),
    STP("max", NULL, 1, 0, "no stops", "m", "x_max > `min`", x_max, NEVER),
    OTHER("end_stops.model", "stops.N", NAME, "`rigid`",
          "`rigid` \\| `compliant` (spring-damper contact, never pulling)"),
    STP("restitution", &stsl_cr_unit, 0, 0, NULL, "", "e (rigid stops only)", restitution, RIGID),
    STP("stiffness", R_POS, 1, 0, "required for `compliant`", "N/m", "contact stiffness k",
        stiffness, COMPLIANT),
    STP("damping", R_NONNEG, 0, 0, NULL, "N·s/m", "contact damping c (`compliant` only)", damping,
        COMPLIANT),
    OTHER("inputs.active_force", NULL, SIGNAL, "constant 0", "signal, N"),
    OTHER("inputs.load", NULL, SIGNAL, "constant 0",
          "signal, N (its sign relative to the motion selects EtO or EtA)"),
    OTHER("inputs.base_motion", NULL, SIGNAL, "constant 0",
          "signal, m (friction, stops and spring move with the base)"),
    OTHER("inputs.anchor_motion", NULL, SIGNAL, "absent",
          "signal, m: spring and damper attach to this anchor instead of the base"),
    CFG("initial.position", NULL, 0, 0, NULL, "m", "x0 relative to the base; inside the stops",
        element.x0, NO_STOPS),
    CFG("initial.velocity", NULL, 0, 0, NULL, "m/s", "v0 relative to the base", element.v0, ALWAYS),
    CFG("simulation.t_end", R_POS, 1, 0, NULL, "s", "end time", sim.t_end, EVENT_DRIVEN),
    CFG("simulation.output_step", R_NONNEG, 0, 0.001, NULL, "s",
        "0 = events and segment ends only; at most 1e8 samples", sim.output_step, ALWAYS),
    CFG("simulation.rtol", &stsl_key_rtol, 0, 1e-10, NULL, "",
        "relative tolerance (`method: erk8`: down to 1e-15)", sim.rtol, ALWAYS),
    CFG("simulation.atol", R_POS, 0, 0, "`auto`", "state units",
        "absolute tolerance; `auto`: derived per state component from `rtol` "
        "([numerics.md](numerics.md#tolerances))",
        sim.atol, ALWAYS),
    CFG("simulation.accuracy", &stsl_key_rtol, 0, 0, "absent", "",
        "sets `rtol` (`erk8`: down to 1e-15); not with `rtol` in one file", sim.rtol, NEVER),
    OTHER("simulation.verify", NULL, NAME, "`off`",
          "`off` \\| `on` \\| `strict`: a second run at rtol/100 estimates the error"),
    /* A long in the config: read through a double, never set alone. */
    {"simulation.max_events", NULL, STSL_KEY_NUMBER, NULL, 0, 100000, NULL, "",
     "a positive integer", STSL_HOME_NONE, 0, STSL_WHEN_NEVER},
    OTHER("simulation.method", NULL, NAME, "`auto`",
          "`auto` \\| `adams` \\| `bdf` \\| `erk8` ([numerics.md](numerics.md#the-erk8-method))"),
    OTHER("simulation.scheme", NULL, NAME, "`event_driven`",
          "`event_driven` \\| `karnopp` \\| `fixed_step_hybrid` \\| `smooth_rk4` "
          "([validation.md](validation.md#fixed-step-schemes))"),
    CFG("simulation.step", R_POS, 1, 0, "required for the fixed-step schemes", "s",
        "<= t_end; refused with `event_driven`", scheme.step, NEVER),
    /* Karnopp's band dv and the tanh scale v_reg of smooth_rk4 on a hybrid law,
     * in velocity units.  The band must be wider than the velocity change of
     * one step near rest, h |a| / 2, or the scheme steps over it and misses the
     * stick; a wider band sticks early, moving the stop by about dv^2 / (2 |a|).
     * 1e-4 m/s catches the zero crossing for h |a| < 2e-4 m/s (Den Hartog,
     * |a| = 1.5 m/s^2 at its stop: h up to 1e-4 s) and costs a position error
     * of 3e-9 m there.  For the tanh law v_reg trades creep (v_reg atanh(F_n /
     * F_D) under a holding force) against stiffness (RK4 is stable for
     * h < 2.78 m v_reg / F_D): the same 1e-4 keeps the creep below 1e-4 m/s. */
    CFG("simulation.karnopp_band", R_POS, 0, 1e-4, NULL, "m/s", "dv, `karnopp` only",
        scheme.karnopp_band, KARNOPP),
    CFG("simulation.regularisation_velocity", R_POS, 0, 1e-4, NULL, "m/s",
        "v_reg of the tanh law, `smooth_rk4` with a hybrid law only",
        scheme.regularisation_velocity, RK4_HYBRID),
    OTHER("output.file", NULL, TEXT, "`results/<name>.h5`", "path of the result"),
    NUM("bodies.NAME.mass", NULL, R_POS, 1, 0, NULL, "kg", "a body's mass", BODY, stsl_body, mass,
        TRANSL),
    NUM("bodies.NAME.inertia", NULL, R_POS, 1, 0, NULL, "kg·m²", "a rotating body's mass", BODY,
        stsl_body, mass, ROT),
    NUM("bodies.NAME.position", NULL, NULL, 0, 0, NULL, "m", "x0; inside the body's stops", BODY,
        stsl_body, x0, NO_STOPS),
    NUM("bodies.NAME.velocity", NULL, NULL, 0, 0, NULL, "m/s", "v0", BODY, stsl_body, v0, ALWAYS),
    OTHER("couplings.N.between", NULL, MAPPING, "required", "[A, B]: a body and another end"),
    NUM("couplings.N.stiffness", NULL, R_NONNEG, 0, 0, NULL, "N/m", "spring", COUPLING,
        stsl_coupling, stiffness, ALWAYS),
    NUM("couplings.N.damping", NULL, R_NONNEG, 0, 0, NULL, "N·s/m", "damper", COUPLING,
        stsl_coupling, damping, ALWAYS),
    NUM("couplings.N.free_length", NULL, NULL, 0, 0, NULL, "m", "spring length at rest", COUPLING,
        stsl_coupling, free_length, ALWAYS),
    OTHER("contacts.N.name", "stops.N", TEXT, "`contacts.N`, `stops.N`",
          "a name in results, events and messages"),
    OTHER("contacts.N.body", "stops.N", TEXT, "—", "A: against the base"),
    OTHER("contacts.N.between", "stops.N", MAPPING, "—", "[A, B], instead of `body`"),
    OTHER("contacts.N.load", NULL, SIGNAL, "absent", "signal, N: the load F_R on the first end"),
    OTHER("inputs.forces.NAME", NULL, SIGNAL, "absent", "signal, N: a force on the body NAME"),
};
#undef NUM
#undef CFG
#undef FRI
#undef STP
#undef OTHER
#undef LAW
#define N_KEYS ((int)(sizeof KEYS / sizeof KEYS[0]))

const stsl_key *stsl_keys(int *n)
{
    *n = N_KEYS;
    return KEYS;
}

/* `path` is the entry's own path, or its `also` prefix with the rest of it. */
static int is_path_of(const stsl_key *k, const char *path)
{
    if (!strcmp(k->path, path)) return 1;
    if (!k->also) return 0;
    size_t n = strlen(k->also);
    const char *rest = strrchr(k->path, '.');
    return rest && !strncmp(path, k->also, n) && !strcmp(path + n, rest);
}

const stsl_key *stsl_key_find(const char *path)
{
    for (int i = 0; i < N_KEYS; i++)
        if (is_path_of(&KEYS[i], path)) return &KEYS[i];
    return NULL;
}

static int hybrid(const stsl_friction_params *f);
static int applies(const stsl_config *cfg, const stsl_key *k, const void *home);

/* ------------------------------------------------------------ paths */

static int all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return n > 0;
}

/* A concrete path as its generic one: items of a sequence become N (a
 * contact or stop named by its `name:` too, the loader's messages name
 * it so), body names NAME; *index (-1 for a name) and *name (NULL when
 * none) say which, when asked. */
static void generic(const char *path, char out[KEYPATH_MAX], long *index, const char **name)
{
    size_t used = 0;
    int body = 0, item = 0;
    long i_unused;
    const char *name_unused;
    index = index ? index : &i_unused;
    name = name ? name : &name_unused;
    *index = -1;
    *name = NULL;
    for (const char *seg = path; seg && used < KEYPATH_MAX - 8;) {
        const char *dot = strchr(seg, '.');
        size_t n = dot ? (size_t)(dot - seg) : strlen(seg);
        const char *put = seg;
        if ((all_digits(seg, n) && *index < 0) || item) {
            *index = item && !all_digits(seg, n) ? -1 : strtol(seg, NULL, 10);
            put = "N", n = 1;
        } else if (body) {
            *name = seg;
            put = "NAME", n = 4;
        }
        body = used == 0 && !strncmp(seg, "bodies", n) && n == 6;
        item = used == 0 &&
               ((n == 8 && !strncmp(seg, "contacts", 8)) || (n == 5 && !strncmp(seg, "stops", 5)));
        if (used + n + 2 >= KEYPATH_MAX) break;
        if (used) out[used++] = '.';
        memcpy(out + used, put, n);
        used += n;
        seg = dot ? dot + 1 : NULL;
    }
    out[used] = '\0';
}

int stsl_key_read(const stsl_cr_map *m, const char *key, double *out, const stsl_cr_range *r)
{
    char path[KEYPATH_MAX], gen[KEYPATH_MAX];
    stsl_cr_join(path, m->path, key);
    generic(path, gen, NULL, NULL);
    const stsl_key *k = stsl_key_find(gen);
    /* Every number the loader reads is in the table: a missing entry is a
     * programming error that test_config_keys catches. */
    if (!k || k->type != STSL_KEY_NUMBER)
        return stsl_cr_fail(m->c, m->id, path, "internal: not a number key of the table");
    return stsl_cr_map_num(m, key, k->required, k->def, r ? r : k->r, out);
}

/* ------------------------------------------------------------ reading */

/* What `k` holds under the generic path `gen` (the rest of its path after
 * "gen."), or NULL when it is not under it. */
static const char *child_of(const stsl_key *k, const char *gen)
{
    size_t n = strlen(gen);
    const char *rest = k->also && !strcmp(gen, k->also) ? strrchr(k->path, '.')
                       : !strncmp(k->path, gen, n)      ? k->path + n
                                                        : "";
    return *rest == '.' ? rest + 1 : NULL;
}

/* The keys a mapping at the generic path `gen` allows: the next segment
 * of every entry under it (copied into `store`), in the table's order. */
static void names_under(const char *gen, char store[][KEY_NAME_LEN], const char **out)
{
    int used = 0;
    for (int i = 0; i < N_KEYS && used < KEY_NAMES_MAX - 1; i++) {
        const char *rest = child_of(&KEYS[i], gen);
        if (!rest) continue;
        int len = (int)strcspn(rest, "."), seen = 0;
        snprintf(store[used], KEY_NAME_LEN, "%.*s", len, rest);
        for (int j = 0; j < used && !seen; j++)
            seen = !strcmp(out[j], store[used]);
        if (!seen) out[used] = store[used], used++;
    }
    out[used] = NULL;
}

int stsl_key_open(stsl_cr_ctx *c, int id, const char *path, stsl_cr_map *m)
{
    char gen[KEYPATH_MAX], store[KEY_NAMES_MAX][KEY_NAME_LEN];
    const char *names[KEY_NAMES_MAX];
    generic(path, gen, NULL, NULL);
    names_under(gen, store, names);
    return stsl_cr_map_open(c, id, path, names, m);
}

/* The law parameter `k` under the law in `f` (NULL: not the law's). */
static const stsl_cr_param *law_param(const stsl_key *k, const stsl_friction_params *f)
{
    for (const stsl_cr_param *lp = stsl_cr_law_params(f->law); lp && lp->key; lp++)
        if (!strcmp(lp->key, strrchr(k->path, '.') + 1)) return lp;
    return NULL;
}

/* Whether the key `k` exists for the struct `home` holds it in (those of
 * the rules `when` that say so, not the rules between keys; the smooth
 * law's own table); `cfg` (NULL: translational) gives the domain. */
static int takes(const stsl_config *cfg, const stsl_key *k, const void *home)
{
    if (k->type == STSL_KEY_LAW_PARAM) return law_param(k, home) != NULL;
    if (k->when >= STSL_WHEN_NOT_RATIO) return hybrid(home);
    return k->when < STSL_WHEN_TRANSL || applies(cfg, k, home);
}

int stsl_key_refuse_others(const stsl_cr_map *m, const char *section, const void *home,
                           const char *rule, const char *name)
{
    for (int i = 0; i < N_KEYS; i++) {
        const stsl_key *k = &KEYS[i];
        char path[KEYPATH_MAX];
        const char *key = child_of(k, section);
        int id = !key || takes(NULL, k, home) ? 0 : stsl_cr_map_find(m, key);
        if (!id) continue;
        stsl_cr_join(path, m->path, key);
        /* A Stribeck key with another hybrid law: name the law it needs. */
        if (k->when == STSL_WHEN_STRIBECK && hybrid(home))
            return stsl_cr_fail(m->c, id, path, "only allowed with %s.%s: stribeck", m->path, rule);
        return stsl_cr_fail(m->c, id, path, "not a parameter of %s.%s: %s", m->path, rule, name);
    }
    return STSL_OK;
}

int stsl_key_read_all(const stsl_cr_map *m, void *home)
{
    char gen[KEYPATH_MAX];
    int rc = STSL_OK;
    generic(m->path, gen, NULL, NULL);
    for (int i = 0; !rc && i < N_KEYS; i++) {
        const stsl_key *k = &KEYS[i];
        const char *key = child_of(k, gen);
        if (key && !strchr(key, '.') && k->type == STSL_KEY_NUMBER && takes(NULL, k, home))
            rc = stsl_key_read(m, key, (double *)((char *)home + k->off), NULL);
    }
    return rc;
}

/* ------------------------------------------------------------ slots */

static int hybrid(const stsl_friction_params *f)
{
    return !stsl_law_is_smooth(f->law);
}

static int has_stops(const stsl_config *cfg)
{
    return cfg->is_system ? cfg->system.n_stops > 0 : cfg->element.has_stops;
}

/* Whether `k`'s rule `when` holds for its number in `home`. */
static int applies(const stsl_config *cfg, const stsl_key *k, const void *home)
{
    const stsl_friction_params *f = home;
    const stsl_system_stop *st = home;
    stsl_domain d = !cfg             ? STSL_DOMAIN_TRANSLATIONAL
                    : cfg->is_system ? cfg->system.domain
                                     : cfg->element.domain;
    switch (k->when) {
    case STSL_WHEN_NEVER:
        return 0;
    case STSL_WHEN_TRANSL:
        return d == STSL_DOMAIN_TRANSLATIONAL;
    case STSL_WHEN_ROT:
        return d == STSL_DOMAIN_ROTATIONAL;
    case STSL_WHEN_HYBRID:
        return hybrid(f);
    case STSL_WHEN_STRIBECK:
        return f->law == STSL_LAW_STRIBECK;
    case STSL_WHEN_NOT_RATIO:
        return hybrid(f) && f->static_given != STSL_STATIC_RATIO;
    case STSL_WHEN_NOT_FORCE:
        return hybrid(f) && f->static_given != STSL_STATIC_FORCE;
    case STSL_WHEN_NO_STOPS:
        return !has_stops(cfg);
    case STSL_WHEN_EVENT_DRIVEN:
        return cfg->scheme.kind == STSL_SCHEME_EVENT_DRIVEN;
    case STSL_WHEN_KARNOPP:
        return cfg->scheme.kind == STSL_SCHEME_KARNOPP;
    case STSL_WHEN_RK4_HYBRID:
        return cfg->scheme.kind == STSL_SCHEME_SMOOTH_RK4 && hybrid(&cfg->element.friction);
    case STSL_WHEN_RIGID:
        return st->model == STSL_STOP_RIGID;
    case STSL_WHEN_COMPLIANT:
        return st->model == STSL_STOP_COMPLIANT;
    default:
        return 1;
    }
}

/* The struct `k`'s number lives in for the concrete key (NULL: none). */
static void *home_of(stsl_config *cfg, const stsl_key *k, int system, long i, const char *name)
{
    stsl_system *s = &cfg->system;
    if (system != cfg->is_system && k->home != STSL_HOME_CONFIG) return NULL;
    switch (k->home) {
    case STSL_HOME_CONFIG:
        /* The element's keys (not simulation.*) are not a system's. */
        return cfg->is_system && strncmp(k->path, "simulation.", 11) ? NULL : cfg;
    case STSL_HOME_FRICTION:
        return !system             ? (void *)&cfg->element.friction
               : i < s->n_contacts ? (void *)&s->contacts[i].friction
                                   : NULL;
    case STSL_HOME_STOP:
        return system && i < s->n_stops ? &s->stops[i] : NULL;
    case STSL_HOME_COUPLING:
        return i < s->n_couplings ? &s->couplings[i] : NULL;
    case STSL_HOME_BODY:
        for (int b = 0; name && b < s->n_bodies; b++)
            if (!strncmp(name, s->bodies[b].name, strlen(s->bodies[b].name)) &&
                name[strlen(s->bodies[b].name)] == '.')
                return &s->bodies[b];
        return NULL;
    default:
        return NULL;
    }
}

double *stsl_key_slot(stsl_config *cfg, const char *key, const stsl_key **out,
                      const stsl_cr_range **r)
{
    char gen[KEYPATH_MAX];
    long i;
    const char *name;
    generic(key, gen, &i, &name);
    const stsl_key *k = stsl_key_find(gen);
    if (!k || k->home == STSL_HOME_NONE || strlen(key) >= KEYPATH_MAX) return NULL;
    /* A path under the entry's `also` (or an indexed one) is a system's;
     * its item by index (by_index turns names into indices). */
    int system = strcmp(gen, k->path) || i >= 0 || name;
    if (system && i < 0 && !name) return NULL;
    void *home = home_of(cfg, k, system, i, name);
    if (!home || !applies(cfg, k, home) || !takes(cfg, k, home)) return NULL;
    *out = k;
    *r = k->type == STSL_KEY_LAW_PARAM ? law_param(k, home)->r : k->r;
    return (double *)((char *)home + k->off);
}

/* ------------------------------------------------------------ writing */

void stsl_key_put(FILE *f, const stsl_config *cfg, const char *prefix, const void *home,
                  const char *pre, const char *post, int first)
{
    const stsl_friction_params *fr = home;
    for (int i = 0; i < N_KEYS; i++) {
        const stsl_key *k = &KEYS[i];
        const char *key = child_of(k, prefix);
        int level = k->when == STSL_WHEN_NOT_FORCE || k->when == STSL_WHEN_NOT_RATIO;
        if ((k->type != STSL_KEY_NUMBER && k->type != STSL_KEY_LAW_PARAM) || !key ||
            strchr(key, '.') || !takes(cfg, k, home))
            continue;
        /* The static level in the words the file used, so that loading this
         * again keeps what a later dynamic level keeps; the default is stated
         * as a comment (block style only), since writing it would make it a
         * given ratio and refuse a later static. */
        if (level && fr->static_given == STSL_STATIC_DEFAULT && k->when == STSL_WHEN_NOT_FORCE &&
            !strcmp(post, "\n"))
            fprintf(f, "%s# static_ratio: 1 (the default: the static level is the dynamic one)\n",
                    pre);
        if (level && fr->static_given !=
                         (k->when == STSL_WHEN_NOT_FORCE ? STSL_STATIC_RATIO : STSL_STATIC_FORCE))
            continue;
        fprintf(f, "%s%s: %.17g%s", first ? "" : pre, key,
                *(const double *)((const char *)home + k->off), post);
        first = 0;
    }
}
