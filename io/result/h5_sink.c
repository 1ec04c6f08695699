/* h5_sink.c - the HDF5 result writer.  The file layout is documented in
 * docs/hdf5-layout.md; users' scripts read it, so it changes only together
 * with that document. */
#include "io/result/h5_sink.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "io/result/h5_driver.h"
#include "io/result/h5_types.h"
#include "io/result/out_file.h"
#include "io/result/safe_output.h"

/* Rows per chunk and per in-memory block.  4096 float64 rows make 32 KiB
 * chunks: small enough that a short run wastes little, large enough that
 * appending a block is one chunk write per dataset. */
#define TRAJ_BLOCK 4096
/* Events are rare compared with samples; a smaller block keeps the buffer
 * at ~17 KiB. */
#define EV_BLOCK 256
/* Size of HDF5's metadata cache (chunk index nodes, object headers). */
#define MDC_BYTES (64 * 1024)
/* Longest mode name kept for the /stats attribute names. */
#define NAME_MAX_LEN 64

/* One /trajectory dataset besides t and mode: columns [first, first +
 * width) of the layout; width 0: the 1-D dataset of column `first` (the
 * element's), else a samples x width dataset (a column group). */
typedef struct h5_out {
    hid_t ds;
    int first, width;
    int integer; /* int8 values (a group of mode numbers) */
} h5_out;

typedef struct h5_sink {
    char *path, *tmp; /* a run in a group: both name it as "FILE:/GROUP" for messages */
    hid_t file;       /* the file this sink created (-1 for a run in a group) */
    hid_t root;       /* where the layout goes: the file, or the run's group */
    hid_t parent;     /* a run in a group: the group's parent (borrowed) and its name */
    char *group;
    hid_t t_ds;   /* /trajectory/t */
    h5_out *outs; /* the other datasets, in column order */
    int n_outs;
    hid_t mode_ds; /* /trajectory/mode (-1: a layout without a scalar mode) */
    hid_t ev_ds;   /* /events */
    hid_t ev_mtype;
    int began, ended;
    stsl_output_mark mark; /* the final path when the run began */
    int replaced;          /* end() replaced a result another run wrote meanwhile */
    int n_cols;
    double *buf;          /* (n_cols + 1) blocks of TRAJ_BLOCK values, t first */
    int8_t *mbuf;         /* TRAJ_BLOCK modes */
    void *pack;           /* TRAJ_BLOCK x (widest group) values: one group's rows */
    hsize_t nbuf;         /* rows buffered */
    hsize_t nrows;        /* rows already in the file */
    unsigned char *evbuf; /* EV_BLOCK rows of layout ev (memory type ev_mtype) */
    stsl_event_value ev_val[STSL_EVENT_VALUES]; /* the value members' sources */
    hsize_t nev_buf, nev_rows;
    stsl_h5_event_layout ev;
    int ix, iv;          /* columns of x and v (the estimated errors' units) */
    stsl_layout layout;  /* a copy: events and /stats name its kinds, subjects, modes */
    int no_layout;       /* end() before begin(): the element's empty layout */
    char err_units[192]; /* the estimated errors' units attribute (write_verify) */
    char *flat_names;    /* a grouped layout: n_cols names of FLAT_NAME_LEN ("x[motor]") */
} h5_sink;

/* Room for a grouped column's flat name: a group, a member name of at most
 * 63 bytes (STSL_BODY_NAME_MAX), brackets. */
#define FLAT_NAME_LEN 128

/* ---- HDF5 helpers ---------------------------------------------------------- */

/* An empty, chunked dataset, unlimited in its rows: 1-D (width 0) or
 * rows x width. */
static hid_t make_ext_dataset(hid_t loc, const char *name, hid_t ftype, hsize_t chunk, int width)
{
    int rank = width > 0 ? 2 : 1;
    hsize_t dim[2] = {0, (hsize_t)width}, maxdim[2] = {H5S_UNLIMITED, (hsize_t)width};
    hsize_t chunks[2] = {chunk, (hsize_t)width};
    hid_t space = -1, dcpl = -1, dapl = -1, d = -1;
    if ((space = H5Screate_simple(rank, dim, maxdim)) < 0) goto err;
    if ((dcpl = H5Pcreate(H5P_DATASET_CREATE)) < 0) goto err;
    if (H5Pset_chunk(dcpl, rank, chunks) < 0) goto err;
    /* No chunk cache: we append whole chunks from our own block, so a
     * cache (1 MiB per dataset by default) would only hold a second copy. */
    if ((dapl = H5Pcreate(H5P_DATASET_ACCESS)) < 0) goto err;
    if (H5Pset_chunk_cache(dapl, H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0, H5D_CHUNK_CACHE_W0_DEFAULT) < 0)
        goto err;
    d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, dapl);
err:
    if (dapl >= 0) H5Pclose(dapl);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (space >= 0) H5Sclose(space);
    return d;
}

