/* AVX2 kernel. A column's codes are read 32 rows (one chunk) at a time and
 * turned into four vectors of ŵ in lane order (cpu_kernel.h):
 *   bits 1-2  vpmovzxbd + shift + vpermilps on a 4-entry table (fp32,
 *             M >= 9: T's own, shared, times s as below)
 *   bits 3-4  vpshufb on the four byte planes of a 16-entry fp32 table,
 *             reassembled into floats by two rounds of unpacks; for fp32
 *             activations the planes are T's own, shared by every column,
 *             and one multiply by s gives fl(T·s) = ŵ exactly, so no table
 *             is built per group
 *   bits 5-8  vgatherdps from the table on the stack
 * Every table holds ŵ = round_c(T_c × s_c) for one (group, column); the two
 * 16-row halves of a chunk may belong to different groups (group size 16),
 * so each 128-bit lane carries its own half's table. All of these are
 * in-lane operations, cheap on every AVX2 core.
 * fp32 activations with 1-4 bit codes and M <= 8 take the "gemv" lookups
 * instead (GEMV_*, below): per segment and column a one-register table
 * fl(T·s) for 1-3 bit codes (vpermilps, or vpermps for 3 bits: one
 * lane-crossing permute per 8 values beats 3 shuffles per 8 on Zen 3), the
 * shared byte planes times s for 4 bits.
 * M = 1 runs the block's columns straight into registers; M <= 8 (fp32,
 * 1-4 bits) or M <= 4 (other tables) feeds each lookup to up to four rows
 * directly;
 * larger M dequantizes a 128-row segment of one column into a small buffer
 * and multiplies it with up to 32 rows of X, eight at a time, while that
 * segment of X stays in L1 across a tile of 16 columns. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include "cpu_kernel.h"

#define TARGET __attribute__((target("avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline)) TARGET

/* M >= 2: chunks of a column dequantized at a time (128 rows), rows of X
 * and columns per tile (their accumulators: 16 KiB of stack). */
#define SEGMENT_CHUNKS 4
#define TILE_COLUMNS 16
/* Columns per pass of the M = 1 fp32 kernel with 3-4 bit byte planes (2:
 * everything stays in the 16 vector registers; 1 and 4 measured the same
 * or slower); the one-register tables take a whole block (gemv_block). */
#define SCALED_COLUMNS 2
#define ROW_BLOCK 32
/* Up to this M, lookups (all but gathers) feed the rows directly: fp32
 * 1-4 bit lookups are cheap enough to repeat per four rows, table kinds
 * (rebuilt per group) measured better through the buffer beyond four. */
#define FEW_ROWS 8
#define FEW_ROWS_TABLES 4

enum lookup_kind { LOOKUP_QUAD, LOOKUP_SCALED_QUAD, LOOKUP_PLANES, LOOKUP_SCALED_PLANES, LOOKUP_GATHER };

/* One column's tables for the groups of the current chunk's two halves. */
typedef struct col_tables {
  int64_t group[2];
  int64_t next_k;   /* first chunk row at which either half changes group */
  __m256 quad;      /* QUAD: entries 0..3, half h in 128-bit lane h */
  __m256i plane[4]; /* PLANES: byte p of entries 0..15, half h in lane h */
  __m256 scale;     /* SCALED_PLANES: s of half h in lane h */
  float mem[2 * LUTMM_MAX_TABLE_SIZE]; /* GATHER: half h at 256·h */
} col_tables;

/* Per-call constants. */
typedef struct avx2_ctx {
  const cpu_kernel_args *a;
  int kind;
  __m256 t0, t1; /* T_c entries 0..7 and 8..15 (bits <= 2: entry i mod 2^bits) */
  col_tables shared; /* SCALED_PLANES: the byte planes of T itself */
} avx2_ctx;

INLINE __m256 round_c(__m256 p, lutmm_dtype c) {
  if (c == LUTMM_DTYPE_F16) return _mm256_cvtph_ps(_mm256_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT));
  if (c == LUTMM_DTYPE_BF16) {
    /* Nearest-even on the upper 16 bits; the products are finite or Inf. */
    const __m256i u = _mm256_castps_si256(p);
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    const __m256i r = _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), odd);
    return _mm256_castsi256_ps(_mm256_and_si256(r, _mm256_set1_epi32((int)0xFFFF0000u)));
  }
  return p;
}

/* ŵ for entries 0..15 of one (group, column), arranged like t0/t1. */
TARGET static void half_values(const avx2_ctx *x, int64_t group, int64_t n, __m256 *v0, __m256 *v1) {
  const cpu_kernel_args *a = x->a;
  const float s = cpu_scale_c(a, group, n);
  if (a->c == LUTMM_DTYPE_BF16 && cpu_bf16_table_is_tiny(a, s)) {
    float exact[LUTMM_MAX_TABLE_SIZE], arranged[16];
    const int size = 1 << a->codes->bits;
    cpu_dequant_table(a, s, exact);
    for (int i = 0; i < 16; i++) arranged[i] = exact[i % size];
    *v0 = _mm256_loadu_ps(arranged);
    *v1 = _mm256_loadu_ps(arranged + 8);
    return;
  }
  const __m256 sv = _mm256_set1_ps(s);
  *v0 = round_c(_mm256_mul_ps(x->t0, sv), a->c);
  *v1 = round_c(_mm256_mul_ps(x->t1, sv), a->c);
}

