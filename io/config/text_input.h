/* text_input.h - reading a text input (configuration, table, candidate
 * CSV) with bounds, exactly.
 *
 * Every text input is checked before it is parsed: its size and line
 * length are bounded (a file with no line breaks, such as /dev/zero,
 * would otherwise grow memory without end), a UTF-8 byte order mark is
 * dropped (spreadsheets write one; it would hide the first header field
 * or row), and NUL bytes and invalid UTF-8 are refused with the file and
 * line (a parser would stop at a NUL silently or report the wrong line).
 * A configuration's bracket nesting is bounded too, before libyaml sees
 * it: libyaml's time grows with the square of the depth. */
#ifndef STSL_TEXT_INPUT_H
#define STSL_TEXT_INPUT_H

#include <stddef.h>

#include "solver/status.h"

typedef struct stsl_text_limits {
    const char *what; /* "configuration", "table", ... for messages */
    size_t max_bytes; /* the whole file */
    size_t max_line;  /* one line, without its line break */
    int max_depth;    /* YAML flow nesting ([ and {); 0: not checked */
} stsl_text_limits;

/* A configuration is a page of YAML: 1 MiB is far beyond any real one,
 * and 64 levels beyond its 3 (a --set value adds a few). */
extern const stsl_text_limits stsl_config_limits;
/* A study file: the configuration's limits (it may hold one inline). */
extern const stsl_text_limits stsl_study_limits;
/* Tables: a million "time,value" rows are about 40 MB. */
extern const stsl_text_limits stsl_table_limits;
/* A candidate trajectory: 10^7 rows of a few columns, about 1 GB. */
extern const stsl_text_limits stsl_candidate_limits;

/* Read `path` (not a directory) whole into a malloc'd, NUL-terminated
 * buffer, without its BOM, checked as stsl_text_check does.  STSL_EINPUT
 * with "file:line: ..." on a violation; *text is NULL on failure. */
int stsl_text_read(const char *path, const stsl_text_limits *lim, char **text, size_t *len,
                   stsl_error *err);

/* Check `len` bytes of text from `origin`; *start gets the offset past a
 * BOM (0 without).  Size, line length, NUL, UTF-8 and depth. */
int stsl_text_check(const char *origin, const char *text, size_t len, const stsl_text_limits *lim,
                    size_t *start, stsl_error *err);

#endif
