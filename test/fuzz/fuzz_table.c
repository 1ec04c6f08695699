/* fuzz_table.c - the table reader: the input is the CSV file of a table
 * input, loaded through a configuration that names it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/config/config.h"
#include "test/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_to_file(data, size, ".csv");
    if (!path) return 0;
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "element: {mass: 1}\nfriction: {law: coulomb, dynamic: 1}\n"
             "inputs:\n  load: {type: table, file: \"%s\"}\nsimulation: {t_end: 1}\n",
             path);
    stsl_config cfg;
    stsl_error err;
    if (stsl_config_load_string(yaml, "fuzz.yaml", NULL, NULL, 0, &cfg, &err) == 0)
        stsl_config_free(&cfg);
    return 0;
}