/* The whole 2^bits-entry table of one (group, column) into mem. */
TARGET static void full_values(const avx2_ctx *x, int64_t group, int64_t n, float *mem) {
  const cpu_kernel_args *a = x->a;
  const float s = cpu_scale_c(a, group, n);
  if (a->c == LUTMM_DTYPE_BF16 && cpu_bf16_table_is_tiny(a, s)) {
    cpu_dequant_table(a, s, mem);
    return;
  }
  const __m256 sv = _mm256_set1_ps(s);
  for (int i = 0; i < (1 << a->codes->bits); i += 8)
    _mm256_storeu_ps(mem + i, round_c(_mm256_mul_ps(_mm256_loadu_ps(a->table_c + i), sv), a->c));
}

/* Byte planes of 16 floats: lane 0 of *u is plane 0, lane 1 plane 2; *w
 * holds planes 1 and 3. */
INLINE void byte_planes(__m256 v0, __m256 v1, __m256i *u, __m256i *w) {
  const __m256i transpose = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5,
                                             9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m256i gather = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i x = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(_mm256_castps_si256(v0), transpose), gather);
  const __m256i y = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(_mm256_castps_si256(v1), transpose), gather);
  *u = _mm256_unpacklo_epi64(x, y);
  *w = _mm256_unpackhi_epi64(x, y);
}

TARGET static void build_tables(const avx2_ctx *x, int64_t n, const int64_t group[2], col_tables *t) {
  if (x->kind == LOOKUP_GATHER) {
    full_values(x, group[0], n, t->mem);
    if (group[1] == group[0]) memcpy(t->mem + LUTMM_MAX_TABLE_SIZE, t->mem, sizeof(float) << x->a->codes->bits);
    else full_values(x, group[1], n, t->mem + LUTMM_MAX_TABLE_SIZE);
    return;
  }
  if (x->kind == LOOKUP_SCALED_PLANES || x->kind == LOOKUP_SCALED_QUAD) {
    /* fp32: ŵ = fl(T·s) is one multiply after the lookup, exact as is. */
    const __m128 lo = _mm_set1_ps(cpu_scale_c(x->a, group[0], n));
    const __m128 hi = group[1] == group[0] ? lo : _mm_set1_ps(cpu_scale_c(x->a, group[1], n));
    t->scale = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
    return;
  }
  __m256 lo0, lo1, hi0, hi1;
  const int same = group[1] == group[0];
  half_values(x, group[0], n, &lo0, &lo1);
  if (same) hi0 = lo0, hi1 = lo1;
  else half_values(x, group[1], n, &hi0, &hi1);
  if (x->kind == LOOKUP_QUAD) {
    t->quad = _mm256_permute2f128_ps(lo0, hi0, 0x20);
    return;
  }
  __m256i u_lo, w_lo, u_hi, w_hi;
  byte_planes(lo0, lo1, &u_lo, &w_lo);
  if (same) u_hi = u_lo, w_hi = w_lo;
  else byte_planes(hi0, hi1, &u_hi, &w_hi);
  t->plane[0] = _mm256_permute2x128_si256(u_lo, u_hi, 0x20);
  t->plane[1] = _mm256_permute2x128_si256(w_lo, w_hi, 0x20);
  t->plane[2] = _mm256_permute2x128_si256(u_lo, u_hi, 0x31);
  t->plane[3] = _mm256_permute2x128_si256(w_lo, w_hi, 0x31);
}

/* Rebuilds the tables when the chunk at row k enters another group; one
 * compare per chunk otherwise. */
INLINE void update_tables(const avx2_ctx *x, int64_t n, int64_t k, col_tables *t) {
  if (k < t->next_k) return;
  const int64_t g = x->a->group_size;
  const int64_t group[2] = {k / g, (k + 16) / g};
  build_tables(x, n, group, t);
  t->group[0] = group[0];
  t->group[1] = group[1];
  const int64_t end0 = (group[0] + 1) * g, end1 = (group[1] + 1) * g - 16;
  t->next_k = end0 < end1 ? end0 : end1;
}

INLINE void reset_tables(col_tables *t) {
  t->group[0] = t->group[1] = 0;
  t->next_k = -1; /* forces a build at the first chunk */
}

/* The 32 values of a 2-bit chunk from a 4-entry table held in a register. */
INLINE void lookup_quad_in(__m256 quad, const uint8_t *chunk, __m256 v[4]) {
  const __m256i codes = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)chunk));
  v[0] = _mm256_permutevar_ps(quad, codes);
  v[1] = _mm256_permutevar_ps(quad, _mm256_srli_epi32(codes, 2));
  v[2] = _mm256_permutevar_ps(quad, _mm256_srli_epi32(codes, 4));
  v[3] = _mm256_permutevar_ps(quad, _mm256_srli_epi32(codes, 6));
}

INLINE void lookup_quad(const col_tables *t, const uint8_t *chunk, __m256 v[4]) { lookup_quad_in(t->quad, chunk, v); }

/* The 32 values of a 4-bit chunk from a 16-entry table held as four byte
 * planes in registers (passed by value so hot loops keep them there). */
