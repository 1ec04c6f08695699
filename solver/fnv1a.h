/* fnv1a.h - the 64-bit FNV-1a hash (Fowler, Noll, Vo), once for the
 * library: the system's mode table looks mode vectors up by it, and the
 * exported FMU's GUID is it of the effective configuration. */
#ifndef STSL_SOLVER_FNV1A_H
#define STSL_SOLVER_FNV1A_H

#include <stddef.h>
#include <stdint.h>

/* The hash of n bytes at p, continuing from h (start: STSL_FNV1A_BASIS). */
#define STSL_FNV1A_BASIS 14695981039346656037ULL
uint64_t stsl_fnv1a(uint64_t h, const void *p, size_t n);

#endif
