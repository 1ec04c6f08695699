/* study_h5.c - the study file of `stickslip sweep` (see study_h5.h; the
 * layout is documented in docs/hdf5-layout.md and changes only with it). */
#include "io/study/study_h5.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "io/result/h5_driver.h"
#include "io/result/h5_sink.h"
#include "io/result/h5_types.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"
#include "io/result/run_record.h"

/* Rows per chunk of every column: 4096 float64 rows make 32 KiB chunks. */
#define CHUNK 4096
/* Rows buffered before they are written (1024 rows of ~1.2 KiB). */
#define BLOCK 1024
/* Rows read at once when summarising (64 Ki rows, 0.5 MiB per column). */
#define READ_BLOCK 65536
#define MAX_COLS   STSL_STUDY_MAX_COLS
/* /study/events: rows per chunk, and the width of its `kind` member (as in
 * a single run's /events). */
#define EV_CHUNK 1024
#define KIND_LEN STSL_H5_KIND_LEN
/* store: full: the file is flushed (and its metadata cache emptied, see
 * reopen()) at least every this many results: the metadata of a result
 * (~0.3 MB for a Janecek run) stays in memory until then. */
#define FULL_FLUSH_RUNS 16

typedef enum ctype { C_F64, C_I64, C_I8, C_STR } ctype;

/* A summary column: name, type, where it lives in stsl_study_row and which
 * unit it has ('t' time, 'x', 'v', 'E' energy, '1' none, 's' seconds). */
typedef struct col {
    char name[64];
    ctype type;
    size_t off;
    char unit;
    const char *units; /* a member column's own unit (unit 'm') */
} col;

#define F(name, unit)                                                                              \
    {                                                                                              \
#name, C_F64, offsetof(stsl_study_row, name), unit, NULL                                   \
    }
#define I(name)                                                                                    \
    {                                                                                              \
#name, C_I64, offsetof(stsl_study_row, name), '1', NULL                                    \
    }
static const col HEAD[] = {
    {"status", C_I8, offsetof(stsl_study_row, status), '1', NULL},
    {"message", C_STR, offsetof(stsl_study_row, message), '1', NULL},
    F(t_reached, 't'),
};
static const col TAIL[] = {
    F(first_breakaway, 't'),
    F(last_stick, 't'),
    F(stuck_fraction, '1'),
    F(stop_contact_time, 't'),
    F(max_abs_x, 'x'),
    F(max_abs_v, 'v'),
    F(x_final, 'x'),
    F(v_final, 'v'),
    F(dissipated_energy, 'E'),
    I(steps),
    I(rhs_evals),
    F(wall_seconds, 's'),
};
#undef F
#undef I
#define N_HEAD (int)(sizeof HEAD / sizeof HEAD[0])
#define N_TAIL (int)(sizeof TAIL / sizeof TAIL[0])

struct stsl_study_h5 {
    char *path;
    long n_resumed; /* rows the file held when it was opened (resumed) */
    hid_t file, study, str_t;
    int n_cols;
    col cols[MAX_COLS];
    hid_t ds[MAX_COLS];
    long n_runs, n_done, n_written, n_failed;
    stsl_study_row *block;
    int n_block;
    /* store: events */
    hid_t ev_ds, ev_mtype;
    long n_ev_rows;
    char kinds[STSL_STUDY_MAX_KINDS][KIND_LEN + 1];
    void *scratch; /* BLOCK values of the widest column type */
    /* store: full: /runs, and the version its results record */
    hid_t runs;
    char *version;
    int runs_unflushed; /* results written since the last flush */
};

/* ---- HDF5 helpers ---------------------------------------------------------- */

/* Overwrite an existing attribute in place (same type and size): the
 * counters change at every flush, and an in-place write is one small write
 * where delete + create would rebuild the object header. */
static int update_attr(hid_t obj, const char *name, hid_t mtype, const void *val)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, mtype, val) < 0 ? -1 : 0;
    if (a >= 0) H5Aclose(a);
    return rc;
}

static int update_i64(hid_t obj, const char *name, long value)
{
    int64_t v = value;
    return update_attr(obj, name, H5T_NATIVE_INT64, &v);
}

/* ---- columns ----------------------------------------------------------------- */

/* A column's HDF5 type in the file (little-endian) or in memory. */
static hid_t col_type(const stsl_study_h5 *w, ctype t, int in_file)
{
    return t == C_F64   ? (in_file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE)
           : t == C_I64 ? (in_file ? H5T_STD_I64LE : H5T_NATIVE_INT64)
           : t == C_I8  ? (in_file ? H5T_STD_I8LE : H5T_NATIVE_INT8)
                        : w->str_t;
}

/* The columns: HEAD, events_<kind> for every kind, TAIL. */
static void layout_cols(stsl_study_h5 *w, const stsl_study_info *info)
{
    w->n_cols = 0;
    for (int i = 0; i < N_HEAD; i++)
        w->cols[w->n_cols++] = HEAD[i];
    for (int k = 0; k < info->n_kinds; k++) {
        col *c = &w->cols[w->n_cols++];
        snprintf(c->name, sizeof c->name, "events_%.50s", info->kind_names[k]);
        c->type = C_I64;
        c->off = offsetof(stsl_study_row, events) + (size_t)k * sizeof(long);
        c->unit = '1';
    }
    for (int i = 0; i < N_TAIL; i++)
        w->cols[w->n_cols++] = TAIL[i];
    /* A system's per-member columns (writer_new checked their number). */
    for (int k = 0; k < info->n_members; k++) {
        col *c = &w->cols[w->n_cols++];
        snprintf(c->name, sizeof c->name, "%.63s", info->member_names[k]);
        c->type = C_F64;
        c->off = offsetof(stsl_study_row, member) + (size_t)k * sizeof(double);
        c->unit = 'm';
        c->units = info->member_units[k];
    }
}

static const char *unit_of(const col *c, const stsl_study_info *info)
{
    const char *u = c->unit == 't'   ? info->time_units
                    : c->unit == 'x' ? info->x_units
                    : c->unit == 'v' ? info->v_units
                    : c->unit == 'E' ? info->energy_units
                    : c->unit == 's' ? "s"
                    : c->unit == 'm' ? c->units
                                     : "";
    return u ? u : "";
}

