/* h5_bounds.h - an HDF5 input's claims checked against its file size.
 *
 * A dataset's extent is only a number in its header: a crafted file of a
 * few kB can claim 10^9 rows, and reading it would first allocate for them
 * all.  Every reader of an input file checks the extent here before it
 * allocates. */
#ifndef STSL_H5_BOUNDS_H
#define STSL_H5_BOUNDS_H

#include <hdf5.h>

#include "solver/status.h"

/* Deflate, HDF5's usual filter and MAT v7's compression, compresses at most
 * 1032:1 (a run of one byte value); no real trajectory comes near.  Above
 * that a declared size is not data the file holds. */
#define STSL_FILTER_RATIO 1100.0

/* STSL_EINPUT ("PATH: dataset NAME claims N rows, more than the file of S
 * bytes can hold") when `n` elements of dataset `d`'s file type take more
 * bytes than the file has, or, for a dataset stored through a filter
 * (compression), more than STSL_FILTER_RATIO times as many. */
int stsl_h5_check_rows(hid_t d, hsize_t n, const char *path, const char *name, stsl_error *err);

#endif
