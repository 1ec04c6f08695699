#include "test/fuzz/fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *fuzz_to_file(const uint8_t *data, size_t size, const char *suffix)
{
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/stsl_fuzz_%ld%s", (long)getpid(), suffix);
    }
    FILE *f = fopen(path, "wb");
    if (!f) return NULL;
    size_t n = size ? fwrite(data, 1, size, f) : 0;
    if (fclose(f) != 0 || n != size) return NULL;
    return path;
}

char *fuzz_to_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return NULL;
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

int fuzz_names_special_file(const char *text)
{
    return strstr(text, "/dev") || strstr(text, "/proc") || strstr(text, "/sys");
}
