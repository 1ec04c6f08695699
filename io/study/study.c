/* study.c - the batch study file and its expansion into variants (see
 * study.h).  The file is loaded with libyaml's document API, which keeps the
 * line of every node for the messages; the variants are computed on demand
 * from the per-key value lists (grid, zip) or from the sample matrix drawn
 * once (Latin hypercube). */
#include "io/study/study.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <yaml.h>

#include "io/config/text_input.h"

#define PATH_TEXT_MAX 4096
#define KEY_MAX       256
/* Quoted input is cut here so that a message stays one readable line. */
#define SHOW_MAX 48

typedef struct vkey {
    char name[KEY_MAX];
    int line;
    double *vals; /* grid / zip: the key's values */
    long n;
    double lo, hi; /* latin hypercube: the range */
} vkey;

struct stsl_study {
    char *text;      /* the study file as read */
    char *base_text; /* the base configuration's YAML */
    char origin[PATH_TEXT_MAX], base_origin[PATH_TEXT_MAX], base_dir[PATH_TEXT_MAX];
    stsl_combine combine;
    stsl_store store;
    int n_keys;
    vkey keys[STSL_STUDY_MAX_KEYS];
    long n_variants;
    unsigned long seed;
    double *sample; /* latin hypercube: n_variants x n_keys, row-major */
};

typedef struct ctx {
    yaml_document_t doc;
    const char *origin;
    const char *base_dir; /* resolves a base path ("" or NULL: as given) */
    stsl_study *s;
    stsl_error *err;
} ctx;

static const char *const TOP_KEYS[] = {"description", "base",  "vary", "combine",
                                       "sample",      "store", NULL};
static const char *const SPACE_KEYS[] = {"linspace", "logspace", "values", NULL};
static const char *const SAMPLE_KEYS[] = {"method", "n", "seed", "ranges", NULL};
static const char *const COMBINE_NAMES[] = {"grid", "zip", NULL};
static const char *const METHOD_NAMES[] = {"latin_hypercube", NULL};
static const char *const STORE_NAMES[] = {"summary", "events", "full", NULL};

/* ---------------------------------------------------------------- errors */

static yaml_node_t *node(ctx *c, int id)
{
    return yaml_document_get_node(&c->doc, id);
}

static int fail(ctx *c, int id, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(ctx *c, int id, const char *path, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    yaml_node_t *n = id ? node(c, id) : NULL;
    long line = n ? (long)n->start_mark.line + 1 : 1;
    stsl_error_set(c->err, STSL_EINPUT, "%s:%ld: %s: %s", c->origin, line,
                   *path ? path : "(top level)", what);
    if (c->err)
        for (char *p = c->err->msg; *p; p++)
            if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    return STSL_EINPUT;
}

/* How a node looks, for "expected X (got Y)". */
static const char *describe(const yaml_node_t *n, char *buf, size_t size)
{
    if (n->type == YAML_MAPPING_NODE) return "a mapping";
    if (n->type == YAML_SEQUENCE_NODE) return "a sequence";
    const char *v = (const char *)n->data.scalar.value;
    if (!*v) return "nothing";
    snprintf(buf, size, "'%.*s%s'", SHOW_MAX, v, strlen(v) > SHOW_MAX ? "..." : "");
    return buf;
}

static void join(char *buf, size_t size, const char *a, const char *b)
{
    if (snprintf(buf, size, "%s%s%s", a, *a ? "." : "", b) >= (int)size) buf[size - 1] = '\0';
}

static const char *names_text(const char *const *names, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; names[i] && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", names[i]);
    return buf;
}

/* --------------------------------------------------------------- mappings */

static const char *scalar(ctx *c, int id)
{
    yaml_node_t *n = node(c, id);
    return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* Check that `id` is a mapping with plain, unique keys from `allowed`
 * (NULL: any key). */
static int check_map(ctx *c, int id, const char *path, const char *const *allowed)
{
    char got[64], sub[KEY_MAX], list[256];
    yaml_node_t *n = node(c, id);
    if (n->type != YAML_MAPPING_NODE)
        return fail(c, id, path, "expected a mapping (got %s)", describe(n, got, sizeof got));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        const char *k = scalar(c, p->key);
        if (!k) return fail(c, p->key, path, "keys must be plain names, not collections");
        join(sub, sizeof sub, path, k);
        int known = !allowed;
        for (int i = 0; allowed && allowed[i]; i++)
            known |= strcmp(k, allowed[i]) == 0;
        if (!known)
            return fail(c, p->key, sub, "unknown key (allowed: %s)",
                        names_text(allowed, list, sizeof list));
        for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < p; q++)
            if (strcmp(scalar(c, q->key), k) == 0)
                return fail(c, p->key, sub, "duplicate key (first given on line %ld)",
                            (long)node(c, q->key)->start_mark.line + 1);
    }
    return STSL_OK;
}

