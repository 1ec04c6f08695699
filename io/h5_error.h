/* h5_error.h - HDF5's own description of its last error, for messages. */
#ifndef STSL_H5_ERROR_H
#define STSL_H5_ERROR_H

#include <stddef.h>

/* The innermost (most specific) description on HDF5's error stack into buf
 * ("" when there is none).  Call it right after the failing call: the next
 * HDF5 API call clears the stack. */
void stsl_h5_last_error(char *buf, size_t size);

#endif
