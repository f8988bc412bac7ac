/* Packed planes → per-column code streams (see cpu_codes.h). */
#include "cpu_codes.h"

#include <stdlib.h>

#include "codes.h"
#include "cpu_rows.h"
#include "fault.h"
#include "numeric.h"

/* Code of logical element (k, n) as this backend decodes it. */
static int decode_code(const lutmm_weights *w, int64_t k, int64_t n) {
  const int64_t row = lutmm_fault_layout_row(k, w->geom.k_pad);
  const int code = lutmm_read_code(w->planes, &w->geom, row, n);
  return lutmm_fault_code(code, k, n, w->params.bits);
}

/* ORs code into row r of a zeroed chunk (the inverse of cpu_chunk_code). */
static void store_code(uint8_t *chunk, int bits, int r, int code) {
  if (bits <= 2) chunk[4 * (r / 16) + r % 4] |= (uint8_t)(code << (2 * ((r % 16) / 4)));
  else if (bits <= 4) chunk[r % 16] |= (uint8_t)(code << (r < 16 ? 0 : 4));
  else chunk[r] = (uint8_t)code;
}

float cpu_widened_scale(const lutmm_weights *w, int64_t group, int64_t col) {
  const float s = lutmm_load_as_f32(w->scales, w->params.scale_dtype, group * w->geom.n_pad + col);
  return lutmm_fault_scale(s, group, col);
}

/* The block's scales widened exactly to float (columns past N stay 0). */
static void convert_block_scales(const lutmm_weights *w, cpu_codes *c, int64_t block) {
  const int64_t n = w->params.n;
  for (int64_t col = block * CPU_BLOCK_N; col < n && col < (block + 1) * CPU_BLOCK_N; col++)
    for (int64_t group = 0; group < c->groups; group++)
      *(float *)cpu_codes_scales(c, col, group) = cpu_widened_scale(w, group, col);
}

static void convert_block(const lutmm_weights *w, cpu_codes *c, int64_t block) {
  const int64_t k = w->params.k, n = w->params.n;
  for (int64_t col = block * CPU_BLOCK_N; col < n && col < (block + 1) * CPU_BLOCK_N; col++)
    for (int64_t kk = 0; kk < k; kk++) {
      uint8_t *chunk = (uint8_t *)cpu_codes_chunk(c, col, kk / CPU_CHUNK_K);
      store_code(chunk, c->bits, (int)(kk % CPU_CHUNK_K), decode_code(w, kk, col));
    }
  convert_block_scales(w, c, block);
}

/* Bytes of the codes (with the over-read tail) and floats of the scales. */
static lutmm_status copy_sizes(const cpu_codes *c, size_t *code_bytes, size_t *scale_floats) {
  size_t bytes = 0;
  lutmm_status st = lutmm_checked_mul((size_t)c->blocks, c->block_stride, &bytes);
  if (st == LUTMM_OK && bytes > SIZE_MAX - CPU_CODES_TAIL) st = LUTMM_ERR_OVERFLOW;
  if (st == LUTMM_OK) *code_bytes = bytes + CPU_CODES_TAIL;
  if (st == LUTMM_OK) st = lutmm_checked_mul((size_t)c->blocks * CPU_BLOCK_N, (size_t)c->groups, scale_floats);
  if (st == LUTMM_OK && *scale_floats > SIZE_MAX / sizeof(float)) st = LUTMM_ERR_OVERFLOW;
  return st;
}

lutmm_status cpu_codes_create(const lutmm_weights *w, int threads, int with_rows, cpu_codes **out) {
  cpu_codes *c = calloc(1, sizeof *c);
  if (c == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  c->bits = w->params.bits;
  c->chunk_bytes = cpu_chunk_bytes(c->bits);
  c->k32 = (w->params.k + CPU_CHUNK_K - 1) / CPU_CHUNK_K * CPU_CHUNK_K;
  c->blocks = (w->params.n + CPU_BLOCK_N - 1) / CPU_BLOCK_N;
  /* The kernels read widened scales only where cpu_codes.h says. */
  c->groups = c->bits <= 4 && w->geom.group_size % CPU_CHUNK_K == 0 ? w->geom.num_groups : 0;
  size_t code_bytes = 0, scale_floats = 0;
  lutmm_status st = lutmm_checked_mul((size_t)(c->k32 / CPU_CHUNK_K) * CPU_BLOCK_N, (size_t)c->chunk_bytes,
                                      &c->block_stride);
  if (st == LUTMM_OK) st = copy_sizes(c, &code_bytes, &scale_floats);
  if (st == LUTMM_OK && (c->data = calloc(1, code_bytes)) == NULL) st = LUTMM_ERR_OUT_OF_MEMORY;
  if (st == LUTMM_OK && scale_floats > 0 && (c->scales = calloc(scale_floats, sizeof(float))) == NULL)
    st = LUTMM_ERR_OUT_OF_MEMORY;
  if (st != LUTMM_OK) {
    cpu_codes_destroy(c);
    return st;
  }
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
  for (int64_t block = 0; block < c->blocks; block++) convert_block(w, c, block);
  if (with_rows) c->rows = cpu_rows_create(c, w, threads);
  *out = c;
  return LUTMM_OK;
}

void cpu_codes_destroy(cpu_codes *c) {
  if (c == NULL) return;
  cpu_rows_destroy(c->rows);
  free(c->data);
  free(c->scales);
  free(c);
}
