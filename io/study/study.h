/* study.h - a batch study file (`stickslip sweep`): which base
 * configuration, which keys vary over which values, what to store; and the
 * expansion of that into numbered variants.
 *
 * A study is read and checked here without knowing the configuration
 * schema: each varied key is a key path and each variant a list of numbers,
 * one per key, that the runner applies to a clone of the base configuration
 * (a variant the configuration rejects is a failed row, not a bad study).
 *
 * Expansion (variant i in 0 .. n-1, keys in the order of the file):
 * - grid: all combinations, the first key varying slowest (row-major, as
 *   Python's itertools.product or numpy's meshgrid(indexing="ij"));
 * - zip:  the i-th value of every key (all lists of one length);
 * - latin_hypercube: GSL's MT19937 (gsl_rng_mt19937, documented and the same
 *   on every platform) seeded with `seed` (default 0, which GSL replaces by
 *   its default seed 4357); for each key in file order a
 *   permutation p of 0 .. n-1 (gsl_ran_shuffle), then for each variant in
 *   order one uniform u in [0, 1) (gsl_rng_uniform); the value is
 *   lo + (hi - lo) (p[i] + u) / n.  Every key's range is cut into n equal
 *   strata and each stratum holds exactly one variant.
 * linspace [a, b, n]: a + (b - a) i / (n - 1) (b exactly at i = n - 1);
 * logspace [a, b, n]: 10^(linspace) as numpy.logspace.
 * A generated value that is not a finite, normal double (stop - start
 * overflowing, 10^e above 1.8e308 or below 2.2e-308) is refused, and so is
 * a written number that underflows (1e-400 would read as 0).
 *
 * The file is read under the configuration's bounds (io/config/text_input.h:
 * 1 MiB, 64 KiB lines, 64 levels of flow nesting, no NUL, UTF-8), and so
 * is a base given as a path.
 *
 * Errors are STSL_EINPUT with `FILE:LINE: key.path: what is wrong`. */
#ifndef STSL_STUDY_H
#define STSL_STUDY_H

#include "solver/status.h"

typedef enum stsl_combine {
    STSL_COMBINE_GRID = 0,
    STSL_COMBINE_ZIP = 1,
    STSL_COMBINE_LATIN_HYPERCUBE = 2
} stsl_combine;

/* What a study keeps of each variant besides its summary row. */
typedef enum stsl_store {
    STSL_STORE_SUMMARY = 0, /* the row only */
    STSL_STORE_EVENTS = 1,  /* the row and the variant's event table */
    STSL_STORE_FULL = 2     /* the row and the whole result (single-run layout) */
} stsl_store;

/* Most variants a study may have.  10^7 is beyond any study meant to be
 * run (at the ~2 ms CPU of a short variant, 5.6 CPU-hours; a realistic
 * 0.1-1 s variant, 12-120 CPU-days), and it bounds what a few lines of a
 * study file can demand before any variant runs: the summary table
 * (~250 bytes a row, 2.5 GB) and the parameters.  Counts are checked
 * before anything is allocated, the grid product by division. */
#define STSL_STUDY_MAX_VARIANTS 10000000L
/* Most parameter values (variants x varied keys): /study/parameters on
 * disk, and a Latin hypercube's sample in memory, at most 800 MB. */
#define STSL_STUDY_MAX_VALUES 100000000L
/* Most varied keys (columns of /study/parameters). */
#define STSL_STUDY_MAX_KEYS 64

typedef struct stsl_study stsl_study;

/* Read and check the study file at `path`.  A base given as a path is
 * resolved against the study file's directory and read here (its text is
 * kept; it is checked as a configuration by the caller).  On failure *out
 * is NULL. */
int stsl_study_load(const char *path, stsl_study **out, stsl_error *err);
/* The same from text; `origin` names it in messages, `base_dir` resolves a
 * base path (NULL: the current directory). */
int stsl_study_load_string(const char *text, const char *origin, const char *base_dir,
                           stsl_study **out, stsl_error *err);
void stsl_study_free(stsl_study *s); /* NULL-safe */

long stsl_study_n_variants(const stsl_study *s);
int stsl_study_n_keys(const stsl_study *s);
/* Key path of varied key j, e.g. "friction.dynamic". */
const char *stsl_study_key(const stsl_study *s, int j);
/* Line (1-based) of key j in the study file, for messages about the key. */
int stsl_study_key_line(const stsl_study *s, int j);
/* The values of variant i (0 <= i < n_variants), one per key, into vals. */
void stsl_study_values(const stsl_study *s, long i, double *vals);

stsl_combine stsl_study_combine(const stsl_study *s);
stsl_store stsl_study_store(const stsl_study *s);
const char *stsl_store_name(stsl_store store);
/* The study file's text, as read. */
const char *stsl_study_text(const stsl_study *s);
/* The base configuration: its YAML text, the name that messages about it
 * carry (its path, or the study file for an inline base: the text is then
 * padded so that its line numbers are those of the study file), and the
 * directory its relative table files are resolved against ("" = current). */
const char *stsl_study_base_text(const stsl_study *s);
const char *stsl_study_base_origin(const stsl_study *s);
const char *stsl_study_base_dir(const stsl_study *s);
/* The study file's name (its path, or `origin`). */
const char *stsl_study_origin(const stsl_study *s);

#endif