/* Append `n` rows from `data` (memory type `mtype`, row-major) to a
 * dataset of `width` columns (0: 1-D) that already holds `have` rows. */
static int append_rows(hid_t d, hid_t mtype, hsize_t have, hsize_t n, int width, const void *data)
{
    int rc = -1, rank = width > 0 ? 2 : 1;
    hid_t fspace = -1, mspace = -1, xfer = -1;
    hsize_t total[2] = {have + n, (hsize_t)width}, start[2] = {have, 0},
            count[2] = {n, (hsize_t)width};
    if (H5Dset_extent(d, total) < 0) goto err;
    if ((fspace = H5Dget_space(d)) < 0) goto err;
    if (H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0) goto err;
    if ((mspace = H5Screate_simple(rank, count, NULL)) < 0) goto err;
    /* Numbers are written as they are in memory (no conversion buffer);
     * the events' compound is converted. */
    if (H5Tget_class(mtype) == H5T_COMPOUND &&
        (xfer = stsl_h5_xfer(d, mtype, n * (hsize_t)(width > 0 ? width : 1))) < 0)
        goto err;
    if (H5Dwrite(d, mtype, mspace, fspace, xfer >= 0 ? xfer : H5P_DEFAULT, data) < 0) goto err;
    rc = 0;
err:
    if (xfer >= 0) H5Pclose(xfer);
    if (mspace >= 0) H5Sclose(mspace);
    if (fspace >= 0) H5Sclose(fspace);
    return rc;
}

/* The members' place in a buffered /events row: t, kind, the two modes,
 * the values (arrays for grouped columns), index, name; each aligned for
 * its type, so HDF5 reads them in place. */
static void event_row_layout(stsl_h5_event_layout *ev)
{
    size_t at = 0;
    const size_t sizes[4] = {sizeof(double), STSL_H5_KIND_LEN, 1, 1};
    for (int i = 0; i < 4; i++) {
        ev->off[i] = at;
        at += sizes[i];
    }
    for (int i = 0; i < STSL_H5_EVENT_VALUES; i++) {
        at = (at + 7) & ~(size_t)7;
        ev->off[4 + i] = at;
        at += sizeof(double) * (size_t)(ev->width[i] > 0 ? ev->width[i] : 1);
    }
    ev->off[9] = at;
    at += sizeof(int32_t);
    at = (at + 7) & ~(size_t)7;
    ev->off[10] = at;
    at += sizeof(char *);
    ev->size = (at + 7) & ~(size_t)7;
    ev->mode_size = 1;
    ev->kind_size = STSL_H5_KIND_LEN;
    ev->kind_pad = H5T_STR_NULLPAD;
}

/* ---- buffering -------------------------------------------------------------- */

/* The buffered values of column c (TRAJ_BLOCK slots). */
static double *col_block(const h5_sink *h, int c)
{
    return h->buf + (size_t)(c + 1) * TRAJ_BLOCK;
}

/* Append the buffered rows of one dataset; a group's columns are gathered
 * into rows first. */
static int append_out(h5_sink *h, const h5_out *o)
{
    if (o->width == 0)
        return append_rows(o->ds, H5T_NATIVE_DOUBLE, h->nrows, h->nbuf, 0, col_block(h, o->first));
    double *d = h->pack;
    int8_t *b = h->pack;
    for (hsize_t i = 0; i < h->nbuf; i++)
        for (int k = 0; k < o->width; k++) {
            double v = col_block(h, o->first + k)[i];
            if (o->integer)
                b[i * (hsize_t)o->width + (hsize_t)k] = (int8_t)lrint(v);
            else
                d[i * (hsize_t)o->width + (hsize_t)k] = v;
        }
    return append_rows(o->ds, o->integer ? H5T_NATIVE_INT8 : H5T_NATIVE_DOUBLE, h->nrows, h->nbuf,
                       o->width, h->pack);
}

static int flush_samples(h5_sink *h, stsl_error *err)
{
    if (h->nbuf == 0) return STSL_OK;
    if (append_rows(h->t_ds, H5T_NATIVE_DOUBLE, h->nrows, h->nbuf, 0, h->buf) < 0)
        return stsl_h5_fail(err, h->path, "append to /trajectory/t");
    for (int o = 0; o < h->n_outs; o++)
        if (append_out(h, &h->outs[o]) < 0)
            return stsl_h5_fail(err, h->path, "append to /trajectory");
    if (h->mode_ds >= 0 &&
        append_rows(h->mode_ds, H5T_NATIVE_INT8, h->nrows, h->nbuf, 0, h->mbuf) < 0)
        return stsl_h5_fail(err, h->path, "append to /trajectory/mode");
    h->nrows += h->nbuf;
    h->nbuf = 0;
    return STSL_OK;
}