/* Fixed shape n_runs, chunked; the fill value marks rows not yet run. */
static hid_t make_column(stsl_study_h5 *w, hid_t g, const col *c, const stsl_study_info *info)
{
    hsize_t dim = (hsize_t)w->n_runs, chunk = dim < CHUNK ? dim : CHUNK;
    hid_t space = H5Screate_simple(1, &dim, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), d = -1;
    int8_t not_run = STSL_ROW_NOT_RUN;
    double nan = NAN;
    int ok = space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, &chunk) >= 0;
    if (ok && c->type == C_I8) ok = H5Pset_fill_value(dcpl, H5T_NATIVE_INT8, &not_run) >= 0;
    if (ok && c->type == C_F64) ok = H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan) >= 0;
    if (ok)
        d = H5Dcreate2(g, c->name, col_type(w, c->type, 1), space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d >= 0 && stsl_h5_put_attr_str(d, "units", unit_of(c, info)) < 0) {
        H5Dclose(d);
        d = -1;
    }
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return d;
}

/* Gather one column of the block into scratch and write it. */
static int write_column(stsl_study_h5 *w, int j)
{
    const col *c = &w->cols[j];
    for (int i = 0; i < w->n_block; i++) {
        const char *p = (const char *)&w->block[i] + c->off;
        if (c->type == C_F64)
            ((double *)w->scratch)[i] = *(const double *)p;
        else if (c->type == C_I64)
            ((int64_t *)w->scratch)[i] = *(const long *)p;
        else if (c->type == C_I8)
            ((int8_t *)w->scratch)[i] = (int8_t) * (const int *)p;
        else
            ((const char **)w->scratch)[i] = p;
    }
    return stsl_h5_rows(w->ds[j], col_type(w, c->type, 0), (hsize_t)w->n_written,
                        (hsize_t)w->n_block, NULL, w->scratch);
}

static int write_block(stsl_study_h5 *w, stsl_error *err)
{
    for (int j = 0; j < w->n_cols; j++)
        if (write_column(w, j) < 0) {
            char what[128];
            snprintf(what, sizeof what, "write /study/summary/%s", w->cols[j].name);
            return stsl_h5_fail(err, w->path, what);
        }
    w->n_written += w->n_block;
    w->n_block = 0;
    return STSL_OK;
}

/* ---- events ------------------------------------------------------------------ */

/* One /study/events row in memory: the event as appended (HDF5 converts
 * its int modes to the file's int8), its kind's name and its variant. */
typedef struct ev_rec {
    stsl_study_event e;
    char kind[KIND_LEN];
    int64_t variant;
} ev_rec;

/* The /study/events compound: a single run's /events type (io/result/h5_types,
 * packed in the file when `packed`, ev_rec in memory) with `variant` (i64)
 * added as its last member. */
static hid_t event_type(int packed)
{
    static const stsl_h5_event_layout mem = {
        sizeof(ev_rec),
        {offsetof(ev_rec, e.t), offsetof(ev_rec, kind), offsetof(ev_rec, e.mode_before),
         offsetof(ev_rec, e.mode_after), offsetof(ev_rec, e.x), offsetof(ev_rec, e.v_before),
         offsetof(ev_rec, e.v_after), offsetof(ev_rec, e.net_force), offsetof(ev_rec, e.friction)},
        sizeof(int),
        KIND_LEN,
        H5T_STR_NULLPAD,
        {0},
        0};
    hid_t c = stsl_h5_event_type(&mem, packed);
    size_t size = c < 0 ? 0 : H5Tget_size(c);
    if (c < 0 || (packed && H5Tset_size(c, size + 8) < 0) ||
        H5Tinsert(c, "variant", packed ? size : offsetof(ev_rec, variant),
                  packed ? H5T_STD_I64LE : H5T_NATIVE_INT64) < 0) {
        if (c >= 0) H5Tclose(c);
        return -1;
    }
    return c;
}

static int make_events(stsl_study_h5 *w, const stsl_study_info *info)
{
    hsize_t dim = 0, maxdim = H5S_UNLIMITED, chunk = EV_CHUNK;
    hid_t ftype = event_type(1), space = H5Screate_simple(1, &dim, &maxdim);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    char *kinds = stsl_h5_join_names(info->kind_names, info->n_kinds, 0),
         *modes = stsl_h5_join_names(info->mode_names, info->n_modes, 1), units[256];
    snprintf(units, sizeof units,
             "t [s], x [%s], v_before [%s], v_after [%s], net_force [%s], friction [%s]",
             info->x_units, info->v_units, info->v_units, info->force_units, info->force_units);
    int rc = !kinds || !modes || ftype < 0 || space < 0 || dcpl < 0 ||
             H5Pset_chunk(dcpl, 1, &chunk) < 0 ||
             (w->ev_ds = H5Dcreate2(w->study, "events", ftype, space, H5P_DEFAULT, dcpl,
                                    H5P_DEFAULT)) < 0 ||
             stsl_h5_put_attr_str(w->ev_ds, "kind_names", kinds) < 0 ||
             stsl_h5_put_attr_str(w->ev_ds, "mode_names", modes) < 0 ||
             stsl_h5_put_attr_str(w->ev_ds, "units", units) < 0 ||
             stsl_h5_put_attr_i64(w->study, "n_event_rows", 0) < 0;
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    if (ftype >= 0) H5Tclose(ftype);
    free(kinds);
    free(modes);
    return rc ? -1 : 0;
}

static int append_events(stsl_study_h5 *w, long variant, const stsl_study_row *row)
{
    if (w->ev_ds < 0 || row->n_ev == 0) return 0;
    ev_rec *buf = calloc((size_t)row->n_ev, sizeof *buf);
    if (!buf) return -1;
    for (long i = 0; i < row->n_ev; i++) {
        int k = row->ev[i].kind;
        buf[i].e = row->ev[i];
        buf[i].variant = variant;
        if (k >= 0 && k < STSL_STUDY_MAX_KINDS)
            memcpy(buf[i].kind, w->kinds[k], KIND_LEN); /* null-padded */
    }
    hsize_t total = (hsize_t)(w->n_ev_rows + row->n_ev);
    int rc = H5Dset_extent(w->ev_ds, &total) < 0 ||
             stsl_h5_rows(w->ev_ds, w->ev_mtype, (hsize_t)w->n_ev_rows, (hsize_t)row->n_ev, NULL,
                          buf) < 0;
    free(buf);
    if (!rc) w->n_ev_rows += row->n_ev;
    return rc ? -1 : 0;
}

/* Resume: drop the events of rows that were not declared done. */
static int reopen_events(stsl_study_h5 *w)
{
    int64_t n = 0;
    hsize_t dim;
    if ((w->ev_ds = H5Dopen2(w->study, "events", H5P_DEFAULT)) < 0 ||
        stsl_h5_get_attr_num(w->study, "n_event_rows", H5T_NATIVE_INT64, &n) < 0 || n < 0)
        return -1;
    dim = (hsize_t)n;
    w->n_ev_rows = (long)n;
    return H5Dset_extent(w->ev_ds, &dim) < 0 ? -1 : 0;
}

