/* Per-(group, column) dequantization tables, scalar and exact. The vector
 * kernels build the same values with SIMD multiplies and fall back here only
 * for bf16 products below fp32's normal range. */
#include "cpu_kernel.h"
#include "cpu_round.h"
#include "quant_rule.h"

void cpu_dequant_table(const cpu_kernel_args *a, float scale_c, float *out) {
  const int size = 1 << a->codes->bits;
  const int tiny = a->c == LUTMM_DTYPE_BF16 && cpu_bf16_table_is_tiny(a, scale_c);
  for (int i = 0; i < size; i++) {
    /* Both factors are values of c: their float product is exact for fp16
     * (22 significant bits, far from fp32's limits) and for bf16 above
     * 2^-126, so one rounding to c gives round_c(T_c × s_c). */
    out[i] = tiny ? lutmm_dequant_value(a->table[i], scale_c, a->c) : cpu_round_to(a->table_c[i] * scale_c, a->c);
  }
}
