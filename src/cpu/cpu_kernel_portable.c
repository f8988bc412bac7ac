/* Portable C kernel: scalar table lookups into a column's 32-row chunk, then
 * eight fp32 partial sums per (row, column) so the multiply-adds vectorize
 * on any target. Far faster than the reference (no layout arithmetic or
 * double rounding per element) and the fallback without AVX2. Natural row
 * order. */
#include <string.h>

#include "cpu_kernel.h"

#define ROWS 4
#define LANES 8

typedef struct row_block {
  int64_t m0;
  int rows;
  float acc[ROWS][CPU_BLOCK_N][LANES];
} row_block;

/* values[r] for the chunk's rows [16·half, 16·half + 16). */
static void lookup_half(const uint8_t *chunk, int bits, int half, const float *table, float *values) {
  for (int r = 16 * half; r < 16 * half + 16; r++) values[r] = table[cpu_chunk_code(chunk, bits, r)];
}

static void multiply_chunk(const cpu_kernel_args *a, row_block *rb, int col, int64_t k, const float *values) {
  for (int r = 0; r < rb->rows; r++) {
    const float *x = a->x + (rb->m0 + r) * a->ldx + k;
    for (int i = 0; i < CPU_CHUNK_K; i += LANES)
      for (int j = 0; j < LANES; j++) rb->acc[r][col][j] += x[i + j] * values[i + j];
  }
}

/* Tables of the group holding each 16-row half of a chunk. */
typedef struct half_tables {
  int64_t group[2];
  float values[2][LUTMM_MAX_TABLE_SIZE];
} half_tables;

static void update_tables(const cpu_kernel_args *a, int64_t n, int64_t k, half_tables *t) {
  for (int h = 0; h < 2; h++) {
    const int64_t group = (k + 16 * h) / a->group_size;
    if (group == t->group[h]) continue;
    if (h == 1 && group == t->group[0]) memcpy(t->values[1], t->values[0], sizeof(float) << a->codes->bits);
    else cpu_dequant_table(a, cpu_scale_c(a, group, n), t->values[h]);
    t->group[h] = group;
  }
}

static void lookup_column(const cpu_kernel_args *a, int64_t n, int64_t k, half_tables *t, float *values) {
  update_tables(a, n, k, t);
  const uint8_t *chunk = cpu_codes_chunk(a->codes, n, k / CPU_CHUNK_K);
  lookup_half(chunk, a->codes->bits, 0, t->values[0], values);
  lookup_half(chunk, a->codes->bits, 1, t->values[1], values);
}

static float sum8(const float *v) { return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])); }

static void block_rows(const cpu_kernel_args *a, row_block *rb, int64_t block, int64_t k0, int64_t k1) {
  half_tables tables[CPU_BLOCK_N];
  memset(rb->acc, 0, sizeof rb->acc);
  for (int col = 0; col < CPU_BLOCK_N; col++) tables[col].group[0] = tables[col].group[1] = -1;
  for (int64_t k = k0; k < k1; k += CPU_CHUNK_K)
    for (int col = 0; col < CPU_BLOCK_N; col++) {
      float values[CPU_CHUNK_K];
      lookup_column(a, block * CPU_BLOCK_N + col, k, &tables[col], values);
      multiply_chunk(a, rb, col, k, values);
    }
  for (int r = 0; r < rb->rows; r++)
    for (int col = 0; col < CPU_BLOCK_N; col++) {
      const int64_t n = block * CPU_BLOCK_N + col;
      if (n < a->n) a->out[(rb->m0 + r) * a->ldo + n] = sum8(rb->acc[r][col]);
    }
}

void cpu_kernel_portable(const cpu_kernel_args *a, int64_t block0, int64_t block1, int64_t k0, int64_t k1) {
  row_block rb;
  for (int64_t block = block0; block < block1; block++)
    for (rb.m0 = 0; rb.m0 < a->m; rb.m0 += ROWS) {
      rb.rows = a->m - rb.m0 < ROWS ? (int)(a->m - rb.m0) : ROWS;
      block_rows(a, &rb, block, k0, k1);
    }
}

void cpu_dequant_portable(const cpu_kernel_args *a, int64_t n0, int64_t n1, int64_t k0, int64_t k1, float *panel,
                          int64_t ld) {
  half_tables tables;
  for (int64_t n = n0; n < n1; n++) {
    tables.group[0] = tables.group[1] = -1;
    for (int64_t k = k0; k < k1; k += CPU_CHUNK_K) lookup_column(a, n, k, &tables, panel + (n - n0) * ld + (k - k0));
  }
}
