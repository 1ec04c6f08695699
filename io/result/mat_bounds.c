/* mat_bounds.c - a MAT file's claims checked before matio reads it (see
 * mat_bounds.h; the v5 layout is MathWorks' "MAT-File Format", v4 its
 * "Level 4" appendix, the read positions matio 1.5's mat5.c). */
#include "io/result/mat_bounds.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "io/result/h5_bounds.h"

enum { MI_INT8 = 1, MI_INT32 = 5, MI_UINT32 = 6, MI_MATRIX = 14, MI_COMPRESSED = 15 };
/* Array classes (the low byte of the array flags). */
enum { MX_CELL = 1, MX_STRUCT = 2, MX_CHAR = 4, MX_SPARSE = 5, MX_UINT64 = 15, MX_FUNCTION = 16 };

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
    int swap;           /* the file is big-endian ("MI") */
    int var;            /* 1-based, for messages */
    long long at, size; /* the variable's offset; the file's size */
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

/* A data element's length with its padding to 8 bytes. */
static size_t pad8(uint32_t len)
{
    return ((size_t)len + 7) & ~(size_t)7;
}

static int nested(walk *w, const unsigned char *b, size_t n, size_t at, double count, int depth);

/* One matrix's contents b[0..n) (after its tag), checked at the positions
 * matio reads them (mat5.c: Mat_VarReadNextInfo5, ReadRankDims,
 * ReadNextStructField, ReadNextCell): by position, not by the
 * sub-elements' own lengths.  Every length matio allocates by must fit in
 * what follows; a struct's or cell's count (matio allocates a pointer and
 * an empty variable for each) at least a tag each; and the elements of a
 * numeric or char field or cell at least a byte each (matio reads small
 * ones whole while it lists the variables). */
static int matrix(walk *w, const unsigned char *b, size_t n, int depth)
{
    if (depth > STSL_MAT_MAX_DEPTH) return damaged(w, "structs or cells nested too deep");
    if (n < 24) return damaged(w, "a matrix header cut short");
    uint32_t ftype = u32(w, b), dtype = u32(w, b + 16), dlen = u32(w, b + 20);
    int klass = ftype == MI_UINT32 || ftype == MI_INT32 ? (int)(u32(w, b + 8) & 0xff) : 0;
    int complex = ftype == MI_UINT32 || ftype == MI_INT32 ? (u32(w, b + 8) & 0x800) != 0 : 0;
    size_t at = 24;
    double count = 1.0;
    if (dtype == MI_INT32) {
        size_t rank = dlen / 4, bytes = rank * 4 + (rank % 2 ? 4 : 0);
        if (bytes > n - at) return damaged(w, "dimensions past the end of the matrix");
        for (size_t i = 0; i < rank; i++)
            count *= (double)u32(w, b + at + 4 * i);
        at += bytes;
    }
    if (n - at < 8) return damaged(w, "a matrix without its name");
    if (u32(w, b + at) == MI_INT8) {
        size_t len = pad8(u32(w, b + at + 4));
        if (len > n - at - 8) return damaged(w, "a name past the end of the matrix");
        at += len;
    }
    at += 8;
    if (klass == MX_STRUCT) {
        if (n - at < 16) return damaged(w, "a struct without its field names");
        uint32_t fsize = u32(w, b + at + 4), ntag = u32(w, b + at + 8);
        at += 16;
        double fields = 0.0;
        if (ntag == MI_INT8 && fsize > 0) {
            uint32_t len = u32(w, b + at - 4);
            if (pad8(len) > n - at) return damaged(w, "field names past the end of the matrix");
            fields = (double)(len / fsize);
            at += pad8(len);
        } else if (ntag >> 16 && fsize > 0)
            fields = (double)((ntag >> 16) / fsize);
        return nested(w, b, n, at, count * fields, depth);
    }
    if (klass == MX_CELL) return nested(w, b, n, at, count, depth);
    if (klass == MX_FUNCTION && count * 8.0 > (double)w->size)
        return damaged(w, "a function handle array larger than the file");
    /* A variable's own data is not read while matio lists the variables;
     * mat_candidate.c checks it against the file size, naming it. */
    int counted = depth > 1 && klass >= MX_CHAR && klass != MX_SPARSE && klass <= MX_UINT64;
    if (counted && count * (complex ? 2.0 : 1.0) > (double)(n - at)) {
        char what[128];
        snprintf(what, sizeof what, "%.4g elements declared in %zu bytes of data", count, n - at);
        return damaged(w, what);
    }
    return STSL_OK;
}

/* The `count` fields or cells after b[at], each a matrix tag and its
 * contents (an empty one: the tag alone). */
static int nested(walk *w, const unsigned char *b, size_t n, size_t at, double count, int depth)
{
    if (count * 8.0 > (double)(n - at)) {
        char what[128];
        snprintf(what, sizeof what, "a struct or cell claims %.4g members in %zu bytes", count,
                 n - at);
        return damaged(w, what);
    }
    for (double k = 0; k < count && n - at >= 8; k++) {
        if (u32(w, b + at) != MI_MATRIX) return STSL_OK; /* matio stops here too */
        uint32_t len = u32(w, b + at + 4);
        size_t room = n - at - 8;
        if (len) {
            int rc = matrix(w, b + at + 8, len < room ? len : room, depth + 1);
            if (rc) return rc;
        }
        if (pad8(len) >= room) return STSL_OK;
        at += 8 + pad8(len);
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
    else if (used >= 8 && u32(w, out) == MI_MATRIX) /* matio reads the one matrix */
        rc = matrix(w, out + 8, u32(w, out + 4) < used - 8 ? u32(w, out + 4) : used - 8, 1);
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
    walk w = {path, 0, 0, 128, 0, err};
    if (fstat(fileno(f), &st) != 0 || fread(head, 1, sizeof head, f) != sizeof head) {
        fclose(f);
        return STSL_OK;
    }
    w.swap = head[126] == 'M'; /* "MI": written big-endian */
    long long size = w.size = (long long)st.st_size;
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
