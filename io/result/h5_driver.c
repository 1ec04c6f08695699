/* h5_driver.c - the HDF5 file driver of the files the library writes (see
 * h5_driver.h): POSIX I/O as HDF5's sec2 driver, giving a file up after
 * its first failed write or truncate. */
#include "io/result/h5_driver.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#if H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10 /* the driver interface it implements */

typedef struct gfile {
    H5FD_t pub; /* first: HDF5 hands it over as an H5FD_t * */
    int fd;
    haddr_t eoa, eof;
    dev_t dev;
    ino_t ino;
    int given_up; /* a write or truncate failed: nothing more reaches the file */
} gfile;

/* The largest address an off_t reaches (as sec2). */
#define MAXADDR (((haddr_t)1 << (8 * sizeof(off_t) - 1)) - 1)

/* A driver error on HDF5's stack, keeping errno (stsl_h5_fail reads it). */
static void push(const char *func, hid_t minor, const char *what)
{
    int e = errno;
    H5Epush2(H5E_DEFAULT, __FILE__, func, __LINE__, H5E_ERR_CLS, H5E_VFL, minor, "%s: %s", what,
             strerror(e));
    errno = e;
}

static H5FD_t *g_open(const char *name, unsigned flags, hid_t fapl, haddr_t maxaddr)
{
    (void)fapl;
    int o = (flags & H5F_ACC_RDWR) ? O_RDWR : O_RDONLY;
    if (flags & H5F_ACC_TRUNC) o |= O_TRUNC;
    if (flags & H5F_ACC_CREAT) o |= O_CREAT;
    if (flags & H5F_ACC_EXCL) o |= O_EXCL;
    if (!name || !*name || maxaddr == 0 || maxaddr == HADDR_UNDEF || maxaddr > MAXADDR) {
        errno = EINVAL;
        push(__func__, H5E_CANTOPENFILE, "bad file name or address space");
        return NULL;
    }
    gfile *f = calloc(1, sizeof *f);
    struct stat st;
    if (!f) return NULL;
    if ((f->fd = open(name, o | O_CLOEXEC, 0666)) < 0 || fstat(f->fd, &st) != 0) {
        push(__func__, H5E_CANTOPENFILE, name);
        if (f->fd >= 0) close(f->fd);
        free(f);
        return NULL;
    }
    f->eof = (haddr_t)st.st_size;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    return &f->pub;
}

static herr_t g_close(H5FD_t *file)
{
    gfile *f = (gfile *)file;
    int rc = close(f->fd);
    if (rc != 0) push(__func__, H5E_CANTCLOSEFILE, "close");
    free(f);
    return rc != 0 ? -1 : 0;
}

static int g_cmp(const H5FD_t *a, const H5FD_t *b)
{
    const gfile *f = (const gfile *)a, *g = (const gfile *)b;
    if (f->dev != g->dev) return f->dev < g->dev ? -1 : 1;
    return f->ino < g->ino ? -1 : f->ino > g->ino;
}

static herr_t g_query(const H5FD_t *file, unsigned long *flags)
{
    (void)file;
    *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE |
             H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_POSIX_COMPAT_HANDLE |
             H5FD_FEAT_SUPPORTS_SWMR_IO | H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
    return 0;
}

static haddr_t g_get_eoa(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const gfile *)file)->eoa;
}

static herr_t g_set_eoa(H5FD_t *file, H5FD_mem_t type, haddr_t addr)
{
    (void)type;
    ((gfile *)file)->eoa = addr;
    return 0;
}

static haddr_t g_get_eof(const H5FD_t *file, H5FD_mem_t type)
{
    (void)type;
    return ((const gfile *)file)->eof;
}

static herr_t g_get_handle(H5FD_t *file, hid_t fapl, void **handle)
{
    (void)fapl;
    *handle = &((gfile *)file)->fd; /* a POSIX descriptor, as sec2's */
    return 0;
}

static int out_of_range(const gfile *f, haddr_t addr, size_t size)
{
    return addr == HADDR_UNDEF || addr > MAXADDR || size > MAXADDR - addr || addr + size > f->eoa;
}

