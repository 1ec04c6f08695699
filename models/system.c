/* system.c - see system.h. */
#include "models/system.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const FIXED_NAMES[] = {"ground", "base", "anchor", NULL};

int stsl_system_body(const stsl_system *s, const char *name)
{
    for (int i = 0; i < s->n_bodies; i++)
        if (strcmp(s->bodies[i].name, name) == 0) return i;
    return -1;
}

/* The end called `name`: a body's, or ground, base, anchor.  0, or -1
 * when the name is none of them. */
static int end_named(const stsl_system *s, const char *name, stsl_end *out)
{
    for (int k = 0; FIXED_NAMES[k]; k++)
        if (strcmp(name, FIXED_NAMES[k]) == 0) {
            out->kind = (stsl_end_kind)(k + 1);
            out->body = -1;
            return 0;
        }
    out->kind = STSL_END_BODY;
    out->body = stsl_system_body(s, name);
    return out->body < 0 ? -1 : 0;
}

const char *stsl_system_end_name(const stsl_system *s, stsl_end e)
{
    if (e.kind != STSL_END_BODY) return FIXED_NAMES[e.kind - 1];
    return e.body >= 0 && e.body < s->n_bodies ? s->bodies[e.body].name : "?";
}

int stsl_system_is_multibody(const stsl_system *s)
{
    int between = 0;
    for (int i = 0; i < s->n_couplings; i++)
        between |= s->couplings[i].ends[1].kind == STSL_END_BODY;
    for (int i = 0; i < s->n_contacts; i++)
        between |= s->contacts[i].ends[1].kind == STSL_END_BODY;
    for (int i = 0; i < s->n_stops; i++)
        between |= s->stops[i].ends[1].kind == STSL_END_BODY;
    return s->n_bodies > 1 || between;
}

/* ---------------------------------------------------------------- check */

