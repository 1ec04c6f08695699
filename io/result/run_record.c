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

static void put_i32(rec_sink *r, int v)
{
    int32_t x = v;
    put(r, &x, sizeof x);
}

/* Length with its NUL (-1: NULL), then the bytes and the NUL: the replay
 * hands out pointers into the block. */
static void put_str(rec_sink *r, const char *s)
{
    put_i32(r, s ? (int)strlen(s) + 1 : -1);
    if (s) put(r, s, strlen(s) + 1);
}

static void put_names(rec_sink *r, const char *const *names, int n)
{
    put_i32(r, n);
    for (int i = 0; i < n; i++)
        put_str(r, names[i]);
}

/* A system's column groups and event subjects (none for the element). */
static void put_systems(rec_sink *r, const stsl_layout *l)
{
    put_i32(r, l->n_groups);
    for (int g = 0; g < l->n_groups; g++) {
        const stsl_col_group *cg = &l->groups[g];
        put_str(r, cg->name);
        put_str(r, cg->units);
        put_str(r, cg->long_name);
        put_i32(r, cg->first);
        put_i32(r, cg->integer);
        put_names(r, cg->member_names, cg->width);
        put_names(r, cg->value_names, cg->n_value_names);
    }
    put_names(r, l->subject_names, l->n_subjects);
}

static int rec_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    rec_sink *r = self;
    if (l->n_cols < 0 || l->n_modes < 0 || l->n_kinds < 0)
        return stsl_error_set(err, STSL_EINPUT, "run record: invalid layout");
    int rc = stsl_layout_check_groups(l, "run record", err);
    if (rc) return rc;
    op_begin(r, R_BEGIN);
    put_i32(r, l->n_cols);
    for (int i = 0; i < l->n_cols; i++) {
        put_str(r, l->cols[i].name);
        put_str(r, l->cols[i].units);
        put_str(r, l->cols[i].long_name);
    }
    put_str(r, l->time_units);
    put_names(r, l->mode_names, l->n_modes);
    put_names(r, l->kind_names, l->n_kinds);
    put_systems(r, l);
    r->n_cols = l->n_cols;
    return op_end(r, err);
}

static int rec_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    rec_sink *r = self;
    op_begin(r, R_SAMPLE);
    put(r, &t, sizeof t);
    put_i32(r, mode);
    put(r, cols, sizeof(double) * (size_t)r->n_cols);
    return op_end(r, err);
}

static int rec_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    rec_sink *r = self;
    size_t row = sizeof(double) * (size_t)r->n_cols;
    op_begin(r, R_EVENT);
    put(r, &ev->t, sizeof ev->t);
    put_i32(r, ev->kind);
    put_i32(r, ev->mode_before);
    put_i32(r, ev->mode_after);
    put_i32(r, ev->subject);
    const double *sides[2] = {ev->before, ev->after};
    for (int s = 0; s < 2; s++) {
        put(r, &(unsigned char){sides[s] != NULL}, 1);
        if (sides[s]) put(r, sides[s], row);
    }
    return op_end(r, err);
}