INLINE void lookup_planes_in(__m256i p0, __m256i p1, __m256i p2, __m256i p3, const uint8_t *chunk, __m256 v[4]) {
  const __m256i s = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)chunk));
  /* Lane 0 takes the low nibbles (rows 0-15), lane 1 the high ones. */
  const __m256i idx = _mm256_and_si256(_mm256_blend_epi32(s, _mm256_srli_epi16(s, 4), 0xF0), _mm256_set1_epi8(0x0F));
  const __m256i b0 = _mm256_shuffle_epi8(p0, idx), b1 = _mm256_shuffle_epi8(p1, idx);
  const __m256i b2 = _mm256_shuffle_epi8(p2, idx), b3 = _mm256_shuffle_epi8(p3, idx);
  const __m256i lo01 = _mm256_unpacklo_epi8(b0, b1), hi01 = _mm256_unpackhi_epi8(b0, b1);
  const __m256i lo23 = _mm256_unpacklo_epi8(b2, b3), hi23 = _mm256_unpackhi_epi8(b2, b3);
  v[0] = _mm256_castsi256_ps(_mm256_unpacklo_epi16(lo01, lo23));
  v[1] = _mm256_castsi256_ps(_mm256_unpackhi_epi16(lo01, lo23));
  v[2] = _mm256_castsi256_ps(_mm256_unpacklo_epi16(hi01, hi23));
  v[3] = _mm256_castsi256_ps(_mm256_unpackhi_epi16(hi01, hi23));
}

INLINE void lookup_planes(const col_tables *t, const uint8_t *chunk, __m256 v[4]) {
  lookup_planes_in(t->plane[0], t->plane[1], t->plane[2], t->plane[3], chunk, v);
}

INLINE void lookup_gather(const col_tables *t, const uint8_t *chunk, __m256 v[4]) {
  const __m256i half = _mm256_setr_epi32(0, 0, 0, 0, 256, 256, 256, 256);
  for (int q = 0; q < 4; q++) {
    uint32_t lo, hi;
    memcpy(&lo, chunk + 4 * q, sizeof lo);
    memcpy(&hi, chunk + 16 + 4 * q, sizeof hi);
    const __m128i bytes = _mm_unpacklo_epi32(_mm_cvtsi32_si128((int)lo), _mm_cvtsi32_si128((int)hi));
    v[q] = _mm256_i32gather_ps(t->mem, _mm256_add_epi32(_mm256_cvtepu8_epi32(bytes), half), 4);
  }
}

INLINE void lookup(const avx2_ctx *x, const int kind, const col_tables *t, const uint8_t *chunk, __m256 v[4]) {
  if (kind == LOOKUP_SCALED_QUAD) {
    lookup_quad(&x->shared, chunk, v);
    for (int q = 0; q < 4; q++) v[q] = _mm256_mul_ps(v[q], t->scale);
  } else if (kind == LOOKUP_QUAD) lookup_quad(t, chunk, v);
  else if (kind == LOOKUP_PLANES) lookup_planes(t, chunk, v);
  else if (kind == LOOKUP_GATHER) lookup_gather(t, chunk, v);
  else {
    lookup_planes(&x->shared, chunk, v);
    for (int q = 0; q < 4; q++) v[q] = _mm256_mul_ps(v[q], t->scale);
  }
}

/* Fixed-order horizontal sum. */
INLINE float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/* M = 1: the block's four columns side by side, one accumulator each. */
INLINE void single_row(const avx2_ctx *x, const int kind, int64_t block, int64_t k0, int64_t k1) {
  const cpu_kernel_args *a = x->a;
  const int64_t n0 = block * CPU_BLOCK_N;
  col_tables t[CPU_BLOCK_N];
  __m256 acc[CPU_BLOCK_N];
  for (int c = 0; c < CPU_BLOCK_N; c++) {
    reset_tables(&t[c]);
    acc[c] = _mm256_setzero_ps();
  }
  const uint8_t *chunk = cpu_codes_chunk(a->codes, n0, k0 / CPU_CHUNK_K);
  const size_t step = (size_t)a->codes->chunk_bytes;
  for (int64_t k = k0; k < k1; k += CPU_CHUNK_K) {
    const float *xk = a->x + k;
#pragma GCC unroll 4
    for (int c = 0; c < CPU_BLOCK_N; c++, chunk += step) {
      __m256 v[4];
      update_tables(x, n0 + c, k, &t[c]);
      lookup(x, kind, &t[c], chunk, v);
      acc[c] = _mm256_fmadd_ps(_mm256_loadu_ps(xk), v[0], acc[c]);
      acc[c] = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 8), v[1], acc[c]);
      acc[c] = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 16), v[2], acc[c]);
      acc[c] = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 24), v[3], acc[c]);
    }
  }
  for (int c = 0; c < CPU_BLOCK_N; c++)
    if (n0 + c < a->n) a->out[n0 + c] = hsum(acc[c]);
}

/* End of the run of chunks from row k on whose two halves stay in the
 * same groups: tables and scales only change between such segments. */
static inline int64_t segment_end(int64_t g, int64_t k, int64_t k1) {
  const int64_t end0 = (k / g + 1) * g, end1 = ((k + 16) / g + 1) * g - 16;
  const int64_t end = end0 < end1 ? end0 : end1;
  return end < k1 ? end : k1;
}

