/* Contexts and context-memory helpers shared by the fuzz targets. */
#ifndef LUTMM_FUZZ_UTIL_H
#define LUTMM_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_source.h"
#include "lutmm.h"

/* One context per backend for the life of the process (targets run many
 * inputs); NULL when the backend is unavailable. */
lutmm_context *fuzz_context(lutmm_backend backend);

/* The backend a differential target checks: LUTMM_BACKEND=ref|cpu|cuda,
 * default cpu. */
lutmm_backend fuzz_backend_under_test(void);

/* Context-memory copies of host data; abort on failure. */
void *fuzz_upload(lutmm_context *ctx, const void *host, size_t bytes);
void *fuzz_alloc(lutmm_context *ctx, size_t bytes);
void fuzz_download(lutmm_context *ctx, void *host, const void *src, size_t bytes);

/* Host allocation that aborts on failure. */
void *fuzz_xmalloc(size_t bytes);

/* Table of 2^bits entries: NF, INT or FP built by `ctx`'s builder (kind 0..2)
 * or random ascending user values (kind 3). Returns the kind used. */
int fuzz_draw_table(fz_source *s, lutmm_context *ctx, int bits, float *table);

/* A random finite value of `dtype`, any exponent, sign and subnormal. */
double fuzz_random_finite(fz_source *s, lutmm_dtype dtype);

#endif
