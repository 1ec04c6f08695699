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
#include "io/config/config.h"

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

#include "io/config/config_keys.h"
#include "io/config/config_read.h"
#include "io/config/text_input.h"
#include "run/fixed_step_system.h"
#include "models/multibody.h"
#include "models/one_body.h"

/* Deeper override values are refused: no configuration key is nested that
 * deep, and the bound also stops a self-referencing alias from recursing. */
#define SET_DEPTH_MAX 32

/* Most output samples a run may produce: about 80 bytes each in the HDF5
 * file (time, mode and up to nine columns), so 8 GB. */
#define MAX_SAMPLES 1e8
/* rtol's range is the key table's (io/config/config_keys.c); the erk8 method (Fehlberg 7(8), events
 * located to the rounding of t) goes further: ERK8_RTOL_MIN, argued in docs/numerics.md. */
#define ERK8_RTOL_MIN 1e-15
static const stsl_cr_range R_RTOL_ERK8 = {ERK8_RTOL_MIN, 1e-2, 0, 0, NULL, 0.0};

/* ---------------------------------------------------------------- sections */

static const char *const TOP_KEYS[] = {"description", "domain", "element", "friction", "end_stops",
                                       "inputs", "initial", "simulation", "output",
                                       /* a system of bodies (io/config_system.c) */
                                       "bodies", "couplings", "contacts", "stops", NULL};
static const char *const INPUT_KEYS[] = {"active_force", "load", "base_motion", "anchor_motion",
                                         NULL};
/* The models' own name tables, index = enum value (one definition each). */
#define SCHEME_NAMES (stsl_scheme_names())
static const char *const METHOD_NAMES[] = {"auto", "adams", "bdf", "erk8", NULL};
static const char *const DOMAIN_NAMES[] = {"translational", "rotational", NULL};
/* The models' own name table, index = stsl_law. */
#define LAW_NAMES (stsl_law_names())

static const char *const SYS_INPUT_KEYS[] = {"forces", "base_motion", "anchor_motion", NULL};
/* The one element's sections, which a system replaces. */
static const char *const ELEMENT_ONLY[] = {"element", "friction", "end_stops", "initial", NULL};
#define DOMAIN_NAME(d) ((d) == STSL_DOMAIN_ROTATIONAL ? "rotational" : "translational")

/* A rotating body's "mass" is its inertia (the seeds' word): either name,
 * not both, whatever the domain (an element's or a body's). */
static int read_mass(const stsl_cr_map *m, double *out)
{
    char path[KEYPATH_MAX];
    int inertia = stsl_cr_map_find(m, "inertia");
    stsl_cr_join(path, m->path, "inertia");
    if (inertia && stsl_cr_map_find(m, "mass"))
        return stsl_cr_fail(m->c, inertia, path, "give either %s.mass or %s.inertia, not both",
                            m->path, m->path);
    return stsl_key_read(m, inertia ? "inertia" : "mass", out, NULL);
}

static int load_element(const stsl_cr_map *top, stsl_config *cfg)
{
    stsl_cr_map m, s, d;
    int have_s, have_d;
    int rc = stsl_cr_map_sub(top, "element", 1, NULL, &m, &have_s);
    if (!rc) rc = read_mass(&m, &cfg->element.mass);
    if (!rc) rc = stsl_cr_map_sub(&m, "spring", 0, NULL, &s, &have_s);
    if (!rc && have_s) rc = stsl_key_read_all(&s, cfg);
    if (!rc) rc = stsl_cr_map_sub(&m, "damper", 0, NULL, &d, &have_d);
    if (!rc && have_d) rc = stsl_key_read_all(&d, cfg);
    return rc;
}

static int load_friction(const stsl_cr_map *top, stsl_friction_params *f)
{
    stsl_cr_map m;
    int have;
    int rc = stsl_cr_map_sub(top, "friction", 1, NULL, &m, &have);
    return rc ? rc : stsl_cr_friction(&m, f);
}

static int load_stops(const stsl_cr_map *top, stsl_element_params *e)
{
    stsl_cr_map m;
    stsl_system_stop st = {.model = STSL_STOP_RIGID};
    e->stop_model = STSL_STOP_RIGID;
    int rc = stsl_cr_map_sub(top, "end_stops", 0, NULL, &m, &e->has_stops);
    if (rc || !e->has_stops) return rc;
    rc = stsl_cr_stop(&m, &st);
    e->stop_model = st.model;
    e->x_min = st.p.x_min;
    e->x_max = st.p.x_max;
    e->restitution = st.p.restitution;
    e->stop_stiffness = st.p.stiffness;
    e->stop_damping = st.p.damping;
    return rc;
}

static int load_initial(const stsl_cr_map *top, stsl_config *cfg)
{
    stsl_element_params *e = &cfg->element;
    stsl_cr_map m = *top;
    int have;
    int rc = stsl_cr_map_sub(top, "initial", 0, NULL, &m, &have);
    if (!rc && have) rc = stsl_key_read_all(&m, cfg);
    if (rc || !e->has_stops || (e->x0 >= e->x_min && e->x0 <= e->x_max)) return rc;
    int id = have ? stsl_cr_map_find(&m, "position") : 0;
    return stsl_cr_fail(m.c, id ? id : m.id, "initial.position",
                        "must lie within the end stops [%g, %g] (got %g)", e->x_min, e->x_max,
                        e->x0);
}

/* The element's four signals (index = INPUT_KEYS), the tables it owns. */
static void element_signals(stsl_element_params *e, stsl_signal_spec *out[4])
{
    out[0] = &e->active_force;
    out[1] = &e->load;
    out[2] = &e->base_motion;
    out[3] = &e->anchor_motion;
}

/* The signals of `inputs` (index = INPUT_KEYS): a system has no
 * active_force or load (NULL), and its motions are its own. */
