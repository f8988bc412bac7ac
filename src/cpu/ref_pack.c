/* Reference pack and unpack through the layout map of src/common/layout.h.
 * Parallel over atom columns: each owns disjoint bytes of every plane. */
#include <string.h>

#include "codes.h"
#include "numeric.h"
#include "reference.h"

/* Every code below 2^bits and every scale finite, or the matching status. */
static lutmm_status check_inputs(const lutmm_weights *w, const uint8_t *codes, const void *scales, int threads) {
  const int limit = 1 << w->params.bits;
  const lutmm_geometry *g = &w->geom;
  int codes_ok = 1, scales_ok = 1;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(&& : codes_ok)
  for (size_t i = 0; i < g->weight_count; i++) codes_ok = codes_ok && codes[i] < limit;
  for (size_t i = 0; i < g->user_scale_count; i++)
    scales_ok = scales_ok && lutmm_f32_is_finite(lutmm_load_as_f32(scales, w->params.scale_dtype, (int64_t)i));
  if (!codes_ok) return LUTMM_ERR_INVALID_ARGUMENT;
  return scales_ok ? LUTMM_OK : LUTMM_ERR_NON_FINITE;
}

lutmm_status lutmm_ref_pack(lutmm_context *ctx, const uint8_t *codes, const void *scales, lutmm_weights *w) {
  const int threads = lutmm_ref_threads(ctx->num_threads);
  lutmm_status st = check_inputs(w, codes, scales, threads);
  if (st != LUTMM_OK) return st;
  const lutmm_geometry *g = &w->geom;
  const int64_t k = w->params.k, n = w->params.n;
  uint8_t *planes = w->planes;
  memset(planes, 0, g->packed_bytes);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t na = 0; na < g->n_atoms; na++)
    for (int64_t kk = 0; kk < k; kk++)
      for (int64_t nn = na * LUTMM_ATOM_N; nn < n && nn < (na + 1) * LUTMM_ATOM_N; nn++)
        lutmm_write_code(planes, g, kk, nn, codes[kk * n + nn]);
  /* Padding codes stay 0; padding scales stay 0 so padded rows dequantize to 0. */
  const size_t elem = lutmm_dtype_size(w->params.scale_dtype);
  uint8_t *dst = w->scales;
  memset(dst, 0, g->scale_bytes);
  for (int64_t row = 0; row < g->num_groups; row++)
    memcpy(dst + (size_t)row * (size_t)g->n_pad * elem, (const uint8_t *)scales + (size_t)row * (size_t)n * elem,
           (size_t)n * elem);
  return LUTMM_OK;
}

lutmm_status lutmm_ref_unpack(lutmm_context *ctx, const lutmm_weights *w, uint8_t *codes, void *scales) {
  const lutmm_geometry *g = &w->geom;
  const int64_t k = w->params.k, n = w->params.n;
  if (codes != NULL) {
#pragma omp parallel for schedule(static) num_threads(lutmm_ref_threads(ctx->num_threads))
    for (int64_t kk = 0; kk < k; kk++)
      for (int64_t nn = 0; nn < n; nn++) codes[kk * n + nn] = (uint8_t)lutmm_read_code(w->planes, g, kk, nn);
  }
  if (scales != NULL) {
    const size_t elem = lutmm_dtype_size(w->params.scale_dtype);
    for (int64_t row = 0; row < g->num_groups; row++)
      memcpy((uint8_t *)scales + (size_t)row * (size_t)n * elem,
             (const uint8_t *)w->scales + (size_t)row * (size_t)g->n_pad * elem, (size_t)n * elem);
  }
  return LUTMM_OK;
}
