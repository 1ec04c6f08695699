#include "io/result/safe_output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
    /* Every HDF5 failure is reported as one line naming the file and what
     * failed; HDF5's own stack dump would bury it. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void stsl_output_h5_keep_freed(void)
{
    /* HDF5's defaults (H5FL.c) but for the regular lists: 1 MiB a list
     * (the cache structure is one block of ~0.5 MiB), 2 MiB in all. */
    H5set_free_list_limits(2 << 20, 1 << 20, 4 << 20, 256 << 10, 16 << 20, 1 << 20);
}

/* ---- the output rule ---------------------------------------------------- */

int stsl_output_format_of(const char *path)
{
    static const struct {
        const char *ext;
        int fmt;
    } known[] = {{".h5", STSL_FMT_H5},
                 {".hdf5", STSL_FMT_H5},
                 {".mat", STSL_FMT_MAT},
                 {".csv", STSL_FMT_CSV},
                 {".json", STSL_FMT_JSON}};
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash)) return 0;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcasecmp(dot, known[i].ext)) return known[i].fmt;
    return 0;
}

/* "HDF5", "MAT", "CSV", "JSON" for one STSL_FMT_ bit. */
static const char *format_name(int fmt)
{
    return fmt == STSL_FMT_H5    ? "HDF5"
           : fmt == STSL_FMT_MAT ? "MAT"
           : fmt == STSL_FMT_CSV ? "CSV"
                                 : "JSON";
}

/* "HDF5 (.h5, .hdf5) or MAT (.mat)" for a set of formats. */
static void formats_text(int formats, char *buf, size_t n)
{
    static const char *const ext[] = {"HDF5 (.h5, .hdf5)", "MAT (.mat)", "CSV (.csv)",
                                      "JSON (.json)"};
    size_t used = 0;
    buf[0] = '\0';
    for (int b = 0, k = 0; b < 4; b++) {
        if (!(formats & (1 << b))) continue;
        int w = snprintf(buf + used, n - used, "%s%s", k++ ? " or " : "", ext[b]);
        if (w < 0 || (size_t)w >= n - used) return;
        used += (size_t)w;
    }
}

static int choose_format(stsl_output_file *o, stsl_error *err)
{
    int ext = stsl_output_format_of(o->path);
    char can[96];
    formats_text(o->formats, can, sizeof can);
    if (o->format && ext && ext != o->format)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: the name says %s but --format says %s: rename it or drop "
                              "--format",
                              o->path, format_name(ext), format_name(o->format));
    if (!o->format && ext && !(ext & o->formats))
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: %s is written as %s, not %s: choose a name with one of "
                              "those extensions",
                              o->path, o->what, can, format_name(ext));
    if (!o->format) o->format = ext;
    /* One format possible: an unknown extension leaves nothing to guess. */
    if (!o->format && (o->formats & (o->formats - 1)) == 0) o->format = o->formats;
    if (!o->format)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: unknown extension: %s is written as %s; name it so, or give "
                              "--format",
                              o->path, o->what, can);
    return STSL_OK;
}

static const char *kind_of(mode_t m)
{
    return S_ISCHR(m)    ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISDIR(m)  ? "a directory"
           : S_ISSOCK(m) ? "a socket"
                         : "not a regular file";
}

static int check_kind(const stsl_output_file *o, stsl_error *err)
{
    struct stat st;
    if (stat(o->path, &st) != 0 || S_ISREG(st.st_mode)) return STSL_OK;
    if (S_ISCHR(st.st_mode) && o->stream) return STSL_OK;
    if (S_ISFIFO(st.st_mode))
        return stsl_error_set(err, STSL_EINPUT,
                              "%s is a FIFO: %s is never written to a FIFO (without a reader "
                              "the command would wait forever); give a file name",
                              o->path, o->what);
    if (S_ISDIR(st.st_mode))
        return stsl_error_set(err, STSL_EINPUT, "%s is a directory: %s needs a file name", o->path,
                              o->what);
    return stsl_error_set(err, STSL_EINPUT,
                          "%s is %s: %s needs a regular file (it is written under a temporary "
                          "name and renamed into place, which would replace the node)",
                          o->path, kind_of(st.st_mode), o->what);
}

/* The absolute path `path` names, symbolic links of its existing part
 * resolved, "." and ".." of the rest applied (malloc'd; NULL on failure):
 * two names of a file not yet created compare equal. */