static void input_specs(stsl_config *cfg, stsl_signal_spec *out[4])
{
    stsl_system *s = &cfg->system;
    element_signals(&cfg->element, out);
    if (!cfg->is_system) return;
    out[0] = out[1] = NULL;
    out[2] = &s->base_motion;
    out[3] = &s->anchor_motion;
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
    rc = stsl_key_read(m, "step", &s->step, NULL);
    if (!rc && s->step > cfg->sim.t_end)
        rc = stsl_cr_fail(m->c, hid, "simulation.step", "must be in (0, t_end = %g] (got %g)",
                          cfg->sim.t_end, s->step);
    if (!rc && cfg->sim.t_end / s->step > 1e12)
        rc = stsl_cr_fail(m->c, hid, "simulation.step",
                          "makes more than 1e12 steps to t_end = %g (got %g)", cfg->sim.t_end,
                          s->step);
    if (!rc && kind == STSL_SCHEME_KARNOPP)
        rc = stsl_key_read(m, "karnopp_band", &s->karnopp_band, NULL);
    if (!rc && kind == STSL_SCHEME_SMOOTH_RK4 && hybrid)
        rc = stsl_key_read(m, "regularisation_velocity", &s->regularisation_velocity, NULL);
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
    return stsl_key_read(m, "atol", out, NULL);
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
    const stsl_cr_range *range = o->method == STSL_METHOD_ERK8 ? &R_RTOL_ERK8 : NULL;
    rc = stsl_key_read(m, use_acc ? "accuracy" : "rtol", &o->rtol, range);
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
    int rc = stsl_cr_map_sub(top, "simulation", 1, NULL, &m, &have);
    if (!rc) rc = stsl_key_read(&m, "t_end", &o->t_end, NULL);
    if (!rc) rc = stsl_key_read(&m, "output_step", &o->output_step, NULL);
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
    if (!rc) rc = stsl_key_read(&m, "max_events", &ev, NULL);
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
    int rc = stsl_cr_map_sub(top, "output", 0, NULL, &m, &have);
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

/* ---------------------------------------------------------------- a system of bodies */

/* A name a key path can hold as a segment (a body's, a contact's or a
 * stop's): a letter or _ followed by letters, digits, _ or -. */
static int plain_char(char ch, int first)
{
    return ch == '_' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
           (!first && (ch == '-' || (ch >= '0' && ch <= '9')));
}

static int plain_name(const char *name)
{
    int ok = plain_char(*name, 1);
    for (const char *p = name + 1; ok && *p; p++)
        ok = plain_char(*p, 0);
    return ok;
}

/* Messages name a contact or stop by its `name:` when key paths can (a
 * plain name that `uses` says no other contact or stop has: --set and get
 * find it by it), else by its index. */
static int named_in_keys(const char *name, int uses)
{
    return name && uses == 1 && strlen(name) <= STSL_BODY_NAME_MAX && plain_name(name);
}

/* The scalar `name:` of the sequence item `id` (a mapping); NULL when none. */
static const char *node_name(stsl_cr_ctx *c, int id)
{
    stsl_cr_map m = {.c = c, .id = id};
    int name = stsl_cr_node_at(c, id)->type == YAML_MAPPING_NODE ? stsl_cr_map_find(&m, "name") : 0;
    return name ? stsl_cr_key_text(c, name) : NULL;
}

/* How many contacts and stops of the document are called `name`. */
static int doc_uses(const stsl_cr_map *top, const char *name)
{
    int uses = 0;
    for (int k = 0; k < 2; k++) {
        yaml_node_t *s = stsl_cr_node_at(top->c, stsl_cr_map_find(top, k ? "stops" : "contacts"));
        yaml_node_item_t *it =
            s && s->type == YAML_SEQUENCE_NODE ? s->data.sequence.items.start : 0;
        for (; it && it < s->data.sequence.items.top; it++) {
            const char *other = node_name(top->c, *it);
            uses += other && !strcmp(other, name);
        }
    }
    return uses;
}

static const char *item_name(const stsl_system *s, int contacts, long i)
{
    return contacts ? s->contacts[i].name : s->stops[i].name;
}

/* `key` with the contact or stop it starts with written by index
 * (contacts.clutch.dynamic as contacts.0.dynamic: seq_item's rule, the
 * first item of that name) or, `by_name`, as the loader's messages name it
 * (contacts.1.dynamic as contacts.clutch.dynamic), in `buf`; else `key`.
 * `top` counts the uses of a name (NULL: a loaded system's are unique). */
static const char *item_key(const stsl_system *s, const stsl_cr_map *top, const char *key,
                            int by_name, char buf[KEYPATH_MAX])
{
    int contacts = !strncmp(key, "contacts.", 9), pre = contacts ? 9 : 6;
    if (!contacts && strncmp(key, "stops.", 6)) return key;
    const char *seg = key + pre, *dot = strchr(seg, '.');
    size_t len = dot ? (size_t)(dot - seg) : strlen(seg);
    char *end = (char *)seg;
    long n = contacts ? s->n_contacts : s->n_stops, i = by_name ? strtol(seg, &end, 10) : 0;
    if (!len || by_name != !!isdigit((unsigned char)*seg) || (by_name && end != seg + len))
        return key;
    for (; !by_name && i < n; i++)
        if (strlen(item_name(s, contacts, i)) == len &&
            !strncmp(item_name(s, contacts, i), seg, len))
            break;
    const char *name = i < n ? item_name(s, contacts, i) : NULL;
    if (!name || (by_name && !named_in_keys(name, top ? doc_uses(top, name) : 1))) return key;
    int w = by_name ? snprintf(buf, KEYPATH_MAX, "%.*s%s%s", pre, key, name, seg + len)
                    : snprintf(buf, KEYPATH_MAX, "%.*s%ld%s", pre, key, i, seg + len);
    return w < KEYPATH_MAX ? buf : key;
}

/* The sequence at `key` of `top` (absent: none); its items' ids. */
static int seq_open(const stsl_cr_map *top, const char *key, int *n, yaml_node_item_t **items)
{
    char got[64];
    int id = stsl_cr_map_find(top, key);
    *n = 0;
    *items = NULL;
    if (!id) return STSL_OK;
    yaml_node_t *s = stsl_cr_node_at(top->c, id);
    if (s->type != YAML_SEQUENCE_NODE)
        return stsl_cr_fail(top->c, id, key, "expected a sequence of mappings (got %s)",
                            stsl_cr_describe(s, got, sizeof got));
    *items = s->data.sequence.items.start;
    *n = (int)(s->data.sequence.items.top - s->data.sequence.items.start);
    return STSL_OK;
}

static void *alloc_items(stsl_cr_ctx *c, int n, size_t size, int *rc)
{
    void *p = n > 0 ? calloc((size_t)n, size) : NULL;
    if (n > 0 && !p) *rc = stsl_error_set(c->err, STSL_ENOMEM, "out of memory (%d items)", n);
    return p;
}

/* A name (body, end) into a fixed field. */
static int read_name(stsl_cr_ctx *c, int id, const char *path, char *dst)
{
    const char *s;
    int rc = stsl_cr_node_str(c, id, path, &s);
    return rc ? rc : stsl_cr_copy_field(c, id, path, dst, STSL_BODY_NAME_MAX + 1, s);
}

/* between: [a, b] (a sequence of two names). */
static int read_between(const stsl_cr_map *m, stsl_end ends[2])
{
    char path[KEYPATH_MAX], got[64], ip[KEYPATH_MAX + 16];
    int id = stsl_cr_map_find(m, "between");
    stsl_cr_join(path, m->path, "between");
    yaml_node_t *n = stsl_cr_node_at(m->c, id);
    int len = n->type == YAML_SEQUENCE_NODE
                  ? (int)(n->data.sequence.items.top - n->data.sequence.items.start)
                  : -1;
    if (len != 2)
        return stsl_cr_fail(m->c, id, path, "expected two names [a, b] (got %s)",
                            len < 0 ? stsl_cr_describe(n, got, sizeof got)
                                    : (snprintf(got, sizeof got, "%d names", len), got));
    int rc = STSL_OK;
    for (int k = 0; !rc && k < 2; k++) {
        snprintf(ip, sizeof ip, "%s.%d", path, k);
        rc = read_name(m->c, n->data.sequence.items.start[k], ip, ends[k].name);
    }
    return rc;
}

/* The ends: body: a (against the base; contacts and stops) or between;
 * a coupling's keys have no `body`, so it always gives between. */
static int read_ends(const stsl_cr_map *m, stsl_end ends[2], int *between, int allow_body)
{
    char path[KEYPATH_MAX];
    int b = stsl_cr_map_find(m, "body"), bw = stsl_cr_map_find(m, "between");
    *between = bw != 0;
    stsl_cr_join(path, m->path, allow_body ? "body" : "between");
    if (b && bw) return stsl_cr_fail(m->c, bw, path, "give either body: or between:, not both");
    if (!b && !bw)
        return stsl_cr_fail(m->c, m->id, path,
                            allow_body ? "missing required key (body: NAME, or between: [a, b])"
                                       : "missing required key (between: [a, b])");
    if (bw) return read_between(m, ends);
    snprintf(ends[1].name, sizeof ends[1].name, "base");
    return read_name(m->c, b, path, ends[0].name);
}

/* An item's optional name: (its rules are stsl_system_check's). */
static int read_item_name(const stsl_cr_map *m, char *dst)
{
    char path[KEYPATH_MAX];
    int id = stsl_cr_map_find(m, "name");
    stsl_cr_join(path, m->path, "name");
    return id ? read_name(m->c, id, path, dst) : STSL_OK;
}

/* ------------------------------------------------------------ sections */

/* A body name becomes a key path segment: no dots, nothing YAML reads
 * other than as this very name. */
static int check_body_name(stsl_cr_ctx *c, int id, const char *name)
{
    return plain_name(name)
               ? STSL_OK
               : stsl_cr_fail(c, id, "bodies",
                              "a body name is a letter or _ followed by letters, digits, _ or - "
                              "(got '%.48s')",
                              name);
}

static int load_body(stsl_cr_ctx *c, yaml_node_pair_t *p, stsl_body *b)
{
    char path[KEYPATH_MAX];
    stsl_cr_map m;
    const char *name = stsl_cr_key_text(c, p->key);
    int rc = check_body_name(c, p->key, name);
    if (!rc) rc = stsl_cr_copy_field(c, p->key, "bodies", b->name, sizeof b->name, name);
    stsl_cr_join(path, "bodies", name);
    if (!rc) rc = stsl_key_open(c, p->value, path, &m);
    if (!rc) rc = read_mass(&m, &b->mass);
    if (!rc) rc = stsl_key_read(&m, "position", &b->x0, NULL);
    if (!rc) rc = stsl_key_read(&m, "velocity", &b->v0, NULL);
    return rc;
}

static int load_bodies(const stsl_cr_map *top, stsl_system *s)
{
    char got[64];
    stsl_cr_ctx *c = top->c;
    int rc = STSL_OK, id = stsl_cr_map_find(top, "bodies");
    yaml_node_t *n = stsl_cr_node_at(c, id);
    if (n->type != YAML_MAPPING_NODE || n->data.mapping.pairs.top == n->data.mapping.pairs.start)
        return stsl_cr_fail(
            c, id, "bodies", "expected a mapping of at least one body, NAME: {mass: M} (got %s)",
            n->type == YAML_MAPPING_NODE ? "no body" : stsl_cr_describe(n, got, sizeof got));
    int nb = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    for (int i = 0; i < nb; i++)
        if (!stsl_cr_key_text(c, n->data.mapping.pairs.start[i].key))
            return stsl_cr_fail(c, n->data.mapping.pairs.start[i].key, "bodies",
                                "body names must be plain names, not collections");
    s->bodies = alloc_items(c, nb, sizeof *s->bodies, &rc);
    for (int i = 0; !rc && i < nb; i++, s->n_bodies++)
        rc = load_body(c, n->data.mapping.pairs.start + i, &s->bodies[i]);
    return rc;
}

/* The items of the sequence `key` (absent: none), each opened with the
 * table's keys and read by `fn`; *count counts those read (the failing
 * one too, so that what it holds is freed). */
typedef int (*item_fn)(const stsl_cr_map *m, void *item);
static void *load_items(const stsl_cr_map *top, const char *key, size_t size, int *count,
                        item_fn fn, int *rc)
{
    char path[KEYPATH_MAX];
    yaml_node_item_t *it;
    int n = 0;
    char *items = NULL;
    if (!*rc) *rc = seq_open(top, key, &n, &it);
    if (!*rc) items = alloc_items(top->c, n, size, rc);
    for (int i = 0; !*rc && i < n; i++, ++*count) {
        stsl_cr_map m;
        const char *name = strcmp(key, "couplings") ? node_name(top->c, it[i]) : NULL;
        if (named_in_keys(name, name ? doc_uses(top, name) : 0))
            snprintf(path, sizeof path, "%s.%s", key, name);
        else
            snprintf(path, sizeof path, "%s.%d", key, i);
        *rc = stsl_key_open(top->c, it[i], path, &m);
        if (!*rc) *rc = fn(&m, items + (size_t)i * size);
    }
    return items;
}

static int load_coupling(const stsl_cr_map *m, void *item)
{
    stsl_coupling *cp = item;
    int between, rc = read_ends(m, cp->ends, &between, 0);
    return rc ? rc : stsl_key_read_all(m, cp);
}

/* load: SIGNAL, the contact's F_R (a force: a table jumps where it says,
 * as the element's inputs.load). */
static int load_contact_load(const stsl_cr_map *m, stsl_contact *ct)
{
    char path[KEYPATH_MAX];
    int id = stsl_cr_map_find(m, "load");
    ct->has_load = id != 0;
    if (!id) return STSL_OK;
    stsl_cr_join(path, m->path, "load");
    return stsl_cr_load_signal(m->c, id, path, STSL_INTERP_LINEAR, &ct->load);
}

static int load_contact(const stsl_cr_map *m, void *item)
{
    stsl_contact *ct = item;
    int rc = read_item_name(m, ct->name);
    if (!rc) rc = read_ends(m, ct->ends, &ct->between, 1);
    if (!rc) rc = stsl_cr_friction(m, &ct->friction);
    return rc ? rc : load_contact_load(m, ct);
}

static int load_stop(const stsl_cr_map *m, void *item)
{
    stsl_system_stop *st = item;
    int rc = read_item_name(m, st->name);
    if (!rc) rc = read_ends(m, st->ends, &st->between, 1);
    return rc ? rc : stsl_cr_stop(m, st);
}

/* inputs.forces: {BODY: SIGNAL, ...}. */
static int load_forces(const stsl_cr_map *in, stsl_system *s)
{
    char path[KEYPATH_MAX], got[64];
    int rc = STSL_OK, id = stsl_cr_map_find(in, "forces");
    if (!id) return STSL_OK;
    yaml_node_t *n = stsl_cr_node_at(in->c, id);
    if (n->type != YAML_MAPPING_NODE)
        return stsl_cr_fail(in->c, id, "inputs.forces",
                            "expected a mapping BODY: {type: ...} (got %s)",
                            stsl_cr_describe(n, got, sizeof got));
    int nf = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    s->forces = alloc_items(in->c, nf, sizeof *s->forces, &rc);
    for (int i = 0; !rc && i < nf; i++, s->n_forces++) {
        yaml_node_pair_t *p = n->data.mapping.pairs.start + i;
        rc = read_name(in->c, p->key, "inputs.forces", s->forces[i].on.name);
        stsl_cr_join(path, "inputs.forces", s->forces[i].on.name);
        for (int j = 0; !rc && j < i; j++)
            if (!strcmp(s->forces[j].on.name, s->forces[i].on.name))
                rc = stsl_cr_fail(in->c, p->key, path, "duplicate key");
        if (!rc)
            rc = stsl_cr_load_signal(in->c, p->value, path, STSL_INTERP_LINEAR,
                                     &s->forces[i].signal);
    }
    return rc;
}

/* inputs: of the element (active_force, load and the motions) or of a
 * system (forces and the motions). */
static int load_inputs(const stsl_cr_map *top, stsl_config *cfg)
{
    /* Forces jump where a table says; motions are differentiated twice
     * (a_b enters the force), so they default to a smooth interpolation. */
    static const stsl_interp defs[4] = {STSL_INTERP_LINEAR, STSL_INTERP_LINEAR, STSL_INTERP_CUBIC,
                                        STSL_INTERP_CUBIC};
    stsl_signal_spec *specs[4];
    stsl_cr_map m;
    int have, sys = cfg->is_system;
    int rc = stsl_cr_map_sub(top, "inputs", 0, sys ? SYS_INPUT_KEYS : INPUT_KEYS, &m, &have);
    input_specs(cfg, specs);
    if (!rc && have && sys) rc = load_forces(&m, &cfg->system);
    for (int i = 0; !rc && have && i < 4; i++) {
        char path[KEYPATH_MAX];
        int id = specs[i] ? stsl_cr_map_find(&m, INPUT_KEYS[i]) : 0;
        stsl_cr_join(path, m.path, INPUT_KEYS[i]);
        if (id) rc = stsl_cr_load_signal(m.c, id, path, defs[i], specs[i]);
        if (i == 3) *(sys ? &cfg->system.has_anchor : &cfg->element.has_anchor) = id != 0;
    }
    return rc;
}

/* Item `seg` of sequence `id`: a decimal index (contacts.0), or the
 * `name:` of an item that is a mapping (contacts.gear, stops.backlash);
 * NULL when there is none.  The one rule by which --set, the API's
 * stsl_config_get/set and a study's `vary` keys find a sequence's item. */
static yaml_node_item_t *seq_item(stsl_cr_ctx *c, int id, const char *seg)
{
    yaml_node_t *n = stsl_cr_node_at(c, id);
    char *end;
    long i = strtol(seg, &end, 10);
    long len = (long)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (isdigit((unsigned char)*seg) && !*end)
        return i < len ? n->data.sequence.items.start + i : NULL;
    for (yaml_node_item_t *it = n->data.sequence.items.start;
         *seg && it < n->data.sequence.items.top; it++) {
        const char *text = node_name(c, *it);
        if (text && !strcmp(text, seg)) return it;
    }
    return NULL;
}

/* The node at a key path of the document (sequence items by index or name,
 * seq_item); when the path goes further, the deepest one found
 * (`deepest`) or else 0. */
static int node_of_path(stsl_cr_ctx *c, const char *path, int deepest)
{
    char buf[KEYPATH_MAX];
    int id = 1;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *seg = buf, *dot; seg; seg = dot ? dot + 1 : NULL) {
        dot = strchr(seg, '.');
        if (dot) *dot = '\0';
        yaml_node_t *n = stsl_cr_node_at(c, id);
        stsl_cr_map m = {.c = c, .id = id};
        yaml_node_item_t *it = n->type == YAML_SEQUENCE_NODE ? seq_item(c, id, seg) : NULL;
        int next = n->type == YAML_MAPPING_NODE ? stsl_cr_map_find(&m, seg) : it ? *it : 0;
        if (!next) return deepest ? id : 0;
        id = next;
    }
    return id;
}