static int issue_at(stsl_system_issue *is, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int issue_at(stsl_system_issue *is, const char *path, const char *fmt, ...)
{
    va_list ap;
    snprintf(is->path, sizeof is->path, "%s", path);
    va_start(ap, fmt);
    vsnprintf(is->msg, sizeof is->msg, fmt, ap);
    va_end(ap);
    return 1;
}

static int resolve_end(const stsl_system *s, stsl_end *e, const char *path, stsl_system_issue *is)
{
    char list[160];
    size_t used = 0;
    if (end_named(s, e->name, e) == 0) return 0;
    list[0] = '\0';
    for (int i = 0; i < s->n_bodies && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                 s->bodies[i].name);
    return issue_at(is, path, "unknown body '%s' (bodies: %s; fixed ends: ground, base, anchor)",
                    e->name, list);
}

/* ends[0..1] of item i of `what` (between: [a, b], or body: a). */
static int resolve_pair(const stsl_system *s, stsl_end *ends, const char *what, int i, int between,
                        stsl_system_issue *is)
{
    char path[128];
    /* body: a stands for between: [a, base]; "base" always resolves. */
    for (int k = 0; k < 2; k++) {
        if (between)
            snprintf(path, sizeof path, "%s.%d.between.%d", what, i, k);
        else
            snprintf(path, sizeof path, "%s.%d.body", what, i);
        if (resolve_end(s, &ends[k], path, is)) return 1;
    }
    return 0;
}

int stsl_system_resolve(stsl_system *s, stsl_system_issue *is)
{
    char path[128];
    for (int i = 0; i < s->n_couplings; i++)
        if (resolve_pair(s, s->couplings[i].ends, "couplings", i, 1, is)) return 1;
    for (int i = 0; i < s->n_contacts; i++)
        if (resolve_pair(s, s->contacts[i].ends, "contacts", i, s->contacts[i].between, is))
            return 1;
    for (int i = 0; i < s->n_stops; i++)
        if (resolve_pair(s, s->stops[i].ends, "stops", i, s->stops[i].between, is)) return 1;
    for (int i = 0; i < s->n_forces; i++) {
        snprintf(path, sizeof path, "inputs.forces.%s", s->forces[i].on.name);
        if (resolve_end(s, &s->forces[i].on, path, is)) return 1;
    }
    return 0;
}

static int check_bodies(const stsl_system *s, stsl_system_issue *is)
{
    char path[128];
    if (s->n_bodies < 1) return issue_at(is, "bodies", "needs at least one body");
    for (int i = 0; i < s->n_bodies; i++) {
        const stsl_body *b = &s->bodies[i];
        stsl_end e;
        snprintf(path, sizeof path, "bodies.%s", b->name);
        if (!b->name[0]) return issue_at(is, "bodies", "a body name must not be empty");
        if (end_named(s, b->name, &e) == 0 && e.kind != STSL_END_BODY)
            return issue_at(is, path, "'%s' is a reserved end name (ground, base, anchor)",
                            b->name);
        if (stsl_system_body(s, b->name) != i)
            return issue_at(is, path, "duplicate body name '%s'", b->name);
        if (!(b->mass > 0.0) || !isfinite(b->mass))
            return issue_at(is, path, "%s must be > 0 (got %g)",
                            s->domain == STSL_DOMAIN_ROTATIONAL ? "inertia" : "mass", b->mass);
    }
    return 0;
}

/* ends[0] must be a body, ends[1] another body or a fixed end. */
static int check_ends(const stsl_system *s, const stsl_end *ends, const char *what, int idx,
                      int between, stsl_system_issue *is)
{
    char path[128];
    for (int k = 0; k < 2; k++) {
        stsl_end e = ends[k];
        if (between)
            snprintf(path, sizeof path, "%s.%d.between.%d", what, idx, k);
        else
            snprintf(path, sizeof path, "%s.%d.body", what, idx);
        if (e.kind == STSL_END_BODY && (e.body < 0 || e.body >= s->n_bodies))
            return issue_at(is, path, "unknown body (index %d of %d bodies)", e.body, s->n_bodies);
        if (k == 0 && e.kind != STSL_END_BODY)
            return issue_at(is, path, "the first end must be a body (got %s)",
                            stsl_system_end_name(s, e));
        if (e.kind == STSL_END_ANCHOR && !s->has_anchor)
            return issue_at(is, path, "an anchor end needs inputs.anchor_motion");
    }
    if (ends[1].kind == STSL_END_BODY && ends[1].body == ends[0].body)
        return issue_at(is, path, "joins body '%s' to itself (the two ends must differ)",
                        stsl_system_end_name(s, ends[0]));
    return 0;
}

static int check_nonneg(const char *what, int i, const char *key, double v, stsl_system_issue *is)
{
    char path[128];
    if (v >= 0.0 && isfinite(v)) return 0;
    snprintf(path, sizeof path, "%s.%d.%s", what, i, key);
    return issue_at(is, path, "must be >= 0 (got %g)", v);
}

static int check_couplings(const stsl_system *s, stsl_system_issue *is)
{
    for (int i = 0; i < s->n_couplings; i++) {
        const stsl_coupling *c = &s->couplings[i];
        if (check_ends(s, c->ends, "couplings", i, 1, is) ||
            check_nonneg("couplings", i, "stiffness", c->stiffness, is) ||
            check_nonneg("couplings", i, "damping", c->damping, is))
            return 1;
    }
    return 0;
}

/* SPEC §1.1's ranges (the configuration's reader names them first; this
 * catches a system built through the API). */
static int check_efficiencies(const stsl_friction_params *f, int i, stsl_system_issue *is)
{
    char path[128];
    if (!(f->eff_opposing > 0.0 && f->eff_opposing <= 1.0)) {
        snprintf(path, sizeof path, "contacts.%d.efficiency_opposing", i);
        return issue_at(is, path, "must be in (0, 1] (got %g)", f->eff_opposing);
    }
    if (!(f->eff_aiding <= 1.0)) {
        snprintf(path, sizeof path, "contacts.%d.efficiency_aiding", i);
        return issue_at(is, path, "must be <= 1 (got %g)", f->eff_aiding);
    }
    return 0;
}

static int check_contacts(const stsl_system *s, stsl_system_issue *is)
{
    for (int i = 0; i < s->n_contacts; i++) {
        const stsl_contact *c = &s->contacts[i];
        if (check_ends(s, c->ends, "contacts", i, c->between, is) ||
            check_efficiencies(&c->friction, i, is))
            return 1;
        if (c->ends[1].kind == STSL_END_ANCHOR) {
            char path[128];
            snprintf(path, sizeof path, "contacts.%d.between.1", i);
            return issue_at(is, path,
                            "a contact rubs on a body, the ground or the base "
                            "(got anchor)");
        }
    }
    return 0;
}

static int check_stop_params(const stsl_system_stop *st, int i, stsl_system_issue *is)
{
    char path[128];
    if (!(st->p.x_min < st->p.x_max)) {
        snprintf(path, sizeof path, "stops.%d.max", i);
        return issue_at(is, path, "must be > stops.%d.min (got min %g, max %g)", i, st->p.x_min,
                        st->p.x_max);
    }
    if (st->model == STSL_STOP_RIGID && !(st->p.restitution >= 0.0 && st->p.restitution <= 1.0)) {
        snprintf(path, sizeof path, "stops.%d.restitution", i);
        return issue_at(is, path, "must be in [0, 1] (got %g)", st->p.restitution);
    }
    if (st->model == STSL_STOP_COMPLIANT && !(st->p.stiffness > 0.0)) {
        snprintf(path, sizeof path, "stops.%d.stiffness", i);
        return issue_at(is, path, "must be > 0 (got %g)", st->p.stiffness);
    }
    return st->model == STSL_STOP_COMPLIANT ? check_nonneg("stops", i, "damping", st->p.damping, is)
                                            : 0;
}

/* A body must start within its stops to a fixed end at rest (ground, or
 * the base and anchor, whose motion starts at their signal's value). */
static int check_start(const stsl_system *s, const stsl_system_stop *st, stsl_system_issue *is)
{
    char path[128];
    const stsl_body *b = &s->bodies[st->ends[0].body];
    if (st->ends[1].kind != STSL_END_GROUND && st->ends[1].kind != STSL_END_BASE) return 0;
    if (b->x0 >= st->p.x_min && b->x0 <= st->p.x_max) return 0;
    snprintf(path, sizeof path, "bodies.%s.position", b->name);
    return issue_at(is, path, "must lie within the stops [%g, %g] (got %g)", st->p.x_min,
                    st->p.x_max, b->x0);
}

static int check_stops(const stsl_system *s, stsl_system_issue *is)
{
    for (int i = 0; i < s->n_stops; i++) {
        const stsl_system_stop *st = &s->stops[i];
        if (check_ends(s, st->ends, "stops", i, st->between, is) || check_stop_params(st, i, is) ||
            check_start(s, st, is))
            return 1;
    }
    return 0;
}

static int check_forces(const stsl_system *s, stsl_system_issue *is)
{
    char path[128];
    for (int i = 0; i < s->n_forces; i++) {
        const stsl_end *e = &s->forces[i].on;
        snprintf(path, sizeof path, "inputs.forces.%s", e->name);
        if (e->kind != STSL_END_BODY || e->body < 0 || e->body >= s->n_bodies)
            return issue_at(is, path, "a force acts on a body (got %s)", e->name);
    }
    return 0;
}

/* The name of contact i (i < n_contacts) or stop i - n_contacts; "" when none. */
static const char *item_name(const stsl_system *s, int i)
{
    return i < s->n_contacts ? s->contacts[i].name : s->stops[i - s->n_contacts].name;
}

char *stsl_system_member_name(const stsl_system *s, int i, char *buf, size_t size)
{
    const char *name = item_name(s, i);
    if (name[0])
        snprintf(buf, size, "%s", name);
    else if (i < s->n_contacts)
        snprintf(buf, size, "contacts.%d", i);
    else
        snprintf(buf, size, "stops.%d", i - s->n_contacts);
    return buf;
}

static void item_path(const stsl_system *s, int i, char *path, size_t len)
{
    if (i < s->n_contacts)
        snprintf(path, len, "contacts.%d.name", i);
    else
        snprintf(path, len, "stops.%d.name", i - s->n_contacts);
}

/* Names of contacts and stops: plain names (as a body's: they become
 * column members and event subjects; no '.' or '/', so none equals a
 * default name contacts.N or a pair name a/b), each used once among all
 * contacts and stops (an event names its subject by it). */
static int check_names(const stsl_system *s, stsl_system_issue *is)
{
    char path[128];
    int n = s->n_contacts + s->n_stops;
    for (int i = 0; i < n; i++) {
        const char *name = item_name(s, i);
        if (!name[0]) continue;
        item_path(s, i, path, sizeof path);
        int ok = name[0] == '_' || (name[0] >= 'A' && name[0] <= 'Z') ||
                 (name[0] >= 'a' && name[0] <= 'z');
        for (const char *p = name; ok && *p; p++)
            ok = *p == '_' || *p == '-' || (*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
                 (*p >= 'a' && *p <= 'z');
        if (!ok)
            return issue_at(is, path,
                            "a name is a letter or _ followed by letters, digits, _ or - (got "
                            "'%.48s')",
                            name);
        for (int j = 0; j < i; j++)
            if (!strcmp(item_name(s, j), name)) {
                char other[128];
                item_path(s, j, other, sizeof other);
                return issue_at(is, path, "'%s' is already the name of %.*s", name,
                                (int)(strlen(other) - 5), other);
            }
    }
    return 0;
}

int stsl_system_check(const stsl_system *s, stsl_system_issue *issue)
{
    return check_bodies(s, issue) || check_couplings(s, issue) || check_contacts(s, issue) ||
           check_stops(s, issue) || check_forces(s, issue) || check_names(s, issue);
}

/* ---------------------------------------------------------------- memory */

static void *dup_array(const void *src, int n, size_t size, int *fail)
{
    if (n <= 0 || !src) return NULL;
    void *d = malloc((size_t)n * size);
    if (!d)
        *fail = 1;
    else
        memcpy(d, src, (size_t)n * size);
    return d;
}

int stsl_system_copy(stsl_system *dst, const stsl_system *src)
{
    int fail = 0;
    *dst = *src;
    dst->bodies = dup_array(src->bodies, src->n_bodies, sizeof *src->bodies, &fail);
    dst->couplings = dup_array(src->couplings, src->n_couplings, sizeof *src->couplings, &fail);
    dst->contacts = dup_array(src->contacts, src->n_contacts, sizeof *src->contacts, &fail);
    dst->stops = dup_array(src->stops, src->n_stops, sizeof *src->stops, &fail);
    dst->forces = dup_array(src->forces, src->n_forces, sizeof *src->forces, &fail);
    for (int i = 0; dst->forces && i < src->n_forces; i++)
        dst->forces[i].signal.tt = dst->forces[i].signal.vv = NULL;
    for (int i = 0; dst->contacts && i < src->n_contacts; i++)
        dst->contacts[i].load.tt = dst->contacts[i].load.vv = NULL;
    dst->base_motion.tt = dst->base_motion.vv = NULL;
    dst->anchor_motion.tt = dst->anchor_motion.vv = NULL;
    for (int i = 0; !fail && i < src->n_forces; i++)
        fail = stsl_signal_spec_copy(&dst->forces[i].signal, &src->forces[i].signal);
    for (int i = 0; !fail && dst->contacts && i < src->n_contacts; i++)
        fail = stsl_signal_spec_copy(&dst->contacts[i].load, &src->contacts[i].load);
    if (!fail) fail = stsl_signal_spec_copy(&dst->base_motion, &src->base_motion);
    if (!fail) fail = stsl_signal_spec_copy(&dst->anchor_motion, &src->anchor_motion);
    if (fail) {
        stsl_system_free(dst);
        return -1;
    }
    return 0;
}

static void free_signal(stsl_signal_spec *s)
{
    free(s->tt);
    free(s->vv);
    s->tt = s->vv = NULL;
}

void stsl_system_free(stsl_system *s)
{
    if (!s) return;
    for (int i = 0; s->forces && i < s->n_forces; i++)
        free_signal(&s->forces[i].signal);
    for (int i = 0; s->contacts && i < s->n_contacts; i++)
        free_signal(&s->contacts[i].load);
    free_signal(&s->base_motion);
    free_signal(&s->anchor_motion);
    free(s->bodies);
    free(s->couplings);
    free(s->contacts);
    free(s->stops);
    free(s->forces);
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- one element */

int stsl_system_from_element(const stsl_element_params *e, stsl_system *out)
{
    stsl_body body = {"element", e->mass, e->x0, e->v0};
    stsl_end self = {"element", STSL_END_BODY, 0};
    stsl_end to = {"", e->has_anchor ? STSL_END_ANCHOR : STSL_END_BASE, -1};
    stsl_end base = {"base", STSL_END_BASE, -1};
    snprintf(to.name, sizeof to.name, "%s", e->has_anchor ? "anchor" : "base");
    stsl_coupling spring = {{self, to}, e->stiffness, e->damping, e->free_position};
    stsl_contact contact = {{self, base}, 0, e->friction, "", 1, e->load};
    stsl_system_stop stop = {
        {self, base},
        0,
        e->stop_model,
        {e->x_min, e->x_max, e->restitution, e->stop_stiffness, e->stop_damping},
        ""};
    stsl_body_force force = {self, e->active_force};
    stsl_system view = {.domain = e->domain,
                        .n_bodies = 1,
                        .n_couplings = e->stiffness > 0.0 || e->damping > 0.0,
                        .n_contacts = 1,
                        .n_stops = e->has_stops,
                        .n_forces = 1,
                        .bodies = &body,
                        .couplings = &spring,
                        .contacts = &contact,
                        .stops = &stop,
                        .forces = &force,
                        .base_motion = e->base_motion,
                        .anchor_motion = e->anchor_motion,
                        .has_anchor = e->has_anchor};
    return stsl_system_copy(out, &view);
}
