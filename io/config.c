/* config.c - the YAML configuration (see config.h).
 *
 * The file is loaded with libyaml's document API into a node graph that keeps
 * the line of every node.  `--set` overrides are grafted into that graph
 * before anything is validated, so an override is checked by exactly the same
 * code as the file; the node ids a stsl_cr_graft added are remembered so that errors
 * in them name the `--set` argument instead of a line of the file.
 * Validation is a walk over a fixed schema: every mapping is opened with its
 * list of allowed keys (which rejects unknown and duplicate keys), then each
 * key is read with its type, default and admissible range. */
#include "io/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "io/config_read.h"
#include "io/config_system.h"
#include "io/text_input.h"

/* Deeper override values are refused: no configuration key is nested that
 * deep, and the bound also stops a self-referencing alias from recursing. */
#define SET_DEPTH_MAX 32

/* Most output samples a run may produce: about 80 bytes each in the HDF5
 * file (time, mode and up to nine columns), so 8 GB. */
#define MAX_SAMPLES 1e8
/* Tighter than 1e-14 is below double rounding for CVODE; looser than 1e-2
 * would locate events too coarsely to be worth running. */
static const stsl_cr_range R_RTOL = {1e-14, 1e-2, 0, 0, NULL, 0.0};
/* The erk8 method (Fehlberg 7(8), events located to the rounding of t)
 * goes further: ERK8_RTOL_MIN, argued in docs/numerics.md. */
#define ERK8_RTOL_MIN 1e-15
static const stsl_cr_range R_RTOL_ERK8 = {ERK8_RTOL_MIN, 1e-2, 0, 0, NULL, 0.0};

/* ---------------------------------------------------------------- sections */

static const char *const TOP_KEYS[] = {"description", "domain", "element", "friction", "end_stops",
                                       "inputs", "initial", "simulation", "output",
                                       /* a system of bodies (io/config_system.c) */
                                       "bodies", "couplings", "contacts", "stops", NULL};
static const char *const ELEMENT_KEYS[] = {"mass", "inertia", "spring", "damper", NULL};
static const char *const SPRING_KEYS[] = {"stiffness", "free_position", NULL};
static const char *const DAMPER_KEYS[] = {"coefficient", NULL};
static const char *const INPUT_KEYS[] = {"active_force", "load", "base_motion", "anchor_motion",
                                         NULL};
static const char *const INITIAL_KEYS[] = {"position", "velocity", NULL};
static const char *const SIM_KEYS[] = {
    "t_end",    "rtol",   "atol", "output_step",  "max_events",
    "method",   "scheme", "step", "karnopp_band", "regularisation_velocity",
    "accuracy", "verify", NULL};
/* The models' own name tables, index = enum value (one definition each). */
#define SCHEME_NAMES (stsl_scheme_names())
/* Karnopp's band dv and the tanh scale v_reg of smooth_rk4 on a hybrid law,
 * in velocity units.  The band must be wider than the velocity change of
 * one step near rest, h |a| / 2, or the scheme steps over it and misses the
 * stick; a wider band sticks early, moving the stop by about dv^2 / (2 |a|).
 * 1e-4 m/s catches the zero crossing for h |a| < 2e-4 m/s (Den Hartog,
 * |a| = 1.5 m/s^2 at its stop: h up to 1e-4 s) and costs a position error
 * of 3e-9 m there.  For the tanh law v_reg trades creep (v_reg atanh(F_n /
 * F_D) under a holding force) against stiffness (RK4 is stable for
 * h < 2.78 m v_reg / F_D): the same 1e-4 keeps the creep below 1e-4 m/s. */
#define DEFAULT_KARNOPP_BAND 1e-4
#define DEFAULT_REG_VELOCITY 1e-4
static const char *const METHOD_NAMES[] = {"auto", "adams", "bdf", "erk8", NULL};
static const char *const OUTPUT_KEYS[] = {"file", NULL};
static const char *const DOMAIN_NAMES[] = {"translational", "rotational", NULL};
/* The models' own name table, index = stsl_law. */
#define LAW_NAMES (stsl_law_names())

static int load_element(const stsl_cr_map *top, stsl_element_params *e)
{
    stsl_cr_map m, s, d;
    int have_s, have_d;
    int rc = stsl_cr_map_sub(top, "element", 1, ELEMENT_KEYS, &m, &have_s);
    /* A rotating element's "mass" is its inertia (the seeds' word): either
     * name, not both. */
    int inertia = !rc ? stsl_cr_map_find(&m, "inertia") : 0;
    if (inertia && stsl_cr_map_find(&m, "mass"))
        rc = stsl_cr_fail(m.c, inertia, "element.inertia",
                          "give either element.mass or element.inertia, not both");
    if (!rc) rc = stsl_cr_map_num(&m, inertia ? "inertia" : "mass", 1, 0.0, &stsl_cr_pos, &e->mass);
    if (!rc) rc = stsl_cr_map_sub(&m, "spring", 0, SPRING_KEYS, &s, &have_s);
    if (!rc && have_s)
        rc = stsl_cr_map_num(&s, "stiffness", 1, 0.0, &stsl_cr_nonneg, &e->stiffness);
    if (!rc && have_s) rc = stsl_cr_map_num(&s, "free_position", 0, 0.0, NULL, &e->free_position);
    if (!rc) rc = stsl_cr_map_sub(&m, "damper", 0, DAMPER_KEYS, &d, &have_d);
    if (!rc && have_d)
        rc = stsl_cr_map_num(&d, "coefficient", 1, 0.0, &stsl_cr_nonneg, &e->damping);
    return rc;
}

static int load_friction(const stsl_cr_map *top, stsl_friction_params *f)
{
    stsl_cr_map m;
    int have;
    int rc = stsl_cr_map_sub(top, "friction", 1, stsl_cr_friction_keys, &m, &have);
    return rc ? rc : stsl_cr_friction(&m, f);
}

static int load_stops(const stsl_cr_map *top, stsl_element_params *e)
{
    stsl_cr_map m;
    stsl_stop_params p = {0};
    e->stop_model = STSL_STOP_RIGID;
    int rc = stsl_cr_map_sub(top, "end_stops", 0, stsl_cr_stop_keys, &m, &e->has_stops);
    if (rc || !e->has_stops) return rc;
    rc = stsl_cr_stop(&m, &e->stop_model, &p);
    e->x_min = p.x_min;
    e->x_max = p.x_max;
    e->restitution = p.restitution;
    e->stop_stiffness = p.stiffness;
    e->stop_damping = p.damping;
    return rc;
}

