/* study_api.c - stsl_study_run: `stickslip sweep` for a program (the
 * Python package's ss.study), over stsl_study_run_with (study_parts.c). */
#include <stddef.h>

#include "api/error.h"
#include "include/stickslip.h"

typedef struct study_cb {
    stsl_study_progress_fn fn;
    void *ctx;
} study_cb;

static void relay(void *ctx, const stsl_study_stats *s)
{
    const study_cb *cb = ctx;
    cb->fn(cb->ctx, s->n_done, s->n_runs, s->n_failed);
}

stsl_rc stsl_study_run(const char *study, const char *output, int jobs, int resume,
                       stsl_study_progress_fn progress, void *ctx, const volatile int *cancel,
                       long *n_done, stsl_err *err)
{
    if (!study || !output) return stsl_api_bad_arg(err, "stsl_study_run: NULL path");
    if (jobs < 1) return stsl_api_bad_arg(err, "stsl_study_run: jobs must be >= 1");
    study_cb cb = {progress, ctx};
    stsl_study_opts o = {
        .output = output,
        .jobs = jobs,
        .resume = resume,
        .progress = progress ? relay : NULL,
        .progress_ctx = &cb,
        .cancel = cancel,
    };
    stsl_study_stats st;
    /* The study file is written by this thread; other runs of the process
     * may write theirs (libhdf5 is not thread-safe): one at a time. */
    stsl_hdf5_lock();
    stsl_rc rc = stsl_study_run_with(study, &o, &st, err);
    stsl_hdf5_unlock();
    if (n_done) *n_done = rc ? 0 : st.n_done;
    return rc;
}