static int rec_end(void *self, const stsl_stats *st, int complete, const char *message,
                   stsl_error *err)
{
    rec_sink *r = self;
    stsl_stats zero = {0};
    op_begin(r, R_END);
    /* A pointer means nothing in a record: a verified run's estimate per
     * column (valid during end() only) is not kept, its largest values are. */
    stsl_stats copy = st ? *st : zero;
    copy.err_cols = NULL;
    put(r, &(unsigned char){st != NULL}, 1);
    put(r, &copy, sizeof copy);
    put_i32(r, complete);
    put_str(r, message);
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

typedef struct reader {
    const unsigned char *p, *end;
    int bad;
} reader;

static void get(reader *rd, void *v, size_t size)
{
    if (rd->bad || (size_t)(rd->end - rd->p) < size) {
        rd->bad = 1;
        memset(v, 0, size);
        return;
    }
    memcpy(v, rd->p, size);
    rd->p += size;
}

static int get_i32(reader *rd)
{
    int32_t x;
    get(rd, &x, sizeof x);
    return x;
}

/* A pointer into the block (NULL for a recorded NULL or a bad block). */
static const char *get_str(reader *rd)
{
    int len = get_i32(rd);
    if (rd->bad || len < 0) return NULL;
    if (len == 0 || (size_t)(rd->end - rd->p) < (size_t)len || rd->p[len - 1] != '\0') {
        rd->bad = 1;
        return NULL;
    }
    const char *s = (const char *)rd->p;
    rd->p += len;
    return s;
}

/* A count of items that each take at least `min_size` bytes of the rest. */
static int get_count(reader *rd, size_t min_size)
{
    int n = get_i32(rd);
    if (n < 0 || (size_t)n > (size_t)(rd->end - rd->p) / min_size) rd->bad = 1;
    return rd->bad ? 0 : n;
}

/* What the replay needs besides the block: the layout's arrays, which the
 * block holds only as strings, and aligned rows. */
typedef struct replay {
    stsl_layout l;
    stsl_column *cols;
    const char **modes, **kinds, **subjects;
    stsl_col_group *groups; /* their name arrays calloc'd, strings in the block */
    double *a, *b;          /* n_cols each */
} replay;

static void replay_free(replay *rp)
{
    for (int g = 0; rp->groups && g < rp->l.n_groups; g++) {
        free((void *)rp->groups[g].member_names);
        free((void *)rp->groups[g].value_names);
    }
    free(rp->groups);
    free(rp->subjects);
    free(rp->cols);
    free(rp->modes);
    free(rp->kinds);
    free(rp->a);
    free(rp->b);
}

static const char **get_names(reader *rd, int *n)
{
    *n = get_count(rd, sizeof(int32_t));
    const char **v = calloc((size_t)*n + 1, sizeof *v);
    for (int i = 0; v && i < *n; i++)
        v[i] = get_str(rd);
    return v;
}

/* The groups and subjects put_systems wrote; -1 when out of memory. */
static int read_systems(reader *rd, replay *rp)
{
    int n = get_count(rd, 5 * sizeof(int32_t));
    rp->groups = calloc((size_t)n + 1, sizeof *rp->groups);
    if (!rp->groups) return -1;
    rp->l.n_groups = n;
    rp->l.groups = rp->groups;
    for (int g = 0; g < n && !rd->bad; g++) {
        stsl_col_group *cg = &rp->groups[g];
        cg->name = get_str(rd);
        cg->units = get_str(rd);
        cg->long_name = get_str(rd);
        cg->first = get_i32(rd);
        cg->integer = get_i32(rd);
        const char **m = get_names(rd, &cg->width), **v = get_names(rd, &cg->n_value_names);
        cg->member_names = m;
        cg->value_names = v;
        if (!m || !v) return -1;
    }
    rp->subjects = get_names(rd, &rp->l.n_subjects);
    rp->l.subject_names = rp->subjects;
    return rp->subjects ? 0 : -1;
}

static int read_begin(reader *rd, replay *rp, stsl_error *err)
{
    if (rp->cols) {
        rd->bad = 1; /* begun twice */
        return STSL_OK;
    }
    int n = get_count(rd, 3 * sizeof(int32_t));
    rp->cols = calloc((size_t)n + 1, sizeof *rp->cols);
    rp->a = calloc((size_t)n + 1, sizeof *rp->a);
    rp->b = calloc((size_t)n + 1, sizeof *rp->b);
    for (int i = 0; rp->cols && i < n; i++) {
        rp->cols[i].name = get_str(rd);
        rp->cols[i].units = get_str(rd);
        rp->cols[i].long_name = get_str(rd);
    }
    rp->l.n_cols = n;
    rp->l.cols = rp->cols;
    rp->l.time_units = get_str(rd);
    rp->modes = get_names(rd, &rp->l.n_modes);
    rp->kinds = get_names(rd, &rp->l.n_kinds);
    rp->l.mode_names = rp->modes;
    rp->l.kind_names = rp->kinds;
    if (!rp->cols || !rp->a || !rp->b || !rp->modes || !rp->kinds || read_systems(rd, rp) < 0)
        return stsl_error_set(err, STSL_ENOMEM, "out of memory replaying a run");
    return STSL_OK;
}

static void get_row(reader *rd, const replay *rp, double *row)
{
    get(rd, row, sizeof *row * (size_t)rp->l.n_cols);
}

static int replay_one(reader *rd, replay *rp, stsl_sink *into, int *ended, stsl_error *err)
{
    unsigned char tag = 0, flag = 0;
    get(rd, &tag, 1);
    if (tag == R_BEGIN) {
        int rc = read_begin(rd, rp, err);
        return rc || rd->bad ? rc : stsl_sink_begin(into, &rp->l, err);
    }
    if (tag == R_SAMPLE) {
        double t;
        get(rd, &t, sizeof t);
        int mode = get_i32(rd);
        if (!rp->a) rd->bad = 1; /* a sample before begin */
        if (!rd->bad) get_row(rd, rp, rp->a);
        return rd->bad ? STSL_OK : stsl_sink_sample(into, t, mode, rp->a, err);
    }
    if (tag == R_EVENT) {
        stsl_event_rec ev = {0};
        get(rd, &ev.t, sizeof ev.t);
        ev.kind = get_i32(rd);
        ev.mode_before = get_i32(rd);
        ev.mode_after = get_i32(rd);
        ev.subject = get_i32(rd);
        if (!rp->a) rd->bad = 1; /* an event before begin */
        double *rows[2] = {rp->a, rp->b};
        const double *sides[2] = {NULL, NULL};
        for (int s = 0; s < 2 && !rd->bad; s++) {
            get(rd, &flag, 1);
            if (flag) get_row(rd, rp, rows[s]);
            sides[s] = flag ? rows[s] : NULL;
        }
        ev.before = sides[0];
        ev.after = sides[1];
        return rd->bad ? STSL_OK : stsl_sink_event(into, &ev, err);
    }
    if (tag == R_END) {
        stsl_stats st;
        get(rd, &flag, 1);
        get(rd, &st, sizeof st);
        st.err_cols = NULL; /* a record never holds one (rec_end): not even from a bad file */
        int complete = get_i32(rd);
        const char *msg = get_str(rd);
        *ended = 1;
        return rd->bad ? STSL_OK : stsl_sink_end(into, flag ? &st : NULL, complete, msg, err);
    }
    rd->bad = 1;
    return STSL_OK;
}

int stsl_record_replay(const void *bytes, size_t size, stsl_sink *into, stsl_error *err)
{
    reader rd = {bytes, (const unsigned char *)bytes + size, bytes == NULL};
    replay rp = {0};
    int rc = STSL_OK, ended = 0;
    while (!rc && !rd.bad && !ended && rd.p < rd.end)
        rc = replay_one(&rd, &rp, into, &ended, err);
    replay_free(&rp);
    if (!rc && (rd.bad || !ended || rd.p != rd.end))
        rc = stsl_error_set(err, STSL_EINPUT, "run record: damaged or cut short (%zu bytes)", size);
    return rc;
}
