/* config.c - the YAML configuration (see config.h).
 *
 * The file is loaded with libyaml's document API into a node graph that keeps
 * the line of every node.  `--set` overrides are grafted into that graph
 * before anything is validated, so an override is checked by exactly the same
 * code as the file; the node ids a graft added are remembered so that errors
 * in them name the `--set` argument instead of a line of the file.
 * Validation is a walk over a fixed schema: every mapping is opened with its
 * list of allowed keys (which rejects unknown and duplicate keys), then each
 * key is read with its type, default and admissible range. */
#include "io/config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "io/text_input.h"

#define KEYPATH_MAX 256
/* Deeper override values are refused: no configuration key is nested that
 * deep, and the bound also stops a self-referencing alias from recursing. */
#define SET_DEPTH_MAX 32
/* Scalars quoted in messages are cut here so that a message stays readable. */
#define SHOW_MAX 48

/* Node ids [first, last] were added to the document by the override `arg`. */
typedef struct graft {
    int first, last;
    const char *arg;
} graft;

typedef struct ctx {
    yaml_document_t doc;
    int have_doc;
    const char *origin;   /* names the text in messages */
    const char *base_dir; /* resolves relative table files (NULL: as given) */
    graft *grafts;
    int n_grafts;
    stsl_error *err;
} ctx;

/* A mapping being read: its node and its key path ("" at the top level). */
typedef struct mapr {
    ctx *c;
    int id;
    char path[KEYPATH_MAX];
} mapr;

/* An admissible interval; infinite ends mean "unbounded". */
typedef struct range {
    double lo, hi;
    int lo_open, hi_open;
    /* Values in [lo, hi] but below phys_lo are refused too, with `why`:
     * admissible by SPEC's formulas, but far outside physics (NULL: none). */
    const char *why;
    double phys_lo;
} range;

static const range R_POS = {0.0, HUGE_VAL, 1, 1, NULL, 0.0};
static const range R_NONNEG = {0.0, HUGE_VAL, 0, 1, NULL, 0.0};
static const range R_GE1 = {1.0, HUGE_VAL, 0, 1, NULL, 0.0};
static const range R_UNIT = {0.0, 1.0, 0, 0, NULL, 0.0};
/* Far outside physics a load would create more friction than any drive
 * has: (1/EtO - 1) or (1 - EtA) times the load.  The bounds allow 99 and
 * 101 times (an efficiency of 1 %, or the back-driving efficiency 2 - 1/eta
 * of a worm gear of 1 % forward efficiency, where real ones have 20 % and
 * more); beyond them the friction levels dwarf every other force by orders
 * of magnitude and the run means nothing.  The bounds live in the ranges so
 * that the loader and the fast set (stsl_config_set) refuse alike. */
static const range R_EFF_OPP = {0.0,
                                1.0,
                                1,
                                0,
                                "a lower efficiency makes an opposing load create more than 99 "
                                "times its magnitude as friction",
                                0.01};
static const range R_EFF_AID = {-HUGE_VAL,
                                1.0,
                                1,
                                0,
                                "a lower efficiency makes an aiding load create more than 101 "
                                "times its magnitude as friction",
                                -100.0};
/* Most output samples a run may produce: about 80 bytes each in the HDF5
 * file (time, mode and up to nine columns), so 8 GB. */
#define MAX_SAMPLES 1e8
/* Tighter than 1e-14 is below double rounding for CVODE; looser than 1e-2
 * would locate events too coarsely to be worth running. */
static const range R_RTOL = {1e-14, 1e-2, 0, 0, NULL, 0.0};

/* ---------------------------------------------------------------- errors */

static yaml_node_t *node_at(ctx *c, int id)
{
    return yaml_document_get_node(&c->doc, id);
}

static const char *graft_of(const ctx *c, int id)
{
    for (int i = 0; i < c->n_grafts; i++)
        if (id >= c->grafts[i].first && id <= c->grafts[i].last) return c->grafts[i].arg;
    return NULL;
}

/* "FILE:LINE: path: what", or "--set ARG: path: what" for a grafted node. */
static int fail(ctx *c, int id, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(ctx *c, int id, const char *path, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *p = *path ? path : "(top level)";
    const char *set = graft_of(c, id);
    if (set) return stsl_error_set(c->err, STSL_EINPUT, "--set %s: %s: %s", set, p, what);
    yaml_node_t *n = id ? node_at(c, id) : NULL;
    long line = n ? (long)n->start_mark.line + 1 : 1;
    return stsl_error_set(c->err, STSL_EINPUT, "%s:%ld: %s: %s", c->origin, line, p, what);
}

/* Messages are one line: values quoted from the input may hold newlines. */
static void one_line(stsl_error *err)
{
    if (!err) return;
    for (char *s = err->msg; *s; s++)
        if (*s == '\n' || *s == '\r' || *s == '\t') *s = ' ';
}

/* How a node looks, for "expected X (got Y)". */
static const char *describe(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_MAPPING_NODE) return "a mapping";
    if (n->type == YAML_SEQUENCE_NODE) return "a sequence";
    const char *v = (const char *)n->data.scalar.value;
    if (!*v && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) return "nothing";
    int cut = strlen(v) > SHOW_MAX;
    snprintf(buf, size, "%s'%.*s%s'",
             n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? "" : "quoted ", SHOW_MAX, v,
             cut ? "..." : "");
    return buf;
}

static void list_names(const char *const *names, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
}

static void join(char *buf, const char *prefix, const char *key)
{
    /* Key paths longer than KEYPATH_MAX are cut; the check uses the return
     * value, which also tells gcc that truncation is expected here. */
    if (snprintf(buf, KEYPATH_MAX, "%s%s%s", prefix, *prefix ? "." : "", key) >= KEYPATH_MAX)
        buf[KEYPATH_MAX - 1] = '\0';
}

/* --------------------------------------------------------------- mappings */

static const char *key_text(ctx *c, int id)
{
    yaml_node_t *k = node_at(c, id);
    return k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
}

static int is_listed(const char *name, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0) return 1;
    return 0;
}

/* Reject a key that is not a scalar, not allowed, or seen before in `n`. */
static int check_key(const mapr *m, yaml_node_t *n, yaml_node_pair_t *p, const char *const *allowed)
{
    char path[KEYPATH_MAX], list[512];
    const char *key = key_text(m->c, p->key);
    if (!key) return fail(m->c, p->key, m->path, "keys must be plain names, not collections");
    join(path, m->path, key);
    if (!is_listed(key, allowed)) {
        list_names(allowed, list, sizeof list);
        return fail(m->c, p->key, path, "unknown key (allowed: %s)", list);
    }
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
        const char *other = key_text(m->c, q->key);
        if (other && strcmp(other, key) == 0)
            return fail(m->c, p->key, path, "duplicate key (first given on line %ld)",
                        (long)node_at(m->c, q->key)->start_mark.line + 1);
    }
    return STSL_OK;
}

static int map_open(ctx *c, int id, const char *path, const char *const *allowed, mapr *m)
{
    char got[64];
    yaml_node_t *n = node_at(c, id);
    if (n->type != YAML_MAPPING_NODE)
        return fail(c, id, path, "expected a mapping (got %s)", describe(n, got, sizeof got));
    m->c = c;
    m->id = id;
    snprintf(m->path, sizeof m->path, "%s", path);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        int rc = check_key(m, n, p, allowed);
        if (rc) return rc;
    }
    return STSL_OK;
}

/* Value node of `key` in the mapping, 0 when absent. */
static int map_find(const mapr *m, const char *key)
{
    yaml_node_t *n = node_at(m->c, m->id);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = key_text(m->c, p->key);
        if (k && strcmp(k, key) == 0) return p->value;
    }
    return 0;
}