/* The sections of a system of bodies (the top-level mapping has `bodies`);
 * the one element's sections are refused. */
static int load_system(const stsl_cr_map *top, stsl_config *cfg)
{
    stsl_system *s = &cfg->system;
    stsl_system_issue is;
    s->domain = cfg->element.domain;
    cfg->is_system = 1;
    int rc = stsl_cr_refuse_keys(top, ELEMENT_ONLY,
                                 "not in a system of bodies (bodies: is given): use contacts:, "
                                 "stops: and bodies.NAME.position/velocity");
    if (!rc) rc = load_bodies(top, s);
    s->couplings =
        load_items(top, "couplings", sizeof *s->couplings, &s->n_couplings, load_coupling, &rc);
    s->contacts =
        load_items(top, "contacts", sizeof *s->contacts, &s->n_contacts, load_contact, &rc);
    s->stops = load_items(top, "stops", sizeof *s->stops, &s->n_stops, load_stop, &rc);
    if (!rc) rc = load_inputs(top, cfg);
    if (!rc && (stsl_system_resolve(s, &is) || stsl_system_check(s, &is))) {
        char buf[KEYPATH_MAX];
        rc = stsl_cr_fail(top->c, node_of_path(top->c, is.path, 1),
                          item_key(s, top, is.path, 1, buf), "%s", is.msg);
    }
    return rc;
}

