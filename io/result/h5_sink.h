/* h5_sink.h - the HDF5 result writer (layout in docs/hdf5-layout.md).
 *
 * Writes to "<path>.<pid>-<random>.tmp" (io/result/safe_output) and renames to
 * `path` in end(), so a crash never leaves a half file under the final
 * name and concurrent runs cannot delete each other's work.  A device or
 * FIFO as `path` is refused (STSL_EINPUT): the rename would replace it.  Trajectory datasets are
 * chunked and extendible and written through a fixed-size buffer: memory does not grow with the run
 * length.  A run that ends with complete = 0 is still renamed into place, with the root attributes
 * complete = 0 and message. */
#ifndef STSL_H5_SINK_H
#define STSL_H5_SINK_H

#include <hdf5.h>

#include "solver/sink.h"

/* `config_yaml` is stored as /config; `program_version` as the root
 * attribute `version`. */
int stsl_h5_sink_create(const char *path, const char *config_yaml, const char *program_version,
                        stsl_sink *out, stsl_error *err);
/* The same result written into a new group `name` of `parent` (an open
 * file or group, which must outlive the sink) instead of a file's root:
 * the root attributes go on the group, /config, /trajectory, /events and
 * /stats into it.  Nothing is renamed or flushed (the file's owner flushes
 * it); a sink destroyed before end() deletes its group.  `label` names the
 * result in messages (e.g. "study.h5:/runs/000042").  One thread at a time:
 * the caller owns every HDF5 call on that file. */
int stsl_h5_sink_create_in(hid_t parent, const char *name, const char *label,
                           const char *config_yaml, const char *program_version, stsl_sink *out,
                           stsl_error *err);
/* 1 when end() replaced a result that another run wrote to the same path
 * while this one ran (the caller may warn); 0 otherwise or not an HDF5 sink. */
int stsl_h5_sink_replaced(const stsl_sink *s);

#endif