static int load_initial(const stsl_cr_map *top, stsl_element_params *e)
{
    stsl_cr_map m = *top;
    int have;
    int rc = stsl_cr_map_sub(top, "initial", 0, INITIAL_KEYS, &m, &have);
    if (rc) return rc;
    if (have) rc = stsl_cr_map_num(&m, "position", 0, 0.0, NULL, &e->x0);
    if (!rc && have) rc = stsl_cr_map_num(&m, "velocity", 0, 0.0, NULL, &e->v0);
    if (rc || !e->has_stops || (e->x0 >= e->x_min && e->x0 <= e->x_max)) return rc;
    int id = have ? stsl_cr_map_find(&m, "position") : 0;
    return stsl_cr_fail(m.c, id ? id : m.id, "initial.position",
                        "must lie within the end stops [%g, %g] (got %g)", e->x_min, e->x_max,
                        e->x0);
}

static int load_inputs(const stsl_cr_map *top, stsl_element_params *e)
{
    stsl_signal_spec *specs[4] = {&e->active_force, &e->load, &e->base_motion, &e->anchor_motion};
    /* Forces jump where a table says; motions are differentiated twice
     * (a_b enters the force), so they default to a smooth interpolation. */
    static const stsl_interp defs[4] = {STSL_INTERP_LINEAR, STSL_INTERP_LINEAR, STSL_INTERP_CUBIC,
                                        STSL_INTERP_CUBIC};
    stsl_cr_map m;
    int have;
    int rc = stsl_cr_map_sub(top, "inputs", 0, INPUT_KEYS, &m, &have);
    for (int i = 0; !rc && have && i < 4; i++) {
        char path[KEYPATH_MAX];
        int id = stsl_cr_map_find(&m, INPUT_KEYS[i]);
        stsl_cr_join(path, m.path, INPUT_KEYS[i]);
        if (id) rc = stsl_cr_load_signal(m.c, id, path, defs[i], specs[i]);
        if (i == 3) e->has_anchor = id != 0;
    }
    return rc;
}

/* simulation.scheme and its keys.  `step` is refused with event_driven
 * rather than ignored: a step there would most likely mean that the scheme
 * was forgotten, and a key without effect would mislead whoever reads the
 * configuration.  Likewise karnopp_band (karnopp only) and
 * regularisation_velocity (smooth_rk4 on a hybrid law only). */
static int load_scheme(const stsl_cr_map *m, stsl_config *cfg)
{
    stsl_scheme_opts *s = &cfg->scheme;
    int kind = STSL_SCHEME_EVENT_DRIVEN, hybrid = !stsl_law_is_smooth(cfg->element.friction.law);
    int rc = stsl_cr_map_enum(m, "scheme", SCHEME_NAMES, STSL_SCHEME_EVENT_DRIVEN, &kind);
    memset(s, 0, sizeof *s);
    s->kind = (stsl_scheme_kind)kind;
    if (rc) return rc;
    int sid = stsl_cr_map_find(m, "scheme"), hid = stsl_cr_map_find(m, "step");
    int kid = stsl_cr_map_find(m, "karnopp_band"),
        vid = stsl_cr_map_find(m, "regularisation_velocity");
    if (kind == STSL_SCHEME_EVENT_DRIVEN && hid)
        return stsl_cr_fail(
            m->c, hid, "simulation.step",
            "only for the fixed-step schemes (simulation.scheme: karnopp, "
            "fixed_step_hybrid, smooth_rk4); the event-driven solver chooses its own");
    if (kind != STSL_SCHEME_KARNOPP && kid)
        return stsl_cr_fail(m->c, kid, "simulation.karnopp_band",
                            "only for simulation.scheme: karnopp (got scheme %s)",
                            SCHEME_NAMES[kind]);
    if (!(kind == STSL_SCHEME_SMOOTH_RK4 && hybrid) && vid)
        return stsl_cr_fail(m->c, vid, "simulation.regularisation_velocity",
                            "only for simulation.scheme: smooth_rk4 with a hybrid friction law "
                            "(coulomb, stribeck)");
    if ((kind == STSL_SCHEME_KARNOPP || kind == STSL_SCHEME_FIXED_STEP_HYBRID) && !hybrid)
        return stsl_cr_fail(
            m->c, sid, "simulation.scheme",
            "%s needs a hybrid friction law (coulomb, stribeck), not %s; use smooth_rk4 "
            "for smooth laws",
            SCHEME_NAMES[kind], LAW_NAMES[cfg->element.friction.law]);
    /* The fixed-step schemes put a body on a rigid stop; a compliant one
     * is a contact mode of the event-driven solver only. */
    if (kind != STSL_SCHEME_EVENT_DRIVEN && cfg->element.has_stops &&
        cfg->element.stop_model == STSL_STOP_COMPLIANT)
        return stsl_cr_fail(m->c, sid, "simulation.scheme",
                            "%s models rigid end stops only; end_stops.model: compliant needs "
                            "scheme event_driven",
                            SCHEME_NAMES[kind]);
    if (kind == STSL_SCHEME_EVENT_DRIVEN) return STSL_OK;
    rc = stsl_cr_map_num(m, "step", 1, 0.0, &stsl_cr_pos, &s->step);
    if (!rc && s->step > cfg->sim.t_end)
        rc = stsl_cr_fail(m->c, hid, "simulation.step", "must be in (0, t_end = %g] (got %g)",
                          cfg->sim.t_end, s->step);
    if (!rc && cfg->sim.t_end / s->step > 1e12)
        rc = stsl_cr_fail(m->c, hid, "simulation.step",
                          "makes more than 1e12 steps to t_end = %g (got %g)", cfg->sim.t_end,
                          s->step);
    if (!rc && kind == STSL_SCHEME_KARNOPP)
        rc = stsl_cr_map_num(m, "karnopp_band", 0, DEFAULT_KARNOPP_BAND, &stsl_cr_pos,
                             &s->karnopp_band);
    if (!rc && kind == STSL_SCHEME_SMOOTH_RK4 && hybrid)
        rc = stsl_cr_map_num(m, "regularisation_velocity", 0, DEFAULT_REG_VELOCITY, &stsl_cr_pos,
                             &s->regularisation_velocity);
    return rc;
}

/* The one rule between two keys that the fast set can break by changing
 * either of them: the number of output samples t_end / output_step. */
static int too_many_samples(const stsl_hsolver_opts *o)
{
    return o->output_step > 0.0 && o->t_end / o->output_step > MAX_SAMPLES;
}

/* ---- tolerances and verification (issue 11) ---- */

/* simulation.atol: a number, or `auto` (and absent): 0, derived per state
 * component from rtol and the element's natural scales when the run starts
 * (stsl_element_state_scales), so that it follows rtol and later changes
 * of the element. */
static int map_atol(const stsl_cr_map *m, double *out)
{
    int id = stsl_cr_map_find(m, "atol");
    yaml_node_t *n = id ? stsl_cr_node_at(m->c, id) : NULL;
    if (!n ||
        (n->type == YAML_SCALAR_NODE && !strcmp((const char *)n->data.scalar.value, "auto"))) {
        *out = 0.0;
        return STSL_OK;
    }
    return stsl_cr_map_num(m, "atol", 1, 0.0, &stsl_cr_pos, out);
}

