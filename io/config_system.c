/* config_system.c - see config_system.h. */
#include "io/config_system.h"

#include <stdlib.h>
#include <string.h>

#include "models/fixed_step_system.h"

static const char *const BODY_KEYS[] = {"mass", "inertia", "position", "velocity", NULL};
static const char *const COUPLING_KEYS[] = {"between", "stiffness", "damping", "free_length", NULL};
static const char *const SYS_INPUT_KEYS[] = {"forces", "base_motion", "anchor_motion", NULL};
/* The one element's sections, which a system replaces. */
static const char *const ELEMENT_ONLY[] = {"element", "friction", "end_stops", "initial", NULL};
#define DOMAIN_NAME(d) ((d) == STSL_DOMAIN_ROTATIONAL ? "rotational" : "translational")
#define MASS_KEY(d)    ((d) == STSL_DOMAIN_ROTATIONAL ? "inertia" : "mass")

/* "item" keys + the keys of what an item carries (friction, stop) + `also`
 * (NULL: none). */
static void item_keys(const char *const *extra, const char *also, const char *keys[32])
{
    int n = 0;
    keys[n++] = "name";
    keys[n++] = "body";
    keys[n++] = "between";
    for (int i = 0; extra[i] && n < 30; i++)
        keys[n++] = extra[i];
    if (also) keys[n++] = also;
    keys[n] = NULL;
}

