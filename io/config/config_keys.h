/* config_keys.h - the one table of configuration keys, of the one element
 * and of a system of bodies alike.
 *
 * Each key's rules are written once, here: its path, type, allowed range,
 * default, units, its line in docs/configuration.md, where its number lives
 * and when it may be set alone.  The loader reads every number through
 * stsl_key_read (range and default from the table), `--set` /
 * stsl_config_set and stsl_config_get find the number with stsl_key_slot,
 * the write-back prints the numbers of an item with stsl_key_put, and
 * test_config_keys writes (and checks) the docs' table of keys from it.
 *
 * Paths are generic: `N` stands for a sequence index (contacts.N.dynamic),
 * `NAME` for a body's name (bodies.NAME.mass).  An entry's `also` gives a
 * second prefix for its last segment: a key of `friction` is also a key of
 * every contact (contacts.N.KEY), one of `end_stops` of every stop
 * (stops.N.KEY). */
#ifndef STSL_CONFIG_KEYS_H
#define STSL_CONFIG_KEYS_H

#include <stddef.h>
#include <stdio.h>

#include "io/config/config.h"
#include "io/config/config_read.h"

typedef enum stsl_key_type {
    STSL_KEY_NUMBER,
    STSL_KEY_NAME,      /* one of a list of names */
    STSL_KEY_TEXT,      /* a string (a path, a name, free text) */
    STSL_KEY_SIGNAL,    /* a signal mapping (docs/configuration.md#signals) */
    STSL_KEY_LAW_PARAM, /* a number whose range and default depend on the law */
    STSL_KEY_MAPPING    /* a section or an item's ends (`between: [a, b]`) */
} stsl_key_type;

/* The struct a number lives in: offsets are relative to it. */
typedef enum stsl_key_home {
    STSL_HOME_NONE, /* not stored as one double (names, signals, sections) */
    STSL_HOME_CONFIG,
    STSL_HOME_FRICTION, /* stsl_friction_params of friction or contacts.N */
    STSL_HOME_STOP,     /* stsl_stop_params of stops.N (end_stops: read only) */
    STSL_HOME_BODY,
    STSL_HOME_COUPLING
} stsl_key_home;

/* When a number may be set alone: no rule ties it to another key then
 * (otherwise stsl_config_set goes through the full load). */
typedef enum stsl_key_when {
    STSL_WHEN_NEVER,
    STSL_WHEN_ALWAYS,
    STSL_WHEN_NO_STOPS,     /* an initial position must lie within the stops */
    STSL_WHEN_EVENT_DRIVEN, /* t_end bounds a fixed-step scheme's step */
    STSL_WHEN_KARNOPP,
    STSL_WHEN_RK4_HYBRID,
    /* From here on the rule also says whether the key exists (its home's
     * domain, law or model), in this order (config_keys.c's takes). */
    STSL_WHEN_TRANSL,   /* mass: the effective YAML names inertia when rotational */
    STSL_WHEN_ROT,      /* inertia */
    STSL_WHEN_HYBRID,   /* a hybrid law's keys */
    STSL_WHEN_STRIBECK, /* the stribeck law's */
    STSL_WHEN_RIGID,    /* a stop's model */
    STSL_WHEN_COMPLIANT,
    /* Keys of a hybrid law, set alone only when not next to the other. */
    STSL_WHEN_NOT_RATIO, /* static: not next to a given static_ratio */
    STSL_WHEN_NOT_FORCE  /* static_ratio: not next to a given static */
} stsl_key_when;

typedef struct stsl_key {
    const char *path; /* generic path: element.mass, contacts.N.load, bodies.NAME.mass */
    const char *also; /* the same key under this prefix too (contacts.N), or NULL */
    stsl_key_type type;
    const stsl_cr_range *r; /* numbers: NULL for any finite number */
    int required;           /* inside its mapping */
    double def;             /* numbers: the default when absent */
    const char *def_text;   /* the docs' default when not the number (NULL: %g of def) */
    const char *units;      /* translational units ("" for none) */
    const char *doc;        /* the docs' line: what it is, its rules */
    stsl_key_home home;
    size_t off; /* of the double in its home */
    stsl_key_when when;
} stsl_key;

/* The table and its length. */
const stsl_key *stsl_keys(int *n);
/* The entry of the generic path `path` (either spelling of an `also`). */
const stsl_key *stsl_key_find(const char *path);

/* Read the number `key` of the opened mapping `m` (whose path names the
 * entry: contacts.3 + dynamic is contacts.N.dynamic) into *out, with the
 * entry's requiredness, default and range (`r` overrides the range when
 * not NULL: rtol under erk8). */
int stsl_key_read(const stsl_cr_map *m, const char *key, double *out, const stsl_cr_range *r);

/* Open the mapping at node `id` of the concrete key path `path`, allowing
 * the keys the table has under it (stsl_cr_map_sub with allowed NULL). */
#define KEY_NAMES_MAX 40
#define KEY_NAME_LEN  32
int stsl_key_open(stsl_cr_ctx *c, int id, const char *path, stsl_cr_map *m);
/* Read every number of the opened mapping `m` that the table has under
 * it and that applies (a stop's model's, a law's) into `home` + offset. */
int stsl_key_read_all(const stsl_cr_map *m, void *home);
/* Refuse the first key of the table's `section` (friction, end_stops)
 * given in `m` that the law or model in `home` (stsl_friction_params,
 * stsl_system_stop) does not take: "not a parameter of PATH.RULE: NAME". */
int stsl_key_refuse_others(const stsl_cr_map *m, const char *section, const void *home,
                           const char *rule, const char *name);

/* The number behind the concrete key `key` of `cfg` when it may be set
 * alone (the entry's `when` holds); NULL otherwise.  *k is its entry, *r
 * its range (a smooth law's parameter: the law's). */
double *stsl_key_slot(stsl_config *cfg, const char *key, const stsl_key **k,
                      const stsl_cr_range **r);

/* The numbers of `prefix` (generic: couplings.N, friction) that apply to
 * `home`, as `pre`KEY: VALUE`post` pairs (the first without `pre` when
 * `first`), a friction's static level as the file gave it.  `cfg` (NULL:
 * translational) and `home` decide the entries' `when`. */
void stsl_key_put(FILE *f, const stsl_config *cfg, const char *prefix, const void *home,
                  const char *pre, const char *post, int first);

#endif
