/* AVX-512 kernel. Same codes, lane order and tables as the AVX2 kernel
 * (cpu_kernel.h), sixteen lanes at a time: a 32-row chunk is two vectors,
 * Z0 = [V0 | V1] and Z1 = [V2 | V3], so X in lane order lines up as is.
 * Codes reach their lanes with one vpermd and one vpsrlvd, and a lookup is
 * a single permute over a whole 16-entry fp32 table:
 *   bits 1-4  vpermps (the table repeated for narrower codes)
 *   bits 5    vpermi2ps over the 32 entries
 *   bits 6-8  vgatherdps from the table on the stack
 * fp32 activations with 1-5 bit codes share T's registers across columns and
 * multiply by s after the lookup (fl(T·s) = ŵ exactly); fp16/bf16 build
 * ŵ = round_c(T_c × s_c) per (group, column). Lanes 4-7 and 12-15 belong to
 * a chunk's second 16-row half, which has its own group when g = 16. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include "cpu_kernel.h"

#define TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx2,fma,f16c")))
#define INLINE static inline __attribute__((always_inline)) TARGET

/* M >= 2 tiles, as in the AVX2 kernel. */
#define SEGMENT_CHUNKS 4
#define TILE_COLUMNS 16
#define ROW_BLOCK 32
/* Lanes of the second half of a chunk. */
#define SECOND_HALF ((__mmask16)0xF0F0)

enum lookup_kind { LOOKUP_PERM, LOOKUP_PERM2, LOOKUP_GATHER };

typedef struct zmm_ctx {
  const cpu_kernel_args *a;
  int kind;   /* how codes index a table */
  int scaled; /* fp32: shared T, multiply by s after the lookup */
  int bits;
  __m512 t0, t1;        /* T_c entries 0..15 and 16..31 (bits <= 4: entry i mod 2^bits) */
  __m512i route[2];     /* vpermd picking each lane's source dword, for Z0 and Z1 */
  __m512i shift[2];     /* then the right shift to its code */
  __m512i mask;         /* code mask after the shift */
} zmm_ctx;

/* One column's values for the current chunk's groups. */
typedef struct zmm_tables {
  int64_t next_k;
  __m512 scale;          /* scaled: s per lane */
  __m512 lo[2], hi[2];   /* per half: entries 0..15 and 16..31 */
  float mem[2 * LUTMM_MAX_TABLE_SIZE];
  int halves_differ;
} zmm_tables;

INLINE __m512 round_c(__m512 p, lutmm_dtype c) {
  if (c == LUTMM_DTYPE_F16) return _mm512_cvtph_ps(_mm512_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT));
  if (c == LUTMM_DTYPE_BF16) {
    const __m512i u = _mm512_castps_si512(p);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    const __m512i r = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), odd);
    return _mm512_castsi512_ps(_mm512_and_si512(r, _mm512_set1_epi32((int)0xFFFF0000u)));
  }
  return p;
}

static inline int64_t segment_end(int64_t g, int64_t k, int64_t k1) {
  const int64_t end0 = (k / g + 1) * g, end1 = ((k + 16) / g + 1) * g - 16;
  const int64_t end = end0 < end1 ? end0 : end1;
  return end < k1 ? end : k1;
}

/* ŵ of one (group, column): entries 0..31 in *lo, *hi, or the whole table
 * in mem (gather). */
TARGET static void group_values(const zmm_ctx *z, int64_t group, int64_t n, __m512 *lo, __m512 *hi, float *mem) {
  const cpu_kernel_args *a = z->a;
  const float s = cpu_scale_c(a, group, n);
  const int size = 1 << z->bits;
  if (a->c == LUTMM_DTYPE_BF16 && cpu_bf16_table_is_tiny(a, s)) {
    float exact[LUTMM_MAX_TABLE_SIZE], arranged[32];
    cpu_dequant_table(a, s, exact);
    if (z->kind == LOOKUP_GATHER) {
      memcpy(mem, exact, sizeof(float) * (size_t)size);
      return;
    }
    for (int i = 0; i < 32; i++) arranged[i] = exact[i % size];
    *lo = _mm512_loadu_ps(arranged);
    *hi = _mm512_loadu_ps(arranged + 16);
    return;
  }
  const __m512 sv = _mm512_set1_ps(s);
  if (z->kind == LOOKUP_GATHER) {
    for (int i = 0; i < size; i += 16)
      _mm512_storeu_ps(mem + i, round_c(_mm512_mul_ps(_mm512_loadu_ps(a->table_c + i), sv), a->c));
    return;
  }
  *lo = round_c(_mm512_mul_ps(z->t0, sv), a->c);
  *hi = round_c(_mm512_mul_ps(z->t1, sv), a->c);
}