static int flush_events(h5_sink *h, stsl_error *err)
{
    if (h->nev_buf == 0) return STSL_OK;
    if (append_rows(h->ev_ds, h->ev_mtype, h->nev_rows, h->nev_buf, 0, h->evbuf) < 0)
        return stsl_h5_fail(err, h->path, "append to /events");
    h->nev_rows += h->nev_buf;
    h->nev_buf = 0;
    return STSL_OK;
}

/* ---- ops -------------------------------------------------------------------- */

static int check_layout(const h5_sink *h, const stsl_layout *l, stsl_error *err)
{
    if (l->n_cols < 0 || (l->n_cols > 0 && !l->cols))
        return stsl_error_set(err, STSL_EINPUT, "%s: invalid layout (%d columns)", h->path,
                              l->n_cols);
    if (l->n_modes < 0 || l->n_modes > STSL_MAX_MODES || (l->n_modes > 0 && !l->mode_names))
        return stsl_error_set(err, STSL_EINPUT, "%s: invalid layout: %d modes (at most %d)",
                              h->path, l->n_modes, STSL_MAX_MODES);
    if (l->n_kinds < 0 || (l->n_kinds > 0 && !l->kind_names))
        return stsl_error_set(err, STSL_EINPUT, "%s: invalid layout: %d event kinds", h->path,
                              l->n_kinds);
    int rc = stsl_layout_check_groups(l, h->path, err);
    if (rc) return rc;
    /* The datasets' names: a column's own, or its group's (at its first column). */
    for (int i = 0; i < l->n_cols; i++) {
        int g = stsl_layout_group_of(l, i);
        if (g >= 0 && l->groups[g].first != i) continue;
        const char *n = g >= 0 ? l->groups[g].name : l->cols[i].name;
        /* t and mode are datasets of their own; '/' and '.' would make
         * paths that do not name a dataset of /trajectory. */
        if (!n || !n[0] || strcmp(n, "t") == 0 || strcmp(n, "mode") == 0 || strchr(n, '/') ||
            strcmp(n, ".") == 0)
            return stsl_error_set(err, STSL_EINPUT, "%s: invalid layout column name '%s'", h->path,
                                  n ? n : "(null)");
        for (int j = 0; j < i; j++) {
            int gj = stsl_layout_group_of(l, j);
            if (gj >= 0 && l->groups[gj].first != j) continue;
            if (strcmp(gj >= 0 ? l->groups[gj].name : l->cols[j].name, n) == 0)
                return stsl_error_set(err, STSL_EINPUT, "%s: layout column '%s' appears twice",
                                      h->path, n);
        }
    }
    return STSL_OK;
}

/* The value members of /events: a grouped source column gives an array
 * of its group's width, a column of its own a float64, none NaN. */
static void event_sources(h5_sink *h, const stsl_layout *l)
{
    memset(&h->ev, 0, sizeof h->ev);
    stsl_layout_event_values(l, h->ev_val);
    for (int i = 0; i < STSL_H5_EVENT_VALUES; i++)
        h->ev.width[i] = h->ev_val[i].width;
    h->ev.subject = l->n_subjects > 0 ? STSL_H5_EV_INDEX | STSL_H5_EV_NAME : 0;
    event_row_layout(&h->ev);
}

static int make_events(h5_sink *h, const stsl_layout *l, stsl_error *err)
{
    int rc = STSL_OK;
    hid_t ftype = -1;
    char *kinds = NULL;
    const char *what = "create /events";
    event_sources(h, l);
    if (!(h->evbuf = malloc(h->ev.size * EV_BLOCK))) {
        rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", h->path);
        goto done;
    }
    if ((ftype = stsl_h5_event_type(&h->ev, 1)) < 0) goto h5err;
    if ((h->ev_mtype = stsl_h5_event_type(&h->ev, 0)) < 0) goto h5err;
    if ((h->ev_ds = make_ext_dataset(h->root, "events", ftype, EV_BLOCK, 0)) < 0) goto h5err;

    const char *u[STSL_H5_EVENT_VALUES];
    for (int i = 0; i < STSL_H5_EVENT_VALUES; i++)
        u[i] = stsl_layout_units(l, h->ev_val[i].first);
    char units[1024];
    snprintf(units, sizeof units,
             "t [%s], x [%s], v_before [%s], v_after [%s], net_force [%s], friction [%s]",
             l->time_units ? l->time_units : "", u[0], u[1], u[2], u[3], u[4]);
    what = "write attributes of /events";
    if (stsl_h5_put_attr_str(h->ev_ds, "units", units) < 0) goto h5err;
    if (!(kinds = stsl_h5_join_names(l->kind_names, l->n_kinds, 0))) {
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
        goto done;
    }
    if (stsl_h5_put_attr_str(h->ev_ds, "kind_names", kinds) < 0) goto h5err;
    if (l->n_subjects > 0 &&
        stsl_h5_put_attr_strs(h->ev_ds, "subject_names", l->subject_names, l->n_subjects) < 0)
        goto h5err;
    goto done;
h5err:
    rc = stsl_h5_fail(err, h->path, what);
done:
    free(kinds);
    if (ftype >= 0) H5Tclose(ftype);
    return rc;
}

