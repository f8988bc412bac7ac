/* Fast, exact float32 → fp16 / bf16 rounding (nearest-even) for the CPU
 * backend's inner loops. numeric.h rounds through double, which is exact but
 * too slow to run once per table entry and output; these give the same bits
 * for every finite input, and Inf/NaN stay Inf/NaN (tests/diff checks them
 * against numeric.h). */
#ifndef LUTMM_CPU_ROUND_H
#define LUTMM_CPU_ROUND_H

#include <stdint.h>

#include "lutmm.h"
#include "numeric.h"

static inline uint16_t cpu_f16_from_f32(float f) {
  const uint32_t u = lutmm_f32_bits(f);
  const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return (uint16_t)(sign | 0x7E00u);   /* NaN stays NaN */
  if (a >= 0x477FF000u) return (uint16_t)(sign | 0x7C00u);  /* >= 65520 rounds to Inf */
  if (a >= 0x38800000u) {                                   /* fp16 normal range */
    a += 0xFFFu + ((a >> 13) & 1u);                         /* ties to even; carry bumps the exponent */
    return (uint16_t)(sign | ((a >> 13) - 0x1C000u));
  }
  /* Subnormal or zero: |f|·2^24 is exact, and adding 2^23 rounds it to an
   * integer, nearest-even, in the default rounding mode. */
  const float scaled = lutmm_f32_from_bits(a) * 16777216.0f;
  const float rounded = (scaled + 8388608.0f) - 8388608.0f;
  return (uint16_t)(sign | (uint16_t)rounded);
}

static inline uint16_t cpu_bf16_from_f32(float f) {
  const uint32_t u = lutmm_f32_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
  return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

/* f rounded to dtype c and widened back. */
static inline float cpu_round_to(float f, lutmm_dtype c) {
  switch (c) {
    case LUTMM_DTYPE_F16: return lutmm_f16_to_f32(cpu_f16_from_f32(f));
    case LUTMM_DTYPE_BF16: return lutmm_bf16_to_f32(cpu_bf16_from_f32(f));
    default: return f;
  }
}

/* Stores f rounded to dtype at element i. */
static inline void cpu_store(void *p, lutmm_dtype dtype, int64_t i, float f) {
  switch (dtype) {
    case LUTMM_DTYPE_F16: ((uint16_t *)p)[i] = cpu_f16_from_f32(f); break;
    case LUTMM_DTYPE_BF16: ((uint16_t *)p)[i] = cpu_bf16_from_f32(f); break;
    default: ((float *)p)[i] = f; break;
  }
}

#endif