static int find(ctx *c, int map, const char *key)
{
    yaml_node_t *n = node(c, map);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
        if (strcmp(scalar(c, p->key), key) == 0) return p->value;
    return 0;
}

/* ---------------------------------------------------------------- scalars */

/* A number is a plain scalar that strtod consumes entirely and is finite. */
static int num(ctx *c, int id, const char *path, double *out)
{
    char got[64];
    yaml_node_t *n = node(c, id);
    const char *s = scalar(c, id);
    char *end = NULL;
    errno = 0;
    double v = s ? strtod(s, &end) : 0.0;
    if (!s || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || end == s || *end)
        return fail(c, id, path, "expected a number (got %s)", describe(n, got, sizeof got));
    if (!isfinite(v))
        return fail(c, id, path, "must be a finite number (got %s)", describe(n, got, sizeof got));
    /* strtod gives 0 or a subnormal for 1e-400 with ERANGE: not the
     * number written. */
    if (errno == ERANGE)
        return fail(c, id, path, "%s underflows: nonzero magnitudes must be at least %.4g",
                    describe(n, got, sizeof got), DBL_MIN);
    *out = v;
    return STSL_OK;
}

/* A whole number in [lo, hi]. */
static int count(ctx *c, int id, const char *path, double lo, double hi, long *out)
{
    double v;
    int rc = num(c, id, path, &v);
    if (rc) return rc;
    if (v != floor(v) || v < lo || v > hi)
        return fail(c, id, path, "must be a whole number in [%.0f, %.0f] (got %s)", lo, hi,
                    scalar(c, id));
    *out = (long)v;
    return STSL_OK;
}

static int pick(ctx *c, int id, const char *path, const char *const *names, int *out)
{
    char got[64], list[256];
    const char *s = scalar(c, id);
    for (int i = 0; s && names[i]; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return STSL_OK;
        }
    return fail(c, id, path, "must be one of: %s (got %s)", names_text(names, list, sizeof list),
                describe(node(c, id), got, sizeof got));
}

/* A sequence of exactly `n` items (n < 0: at least one); *items points at
 * its node ids. */
static int seq(ctx *c, int id, const char *path, int n, const char *what, yaml_node_item_t **items,
               int *len)
{
    char got[64];
    yaml_node_t *s = node(c, id);
    if (s->type != YAML_SEQUENCE_NODE)
        return fail(c, id, path, "expected %s (got %s)", what, describe(s, got, sizeof got));
    *items = s->data.sequence.items.start;
    *len = (int)(s->data.sequence.items.top - s->data.sequence.items.start);
    if ((n >= 0 && *len != n) || (n < 0 && *len == 0))
        return fail(c, id, path, "expected %s (got %d item%s)", what, *len, *len == 1 ? "" : "s");
    return STSL_OK;
}

/* --------------------------------------------------------------- the keys */

/* A configuration key path: names separated by single dots. */
static int key_name(ctx *c, int id, const char *path, vkey *k)
{
    const char *s = scalar(c, id);
    size_t n = strlen(s);
    int ok = n > 0 && n < KEY_MAX && s[0] != '.' && s[n - 1] != '.' && !strstr(s, "..");
    for (size_t i = 0; ok && i < n; i++)
        ok = s[i] > ' ' && s[i] != '=' && s[i] < 0x7f;
    if (!ok)
        return fail(c, id, path,
                    "not a configuration key path (names separated by dots, e.g. "
                    "friction.dynamic)");
    memcpy(k->name, s, n + 1);
    k->line = (int)node(c, id)->start_mark.line + 1;
    return STSL_OK;
}

