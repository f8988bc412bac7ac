/* Property: pack then unpack returns the codes, scales and table exactly,
 * for any width, shape, group size and scale dtype; serializing and
 * deserializing the weights changes nothing; dequantize gives
 * round_c(T_c × s_c) for every element and compute dtype, and refuses a
 * dtype (LUTMM_ERR_SCALE_OVERFLOW) exactly when max|T|·max|s| overflows it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_float.h"
#include "fuzz_params.h"
#include "fuzz_util.h"

#define MAX_DIM 200

typedef struct host_weights {
  lutmm_quant_params p;
  int64_t groups;
  float table[LUTMM_MAX_TABLE_SIZE];
  uint8_t *codes;
  uint8_t *scales;
  size_t code_bytes, scale_bytes, table_bytes;
} host_weights;

static void draw_weights(fz_source *s, lutmm_context *ctx, host_weights *h) {
  h->p = fz_draw_quant_params(s, MAX_DIM);
  FUZZ_OK(lutmm_quant_params_check(&h->p, &h->groups));
  FUZZ_CHECK(h->groups == (h->p.group_size == 0 ? 1 : h->p.k / h->p.group_size));
  fuzz_draw_table(s, ctx, h->p.bits, h->table);
  h->code_bytes = (size_t)(h->p.k * h->p.n);
  h->scale_bytes = (size_t)(h->groups * h->p.n) * fz_dtype_size(h->p.scale_dtype);
  h->table_bytes = sizeof(float) * ((size_t)1 << h->p.bits);
  h->codes = fuzz_xmalloc(h->code_bytes);
  h->scales = fuzz_xmalloc(h->scale_bytes);
  for (size_t i = 0; i < h->code_bytes; i++) h->codes[i] = (uint8_t)(fz_bulk(s) & ((1u << h->p.bits) - 1u));
  for (int64_t i = 0; i < h->groups * h->p.n; i++)
    fz_store(h->scales, h->p.scale_dtype, i, fuzz_random_finite(s, h->p.scale_dtype));
}

/* Unpacks `w` on ctx and compares with the host originals. */
static void check_unpack(lutmm_context *ctx, const lutmm_weights *w, const host_weights *h) {
  uint8_t *codes = fuzz_alloc(ctx, h->code_bytes), *scales = fuzz_alloc(ctx, h->scale_bytes);
  float *table = fuzz_alloc(ctx, h->table_bytes);
  FUZZ_OK(lutmm_unpack(ctx, w, codes, scales, table));
  uint8_t *back = fuzz_xmalloc(h->code_bytes + h->scale_bytes + h->table_bytes);
  fuzz_download(ctx, back, codes, h->code_bytes);
  fuzz_download(ctx, back + h->code_bytes, scales, h->scale_bytes);
  fuzz_download(ctx, back + h->code_bytes + h->scale_bytes, table, h->table_bytes);
  FUZZ_CHECK(memcmp(back, h->codes, h->code_bytes) == 0);
  FUZZ_CHECK(memcmp(back + h->code_bytes, h->scales, h->scale_bytes) == 0);
  FUZZ_CHECK(memcmp(back + h->code_bytes + h->scale_bytes, h->table, h->table_bytes) == 0);
  free(back);
  lutmm_free(ctx, codes);
  lutmm_free(ctx, scales);
  lutmm_free(ctx, table);
}

static void check_info(const lutmm_weights *w, const host_weights *h) {
  lutmm_weights_info info;
  FUZZ_OK(lutmm_weights_query(w, &info));
  FUZZ_CHECK(memcmp(&info.params, &h->p, sizeof h->p) == 0);
  FUZZ_CHECK(info.num_groups == h->groups);
  FUZZ_CHECK(info.packed_bytes * 8 >= h->code_bytes * (size_t)h->p.bits);
}

/* Whether the largest |T| times the largest |scale| overflows dtype c, in
 * which case dequantize must refuse c with LUTMM_ERR_SCALE_OVERFLOW. */
