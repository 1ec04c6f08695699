/* fuzz_mat.c - the MAT candidate reader of `compare` (v4, v5, v7, v7.3
 * and Modelica results through matio): the bytes as a .mat file, read
 * with the default names and with matrix columns and struct fields. */
#include <stdint.h>

#include "io/candidate/mat_candidate.h"
#include "test/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_to_file(data, size, ".mat");
    if (!path) return 0;
    static const char *const names[][STSL_N_ROLES] = {
        {"t", "x", "v", NULL},
        {"yout:1", "simout.signals.values:1", "yout:2", "friction"},
        {"time", "mass.s", "mass.v", NULL}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        stsl_mat_columns c;
        stsl_error err;
        if (stsl_mat_read_columns(path, names[i], 0, &c, &err) == 0) stsl_mat_columns_free(&c);
    }
    return 0;
}
