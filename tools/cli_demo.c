/* lutmm demo: the whole pipeline on a 4096×4096 NF4 matrix, group 128.
 * Weights are quantized and packed on the reference, serialized, and loaded
 * into the best available backend; both multiply the same activations and
 * the demo prints the largest difference and the time of each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

#define DEMO_K 4096
#define DEMO_N 4096
#define DEMO_GROUP 128

typedef struct demo_state {
  lutmm_context *ref, *best;
  lutmm_weights *ref_w, *best_w;
  float *w;
  uint8_t *codes;
  uint16_t *scales;
  void *bytes;
} demo_state;

static const char *backend_name(lutmm_context *ctx) {
  lutmm_backend b = LUTMM_BACKEND_AUTO;
  lutmm_context_backend(ctx, &b);
  return b == LUTMM_BACKEND_CUDA ? "cuda" : b == LUTMM_BACKEND_CPU ? "cpu" : "reference";
}

static lutmm_status prepare(demo_state *s, cli_rng *rng) {
  const lutmm_quant_params p = {4, DEMO_K, DEMO_N, DEMO_GROUP, LUTMM_DTYPE_F16};
  float table[16];
  size_t size;
  lutmm_status st;
  s->w = malloc(sizeof(float) * DEMO_K * DEMO_N);
  s->codes = malloc((size_t)DEMO_K * DEMO_N);
  s->scales = malloc(sizeof(uint16_t) * (DEMO_K / DEMO_GROUP) * DEMO_N);
  if (s->w == NULL || s->codes == NULL || s->scales == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; i < (size_t)DEMO_K * DEMO_N; i++) s->w[i] = 0.02f * cli_rng_normal(rng);
  if ((st = lutmm_table_nf(s->ref, 4, table)) != LUTMM_OK) return st;
  if ((st = lutmm_quantize(s->ref, &p, table, s->w, s->codes, s->scales)) != LUTMM_OK) return st;
  if ((st = lutmm_pack(s->ref, &p, table, s->codes, s->scales, &s->ref_w)) != LUTMM_OK) return st;
  if ((st = lutmm_weights_serialize(s->ref, s->ref_w, NULL, 0, &size)) != LUTMM_OK) return st;
  if ((s->bytes = malloc(size)) == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  if ((st = lutmm_weights_serialize(s->ref, s->ref_w, s->bytes, size, &size)) != LUTMM_OK) return st;
  return lutmm_weights_deserialize(s->best, s->bytes, size, &s->best_w);
}

/* Runs Y = X·Ŵ on `ctx` (copying X in and Y out of context memory) and
 * returns the seconds the GEMM itself took (median of `reps`). */
static lutmm_status timed_gemm(lutmm_context *ctx, lutmm_weights *w, int m, const uint16_t *x, float *y, int reps,
                               double *seconds) {
  void *dx = NULL, *dy = NULL;
  const size_t xb = sizeof(uint16_t) * (size_t)m * DEMO_K, yb = sizeof(float) * (size_t)m * DEMO_N;
  lutmm_status st = lutmm_malloc(ctx, xb, &dx);
  if (st == LUTMM_OK) st = lutmm_malloc(ctx, yb, &dy);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(ctx, dx, x, xb);
  double best = INFINITY;
  for (int r = 0; r < reps && st == LUTMM_OK; r++) {
    const double t0 = cli_seconds();
    st = lutmm_gemm(ctx, w, m, dx, LUTMM_DTYPE_F16, dy, LUTMM_DTYPE_F32);
    if (st == LUTMM_OK) st = lutmm_copy_to_host(ctx, y, dy, yb); /* also waits for the device */
    const double t = cli_seconds() - t0;
    if (t < best) best = t;
  }
  lutmm_free(ctx, dx);
  lutmm_free(ctx, dy);
  *seconds = best;
  return st;
}

/* A random fp16 activation: random sign, magnitude in [1/8, 2). */
static uint16_t random_f16(cli_rng *rng) {
  const uint64_t r = cli_rng_next(rng);
  const uint16_t sign = (uint16_t)((r & 1u) << 15);
  const uint16_t exponent = (uint16_t)(12 + (r >> 1) % 4); /* biased: 2^-3 .. 2^0 */
  const uint16_t mantissa = (uint16_t)((r >> 8) & 0x3FFu);
  return (uint16_t)(sign | (exponent << 10) | mantissa);
}

static lutmm_status run_batch(demo_state *s, cli_rng *rng, int m) {
  uint16_t *x = malloc(sizeof(uint16_t) * (size_t)m * DEMO_K);
  float *y_ref = malloc(sizeof(float) * (size_t)m * DEMO_N), *y = malloc(sizeof(float) * (size_t)m * DEMO_N);
  lutmm_status st = x && y_ref && y ? LUTMM_OK : LUTMM_ERR_OUT_OF_MEMORY;
  for (size_t i = 0; st == LUTMM_OK && i < (size_t)m * DEMO_K; i++) x[i] = random_f16(rng);
  double t_ref = 0, t_best = 0;
  if (st == LUTMM_OK) st = timed_gemm(s->ref, s->ref_w, m, x, y_ref, 1, &t_ref);
  if (st == LUTMM_OK) st = timed_gemm(s->best, s->best_w, m, x, y, 5, &t_best);
  if (st == LUTMM_OK) {
    double max_err = 0, max_ref = 0;
    for (size_t i = 0; i < (size_t)m * DEMO_N; i++) {
      max_err = fmax(max_err, fabs((double)y[i] - (double)y_ref[i]));
      max_ref = fmax(max_ref, fabs((double)y_ref[i]));
    }
    printf("M=%-3d reference %9.3f ms   %-9s %9.3f ms   max |y - y_ref| = %.3g (max |y_ref| = %.3g)\n", m,
           1e3 * t_ref, backend_name(s->best), 1e3 * t_best, max_err, max_ref);
  }
  free(x);
  free(y_ref);
  free(y);
  return st;
}

int lutmm_cli_demo(int argc, char **argv) {
  (void)argc;
  (void)argv;
  demo_state s = {0};
  cli_rng rng = {20261121};
  lutmm_status st = lutmm_context_create(LUTMM_BACKEND_REFERENCE, &s.ref);
  if (st == LUTMM_OK) st = lutmm_context_create(LUTMM_BACKEND_AUTO, &s.best);
  if (st == LUTMM_OK) {
    printf("lutmm %d.%d.%d demo: NF4, K=%d N=%d, group %d, fp16 scales and activations, fp32 output\n",
           LUTMM_VERSION_MAJOR, LUTMM_VERSION_MINOR, LUTMM_VERSION_PATCH, DEMO_K, DEMO_N, DEMO_GROUP);
    printf("best available backend: %s\n", backend_name(s.best));
    st = prepare(&s, &rng);
  }
  if (st == LUTMM_OK) st = run_batch(&s, &rng, 1);
  if (st == LUTMM_OK) st = run_batch(&s, &rng, 16);
  lutmm_weights_destroy(s.ref_w);
  lutmm_weights_destroy(s.best_w);
  lutmm_context_destroy(s.ref);
  lutmm_context_destroy(s.best);
  free(s.w);
  free(s.codes);
  free(s.scales);
  free(s.bytes);
  if (st != LUTMM_OK) {
    fprintf(stderr, "lutmm demo: %s\n", lutmm_status_string(st));
    return 1;
  }
  return 0;
}