/* Makes t valid for the chunk at row k of column n. */
TARGET static void build_tables(const zmm_ctx *z, int64_t n, int64_t k, zmm_tables *t) {
  const cpu_kernel_args *a = z->a;
  const int64_t g0 = k / a->group_size, g1 = (k + 16) / a->group_size;
  t->halves_differ = g0 != g1;
  if (z->scaled) {
    const __m512 s0 = _mm512_set1_ps(cpu_scale_c(a, g0, n));
    t->scale = t->halves_differ ? _mm512_mask_blend_ps(SECOND_HALF, s0, _mm512_set1_ps(cpu_scale_c(a, g1, n))) : s0;
  } else {
    group_values(z, g0, n, &t->lo[0], &t->hi[0], t->mem);
    if (t->halves_differ) group_values(z, g1, n, &t->lo[1], &t->hi[1], t->mem + LUTMM_MAX_TABLE_SIZE);
    else if (z->kind == LOOKUP_GATHER) memcpy(t->mem + LUTMM_MAX_TABLE_SIZE, t->mem, sizeof(float) << z->bits);
  }
  t->next_k = segment_end(a->group_size, k, INT64_MAX);
}

INLINE void update_tables(const zmm_ctx *z, int64_t n, int64_t k, zmm_tables *t) {
  if (k >= t->next_k) build_tables(z, n, k, t);
}

/* Codes of half-chunk vector h (Z0 or Z1) in their lanes; format is the
 * chunk format's bits (2, 4 or 8), a constant in every caller. */
INLINE __m512i codes_of(const zmm_ctx *z, const int format, const uint8_t *chunk, int h) {
  __m512i bytes;
  if (format == 2) {
    long long word;
    memcpy(&word, chunk, sizeof word);
    bytes = _mm512_cvtepu8_epi32(_mm_set1_epi64x(word));
  } else if (format == 4) bytes = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)chunk));
  else bytes = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)chunk));
  const __m512i routed = _mm512_permutexvar_epi32(z->route[h], bytes);
  return _mm512_and_si512(_mm512_srlv_epi32(routed, z->shift[h]), z->mask);
}

/* The variants a call specializes on: chunk format, lookup, scaled. */
typedef struct zmm_plan {
  int format, kind, scaled;
} zmm_plan;

INLINE __m512 lookup(const zmm_ctx *z, const zmm_plan p, const zmm_tables *t, const uint8_t *chunk, int h) {
  const int kind = p.kind;
  const __m512i idx = codes_of(z, p.format, chunk, h);
  if (p.scaled) {
    const __m512 v = kind == LOOKUP_PERM ? _mm512_permutexvar_ps(idx, z->t0) : _mm512_permutex2var_ps(z->t0, idx, z->t1);
    return _mm512_mul_ps(v, t->scale);
  }
  if (kind == LOOKUP_GATHER) {
    const __m512i offset = _mm512_mask_blend_epi32(SECOND_HALF, _mm512_setzero_si512(), _mm512_set1_epi32(256));
    return _mm512_i32gather_ps(_mm512_add_epi32(idx, offset), t->mem, 4);
  }
  __m512 v = kind == LOOKUP_PERM ? _mm512_permutexvar_ps(idx, t->lo[0]) : _mm512_permutex2var_ps(t->lo[0], idx, t->hi[0]);
  if (t->halves_differ) {
    const __m512 w = kind == LOOKUP_PERM ? _mm512_permutexvar_ps(idx, t->lo[1])
                                         : _mm512_permutex2var_ps(t->lo[1], idx, t->hi[1]);
    v = _mm512_mask_blend_ps(SECOND_HALF, v, w);
  }
  return v;
}

