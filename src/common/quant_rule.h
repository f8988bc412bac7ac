/* The quantization rule of DESIGN.md §3, one element at a time, shared by the
 * host and device quantizers so both produce the same scales and codes. */
#ifndef LUTMM_QUANT_RULE_H
#define LUTMM_QUANT_RULE_H

#include "lutmm.h"
#include "numeric.h"
#include "portable.h"

/* Exact midpoint of two table entries, rounded once to float32. */
LUTMM_HD static inline float lutmm_midpoint(float lo, float hi) {
  return lutmm_f32_from_f64(((double)lo + (double)hi) * 0.5);
}

/* Group scale before and after rounding to the scale dtype; returns the
 * stored scale widened to float (Inf when it overflows the dtype). */
LUTMM_HD static inline float lutmm_group_scale(float absmax, float table_max, lutmm_dtype scale_dtype) {
  const float raw = absmax / table_max;
  return lutmm_round_to_dtype(raw, scale_dtype);
}

/* Code of w given its group's stored scale: the number of midpoints below
 * w / scale, which picks the nearest entry with ties to the lower index.
 * A zero scale maps every weight to the code nearest 0. */
LUTMM_HD static inline int lutmm_nearest_code(const float *midpoints, int num_midpoints, float w,
                                             float scale) {
  const float v = scale == 0.0f ? 0.0f : w / scale;
  int lo = 0, hi = num_midpoints; /* first index whose midpoint is >= v */
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (midpoints[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Stores a scale (already rounded to its dtype) into element i of `scales`. */
LUTMM_HD static inline void lutmm_store_scale(void *scales, lutmm_dtype dtype, int64_t i, float s) {
  lutmm_store_from_f64(scales, dtype, i, (double)s);
}

/* Dequantized weight in compute dtype c: round_c(T_c × s_c); the product of
 * two values of c is exact in double, so one rounding gives the result every
 * backend computes with __hmul / __fmul_rn. */
LUTMM_HD static inline float lutmm_dequant_value(float table_value, float scale, lutmm_dtype c) {
  const double product = (double)lutmm_round_to_dtype(table_value, c) * (double)lutmm_round_to_dtype(scale, c);
  return lutmm_round_f64_to_dtype(product, c);
}

#endif
