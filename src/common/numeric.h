/* Rounding between float formats, bit-exact on host and device.
 *
 * All narrowing goes through one routine, lutmm_round_f64(): it takes the
 * exact value as a double and rounds it once, to nearest-even, into a binary
 * format with E exponent bits and M mantissa bits (subnormals included,
 * overflow to Inf). Widening is exact. No libm, no compiler intrinsics, no
 * dependence on the FPU rounding mode for anything but IEEE basic ops. */
#ifndef LUTMM_NUMERIC_H
#define LUTMM_NUMERIC_H

#include <stdint.h>
#include <string.h>

#include "lutmm.h"
#include "portable.h"

LUTMM_HD static inline uint64_t lutmm_f64_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

LUTMM_HD static inline double lutmm_f64_from_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

LUTMM_HD static inline uint32_t lutmm_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

LUTMM_HD static inline float lutmm_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Rounds `d` to nearest-even in the format with `exp_bits` exponent bits and
 * `mant_bits` stored mantissa bits; returns the format's bit pattern with the
 * sign at bit exp_bits + mant_bits. */
LUTMM_HD static inline uint32_t lutmm_round_f64(double d, int exp_bits, int mant_bits) {
  const uint64_t u = lutmm_f64_bits(d);
  const uint32_t sign = (uint32_t)(u >> 63) << (exp_bits + mant_bits);
  const uint64_t magnitude = u & 0x7FFFFFFFFFFFFFFFull;
  const uint32_t inf = ((1u << exp_bits) - 1u) << mant_bits;
  if (magnitude >= 0x7FF0000000000000ull) /* Inf or NaN */
    return sign | inf | (magnitude > 0x7FF0000000000000ull ? 1u << (mant_bits - 1) : 0u);
  const int raw_exp = (int)(magnitude >> 52);
  if (raw_exp == 0) return sign; /* double subnormal: below every target's range */
  const int e = raw_exp - 1023;
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int emin = 1 - bias;
  if (e > bias) return sign | inf;
  if (e < emin - mant_bits - 1) return sign; /* under half the smallest subnormal */
  const uint64_t mant = (magnitude & 0x000FFFFFFFFFFFFFull) | (1ull << 52);
  const int ulp_exp = (e >= emin ? e : emin) - mant_bits;
  const int shift = 52 + ulp_exp - e; /* 29..53 for the formats used here */
  uint64_t q = mant >> shift;
  const uint64_t rem = mant & ((1ull << shift) - 1u);
  const uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) q++;
  if (e < emin) return sign | (uint32_t)q; /* subnormal; a carry makes it normal */
  /* A carry out of the mantissa bumps the exponent, up to Inf: both correct. */
  return sign | (((uint32_t)(e + bias) << mant_bits) + (uint32_t)(q - (1ull << mant_bits)));
}

LUTMM_HD static inline uint16_t lutmm_f16_from_f64(double d) { return (uint16_t)lutmm_round_f64(d, 5, 10); }
LUTMM_HD static inline uint16_t lutmm_bf16_from_f64(double d) { return (uint16_t)lutmm_round_f64(d, 8, 7); }
LUTMM_HD static inline float lutmm_f32_from_f64(double d) { return lutmm_f32_from_bits(lutmm_round_f64(d, 8, 23)); }

LUTMM_HD static inline float lutmm_f16_to_f32(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t mant = h & 0x3FFu;
  if (exp == 0x1Fu) return lutmm_f32_from_bits(sign | 0x7F800000u | (mant << 13));
  if (exp != 0) return lutmm_f32_from_bits(sign | ((exp + 112u) << 23) | (mant << 13));
  /* subnormal: mant × 2^-24, exact in float */
  const float magnitude = (float)mant * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}

LUTMM_HD static inline float lutmm_bf16_to_f32(uint16_t h) { return lutmm_f32_from_bits((uint32_t)h << 16); }

/* Element i of a buffer of `dtype`, widened exactly to float. */
LUTMM_HD static inline float lutmm_load_as_f32(const void *p, lutmm_dtype dtype, int64_t i) {
  switch (dtype) {
    case LUTMM_DTYPE_F16: return lutmm_f16_to_f32(((const uint16_t *)p)[i]);
    case LUTMM_DTYPE_BF16: return lutmm_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
  }
}

/* Stores the exact value `d` rounded once to `dtype` at element i. */
LUTMM_HD static inline void lutmm_store_from_f64(void *p, lutmm_dtype dtype, int64_t i, double d) {
  switch (dtype) {
    case LUTMM_DTYPE_F16: ((uint16_t *)p)[i] = lutmm_f16_from_f64(d); break;
    case LUTMM_DTYPE_BF16: ((uint16_t *)p)[i] = lutmm_bf16_from_f64(d); break;
    default: ((float *)p)[i] = lutmm_f32_from_f64(d); break;
  }
}

/* The exact value `d` rounded once to `dtype`, widened back to float. */
LUTMM_HD static inline float lutmm_round_f64_to_dtype(double d, lutmm_dtype dtype) {
  switch (dtype) {
    case LUTMM_DTYPE_F16: return lutmm_f16_to_f32(lutmm_f16_from_f64(d));
    case LUTMM_DTYPE_BF16: return lutmm_bf16_to_f32(lutmm_bf16_from_f64(d));
    default: return lutmm_f32_from_f64(d);
  }
}

/* `f` rounded to `dtype` and widened back to float. */
LUTMM_HD static inline float lutmm_round_to_dtype(float f, lutmm_dtype dtype) {
  switch (dtype) {
    case LUTMM_DTYPE_F16: return lutmm_f16_to_f32(lutmm_f16_from_f64(f));
    case LUTMM_DTYPE_BF16: return lutmm_bf16_to_f32(lutmm_bf16_from_f64(f));
    default: return f;
  }
}

LUTMM_HD static inline int lutmm_f32_is_finite(float f) {
  return (lutmm_f32_bits(f) & 0x7F800000u) != 0x7F800000u;
}

LUTMM_HD static inline size_t lutmm_dtype_size(lutmm_dtype dtype) {
  return dtype == LUTMM_DTYPE_F32 ? 4u : 2u;
}

/* Machine epsilon and smallest subnormal of a dtype (for error bounds). */
LUTMM_HD static inline double lutmm_dtype_epsilon(lutmm_dtype dtype) {
  return dtype == LUTMM_DTYPE_F16 ? 0x1p-10 : dtype == LUTMM_DTYPE_BF16 ? 0x1p-7 : 0x1p-23;
}

LUTMM_HD static inline double lutmm_dtype_tiny(lutmm_dtype dtype) {
  return dtype == LUTMM_DTYPE_F16 ? 0x1p-24 : dtype == LUTMM_DTYPE_BF16 ? 0x1p-133 : 0x1p-149;
}

/* Smallest normal value of a dtype. */
LUTMM_HD static inline double lutmm_dtype_min_normal(lutmm_dtype dtype) {
  return dtype == LUTMM_DTYPE_F16 ? 0x1p-14 : 0x1p-126;
}

#endif
