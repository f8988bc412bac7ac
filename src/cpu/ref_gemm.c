/* Reference LUT-GEMM: for every output element, Σ_k x·ŵ in double in
 * ascending k, rounded once to the output dtype. Threads split the columns;
 * each element is computed start to finish by one thread in one order, so
 * the bits do not depend on the thread count. */
#include <math.h>
#include <stdlib.h>

#include "numeric.h"
#include "reference.h"

/* The DESIGN.md §3 bound for one element (docs/NUMERICS.md), rounded up to
 * float. When Σ|x·ŵ| exceeds the float32 range a float32 accumulator may overflow on
 * the way to a finite result; no float32 backend can promise anything
 * there, so the bound is +Inf. */
static float element_bound(double y_ref, double sum_abs, int64_t k, lutmm_dtype y_dtype) {
  if (sum_abs > 0x1.fffffep127) return INFINITY;
  const double b = lutmm_dtype_epsilon(y_dtype) * fabs(y_ref) + 2.0 * (double)k * 0x1p-24 * sum_abs +
                   lutmm_dtype_tiny(y_dtype);
  float f = (float)b;
  if ((double)f < b) f = nextafterf(f, INFINITY);
  return f;
}

/* X widened to float once (exact), so the inner loop is plain loads. */
static float *widen_x(const lutmm_gemm_args *a, int64_t k) {
  size_t bytes;
  if (lutmm_matrix_bytes(a->m, k, LUTMM_DTYPE_F32, &bytes) != LUTMM_OK) return NULL;
  const size_t count = bytes / sizeof(float);
  float *x = malloc(bytes);
  if (x != NULL)
    for (size_t i = 0; i < count; i++) x[i] = lutmm_load_as_f32(a->x, a->x_dtype, (int64_t)i);
  return x;
}

/* |x·ŵ| as a tensor core counts it when aligning a dot product's terms: a
 * subnormal operand weighs as the compute dtype's smallest normal (its
 * exponent field), so the term's truncation window sits that high. Zero
 * terms do not count. Measured on Hopper, docs/NUMERICS.md. */
static double aligned_magnitude(float x, float w, double min_normal) {
  if (x == 0.0f || w == 0.0f) return 0.0;
  return fmax(fabs((double)x), min_normal) * fmax(fabs((double)w), min_normal);
}

static void column_product(const lutmm_gemm_args *a, const float *x, const float *column, int64_t k, int64_t n,
                           int64_t nn, float *bound) {
  const double min_normal = lutmm_dtype_min_normal(a->x_dtype);
  for (int64_t m = 0; m < a->m; m++) {
    const float *xr = x + m * k;
    double acc = 0.0, sum_abs = 0.0;
    for (int64_t kk = 0; kk < k; kk++) {
      const double product = (double)xr[kk] * (double)column[kk]; /* exact: 24 + 24 bits */
      acc += product;
      sum_abs += aligned_magnitude(xr[kk], column[kk], min_normal);
    }
    lutmm_store_from_f64(a->y, a->y_dtype, m * n + nn, acc);
    if (bound != NULL) {
      const double y_ref = (double)lutmm_load_as_f32(a->y, a->y_dtype, m * n + nn);
      bound[m * n + nn] = element_bound(y_ref, sum_abs, k, a->y_dtype);
    }
  }
}

lutmm_status lutmm_reference_gemm_run(int num_threads, const lutmm_weights *w, const lutmm_gemm_args *a,
                                      float *bound) {
  const int64_t k = w->params.k, n = w->params.n;
  float *x = widen_x(a, k);
  if (x == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  int ok = 1;
#pragma omp parallel num_threads(lutmm_ref_threads(num_threads)) reduction(&& : ok)
  {
    float *column = malloc((size_t)k * sizeof *column);
    ok = column != NULL;
#pragma omp for schedule(static)
    for (int64_t nn = 0; nn < n; nn++) {
      if (column == NULL) continue;
      lutmm_ref_dequantize_column(w, a->x_dtype, nn, column);
      column_product(a, x, column, k, n, nn, bound);
    }
    free(column);
  }
  free(x);
  return ok ? LUTMM_OK : LUTMM_ERR_OUT_OF_MEMORY;
}

lutmm_status lutmm_ref_gemm(lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args) {
  return lutmm_reference_gemm_run(ctx->num_threads, w, args, NULL);
}
