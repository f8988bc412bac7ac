/* Bad inputs: every pointer argument of every function, NULL in turn,
 * gives LUTMM_ERR_NULL_POINTER and writes nothing. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ------------------------------------------------------------ NULL pointers */

static void null_context(void) {
  bench *b = bench_open();
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_context_create(LUTMM_BACKEND_REFERENCE, NULL));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_context_create(LUTMM_BACKEND_AUTO, NULL));
  lutmm_backend kind = (lutmm_backend)77;
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_context_backend(NULL, &kind));
  CHECK_EQ_INT(kind, 77);
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_context_backend(b->ctx, NULL));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_context_set_num_threads(NULL, 2));
  lutmm_context_destroy(NULL); /* accepted and ignored */
  lutmm_weights_destroy(NULL);
  lutmm_free(b->ctx, NULL);
  bench_close(b);
}

static void null_memory(void) {
  bench *b = bench_open();
  void *p = (void *)(uintptr_t)0xBEEF;
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_malloc(NULL, 16, &p));
  CHECK(p == (void *)(uintptr_t)0xBEEF);
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_malloc(b->ctx, 16, NULL));
  uint8_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_copy_to_context(NULL, b->out.data, src, 8));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_copy_to_context(b->ctx, NULL, src, 8));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_copy_to_context(b->ctx, b->out.data, NULL, 8));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_copy_to_host(NULL, b->out.data, src, 8));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_copy_to_host(b->ctx, NULL, src, 8));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_copy_to_host(b->ctx, b->out.data, NULL, 8));
  /* Copies of 0 bytes do nothing, whatever the pointers. */
  CHECK_OK(lutmm_copy_to_context(b->ctx, NULL, NULL, 0));
  CHECK_OK(lutmm_copy_to_host(b->ctx, NULL, NULL, 0));
  bench_close(b);
}

static void null_tables(void) {
  bench *b = bench_open();
  lutmm_status (*const builders[3])(lutmm_context *, int, float *) = {lutmm_table_nf, lutmm_table_int,
                                                                       lutmm_table_fp};
  for (int i = 0; i < 3; i++) {
    CHECK_STATUS(LUTMM_ERR_NULL_POINTER, builders[i](NULL, 4, (float *)b->out.data));
    CHECK_STATUS(LUTMM_ERR_NULL_POINTER, builders[i](b->ctx, 4, NULL));
  }
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_table_validate(NULL, 4, b->table));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_table_validate(b->ctx, 4, NULL));
  bench_close(b);
}

static void null_quantize(void) {
  bench *b = bench_open();
  int64_t groups = -1;
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_quant_params_check(NULL, &groups));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_quant_params_check(&b->params, NULL));
  CHECK_EQ_INT(groups, -1);
  void *c = b->codes.data, *s = b->scales.data;
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_quantize(NULL, &b->params, b->table, b->w, c, s));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_quantize(b->ctx, NULL, b->table, b->w, c, s));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_quantize(b->ctx, &b->params, NULL, b->w, c, s));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_quantize(b->ctx, &b->params, b->table, NULL, c, s));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_quantize(b->ctx, &b->params, b->table, b->w, NULL, s));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_quantize(b->ctx, &b->params, b->table, b->w, c, NULL));
  bench_close(b);
}

static void null_pack(void) {
  bench *b = bench_open();
  lutmm_weights *w = WEIGHTS_SENTINEL;
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_pack(NULL, &b->params, b->table, b->good_codes, b->good_scales, &w));
  CHECK(w == WEIGHTS_SENTINEL);
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, try_pack(b, NULL, b->table, b->good_codes, b->good_scales));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, try_pack(b, &b->params, NULL, b->good_codes, b->good_scales));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, try_pack(b, &b->params, b->table, NULL, b->good_scales));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, try_pack(b, &b->params, b->table, b->good_codes, NULL));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_pack(b->ctx, &b->params, b->table, b->good_codes, b->good_scales, NULL));
  bench_close(b);
}

static void null_weights_calls(void) {
  bench *b = bench_open();
  lutmm_weights_info info;
  memset(&info, SENTINEL, sizeof info);
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_weights_query(NULL, &info));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_weights_query(b->weights, NULL));
  const uint8_t *raw = (const uint8_t *)&info;
  for (size_t i = 0; i < sizeof info; i++) CHECK(raw[i] == SENTINEL);
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_unpack(NULL, b->weights, b->codes.data, b->scales.data, (float *)b->out.data));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_unpack(b->ctx, NULL, b->codes.data, b->scales.data, (float *)b->out.data));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_dequantize(NULL, b->weights, LUTMM_DTYPE_F16, b->out.data));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_dequantize(b->ctx, NULL, LUTMM_DTYPE_F16, b->out.data));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_dequantize(b->ctx, b->weights, LUTMM_DTYPE_F16, NULL));
  bench_close(b);
}

static void null_serialize(void) {
  bench *b = bench_open();
  size_t size = 12345;
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_weights_serialize(NULL, b->weights, b->out.data, b->out.bytes, &size));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_weights_serialize(b->ctx, NULL, b->out.data, b->out.bytes, &size));
  CHECK_EQ_INT(size, 12345);
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_weights_serialize(b->ctx, b->weights, b->out.data, b->out.bytes, NULL));
  lutmm_weights *w = WEIGHTS_SENTINEL;
  const uint8_t bytes[128] = {0};
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_weights_deserialize(NULL, bytes, sizeof bytes, &w));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_weights_deserialize(b->ctx, NULL, sizeof bytes, &w));
  CHECK(w == WEIGHTS_SENTINEL);
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_weights_deserialize(b->ctx, bytes, sizeof bytes, NULL));
  bench_close(b);
}

static void null_gemm(void) {
  bench *b = bench_open();
  const lutmm_dtype f = LUTMM_DTYPE_F32;
  void *y = b->out.data;
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_gemm(NULL, b->weights, 2, b->x, f, y, f));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_gemm(b->ctx, NULL, 2, b->x, f, y, f));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_gemm(b->ctx, b->weights, 2, NULL, f, y, f));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_gemm(b->ctx, b->weights, 2, b->x, f, NULL, f));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_reference_gemm(NULL, b->weights, 2, b->x, f, y, f, NULL));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_reference_gemm(b->ctx, NULL, 2, b->x, f, y, f, NULL));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_reference_gemm(b->ctx, b->weights, 2, NULL, f, y, f, NULL));
  CHECK_STATUS(LUTMM_ERR_NULL_POINTER, lutmm_reference_gemm(b->ctx, b->weights, 2, b->x, f, NULL, f, NULL));
  bench_close(b);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"null_context", null_context},
      {"null_memory", null_memory},
      {"null_tables", null_tables},
      {"null_quantize", null_quantize},
      {"null_pack", null_pack},
      {"null_weights_calls", null_weights_calls},
      {"null_serialize", null_serialize},
      {"null_gemm", null_gemm},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