/* The one element: a system's sections are refused without bodies. */
static int load_element_sections(const stsl_cr_map *top, stsl_config *cfg)
{
    stsl_element_params *e = &cfg->element;
    static const char *const only_system[] = {"couplings", "contacts", "stops", NULL};
    int rc = stsl_cr_refuse_keys(top, only_system,
                                 "only in a system of bodies (give bodies: too; the one element "
                                 "takes friction: and end_stops:)");
    if (!rc) rc = load_element(top, cfg);
    if (!rc) rc = load_friction(top, &e->friction);
    if (!rc) rc = load_stops(top, e);
    if (!rc) rc = load_inputs(top, cfg);
    if (!rc) rc = load_initial(top, cfg);
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
        rc = load_system(&top, cfg);
    else if (!rc)
        rc = load_element_sections(&top, cfg);
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

static int set_fail(stsl_cr_ctx *c, const char *arg, const char *path, const char *what)
{
    return stsl_error_set(c->err, STSL_EINPUT, "%s: %s: %s", stsl_cr_set_name(c, arg), path, what);
}

static int set_nomem(stsl_cr_ctx *c, const char *arg)
{
    return stsl_error_set(c->err, STSL_ENOMEM, "%s: out of memory", stsl_cr_set_name(c, arg));
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
    if (!rc && !id) rc = set_nomem(c, arg);
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
    snprintf(where, sizeof where, "%.*s", KEYPATH_MAX + 6, stsl_cr_set_name(c, arg));
    if ((rc = stsl_text_check(where, text, strlen(text), &stsl_config_limits, &start, c->err)))
        return rc;
    if (!yaml_parser_initialize(&p)) return set_nomem(c, arg);
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
        rc = set_nomem(c, arg);
    yaml_document_delete(&val);
    yaml_parser_delete(&p);
    return rc;
}

static int add_pair(stsl_cr_ctx *c, const char *arg, int map, const char *key, int value)
{
    int k = yaml_document_add_scalar(&c->doc, NULL, (const yaml_char_t *)key, (int)strlen(key),
                                     YAML_PLAIN_SCALAR_STYLE);
    if (!k || !yaml_document_append_mapping_pair(&c->doc, map, k, value)) return set_nomem(c, arg);
    return STSL_OK;
}

/* Key path `key` up to and including the segment `seg` (for a message). */
static int no_item(stsl_cr_ctx *c, const char *arg, char *key, char *seg, int seq)
{
    yaml_node_t *n = stsl_cr_node_at(c, seq);
    long len = (long)(n->data.sequence.items.top - n->data.sequence.items.start);
    char what[KEYPATH_MAX + 96];
    if (seg != key) seg[-1] = '\0';
    snprintf(what, sizeof what, "no item '%s' (%s an index in [0, %ld])", seg,
             len ? "expected" : "the sequence is empty, there is no", len - 1);
    return set_fail(c, arg, seg == key ? "(top level)" : key, what);
}

/* Put `value` at `key` (dotted; a sequence's items by index or name, as
 * in contacts.0.dynamic or contacts.gear.dynamic), creating missing intermediate mappings. */
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
        yaml_node_pair_t *p = stsl_cr_pair(c, cur, seg);
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
    return rc == STSL_ENOMEM ? set_nomem(c, arg) : rc;
}

