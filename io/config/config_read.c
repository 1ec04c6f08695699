/* config_read.c - see config_read.h. */
#include "io/config/config_read.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "io/config/config_keys.h"
#include "io/config/text_input.h"

/* Scalars quoted in messages are cut here so that a message stays readable. */
#define SHOW_MAX 48

const stsl_cr_range stsl_cr_pos = {0.0, HUGE_VAL, 1, 1, NULL, 0.0};
const stsl_cr_range stsl_cr_nonneg = {0.0, HUGE_VAL, 0, 1, NULL, 0.0};
const stsl_cr_range stsl_cr_ge1 = {1.0, HUGE_VAL, 0, 1, NULL, 0.0};
const stsl_cr_range stsl_cr_unit = {0.0, 1.0, 0, 0, NULL, 0.0};
/* Far outside physics a load would create more friction than any drive
 * has: (1/EtO - 1) or (1 - EtA) times the load.  The bounds allow 99 and
 * 101 times (an efficiency of 1 %, or the back-driving efficiency 2 - 1/eta
 * of a worm gear of 1 % forward efficiency, where real ones have 20 % and
 * more); beyond them the friction levels dwarf every other force by orders
 * of magnitude and the run means nothing.  The bounds live in the ranges so
 * that the loader and the fast set (stsl_config_set) refuse alike. */
#define EFF_WHY(load, times)                                                                       \
    "a lower efficiency makes " load " load create more than " times " times its magnitude as "    \
    "friction"
const stsl_cr_range stsl_cr_eff_opp = {0.0, 1.0, 1, 0, EFF_WHY("an opposing", "99"), 0.01};
const stsl_cr_range stsl_cr_eff_aid = {-HUGE_VAL, 1.0, 1, 0, EFF_WHY("an aiding", "101"), -100.0};
#undef EFF_WHY

/* ---------------------------------------------------------------- errors */

yaml_node_t *stsl_cr_node_at(stsl_cr_ctx *c, int id)
{
    return yaml_document_get_node(&c->doc, id);
}

const char *stsl_cr_graft_of(const stsl_cr_ctx *c, int id)
{
    for (int i = 0; i < c->n_grafts; i++)
        if (id >= c->grafts[i].first && id <= c->grafts[i].last) return c->grafts[i].arg;
    return NULL;
}

const char *stsl_cr_set_name(stsl_cr_ctx *c, const char *arg)
{
    snprintf(c->set_name, sizeof c->set_name, c->api_sets ? "set '%s'" : "--set %s", arg);
    return c->set_name;
}

/* "FILE:LINE: path: what", or "--set ARG: path: what" for a grafted node. */
int stsl_cr_fail(stsl_cr_ctx *c, int id, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int stsl_cr_fail(stsl_cr_ctx *c, int id, const char *path, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *p = *path ? path : "(top level)";
    const char *set = stsl_cr_graft_of(c, id);
    if (set)
        return stsl_error_set(c->err, STSL_EINPUT, "%s: %s: %s", stsl_cr_set_name(c, set), p, what);
    yaml_node_t *n = id ? stsl_cr_node_at(c, id) : NULL;
    long line = n ? (long)n->start_mark.line + 1 : 1;
    return stsl_error_set(c->err, STSL_EINPUT, "%s:%ld: %s: %s", c->origin, line, p, what);
}

/* Messages are one line: values quoted from the input may hold newlines. */
void stsl_cr_one_line(stsl_error *err)
{
    if (!err) return;
    for (char *s = err->msg; *s; s++)
        if (*s == '\n' || *s == '\r' || *s == '\t') *s = ' ';
}

/* How a node looks, for "expected X (got Y)". */
const char *stsl_cr_describe(const yaml_node_t *n, char *buf, size_t size)
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

static void stsl_cr_list_names(const char *const *names, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
}

void stsl_cr_join(char *buf, const char *prefix, const char *key)
{
    /* Key paths longer than KEYPATH_MAX are cut; the check uses the return
     * value, which also tells gcc that truncation is expected here. */
    if (snprintf(buf, KEYPATH_MAX, "%s%s%s", prefix, *prefix ? "." : "", key) >= KEYPATH_MAX)
        buf[KEYPATH_MAX - 1] = '\0';
}

/* --------------------------------------------------------------- mappings */

const char *stsl_cr_key_text(stsl_cr_ctx *c, int id)
{
    yaml_node_t *k = stsl_cr_node_at(c, id);
    return k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : NULL;
}

/* The index of `name` in `names` (NULL-terminated), -1 when not there. */
static int name_index(const char *name, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(name, names[i]) == 0) return i;
    return -1;
}

