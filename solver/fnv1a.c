/* fnv1a.c - the 64-bit FNV-1a hash (see fnv1a.h). */
#include "solver/fnv1a.h"

uint64_t stsl_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ULL; /* the 64-bit FNV prime */
    return h;
}
