/* h5_read.h - reading a result file back (for `stickslip info` and tests). */
#ifndef STSL_H5_READ_H
#define STSL_H5_READ_H

#include <stdio.h>

#include "solver/sink.h"

/* Most trajectory columns and event kinds a file may have for
 * stsl_h5_read (as many as stsl_summary holds). */
#define STSL_H5_MAX_COLS  16
#define STSL_H5_MAX_KINDS 16

typedef struct stsl_h5_event {
    double t;
    char kind[24];
    int mode_before, mode_after;
    /* NaN in a system's file, where they are arrays (one per member). */
    double x, v_before, v_after, net_force, friction;
    int subject; /* 1 + /events index: the contact or stop (subject_names); 0 none */
} stsl_h5_event;

typedef struct stsl_h5_result {
    char path[4096]; /* the file read, for messages and print_info */
    char program[64], version[64], created_utc[64];
    int complete;
    char message[1024];
    char *config_yaml; /* malloc'd */
    long n_samples;
    long n_events;
    stsl_h5_event *events; /* malloc'd */
    stsl_stats stats;
    char mode_names[STSL_MAX_MODES][24];
    double t_first, t_last; /* first and last /trajectory/t; NaN without samples */
    /* `units` attributes of /trajectory/{t,x,v,net_force,friction} ("" if absent). */
    char time_units[24], x_units[24], v_units[24], net_force_units[24], friction_units[24];
    char quantities[512]; /* "x: position [m], v: velocity [m/s], ..." ("" in older files) */
    /* The /trajectory datasets besides t and mode, in creation order (the
     * model's column order), with their `units` and `long_name` ("" when
     * absent); at most STSL_H5_MAX_COLS (more: an error). */
    int n_cols;
    char col_names[STSL_H5_MAX_COLS][32], col_units[STSL_H5_MAX_COLS][24];
    char col_long_names[STSL_H5_MAX_COLS][64];
    /* A system's column groups (docs/hdf5-layout.md): col_width[c] 0 for a
     * 1-D dataset, w for samples x w; then col_members[c] its `names` (w
     * malloc'd strings), col_integer[c] 1 for int8 mode numbers and
     * col_values[c] the names of their values (col_n_values[c] malloc'd
     * strings, index = value) from `mode_names` ("0 STUCK, 1 SLIP_POS, ..."). */
    int col_width[STSL_H5_MAX_COLS], col_integer[STSL_H5_MAX_COLS];
    char **col_members[STSL_H5_MAX_COLS];
    int col_n_values[STSL_H5_MAX_COLS];
    char **col_values[STSL_H5_MAX_COLS];
    /* /events subject_names (malloc'd): what a system's events are about. */
    int n_subjects;
    char **subject_names;
    /* /events attribute kind_names split at ',' (index = kind number). */
    int n_kinds;
    char kind_names[STSL_H5_MAX_KINDS][24];
    char err_units[192]; /* /stats estimated_error_units ("" when not verified) */
} stsl_h5_result;

/* Read the root attributes, /config, /events and /stats (not the
 * trajectory).  STSL_EINPUT with a message naming the file and what is
 * missing when it is not a stickslip result.  A system's file (no
 * /trajectory/mode: stats.n_modes 0) is read too; its groups and
 * subjects are described above.  stsl_h5_result_free frees what it
 * allocated (the events, /config, the group and subject names). */
int stsl_h5_read(const char *path, stsl_h5_result *res, stsl_error *err);
void stsl_h5_result_free(stsl_h5_result *res);
/* Read one 1-D /trajectory dataset (float64) into a malloc'd array. */
int stsl_h5_read_column(const char *path, const char *name, double **data, long *n,
                        stsl_error *err);
/* Read one /trajectory dataset, 1-D or a group's samples x width (int8
 * mode numbers as doubles), row-major into a malloc'd array of *n rows of
 * *width values (*width 0 for a 1-D dataset: *n values). */
int stsl_h5_read_matrix(const char *path, const char *name, double **data, long *n, int *width,
                        stsl_error *err);
/* Human-readable summary and event table (at most max_events rows; <0 all). */
void stsl_h5_print_info(const stsl_h5_result *res, FILE *out, long max_events);

#endif
