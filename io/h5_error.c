#include "io/h5_error.h"

#include <stdio.h>

#include <hdf5.h>

typedef struct walk_buf {
    char *buf;
    size_t size;
} walk_buf;

static herr_t walk_first(unsigned n, const H5E_error2_t *e, void *data)
{
    walk_buf *w = data;
    /* Walking upward, entry 0 is the innermost error: the most specific. */
    if (n == 0 && e->desc) snprintf(w->buf, w->size, "%s", e->desc);
    return 0;
}

void stsl_h5_last_error(char *buf, size_t size)
{
    walk_buf w = {buf, size};
    if (size) buf[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_first, &w);
}