/* Reject a key that is not a scalar, not allowed, or seen before in `n`. */
static int check_key(const stsl_cr_map *m, yaml_node_t *n, yaml_node_pair_t *p,
                     const char *const *allowed)
{
    char path[KEYPATH_MAX], list[512];
    const char *key = stsl_cr_key_text(m->c, p->key);
    if (!key)
        return stsl_cr_fail(m->c, p->key, m->path, "keys must be plain names, not collections");
    stsl_cr_join(path, m->path, key);
    if (name_index(key, allowed) < 0) {
        stsl_cr_list_names(allowed, list, sizeof list);
        return stsl_cr_fail(m->c, p->key, path, "unknown key (allowed: %s)", list);
    }
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++) {
        const char *other = stsl_cr_key_text(m->c, q->key);
        if (other && strcmp(other, key) == 0)
            return stsl_cr_fail(m->c, p->key, path, "duplicate key (first given on line %ld)",
                                (long)stsl_cr_node_at(m->c, q->key)->start_mark.line + 1);
    }
    return STSL_OK;
}

int stsl_cr_map_open(stsl_cr_ctx *c, int id, const char *path, const char *const *allowed,
                     stsl_cr_map *m)
{
    char got[64];
    yaml_node_t *n = stsl_cr_node_at(c, id);
    if (n->type != YAML_MAPPING_NODE)
        return stsl_cr_fail(c, id, path, "expected a mapping (got %s)",
                            stsl_cr_describe(n, got, sizeof got));
    m->c = c;
    m->id = id;
    snprintf(m->path, sizeof m->path, "%s", path);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        int rc = check_key(m, n, p, allowed);
        if (rc) return rc;
    }
    return STSL_OK;
}

yaml_node_pair_t *stsl_cr_pair(stsl_cr_ctx *c, int id, const char *key)
{
    yaml_node_t *n = stsl_cr_node_at(c, id);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = stsl_cr_key_text(c, p->key);
        if (k && strcmp(k, key) == 0) return p;
    }
    return NULL;
}

int stsl_cr_map_find(const stsl_cr_map *m, const char *key)
{
    yaml_node_pair_t *p = stsl_cr_pair(m->c, m->id, key);
    return p ? p->value : 0;
}

/* Open the sub-mapping `key`; *present says whether it was there.  With
 * `allowed` NULL the key table says which keys it allows. */
int stsl_cr_map_sub(const stsl_cr_map *m, const char *key, int required, const char *const *allowed,
                    stsl_cr_map *out, int *present)
{
    char path[KEYPATH_MAX];
    int id = stsl_cr_map_find(m, key);
    stsl_cr_join(path, m->path, key);
    *present = id != 0;
    if (!id)
        return required ? stsl_cr_fail(m->c, m->id, path, "missing required key (a mapping)")
                        : STSL_OK;
    return allowed ? stsl_cr_map_open(m->c, id, path, allowed, out)
                   : stsl_key_open(m->c, id, path, out);
}

int stsl_cr_refuse_keys(const stsl_cr_map *top, const char *const *keys, const char *why)
{
    for (int i = 0; keys[i]; i++) {
        int id = stsl_cr_map_find(top, keys[i]);
        if (id) return stsl_cr_fail(top->c, id, keys[i], "%s", why);
    }
    return STSL_OK;
}

/* ---------------------------------------------------------------- scalars */