/* ---- store: full ------------------------------------------------------------- */

/* The row's run replayed into a single run's layout in /runs/NNNNNN (a
 * failure deletes the half-written group). */
static int append_run(stsl_study_h5 *w, long variant, const stsl_study_row *row, stsl_error *err)
{
    if (w->runs < 0 || !row->run) return STSL_OK;
    const char *yaml = row->run;
    size_t n = strnlen(yaml, row->run_size);
    if (n == row->run_size)
        return stsl_error_set(err, STSL_EINPUT, "%s: variant %ld: its run has no configuration",
                              w->path, variant);
    char name[32], label[4200];
    snprintf(name, sizeof name, "%06ld", variant); /* /runs/NNNNNN: at least six digits */
    snprintf(label, sizeof label, "%.4096s:/runs/%s", w->path, name);
    stsl_sink sink = {0};
    int rc = stsl_h5_sink_create_in(w->runs, name, label, yaml, w->version, &sink, err);
    if (!rc)
        rc = stsl_record_replay((const char *)row->run + n + 1, row->run_size - n - 1, &sink, err);
    stsl_sink_free(&sink);
    return rc;
}

typedef struct stale {
    long keep; /* groups of variants below this are done */
    long n, cap;
    char (*names)[32];
} stale;

static herr_t find_stale(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g, (void)info;
    stale *st = data;
    char *end;
    long i = strtol(name, &end, 10);
    if (*end == '\0' && end != name && i < st->keep) return 0;
    if (st->n == st->cap) {
        long cap = st->cap ? 2 * st->cap : 16;
        void *p = realloc(st->names, (size_t)cap * sizeof *st->names);
        if (!p) return -1;
        st->names = p;
        st->cap = cap;
    }
    snprintf(st->names[st->n++], sizeof st->names[0], "%s", name);
    return 0;
}

/* Resume: delete /runs/NNNNNN of every row not declared done (and any other
 * member), then flush, so that the file as flushed no longer names them
 * before their space can be used again. */
static int reopen_runs(stsl_study_h5 *w)
{
    stale st = {w->n_done, 0, 0, NULL};
    if ((w->runs = H5Gopen2(w->file, "runs", H5P_DEFAULT)) < 0) return -1;
    int rc = H5Literate(w->runs, H5_INDEX_NAME, H5_ITER_INC, NULL, find_stale, &st) < 0 ? -1 : 0;
    for (long i = 0; !rc && i < st.n; i++)
        if (H5Ldelete(w->runs, st.names[i], H5P_DEFAULT) < 0) rc = -1;
    if (!rc && st.n > 0 && H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0) rc = -1;
    free(st.names);
    return rc;
}

/* How many results /runs holds (0 without it). */
static long count_runs(hid_t file)
{
    H5G_info_t gi;
    if (H5Lexists(file, "runs", H5P_DEFAULT) <= 0 ||
        H5Gget_info_by_name(file, "runs", &gi, H5P_DEFAULT) < 0)
        return 0;
    return (long)gi.nlinks;
}

/* ---- file -------------------------------------------------------------------- */

/* HDF5 writes metadata whenever its cache evicts an entry; with evictions
 * off, the file changes only at H5Fflush (and raw data in place), so a kill
 * between flushes leaves the file as of the last flush. */
static hid_t fapl_no_evictions(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5AC_cache_config_t c;
    c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (fapl < 0 || stsl_h5_use_driver(fapl) < 0 || H5Pget_mdc_config(fapl, &c) < 0) goto err;
    c.evictions_enabled = 0;
    c.incr_mode = H5C_incr__off;
    c.flash_incr_mode = H5C_flash_incr__off;
    c.decr_mode = H5C_decr__off;
    if (H5Pset_mdc_config(fapl, &c) < 0) goto err;
    return fapl;
err:
    if (fapl >= 0) H5Pclose(fapl);
    return -1;
}

static stsl_study_h5 *writer_new(const char *path, const stsl_study *s, const stsl_study_info *info,
                                 stsl_error *err)
{
    stsl_study_h5 *w = calloc(1, sizeof *w);
    if (!w) goto nomem;
    w->file = w->study = w->str_t = w->ev_ds = w->ev_mtype = w->runs = -1;
    for (int j = 0; j < MAX_COLS; j++)
        w->ds[j] = -1;
    w->path = strdup(path);
    w->version = strdup(info->version ? info->version : "");
    w->block = malloc(BLOCK * sizeof *w->block);
    w->scratch = malloc(BLOCK * sizeof(double));
    if (!w->path || !w->version || !w->block || !w->scratch) goto nomem;
    w->n_runs = stsl_study_n_variants(s);
    if (info->n_kinds > STSL_STUDY_MAX_KINDS) {
        stsl_error_set(err, STSL_EINPUT, "%s: %d event kinds (at most %d)", path, info->n_kinds,
                       STSL_STUDY_MAX_KINDS);
        goto fail;
    }
    if (info->n_members > STSL_STUDY_MAX_MEMBERS) {
        stsl_error_set(err, STSL_EINPUT, "%s: %d per-member columns (at most %d)", path,
                       info->n_members, STSL_STUDY_MAX_MEMBERS);
        goto fail;
    }
    layout_cols(w, info);
    for (int k = 0; k < info->n_kinds; k++)
        snprintf(w->kinds[k], sizeof w->kinds[k], "%s", info->kind_names[k]);
    if (stsl_study_store(s) == STSL_STORE_EVENTS && (w->ev_mtype = event_type(0)) < 0) {
        stsl_h5_fail(err, path, "make the event type");
        goto fail;
    }
    if ((w->str_t = stsl_h5_vlen_str_type()) >= 0) return w;
    stsl_h5_fail(err, path, "make a string type");
    goto fail;
nomem:
    stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path);
fail:
    stsl_study_h5_close(w, NULL);
    return NULL;
}

