/* sweep.c - see sweep.h. */
#include "api/sweep.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "api/config_api.h"
#include "api/error.h"
#include "api/run_api.h"
#include "api/summary_sink.h"
#include "include/stickslip.h"
#include "io/config/config.h"
#include "io/result/out_file.h"
#include "io/result/run_record.h"
#include "io/result/safe_output.h"
#include "io/study/study.h"
#include "io/study/study_h5.h"
#include "models/one_body.h"
#include "models/multibody.h"

/* Rows a worker may run ahead of the writer (ring of ~5 MiB). */
#define WINDOW 4096
/* With store: full a row holds its whole run until written: variants run
 * at most this many per thread ahead of the writer (one running, one
 * waiting), so memory is a few runs a thread, not WINDOW runs. */
#define FULL_WINDOW_PER_JOB 2
/* Rows are made durable at least this often (seconds): a killed study
 * loses at most this much work. */
#define FLUSH_SECONDS 1.0
/* Progress is reported at most this often (seconds). */
#define PROGRESS_SECONDS 0.1

typedef struct slot {
    int ready;
    stsl_study_row row;
} slot;

/* What every worker reads (never written while they run). */
typedef struct plan {
    const stsl_study *study;
    const stsl_cfg *base;
    int n_kinds, n_modes;
    char kinds[STSL_STUDY_MAX_KINDS][32];
    char modes[STSL_MAX_MODES][32];
    int is_system;            /* a system of bodies: per-member columns */
    stsl_member_cols members; /* its columns (api/summary_sink.h) */
} plan;

/* A loaded study ready to run (see sweep.h). */
struct stsl_study_plan {
    plan pl;
    stsl_study *study;
    stsl_cfg *base;
    char *base_yaml;
    stsl_study_info info;
    const char *kinds[STSL_STUDY_MAX_KINDS];
    const char *modes[STSL_MAX_MODES];
};

typedef struct pool {
    const plan *pl;
    pthread_mutex_t mu;
    pthread_cond_t row_ready, space;
    long next;    /* next variant to claim */
    long end;     /* one past the last variant */
    long written; /* rows taken by the writer */
    long window;  /* variants claimed ahead of `written` (<= WINDOW) */
    int stop;     /* no more claims */
    int running;  /* workers alive */
    slot *ring;   /* WINDOW slots, variant i in ring[i % WINDOW] */
} pool;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- one variant ------------------------------------------------------------- */

static int col_index(const stsl_summary *s, const char *name)
{
    for (int i = 0; i < s->n_cols; i++)
        if (!strcmp(s->col_names[i], name)) return i;
    return -1;
}

static double mode_time(const stsl_summary *s, const char *name)
{
    int i = stsl_name_index(s->mode_names, s->n_modes, name);
    return i >= 0 ? s->mode_time[i] : 0.0;
}

/* The row of a run that got as far as its summary. */
static void fill_row(const plan *pl, const stsl_summary *s, stsl_study_row *r)
{
    int ix = col_index(s, "x"), iv = col_index(s, "v");
    int is = stsl_name_index(s->kind_names, s->n_kinds, "stick");
    r->t_reached = s->t_reached;
    for (int k = 0; k < pl->n_kinds; k++) {
        int i = stsl_name_index(s->kind_names, s->n_kinds, pl->kinds[k]);
        r->events[k] = i >= 0 ? s->events[i] : 0;
    }
    r->first_breakaway = stsl_summary_first_event(s, "breakaway");
    r->last_stick = is >= 0 ? s->last_event_time[is] : NAN;
    r->stuck_fraction = s->t_reached > 0.0 ? mode_time(s, "STUCK") / s->t_reached : NAN;
    r->stop_contact_time = mode_time(s, "STOP_LOW") + mode_time(s, "STOP_HIGH");
    r->max_abs_x = ix >= 0 ? s->max_abs[ix] : NAN;
    r->max_abs_v = iv >= 0 ? s->max_abs[iv] : NAN;
    r->x_final = ix >= 0 ? s->final[ix] : NAN;
    r->v_final = iv >= 0 ? s->final[iv] : NAN;
    r->dissipated_energy = s->dissipated_energy;
    r->steps = s->steps;
    r->rhs_evals = s->rhs_evals;
    if (pl->is_system) /* the element's figures; a system's are per member */
        r->stuck_fraction = r->stop_contact_time = r->dissipated_energy = NAN;
}

