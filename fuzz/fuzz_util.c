#include "fuzz_util.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz_case.h"
#include "fuzz_check.h"
#include "fuzz_float.h"

lutmm_context *fuzz_context(lutmm_backend backend) {
  static lutmm_context *contexts[4];
  static int tried[4];
  const int i = (int)backend;
  if (!tried[i]) {
    tried[i] = 1;
    if (lutmm_context_create(backend, &contexts[i]) != LUTMM_OK) contexts[i] = NULL;
    /* One thread: libFuzzer runs inputs back to back, threads only add noise. */
    if (contexts[i] != NULL) FUZZ_OK(lutmm_context_set_num_threads(contexts[i], 1));
  }
  return contexts[i];
}

lutmm_backend fuzz_backend_under_test(void) {
  const char *name = getenv("LUTMM_BACKEND");
  if (name != NULL && (strcmp(name, "ref") == 0 || strcmp(name, "reference") == 0)) return LUTMM_BACKEND_REFERENCE;
  if (name != NULL && strcmp(name, "cuda") == 0) return LUTMM_BACKEND_CUDA;
  return LUTMM_BACKEND_CPU;
}

void *fuzz_xmalloc(size_t bytes) {
  void *p = malloc(bytes == 0 ? 1 : bytes);
  FUZZ_CHECK(p != NULL);
  return p;
}

void *fuzz_alloc(lutmm_context *ctx, size_t bytes) {
  void *p = NULL;
  FUZZ_OK(lutmm_malloc(ctx, bytes, &p));
  return p;
}

void *fuzz_upload(lutmm_context *ctx, const void *host, size_t bytes) {
  void *p = fuzz_alloc(ctx, bytes);
  FUZZ_OK(lutmm_copy_to_context(ctx, p, host, bytes));
  return p;
}

void fuzz_download(lutmm_context *ctx, void *host, const void *src, size_t bytes) {
  FUZZ_OK(lutmm_copy_to_host(ctx, host, src, bytes));
}

int fuzz_draw_table(fz_source *s, lutmm_context *ctx, int bits, float *table) {
  const fz_table_kind kind = (fz_table_kind)fz_below(s, 4);
  FUZZ_OK(fz_draw_table(s, ctx, kind, bits, table));
  return (int)kind;
}

double fuzz_random_finite(fz_source *s, lutmm_dtype dtype) {
  for (;;) {
    const uint32_t r = (uint32_t)fz_bulk(s);
    const uint32_t bits = dtype == LUTMM_DTYPE_F32 ? r : (r & 0xFFFFu);
    const double v = fz_widen_bits(bits, dtype);
    if (fz_is_finite(v)) return v;
  }
}