/* The gemv loops' segment from row k (in group `group`): the whole group
 * when groups are chunk-aligned, else segment_end's run; never past k1. */
static inline int64_t gemv_segment_end(int64_t g, int aligned, int64_t group, int64_t k, int64_t k1) {
  const int64_t end = aligned ? (group + 1) * g : segment_end(g, k, k1);
  return end < k1 ? end : k1;
}

/* s of the chunk at row k for column n, half h in 128-bit lane h. */
INLINE __m256 half_scales(const avx2_ctx *x, int64_t n, int64_t k) {
  const int64_t g0 = k / x->a->group_size, g1 = (k + 16) / x->a->group_size;
  const __m128 lo = _mm_set1_ps(cpu_scale_c(x->a, g0, n));
  const __m128 hi = g1 == g0 ? lo : _mm_set1_ps(cpu_scale_c(x->a, g1, n));
  return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

/* How the M = 1 fp32 kernel turns a chunk's codes into ŵ = fl(T·s):
 *   GEMV_PLANES  bits 3-4: vpshufb on T's shared byte planes, then × s
 *   GEMV_QUAD    bits 1-2: vpermilps on fl(T·s) itself, 4 entries per lane
 *   GEMV_PERM8   bits 3 when no chunk straddles two groups: vpermps on the
 *                8 entries fl(T·s)
 * QUAD and PERM8 build their table once per segment and column (one
 * multiply of T's register by s: each entry is the IEEE product, exactly
 * ŵ), so the inner loop has no multiply; PLANES needs 16 entries, which
 * take four byte planes, too costly to rebuild per group. */
enum gemv_lookup { GEMV_PLANES, GEMV_QUAD, GEMV_PERM8 };

/* Byte shuffle for PERM8: vector q, lane 4h + d takes byte 4q + d of the
 * chunk's half h (the lane order of cpu_kernel.h); the other bytes of the
 * lane are zeroed, not that vpermps would read them. */
INLINE __m256i perm8_pick(int q) {
  const __m256i byte = _mm256_add_epi32(_mm256_set1_epi32(4 * q), _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3));
  return _mm256_or_si256(byte, _mm256_set1_epi32((int)0x80808000u));
}

/* The 32 values of a 3-bit chunk (4-bit format) from an 8-entry table:
 * half 1's nibbles are shifted down in lane 1 as in lookup_planes_in, one
 * byte shuffle per vector brings each row's code to the low bits of its
 * lane, and vpermps reads only bits 0-2, so nothing needs masking. */
INLINE void lookup_perm8_in(__m256 table, const uint8_t *chunk, __m256 v[4]) {
  const __m256i s = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)chunk));
  const __m256i src = _mm256_blend_epi32(s, _mm256_srli_epi16(s, 4), 0xF0);
  for (int q = 0; q < 4; q++) v[q] = _mm256_permutevar8x32_ps(table, _mm256_shuffle_epi8(src, perm8_pick(q)));
}

/* The register a segment's lookups use for one column, from the scales of
 * its chunks' halves (lane h: half h): the scales themselves for PLANES,
 * else the table fl(T·s). */
INLINE __m256 gemv_table(const avx2_ctx *x, const int kind, __m256 scale) {
  if (kind == GEMV_QUAD) return _mm256_mul_ps(x->shared.quad, scale);
  if (kind == GEMV_PERM8) return _mm256_mul_ps(x->t0, scale);
  return scale;
}

/* The table of column n for the segment at row k: from the widened scale
 * of `group` (k's group) when groups are chunk-aligned, so both halves of a
 * chunk share it; else from each half's own scale. fp32 compute uses the
 * stored scale as is (cpu_scale_c would round it to c). */
INLINE __m256 segment_table(const avx2_ctx *x, const int kind, int aligned, int64_t group, int64_t n, int64_t k) {
  const __m256 scale = aligned ? _mm256_broadcast_ss(cpu_codes_scales(x->a->codes, n, group)) : half_scales(x, n, k);
  return gemv_table(x, kind, scale);
}

/* ŵ of one chunk of one column. */
INLINE void gemv_values(const int kind, __m256i p0, __m256i p1, __m256i p2, __m256i p3, __m256 table,
                        const uint8_t *chunk, __m256 v[4]) {
  if (kind == GEMV_QUAD) {
    lookup_quad_in(table, chunk, v);
  } else if (kind == GEMV_PERM8) {
    lookup_perm8_in(table, chunk, v);
  } else {
    lookup_planes_in(p0, p1, p2, p3, chunk, v);
    /* The product T·s first, as ŵ = fl(T·s) requires, then the FMA. */
    for (int q = 0; q < 4; q++) v[q] = _mm256_mul_ps(v[q], table);
  }
}

/* One chunk of C columns at row k into their accumulators (A per column). */
INLINE void gemv_chunk(const avx2_ctx *x, const int kind, const int C, const int A, const __m256 *table,
                       const uint8_t *chunk, const float *xk, __m256 (*acc)[2]) {
  const __m256i p0 = x->shared.plane[0], p1 = x->shared.plane[1], p2 = x->shared.plane[2], p3 = x->shared.plane[3];
  const size_t chunk_bytes = (size_t)x->a->codes->chunk_bytes;
#pragma GCC unroll 4
  for (int c = 0; c < C; c++) {
    __m256 v[4];
    gemv_values(kind, p0, p1, p2, p3, table[c], chunk + chunk_bytes * c, v);
    for (int q = 0; q < 4; q++) acc[c][q % A] = _mm256_fmadd_ps(_mm256_loadu_ps(xk + 8 * q), v[q], acc[c][q % A]);
  }
}

