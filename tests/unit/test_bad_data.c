/* Bad inputs: data the library must refuse (NaN/Inf weights and scales,
 * bad tables, codes out of range). Each returns its own status and writes
 * nothing. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ------------------------------------------------------- non-finite data */

static void expect_weight_rejected(float bad, int where) {
  bench *b = bench_open();
  float w[K * N];
  memcpy(w, b->w, sizeof w);
  w[where] = bad;
  CHECK_STATUS(LUTMM_ERR_NON_FINITE, try_quantize(b, &b->params, b->table, w));
  bench_close(b); /* nothing written: the check runs first (docs/NUMERICS.md) */
}

static void nan_weights(void) {
  expect_weight_rejected(NAN, 0);
  expect_weight_rejected(-NAN, K * N - 1);
  expect_weight_rejected(NAN, 77);
}

static void inf_weights(void) {
  expect_weight_rejected(INFINITY, 0);
  expect_weight_rejected(-INFINITY, K * N - 1);
}

static void non_finite_scales(void) {
  bench *b = bench_open();
  const uint16_t bad[] = {0x7C00, 0xFC00, 0x7E00, 0x7C01};
  for (int i = 0; i < 4; i++) {
    uint16_t scales[3 * N];
    memcpy(scales, b->good_scales, sizeof scales);
    scales[(i * 4) % (3 * N)] = bad[i];
    CHECK_STATUS(LUTMM_ERR_NON_FINITE, try_pack(b, &b->params, b->table, b->good_codes, scales));
  }
  bench_close(b);
}

/* ---------------------------------------------------------------- tables */

/* The same bad table through validate, quantize and pack. */
static void expect_table_status(int bits, const float *table, lutmm_status expected) {
  bench *b = bench_open();
  lutmm_quant_params p = b->params;
  p.bits = bits;
  CHECK_STATUS(expected, lutmm_table_validate(b->ctx, bits, table));
  CHECK_STATUS(expected, try_quantize(b, &p, table, b->w));
  uint8_t codes[K * N] = {0};
  CHECK_STATUS(expected, try_pack(b, &p, table, codes, b->good_scales));
  bench_close(b);
}

static void table_not_ascending(void) {
  expect_table_status(2, (const float[]){-1, 0.5f, 0.25f, 1}, LUTMM_ERR_TABLE_NOT_ASCENDING);
  expect_table_status(1, (const float[]){1, -1}, LUTMM_ERR_TABLE_NOT_ASCENDING);
  expect_table_status(2, (const float[]){-1, 0, 1, 0.999f}, LUTMM_ERR_TABLE_NOT_ASCENDING);
  expect_table_status(2, (const float[]){0.0f, -0.0f, -1e-45f, 1}, LUTMM_ERR_TABLE_NOT_ASCENDING);
  /* Equal neighbours and −0 before +0 are allowed. */
  lutmm_context *ctx = unit_context();
  CHECK_OK(lutmm_table_validate(ctx, 2, (const float[]){-1, -0.0f, 0.0f, 0.0f}));
  CHECK_OK(lutmm_table_validate(ctx, 1, (const float[]){2, 2}));
  lutmm_context_destroy(ctx);
}

static void table_all_zero(void) {
  expect_table_status(1, (const float[]){0, 0}, LUTMM_ERR_TABLE_ALL_ZERO);
  expect_table_status(2, (const float[]){-0.0f, -0.0f, 0.0f, 0.0f}, LUTMM_ERR_TABLE_ALL_ZERO);
}

static void table_non_finite(void) {
  expect_table_status(2, (const float[]){-1, NAN, 0.5f, 1}, LUTMM_ERR_NON_FINITE);
  expect_table_status(2, (const float[]){-1, 0, 0.5f, INFINITY}, LUTMM_ERR_NON_FINITE);
  expect_table_status(1, (const float[]){-INFINITY, 1}, LUTMM_ERR_NON_FINITE);
}

/* ----------------------------------------------------------------- codes */

static void code_out_of_range(void) {
  bench *b = bench_open();
  const int positions[] = {0, 100, K * N - 1};
  const uint8_t values[] = {16, 255, 17};
  for (int i = 0; i < 3; i++) {
    uint8_t codes[K * N];
    memcpy(codes, b->good_codes, sizeof codes);
    codes[positions[i]] = values[i];
    CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, try_pack(b, &b->params, b->table, codes, b->good_scales));
  }
  /* 1 bit: only 0 and 1. */
  lutmm_quant_params p = b->params;
  p.bits = 1;
  uint8_t codes[K * N] = {0};
  codes[3] = 2;
  CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, try_pack(b, &p, (const float[]){-1, 1}, codes, b->good_scales));
  bench_close(b);
}

/* fp32 scales beyond the fp16 range: GEMM and dequantize with fp16
 * activations must refuse (Ŵ would be Inf and 0·Inf NaN), leave Y alone, and
 * still run with fp32 activations. */
static void weights_overflow_compute_dtype(void) {
  lutmm_context *ctx = unit_context();
  enum { KO = 16, NO = 2 };
  float table[16], w[KO * NO] = {0}, scales[NO];
  uint8_t codes[KO * NO];
  w[0] = 1e5f;  /* column 0: one huge weight, the rest zero */
  w[1] = 0.5f;  /* column 1: ordinary */
  const lutmm_quant_params p = {4, KO, NO, 16, LUTMM_DTYPE_F32};
  lutmm_weights *weights = NULL;
  CHECK_OK(lutmm_table_nf(ctx, 4, table));
  CHECK_OK(lutmm_quantize(ctx, &p, table, w, codes, scales));
  CHECK_OK(lutmm_pack(ctx, &p, table, codes, scales, &weights));
  uint16_t x16[KO] = {0x3C00}; /* 1.0 then zeros */
  uint16_t y16[NO] = {0x1234, 0x1234};
  CHECK_STATUS(LUTMM_ERR_SCALE_OVERFLOW, lutmm_gemm(ctx, weights, 1, x16, LUTMM_DTYPE_F16, y16, LUTMM_DTYPE_F16));
  CHECK(y16[0] == 0x1234 && y16[1] == 0x1234);
  uint16_t w_hat[KO * NO];
  CHECK_STATUS(LUTMM_ERR_SCALE_OVERFLOW, lutmm_dequantize(ctx, weights, LUTMM_DTYPE_F16, w_hat));
  float x32[KO] = {1.0f}, y32[NO];
  CHECK_OK(lutmm_gemm(ctx, weights, 1, x32, LUTMM_DTYPE_F32, y32, LUTMM_DTYPE_F32));
  CHECK(y32[0] == 1e5f && y32[1] == 0.5f);
  lutmm_weights_destroy(weights);
  lutmm_context_destroy(ctx);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"nan_weights", nan_weights},
      {"inf_weights", inf_weights},
      {"non_finite_scales", non_finite_scales},
      {"table_not_ascending", table_not_ascending},
      {"table_all_zero", table_all_zero},
      {"table_non_finite", table_non_finite},
      {"code_out_of_range", code_out_of_range},
      {"weights_overflow_compute_dtype", weights_overflow_compute_dtype},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