/* /study/parameters: one column per key, every variant, in blocks. */
static int write_parameters(stsl_study_h5 *w, const stsl_study *s)
{
    int k = stsl_study_n_keys(s), rc = -1;
    hsize_t dim = (hsize_t)w->n_runs, chunk = dim < CHUNK ? dim : CHUNK;
    hid_t g = stsl_h5_ordered_group(w->study, "parameters"), ds[STSL_STUDY_MAX_KEYS];
    hid_t space = H5Screate_simple(1, &dim, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    double *buf = malloc((size_t)k * CHUNK * sizeof *buf), vals[STSL_STUDY_MAX_KEYS];
    int made = 0;
    if (g < 0 || space < 0 || dcpl < 0 || !buf || H5Pset_chunk(dcpl, 1, &chunk) < 0) goto out;
    for (; made < k; made++)
        if ((ds[made] = H5Dcreate2(g, stsl_study_key(s, made), H5T_IEEE_F64LE, space, H5P_DEFAULT,
                                   dcpl, H5P_DEFAULT)) < 0)
            goto out;
    for (long first = 0; first < w->n_runs; first += CHUNK) {
        long n = w->n_runs - first < CHUNK ? w->n_runs - first : CHUNK;
        for (long i = 0; i < n; i++) {
            stsl_study_values(s, first + i, vals);
            for (int j = 0; j < k; j++)
                buf[(size_t)j * CHUNK + (size_t)i] = vals[j];
        }
        for (int j = 0; j < k; j++)
            if (stsl_h5_rows(ds[j], H5T_NATIVE_DOUBLE, (hsize_t)first, (hsize_t)n, NULL,
                             buf + (size_t)j * CHUNK) < 0)
                goto out;
    }
    rc = 0;
out:
    for (int j = 0; j < made; j++)
        H5Dclose(ds[j]);
    free(buf);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    if (g >= 0) H5Gclose(g);
    return rc;
}

static int write_header(stsl_study_h5 *w, const stsl_study *s, const stsl_study_info *info)
{
    static const char *const COMBINE[] = {"grid", "zip", "latin_hypercube"};
    char created[32];
    stsl_out_utc_now(created, sizeof created);
    if (stsl_h5_put_attr_str(w->study, "program", "stickslip") < 0 ||
        stsl_h5_put_attr_str(w->study, "version", info->version) < 0 ||
        stsl_h5_put_attr_str(w->study, "created", created) < 0 ||
        stsl_h5_put_attr_int(w->study, "complete", 0) < 0 ||
        stsl_h5_put_attr_i64(w->study, "n_runs", w->n_runs) < 0 ||
        stsl_h5_put_attr_i64(w->study, "n_done", 0) < 0 ||
        stsl_h5_put_attr_i64(w->study, "n_failed", 0) < 0 ||
        stsl_h5_put_attr_str(w->study, "store", stsl_store_name(stsl_study_store(s))) < 0 ||
        stsl_h5_put_attr_str(w->study, "combine", COMBINE[stsl_study_combine(s)]) < 0 ||
        stsl_h5_put_text(w->study, "study_yaml", stsl_study_text(s)) < 0 ||
        stsl_h5_put_text(w->study, "base_config", info->base_yaml) < 0)
        return -1;
    return 0;
}

static int make_summary(stsl_study_h5 *w, const stsl_study_info *info)
{
    hid_t g = stsl_h5_ordered_group(w->study, "summary");
    int rc = g < 0 ? -1 : 0;
    for (int j = 0; !rc && j < w->n_cols; j++)
        rc = (w->ds[j] = make_column(w, g, &w->cols[j], info)) < 0 ? -1 : 0;
    if (g >= 0) H5Gclose(g);
    return rc;
}

static int create_impl(const char *path, const stsl_study *s, const stsl_study_info *info,
                       stsl_study_h5 **out, stsl_error *err)
{
    const char *what = "create the file";
    *out = NULL;
    char *tmp = NULL;
    stsl_output_mark mark;
    int rc = stsl_out_make_parent_dirs(path, err), replaced;
    if (!rc) rc = stsl_output_temp(path, &tmp, &mark, err);
    if (rc) return rc;
    stsl_study_h5 *w = writer_new(path, s, info, err);
    if (!w) {
        remove(tmp);
        free(tmp);
        return err ? err->code : STSL_ENOMEM;
    }
    hid_t fapl = fapl_no_evictions();
    if (fapl < 0 || (w->file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0) goto h5err;
    what = "create /study";
    if ((w->study = stsl_h5_ordered_group(w->file, "study")) < 0 || write_header(w, s, info) < 0)
        goto h5err;
    what = "write /study/parameters";
    if (write_parameters(w, s) < 0) goto h5err;
    what = "create /study/summary";
    if (make_summary(w, info) < 0) goto h5err;
    what = "create /study/events";
    if (w->ev_mtype >= 0 && make_events(w, info) < 0) goto h5err;
    what = "create /runs";
    if (stsl_study_store(s) == STSL_STORE_FULL &&
        (w->runs = H5Gcreate2(w->file, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        goto h5err;
    what = "flush the file";
    if (H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0) goto h5err;
    H5Pclose(fapl);
    /* Renamed into place once whole: a study that cannot even be created
     * leaves nothing (and an earlier file of that name as it was); rows
     * are then appended in place, so an interrupted study can resume. */
    if ((rc = stsl_output_commit(tmp, path, &mark, &replaced, err)) != STSL_OK) {
        stsl_study_h5_close(w, NULL);
        remove(tmp);
        free(tmp);
        return rc;
    }
    free(tmp);
    *out = w;
    return STSL_OK;
h5err:
    rc = stsl_h5_fail(err, path, what);
    if (fapl >= 0) H5Pclose(fapl);
    stsl_study_h5_close(w, NULL);
    remove(tmp);
    free(tmp);
    return rc;
}

/* ---- resume ------------------------------------------------------------------ */

/* 1 when the text /study/NAME is `want`, 0 when it is another, -1 when it
 * is missing or not one text (not a string, or an array of them). */
static int same_text(hid_t loc, const char *name, const char *want)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    char *have = d >= 0 ? stsl_h5_read_string(d, 0) : NULL;
    if (d >= 0) H5Dclose(d);
    int same = have ? strcmp(have, want) == 0 : -1;
    free(have);
    return same;
}

static int not_one_text(const stsl_study_h5 *w, const char *name, stsl_error *err)
{
    return stsl_error_set(err, STSL_EINPUT,
                          "%s: /study/%s is not one text (missing, not a string, or an array "
                          "of them): not a stickslip study file; cannot resume",
                          w->path, name);
}

static int check_same_study(stsl_study_h5 *w, const stsl_study *s, const stsl_study_info *info,
                            stsl_error *err)
{
    int64_t n_runs = -1, n_done = -1, n_failed = -1;
    if (stsl_h5_get_attr_num(w->study, "n_runs", H5T_NATIVE_INT64, &n_runs) < 0 ||
        stsl_h5_get_attr_num(w->study, "n_done", H5T_NATIVE_INT64, &n_done) < 0 ||
        stsl_h5_get_attr_num(w->study, "n_failed", H5T_NATIVE_INT64, &n_failed) < 0 || n_done < 0 ||
        n_done > n_runs || n_failed < 0 || n_failed > n_done)
        return stsl_error_set(err, STSL_EINPUT, "%s: not a stickslip study file (/study counts)",
                              w->path);
    int same = same_text(w->study, "study_yaml", stsl_study_text(s));
    if (same < 0) return not_one_text(w, "study_yaml", err);
    if (!same || n_runs != w->n_runs)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: was started from another study file (its /study/study_yaml "
                              "differs from %s): cannot resume",
                              w->path, stsl_study_origin(s));
    if ((same = same_text(w->study, "base_config", info->base_yaml)) < 0)
        return not_one_text(w, "base_config", err);
    if (!same)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: was started with another base configuration (base file or "
                              "--set changed): cannot resume",
                              w->path);
    w->n_done = w->n_written = w->n_resumed = (long)n_done;
    w->n_failed = (long)n_failed;
    return STSL_OK;
}

static int open_columns(stsl_study_h5 *w, stsl_error *err)
{
    hid_t g = H5Gopen2(w->study, "summary", H5P_DEFAULT);
    if (g < 0) return stsl_h5_fail(err, w->path, "open /study/summary");
    hsize_t n_links = 0;
    H5G_info_t gi;
    if (H5Gget_info(g, &gi) >= 0) n_links = gi.nlinks;
    int rc = n_links == (hsize_t)w->n_cols ? STSL_OK : -1;
    for (int j = 0; !rc && j < w->n_cols; j++)
        if ((w->ds[j] = H5Dopen2(g, w->cols[j].name, H5P_DEFAULT)) < 0) rc = -1;
    H5Gclose(g);
    if (rc)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: /study/summary has other columns than this program writes "
                              "(another version or model?): cannot resume",
                              w->path);
    return STSL_OK;
}

static int resume_impl(const char *path, const stsl_study *s, const stsl_study_info *info,
                       stsl_study_h5 **out, stsl_error *err)
{
    *out = NULL;
    stsl_study_h5 *w = writer_new(path, s, info, err);
    if (!w) return err ? err->code : STSL_ENOMEM;
    int rc = STSL_OK;
    hid_t fapl = fapl_no_evictions();
    if (fapl >= 0) w->file = H5Fopen(path, H5F_ACC_RDWR, fapl);
    if (fapl < 0 || w->file < 0)
        rc = stsl_error_set(err, STSL_EINPUT,
                            "%s: cannot open it to resume (missing, not HDF5, or damaged)", path);
    if (!rc && (w->study = H5Gopen2(w->file, "study", H5P_DEFAULT)) < 0)
        rc = stsl_error_set(err, STSL_EINPUT, "%s: not a stickslip study file (no /study)", path);
    if (!rc) rc = check_same_study(w, s, info, err);
    if (!rc) rc = open_columns(w, err);
    if (!rc && w->ev_mtype >= 0 && reopen_events(w) < 0)
        rc = stsl_error_set(err, STSL_EINPUT, "%s: /study/events is missing or damaged", path);
    if (!rc && stsl_study_store(s) == STSL_STORE_FULL && reopen_runs(w) < 0)
        rc = stsl_error_set(err, STSL_EINPUT,
                            "%s: /runs is missing or damaged, or its unfinished results cannot "
                            "be removed",
                            path);
    if (fapl >= 0) H5Pclose(fapl);
    if (rc) {
        stsl_study_h5_close(w, NULL);
        return rc;
    }
    *out = w;
    return STSL_OK;
}

/* ---- rows -------------------------------------------------------------------- */

void stsl_study_row_clear(stsl_study_row *row)
{
    memset(row, 0, sizeof *row);
    row->status = STSL_ROW_NOT_RUN;
    /* Every float64 column's value (the counts stay 0). */
    for (int i = 0; i < N_HEAD + N_TAIL; i++) {
        const col *c = i < N_HEAD ? &HEAD[i] : &TAIL[i - N_HEAD];
        if (c->type == C_F64) *(double *)((char *)row + c->off) = NAN;
    }
    for (int k = 0; k < STSL_STUDY_MAX_MEMBERS; k++)
        row->member[k] = NAN;
}

long stsl_study_h5_n_done(const stsl_study_h5 *w)
{
    return w->n_done;
}

long stsl_study_h5_n_failed(const stsl_study_h5 *w)
{
    return w->n_failed;
}

static int flush_impl(stsl_study_h5 *w, stsl_error *err);

static int append_impl(stsl_study_h5 *w, const stsl_study_row *row, stsl_error *err)
{
    if (w->n_done >= w->n_runs)
        return stsl_error_set(err, STSL_EINPUT, "%s: all %ld rows are written already", w->path,
                              w->n_runs);
    if (append_events(w, w->n_done, row) < 0)
        return stsl_h5_fail(err, w->path, "append to /study/events");
    int rc = append_run(w, w->n_done, row, err);
    if (rc) return rc;
    if (row->run) w->runs_unflushed++;
    w->block[w->n_block++] = *row;
    w->block[w->n_block - 1].ev = NULL; /* borrowed: gone after this call */
    w->block[w->n_block - 1].run = NULL;
    w->n_done++;
    if (row->status != STSL_ROW_OK) w->n_failed++;
    if (w->runs_unflushed >= FULL_FLUSH_RUNS) return flush_impl(w, err);
    return w->n_block == BLOCK ? write_block(w, err) : STSL_OK;
}

static void close_objects(stsl_study_h5 *w)
{
    for (int j = 0; j < MAX_COLS; j++)
        if (w->ds[j] >= 0) H5Dclose(w->ds[j]);
    if (w->ev_ds >= 0) H5Dclose(w->ev_ds);
    if (w->runs >= 0) H5Gclose(w->runs);
    if (w->study >= 0) H5Gclose(w->study);
    for (int j = 0; j < MAX_COLS; j++)
        w->ds[j] = -1;
    w->ev_ds = w->runs = w->study = -1;
}

/* store: full: every result adds metadata (object headers, chunk indexes)
 * that HDF5's cache, kept from evicting between flushes, would hold to the
 * end of the study (measured: +0.3 MB a Janecek run, 600 MB after 2000).
 * Just after a flush every entry is clean: closing and reopening the file
 * empties the cache at no risk to what is on disk. */
static int reopen(stsl_study_h5 *w)
{
    int had_events = w->ev_ds >= 0;
    close_objects(w);
    int rc = stsl_h5_close_written(w->file) < 0;
    hid_t fapl = fapl_no_evictions();
    w->file = -1;
    rc = rc || fapl < 0 || (w->file = H5Fopen(w->path, H5F_ACC_RDWR, fapl)) < 0 ||
         (w->study = H5Gopen2(w->file, "study", H5P_DEFAULT)) < 0 ||
         open_columns(w, NULL) != STSL_OK ||
         (had_events && (w->ev_ds = H5Dopen2(w->study, "events", H5P_DEFAULT)) < 0) ||
         (w->runs = H5Gopen2(w->file, "runs", H5P_DEFAULT)) < 0;
    if (fapl >= 0) H5Pclose(fapl);
    return rc ? -1 : 0;
}

static int flush_impl(stsl_study_h5 *w, stsl_error *err)
{
    int rc = w->n_block ? write_block(w, err) : STSL_OK;
    if (rc) return rc;
    /* The rows first, then the counts that declare them done. */
    if (H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0 || update_i64(w->study, "n_done", w->n_done) < 0 ||
        update_i64(w->study, "n_failed", w->n_failed) < 0 ||
        (w->ev_ds >= 0 && update_i64(w->study, "n_event_rows", w->n_ev_rows) < 0) ||
        H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0)
        return stsl_h5_fail(err, w->path, "flush the summary");
    w->runs_unflushed = 0;
    if (w->runs >= 0 && reopen(w) < 0)
        return stsl_h5_fail(err, w->path, "reopen the file after a flush");
    return STSL_OK;
}

static int close_impl(stsl_study_h5 *w, stsl_error *err)
{
    if (!w) return STSL_OK;
    int rc = STSL_OK;
    if (w->file >= 0 && w->study >= 0 && err) {
        rc = stsl_study_h5_flush(w, err);
        int32_t complete = w->n_done == w->n_runs;
        if (!rc && update_attr(w->study, "complete", H5T_NATIVE_INT32, &complete) < 0)
            rc = stsl_h5_fail(err, w->path, "mark the study complete");
    }
    close_objects(w);
    if (w->ev_mtype >= 0) H5Tclose(w->ev_mtype);
    if (w->str_t >= 0) H5Tclose(w->str_t);
    if (w->file >= 0 && stsl_h5_close_written(w->file) < 0 && !rc && err)
        rc = stsl_h5_fail(err, w->path, "close the file");
    free(w->scratch);
    free(w->block);
    free(w->path);
    free(w->version);
    free(w);
    return rc;
}

/* ---- reading ----------------------------------------------------------------- */

/* These run inside the entry points' STSL_H5_QUIET (below). */

static int is_study_impl(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int yes = f >= 0 && H5Lexists(f, "study", H5P_DEFAULT) > 0;
    if (f >= 0) H5Fclose(f);
    return yes;
}

typedef struct reader {
    hid_t file, study, summary;
} reader;

static int reader_open(const char *path, reader *r, stsl_error *err)
{
    r->study = r->summary = -1;
    r->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (r->file >= 0) r->study = H5Gopen2(r->file, "study", H5P_DEFAULT);
    if (r->study >= 0) r->summary = H5Gopen2(r->study, "summary", H5P_DEFAULT);
    if (r->summary >= 0) return STSL_OK;
    if (r->study >= 0) H5Gclose(r->study);
    if (r->file >= 0) H5Fclose(r->file);
    return stsl_error_set(err, STSL_EINPUT, "%s: not a stickslip study file (%s)", path,
                          r->file < 0 ? "cannot open it as HDF5" : "no /study/summary");
}

static void reader_close(reader *r)
{
    H5Gclose(r->summary);
    H5Gclose(r->study);
    H5Fclose(r->file);
}

/* Rows [0, n_done): only those are declared done (see stsl_study_h5_flush). */
static long done_rows(const reader *r)
{
    int64_t n = 0;
    return stsl_h5_get_attr_num(r->study, "n_done", H5T_NATIVE_INT64, &n) < 0 ? -1 : (long)n;
}

static int read_doubles(const reader *r, const char *name, long first, long n, double *out)
{
    hid_t d = H5Dopen2(r->summary, name, H5P_DEFAULT);
    if (d < 0) return -1;
    int rc = stsl_h5_rows(d, H5T_NATIVE_DOUBLE, (hsize_t)first, (hsize_t)n, out, NULL);
    H5Dclose(d);
    return rc;
}

static int read_column_impl(const char *path, const char *name, double **data, long *n,
                            stsl_error *err)
{
    reader r;
    *data = NULL;
    *n = 0;
    int rc = reader_open(path, &r, err);
    if (rc) return rc;
    long rows = done_rows(&r);
    double *buf = rows >= 0 ? malloc((size_t)(rows ? rows : 1) * sizeof *buf) : NULL;
    if (!buf || (rows && read_doubles(&r, name, 0, rows, buf) < 0)) {
        free(buf);
        reader_close(&r);
        return stsl_error_set(err, STSL_EINPUT, "%s: cannot read /study/summary/%s", path, name);
    }
    reader_close(&r);
    *data = buf;
    *n = rows;
    return STSL_OK;
}

static int read_message_impl(const char *path, long i, char **msg, stsl_error *err)
{
    reader r;
    char *s = NULL;
    *msg = NULL;
    int rc = reader_open(path, &r, err);
    if (rc) return rc;
    hid_t t = stsl_h5_vlen_str_type(), d = H5Dopen2(r.summary, "message", H5P_DEFAULT);
    if (t < 0 || d < 0 || stsl_h5_rows(d, t, (hsize_t)i, 1, &s, NULL) < 0)
        rc = stsl_error_set(err, STSL_EINPUT, "%s: cannot read /study/summary/message[%ld]", path,
                            i);
    else
        *msg = strdup(s ? s : "");
    H5free_memory(s);
    if (d >= 0) H5Dclose(d);
    if (t >= 0) H5Tclose(t);
    reader_close(&r);
    return rc;
}

typedef struct walk {
    stsl_study_summary *sum;
    const reader *r;
    int8_t *status;
    double *vals;
} walk;

/* The numeric columns of /study/summary, in creation order. */
static void list_cols(const reader *r, stsl_study_summary *sum)
{
    H5G_info_t gi;
    if (H5Gget_info(r->summary, &gi) < 0) gi.nlinks = 0;
    for (hsize_t j = 0; j < gi.nlinks && sum->n_cols < STSL_STUDY_MAX_COLS; j++) {
        stsl_study_col_range *c = &sum->cols[sum->n_cols];
        if (H5Lget_name_by_idx(r->summary, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, j, c->name,
                               sizeof c->name, H5P_DEFAULT) < 0 ||
            !strcmp(c->name, "status") || !strcmp(c->name, "message"))
            continue;
        hid_t d = H5Dopen2(r->summary, c->name, H5P_DEFAULT);
        if (d >= 0) {
            stsl_h5_get_attr_str(d, "units", c->units, sizeof c->units);
            H5Dclose(d);
        }
        c->min = c->max = NAN;
        sum->n_cols++;
    }
}

static void fold(stsl_study_col_range *c, const int8_t *status, const double *v, long n)
{
    for (long i = 0; i < n; i++) {
        if (status[i] != STSL_ROW_OK || !isfinite(v[i])) continue;
        if (c->n_finite++ == 0 || v[i] < c->min) c->min = v[i];
        if (c->n_finite == 1 || v[i] > c->max) c->max = v[i];
    }
}

static int scan_block(walk *wk, long first, long n)
{
    stsl_study_summary *sum = wk->sum;
    hid_t d = H5Dopen2(wk->r->summary, "status", H5P_DEFAULT);
    int rc =
        d < 0 || stsl_h5_rows(d, H5T_NATIVE_INT8, (hsize_t)first, (hsize_t)n, wk->status, NULL) < 0;
    if (d >= 0) H5Dclose(d);
    for (long i = 0; !rc && i < n && sum->n_first_failures < 5; i++)
        if (wk->status[i] > STSL_ROW_OK) sum->failure_index[sum->n_first_failures++] = first + i;
    for (int j = 0; !rc && j < sum->n_cols; j++) {
        rc = read_doubles(wk->r, sum->cols[j].name, first, n, wk->vals) < 0;
        if (!rc) fold(&sum->cols[j], wk->status, wk->vals, n);
    }
    return rc;
}

static void key_ranges(const reader *r, stsl_study_summary *sum, double *vals)
{
    hid_t g = H5Gopen2(r->study, "parameters", H5P_DEFAULT);
    H5G_info_t gi;
    if (g < 0 || H5Gget_info(g, &gi) < 0) gi.nlinks = 0;
    for (hsize_t j = 0; j < gi.nlinks && sum->n_keys < STSL_STUDY_MAX_KEYS; j++) {
        int k = sum->n_keys++;
        H5Lget_name_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, j, sum->keys[k],
                           sizeof sum->keys[k], H5P_DEFAULT);
        stsl_study_col_range c = {.min = NAN, .max = NAN};
        hid_t d = H5Dopen2(g, sum->keys[k], H5P_DEFAULT);
        int8_t ok[READ_BLOCK];
        memset(ok, STSL_ROW_OK, sizeof ok);
        for (long first = 0; d >= 0 && first < sum->n_runs; first += READ_BLOCK) {
            long n = sum->n_runs - first < READ_BLOCK ? sum->n_runs - first : READ_BLOCK;
            if (stsl_h5_rows(d, H5T_NATIVE_DOUBLE, (hsize_t)first, (hsize_t)n, vals, NULL) < 0)
                break;
            fold(&c, ok, vals, n);
        }
        if (d >= 0) H5Dclose(d);
        sum->key_min[k] = c.min;
        sum->key_max[k] = c.max;
    }
    if (g >= 0) H5Gclose(g);
}

static int read_header(const reader *r, stsl_study_summary *sum)
{
    int32_t complete = 0;
    int64_t n_runs = 0, n_done = 0, n_failed = 0;
    int rc = stsl_h5_get_attr_str(r->study, "version", sum->version, sizeof sum->version) < 0 ||
             stsl_h5_get_attr_str(r->study, "created", sum->created, sizeof sum->created) < 0 ||
             stsl_h5_get_attr_str(r->study, "store", sum->store, sizeof sum->store) < 0 ||
             stsl_h5_get_attr_str(r->study, "combine", sum->combine, sizeof sum->combine) < 0 ||
             stsl_h5_get_attr_num(r->study, "complete", H5T_NATIVE_INT32, &complete) < 0 ||
             stsl_h5_get_attr_num(r->study, "n_runs", H5T_NATIVE_INT64, &n_runs) < 0 ||
             stsl_h5_get_attr_num(r->study, "n_done", H5T_NATIVE_INT64, &n_done) < 0 ||
             stsl_h5_get_attr_num(r->study, "n_failed", H5T_NATIVE_INT64, &n_failed) < 0;
    sum->complete = complete;
    sum->n_runs = (long)n_runs;
    sum->n_done = (long)n_done;
    sum->n_failed = (long)n_failed;
    return rc;
}

static int summarise_impl(const char *path, stsl_study_summary *sum, stsl_error *err)
{
    reader r;
    memset(sum, 0, sizeof *sum);
    int rc = reader_open(path, &r, err);
    if (rc) return rc;
    walk wk = {sum, &r, malloc(READ_BLOCK), malloc(READ_BLOCK * sizeof(double))};
    if (!wk.status || !wk.vals) {
        rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    rc = read_header(&r, sum) ? -1 : 0;
    if (!rc) list_cols(&r, sum);
    for (long first = 0; !rc && first < sum->n_done; first += READ_BLOCK)
        rc = scan_block(&wk, first,
                        sum->n_done - first < READ_BLOCK ? sum->n_done - first : READ_BLOCK);
    if (!rc) key_ranges(&r, sum, wk.vals);
    if (!rc) sum->n_full_runs = count_runs(r.file);
    if (rc) {
        rc = stsl_error_set(err, STSL_EINPUT, "%s: damaged or not a stickslip study file", path);
        goto out;
    }
    reader_close(&r);
    r.file = -1;
    for (int i = 0; i < sum->n_first_failures && !rc; i++) {
        char *m = NULL;
        rc = stsl_study_h5_read_message(path, sum->failure_index[i], &m, err);
        if (m) snprintf(sum->failure_message[i], STSL_ROW_MSG_MAX, "%s", m);
        free(m);
    }
out:
    if (r.file >= 0) reader_close(&r);
    free(wk.status);
    free(wk.vals);
    return rc;
}

/* ---- CSV --------------------------------------------------------------------- */

/* Rows per block of the CSV export (all columns at once: 4 MiB). */
#define CSV_BLOCK 4096

/* The datasets of a group in creation order, opened (at most MAX_COLS). */
static int open_all(hid_t g, hid_t *ds, char names[][64], int *is_int)
{
    H5G_info_t gi;
    int n = 0;
    if (H5Gget_info(g, &gi) < 0) return -1;
    for (hsize_t j = 0; j < gi.nlinks && n < MAX_COLS; j++, n++) {
        if (H5Lget_name_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, j, names[n], 64,
                               H5P_DEFAULT) < 0 ||
            (ds[n] = H5Dopen2(g, names[n], H5P_DEFAULT)) < 0)
            return -1;
        hid_t t = H5Dget_type(ds[n]);
        H5T_class_t cl = H5Tget_class(t);
        H5Tclose(t);
        is_int[n] = cl == H5T_INTEGER ? 1 : cl == H5T_STRING ? 2 : 0;
    }
    return n;
}

static void csv_header(FILE *f, hid_t *ds, char names[][64], int n, const char *prefix)
{
    for (int j = 0; j < n; j++) {
        char units[32] = "";
        stsl_h5_get_attr_str(ds[j], "units", units, sizeof units);
        fprintf(f, ",%s%s%s%s", prefix, names[j], units[0] ? " [" : "", units[0] ? units : "");
        if (units[0]) fputc(']', f);
    }
}

static void csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

typedef struct csv_cols {
    int n;
    hid_t ds[MAX_COLS];
    char names[MAX_COLS][64];
    int kind[MAX_COLS]; /* 0 float, 1 integer, 2 string */
} csv_cols;

static int csv_block(FILE *f, const csv_cols *p, const csv_cols *c, long first, long n,
                     double *vals, char **strs, hid_t str_t)
{
    const csv_cols *sets[2] = {p, c};
    for (int s = 0; s < 2; s++)
        for (int j = 0; j < sets[s]->n; j++) {
            double *v = vals + (size_t)(s * MAX_COLS + j) * CSV_BLOCK;
            int rc = sets[s]->kind[j] == 2 ? stsl_h5_rows(sets[s]->ds[j], str_t, (hsize_t)first,
                                                          (hsize_t)n, strs, NULL)
                                           : stsl_h5_rows(sets[s]->ds[j], H5T_NATIVE_DOUBLE,
                                                          (hsize_t)first, (hsize_t)n, v, NULL);
            if (rc < 0) return -1;
        }
    for (long i = 0; i < n; i++) {
        fprintf(f, "%ld", first + i);
        for (int s = 0; s < 2; s++)
            for (int j = 0; j < sets[s]->n; j++) {
                double v = vals[(size_t)(s * MAX_COLS + j) * CSV_BLOCK + (size_t)i];
                fputc(',', f);
                if (sets[s]->kind[j] == 2)
                    csv_quoted(f, strs[i]);
                else
                    fprintf(f, sets[s]->kind[j] ? "%.0f" : "%.17g", v);
            }
        fputc('\n', f);
    }
    for (long i = 0; i < n; i++)
        H5free_memory(strs[i]);
    return 0;
}

static int write_csv_impl(const char *path, const char *csv_path, stsl_error *err)
{
    reader r;
    int rc = reader_open(path, &r, err);
    if (rc) return rc;
    csv_cols p = {0}, c = {0};
    hid_t g = -1, str_t = stsl_h5_vlen_str_type();
    double *vals = malloc((size_t)2 * MAX_COLS * CSV_BLOCK * sizeof *vals);
    char **strs = calloc(CSV_BLOCK, sizeof *strs);
    FILE *f = NULL;
    stsl_out_text t = {0};
    long rows = done_rows(&r);
    g = H5Gopen2(r.study, "parameters", H5P_DEFAULT);
    p.n = g < 0 ? -1 : open_all(g, p.ds, p.names, p.kind);
    c.n = open_all(r.summary, c.ds, c.names, c.kind);
    if (p.n < 0 || c.n < 0 || rows < 0 || !vals || !strs || str_t < 0) {
        rc = stsl_error_set(err, STSL_EINPUT, "%s: damaged or not a stickslip study file", path);
        goto out;
    }
    if ((rc = stsl_out_text_open(csv_path, &t, err)) != STSL_OK) goto out;
    f = t.f;
    fputs("variant", f);
    csv_header(f, p.ds, p.names, p.n, "");
    csv_header(f, c.ds, c.names, c.n, "");
    fputc('\n', f);
    for (long first = 0; first < rows && !rc; first += CSV_BLOCK)
        if (csv_block(f, &p, &c, first, rows - first < CSV_BLOCK ? rows - first : CSV_BLOCK, vals,
                      strs, str_t) < 0)
            rc = stsl_error_set(err, STSL_EIO, "%s: cannot read the summary", path);
    if (rc)
        stsl_out_text_discard(&t);
    else
        rc = stsl_out_text_commit(&t, err);
out:
    for (int j = 0; j < p.n; j++)
        H5Dclose(p.ds[j]);
    for (int j = 0; j < c.n; j++)
        H5Dclose(c.ds[j]);
    if (g >= 0) H5Gclose(g);
    if (str_t >= 0) H5Tclose(str_t);
    free(vals);
    free(strs);
    reader_close(&r);
    return rc;
}

/* ---- entry points ------------------------------------------------------------ */

int stsl_study_h5_create(const char *path, const stsl_study *s, const stsl_study_info *info,
                         stsl_study_h5 **out, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(create_impl(path, s, info, out, err));
}

int stsl_study_h5_resume(const char *path, const stsl_study *s, const stsl_study_info *info,
                         stsl_study_h5 **out, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(resume_impl(path, s, info, out, err));
}

static int summarise_impl(const char *path, stsl_study_summary *sum, stsl_error *err);

/* A write failed (disk full, file-size limit): HDF5 may have left the
 * superblock claiming more than reached the disk, and then the file does
 * not read, or reads but fails the next write (seen under ulimit -f).  A
 * study begun in this call is removed: nothing is left under its name.  A
 * resumed one holds earlier sessions' rows: kept, saying so. */
static int after_io_error(stsl_study_h5 *w, int rc, stsl_error *err)
{
    if (rc != STSL_EIO || w->file < 0) return rc;
    close_objects(w);
    stsl_h5_close_written(w->file); /* given up by its driver: it closes */
    w->file = -1;
    char tail[STSL_ERRMSG_MAX];
    if (w->n_resumed == 0) {
        remove(w->path);
        snprintf(tail, sizeof tail, "; the unfinished study file is removed");
    } else {
        snprintf(tail, sizeof tail,
                 "; the study file is kept for the %ld variants earlier sessions wrote (it may "
                 "be damaged: copy it before resuming)",
                 w->n_resumed);
    }
    if (err) {
        size_t len = strlen(err->msg);
        snprintf(err->msg + len, sizeof err->msg - len, "%s", tail);
    }
    return rc;
}

int stsl_study_h5_append(stsl_study_h5 *w, const stsl_study_row *row, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(after_io_error(w, append_impl(w, row, err), err));
}

int stsl_study_h5_flush(stsl_study_h5 *w, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(after_io_error(w, flush_impl(w, err), err));
}

int stsl_study_h5_close(stsl_study_h5 *w, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(close_impl(w, err));
}

int stsl_study_h5_is_study(const char *path)
{
    STSL_H5_RETURN_QUIET(is_study_impl(path));
}

int stsl_study_h5_read_column(const char *path, const char *name, double **data, long *n,
                              stsl_error *err)
{
    STSL_H5_RETURN_QUIET(read_column_impl(path, name, data, n, err));
}

int stsl_study_h5_read_message(const char *path, long i, char **msg, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(read_message_impl(path, i, msg, err));
}

int stsl_study_h5_summarise(const char *path, stsl_study_summary *sum, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(summarise_impl(path, sum, err));
}

int stsl_study_h5_write_csv(const char *path, const char *csv_path, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(write_csv_impl(path, csv_path, err));
}
