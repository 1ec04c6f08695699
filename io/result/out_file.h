/* out_file.h - what every result writer does around its file besides the
 * temporary name and the rename (io/result/safe_output.h): the parent directories
 * and the creation time stamp. */
#ifndef STSL_OUT_FILE_H
#define STSL_OUT_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "io/config/config.h"
#include "io/result/safe_output.h"
#include "solver/status.h"

/* The files a run of `cfg` reads, for the output rule: the configuration
 * file it was loaded from and its signals' table files (NULL entries for
 * signals of another type), *n of them; malloc'd, NULL out of memory. */
const char **stsl_out_config_inputs(const stsl_config *cfg, int *n);

/* A text output (CSV, JSON, YAML) written as a result is: under a
 * temporary name beside it, renamed into place when every byte is written
 * and the file closed without error; on any error the temporary file is
 * removed and nothing appears under the final name.  An existing
 * character device (/dev/null; allowed by the output rule for text) is
 * written in place, its errors reported all the same. */
typedef struct stsl_out_text {
    FILE *f;
    char *path, *tmp; /* tmp NULL: written in place */
    stsl_output_mark mark;
} stsl_out_text;

/* Open `path` for writing (its directory must exist). */
int stsl_out_text_open(const char *path, stsl_out_text *t, stsl_error *err);
/* Close and rename into place; STSL_EIO naming the path and the cause
 * ("No space left on device") when any write, the close or the rename
 * failed, the temporary file then removed.  Always releases t. */
int stsl_out_text_commit(stsl_out_text *t, stsl_error *err);
/* Close and remove the temporary file (nothing written); NULL-safe. */
void stsl_out_text_discard(stsl_out_text *t);

/* mkdir -p of the directory part of `path`. */
int stsl_out_make_parent_dirs(const char *path, stsl_error *err);
/* The current UTC time as YYYY-MM-DDTHH:MM:SSZ ("unknown" if unavailable). */
void stsl_out_utc_now(char *buf, size_t n);

#endif
