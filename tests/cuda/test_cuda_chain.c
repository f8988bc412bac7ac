/* Calls queued back to back with their data flowing on the device, as a
 * model's layers run: each call's X is the previous call's Y, and its Y
 * the buffer the previous call read, with no host synchronization in
 * between. A kernel that touched X or Y before the previous one ended, or
 * a launch that found the tickets, tags or workspace of the one before it
 * not yet settled, could read the previous call's X, the poison first put
 * in a buffer or a stale partial. The chain's last Y must equal, bit for
 * bit, the same calls run one at a time with a synchronization after each
 * (the kernels are deterministic), and be finite. The weights are packed on the
 * device right before the queued chain (their sources freed only after
 * it), so its first call follows the pack's kernels too. M = 1, 2, 4, 8
 * and 16 cover the column-stream kernel (M <= 4) and the skinny kernel
 * with its cluster launches; M = 128 and 256 the wide kernel on Hopper
 * (the tiled kernel elsewhere), whose cut tiles' fixup follows it,
 * overlapping its end where a tile has at most 8 parts (K = 4096, and
 * K = 2048 at M = 256) and after it where it has 16 (K = 2048, M = 128);
 * fp16 and bf16. Exit 77 without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_harness.h"
#include "lutmm_cuda.h"
#include "numeric.h"

#define CALLS 8

static int failures = 0, chains = 0;

typedef struct chain {
  int64_t m, k; /* square weights: K = N, so Y can be the next X */
  lutmm_dtype dtype;
  lutmm_weights *w;
  void *buf[2]; /* device, M × K each: X of even calls, X of odd calls */
  size_t bytes;
  void *x0;     /* host: the first X */
  void *sources[3]; /* device: the table, codes and scales the weights were packed from */
} chain;

static void fail(const chain *c, const char *what) {
  printf("FAIL chain m=%lld k=%lld %s: %s\n", (long long)c->m, (long long)c->k,
         c->dtype == LUTMM_DTYPE_F16 ? "fp16" : "bf16", what);
  failures++;
}

/* NF4 weights with codes drawn from `rng` and every scale 2^-5, packed on
 * the device from device copies of table, codes and scales (kept in
 * c->sources: freeing them would wait for the device). After eight calls
 * the values stay within a few units at K = 2048 and a few hundred at K =
 * 4096 (NF4's mean is not 0), far inside fp16's range. */
static lutmm_status make_weights(harness *h, chain *c, uint64_t *rng) {
  const lutmm_quant_params q = {4, c->k, c->k, 128, LUTMM_DTYPE_F16};
  const size_t codes = (size_t)(c->k * c->k), scales = (size_t)(c->k / 128 * c->k);
  float table[16];
  uint8_t *hc = malloc(codes);
  uint16_t *hs = malloc(scales * sizeof(uint16_t));
  void **d_table = &c->sources[0], **d_codes = &c->sources[1], **d_scales = &c->sources[2];
  lutmm_status st = hc == NULL || hs == NULL ? LUTMM_ERR_OUT_OF_MEMORY : lutmm_table_nf(h->ref, 4, table);
  if (st == LUTMM_OK) {
    for (size_t i = 0; i < codes; i++) hc[i] = (uint8_t)harness_pick(rng, 16);
    for (size_t i = 0; i < scales; i++) hs[i] = 0x2800; /* 2^-5 in fp16 */
    st = lutmm_malloc(h->cuda, sizeof table, d_table);
  }
  if (st == LUTMM_OK) st = lutmm_malloc(h->cuda, codes, d_codes);
  if (st == LUTMM_OK) st = lutmm_malloc(h->cuda, scales * sizeof(uint16_t), d_scales);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, *d_table, table, sizeof table);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, *d_codes, hc, codes);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, *d_scales, hs, scales * sizeof(uint16_t));
  if (st == LUTMM_OK) st = lutmm_pack(h->cuda, &q, *d_table, *d_codes, *d_scales, &c->w);
  free(hc);
  free(hs);
  return st;
}

/* buf[0] = the first X, buf[1] = NaN bytes. */
static lutmm_status reset(harness *h, chain *c, void *poison) {
  lutmm_status st = lutmm_copy_to_context(h->cuda, c->buf[0], c->x0, c->bytes);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, c->buf[1], poison, c->bytes);
  return st;
}