/* simulation.accuracy sets rtol (and leaves atol to the rule unless atol
 * is given): a single knob.  Given with rtol it would be ambiguous. */
static int load_tolerances(const stsl_cr_map *m, stsl_config *cfg)
{
    stsl_hsolver_opts *o = &cfg->sim;
    int acc = stsl_cr_map_find(m, "accuracy"), rt = stsl_cr_map_find(m, "rtol"), rc;
    /* An override (--set, stsl_cfg_set) wins over the file's other key, so
     * that accuracy can be set on an effective configuration (which
     * writes rtol); both in the file, or both overridden, is refused. */
    int acc_set = acc && stsl_cr_graft_of(m->c, acc), rt_set = rt && stsl_cr_graft_of(m->c, rt);
    if (acc && rt && acc_set == rt_set)
        return stsl_cr_fail(m->c, acc, "simulation.accuracy",
                            "sets rtol (and atol unless given): give accuracy or rtol, not both");
    int use_acc = acc && (!rt || acc_set);
    const stsl_cr_range *range = o->method == STSL_METHOD_ERK8 ? &R_RTOL_ERK8 : &R_RTOL;
    rc = stsl_cr_map_num(m, use_acc ? "accuracy" : "rtol", 0, 1e-10, range, &o->rtol);
    if (!rc) rc = map_atol(m, &o->atol);
    int v = STSL_VERIFY_OFF;
    if (!rc) rc = stsl_cr_map_enum(m, "verify", stsl_verify_mode_names(), STSL_VERIFY_OFF, &v);
    cfg->verify = (stsl_verify_mode)v;
    return rc;
}

static int load_sim(const stsl_cr_map *top, stsl_config *cfg)
{
    stsl_hsolver_opts *o = &cfg->sim;
    stsl_cr_map m;
    int have;
    double ev = 0.0;
    int rc = stsl_cr_map_sub(top, "simulation", 1, SIM_KEYS, &m, &have);
    if (!rc) rc = stsl_cr_map_num(&m, "t_end", 1, 0.0, &stsl_cr_pos, &o->t_end);
    if (!rc) rc = stsl_cr_map_num(&m, "output_step", 0, 0.001, &stsl_cr_nonneg, &o->output_step);
    if (!rc && too_many_samples(o))
        rc = stsl_cr_fail(
            m.c, stsl_cr_map_find(&m, "output_step"), "simulation.output_step",
            "must be 0 or >= t_end / %.0e = %g (got %g: %.3g samples, about 80 bytes each)",
            MAX_SAMPLES, o->t_end / MAX_SAMPLES, o->output_step, o->t_end / o->output_step);
    /* The method before the tolerances: it sets rtol's range. */
    int method = STSL_METHOD_AUTO;
    if (!rc) rc = stsl_cr_map_enum(&m, "method", METHOD_NAMES, STSL_METHOD_AUTO, &method);
    o->method = (stsl_method)method;
    if (!rc) rc = load_tolerances(&m, cfg);
    if (!rc) rc = stsl_cr_map_num(&m, "max_events", 0, 100000.0, NULL, &ev);
    /* 1e15 keeps the count exact in a double and inside a long. */
    if (!rc && (ev < 1.0 || ev > 1e15 || ev != floor(ev)))
        rc = stsl_cr_fail(m.c, stsl_cr_map_find(&m, "max_events"), "simulation.max_events",
                          "must be a positive integer (got %g)", ev);
    o->max_events = (long)ev;
    if (!rc) rc = load_scheme(&m, cfg);
    if (!rc && cfg->verify != STSL_VERIFY_OFF && cfg->scheme.kind != STSL_SCHEME_EVENT_DRIVEN)
        rc = stsl_cr_fail(
            m.c, stsl_cr_map_find(&m, "verify"), "simulation.verify",
            "needs scheme event_driven: a fixed-step scheme has no tolerance to tighten "
            "(got scheme %s)",
            SCHEME_NAMES[cfg->scheme.kind]);
    return rc;
}

static int load_output(const stsl_cr_map *top, stsl_config *cfg)
{
    stsl_cr_map m;
    int have;
    const char *file;
    int rc = stsl_cr_map_sub(top, "output", 0, OUTPUT_KEYS, &m, &have);
    int id = have && !rc ? stsl_cr_map_find(&m, "file") : 0;
    if (!id) return rc;
    rc = stsl_cr_node_str(m.c, id, "output.file", &file);
    return rc ? rc
              : stsl_cr_copy_field(m.c, id, "output.file", cfg->output_file, STSL_PATH_MAX, file);
}

/* The element resolves what the solver resolves (end-stop rebounds). */
static void sync_tolerances(stsl_config *cfg)
{
    cfg->element.rtol = cfg->sim.rtol;
    cfg->element.atol = cfg->sim.atol;
}

/* The one element: a system's sections are refused without bodies. */
static int load_element_sections(const stsl_cr_map *top, stsl_element_params *e)
{
    static const char *const only_system[] = {"couplings", "contacts", "stops", NULL};
    int rc = stsl_cr_refuse_keys(top, only_system,
                                 "only in a system of bodies (give bodies: too; the one element "
                                 "takes friction: and end_stops:)");
    if (!rc) rc = load_element(top, e);
    if (!rc) rc = load_friction(top, &e->friction);
    if (!rc) rc = load_stops(top, e);
    if (!rc) rc = load_inputs(top, e);
    if (!rc) rc = load_initial(top, e);
    return rc;
}

static int load_top(stsl_cr_ctx *c, stsl_config *cfg)
{
    stsl_cr_map top;
    int dom = 0;
    const char *desc;
    stsl_element_params *e = &cfg->element;
    yaml_node_t *root = yaml_document_get_root_node(&c->doc);
    if (!root) return stsl_cr_fail(c, 0, "", "expected a mapping (the document is empty)");
    int rc = stsl_cr_map_open(c, 1, "", TOP_KEYS, &top);
    int did = rc ? 0 : stsl_cr_map_find(&top, "description");
    if (did) rc = stsl_cr_node_str(c, did, "description", &desc);
    if (!rc) rc = stsl_cr_map_enum(&top, "domain", DOMAIN_NAMES, 0, &dom);
    e->domain = (stsl_domain)dom;
    if (!rc && stsl_cr_map_find(&top, "bodies"))
        rc = stsl_config_system_load(&top, cfg);
    else if (!rc)
        rc = load_element_sections(&top, e);
    if (!rc) rc = load_sim(&top, cfg);
    if (!rc) rc = load_output(&top, cfg);
    sync_tolerances(cfg);
    return rc;
}

/* ---------------------------------------------------------------- parsing */