static void set_message(stsl_study_row *r, int status, const char *msg)
{
    r->status = status;
    size_t n = strlen(msg);
    if (n < sizeof r->message) {
        memcpy(r->message, msg, n + 1);
        return;
    }
    memcpy(r->message, msg, sizeof r->message - 4);
    strcpy(r->message + sizeof r->message - 4, "...");
}

/* Set the variant's keys one by one (the fast path); when one is refused,
 * all of them together on a fresh clone decide, since some keys are valid
 * only together (end_stops.min and max moved past each other). */
static stsl_cfg *configure(const plan *pl, const double *vals, stsl_err *e)
{
    int k = stsl_study_n_keys(pl->study), rc = STSL_RC_OK;
    char text[STSL_STUDY_MAX_KEYS][32];
    for (int j = 0; j < k; j++)
        /* %.17g: the value set is the value in /study/parameters, bit for bit. */
        snprintf(text[j], sizeof text[j], "%.17g", vals[j]);
    stsl_cfg *cfg = stsl_cfg_clone(pl->base, e);
    for (int j = 0; cfg && !rc && j < k; j++)
        rc = stsl_cfg_set(cfg, stsl_study_key(pl->study, j), text[j], e);
    if (!rc || !cfg) return cfg;
    stsl_cfg_free(cfg);
    char assign[STSL_STUDY_MAX_KEYS][320];
    const char *list[STSL_STUDY_MAX_KEYS];
    for (int j = 0; j < k; j++) {
        snprintf(assign[j], sizeof assign[j], "%s=%s", stsl_study_key(pl->study, j), text[j]);
        list[j] = assign[j];
    }
    stsl_err first = *e;
    cfg = stsl_cfg_clone(pl->base, e);
    if (cfg && stsl_cfg_set_all(cfg, list, k, e)) {
        stsl_cfg_free(cfg);
        *e = first; /* the one key's own message is the clearer one */
        e->code = STSL_RC_INPUT;
        return NULL;
    }
    return cfg;
}

/* ---- store: events: a sink that keeps only the events ------------------------ */

typedef struct ev_sink {
    int ix, iv, inet, ifr;
    stsl_study_event *ev;
    long n, cap;
} ev_sink;

static int evs_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    (void)err;
    ev_sink *k = self;
    k->ix = stsl_layout_find(l, "x");
    k->iv = stsl_layout_find(l, "v");
    k->inet = stsl_layout_find(l, "net_force");
    k->ifr = stsl_layout_find(l, "friction");
    return STSL_OK;
}

static double col_or_nan(const double *v, int i)
{
    return i >= 0 && v ? v[i] : NAN;
}

static int evs_event(void *self, const stsl_event_rec *e, stsl_error *err)
{
    ev_sink *k = self;
    if (k->n == k->cap) {
        long cap = k->cap ? 2 * k->cap : 64;
        stsl_study_event *p = realloc(k->ev, (size_t)cap * sizeof *p);
        if (!p) return stsl_error_set(err, STSL_ENOMEM, "out of memory keeping the events");
        k->ev = p;
        k->cap = cap;
    }
    /* The single run's /events columns (io/result/h5_sink.c). */
    k->ev[k->n++] = (stsl_study_event){e->t,
                                       e->kind,
                                       e->mode_before,
                                       e->mode_after,
                                       col_or_nan(e->before, k->ix),
                                       col_or_nan(e->before, k->iv),
                                       col_or_nan(e->after, k->iv),
                                       col_or_nan(e->after, k->inet),
                                       col_or_nan(e->after, k->ifr)};
    return STSL_OK;
}

/* Events only (no sample, no end); no destroy: the events go on with the
 * row, the sweep frees them. */
static const stsl_sink_ops ev_ops = {evs_begin, NULL, evs_event, NULL, NULL};

/* Run into the summary and `sink`, and for a system also into the sink of
 * its per-member figures (the row's member[]). */
static int run_into(const plan *pl, const stsl_cfg *cfg, stsl_sink *sink, stsl_summary *sum,
                    stsl_study_row *r, stsl_error *e)
{
    if (!pl->is_system) return stsl_api_run_into(cfg, sink, sum, e);
    stsl_member_sink ms;
    stsl_sink members;
    stsl_member_sink_init(&ms, &pl->members, r->member, sink, &members);
    return stsl_api_run_into(cfg, &members, sum, e);
}

