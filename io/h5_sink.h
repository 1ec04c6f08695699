/* h5_sink.h - the HDF5 result writer (layout in README / docs).
 *
 * Writes to "<path>.tmp" and renames to `path` in end(), so a crash never
 * leaves a half file under the final name.  Trajectory datasets are chunked
 * and extendible and written through a fixed-size buffer: memory does not
 * grow with the run length.  A run that ends with complete = 0 is still
 * renamed into place, with the root attributes complete = 0 and message. */
#ifndef STSL_H5_SINK_H
#define STSL_H5_SINK_H

#include "solver/sink.h"

/* `config_yaml` is stored as /config; `program_version` as the root
 * attribute `version`. */
int stsl_h5_sink_create(const char *path, const char *config_yaml, const char *program_version,
                        stsl_sink *out, stsl_error *err);

#endif