/* M = 1: two columns at a time, one accumulator per half-chunk vector. */
INLINE void single_row(const zmm_ctx *z, const zmm_plan kind, int64_t n0, int cols, int64_t k0, int64_t k1) {
  const cpu_kernel_args *a = z->a;
  zmm_tables t[2];
  __m512 acc0[2], acc1[2];
  for (int c = 0; c < cols; c++) {
    t[c].next_k = -1;
    acc0[c] = acc1[c] = _mm512_setzero_ps();
  }
  for (int64_t k = k0; k < k1; k += CPU_CHUNK_K) {
    const float *xk = a->x + k;
    for (int c = 0; c < cols; c++) {
      const uint8_t *chunk = cpu_codes_chunk(a->codes, n0 + c, k / CPU_CHUNK_K);
      update_tables(z, n0 + c, k, &t[c]);
      acc0[c] = _mm512_fmadd_ps(_mm512_loadu_ps(xk), lookup(z, kind, &t[c], chunk, 0), acc0[c]);
      acc1[c] = _mm512_fmadd_ps(_mm512_loadu_ps(xk + 16), lookup(z, kind, &t[c], chunk, 1), acc1[c]);
    }
  }
  for (int c = 0; c < cols; c++)
    if (n0 + c < a->n) a->out[n0 + c] = _mm512_reduce_add_ps(_mm512_add_ps(acc0[c], acc1[c]));
}

/* R (<= 8) rows against a dequantized segment. */
INLINE void segment_rows(const cpu_kernel_args *a, const int R, int64_t m0, int64_t k, int vectors,
                         const __m512 *buf, __m512 *acc, int stride) {
  __m512 r[8];
  for (int i = 0; i < R; i++) r[i] = acc[i * stride];
  for (int j = 0; j < vectors; j++)
    for (int i = 0; i < R; i++)
      r[i] = _mm512_fmadd_ps(_mm512_loadu_ps(a->x + (m0 + i) * a->ldx + k + 16 * j), buf[j], r[i]);
  for (int i = 0; i < R; i++) acc[i * stride] = r[i];
}

TARGET static void segment_all_rows(const cpu_kernel_args *a, int64_t m0, int rows, int64_t k, int vectors,
                                    const __m512 *buf, __m512 *acc, int stride) {
  int i = 0;
  for (; i + 8 <= rows; i += 8) segment_rows(a, 8, m0 + i, k, vectors, buf, acc + i * stride, stride);
  if (i + 4 <= rows) {
    segment_rows(a, 4, m0 + i, k, vectors, buf, acc + i * stride, stride);
    i += 4;
  }
  for (; i < rows; i++) segment_rows(a, 1, m0 + i, k, vectors, buf, acc + i * stride, stride);
}

INLINE void many_rows(const zmm_ctx *z, const zmm_plan kind, int64_t n0, int cols, int64_t m0, int rows, int64_t k0,
                      int64_t k1) {
  const cpu_kernel_args *a = z->a;
  __m512 acc[ROW_BLOCK][TILE_COLUMNS];
  __m512 buf[2 * SEGMENT_CHUNKS];
  zmm_tables t;
  for (int i = 0; i < rows; i++)
    for (int c = 0; c < cols; c++) acc[i][c] = _mm512_setzero_ps();
  for (int64_t k = k0; k < k1; k += SEGMENT_CHUNKS * CPU_CHUNK_K) {
    const int chunks = k1 - k < SEGMENT_CHUNKS * CPU_CHUNK_K ? (int)((k1 - k) / CPU_CHUNK_K) : SEGMENT_CHUNKS;
    for (int c = 0; c < cols; c++) {
      t.next_k = -1;
      for (int j = 0; j < chunks; j++) {
        const int64_t kj = k + CPU_CHUNK_K * j;
        const uint8_t *chunk = cpu_codes_chunk(a->codes, n0 + c, kj / CPU_CHUNK_K);
        update_tables(z, n0 + c, kj, &t);
        buf[2 * j] = lookup(z, kind, &t, chunk, 0);
        buf[2 * j + 1] = lookup(z, kind, &t, chunk, 1);
      }
      segment_all_rows(a, m0, rows, k, 2 * chunks, buf, &acc[0][c], TILE_COLUMNS);
    }
  }
  for (int i = 0; i < rows; i++)
    for (int c = 0; c < cols; c++) a->out[(m0 + i) * a->ldo + n0 + c] = _mm512_reduce_add_ps(acc[i][c]);
}

INLINE void run_kind(const zmm_ctx *z, const zmm_plan kind, int64_t block0, int64_t block1, int64_t k0, int64_t k1) {
  const cpu_kernel_args *a = z->a;
  const int64_t n_end = block1 * CPU_BLOCK_N < a->n ? block1 * CPU_BLOCK_N : a->n;
  if (a->m == 1) {
    for (int64_t n0 = block0 * CPU_BLOCK_N; n0 < n_end; n0 += 2) single_row(z, kind, n0, n_end - n0 < 2 ? 1 : 2, k0, k1);
    return;
  }
  for (int64_t n0 = block0 * CPU_BLOCK_N; n0 < n_end; n0 += TILE_COLUMNS) {
    const int cols = n_end - n0 < TILE_COLUMNS ? (int)(n_end - n0) : TILE_COLUMNS;
    for (int64_t m0 = 0; m0 < a->m; m0 += ROW_BLOCK)
      many_rows(z, kind, n0, cols, m0, a->m - m0 < ROW_BLOCK ? (int)(a->m - m0) : ROW_BLOCK, k0, k1);
  }
}