/* The datasets besides t and mode, in column order: one per column of its
 * own, one per group (at its first column). */
static int plan_outputs(h5_sink *h, const stsl_layout *l)
{
    int widest = 0;
    h->outs = calloc((size_t)(l->n_cols > 0 ? l->n_cols : 1), sizeof *h->outs);
    if (!h->outs) return -1;
    for (int c = 0; c < l->n_cols; c++) {
        int g = stsl_layout_group_of(l, c);
        if (g >= 0 && l->groups[g].first != c) continue;
        h5_out *o = &h->outs[h->n_outs++];
        *o = (h5_out){-1, c, g >= 0 ? l->groups[g].width : 0, g >= 0 && l->groups[g].integer};
        if (o->width > widest) widest = o->width;
    }
    if (widest > 0 && !(h->pack = malloc(sizeof(double) * TRAJ_BLOCK * (size_t)widest))) return -1;
    return 0;
}

/* Dataset o of /trajectory with its attributes: units and long_name as
 * the element's columns; a group's member names (`names`) and, for mode
 * numbers, their names (`mode_names`, "0 STUCK, 1 SLIP_POS, ..."). */
static int make_output(hid_t traj, const stsl_layout *l, h5_out *o)
{
    int g = o->width > 0 ? stsl_layout_group_of(l, o->first) : -1;
    const stsl_col_group *cg = g >= 0 ? &l->groups[g] : NULL;
    const char *name = cg ? cg->name : l->cols[o->first].name;
    const char *units = stsl_layout_units(l, o->first);
    const char *lname = cg ? cg->long_name : l->cols[o->first].long_name;
    hid_t ftype = o->integer ? H5T_STD_I8LE : H5T_IEEE_F64LE;
    if ((o->ds = make_ext_dataset(traj, name, ftype, TRAJ_BLOCK, o->width)) < 0 ||
        stsl_h5_put_attr_str(o->ds, "units", units) < 0 ||
        (lname && stsl_h5_put_attr_str(o->ds, "long_name", lname) < 0))
        return -1;
    if (!cg) return 0;
    if (stsl_h5_put_attr_strs(o->ds, "names", cg->member_names, cg->width) < 0) return -1;
    if (!cg->integer) return 0;
    char *values = stsl_h5_join_names(cg->value_names, cg->n_value_names, 1);
    int rc = values ? stsl_h5_put_attr_str(o->ds, "mode_names", values) : -1;
    free(values);
    return rc;
}

static int h5_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    h5_sink *h = self;
    int rc;
    hid_t traj = -1;
    char *modes = NULL;
    /* outs != NULL: an earlier begin() got that far (and maybe failed). */
    if (h->began || h->ended || h->outs)
        return stsl_error_set(err, STSL_EINPUT, "%s: sink begun twice", h->path);
    if ((rc = check_layout(h, l, err)) != STSL_OK) return rc;

    h->n_cols = l->n_cols;
    /* The element's x and v, or a system's first body's (the same units). */
    int gx = stsl_layout_find_group(l, "x"), gv = stsl_layout_find_group(l, "v");
    h->ix = gx >= 0 ? l->groups[gx].first : stsl_layout_find(l, "x");
    h->iv = gv >= 0 ? l->groups[gv].first : stsl_layout_find(l, "v");
    if (l->n_groups > 0 && l->n_cols > 0) {
        if (!(h->flat_names = calloc((size_t)l->n_cols, FLAT_NAME_LEN))) goto nomem;
        for (int c = 0; c < l->n_cols; c++)
            stsl_layout_flat_name(l, c, h->flat_names + (size_t)c * FLAT_NAME_LEN, FLAT_NAME_LEN);
    }
    snprintf(h->err_units, sizeof h->err_units,
             "estimated_error_event_time [%s], estimated_error_x [%s], estimated_error_v [%s]",
             l->time_units ? l->time_units : "", h->ix >= 0 ? l->cols[h->ix].units : "",
             h->iv >= 0 ? l->cols[h->iv].units : "");

    /* The fixed-size blocks: memory does not grow with the run length. */
    h->buf = malloc(sizeof *h->buf * (size_t)(l->n_cols + 1) * TRAJ_BLOCK);
    h->mbuf = malloc(TRAJ_BLOCK);
    if (!h->buf || !h->mbuf || plan_outputs(h, l) < 0 || stsl_layout_copy(l, &h->layout, NULL))
        goto nomem;

    /* Track creation order so that h5py lists t, the columns, then mode. */
    if ((traj = stsl_h5_ordered_group(h->root, "trajectory")) < 0) {
        rc = stsl_h5_fail(err, h->path, "create /trajectory");
        goto done;
    }
    if ((h->t_ds = make_ext_dataset(traj, "t", H5T_IEEE_F64LE, TRAJ_BLOCK, 0)) < 0 ||
        stsl_h5_put_attr_str(h->t_ds, "units", l->time_units) < 0 ||
        stsl_h5_put_attr_str(h->t_ds, "long_name", "time") < 0) {
        rc = stsl_h5_fail(err, h->path, "create /trajectory/t");
        goto done;
    }
    for (int o = 0; o < h->n_outs; o++)
        if (make_output(traj, l, &h->outs[o]) < 0) {
            int g = stsl_layout_group_of(l, h->outs[o].first);
            char what[256];
            snprintf(what, sizeof what, "create /trajectory/%.200s",
                     g >= 0 ? l->groups[g].name : l->cols[h->outs[o].first].name);
            rc = stsl_h5_fail(err, h->path, what);
            goto done;
        }
    /* A system has no scalar mode (its modes are groups); a file of a run
     * that failed before begin() keeps the element's empty one. */
    if (l->n_modes > 0 || h->no_layout) {
        if (!(modes = stsl_h5_join_names(l->mode_names, l->n_modes, 1))) goto nomem;
        if ((h->mode_ds = make_ext_dataset(traj, "mode", H5T_STD_I8LE, TRAJ_BLOCK, 0)) < 0 ||
            stsl_h5_put_attr_str(h->mode_ds, "units", "") < 0 ||
            stsl_h5_put_attr_str(h->mode_ds, "mode_names", modes) < 0) {
            rc = stsl_h5_fail(err, h->path, "create /trajectory/mode");
            goto done;
        }
    }
    if ((rc = make_events(h, l, err)) != STSL_OK) goto done;
    h->began = 1;
    rc = STSL_OK;
    goto done;
