/* mat_candidate.h - the candidate columns of `stickslip compare` from a
 * MAT file (v4, v5, v7, v7.3, through matio).
 *
 * A source (column_map.h) is a variable ("tout"), a field path into 1 x 1
 * structs ("simout.signals.values"), optionally a column of a matrix
 * (":2", 1-based).  Numeric classes (double, single, integers, logical)
 * are read as doubles; char, cell, struct, sparse and complex data are
 * not numbers.  MATLAB class objects (timeseries, Simulink Datasets) are
 * opaque to matio: the message says how to export plain arrays instead.
 *
 * A Modelica result file (Dymola, OpenModelica: variables Aclass, name,
 * description, dataInfo, data_1, data_2; binNormal or binTrans) is
 * recognised by name, dataInfo and data_2; a source is then a model
 * variable ("time", "mass.s"), resolved through dataInfo: data_2 columns
 * (negative index: a negated alias), data_1 constants repeated at every
 * sample.
 *
 * Every failure is STSL_EINPUT naming the file, the source and what was
 * expected, e.g.
 *   run.mat: variable 'yout': column 3 out of range (a 1001 x 2 matrix has 2 signals) */
#ifndef STSL_MAT_CANDIDATE_H
#define STSL_MAT_CANDIDATE_H

#include "io/candidate/column_map.h"

/* 1 when `path` is a MAT file: it starts with the "MATLAB" text header
 * (v5, v7, v7.3 - a v7.3 file is also HDF5) or, v4 having no header, its
 * name ends in ".mat". */
int stsl_mat_is_mat_file(const char *path);

/* The columns of a MAT file. */
typedef struct stsl_mat_columns {
    long n;                     /* rows of every column */
    double *data[STSL_N_ROLES]; /* malloc'd; data[STSL_ROLE_F] may be NULL */
    int modelica;               /* 1: a Modelica result file */
} stsl_mat_columns;

/* Read the sources names[role]; names[STSL_ROLE_F] NULL means "friction"
 * when the file has it (friction_required = 0).  All columns have equal
 * lengths and finite values.  On failure *out holds nothing to free. */
int stsl_mat_read_columns(const char *path, const char *const names[STSL_N_ROLES],
                          int friction_required, stsl_mat_columns *out, stsl_error *err);
void stsl_mat_columns_free(stsl_mat_columns *c);

/* A MAT file that may not be stickslip's, opened after its structure is
 * checked against its size (io/result/mat_bounds.h), as every candidate
 * is; NULL with the error (STSL_EINPUT naming the file) when it cannot
 * be.  Close with Mat_Close. */
struct _mat_t; /* matio's mat_t */
struct _mat_t *stsl_mat_open_checked(const char *path, stsl_error *err);

/* For the other readers of MAT files (io/result/mat_result.h), over matio's
 * variables: matio's log silenced (once per process); element i of
 * numeric or char data as a double (char data as its code units); the
 * number of elements; 1 for real numeric data that was read. */
struct matvar_t;
void stsl_mat_quiet(void);
double stsl_mat_element(const struct matvar_t *v, size_t i);
size_t stsl_mat_numel(const struct matvar_t *v);
int stsl_mat_is_numeric(const struct matvar_t *v);

#endif
