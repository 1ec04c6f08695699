/* out_file.h - what every result writer does around its file: the parent
 * directories, the temporary name "<path>.tmp" written first and renamed
 * into place at the end (a crash never leaves a half file under the final
 * name), and the creation time stamp. */
#ifndef STSL_OUT_FILE_H
#define STSL_OUT_FILE_H

#include <stddef.h>

#include "solver/status.h"

/* mkdir -p of the directory part of `path`, then *tmp = "<path>.tmp"
 * (malloc'd; NULL on failure). */
int stsl_out_prepare(const char *path, char **tmp, stsl_error *err);
/* Rename the finished `tmp` to `path`. */
int stsl_out_commit(const char *tmp, const char *path, stsl_error *err);
/* The current UTC time as YYYY-MM-DDTHH:MM:SSZ ("unknown" if unavailable). */
void stsl_out_utc_now(char *buf, size_t n);

#endif