/* M = 1 with fp32 activations and 1-4 bit codes, the hot case: C columns
 * at a time, A (1 or 2) accumulators each, everything in the 16 vector
 * registers. Tables change only between segments (runs of chunks in the
 * same groups), so the inner loop is straight-line code. When the group
 * size is a multiple of the chunk, a segment is the rest of one group, the
 * next group follows without a division and its scales are the widened
 * copy's (cpu_codes.h): converting fp16 scales per segment cost ~10% of
 * the time at g = 128 on Zen 3. */
INLINE void gemv_columns(const avx2_ctx *x, const int kind, const int C, const int A, int64_t n0, int64_t k0,
                         int64_t k1) {
  const cpu_kernel_args *a = x->a;
  const size_t chunk_step = CPU_BLOCK_N * (size_t)a->codes->chunk_bytes;
  const int64_t g = a->group_size;
  const int aligned = g % CPU_CHUNK_K == 0;
  __m256 acc[CPU_BLOCK_N][2], table[CPU_BLOCK_N];
  for (int c = 0; c < C; c++) acc[c][0] = acc[c][1] = _mm256_setzero_ps();
  const uint8_t *chunk = cpu_codes_chunk(a->codes, n0, k0 / CPU_CHUNK_K);
  for (int64_t k = k0, group = k0 / g; k < k1; group++) {
    const int64_t end = gemv_segment_end(g, aligned, group, k, k1);
    for (int c = 0; c < C; c++) table[c] = segment_table(x, kind, aligned, group, n0 + c, k);
    for (; k < end; k += CPU_CHUNK_K, chunk += chunk_step) gemv_chunk(x, kind, C, A, table, chunk, a->x + k, acc);
  }
  for (int c = 0; c < C; c++)
    if (n0 + c < a->n) a->out[n0 + c] = hsum(A == 2 ? _mm256_add_ps(acc[c][0], acc[c][1]) : acc[c][0]);
}

/* Columns per pass and accumulators per column: the 16-entry planes leave
 * room for two columns with two accumulators each; the one-register tables
 * take a whole block, whose chunks then share cache lines, with one
 * accumulator (four columns in flight hide the FMA latency). */
TARGET static void gemv_block(const avx2_ctx *x, const int kind, int64_t block, int64_t k0, int64_t k1) {
  const int64_t n0 = block * CPU_BLOCK_N;
  if (kind == GEMV_QUAD) gemv_columns(x, GEMV_QUAD, CPU_BLOCK_N, 1, n0, k0, k1);
  else if (kind == GEMV_PERM8) gemv_columns(x, GEMV_PERM8, CPU_BLOCK_N, 1, n0, k0, k1);
  else
    for (int c0 = 0; c0 < CPU_BLOCK_N; c0 += SCALED_COLUMNS) gemv_columns(x, GEMV_PLANES, SCALED_COLUMNS, 2, n0 + c0, k0, k1);
}

/* The M = 1 kernel's lookup for a fp32 lookup kind (LOOKUP_SCALED_*). */
static inline int gemv_kind_for(const cpu_kernel_args *a, int kind) {
  if (kind == LOOKUP_SCALED_QUAD) return GEMV_QUAD;
  return a->codes->bits == 3 && a->group_size % CPU_CHUNK_K == 0 ? GEMV_PERM8 : GEMV_PLANES;
}

/* 2 <= M <= FEW_ROWS with fp32 activations and 1-4 bit codes: one column
 * at a time, the M = 1 kernel's lookups (a table per segment) fed straight
 * to R <= 4 rows, one accumulator per row; more rows repeat the lookups per
 * group of four. */
INLINE void few_rows_gemv(const avx2_ctx *x, const int kind, const int R, int64_t n, int64_t m0, int64_t k0,
                          int64_t k1) {
  const cpu_kernel_args *a = x->a;
  const __m256i p0 = x->shared.plane[0], p1 = x->shared.plane[1], p2 = x->shared.plane[2], p3 = x->shared.plane[3];
  const size_t chunk_step = CPU_BLOCK_N * (size_t)a->codes->chunk_bytes;
  const int64_t g = a->group_size;
  const int aligned = g % CPU_CHUNK_K == 0;
  __m256 acc[4];
  for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps();
  const uint8_t *chunk = cpu_codes_chunk(a->codes, n, k0 / CPU_CHUNK_K);
  for (int64_t k = k0, group = k0 / g; k < k1; group++) {
    const int64_t end = gemv_segment_end(g, aligned, group, k, k1);
    const __m256 table = segment_table(x, kind, aligned, group, n, k);
    for (; k < end; k += CPU_CHUNK_K, chunk += chunk_step) {
      __m256 v[4];
      gemv_values(kind, p0, p1, p2, p3, table, chunk, v);
      for (int q = 0; q < 4; q++)
        for (int r = 0; r < R; r++)
          acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(a->x + (m0 + r) * a->ldx + k + 8 * q), v[q], acc[r]);
    }
  }
  for (int r = 0; r < R; r++) a->out[(m0 + r) * a->ldo + n] = hsum(acc[r]);
}

