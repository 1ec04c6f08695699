/* arrays.h - a struct's arrays allocated and freed from one list, so that
 * the two never disagree: a function lists them once as
 *     return STSL_ARRAY(release, s->a, n) | STSL_ARRAY(release, s->b, m) | ...;
 * and is called with release 0 to allocate, 1 to free. */
#ifndef STSL_SOLVER_ARRAYS_H
#define STSL_SOLVER_ARRAYS_H

#include <stdlib.h>

/* release 0: p = count zeroed elements (at least one, so that a count of 0
 * still gives a pointer), 1 when out of memory; release 1: free(p), 0.  An
 * int, not a comparison: the list joins them by '|', so that every one is
 * made (and freed), which clang would take for a mistyped '||'. */
#define STSL_ARRAY(release, p, count)                                                              \
    ((release) ? (free(p), 0)                                                                      \
               : (int)(((p) = calloc((size_t)((count) > 0 ? (count) : 1), sizeof *(p))) == NULL))

#endif
