/* The bad-input tests' bench: one valid request for every function, with
 * sentinel-filled outputs, so each case breaks exactly one thing and checks
 * that nothing was written. */
#ifndef UNIT_BENCH_H
#define UNIT_BENCH_H

#include <stdint.h>

#include "check.h"
#include "fixture.h"

#define K 48
#define N 5
#define BITS 4
#define SENTINEL 0x5C
#define WEIGHTS_SENTINEL ((lutmm_weights *)(uintptr_t)0xDEAD0)

typedef struct bench {
  lutmm_context *ctx;
  lutmm_quant_params params;
  float table[16];
  float w[K * N];
  guarded codes, scales, out; /* out: 4 KiB for tables, Ŵ, Y */
  uint8_t good_codes[K * N];
  uint16_t good_scales[3 * N];
  lutmm_weights *weights;
  float x[K * 4];
} bench;

/* A valid NF4 request, K = 48, N = 5, group 16, fp16 scales, packed. */
bench *bench_open(void);
/* Checks every output still holds the sentinel, then frees the bench. */
void bench_close(bench *b);

/* pack with the given arguments; checks *weights is untouched on failure. */
lutmm_status try_pack(bench *b, const lutmm_quant_params *p, const float *table, const uint8_t *codes,
                      const void *scales);
/* quantize into the bench's sentinel-filled outputs. */
lutmm_status try_quantize(bench *b, const lutmm_quant_params *p, const float *table, const float *w);
/* quant_params_check, quantize and pack all return `expected` for p. */
void expect_params_status(bench *b, lutmm_quant_params p, lutmm_status expected);

#endif
