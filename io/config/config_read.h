/* config_read.h - reading the YAML configuration (io/config/config.c) against
 * its schema.
 *
 * A mapping is opened with its list of allowed keys (which rejects unknown
 * and duplicate keys), then each key is read with its type, default and
 * admissible range.  Every rejection is STSL_EINPUT with one message
 *   FILE:LINE: key.path: what is wrong (allowed range / expected type)
 * or, for a node an override added, `--set ARG: key.path: ...`. */
#ifndef STSL_CONFIG_READ_H
#define STSL_CONFIG_READ_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "physics/end_stop.h"
#include "physics/friction.h"
#include "physics/signal.h"
#include "models/system.h"
#include "solver/hybrid.h"

#define KEYPATH_MAX 256

/* Node ids [first, last] were added to the document by the override `arg`. */
typedef struct stsl_cr_graft {
    int first, last;
    const char *arg;
} stsl_cr_graft;

typedef struct stsl_cr_ctx {
    yaml_document_t doc;
    int have_doc;
    const char *origin;   /* names the text in messages */
    const char *base_dir; /* resolves relative table files (NULL: as given) */
    stsl_cr_graft *grafts;
    int n_grafts;
    int api_sets; /* the assignments are an API caller's, not --set options */
    char set_name[STSL_ERRMSG_MAX];
    stsl_error *err;
} stsl_cr_ctx;

/* A mapping being read: its node and its key path ("" at the top level). */
typedef struct stsl_cr_map {
    stsl_cr_ctx *c;
    int id;
    char path[KEYPATH_MAX];
} stsl_cr_map;

/* An admissible interval; infinite ends mean "unbounded". */
typedef struct stsl_cr_range {
    double lo, hi;
    int lo_open, hi_open;
    /* Values in [lo, hi] but below phys_lo are refused too, with `why`:
     * admissible by SPEC's formulas, but far outside physics (NULL: none). */
    const char *why;
    double phys_lo;
} stsl_cr_range;

/* A number of a signal or a smooth law: its key, where its double lives
 * (offset in stsl_signal_spec, stsl_friction_params), its rules. */
typedef struct stsl_cr_param {
    const char *key;
    size_t off;
    int required;
    double def;
    const stsl_cr_range *r;
} stsl_cr_param;

/* The admissible intervals the loader and the fast set share. */
extern const stsl_cr_range stsl_cr_pos, stsl_cr_nonneg, stsl_cr_ge1, stsl_cr_unit;
extern const stsl_cr_range stsl_cr_eff_opp, stsl_cr_eff_aid;

/* The override (--set argument) that added node `id`, NULL for the file's. */
const char *stsl_cr_graft_of(const stsl_cr_ctx *c, int id);
/* Assignment `arg` as messages name it: "--set ARG", the command's option,
 * or "set 'ARG'" for an API caller's (stsl_cfg_set_all), who typed no
 * option (in c->set_name, until the next call). */
const char *stsl_cr_set_name(stsl_cr_ctx *c, const char *arg);
/* Errors: "FILE:LINE: path: what" naming the node `id` (0: line 1). */
int stsl_cr_fail(stsl_cr_ctx *c, int id, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Make err's message one line (values quoted from the input may hold newlines). */
void stsl_cr_one_line(stsl_error *err);
/* How a node looks, for "expected X (got Y)". */
const char *stsl_cr_describe(const yaml_node_t *n, char *buf, size_t size);
/* buf = prefix.key (key alone at the top level), cut at KEYPATH_MAX. */
void stsl_cr_join(char *buf, const char *prefix, const char *key);
void stsl_cr_range_text(const stsl_cr_range *r, char *buf, size_t size);

/* Mappings: node access, open with allowed keys, find a key's pair in the
 * mapping `id` (NULL when absent) or its value node (0 when absent), open a
 * sub-mapping (*present says whether it was there; allowed NULL: the keys
 * io/config/config_keys.h's table has under it). */
yaml_node_t *stsl_cr_node_at(stsl_cr_ctx *c, int id);
const char *stsl_cr_key_text(stsl_cr_ctx *c, int id);
int stsl_cr_map_open(stsl_cr_ctx *c, int id, const char *path, const char *const *allowed,
                     stsl_cr_map *m);
yaml_node_pair_t *stsl_cr_pair(stsl_cr_ctx *c, int id, const char *key);
int stsl_cr_map_find(const stsl_cr_map *m, const char *key);
int stsl_cr_map_sub(const stsl_cr_map *m, const char *key, int required, const char *const *allowed,
                    stsl_cr_map *out, int *present);

/* The first of `keys` present in the top-level mapping `top`, refused
 * with `why` (sections that exclude each other). */
int stsl_cr_refuse_keys(const stsl_cr_map *top, const char *const *keys, const char *why);

/* Scalars.  check_num: the one check of a number (file or fast set): 0 and
 * *out, or 1 with the problem in `what`. */
int stsl_cr_check_num(const yaml_node_t *n, const stsl_cr_range *r, double *out, char *what,
                      size_t size);
int stsl_cr_map_num(const stsl_cr_map *m, const char *key, int required, double def,
                    const stsl_cr_range *r, double *out);
int stsl_cr_node_str(stsl_cr_ctx *c, int id, const char *path, const char **out);
/* One of `names` (NULL-terminated); *out is its index, `def` when absent. */
int stsl_cr_map_enum(const stsl_cr_map *m, const char *key, const char *const *names, int def,
                     int *out);
/* Copy a string into a fixed field, refusing what does not fit. */
int stsl_cr_copy_field(stsl_cr_ctx *c, int id, const char *path, char *dst, size_t size,
                       const char *src);

/* A signal mapping at node `id` (tables read, relative to c->base_dir;
 * `def` their default interpolation). */
int stsl_cr_load_signal(stsl_cr_ctx *c, int id, const char *path, stsl_interp def,
                        stsl_signal_spec *s);
/* The friction law and its parameters from the opened mapping `m`;
 * messages name m's path. */
int stsl_cr_friction(const stsl_cr_map *m, stsl_friction_params *f);
/* The parameters of a smooth law, {NULL}-terminated (NULL for hybrid laws). */
const stsl_cr_param *stsl_cr_law_params(stsl_law law);
/* 0 when a smooth law's static level lies below its Coulomb level (the
 * loader's rule between breakaway and coulomb, tst and tc); 1 otherwise. */
int stsl_cr_law_levels_ok(const stsl_friction_params *f);
/* A stop's min, max, model and the model's parameters from the opened
 * mapping `m` into `st` (its ends and name are the caller's). */
int stsl_cr_stop(const stsl_cr_map *m, stsl_system_stop *st);

/* Writing: a YAML double-quoted string; a signal as "INDENTKEY: {type: ...}\n";
 * the friction parameters as `pre`KEY: VALUE`post` pairs. */
void stsl_cr_put_quoted(FILE *f, const char *s);
void stsl_cr_put_signal(FILE *f, const char *indent, const char *key, const stsl_signal_spec *s);
void stsl_cr_put_friction(FILE *f, const stsl_friction_params *fr, const char *pre,
                          const char *post);

/* The number behind a signal's parameter (no rule ties it to another
 * key: it may be set alone); NULL when the signal has none of that name. */
double *stsl_cr_signal_slot(stsl_signal_spec *s, const char *name, const stsl_cr_range **r);

#endif
