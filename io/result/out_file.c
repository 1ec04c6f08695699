/* out_file.c - parent directories and time stamp of a result file
 * (out_file.h). */
#include "io/result/out_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
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

static void text_free(stsl_out_text *t)
{
    free(t->path);
    free(t->tmp);
    memset(t, 0, sizeof *t);
}

int stsl_out_text_open(const char *path, stsl_out_text *t, stsl_error *err)
{
    memset(t, 0, sizeof *t);
    struct stat st;
    if (!(t->path = strdup(path))) return stsl_error_set(err, STSL_ENOMEM, "out of memory");
    int in_place = stat(path, &st) == 0 && S_ISCHR(st.st_mode);
    int rc = in_place ? STSL_OK : stsl_output_temp(path, &t->tmp, &t->mark, err);
    if (!rc && !(t->f = fopen(in_place ? path : t->tmp, "w")))
        rc =
            stsl_error_set(err, STSL_EIO, "%s: cannot open for writing: %s", path, strerror(errno));
    if (rc) stsl_out_text_discard(t);
    return rc;
}

int stsl_out_text_commit(stsl_out_text *t, stsl_error *err)
{
    int bad = ferror(t->f) != 0, e = 0;
    if (fflush(t->f) != 0) bad = 1, e = errno;
    if (fclose(t->f) != 0 && !bad) bad = 1, e = errno;
    t->f = NULL;
    int rc = STSL_OK;
    if (bad) {
        /* A failed fprintf leaves no errno worth trusting: ask the file. */
        const char *cause = e ? strerror(e) : stsl_output_write_cause(t->tmp ? t->tmp : t->path);
        rc = stsl_error_set(err, STSL_EIO, "%s: cannot write: %s", t->path,
                            cause ? cause : "write error");
    } else if (t->tmp) {
        int replaced;
        rc = stsl_output_commit(t->tmp, t->path, &t->mark, &replaced, err);
    }
    if (rc && t->tmp) remove(t->tmp);
    text_free(t);
    return rc;
}

void stsl_out_text_discard(stsl_out_text *t)
{
    if (!t) return;
    if (t->f) fclose(t->f);
    if (t->tmp) remove(t->tmp);
    text_free(t);
}

const char **stsl_out_config_inputs(const stsl_config *cfg, int *n)
{
    const stsl_system *s = &cfg->system;
    int n_sig = cfg->is_system ? 2 + s->n_forces : 4;
    const char **in = calloc((size_t)n_sig + 1, sizeof *in);
    if (!in) return NULL;
    in[0] = cfg->source;
    const stsl_signal_spec *el[4] = {&cfg->element.active_force, &cfg->element.load,
                                     &cfg->element.base_motion, &cfg->element.anchor_motion};
    for (int i = 0; i < n_sig; i++) {
        const stsl_signal_spec *sig = !cfg->is_system ? el[i]
                                      : i == 0        ? &s->base_motion
                                      : i == 1        ? &s->anchor_motion
                                                      : &s->forces[i - 2].signal;
        in[i + 1] = sig->type == STSL_SIG_TABLE ? sig->file : NULL;
    }
    *n = n_sig + 1;
    return in;
}
