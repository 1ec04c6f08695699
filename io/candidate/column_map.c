/* column_map.c - the --columns mapping and picking a signal out of a
 * matrix (rules in column_map.h). */
#include "io/candidate/column_map.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const role_names[STSL_N_ROLES] = {"t", "x", "v", "friction"};

static char *trim(char *s)
{
    while (*s == ' ')
        s++;
    char *e = s + strlen(s);
    while (e > s && e[-1] == ' ')
        *--e = '\0';
    return s;
}

static int role_of(const char *key)
{
    for (int r = 0; r < STSL_N_ROLES; r++)
        if (!strcmp(key, role_names[r])) return r;
    return strcmp(key, "f") ? -1 : STSL_ROLE_F;
}

/* One "role=source" token of the named form. */
static int named_token(stsl_column_map *m, char *tok, const char *spec, stsl_error *err)
{
    char *eq = strchr(tok, '=');
    *eq = '\0';
    char *key = trim(tok), *src = trim(eq + 1);
    int r = role_of(key);
    if (r < 0)
        return stsl_error_set(err, STSL_EINPUT,
                              "--columns: unknown role '%s' in '%s' (roles: t, x, v, friction)",
                              key, spec);
    if (m->names[r])
        return stsl_error_set(err, STSL_EINPUT, "--columns: role '%s' given twice in '%s'", key,
                              spec);
    if (!*src) return stsl_error_set(err, STSL_EINPUT, "--columns: empty source for '%s'", key);
    m->names[r] = src;
    return STSL_OK;
}

int stsl_column_map_parse(const char *spec, stsl_column_map *m, stsl_error *err)
{
    memset(m, 0, sizeof *m);
    if (strlen(spec) >= sizeof m->buf)
        return stsl_error_set(err, STSL_EINPUT, "--columns: longer than %zu characters",
                              sizeof m->buf - 1);
    snprintf(m->buf, sizeof m->buf, "%s", spec);
    int n = 0, named = strchr(spec, '=') != NULL;
    for (char *tok = m->buf, *next; tok; tok = next) {
        if ((next = strchr(tok, ','))) *next++ = '\0';
        if (named != (strchr(tok, '=') != NULL))
            return stsl_error_set(err, STSL_EINPUT,
                                  "--columns: use either t,x,v or t=A,x=B,v=C, not both: '%s'",
                                  spec);
        if (named) {
            int rc = named_token(m, tok, spec, err);
            if (rc) return rc;
            continue;
        }
        if (n == STSL_N_ROLES)
            return stsl_error_set(err, STSL_EINPUT,
                                  "--columns: at most four names (t,x,v,friction): '%s'", spec);
        tok = trim(tok);
        if (!*tok) return stsl_error_set(err, STSL_EINPUT, "--columns: empty name in '%s'", spec);
        m->names[n++] = tok;
    }
    for (int r = 0; r < STSL_ROLE_F; r++)
        if (!m->names[r])
            return stsl_error_set(err, STSL_EINPUT,
                                  named ? "--columns: no source for '%s' in '%s' (t, x and v "
                                          "are required)"
                                        : "--columns: expected time,position,velocity names%s: "
                                          "'%s'",
                                  named ? role_names[r] : "", spec);
    return STSL_OK;
}

int stsl_column_ref_split(const char *spec, char *path, size_t pathsz, long *col)
{
    const char *colon = strrchr(spec, ':');
    size_t len = strlen(spec);
    *col = 0;
    if (colon && colon[1]) {
        const char *p = colon + 1;
        while (isdigit((unsigned char)*p))
            p++;
        if (!*p) {
            *col = strtol(colon + 1, NULL, 10);
            len = (size_t)(colon - spec);
            if (*col < 1) return STSL_EINPUT;
        }
    }
    if (len >= pathsz) return STSL_EINPUT;
    memcpy(path, spec, len);
    path[len] = '\0';
    return STSL_OK;
}

int stsl_column_pick(const char *file, const char *what, const char *name, const double *data,
                     size_t rows, size_t cols, long col, double **out, long *n, stsl_error *err)
{
    int vector = rows <= 1 || cols <= 1;
    size_t samples = rows >= cols ? rows : cols, signals = rows >= cols ? cols : rows;
    if (vector) signals = 1;
    if (!vector && col == 0)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: %s: a %zu x %zu matrix: choose a column with '%s:N' (N = "
                              "1..%zu)",
                              file, what, rows, cols, name, signals);
    if (col > (long)signals)
        return stsl_error_set(err, STSL_EINPUT,
                              "%s: %s: column %ld out of range (a %zu x %zu %s has %zu signal%s)",
                              file, what, col, rows, cols, vector ? "vector" : "matrix", signals,
                              signals == 1 ? "" : "s");
    if (vector) samples = rows * cols;
    double *d = malloc(sizeof *d * (samples ? samples : 1));
    if (!d)
        return stsl_error_set(err, STSL_ENOMEM, "%s: out of memory for %zu values", file, samples);
    size_t c = col > 0 ? (size_t)col - 1 : 0;
    for (size_t i = 0; i < samples; i++)
        d[i] = vector ? data[i] : rows >= cols ? data[i + c * rows] : data[c + i * rows];
    *out = d;
    *n = (long)samples;
    return STSL_OK;
}
