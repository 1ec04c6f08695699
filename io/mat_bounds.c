/* mat_bounds.c - a MAT file's framing checked before matio reads it (see
 * mat_bounds.h; the v5 layout is MathWorks' "MAT-File Format", v4 its
 * "Level 4" appendix). */
#include "io/mat_bounds.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "io/h5_bounds.h"

enum { MI_INT8 = 1, MI_INT32 = 5, MI_MATRIX = 14, MI_COMPRESSED = 15 };
enum { MX_CELL = 1, MX_STRUCT = 2, MX_OBJECT = 3 };

/* ---- v4 ---------------------------------------------------------------------------- */

int stsl_mat_check_v4(const char *path, stsl_error *err)
{
    static const int PREC_BYTES[6] = {8, 4, 4, 2, 2, 1}; /* the P digit of MOPT */
    FILE *f = fopen(path, "rb");
    if (!f) return STSL_OK; /* the reader's open says why */
    unsigned char h[20];
    int rc = STSL_OK;
    struct stat st;
    long long size = fstat(fileno(f), &st) == 0 ? (long long)st.st_size : 0, at = 0;
    for (int k = 1; !rc && at + 20 <= size; k++) {
        if (fseek(f, (long)at, SEEK_SET) || fread(h, 1, 20, f) != 20) break;
        long long v[5]; /* MOPT, rows, columns, imaginary, name length */
        for (int swap = 0; swap < 2; swap++) {
            for (int j = 0; j < 5; j++) {
                uint32_t u = 0;
                for (int i = 0; i < 4; i++)
                    u |= (uint32_t)h[4 * j + (swap ? 3 - i : i)] << (8 * i);
                v[j] = (int32_t)u;
            }
            if (v[0] >= 0 && v[0] < 5000) break; /* the byte order that reads a type */
        }
        int type_ok = v[0] >= 0 && v[0] < 5000 && v[0] / 10 % 10 <= 5;
        double data =
            type_ok ? (double)v[1] * (double)v[2] * PREC_BYTES[v[0] / 10 % 10] * (v[3] ? 2.0 : 1.0)
                    : 0.0;
        double left = (double)(size - at - 20);
        if (!type_ok || v[1] < 0 || v[2] < 0 || v[4] < 1 || (double)v[4] + data > left)
            rc = stsl_error_set(err, STSL_EINPUT,
                                "%s: truncated or not a MAT file: variable %d (at byte %lld) "
                                "declares %.4g bytes, the file has %.0f after its header",
                                path, k, at, (double)v[4] + data, left);
        else
            at += 20 + v[4] + (long long)data; /* within the file: checked above */
    }
    fclose(f);
    return rc;
}

/* ---- v5 / v7 ----------------------------------------------------------------------- */

typedef struct walk {
    const char *path;
    int swap; /* the file is big-endian ("MI") */
    int var;  /* 1-based, for messages */
    long long at;
    stsl_error *err;
} walk;