static int yaml_fail(stsl_error *err, const char *where, const yaml_parser_t *p)
{
    /* Reader errors (bad encoding) have no problem mark, only the position. */
    const yaml_mark_t *mk = p->error == YAML_READER_ERROR ? &p->mark : &p->problem_mark;
    return stsl_error_set(err, STSL_EINPUT, "%s:%ld: invalid YAML: %s%s%s", where,
                          (long)mk->line + 1, p->problem ? p->problem : "cannot be parsed",
                          p->context ? " " : "", p->context ? p->context : "");
}

/* Load the one document of the stream into c->doc. */
static int parse_doc(stsl_cr_ctx *c, yaml_parser_t *p)
{
    yaml_document_t extra;
    if (!yaml_parser_load(p, &c->doc)) return yaml_fail(c->err, c->origin, p);
    c->have_doc = 1;
    if (!yaml_document_get_root_node(&c->doc)) return STSL_OK;
    if (!yaml_parser_load(p, &extra)) return yaml_fail(c->err, c->origin, p);
    int more = yaml_document_get_root_node(&extra) != NULL;
    long line = more ? (long)extra.start_mark.line + 1 : 0;
    yaml_document_delete(&extra);
    if (more)
        return stsl_error_set(c->err, STSL_EINPUT,
                              "%s:%ld: (top level): only one YAML document is allowed", c->origin,
                              line);
    return STSL_OK;
}

/* ---------------------------------------------------------------- --set */

static int node_count(const yaml_document_t *d)
{
    return (int)(d->nodes.top - d->nodes.start);
}

static int bad_set(stsl_cr_ctx *c, const char *arg)
{
    return stsl_error_set(c->err, STSL_EINPUT, "--set %s: expected KEY.PATH=VALUE", arg);
}

static int set_fail(stsl_cr_ctx *c, const char *arg, const char *path, const char *what)
{
    return stsl_error_set(c->err, STSL_EINPUT, "--set %s: %s: %s", arg, path, what);
}

/* KEY.PATH: non-empty names separated by single dots. */
static int split_set(const char *arg, char *key)
{
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : 0;
    if (n == 0 || n >= KEYPATH_MAX || arg[0] == '.' || arg[n - 1] == '.') return 0;
    memcpy(key, arg, n);
    key[n] = '\0';
    return strstr(key, "..") == NULL;
}

/* Copy node `sid` of `src` into the main document; *out is the new id. */
static int graft_copy(stsl_cr_ctx *c, const char *arg, yaml_document_t *src, int sid, int depth,
                      int *out)
{
    yaml_node_t *n = yaml_document_get_node(src, sid);
    yaml_document_t *d = &c->doc;
    int rc = STSL_OK, id = 0, k, v;
    if (depth > SET_DEPTH_MAX) return set_fail(c, arg, "value", "nested too deeply");
    if (n->type == YAML_SCALAR_NODE)
        id = yaml_document_add_scalar(d, n->tag, n->data.scalar.value, (int)n->data.scalar.length,
                                      n->data.scalar.style);
    else if (n->type == YAML_SEQUENCE_NODE) {
        id = yaml_document_add_sequence(d, n->tag, n->data.sequence.style);
        for (yaml_node_item_t *it = n->data.sequence.items.start;
             id && !rc && it < n->data.sequence.items.top; it++) {
            rc = graft_copy(c, arg, src, *it, depth + 1, &v);
            if (!rc && !yaml_document_append_sequence_item(d, id, v)) id = 0;
        }
    } else {
        id = yaml_document_add_mapping(d, n->tag, n->data.mapping.style);
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
             id && !rc && p < n->data.mapping.pairs.top; p++) {
            rc = graft_copy(c, arg, src, p->key, depth + 1, &k);
            if (!rc) rc = graft_copy(c, arg, src, p->value, depth + 1, &v);
            if (!rc && !yaml_document_append_mapping_pair(d, id, k, v)) id = 0;
        }
    }
    if (!rc && !id) rc = stsl_error_set(c->err, STSL_ENOMEM, "--set %s: out of memory", arg);
    *out = id;
    return rc;
}

/* Parse VALUE as YAML and copy its root into the main document (an empty
 * value is YAML's empty scalar, as in `key:`). */
static int graft_value(stsl_cr_ctx *c, const char *arg, const char *text, int *out)
{
    yaml_parser_t p;
    yaml_document_t val;
    int rc = STSL_OK;
    size_t start = 0;
    char where[KEYPATH_MAX + 8];
    snprintf(where, sizeof where, "--set %.*s", KEYPATH_MAX, arg);
    if ((rc = stsl_text_check(where, text, strlen(text), &stsl_config_limits, &start, c->err)))
        return rc;
    if (!yaml_parser_initialize(&p))
        return stsl_error_set(c->err, STSL_ENOMEM, "--set %s: out of memory", arg);
    yaml_parser_set_input_string(&p, (const unsigned char *)text + start, strlen(text + start));
    if (!yaml_parser_load(&p, &val)) {
        rc = yaml_fail(c->err, where, &p);
        yaml_parser_delete(&p);
        return rc;
    }
    if (yaml_document_get_root_node(&val))
        rc = graft_copy(c, arg, &val, 1, 0, out);
    else if (!(*out = yaml_document_add_scalar(&c->doc, NULL, (yaml_char_t *)"", 0,
                                               YAML_PLAIN_SCALAR_STYLE)))
        rc = stsl_error_set(c->err, STSL_ENOMEM, "--set %s: out of memory", arg);
    yaml_document_delete(&val);
    yaml_parser_delete(&p);
    return rc;
}

/* The pair of `key` in mapping `id`, NULL when absent. */
static yaml_node_pair_t *find_pair(stsl_cr_ctx *c, int id, const char *key)
{
    yaml_node_t *n = stsl_cr_node_at(c, id);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = stsl_cr_key_text(c, p->key);
        if (k && strcmp(k, key) == 0) return p;
    }
    return NULL;
}

static int add_pair(stsl_cr_ctx *c, const char *arg, int map, const char *key, int value)
{
    int k = yaml_document_add_scalar(&c->doc, NULL, (const yaml_char_t *)key, (int)strlen(key),
                                     YAML_PLAIN_SCALAR_STYLE);
    if (!k || !yaml_document_append_mapping_pair(&c->doc, map, k, value))
        return stsl_error_set(c->err, STSL_ENOMEM, "--set %s: out of memory", arg);
    return STSL_OK;
}

/* Item `seg` (a decimal index) of sequence `id`, NULL when there is none. */
static yaml_node_item_t *seq_item(stsl_cr_ctx *c, int id, const char *seg)
{
    yaml_node_t *n = stsl_cr_node_at(c, id);
    char *end;
    long i = strtol(seg, &end, 10);
    long len = (long)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (end == seg || *end || *seg == '-' || *seg == '+' || i >= len) return NULL;
    return n->data.sequence.items.start + i;
}