nomem:
    rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", h->path);
done:
    free(modes);
    if (traj >= 0) H5Gclose(traj);
    return rc;
}

static int h5_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    h5_sink *h = self;
    if (!h->began || h->ended)
        return stsl_error_set(err, STSL_EINPUT, "%s: sample outside begin()/end()", h->path);
    size_t i = (size_t)h->nbuf;
    h->buf[i] = t;
    for (int c = 0; c < h->n_cols; c++)
        h->buf[(size_t)(c + 1) * TRAJ_BLOCK + i] = cols[c];
    h->mbuf[i] = (int8_t)mode;
    if (++h->nbuf == TRAJ_BLOCK) return flush_samples(h, err);
    return STSL_OK;
}

/* Value member i of an event row: its source column(s) just before or
 * after, NaN when the layout has none. */
static void put_values(const h5_sink *h, unsigned char *row, const stsl_event_rec *ev, int i)
{
    int w = h->ev_val[i].width > 0 ? h->ev_val[i].width : 1;
    for (int k = 0; k < w; k++) {
        double v = stsl_event_value_at(&h->ev_val[i], ev->before, ev->after, k);
        memcpy(row + h->ev.off[4 + i] + sizeof v * (size_t)k, &v, sizeof v);
    }
}

static int h5_event_op(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    h5_sink *h = self;
    if (!h->began || h->ended)
        return stsl_error_set(err, STSL_EINPUT, "%s: event outside begin()/end()", h->path);
    if (ev->kind < 0 || ev->kind >= h->layout.n_kinds)
        return stsl_error_set(err, STSL_EINPUT, "%s: event kind %d out of range (0..%d)", h->path,
                              ev->kind, h->layout.n_kinds - 1);
    if (ev->subject < 0 || ev->subject > h->layout.n_subjects)
        return stsl_error_set(err, STSL_EINPUT, "%s: event subject %d out of range (0..%d)",
                              h->path, ev->subject, h->layout.n_subjects);
    unsigned char *row = h->evbuf + h->ev.size * (size_t)h->nev_buf;
    memset(row, 0, h->ev.size);
    memcpy(row + h->ev.off[0], &ev->t, sizeof ev->t);
    /* Null-padded, not terminated: a 16-character name fills the member. */
    const char *k = h->layout.kind_names[ev->kind];
    size_t kl = strlen(k);
    memcpy(row + h->ev.off[1], k, kl < STSL_H5_KIND_LEN ? kl : STSL_H5_KIND_LEN);
    int8_t mb = (int8_t)ev->mode_before, ma = (int8_t)ev->mode_after;
    memcpy(row + h->ev.off[2], &mb, 1);
    memcpy(row + h->ev.off[3], &ma, 1);
    for (int i = 0; i < STSL_H5_EVENT_VALUES; i++)
        put_values(h, row, ev, i);
    if (h->ev.subject) {
        /* index = subject - 1: -1 for an event about no contact or stop. */
        int32_t index = ev->subject - 1;
        const char *name = ev->subject > 0 ? h->layout.subject_names[ev->subject - 1] : "";
        memcpy(row + h->ev.off[9], &index, sizeof index);
        memcpy(row + h->ev.off[10], &name, sizeof name);
    }
    if (++h->nev_buf == EV_BLOCK) return flush_events(h, err);
    return STSL_OK;
}