/* Open the sub-mapping `key`; *present says whether it was there. */
static int map_sub(const mapr *m, const char *key, int required, const char *const *allowed,
                   mapr *out, int *present)
{
    char path[KEYPATH_MAX];
    int id = map_find(m, key);
    join(path, m->path, key);
    *present = id != 0;
    if (!id)
        return required ? fail(m->c, m->id, path, "missing required key (a mapping)") : STSL_OK;
    return map_open(m->c, id, path, allowed, out);
}

/* ---------------------------------------------------------------- scalars */

static int in_range(const range *r, double v)
{
    return (r->lo_open ? v > r->lo : v >= r->lo) && (r->hi_open ? v < r->hi : v <= r->hi);
}

/* " > 0", " in (0, 1]", ... ("" for any finite number). */
static void range_text(const range *r, char *buf, size_t size)
{
    if (!r || (isinf(r->lo) && isinf(r->hi)))
        buf[0] = '\0';
    else if (isinf(r->hi))
        snprintf(buf, size, " %s %g", r->lo_open ? ">" : ">=", r->lo);
    else if (isinf(r->lo))
        snprintf(buf, size, " %s %g", r->hi_open ? "<" : "<=", r->hi);
    else
        snprintf(buf, size, " in %c%g, %g%c", r->lo_open ? '(' : '[', r->lo, r->hi,
                 r->hi_open ? ')' : ']');
}

/* YAML's spellings of infinity and NaN (.inf, -.Inf, .NaN, ...). */
static int is_yaml_nonfinite(const char *s)
{
    if (*s == '+' || *s == '-') s++;
    return strcmp(s, ".inf") == 0 || strcmp(s, ".Inf") == 0 || strcmp(s, ".INF") == 0 ||
           strcmp(s, ".nan") == 0 || strcmp(s, ".NaN") == 0 || strcmp(s, ".NAN") == 0;
}

/* A number is a plain scalar that strtod consumes entirely; a quoted "1"
 * is a string in YAML and is refused as one. */
/* The one check of a number, for a node of the file and for a value given
 * to stsl_config_set: 0 and *out, or 1 with the problem in `what`. */
static int check_num(const yaml_node_t *n, const range *r, double *out, char *what, size_t size)
{
    char got[64], rt[64];
    range_text(r, rt, sizeof rt);
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return snprintf(what, size, "expected a number%s (got %s)", rt,
                        describe(n, got, sizeof got)) >= 0;
    const char *s = (const char *)n->data.scalar.value;
    char *end;
    double v = strtod(s, &end);
    if (is_yaml_nonfinite(s) || (end != s && !*end && !isfinite(v)))
        return snprintf(what, size, "must be a finite number (got %s)",
                        describe(n, got, sizeof got)) >= 0;
    if (end == s || *end)
        return snprintf(what, size, "expected a number%s (got %s)", rt,
                        describe(n, got, sizeof got)) >= 0;
    if (r && !in_range(r, v)) return snprintf(what, size, "must be%s (got %s)", rt, s) >= 0;
    if (r && r->why && v < r->phys_lo)
        return snprintf(what, size, "must be in [%g, %g] (got %s): %s", r->phys_lo, r->hi, s,
                        r->why) >= 0;
    *out = v;
    return 0;
}

static int node_num(ctx *c, int id, const char *path, const range *r, double *out)
{
    char what[512];
    return check_num(node_at(c, id), r, out, what, sizeof what) ? fail(c, id, path, "%s", what)
                                                                : STSL_OK;
}

static int map_num(const mapr *m, const char *key, int required, double def, const range *r,
                   double *out)
{
    char path[KEYPATH_MAX], rt[64];
    int id = map_find(m, key);
    join(path, m->path, key);
    if (id) return node_num(m->c, id, path, r, out);
    if (!required) {
        *out = def;
        return STSL_OK;
    }
    range_text(r, rt, sizeof rt);
    return fail(m->c, m->id, path, "missing required key (a number%s)", rt);
}

static int node_str(ctx *c, int id, const char *path, const char **out)
{
    char got[64];
    yaml_node_t *n = node_at(c, id);
    if (n->type != YAML_SCALAR_NODE)
        return fail(c, id, path, "expected a string (got %s)", describe(n, got, sizeof got));
    *out = (const char *)n->data.scalar.value;
    return STSL_OK;
}

/* One of `names` (NULL-terminated); *out is its index, `def` when absent. */
static int map_enum(const mapr *m, const char *key, const char *const *names, int def, int *out)
{
    char path[KEYPATH_MAX], list[256], got[64];
    const char *s = NULL;
    int id = map_find(m, key);
    join(path, m->path, key);
    *out = def;
    if (!id) return STSL_OK;
    list_names(names, list, sizeof list);
    int rc = node_str(m->c, id, path, &s);
    if (rc) return rc;
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return STSL_OK;
        }
    return fail(m->c, id, path, "must be one of: %s (got %s)", list,
                describe(node_at(m->c, id), got, sizeof got));
}

/* Copy a string into a fixed field, refusing what does not fit. */
static int copy_field(ctx *c, int id, const char *path, char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size) return fail(c, id, path, "longer than %zu characters", size - 1);
    memcpy(dst, src, n + 1);
    return STSL_OK;
}

/* ---------------------------------------------------------------- tables */

typedef struct tabbuf {
    double *t, *v;
    int n, cap;
} tabbuf;

typedef struct tabread {
    ctx *c;
    const char *file;    /* resolved table path */
    const char *keypath; /* inputs.X.file */
    long line;
    int rows_seen; /* content lines so far (a header may only be the first) */
    tabbuf b;
} tabread;

static int table_fail(tabread *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int table_fail(tabread *r, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return stsl_error_set(r->c->err, STSL_EINPUT, "%s:%ld: %s: %s", r->file, r->line, r->keypath,
                          what);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        e--;
    *e = '\0';
    return s;
}

/* 1 when the whole (trimmed) field is a number. */
static int parse_field(char *s, double *out)
{
    char *end;
    s = trim(s);
    *out = strtod(s, &end);
    return end != s && !*end;
}

static int table_push(tabread *r, double t, double v)
{
    tabbuf *b = &r->b;
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        double *nt = realloc(b->t, (size_t)cap * sizeof *nt);
        if (nt) b->t = nt;
        double *nv = nt ? realloc(b->v, (size_t)cap * sizeof *nv) : NULL;
        if (nv) b->v = nv;
        if (!nt || !nv) return stsl_error_set(r->c->err, STSL_ENOMEM, "%s: out of memory", r->file);
        b->cap = cap;
    }
    b->t[b->n] = t;
    b->v[b->n] = v;
    b->n++;
    return STSL_OK;
}

/* One line of "time,value"; blank lines, '#' comments and a non-numeric
 * first line (a header) are skipped. */
static int table_line(tabread *r, char *line)
{
    double t, v;
    char *s = trim(line);
    if (!*s || *s == '#') return STSL_OK;
    int first = r->rows_seen++ == 0;
    char *comma = strchr(s, ',');
    if (comma) *comma = '\0';
    int ok_t = parse_field(s, &t);
    if (!comma || !ok_t || strchr(comma + 1, ',') || !parse_field(comma + 1, &v)) {
        if (first && !ok_t) return STSL_OK;
        return table_fail(r, "expected two numbers 'time,value'");
    }
    if (!isfinite(t) || !isfinite(v)) return table_fail(r, "time and value must be finite numbers");
    if (r->b.n > 0 && !(t > r->b.t[r->b.n - 1]))
        return table_fail(r, "times must be strictly increasing (%.17g after %.17g)", t,
                          r->b.t[r->b.n - 1]);
    return table_push(r, t, v);
}

