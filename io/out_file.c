/* out_file.c - parent directories and time stamp of a result file
 * (out_file.h). */
#include "io/out_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int stsl_out_make_parent_dirs(const char *path, stsl_error *err)
{
    size_t len = strlen(path) + 1;
    char *dir = malloc(len);
    if (!dir) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    memcpy(dir, path, len);
    char *slash = strrchr(dir, '/');
    int rc = STSL_OK;
    if (slash && slash != dir) {
        *slash = '\0';
        for (char *p = dir + 1;; p++) {
            if (*p != '/' && *p != '\0') continue;
            char c = *p;
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
                rc = stsl_error_set(err, STSL_EIO, "%s: cannot create directory %s: %s", path, dir,
                                    strerror(errno));
                break;
            }
            *p = c;
            if (c == '\0') break;
        }
    }
    free(dir);
    return rc;
}

void stsl_out_utc_now(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) == NULL || strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, n, "unknown");
}
