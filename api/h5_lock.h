/* h5_lock.h - the library's HDF5 calls, one at a time when libhdf5 is not
 * thread-safe.
 *
 * Debian's libhdf5 is the serial build: H5is_library_threadsafe() is false
 * and two threads inside HDF5 at once corrupt its global state.  Every HDF5
 * call the API makes (creating, feeding, ending and freeing an HDF5 sink)
 * goes through a sink wrapped here, under one process-wide mutex; with a
 * thread-safe libhdf5 the wrapper does not lock. */
#ifndef STSL_API_H5_LOCK_H
#define STSL_API_H5_LOCK_H

#include "solver/sink.h"

/* The HDF5 sink of io/result/h5_sink, created under the lock and wrapped so that
 * each of its operations holds the lock. */
int stsl_locked_h5_sink_create(const char *path, const char *config_yaml, const char *version,
                               stsl_sink *out, stsl_error *err);

#endif
