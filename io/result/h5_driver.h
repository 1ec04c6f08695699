/* h5_driver.h - the HDF5 file driver of the files the library writes.
 *
 * Why: HDF5 1.10 cannot close a file whose last writes failed (disk full,
 * file-size limit): H5Fclose fails half-way (flushing, then extending the
 * file to its end of allocation), frees the file but keeps its identifier,
 * and HDF5's exit handler then closes that identifier again and crashes
 * (a segfault at exit, in H5F__close_cb).  A program may turn the exit
 * handler off (stsl_process_setup), but a library's user (a C program, the
 * Python package) does not: the library must close every file it opened.
 *
 * The driver does POSIX I/O as HDF5's default (sec2: the same calls, the
 * same bytes in the file), except that once a write or truncate has failed
 * the file is given up: later writes and truncates reach nothing and
 * succeed, so that its close frees the identifier; the close of a file
 * given up reports the failure (stsl_h5_close_written), so that no writer
 * takes such a file for whole.  The file is left as of the failure
 * (removed, or kept as of its last flush).
 * HDF5 releases after 1.10 close the identifier even when the close fails:
 * there the default driver is kept. */
#ifndef STSL_H5_DRIVER_H
#define STSL_H5_DRIVER_H

#include <hdf5.h>

/* Have files opened with the file-access list `fapl` use the driver. */
int stsl_h5_use_driver(hid_t fapl);

/* Flush, then close a file opened for writing with the driver: a failed
 * flush gives the file up, so that the close itself never fails half-way.
 * -1 if the file was given up (now or by an earlier write) or the close
 * failed, errno as the failed write left it; the file is closed either
 * way. */
int stsl_h5_close_written(hid_t file);

#endif
