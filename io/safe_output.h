/* safe_output.h - writing a result without destroying anything.
 *
 * A result is written under a temporary name unique to the process and
 * renamed into place at the end (atomic on one file system), so a crash
 * never leaves a half file under the final name and two runs writing the
 * same output at once cannot truncate or delete each other's work: the
 * last one to finish wins, and says so.  The output may not be one of the
 * inputs, nor a device or FIFO, which the rename would replace. */
#ifndef STSL_SAFE_OUTPUT_H
#define STSL_SAFE_OUTPUT_H

#include <sys/types.h>

#include "solver/status.h"

/* What was at the final path when the run began (to notice another
 * writer).  */
typedef struct stsl_output_mark {
    int existed;
    dev_t dev;
    ino_t ino;
    long long mtime_ns;
} stsl_output_mark;

/* For a program that writes results, once, before any other HDF5 call:
 * SIGXFSZ ignored (a file-size limit then makes write() fail with EFBIG,
 * reported, and the temporary file removed, instead of killing the
 * process) and HDF5's exit handler off (it crashes on a file whose close
 * failed on a full disk; every file is closed explicitly anyway). */
void stsl_output_process_setup(void);
/* For a program about to write an HDF5 result and read it back (`run`):
 * HDF5 keeps the memory of a closed file's metadata cache (0.5 MiB) on its
 * free list for the next file it opens, instead of returning it (its
 * default keeps 64 KiB a list) and faulting a fresh copy in at the next
 * opening.  Process-wide, and it starts HDF5: not for commands that do not
 * use it, nor for a library. */
void stsl_output_h5_keep_freed(void);

/* STSL_EINPUT when `out` is the same file (device and inode) as one of
 * the `n` inputs (NULL entries skipped): "OUT is the input IN ...". */
int stsl_output_check_inputs(const char *out, const char *const *inputs, int n, stsl_error *err);

/* STSL_EINPUT when `out` exists and is not a regular file (a device, FIFO,
 * directory or socket): a rename would replace a device node. */
int stsl_output_check_regular(const char *out, const char *what, stsl_error *err);

/* Create "<path>.<pid>-<random>.tmp" exclusively (mode 0666 less the
 * umask, like fopen) and return its malloc'd name in *tmp; *mark records
 * what is at `path` now. */
int stsl_output_temp(const char *path, char **tmp, stsl_output_mark *mark, stsl_error *err);

/* Rename `tmp` to `path`.  *replaced = 1 when `path` changed since `mark`
 * was taken (another run wrote it meanwhile; its result is replaced). */
int stsl_output_commit(const char *tmp, const char *path, const stsl_output_mark *mark,
                       int *replaced, stsl_error *err);

#endif
