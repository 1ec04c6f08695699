/* study_api.c - stsl_study_run: `stickslip sweep` for a program (the
 * Python package's ss.study), over api/sweep. */
#include <signal.h>
#include <stdint.h>

#include "api/error.h"
#include "api/sweep.h"
#include "include/stickslip.h"

/* The cancel flag is the int of stsl_cancel_request; the sweep reads its
 * stop flag as a sig_atomic_t, which is that int on every platform the
 * library builds on (glibc, musl, macOS). */
_Static_assert(sizeof(sig_atomic_t) == sizeof(int), "sig_atomic_t is not an int");

typedef struct study_cb {
    stsl_study_progress_fn fn;
    void *ctx;
} study_cb;

static void relay(void *ctx, const stsl_sweep_progress *p)
{
    const study_cb *cb = ctx;
    cb->fn(cb->ctx, p->n_done, p->n_runs, p->n_failed);
}

stsl_rc stsl_study_run(const char *study, const char *output, int jobs, int resume,
                       stsl_study_progress_fn progress, void *ctx, const volatile int *cancel,
                       long *n_done, stsl_err *err)
{
    if (!study || !output) return stsl_api_bad_arg(err, "stsl_study_run: NULL path");
    if (jobs < 1) return stsl_api_bad_arg(err, "stsl_study_run: jobs must be >= 1");
    study_cb cb = {progress, ctx};
    stsl_sweep_opts o = {
        .output = output,
        .jobs = jobs,
        .resume = resume,
        .version = stsl_lib_version(),
        .progress = progress ? relay : NULL,
        .progress_ctx = &cb,
        .stop = (volatile sig_atomic_t *)(uintptr_t)cancel,
    };
    stsl_sweep_progress p;
    stsl_error e = {0};
    /* The study file is written by this thread; other runs of the process
     * may write theirs (libhdf5 is not thread-safe): one at a time. */
    stsl_hdf5_lock();
    int rc = stsl_sweep_run(study, &o, &p, &e);
    stsl_hdf5_unlock();
    if (n_done) *n_done = rc ? 0 : p.n_done;
    return rc ? stsl_api_err(err, &e) : STSL_RC_OK;
}