/* variants x keys parameter values (/study/parameters; a Latin hypercube's
 * sample in memory) within STSL_STUDY_MAX_VALUES. */
static int max_values(ctx *c, int id, const char *path, long variants, int keys)
{
    if (variants <= STSL_STUDY_MAX_VALUES / keys) return STSL_OK;
    return fail(c, id, path,
                "%ld variants x %d keys = %.4g parameter values, more than %ld (the study limit)",
                variants, keys, (double)variants * keys, STSL_STUDY_MAX_VALUES);
}

/* The bounds a key's `n` values must keep, checked before they are
 * allocated: a grid's product within STSL_STUDY_MAX_VARIANTS (compared by
 * division: the product may overflow), and variants x keys so far within
 * STSL_STUDY_MAX_VALUES.  The keys so far hold at most that many values
 * together, so a few lines cannot make the loader allocate more. */
static int admit(ctx *c, int id, const char *path, long n)
{
    stsl_study *s = c->s;
    int j = s->n_keys - 1; /* this key */
    long prod = 1;
    char dims[256] = "";
    int grid = s->combine == STSL_COMBINE_GRID;
    for (int i = 0; i <= j; i++) {
        long ni = i < j ? s->keys[i].n : n;
        size_t at = strlen(dims);
        snprintf(dims + at, sizeof dims - at, "%s%ld", i ? " x " : "", ni);
        /* Only a grid multiplies its counts; the earlier keys' product is
         * within the limit (each was admitted), so it cannot overflow.  A
         * zip's counts are each bounded alone and never multiplied. */
        if (grid && i < j) prod *= ni;
    }
    if (grid && n > STSL_STUDY_MAX_VARIANTS / prod)
        return fail(c, id, path,
                    "the grid would have %.4g variants (%s), more than %ld (the study limit)",
                    (double)prod * (double)n, dims, STSL_STUDY_MAX_VARIANTS);
    return max_values(c, id, path, grid ? prod * n : n, j + 1);
}

static int alloc_vals(ctx *c, int id, const char *path, vkey *k, long n)
{
    int rc = admit(c, id, path, n);
    if (rc) return rc;
    k->vals = malloc((size_t)n * sizeof *k->vals);
    k->n = n;
    return k->vals ? STSL_OK : fail(c, id, path, "out of memory for %ld values", n);
}

/* A generated value must be the finite, normal number the file asks for:
 * stop - start beyond the largest double gives inf, and 10^e below the
 * smallest normal double a subnormal or 0 that no one wrote. */
static int generated(ctx *c, int id, const char *path, int is_log, double e, double v)
{
    if (!is_log && !isfinite(v))
        return fail(c, id, path,
                    "stop - start exceeds the largest double (%.4g): give a narrower "
                    "range",
                    DBL_MAX);
    if (is_log && !isfinite(v))
        return fail(c, id, path,
                    "10^%g exceeds the largest double (%.4g): exponents must be at "
                    "most %.4g",
                    e, DBL_MAX, log10(DBL_MAX));
    if (is_log && v < DBL_MIN)
        return fail(c, id, path,
                    "10^%g underflows below the smallest normal double (%.4g): "
                    "exponents must be at least %.4g",
                    e, DBL_MIN, log10(DBL_MIN));
    return STSL_OK;
}

/* linspace / logspace [a, b, n]. */
static int spaced(ctx *c, int id, const char *path, int is_log, vkey *k)
{
    char sub[KEY_MAX];
    yaml_node_item_t *it;
    int len;
    double a, b;
    long n = 0; /* set by count(); 0 keeps -O2 from seeing it unset */
    int rc = seq(c, id, path, 3, "[start, stop, count]", &it, &len);
    if (!rc) rc = num(c, it[0], path, &a);
    if (!rc) rc = num(c, it[1], path, &b);
    join(sub, sizeof sub, path, "count");
    if (!rc) rc = count(c, it[2], sub, 1, STSL_STUDY_MAX_VARIANTS, &n);
    if (!rc) rc = alloc_vals(c, id, path, k, n);
    for (long i = 0; !rc && i < n; i++) {
        /* The last point is b exactly, not a + (b - a) rounded. */
        double e = i == n - 1 && n > 1 ? b : a + (b - a) * (double)i / (double)(n > 1 ? n - 1 : 1);
        k->vals[i] = is_log ? pow(10.0, e) : e;
        rc = generated(c, id, path, is_log, e, k->vals[i]);
    }
    return rc;
}