static int apply_set(stsl_cr_ctx *c, const char *arg)
{
    char key[KEYPATH_MAX];
    int value;
    if (!arg || !split_set(arg, key))
        return stsl_error_set(c->err, STSL_EINPUT, "%s: expected KEY.PATH=VALUE",
                              stsl_cr_set_name(c, arg ? arg : "(null)"));
    /* An empty file plus overrides is a document made of overrides. */
    if (!yaml_document_get_root_node(&c->doc) &&
        !yaml_document_add_mapping(&c->doc, NULL, YAML_BLOCK_MAPPING_STYLE))
        return set_nomem(c, arg);
    int first = node_count(&c->doc) + 1;
    int rc = graft_value(c, arg, strchr(arg, '=') + 1, &value);
    if (!rc) rc = place(c, arg, key, value);
    if (rc) return rc;
    stsl_cr_graft *g = realloc(c->grafts, (size_t)(c->n_grafts + 1) * sizeof *g);
    if (!g) return set_nomem(c, arg);
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

/* Parse `len` bytes of `text`, apply the overrides, validate into `cfg`
 * (loaded from `source`, named after `origin`); `who` prefixes the
 * message when the parser cannot start. */
static int load_text(stsl_cr_ctx *c, const char *text, size_t len, const char *who,
                     const char *source, const char *origin, const char *const *sets, int n_sets,
                     stsl_config *cfg)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return stsl_error_set(c->err, STSL_ENOMEM, "%s%sout of memory", who, *who ? ": " : "");
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    snprintf(cfg->source, sizeof cfg->source, "%s", source);
    set_name(cfg, origin);
    int rc = parse_doc(c, &p);
    for (int i = 0; !rc && i < n_sets; i++)
        rc = apply_set(c, sets[i]);
    if (!rc) rc = load_top(c, cfg);
    if (c->have_doc) yaml_document_delete(&c->doc);
    free(c->grafts);
    yaml_parser_delete(&p);
    if (rc) {
        stsl_config_free(cfg);
        memset(cfg, 0, sizeof *cfg);
        stsl_cr_one_line(c->err);
    }
    return rc;
}

