/* Tables, quantize, pack, unpack, dequantize and serialization on a CUDA
 * context give the reference's bytes exactly, report the same errors, and
 * write nothing past their outputs. Exit 77 without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_harness.h"
#include "numeric.h"

#define GUARD 64

static int failures = 0, checks = 0;

static void expect(int ok, const char *what) {
  checks++;
  if (!ok) {
    printf("FAIL: %s\n", what);
    failures++;
  }
}

/* Device buffer of `bytes` plus guard, poisoned; copied back whole. */
static void *device_poisoned(harness *h, size_t bytes) {
  void *d = NULL;
  uint8_t *poison = malloc(bytes + GUARD);
  if (poison == NULL || lutmm_malloc(h->cuda, bytes + GUARD, &d) != LUTMM_OK) {
    free(poison);
    return NULL;
  }
  memset(poison, 0xA5, bytes + GUARD);
  lutmm_copy_to_context(h->cuda, d, poison, bytes + GUARD);
  free(poison);
  return d;
}

/* Copies `bytes` back and checks the guard after them is intact. */
static int fetch_guarded(harness *h, const void *d, void *host, size_t bytes) {
  uint8_t *all = malloc(bytes + GUARD);
  int ok = all != NULL && lutmm_copy_to_host(h->cuda, all, d, bytes + GUARD) == LUTMM_OK;
  for (size_t i = 0; ok && i < GUARD; i++) ok = all[bytes + i] == 0xA5;
  if (ok) memcpy(host, all, bytes);
  free(all);
  return ok;
}

static void tables(harness *h) {
  typedef lutmm_status (*builder)(lutmm_context *, int, float *);
  const builder builders[3] = {lutmm_table_nf, lutmm_table_int, lutmm_table_fp};
  for (int kind = 0; kind < 3; kind++)
    for (int bits = 1; bits <= 8; bits++) {
      float want[256], got[256];
      const size_t bytes = sizeof(float) << bits;
      void *d = device_poisoned(h, bytes);
      char what[64];
      snprintf(what, sizeof what, "table kind %d bits %d equals the reference", kind, bits);
      expect(d != NULL && builders[kind](h->ref, bits, want) == LUTMM_OK &&
                 builders[kind](h->cuda, bits, d) == LUTMM_OK && fetch_guarded(h, d, got, bytes) &&
                 memcmp(want, got, bytes) == 0,
             what);
      lutmm_free(h->cuda, d);
    }
}

typedef struct quant_io {
  lutmm_quant_params p;
  float table[256], *w;
  size_t count, scale_bytes;
} quant_io;

/* Quantizes on both backends; returns both statuses and compares outputs. */
static void quantize_case(harness *h, const quant_io *q, const char *label) {
  uint8_t *codes_ref = malloc(q->count), *codes_gpu = malloc(q->count);
  void *scales_ref = malloc(q->scale_bytes), *scales_gpu = malloc(q->scale_bytes);
  void *d_table = device_poisoned(h, sizeof(float) << q->p.bits), *d_w = device_poisoned(h, q->count * 4);
  void *d_codes = device_poisoned(h, q->count), *d_scales = device_poisoned(h, q->scale_bytes);
  lutmm_copy_to_context(h->cuda, d_table, q->table, sizeof(float) << q->p.bits);
  lutmm_copy_to_context(h->cuda, d_w, q->w, q->count * 4);
  const lutmm_status a = lutmm_quantize(h->ref, &q->p, q->table, q->w, codes_ref, scales_ref);
  const lutmm_status b = lutmm_quantize(h->cuda, &q->p, d_table, d_w, d_codes, d_scales);
  char what[160];
  snprintf(what, sizeof what, "%s: quantize status %s (reference %s)", label, lutmm_status_string(b),
           lutmm_status_string(a));
  expect(a == b, what);
  if (a == LUTMM_OK && b == LUTMM_OK) {
    snprintf(what, sizeof what, "%s: codes and scales equal the reference's", label);
    expect(fetch_guarded(h, d_codes, codes_gpu, q->count) && fetch_guarded(h, d_scales, scales_gpu, q->scale_bytes) &&
               memcmp(codes_ref, codes_gpu, q->count) == 0 && memcmp(scales_ref, scales_gpu, q->scale_bytes) == 0,
           what);
  }
  lutmm_free(h->cuda, d_table);
  lutmm_free(h->cuda, d_w);
  lutmm_free(h->cuda, d_codes);
  lutmm_free(h->cuda, d_scales);
  free(codes_ref);
  free(codes_gpu);
  free(scales_ref);
  free(scales_gpu);
}