/* Run into the summary and a recording sink; the row gets the variant's
 * configuration text and the record (see stsl_study_row.run). */
static int run_full(const plan *pl, const stsl_cfg *cfg, stsl_summary *sum, stsl_study_row *r,
                    stsl_error *e)
{
    stsl_sink sink = {0};
    char *yaml = stsl_config_to_yaml(&cfg->c);
    int rc = yaml ? stsl_record_sink_create(&sink, e)
                  : stsl_error_set(e, STSL_ENOMEM, "out of memory writing the configuration");
    if (!rc) rc = run_into(pl, cfg, &sink, sum, r, e);
    void *rec = NULL;
    size_t n = 0, ny = yaml ? strlen(yaml) + 1 : 0;
    stsl_record_take(&sink, &rec, &n);
    stsl_sink_free(&sink);
    /* A run that ended its sink (complete or not) has a result to keep. */
    if (rec && (r->run = malloc(ny + n))) {
        memcpy(r->run, yaml, ny);
        memcpy((char *)r->run + ny, rec, n);
        r->run_size = ny + n;
    } else if (rec && !rc) {
        rc = stsl_error_set(e, STSL_ENOMEM, "out of memory keeping the run (%zu bytes)", ny + n);
    }
    free(rec);
    free(yaml);
    return rc;
}

/* Run into the summary, and with store: events into an event list, with
 * store: full into a record of the whole run (the row owns them). */
static int run_cfg(const plan *pl, const stsl_cfg *cfg, stsl_summary *sum, stsl_study_row *r,
                   stsl_err *e)
{
    stsl_store store = stsl_study_store(pl->study);
    if (store == STSL_STORE_SUMMARY && !pl->is_system)
        return stsl_run(cfg, STSL_OUTPUT_NONE, NULL, sum, e);
    stsl_error ie = {0};
    if (store == STSL_STORE_FULL) return run_full(pl, cfg, sum, r, &ie) ? stsl_api_err(e, &ie) : 0;
    ev_sink k = {0};
    stsl_sink sink = {store == STSL_STORE_EVENTS ? &ev_ops : NULL, &k};
    int rc = run_into(pl, cfg, &sink, sum, r, &ie);
    r->ev = k.ev;
    r->n_ev = k.n;
    return rc ? stsl_api_err(e, &ie) : STSL_RC_OK;
}

/* Configure the variant (each key checked as --set checks it) and run it
 * into a summary (and the events it keeps). */
static void run_variant(const plan *pl, long i, stsl_study_row *r)
{
    double vals[STSL_STUDY_MAX_KEYS], t0 = now_seconds();
    stsl_err e = {0};
    stsl_summary sum;
    stsl_study_row_clear(r);
    stsl_study_values(pl->study, i, vals);
    stsl_cfg *cfg = configure(pl, vals, &e);
    if (!cfg) {
        set_message(r, e.code == STSL_RC_INPUT ? STSL_ROW_INVALID : STSL_ROW_FAILED, e.message);
    } else {
        int rc = run_cfg(pl, cfg, &sum, r, &e);
        fill_row(pl, &sum, r);
        if (rc || !sum.complete)
            set_message(r, STSL_ROW_FAILED, rc ? e.message : sum.message);
        else
            r->status = STSL_ROW_OK;
    }
    stsl_cfg_free(cfg);
    r->wall_seconds = now_seconds() - t0;
}

/* ---- threads ----------------------------------------------------------------- */

static void *worker(void *arg)
{
    pool *p = arg;
    stsl_study_row row;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->next < p->end && p->next >= p->written + p->window)
            pthread_cond_wait(&p->space, &p->mu);
        if (p->stop || p->next >= p->end) break;
        long i = p->next++;
        pthread_mutex_unlock(&p->mu);
        run_variant(p->pl, i, &row);
        pthread_mutex_lock(&p->mu);
        p->ring[i % WINDOW].row = row;
        p->ring[i % WINDOW].ready = 1;
        pthread_cond_signal(&p->row_ready);
    }
    p->running--;
    pthread_cond_signal(&p->row_ready);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Wait up to `timeout` for the next row; 1 with it in *row, 0 on timeout,
 * -1 when no row will come.  Variants are claimed in order and a worker
 * fills its slot before it exits, so with no worker left an empty slot
 * means that variant was never claimed: the end. */
