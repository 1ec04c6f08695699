/* h5_lock.c - stsl_hdf5_lock, stsl_hdf5_unlock (stickslip.h): the library's
 * HDF5 calls, one at a time when libhdf5 is not thread-safe.
 *
 * Debian's libhdf5 is the serial build: H5is_library_threadsafe() is false
 * and two threads inside HDF5 at once corrupt its global state.  Every HDF5
 * call the API makes (creating, feeding, ending and freeing an HDF5 sink:
 * api/run_api.c wraps it; reading results, studies and candidates;
 * writing convergence files) holds one process-wide mutex
 * (test_hdf5_lock checks every file the API opens); with a thread-safe
 * libhdf5 nothing locks.  The mutex is the API's one piece of process-wide
 * mutable state besides GSL's handler: HDF5's own global state is what it
 * protects, so it cannot belong to a run. */
#include <pthread.h>

#include <hdf5.h>

#include "include/stickslip.h"

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
