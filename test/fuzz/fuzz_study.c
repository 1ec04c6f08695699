/* fuzz_study.c - the study file loader (`sweep`): text bounds, libyaml,
 * the study's rules and counts, a base path read from examples/studies
 * (scripts/fuzz runs from the repository), and the expansion of the
 * first and last variants. */
#include <stdint.h>
#include <stdlib.h>

#include "io/study/study.h"
#include "test/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_to_string(data, size);
    if (!text) return 0;
    if (!fuzz_names_special_file(text)) {
        stsl_study *s = NULL;
        stsl_error err;
        if (stsl_study_load_string(text, "fuzz.yaml", "examples/studies", &s, &err) == 0) {
            double vals[STSL_STUDY_MAX_KEYS];
            stsl_study_values(s, 0, vals);
            stsl_study_values(s, stsl_study_n_variants(s) - 1, vals);
            stsl_study_free(s);
        }
    }
    free(text);
    return 0;
}