static int in_range(const stsl_cr_range *r, double v)
{
    return (r->lo_open ? v > r->lo : v >= r->lo) && (r->hi_open ? v < r->hi : v <= r->hi);
}

/* " > 0", " in (0, 1]", ... ("" for any finite number). */
void stsl_cr_range_text(const stsl_cr_range *r, char *buf, size_t size)
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
 * is a string in YAML and is refused as one.  The one check of a number,
 * for a node of the file and for a value given to stsl_config_set: 0 and
 * *out, or 1 with the problem in `what`. */
int stsl_cr_check_num(const yaml_node_t *n, const stsl_cr_range *r, double *out, char *what,
                      size_t size)
{
    char got[64], rt[64], *end = NULL;
    int plain = n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    const char *s = plain ? (const char *)n->data.scalar.value : "";
    double v = strtod(s, &end);
    stsl_cr_range_text(r, rt, sizeof rt);
    const char *desc = stsl_cr_describe(n, got, sizeof got);
    if (plain && (is_yaml_nonfinite(s) || (end != s && !*end && !isfinite(v))))
        return snprintf(what, size, "must be a finite number (got %s)", desc) >= 0;
    if (!plain || end == s || *end)
        return snprintf(what, size, "expected a number%s (got %s)", rt, desc) >= 0;
    if (r && !in_range(r, v)) return snprintf(what, size, "must be%s (got %s)", rt, s) >= 0;
    if (r && r->why && v < r->phys_lo)
        return snprintf(what, size, "must be in [%g, %g] (got %s): %s", r->phys_lo, r->hi, s,
                        r->why) >= 0;
    *out = v;
    return 0;
}

static int node_num(stsl_cr_ctx *c, int id, const char *path, const stsl_cr_range *r, double *out)
{
    char what[512];
    return stsl_cr_check_num(stsl_cr_node_at(c, id), r, out, what, sizeof what)
               ? stsl_cr_fail(c, id, path, "%s", what)
               : STSL_OK;
}

int stsl_cr_map_num(const stsl_cr_map *m, const char *key, int required, double def,
                    const stsl_cr_range *r, double *out)
{
    char path[KEYPATH_MAX], rt[64];
    int id = stsl_cr_map_find(m, key);
    stsl_cr_join(path, m->path, key);
    if (id) return node_num(m->c, id, path, r, out);
    if (!required) {
        *out = def;
        return STSL_OK;
    }
    stsl_cr_range_text(r, rt, sizeof rt);
    return stsl_cr_fail(m->c, m->id, path, "missing required key (a number%s)", rt);
}

int stsl_cr_node_str(stsl_cr_ctx *c, int id, const char *path, const char **out)
{
    char got[64];
    yaml_node_t *n = stsl_cr_node_at(c, id);
    if (n->type != YAML_SCALAR_NODE)
        return stsl_cr_fail(c, id, path, "expected a string (got %s)",
                            stsl_cr_describe(n, got, sizeof got));
    *out = (const char *)n->data.scalar.value;
    return STSL_OK;
}

/* One of `names` (NULL-terminated); *out is its index, `def` when absent. */
int stsl_cr_map_enum(const stsl_cr_map *m, const char *key, const char *const *names, int def,
                     int *out)
{
    char path[KEYPATH_MAX], list[256], got[64];
    const char *s = NULL;
    int id = stsl_cr_map_find(m, key);
    stsl_cr_join(path, m->path, key);
    *out = def;
    if (!id) return STSL_OK;
    stsl_cr_list_names(names, list, sizeof list);
    int rc = stsl_cr_node_str(m->c, id, path, &s);
    if (rc || (*out = name_index(s, names)) >= 0) return rc;
    *out = def;
    return stsl_cr_fail(m->c, id, path, "must be one of: %s (got %s)", list,
                        stsl_cr_describe(stsl_cr_node_at(m->c, id), got, sizeof got));
}

