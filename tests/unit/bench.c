#include "bench.h"

#include <stdlib.h>

bench *bench_open(void) {
  bench *b = calloc(1, sizeof *b);
  b->ctx = unit_context();
  b->params = (lutmm_quant_params){BITS, K, N, 16, LUTMM_DTYPE_F16};
  CHECK_OK(lutmm_table_nf(b->ctx, BITS, b->table));
  unit_rng r = {5};
  for (int i = 0; i < K * N; i++) b->w[i] = rng_uniform(&r, -1.0f, 1.0f);
  for (int i = 0; i < K * 4; i++) b->x[i] = rng_uniform(&r, -1.0f, 1.0f);
  b->codes = guarded_alloc(K * N, SENTINEL);
  b->scales = guarded_alloc(3 * N * 2, SENTINEL);
  b->out = guarded_alloc(4096, SENTINEL);
  CHECK_OK(lutmm_quantize(b->ctx, &b->params, b->table, b->w, b->good_codes, b->good_scales));
  CHECK_OK(lutmm_pack(b->ctx, &b->params, b->table, b->good_codes, b->good_scales, &b->weights));
  if (b->weights == NULL) {
    fprintf(stderr, "FAIL: the valid request does not pack\n");
    exit(1);
  }
  return b;
}

static int untouched(const guarded *g) {
  for (size_t i = 0; i < g->bytes; i++)
    if (g->data[i] != SENTINEL) return 0;
  return guarded_intact(g);
}

/* Every output buffer still holds the sentinel. */
#define CHECK_UNTOUCHED(b) CHECK(untouched(&(b)->codes) && untouched(&(b)->scales) && untouched(&(b)->out))

void bench_close(bench *b) {
  CHECK_UNTOUCHED(b);
  lutmm_weights_destroy(b->weights);
  guarded_free(&b->codes), guarded_free(&b->scales), guarded_free(&b->out);
  lutmm_context_destroy(b->ctx);
  free(b);
}

lutmm_status try_pack(bench *b, const lutmm_quant_params *p, const float *table, const uint8_t *codes,
                             const void *scales) {
  lutmm_weights *w = WEIGHTS_SENTINEL;
  const lutmm_status st = lutmm_pack(b->ctx, p, table, codes, scales, &w);
  if (st == LUTMM_OK) lutmm_weights_destroy(w);
  else if (w != WEIGHTS_SENTINEL) unit_fail(__FILE__, __LINE__, "pack wrote *weights on failure");
  return st;
}

lutmm_status try_quantize(bench *b, const lutmm_quant_params *p, const float *table, const float *w) {
  return lutmm_quantize(b->ctx, p, table, w, b->codes.data, b->scales.data);
}

void expect_params_status(bench *b, lutmm_quant_params p, lutmm_status expected) {
  int64_t groups = -12345;
  CHECK_STATUS(expected, lutmm_quant_params_check(&p, &groups));
  CHECK_EQ_INT(groups, -12345);
  CHECK_STATUS(expected, try_quantize(b, &p, b->table, b->w));
  CHECK_STATUS(expected, try_pack(b, &p, b->table, b->good_codes, b->good_scales));
}
