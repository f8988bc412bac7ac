/* The row kernel's AVX-512 code: the same copy, tables and sums as the AVX2
 * code (cpu_gemv_rows_avx2.c, whose builder also writes this code's tables
 * as 16 floats per step), with one permute per lookup.
 *
 * A step's 16-entry table L_t is one zmm register, and vpermps looks up 16
 * columns at once from the low 4 bits of each index dword. A byte row of the
 * copy (two steps of 32 columns) becomes index dwords with two vpmovzxbd,
 * the even step's nibble in bits 0-3 and the odd step's in bits 4-7 (one
 * shift): 64 weights cost 2 widenings, 2 shifts, 4 permutes and 4 adds
 * instead of AVX2's 8 shuffles, 16 unpacks and 8 adds. Each column adds its
 * steps in the same order into a float32 accumulator that starts at 0 and
 * leaves through the same fma with its scale per group, and the tables hold
 * the same values, so the two codes give the same bits. The accumulators
 * follow the copy's byte order (column c in lane cpu_lane_row(c)); one
 * two-source permute per group puts them back in column order. */
#if defined(__x86_64__)
#include <immintrin.h>

#include "cpu_gemv_rows.h"
#include "cpu_kernel.h"

#define TARGET __attribute__((target("avx512f,avx2,fma")))
#define INLINE static inline __attribute__((always_inline)) TARGET

/* acc[0..1] += both steps of one block's byte row (acc[0]: bytes 0-15). */
INLINE void add_byte_row(const uint8_t *bytes, __m512 even, __m512 odd, __m512 acc[2]) {
  for (int half = 0; half < 2; half++) {
    const __m512i idx = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(bytes + 16 * half)));
    acc[half] = _mm512_add_ps(acc[half], _mm512_permutexvar_ps(idx, even));
    acc[half] = _mm512_add_ps(acc[half], _mm512_permutexvar_ps(_mm512_srli_epi32(idx, 4), odd));
  }
}

/* y[c] = fma(acc in column order, s, y) for one block's 32 columns. */
INLINE void store_block(const __m512 acc[2], __m512i order_lo, __m512i order_hi, const float *s, float *y) {
  const __m512 lo = _mm512_permutex2var_ps(acc[0], order_lo, acc[1]);
  const __m512 hi = _mm512_permutex2var_ps(acc[0], order_hi, acc[1]);
  _mm512_storeu_ps(y, _mm512_fmadd_ps(lo, _mm512_loadu_ps(s), _mm512_loadu_ps(y)));
  _mm512_storeu_ps(y + 16, _mm512_fmadd_ps(hi, _mm512_loadu_ps(s + 16), _mm512_loadu_ps(y + 16)));
}

/* One group of `count` (1 or 2) blocks from `block` for one row of X: two
 * blocks at once keep four independent add chains in flight. `ahead`:
 * the next blocks of the group (ahead_bytes of them) to prefetch, or NULL. */
INLINE void group_blocks(const cpu_rows *r, int64_t g, int64_t block, int count, const uint8_t *group_tables,
                         __m512i order_lo, __m512i order_hi, float *y, const uint8_t *ahead, size_t ahead_bytes) {
  const int64_t byte_rows = r->group_rows / (2 * r->step_rows);
  __m512 acc[2][2] = {{_mm512_setzero_ps(), _mm512_setzero_ps()}, {_mm512_setzero_ps(), _mm512_setzero_ps()}};
  const uint8_t *bytes[2] = {cpu_rows_at(r, g, block), cpu_rows_at(r, g, block + count - 1)};
  for (int64_t i = 0; i < byte_rows; i++) {
    const float *t = (const float *)(group_tables + (size_t)(2 * i) * CPU_ROWS_TABLE_BYTES_AVX512);
    const __m512 even = _mm512_loadu_ps(t), odd = _mm512_loadu_ps(t + 16);
    /* The next pair's bytes, one line per byte row: the hardware's streams
     * alone left this loop waiting on memory (docs/CPU.md: 3.2-4.2 → 1.5-2.0
     * ms for NF4 at M = 1). */
    if (ahead != NULL && (size_t)(64 * i) < ahead_bytes) _mm_prefetch((const char *)(ahead + 64 * i), _MM_HINT_T0);
    for (int b = 0; b < count; b++) add_byte_row(bytes[b] + i * CPU_ROWS_BYTE_ROW, even, odd, acc[b]);
  }
  for (int b = 0; b < count; b++)
    store_block(acc[b], order_lo, order_hi, cpu_rows_scales(r, g, block + b), y + b * CPU_ROWS_BLOCK_N);
}

TARGET void cpu_rows_kernel_avx512(const cpu_rows *r, int64_t m, const uint8_t *tables, size_t row_tables,
                                   int64_t block0, int64_t block1, float *out, int64_t ldo) {
  /* Column c of a block sits in lane cpu_lane_row(c) of [acc[0] | acc[1]]. */
  int order[CPU_ROWS_BLOCK_N];
  for (int c = 0; c < CPU_ROWS_BLOCK_N; c++) order[c] = cpu_lane_row(c);
  const __m512i order_lo = _mm512_loadu_si512(order), order_hi = _mm512_loadu_si512(order + 16);
  const size_t group_steps = (size_t)(r->group_rows / r->step_rows);
  for (int64_t g = 0; g < r->groups; g++)
    for (int64_t block = block0; block < block1; block += 2) {
      /* Up to two blocks after this pair, within this thread's run; once,
       * on the first row of X (the others find them in cache). */
      const int64_t next_end = block + 4 < block1 ? block + 4 : block1;
      const uint8_t *ahead = block + 2 < block1 ? cpu_rows_at(r, g, block + 2) : NULL;
      const size_t ahead_bytes = ahead != NULL ? (size_t)(next_end - block - 2) * r->group_bytes : 0;
      for (int64_t row = 0; row < m; row++) {
        const uint8_t *group_tables =
            tables + (size_t)row * row_tables + (size_t)g * group_steps * CPU_ROWS_TABLE_BYTES_AVX512;
        float *y = out + row * ldo + block * CPU_ROWS_BLOCK_N;
        const uint8_t *row_ahead = row == 0 ? ahead : NULL;
        /* A constant count, so the accumulators stay in registers. */
        if (block + 1 < block1)
          group_blocks(r, g, block, 2, group_tables, order_lo, order_hi, y, row_ahead, ahead_bytes);
        else
          group_blocks(r, g, block, 1, group_tables, order_lo, order_hi, y, NULL, 0);
      }
    }
}
#endif