static void quantize(harness *h) {
  uint64_t rng = 3;
  for (int bits = 1; bits <= 8; bits++)
    for (int sd = 0; sd < 3; sd++) {
      quant_io q;
      q.p = (lutmm_quant_params){bits, 192, 77, sd == 1 ? 0 : 64, (lutmm_dtype)sd};
      q.count = 192 * 77;
      q.scale_bytes = (size_t)(sd == 1 ? 1 : 3) * 77 * lutmm_dtype_size((lutmm_dtype)sd);
      q.w = malloc(q.count * 4);
      lutmm_table_nf(h->ref, bits, q.table);
      for (size_t i = 0; i < q.count; i++)
        q.w[i] = (float)((double)(harness_next(&rng) >> 11) * 0x1p-53 - 0.5) * (float)(1 + i % 5);
      char label[64];
      snprintf(label, sizeof label, "bits %d scale dtype %d", bits, sd);
      quantize_case(h, &q, label);
      if (bits == 4) {
        q.w[1000] = NAN;
        quantize_case(h, &q, "NaN weight");
        q.w[1000] = 1e30f;
        quantize_case(h, &q, "scale overflow");
      }
      free(q.w);
    }
}

/* Pack on both, then compare serialized bytes, unpack and dequantize. */
static void pack_case(harness *h, int bits, int64_t k, int64_t n, int64_t group, lutmm_dtype sd, uint64_t seed) {
  const lutmm_quant_params p = {bits, k, n, group, sd};
  const int64_t groups = group == 0 ? 1 : k / group;
  const size_t count = (size_t)(k * n), scale_bytes = (size_t)(groups * n) * lutmm_dtype_size(sd);
  float table[256];
  uint8_t *codes = malloc(count), *codes_back = malloc(count);
  void *scales = malloc(scale_bytes), *scales_back = malloc(scale_bytes);
  lutmm_table_nf(h->ref, bits, table);
  for (size_t i = 0; i < count; i++) codes[i] = (uint8_t)harness_pick(&seed, 1 << bits);
  for (int64_t i = 0; i < groups * n; i++)
    lutmm_store_from_f64(scales, sd, i, (double)lutmm_round_f64_to_dtype(0.01 + (double)(i % 97) / 50.0, sd));
  void *d_table = device_poisoned(h, sizeof(float) << bits), *d_codes = device_poisoned(h, count);
  void *d_scales = device_poisoned(h, scale_bytes);
  lutmm_copy_to_context(h->cuda, d_table, table, sizeof(float) << bits);
  lutmm_copy_to_context(h->cuda, d_codes, codes, count);
  lutmm_copy_to_context(h->cuda, d_scales, scales, scale_bytes);
  lutmm_weights *wr = NULL, *wc = NULL;
  char what[128];
  snprintf(what, sizeof what, "pack b=%d k=%lld n=%lld g=%lld: both succeed", bits, (long long)k, (long long)n,
           (long long)group);
  expect(lutmm_pack(h->ref, &p, table, codes, scales, &wr) == LUTMM_OK &&
             lutmm_pack(h->cuda, &p, d_table, d_codes, d_scales, &wc) == LUTMM_OK,
         what);
  if (wr != NULL && wc != NULL) {
    size_t sa = 0, sb = 0;
    lutmm_weights_serialize(h->ref, wr, NULL, 0, &sa);
    lutmm_weights_serialize(h->cuda, wc, NULL, 0, &sb);
    uint8_t *ba = malloc(sa), *bb = malloc(sb);
    snprintf(what, sizeof what, "pack b=%d: serialized bytes equal", bits);
    expect(sa == sb && lutmm_weights_serialize(h->ref, wr, ba, sa, &sa) == LUTMM_OK &&
               lutmm_weights_serialize(h->cuda, wc, bb, sb, &sb) == LUTMM_OK && memcmp(ba, bb, sa) == 0,
           what);
    free(ba);
    free(bb);
    void *d_codes_back = device_poisoned(h, count), *d_scales_back = device_poisoned(h, scale_bytes);
    snprintf(what, sizeof what, "unpack b=%d: codes and scales round trip", bits);
    expect(lutmm_unpack(h->cuda, wc, d_codes_back, d_scales_back, NULL) == LUTMM_OK &&
               fetch_guarded(h, d_codes_back, codes_back, count) &&
               fetch_guarded(h, d_scales_back, scales_back, scale_bytes) && memcmp(codes, codes_back, count) == 0 &&
               memcmp(scales, scales_back, scale_bytes) == 0,
           what);
    lutmm_free(h->cuda, d_codes_back);
    lutmm_free(h->cuda, d_scales_back);
    for (int dt = 0; dt < 3; dt++) {
      const size_t wb = count * lutmm_dtype_size((lutmm_dtype)dt);
      void *want = malloc(wb), *got = malloc(wb), *d = device_poisoned(h, wb);
      snprintf(what, sizeof what, "dequantize b=%d dtype %d equals the reference", bits, dt);
      expect(lutmm_dequantize(h->ref, wr, (lutmm_dtype)dt, want) == LUTMM_OK &&
                 lutmm_dequantize(h->cuda, wc, (lutmm_dtype)dt, d) == LUTMM_OK && fetch_guarded(h, d, got, wb) &&
                 memcmp(want, got, wb) == 0,
             what);
      lutmm_free(h->cuda, d);
      free(want);
      free(got);
    }
  }
  /* Bad inputs: a code out of range, a non-finite scale. */
  if (bits < 8) {
    codes[count / 2] = (uint8_t)(1 << bits);
    lutmm_copy_to_context(h->cuda, d_codes, codes, count);
    lutmm_weights *bad = NULL;
    expect(lutmm_pack(h->cuda, &p, d_table, d_codes, d_scales, &bad) == LUTMM_ERR_INVALID_ARGUMENT && bad == NULL,
           "pack rejects a code >= 2^bits");
    codes[count / 2] = 0;
    lutmm_copy_to_context(h->cuda, d_codes, codes, count);
  }
  lutmm_store_from_f64(scales, sd, 0, INFINITY);
  lutmm_copy_to_context(h->cuda, d_scales, scales, scale_bytes);
  lutmm_weights *bad = NULL;
  expect(lutmm_pack(h->cuda, &p, d_table, d_codes, d_scales, &bad) == LUTMM_ERR_NON_FINITE && bad == NULL,
         "pack rejects a non-finite scale");
  lutmm_weights_destroy(wr);
  lutmm_weights_destroy(wc);
  lutmm_free(h->cuda, d_table);
  lutmm_free(h->cuda, d_codes);
  lutmm_free(h->cuda, d_scales);
  free(codes);
  free(codes_back);
  free(scales);
  free(scales_back);
}