/* `text` (checked by stsl_text_read: bounded, no NUL) is cut in place. */
static int table_lines(tabread *r, char *text)
{
    int rc = STSL_OK;
    for (char *line = text; rc == STSL_OK && line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        r->line++;
        rc = table_line(r, line);
        line = nl ? nl + 1 : NULL;
    }
    if (rc == STSL_OK && r->b.n < 2) {
        if (r->line == 0) r->line = 1;
        rc = table_fail(r, "needs at least 2 data rows (found %d)", r->b.n);
    }
    return rc;
}

/* Read the table of `s->file` into s->n/tt/vv; `id` is the file node. */
static int read_table(ctx *c, int id, const char *keypath, stsl_signal_spec *s)
{
    char *text = NULL;
    size_t len = 0;
    stsl_error why;
    if (stsl_text_read(s->file, &stsl_table_limits, &text, &len, &why))
        return fail(c, id, keypath, "%s", why.msg);
    tabread r = {.c = c, .file = s->file, .keypath = keypath};
    int rc = table_lines(&r, text);
    free(text);
    if (rc) {
        free(r.b.t);
        free(r.b.v);
        return rc;
    }
    s->n = r.b.n;
    s->tt = r.b.t;
    s->vv = r.b.v;
    return STSL_OK;
}

/* Relative table paths are relative to the configuration's directory. */
static int resolve_path(ctx *c, int id, const char *path, const char *file, char *out)
{
    const char *dir = c->base_dir;
    if (file[0] == '/' || !dir || !*dir) return copy_field(c, id, path, out, STSL_PATH_MAX, file);
    size_t dl = strlen(dir), fl = strlen(file);
    int slash = dir[dl - 1] != '/';
    if (dl + slash + fl >= STSL_PATH_MAX)
        return fail(c, id, path, "resolved path longer than %d characters", STSL_PATH_MAX - 1);
    memcpy(out, dir, dl);
    if (slash) out[dl] = '/';
    memcpy(out + dl + slash, file, fl + 1);
    return STSL_OK;
}

/* ---------------------------------------------------------------- signals */

typedef struct sig_param {
    const char *key;
    size_t off; /* of the double in stsl_signal_spec */
    int required;
    double def;
    const range *r;
} sig_param;

typedef struct sig_kind {
    const char *name;
    stsl_signal_type type;
    int n;
    sig_param p[4];
} sig_kind;

#define P(k, field, req, def, r)                                                                   \
    {                                                                                              \
        k, offsetof(stsl_signal_spec, field), req, def, r                                          \
    }
static const sig_kind SIGNALS[] = {
    {"constant", STSL_SIG_CONSTANT, 1, {P("value", value, 1, 0.0, NULL)}},
    {"step",
     STSL_SIG_STEP,
     3,
     {P("time", time, 1, 0.0, NULL), P("before", before, 0, 0.0, NULL),
      P("after", after, 1, 0.0, NULL)}},
    {"ramp",
     STSL_SIG_RAMP,
     3,
     {P("start_time", start_time, 0, 0.0, NULL), P("slope", slope, 1, 0.0, NULL),
      P("initial", initial, 0, 0.0, NULL)}},
    {"sine",
     STSL_SIG_SINE,
     4,
     {P("amplitude", amplitude, 1, 0.0, NULL), P("frequency", frequency, 1, 0.0, &R_POS),
      P("phase", phase, 0, 0.0, NULL), P("offset", offset, 0, 0.0, NULL)}},
    {"janecek_chirp",
     STSL_SIG_JANECEK_CHIRP,
     3,
     {P("amplitude", amplitude, 1, 0.0, NULL), P("f_max", f_max, 1, 0.0, &R_POS),
      P("t_max", t_max, 1, 0.0, &R_POS)}},
    {"linear_chirp",
     STSL_SIG_LINEAR_CHIRP,
     4,
     {P("amplitude", amplitude, 1, 0.0, NULL), P("f0", f0, 1, 0.0, &R_NONNEG),
      P("f1", f1, 1, 0.0, &R_NONNEG), P("t1", t1, 1, 0.0, &R_POS)}},
    {"table", STSL_SIG_TABLE, 0, {{NULL, 0, 0, 0.0, NULL}}},
};
#undef P
#define N_SIGNALS ((int)(sizeof SIGNALS / sizeof SIGNALS[0]))

#define SIGNAL_NAMES (stsl_signal_type_names())
static const char *const INTERP_NAMES[] = {"linear", "cubic", NULL};

static const sig_kind *kind_of(stsl_signal_type t)
{
    for (int i = 0; i < N_SIGNALS; i++)
        if (SIGNALS[i].type == t) return &SIGNALS[i];
    return &SIGNALS[0];
}

/* Allowed keys of a signal: `type` and its type's parameters. */
static void signal_keys(const sig_kind *k, const char *keys[8])
{
    int n = 0;
    keys[n++] = "type";
    for (int i = 0; i < k->n; i++)
        keys[n++] = k->p[i].key;
    if (k->type == STSL_SIG_TABLE) {
        keys[n++] = "file";
        keys[n++] = "interpolation";
    }
    keys[n] = NULL;
}

static int table_signal(const mapr *m, stsl_interp def, stsl_signal_spec *s)
{
    char path[KEYPATH_MAX];
    const char *file;
    int interp, id = map_find(m, "file");
    join(path, m->path, "file");
    if (!id) return fail(m->c, m->id, path, "missing required key (a file name)");
    int rc = node_str(m->c, id, path, &file);
    if (!rc) rc = map_enum(m, "interpolation", INTERP_NAMES, (int)def, &interp);
    if (!rc) rc = resolve_path(m->c, id, path, file, s->file);
    if (rc) return rc;
    s->interpolation = (stsl_interp)interp;
    return read_table(m->c, id, path, s);
}

static int signal_kind(ctx *c, int id, const char *path, const sig_kind **out)
{
    char tpath[KEYPATH_MAX], list[256];
    mapr raw = {.c = c, .id = id};
    int rc, t, tid = map_find(&raw, "type");
    join(tpath, path, "type");
    list_names(SIGNAL_NAMES, list, sizeof list);
    if (!tid) return fail(c, id, tpath, "missing required key (one of: %s)", list);
    snprintf(raw.path, sizeof raw.path, "%s", path);
    rc = map_enum(&raw, "type", SIGNAL_NAMES, 0, &t);
    *out = &SIGNALS[t];
    return rc;
}

static int load_signal(ctx *c, int id, const char *path, stsl_interp def, stsl_signal_spec *s)
{
    char got[64];
    const char *keys[8];
    const sig_kind *k = NULL;
    mapr m;
    yaml_node_t *n = node_at(c, id);
    if (n->type != YAML_MAPPING_NODE)
        return fail(c, id, path, "expected a signal mapping with a 'type' key (got %s)",
                    describe(n, got, sizeof got));
    int rc = signal_kind(c, id, path, &k);
    if (rc) return rc;
    signal_keys(k, keys);
    rc = map_open(c, id, path, keys, &m);
    memset(s, 0, sizeof *s);
    s->type = k->type;
    for (int i = 0; !rc && i < k->n; i++)
        rc = map_num(&m, k->p[i].key, k->p[i].required, k->p[i].def, k->p[i].r,
                     (double *)((char *)s + k->p[i].off));
    if (!rc && k->type == STSL_SIG_TABLE) rc = table_signal(&m, def, s);
    return rc;
}

/* ---------------------------------------------------------------- sections */

static const char *const TOP_KEYS[] = {"description", "domain", "element", "friction",
                                       "end_stops",   "inputs", "initial", "simulation",
                                       "output",      NULL};
