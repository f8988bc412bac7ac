/* Table values, one entry at a time, shared by host and device builders so
 * that every backend writes the same bits. docs/TABLES.md defines each kind. */
#ifndef LUTMM_TABLES_H
#define LUTMM_TABLES_H

#include "inverse_normal.h"
#include "lutmm.h"
#include "numeric.h"
#include "portable.h"

/* 2^shift as a float, for shift in the normal range. */
LUTMM_HD static inline float lutmm_pow2f(int shift) {
  return lutmm_f32_from_bits((uint32_t)(shift + 127) << 23);
}

/* bitsandbytes' NF4, pinned: those constants were computed with float32
 * probabilities and differ from the double-precision construction below in
 * the last one to three ulps, and users' checkpoints hold these exact bits. */
LUTMM_HD static inline float lutmm_nf4_value(int i) {
  const float kNf4[16] = {-1.0f,
                          -0.6961928009986877f,
                          -0.5250730514526367f,
                          -0.39491748809814453f,
                          -0.28444138169288635f,
                          -0.18477343022823334f,
                          -0.09105003625154495f,
                          0.0f,
                          0.07958029955625534f,
                          0.16093020141124725f,
                          0.24611230194568634f,
                          0.33791524171829224f,
                          0.44070982933044434f,
                          0.5626170039176941f,
                          0.7229568362236023f,
                          1.0f};
  return kNf4[i];
}

/* Unnormalized NF quantile for entry i of a 2^bits table (bits >= 2):
 * entries 0..h−1 take probabilities evenly spaced on [δ, ½] (the last is
 * exactly 0), entries h..2h−1 those evenly spaced on (½, 1−δ]. */
LUTMM_HD static inline double lutmm_nf_quantile(int bits, int i) {
  const int h = 1 << (bits - 1);
  const double delta = LUTMM_DMUL(0.5, LUTMM_DADD(1.0 / 32.0, 1.0 / 30.0));
  const double span = 0.5 - delta;
  if (i == h - 1) return 0.0;
  if (i < h) return lutmm_inverse_normal_cdf(LUTMM_DADD(delta, LUTMM_DMUL((double)i, span / (h - 1))));
  return lutmm_inverse_normal_cdf(LUTMM_DADD(0.5, LUTMM_DMUL((double)(i - h + 1), span / h)));
}

LUTMM_HD static inline float lutmm_nf_value(int bits, int i) {
  if (bits == 1) return i == 0 ? -1.0f : 1.0f;
  if (bits == 4) return lutmm_nf4_value(i);
  const double lo = -lutmm_nf_quantile(bits, 0);
  const double hi = lutmm_nf_quantile(bits, (1 << bits) - 1);
  const double largest = lo > hi ? lo : hi;
  return lutmm_f32_from_f64(lutmm_nf_quantile(bits, i) / largest);
}

LUTMM_HD static inline float lutmm_int_value(int bits, int i) {
  return (float)(i - (1 << (bits - 1)));
}

/* Magnitude of minifloat code c (sign dropped) with e exponent and m mantissa
 * bits, bias 2^(e−1)−1, subnormals at exponent field 0, no Inf/NaN codes. */
LUTMM_HD static inline float lutmm_minifloat_magnitude(int e, int m, int c) {
  const int bias = (1 << (e - 1)) - 1;
  const int exp_field = c >> m;
  const int mant = c & ((1 << m) - 1);
  if (exp_field == 0) return (float)mant * lutmm_pow2f(1 - bias - m);
  return (float)((1 << m) + mant) * lutmm_pow2f(exp_field - bias - m);
}

LUTMM_HD static inline float lutmm_fp_value(int bits, int i) {
  if (bits == 1) return i == 0 ? -1.0f : 1.0f;
  const int h = 1 << (bits - 1);
  const int e = bits / 2; /* ceil((bits − 1) / 2) */
  const int m = bits - 1 - e;
  if (i < h) return -lutmm_minifloat_magnitude(e, m, h - 1 - i);
  return lutmm_minifloat_magnitude(e, m, i - h);
}

/* Largest magnitude of an ascending table: one of its ends. */
LUTMM_HD static inline float lutmm_table_max_magnitude(const float *table, int size) {
  const float lo = -table[0];
  const float hi = table[size - 1];
  return lo > hi ? lo : hi;
}

#endif
