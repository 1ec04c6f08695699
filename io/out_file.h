/* out_file.h - what every result writer does around its file besides the
 * temporary name and the rename (io/safe_output.h): the parent directories
 * and the creation time stamp. */
#ifndef STSL_OUT_FILE_H
#define STSL_OUT_FILE_H

#include <stddef.h>

#include "solver/status.h"

/* mkdir -p of the directory part of `path`. */
int stsl_out_make_parent_dirs(const char *path, stsl_error *err);
/* The current UTC time as YYYY-MM-DDTHH:MM:SSZ ("unknown" if unavailable). */
void stsl_out_utc_now(char *buf, size_t n);

#endif
