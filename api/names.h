/* names.h - the one vocabulary of results: every name a quantity has in
 * the result files (HDF5 /trajectory, /events, /stats; MAT; CSV), the
 * study file (/study/summary), the C summary's statistics
 * (stsl_result_stat) and the Python package, with its unit and meaning.
 * docs/names.md lists this table (test_names compares the two, and the
 * names the files and the package hold with it).  The public accessor is
 * stsl_names (include/stickslip.h). */
#ifndef STSL_API_NAMES_H
#define STSL_API_NAMES_H

#include "include/stickslip.h"

/* The table and its length (static storage). */
const stsl_name *stsl_names_table(int *n);

#endif
