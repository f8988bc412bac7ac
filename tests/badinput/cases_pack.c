/* lutmm_pack: NULLs, bad parameters, codes out of range, non-finite
 * scales, bad tables; *weights is set only on success. */
#include <math.h>

#include "badinput.h"

/* Packs the fixture after one edit and checks *weights stayed untouched on
 * failure (and was set on success, then freed). */
static lutmm_status pack(bad_fixture *fx) {
  lutmm_weights *sentinel = (lutmm_weights *)fx, *w = sentinel;
  const lutmm_status st = lutmm_pack(fx->ctx, &fx->params, fx->table, fx->codes, fx->scales, &w);
  if (st == LUTMM_OK) {
    if (w == sentinel) return BAD_BROKEN_PROMISE;
    lutmm_weights_destroy(w);
    return st;
  }
  return w == sentinel ? st : BAD_BROKEN_PROMISE;
}

static lutmm_status null_ctx(bad_fixture *fx) {
  lutmm_weights *w;
  return lutmm_pack(NULL, &fx->params, fx->table, fx->codes, fx->scales, &w);
}
static lutmm_status null_params(bad_fixture *fx) {
  lutmm_weights *w;
  return lutmm_pack(fx->ctx, NULL, fx->table, fx->codes, fx->scales, &w);
}
static lutmm_status null_table(bad_fixture *fx) {
  lutmm_weights *w;
  return lutmm_pack(fx->ctx, &fx->params, NULL, fx->codes, fx->scales, &w);
}
static lutmm_status null_codes(bad_fixture *fx) {
  lutmm_weights *w;
  return lutmm_pack(fx->ctx, &fx->params, fx->table, NULL, fx->scales, &w);
}
static lutmm_status null_scales(bad_fixture *fx) {
  lutmm_weights *w;
  return lutmm_pack(fx->ctx, &fx->params, fx->table, fx->codes, NULL, &w);
}
static lutmm_status null_out(bad_fixture *fx) {
  return lutmm_pack(fx->ctx, &fx->params, fx->table, fx->codes, fx->scales, NULL);
}

static lutmm_status bits_0(bad_fixture *fx) { fx->params.bits = 0; return pack(fx); }
static lutmm_status n_negative(bad_fixture *fx) { fx->params.n = -32; return pack(fx); }
static lutmm_status group_48(bad_fixture *fx) { fx->params.group_size = 48; return pack(fx); }
static lutmm_status dtype_bad(bad_fixture *fx) { fx->params.scale_dtype = (lutmm_dtype)-2; return pack(fx); }
static lutmm_status code_16_of_4_bits(bad_fixture *fx) { fx->codes[77] = 16; return pack(fx); }
static lutmm_status code_255_last(bad_fixture *fx) { fx->codes[BAD_K * BAD_N - 1] = 255; return pack(fx); }

/* A 1-bit pack of 4-bit codes: most codes are out of range. */
static lutmm_status codes_wider_than_bits(bad_fixture *fx) {
  fx->params.bits = 1;
  fx->table[0] = -1.0f, fx->table[1] = 1.0f;
  return pack(fx);
}

static lutmm_status scale_f16_inf(bad_fixture *fx) { fx->scales[3] = 0x7C00; return pack(fx); }
static lutmm_status scale_f16_nan(bad_fixture *fx) { fx->scales[BAD_N + 5] = 0x7E01; return pack(fx); }
static lutmm_status scale_bf16_nan(bad_fixture *fx) {
  fx->params.scale_dtype = LUTMM_DTYPE_BF16;
  for (int i = 0; i < (BAD_K / BAD_GROUP) * BAD_N; i++) fx->scales[i] = 0x3F80; /* 1.0 */
  fx->scales[9] = 0xFFC0;
  return pack(fx);
}
static lutmm_status table_inf(bad_fixture *fx) { fx->table[15] = INFINITY; return pack(fx); }
static lutmm_status table_descending(bad_fixture *fx) { fx->table[14] = 2.0f; return pack(fx); }
static lutmm_status table_all_zero(bad_fixture *fx) {
  for (int i = 0; i < 16; i++) fx->table[i] = 0.0f;
  return pack(fx);
}

/* Negative and zero scales are finite: pack accepts them. */
static lutmm_status scale_negative_and_zero(bad_fixture *fx) {
  fx->scales[0] = 0xBC00; /* -1 */
  fx->scales[1] = 0x8000; /* -0 */
  return pack(fx);
}

static const bad_case kCases[] = {
    {"null_context", null_ctx, LUTMM_ERR_NULL_POINTER},
    {"null_params", null_params, LUTMM_ERR_NULL_POINTER},
    {"null_table", null_table, LUTMM_ERR_NULL_POINTER},
    {"null_codes", null_codes, LUTMM_ERR_NULL_POINTER},
    {"null_scales", null_scales, LUTMM_ERR_NULL_POINTER},
    {"null_weights_out", null_out, LUTMM_ERR_NULL_POINTER},
    {"bits_0", bits_0, LUTMM_ERR_INVALID_BITS},
    {"n_negative", n_negative, LUTMM_ERR_INVALID_SHAPE},
    {"group_48_not_dividing", group_48, LUTMM_ERR_INVALID_GROUP_SIZE},
    {"scale_dtype_negative", dtype_bad, LUTMM_ERR_INVALID_ARGUMENT},
    {"code_16_with_4_bits", code_16_of_4_bits, LUTMM_ERR_INVALID_ARGUMENT},
    {"code_255_last_element", code_255_last, LUTMM_ERR_INVALID_ARGUMENT},
    {"codes_wider_than_bits", codes_wider_than_bits, LUTMM_ERR_INVALID_ARGUMENT},
    {"scale_f16_inf", scale_f16_inf, LUTMM_ERR_NON_FINITE},
    {"scale_f16_nan", scale_f16_nan, LUTMM_ERR_NON_FINITE},
    {"scale_bf16_nan", scale_bf16_nan, LUTMM_ERR_NON_FINITE},
    {"table_inf", table_inf, LUTMM_ERR_NON_FINITE},
    {"table_descending", table_descending, LUTMM_ERR_TABLE_NOT_ASCENDING},
    {"table_all_zero", table_all_zero, LUTMM_ERR_TABLE_ALL_ZERO},
    {"scales_negative_and_zero_allowed", scale_negative_and_zero, LUTMM_OK},
};

const bad_area bad_pack_area = {"pack", kCases, sizeof kCases / sizeof kCases[0]};
