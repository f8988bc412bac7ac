/* Reference dequantization: Ŵ = round_c(T_c[code] × s_c). */
#include "codes.h"
#include "quant_rule.h"
#include "reference.h"

/* Column n of Ŵ in dtype c, widened to float, for rows [0, k). */
void lutmm_ref_dequantize_column(const lutmm_weights *w, lutmm_dtype c, int64_t n, float *column) {
  const lutmm_geometry *g = &w->geom;
  for (int64_t k = 0; k < w->params.k; k++) {
    const float scale = lutmm_load_as_f32(w->scales, w->params.scale_dtype, lutmm_scale_index(g, k, n));
    column[k] = lutmm_dequant_value(w->table[lutmm_read_code(w->planes, g, k, n)], scale, c);
  }
}

lutmm_status lutmm_ref_dequantize(lutmm_context *ctx, const lutmm_weights *w, lutmm_dtype dtype, void *w_hat) {
  const lutmm_geometry *g = &w->geom;
  const int64_t k = w->params.k, n = w->params.n;
#pragma omp parallel for schedule(static) num_threads(lutmm_ref_threads(ctx->num_threads))
  for (int64_t kk = 0; kk < k; kk++) {
    for (int64_t nn = 0; nn < n; nn++) {
      const float scale = lutmm_load_as_f32(w->scales, w->params.scale_dtype, lutmm_scale_index(g, kk, nn));
      const float value = lutmm_dequant_value(w->table[lutmm_read_code(w->planes, g, kk, nn)], scale, dtype);
      lutmm_store_from_f64(w_hat, dtype, kk * n + nn, value);
    }
  }
  return LUTMM_OK;
}
