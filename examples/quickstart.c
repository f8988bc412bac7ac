/* The README example: quantize a small weight matrix to NF4, pack it and
 * multiply, on whatever backend the machine has. Exits non-zero on any error
 * or if the result is far from the unquantized product. */
#include <lutmm.h>
#include <math.h>
#include <stdio.h>

#define K 256
#define N 64
#define M 2

int main(void) {
  lutmm_context *ctx;
  lutmm_status st = lutmm_context_create(LUTMM_BACKEND_REFERENCE, &ctx);
  if (st != LUTMM_OK) return fprintf(stderr, "%s\n", lutmm_status_string(st)), 1;

  static float w[K * N], x[M * K], y[M * N];
  static uint8_t codes[K * N];
  static uint16_t scales[(K / 64) * N]; /* fp16 group scales */
  unsigned r = 1; /* a small LCG: uniform values in [-1, 1) */
  for (int i = 0; i < K * N; i++) w[i] = (float)((r = r * 1103515245u + 12345u) >> 16 & 0x7FFF) / 16384.0f - 1.0f;
  for (int i = 0; i < M * K; i++) x[i] = (float)((r = r * 1103515245u + 12345u) >> 16 & 0x7FFF) / 16384.0f - 1.0f;

  float table[16];
  const lutmm_quant_params p = {.bits = 4, .k = K, .n = N, .group_size = 64, .scale_dtype = LUTMM_DTYPE_F16};
  lutmm_weights *weights = NULL;
  if ((st = lutmm_table_nf(ctx, 4, table)) == LUTMM_OK &&
      (st = lutmm_quantize(ctx, &p, table, w, codes, scales)) == LUTMM_OK &&
      (st = lutmm_pack(ctx, &p, table, codes, scales, &weights)) == LUTMM_OK)
    st = lutmm_gemm(ctx, weights, M, x, LUTMM_DTYPE_F32, y, LUTMM_DTYPE_F32);
  lutmm_weights_destroy(weights);
  lutmm_context_destroy(ctx);
  if (st != LUTMM_OK) return fprintf(stderr, "%s\n", lutmm_status_string(st)), 1;

  double err = 0, norm = 0; /* relative error against the fp32 weights */
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double exact = 0;
      for (int k = 0; k < K; k++) exact += (double)x[m * K + k] * w[k * N + n];
      err += (y[m * N + n] - exact) * (y[m * N + n] - exact);
      norm += exact * exact;
    }
  printf("relative error of NF4 vs fp32 weights: %.4f\n", sqrt(err / norm));
  return sqrt(err / norm) < 0.2 ? 0 : 1;
}
