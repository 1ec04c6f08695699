/* fuzz_candidate.c - the candidate reader of `compare` (CSV, or HDF5
 * when the bytes are an HDF5 file). */
#include <stdint.h>

#include "io/candidate/candidate.h"
#include "test/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_to_file(data, size, ".csv");
    if (!path) return 0;
    stsl_cand_columns cols = {"t", "x", "v", NULL};
    stsl_candidate c;
    stsl_error err;
    if (stsl_candidate_read(path, &cols, &c, &err) == 0) stsl_candidate_free(&c);
    return 0;
}
