/* lutmm_gemm and lutmm_reference_gemm: NULLs, bad m, bad dtypes, X and Y
 * overlapping (forbidden), non-finite activations. */
#include <math.h>
#include <stdint.h>

#include "badinput.h"

static lutmm_status gemm(bad_fixture *fx, int64_t m, const void *x, lutmm_dtype xd, void *y, lutmm_dtype yd) {
  return lutmm_gemm(fx->ctx, fx->weights, m, x, xd, y, yd);
}

static lutmm_status null_ctx(bad_fixture *fx) {
  return lutmm_gemm(NULL, fx->weights, BAD_M, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32);
}
static lutmm_status null_weights(bad_fixture *fx) {
  return lutmm_gemm(fx->ctx, NULL, BAD_M, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32);
}
static lutmm_status null_x(bad_fixture *fx) { return gemm(fx, BAD_M, NULL, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32); }
static lutmm_status null_y(bad_fixture *fx) { return gemm(fx, BAD_M, fx->x, LUTMM_DTYPE_F32, NULL, LUTMM_DTYPE_F32); }
static lutmm_status m_zero(bad_fixture *fx) { return gemm(fx, 0, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32); }
static lutmm_status m_negative(bad_fixture *fx) { return gemm(fx, -1, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32); }
static lutmm_status m_int64_min(bad_fixture *fx) {
  return gemm(fx, INT64_MIN, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32);
}
/* m·k·4 bytes cannot exist: must be refused before anything is touched. */
static lutmm_status m_int64_max(bad_fixture *fx) {
  return gemm(fx, INT64_MAX, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32);
}
static lutmm_status x_dtype_3(bad_fixture *fx) { return gemm(fx, BAD_M, fx->x, (lutmm_dtype)3, fx->y, LUTMM_DTYPE_F32); }
static lutmm_status y_dtype_negative(bad_fixture *fx) {
  return gemm(fx, BAD_M, fx->x, LUTMM_DTYPE_F32, fx->y, (lutmm_dtype)-1);
}

/* Overlaps: the same buffer, Y starting inside X, X starting inside Y. */
static lutmm_status same_buffer(bad_fixture *fx) { return gemm(fx, 1, fx->x, LUTMM_DTYPE_F32, fx->x, LUTMM_DTYPE_F32); }
static lutmm_status y_inside_x(bad_fixture *fx) {
  return gemm(fx, 1, fx->x, LUTMM_DTYPE_F32, fx->x + 16, LUTMM_DTYPE_F16);
}
static lutmm_status x_inside_y(bad_fixture *fx) {
  return gemm(fx, 1, (const uint8_t *)fx->w + 2, LUTMM_DTYPE_F16, fx->w, LUTMM_DTYPE_F32);
}
/* Touching but not overlapping is allowed. */
static lutmm_status adjacent_buffers(bad_fixture *fx) {
  return gemm(fx, 1, fx->w, LUTMM_DTYPE_F32, fx->w + BAD_K, LUTMM_DTYPE_F32);
}

/* A NaN activation is data, not an error: the call succeeds and the NaN
 * reaches that row's outputs, and only that row's. */
static lutmm_status nan_activation(bad_fixture *fx) {
  fx->x[BAD_K + 3] = NAN;
  const lutmm_status st = gemm(fx, BAD_M, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32);
  if (st != LUTMM_OK) return st;
  for (int n = 0; n < BAD_N; n++)
    if (!isnan(fx->y[BAD_N + n]) || isnan(fx->y[n])) return BAD_BROKEN_PROMISE;
  return st;
}

static lutmm_status ref_null_ctx(bad_fixture *fx) {
  return lutmm_reference_gemm(NULL, fx->weights, 1, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32, NULL);
}
static lutmm_status ref_null_weights(bad_fixture *fx) {
  return lutmm_reference_gemm(fx->ctx, NULL, 1, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32, NULL);
}
static lutmm_status ref_null_x(bad_fixture *fx) {
  return lutmm_reference_gemm(fx->ctx, fx->weights, 1, NULL, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32, NULL);
}
static lutmm_status ref_m_zero(bad_fixture *fx) {
  return lutmm_reference_gemm(fx->ctx, fx->weights, 0, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32, NULL);
}
static lutmm_status ref_dtype(bad_fixture *fx) {
  return lutmm_reference_gemm(fx->ctx, fx->weights, 1, fx->x, (lutmm_dtype)9, fx->y, LUTMM_DTYPE_F32, NULL);
}
static lutmm_status ref_overlap(bad_fixture *fx) {
  return lutmm_reference_gemm(fx->ctx, fx->weights, 1, fx->x, LUTMM_DTYPE_F32, fx->x + 1, LUTMM_DTYPE_F32, NULL);
}
static lutmm_status ref_bound_optional(bad_fixture *fx) {
  return lutmm_reference_gemm(fx->ctx, fx->weights, BAD_M, fx->x, LUTMM_DTYPE_BF16, fx->y, LUTMM_DTYPE_F16, NULL);
}

static const bad_case kCases[] = {
    {"null_context", null_ctx, LUTMM_ERR_NULL_POINTER},
    {"null_weights", null_weights, LUTMM_ERR_NULL_POINTER},
    {"null_x", null_x, LUTMM_ERR_NULL_POINTER},
    {"null_y", null_y, LUTMM_ERR_NULL_POINTER},
    {"m_zero", m_zero, LUTMM_ERR_INVALID_SHAPE},
    {"m_negative", m_negative, LUTMM_ERR_INVALID_SHAPE},
    {"m_int64_min", m_int64_min, LUTMM_ERR_INVALID_SHAPE},
    {"m_int64_max_overflows", m_int64_max, LUTMM_ERR_OVERFLOW},
    {"x_dtype_3", x_dtype_3, LUTMM_ERR_INVALID_ARGUMENT},
    {"y_dtype_negative", y_dtype_negative, LUTMM_ERR_INVALID_ARGUMENT},
    {"x_and_y_same_buffer", same_buffer, LUTMM_ERR_INVALID_ARGUMENT},
    {"y_starts_inside_x", y_inside_x, LUTMM_ERR_INVALID_ARGUMENT},
    {"x_starts_inside_y", x_inside_y, LUTMM_ERR_INVALID_ARGUMENT},
    {"adjacent_buffers_allowed", adjacent_buffers, LUTMM_OK},
    {"nan_activation_propagates", nan_activation, LUTMM_OK},
    {"reference_null_context", ref_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"reference_null_weights", ref_null_weights, LUTMM_ERR_NULL_POINTER},
    {"reference_null_x", ref_null_x, LUTMM_ERR_NULL_POINTER},
    {"reference_m_zero", ref_m_zero, LUTMM_ERR_INVALID_SHAPE},
    {"reference_dtype_9", ref_dtype, LUTMM_ERR_INVALID_ARGUMENT},
    {"reference_x_y_overlap", ref_overlap, LUTMM_ERR_INVALID_ARGUMENT},
    {"reference_bound_optional", ref_bound_optional, LUTMM_OK},
};

const bad_area bad_gemm_area = {"gemm", kCases, sizeof kCases / sizeof kCases[0]};
