/* Property: lutmm_weights_deserialize on hostile bytes returns a status and
 * never crashes, reads out of bounds or leaks; whenever it accepts a record,
 * the weights are whole: they query, unpack to in-range codes, finite scales
 * and a valid table, serialize back to the very same bytes, dequantize, and
 * multiply within the reference's bound (bit-exact on the reference itself),
 * or refuse float32 alike everywhere when their scales overflow it.
 *
 * Input: one flag byte, then the record. Flag bit 0 asks the target to
 * rewrite the trailing FNV-1a 64 checksum first, so the fuzzer can explore
 * header and payload fields instead of stopping at the checksum. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_float.h"
#include "fuzz_util.h"

static void fix_checksum(uint8_t *p, size_t size) {
  if (size < 8) return;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size - 8; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  for (int i = 0; i < 8; i++) p[size - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
}

static void check_contents(lutmm_context *ctx, const lutmm_weights *w, const lutmm_weights_info *info) {
  const int64_t k = info->params.k, n = info->params.n;
  const size_t count = (size_t)(k * n), scale_count = (size_t)(info->num_groups * n);
  const size_t scale_bytes = scale_count * fz_dtype_size(info->params.scale_dtype);
  const int size = 1 << info->params.bits;
  uint8_t *codes = fuzz_alloc(ctx, count), *host_codes = fuzz_xmalloc(count);
  void *scales = fuzz_alloc(ctx, scale_bytes), *host_scales = fuzz_xmalloc(scale_bytes);
  float *table = fuzz_alloc(ctx, sizeof(float) * (size_t)size), host_table[LUTMM_MAX_TABLE_SIZE];
  FUZZ_OK(lutmm_unpack(ctx, w, codes, scales, table));
  FUZZ_OK(lutmm_table_validate(ctx, info->params.bits, table));
  fuzz_download(ctx, host_codes, codes, count);
  fuzz_download(ctx, host_scales, scales, scale_bytes);
  fuzz_download(ctx, host_table, table, sizeof(float) * (size_t)size);
  for (size_t i = 0; i < count; i++) FUZZ_CHECK(host_codes[i] < size);
  for (size_t i = 0; i < scale_count; i++)
    FUZZ_CHECK(fz_is_finite(fz_load(host_scales, info->params.scale_dtype, (int64_t)i)));
  free(host_codes);
  free(host_scales);
  lutmm_free(ctx, codes);
  lutmm_free(ctx, scales);
  lutmm_free(ctx, table);
}

/* One row of ones through lutmm_gemm and the reference. */
static void check_multiply(lutmm_context *ctx, const lutmm_weights *w, const lutmm_weights_info *info) {
  const int64_t k = info->params.k, n = info->params.n;
  float *x = fuzz_xmalloc(sizeof(float) * (size_t)k), *y = fuzz_xmalloc(sizeof(float) * (size_t)n);
  float *y_ref = fuzz_xmalloc(sizeof(float) * (size_t)n), *bound = fuzz_xmalloc(sizeof(float) * (size_t)n);
  for (int64_t i = 0; i < k; i++) x[i] = 1.0f;
  void *what = fuzz_alloc(ctx, sizeof(float) * (size_t)(k * n));
  /* Scales from the record may make Ŵ overflow float32: then every call
   * must refuse alike. */
  const lutmm_status fits = lutmm_dequantize(ctx, w, LUTMM_DTYPE_F32, what);
  lutmm_free(ctx, what);
  FUZZ_CHECK(fits == LUTMM_OK || fits == LUTMM_ERR_SCALE_OVERFLOW);
  FUZZ_CHECK(lutmm_reference_gemm(ctx, w, 1, x, LUTMM_DTYPE_F32, y_ref, LUTMM_DTYPE_F32, bound) == fits);
  const lutmm_status st = lutmm_gemm(ctx, w, 1, x, LUTMM_DTYPE_F32, y, LUTMM_DTYPE_F32);
  FUZZ_CHECK(st == fits || st == LUTMM_ERR_UNSUPPORTED);
  lutmm_backend backend;
  FUZZ_OK(lutmm_context_backend(ctx, &backend));
  for (int64_t i = 0; st == LUTMM_OK && i < n; i++) {
    if (backend == LUTMM_BACKEND_REFERENCE) FUZZ_CHECK(memcmp(&y[i], &y_ref[i], sizeof(float)) == 0);
    else if (fz_is_finite(y_ref[i]) && fz_is_finite(bound[i]))
      FUZZ_CHECK(fz_is_finite(y[i]) && fabs((double)y[i] - y_ref[i]) <= bound[i]);
  }
  free(x);
  free(y);
  free(y_ref);
  free(bound);
}

static void check_round_trip(lutmm_context *ctx, const lutmm_weights *w, const uint8_t *record, size_t size) {
  size_t again = 0;
  FUZZ_OK(lutmm_weights_serialize(ctx, w, NULL, 0, &again));
  FUZZ_CHECK(again == size);
  uint8_t *bytes = fuzz_xmalloc(size);
  FUZZ_OK(lutmm_weights_serialize(ctx, w, bytes, size, &again));
  FUZZ_CHECK(memcmp(bytes, record, size) == 0);
  free(bytes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lutmm_context *ctx = fuzz_context(LUTMM_BACKEND_AUTO);
  FUZZ_CHECK(ctx != NULL);
  if (size == 0) return 0;
  const size_t record_size = size - 1;
  /* An exact-size copy, so ASan sees any read past the record. */
  uint8_t *record = fuzz_xmalloc(record_size);
  memcpy(record, data + 1, record_size);
  if (data[0] & 1) fix_checksum(record, record_size);
  lutmm_weights *w = NULL;
  const lutmm_status st = lutmm_weights_deserialize(ctx, record, record_size, &w);
  FUZZ_CHECK((st == LUTMM_OK) == (w != NULL));
  FUZZ_CHECK(st == LUTMM_OK || st == LUTMM_ERR_CORRUPT_DATA);
  if (st == LUTMM_OK) {
    lutmm_weights_info info;
    FUZZ_OK(lutmm_weights_query(w, &info));
    check_contents(ctx, w, &info);
    check_round_trip(ctx, w, record, record_size);
    check_multiply(ctx, w, &info);
    lutmm_weights_destroy(w);
  }
  free(record);
  return 0;
}
