/* h5_lock.c - see h5_lock.h.  The mutex is the API's one piece of process-
 * wide mutable state besides GSL's handler: HDF5's own global state is what
 * it protects, so it cannot belong to a run. */
#include "api/h5_lock.h"

#include <pthread.h>
#include <stdlib.h>

#include <hdf5.h>

#include "include/stickslip.h"
#include "io/result/h5_sink.h"

static pthread_mutex_t h5_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int h5_threadsafe;

static void probe(void)
{
    hbool_t ts = 0;
    h5_threadsafe = H5is_library_threadsafe(&ts) >= 0 && ts;
}

void stsl_hdf5_lock(void)
{
    pthread_once(&probe_once, probe);
    if (!h5_threadsafe) pthread_mutex_lock(&h5_mutex);
}

void stsl_hdf5_unlock(void)
{
    if (!h5_threadsafe) pthread_mutex_unlock(&h5_mutex);
}

static int lk_begin(void *self, const stsl_layout *layout, stsl_error *err)
{
    stsl_hdf5_lock();
    int rc = stsl_sink_begin(self, layout, err);
    stsl_hdf5_unlock();
    return rc;
}

static int lk_sample(void *self, double t, int mode, const double *cols, stsl_error *err)
{
    stsl_hdf5_lock();
    int rc = stsl_sink_sample(self, t, mode, cols, err);
    stsl_hdf5_unlock();
    return rc;
}

static int lk_event(void *self, const stsl_event_rec *ev, stsl_error *err)
{
    stsl_hdf5_lock();
    int rc = stsl_sink_event(self, ev, err);
    stsl_hdf5_unlock();
    return rc;
}

static int lk_end(void *self, const stsl_stats *stats, int complete, const char *message,
                  stsl_error *err)
{
    stsl_hdf5_lock();
    int rc = stsl_sink_end(self, stats, complete, message, err);
    stsl_hdf5_unlock();
    return rc;
}

static void lk_destroy(void *self)
{
    if (!self) return;
    stsl_hdf5_lock();
    stsl_sink_free(self);
    stsl_hdf5_unlock();
    free(self);
}

static const stsl_sink_ops locked_ops = {lk_begin, lk_sample, lk_event, lk_end, lk_destroy};

int stsl_locked_h5_sink_create(const char *path, const char *config_yaml, const char *version,
                               stsl_sink *out, stsl_error *err)
{
    stsl_sink *inner = calloc(1, sizeof *inner);
    if (!inner) return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path);
    stsl_hdf5_lock();
    int rc = stsl_h5_sink_create(path, config_yaml, version, inner, err);
    stsl_hdf5_unlock();
    if (rc) {
        free(inner);
        return rc;
    }
    *out = (stsl_sink){&locked_ops, inner};
    return STSL_OK;
}