static int next_row(pool *p, double timeout, stsl_study_row *row)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_nsec * 1e-9 + timeout;
    ts.tv_sec += (time_t)t;
    ts.tv_nsec = (long)((t - floor(t)) * 1e9);
    pthread_mutex_lock(&p->mu);
    slot *s = &p->ring[p->written % WINDOW];
    while (!s->ready && p->running > 0)
        if (pthread_cond_timedwait(&p->row_ready, &p->mu, &ts)) break;
    int got = s->ready ? 1 : p->running == 0 ? -1 : 0;
    if (got > 0) {
        *row = s->row;
        s->ready = 0;
        p->written++;
        pthread_cond_broadcast(&p->space);
    }
    pthread_mutex_unlock(&p->mu);
    return got;
}

static void stop_pool(pool *p)
{
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->space);
    pthread_mutex_unlock(&p->mu);
}

typedef struct writer_state {
    stsl_study_h5 *w;
    const stsl_sweep_opts *o;
    stsl_sweep_progress *prog;
    double t0, last_flush, last_report;
} writer_state;

static void report(writer_state *ws, int force)
{
    double t = now_seconds();
    if (!ws->o->progress || (!force && t - ws->last_report < PROGRESS_SECONDS)) return;
    ws->last_report = t;
    ws->prog->n_done = stsl_study_h5_n_done(ws->w);
    ws->prog->n_failed = stsl_study_h5_n_failed(ws->w);
    ws->prog->seconds = t - ws->t0;
    ws->o->progress(ws->o->progress_ctx, ws->prog);
}

/* The file's consumer: write, flush, report (row NULL: an idle tick). */
static int write_row(void *ctx, const stsl_study_row *row, stsl_error *err)
{
    writer_state *ws = ctx;
    int rc = STSL_OK;
    if (row) {
        rc = stsl_study_h5_append(ws->w, row, err);
        ws->prog->n_session++;
    }
    if (!rc && now_seconds() - ws->last_flush >= FLUSH_SECONDS) {
        rc = stsl_study_h5_flush(ws->w, err);
        ws->last_flush = now_seconds();
    }
    if (!rc) report(ws, 0);
    return rc;
}

/* The calling thread: hand the rows in order to `take`. */
static int take_rows(pool *p, volatile sig_atomic_t *stop, stsl_sweep_take take, void *ctx,
                     stsl_error *err)
{
    stsl_study_row row;
    int rc = STSL_OK;
    for (;;) {
        /* Atomic: a program's thread may set it (stsl_study_run's cancel). */
        if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED)) stop_pool(p);
        int got = next_row(p, PROGRESS_SECONDS, &row);
        if (got < 0) break;
        if (!rc) rc = take(ctx, got > 0 ? &row : NULL, err);
        if (got > 0) free(row.ev), free(row.run);
        if (rc) stop_pool(p); /* keep taking rows so that the workers end */
    }
    return rc;
}

int stsl_sweep_plan_run(const stsl_sweep_plan *sp, long first, long end, int jobs,
                        volatile sig_atomic_t *stop, stsl_sweep_take take, void *ctx,
                        stsl_error *err)
{
    const plan *pl = &sp->pl;
    jobs = jobs > 0 ? jobs : 1;
    pool p = {.pl = pl, .next = first, .end = end, .written = first, .window = WINDOW};
    if (stsl_study_store(pl->study) == STSL_STORE_FULL && FULL_WINDOW_PER_JOB * jobs < WINDOW)
        p.window = FULL_WINDOW_PER_JOB * jobs;
    pthread_t *th = malloc((size_t)jobs * sizeof *th);
    p.ring = calloc(WINDOW, sizeof *p.ring);
    if (!th || !p.ring) {
        free(th);
        free(p.ring);
        return stsl_error_set(err, STSL_ENOMEM, "sweep: out of memory");
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.row_ready, NULL);
    pthread_cond_init(&p.space, NULL);
    /* A stop already requested claims nothing: checked only by take_rows,
     * a worker could finish the whole window before this thread first
     * looks (on a loaded machine), and a study cancelled before it began
     * would end complete. */
    p.stop = stop && __atomic_load_n(stop, __ATOMIC_RELAXED);
    int started = 0;
    pthread_mutex_lock(&p.mu);
    for (; started < jobs; started++) {
        if (pthread_create(&th[started], NULL, worker, &p)) break;
        p.running++;
    }
    pthread_mutex_unlock(&p.mu);
    int rc = started ? take_rows(&p, stop, take, ctx, err)
                     : stsl_error_set(err, STSL_ENOMEM, "sweep: cannot start a thread");
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_cond_destroy(&p.space);
    pthread_cond_destroy(&p.row_ready);
    pthread_mutex_destroy(&p.mu);
    free(p.ring);
    free(th);
    return rc;
}

