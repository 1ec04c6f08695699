/* sweep_output.h - where a study is written: the output rule
 * (io/result/safe_output.h) for the study file and its CSV export against the
 * study file, its base configuration and the base's table files, and the
 * choice between a new study file and one continued with --resume.  One
 * call for every runner (threads, MPI rank 0). */
#ifndef STSL_API_SWEEP_OUTPUT_H
#define STSL_API_SWEEP_OUTPUT_H

#include "api/sweep.h"
#include "io/config/config.h"
#include "io/study/study.h"
#include "io/study/study_h5.h"

/* The rule, then open o->output: with o->resume an existing file must be
 * an unfinished study of the same study file (else STSL_EINPUT with the
 * reason: not a study file, complete, another study); without, an
 * unfinished study is never replaced; otherwise a new study file. */
int stsl_sweep_output_open(const stsl_study *s, const stsl_config *base,
                           const stsl_study_info *info, const stsl_sweep_opts *o, stsl_study_h5 **w,
                           stsl_error *err);

#endif