/* 2 <= M <= FEW_ROWS for the table kinds (1-2 bit codes, or 3-4 bit with
 * fp16/bf16 X): the same direct feeding, the column's tables rebuilt at
 * group changes. */
INLINE void few_rows_tables(const avx2_ctx *x, const int kind, const int R, int64_t n, int64_t m0, int64_t k0,
                            int64_t k1) {
  const cpu_kernel_args *a = x->a;
  col_tables t;
  __m256 acc[4];
  reset_tables(&t);
  for (int r = 0; r < R; r++) acc[r] = _mm256_setzero_ps();
  for (int64_t k = k0; k < k1; k += CPU_CHUNK_K) {
    __m256 v[4];
    update_tables(x, n, k, &t);
    lookup(x, kind, &t, cpu_codes_chunk(a->codes, n, k / CPU_CHUNK_K), v);
    for (int q = 0; q < 4; q++)
      for (int r = 0; r < R; r++)
        acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(a->x + (m0 + r) * a->ldx + k + 8 * q), v[q], acc[r]);
  }
  for (int r = 0; r < R; r++) a->out[(m0 + r) * a->ldo + n] = hsum(acc[r]);
}

INLINE void few_rows_tables_all(const avx2_ctx *x, const int kind, int64_t n, int64_t k0, int64_t k1) {
  for (int64_t m0 = 0; m0 < x->a->m; m0 += 4) {
    switch (x->a->m - m0) {
      case 1: few_rows_tables(x, kind, 1, n, m0, k0, k1); break;
      case 2: few_rows_tables(x, kind, 2, n, m0, k0, k1); break;
      case 3: few_rows_tables(x, kind, 3, n, m0, k0, k1); break;
      default: few_rows_tables(x, kind, 4, n, m0, k0, k1); break;
    }
  }
}

INLINE void few_rows_gemv_rows(const avx2_ctx *x, const int kind, int64_t n, int64_t k0, int64_t k1) {
  for (int64_t m0 = 0; m0 < x->a->m; m0 += 4) {
    switch (x->a->m - m0) {
      case 1: few_rows_gemv(x, kind, 1, n, m0, k0, k1); break;
      case 2: few_rows_gemv(x, kind, 2, n, m0, k0, k1); break;
      case 3: few_rows_gemv(x, kind, 3, n, m0, k0, k1); break;
      default: few_rows_gemv(x, kind, 4, n, m0, k0, k1); break;
    }
  }
}

TARGET static void few_rows_gemv_all(const avx2_ctx *x, const int kind, int64_t n, int64_t k0, int64_t k1) {
  if (kind == GEMV_QUAD) few_rows_gemv_rows(x, GEMV_QUAD, n, k0, k1);
  else if (kind == GEMV_PERM8) few_rows_gemv_rows(x, GEMV_PERM8, n, k0, k1);
  else few_rows_gemv_rows(x, GEMV_PLANES, n, k0, k1);
}

/* R (<= 8) rows of X against one dequantized segment; accumulator of row
 * i at acc[i·stride]. */
INLINE void segment_rows(const cpu_kernel_args *a, const int R, int64_t m0, int64_t k, int chunks,
                         const __m256 (*buf)[4], __m256 *acc, int stride) {
  __m256 r[8];
  for (int i = 0; i < R; i++) r[i] = acc[i * stride];
  for (int j = 0; j < chunks; j++)
    for (int q = 0; q < 4; q++) {
      const __m256 w = buf[j][q];
      for (int i = 0; i < R; i++)
        r[i] = _mm256_fmadd_ps(_mm256_loadu_ps(a->x + (m0 + i) * a->ldx + k + CPU_CHUNK_K * j + 8 * q), w, r[i]);
    }
  for (int i = 0; i < R; i++) acc[i * stride] = r[i];
}

TARGET static void segment_all_rows(const cpu_kernel_args *a, int64_t m0, int rows, int64_t k, int chunks,
                                    const __m256 (*buf)[4], __m256 *acc, int stride) {
  /* Eight rows give eight independent FMA chains: enough to hide latency. */
  int i = 0;
  for (; i + 8 <= rows; i += 8) segment_rows(a, 8, m0 + i, k, chunks, buf, acc + i * stride, stride);
  if (i + 4 <= rows) {
    segment_rows(a, 4, m0 + i, k, chunks, buf, acc + i * stride, stride);
    i += 4;
  }
  switch (rows - i) {
    case 3: segment_rows(a, 3, m0 + i, k, chunks, buf, acc + i * stride, stride); break;
    case 2: segment_rows(a, 2, m0 + i, k, chunks, buf, acc + i * stride, stride); break;
    case 1: segment_rows(a, 1, m0 + i, k, chunks, buf, acc + i * stride, stride); break;
    default: break;
  }
}

/* M >= 2: a tile of up to TILE_COLUMNS columns and ROW_BLOCK rows. Segment
 * by segment along K, each column's segment is dequantized once into buf
 * and multiplied with every row, so the segment of X stays in L1 while the
 * columns pass over it. */