/* ---- set-up ------------------------------------------------------------------ */

/* The base with --set applied; messages carry the base's own name (the
 * study file's, with its line numbers, for an inline base). */
static stsl_cfg *load_base(const stsl_study *s, const stsl_sweep_opts *o, stsl_error *err)
{
    stsl_cfg *c = calloc(1, sizeof *c);
    if (!c) return stsl_error_set(err, STSL_ENOMEM, "out of memory"), NULL;
    const char *dir = stsl_study_base_dir(s);
    int rc = stsl_config_load_string(stsl_study_base_text(s), stsl_study_base_origin(s),
                                     *dir ? dir : NULL, o->sets, o->n_sets, &c->c, err);
    if (!rc && (rc = stsl_config_require_runnable(&c->c, err))) stsl_config_free(&c->c);
    if (rc) {
        free(c);
        return NULL;
    }
    return c;
}

/* A varied key that the base does not have is a bad study, not a column
 * of failed rows. */
static int check_keys(const stsl_study *s, const stsl_cfg *base, stsl_error *err)
{
    const char *where =
        stsl_study_combine(s) == STSL_COMBINE_LATIN_HYPERCUBE ? "sample.ranges" : "vary";
    for (int j = 0; j < stsl_study_n_keys(s); j++) {
        stsl_err e = {0};
        char *v = stsl_cfg_get(base, stsl_study_key(s, j), &e);
        stsl_free(v);
        if (!v)
            return stsl_error_set(err, STSL_EINPUT,
                                  "%s:%d: %s.%s: not a key of the base "
                                  "configuration (%s)",
                                  stsl_study_origin(s), stsl_study_key_line(s, j), where,
                                  stsl_study_key(s, j), e.message);
    }
    return STSL_OK;
}

/* The model's unit of column `name` ("" without that column). */
static const char *col_units(const stsl_layout *l, const char *name)
{
    int i = stsl_layout_find(l, name);
    return i >= 0 && l->cols[i].units ? l->cols[i].units : "";
}

/* A system's event kinds (the element's and `ambiguous`, SPEC section 4),
 * units and per-member columns, from its configuration. */
static void describe_system(const stsl_system *s, plan *pl, stsl_study_info *info)
{
    const char *const *names = stsl_multibody_kind_names();
    pl->n_kinds =
        STSL_EV_AMBIGUOUS + 1 < STSL_STUDY_MAX_KINDS ? STSL_EV_AMBIGUOUS + 1 : STSL_STUDY_MAX_KINDS;
    for (int k = 0; k < pl->n_kinds; k++)
        snprintf(pl->kinds[k], sizeof pl->kinds[0], "%s", names[k]);
    int rot = s->domain == STSL_DOMAIN_ROTATIONAL;
    info->x_units = rot ? "rad" : "m";
    info->v_units = rot ? "rad/s" : "m/s";
    info->force_units = rot ? "N·m" : "N";
    info->energy_units = STSL_ENERGY_UNITS;
    info->time_units = "s";
    pl->n_modes = 0; /* no scalar mode: the contacts' modes are per member */
    pl->is_system = 1;
    stsl_member_cols_of(s, &pl->members);
    info->n_members = pl->members.n;
    info->member_names = pl->members.name_ptrs;
    info->member_units = pl->members.units;
}

/* Event kinds and units from the base's element (every variant is the
 * same model). */