static int weights_overflow(const host_weights *h, lutmm_dtype c) {
  const int size = 1 << h->p.bits;
  const double table_max = fmax(-(double)h->table[0], (double)h->table[size - 1]);
  double scale_max = 0.0;
  for (int64_t i = 0; i < h->groups * h->p.n; i++) scale_max = fmax(scale_max, fabs(fz_load(h->scales, h->p.scale_dtype, i)));
  return !fz_is_finite(fz_round(fz_round(table_max, c) * fz_round(scale_max, c), c));
}

/* Ŵ in every compute dtype equals the independently rounded product, or
 * the dtype is refused exactly when some Ŵ would overflow it. */
static void check_dequantize(lutmm_context *ctx, const lutmm_weights *w, const host_weights *h) {
  const int64_t k = h->p.k, n = h->p.n, g = h->p.group_size == 0 ? k : h->p.group_size;
  for (int d = 0; d < 3; d++) {
    const lutmm_dtype c = (lutmm_dtype)d;
    const size_t bytes = h->code_bytes * fz_dtype_size(c);
    void *dev = fuzz_alloc(ctx, bytes), *out = fuzz_xmalloc(bytes);
    const lutmm_status st = lutmm_dequantize(ctx, w, c, dev);
    FUZZ_CHECK(st == (weights_overflow(h, c) ? LUTMM_ERR_SCALE_OVERFLOW : LUTMM_OK));
    if (st == LUTMM_OK) fuzz_download(ctx, out, dev, bytes);
    for (int64_t kk = 0; st == LUTMM_OK && kk < k; kk++) {
      for (int64_t nn = 0; nn < n; nn++) {
        const double t = fz_round(h->table[h->codes[kk * n + nn]], c);
        const double sc = fz_round(fz_load(h->scales, h->p.scale_dtype, (kk / g) * n + nn), c);
        const uint32_t want = fz_round_bits(t * sc, c), got = fz_load_bits(out, c, kk * n + nn);
        FUZZ_CHECK(got == want);
      }
    }
    free(out);
    lutmm_free(ctx, dev);
  }
}

/* Serialize, deserialize, unpack again; serializing the copy gives the same bytes. */
static void check_serialized(lutmm_context *ctx, const lutmm_weights *w, const host_weights *h) {
  size_t size = 0, size2 = 0;
  FUZZ_OK(lutmm_weights_serialize(ctx, w, NULL, 0, &size));
  uint8_t *bytes = fuzz_xmalloc(size), *bytes2 = fuzz_xmalloc(size);
  FUZZ_CHECK(lutmm_weights_serialize(ctx, w, bytes, size - 1, &size2) == LUTMM_ERR_BUFFER_TOO_SMALL);
  FUZZ_OK(lutmm_weights_serialize(ctx, w, bytes, size, &size2));
  FUZZ_CHECK(size2 == size);
  lutmm_weights *copy = NULL;
  FUZZ_OK(lutmm_weights_deserialize(ctx, bytes, size, &copy));
  check_unpack(ctx, copy, h);
  FUZZ_OK(lutmm_weights_serialize(ctx, copy, bytes2, size, &size2));
  FUZZ_CHECK(size2 == size && memcmp(bytes, bytes2, size) == 0);
  lutmm_weights_destroy(copy);
  free(bytes);
  free(bytes2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lutmm_context *ctx = fuzz_context(LUTMM_BACKEND_AUTO);
  FUZZ_CHECK(ctx != NULL);
  fz_source s = fz_source_from_bytes(data, size);
  host_weights h;
  draw_weights(&s, ctx, &h);
  void *table = fuzz_upload(ctx, h.table, h.table_bytes);
  void *codes = fuzz_upload(ctx, h.codes, h.code_bytes), *scales = fuzz_upload(ctx, h.scales, h.scale_bytes);
  lutmm_weights *w = NULL;
  FUZZ_OK(lutmm_pack(ctx, &h.p, table, codes, scales, &w));
  check_info(w, &h);
  check_unpack(ctx, w, &h);
  check_dequantize(ctx, w, &h);
  check_serialized(ctx, w, &h);
  lutmm_weights_destroy(w);
  lutmm_free(ctx, table);
  lutmm_free(ctx, codes);
  lutmm_free(ctx, scales);
  free(h.codes);
  free(h.scales);
  return 0;
}