int stsl_config_load(const char *path, const char *const *sets, int n_sets, stsl_config *cfg,
                     stsl_error *err)
{
    char dir[STSL_PATH_MAX], *text = NULL;
    size_t len = 0;
    memset(cfg, 0, sizeof *cfg);
    if (strlen(path) >= STSL_PATH_MAX)
        return stsl_error_set(err, STSL_EINPUT, "%s: path too long", path);
    int rc = stsl_text_read(path, &stsl_config_limits, &text, &len, err);
    if (rc) {
        stsl_cr_one_line(err);
        return rc;
    }
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 0;
    memcpy(dir, path, dl);
    dir[dl] = '\0';
    stsl_cr_ctx c = {.origin = path, .base_dir = dl ? dir : NULL, .err = err};
    rc = load_text(&c, text, len, path, path, path, sets, n_sets, cfg);
    free(text);
    return rc;
}

/* stsl_config_load_string; api_sets: the assignments are an API caller's
 * (messages name them "set 'ARG'", not as the --set option). */
static int load_string(const char *text, const char *origin, const char *base_dir,
                       const char *const *sets, int n_sets, int api_sets, stsl_config *cfg,
                       stsl_error *err)
{
    memset(cfg, 0, sizeof *cfg);
    const char *where = origin && *origin ? origin : "<string>";
    size_t start = 0;
    int rc = stsl_text_check(where, text, strlen(text), &stsl_config_limits, &start, err);
    if (rc) return rc;
    stsl_cr_ctx c = {.origin = where, .base_dir = base_dir, .api_sets = api_sets, .err = err};
    return load_text(&c, text + start, strlen(text + start), "", "<string>", origin, sets, n_sets,
                     cfg);
}

int stsl_config_load_string(const char *text, const char *origin, const char *base_dir,
                            const char *const *sets, int n_sets, stsl_config *cfg, stsl_error *err)
{
    return load_string(text, origin, base_dir, sets, n_sets, 0, cfg, err);
}

void stsl_config_free(stsl_config *cfg)
{
    if (!cfg) return;
    stsl_signal_spec *s[4];
    element_signals(&cfg->element, s);
    for (int i = 0; i < 4; i++) {
        free(s[i]->tt);
        free(s[i]->vv);
        s[i]->tt = s[i]->vv = NULL;
        s[i]->n = 0;
    }
    stsl_system_free(&cfg->system);
}

/* ---------------------------------------------------------------- to_yaml */

/* The numbers of `prefix` (the key table's) as a flow mapping `open`...}. */
static void put_flow_keys(FILE *f, const stsl_config *cfg, const char *open, const char *prefix,
                          const void *home)
{
    fputs(open, f);
    stsl_key_put(f, cfg, prefix, home, ", ", "", 1);
    fputs("}\n", f);
}

/* The signals of `inputs` but a system's forces (the anchor's when given). */
static void put_inputs(FILE *f, const stsl_config *cfg, int anchor)
{
    stsl_signal_spec *specs[4];
    input_specs((stsl_config *)cfg, specs); /* read only */
    for (int i = 0; i < 3 + anchor; i++)
        if (specs[i]) stsl_cr_put_signal(f, "  ", INPUT_KEYS[i], specs[i]);
}

static void put_element(FILE *f, const stsl_config *cfg)
{
    const stsl_element_params *e = &cfg->element;
    const stsl_friction_params *fr = &e->friction;
    fputs("element:\n  ", f);
    stsl_key_put(f, cfg, "element", cfg, "", "", 1);
    put_flow_keys(f, cfg, "\n  spring: {", "element.spring", cfg);
    put_flow_keys(f, cfg, "  damper: {", "element.damper", cfg);
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
    put_inputs(f, cfg, e->has_anchor);
    put_flow_keys(f, cfg, "initial: {", "initial", cfg);
}

static void put_ends(FILE *f, const char *name, const stsl_end *ends, int between)
{
    fputs("  - {", f);
    if (name && name[0]) fprintf(f, "name: %s, ", name);
    if (between)
        fprintf(f, "between: [%s, %s]", ends[0].name, ends[1].name);
    else
        fprintf(f, "body: %s", ends[0].name);
}

static void put_stop(FILE *f, const stsl_system_stop *st)
{
    put_ends(f, st->name, st->ends, st->between);
    fprintf(f, ", min: %.17g, max: %.17g", st->p.x_min, st->p.x_max);
    if (st->model == STSL_STOP_COMPLIANT)
        fprintf(f, ", model: compliant, stiffness: %.17g, damping: %.17g}\n", st->p.stiffness,
                st->p.damping);
    else
        fprintf(f, ", model: rigid, restitution: %.17g}\n", st->p.restitution);
}

static void put_system(FILE *f, const stsl_config *cfg)
{
    const stsl_system *s = &cfg->system;
    fputs("bodies:\n", f);
    for (int i = 0; i < s->n_bodies; i++) {
        fprintf(f, "  %s: {", s->bodies[i].name);
        put_flow_keys(f, cfg, "", "bodies.NAME", &s->bodies[i]);
    }
    fputs(s->n_couplings ? "couplings:\n" : "couplings: []\n", f);
    for (int i = 0; i < s->n_couplings; i++) {
        const stsl_coupling *cp = &s->couplings[i];
        put_ends(f, NULL, cp->ends, 1);
        put_flow_keys(f, cfg, ", ", "couplings.N", cp);
    }
    fputs(s->n_contacts ? "contacts:\n" : "contacts: []\n", f);
    for (int i = 0; i < s->n_contacts; i++) {
        put_ends(f, s->contacts[i].name, s->contacts[i].ends, s->contacts[i].between);
        stsl_cr_put_friction(f, &s->contacts[i].friction, ", ", "");
        /* The load's flow mapping ends its line: the contact's closes on
         * the next, indented within the sequence item. */
        if (s->contacts[i].has_load) stsl_cr_put_signal(f, ", ", "load", &s->contacts[i].load);
        fputs(s->contacts[i].has_load ? "    }\n" : "}\n", f);
    }
    fputs(s->n_stops ? "stops:\n" : "stops: []\n", f);
    for (int i = 0; i < s->n_stops; i++)
        put_stop(f, &s->stops[i]);
    fputs(s->n_forces ? "inputs:\n  forces:\n" : "inputs:\n  forces: {}\n", f);
    for (int i = 0; i < s->n_forces; i++)
        stsl_cr_put_signal(f, "    ", s->forces[i].on.name, &s->forces[i].signal);
    put_inputs(f, cfg, s->has_anchor);
}