static uint32_t u32(const walk *w, const unsigned char *p)
{
    return w->swap ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int damaged(const walk *w, const char *what)
{
    return stsl_error_set(w->err, STSL_EINPUT,
                          "%s: truncated or damaged: variable %d (at byte %lld): %s", w->path,
                          w->var, w->at, what);
}

static int elements(walk *w, const unsigned char *b, size_t n, int depth);

/* The sub-elements of one matrix (b[0..n), after its tag).  Flags, then
 * dimensions, then the name; a struct or object then gives its field
 * name length and names, and its fields (a cell: its cells) follow as
 * matrices, one tag (8 bytes) each at least. */
static int matrix(walk *w, const unsigned char *b, size_t n, int depth)
{
    if (depth > STSL_MAT_MAX_DEPTH) return damaged(w, "structs or cells nested too deep");
    int rc = elements(w, b, n, depth);
    if (rc) return rc;
    int klass = -1;
    double cells = 1.0, fields = 1.0, name_len = 0.0;
    size_t at = 0;
    for (int k = 0; at + 8 <= n && k < 5; k++) {
        uint32_t word = u32(w, b + at);
        int small = word >> 16 != 0; /* up to 4 bytes inside the tag */
        uint32_t type = small ? word & 0xffff : word, len = small ? word >> 16 : u32(w, b + at + 4);
        const unsigned char *d = b + at + (small ? 4 : 8); /* len bytes: elements() checked */
        if (k == 0 && len >= 4) klass = (int)(u32(w, d) & 0xff);
        if (k == 1 && type == MI_INT32)
            for (uint32_t i = 0; i + 4 <= len; i += 4)
                cells *= (double)(int32_t)u32(w, d + i);
        if (k == 3 && type == MI_INT32 && len >= 4) name_len = (double)u32(w, d);
        if (k == 4 && type == MI_INT8 && name_len > 0) fields = (double)len / name_len;
        at += small ? 8 : 8 + (((size_t)len + 7) & ~(size_t)7);
    }
    if (klass != MX_CELL && klass != MX_STRUCT && klass != MX_OBJECT) return STSL_OK;
    if (cells < 0 || cells * (klass == MX_CELL ? 1.0 : fields) * 8.0 > (double)n) {
        char what[160];
        snprintf(what, sizeof what, "a %s claims %.4g %s in %zu bytes",
                 klass == MX_CELL ? "cell array" : "struct", cells * fields,
                 klass == MX_CELL ? "cells" : "fields", n);
        return damaged(w, what);
    }
    return STSL_OK;
}

/* Tagged elements filling b[0..n): each within it, matrices walked. */
static int elements(walk *w, const unsigned char *b, size_t n, int depth)
{
    size_t at = 0;
    while (at < n) {
        if (n - at < 8) return damaged(w, "an element cut short");
        uint32_t type = u32(w, b + at);
        if (type >> 16) { /* small element: up to 4 bytes inside its tag */
            if (type >> 16 > 4) return damaged(w, "a small element longer than 4 bytes");
            at += 8;
            continue;
        }
        uint32_t len = u32(w, b + at + 4);
        size_t room = n - at - 8;
        /* matio's v7 writer claims a few bytes too many for a matrix that
         * holds text (two a character, it writes one), and so do the
         * matrices around it; readers follow the contents.  A matrix is
         * walked within what is there; data must fit. */
        if (type == MI_MATRIX) {
            int rc = matrix(w, b + at + 8, len < room ? len : room, depth + 1);
            if (rc) return rc;
        } else if (len > room)
            return damaged(w, "an element runs past the end of its matrix");
        at += 8 + (((size_t)len + 7) & ~(size_t)7); /* padded; the last may not be */
    }
    return STSL_OK;
}

/* Inflate a v7 element's `n` bytes, at most STSL_FILTER_RATIO times as
 * many (deflate's bound), and walk what they hold. */
static int inflated(walk *w, const unsigned char *z, size_t n)
{
    size_t cap = n < 4096 ? 4096 : n, limit = (size_t)((double)n * STSL_FILTER_RATIO), used = 0;
    unsigned char *out = malloc(cap);
    z_stream s;
    memset(&s, 0, sizeof s);
    if (!out || inflateInit(&s) != Z_OK) {
        free(out);
        return stsl_error_set(w->err, STSL_ENOMEM, "%s: out of memory", w->path);
    }
    s.next_in = (unsigned char *)z;
    s.avail_in = (uInt)n;
    int zr = Z_OK, rc = STSL_OK;
    while (zr == Z_OK) {
        if (used == cap) {
            unsigned char *o =
                cap < limit ? realloc(out, cap = cap * 2 < limit ? cap * 2 : limit) : NULL;
            if (!o) break;
            out = o;
        }
        /* zlib counts in uInt: at most 4 GiB a call. */
        uInt give = cap - used > UINT_MAX ? UINT_MAX : (uInt)(cap - used);
        s.next_out = out + used;
        s.avail_out = give;
        zr = inflate(&s, Z_NO_FLUSH);
        used += give - s.avail_out;
    }
    /* A stream that ends early still starts a matrix: walk what came out. */
    if (zr != Z_STREAM_END && zr != Z_OK && zr != Z_BUF_ERROR)
        rc = damaged(w, "its compressed data cannot be inflated");
    else if (zr == Z_OK)
        rc = damaged(w, "it inflates to more than 1100 times its size");
    else
        rc = elements(w, out, used, 0);
    inflateEnd(&s);
    free(out);
    return rc;
}

int stsl_mat_check_v5(const char *path, stsl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return STSL_OK; /* the reader's open says why */
    unsigned char head[128], tag[8];
    struct stat st;
    int rc = STSL_OK;
    walk w = {path, 0, 0, 128, err};
    if (fstat(fileno(f), &st) != 0 || fread(head, 1, sizeof head, f) != sizeof head) {
        fclose(f);
        return STSL_OK;
    }
    w.swap = head[126] == 'M'; /* "MI": written big-endian */
    long long size = (long long)st.st_size;
    while (!rc && w.at + 8 <= size) {
        w.var++;
        if (fseek(f, (long)w.at, SEEK_SET) || fread(tag, 1, 8, f) != 8) break;
        uint32_t type = u32(&w, tag), len = u32(&w, tag + 4);
        if ((long long)len > size - w.at - 8) {
            char what[128];
            snprintf(what, sizeof what, "needs %llu bytes, the file ends %lld bytes later",
                     (unsigned long long)len + 8, size - w.at);
            rc = damaged(&w, what);
            break;
        }
        if (type == MI_MATRIX || type == MI_COMPRESSED) {
            unsigned char *b = malloc(len ? len : 1);
            if (!b)
                rc = stsl_error_set(err, STSL_ENOMEM, "%s: out of memory", path);
            else if (fread(b, 1, len, f) != len)
                rc = damaged(&w, "cannot be read");
            else
                rc = type == MI_MATRIX ? matrix(&w, b, len, 1) : inflated(&w, b, len);
            free(b);
        }
        w.at += 8 + (long long)len;
    }
    fclose(f);
    return rc;
}