static const char *const ELEMENT_KEYS[] = {"mass", "inertia", "spring", "damper", NULL};
static const char *const SPRING_KEYS[] = {"stiffness", "free_position", NULL};
static const char *const DAMPER_KEYS[] = {"coefficient", NULL};
static const char *const FRICTION_KEYS[] = {"law",
                                            "dynamic",
                                            "static_ratio",
                                            "static",
                                            "efficiency_opposing",
                                            "efficiency_aiding",
                                            "stribeck_velocity",
                                            "stribeck_exponent",
                                            "breakaway",
                                            "coulomb",
                                            "breakaway_velocity",
                                            "viscous",
                                            "tc",
                                            "tst",
                                            "slope",
                                            "v_st",
                                            "d",
                                            "sigma0",
                                            "sigma1",
                                            NULL};
/* Keys only the smooth laws take (each law some of them). */
static const char *const SMOOTH_KEYS[] = {"breakaway", "coulomb", "breakaway_velocity",
                                          "viscous",   "tc",      "tst",
                                          "slope",     "v_st",    "d",
                                          "sigma0",    "sigma1",  NULL};
/* Keys only the hybrid laws take. */
static const char *const HYBRID_KEYS[] = {
    "dynamic",           "static_ratio",      "static", "efficiency_opposing", "efficiency_aiding",
    "stribeck_velocity", "stribeck_exponent", NULL};
static const char *const STOPS_KEYS[] = {"min",       "max",     "model", "restitution",
                                         "stiffness", "damping", NULL};
/* The keys of each stop model (index = stsl_stop_model), and its name table. */
static const char *const RIGID_STOP_KEYS[] = {"restitution", NULL};
static const char *const COMPLIANT_STOP_KEYS[] = {"stiffness", "damping", NULL};
#define STOP_MODEL_NAMES (stsl_stop_model_names())
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
static const char *const METHOD_NAMES[] = {"auto", "adams", "bdf", NULL};
static const char *const OUTPUT_KEYS[] = {"file", NULL};
static const char *const DOMAIN_NAMES[] = {"translational", "rotational", NULL};
/* The models' own name table, index = stsl_law. */
#define LAW_NAMES (stsl_law_names())

/* A parameter of a smooth law: the seed's name, where it goes, its range. */
typedef struct law_param {
    const char *key;
    size_t off;
    int required;
    double def;
    const range *r;
} law_param;

#define LP(k, req, def, r)                                                                         \
    {                                                                                              \
#k, offsetof(stsl_friction_params, k), req, def, r                                         \
    }
static const law_param P_SIMSCAPE[] = {LP(breakaway, 1, 0, &R_NONNEG),
                                       LP(coulomb, 1, 0, &R_NONNEG),
                                       LP(breakaway_velocity, 1, 0, &R_POS),
                                       LP(viscous, 0, 0, &R_NONNEG),
                                       {NULL, 0, 0, 0, NULL}};
static const law_param P_20SIM_C[] = {
    LP(tc, 1, 0, &R_NONNEG), LP(slope, 1, 0, &R_POS), {NULL, 0, 0, 0, NULL}};
static const law_param P_20SIM_V[] = {LP(d, 1, 0, &R_NONNEG), {NULL, 0, 0, 0, NULL}};
static const law_param P_20SIM_CV[] = {LP(tc, 1, 0, &R_NONNEG),
                                       LP(slope, 1, 0, &R_POS),
                                       LP(d, 1, 0, &R_NONNEG),
                                       {NULL, 0, 0, 0, NULL}};
static const law_param P_20SIM_SCVS[] = {LP(tc, 1, 0, &R_NONNEG), LP(tst, 1, 0, &R_NONNEG),
                                         LP(slope, 1, 0, &R_POS), LP(v_st, 1, 0, &R_POS),
                                         LP(d, 0, 0, &R_NONNEG),  {NULL, 0, 0, 0, NULL}};
/* LuGre divides by g(w) >= Tc: Tc must be > 0. */
static const law_param P_LUGRE[] = {LP(tc, 1, 0, &R_POS),     LP(tst, 1, 0, &R_NONNEG),
                                    LP(v_st, 1, 0, &R_POS),   LP(d, 0, 0, &R_NONNEG),
                                    LP(sigma0, 1, 0, &R_POS), LP(sigma1, 0, 0, &R_NONNEG),
                                    {NULL, 0, 0, 0, NULL}};
#undef LP

static const law_param *law_params(stsl_law law)
{
    switch (law) {
    case STSL_LAW_SIMSCAPE:
        return P_SIMSCAPE;
    case STSL_LAW_20SIM_C:
        return P_20SIM_C;
    case STSL_LAW_20SIM_V:
        return P_20SIM_V;
    case STSL_LAW_20SIM_CV:
        return P_20SIM_CV;
    case STSL_LAW_20SIM_SCVS:
        return P_20SIM_SCVS;
    case STSL_LAW_LUGRE:
        return P_LUGRE;
    default:
        return NULL;
    }
}

static int load_element(const mapr *top, stsl_element_params *e)
{
    mapr m, s, d;
    int have_s, have_d;
    int rc = map_sub(top, "element", 1, ELEMENT_KEYS, &m, &have_s);
    /* A rotating element's "mass" is its inertia (the seeds' word): either
     * name, not both. */
    int inertia = !rc ? map_find(&m, "inertia") : 0;
    if (inertia && map_find(&m, "mass"))
        rc = fail(m.c, inertia, "element.inertia",
                  "give either element.mass or element.inertia, not both");
    if (!rc) rc = map_num(&m, inertia ? "inertia" : "mass", 1, 0.0, &R_POS, &e->mass);
    if (!rc) rc = map_sub(&m, "spring", 0, SPRING_KEYS, &s, &have_s);
    if (!rc && have_s) rc = map_num(&s, "stiffness", 1, 0.0, &R_NONNEG, &e->stiffness);
    if (!rc && have_s) rc = map_num(&s, "free_position", 0, 0.0, NULL, &e->free_position);
    if (!rc) rc = map_sub(&m, "damper", 0, DAMPER_KEYS, &d, &have_d);
    if (!rc && have_d) rc = map_num(&d, "coefficient", 1, 0.0, &R_NONNEG, &e->damping);
    return rc;
}

/* `static` (a force) is the friendlier spelling of static_ratio; it only
 * means something when there is a dynamic level to divide by. */
static int load_static(const mapr *m, stsl_friction_params *f)
{
    int sr = map_find(m, "static_ratio"), st = map_find(m, "static");
    if (sr && st)
        return fail(m->c, st, "friction.static",
                    "give either friction.static or friction.static_ratio, not both");
    if (!st) return map_num(m, "static_ratio", 0, 1.0, &R_GE1, &f->static_ratio);
    if (!(f->dynamic > 0.0))
        return fail(m->c, st, "friction.static",
                    "needs friction.dynamic > 0 (use static_ratio when dynamic is 0)");
    range r = {f->dynamic, HUGE_VAL, 0, 1, NULL, 0.0};
    double fs;
    int rc = node_num(m->c, st, "friction.static", &r, &fs);
    if (!rc) f->static_ratio = fs / f->dynamic;
    return rc;
}

static int load_stribeck(const mapr *m, stsl_friction_params *f)
{
    static const char *const keys[] = {"stribeck_velocity", "stribeck_exponent"};
    f->stribeck_exponent = 2.0;
    if (f->law == STSL_LAW_STRIBECK) {
        int rc = map_num(m, keys[0], 1, 0.0, &R_POS, &f->stribeck_velocity);
        return rc ? rc : map_num(m, keys[1], 0, 2.0, &R_POS, &f->stribeck_exponent);
    }
    for (int i = 0; i < 2; i++) {
        char path[KEYPATH_MAX];
        int id = map_find(m, keys[i]);
        join(path, m->path, keys[i]);
        if (id) return fail(m->c, id, path, "only allowed with friction.law: stribeck");
    }
    return STSL_OK;
}

/* A key given that the law does not take: name the law. */
static int reject_key(const mapr *m, const char *key, stsl_law law)
{
    char path[KEYPATH_MAX];
    int id = map_find(m, key);
    join(path, m->path, key);
    return id ? fail(m->c, id, path, "not a parameter of friction.law: %s", LAW_NAMES[law])
              : STSL_OK;
}

