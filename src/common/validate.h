/* Checks on caller data shared by the entry points and every backend. */
#ifndef LUTMM_VALIDATE_H
#define LUTMM_VALIDATE_H

#include <stddef.h>

#include "lutmm.h"

/* A host table of 2^bits floats: finite, non-decreasing, not all zero. */
lutmm_status lutmm_check_table(int bits, const float *table);

/* Whether [a, a+a_bytes) and [b, b+b_bytes) share a byte. */
int lutmm_ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes);

#endif
