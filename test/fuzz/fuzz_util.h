/* fuzz_util.h - shared by the libFuzzer harnesses (test/fuzz, built with
 * -DSTSL_FUZZ=ON by scripts/fuzz). */
#ifndef STSL_FUZZ_UTIL_H
#define STSL_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Write the input to this process's scratch file (created once, with
 * `suffix`) and return its path; NULL if it cannot be written. */
const char *fuzz_to_file(const uint8_t *data, size_t size, const char *suffix);
/* The input as a malloc'd NUL-terminated string. */
char *fuzz_to_string(const uint8_t *data, size_t size);
/* 1 when text names a device or /proc file: a configuration may name any
 * table file, and /dev/stdin would block the fuzzer, not find a bug. */
int fuzz_names_special_file(const char *text);

#endif
