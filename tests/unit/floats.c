#include "floats.h"

#include <math.h>
#include <string.h>

/* A binary format with `exp_bits` exponent and `mant_bits` stored mantissa
 * bits, IEEE-style (subnormals, Inf). */
typedef struct format {
  int exp_bits, mant_bits;
} format;

static const format kF16 = {5, 10};
static const format kBF16 = {8, 7};

static int bias_of(format f) { return (1 << (f.exp_bits - 1)) - 1; }

static double largest_finite(format f) {
  return ldexp(2.0 - ldexp(1.0, -f.mant_bits), bias_of(f));
}

/* Rounds |x| to the format's grid: scale so the last kept bit is the units
 * digit, rint (nearest-even in the default mode), scale back. */
static double round_magnitude(double a, format f) {
  if (a == 0.0) return 0.0;
  int e;
  frexp(a, &e); /* a = m·2^e, m in [0.5, 1) */
  int unbiased = e - 1;
  const int emin = 1 - bias_of(f);
  if (unbiased < emin) unbiased = emin;
  const int quantum = unbiased - f.mant_bits;
  const double rounded = ldexp(rint(ldexp(a, -quantum)), quantum);
  return rounded > largest_finite(f) ? INFINITY : rounded;
}

static uint16_t encode(double x, format f) {
  const uint16_t sign = signbit(x) ? (uint16_t)(1u << (f.exp_bits + f.mant_bits)) : 0;
  const double a = round_magnitude(fabs(x), f);
  const int emin = 1 - bias_of(f);
  if (isinf(a)) return sign | (uint16_t)(((1u << f.exp_bits) - 1u) << f.mant_bits);
  if (a < ldexp(1.0, emin)) /* subnormal or zero: a multiple of the smallest subnormal */
    return sign | (uint16_t)ldexp(a, f.mant_bits - emin);
  int e;
  const double m = frexp(a, &e);
  const unsigned fraction = (unsigned)ldexp(m, f.mant_bits + 1) - (1u << f.mant_bits);
  return sign | (uint16_t)((unsigned)(e - 1 + bias_of(f)) << f.mant_bits) | (uint16_t)fraction;
}

static double decode(uint16_t h, format f) {
  const int sign = (h >> (f.exp_bits + f.mant_bits)) & 1;
  const unsigned exp_field = (h >> f.mant_bits) & ((1u << f.exp_bits) - 1u);
  const unsigned fraction = h & ((1u << f.mant_bits) - 1u);
  double a;
  if (exp_field == (1u << f.exp_bits) - 1u) a = fraction ? NAN : INFINITY;
  else if (exp_field == 0) a = ldexp((double)fraction, 1 - bias_of(f) - f.mant_bits);
  else a = ldexp((double)((1u << f.mant_bits) + fraction), (int)exp_field - bias_of(f) - f.mant_bits);
  return sign ? -a : a;
}

double unit_f16_value(uint16_t h) { return decode(h, kF16); }
double unit_bf16_value(uint16_t h) { return decode(h, kBF16); }
uint16_t unit_f16_bits(double x) { return encode(x, kF16); }
uint16_t unit_bf16_bits(double x) { return encode(x, kBF16); }

double unit_round(double x, lutmm_dtype dtype) {
  switch (dtype) {
    case LUTMM_DTYPE_F16: return unit_f16_value(unit_f16_bits(x));
    case LUTMM_DTYPE_BF16: return unit_bf16_value(unit_bf16_bits(x));
    default: return (double)(float)x; /* C's conversion rounds to nearest-even */
  }
}

double unit_load(const void *buffer, lutmm_dtype dtype, size_t i) {
  switch (dtype) {
    case LUTMM_DTYPE_F16: return unit_f16_value(((const uint16_t *)buffer)[i]);
    case LUTMM_DTYPE_BF16: return unit_bf16_value(((const uint16_t *)buffer)[i]);
    default: return ((const float *)buffer)[i];
  }
}

void unit_store(void *buffer, lutmm_dtype dtype, size_t i, double x) {
  switch (dtype) {
    case LUTMM_DTYPE_F16: ((uint16_t *)buffer)[i] = unit_f16_bits(x); break;
    case LUTMM_DTYPE_BF16: ((uint16_t *)buffer)[i] = unit_bf16_bits(x); break;
    default: ((float *)buffer)[i] = (float)x; break;
  }
}

size_t unit_dtype_size(lutmm_dtype dtype) { return dtype == LUTMM_DTYPE_F32 ? 4 : 2; }

uint32_t unit_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

float unit_f32_from_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