static int listed(ctx *c, int id, const char *path, vkey *k)
{
    yaml_node_item_t *it;
    int len;
    int rc = seq(c, id, path, -1, "a list of numbers", &it, &len);
    if (!rc) rc = alloc_vals(c, id, path, k, len);
    for (int i = 0; !rc && i < len; i++)
        rc = num(c, it[i], path, &k->vals[i]);
    return rc;
}

/* One `vary` entry: {linspace: ...} | {logspace: ...} | {values: ...}. */
static int vary_key(ctx *c, yaml_node_pair_t *p, vkey *k)
{
    char path[KEY_MAX], sub[KEY_MAX];
    join(path, sizeof path, "vary", scalar(c, p->key));
    int rc = key_name(c, p->key, path, k);
    if (!rc) rc = check_map(c, p->value, path, SPACE_KEYS);
    if (rc) return rc;
    yaml_node_t *m = node(c, p->value);
    if (m->data.mapping.pairs.top - m->data.mapping.pairs.start != 1)
        return fail(c, p->value, path, "give exactly one of linspace, logspace, values");
    yaml_node_pair_t *q = m->data.mapping.pairs.start;
    const char *how = scalar(c, q->key);
    join(sub, sizeof sub, path, how);
    if (strcmp(how, "values") == 0) return listed(c, q->value, sub, k);
    return spaced(c, q->value, sub, strcmp(how, "logspace") == 0, k);
}

/* Each key of the mapping `id` (vary, sample.ranges), read by `one`. */
static int key_list(ctx *c, int id, const char *path, const char *what, const char *example,
                    int (*one)(ctx *, yaml_node_pair_t *, vkey *))
{
    char got[64];
    stsl_study *s = c->s;
    yaml_node_t *m = node(c, id);
    /* A list (keys written with "- ") or nothing: say what the mapping holds. */
    if (m->type != YAML_MAPPING_NODE)
        return fail(c, id, path, "expected a mapping of key paths%s, e.g. {%s} (got %s)", what,
                    example, describe(m, got, sizeof got));
    int rc = check_map(c, id, path, NULL);
    if (rc) return rc;
    long n = (long)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
    if (n == 0)
        return fail(c, id, path, "expected at least one key%s, e.g. {%s} (got an empty mapping)",
                    what, example);
    if (n > STSL_STUDY_MAX_KEYS)
        return fail(c, id, path, "at most %d keys (got %ld)", STSL_STUDY_MAX_KEYS, n);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; !rc && p < m->data.mapping.pairs.top;
         p++)
        rc = one(c, p, &s->keys[s->n_keys++]);
    return rc;
}

/* n_variants of a grid (product, refused past the maximum) or a zip. */
static int vary_count(ctx *c, int id)
{
    stsl_study *s = c->s;
    long n = 1;
    for (int j = 0; j < s->n_keys; j++) {
        if (s->combine == STSL_COMBINE_ZIP && s->keys[j].n != s->keys[0].n)
            return fail(c, id, "combine",
                        "zip needs lists of one length (%s has %ld values, %s has %ld)",
                        s->keys[0].name, s->keys[0].n, s->keys[j].name, s->keys[j].n);
        /* Within STSL_STUDY_MAX_VARIANTS: admit() checked each key. */
        n = s->combine == STSL_COMBINE_GRID ? n * s->keys[j].n : s->keys[0].n;
    }
    s->n_variants = n;
    return STSL_OK;
}

/* --------------------------------------------------------------- sampling */

