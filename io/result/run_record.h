/* run_record.h - a whole run kept as one flat block of bytes, to be
 * replayed into another sink later, in another thread or on another MPI
 * rank (`store: full` of a study: the workers run, the one writing thread
 * replays each run into the study file's HDF5 sink).
 *
 * The block is the sequence of the sink calls the run made (begin with its
 * layout, every sample, every event, end), each a tagged record of raw
 * native values: the replay hands the receiving sink the very same calls
 * with the same bits, so what it writes equals what it would have written
 * had the run fed it directly.  The bytes are native: a block is read back
 * only by the same build on the same architecture. */
#ifndef STSL_RUN_RECORD_H
#define STSL_RUN_RECORD_H

#include <stddef.h>

#include "solver/sink.h"

/* A sink that records every call; its block grows with the run. */
int stsl_record_sink_create(stsl_sink *out, stsl_error *err);
/* Move the block out of a recording sink (the caller frees *bytes); NULL,
 * 0 when the run did not end its sink (it has nothing whole to replay) or
 * `s` is not a recording sink.  The sink is left empty. */
void stsl_record_take(stsl_sink *s, void **bytes, size_t *size);
/* Make the calls recorded in `bytes` on `into`, in order.  STSL_EINPUT for
 * a block that is not a whole record; otherwise the first failing call's
 * status (err says why). */
int stsl_record_replay(const void *bytes, size_t size, stsl_sink *into, stsl_error *err);

#endif
