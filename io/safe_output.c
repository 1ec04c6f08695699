#include "io/safe_output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

/* Attempts at a fresh temporary name before giving up (a collision needs
 * the same pid and 24 random bits: never more than one in practice). */
#define TEMP_TRIES 100

void stsl_output_process_setup(void)
{
    signal(SIGXFSZ, SIG_IGN);
    H5dont_atexit();
}

void stsl_output_h5_keep_freed(void)
{
    /* HDF5's defaults (H5FL.c) but for the regular lists: 1 MiB a list
     * (the cache structure is one block of ~0.5 MiB), 2 MiB in all. */
    H5set_free_list_limits(2 << 20, 1 << 20, 4 << 20, 256 << 10, 16 << 20, 1 << 20);
}

int stsl_output_check_inputs(const char *out, const char *const *inputs, int n, stsl_error *err)
{
    struct stat so, si;
    if (!out || stat(out, &so) != 0) return STSL_OK; /* not there yet: cannot be an input */
    for (int i = 0; i < n; i++) {
        if (!inputs[i] || stat(inputs[i], &si) != 0) continue;
        if (so.st_dev == si.st_dev && so.st_ino == si.st_ino)
            return stsl_error_set(err, STSL_EINPUT,
                                  "output %s is the input %s (the same file): it would be "
                                  "overwritten; choose another output",
                                  out, inputs[i]);
    }
    return STSL_OK;
}

int stsl_output_check_regular(const char *out, const char *what, stsl_error *err)
{
    struct stat st;
    if (stat(out, &st) != 0 || S_ISREG(st.st_mode)) return STSL_OK;
    const char *kind = S_ISCHR(st.st_mode)    ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISDIR(st.st_mode)  ? "a directory"
                                              : "not a regular file";
    return stsl_error_set(err, STSL_EINPUT,
                          "output %s is %s: %s needs a regular file (it is written under a "
                          "temporary name and renamed into place, which would replace %s)",
                          out, kind, what, S_ISDIR(st.st_mode) ? "it" : "the node");
}

static void mark_of(const char *path, stsl_output_mark *m)
{
    struct stat st;
    memset(m, 0, sizeof *m);
    if (stat(path, &st) != 0) return;
    m->existed = 1;
    m->dev = st.st_dev;
    m->ino = st.st_ino;
    m->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

/* 24 bits that differ between processes and calls (no global state: the
 * address of a local and the clock vary enough; O_EXCL makes it safe). */
static unsigned long temp_salt(int attempt)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long x = (unsigned long)ts.tv_nsec ^ ((unsigned long)(size_t)&ts >> 4) ^
                      ((unsigned long)attempt * 2654435761UL);
    x ^= x >> 13;
    x *= 0x9E3779B1UL;
    return (x >> 5) & 0xFFFFFFUL;
}

int stsl_output_temp(const char *path, char **tmp, stsl_output_mark *mark, stsl_error *err)
{
    size_t n = strlen(path) + 48;
    char *name = malloc(n);
    if (!name) return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path);
    mode_t um = umask(0);
    umask(um);
    for (int i = 0; i < TEMP_TRIES; i++) {
        snprintf(name, n, "%s.%ld-%06lx.tmp", path, (long)getpid(), temp_salt(i));
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0666 & ~um);
        if (fd >= 0) {
            close(fd);
            mark_of(path, mark);
            *tmp = name;
            return STSL_OK;
        }
        if (errno != EEXIST) {
            int e = errno;
            stsl_error_set(err, STSL_EIO, "%s: cannot create %s: %s", path, name, strerror(e));
            free(name);
            return STSL_EIO;
        }
    }
    free(name);
    return stsl_error_set(err, STSL_EIO, "%s: no free temporary name after %d attempts", path,
                          TEMP_TRIES);
}

int stsl_output_commit(const char *tmp, const char *path, const stsl_output_mark *mark,
                       int *replaced, stsl_error *err)
{
    stsl_output_mark now;
    mark_of(path, &now);
    *replaced = now.existed && (!mark->existed || now.dev != mark->dev || now.ino != mark->ino ||
                                now.mtime_ns != mark->mtime_ns);
    if (rename(tmp, path) != 0)
        return stsl_error_set(err, STSL_EIO, "%s: cannot rename %s into place: %s", path, tmp,
                              strerror(errno));
    return STSL_OK;
}