static void unsupported_gemm(harness *h) {
  const lutmm_quant_params p = {4, 64, 64, 0, LUTMM_DTYPE_F16};
  float table[16];
  lutmm_table_nf(h->ref, 4, table);
  uint8_t codes[64 * 64] = {0};
  uint16_t scales[64];
  for (int i = 0; i < 64; i++) scales[i] = lutmm_f16_from_f64(1.0);
  lutmm_weights *wr = NULL;
  void *d_x = NULL, *d_y = NULL;
  expect(lutmm_pack(h->ref, &p, table, codes, scales, &wr) == LUTMM_OK, "host pack for the mismatch test");
  lutmm_malloc(h->cuda, 64 * 4, &d_x);
  lutmm_malloc(h->cuda, 64 * 4, &d_y);
  expect(lutmm_gemm(h->cuda, wr, 1, d_x, LUTMM_DTYPE_F16, d_y, LUTMM_DTYPE_F32) == LUTMM_ERR_BACKEND_MISMATCH,
         "host weights on a CUDA context: backend mismatch");
  /* F32 activations are not run by the CUDA kernels. */
  void *d_codes = NULL, *d_scales = NULL, *d_table = NULL;
  lutmm_weights *wc = NULL;
  lutmm_malloc(h->cuda, sizeof codes, &d_codes);
  lutmm_malloc(h->cuda, sizeof scales, &d_scales);
  lutmm_malloc(h->cuda, sizeof table, &d_table);
  lutmm_copy_to_context(h->cuda, d_codes, codes, sizeof codes);
  lutmm_copy_to_context(h->cuda, d_scales, scales, sizeof scales);
  lutmm_copy_to_context(h->cuda, d_table, table, sizeof table);
  expect(lutmm_pack(h->cuda, &p, d_table, d_codes, d_scales, &wc) == LUTMM_OK &&
             lutmm_gemm(h->cuda, wc, 1, d_x, LUTMM_DTYPE_F32, d_y, LUTMM_DTYPE_F32) == LUTMM_ERR_UNSUPPORTED,
         "F32 activations on a CUDA context: unsupported");
  lutmm_weights_destroy(wc);
  lutmm_free(h->cuda, d_codes);
  lutmm_free(h->cuda, d_scales);
  lutmm_free(h->cuda, d_table);
  lutmm_weights_destroy(wr);
  lutmm_free(h->cuda, d_x);
  lutmm_free(h->cuda, d_y);
}

int main(void) {
  harness h;
  const int open = harness_open(&h);
  if (open != 0) return open;
  tables(&h);
  quantize(&h);
  uint64_t seed = 11;
  for (int bits = 1; bits <= 8; bits++) {
    pack_case(&h, bits, 128, 100, 32, LUTMM_DTYPE_F16, harness_next(&seed));
    pack_case(&h, bits, 80, 64, 0, (lutmm_dtype)(bits % 3), harness_next(&seed));
    pack_case(&h, bits, 16, 1, 16, LUTMM_DTYPE_F32, harness_next(&seed));
  }
  unsupported_gemm(&h);
  harness_close(&h);
  printf("%d checks, %d failures\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