/* ------------------------------------------------------------ sequences */

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
    int ok = *name && (name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
                       (name[0] >= 'a' && name[0] <= 'z'));
    for (const char *p = name; ok && *p; p++)
        ok = *p == '_' || *p == '-' || (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
             (*p >= 'a' && *p <= 'z');
    return ok ? STSL_OK
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
    if (!rc) rc = stsl_cr_map_open(c, p->value, path, BODY_KEYS, &m);
    int inertia = !rc ? stsl_cr_map_find(&m, "inertia") : 0;
    if (inertia && stsl_cr_map_find(&m, "mass")) {
        stsl_cr_join(path, m.path, "inertia");
        return stsl_cr_fail(c, inertia, path, "give either mass or inertia, not both");
    }
    if (!rc) rc = stsl_cr_map_num(&m, inertia ? "inertia" : "mass", 1, 0.0, &stsl_cr_pos, &b->mass);
    if (!rc) rc = stsl_cr_map_num(&m, "position", 0, 0.0, NULL, &b->x0);
    if (!rc) rc = stsl_cr_map_num(&m, "velocity", 0, 0.0, NULL, &b->v0);
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

static int load_couplings(const stsl_cr_map *top, stsl_system *s)
{
    char path[KEYPATH_MAX];
    yaml_node_item_t *it;
    int n, rc = seq_open(top, "couplings", &n, &it);
    if (!rc) s->couplings = alloc_items(top->c, n, sizeof *s->couplings, &rc);
    for (int i = 0; !rc && i < n; i++, s->n_couplings++) {
        stsl_coupling *cp = &s->couplings[i];
        stsl_cr_map m;
        int between;
        snprintf(path, sizeof path, "couplings.%d", i);
        rc = stsl_cr_map_open(top->c, it[i], path, COUPLING_KEYS, &m);
        if (!rc) rc = read_ends(&m, cp->ends, &between, 0);
        if (!rc) rc = stsl_cr_map_num(&m, "stiffness", 0, 0.0, &stsl_cr_nonneg, &cp->stiffness);
        if (!rc) rc = stsl_cr_map_num(&m, "damping", 0, 0.0, &stsl_cr_nonneg, &cp->damping);
        if (!rc) rc = stsl_cr_map_num(&m, "free_length", 0, 0.0, NULL, &cp->free_length);
    }
    return rc;
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

static int load_contacts(const stsl_cr_map *top, stsl_system *s)
{
    char path[KEYPATH_MAX];
    const char *keys[32];
    yaml_node_item_t *it;
    int n, rc = seq_open(top, "contacts", &n, &it);
    item_keys(stsl_cr_friction_keys, "load", keys);
    if (!rc) s->contacts = alloc_items(top->c, n, sizeof *s->contacts, &rc);
    for (int i = 0; !rc && i < n; i++, s->n_contacts++) {
        stsl_contact *ct = &s->contacts[i];
        stsl_cr_map m;
        snprintf(path, sizeof path, "contacts.%d", i);
        rc = stsl_cr_map_open(top->c, it[i], path, keys, &m);
        if (!rc) rc = read_item_name(&m, ct->name);
        if (!rc) rc = read_ends(&m, ct->ends, &ct->between, 1);
        if (!rc) rc = stsl_cr_friction(&m, &ct->friction);
        if (!rc) rc = load_contact_load(&m, ct);
    }
    return rc;
}

static int load_stops(const stsl_cr_map *top, stsl_system *s)
{
    char path[KEYPATH_MAX];
    const char *keys[32];
    yaml_node_item_t *it;
    int n, rc = seq_open(top, "stops", &n, &it);
    item_keys(stsl_cr_stop_keys, NULL, keys);
    if (!rc) s->stops = alloc_items(top->c, n, sizeof *s->stops, &rc);
    for (int i = 0; !rc && i < n; i++, s->n_stops++) {
        stsl_system_stop *st = &s->stops[i];
        stsl_cr_map m;
        snprintf(path, sizeof path, "stops.%d", i);
        rc = stsl_cr_map_open(top->c, it[i], path, keys, &m);
        if (!rc) rc = read_item_name(&m, st->name);
        if (!rc) rc = read_ends(&m, st->ends, &st->between, 1);
        if (!rc) rc = stsl_cr_stop(&m, &st->model, &st->p);
    }
    return rc;
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

static int load_sys_inputs(const stsl_cr_map *top, stsl_system *s)
{
    stsl_cr_map m;
    int have, id;
    int rc = stsl_cr_map_sub(top, "inputs", 0, SYS_INPUT_KEYS, &m, &have);
    if (rc || !have) return rc;
    rc = load_forces(&m, s);
    /* Motions are differentiated twice: a smooth interpolation (as the element). */
    if (!rc && (id = stsl_cr_map_find(&m, "base_motion")))
        rc = stsl_cr_load_signal(m.c, id, "inputs.base_motion", STSL_INTERP_CUBIC, &s->base_motion);
    if (!rc && (id = stsl_cr_map_find(&m, "anchor_motion")))
        rc = stsl_cr_load_signal(m.c, id, "inputs.anchor_motion", STSL_INTERP_CUBIC,
                                 &s->anchor_motion);
    s->has_anchor = !rc && id != 0;
    return rc;
}

/* The node at a key path of the document (sequence items by index); the
 * deepest one found when the path goes further. */
static int node_of_path(stsl_cr_ctx *c, const char *path)
{
    char buf[KEYPATH_MAX];
    int id = 1;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *seg = buf, *dot = buf; dot; seg = dot + 1) {
        dot = strchr(seg, '.');
        if (dot) *dot = '\0';
        yaml_node_t *n = stsl_cr_node_at(c, id);
        int next = 0;
        if (n->type == YAML_MAPPING_NODE) {
            stsl_cr_map m = {.c = c, .id = id};
            next = stsl_cr_map_find(&m, seg);
        } else if (n->type == YAML_SEQUENCE_NODE) {
            long i = strtol(seg, NULL, 10);
            if (i >= 0 && i < n->data.sequence.items.top - n->data.sequence.items.start)
                next = n->data.sequence.items.start[i];
        }
        if (!next) break;
        id = next;
    }
    return id;
}

int stsl_config_system_load(const stsl_cr_map *top, stsl_config *cfg)
{
    stsl_system *s = &cfg->system;
    stsl_system_issue is;
    s->domain = cfg->element.domain;
    cfg->is_system = 1;
    int rc = stsl_cr_refuse_keys(top, ELEMENT_ONLY,
                                 "not in a system of bodies (bodies: is given): use contacts:, "
                                 "stops: and bodies.NAME.position/velocity");
    if (!rc) rc = load_bodies(top, s);
    if (!rc) rc = load_couplings(top, s);
    if (!rc) rc = load_contacts(top, s);
    if (!rc) rc = load_stops(top, s);
    if (!rc) rc = load_sys_inputs(top, s);
    if (!rc && (stsl_system_resolve(s, &is) || stsl_system_check(s, &is)))
        rc = stsl_cr_fail(top->c, node_of_path(top->c, is.path), is.path, "%s", is.msg);
    return rc;
}

/* ------------------------------------------------------------ writing */

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

void stsl_config_system_put(FILE *f, const stsl_config *cfg)
{
    const stsl_system *s = &cfg->system;
    fprintf(f, "domain: %s\nbodies:\n", DOMAIN_NAME(s->domain));
    for (int i = 0; i < s->n_bodies; i++)
        fprintf(f, "  %s: {%s: %.17g, position: %.17g, velocity: %.17g}\n", s->bodies[i].name,
                MASS_KEY(s->domain), s->bodies[i].mass, s->bodies[i].x0, s->bodies[i].v0);
    fputs(s->n_couplings ? "couplings:\n" : "couplings: []\n", f);
    for (int i = 0; i < s->n_couplings; i++) {
        const stsl_coupling *cp = &s->couplings[i];
        put_ends(f, NULL, cp->ends, 1);
        fprintf(f, ", stiffness: %.17g, damping: %.17g, free_length: %.17g}\n", cp->stiffness,
                cp->damping, cp->free_length);
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
    stsl_cr_put_signal(f, "  ", "base_motion", &s->base_motion);
    if (s->has_anchor) stsl_cr_put_signal(f, "  ", "anchor_motion", &s->anchor_motion);
}

/* ------------------------------------------------------------ fast set */

/* "N.rest" of a sequence of n items: the index, *rest after its dot. */
static int index_of(const char *key, int n, const char **rest)
{
    char *end;
    long i = strtol(key, &end, 10);
    if (end == key || *end != '.' || *key == '-' || *key == '+' || i >= n) return -1;
    *rest = end + 1;
    return (int)i;
}

static double *body_slot(stsl_system *s, const char *key, const stsl_cr_range **r)
{
    const char *dot = strchr(key, '.');
    for (int i = 0; dot && i < s->n_bodies; i++) {
        stsl_body *b = &s->bodies[i];
        if (strlen(b->name) != (size_t)(dot - key) || strncmp(key, b->name, (size_t)(dot - key)))
            continue;
        *r = NULL;
        if (!strcmp(dot + 1, "velocity")) return &b->v0;
        /* The start must lie within the stops: a rule between keys. */
        if (!strcmp(dot + 1, "position")) return s->n_stops ? NULL : &b->x0;
        *r = &stsl_cr_pos;
        return !strcmp(dot + 1, MASS_KEY(s->domain)) ? &b->mass : NULL;
    }
    return NULL;
}

static double *coupling_slot(stsl_system *s, const char *key, const stsl_cr_range **r)
{
    const char *rest;
    int i = index_of(key, s->n_couplings, &rest);
    if (i < 0) return NULL;
    *r = !strcmp(rest, "free_length") ? NULL : &stsl_cr_nonneg;
    if (!strcmp(rest, "stiffness")) return &s->couplings[i].stiffness;
    if (!strcmp(rest, "damping")) return &s->couplings[i].damping;
    return !strcmp(rest, "free_length") ? &s->couplings[i].free_length : NULL;
}

static double *stop_slot(stsl_system *s, const char *key, const stsl_cr_range **r)
{
    const char *rest;
    int i = index_of(key, s->n_stops, &rest);
    if (i < 0) return NULL;
    stsl_system_stop *st = &s->stops[i];
    int rigid = st->model == STSL_STOP_RIGID;
    *r = rigid ? &stsl_cr_unit : !strcmp(rest, "stiffness") ? &stsl_cr_pos : &stsl_cr_nonneg;
    if (rigid) return !strcmp(rest, "restitution") ? &st->p.restitution : NULL;
    if (!strcmp(rest, "stiffness")) return &st->p.stiffness;
    return !strcmp(rest, "damping") ? &st->p.damping : NULL;
}

static double *input_slot(stsl_system *s, const char *key, const stsl_cr_range **r)
{
    const char *dot = strchr(key, '.');
    if (!strncmp(key, "base_motion.", 12)) return stsl_cr_signal_slot(&s->base_motion, key + 12, r);
    if (!strncmp(key, "anchor_motion.", 14) && s->has_anchor)
        return stsl_cr_signal_slot(&s->anchor_motion, key + 14, r);
    if (strncmp(key, "forces.", 7) || !dot) return NULL;
    key += 7;
    dot = strchr(key, '.');
    for (int i = 0; dot && i < s->n_forces; i++) {
        const char *name = s->forces[i].on.name;
        if (strlen(name) == (size_t)(dot - key) && !strncmp(key, name, (size_t)(dot - key)))
            return stsl_cr_signal_slot(&s->forces[i].signal, dot + 1, r);
    }
    return NULL;
}

double *stsl_config_system_slot(stsl_config *cfg, const char *key, const stsl_cr_range **r)
{
    stsl_system *s = &cfg->system;
    const char *rest;
    if (!strncmp(key, "bodies.", 7)) return body_slot(s, key + 7, r);
    if (!strncmp(key, "couplings.", 10)) return coupling_slot(s, key + 10, r);
    if (!strncmp(key, "stops.", 6)) return stop_slot(s, key + 6, r);
    if (!strncmp(key, "inputs.", 7)) return input_slot(s, key + 7, r);
    if (strncmp(key, "contacts.", 9)) return NULL;
    int i = index_of(key + 9, s->n_contacts, &rest);
    if (i < 0) return NULL;
    if (!strncmp(rest, "load.", 5))
        return s->contacts[i].has_load ? stsl_cr_signal_slot(&s->contacts[i].load, rest + 5, r)
                                       : NULL;
    return stsl_cr_friction_slot(&s->contacts[i].friction, rest, r);
}

/* ------------------------------------------------------------ run, summary */

int stsl_config_require_element(const stsl_config *cfg, stsl_error *err)
{
    const stsl_system *s = &cfg->system;
    if (!cfg->is_system) return STSL_OK;
    return stsl_error_set(err, STSL_EINPUT,
                          "%s: this command cannot handle a system of bodies yet (bodies %d, "
                          "couplings %d, contacts %d, stops %d; issue 14): `stickslip run` and "
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

static void summary_of(FILE *f, const stsl_system *s)
{
    fprintf(f, "  %s system of %d bod%s:", DOMAIN_NAME(s->domain), s->n_bodies,
            s->n_bodies == 1 ? "y" : "ies");
    for (int i = 0; i < s->n_bodies; i++)
        fprintf(f, "%s %s (%s %g)", i ? "," : "", s->bodies[i].name, MASS_KEY(s->domain),
                s->bodies[i].mass);
    fprintf(f, "\n  couplings: %d", s->n_couplings);
    for (int i = 0; i < s->n_couplings; i++)
        fprintf(f, "%s %s-%s (k %g, c %g)", i ? "," : "", s->couplings[i].ends[0].name,
                s->couplings[i].ends[1].name, s->couplings[i].stiffness, s->couplings[i].damping);
    fprintf(f, "\n  contacts: %d", s->n_contacts);
    for (int i = 0; i < s->n_contacts; i++)
        fprintf(f, "%s %s-%s (%s%s%s)", i ? "," : "", s->contacts[i].ends[0].name,
                s->contacts[i].ends[1].name, stsl_law_name(s->contacts[i].friction.law),
                s->contacts[i].has_load ? ", load " : "",
                s->contacts[i].has_load ? stsl_signal_type_names()[s->contacts[i].load.type] : "");
    fprintf(f, "\n  stops: %d", s->n_stops);
    for (int i = 0; i < s->n_stops; i++)
        fprintf(f, "%s %s-%s (%s, [%g, %g])", i ? "," : "", s->stops[i].ends[0].name,
                s->stops[i].ends[1].name, stsl_stop_model_names()[s->stops[i].model],
                s->stops[i].p.x_min, s->stops[i].p.x_max);
    fprintf(f, "\n  forces: %d", s->n_forces);
    for (int i = 0; i < s->n_forces; i++)
        fprintf(f, "%s %s (%s)", i ? "," : "", s->forces[i].on.name,
                stsl_signal_type_names()[s->forces[i].signal.type]);
    fputc('\n', f);
}

char *stsl_config_summary(const stsl_config *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    if (cfg->is_system) summary_of(f, &cfg->system);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