static int draw(ctx *c, int id)
{
    stsl_study *s = c->s;
    long n = s->n_variants;
    int k = s->n_keys;
    s->sample = malloc((size_t)n * (size_t)k * sizeof *s->sample);
    long *perm = malloc((size_t)n * sizeof *perm);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = STSL_OK;
    if (!s->sample || !perm || !r) {
        rc = fail(c, id, "sample.n", "out of memory for %ld x %d samples", n, k);
        goto out;
    }
    gsl_rng_set(r, s->seed);
    for (int j = 0; j < k; j++) {
        for (long i = 0; i < n; i++)
            perm[i] = i;
        gsl_ran_shuffle(r, perm, (size_t)n, sizeof *perm);
        const vkey *key = &s->keys[j];
        for (long i = 0; i < n; i++) {
            double u = gsl_rng_uniform(r);
            s->sample[i * k + j] =
                key->lo + (key->hi - key->lo) * ((double)perm[i] + u) / (double)n;
        }
    }
out:
    gsl_rng_free(r);
    free(perm);
    return rc;
}

static int range_key(ctx *c, yaml_node_pair_t *p, vkey *k)
{
    char path[KEY_MAX];
    yaml_node_item_t *it;
    int len;
    join(path, sizeof path, "sample.ranges", scalar(c, p->key));
    int rc = key_name(c, p->key, path, k);
    if (!rc) rc = seq(c, p->value, path, 2, "[low, high]", &it, &len);
    if (!rc) rc = num(c, it[0], path, &k->lo);
    if (!rc) rc = num(c, it[1], path, &k->hi);
    if (!rc && !(k->lo <= k->hi))
        return fail(c, p->value, path, "low must not exceed high (got [%g, %g])", k->lo, k->hi);
    if (!rc && !isfinite(k->hi - k->lo))
        return fail(c, p->value, path,
                    "high - low exceeds the largest double (%.4g): give a narrower range", DBL_MAX);
    return rc;
}

static int sample(ctx *c, int id)
{
    stsl_study *s = c->s;
    int method, rc = check_map(c, id, "sample", SAMPLE_KEYS);
    int m_id = rc ? 0 : find(c, id, "method"), n_id = m_id ? find(c, id, "n") : 0;
    int r_id = n_id ? find(c, id, "ranges") : 0, seed_id = find(c, id, "seed");
    long seed = 0;
    if (!rc && !m_id) return fail(c, id, "sample.method", "missing required key (latin_hypercube)");
    if (!rc && !n_id) return fail(c, id, "sample.n", "missing required key (number of variants)");
    if (!rc && !r_id)
        return fail(c, id, "sample.ranges", "missing required key (key: [low, high])");
    if (!rc) rc = pick(c, m_id, "sample.method", METHOD_NAMES, &method);
    if (!rc) rc = count(c, n_id, "sample.n", 1, STSL_STUDY_MAX_VARIANTS, &s->n_variants);
    /* MT19937 takes an unsigned long seed; 2^32 - 1 is portable. */
    if (!rc && seed_id) rc = count(c, seed_id, "sample.seed", 0, 4294967295.0, &seed);
    if (!rc)
        rc = key_list(c, r_id, "sample.ranges", ": [low, high]", "friction.dynamic: [0.5, 2]",
                      range_key);
    if (!rc) rc = max_values(c, n_id, "sample.n", s->n_variants, s->n_keys);
    if (rc) return rc;
    s->seed = (unsigned long)seed;
    s->combine = STSL_COMBINE_LATIN_HYPERCUBE;
    return rc ? rc : draw(c, id);
}

/* ------------------------------------------------------------------- base */

static void dir_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 0;
    if (n >= size) n = size - 1;
    memcpy(dir, path, n);
    dir[n] = '\0';
}

static int base_path(ctx *c, int id)
{
    stsl_study *s = c->s;
    const char *p = scalar(c, id);
    int n = *p == '/' || !c->base_dir || !*c->base_dir
                ? snprintf(s->base_origin, sizeof s->base_origin, "%s", p)
                : snprintf(s->base_origin, sizeof s->base_origin, "%s/%s", c->base_dir, p);
    if (!*p) return fail(c, id, "base", "expected a configuration file or mapping (got nothing)");
    if (n >= (int)sizeof s->base_origin) return fail(c, id, "base", "path too long");
    dir_of(s->base_origin, s->base_dir, sizeof s->base_dir);
    /* The base is a configuration: read under the configuration's bounds. */
    stsl_error e;
    size_t len;
    if (stsl_text_read(s->base_origin, &stsl_config_limits, &s->base_text, &len, &e))
        return fail(c, id, "base", "%s", e.msg);
    return STSL_OK;
}

