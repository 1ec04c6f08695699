/* run_record.c - see run_record.h. */
#include "io/result/run_record.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The record tags (one byte each). */
enum { R_BEGIN = 'B', R_SAMPLE = 'S', R_EVENT = 'E', R_END = 'Z' };
/* The first block: most runs that are recorded at all have a trajectory. */
#define FIRST_CAP 4096

typedef struct rec_sink {
    unsigned char *buf;
    size_t n, cap;
    size_t n_op;   /* n when the current op began */
    size_t no_cap; /* the capacity that could not be had (0: none) */
    int n_cols, ended;
} rec_sink;

/* ---- writing ----------------------------------------------------------------- */

/* Append; when the block cannot grow, the op's record is dropped whole
 * (op_end reports it). */
static void put(rec_sink *r, const void *v, size_t size)
{
    size_t cap = r->cap ? r->cap : FIRST_CAP;
    while (cap < r->n + size)
        cap *= 2;
    unsigned char *p = r->no_cap || cap == r->cap ? r->buf : realloc(r->buf, cap);
    if (!p && !r->no_cap) r->no_cap = cap;
    if (r->no_cap) return;
    r->buf = p;
    r->cap = cap;
    if (size) memcpy(r->buf + r->n, v, size);
    r->n += size;
}

/* The op's tag, beginning its record. */
static void op_begin(rec_sink *r, unsigned char tag)
{
    r->n_op = r->n;
    put(r, &tag, 1);
}

static int op_end(rec_sink *r, stsl_error *err)
{
    size_t cap = r->no_cap;
    if (!cap) return STSL_OK;
    r->n = r->n_op;
    r->no_cap = 0;
    return stsl_error_set(err, STSL_ENOMEM, "out of memory keeping the run (%zu bytes)", cap);
}

/* ---- the block's values, either way ------------------------------------------ */

/* Writing (w set) appends each value to w's block; reading takes it from p
 * (a block too short or malformed sets bad and reads zeros) into arrays
 * that own() allocates and the replay frees.  So the format of the layout,
 * the events and the end is written once, for both ways. */
typedef struct codec {
    rec_sink *w;
    const unsigned char *p, *end;
    int bad, nomem;
    void **owned;
    int n_owned;
} codec;

static void io(codec *c, void *v, size_t size)
{
    if (c->w) {
        put(c->w, v, size);
    } else if (c->bad || (size_t)(c->end - c->p) < size) {
        c->bad = 1;
        memset(v, 0, size);
    } else {
        memcpy(v, c->p, size);
        c->p += size;
    }
}

/* Written from *v, or read into it (as every io_ function). */
static void io_i32(codec *c, int *v)
{
    int32_t x = c->w ? *v : 0;
    io(c, &x, sizeof x);
    if (!c->w) *v = x;
}

/* Length with its NUL (-1: NULL), then the bytes and the NUL: the replay
 * hands out pointers into the block (NULL for a recorded NULL or a bad
 * block). */
static void io_str(codec *c, const char **s)
{
    int len = c->w && *s ? (int)strlen(*s) + 1 : -1;
    io_i32(c, &len);
    if (c->w) {
        if (*s) put(c->w, *s, (size_t)len);
        return;
    }
    *s = NULL;
    if (c->bad || len < 0) return;
    if (len == 0 || (size_t)(c->end - c->p) < (size_t)len || c->p[len - 1] != '\0') {
        c->bad = 1;
        return;
    }
    *s = (const char *)c->p;
    c->p += len;
}

/* A count of items that each take at least `min_size` bytes of the rest. */
static void io_count(codec *c, int *n, size_t min_size)
{
    io_i32(c, n);
    if (!c->w && (*n < 0 || (size_t)*n > (size_t)(c->end - c->p) / min_size)) c->bad = 1;
    if (c->bad) *n = 0;
}

/* Writing: the array `have` (only read from: io_ functions store only
 * when reading).  Reading: n + 1 zeroed items,
 * freed after the replay; NULL (nomem set) when out of memory. */
static void *own(codec *c, const void *have, int n, size_t size)
{
    if (c->w) return (void *)have;
    void **list = realloc(c->owned, sizeof *list * (size_t)(c->n_owned + 1));
    void *p = list ? calloc((size_t)n + 1, size) : NULL;
    if (list) c->owned = list;
    if (p) c->owned[c->n_owned++] = p;
    c->nomem |= !p;
    return p;
}

