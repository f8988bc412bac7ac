/* Reference LUT-GEMM: for every output element, Σ_k x·ŵ in double in
 * ascending k, rounded once to the output dtype. Threads split the columns;
 * each element is computed start to finish by one thread in one order, so
 * the bits do not depend on the thread count. */
#include <math.h>
#include <stdlib.h>

#include "numeric.h"
#include "reference.h"

/* The DESIGN.md §3 bound for one element (docs/NUMERICS.md), rounded up to
 * float; k·2^-149 covers float32 roundings below the normal range, which
 * the relative term cannot. When Σ|x·ŵ| exceeds the float32 range a float32 accumulator may overflow on
 * the way to a finite result; no float32 backend can promise anything
 * there, so the bound is +Inf. */
static float element_bound(double y_ref, double sum_abs, int64_t k, lutmm_dtype y_dtype) {
  if (sum_abs > 0x1.fffffep127) return INFINITY;
  const double b = lutmm_dtype_epsilon(y_dtype) * fabs(y_ref) + 2.0 * (double)k * 0x1p-24 * sum_abs +
                   (double)k * 0x1p-149 + lutmm_dtype_tiny(y_dtype);
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

/* |v| as a tensor core counts it when aligning a dot product's terms: a
 * subnormal operand weighs as the compute dtype's smallest normal (its
 * exponent field), so a term's truncation window sits that high; zero stays
 * zero. The bound's term for x·ŵ is the product of the two (exact in
 * double). Measured on Hopper, docs/NUMERICS.md. */
static float aligned_magnitude(float v, float min_normal) {
  return v == 0.0f ? 0.0f : fmaxf(fabsf(v), min_normal);
}

static void aligned_magnitudes(const float *v, int64_t count, float min_normal, float *out) {
  for (int64_t i = 0; i < count; i++) out[i] = aligned_magnitude(v[i], min_normal);
}

/* x_mag, column_mag: the aligned magnitudes of x and of the column (only
 * read when a bound is asked for). */
static void column_product(const lutmm_gemm_args *a, const float *x, const float *x_mag, const float *column,
                           const float *column_mag, int64_t k, int64_t n, int64_t nn, float *bound) {
  for (int64_t m = 0; m < a->m; m++) {
    const float *xr = x + m * k;
    double acc = 0.0, sum_abs = 0.0;
    for (int64_t kk = 0; kk < k; kk++) {
      const double product = (double)xr[kk] * (double)column[kk]; /* exact: 24 + 24 bits */
      acc += product;
      if (bound != NULL) sum_abs += (double)x_mag[m * k + kk] * (double)column_mag[kk];
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
  const float min_normal = (float)lutmm_dtype_min_normal(a->x_dtype);
  float *x = widen_x(a, k), *x_mag = NULL;
  if (x != NULL && bound != NULL && (x_mag = malloc((size_t)(a->m * k) * sizeof *x_mag)) != NULL)
    aligned_magnitudes(x, a->m * k, min_normal, x_mag);
  if (x == NULL || (bound != NULL && x_mag == NULL)) {
    free(x);
    return LUTMM_ERR_OUT_OF_MEMORY;
  }
  int ok = 1;
#pragma omp parallel num_threads(lutmm_ref_threads(num_threads)) reduction(&& : ok)
  {
    float *column = malloc((size_t)k * 2 * sizeof *column), *column_mag = column + k;
    ok = column != NULL;
#pragma omp for schedule(static)
    for (int64_t nn = 0; nn < n; nn++) {
      if (column == NULL) continue;
      lutmm_ref_dequantize_column(w, a->x_dtype, nn, column);
      if (bound != NULL) aligned_magnitudes(column, k, min_normal, column_mag);
      column_product(a, x, x_mag, column, column_mag, k, n, nn, bound);
    }
    free(column);
  }
  free(x);
  free(x_mag);
  return ok ? LUTMM_OK : LUTMM_ERR_OUT_OF_MEMORY;
}

lutmm_status lutmm_ref_gemm(lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args) {
  return lutmm_reference_gemm_run(ctx->num_threads, w, args, NULL);
}