INLINE void many_rows(const avx2_ctx *x, const int kind, int64_t n0, int cols, int64_t m0, int rows, int64_t k0,
                      int64_t k1) {
  const cpu_kernel_args *a = x->a;
  __m256 acc[ROW_BLOCK][TILE_COLUMNS];
  __m256 buf[SEGMENT_CHUNKS][4];
  col_tables t;
  for (int i = 0; i < rows; i++)
    for (int c = 0; c < cols; c++) acc[i][c] = _mm256_setzero_ps();
  for (int64_t k = k0; k < k1; k += SEGMENT_CHUNKS * CPU_CHUNK_K) {
    const int chunks = k1 - k < SEGMENT_CHUNKS * CPU_CHUNK_K ? (int)((k1 - k) / CPU_CHUNK_K) : SEGMENT_CHUNKS;
    for (int c = 0; c < cols; c++) {
      reset_tables(&t);
      for (int j = 0; j < chunks; j++) {
        update_tables(x, n0 + c, k + CPU_CHUNK_K * j, &t);
        lookup(x, kind, &t, cpu_codes_chunk(a->codes, n0 + c, (k + CPU_CHUNK_K * j) / CPU_CHUNK_K), buf[j]);
      }
      segment_all_rows(a, m0, rows, k, chunks, (const __m256(*)[4])buf, &acc[0][c], TILE_COLUMNS);
    }
  }
  for (int i = 0; i < rows; i++)
    for (int c = 0; c < cols; c++) a->out[(m0 + i) * a->ldo + n0 + c] = hsum(acc[i][c]);
}

INLINE void run_kind(const avx2_ctx *x, const int kind, int64_t block0, int64_t block1, int64_t k0, int64_t k1) {
  const cpu_kernel_args *a = x->a;
  const int scaled = kind == LOOKUP_SCALED_PLANES || kind == LOOKUP_SCALED_QUAD;
  for (int64_t block = block0; block < block1 && a->m == 1; block++) {
    if (scaled) gemv_block(x, gemv_kind_for(a, kind), block, k0, k1);
    else single_row(x, kind, block, k0, k1);
  }
  if (a->m == 1) return;
  if (kind != LOOKUP_GATHER && a->m <= (scaled ? FEW_ROWS : FEW_ROWS_TABLES)) {
    for (int64_t n = block0 * CPU_BLOCK_N; n < block1 * CPU_BLOCK_N && n < a->n; n++) {
      if (scaled) few_rows_gemv_all(x, gemv_kind_for(a, kind), n, k0, k1);
      else few_rows_tables_all(x, kind, n, k0, k1);
    }
    return;
  }
  const int64_t n_end = block1 * CPU_BLOCK_N < a->n ? block1 * CPU_BLOCK_N : a->n;
  for (int64_t n0 = block0 * CPU_BLOCK_N; n0 < n_end; n0 += TILE_COLUMNS) {
    const int cols = n_end - n0 < TILE_COLUMNS ? (int)(n_end - n0) : TILE_COLUMNS;
    for (int64_t m0 = 0; m0 < a->m; m0 += ROW_BLOCK)
      many_rows(x, kind, n0, cols, m0, a->m - m0 < ROW_BLOCK ? (int)(a->m - m0) : ROW_BLOCK, k0, k1);
  }
}

TARGET static void run_quad(const avx2_ctx *x, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(x, LOOKUP_QUAD, b0, b1, k0, k1);
}
TARGET static void run_planes(const avx2_ctx *x, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(x, LOOKUP_PLANES, b0, b1, k0, k1);
}
TARGET static void run_scaled_quad(const avx2_ctx *x, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(x, LOOKUP_SCALED_QUAD, b0, b1, k0, k1);
}
TARGET static void run_scaled_planes(const avx2_ctx *x, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(x, LOOKUP_SCALED_PLANES, b0, b1, k0, k1);
}
TARGET static void run_gather(const avx2_ctx *x, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(x, LOOKUP_GATHER, b0, b1, k0, k1);
}

TARGET static void init_ctx(const cpu_kernel_args *a, avx2_ctx *x) {
  const int bits = a->codes->bits, size = 1 << bits;
  float arranged[16];
  for (int i = 0; i < 16; i++) arranged[i] = a->table_c[bits <= 2 ? i % size : i];
  x->a = a;
  memset(&x->shared, 0, sizeof x->shared); /* the gemv paths read every plane, whatever the kind */
  const int scaled = a->c == LUTMM_DTYPE_F32;
  x->kind = bits > 4    ? LOOKUP_GATHER
            : bits <= 2 ? (scaled ? LOOKUP_SCALED_QUAD : LOOKUP_QUAD)
                        : (scaled ? LOOKUP_SCALED_PLANES : LOOKUP_PLANES);
  x->t0 = _mm256_loadu_ps(arranged);
  x->t1 = _mm256_loadu_ps(arranged + 8);
  if (x->kind == LOOKUP_SCALED_QUAD) x->shared.quad = _mm256_permute2f128_ps(x->t0, x->t0, 0x00);
  if (x->kind == LOOKUP_SCALED_PLANES) {
    __m256i u, w;
    byte_planes(x->t0, x->t1, &u, &w);
    x->shared.plane[0] = _mm256_permute2x128_si256(u, u, 0x00);
    x->shared.plane[1] = _mm256_permute2x128_si256(w, w, 0x00);
    x->shared.plane[2] = _mm256_permute2x128_si256(u, u, 0x11);
    x->shared.plane[3] = _mm256_permute2x128_si256(w, w, 0x11);
  }
}

