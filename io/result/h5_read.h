/* h5_read.h - reading a result file back (for `stickslip info` and tests). */
#ifndef STSL_H5_READ_H
#define STSL_H5_READ_H

#include <stdio.h>

#include "solver/sink.h"
#include "solver/status.h"

struct stsl_mem_result;

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
/* The units of x, v, net_force and friction and the quantities ("x:
 * angle [rad], v: angular velocity [rad/s], ...") from the columns'
 * units and long names (a reader's last step). */
void stsl_h5_result_describe(stsl_h5_result *res);
/* 1 when the result read is a system's (its columns include groups). */
int stsl_h5_result_is_system(const stsl_h5_result *res);
/* Read one 1-D /trajectory dataset (float64) into a malloc'd array. */
int stsl_h5_read_column(const char *path, const char *name, double **data, long *n,
                        stsl_error *err);
/* Read one /trajectory dataset, 1-D or a group's samples x width (int8
 * mode numbers as doubles), row-major into a malloc'd array of *n rows of
 * *width values (*width 0 for a 1-D dataset: *n values). */
int stsl_h5_read_matrix(const char *path, const char *name, double **data, long *n, int *width,
                        stsl_error *err);
/* `stickslip info`: the human-readable summary and event table (at most
 * max_events rows; <0 all) of an element's result; of a system's (s: read
 * from res) per body its final position and velocity and the range of its
 * position, per contact the time stuck, its stick and breakaway events and
 * the largest |friction|, per stop its contacts and impacts, the events
 * counted by kind and subject, and the event table with the subjects. */
void stsl_h5_print_info(const stsl_h5_result *res, FILE *out, long max_events);
struct stsl_h5_system;
void stsl_h5_print_system_info(const stsl_h5_result *res, const struct stsl_h5_system *s, FILE *out,
                               long max_events);

/* ---- a result as one value per dataset ---------------------------------
 * /trajectory's datasets as groups with their member names (a 1-D column,
 * every column of an element's file among them, as a group of one member
 * named after it) and /events with their subjects, for `stickslip info` and
 * `compare` (docs/hdf5-layout.md, "Systems").  At most STSL_H5S_MAX_GROUPS
 * datasets besides t, STSL_H5S_MAX_VALUES value names of a mode group. */
#define STSL_H5S_MAX_GROUPS 24
#define STSL_H5S_MAX_VALUES 8

typedef struct stsl_h5_group {
    char name[32], units[24];
    int width;           /* members (1 for a 1-D dataset) */
    char (*members)[64]; /* width names (malloc'd) */
    int n_values;        /* value names of an integer group (`mode_names`), else 0 */
    char values[STSL_H5S_MAX_VALUES][24];
    double *data; /* n_samples x width, row-major (malloc'd) */
} stsl_h5_group;

typedef struct stsl_h5_sys_event {
    double t;
    char kind[24];
    int index;     /* subject: index into contacts then stops, -1 for none */
    char name[64]; /* the subject's name ("" for none) */
} stsl_h5_sys_event;

typedef struct stsl_h5_system {
    char path[4096]; /* its header: the stsl_h5_result it was read from */
    int complete;
    char message[1024];
    long n_samples;
    double *t; /* malloc'd */
    char time_units[24];
    int n_groups;
    stsl_h5_group groups[STSL_H5S_MAX_GROUPS];
    long n_events;
    stsl_h5_sys_event *events; /* malloc'd */
} stsl_h5_system;

/* 1 when `path` is a stickslip result of a system (no /trajectory/mode, a
 * 2-D dataset in /trajectory), 0 when it is not (an element's result, another file,
 * no file: the element's reader then says why). */
int stsl_h5_is_system(const char *path);
/* Read everything; on failure *s holds nothing to free. */
int stsl_h5_system_read(const char *path, stsl_h5_system *s, stsl_error *err);
void stsl_h5_system_free(stsl_h5_system *s); /* NULL-safe */
/* The same from a result read already (as stsl_h5_read or
 * io/result/mat_result.h fill it) and its samples: t (n values) and per column
 * c of h data[c], row-major n x max(width, 1).  The arrays are taken (set
 * to NULL here, freed with *s); on failure *s holds nothing to free. */
int stsl_h5_system_from(const stsl_h5_result *h, long n, double **t, double **data,
                        stsl_h5_system *s, stsl_error *err);
/* The dataset `name`, or NULL. */
const stsl_h5_group *stsl_h5_system_group(const stsl_h5_system *s, const char *name);
/* Value of member m of group g in sample i. */
static inline double stsl_h5_group_at(const stsl_h5_group *g, long i, int m)
{
    return g->data[(size_t)i * (size_t)g->width + (size_t)m];
}

/* A run's rows as the result the tools read (`name` for messages): the
 * groups of the memory sink's layout (its own columns as groups of one
 * member), n samples at t of the rows (n x layout.n_cols, row-major), the
 * run's events with their subjects and its statistics.  Everything is
 * copied; on failure *s holds nothing to free. */
int stsl_h5_system_of_run(const char *name, const struct stsl_mem_result *mr, const double *t,
                          const double *rows, long n, stsl_h5_system *s, stsl_error *err);
/* flags[i] (n_samples of them) = 1 where member m of the integer group g
 * holds `value` (all 0 when g is NULL or has no such value name). */
void stsl_h5_group_flags(const stsl_h5_system *s, const stsl_h5_group *g, int m, const char *value,
                         unsigned char *flags);
/* Simulated time in which member m of g holds `value`: sample i's value
 * holds until sample i + 1 (stsl_compare_stuck_held, run/validation.h:
 * an event instant's two rows add nothing), the rule of `stickslip info`
 * and of the comparison of systems.  NaN when out of memory. */
double stsl_h5_time_in(const stsl_h5_system *s, const stsl_h5_group *g, int m, const char *value);

#endif