static int is_param_of(const law_param *lp, const char *key)
{
    for (; lp && lp->key; lp++)
        if (strcmp(lp->key, key) == 0) return 1;
    return 0;
}

/* The smooth laws take their seed's parameters, nothing else. */
static int load_smooth(const mapr *m, stsl_friction_params *f)
{
    const law_param *lp = law_params(f->law);
    int rc = STSL_OK;
    for (int i = 0; !rc && HYBRID_KEYS[i]; i++)
        rc = reject_key(m, HYBRID_KEYS[i], f->law);
    for (int i = 0; !rc && SMOOTH_KEYS[i]; i++)
        if (!is_param_of(lp, SMOOTH_KEYS[i])) rc = reject_key(m, SMOOTH_KEYS[i], f->law);
    for (; !rc && lp->key; lp++)
        rc = map_num(m, lp->key, lp->required, lp->def, lp->r, (double *)((char *)f + lp->off));
    /* The static (breakaway) level cannot lie below the Coulomb level. */
    if (!rc && f->law == STSL_LAW_SIMSCAPE && f->breakaway < f->coulomb)
        rc = fail(m->c, map_find(m, "breakaway"), "friction.breakaway",
                  "must be >= friction.coulomb (got %g < %g)", f->breakaway, f->coulomb);
    if (!rc && (f->law == STSL_LAW_20SIM_SCVS || f->law == STSL_LAW_LUGRE) && f->tst < f->tc)
        rc = fail(m->c, map_find(m, "tst"), "friction.tst", "must be >= friction.tc (got %g < %g)",
                  f->tst, f->tc);
    f->static_ratio = f->eff_opposing = f->eff_aiding = 1.0;
    f->stribeck_exponent = 2.0;
    return rc;
}

static int load_friction(const mapr *top, stsl_friction_params *f)
{
    mapr m;
    int have, law = STSL_LAW_COULOMB;
    int rc = map_sub(top, "friction", 1, FRICTION_KEYS, &m, &have);
    if (!rc) rc = map_enum(&m, "law", LAW_NAMES, STSL_LAW_COULOMB, &law);
    f->law = (stsl_law)law;
    if (!rc && stsl_law_is_smooth(f->law)) return load_smooth(&m, f);
    for (int i = 0; !rc && SMOOTH_KEYS[i]; i++)
        rc = reject_key(&m, SMOOTH_KEYS[i], f->law);
    if (!rc) rc = map_num(&m, "dynamic", 1, 0.0, &R_NONNEG, &f->dynamic);
    if (!rc) rc = load_static(&m, f);
    if (!rc) rc = map_num(&m, "efficiency_opposing", 0, 1.0, &R_EFF_OPP, &f->eff_opposing);
    if (!rc) rc = map_num(&m, "efficiency_aiding", 0, 1.0, &R_EFF_AID, &f->eff_aiding);
    if (!rc) rc = load_stribeck(&m, f);
    return rc;
}

/* A key of the other stop model given: name the model in use. */
static int reject_stop_keys(const mapr *m, const char *const *keys, int model)
{
    for (int i = 0; keys[i]; i++) {
        char path[KEYPATH_MAX];
        int id = map_find(m, keys[i]);
        join(path, m->path, keys[i]);
        if (id)
            return fail(m->c, id, path, "not a parameter of end_stops.model: %s",
                        STOP_MODEL_NAMES[model]);
    }
    return STSL_OK;
}

/* The compliant stop's contact stiffness (required) and damping. */
static int load_compliant_stop(const mapr *m, stsl_element_params *e)
{
    int rc = reject_stop_keys(m, RIGID_STOP_KEYS, STSL_STOP_COMPLIANT);
    if (!rc) rc = map_num(m, "stiffness", 1, 0.0, &R_POS, &e->stop_stiffness);
    if (!rc) rc = map_num(m, "damping", 0, 0.0, &R_NONNEG, &e->stop_damping);
    return rc;
}

static int load_stops(const mapr *top, stsl_element_params *e)
{
    mapr m;
    int model = STSL_STOP_RIGID;
    e->stop_model = STSL_STOP_RIGID;
    int rc = map_sub(top, "end_stops", 0, STOPS_KEYS, &m, &e->has_stops);
    if (rc || !e->has_stops) return rc;
    rc = map_num(&m, "min", 1, 0.0, NULL, &e->x_min);
    if (!rc) rc = map_num(&m, "max", 1, 0.0, NULL, &e->x_max);
    if (!rc) rc = map_enum(&m, "model", STOP_MODEL_NAMES, STSL_STOP_RIGID, &model);
    e->stop_model = (stsl_stop_model)model;
    if (!rc && model == STSL_STOP_COMPLIANT) rc = load_compliant_stop(&m, e);
    if (!rc && model == STSL_STOP_RIGID) rc = reject_stop_keys(&m, COMPLIANT_STOP_KEYS, model);
    if (!rc && model == STSL_STOP_RIGID)
        rc = map_num(&m, "restitution", 0, 0.0, &R_UNIT, &e->restitution);
    if (!rc && !(e->x_min < e->x_max))
        rc = fail(m.c, map_find(&m, "max"), "end_stops.max",
                  "must be > end_stops.min (got min %g, max %g)", e->x_min, e->x_max);
    return rc;
}

static int load_initial(const mapr *top, stsl_element_params *e)
{
    mapr m = *top;
    int have;
    int rc = map_sub(top, "initial", 0, INITIAL_KEYS, &m, &have);
    if (rc) return rc;
    if (have) rc = map_num(&m, "position", 0, 0.0, NULL, &e->x0);
    if (!rc && have) rc = map_num(&m, "velocity", 0, 0.0, NULL, &e->v0);
    if (rc || !e->has_stops || (e->x0 >= e->x_min && e->x0 <= e->x_max)) return rc;
    int id = have ? map_find(&m, "position") : 0;
    return fail(m.c, id ? id : m.id, "initial.position",
                "must lie within the end stops [%g, %g] (got %g)", e->x_min, e->x_max, e->x0);
}

static int load_inputs(const mapr *top, stsl_element_params *e)
{
    stsl_signal_spec *specs[4] = {&e->active_force, &e->load, &e->base_motion, &e->anchor_motion};
    /* Forces jump where a table says; motions are differentiated twice
     * (a_b enters the force), so they default to a smooth interpolation. */
    static const stsl_interp defs[4] = {STSL_INTERP_LINEAR, STSL_INTERP_LINEAR, STSL_INTERP_CUBIC,
                                        STSL_INTERP_CUBIC};
    mapr m;
    int have;
    int rc = map_sub(top, "inputs", 0, INPUT_KEYS, &m, &have);
    for (int i = 0; !rc && have && i < 4; i++) {
        char path[KEYPATH_MAX];
        int id = map_find(&m, INPUT_KEYS[i]);
        join(path, m.path, INPUT_KEYS[i]);
        if (id) rc = load_signal(m.c, id, path, defs[i], specs[i]);
        if (i == 3) e->has_anchor = id != 0;
    }
    return rc;
}

/* simulation.scheme and its keys.  `step` is refused with event_driven
 * rather than ignored: a step there would most likely mean that the scheme
 * was forgotten, and a key without effect would mislead whoever reads the
 * configuration.  Likewise karnopp_band (karnopp only) and
 * regularisation_velocity (smooth_rk4 on a hybrid law only). */
