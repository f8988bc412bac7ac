/* The CPU backend's fast fp16/bf16 rounding (cpu_round.h) against the
 * double-based routines of numeric.h, on a strided sweep of every float32
 * bit pattern plus the edges (subnormals, ties, overflow, NaN). */
#include <stdio.h>

#include "cpu_round.h"
#include "numeric.h"

static int is_nan_f16(uint16_t h) { return (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0; }
static int is_nan_bf16(uint16_t h) { return (h & 0x7F80u) == 0x7F80u && (h & 0x7Fu) != 0; }

static long check(uint32_t u) {
  const float f = lutmm_f32_from_bits(u);
  const uint16_t h = cpu_f16_from_f32(f), h_ref = lutmm_f16_from_f64((double)f);
  const uint16_t b = cpu_bf16_from_f32(f), b_ref = lutmm_bf16_from_f64((double)f);
  long bad = 0;
  if (h != h_ref && !(is_nan_f16(h) && is_nan_f16(h_ref))) bad++;
  if (b != b_ref && !(is_nan_bf16(b) && is_nan_bf16(b_ref))) bad++;
  if (bad) printf("FAIL %08x: f16 %04x want %04x, bf16 %04x want %04x\n", u, h, h_ref, b, b_ref);
  return bad;
}

int main(void) {
  long bad = 0, checked = 0;
  for (uint64_t u = 0; u <= 0xFFFFFFFFull && bad < 10; u += 4099, checked++) bad += check((uint32_t)u);
  /* Around every fp16 boundary: each fp16 value's float and its neighbours,
   * which covers all ties, subnormals and the overflow threshold. */
  for (uint32_t h = 0; h < 0x10000u && bad < 10; h++) {
    const uint32_t u = lutmm_f32_bits(lutmm_f16_to_f32((uint16_t)h));
    for (int d = -4096; d <= 4096; d += 1024)
      for (int e = -1; e <= 1; e++, checked++) bad += check(u + (uint32_t)(d + e));
  }
  printf("%ld patterns, %ld mismatches\n", checked, bad);
  return bad == 0 ? 0 : 1;
}
