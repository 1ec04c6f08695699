/* system.h - a system of bodies (issue 14): the data model and its
 * validation (models/multibody.h simulates it).
 *
 * Bodies of one domain (translational: mass, rotational: inertia) joined by
 * couplings (linear spring and damper), rubbing in friction contacts and
 * limited by stops, each between two ends: a body, or one of the fixed or
 * prescribed ends ground (at rest), base (moved by base_motion) and anchor
 * (moved by anchor_motion).  Forces act on bodies.  The one-element
 * configuration is a system of one body (stsl_system_from_element).
 *
 * The check is a pure function: it names the first problem by a key path
 * of the configuration ("couplings.0.between.1") and a message, and the
 * configuration loader turns the path into FILE:LINE. */
#ifndef STSL_SYSTEM_H
#define STSL_SYSTEM_H

#include <stddef.h>

#include "physics/end_stop.h"
#include "models/element_params.h"
#include "physics/friction.h"
#include "physics/signal.h"

/* Longest body name (bytes, without the terminating NUL). */
#define STSL_BODY_NAME_MAX 63

/* The fixed or prescribed end of a coupling, contact or stop, or a body. */
typedef enum stsl_end_kind {
    STSL_END_BODY = 0,
    STSL_END_GROUND = 1, /* at rest */
    STSL_END_BASE = 2,   /* moves with inputs.base_motion */
    STSL_END_ANCHOR = 3  /* moves with inputs.anchor_motion */
} stsl_end_kind;

/* An end as named in the configuration; stsl_system_resolve sets kind and
 * body from the name. */
typedef struct stsl_end {
    char name[STSL_BODY_NAME_MAX + 1];
    stsl_end_kind kind;
    int body; /* index into bodies when kind == STSL_END_BODY */
} stsl_end;

typedef struct stsl_body {
    char name[STSL_BODY_NAME_MAX + 1];
    double mass;   /* > 0: mass (translational) or inertia (rotational) */
    double x0, v0; /* initial position and velocity */
} stsl_body;

/* A linear spring (stiffness, free length) and damper between ends[0], ends[1]. */
typedef struct stsl_coupling {
    stsl_end ends[2];
    double stiffness, damping, free_length;
} stsl_coupling;

/* Friction between ends[0] (a body) and ends[1], any law of the element.
 * Its load F_R (SPEC §1.1; e.g. the load torque on a gear mesh) sets the
 * hybrid laws' levels through the efficiencies and is an external force on
 * ends[0] along +x (nothing acts back on ends[1]), as the element's load
 * acts on the element. */
typedef struct stsl_contact {
    stsl_end ends[2];
    int between; /* 1: given as between: [a, b]; 0: as body: a (against the base) */
    stsl_friction_params friction;
    char name[STSL_BODY_NAME_MAX + 1]; /* its `name:`, "" when none (then "contacts.N") */
    int has_load;                      /* 0: no load (F_R = 0) */
    stsl_signal_spec load;             /* F_R(t) when has_load */
} stsl_contact;

/* A stop on the relative position x(ends[0]) - x(ends[1]): [min, max];
 * between two bodies it is backlash. */
typedef struct stsl_system_stop {
    stsl_end ends[2];
    int between; /* as for contacts */
    stsl_stop_model model;
    stsl_stop_params p;
    char name[STSL_BODY_NAME_MAX + 1]; /* its `name:`, "" when none (then "stops.N") */
} stsl_system_stop;

/* inputs.forces: a force on one body. */
typedef struct stsl_body_force {
    stsl_end on; /* a body */
    stsl_signal_spec signal;
} stsl_body_force;

typedef struct stsl_system {
    stsl_domain domain;
    int n_bodies, n_couplings, n_contacts, n_stops, n_forces;
    stsl_body *bodies;
    stsl_coupling *couplings;
    stsl_contact *contacts;
    stsl_system_stop *stops;
    stsl_body_force *forces;
    stsl_signal_spec base_motion, anchor_motion;
    int has_anchor; /* inputs.anchor_motion given */
} stsl_system;

/* The first problem of a system, if any: `path` is the configuration's key
 * path of the offending value, `msg` what is wrong with the allowed range. */
typedef struct stsl_system_issue {
    char path[128];
    char msg[256];
} stsl_system_issue;

/* Resolve every end's name to a body or a fixed end: 0, or 1 with *issue
 * naming the first unknown one (with the bodies there are). */
int stsl_system_resolve(stsl_system *s, stsl_system_issue *issue);
/* 0 when `s` (resolved) is valid, 1 with *issue filled at its first problem: no body,
 * a duplicate or reserved body name, a non-positive or non-finite mass, an
 * end out of range, a coupling, contact or stop from a body to itself or
 * between two fixed ends, a negative stiffness or damping, a stop with
 * min >= max, a restitution outside [0, 1], a compliant stop's stiffness
 * <= 0, a contact's efficiency outside (0, 1] (opposing) or above 1
 * (aiding), a force on no body, an anchor end without
 * inputs.anchor_motion, an initial position outside a stop to a fixed end,
 * a contact or stop name that is not a plain name (as a body's) or that
 * two contacts (or two stops) share. */
int stsl_system_check(const stsl_system *s, stsl_system_issue *issue);

/* The index of the body called `name`, -1 when there is none. */
int stsl_system_body(const stsl_system *s, const char *name);
/* The name of an end (a body's name, or "ground", "base", "anchor"). */
const char *stsl_system_end_name(const stsl_system *s, stsl_end e);
/* The name of contact i (i < n_contacts) or stop i - n_contacts as columns
 * and events call it: its `name:`, else its key path "contacts.N" or
 * "stops.N" (no plain name contains '.', so the two never meet).  Written
 * to buf (size bytes, truncated as snprintf does); returns buf. */
char *stsl_system_member_name(const stsl_system *s, int i, char *buf, size_t size);
/* 1 when the system is more than the one element can express: more than
 * one body, or a coupling, contact or stop between two bodies. */
int stsl_system_is_multibody(const stsl_system *s);

/* The one element as a system of one body ("element"): its friction, with
 * the element's load as the contact's load, as a contact against the base,
 * its end stops as a stop against the base, its spring and damper as a
 * coupling to the base (or the anchor), its active force as a force on it,
 * its base and anchor motion.  Table
 * data is copied; free *out with stsl_system_free.  0, or -1 when out of
 * memory (then *out holds nothing to free). */
int stsl_system_from_element(const stsl_element_params *e, stsl_system *out);

/* Deep copy (table data included); on failure *dst holds nothing to free. */
int stsl_system_copy(stsl_system *dst, const stsl_system *src);
/* Free the arrays and the table data of the signals. NULL-safe. */
void stsl_system_free(stsl_system *s);

#endif