/* The system's derived atol per component (x, v of every body, sigma0 z
 * of each LuGre contact); NULL when out of memory. */
static double *system_atol(const stsl_config *cfg, int *n, const char *units[3])
{
    const stsl_column *cols = stsl_one_body_columns(cfg->system.domain);
    units[0] = cols[STSL_COL_X].units;
    units[1] = cols[STSL_COL_V].units;
    units[2] = cols[STSL_COL_FRICTION].units; /* sigma0 z is a force */
    stsl_error err = {0};
    return stsl_multibody_atol(&cfg->system, cfg->sim.rtol, 0.0, n, &err);
}

int stsl_config_auto_atol(const stsl_config *cfg, double a[3], const char *units[3])
{
    if (!cfg->is_system) return stsl_element_atol(&cfg->element, cfg->sim.rtol, 0.0, a, units);
    const stsl_system *s = &cfg->system;
    int n, nb = s->n_bodies;
    double *all = system_atol(cfg, &n, units);
    if (!all) return 0;
    a[0] = a[1] = a[2] = INFINITY;
    for (int i = 0; i < n; i++) {
        int kind = i < nb ? 0 : i < 2 * nb ? 1 : 2;
        a[kind] = fmin(a[kind], all[i]);
    }
    free(all);
    return n > 2 * nb ? 3 : 2;
}

/* A system's derived atol as comment lines, one per body (x, v) and one
 * per LuGre contact (sigma0 z, named as its messages name it). */
static void put_system_atol(FILE *f, const stsl_config *cfg)
{
    const stsl_system *s = &cfg->system;
    const char *units[3];
    int n, nb = s->n_bodies;
    double *a = system_atol(cfg, &n, units);
    if (!a) {
        fputs("  atol: auto\n", f);
        return;
    }
    fputs("  atol: auto   # derived (rtol x 1e-3 x natural scale), per body:\n", f);
    for (int i = 0; i < nb; i++)
        fprintf(f, "  #   %s: x %.3g %s, v %.3g %s\n", s->bodies[i].name, a[i], units[0], a[nb + i],
                units[1]);
    for (int c = 0, k = 2 * nb; c < s->n_contacts && k < n; c++) {
        char name[sizeof s->contacts[c].name + 16];
        if (s->contacts[c].friction.law != STSL_LAW_LUGRE) continue;
        fprintf(f, "  #   %s%s: sigma0 z %.3g %s\n", s->contacts[c].name[0] ? "contact " : "",
                stsl_system_member_name(s, c, name, sizeof name), a[k++], units[2]);
    }
    free(a);
}

/* `atol: auto` with the values the rule gives in a comment (YAML drops
 * it when the text is read again), or the number given. */