/* The run's own error estimate (simulation.verify), when it was made. */
static int write_verify(h5_sink *h, hid_t g, const stsl_stats *st)
{
    static const char *const status[] = {"none", "matched", "mismatch", "failed"};
    if (st->verify <= STSL_VERIFY_NONE || st->verify > STSL_VERIFY_FAILED) return 0;
    if (stsl_h5_put_attr_str(g, "verify", status[st->verify]) < 0 ||
        stsl_h5_put_attr_f64(g, "verify_rtol", st->verify_rtol) < 0 ||
        stsl_h5_put_attr_str(g, "estimated_error_units", h->err_units) < 0)
        return -1;
    if (st->verify == STSL_VERIFY_FAILED) return 0;
    if (stsl_h5_put_attr_f64(g, "estimated_error_event_time", st->err_event_time) < 0 ||
        stsl_h5_put_attr_f64(g, "estimated_error_x", st->err_x) < 0 ||
        stsl_h5_put_attr_f64(g, "estimated_error_v", st->err_v) < 0)
        return -1;
    if (st->verify == STSL_VERIFY_MISMATCH &&
        stsl_h5_put_attr_i64(g, "verify_first_difference", st->diff_event) < 0)
        return -1;
    /* A system's estimate per body: estimated_error_x[motor], ... (the
     * element's one body is estimated_error_x, v above). */
    for (int c = 0; st->err_cols && h->flat_names && c < h->n_cols; c++) {
        char name[FLAT_NAME_LEN + 24];
        snprintf(name, sizeof name, "estimated_error_%s",
                 h->flat_names + (size_t)c * FLAT_NAME_LEN);
        if (!isnan(st->err_cols[c]) && stsl_h5_put_attr_f64(g, name, st->err_cols[c]) < 0)
            return -1;
    }
    return 0;
}

static int write_stats(h5_sink *h, const stsl_stats *st, stsl_error *err)
{
    int rc = STSL_OK;
    hid_t g = H5Gcreate2(h->root, "stats", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return stsl_h5_fail(err, h->path, "create /stats");
    stsl_stats zero = {0};
    if (!st) st = &zero;
    if (stsl_h5_put_attr_i64(g, "steps", st->steps) < 0 ||
        stsl_h5_put_attr_i64(g, "rhs_evals", st->rhs_evals) < 0 ||
        stsl_h5_put_attr_i64(g, "guard_evals", st->guard_evals) < 0 ||
        stsl_h5_put_attr_i64(g, "events", st->events) < 0 ||
        stsl_h5_put_attr_i64(g, "segments", st->segments) < 0 ||
        stsl_h5_put_attr_i64(g, "jac_evals", st->jac_evals) < 0 ||
        stsl_h5_put_attr_f64(g, "wall_seconds", st->wall_seconds) < 0)
        goto h5err;
    for (int i = 0; i < h->layout.n_modes; i++) {
        char name[NAME_MAX_LEN + 8];
        snprintf(name, sizeof name, "time_%.*s", NAME_MAX_LEN - 1, h->layout.mode_names[i]);
        double v = i < st->n_modes ? st->mode_time[i] : 0.0;
        if (stsl_h5_put_attr_f64(g, name, v) < 0) goto h5err;
    }
    if (write_verify(h, g, st) < 0) goto h5err;
    goto done;
h5err:
    rc = stsl_h5_fail(err, h->path, "write /stats");
done:
    H5Gclose(g);
    return rc;
}

/* An unfinished file is removed; its last writes may have failed (disk
 * full, file-size limit).  The file's driver gives it up then, so that
 * HDF5 1.10 can close it (h5_driver.h); emptying it first frees its space
 * at once on a full disk. */
static void discard_storage(hid_t file)
{
    void *handle = NULL;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle) return;
    if (ftruncate(*(int *)handle, 0) != 0) return; /* best effort: it is removed next */
}

/* -1 when closing the file failed (its last buffered writes). */
static int close_all(h5_sink *h)
{
    for (int o = 0; h->outs && o < h->n_outs; o++)
        if (h->outs[o].ds >= 0) H5Dclose(h->outs[o].ds);
    free(h->outs);
    h->outs = NULL;
    if (h->t_ds >= 0) H5Dclose(h->t_ds);
    if (h->mode_ds >= 0) H5Dclose(h->mode_ds);
    if (h->ev_ds >= 0) H5Dclose(h->ev_ds);
    if (h->ev_mtype >= 0) H5Tclose(h->ev_mtype);
    if (h->root >= 0 && h->root != h->file) H5Gclose(h->root);
    int rc = h->file >= 0 ? stsl_h5_close_written(h->file) : 0;
    h->t_ds = h->mode_ds = h->ev_ds = h->ev_mtype = h->file = h->root = -1;
    return rc < 0 ? -1 : 0;
}