TARGET void cpu_kernel_avx2(const cpu_kernel_args *a, int64_t block0, int64_t block1, int64_t k0, int64_t k1) {
  avx2_ctx x;
  init_ctx(a, &x);
  if (x.kind == LOOKUP_QUAD) run_quad(&x, block0, block1, k0, k1);
  else if (x.kind == LOOKUP_SCALED_QUAD) run_scaled_quad(&x, block0, block1, k0, k1);
  else if (x.kind == LOOKUP_PLANES) run_planes(&x, block0, block1, k0, k1);
  else if (x.kind == LOOKUP_SCALED_PLANES) run_scaled_planes(&x, block0, block1, k0, k1);
  else run_gather(&x, block0, block1, k0, k1);
}

/* Large-M dequantization, stored in lane order (cpu_kernel.h: the large-M
 * driver puts X in the same order, so whole vectors are stored): the
 * general lookups, tables checked per chunk. */
INLINE void dequant_kind(const avx2_ctx *x, const int kind, int64_t n0, int64_t n1, int64_t k0, int64_t k1,
                         float *panel, int64_t ld) {
  const cpu_kernel_args *a = x->a;
  col_tables t;
  for (int64_t n = n0; n < n1; n++) {
    float *column = panel + (n - n0) * ld;
    reset_tables(&t);
    for (int64_t k = k0; k < k1; k += CPU_CHUNK_K) {
      __m256 v[4];
      update_tables(x, n, k, &t);
      lookup(x, kind, &t, cpu_codes_chunk(a->codes, n, k / CPU_CHUNK_K), v);
      for (int q = 0; q < 4; q++) _mm256_storeu_ps(column + (k - k0) + 8 * q, v[q]);
    }
  }
}

/* The same for fp32 1-4 bit codes in chunk-aligned groups, with the M = 1
 * kernel's lookups: one table per group and column from the widened
 * scales, no per-chunk checks. */
INLINE void dequant_gemv(const avx2_ctx *x, const int kind, int64_t n0, int64_t n1, int64_t k0, int64_t k1,
                         float *panel, int64_t ld) {
  const cpu_kernel_args *a = x->a;
  const __m256i p0 = x->shared.plane[0], p1 = x->shared.plane[1], p2 = x->shared.plane[2], p3 = x->shared.plane[3];
  const size_t chunk_step = CPU_BLOCK_N * (size_t)a->codes->chunk_bytes;
  const int64_t g = a->group_size;
  for (int64_t n = n0; n < n1; n++) {
    float *column = panel + (n - n0) * ld;
    const uint8_t *chunk = cpu_codes_chunk(a->codes, n, k0 / CPU_CHUNK_K);
    /* A cut may start or end inside a group: segments end at the group's
     * end or the cut's, whichever comes first. */
    for (int64_t k = k0, group = k0 / g; k < k1; group++) {
      const __m256 table = segment_table(x, kind, 1, group, n, k);
      for (const int64_t end = gemv_segment_end(g, 1, group, k, k1); k < end; k += CPU_CHUNK_K, chunk += chunk_step) {
        __m256 v[4];
        gemv_values(kind, p0, p1, p2, p3, table, chunk, v);
        for (int q = 0; q < 4; q++) _mm256_storeu_ps(column + (k - k0) + 8 * q, v[q]);
      }
    }
  }
}

TARGET void cpu_dequant_avx2(const cpu_kernel_args *a, int64_t n0, int64_t n1, int64_t k0, int64_t k1, float *panel,
                             int64_t ld) {
  avx2_ctx x;
  init_ctx(a, &x);
  const int aligned = a->group_size % CPU_CHUNK_K == 0;
  const int perm8 = a->codes->bits == 3 && aligned;
  if (x.kind == LOOKUP_SCALED_QUAD && aligned) dequant_gemv(&x, GEMV_QUAD, n0, n1, k0, k1, panel, ld);
  else if (x.kind == LOOKUP_SCALED_PLANES && perm8) dequant_gemv(&x, GEMV_PERM8, n0, n1, k0, k1, panel, ld);
  else if (x.kind == LOOKUP_SCALED_PLANES && aligned) dequant_gemv(&x, GEMV_PLANES, n0, n1, k0, k1, panel, ld);
  else if (x.kind == LOOKUP_QUAD) dequant_kind(&x, LOOKUP_QUAD, n0, n1, k0, k1, panel, ld);
  else if (x.kind == LOOKUP_SCALED_QUAD) dequant_kind(&x, LOOKUP_SCALED_QUAD, n0, n1, k0, k1, panel, ld);
  else if (x.kind == LOOKUP_PLANES) dequant_kind(&x, LOOKUP_PLANES, n0, n1, k0, k1, panel, ld);
  else if (x.kind == LOOKUP_SCALED_PLANES) dequant_kind(&x, LOOKUP_SCALED_PLANES, n0, n1, k0, k1, panel, ld);
  else dequant_kind(&x, LOOKUP_GATHER, n0, n1, k0, k1, panel, ld);
}
#endif
