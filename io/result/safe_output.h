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
 * process) and HDF5's exit handler off (every file is closed explicitly
 * anyway; HDF5 1.10's handler crashed on a file whose writes failed before
 * the writers' driver gave such a file up, h5_driver.h), and
 * HDF5's error stack printing off (each failure is reported in one line). */
void stsl_output_process_setup(void);
/* For a program about to write an HDF5 result and read it back (`run`):
 * HDF5 keeps the memory of a closed file's metadata cache (0.5 MiB) on its
 * free list for the next file it opens, instead of returning it (its
 * default keeps 64 KiB a list) and faulting a fresh copy in at the next
 * opening.  Process-wide, and it starts HDF5: not for commands that do not
 * use it, nor for a library. */
void stsl_output_h5_keep_freed(void);

/* ---- the output rule (docs/output-files.md) ----------------------------
 *
 * One check for every command and API call that writes, made before
 * anything is written:
 * - no output is one of the invocation's inputs (the same device and
 *   inode, or the same path), and no two outputs are the same file;
 * - an output that exists is a regular file; a directory, FIFO (a reader
 *   that never comes would make the command wait forever), socket or block
 *   device is refused; a character device is refused too, except for a
 *   text output written in place (`stream`: /dev/null discards it,
 *   /dev/full gives a write error, exit 1);
 * - the format follows the extension: .h5/.hdf5 HDF5, .mat MAT, .csv CSV,
 *   .json JSON.  A known extension of another format than the output can
 *   have is refused; an unknown one is refused when the output can have
 *   several formats and none was forced (--format); a forced format must
 *   agree with a known extension.
 * Every refusal is STSL_EINPUT (exit 2) naming the path and the reason. */

/* Formats, as bits of stsl_output_file.formats. */
enum { STSL_FMT_H5 = 1, STSL_FMT_MAT = 2, STSL_FMT_CSV = 4, STSL_FMT_JSON = 8 };

/* The format a name's extension says (case-insensitive), 0 for another. */
int stsl_output_format_of(const char *path);

/* One output of an invocation. */
typedef struct stsl_output_file {
    const char *path; /* NULL: not written this time (skipped) */
    const char *what; /* in messages: "the result file", "--csv" */
    int formats;      /* the STSL_FMT_ bits it can be written as */
    int format;       /* in: a forced format (--format) or 0; out: the one to write */
    int stream;       /* a text output written in place on a character device */
} stsl_output_file;

/* Apply the rule to `n_out` outputs against `n_in` inputs (NULL entries
 * of either are skipped); fills every outs[i].format. */
int stsl_output_rule(const char *const *inputs, int n_in, stsl_output_file *outs, int n_out,
                     stsl_error *err);

/* STSL_EINPUT when `out` exists and is not a regular file (the rule's
 * second point for a file written under a temporary name). */
int stsl_output_check_regular(const char *out, const char *what, stsl_error *err);

/* Create "<path>.<pid>-<random>.tmp" exclusively (mode 0666 less the
 * umask, like fopen) and return its malloc'd name in *tmp; *mark records
 * what is at `path` now. */
int stsl_output_temp(const char *path, char **tmp, stsl_output_mark *mark, stsl_error *err);

/* stsl_output_temp with a copy of what is at `path` now (for a writer
 * that changes an existing file: it changes the copy, then commits). */
int stsl_output_temp_copy(const char *path, char **tmp, stsl_output_mark *mark, stsl_error *err);

/* After a failed write to the file `tmp`: the cause, found by appending one byte to the file: the
 * write error a full disk or a file-size limit gives ("No space left on device", "File too large"),
 * or NULL when that write succeeds.  For writers that cannot report errno themselves (matio). */
const char *stsl_output_write_cause(const char *tmp);

/* Rename `tmp` to `path`.  *replaced = 1 when `path` changed since `mark`
 * was taken (another run wrote it meanwhile; its result is replaced). */
int stsl_output_commit(const char *tmp, const char *path, const stsl_output_mark *mark,
                       int *replaced, stsl_error *err);

#endif