static int describe_model(const stsl_cfg *base, plan *pl, stsl_study_info *info, stsl_error *err)
{
    if (base->c.is_system) {
        describe_system(&base->c.system, pl, info);
        return STSL_OK;
    }
    stsl_one_body *el = stsl_one_body_create(&base->c.element, err);
    if (!el) return err ? err->code : STSL_EMODEL;
    const stsl_layout *l = stsl_one_body_model(el)->layout;
    pl->n_kinds = l->n_kinds < STSL_STUDY_MAX_KINDS ? l->n_kinds : STSL_STUDY_MAX_KINDS;
    for (int k = 0; k < pl->n_kinds; k++)
        snprintf(pl->kinds[k], sizeof pl->kinds[k], "%s", l->kind_names[k]);
    info->x_units = col_units(l, "x");
    info->v_units = col_units(l, "v");
    info->force_units = col_units(l, "friction");
    info->energy_units = STSL_ENERGY_UNITS;
    info->time_units = l->time_units ? l->time_units : "";
    pl->n_modes = l->n_modes < STSL_MAX_MODES ? l->n_modes : STSL_MAX_MODES;
    for (int m = 0; m < pl->n_modes; m++)
        snprintf(pl->modes[m], sizeof pl->modes[m], "%s", l->mode_names[m]);
    stsl_one_body_free(el);
    return STSL_OK;
}

void stsl_sweep_plan_free(stsl_sweep_plan *sp)
{
    if (!sp) return;
    free(sp->base_yaml);
    stsl_cfg_free(sp->base);
    stsl_study_free(sp->study);
    free(sp);
}

int stsl_sweep_plan_open(const char *study_path, const stsl_sweep_opts *o, stsl_sweep_plan **out,
                         stsl_error *err)
{
    *out = NULL;
    stsl_sweep_plan *sp = calloc(1, sizeof *sp);
    if (!sp) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    int rc = stsl_study_load(study_path, &sp->study, err);
    if (!rc && !(sp->base = load_base(sp->study, o, err))) rc = err ? err->code : STSL_EINPUT;
    if (!rc) rc = check_keys(sp->study, sp->base, err);
    if (!rc && !(sp->base_yaml = stsl_config_to_yaml(&sp->base->c)))
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
    if (!rc) rc = describe_model(sp->base, &sp->pl, &sp->info, err);
    /* Only store: full keeps samples, and no column of a row comes from
     * them: the other stores compute none (the file's base_config stays as
     * given). */
    if (!rc && stsl_study_store(sp->study) != STSL_STORE_FULL)
        stsl_api_no_grid(&sp->base->c, &sp->base->c.sim);
    if (rc) {
        stsl_sweep_plan_free(sp);
        return rc;
    }
    for (int k = 0; k < sp->pl.n_kinds; k++)
        sp->kinds[k] = sp->pl.kinds[k];
    for (int m = 0; m < sp->pl.n_modes; m++)
        sp->modes[m] = sp->pl.modes[m];
    sp->info.base_yaml = sp->base_yaml;
    sp->info.version = o->version;
    sp->info.n_kinds = sp->pl.n_kinds;
    sp->info.kind_names = sp->kinds;
    sp->info.n_modes = sp->pl.n_modes;
    sp->info.mode_names = sp->modes;
    sp->pl.study = sp->study;
    sp->pl.base = sp->base;
    *out = sp;
    return STSL_OK;
}

/* NULL-safe, as the result accessors: 0 for no plan. */
long stsl_study_plan_n_variants(const stsl_study_plan *sp)
{
    return sp ? stsl_study_n_variants(sp->study) : 0;
}

int stsl_study_plan_store_full(const stsl_study_plan *sp)
{
    return sp && stsl_study_store(sp->study) == STSL_STORE_FULL;
}

/* The output rule (io/result/safe_output.h) for o->output and o->csv
 * against the study file, its base configuration and the base's table
 * files (STSL_EINPUT naming the path and why); nothing is opened. */
static int output_check(const stsl_study *s, const stsl_config *base, const stsl_sweep_opts *o,
                        stsl_error *err)
{
    int n_tab = 0;
    const char **tables = stsl_out_config_inputs(base, &n_tab);
    const char **in = tables ? calloc((size_t)n_tab + 2, sizeof *in) : NULL;
    if (!in) {
        free(tables);
        return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    }
    in[0] = stsl_study_origin(s);
    in[1] = stsl_study_base_origin(s);
    for (int i = 0; i < n_tab; i++)
        in[i + 2] = tables[i];
    stsl_output_file outs[2] = {{o->output, "the study file", STSL_FMT_H5, 0, 0},
                                {o->csv, "--csv", STSL_FMT_CSV, 0, 1}};
    int rc = stsl_output_rule(in, n_tab + 2, outs, 2, err);
    free(in);
    free(tables);
    return rc;
}