static int h5_end(void *self, const stsl_stats *st, int complete, const char *message,
                  stsl_error *err)
{
    h5_sink *h = self;
    int rc;
    if (h->ended) return stsl_error_set(err, STSL_EINPUT, "%s: sink ended twice", h->path);
    if (!h->began) {
        /* A run that failed before begin() still leaves a readable file. */
        stsl_layout empty = {0, NULL, "s", 0, NULL, 0, NULL, 0, NULL, 0, NULL};
        h->no_layout = 1;
        if ((rc = h5_begin(h, &empty, err)) != STSL_OK) return rc;
    }
    if ((rc = flush_samples(h, err)) != STSL_OK) return rc;
    if ((rc = flush_events(h, err)) != STSL_OK) return rc;
    if ((rc = write_stats(h, st, err)) != STSL_OK) return rc;
    if (stsl_h5_put_attr_int(h->root, "complete", complete ? 1 : 0) < 0 ||
        stsl_h5_put_attr_str(h->root, "message", complete ? "" : (message ? message : "")) < 0)
        return stsl_h5_fail(err, h->path, "write the root attributes");
    if (h->parent >= 0) {
        /* A run in a group: the file's owner flushes it when it chooses. */
        close_all(h);
        h->ended = 1;
        return STSL_OK;
    }
    if (H5Fflush(h->file, H5F_SCOPE_GLOBAL) < 0)
        return stsl_h5_fail(err, h->path, "flush the file");
    if (close_all(h) < 0) return stsl_h5_fail(err, h->path, "close the file");
    if ((rc = stsl_output_commit(h->tmp, h->path, &h->mark, &h->replaced, err)) != STSL_OK)
        return rc;
    h->ended = 1;
    return STSL_OK;
}

static void h5_destroy(void *self)
{
    h5_sink *h = self;
    if (!h) return;
    /* Unfinished: the file is removed, and its last writes may have failed. */
    if (!h->ended && h->file >= 0) discard_storage(h->file);
    int in_group = h->parent >= 0;
    close_all(h);
    /* Without a successful end() the .tmp file, or the group, is an
     * unfinished result (best effort: its owner replaces it on resume). */
    if (!h->ended && in_group && h->group) H5Ldelete(h->parent, h->group, H5P_DEFAULT);
    if (!h->ended && h->tmp && !in_group) remove(h->tmp);
    stsl_layout_free(&h->layout);
    free(h->flat_names);
    free(h->buf);
    free(h->mbuf);
    free(h->pack);
    free(h->evbuf);
    free(h->path);
    free(h->tmp);
    free(h->group);
    free(h);
}

/* HDF5's metadata cache (default: up to 32 MiB, resized by hit rate) keeps
 * growing with the chunk index of a long run.  We append and never read
 * back, so a small fixed cache bounds memory without slowing the appends
 * (measured: 40 million rows, flat heap, same speed). */
static int bound_metadata_cache(hid_t fapl)
{
    H5AC_cache_config_t c;
    c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Pget_mdc_config(fapl, &c) < 0) return -1;
    c.set_initial_size = 1;
    c.initial_size = MDC_BYTES;
    c.min_size = MDC_BYTES;
    c.max_size = MDC_BYTES;
    c.incr_mode = H5C_incr__off;
    c.flash_incr_mode = H5C_flash_incr__off;
    c.decr_mode = H5C_decr__off;
    return H5Pset_mdc_config(fapl, &c) < 0 ? -1 : 0;
}

/* The ops with HDF5's error printing off around them: our messages name the
 * file and operation, HDF5's stack dump on stderr would only repeat them,
 * and turning it off for the whole process would silence other users of
 * HDF5 (h5py) too. */
static int q_begin(void *self, const stsl_layout *l, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(h5_begin(self, l, err));
}

/* A sample or event that does not fill its block only goes into memory: no
 * HDF5 call can fail, so the switching of HDF5's error printing (which costs
 * more than the copy) is left to the call that flushes the block. */
static int q_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    const h5_sink *h = self;
    if (h->nbuf + 1 < TRAJ_BLOCK) return h5_sample(self, t, mode, cols, err);
    STSL_H5_RETURN_QUIET(h5_sample(self, t, mode, cols, err));
}

static int q_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    const h5_sink *h = self;
    if (h->nev_buf + 1 < EV_BLOCK) return h5_event_op(self, ev, err);
    STSL_H5_RETURN_QUIET(h5_event_op(self, ev, err));
}

static int q_end(void *self, const stsl_stats *st, int complete, const char *message,
                 stsl_error *err)
{
    STSL_H5_RETURN_QUIET(h5_end(self, st, complete, message, err));
}

static void q_destroy(void *self)
{
    H5E_BEGIN_TRY
    {
        h5_destroy(self);
    }
    H5E_END_TRY
}

static const stsl_sink_ops h5_ops = {q_begin, q_sample, q_event, q_end, q_destroy};