static void io_names(codec *c, const char *const **names, int *n)
{
    io_count(c, n, sizeof(int32_t));
    const char **v = own(c, *names, *n, sizeof *v);
    for (int i = 0; v && i < *n; i++)
        io_str(c, &v[i]);
    if (!c->w) *names = v;
}

/* The layout (l is the writer's copy): its columns, time units, mode and
 * kind names, and a system's column groups and event subjects (none for
 * the element). */
static void io_layout(codec *c, stsl_layout *l)
{
    io_count(c, &l->n_cols, 3 * sizeof(int32_t));
    stsl_column *cols = own(c, l->cols, l->n_cols, sizeof *cols);
    for (int i = 0; cols && i < l->n_cols; i++) {
        io_str(c, &cols[i].name);
        io_str(c, &cols[i].units);
        io_str(c, &cols[i].long_name);
    }
    l->cols = cols;
    io_str(c, &l->time_units);
    io_names(c, &l->mode_names, &l->n_modes);
    io_names(c, &l->kind_names, &l->n_kinds);
    io_count(c, &l->n_groups, 5 * sizeof(int32_t));
    stsl_col_group *g = own(c, l->groups, l->n_groups, sizeof *g);
    for (int k = 0; g && k < l->n_groups && !c->bad; k++) {
        io_str(c, &g[k].name);
        io_str(c, &g[k].units);
        io_str(c, &g[k].long_name);
        io_i32(c, &g[k].first);
        io_i32(c, &g[k].integer);
        io_names(c, &g[k].member_names, &g[k].width);
        io_names(c, &g[k].value_names, &g[k].n_value_names);
    }
    l->groups = g;
    io_names(c, &l->subject_names, &l->n_subjects);
}

/* An event (ev the writer's copy), then per side a flag and, when set, its
 * row of `row` bytes: read into rows[0] (before) and rows[1] (after). */
static void io_event(codec *c, stsl_event_rec *ev, double *const *rows, size_t row)
{
    io(c, &ev->t, sizeof ev->t);
    io_i32(c, &ev->kind);
    io_i32(c, &ev->mode_before);
    io_i32(c, &ev->mode_after);
    io_i32(c, &ev->subject);
    if (!c->w && !rows[0]) c->bad = 1; /* an event before begin */
    const double **sides[2] = {&ev->before, &ev->after};
    for (int s = 0; s < 2 && !c->bad; s++) {
        unsigned char flag = c->w && *sides[s];
        io(c, &flag, 1);
        if (c->w && flag) put(c->w, *sides[s], row);
        if (c->w) continue;
        *sides[s] = flag ? rows[s] : NULL;
        if (flag) io(c, rows[s], row);
    }
}

/* The end: whether there are statistics, they (st the writer's copy), the
 * completeness and the message.  A pointer means nothing in a record: a
 * verified run's estimate per column (valid during end() only) is not
 * kept, its largest values are; a record read never has one, not even
 * from a bad block. */
static void io_end(codec *c, unsigned char *has_stats, stsl_stats *st, int *complete,
                   const char **message)
{
    st->err_cols = NULL;
    io(c, has_stats, 1);
    io(c, st, sizeof *st);
    st->err_cols = NULL;
    io_i32(c, complete);
    io_str(c, message);
}

/* ---- the recording sink ------------------------------------------------------ */

static int rec_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    rec_sink *r = self;
    if (l->n_cols < 0 || l->n_modes < 0 || l->n_kinds < 0)
        return stsl_error_set(err, STSL_EINPUT, "run record: invalid layout");
    int rc = stsl_layout_check_groups(l, "run record", err);
    if (rc) return rc;
    codec c = {.w = r};
    stsl_layout copy = *l;
    op_begin(r, R_BEGIN);
    io_layout(&c, &copy);
    r->n_cols = l->n_cols;
    return op_end(r, err);
}

static int rec_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    rec_sink *r = self;
    codec c = {.w = r};
    op_begin(r, R_SAMPLE);
    put(r, &t, sizeof t);
    io_i32(&c, &mode);
    put(r, cols, sizeof(double) * (size_t)r->n_cols);
    return op_end(r, err);
}

static int rec_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    rec_sink *r = self;
    codec c = {.w = r};
    stsl_event_rec copy = *ev;
    op_begin(r, R_EVENT);
    io_event(&c, &copy, NULL, sizeof(double) * (size_t)r->n_cols);
    return op_end(r, err);
}

