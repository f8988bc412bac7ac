/* Driver of the row kernel (cpu_gemv_rows_avx2.c, cpu_gemv_rows_avx512.c): small M, fp32 X.
 *
 * Numerics. The kernel sums fl(x_k · T[c]) per group in float32 and then
 * multiplies by the scale, instead of summing x_k · fl(T · s). Each product
 * is rounded once more, so an output moves by at most a few 2^-24 of Σ
 * |x_k · ŵ_k| beyond the float32 sum itself, inside the bound's
 * 2·K·2^-24 term; in exact mode every step is exact and the bits are the
 * reference's. What the reordering could break is range:
 *   - x·T may overflow where x·(T·s) does not (s < 1);
 *   - x·T may fall into float32's subnormals, where multiplying by a large s
 *     later would magnify its rounding;
 *   - fl(T·s) may be subnormal or 0 where T·s is not: the reference's term
 *     is then rounded or gone, and a term that vanishes claims no room in
 *     the bound.
 * So the kernel runs only when every non-zero T[i]·s and x_k·T[i] is
 * float32-normal and no sum of the x_k·T[i] can overflow; other calls take
 * the column kernels. */
#include "cpu_gemv_rows.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_codes.h"
#include "cpu_kernel.h"
#include "tables.h"

/* Whether every non-zero x_k · T[i] (count values of x) is float32-normal
 * and every sum of up to k32 of them is below 2^126 in magnitude. */
static int x_range_fits(const float *x, int64_t count, int64_t k32, double t_min, double t_max) {
  double x_max = 0.0;
  for (int64_t i = 0; i < count; i++) {
    const double v = fabs((double)x[i]);
    if (!(v <= 3.4e38)) return 0; /* NaN or Inf */
    if (v != 0.0 && v * t_min < 0x1p-126) return 0;
    if (v > x_max) x_max = v;
  }
  return x_max * t_max * (double)k32 < 0x1p126;
}

/* Up to how many rows of X the row kernel wins. Its lookups serve one row
 * each, while a column kernel's serve every row and sgemm's cost per row is
 * lowest of all, so the narrower the codes, the further it goes. */
static int64_t rows_max_m(int bits, cpu_variant v) {
  static const int64_t avx2[4] = {CPU_ROWS_MAX_M_1BIT, CPU_ROWS_MAX_M_2BIT, CPU_ROWS_MAX_M_3BIT, CPU_ROWS_MAX_M_4BIT};
  static const int64_t avx512[4] = {CPU_ROWS_MAX_M_1BIT_AVX512, CPU_ROWS_MAX_M_2BIT_AVX512,
                                    CPU_ROWS_MAX_M_3BIT_AVX512, CPU_ROWS_MAX_M_4BIT_AVX512};
  if (bits < 1 || bits > 4) return 0; /* no row copy */
  return cpu_env_int("LUTMM_CPU_ROWS_MAX_M", v == CPU_VARIANT_AVX512 ? avx512[bits - 1] : avx2[bits - 1]);
}

int cpu_gemv_rows_applies(const lutmm_weights *w, const cpu_codes *codes, const lutmm_gemm_args *args) {
  const cpu_variant v = cpu_variant_select();
  if (v == CPU_VARIANT_PORTABLE || codes->rows == NULL || args->x_dtype != LUTMM_DTYPE_F32 ||
      args->m > rows_max_m(w->params.bits, v) || cpu_env_int("LUTMM_CPU_ROWS", 1) == 0)
    return 0;
  /* No split-K here: below 256 columns (where the column kernels split K)
   * fewer blocks than threads may leave cores idle, but such a gemv is
   * small, and the choice must depend on the shape only, never on the
   * team, for the bits not to. */
  float table_c[LUTMM_MAX_TABLE_SIZE];
  cpu_kernel_args a;
  cpu_kernel_args_init(w, codes, LUTMM_DTYPE_F32, table_c, &a);
  const double t_min = a.table_c_min, s_min = codes->rows->scale_min;
  if (t_min * s_min != 0.0 && t_min * s_min < 0x1p-126) return 0;
  const double t_max = lutmm_table_max_magnitude(table_c, 1 << w->params.bits);
  return x_range_fits((const float *)args->x, args->m * w->params.k, codes->k32, t_min, t_max);
}

#if defined(__x86_64__)
/* The variant's table layout and lookups. */
typedef struct rows_code {
  size_t table_bytes;
  void (*kernel)(const cpu_rows *r, int64_t m, const uint8_t *tables, size_t row_tables, int64_t block0,
                 int64_t block1, float *out, int64_t ldo);
} rows_code;

static rows_code rows_code_for(cpu_variant v) {
  if (v == CPU_VARIANT_AVX512)
    return (rows_code){CPU_ROWS_TABLE_BYTES_AVX512, cpu_rows_kernel_avx512};
  return (rows_code){CPU_ROWS_TABLE_BYTES, cpu_rows_kernel_avx2};
}

lutmm_status cpu_gemv_rows(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                           const lutmm_gemm_args *args) {
  const cpu_rows *r = codes->rows;
  const rows_code code = rows_code_for(cpu_variant_select());
  const int64_t m = args->m, k = w->params.k, n = w->params.n;
  const int64_t steps = r->groups * r->group_rows / r->step_rows, ldo = r->blocks * CPU_ROWS_BLOCK_N;
  /* Per row of X: its tables (steps × table_bytes) and its fp32 outputs. */
  const size_t row_tables = (size_t)steps * code.table_bytes;
  const size_t row_floats = row_tables / sizeof(float) + (size_t)ldo;
  const size_t sizes[6] = {(size_t)m, row_floats, 0, 0, 0, 0};
  float *space;
  const lutmm_status st = cpu_workspace_floats(ctx, sizes, &space);
  if (st != LUTMM_OK) return st;
  uint8_t *tables = (uint8_t *)space;
  float *out = space + (size_t)m * (row_tables / sizeof(float));
  float table_c[LUTMM_MAX_TABLE_SIZE];
  cpu_kernel_args a;
  cpu_kernel_args_init(w, codes, LUTMM_DTYPE_F32, table_c, &a);
  const float *x = args->x;
  const int threads = cpu_threads(ctx);
#pragma omp parallel num_threads(threads)
  {
    const int64_t team = omp_get_num_threads(), me = omp_get_thread_num();
    for (int64_t row = 0; row < m; row++)
      cpu_rows_tables_avx2(x + row * k, k, table_c, r->bits, steps * me / team, steps * (me + 1) / team,
                           code.table_bytes, tables + (size_t)row * row_tables);
    /* Each thread's columns: every column's sum runs in one thread in a fixed
     * order, so the bits do not depend on the team. */
    const int64_t block0 = r->blocks * me / team, block1 = r->blocks * (me + 1) / team;
    const int64_t col0 = block0 * CPU_ROWS_BLOCK_N, col1 = block1 * CPU_ROWS_BLOCK_N;
    for (int64_t row = 0; row < m; row++) memset(out + row * ldo + col0, 0, (size_t)(col1 - col0) * sizeof(float));
#pragma omp barrier
    code.kernel(r, m, tables, row_tables, block0, block1, out, ldo);
    for (int64_t row = 0; row < m; row++)
      for (int64_t col = col0; col < (col1 < n ? col1 : n); col++)
        cpu_store(args->y, args->y_dtype, row * n + col, out[row * ldo + col]);
  }
  return LUTMM_OK;
}
#else
lutmm_status cpu_gemv_rows(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                           const lutmm_gemm_args *args) {
  return cpu_gemm_small(ctx, w, codes, args); /* never chosen: off x86 the variant is portable */
}
#endif