int stsl_h5_sink_replaced(const stsl_sink *s)
{
    if (!s || s->ops != &h5_ops) return 0;
    return ((const h5_sink *)s->self)->replaced;
}

/* The root attributes and /config of a result at h->root.  complete = 0
 * until end(): a result left behind by a crash says so. */
static int write_header(h5_sink *h, const char *config_yaml, const char *program_version,
                        stsl_error *err)
{
    char created[32];
    stsl_out_utc_now(created, sizeof created);
    if (stsl_h5_put_attr_str(h->root, "program", "stickslip") < 0 ||
        stsl_h5_put_attr_str(h->root, "version", program_version ? program_version : "") < 0 ||
        stsl_h5_put_attr_str(h->root, "created_utc", created) < 0 ||
        stsl_h5_put_attr_int(h->root, "complete", 0) < 0 ||
        stsl_h5_put_attr_str(h->root, "message", "run did not finish") < 0)
        return stsl_h5_fail(err, h->path, "write the root attributes");
    if (stsl_h5_put_text(h->root, "config", config_yaml) < 0)
        return stsl_h5_fail(err, h->path, "write /config");
    return STSL_OK;
}

static h5_sink *sink_new(void)
{
    h5_sink *h = calloc(1, sizeof *h);
    if (h) h->file = h->root = h->parent = h->t_ds = h->mode_ds = h->ev_ds = h->ev_mtype = -1;
    return h;
}

/* A created sink (rc: how its creation went so far) with its header, handed
 * out; destroyed on failure. */
static int sink_start(h5_sink *h, int rc, const char *config_yaml, const char *program_version,
                      stsl_sink *out, stsl_error *err)
{
    if (!rc) rc = write_header(h, config_yaml, program_version, err);
    if (rc) {
        h5_destroy(h);
        return rc;
    }
    out->ops = &h5_ops;
    out->self = h;
    return STSL_OK;
}

static int sink_create(const char *path, const char *config_yaml, const char *program_version,
                       stsl_sink *out, stsl_error *err)
{
    int rc;
    h5_sink *h = NULL;
    hid_t fapl = -1;
    if (!path || !path[0] || !out)
        return stsl_error_set(err, STSL_EINPUT, "HDF5 sink: no output path given");

    if (!(h = sink_new())) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    if (!(h->path = strdup(path))) {
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = stsl_output_check_regular(path, "an HDF5 result", err)) != STSL_OK) goto done;
    if ((rc = stsl_out_make_parent_dirs(path, err)) != STSL_OK) goto done;
    if ((rc = stsl_output_temp(path, &h->tmp, &h->mark, err)) != STSL_OK) goto done;

    /* HDF5 creates the file anew, exclusively, in the name the empty file
     * reserved: H5F_ACC_TRUNC would truncate that file, which marks it on
     * ext4 as rewritten in place, and its close would then wait for the
     * whole result to be written out (auto_da_alloc: 0.2 ms of the 7 ms
     * Janecek run). */
    if (remove(h->tmp) != 0) {
        rc = stsl_error_set(err, STSL_EIO, "%s: cannot remove %s: %s", path, h->tmp,
                            strerror(errno));
        goto done;
    }
    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || bound_metadata_cache(fapl) < 0 ||
        stsl_h5_use_driver(fapl) < 0 ||
        (h->file = H5Fcreate(h->tmp, H5F_ACC_EXCL, H5P_DEFAULT, fapl)) < 0)
        rc = stsl_h5_fail(err, h->path, "create the file");
    if (fapl >= 0) H5Pclose(fapl);
    h->root = h->file;
done:
    return sink_start(h, rc, config_yaml, program_version, out, err);
}

static int sink_create_in(hid_t parent, const char *name, const char *label,
                          const char *config_yaml, const char *program_version, stsl_sink *out,
                          stsl_error *err)
{
    int rc = STSL_OK;
    h5_sink *h = sink_new();
    if (!h) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    h->parent = parent;
    if (!(h->path = strdup(label ? label : name)) || !(h->tmp = strdup(h->path)))
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
    else if ((h->root = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        rc = stsl_h5_fail(err, h->path, "create the group");
    /* The group is ours from here: an unfinished one is deleted. */
    else if (!(h->group = strdup(name)))
        rc = stsl_error_set(err, STSL_ENOMEM, "out of memory");
    return sink_start(h, rc, config_yaml, program_version, out, err);
}

int stsl_h5_sink_create(const char *path, const char *config_yaml, const char *program_version,
                        stsl_sink *out, stsl_error *err)
{
    STSL_H5_RETURN_QUIET(sink_create(path, config_yaml, program_version, out, err));
}

int stsl_h5_sink_create_in(hid_t parent, const char *name, const char *label,
                           const char *config_yaml, const char *program_version, stsl_sink *out,
                           stsl_error *err)
{
    STSL_H5_RETURN_QUIET(
        sink_create_in(parent, name, label, config_yaml, program_version, out, err));
}