/* The CALLS calls, call i reading buf[i % 2] and writing buf[(i + 1) % 2];
 * `sync`: a device synchronization after each. Their last Y into `out`. */
static lutmm_status run_chain(harness *h, chain *c, int sync, void *out) {
  lutmm_status st = LUTMM_OK;
  for (int i = 0; i < CALLS && st == LUTMM_OK; i++) {
    st = lutmm_gemm(h->cuda, c->w, c->m, c->buf[i % 2], c->dtype, c->buf[(i + 1) % 2], c->dtype);
    if (st == LUTMM_OK && sync && cudaDeviceSynchronize() != cudaSuccess) st = LUTMM_ERR_DEVICE;
  }
  if (st == LUTMM_OK) st = lutmm_copy_to_host(h->cuda, out, c->buf[CALLS % 2], c->bytes);
  return st;
}

/* Whether every element of the last Y is finite (no poison came through). */
static int all_finite(const chain *c, const void *y) {
  for (int64_t i = 0; i < c->m * c->k; i++)
    if (!isfinite(lutmm_load_as_f32(y, c->dtype, i))) return 0;
  return 1;
}

static void run_case(harness *h, int64_t m, int64_t k, lutmm_dtype dtype, uint64_t seed) {
  chain c = {m, k, dtype, NULL, {NULL, NULL}, (size_t)(m * k) * 2u, NULL, {NULL, NULL, NULL}};
  uint64_t rng = seed;
  void *poison = malloc(c.bytes), *chained = malloc(c.bytes), *synced = malloc(c.bytes);
  c.x0 = malloc(c.bytes);
  lutmm_status st = poison && chained && synced && c.x0 ? LUTMM_OK : LUTMM_ERR_OUT_OF_MEMORY;
  if (st == LUTMM_OK) {
    memset(poison, 0xFF, c.bytes); /* NaN in fp16 and bf16 */
    for (int64_t i = 0; i < m * k; i++) lutmm_store_from_f64(c.x0, dtype, i, (double)(harness_pick(&rng, 9) - 4) * 0.25);
    st = lutmm_malloc(h->cuda, c.bytes, &c.buf[0]);
  }
  if (st == LUTMM_OK) st = lutmm_malloc(h->cuda, c.bytes, &c.buf[1]);
  if (st == LUTMM_OK) st = reset(h, &c, poison);
  if (st == LUTMM_OK) st = make_weights(h, &c, &rng); /* the pack's kernels, then the first call at once */
  if (st == LUTMM_OK) st = run_chain(h, &c, 0, chained);
  if (st == LUTMM_OK && cudaDeviceSynchronize() != cudaSuccess) st = LUTMM_ERR_DEVICE;
  if (st == LUTMM_OK) st = reset(h, &c, poison);
  if (st == LUTMM_OK) st = run_chain(h, &c, 1, synced);
  chains++;
  if (st != LUTMM_OK) fail(&c, lutmm_status_string(st));
  else if (!all_finite(&c, synced)) fail(&c, "the synchronized chain's last Y is not finite");
  else if (memcmp(chained, synced, c.bytes) != 0) fail(&c, "the queued chain's last Y differs from the synchronized one");
  lutmm_weights_destroy(c.w);
  for (int i = 0; i < 3; i++) lutmm_free(h->cuda, c.sources[i]);
  lutmm_free(h->cuda, c.buf[0]);
  lutmm_free(h->cuda, c.buf[1]);
  free(poison);
  free(chained);
  free(synced);
  free(c.x0);
}

int main(void) {
  harness h;
  const int open = harness_open(&h);
  if (open != 0) return open;
  static const int64_t ms[] = {1, 2, 4, 8, 16, 128, 256};
  uint64_t seed = 2026;
  for (int d = 0; d < 2; d++)
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
      for (int64_t k = 2048; k <= 4096; k *= 2)
        run_case(&h, ms[i], k, d == 0 ? LUTMM_DTYPE_F16 : LUTMM_DTYPE_BF16, harness_next(&seed));
  harness_close(&h);
  printf("%d chains of %d calls, %d failures\n", chains, CALLS, failures);
  return failures == 0 ? 0 : 1;
}