/* --resume of an existing file: only an unfinished study; whether it is
 * the same study stsl_study_h5_resume checks. */
static int resumable(const char *path, const stsl_study *s, stsl_error *err)
{
    stsl_study_summary sum;
    if (!stsl_study_h5_is_study(path) || stsl_study_h5_summarise(path, &sum, NULL) != STSL_OK)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: not a study file (another file, or a damaged study): "
                              "--resume continues an unfinished study of %s and replaces "
                              "nothing",
                              path, stsl_study_origin(s));
    if (sum.complete)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: the study is complete (%ld of %ld variants): nothing to "
                              "resume; run without --resume to run it again",
                              path, sum.n_done, sum.n_runs);
    return STSL_OK;
}

/* One call for every runner (threads, MPI rank 0). */
int stsl_sweep_plan_output(const stsl_sweep_plan *sp, const stsl_sweep_opts *o, stsl_study_h5 **w,
                           stsl_error *err)
{
    const stsl_study *s = sp->study;
    *w = NULL;
    int rc = output_check(s, &sp->base->c, o, err);
    if (rc) return rc;
    struct stat st;
    int exists = stat(o->output, &st) == 0;
    if (o->resume && exists) {
        if ((rc = resumable(o->output, s, err))) return rc;
        return stsl_study_h5_resume(o->output, s, &sp->info, w, err);
    }
    stsl_study_summary sum;
    if (exists && stsl_study_h5_is_study(o->output) &&
        stsl_study_h5_summarise(o->output, &sum, NULL) == STSL_OK && !sum.complete)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: holds an unfinished study (%ld of %ld variants done): "
                              "continue it with --resume, or remove it",
                              o->output, sum.n_done, sum.n_runs);
    return stsl_study_h5_create(o->output, s, &sp->info, w, err);
}

/* ---- the test hold (sweep.h) ------------------------------------------------- */

/* Polling period of a held study: it only waits for a test's signal. */
#define HOLD_POLL_NS 10000000L

long stsl_sweep_hold_end(const stsl_sweep_opts *o, long first, long end)
{
    const char *v = getenv("STICKSLIP_TEST_SWEEP_HOLD");
    if (!v || !o->stop) return end; /* without a stop flag a hold never ends */
    char *tail;
    long n = strtol(v, &tail, 10);
    if (*tail || tail == v || n < 1) return end;
    return n < end - first ? first + n : end;
}

int stsl_sweep_hold(const stsl_sweep_opts *o, stsl_study_h5 *w, stsl_error *err)
{
    int rc = stsl_study_h5_flush(w, err);
    while (!rc && o->stop && !*o->stop)
        nanosleep(&(struct timespec){0, HOLD_POLL_NS}, NULL);
    return rc;
}

int stsl_sweep_run(const char *study_path, const stsl_sweep_opts *o, stsl_sweep_progress *out,
                   stsl_error *err)
{
    stsl_sweep_plan *sp = NULL;
    stsl_study_h5 *w = NULL;
    memset(out, 0, sizeof *out);
    int rc = stsl_sweep_plan_open(study_path, o, &sp, err);
    if (!rc) rc = stsl_sweep_plan_output(sp, o, &w, err);
    if (!rc) {
        /* last_flush = -inf: the first row written is flushed at once, so the
         * file shows progress from the start (a study shorter than
         * FLUSH_SECONDS would otherwise show none until it ends). */
        writer_state ws = {w, o, out, now_seconds(), -INFINITY, 0.0};
        out->n_runs = stsl_study_n_variants(sp->study);
        long first = stsl_study_h5_n_done(w);
        long end = stsl_sweep_hold_end(o, first, out->n_runs);
        rc = stsl_sweep_plan_run(sp, first, end, o->jobs, o->stop, write_row, &ws, err);
        if (!rc && end < out->n_runs) rc = stsl_sweep_hold(o, w, err);
        out->n_done = stsl_study_h5_n_done(w);
        out->n_failed = stsl_study_h5_n_failed(w);
        out->seconds = now_seconds() - ws.t0;
        int crc = stsl_study_h5_close(w, rc ? NULL : err);
        if (!rc) rc = crc;
        if (!rc && o->progress) o->progress(o->progress_ctx, out);
    }
    stsl_sweep_plan_free(sp);
    return rc;
}
