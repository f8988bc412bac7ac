/* Large-M gemm: dequantize panels of Ŵ to fp32 (exactly the values the LUT
 * kernels use) and multiply them with OpenBLAS sgemm. A panel is PANEL_N
 * columns stored column after column (Ŵᵀ rows), small enough to stay in
 * cache between its dequantization and the sgemm that reads it.
 * Without OpenBLAS the LUT kernels handle every M (docs/CPU.md). */
#include "cpu_backend.h"
#include "cpu_round.h"
#include "lutmm_config.h"

#ifdef LUTMM_HAVE_OPENBLAS
#include <cblas.h>

#define PANEL_N 512

/* In the calling thread: an OpenMP team here would alternate with
 * OpenBLAS's own threads panel after panel, and each pool spin-waits while
 * the other runs (measured 4.5× slower than sgemm alone on 2 cores, against
 * ~1.2× for a single-threaded dequantization). */
static void dequant_panel(const cpu_kernel_args *a, cpu_dequant_fn dequant, int lane_order, int64_t n0, int64_t n1,
                          float *panel, int64_t k) {
  const int64_t k32 = a->codes->k32;
  for (int64_t n = n0; n < n1; n += CPU_BLOCK_N) {
    const int64_t end = n + CPU_BLOCK_N < n1 ? n + CPU_BLOCK_N : n1;
    dequant(a, n, end, panel + (n - n0) * k32, k32);
    /* Rows past K are zero in X; zero them in the panel too, so no 0 × Inf
     * can appear where the reference has no term. */
    if (k < k32) cpu_clear_padding(panel + (n - n0) * k32, end - n, k, k32, lane_order);
  }
}

static void store_panel(const lutmm_gemm_args *args, const float *c, int64_t n0, int64_t columns, int64_t n) {
  for (int64_t m = 0; m < args->m; m++)
    for (int64_t j = 0; j < columns; j++) cpu_store(args->y, args->y_dtype, m * n + n0 + j, c[m * columns + j]);
}

lutmm_status cpu_gemm_large(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                            const lutmm_gemm_args *args) {
  const int64_t n = w->params.n, k = w->params.k, k32 = codes->k32;
  const int direct = args->y_dtype == LUTMM_DTYPE_F32;
  const size_t x_floats = (size_t)args->m * (size_t)k32, panel_floats = (size_t)PANEL_N * (size_t)k32;
  const size_t sizes[6] = {(size_t)args->m, (size_t)k32, PANEL_N, (size_t)k32, direct ? 0 : (size_t)args->m, PANEL_N};
  float *x;
  const lutmm_status st = cpu_workspace_floats(ctx, sizes, &x);
  if (st != LUTMM_OK) return st;
  float *panel = x + x_floats, *c = panel + panel_floats;
  /* X and the panels share the dequantizer's row order: permuting K alike
   * in both leaves every product and the sum's terms unchanged. */
  const cpu_variant variant = cpu_variant_select();
  const int lane_order = cpu_variant_lane_order(variant);
  cpu_widen_x(args, k, k32, lane_order, x, 1); /* no OpenMP team next to OpenBLAS's, see dequant_panel */
  float table_c[LUTMM_MAX_TABLE_SIZE];
  cpu_kernel_args a;
  cpu_kernel_args_init(w, codes, args->x_dtype, table_c, &a);
  const cpu_dequant_fn dequant = cpu_dequant_for(variant);
  for (int64_t n0 = 0; n0 < n; n0 += PANEL_N) {
    const int64_t columns = n - n0 < PANEL_N ? n - n0 : PANEL_N;
    dequant_panel(&a, dequant, lane_order, n0, n0 + columns, panel, k);
    float *target = direct ? (float *)args->y + n0 : c;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)args->m, (int)columns, (int)k32, 1.0f, x, (int)k32,
                panel, (int)k32, 0.0f, target, direct ? (int)n : (int)columns);
    if (!direct) store_panel(args, c, n0, columns, n);
  }
  return LUTMM_OK;
}

int cpu_large_m_available(const lutmm_weights *w, int64_t m) {
  /* cblas takes int sizes. */
  return m <= 0x7FFFFFFF && w->params.n <= 0x7FFFFFFF && w->params.k <= 0x7FFFFFF0;
}
#else
lutmm_status cpu_gemm_large(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                            const lutmm_gemm_args *args) {
  return cpu_gemm_small(ctx, w, codes, args);
}

int cpu_large_m_available(const lutmm_weights *w, int64_t m) {
  (void)w;
  (void)m;
  return 0;
}
#endif