static int rec_end(void *self, const stsl_stats *st, int complete, const char *message,
                   stsl_error *err)
{
    rec_sink *r = self;
    codec c = {.w = r};
    unsigned char has_stats = st != NULL;
    stsl_stats copy = st ? *st : (stsl_stats){0};
    op_begin(r, R_END);
    io_end(&c, &has_stats, &copy, &complete, &message);
    int rc = op_end(r, err);
    r->ended = !rc;
    return rc;
}

static void rec_destroy(void *self)
{
    rec_sink *r = self;
    if (!r) return;
    free(r->buf);
    free(r);
}

static const stsl_sink_ops rec_ops = {rec_begin, rec_sample, rec_event, rec_end, rec_destroy};

int stsl_record_sink_create(stsl_sink *out, stsl_error *err)
{
    rec_sink *r = calloc(1, sizeof *r);
    if (!r) return stsl_error_set(err, STSL_ENOMEM, "out of memory for a run record");
    out->ops = &rec_ops;
    out->self = r;
    return STSL_OK;
}

void stsl_record_take(stsl_sink *s, void **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    if (!s || s->ops != &rec_ops) return;
    rec_sink *r = s->self;
    if (r->ended) {
        *bytes = r->buf;
        *size = r->n;
    } else {
        free(r->buf);
    }
    r->buf = NULL;
    r->n = r->cap = 0;
    r->ended = 0;
}

/* ---- replay ------------------------------------------------------------------ */

/* The layout read (pointing into the block) and the rows of the current
 * sample or event (n_cols each; NULL before begin). */
typedef struct replay {
    stsl_layout l;
    double *rows[2];
} replay;

static int replay_one(codec *c, replay *rp, stsl_sink *into, int *ended, stsl_error *err)
{
    unsigned char tag = 0;
    size_t row = sizeof(double) * (size_t)rp->l.n_cols;
    io(c, &tag, 1);
    if (tag == R_BEGIN) {
        if (rp->rows[0]) c->bad = 1; /* begun twice */
        if (c->bad) return STSL_OK;
        io_layout(c, &rp->l);
        rp->rows[0] = own(c, NULL, rp->l.n_cols, sizeof(double));
        rp->rows[1] = own(c, NULL, rp->l.n_cols, sizeof(double));
        if (c->nomem) return stsl_error_set(err, STSL_ENOMEM, "out of memory replaying a run");
        return c->bad ? STSL_OK : stsl_sink_begin(into, &rp->l, err);
    }
    if (tag == R_SAMPLE) {
        double t;
        int mode = 0;
        io(c, &t, sizeof t);
        io_i32(c, &mode);
        if (!rp->rows[0]) c->bad = 1; /* a sample before begin */
        if (!c->bad) io(c, rp->rows[0], row);
        return c->bad ? STSL_OK : stsl_sink_sample(into, t, mode, rp->rows[0], err);
    }
    if (tag == R_EVENT) {
        stsl_event_rec ev = {0};
        io_event(c, &ev, rp->rows, row);
        return c->bad ? STSL_OK : stsl_sink_event(into, &ev, err);
    }
    if (tag == R_END) {
        stsl_stats st;
        unsigned char has_stats = 0;
        int complete = 0;
        const char *msg = NULL;
        io_end(c, &has_stats, &st, &complete, &msg);
        *ended = 1;
        return c->bad ? STSL_OK : stsl_sink_end(into, has_stats ? &st : NULL, complete, msg, err);
    }
    c->bad = 1;
    return STSL_OK;
}

int stsl_record_replay(const void *bytes, size_t size, stsl_sink *into, stsl_error *err)
{
    codec c = {NULL, bytes, (const unsigned char *)bytes + size, bytes == NULL, 0, NULL, 0};
    replay rp = {0};
    int rc = STSL_OK, ended = 0;
    while (!rc && !c.bad && !ended && c.p < c.end)
        rc = replay_one(&c, &rp, into, &ended, err);
    for (int i = 0; i < c.n_owned; i++)
        free(c.owned[i]);
    free(c.owned);
    if (!rc && (c.bad || !ended || c.p != c.end))
        rc = stsl_error_set(err, STSL_EINPUT, "run record: damaged or cut short (%zu bytes)", size);
    return rc;
}
