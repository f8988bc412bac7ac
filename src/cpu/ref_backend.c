/* The reference backend: host memory, portable C and OpenMP, bit-exact. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "reference.h"
#include "tables.h"

int lutmm_ref_threads(int num_threads) { return num_threads > 0 ? num_threads : omp_get_max_threads(); }

static lutmm_status ref_probe(void) { return LUTMM_OK; }

lutmm_status lutmm_ref_table_build(lutmm_context *ctx, lutmm_table_kind kind, int bits, float *table) {
  (void)ctx;
  for (int i = 0; i < (1 << bits); i++) {
    switch (kind) {
      case LUTMM_TABLE_NF: table[i] = lutmm_nf_value(bits, i); break;
      case LUTMM_TABLE_INT: table[i] = lutmm_int_value(bits, i); break;
      case LUTMM_TABLE_FP: table[i] = lutmm_fp_value(bits, i); break;
    }
  }
  return LUTMM_OK;
}

static lutmm_status host_alloc(lutmm_context *ctx, size_t bytes, void **ptr) {
  (void)ctx;
  void *p = malloc(bytes == 0 ? 1 : bytes);
  if (p == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  *ptr = p;
  return LUTMM_OK;
}

static void host_free(lutmm_context *ctx, void *ptr) {
  (void)ctx;
  free(ptr);
}

static lutmm_status host_copy(lutmm_context *ctx, void *dst, const void *src, size_t bytes) {
  (void)ctx;
  if (dst != src) memcpy(dst, src, bytes);
  return LUTMM_OK;
}

static lutmm_status ref_weights_alloc(lutmm_context *ctx, lutmm_weights *w) {
  (void)ctx;
  w->planes = calloc(1, w->geom.packed_bytes);
  w->scales = calloc(1, w->geom.scale_bytes);
  return w->planes != NULL && w->scales != NULL ? LUTMM_OK : LUTMM_ERR_OUT_OF_MEMORY;
}

static void ref_weights_free(lutmm_weights *w) {
  free(w->planes);
  free(w->scales);
}

const lutmm_backend_ops lutmm_reference_backend = {
    .name = "reference",
    .kind = LUTMM_BACKEND_REFERENCE,
    .memory = LUTMM_MEMORY_HOST,
    .parent = NULL,
    .probe = ref_probe,
    .table_build = lutmm_ref_table_build,
    .mem_alloc = host_alloc,
    .mem_free = host_free,
    .copy_to_host = host_copy,
    .copy_from_host = host_copy,
    .quantize = lutmm_ref_quantize,
    .pack = lutmm_ref_pack,
    .unpack = lutmm_ref_unpack,
    .dequantize = lutmm_ref_dequantize,
    .gemm = lutmm_ref_gemm,
    .weights_alloc = ref_weights_alloc,
    .weights_free = ref_weights_free,
};
