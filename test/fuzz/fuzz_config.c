/* fuzz_config.c - the configuration loader from text: bounds and UTF-8
 * checks, libyaml, validation, --set-free. */
#include <stdint.h>
#include <stdlib.h>

#include "io/config/config.h"
#include "test/fuzz/fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_to_string(data, size);
    if (!text) return 0;
    if (!fuzz_names_special_file(text)) {
        stsl_config cfg;
        stsl_error err;
        if (stsl_config_load_string(text, "fuzz.yaml", "/tmp", NULL, 0, &cfg, &err) == 0) {
            free(stsl_config_to_yaml(&cfg));
            stsl_config_free(&cfg);
        }
    }
    free(text);
    return 0;
}