static herr_t g_read(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                     void *buf)
{
    (void)type, (void)dxpl;
    gfile *f = (gfile *)file;
    if (out_of_range(f, addr, size)) {
        errno = EINVAL;
        push(__func__, H5E_READERROR, "read beyond the end of allocation");
        return -1;
    }
    char *p = buf;
    while (size > 0) {
        ssize_t n = pread(f->fd, p, size, (off_t)addr);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            push(__func__, H5E_READERROR, "read");
            return -1;
        }
        if (n == 0) { /* past the end of the file: zeros, as sec2 */
            memset(p, 0, size);
            break;
        }
        p += n;
        addr += (haddr_t)n;
        size -= (size_t)n;
    }
    return 0;
}

static herr_t g_write(H5FD_t *file, H5FD_mem_t type, hid_t dxpl, haddr_t addr, size_t size,
                      const void *buf)
{
    (void)type, (void)dxpl;
    gfile *f = (gfile *)file;
    if (f->given_up) return 0;
    if (out_of_range(f, addr, size)) {
        errno = EINVAL;
        push(__func__, H5E_WRITEERROR, "write beyond the end of allocation");
        return -1;
    }
    const char *p = buf;
    while (size > 0) {
        ssize_t n = pwrite(f->fd, p, size, (off_t)addr);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            f->given_up = 1;
            push(__func__, H5E_WRITEERROR, "write");
            return -1;
        }
        p += n;
        addr += (haddr_t)n;
        size -= (size_t)n;
    }
    if (addr > f->eof) f->eof = addr;
    return 0;
}

/* The file extended (or cut) to the end of allocation, as sec2. */
static herr_t g_truncate(H5FD_t *file, hid_t dxpl, hbool_t closing)
{
    (void)dxpl, (void)closing;
    gfile *f = (gfile *)file;
    if (f->given_up || f->eoa == f->eof) return 0;
    if (ftruncate(f->fd, (off_t)f->eoa) != 0) {
        f->given_up = 1;
        push(__func__, H5E_WRITEERROR, "extend the file");
        return -1;
    }
    f->eof = f->eoa;
    return 0;
}

/* HDF5's file lock (as sec2: a file system without locks is no error). */
static herr_t g_lock(H5FD_t *file, hbool_t rw)
{
    if (flock(((gfile *)file)->fd, (rw ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 || errno == ENOSYS)
        return 0;
    push(__func__, H5E_CANTLOCKFILE, "lock the file");
    return -1;
}

static herr_t g_unlock(H5FD_t *file)
{
    if (flock(((gfile *)file)->fd, LOCK_UN) == 0 || errno == ENOSYS) return 0;
    push(__func__, H5E_CANTUNLOCKFILE, "unlock the file");
    return -1;
}

static const H5FD_class_t DRIVER = {
    .name = "stickslip",
    .maxaddr = MAXADDR,
    .fc_degree = H5F_CLOSE_WEAK,
    .open = g_open,
    .close = g_close,
    .cmp = g_cmp,
    .query = g_query,
    .get_eoa = g_get_eoa,
    .set_eoa = g_set_eoa,
    .get_eof = g_get_eof,
    .get_handle = g_get_handle,
    .read = g_read,
    .write = g_write,
    .truncate = g_truncate,
    .lock = g_lock,
    .unlock = g_unlock,
    .fl_map = H5FD_FLMAP_DICHOTOMY,
};

/* Registered for each list, not once: no process-wide state.  The list
 * (and each file opened with it) holds the driver's identifier. */
int stsl_h5_use_driver(hid_t fapl)
{
    hid_t id = H5FDregister(&DRIVER);
    if (id < 0) return -1;
    int rc = H5Pset_driver(fapl, id, NULL) < 0 ? -1 : 0;
    H5FDunregister(id);
    return rc;
}

/* Whether the driver gave `file` up (its handle is the fd in a gfile). */
static int given_up(hid_t file)
{
    void *handle = NULL;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle) return 1;
    return ((const gfile *)((const char *)handle - offsetof(gfile, fd)))->given_up;
}

#else

int stsl_h5_use_driver(hid_t fapl)
{
    (void)fapl;
    return 0;
}

static int given_up(hid_t file)
{
    (void)file;
    return 0;
}

#endif

int stsl_h5_close_written(hid_t file)
{
    int rc = H5Fflush(file, H5F_SCOPE_GLOBAL) < 0 || given_up(file) ? -1 : 0, e = errno;
    if (H5Fclose(file) < 0 && rc == 0) return -1;
    if (rc) errno = e; /* the failed write is the cause */
    return rc;
}