/* Byte offset of (line, column) in text; columns count characters. */
static size_t offset_of(const char *text, size_t line, size_t col)
{
    size_t i = 0;
    for (size_t l = 0; l < line && text[i]; i++)
        if (text[i] == '\n') l++;
    for (size_t k = 0; k < col && text[i] && text[i] != '\n'; k++)
        for (i++; ((unsigned char)text[i] & 0xC0) == 0x80; i++) {
        }
    return i;
}

/* An inline base: its own text, padded with as many newlines and spaces
 * as precede it so that the configuration's messages carry the study
 * file's line numbers. */
static int base_inline(ctx *c, int id)
{
    stsl_study *s = c->s;
    yaml_node_t *n = node(c, id);
    size_t line = n->start_mark.line, col = n->start_mark.column;
    size_t a = offset_of(s->text, line, col);
    size_t b = offset_of(s->text, n->end_mark.line, n->end_mark.column);
    s->base_text = malloc(line + col + (b - a) + 2);
    if (!s->base_text) return fail(c, id, "base", "out of memory");
    memset(s->base_text, '\n', line);
    memset(s->base_text + line, ' ', col);
    memcpy(s->base_text + line + col, s->text + a, b - a);
    strcpy(s->base_text + line + col + (b - a), "\n");
    snprintf(s->base_origin, sizeof s->base_origin, "%s", c->origin);
    snprintf(s->base_dir, sizeof s->base_dir, "%s", c->base_dir ? c->base_dir : "");
    return STSL_OK;
}

static int base(ctx *c, int top)
{
    char got[64];
    int id = find(c, top, "base");
    if (!id) return fail(c, top, "base", "missing required key (a configuration file or mapping)");
    yaml_node_t *n = node(c, id);
    if (n->type == YAML_MAPPING_NODE) return base_inline(c, id);
    if (n->type == YAML_SCALAR_NODE) return base_path(c, id);
    return fail(c, id, "base", "expected a configuration file or mapping (got %s)",
                describe(n, got, sizeof got));
}

/* ---------------------------------------------------------------- loading */

static int load_top(ctx *c)
{
    stsl_study *s = c->s;
    yaml_node_t *root = yaml_document_get_root_node(&c->doc);
    if (!root) return fail(c, 0, "", "empty study file (expected base, vary or sample, store)");
    int top = 1, rc = check_map(c, top, "", TOP_KEYS);
    int vary_id = rc ? 0 : find(c, top, "vary"), sample_id = rc ? 0 : find(c, top, "sample");
    int combine_id = rc ? 0 : find(c, top, "combine"), store_id = rc ? 0 : find(c, top, "store");
    int v = 0;
    if (!rc) rc = base(c, top);
    if (!rc && vary_id && sample_id)
        return fail(c, sample_id, "sample", "give either vary (with combine) or sample, not both");
    if (!rc && !vary_id && !sample_id)
        return fail(c, top, "vary", "missing required key: vary (or sample)");
    if (!rc && combine_id && sample_id)
        return fail(c, combine_id, "combine", "applies to vary; sample draws its own variants");
    if (!rc && combine_id) rc = pick(c, combine_id, "combine", COMBINE_NAMES, &v);
    s->combine = (stsl_combine)v;
    if (!rc && store_id) rc = pick(c, store_id, "store", STORE_NAMES, &v);
    s->store = store_id ? (stsl_store)v : STSL_STORE_SUMMARY;
    if (!rc && vary_id)
        rc = key_list(c, vary_id, "vary", " to vary", "friction.dynamic: {linspace: [0.5, 2, 4]}",
                      vary_key);
    if (!rc && vary_id) rc = vary_count(c, combine_id ? combine_id : vary_id);
    if (!rc && sample_id) rc = sample(c, sample_id);
    return rc;
}