/* Key path `key` up to and including the segment `seg` (for a message). */
static int no_item(stsl_cr_ctx *c, const char *arg, char *key, char *seg, int seq)
{
    yaml_node_t *n = stsl_cr_node_at(c, seq);
    long len = (long)(n->data.sequence.items.top - n->data.sequence.items.start);
    char what[96];
    if (seg != key) seg[-1] = '\0';
    snprintf(what, sizeof what, "no item '%s' (%s an index in [0, %ld])", seg,
             len ? "expected" : "the sequence is empty, there is no", len - 1);
    return set_fail(c, arg, seg == key ? "(top level)" : key, what);
}

/* Put `value` at `key` (dotted; a sequence's items by index, as in
 * contacts.0.dynamic), creating missing intermediate mappings. */
static int place(stsl_cr_ctx *c, const char *arg, char *key, int value)
{
    int cur = 1, rc = STSL_OK;
    for (char *seg = key, *dot; !rc; seg = dot + 1) {
        dot = strchr(seg, '.');
        if (dot) *dot = '\0';
        yaml_node_t *n = stsl_cr_node_at(c, cur);
        if (n->type == YAML_SEQUENCE_NODE) {
            yaml_node_item_t *it = seq_item(c, cur, seg);
            if (!it) return no_item(c, arg, key, seg, cur);
            if (!dot) *it = value;
            if (!dot) return STSL_OK;
            cur = *it;
            *dot = '.';
            continue;
        }
        if (n->type != YAML_MAPPING_NODE) {
            if (seg != key) seg[-1] = '\0';
            return set_fail(c, arg, seg == key ? "(top level)" : key,
                            "is not a mapping, so it cannot hold further keys");
        }
        yaml_node_pair_t *p = find_pair(c, cur, seg);
        if (!dot) {
            if (p) p->value = value;
            return p ? STSL_OK : add_pair(c, arg, cur, seg, value);
        }
        int next =
            p ? p->value : yaml_document_add_mapping(&c->doc, NULL, YAML_BLOCK_MAPPING_STYLE);
        if (!p) rc = next ? add_pair(c, arg, cur, seg, next) : STSL_ENOMEM;
        cur = next;
        *dot = '.';
    }
    return rc == STSL_ENOMEM ? stsl_error_set(c->err, rc, "--set %s: out of memory", arg) : rc;
}

static int apply_set(stsl_cr_ctx *c, const char *arg)
{
    char key[KEYPATH_MAX];
    int value;
    if (!arg || !split_set(arg, key)) return bad_set(c, arg ? arg : "(null)");
    /* An empty file plus overrides is a document made of overrides. */
    if (!yaml_document_get_root_node(&c->doc) &&
        !yaml_document_add_mapping(&c->doc, NULL, YAML_BLOCK_MAPPING_STYLE))
        return stsl_error_set(c->err, STSL_ENOMEM, "--set %s: out of memory", arg);
    int first = node_count(&c->doc) + 1;
    int rc = graft_value(c, arg, strchr(arg, '=') + 1, &value);
    if (!rc) rc = place(c, arg, key, value);
    if (rc) return rc;
    stsl_cr_graft *g = realloc(c->grafts, (size_t)(c->n_grafts + 1) * sizeof *g);
    if (!g) return stsl_error_set(c->err, STSL_ENOMEM, "--set %s: out of memory", arg);
    c->grafts = g;
    g[c->n_grafts++] = (stsl_cr_graft){first, node_count(&c->doc), arg};
    return STSL_OK;
}

/* ---------------------------------------------------------------- loading */

static void set_name(stsl_config *cfg, const char *origin)
{
    const char *base = origin ? strrchr(origin, '/') : NULL;
    base = base ? base + 1 : origin;
    if (!base || !*base || *base == '<') base = "config";
    const char *dot = strrchr(base, '.');
    int n = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    if (n >= (int)sizeof cfg->name) n = (int)sizeof cfg->name - 1;
    memcpy(cfg->name, base, (size_t)n);
    cfg->name[n] = '\0';
}

/* Parse, apply the overrides, validate; the parser is set up by the caller. */
static int load_parsed(stsl_cr_ctx *c, yaml_parser_t *p, const char *const *sets, int n_sets,
                       stsl_config *cfg)
{
    int rc = parse_doc(c, p);
    for (int i = 0; !rc && i < n_sets; i++)
        rc = apply_set(c, sets[i]);
    if (!rc) rc = load_top(c, cfg);
    if (c->have_doc) yaml_document_delete(&c->doc);
    free(c->grafts);
    yaml_parser_delete(p);
    if (rc) {
        stsl_config_free(cfg);
        memset(cfg, 0, sizeof *cfg);
        stsl_cr_one_line(c->err);
    }
    return rc;
}

static void init_config(stsl_config *cfg, const char *source, const char *origin)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->source, sizeof cfg->source, "%s", source);
    set_name(cfg, origin);
}

int stsl_config_load(const char *path, const char *const *sets, int n_sets, stsl_config *cfg,
                     stsl_error *err)
{
    char dir[STSL_PATH_MAX];
    yaml_parser_t p;
    memset(cfg, 0, sizeof *cfg);
    if (strlen(path) >= STSL_PATH_MAX)
        return stsl_error_set(err, STSL_EINPUT, "%s: path too long", path);
    char *text = NULL;
    size_t len = 0;
    int rc = stsl_text_read(path, &stsl_config_limits, &text, &len, err);
    if (rc) {
        stsl_cr_one_line(err);
        return rc;
    }
    if (!yaml_parser_initialize(&p)) {
        free(text);
        return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path);
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 0;
    memcpy(dir, path, dl);
    dir[dl] = '\0';
    stsl_cr_ctx c = {.origin = path, .base_dir = dl ? dir : NULL, .err = err};
    init_config(cfg, path, path);
    rc = load_parsed(&c, &p, sets, n_sets, cfg);
    free(text);
    return rc;
}

int stsl_config_load_string(const char *text, const char *origin, const char *base_dir,
                            const char *const *sets, int n_sets, stsl_config *cfg, stsl_error *err)
{
    yaml_parser_t p;
    memset(cfg, 0, sizeof *cfg);
    const char *where = origin && *origin ? origin : "<string>";
    size_t start = 0;
    int rc = stsl_text_check(where, text, strlen(text), &stsl_config_limits, &start, err);
    if (rc) return rc;
    if (!yaml_parser_initialize(&p)) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)text + start, strlen(text + start));
    stsl_cr_ctx c = {.origin = where, .base_dir = base_dir, .err = err};
    init_config(cfg, "<string>", origin);
    return load_parsed(&c, &p, sets, n_sets, cfg);
}

void stsl_config_free(stsl_config *cfg)
{
    if (!cfg) return;
    stsl_signal_spec *s[4] = {&cfg->element.active_force, &cfg->element.load,
                              &cfg->element.base_motion, &cfg->element.anchor_motion};
    for (int i = 0; i < 4; i++) {
        free(s[i]->tt);
        free(s[i]->vv);
        s[i]->tt = s[i]->vv = NULL;
        s[i]->n = 0;
    }
    stsl_system_free(&cfg->system);
}

