#include "fuzz_float.h"

#include <math.h>
#include <string.h>

typedef struct format {
  int exp_bits, mant_bits;
} format;

static format format_of(lutmm_dtype dtype) {
  const format f16 = {5, 10}, bf16 = {8, 7}, f32 = {8, 23};
  return dtype == LUTMM_DTYPE_F16 ? f16 : dtype == LUTMM_DTYPE_BF16 ? bf16 : f32;
}

int fz_precision(lutmm_dtype dtype) { return format_of(dtype).mant_bits + 1; }

size_t fz_dtype_size(lutmm_dtype dtype) { return dtype == LUTMM_DTYPE_F32 ? 4 : 2; }

int fz_is_finite(double d) { return d == d && d - d == 0.0; }

/* Scaling by powers of two with ldexp is exact here (no double overflow or
 * underflow for these formats), so nearbyint performs the only rounding. */
uint32_t fz_round_bits(double d, lutmm_dtype dtype) {
  const format f = format_of(dtype);
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const uint32_t sign = signbit(d) ? 1u << (f.exp_bits + f.mant_bits) : 0u;
  const uint32_t inf = ((1u << f.exp_bits) - 1u) << f.mant_bits;
  if (d != d) return inf | (1u << (f.mant_bits - 1));
  const double a = fabs(d);
  if (a == INFINITY) return sign | inf;
  const int emin = 1 - bias;
  if (a < ldexp(1.0, emin)) /* subnormal range: count units of the smallest subnormal */
    return sign | (uint32_t)nearbyint(ldexp(a, f.mant_bits - emin));
  int e;
  frexp(a, &e);
  e -= 1; /* a in [2^e, 2^(e+1)) */
  double q = nearbyint(ldexp(a, f.mant_bits - e));
  if (q == ldexp(1.0, f.mant_bits + 1)) {
    q /= 2;
    e += 1;
  }
  if (e > bias) return sign | inf;
  return sign | ((uint32_t)(e + bias) << f.mant_bits) | ((uint32_t)q - (1u << f.mant_bits));
}

double fz_widen_bits(uint32_t bits, lutmm_dtype dtype) {
  const format f = format_of(dtype);
  const int bias = (1 << (f.exp_bits - 1)) - 1;
  const int negative = (bits >> (f.exp_bits + f.mant_bits)) & 1u;
  const uint32_t exp = (bits >> f.mant_bits) & ((1u << f.exp_bits) - 1u);
  const uint32_t mant = bits & ((1u << f.mant_bits) - 1u);
  double v;
  if (exp == (1u << f.exp_bits) - 1u) v = mant != 0 ? NAN : INFINITY;
  else if (exp == 0) v = ldexp((double)mant, 1 - bias - f.mant_bits);
  else v = ldexp((double)(mant | (1u << f.mant_bits)), (int)exp - bias - f.mant_bits);
  return negative ? -v : v;
}

double fz_round(double d, lutmm_dtype dtype) { return fz_widen_bits(fz_round_bits(d, dtype), dtype); }

int fz_bits_are_nan(uint32_t bits, lutmm_dtype dtype) {
  const format f = format_of(dtype);
  const uint32_t inf = ((1u << f.exp_bits) - 1u) << f.mant_bits;
  return (bits & inf) == inf && (bits & ((1u << f.mant_bits) - 1u)) != 0;
}

uint32_t fz_load_bits(const void *buffer, lutmm_dtype dtype, int64_t i) {
  if (dtype == LUTMM_DTYPE_F32) {
    uint32_t u;
    memcpy(&u, (const uint8_t *)buffer + 4 * i, 4);
    return u;
  }
  uint16_t h;
  memcpy(&h, (const uint8_t *)buffer + 2 * i, 2);
  return h;
}

double fz_load(const void *buffer, lutmm_dtype dtype, int64_t i) {
  return fz_widen_bits(fz_load_bits(buffer, dtype, i), dtype);
}

void fz_store(void *buffer, lutmm_dtype dtype, int64_t i, double d) {
  const uint32_t bits = fz_round_bits(d, dtype);
  if (dtype == LUTMM_DTYPE_F32) {
    memcpy((uint8_t *)buffer + 4 * i, &bits, 4);
  } else {
    const uint16_t h = (uint16_t)bits;
    memcpy((uint8_t *)buffer + 2 * i, &h, 2);
  }
}