static int parse(ctx *c)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) return stsl_error_set(c->err, STSL_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&p, (const unsigned char *)c->s->text, strlen(c->s->text));
    int ok = yaml_parser_load(&p, &c->doc);
    if (!ok)
        stsl_error_set(c->err, STSL_EINPUT, "%s:%ld: (top level): YAML syntax error: %s", c->origin,
                       (long)p.problem_mark.line + 1, p.problem ? p.problem : "unreadable");
    yaml_parser_delete(&p);
    if (!ok) return STSL_EINPUT;
    int rc = load_top(c);
    yaml_document_delete(&c->doc);
    return rc;
}

static int load_owned(char *text, const char *origin, const char *base_dir, stsl_study **out,
                      stsl_error *err)
{
    *out = NULL;
    stsl_study *s = calloc(1, sizeof *s);
    if (!s) {
        free(text);
        return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    }
    s->text = text;
    snprintf(s->origin, sizeof s->origin, "%s", origin);
    ctx c = {.origin = s->origin, .base_dir = base_dir, .s = s, .err = err};
    int rc = parse(&c);
    if (rc) {
        stsl_study_free(s);
        return rc;
    }
    *out = s;
    return STSL_OK;
}

int stsl_study_load(const char *path, stsl_study **out, stsl_error *err)
{
    char dir[PATH_TEXT_MAX];
    *out = NULL;
    char *text = NULL;
    size_t len;
    /* Bounded, no NUL, valid UTF-8 (with the line), nesting, no BOM. */
    int rc = stsl_text_read(path, &stsl_study_limits, &text, &len, err);
    if (rc) return rc;
    dir_of(path, dir, sizeof dir);
    return load_owned(text, path, dir, out, err);
}

int stsl_study_load_string(const char *text, const char *origin, const char *base_dir,
                           stsl_study **out, stsl_error *err)
{
    const char *where = origin && *origin ? origin : "<string>";
    size_t start = 0;
    *out = NULL;
    int rc = stsl_text_check(where, text, strlen(text), &stsl_study_limits, &start, err);
    if (rc) return rc;
    char *copy = strdup(text + start);
    if (!copy) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    return load_owned(copy, where, base_dir, out, err);
}

void stsl_study_free(stsl_study *s)
{
    if (!s) return;
    for (int j = 0; j < s->n_keys; j++)
        free(s->keys[j].vals);
    free(s->sample);
    free(s->base_text);
    free(s->text);
    free(s);
}

/* ---------------------------------------------------------------- queries */

long stsl_study_n_variants(const stsl_study *s)
{
    return s->n_variants;
}

int stsl_study_n_keys(const stsl_study *s)
{
    return s->n_keys;
}

const char *stsl_study_key(const stsl_study *s, int j)
{
    return s->keys[j].name;
}

int stsl_study_key_line(const stsl_study *s, int j)
{
    return s->keys[j].line;
}

void stsl_study_values(const stsl_study *s, long i, double *vals)
{
    if (s->combine == STSL_COMBINE_LATIN_HYPERCUBE) {
        memcpy(vals, s->sample + i * s->n_keys, (size_t)s->n_keys * sizeof *vals);
        return;
    }
    if (s->combine == STSL_COMBINE_ZIP) {
        for (int j = 0; j < s->n_keys; j++)
            vals[j] = s->keys[j].vals[i];
        return;
    }
    /* Grid: the last key varies fastest. */
    for (int j = s->n_keys - 1; j >= 0; j--) {
        vals[j] = s->keys[j].vals[i % s->keys[j].n];
        i /= s->keys[j].n;
    }
}

stsl_combine stsl_study_combine(const stsl_study *s)
{
    return s->combine;
}

stsl_store stsl_study_store(const stsl_study *s)
{
    return s->store;
}

const char *stsl_store_name(stsl_store store)
{
    return (unsigned)store < 3 ? STORE_NAMES[store] : "?";
}

const char *stsl_study_text(const stsl_study *s)
{
    return s->text;
}

const char *stsl_study_base_text(const stsl_study *s)
{
    return s->base_text;
}

const char *stsl_study_base_origin(const stsl_study *s)
{
    return s->base_origin;
}

const char *stsl_study_base_dir(const stsl_study *s)
{
    return s->base_dir;
}

const char *stsl_study_origin(const stsl_study *s)
{
    return s->origin;
}
