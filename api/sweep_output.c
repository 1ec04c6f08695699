/* sweep_output.c - see sweep_output.h. */
#include "api/sweep_output.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "io/result/out_file.h"
#include "io/result/safe_output.h"

/* The output rule for o->output and o->csv (STSL_EINPUT naming the path
 * and why); nothing is opened. */
static int output_check(const stsl_study *s, const stsl_config *base, const stsl_sweep_opts *o,
                        stsl_error *err)
{
    int n_tab = 0;
    const char **tables = stsl_out_config_inputs(base, &n_tab);
    const char **in = tables ? calloc((size_t)n_tab + 2, sizeof *in) : NULL;
    if (!in) {
        free(tables);
        return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    }
    in[0] = stsl_study_origin(s);
    in[1] = stsl_study_base_origin(s);
    for (int i = 0; i < n_tab; i++)
        in[i + 2] = tables[i];
    stsl_output_file outs[2] = {{o->output, "the study file", STSL_FMT_H5, 0, 0},
                                {o->csv, "--csv", STSL_FMT_CSV, 0, 1}};
    int rc = stsl_output_rule(in, n_tab + 2, outs, 2, err);
    free(in);
    free(tables);
    return rc;
}

/* --resume of an existing file: only an unfinished study; whether it is
 * the same study stsl_study_h5_resume checks. */
static int resumable(const char *path, const stsl_study *s, stsl_error *err)
{
    stsl_study_summary sum;
    if (!stsl_study_h5_is_study(path) || stsl_study_h5_summarise(path, &sum, NULL) != STSL_OK)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: not a study file (another file, or a damaged study): "
                              "--resume continues an unfinished study of %s and replaces "
                              "nothing",
                              path, stsl_study_origin(s));
    if (sum.complete)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: the study is complete (%ld of %ld variants): nothing to "
                              "resume; run without --resume to run it again",
                              path, sum.n_done, sum.n_runs);
    return STSL_OK;
}

int stsl_sweep_output_open(const stsl_study *s, const stsl_config *base,
                           const stsl_study_info *info, const stsl_sweep_opts *o, stsl_study_h5 **w,
                           stsl_error *err)
{
    *w = NULL;
    int rc = output_check(s, base, o, err);
    if (rc) return rc;
    struct stat st;
    int exists = stat(o->output, &st) == 0;
    if (o->resume && exists) {
        if ((rc = resumable(o->output, s, err))) return rc;
        return stsl_study_h5_resume(o->output, s, info, w, err);
    }
    stsl_study_summary sum;
    if (exists && stsl_study_h5_is_study(o->output) &&
        stsl_study_h5_summarise(o->output, &sum, NULL) == STSL_OK && !sum.complete)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: holds an unfinished study (%ld of %ld variants done): "
                              "continue it with --resume, or remove it",
                              o->output, sum.n_done, sum.n_runs);
    return stsl_study_h5_create(o->output, s, info, w, err);
}
