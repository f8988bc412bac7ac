/* Results do not depend on the thread count: 1, 2 and 7 threads (and the
 * OpenMP default, 0) give identical bits for quantize, pack, dequantize and
 * GEMM. Shapes span several atom columns and column blocks so that every
 * team size really splits the work. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "floats.h"

static const int kThreads[] = {1, 2, 7, 0};
#define RUNS 4

typedef struct shape {
  lutmm_quant_params params;
  int64_t m;
} shape;

static const shape kShapes[] = {
    {{4, 256, 300, 32, LUTMM_DTYPE_F16}, 17},
    {{3, 80, 130, 16, LUTMM_DTYPE_BF16}, 3},
    {{7, 100, 65, 0, LUTMM_DTYPE_F32}, 2},
};

/* Everything one run produces, as bytes. */
typedef struct outputs {
  uint8_t *codes, *scales, *record, *w_hat, *y;
  size_t codes_bytes, scales_bytes, record_bytes, w_hat_bytes, y_bytes;
} outputs;

static void run_pipeline(const shape *s, int threads, const float *w, const void *x, outputs *out) {
  lutmm_context *ctx = unit_context();
  CHECK_OK(lutmm_context_set_num_threads(ctx, threads));
  const lutmm_quant_params *p = &s->params;
  float table[LUTMM_MAX_TABLE_SIZE];
  nf_table(ctx, p->bits, table);
  out->codes_bytes = (size_t)(p->k * p->n);
  out->scales_bytes = scale_array_bytes(p, group_count(p));
  out->w_hat_bytes = out->codes_bytes * 2;
  out->y_bytes = (size_t)(s->m * p->n) * 4;
  out->codes = malloc(out->codes_bytes);
  out->scales = malloc(out->scales_bytes);
  out->w_hat = malloc(out->w_hat_bytes);
  out->y = malloc(out->y_bytes);
  memset(out->y, 0xFF, out->y_bytes);
  out->record = NULL;
  CHECK_OK(lutmm_quantize(ctx, p, table, w, out->codes, out->scales));
  lutmm_weights *weights = NULL;
  CHECK_OK(lutmm_pack(ctx, p, table, out->codes, out->scales, &weights));
  if (weights != NULL) {
    out->record = serialize_copy(ctx, weights, &out->record_bytes);
    CHECK_OK(lutmm_dequantize(ctx, weights, LUTMM_DTYPE_BF16, out->w_hat));
    CHECK_OK(lutmm_gemm(ctx, weights, s->m, x, LUTMM_DTYPE_F16, out->y, LUTMM_DTYPE_F32));
  }
  lutmm_weights_destroy(weights);
  lutmm_context_destroy(ctx);
}

static void free_outputs(outputs *o) {
  free(o->codes), free(o->scales), free(o->record), free(o->w_hat), free(o->y);
}

static int same(const uint8_t *a, const uint8_t *b, size_t bytes) {
  return a != NULL && b != NULL && memcmp(a, b, bytes) == 0;
}

static void invariance(void) {
  unit_rng r = {2024};
  for (size_t c = 0; c < sizeof kShapes / sizeof kShapes[0]; c++) {
    const shape *s = &kShapes[c];
    const size_t count = (size_t)(s->params.k * s->params.n);
    float *w = malloc(count * sizeof *w);
    uint16_t *x = malloc((size_t)(s->m * s->params.k) * sizeof *x);
    for (size_t i = 0; i < count; i++) w[i] = rng_uniform(&r, -1.0f, 1.0f) * (i % 97 == 0 ? 30.0f : 1.0f);
    for (int64_t i = 0; i < s->m * s->params.k; i++) x[i] = unit_f16_bits(rng_uniform(&r, -2.0f, 2.0f));
    outputs runs[RUNS];
    for (int t = 0; t < RUNS; t++) run_pipeline(s, kThreads[t], w, x, &runs[t]);
    for (int t = 1; t < RUNS; t++) {
      const outputs *a = &runs[0], *b = &runs[t];
      if (!same(a->codes, b->codes, a->codes_bytes)) unit_fail(__FILE__, __LINE__, "shape %zu: codes differ at %d threads", c, kThreads[t]);
      if (!same(a->scales, b->scales, a->scales_bytes)) unit_fail(__FILE__, __LINE__, "shape %zu: scales differ at %d threads", c, kThreads[t]);
      if (a->record_bytes != b->record_bytes || !same(a->record, b->record, a->record_bytes))
        unit_fail(__FILE__, __LINE__, "shape %zu: packed record differs at %d threads", c, kThreads[t]);
      if (!same(a->w_hat, b->w_hat, a->w_hat_bytes)) unit_fail(__FILE__, __LINE__, "shape %zu: dequantize differs at %d threads", c, kThreads[t]);
      if (!same(a->y, b->y, a->y_bytes)) unit_fail(__FILE__, __LINE__, "shape %zu: gemm differs at %d threads", c, kThreads[t]);
    }
    /* The runs computed something: no poison left in Y. */
    for (size_t i = 0; i < runs[0].y_bytes / 4; i++) CHECK(((const uint32_t *)runs[0].y)[i] != 0xFFFFFFFFu);
    for (int t = 0; t < RUNS; t++) free_outputs(&runs[t]);
    free(w), free(x);
  }
}

/* The reference GEMM's bound does not depend on the thread count either. */
static void bound_invariance(void) {
  lutmm_context *ctx = unit_context();
  const lutmm_quant_params p = {5, 96, 140, 32, LUTMM_DTYPE_F16};
  packed_case pc;
  if (packed_case_make(ctx, &p, 8, &pc)) {
    const int64_t m = 5;
    unit_rng r = {4};
    float x[5 * 96];
    for (int i = 0; i < 5 * 96; i++) x[i] = rng_uniform(&r, -1.0f, 1.0f);
    float y[RUNS][5 * 140], bound[RUNS][5 * 140];
    for (int t = 0; t < RUNS; t++) {
      CHECK_OK(lutmm_context_set_num_threads(ctx, kThreads[t]));
      CHECK_OK(lutmm_reference_gemm(ctx, pc.weights, m, x, LUTMM_DTYPE_F32, y[t], LUTMM_DTYPE_BF16, bound[t]));
    }
    for (int t = 1; t < RUNS; t++) {
      CHECK(memcmp(y[0], y[t], sizeof(uint16_t) * 5 * 140) == 0);
      CHECK(memcmp(bound[0], bound[t], sizeof bound[0]) == 0);
    }
  }
  packed_case_free(&pc);
  lutmm_context_destroy(ctx);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {{"invariance", invariance}, {"bound_invariance", bound_invariance}};
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