/* One instantiation per plan, so every branch on it folds away. */
TARGET static void run_2bit_scaled(const zmm_ctx *z, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(z, (zmm_plan){2, LOOKUP_PERM, 1}, b0, b1, k0, k1);
}
TARGET static void run_2bit_table(const zmm_ctx *z, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(z, (zmm_plan){2, LOOKUP_PERM, 0}, b0, b1, k0, k1);
}
TARGET static void run_4bit_scaled(const zmm_ctx *z, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(z, (zmm_plan){4, LOOKUP_PERM, 1}, b0, b1, k0, k1);
}
TARGET static void run_4bit_table(const zmm_ctx *z, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(z, (zmm_plan){4, LOOKUP_PERM, 0}, b0, b1, k0, k1);
}
TARGET static void run_5bit_scaled(const zmm_ctx *z, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(z, (zmm_plan){8, LOOKUP_PERM2, 1}, b0, b1, k0, k1);
}
TARGET static void run_5bit_table(const zmm_ctx *z, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(z, (zmm_plan){8, LOOKUP_PERM2, 0}, b0, b1, k0, k1);
}
TARGET static void run_gather(const zmm_ctx *z, int64_t b0, int64_t b1, int64_t k0, int64_t k1) {
  run_kind(z, (zmm_plan){8, LOOKUP_GATHER, 0}, b0, b1, k0, k1);
}

/* Lane L of Z_h holds row 16·((L%8)/4) + 4·(2h + L/8) + L%4 (lane order);
 * where its code sits in each storage format (cpu_codes.h) gives the route
 * (source dword after widening) and the shift. */
TARGET static void init_routes(zmm_ctx *z) {
  int route[2][16], shift[2][16];
  for (int h = 0; h < 2; h++)
    for (int lane = 0; lane < 16; lane++) {
      const int l = lane % 8, q = 2 * h + lane / 8, half = l / 4, t = l % 4;
      if (z->bits <= 2) { /* byte 4·half + t (= l), bits 2q; bytes widened twice over */
        route[h][lane] = l;
        shift[h][lane] = 2 * q;
      } else if (z->bits <= 4) { /* byte 4q + t, nibble `half` */
        route[h][lane] = 4 * q + t;
        shift[h][lane] = 4 * half;
      } else { /* byte 16·half + 4q + t of 32: dword 4·half + q, byte t */
        route[h][lane] = 4 * half + q;
        shift[h][lane] = 8 * t;
      }
    }
  for (int h = 0; h < 2; h++) {
    z->route[h] = _mm512_loadu_si512(route[h]);
    z->shift[h] = _mm512_loadu_si512(shift[h]);
  }
  z->mask = _mm512_set1_epi32(z->bits <= 2 ? 3 : z->bits <= 4 ? 15 : 255);
}

TARGET void cpu_kernel_avx512(const cpu_kernel_args *a, int64_t block0, int64_t block1, int64_t k0, int64_t k1) {
  zmm_ctx z;
  memset(&z, 0, sizeof z);
  z.a = a;
  z.bits = a->codes->bits;
  z.kind = z.bits <= 4 ? LOOKUP_PERM : z.bits == 5 ? LOOKUP_PERM2 : LOOKUP_GATHER;
  z.scaled = a->c == LUTMM_DTYPE_F32 && z.kind != LOOKUP_GATHER;
  float arranged[32];
  const int size = 1 << z.bits;
  for (int i = 0; i < 32; i++) arranged[i] = a->table_c[i % size];
  z.t0 = _mm512_loadu_ps(arranged);
  z.t1 = _mm512_loadu_ps(arranged + 16);
  init_routes(&z);
  if (z.kind == LOOKUP_GATHER) run_gather(&z, block0, block1, k0, k1);
  else if (z.bits <= 2) (z.scaled ? run_2bit_scaled : run_2bit_table)(&z, block0, block1, k0, k1);
  else if (z.bits <= 4) (z.scaled ? run_4bit_scaled : run_4bit_table)(&z, block0, block1, k0, k1);
  else (z.scaled ? run_5bit_scaled : run_5bit_table)(&z, block0, block1, k0, k1);
}
#endif