static void put_atol(FILE *f, const stsl_config *cfg)
{
    if (cfg->sim.atol > 0.0) {
        fprintf(f, "  atol: %.17g\n", cfg->sim.atol);
        return;
    }
    if (cfg->is_system) {
        put_system_atol(f, cfg);
        return;
    }
    double a[3];
    const char *units[3], *names[3] = {"x", "v", "sigma0 z"};
    int n = stsl_config_auto_atol(cfg, a, units);
    fputs("  atol: auto   # derived (rtol x 1e-3 x natural scale):", f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s %s %.3g %s", i ? "," : "", names[i], a[i], units[i]);
    fputc('\n', f);
}

static void put_yaml(FILE *f, const stsl_config *cfg)
{
    fprintf(f, "# stickslip: effective configuration, every default filled in\ndomain: %s\n",
            DOMAIN_NAME(cfg->is_system ? cfg->system.domain : cfg->element.domain));
    if (cfg->is_system)
        put_system(f, cfg);
    else
        put_element(f, cfg);
    fprintf(f, "simulation:\n  t_end: %.17g\n  output_step: %.17g\n  rtol: %.17g\n", cfg->sim.t_end,
            cfg->sim.output_step, cfg->sim.rtol);
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
}

/* malloc'd; NULL: out of memory. */
char *stsl_config_to_yaml(const stsl_config *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    put_yaml(f, cfg);
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
    stsl_signal_spec *d[4], *s[4];
    element_signals(&dst->element, d);
    element_signals((stsl_element_params *)&src->element, s); /* read only */
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

/* The signal at the start of `key` (inputs.NAME, inputs.forces.BODY,
 * contacts.N.load) and *rest the parameter after it; NULL when none. */
static stsl_signal_spec *signal_at(stsl_config *cfg, const char *key, const char **rest)
{
    stsl_system *s = &cfg->system;
    stsl_signal_spec *in[4];
    int sys = cfg->is_system, anchor = sys ? s->has_anchor : cfg->element.has_anchor;
    input_specs(cfg, in);
    for (int i = 0; i < 3 + anchor && !strncmp(key, "inputs.", 7); i++) {
        size_t n = strlen(INPUT_KEYS[i]);
        if (in[i] && !strncmp(key + 7, INPUT_KEYS[i], n) && key[7 + n] == '.')
            return *rest = key + 8 + n, in[i];
    }
    char *end;
    long i = sys && !strncmp(key, "contacts.", 9) && isdigit((unsigned char)key[9])
                 ? strtol(key + 9, &end, 10)
                 : -1;
    if (i >= 0 && i < s->n_contacts && !strncmp(end, ".load.", 6) && s->contacts[i].has_load)
        return *rest = end + 6, &s->contacts[i].load;
    for (int f = 0; sys && !strncmp(key, "inputs.forces.", 14) && f < s->n_forces; f++) {
        size_t n = strlen(s->forces[f].on.name);
        if (!strncmp(key + 14, s->forces[f].on.name, n) && key[14 + n] == '.')
            return *rest = key + 15 + n, &s->forces[f].signal;
    }
    return NULL;
}

/* The double behind *key when it can be set on its own (the key table's
 * `when`, a smooth law's parameter, a signal's parameter; a contact or
 * stop by index or name); NULL when it must go through the full load.
 * *k is its table entry (NULL for the signal parameters); *key becomes
 * the path the full load names in its messages (item_key, in `buf`). */
static double *fast_slot(stsl_config *cfg, const char **at, char buf[2][KEYPATH_MAX],
                         const stsl_key **k, const stsl_cr_range **r)
{
    const char *rest, *key = item_key(&cfg->system, NULL, *at, 0, buf[0]);
    *at = item_key(&cfg->system, NULL, key, 1, buf[1]);
    double *slot = stsl_key_slot(cfg, key, k, r);
    if (slot) return slot;
    *k = NULL;
    stsl_signal_spec *sig = signal_at(cfg, key, &rest);
    return sig ? stsl_cr_signal_slot(sig, rest, r) : NULL;
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
static int tie_static_level(stsl_friction_params *f, const double *slot)
{
    if (slot == &f->static_force) f->static_given = STSL_STATIC_FORCE;
    if (slot == &f->static_ratio) f->static_given = STSL_STATIC_RATIO;
    if (f->static_given != STSL_STATIC_FORCE) return 1;
    if (!(f->dynamic > 0.0) || f->static_force < f->dynamic) return 0;
    f->static_ratio = f->static_force / f->dynamic;
    return 1;
}

int stsl_config_set_alone(stsl_config *cfg, const char *key, const char *value, stsl_error *err)
{
    const stsl_cr_range *r = NULL;
    const stsl_key *k = NULL;
    char buf[2][KEYPATH_MAX];
    double *slot = key && value ? fast_slot(cfg, &key, buf, &k, &r) : NULL;
    if (!slot || !plain_number_text(value)) return STSL_SET_RELOAD;
    /* The friction parameters the key belongs to (their static level is
     * tied to the dynamic one), else a dummy that ties nothing. */
    stsl_friction_params none = {0}, *f = &none;
    if (k && k->home == STSL_HOME_FRICTION) f = (stsl_friction_params *)((char *)slot - k->off);
    yaml_node_t n = {.type = YAML_SCALAR_NODE};
    n.data.scalar.value = (yaml_char_t *)value;
    n.data.scalar.length = strlen(value);
    n.data.scalar.style = YAML_PLAIN_SCALAR_STYLE;
    char what[512];
    double v;
    if (stsl_cr_check_num(&n, r, &v, what, sizeof what)) {
        /* The static level's range is the dynamic one's; rtol's is wider
         * with the erk8 method: the full load judges both. */
        if (slot == &f->static_force ||
            (slot == &cfg->sim.rtol && cfg->sim.method == STSL_METHOD_ERK8))
            return STSL_SET_RELOAD;
        stsl_error_set(err, STSL_EINPUT, "%s: %s", key, what);
        stsl_cr_one_line(err);
        return STSL_EINPUT;
    }
    double before = *slot, ratio = f->static_ratio;
    stsl_static_given given = f->static_given;
    *slot = v;
    if (too_many_samples(&cfg->sim) || !tie_static_level(f, slot) || !stsl_cr_law_levels_ok(f)) {
        /* Refused by a rule between keys: the full load words it (and names
         * the key the loader blames), so both paths say the same. */
        *slot = before;
        f->static_ratio = ratio;
        f->static_given = given;
        return STSL_SET_RELOAD;
    }
    sync_tolerances(cfg);
    return STSL_OK;
}

int stsl_config_set(stsl_config *cfg, const char *key, const char *value, stsl_error *err)
{
    int rc = stsl_config_set_alone(cfg, key, value, err);
    return rc == STSL_SET_RELOAD ? stsl_config_set_reload(cfg, key, value, err) : rc;
}

#define EFFECTIVE "effective configuration"

/* Drop "set 'KEY=VALUE': " from a message: the caller set one key. */
static void strip_set_prefix(stsl_error *err, const char *arg)
{
    size_t n = strlen(arg);
    if (!err || strncmp(err->msg, "set '", 5) || strncmp(err->msg + 5, arg, n) ||
        strncmp(err->msg + 5 + n, "': ", 3))
        return;
    memmove(err->msg, err->msg + 8 + n, strlen(err->msg + 8 + n) + 1);
}

int stsl_config_set_reload(stsl_config *cfg, const char *key, const char *value, stsl_error *err)
{
    if (!key || !value) return stsl_error_set(err, STSL_EINPUT, "set: key and value are required");
    size_t n = strlen(key) + strlen(value) + 2;
    char *arg = malloc(n);
    if (!arg) return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", key);
    snprintf(arg, n, "%s=%s", key, value);
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
    int rc = load_string(yaml, EFFECTIVE, NULL, sets, n_sets, 1, &next, err);
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
    char *yaml = stsl_config_to_yaml(cfg), *out = NULL;
    size_t len = 0;
    yaml_parser_t p;
    if (!yaml || !yaml_parser_initialize(&p)) {
        free(yaml);
        stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", key);
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)yaml, strlen(yaml));
    stsl_cr_ctx c = {.origin = EFFECTIVE, .err = err};
    int rc = parse_doc(&c, &p), id = rc ? 0 : node_of_path(&c, key, 0);
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
    const stsl_key *k = NULL;
    char path[2][KEYPATH_MAX];
    const char *at = key;
    /* fast_slot only locates the double; nothing is written through it. */
    const double *slot = key ? fast_slot((stsl_config *)cfg, &at, path, &k, &r) : NULL;
    /* A static level the document does not state (given the other way, or
     * the default) is not a key of it. */
    const stsl_friction_params *f =
        k && k->home == STSL_HOME_FRICTION ? (const void *)((const char *)slot - k->off) : NULL;
    if (f && ((slot == &f->static_force && f->static_given != STSL_STATIC_FORCE) ||
              (slot == &f->static_ratio && f->static_given != STSL_STATIC_RATIO)))
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

/* ---------------------------------------------------------------- run */

int stsl_config_require_element(const stsl_config *cfg, stsl_error *err)
{
    const stsl_system *s = &cfg->system;
    if (!cfg->is_system) return STSL_OK;
    return stsl_error_set(err, STSL_EINPUT,
                          "%s: this command cannot handle a system of bodies yet (bodies %d, "
                          "couplings %d, contacts %d, stops %d): `stickslip run` and "
                          "the API's stsl_run simulate it, `stickslip check` validates it",
                          cfg->source, s->n_bodies, s->n_couplings, s->n_contacts, s->n_stops);
}

int stsl_config_require_runnable(const stsl_config *cfg, stsl_error *err)
{
    if (!cfg->is_system) return STSL_OK;
    if (cfg->scheme.kind != STSL_SCHEME_EVENT_DRIVEN &&
        stsl_fixed_step_system_check(&cfg->system, &cfg->sim, &cfg->scheme, err))
        return stsl_error_wrap(err, "%s", cfg->source);
    return STSL_OK;
}
