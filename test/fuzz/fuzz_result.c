/* fuzz_result.c - the result reader (`info`, `plot`, `compare`'s
 * reference): HDF5 bytes written to a file, then read as a result. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/result/h5_read.h"
#include "test/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_to_file(data, size, ".h5");
    if (!path) return 0;
    stsl_h5_result res;
    stsl_error err;
    if (stsl_h5_read(path, &res, &err) == 0) {
        FILE *null = fopen("/dev/null", "w");
        if (null) {
            stsl_h5_print_info(&res, null, -1);
            fclose(null);
        }
        stsl_h5_result_free(&res);
    }
    double *x = NULL;
    long n = 0;
    if (stsl_h5_read_column(path, "x", &x, &n, &err) == 0) free(x);
    return 0;
}
