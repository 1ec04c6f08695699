/* mat_sink.h - the result as a MAT file for MATLAB and GNU Octave (`stickslip
 * run -o OUT.mat`), through matio.
 *
 * Format: MAT v5 with zlib compression (what MATLAB calls "-v7"): MATLAB's
 * `load` and Octave's `load` read it.  Not v7.3: Debian's matio can write it
 * (it is built with HDF5), but Octave's `load` cannot read v7.3 files, and
 * users of both tools are who this file is for.
 *
 * Variables (one struct per group of the HDF5 layout, docs/hdf5-layout.md):
 *   trajectory  struct: t, one field per model column (x, v, ...), all N x 1
 *               double, and mode (N x 1 int8)
 *   events      struct: t, kind (M x 1 cell of char), mode_before,
 *               mode_after (int8), x, v_before, v_after, net_force, friction
 *   units       struct: t, one field per model column, mode (char, '')
 *   mode_names, kind_names  cell of char (index = number + 1)
 *   stats       struct: steps, rhs_evals, guard_evals, events, segments,
 *               jac_evals, wall_seconds, time_<MODE>
 *   config (char: the YAML), complete (1 or 0), message, program, version,
 *   created_utc (char)
 * A system of bodies (docs/hdf5-layout.md, "Systems of bodies"): each
 * column group is one trajectory field, N x width (int8 for mode numbers),
 * no mode field; events x, v_before, v_after, friction M x width, plus
 * index (int32, -1: none) and name (cell); and the variables names (struct:
 * per group a cell of its members), value_names (struct: per mode group a
 * cell of its value names) and subject_names (cell).
 * Every char is UTF-16 tagged miUTF16 (converted from the UTF-8 text), the
 * one char encoding MATLAB, Octave, scipy's loadmat and matio all read as
 * the same characters ("N·m").
 *
 * Memory: matio writes a v5 variable whole, so the trajectory is held in
 * memory until the run ends (about (8 (columns + 1) + 4) bytes per sample,
 * and a second copy of one struct while writing).  A run whose trajectory
 * would exceed STSL_MAT_MAX_BYTES stops with an error naming the limit (v5
 * variables cannot exceed 2 GiB anyway); long runs belong in HDF5, whose
 * writer uses constant memory.  The file is written under a unique
 * temporary name and renamed in end() (io/result/safe_output.h, as the HDF5
 * result); an incomplete run is still written, with
 * complete = 0 and its message. */
#ifndef STSL_MAT_SINK_H
#define STSL_MAT_SINK_H

#include "solver/sink.h"

/* Bytes of trajectory (8 per value, time included) the MAT sink buffers at
 * most: 1 GiB, half the v5 limit of one variable, leaving room for the
 * copy made while writing. */
#define STSL_MAT_MAX_BYTES (1L << 30)

/* 1 when `path` ends in ".mat" (any case). */
int stsl_mat_path(const char *path);

/* max_bytes: the trajectory limit in bytes, 0 for STSL_MAT_MAX_BYTES. */
int stsl_mat_sink_create(const char *path, const char *config_yaml, const char *program_version,
                         long max_bytes, stsl_sink *out, stsl_error *err);

/* 1 when end() replaced a result that another run wrote to the same path
 * meanwhile (io/result/safe_output.h); 0 for any other sink. */
int stsl_mat_sink_replaced(const stsl_sink *s);

#endif
