/* The row copy of the codes (see cpu_rows.h), derived from the column copy. */
#include "cpu_rows.h"

#include <math.h>
#include <stdlib.h>

#include "backend.h"
#include "cpu_codes.h"
#include "cpu_kernel.h"

/* Code of (row, column) in the column copy, 0 past K or N. */
static int column_code(const cpu_codes *codes, int64_t k, int64_t n, int64_t row, int64_t col) {
  if (row >= k || col >= n) return 0;
  return cpu_chunk_code(cpu_codes_chunk(codes, col, row / CPU_CHUNK_K), codes->bits, (int)(row % CPU_CHUNK_K));
}

/* The nibble of one column on the step starting at row. */
static int step_nibble(const cpu_rows *r, const cpu_codes *codes, int64_t k, int64_t n, int64_t row, int64_t col) {
  int nibble = 0;
  for (int i = 0; i < r->step_rows; i++) nibble |= column_code(codes, k, n, row + i, col) << (r->bits * i);
  return nibble;
}

/* The (group, block)'s scales (0 past N). */
static void fill_scales(cpu_rows *r, const lutmm_weights *w, int64_t group, int64_t block) {
  float *out = r->scales + cpu_rows_piece(r, group, block) * CPU_ROWS_BLOCK_N;
  for (int c = 0; c < CPU_ROWS_BLOCK_N; c++) {
    const int64_t col = block * CPU_ROWS_BLOCK_N + c;
    out[c] = col < w->params.n ? cpu_widened_scale(w, group, col) : 0.0f;
  }
}

/* Smallest non-zero |scale| of the copy, 0 when all are zero. */
static float smallest_scale(const cpu_rows *r) {
  const size_t count = (size_t)r->groups * (size_t)r->blocks * CPU_ROWS_BLOCK_N;
  float smallest = 0.0f;
  for (size_t i = 0; i < count; i++) {
    const float m = fabsf(r->scales[i]);
    if (m > 0.0f && (smallest == 0.0f || m < smallest)) smallest = m;
  }
  return smallest;
}

static void fill(cpu_rows *r, const cpu_codes *codes, const lutmm_weights *w, int64_t group, int64_t block) {
  const int64_t k = w->params.k, n = w->params.n;
  fill_scales(r, w, group, block);
  uint8_t *out = r->data + cpu_rows_piece(r, group, block) * r->group_bytes;
  const int64_t rows_per_byte = 2 * r->step_rows;
  for (int64_t byte_row = 0; byte_row < r->group_rows / rows_per_byte; byte_row++) {
    const int64_t row = group * r->group_rows + byte_row * rows_per_byte;
    for (int c = 0; c < CPU_ROWS_BLOCK_N; c++) {
      const int64_t col = block * CPU_ROWS_BLOCK_N + c;
      const int low = step_nibble(r, codes, k, n, row, col), high = step_nibble(r, codes, k, n, row + r->step_rows, col);
      out[byte_row * CPU_ROWS_BYTE_ROW + cpu_lane_row(c)] = (uint8_t)(low | high << 4);
    }
  }
}

static lutmm_status allocate(cpu_rows *r) {
  size_t pieces, bytes, floats;
  lutmm_status st = lutmm_checked_mul((size_t)r->groups, (size_t)r->blocks, &pieces);
  if (st == LUTMM_OK) st = lutmm_checked_mul(pieces, r->group_bytes, &bytes);
  if (st == LUTMM_OK) st = lutmm_checked_mul(pieces, CPU_ROWS_BLOCK_N * sizeof(float), &floats);
  if (st != LUTMM_OK) return st;
  r->data = malloc(bytes);
  r->scales = malloc(floats);
  return r->data == NULL || r->scales == NULL ? LUTMM_ERR_OUT_OF_MEMORY : LUTMM_OK;
}

cpu_rows *cpu_rows_create(const cpu_codes *codes, const lutmm_weights *w, int threads) {
  const int bits = codes->bits;
  if (bits > 4) return NULL;
  cpu_rows *r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  r->bits = bits;
  r->step_rows = 4 / bits; /* 3-bit codes: one per nibble, as 4-bit ones */
  /* One group spans every row, padding included; groups of g rows (g a
   * multiple of 16, so of the 8 rows a byte row of 1-bit codes holds) tile
   * K exactly. */
  r->groups = w->geom.num_groups;
  r->group_rows = r->groups == 1 ? codes->k32 : w->geom.group_size;
  r->blocks = (w->params.n + CPU_ROWS_BLOCK_N - 1) / CPU_ROWS_BLOCK_N;
  r->group_bytes = (size_t)(r->group_rows / (2 * r->step_rows)) * CPU_ROWS_BYTE_ROW;
  if (allocate(r) != LUTMM_OK) {
    cpu_rows_destroy(r);
    return NULL;
  }
  const int64_t pieces = r->groups * r->blocks;
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads)
  for (int64_t piece = 0; piece < pieces; piece++) fill(r, codes, w, piece / r->blocks, piece % r->blocks);
  r->scale_min = smallest_scale(r);
  return r;
}

void cpu_rows_destroy(cpu_rows *r) {
  if (r == NULL) return;
  free(r->data);
  free(r->scales);
  free(r);
}
