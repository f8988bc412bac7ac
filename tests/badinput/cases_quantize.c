/* lutmm_quantize: NULLs, bad parameters, bad tables, non-finite weights,
 * scales that overflow their dtype. */
#include <math.h>

#include "badinput.h"

static lutmm_status quantize(bad_fixture *fx) {
  return lutmm_quantize(fx->ctx, &fx->params, fx->table, fx->w, fx->codes, fx->scales);
}

static lutmm_status null_ctx(bad_fixture *fx) {
  return lutmm_quantize(NULL, &fx->params, fx->table, fx->w, fx->codes, fx->scales);
}
static lutmm_status null_params(bad_fixture *fx) {
  return lutmm_quantize(fx->ctx, NULL, fx->table, fx->w, fx->codes, fx->scales);
}
static lutmm_status null_table(bad_fixture *fx) {
  return lutmm_quantize(fx->ctx, &fx->params, NULL, fx->w, fx->codes, fx->scales);
}
static lutmm_status null_w(bad_fixture *fx) {
  return lutmm_quantize(fx->ctx, &fx->params, fx->table, NULL, fx->codes, fx->scales);
}
static lutmm_status null_codes(bad_fixture *fx) {
  return lutmm_quantize(fx->ctx, &fx->params, fx->table, fx->w, NULL, fx->scales);
}
static lutmm_status null_scales(bad_fixture *fx) {
  return lutmm_quantize(fx->ctx, &fx->params, fx->table, fx->w, fx->codes, NULL);
}

static lutmm_status bits_9(bad_fixture *fx) { fx->params.bits = 9; return quantize(fx); }
static lutmm_status k_zero(bad_fixture *fx) { fx->params.k = 0; return quantize(fx); }
static lutmm_status group_8(bad_fixture *fx) { fx->params.group_size = 8; return quantize(fx); }
static lutmm_status dtype_bad(bad_fixture *fx) { fx->params.scale_dtype = (lutmm_dtype)7; return quantize(fx); }
static lutmm_status weight_nan(bad_fixture *fx) { fx->w[100] = NAN; return quantize(fx); }
static lutmm_status weight_inf(bad_fixture *fx) { fx->w[BAD_K * BAD_N - 1] = INFINITY; return quantize(fx); }
static lutmm_status weight_minus_inf(bad_fixture *fx) { fx->w[0] = -INFINITY; return quantize(fx); }
static lutmm_status table_nan(bad_fixture *fx) { fx->table[3] = NAN; return quantize(fx); }
static lutmm_status table_descending(bad_fixture *fx) { fx->table[3] = 0.9f; return quantize(fx); }

static lutmm_status table_all_zero(bad_fixture *fx) {
  for (int i = 0; i < 16; i++) fx->table[i] = 0.0f;
  return quantize(fx);
}

/* |w| / max|T| above fp16's largest finite value. */
static lutmm_status scale_overflow_f16(bad_fixture *fx) {
  fx->w[5] = 1.0e6f;
  return quantize(fx);
}

/* bf16 and f32 reach much further: only float32's own limit overflows. */
static lutmm_status scale_overflow_bf16(bad_fixture *fx) {
  fx->params.scale_dtype = LUTMM_DTYPE_BF16;
  fx->table[0] = -1.0e-30f;
  for (int i = 1; i < 16; i++) fx->table[i] = 0.0f;
  fx->w[7] = 3.0e38f;
  return quantize(fx);
}

static const bad_case kCases[] = {
    {"null_context", null_ctx, LUTMM_ERR_NULL_POINTER},
    {"null_params", null_params, LUTMM_ERR_NULL_POINTER},
    {"null_table", null_table, LUTMM_ERR_NULL_POINTER},
    {"null_weights", null_w, LUTMM_ERR_NULL_POINTER},
    {"null_codes", null_codes, LUTMM_ERR_NULL_POINTER},
    {"null_scales", null_scales, LUTMM_ERR_NULL_POINTER},
    {"bits_9", bits_9, LUTMM_ERR_INVALID_BITS},
    {"k_zero", k_zero, LUTMM_ERR_INVALID_SHAPE},
    {"group_8", group_8, LUTMM_ERR_INVALID_GROUP_SIZE},
    {"scale_dtype_out_of_range", dtype_bad, LUTMM_ERR_INVALID_ARGUMENT},
    {"weight_nan", weight_nan, LUTMM_ERR_NON_FINITE},
    {"weight_inf", weight_inf, LUTMM_ERR_NON_FINITE},
    {"weight_minus_inf", weight_minus_inf, LUTMM_ERR_NON_FINITE},
    {"table_nan", table_nan, LUTMM_ERR_NON_FINITE},
    {"table_descending", table_descending, LUTMM_ERR_TABLE_NOT_ASCENDING},
    {"table_all_zero", table_all_zero, LUTMM_ERR_TABLE_ALL_ZERO},
    {"scale_overflow_f16", scale_overflow_f16, LUTMM_ERR_SCALE_OVERFLOW},
    {"scale_overflow_bf16", scale_overflow_bf16, LUTMM_ERR_SCALE_OVERFLOW},
};

const bad_area bad_quantize_area = {"quantize", kCases, sizeof kCases / sizeof kCases[0]};
