#include "validate.h"

#include <stdint.h>

#include "numeric.h"

lutmm_status lutmm_check_table(int bits, const float *table) {
  const int size = 1 << bits;
  int any_nonzero = 0;
  for (int i = 0; i < size; i++) {
    if (!lutmm_f32_is_finite(table[i])) return LUTMM_ERR_NON_FINITE;
    if (table[i] != 0.0f) any_nonzero = 1;
  }
  for (int i = 1; i < size; i++)
    if (table[i] < table[i - 1]) return LUTMM_ERR_TABLE_NOT_ASCENDING;
  return any_nonzero ? LUTMM_OK : LUTMM_ERR_TABLE_ALL_ZERO;
}

int lutmm_ranges_overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}