/* ---------------------------------------------------------------- to_yaml */

static void put_element(FILE *f, const stsl_element_params *e)
{
    const stsl_friction_params *fr = &e->friction;
    fprintf(f, "domain: %s\n", DOMAIN_NAMES[e->domain == STSL_DOMAIN_ROTATIONAL]);
    fprintf(f, "element:\n  %s: %.17g\n", e->domain == STSL_DOMAIN_ROTATIONAL ? "inertia" : "mass",
            e->mass);
    fprintf(f, "  spring: {stiffness: %.17g, free_position: %.17g}\n", e->stiffness,
            e->free_position);
    fprintf(f, "  damper: {coefficient: %.17g}\n", e->damping);
    fputs("friction:\n", f);
    stsl_cr_put_friction(f, fr, "  ", "\n");
    if (e->has_stops && e->stop_model == STSL_STOP_COMPLIANT)
        fprintf(f,
                "end_stops: {min: %.17g, max: %.17g, model: compliant, stiffness: %.17g, "
                "damping: %.17g}\n",
                e->x_min, e->x_max, e->stop_stiffness, e->stop_damping);
    else if (e->has_stops) /* rigid: the model key left to its default, as before it existed */
        fprintf(f, "end_stops: {min: %.17g, max: %.17g, restitution: %.17g}\n", e->x_min, e->x_max,
                e->restitution);
    fputs("inputs:\n", f);
    stsl_cr_put_signal(f, "  ", "active_force", &e->active_force);
    stsl_cr_put_signal(f, "  ", "load", &e->load);
    stsl_cr_put_signal(f, "  ", "base_motion", &e->base_motion);
    if (e->has_anchor) stsl_cr_put_signal(f, "  ", "anchor_motion", &e->anchor_motion);
    fprintf(f, "initial: {position: %.17g, velocity: %.17g}\n", e->x0, e->v0);
}

/* `atol: auto` with the values the rule gives in a comment (YAML drops
 * it when the text is read again), or the number given. */
