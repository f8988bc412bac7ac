/* Weights objects: destroy, query, unpack, dequantize. */
#include <string.h>

#include "badinput.h"

static lutmm_status destroy_null(bad_fixture *fx) {
  (void)fx;
  lutmm_weights_destroy(NULL);
  return LUTMM_OK;
}

static lutmm_status query_null_weights(bad_fixture *fx) {
  lutmm_weights_info info;
  (void)fx;
  return lutmm_weights_query(NULL, &info);
}

static lutmm_status query_null_info(bad_fixture *fx) { return lutmm_weights_query(fx->weights, NULL); }

static lutmm_status unpack_null_ctx(bad_fixture *fx) {
  return lutmm_unpack(NULL, fx->weights, fx->codes, fx->scales, fx->table);
}

static lutmm_status unpack_null_weights(bad_fixture *fx) {
  return lutmm_unpack(fx->ctx, NULL, fx->codes, fx->scales, fx->table);
}

/* All three outputs are optional: none at all is a valid no-op. */
static lutmm_status unpack_no_outputs(bad_fixture *fx) { return lutmm_unpack(fx->ctx, fx->weights, NULL, NULL, NULL); }

/* Only the table: codes and scales buffers must stay as they were. */
static lutmm_status unpack_table_only(bad_fixture *fx) {
  uint8_t before[sizeof fx->codes];
  memcpy(before, fx->codes, sizeof before);
  const lutmm_status st = lutmm_unpack(fx->ctx, fx->weights, NULL, NULL, fx->table);
  return memcmp(before, fx->codes, sizeof before) == 0 ? st : BAD_BROKEN_PROMISE;
}

static lutmm_status dequantize_null_ctx(bad_fixture *fx) {
  return lutmm_dequantize(NULL, fx->weights, LUTMM_DTYPE_F32, fx->w);
}
static lutmm_status dequantize_null_weights(bad_fixture *fx) {
  return lutmm_dequantize(fx->ctx, NULL, LUTMM_DTYPE_F32, fx->w);
}
static lutmm_status dequantize_null_output(bad_fixture *fx) {
  return lutmm_dequantize(fx->ctx, fx->weights, LUTMM_DTYPE_F32, NULL);
}
static lutmm_status dequantize_dtype_3(bad_fixture *fx) {
  return lutmm_dequantize(fx->ctx, fx->weights, (lutmm_dtype)3, fx->w);
}
static lutmm_status dequantize_dtype_negative(bad_fixture *fx) {
  return lutmm_dequantize(fx->ctx, fx->weights, (lutmm_dtype)-1, fx->w);
}

static const bad_case kCases[] = {
    {"destroy_null", destroy_null, LUTMM_OK},
    {"query_null_weights", query_null_weights, LUTMM_ERR_NULL_POINTER},
    {"query_null_info", query_null_info, LUTMM_ERR_NULL_POINTER},
    {"unpack_null_context", unpack_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"unpack_null_weights", unpack_null_weights, LUTMM_ERR_NULL_POINTER},
    {"unpack_no_outputs", unpack_no_outputs, LUTMM_OK},
    {"unpack_table_only", unpack_table_only, LUTMM_OK},
    {"dequantize_null_context", dequantize_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"dequantize_null_weights", dequantize_null_weights, LUTMM_ERR_NULL_POINTER},
    {"dequantize_null_output", dequantize_null_output, LUTMM_ERR_NULL_POINTER},
    {"dequantize_dtype_3", dequantize_dtype_3, LUTMM_ERR_INVALID_ARGUMENT},
    {"dequantize_dtype_negative", dequantize_dtype_negative, LUTMM_ERR_INVALID_ARGUMENT},
};

const bad_area bad_weights_area = {"weights", kCases, sizeof kCases / sizeof kCases[0]};
