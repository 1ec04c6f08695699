#include "io/config/text_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KIB ((size_t)1024)
#define MIB (KIB * KIB)
/* Read granularity; also how far past a limit a bad file is read. */
#define CHUNK (64 * KIB)

/* A configuration's bounds: size, line, flow nesting. */
#define CONFIG_BOUNDS MIB, 64 * KIB, 64

const stsl_text_limits stsl_config_limits = {"configuration", CONFIG_BOUNDS};
/* A study file holds a configuration (an inline base) and a page of keys:
 * the configuration's limits, under its own name. */
const stsl_text_limits stsl_study_limits = {"study", CONFIG_BOUNDS};
const stsl_text_limits stsl_table_limits = {"table", 256 * MIB, 64 * KIB, 0};
const stsl_text_limits stsl_candidate_limits = {"candidate", 2048 * MIB, 64 * KIB, 0};

/* Position while scanning: line number and bytes in the current line. */
typedef struct scan_pos {
    long line;
    size_t col;
} scan_pos;

static int too_long(const char *origin, const stsl_text_limits *lim, long line, stsl_error *err)
{
    return stsl_error_set(err, STSL_EINPUT,
                          "%s:%ld: line longer than %zu bytes (the %s limit; a file without "
                          "line breaks?)",
                          origin, line, lim->max_line, lim->what);
}

/* NUL bytes and line lengths of `n` more bytes; used while reading so that
 * /dev/zero or a file without line breaks is refused after one chunk. */
static int scan_lines(const char *origin, const stsl_text_limits *lim, scan_pos *p, const char *s,
                      size_t n, stsl_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\n') {
            p->line++;
            p->col = 0;
            continue;
        }
        if (s[i] == '\0')
            return stsl_error_set(err, STSL_EINPUT,
                                  "%s:%ld: NUL byte at column %zu (not a text file?)", origin,
                                  p->line, p->col + 1);
        if (++p->col > lim->max_line) return too_long(origin, lim, p->line, err);
    }
    return STSL_OK;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if invalid:
 * no overlong forms, no surrogates, nothing above U+10FFFF. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (!len || c > 0xF4 || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && s[1] < 0xA0) return 0; /* overlong */
    if (c == 0xED && s[1] > 0x9F) return 0; /* surrogate */
    if (c == 0xF0 && s[1] < 0x90) return 0; /* overlong */
    if (c == 0xF4 && s[1] > 0x8F) return 0; /* above U+10FFFF */
    return len;
}

/* YAML flow nesting outside quotes and comments.  Conservative: a bracket
 * in a plain or block scalar counts too, which only matters beyond the
 * limit no real configuration comes near. */
typedef struct depth_scan {
    int depth;
    char quote; /* 0, '\'' or '"' */
    int escape; /* the previous byte was a backslash inside "..." */
    int comment;
    char prev;
} depth_scan;

static void depth_step(depth_scan *d, char c)
{
    char prev = d->prev;
    d->prev = c;
    if (c == '\n') {
        d->comment = 0;
        return;
    }
    if (d->comment) return;
    if (d->quote) {
        if (d->escape)
            d->escape = 0;
        else if (d->quote == '"' && c == '\\')
            d->escape = 1;
        else if (c == d->quote)
            d->quote = 0;
        return;
    }
    if (c == '#' && (prev == '\0' || prev == ' ' || prev == '\t' || prev == '\n'))
        d->comment = 1;
    else if (c == '"' || c == '\'')
        d->quote = c;
    else if (c == '[' || c == '{')
        d->depth++;
    else if ((c == ']' || c == '}') && d->depth > 0)
        d->depth--;
}

int stsl_text_check(const char *origin, const char *text, size_t len, const stsl_text_limits *lim,
                    size_t *start, stsl_error *err)
{
    size_t i = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    *start = i;
    if (len - i > lim->max_bytes)
        return stsl_error_set(err, STSL_EINPUT, "%s: larger than %zu bytes (the %s limit)", origin,
                              lim->max_bytes, lim->what);
    scan_pos p = {1, 0};
    depth_scan d = {0, 0, 0, 0, '\0'};
    while (i < len) {
        const unsigned char *u = (const unsigned char *)text + i;
        int rc = scan_lines(origin, lim, &p, text + i, 1, err);
        if (rc) return rc;
        size_t n = utf8_len(u, len - i);
        if (!n)
            return stsl_error_set(err, STSL_EINPUT,
                                  "%s:%ld: invalid UTF-8 (byte 0x%02x at column %zu); save the "
                                  "file as UTF-8",
                                  origin, p.line, u[0], p.col);
        if (lim->max_depth > 0) {
            depth_step(&d, text[i]);
            if (d.depth > lim->max_depth)
                return stsl_error_set(err, STSL_EINPUT,
                                      "%s:%ld: nested deeper than %d levels (the %s limit)", origin,
                                      p.line, lim->max_depth, lim->what);
        }
        /* Continuation bytes count towards the line length, not lines. */
        p.col += n - 1;
        i += n;
    }
    return STSL_OK;
}

static int read_fd(int fd, const char *path, const stsl_text_limits *lim, char **text, size_t *len,
                   stsl_error *err)
{
    size_t cap = CHUNK, n = 0, limit = lim->max_bytes + 3; /* + a BOM */
    char *buf = malloc(cap + 1);
    scan_pos p = {1, 0};
    int rc = buf ? STSL_OK : stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path);
    while (!rc) {
        if (n == cap) {
            char *b = realloc(buf, (cap *= 2) + 1);
            if (!b) {
                rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory reading it", path);
                break;
            }
            buf = b;
        }
        ssize_t got = read(fd, buf + n, cap - n < CHUNK ? cap - n : CHUNK);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0)
            rc = stsl_error_set(err, STSL_EINPUT, "%s: read error: %s", path, strerror(errno));
        if (got <= 0) break;
        rc = scan_lines(path, lim, &p, buf + n, (size_t)got, err);
        n += (size_t)got;
        if (!rc && n > limit)
            rc = stsl_error_set(err, STSL_EINPUT, "%s: larger than %zu bytes (the %s limit)", path,
                                lim->max_bytes, lim->what);
    }
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return STSL_OK;
}

int stsl_text_read(const char *path, const stsl_text_limits *lim, char **text, size_t *len,
                   stsl_error *err)
{
    *text = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return stsl_error_set(err, STSL_EINPUT, "cannot open %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return stsl_error_set(err, STSL_EINPUT, "%s: is a directory, not a %s file", path,
                              lim->what);
    }
    char *buf = NULL;
    size_t n = 0, start = 0;
    int rc = read_fd(fd, path, lim, &buf, &n, err);
    close(fd);
    if (!rc) rc = stsl_text_check(path, buf, n, lim, &start, err);
    if (rc) {
        free(buf);
        return rc;
    }
    memmove(buf, buf + start, n - start + 1);
    *text = buf;
    *len = n - start;
    return STSL_OK;
}