static int load_scheme(const mapr *m, stsl_config *cfg)
{
    stsl_scheme_opts *s = &cfg->scheme;
    int kind = STSL_SCHEME_EVENT_DRIVEN, hybrid = !stsl_law_is_smooth(cfg->element.friction.law);
    int rc = map_enum(m, "scheme", SCHEME_NAMES, STSL_SCHEME_EVENT_DRIVEN, &kind);
    memset(s, 0, sizeof *s);
    s->kind = (stsl_scheme_kind)kind;
    if (rc) return rc;
    int sid = map_find(m, "scheme"), hid = map_find(m, "step");
    int kid = map_find(m, "karnopp_band"), vid = map_find(m, "regularisation_velocity");
    if (kind == STSL_SCHEME_EVENT_DRIVEN && hid)
        return fail(m->c, hid, "simulation.step",
                    "only for the fixed-step schemes (simulation.scheme: karnopp, "
                    "fixed_step_hybrid, smooth_rk4); the event-driven solver chooses its own");
    if (kind != STSL_SCHEME_KARNOPP && kid)
        return fail(m->c, kid, "simulation.karnopp_band",
                    "only for simulation.scheme: karnopp (got scheme %s)", SCHEME_NAMES[kind]);
    if (!(kind == STSL_SCHEME_SMOOTH_RK4 && hybrid) && vid)
        return fail(m->c, vid, "simulation.regularisation_velocity",
                    "only for simulation.scheme: smooth_rk4 with a hybrid friction law "
                    "(coulomb, stribeck)");
    if ((kind == STSL_SCHEME_KARNOPP || kind == STSL_SCHEME_FIXED_STEP_HYBRID) && !hybrid)
        return fail(m->c, sid, "simulation.scheme",
                    "%s needs a hybrid friction law (coulomb, stribeck), not %s; use smooth_rk4 "
                    "for smooth laws",
                    SCHEME_NAMES[kind], LAW_NAMES[cfg->element.friction.law]);
    /* The fixed-step schemes put a body on a rigid stop; a compliant one
     * is a contact mode of the event-driven solver only. */
    if (kind != STSL_SCHEME_EVENT_DRIVEN && cfg->element.has_stops &&
        cfg->element.stop_model == STSL_STOP_COMPLIANT)
        return fail(m->c, sid, "simulation.scheme",
                    "%s models rigid end stops only; end_stops.model: compliant needs "
                    "scheme event_driven",
                    SCHEME_NAMES[kind]);
    if (kind == STSL_SCHEME_EVENT_DRIVEN) return STSL_OK;
    rc = map_num(m, "step", 1, 0.0, &R_POS, &s->step);
    if (!rc && s->step > cfg->sim.t_end)
        rc = fail(m->c, hid, "simulation.step", "must be in (0, t_end = %g] (got %g)",
                  cfg->sim.t_end, s->step);
    if (!rc && cfg->sim.t_end / s->step > 1e12)
        rc = fail(m->c, hid, "simulation.step", "makes more than 1e12 steps to t_end = %g (got %g)",
                  cfg->sim.t_end, s->step);
    if (!rc && kind == STSL_SCHEME_KARNOPP)
        rc = map_num(m, "karnopp_band", 0, DEFAULT_KARNOPP_BAND, &R_POS, &s->karnopp_band);
    if (!rc && kind == STSL_SCHEME_SMOOTH_RK4 && hybrid)
        rc = map_num(m, "regularisation_velocity", 0, DEFAULT_REG_VELOCITY, &R_POS,
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
static int map_atol(const mapr *m, double *out)
{
    int id = map_find(m, "atol");
    yaml_node_t *n = id ? node_at(m->c, id) : NULL;
    if (!n ||
        (n->type == YAML_SCALAR_NODE && !strcmp((const char *)n->data.scalar.value, "auto"))) {
        *out = 0.0;
        return STSL_OK;
    }
    return map_num(m, "atol", 1, 0.0, &R_POS, out);
}

/* simulation.accuracy sets rtol (and leaves atol to the rule unless atol
 * is given): a single knob.  Given with rtol it would be ambiguous. */
static int load_tolerances(const mapr *m, stsl_config *cfg)
{
    stsl_hsolver_opts *o = &cfg->sim;
    int acc = map_find(m, "accuracy"), rt = map_find(m, "rtol"), rc;
    /* An override (--set, stsl_cfg_set) wins over the file's other key, so
     * that accuracy can be set on an effective configuration (which
     * writes rtol); both in the file, or both overridden, is refused. */
    int acc_set = acc && graft_of(m->c, acc), rt_set = rt && graft_of(m->c, rt);
    if (acc && rt && acc_set == rt_set)
        return fail(m->c, acc, "simulation.accuracy",
                    "sets rtol (and atol unless given): give accuracy or rtol, not both");
    int use_acc = acc && (!rt || acc_set);
    rc = map_num(m, use_acc ? "accuracy" : "rtol", 0, 1e-10, &R_RTOL, &o->rtol);
    if (!rc) rc = map_atol(m, &o->atol);
    int v = STSL_VERIFY_OFF;
    if (!rc) rc = map_enum(m, "verify", stsl_verify_mode_names(), STSL_VERIFY_OFF, &v);
    cfg->verify = (stsl_verify_mode)v;
    return rc;
}

static int load_sim(const mapr *top, stsl_config *cfg)
{
    stsl_hsolver_opts *o = &cfg->sim;
    mapr m;
    int have;
    double ev = 0.0;
    int rc = map_sub(top, "simulation", 1, SIM_KEYS, &m, &have);
    if (!rc) rc = map_num(&m, "t_end", 1, 0.0, &R_POS, &o->t_end);
    if (!rc) rc = map_num(&m, "output_step", 0, 0.001, &R_NONNEG, &o->output_step);
    if (!rc && too_many_samples(o))
        rc = fail(m.c, map_find(&m, "output_step"), "simulation.output_step",
                  "must be 0 or >= t_end / %.0e = %g (got %g: %.3g samples, about 80 bytes each)",
                  MAX_SAMPLES, o->t_end / MAX_SAMPLES, o->output_step, o->t_end / o->output_step);
    if (!rc) rc = load_tolerances(&m, cfg);
    if (!rc) rc = map_num(&m, "max_events", 0, 100000.0, NULL, &ev);
    /* 1e15 keeps the count exact in a double and inside a long. */
    if (!rc && (ev < 1.0 || ev > 1e15 || ev != floor(ev)))
        rc = fail(m.c, map_find(&m, "max_events"), "simulation.max_events",
                  "must be a positive integer (got %g)", ev);
    o->max_events = (long)ev;
    int method = STSL_METHOD_AUTO;
    if (!rc) rc = map_enum(&m, "method", METHOD_NAMES, STSL_METHOD_AUTO, &method);
    o->method = (stsl_method)method;
    if (!rc) rc = load_scheme(&m, cfg);
    if (!rc && cfg->verify != STSL_VERIFY_OFF && cfg->scheme.kind != STSL_SCHEME_EVENT_DRIVEN)
        rc = fail(m.c, map_find(&m, "verify"), "simulation.verify",
                  "needs scheme event_driven: a fixed-step scheme has no tolerance to tighten "
                  "(got scheme %s)",
                  SCHEME_NAMES[cfg->scheme.kind]);
    return rc;
}

static int load_output(const mapr *top, stsl_config *cfg)
{
    mapr m;
    int have;
    const char *file;
    int rc = map_sub(top, "output", 0, OUTPUT_KEYS, &m, &have);
    int id = have && !rc ? map_find(&m, "file") : 0;
    if (!id) return rc;
    rc = node_str(m.c, id, "output.file", &file);
    return rc ? rc : copy_field(m.c, id, "output.file", cfg->output_file, STSL_PATH_MAX, file);
}

/* The element resolves what the solver resolves (end-stop rebounds). */
static void sync_tolerances(stsl_config *cfg)
{
    cfg->element.rtol = cfg->sim.rtol;
    cfg->element.atol = cfg->sim.atol;
}

static int load_top(ctx *c, stsl_config *cfg)
{
    mapr top;
    int dom = 0;
    const char *desc;
    stsl_element_params *e = &cfg->element;
    yaml_node_t *root = yaml_document_get_root_node(&c->doc);
    if (!root) return fail(c, 0, "", "expected a mapping (the document is empty)");
    int rc = map_open(c, 1, "", TOP_KEYS, &top);
    int did = rc ? 0 : map_find(&top, "description");
    if (did) rc = node_str(c, did, "description", &desc);
    if (!rc) rc = map_enum(&top, "domain", DOMAIN_NAMES, 0, &dom);
    e->domain = (stsl_domain)dom;
    if (!rc) rc = load_element(&top, e);
    if (!rc) rc = load_friction(&top, &e->friction);
    if (!rc) rc = load_stops(&top, e);
    if (!rc) rc = load_inputs(&top, e);
    if (!rc) rc = load_initial(&top, e);
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
static int parse_doc(ctx *c, yaml_parser_t *p)
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

static int bad_set(ctx *c, const char *arg)
{
    return stsl_error_set(c->err, STSL_EINPUT, "--set %s: expected KEY.PATH=VALUE", arg);
}

static int set_fail(ctx *c, const char *arg, const char *path, const char *what)
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
static int graft_copy(ctx *c, const char *arg, yaml_document_t *src, int sid, int depth, int *out)
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
static int graft_value(ctx *c, const char *arg, const char *text, int *out)
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
static yaml_node_pair_t *find_pair(ctx *c, int id, const char *key)
{
    yaml_node_t *n = node_at(c, id);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = key_text(c, p->key);
        if (k && strcmp(k, key) == 0) return p;
    }
    return NULL;
}

static int add_pair(ctx *c, const char *arg, int map, const char *key, int value)
{
    int k = yaml_document_add_scalar(&c->doc, NULL, (const yaml_char_t *)key, (int)strlen(key),
                                     YAML_PLAIN_SCALAR_STYLE);
    if (!k || !yaml_document_append_mapping_pair(&c->doc, map, k, value))
        return stsl_error_set(c->err, STSL_ENOMEM, "--set %s: out of memory", arg);
    return STSL_OK;
}

/* Put `value` at `key` (dotted), creating missing intermediate mappings. */
static int place(ctx *c, const char *arg, char *key, int value)
{
    int cur = 1, rc = STSL_OK;
    for (char *seg = key, *dot; !rc; seg = dot + 1) {
        dot = strchr(seg, '.');
        if (dot) *dot = '\0';
        if (node_at(c, cur)->type != YAML_MAPPING_NODE) {
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

static int apply_set(ctx *c, const char *arg)
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
    graft *g = realloc(c->grafts, (size_t)(c->n_grafts + 1) * sizeof *g);
    if (!g) return stsl_error_set(c->err, STSL_ENOMEM, "--set %s: out of memory", arg);
    c->grafts = g;
    g[c->n_grafts++] = (graft){first, node_count(&c->doc), arg};
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
static int load_parsed(ctx *c, yaml_parser_t *p, const char *const *sets, int n_sets,
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
        one_line(c->err);
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
        one_line(err);
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
    ctx c = {.origin = path, .base_dir = dl ? dir : NULL, .err = err};
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
    ctx c = {.origin = where, .base_dir = base_dir, .err = err};
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
}

/* ---------------------------------------------------------------- to_yaml */

/* A YAML double-quoted string: any path survives the round trip. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
        if (*u == '"' || *u == '\\')
            fprintf(f, "\\%c", *u);
        else if (*u < 0x20 || *u == 0x7f)
            fprintf(f, "\\x%02x", *u);
        else
            fputc(*u, f);
    }
    fputc('"', f);
}

static void put_signal(FILE *f, const char *key, const stsl_signal_spec *s)
{
    const sig_kind *k = kind_of(s->type);
    fprintf(f, "  %s: {type: %s", key, k->name);
    for (int i = 0; i < k->n; i++)
        fprintf(f, ", %s: %.17g", k->p[i].key, *(const double *)((const char *)s + k->p[i].off));
    if (s->type == STSL_SIG_TABLE) {
        /* Absolute: the effective configuration (a result's /config) must
         * name the same table from any working directory. */
        char abs[PATH_MAX];
        fputs(", file: ", f);
        put_quoted(f, s->file[0] != '/' && realpath(s->file, abs) ? abs : s->file);
        fprintf(f, ", interpolation: %s", INTERP_NAMES[s->interpolation == STSL_INTERP_CUBIC]);
    }
    fputs("}\n", f);
}

static void put_element(FILE *f, const stsl_element_params *e)
{
    const stsl_friction_params *fr = &e->friction;
    fprintf(f, "domain: %s\n", DOMAIN_NAMES[e->domain == STSL_DOMAIN_ROTATIONAL]);
    fprintf(f, "element:\n  %s: %.17g\n", e->domain == STSL_DOMAIN_ROTATIONAL ? "inertia" : "mass",
            e->mass);
    fprintf(f, "  spring: {stiffness: %.17g, free_position: %.17g}\n", e->stiffness,
            e->free_position);
    fprintf(f, "  damper: {coefficient: %.17g}\n", e->damping);
    fprintf(f, "friction:\n  law: %s\n", LAW_NAMES[fr->law]);
    if (stsl_law_is_smooth(fr->law)) {
        for (const law_param *lp = law_params(fr->law); lp->key; lp++)
            fprintf(f, "  %s: %.17g\n", lp->key, *(const double *)((const char *)fr + lp->off));
    } else {
        fprintf(f, "  dynamic: %.17g\n  static_ratio: %.17g\n", fr->dynamic, fr->static_ratio);
        fprintf(f, "  efficiency_opposing: %.17g\n  efficiency_aiding: %.17g\n", fr->eff_opposing,
                fr->eff_aiding);
    }
    if (fr->law == STSL_LAW_STRIBECK)
        fprintf(f, "  stribeck_velocity: %.17g\n  stribeck_exponent: %.17g\n",
                fr->stribeck_velocity, fr->stribeck_exponent);
    if (e->has_stops && e->stop_model == STSL_STOP_COMPLIANT)
        fprintf(f,
                "end_stops: {min: %.17g, max: %.17g, model: compliant, stiffness: %.17g, "
                "damping: %.17g}\n",
                e->x_min, e->x_max, e->stop_stiffness, e->stop_damping);
    else if (e->has_stops) /* rigid: the model key left to its default, as before it existed */
        fprintf(f, "end_stops: {min: %.17g, max: %.17g, restitution: %.17g}\n", e->x_min, e->x_max,
                e->restitution);
    fputs("inputs:\n", f);
    put_signal(f, "active_force", &e->active_force);
    put_signal(f, "load", &e->load);
    put_signal(f, "base_motion", &e->base_motion);
    if (e->has_anchor) put_signal(f, "anchor_motion", &e->anchor_motion);
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
        put_quoted(f, cfg->output_file);
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
    d->tt = d->vv = NULL;
    if (!s->tt) return STSL_OK;
    size_t bytes = (size_t)s->n * sizeof(double);
    d->tt = malloc(bytes);
    d->vv = malloc(bytes);
    if (!d->tt || !d->vv) {
        free(d->tt);
        free(d->vv);
        d->tt = d->vv = NULL;
        d->n = 0;
        return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory copying the table", s->file);
    }
    memcpy(d->tt, s->tt, bytes);
    memcpy(d->vv, s->vv, bytes);
    return STSL_OK;
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
    int rc = STSL_OK;
    for (int i = 0; !rc && i < 4; i++)
        rc = copy_table(d[i], s[i], err);
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
    W_ROT,          /* element.inertia */
    W_HYBRID,       /* a hybrid law's keys */
    W_STRIBECK,     /* stribeck_* */
    W_NO_STOPS,     /* initial.position must lie within the stops */
    W_EVENT_DRIVEN, /* t_end bounds a fixed-step scheme's step */
    W_KARNOPP,
    W_RK4_HYBRID
} when;

typedef struct num_key {
    const char *path;
    size_t off; /* of the double in stsl_config */
    const range *r;
    when w;
} num_key;

/* The same ranges as the loader's map_num calls above; test_api checks that
 * every key gives the same value and message through the full load. */
#define NK(path, field, r, w)                                                                      \
    {                                                                                              \
        path, offsetof(stsl_config, field), r, w                                                   \
    }
static const num_key NUM_KEYS[] = {
    NK("element.mass", element.mass, &R_POS, W_TRANSL),
    NK("element.inertia", element.mass, &R_POS, W_ROT),
    NK("element.spring.stiffness", element.stiffness, &R_NONNEG, W_ALWAYS),
    NK("element.spring.free_position", element.free_position, NULL, W_ALWAYS),
    NK("element.damper.coefficient", element.damping, &R_NONNEG, W_ALWAYS),
    NK("friction.dynamic", element.friction.dynamic, &R_NONNEG, W_HYBRID),
    NK("friction.static_ratio", element.friction.static_ratio, &R_GE1, W_HYBRID),
    NK("friction.efficiency_opposing", element.friction.eff_opposing, &R_EFF_OPP, W_HYBRID),
    NK("friction.efficiency_aiding", element.friction.eff_aiding, &R_EFF_AID, W_HYBRID),
    NK("friction.stribeck_velocity", element.friction.stribeck_velocity, &R_POS, W_STRIBECK),
    NK("friction.stribeck_exponent", element.friction.stribeck_exponent, &R_POS, W_STRIBECK),
    NK("initial.position", element.x0, NULL, W_NO_STOPS),
    NK("initial.velocity", element.v0, NULL, W_ALWAYS),
    NK("simulation.t_end", sim.t_end, &R_POS, W_EVENT_DRIVEN),
    NK("simulation.output_step", sim.output_step, &R_NONNEG, W_ALWAYS),
    NK("simulation.rtol", sim.rtol, &R_RTOL, W_ALWAYS),
    NK("simulation.atol", sim.atol, &R_POS, W_ALWAYS),
    NK("simulation.karnopp_band", scheme.karnopp_band, &R_POS, W_KARNOPP),
    NK("simulation.regularisation_velocity", scheme.regularisation_velocity, &R_POS, W_RK4_HYBRID),
};
#undef NK

static int applies(const stsl_config *cfg, when w)
{
    const stsl_element_params *e = &cfg->element;
    int hybrid = !stsl_law_is_smooth(e->friction.law);
    switch (w) {
    case W_TRANSL:
        return e->domain == STSL_DOMAIN_TRANSLATIONAL;
    case W_ROT:
        return e->domain == STSL_DOMAIN_ROTATIONAL;
    case W_HYBRID:
        return hybrid;
    case W_STRIBECK:
        return e->friction.law == STSL_LAW_STRIBECK;
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

/* A smooth law's parameter, unless a rule ties it to another one. */
static double *smooth_slot(stsl_config *cfg, const char *name, const range **r)
{
    stsl_friction_params *f = &cfg->element.friction;
    int tied =
        (f->law == STSL_LAW_SIMSCAPE && (!strcmp(name, "breakaway") || !strcmp(name, "coulomb"))) ||
        ((f->law == STSL_LAW_20SIM_SCVS || f->law == STSL_LAW_LUGRE) &&
         (!strcmp(name, "tc") || !strcmp(name, "tst")));
    if (!stsl_law_is_smooth(f->law) || tied) return NULL;
    for (const law_param *lp = law_params(f->law); lp && lp->key; lp++)
        if (!strcmp(lp->key, name)) {
            *r = lp->r;
            return (double *)((char *)f + lp->off);
        }
    return NULL;
}

/* inputs.NAME.PARAM of the signal's present type. */
static double *signal_slot(stsl_config *cfg, const char *rest, const range **r)
{
    stsl_signal_spec *specs[4] = {&cfg->element.active_force, &cfg->element.load,
                                  &cfg->element.base_motion, &cfg->element.anchor_motion};
    const char *dot = strchr(rest, '.');
    for (int i = 0; dot && i < 4; i++) {
        size_t n = strlen(INPUT_KEYS[i]);
        if (n != (size_t)(dot - rest) || strncmp(rest, INPUT_KEYS[i], n)) continue;
        if (i == 3 && !cfg->element.has_anchor) return NULL;
        const sig_kind *k = kind_of(specs[i]->type);
        for (int j = 0; j < k->n; j++)
            if (!strcmp(k->p[j].key, dot + 1)) {
                *r = k->p[j].r;
                return (double *)((char *)specs[i] + k->p[j].off);
            }
    }
    return NULL;
}

/* The double behind `key` when it can be set on its own (see `when`);
 * NULL when it must go through the full load. */
static double *fast_slot(stsl_config *cfg, const char *key, const range **r)
{
    for (size_t i = 0; i < sizeof NUM_KEYS / sizeof NUM_KEYS[0]; i++)
        if (!strcmp(key, NUM_KEYS[i].path)) {
            if (!applies(cfg, NUM_KEYS[i].w)) return NULL;
            *r = NUM_KEYS[i].r;
            return (double *)((char *)cfg + NUM_KEYS[i].off);
        }
    if (!strncmp(key, "friction.", 9)) return smooth_slot(cfg, key + 9, r);
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

int stsl_config_set(stsl_config *cfg, const char *key, const char *value, stsl_error *err)
{
    const range *r = NULL;
    double *slot = key && value ? fast_slot(cfg, key, &r) : NULL;
    if (!slot || !plain_number_text(value)) return stsl_config_set_reload(cfg, key, value, err);
    yaml_node_t n = {.type = YAML_SCALAR_NODE};
    n.data.scalar.value = (yaml_char_t *)value;
    n.data.scalar.length = strlen(value);
    n.data.scalar.style = YAML_PLAIN_SCALAR_STYLE;
    char what[512];
    double v;
    if (check_num(&n, r, &v, what, sizeof what)) {
        stsl_error_set(err, STSL_EINPUT, "%s: %s", key, what);
        one_line(err);
        return STSL_EINPUT;
    }
    double before = *slot;
    *slot = v;
    if (too_many_samples(&cfg->sim)) {
        /* Refused by a rule between keys: the full load words it (and names
         * the key the loader blames), so both paths say the same. */
        *slot = before;
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

int stsl_config_apply(stsl_config *cfg, const char *const *sets, int n_sets, stsl_error *err)
{
    char *yaml = stsl_config_to_yaml(cfg);
    if (!yaml) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    stsl_config next;
    int rc = stsl_config_load_string(yaml, EFFECTIVE, NULL, sets, n_sets, &next, err);
    free(yaml);
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
            put_quoted(f, (const char *)n->data.scalar.value);
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
    ctx c = {.origin = EFFECTIVE, .err = err};
    int rc = parse_doc(&c, &p), id = 1;
    snprintf(path, sizeof path, "%s", key);
    for (char *seg = path, *dot = path; !rc && id && dot; seg = dot + 1) {
        dot = strchr(seg, '.');
        if (dot) *dot = '\0';
        yaml_node_pair_t *pair =
            node_at(&c, id)->type == YAML_MAPPING_NODE ? find_pair(&c, id, seg) : NULL;
        id = pair ? pair->value : 0;
    }
    FILE *f = !rc && id ? open_memstream(&out, &len) : NULL;
    if (f) {
        put_flow(f, &c.doc, node_at(&c, id));
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
    const range *r;
    /* fast_slot only locates the double; nothing is written through it. */
    const double *slot = key ? fast_slot((stsl_config *)cfg, key, &r) : NULL;
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
