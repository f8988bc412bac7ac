/* The row kernel's AVX2 code: per-step tables of x·T and the lookups.
 *
 * For a row of fp32 activations, y_n = Σ_g s_gn · Σ_{k in g} x_k · T[c_kn]:
 * the scale leaves the inner sum, and x_k moves into the table, so one
 * 16-entry table per step, L_t[e] = Σ_i x_{t·s+i} · T[(e >> bits·i) & mask]
 * (s = 4 / bits rows), serves every column. A step of a 32-column block is
 * then four vpshufb on L_t's byte planes, two rounds of unpacks and four
 * adds: no FMA and no per-group table, and 2-bit codes look up two rows,
 * 1-bit codes four, per nibble. See docs/CPU.md ("The row kernel") for the
 * numerics and the measurements. */
#if defined(__x86_64__)
#include <immintrin.h>

#include "cpu_gemv_rows.h"
#include "cpu_kernel.h"

#define TARGET __attribute__((target("avx2,fma")))
#define INLINE static inline __attribute__((always_inline)) TARGET

/* The four byte planes of 16 floats (entries 0-7 in lo, 8-15 in hi), each
 * plane's 16 bytes in both 128-bit lanes, at table[0..127]. */
INLINE void store_planes(__m256 lo, __m256 hi, uint8_t *table) {
  /* Within each lane: dword p = byte p of the lane's four floats. */
  const __m256i by_plane = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,  //
                                            0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  /* Pairs the lanes' dwords: [plane 0 | plane 1] in lane 0, [2 | 3] in 1. */
  const __m256i pair_lanes = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i a = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(_mm256_castps_si256(lo), by_plane), pair_lanes);
  const __m256i b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(_mm256_castps_si256(hi), by_plane), pair_lanes);
  const __m256i even = _mm256_unpacklo_epi64(a, b); /* planes 0 | 2 */
  const __m256i odd = _mm256_unpackhi_epi64(a, b);  /* planes 1 | 3 */
  __m256i *out = (__m256i *)table;
  _mm256_store_si256(out + 0, _mm256_permute2x128_si256(even, even, 0x00));
  _mm256_store_si256(out + 1, _mm256_permute2x128_si256(odd, odd, 0x00));
  _mm256_store_si256(out + 2, _mm256_permute2x128_si256(even, even, 0x11));
  _mm256_store_si256(out + 3, _mm256_permute2x128_si256(odd, odd, 0x11));
}

TARGET void cpu_rows_tables_avx2(const float *x, int64_t k, const float *table_c, int bits, int64_t step0,
                                 int64_t step1, size_t table_bytes, uint8_t *tables) {
  const int step_rows = 4 / bits, mask = (1 << bits) - 1;
  /* pattern[i][e] = T[(e >> bits·i) & mask]: row i's entry in L[e]. */
  float pattern[4][16];
  for (int i = 0; i < step_rows; i++)
    for (int e = 0; e < 16; e++) pattern[i][e] = table_c[(e >> (bits * i)) & mask];
  for (int64_t t = step0; t < step1; t++) {
    __m256 lo = _mm256_setzero_ps(), hi = _mm256_setzero_ps();
    for (int i = 0; i < step_rows; i++) {
      const int64_t row = t * step_rows + i;
      const __m256 xi = _mm256_set1_ps(row < k ? x[row] : 0.0f);
      lo = _mm256_add_ps(lo, _mm256_mul_ps(xi, _mm256_loadu_ps(pattern[i])));
      hi = _mm256_add_ps(hi, _mm256_mul_ps(xi, _mm256_loadu_ps(pattern[i] + 8)));
    }
    uint8_t *table = tables + (size_t)t * table_bytes;
    if (table_bytes == CPU_ROWS_TABLE_BYTES) {
      store_planes(lo, hi, table);
    } else { /* the 16 floats themselves */
      _mm256_storeu_ps((float *)table, lo);
      _mm256_storeu_ps((float *)table + 8, hi);
    }
  }
}

/* acc[q] += L[idx of column 8q + l] for the 32 columns, in natural order. */
INLINE void look_up(const uint8_t *table, __m256i idx, __m256 acc[4]) {
  const __m256i *plane = (const __m256i *)table;
  const __m256i p0 = _mm256_shuffle_epi8(_mm256_load_si256(plane + 0), idx);
  const __m256i p1 = _mm256_shuffle_epi8(_mm256_load_si256(plane + 1), idx);
  const __m256i p2 = _mm256_shuffle_epi8(_mm256_load_si256(plane + 2), idx);
  const __m256i p3 = _mm256_shuffle_epi8(_mm256_load_si256(plane + 3), idx);
  const __m256i low01 = _mm256_unpacklo_epi8(p0, p1), high01 = _mm256_unpackhi_epi8(p0, p1);
  const __m256i low23 = _mm256_unpacklo_epi8(p2, p3), high23 = _mm256_unpackhi_epi8(p2, p3);
  acc[0] = _mm256_add_ps(acc[0], _mm256_castsi256_ps(_mm256_unpacklo_epi16(low01, low23)));
  acc[1] = _mm256_add_ps(acc[1], _mm256_castsi256_ps(_mm256_unpackhi_epi16(low01, low23)));
  acc[2] = _mm256_add_ps(acc[2], _mm256_castsi256_ps(_mm256_unpacklo_epi16(high01, high23)));
  acc[3] = _mm256_add_ps(acc[3], _mm256_castsi256_ps(_mm256_unpackhi_epi16(high01, high23)));
}

TARGET void cpu_rows_kernel_avx2(const cpu_rows *r, int64_t m, const uint8_t *tables, size_t row_tables,
                                 int64_t block0, int64_t block1, float *out, int64_t ldo) {
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const int64_t byte_rows = r->group_rows / (2 * r->step_rows);
  const size_t group_steps = (size_t)(r->group_rows / r->step_rows);
  /* Group by group over the whole run of blocks: the group's tables stay in L1. */
  for (int64_t g = 0; g < r->groups; g++)
    for (int64_t block = block0; block < block1; block++) {
      const uint8_t *bytes = cpu_rows_at(r, g, block);
      const float *s = cpu_rows_scales(r, g, block);
      /* Row after row of X: the block's bytes are in L1 after the first. */
      for (int64_t row = 0; row < m; row++) {
        const uint8_t *group_tables = tables + (size_t)row * row_tables + (size_t)g * group_steps * CPU_ROWS_TABLE_BYTES;
        __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
        for (int64_t i = 0; i < byte_rows; i++) {
          const __m256i v = _mm256_loadu_si256((const __m256i *)(bytes + i * CPU_ROWS_BYTE_ROW));
          const uint8_t *t = group_tables + (size_t)(2 * i) * CPU_ROWS_TABLE_BYTES;
          look_up(t, _mm256_and_si256(v, nibble), acc);
          look_up(t + CPU_ROWS_TABLE_BYTES, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble), acc);
        }
        float *y = out + row * ldo + block * CPU_ROWS_BLOCK_N;
        for (int q = 0; q < 4; q++)
          _mm256_storeu_ps(y + 8 * q, _mm256_fmadd_ps(acc[q], _mm256_loadu_ps(s + 8 * q), _mm256_loadu_ps(y + 8 * q)));
      }
    }
}
#endif