static char *canonical(const char *path)
{
    size_t n = strlen(path);
    char *head = malloc(n + 3), *full = NULL;
    if (!head) return NULL;
    snprintf(head, n + 3, "%s", path);
    /* Cut components off the end until the rest exists. */
    char *real = NULL;
    size_t cut = n;
    while (!(real = realpath(head[0] ? head : ".", NULL))) {
        char *slash = strrchr(head, '/');
        if (!head[0]) { /* not even the working directory resolves */
            free(head);
            return NULL;
        }
        if (!slash) {
            cut = 0;
            head[0] = '\0';
            continue;
        }
        if (slash == head) { /* "/x": the root exists */
            head[1] = '\0';
            cut = 1;
            continue;
        }
        *slash = '\0';
        cut = (size_t)(slash - head);
    }
    free(head);
    size_t cap = strlen(real) + n + 2;
    if (!(full = malloc(cap))) {
        free(real);
        return NULL;
    }
    snprintf(full, cap, "%s", strcmp(real, "/") ? real : "");
    free(real);
    /* Append the missing components lexically. */
    for (const char *p = path + cut; *p;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0) break;
        if (len == 2 && !strncmp(p, "..", 2)) {
            char *s = strrchr(full, '/');
            if (s) *s = '\0';
        } else if (!(len == 1 && p[0] == '.')) {
            size_t u = strlen(full);
            snprintf(full + u, cap - u, "/%.*s", (int)len, p);
        }
        p += len;
    }
    if (!full[0]) snprintf(full, cap, "/");
    return full;
}

/* 1 when a and b are one file: the same device and inode when both exist,
 * else the same canonical path. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea != eb) return 0;
    char *ca = canonical(a), *cb = canonical(b);
    int same = ca && cb ? !strcmp(ca, cb) : !strcmp(a, b);
    free(ca);
    free(cb);
    return same;
}

static int check_against_inputs(const char *out, const char *const *inputs, int n, stsl_error *err)
{
    struct stat st;
    for (int i = 0; out && i < n; i++) /* an input that is not there is not destroyed */
        if (inputs[i] && stat(inputs[i], &st) == 0 && same_file(out, inputs[i]))
            return stsl_error_set(err, STSL_EINPUT,
                                  "output %s is the input %s (the same file): it would be "
                                  "overwritten; choose another output",
                                  out, inputs[i]);
    return STSL_OK;
}

int stsl_output_rule(const char *const *inputs, int n_in, stsl_output_file *outs, int n_out,
                     stsl_error *err)
{
    int rc = STSL_OK;
    for (int i = 0; !rc && i < n_out; i++) {
        stsl_output_file *o = &outs[i];
        if (!o->path) continue;
        if (!o->path[0]) return stsl_error_set(err, STSL_EINPUT, "%s: an empty file name", o->what);
        rc = check_against_inputs(o->path, inputs, n_in, err);
        for (int j = 0; !rc && j < i; j++)
            if (outs[j].path && same_file(o->path, outs[j].path))
                rc = stsl_error_set(err, STSL_EINPUT,
                                    "%s (%s) and %s (%s) are the same file: one would replace "
                                    "the other; choose two names",
                                    outs[j].path, outs[j].what, o->path, o->what);
        if (!rc) rc = check_kind(o, err);
        if (!rc && o->formats) rc = choose_format(o, err);
    }
    return rc;
}

int stsl_output_check_regular(const char *out, const char *what, stsl_error *err)
{
    stsl_output_file o = {out, what, 0, 0, 0};
    return check_kind(&o, err);
}

const char *stsl_output_write_cause(const char *tmp)
{
    int fd = open(tmp, O_WRONLY | O_APPEND);
    if (fd < 0) return NULL;
    ssize_t w = write(fd, "", 1);
    int e = errno;
    close(fd);
    return w == 1 ? NULL : strerror(e);
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
    for (int i = 0; i < TEMP_TRIES; i++) {
        snprintf(name, n, "%s.%ld-%06lx.tmp", path, (long)getpid(), temp_salt(i));
        /* open() takes the umask off 0666 itself: reading the umask would
         * set it, for every thread of the process (stickslip.h, Threads). */
        int fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            close(fd);
            mark_of(path, mark);
            *tmp = name;
            return STSL_OK;
        }
        if (errno != EEXIST) {
            int e = errno;
            /* The user's name, not the temporary one: the message must not
             * change from run to run (a process id is in the name). */
            stsl_error_set(err, STSL_EIO, "%s: cannot create: %s", path, strerror(e));
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

/* Copy the open file `in` to `out`: 0, or the errno of the failure. */
static int copy_fd(int in, int out)
{
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n == 0) return 0;
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return errno;
            done += w;
        }
    }
}

int stsl_output_temp_copy(const char *path, char **tmp, stsl_output_mark *mark, stsl_error *err)
{
    int rc = stsl_output_temp(path, tmp, mark, err);
    if (rc) return rc;
    int in = open(path, O_RDONLY), out = open(*tmp, O_WRONLY | O_TRUNC);
    int e = in < 0 || out < 0 ? errno : copy_fd(in, out);
    if (out >= 0 && close(out) != 0 && !e) e = errno;
    if (in >= 0) close(in);
    if (!e) return STSL_OK;
    remove(*tmp);
    free(*tmp);
    *tmp = NULL;
    return stsl_error_set(err, STSL_EIO, "%s: cannot copy it to change it: %s", path, strerror(e));
}