/* Copy a string into a fixed field, refusing what does not fit. */
int stsl_cr_copy_field(stsl_cr_ctx *c, int id, const char *path, char *dst, size_t size,
                       const char *src)
{
    size_t n = strlen(src);
    if (n >= size) return stsl_cr_fail(c, id, path, "longer than %zu characters", size - 1);
    memcpy(dst, src, n + 1);
    return STSL_OK;
}

/* ---------------------------------------------------------------- tables */

typedef struct tabread {
    stsl_cr_ctx *c;
    const char *keypath; /* inputs.X.file */
    long line;
    int rows_seen;       /* content lines so far (a header may only be the first) */
    int cap;             /* of s->tt and s->vv */
    stsl_signal_spec *s; /* its file (resolved) and the rows so far */
} tabread;

static int table_fail(tabread *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int table_fail(tabread *r, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return stsl_error_set(r->c->err, STSL_EINPUT, "%s:%ld: %s: %s", r->s->file, r->line, r->keypath,
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
    stsl_signal_spec *b = r->s;
    if (b->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        double *nt = realloc(b->tt, (size_t)cap * sizeof *nt);
        if (nt) b->tt = nt;
        double *nv = nt ? realloc(b->vv, (size_t)cap * sizeof *nv) : NULL;
        if (nv) b->vv = nv;
        if (!nt || !nv) return stsl_error_set(r->c->err, STSL_ENOMEM, "%s: out of memory", b->file);
        r->cap = cap;
    }
    b->tt[b->n] = t;
    b->vv[b->n] = v;
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
    if (r->s->n > 0 && !(t > r->s->tt[r->s->n - 1]))
        return table_fail(r, "times must be strictly increasing (%.17g after %.17g)", t,
                          r->s->tt[r->s->n - 1]);
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
    if (rc == STSL_OK && r->s->n < 2) {
        if (r->line == 0) r->line = 1;
        rc = table_fail(r, "needs at least 2 data rows (found %d)", r->s->n);
    }
    return rc;
}

/* Read the table of `s->file` into s->n/tt/vv; `id` is the file node. */
static int read_table(stsl_cr_ctx *c, int id, const char *keypath, stsl_signal_spec *s)
{
    char *text = NULL;
    size_t len = 0;
    stsl_error why;
    if (stsl_text_read(s->file, &stsl_table_limits, &text, &len, &why))
        return stsl_cr_fail(c, id, keypath, "%s", why.msg);
    tabread r = {.c = c, .keypath = keypath, .s = s};
    int rc = table_lines(&r, text);
    free(text);
    if (rc) { /* nothing of the table is kept */
        free(s->tt);
        free(s->vv);
        s->tt = s->vv = NULL;
        s->n = 0;
    }
    return rc;
}

/* Relative table paths are relative to the configuration's directory. */
static int resolve_path(stsl_cr_ctx *c, int id, const char *path, const char *file, char *out)
{
    const char *dir = c->base_dir;
    if (file[0] == '/' || !dir || !*dir)
        return stsl_cr_copy_field(c, id, path, out, STSL_PATH_MAX, file);
    size_t dl = strlen(dir), fl = strlen(file);
    int slash = dir[dl - 1] != '/';
    if (dl + slash + fl >= STSL_PATH_MAX)
        return stsl_cr_fail(c, id, path, "resolved path longer than %d characters",
                            STSL_PATH_MAX - 1);
    memcpy(out, dir, dl);
    if (slash) out[dl] = '/';
    memcpy(out + dl + slash, file, fl + 1);
    return STSL_OK;
}

/* ---------------------------------------------------------------- signals */

/* The numbers of each signal type, in the order they are written; each
 * key is the field's name, each default 0.  The types' names are the
 * model's (stsl_signal_type_names). */
typedef struct sig_param {
    stsl_signal_type type;
    const char *key;
    size_t off;
    int required;
    const stsl_cr_range *r;
} sig_param;
#define P(t, k, req, r)                                                                            \
    {                                                                                              \
        STSL_SIG_##t, #k, offsetof(stsl_signal_spec, k), req, r                                    \
    }
static const sig_param SIG_PARAMS[] = {P(CONSTANT, value, 1, NULL),
                                       P(STEP, time, 1, NULL),
                                       P(STEP, before, 0, NULL),
                                       P(STEP, after, 1, NULL),
                                       P(RAMP, start_time, 0, NULL),
                                       P(RAMP, slope, 1, NULL),
                                       P(RAMP, initial, 0, NULL),
                                       P(SINE, amplitude, 1, NULL),
                                       P(SINE, frequency, 1, &stsl_cr_pos),
                                       P(SINE, phase, 0, NULL),
                                       P(SINE, offset, 0, NULL),
                                       P(JANECEK_CHIRP, amplitude, 1, NULL),
                                       P(JANECEK_CHIRP, f_max, 1, &stsl_cr_pos),
                                       P(JANECEK_CHIRP, t_max, 1, &stsl_cr_pos),
                                       P(LINEAR_CHIRP, amplitude, 1, NULL),
                                       P(LINEAR_CHIRP, f0, 1, &stsl_cr_nonneg),
                                       P(LINEAR_CHIRP, f1, 1, &stsl_cr_nonneg),
                                       P(LINEAR_CHIRP, t1, 1, &stsl_cr_pos)};
#undef P
#define SIG_END (SIG_PARAMS + sizeof SIG_PARAMS / sizeof SIG_PARAMS[0])

#define SIGNAL_NAMES (stsl_signal_type_names())
static const char *const INTERP_NAMES[] = {"linear", "cubic", NULL};

/* A type the signal tables know (an unknown one is read as a constant). */
static stsl_signal_type known(stsl_signal_type t)
{
    return t >= STSL_SIG_CONSTANT && t <= STSL_SIG_TABLE ? t : STSL_SIG_CONSTANT;
}

/* Allowed keys of a signal: `type` and its type's parameters. */
static void signal_keys(stsl_signal_type t, const char *keys[8])
{
    int n = 0;
    keys[n++] = "type";
    for (const sig_param *p = SIG_PARAMS; p < SIG_END; p++)
        if (p->type == t) keys[n++] = p->key;
    if (t == STSL_SIG_TABLE) {
        keys[n++] = "file";
        keys[n++] = "interpolation";
    }
    keys[n] = NULL;
}

static int table_signal(const stsl_cr_map *m, stsl_interp def, stsl_signal_spec *s)
{
    char path[KEYPATH_MAX];
    const char *file = NULL; /* set when rc is 0; -O2 cannot see that */
    int interp, id = stsl_cr_map_find(m, "file");
    stsl_cr_join(path, m->path, "file");
    if (!id) return stsl_cr_fail(m->c, m->id, path, "missing required key (a file name)");
    int rc = stsl_cr_node_str(m->c, id, path, &file);
    if (!rc) rc = stsl_cr_map_enum(m, "interpolation", INTERP_NAMES, (int)def, &interp);
    if (!rc) rc = resolve_path(m->c, id, path, file, s->file);
    if (rc) return rc;
    s->interpolation = (stsl_interp)interp;
    return read_table(m->c, id, path, s);
}

static int signal_kind(stsl_cr_ctx *c, int id, const char *path, int *t)
{
    char tpath[KEYPATH_MAX], list[256];
    stsl_cr_map raw = {.c = c, .id = id};
    int tid = stsl_cr_map_find(&raw, "type");
    stsl_cr_join(tpath, path, "type");
    stsl_cr_list_names(SIGNAL_NAMES, list, sizeof list);
    if (!tid) return stsl_cr_fail(c, id, tpath, "missing required key (one of: %s)", list);
    snprintf(raw.path, sizeof raw.path, "%s", path);
    return stsl_cr_map_enum(&raw, "type", SIGNAL_NAMES, 0, t);
}

int stsl_cr_load_signal(stsl_cr_ctx *c, int id, const char *path, stsl_interp def,
                        stsl_signal_spec *s)
{
    char got[64];
    const char *keys[8];
    int t = 0;
    stsl_cr_map m;
    yaml_node_t *n = stsl_cr_node_at(c, id);
    if (n->type != YAML_MAPPING_NODE)
        return stsl_cr_fail(c, id, path, "expected a signal mapping with a 'type' key (got %s)",
                            stsl_cr_describe(n, got, sizeof got));
    int rc = signal_kind(c, id, path, &t);
    if (rc) return rc;
    signal_keys((stsl_signal_type)t, keys);
    rc = stsl_cr_map_open(c, id, path, keys, &m);
    memset(s, 0, sizeof *s);
    s->type = (stsl_signal_type)t;
    for (const sig_param *p = SIG_PARAMS; !rc && p < SIG_END; p++)
        if (p->type == s->type)
            rc =
                stsl_cr_map_num(&m, p->key, p->required, 0.0, p->r, (double *)((char *)s + p->off));
    if (!rc && s->type == STSL_SIG_TABLE) rc = table_signal(&m, def, s);
    return rc;
}

/* The stop models' name table. */
#define STOP_MODEL_NAMES (stsl_stop_model_names())
#define LAW_NAMES        (stsl_law_names())

/* A parameter of a smooth law: the seed's name, where it goes, its range. */

#define LP(k, req, def, r)                                                                         \
    {                                                                                              \
#k, offsetof(stsl_friction_params, k), req, def, r                                         \
    }
static const stsl_cr_param P_SIMSCAPE[] = {LP(breakaway, 1, 0, &stsl_cr_nonneg),
                                           LP(coulomb, 1, 0, &stsl_cr_nonneg),
                                           LP(breakaway_velocity, 1, 0, &stsl_cr_pos),
                                           LP(viscous, 0, 0, &stsl_cr_nonneg),
                                           {NULL, 0, 0, 0, NULL}};
static const stsl_cr_param P_20SIM_C[] = {
    LP(tc, 1, 0, &stsl_cr_nonneg), LP(slope, 1, 0, &stsl_cr_pos), {NULL, 0, 0, 0, NULL}};
static const stsl_cr_param P_20SIM_V[] = {LP(d, 1, 0, &stsl_cr_nonneg), {NULL, 0, 0, 0, NULL}};
static const stsl_cr_param P_20SIM_CV[] = {LP(tc, 1, 0, &stsl_cr_nonneg),
                                           LP(slope, 1, 0, &stsl_cr_pos),
                                           LP(d, 1, 0, &stsl_cr_nonneg),
                                           {NULL, 0, 0, 0, NULL}};
static const stsl_cr_param P_20SIM_SCVS[] = {
    LP(tc, 1, 0, &stsl_cr_nonneg), LP(tst, 1, 0, &stsl_cr_nonneg), LP(slope, 1, 0, &stsl_cr_pos),
    LP(v_st, 1, 0, &stsl_cr_pos),  LP(d, 0, 0, &stsl_cr_nonneg),   {NULL, 0, 0, 0, NULL}};
/* LuGre divides by g(w) >= Tc: Tc must be > 0. */
static const stsl_cr_param P_LUGRE[] = {
    LP(tc, 1, 0, &stsl_cr_pos),   LP(tst, 1, 0, &stsl_cr_nonneg), LP(v_st, 1, 0, &stsl_cr_pos),
    LP(d, 0, 0, &stsl_cr_nonneg), LP(sigma0, 1, 0, &stsl_cr_pos), LP(sigma1, 0, 0, &stsl_cr_nonneg),
    {NULL, 0, 0, 0, NULL}};
#undef LP

/* Index = stsl_law; the hybrid laws have none. */
static const stsl_cr_param *const LAW_PARAMS[] = {
    [STSL_LAW_SIMSCAPE] = P_SIMSCAPE,     [STSL_LAW_20SIM_C] = P_20SIM_C,
    [STSL_LAW_20SIM_V] = P_20SIM_V,       [STSL_LAW_20SIM_CV] = P_20SIM_CV,
    [STSL_LAW_20SIM_SCVS] = P_20SIM_SCVS, [STSL_LAW_LUGRE] = P_LUGRE};

const stsl_cr_param *stsl_cr_law_params(stsl_law law)
{
    return (unsigned)law < sizeof LAW_PARAMS / sizeof *LAW_PARAMS ? LAW_PARAMS[law] : NULL;
}

/* `static` (a force) is the friendlier spelling of static_ratio; it only
 * means something when there is a dynamic level to divide by. */
static int load_static(const stsl_cr_map *m, stsl_friction_params *f)
{
    char path[KEYPATH_MAX];
    int sr = stsl_cr_map_find(m, "static_ratio"), st = stsl_cr_map_find(m, "static");
    stsl_cr_join(path, m->path, "static");
    if (sr && st)
        return stsl_cr_fail(m->c, st, path, "give either %s.static or %s.static_ratio, not both",
                            m->path, m->path);
    /* Which one was given is kept: a later dynamic level keeps it. */
    f->static_given = st ? STSL_STATIC_FORCE : sr ? STSL_STATIC_RATIO : STSL_STATIC_DEFAULT;
    if (!st) return stsl_key_read(m, "static_ratio", &f->static_ratio, NULL);
    if (!(f->dynamic > 0.0))
        return stsl_cr_fail(m->c, st, path,
                            "needs %s.dynamic > 0 (use static_ratio when dynamic is 0)", m->path);
    stsl_cr_range r = {f->dynamic, HUGE_VAL, 0, 1, NULL, 0.0};
    int rc = node_num(m->c, st, path, &r, &f->static_force);
    if (!rc) f->static_ratio = f->static_force / f->dynamic;
    return rc;
}

static int load_stribeck(const stsl_cr_map *m, stsl_friction_params *f)
{
    static const char *const keys[] = {"stribeck_velocity", "stribeck_exponent"};
    f->stribeck_exponent = 2.0;
    if (f->law != STSL_LAW_STRIBECK) return STSL_OK;
    int rc = stsl_key_read(m, keys[0], &f->stribeck_velocity, NULL);
    return rc ? rc : stsl_key_read(m, keys[1], &f->stribeck_exponent, NULL);
}

/* A level that cannot lie below another one (static >= Coulomb). */
static int not_below(const stsl_cr_map *m, const char *key, double v, const char *other, double o)
{
    char path[KEYPATH_MAX];
    stsl_cr_join(path, m->path, key);
    return v < o ? stsl_cr_fail(m->c, stsl_cr_map_find(m, key), path,
                                "must be >= %s.%s (got %g < %g)", m->path, other, v, o)
                 : STSL_OK;
}

/* A smooth law's static (breakaway) level and the Coulomb level it cannot
 * lie below: their keys and values; 0 when the law has no static level. */
static int levels(const stsl_friction_params *f, const char *key[2], double v[2])
{
    int simscape = f->law == STSL_LAW_SIMSCAPE;
    key[0] = simscape ? "breakaway" : "tst";
    key[1] = simscape ? "coulomb" : "tc";
    v[0] = simscape ? f->breakaway : f->tst;
    v[1] = simscape ? f->coulomb : f->tc;
    return simscape || f->law == STSL_LAW_20SIM_SCVS || f->law == STSL_LAW_LUGRE;
}

int stsl_cr_law_levels_ok(const stsl_friction_params *f)
{
    const char *key[2];
    double v[2];
    return !levels(f, key, v) || !(v[0] < v[1]);
}

/* The smooth laws take their seed's parameters, nothing else. */
static int load_smooth(const stsl_cr_map *m, stsl_friction_params *f)
{
    const stsl_cr_param *lp = stsl_cr_law_params(f->law);
    const char *key[2];
    double v[2];
    int rc = STSL_OK;
    for (; !rc && lp->key; lp++)
        rc = stsl_cr_map_num(m, lp->key, lp->required, lp->def, lp->r,
                             (double *)((char *)f + lp->off));
    if (!rc && levels(f, key, v)) rc = not_below(m, key[0], v[0], key[1], v[1]);
    f->static_ratio = f->eff_opposing = f->eff_aiding = 1.0;
    f->stribeck_exponent = 2.0;
    return rc;
}

int stsl_cr_friction(const stsl_cr_map *m, stsl_friction_params *f)
{
    int law = STSL_LAW_COULOMB;
    int rc = stsl_cr_map_enum(m, "law", LAW_NAMES, STSL_LAW_COULOMB, &law);
    f->law = (stsl_law)law;
    /* The keys of other laws first: the message names the law in use. */
    if (!rc) rc = stsl_key_refuse_others(m, "friction", f, "law", LAW_NAMES[law]);
    if (!rc && stsl_law_is_smooth(f->law)) return load_smooth(m, f);
    if (!rc) rc = stsl_key_read(m, "dynamic", &f->dynamic, NULL);
    if (!rc) rc = load_static(m, f);
    if (!rc) rc = stsl_key_read(m, "efficiency_opposing", &f->eff_opposing, NULL);
    if (!rc) rc = stsl_key_read(m, "efficiency_aiding", &f->eff_aiding, NULL);
    if (!rc) rc = load_stribeck(m, f);
    return rc;
}

int stsl_cr_stop(const stsl_cr_map *m, stsl_system_stop *st)
{
    char path[KEYPATH_MAX];
    stsl_stop_params *p = &st->p;
    int mod = STSL_STOP_RIGID;
    int rc = stsl_cr_map_enum(m, "model", STOP_MODEL_NAMES, STSL_STOP_RIGID, &mod);
    st->model = (stsl_stop_model)mod;
    /* The other model's keys are refused, the model's numbers read. */
    if (!rc) rc = stsl_key_refuse_others(m, "end_stops", st, "model", STOP_MODEL_NAMES[mod]);
    if (!rc) rc = stsl_key_read_all(m, st);
    stsl_cr_join(path, m->path, "max");
    if (!rc && !(p->x_min < p->x_max))
        rc = stsl_cr_fail(m->c, stsl_cr_map_find(m, "max"), path,
                          "must be > %s.min (got min %g, max %g)", m->path, p->x_min, p->x_max);
    return rc;
}

/* The friction parameters as YAML pairs, each as `pre`KEY: VALUE`post`. */
void stsl_cr_put_friction(FILE *f, const stsl_friction_params *fr, const char *pre,
                          const char *post)
{
    fprintf(f, "%slaw: %s%s", pre, LAW_NAMES[fr->law], post);
    stsl_key_put(f, NULL, "friction", fr, pre, post, 0);
}

/* A YAML double-quoted string: any path survives the round trip. */
void stsl_cr_put_quoted(FILE *f, const char *s)
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

void stsl_cr_put_signal(FILE *f, const char *indent, const char *key, const stsl_signal_spec *s)
{
    fprintf(f, "%s%s: {type: %s", indent, key, SIGNAL_NAMES[known(s->type)]);
    for (const sig_param *p = SIG_PARAMS; p < SIG_END; p++)
        if (p->type == known(s->type))
            fprintf(f, ", %s: %.17g", p->key, *(const double *)((const char *)s + p->off));
    if (s->type == STSL_SIG_TABLE) {
        /* Absolute: the effective configuration (a result's /config) must
         * name the same table from any working directory. */
        char abs[PATH_MAX];
        fputs(", file: ", f);
        stsl_cr_put_quoted(f, s->file[0] != '/' && realpath(s->file, abs) ? abs : s->file);
        fprintf(f, ", interpolation: %s", INTERP_NAMES[s->interpolation == STSL_INTERP_CUBIC]);
    }
    fputs("}\n", f);
}

/* ---------------------------------------------------------------- slots */

double *stsl_cr_signal_slot(stsl_signal_spec *s, const char *name, const stsl_cr_range **r)
{
    for (const sig_param *p = SIG_PARAMS; p < SIG_END; p++)
        if (p->type == known(s->type) && !strcmp(p->key, name)) {
            *r = p->r;
            return (double *)((char *)s + p->off);
        }
    return NULL;
}