static void put_atol(FILE *f, const stsl_config *cfg)
{
    if (cfg->sim.atol > 0.0) {
        fprintf(f, "  atol: %.17g\n", cfg->sim.atol);
        return;
    }
    /* A system's natural scales come with its solver (issue 14, later). */
    if (cfg->is_system) {
        fputs("  atol: auto\n", f);
        return;
    }
    double a[3];
    const char *units[3], *names[3] = {"x", "v", "sigma0 z"};
    int n = stsl_element_atol(&cfg->element, cfg->sim.rtol, 0.0, a, units);
    fputs("  atol: auto   # derived (rtol x 1e-3 x natural scale):", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %s %.3g %s", i ? "," : "", names[i], a[i], units[i]);
    fputc('\n', f);
}

char *stsl_config_to_yaml(const stsl_config *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fputs("# stickslip: effective configuration, every default filled in\n", f);
    if (cfg->is_system)
        stsl_config_system_put(f, cfg);
    else
        put_element(f, &cfg->element);
    fprintf(f, "simulation:\n  t_end: %.17g\n  output_step: %.17g\n", cfg->sim.t_end,
            cfg->sim.output_step);
    fprintf(f, "  rtol: %.17g\n", cfg->sim.rtol);
    put_atol(f, cfg);
    fprintf(f, "  max_events: %ld\n  method: %s\n", cfg->sim.max_events,
            METHOD_NAMES[cfg->sim.method]);
    if (cfg->verify != STSL_VERIFY_OFF)
        fprintf(f, "  verify: %s\n", stsl_verify_mode_names()[cfg->verify]);
    fprintf(f, "  scheme: %s\n", SCHEME_NAMES[cfg->scheme.kind]);
    if (cfg->scheme.kind != STSL_SCHEME_EVENT_DRIVEN)
        fprintf(f, "  step: %.17g\n", cfg->scheme.step);
    if (cfg->scheme.karnopp_band > 0.0)
        fprintf(f, "  karnopp_band: %.17g\n", cfg->scheme.karnopp_band);
    if (cfg->scheme.regularisation_velocity > 0.0)
        fprintf(f, "  regularisation_velocity: %.17g\n", cfg->scheme.regularisation_velocity);
    if (cfg->output_file[0]) {
        fputs("output: {file: ", f);
        stsl_cr_put_quoted(f, cfg->output_file);
        fputs("}\n", f);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---------------------------------------------------------------- copy */

static int copy_table(stsl_signal_spec *d, const stsl_signal_spec *s, stsl_error *err)
{
    if (!stsl_signal_spec_copy(d, s)) return STSL_OK;
    d->n = 0;
    return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory copying the table", s->file);
}

int stsl_config_copy(stsl_config *dst, const stsl_config *src, stsl_error *err)
{
    *dst = *src;
    stsl_signal_spec *d[4] = {&dst->element.active_force, &dst->element.load,
                              &dst->element.base_motion, &dst->element.anchor_motion};
    const stsl_signal_spec *s[4] = {&src->element.active_force, &src->element.load,
                                    &src->element.base_motion, &src->element.anchor_motion};
    for (int i = 0; i < 4; i++)
        d[i]->tt = d[i]->vv = NULL; /* nothing shared, even on failure */
    memset(&dst->system, 0, sizeof dst->system);
    int rc = STSL_OK;
    for (int i = 0; !rc && i < 4; i++)
        rc = copy_table(d[i], s[i], err);
    if (!rc && stsl_system_copy(&dst->system, &src->system))
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory copying the system of bodies");
    if (rc) stsl_config_free(dst);
    return rc;
}

/* ---------------------------------------------------------------- set, get */

/* When a number key may be set alone.  Every key here is written by
 * stsl_config_to_yaml, so "present in the document" is never in question;
 * what remains are the rules between keys (law, domain, scheme, stops). */
typedef enum when {
    W_ALWAYS,
    W_TRANSL,       /* element.mass: the effective YAML names inertia when rotational */
    W_HYBRID,       /* a hybrid law's keys */
    W_NOT_RATIO,    /* friction.static: not next to a given static_ratio */
    W_NOT_FORCE,    /* friction.static_ratio: not next to a given static */
    W_ROT,          /* element.inertia */
    W_NO_STOPS,     /* initial.position must lie within the stops */
    W_EVENT_DRIVEN, /* t_end bounds a fixed-step scheme's step */
    W_KARNOPP,
    W_RK4_HYBRID
} when;

typedef struct num_key {
    const char *path;
    size_t off; /* of the double in stsl_config */
    const stsl_cr_range *r;
    when w;
} num_key;

/* The same ranges as the loader's map_num calls above; test_api checks that
 * every key gives the same value and message through the full load. */
#define NK(path, field, r, w)                                                                      \
    {                                                                                              \
        path, offsetof(stsl_config, field), r, w                                                   \
    }
static const num_key NUM_KEYS[] = {
    NK("element.mass", element.mass, &stsl_cr_pos, W_TRANSL),
    NK("element.inertia", element.mass, &stsl_cr_pos, W_ROT),
    NK("element.spring.stiffness", element.stiffness, &stsl_cr_nonneg, W_ALWAYS),
    NK("element.spring.free_position", element.free_position, NULL, W_ALWAYS),
    NK("element.damper.coefficient", element.damping, &stsl_cr_nonneg, W_ALWAYS),
    /* The static level as the file gave it: tie_static_level keeps it. */
    NK("friction.dynamic", element.friction.dynamic, &stsl_cr_nonneg, W_HYBRID),
    NK("friction.static_ratio", element.friction.static_ratio, &stsl_cr_ge1, W_NOT_FORCE),
    /* Its range is the dynamic level's: checked by tie_static_level. */
    NK("friction.static", element.friction.static_force, NULL, W_NOT_RATIO),
    NK("initial.position", element.x0, NULL, W_NO_STOPS),
    NK("initial.velocity", element.v0, NULL, W_ALWAYS),
    NK("simulation.t_end", sim.t_end, &stsl_cr_pos, W_EVENT_DRIVEN),
    NK("simulation.output_step", sim.output_step, &stsl_cr_nonneg, W_ALWAYS),
    NK("simulation.rtol", sim.rtol, &R_RTOL, W_ALWAYS),
    NK("simulation.atol", sim.atol, &stsl_cr_pos, W_ALWAYS),
    NK("simulation.karnopp_band", scheme.karnopp_band, &stsl_cr_pos, W_KARNOPP),
    NK("simulation.regularisation_velocity", scheme.regularisation_velocity, &stsl_cr_pos,
       W_RK4_HYBRID),
};
#undef NK

static int applies(const stsl_config *cfg, when w)
{
    const stsl_element_params *e = &cfg->element;
    int hybrid = !stsl_law_is_smooth(e->friction.law);
    switch (w) {
    case W_HYBRID:
        return hybrid;
    case W_NOT_RATIO:
        return hybrid && e->friction.static_given != STSL_STATIC_RATIO;
    case W_NOT_FORCE:
        return hybrid && e->friction.static_given != STSL_STATIC_FORCE;
    case W_TRANSL:
        return e->domain == STSL_DOMAIN_TRANSLATIONAL;
    case W_ROT:
        return e->domain == STSL_DOMAIN_ROTATIONAL;
    case W_NO_STOPS:
        return !e->has_stops;
    case W_EVENT_DRIVEN:
        return cfg->scheme.kind == STSL_SCHEME_EVENT_DRIVEN;
    case W_KARNOPP:
        return cfg->scheme.kind == STSL_SCHEME_KARNOPP;
    case W_RK4_HYBRID:
        return cfg->scheme.kind == STSL_SCHEME_SMOOTH_RK4 && hybrid;
    default:
        return 1;
    }
}

/* inputs.NAME.PARAM of the signal's present type. */
static double *signal_slot(stsl_config *cfg, const char *rest, const stsl_cr_range **r)
{
    stsl_signal_spec *specs[4] = {&cfg->element.active_force, &cfg->element.load,
                                  &cfg->element.base_motion, &cfg->element.anchor_motion};
    const char *dot = strchr(rest, '.');
    for (int i = 0; dot && i < 4; i++) {
        size_t n = strlen(INPUT_KEYS[i]);
        if (n != (size_t)(dot - rest) || strncmp(rest, INPUT_KEYS[i], n)) continue;
        if (i == 3 && !cfg->element.has_anchor) return NULL;
        return stsl_cr_signal_slot(specs[i], dot + 1, r);
    }
    return NULL;
}

/* The double behind `key` when it can be set on its own (see `when`);
 * NULL when it must go through the full load. */
static double *fast_slot(stsl_config *cfg, const char *key, const stsl_cr_range **r)
{
    /* A system has no element keys; simulation.* are the same for both. */
    if (cfg->is_system && strncmp(key, "simulation.", 11))
        return stsl_config_system_slot(cfg, key, r);
    for (size_t i = 0; i < sizeof NUM_KEYS / sizeof NUM_KEYS[0]; i++)
        if (!strcmp(key, NUM_KEYS[i].path)) {
            if (!applies(cfg, NUM_KEYS[i].w)) return NULL;
            *r = NUM_KEYS[i].r;
            return (double *)((char *)cfg + NUM_KEYS[i].off);
        }
    if (!strncmp(key, "friction.", 9))
        return stsl_cr_friction_slot(&cfg->element.friction, key + 9, r);
    if (!strncmp(key, "inputs.", 7)) return signal_slot(cfg, key + 7, r);
    return NULL;
}

/* Text that YAML reads as this very plain scalar and strtod reads whole:
 * for it the document round trip would hand check_num the same string. */
static int plain_number_text(const char *v)
{
    char *end;
    if (!*v || *v == ' ' || *v == '\t' || *v == '\n' || *v == '\r') return 0;
    (void)strtod(v, &end);
    return !*end;
}

/* The static level after `slot` was set: it is now given the way that key
 * gives it, and a given force fixes the ratio (setting friction.dynamic
 * keeps the force, as `--set` on the file does).  0 when the levels break
 * the loader's rule static >= dynamic > 0. */
static int tie_static_level(stsl_config *cfg, const double *slot)
{
    stsl_friction_params *f = &cfg->element.friction;
    if (slot == &f->static_force) f->static_given = STSL_STATIC_FORCE;
    if (slot == &f->static_ratio) f->static_given = STSL_STATIC_RATIO;
    if (f->static_given != STSL_STATIC_FORCE) return 1;
    if (!(f->dynamic > 0.0) || f->static_force < f->dynamic) return 0;
    f->static_ratio = f->static_force / f->dynamic;
    return 1;
}

int stsl_config_set(stsl_config *cfg, const char *key, const char *value, stsl_error *err)
{
    const stsl_cr_range *r = NULL;
    double *slot = key && value ? fast_slot(cfg, key, &r) : NULL;
    if (!slot || !plain_number_text(value)) return stsl_config_set_reload(cfg, key, value, err);
    yaml_node_t n = {.type = YAML_SCALAR_NODE};
    n.data.scalar.value = (yaml_char_t *)value;
    n.data.scalar.length = strlen(value);
    n.data.scalar.style = YAML_PLAIN_SCALAR_STYLE;
    char what[512];
    double v;
    if (stsl_cr_check_num(&n, r, &v, what, sizeof what)) {
        /* The static level's range is the dynamic one's; rtol's is wider
         * with the erk8 method: the full load judges both. */
        if (slot == &cfg->element.friction.static_force ||
            (slot == &cfg->sim.rtol && cfg->sim.method == STSL_METHOD_ERK8))
            return stsl_config_set_reload(cfg, key, value, err);
        stsl_error_set(err, STSL_EINPUT, "%s: %s", key, what);
        stsl_cr_one_line(err);
        return STSL_EINPUT;
    }
    stsl_friction_params *f = &cfg->element.friction;
    double before = *slot, ratio = f->static_ratio;
    stsl_static_given given = f->static_given;
    *slot = v;
    if (too_many_samples(&cfg->sim) || (!cfg->is_system && !tie_static_level(cfg, slot))) {
        /* Refused by a rule between keys: the full load words it (and names
         * the key the loader blames), so both paths say the same. */
        *slot = before;
        f->static_ratio = ratio;
        f->static_given = given;
        return stsl_config_set_reload(cfg, key, value, err);
    }
    sync_tolerances(cfg);
    return STSL_OK;
}

#define EFFECTIVE "effective configuration"

/* Drop "--set KEY=VALUE: " from a message: the caller named no option. */
static void strip_set_prefix(stsl_error *err, const char *arg)
{
    size_t n = strlen(arg);
    if (!err || strncmp(err->msg, "--set ", 6) || strncmp(err->msg + 6, arg, n) ||
        strncmp(err->msg + 6 + n, ": ", 2))
        return;
    memmove(err->msg, err->msg + 8 + n, strlen(err->msg + 8 + n) + 1);
}

int stsl_config_set_reload(stsl_config *cfg, const char *key, const char *value, stsl_error *err)
{
    if (!key || !value) return stsl_error_set(err, STSL_EINPUT, "set: key and value are required");
    size_t kl = strlen(key), vl = strlen(value);
    char *arg = malloc(kl + vl + 2);
    if (!arg) return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", key);
    memcpy(arg, key, kl);
    arg[kl] = '=';
    memcpy(arg + kl + 1, value, vl + 1);
    const char *sets[1] = {arg};
    int rc = stsl_config_apply(cfg, sets, 1, err);
    if (rc) strip_set_prefix(err, arg);
    free(arg);
    return rc;
}

/* Drop "effective configuration:LINE: ": that text is never shown to the
 * caller, who set a key of it (a rule between keys can blame one the
 * caller did not set: friction.static below a new friction.dynamic). */
static void strip_effective_line(stsl_error *err)
{
    size_t n = strlen(EFFECTIVE ":");
    char *p = err ? err->msg + n : NULL;
    if (!err || strncmp(err->msg, EFFECTIVE ":", n) || !isdigit((unsigned char)*p)) return;
    while (isdigit((unsigned char)*p))
        p++;
    if (strncmp(p, ": ", 2)) return;
    memmove(err->msg, p + 2, strlen(p + 2) + 1);
}

int stsl_config_apply(stsl_config *cfg, const char *const *sets, int n_sets, stsl_error *err)
{
    char *yaml = stsl_config_to_yaml(cfg);
    if (!yaml) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    stsl_config next;
    int rc = stsl_config_load_string(yaml, EFFECTIVE, NULL, sets, n_sets, &next, err);
    free(yaml);
    if (rc) strip_effective_line(err);
    if (rc) return rc;
    memcpy(next.source, cfg->source, sizeof next.source);
    memcpy(next.name, cfg->name, sizeof next.name);
    stsl_config_free(cfg);
    *cfg = next;
    return STSL_OK;
}

/* A node as one line of flow YAML. */
static void put_flow(FILE *f, yaml_document_t *d, yaml_node_t *n)
{
    if (n->type == YAML_SCALAR_NODE) {
        if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
            fputs((const char *)n->data.scalar.value, f);
        else
            stsl_cr_put_quoted(f, (const char *)n->data.scalar.value);
    } else if (n->type == YAML_SEQUENCE_NODE) {
        fputc('[', f);
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             it++) {
            if (it > n->data.sequence.items.start) fputs(", ", f);
            put_flow(f, d, yaml_document_get_node(d, *it));
        }
        fputc(']', f);
    } else {
        fputc('{', f);
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
             p++) {
            if (p > n->data.mapping.pairs.start) fputs(", ", f);
            put_flow(f, d, yaml_document_get_node(d, p->key));
            fputs(": ", f);
            put_flow(f, d, yaml_document_get_node(d, p->value));
        }
        fputc('}', f);
    }
}

/* `key` looked up in the effective configuration's document. */
static char *get_from_document(const stsl_config *cfg, const char *key, stsl_error *err)
{
    char *yaml = stsl_config_to_yaml(cfg), *out = NULL, path[KEYPATH_MAX];
    size_t len = 0;
    yaml_parser_t p;
    if (!yaml || !yaml_parser_initialize(&p)) {
        free(yaml);
        stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", key);
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)yaml, strlen(yaml));
    stsl_cr_ctx c = {.origin = EFFECTIVE, .err = err};
    int rc = parse_doc(&c, &p), id = 1;
    snprintf(path, sizeof path, "%s", key);
    for (char *seg = path, *dot = path; !rc && id && dot; seg = dot + 1) {
        dot = strchr(seg, '.');
        if (dot) *dot = '\0';
        yaml_node_t *n = stsl_cr_node_at(&c, id);
        yaml_node_pair_t *pair = n->type == YAML_MAPPING_NODE ? find_pair(&c, id, seg) : NULL;
        yaml_node_item_t *item = n->type == YAML_SEQUENCE_NODE ? seq_item(&c, id, seg) : NULL;
        id = pair ? pair->value : item ? *item : 0;
    }
    FILE *f = !rc && id ? open_memstream(&out, &len) : NULL;
    if (f) {
        put_flow(f, &c.doc, stsl_cr_node_at(&c, id));
        if (fclose(f)) {
            free(out);
            out = NULL;
        }
    }
    if (!rc && !id)
        stsl_error_set(err, STSL_EINPUT, "%s: not a key of the effective configuration", key);
    else if (!rc && !out)
        stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", key);
    if (c.have_doc) yaml_document_delete(&c.doc);
    yaml_parser_delete(&p);
    free(yaml);
    return out;
}

char *stsl_config_get(const stsl_config *cfg, const char *key, stsl_error *err)
{
    const stsl_cr_range *r;
    /* fast_slot only locates the double; nothing is written through it. */
    const double *slot = key ? fast_slot((stsl_config *)cfg, key, &r) : NULL;
    /* A static level the document does not state (given the other way, or
     * the default) is not a key of it. */
    const stsl_friction_params *f = &cfg->element.friction;
    if ((slot == &f->static_force && f->static_given != STSL_STATIC_FORCE) ||
        (slot == &f->static_ratio && f->static_given != STSL_STATIC_RATIO))
        slot = NULL;
    if (!key) {
        stsl_error_set(err, STSL_EINPUT, "get: a key is required");
        return NULL;
    }
    if (!slot) return get_from_document(cfg, key, err);
    char buf[32], *out;
    if (slot == &cfg->sim.atol && *slot == 0.0)
        snprintf(buf, sizeof buf, "auto");
    else
        snprintf(buf, sizeof buf, "%.17g", *slot);
    out = strdup(buf);
    if (!out) stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", key);
    return out;
}
