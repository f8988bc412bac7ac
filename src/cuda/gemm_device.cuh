/* Small device building blocks of the GEMM kernel: PTX wrappers for cp.async,
 * ldmatrix and mma.sync, and the compute-dtype traits (fp16 or bf16). */
#ifndef LUTMM_CUDA_GEMM_DEVICE_CUH
#define LUTMM_CUDA_GEMM_DEVICE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

#include "gemm_params.h"
#include "lutmm.h"

namespace lutmm_kernels {

__device__ __forceinline__ uint32_t smem_address(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

/* v, as a value the compiler cannot rebuild: computed once where this
 * stands and kept in a register. Left to themselves, the compilers rebuilt
 * lane-derived shared addresses a loop uses at every step from the lane
 * number each time, two or three instructions a use (the column-stream
 * kernel's table address, docs/PERF.md change 91). */
__device__ __forceinline__ uint32_t kept(uint32_t v) {
  asm volatile("" : "+r"(v));
  return v;
}

/* 16-byte global→shared copy to shared-window address `dst`; src_bytes 0
 * writes zeros (the pointer is not read). */
__device__ __forceinline__ void cp_async16_at(uint32_t dst, const void *src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}

/* The same to a generic pointer into shared memory. */
__device__ __forceinline__ void cp_async16(void *dst, const void *src, int src_bytes) {
  cp_async16_at(smem_address(dst), src, src_bytes);
}

/* 16 bytes stored at shared-window address `dst`. */
__device__ __forceinline__ void store_shared16(uint32_t dst, uint4 v) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

/* The dynamic shared memory this launch was given. */
__device__ __forceinline__ uint32_t dynamic_smem_bytes() {
  uint32_t bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

/* 16 bytes to shared address `dst`, kept out of L1 (read once). */
__device__ __forceinline__ void cp_async16_to(uint32_t dst, const void *src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

/* cp_async16_to, or 16 zeros when !ok; src must be a valid global address
 * either way (it is not read when !ok). With nothing selected the address
 * keeps its immediate offset, so a copy is one instruction. */
__device__ __forceinline__ void cp_async16_or_zero_valid(uint32_t dst, const void *src, bool ok) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 16 : 0));
}

/* cp_async16_to, or 16 zeros when !ok: `fallback`, any valid global
 * address, stands in for src then and is not read. */
__device__ __forceinline__ void cp_async16_or_zero(uint32_t dst, const void *src, bool ok, const void *fallback) {
  cp_async16_or_zero_valid(dst, ok ? src : fallback, ok);
}

/* An L2 policy under which the lines it tags are evicted first: for weights
 * that one kernel reads exactly once, so that streaming them does not push
 * out of L2 what the kernel reads again later (the cut columns' partials,
 * X, scales). */
__device__ __forceinline__ uint64_t l2_evict_first_policy() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}

/* cp_async16_to tagged with an L2 policy (l2_evict_first_policy). */
__device__ __forceinline__ void cp_async16_stream(uint32_t dst, const void *src, uint64_t policy) {
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "l"(policy));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

/* Waits until at most `pending` committed groups are in flight (0..7). */
__device__ __forceinline__ void cp_async_wait(int pending) {
  switch (pending) {
    case 0: asm volatile("cp.async.wait_group 0;\n" ::); break;
    case 1: asm volatile("cp.async.wait_group 1;\n" ::); break;
    case 2: asm volatile("cp.async.wait_group 2;\n" ::); break;
    case 3: asm volatile("cp.async.wait_group 3;\n" ::); break;
    case 4: asm volatile("cp.async.wait_group 4;\n" ::); break;
    case 5: asm volatile("cp.async.wait_group 5;\n" ::); break;
    case 6: asm volatile("cp.async.wait_group 6;\n" ::); break;
    default: asm volatile("cp.async.wait_group 7;\n" ::); break;
  }
}

/* Zeroes an array of fp32 accumulators of any shape (fully unrolled: they
 * live in registers). */
template <typename Acc>
__device__ __forceinline__ void zero_floats(Acc &acc) {
  float *f = reinterpret_cast<float *>(&acc);
#pragma unroll
  for (int i = 0; i < (int)(sizeof(Acc) / sizeof(float)); i++) f[i] = 0.0f;
}

/* The A fragment of one m16k16 block of X. */
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&a)[4], const void *row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(smem_address(row_address)));
}

/* ldmatrix_x4 with .trans: lane 4g + q receives column g of rows 2q and
 * 2q + 1 of each matrix (row 2q in the low half). */
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&a)[4], const void *row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(smem_address(row_address)));
}

__device__ __forceinline__ uint32_t bits_of(__half2 h) {
  uint32_t u;
  memcpy(&u, &h, 4);
  return u;
}
__device__ __forceinline__ uint32_t bits_of(__nv_bfloat162 h) {
  uint32_t u;
  memcpy(&u, &h, 4);
  return u;
}

template <typename T>
struct compute;

template <>
struct compute<__half> {
  static constexpr lutmm_dtype kDtype = LUTMM_DTYPE_F16;
  /* Round to nearest-even, as lutmm_round_to_dtype. */
  static __device__ __forceinline__ uint16_t from_float(float f) { return __half_as_ushort(__float2half_rn(f)); }
  static __device__ __forceinline__ float to_float(uint16_t b) { return __half2float(__ushort_as_half(b)); }
  static __device__ __forceinline__ uint32_t mul2(uint32_t a, uint32_t b) {
    __half2 x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return bits_of(__hmul2(x, y));
  }
  /* a times the low (high) half of s in both halves: ptxas reads s as
   * HMUL2's .H0_H0 (.H1_H1) operand, so a scale needs no broadcast of its
   * own. */
  static __device__ __forceinline__ uint32_t mul2_low(uint32_t a, uint32_t s) {
    __half2 x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &s, 4);
    return bits_of(__hmul2(x, __low2half2(y)));
  }
  static __device__ __forceinline__ uint32_t mul2_high(uint32_t a, uint32_t s) {
    __half2 x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &s, 4);
    return bits_of(__hmul2(x, __high2half2(y)));
  }
  static __device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

template <>
struct compute<__nv_bfloat16> {
  static constexpr lutmm_dtype kDtype = LUTMM_DTYPE_BF16;
  static __device__ __forceinline__ uint16_t from_float(float f) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(f));
  }
  static __device__ __forceinline__ float to_float(uint16_t b) { return __bfloat162float(__ushort_as_bfloat16(b)); }
  static __device__ __forceinline__ uint32_t mul2(uint32_t a, uint32_t b) {
    __nv_bfloat162 x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &b, 4);
    return bits_of(__hmul2(x, y));
  }
  static __device__ __forceinline__ uint32_t mul2_low(uint32_t a, uint32_t s) {
    __nv_bfloat162 x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &s, 4);
    return bits_of(__hmul2(x, __low2bfloat162(y)));
  }
  static __device__ __forceinline__ uint32_t mul2_high(uint32_t a, uint32_t s) {
    __nv_bfloat162 x, y;
    memcpy(&x, &a, 4);
    memcpy(&y, &s, 4);
    return bits_of(__hmul2(x, __high2bfloat162(y)));
  }
  static __device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

/* A stored scale (any scale dtype) rounded once to compute dtype T. */
template <typename T>
__device__ __forceinline__ uint16_t scale_in(const uint8_t *row, int column, int scale_dtype) {
  if (scale_dtype == LUTMM_DTYPE_F32) return compute<T>::from_float(((const float *)row)[column]);
  const uint16_t raw = ((const uint16_t *)row)[column];
  if (scale_dtype == (int)compute<T>::kDtype) return raw;
  const float wide = scale_dtype == LUTMM_DTYPE_F16 ? __half2float(__ushort_as_half(raw))
                                                    : __bfloat162float(__ushort_as_bfloat16(raw));
  return compute<T>::from_float(wide);
}

/* Stores an fp32 result into Y's dtype, rounding to nearest-even once. */
__device__ __forceinline__ void store_output(void *y, int dtype, int64_t index, float v) {
  if (dtype == LUTMM_DTYPE_F32) ((float *)y)[index] = v;
  else if (dtype == LUTMM_DTYPE_F16) ((__half *)y)[index] = __float2half_rn(v);
  else ((__nv_bfloat16 *)y)[index] = __float2bfloat16_rn(v);
}

/* f((Out *)y) for Y's dtype Out: one store loop built for each dtype,
 * none of them testing the dtype a value. */
template <typename F>
__device__ __forceinline__ void with_typed_output(void *y, int dtype, F &&f) {
  if (dtype == LUTMM_DTYPE_F32) f((float *)y);
  else if (dtype == LUTMM_DTYPE_F16) f((__half *)y);
  else f((__nv_bfloat16 *)y);
}

/* The same rounding for a Y dtype fixed at compile time. */
template <typename Out>
__device__ __forceinline__ Out output_of(float v);
template <>
__device__ __forceinline__ float output_of<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half output_of<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 output_of<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

/* Slices of a code width, widest first (layout.h's rule), at compile time.
 * Loops, not recursion: a call the compiler does not fold must not recurse. */
__host__ __device__ constexpr int slice_count(int bits) {
  return (bits & 1) + ((bits >> 1) & 1) + ((bits >> 2) & 1) + ((bits >> 3) & 1);
}
__host__ __device__ constexpr int slice_width(int bits, int s) {
  int seen = 0;
  for (int w = 8; w >= 1; w /= 2)
    if (bits & w) {
      if (seen == s) return w;
      seen++;
    }
  return 0;
}
__host__ __device__ constexpr int slice_shift(int bits, int s) {
  int seen = 0, shift = 0;
  for (int w = 8; w >= 1; w /= 2)
    if (bits & w) {
      if (seen == s) return shift;
      shift += w;
      seen++;
    }
  return shift;
}

/* The slicing of BITS as constants the compiler must fold. */
template <int BITS>
struct slices {
  static constexpr int count = slice_count(BITS);
  static constexpr int w0 = slice_width(BITS, 0), w1 = slice_width(BITS, 1), w2 = slice_width(BITS, 2);
  static constexpr int s0 = slice_shift(BITS, 0), s1 = slice_shift(BITS, 1), s2 = slice_shift(BITS, 2);
  static __device__ __forceinline__ constexpr int width(int s) { return s == 0 ? w0 : s == 1 ? w1 : w2; }
  static __device__ __forceinline__ constexpr int shift(int s) { return s == 0 ? s0 : s == 1 ? s1 : s2; }
};

/* The two codes whose slices pair-table entry e holds: slice s of width w
 * sits at bits 2·shift_s of e, first code in its low w bits. */
template <int BITS>
__device__ __forceinline__ void pair_codes(int e, int &c0, int &c1) {
  c0 = 0;
  c1 = 0;
#pragma unroll
  for (int sl = 0; sl < slices<BITS>::count; sl++) {
    const int w = slices<BITS>::width(sl), sh = slices<BITS>::shift(sl);
    const int v = (e >> (2 * sh)) & ((1 << (2 * w)) - 1);
    c0 |= (v & ((1 << w) - 1)) << sh;
    c1 |= (v >> w) << sh;
  }
}

/* An atom's words as one lane sees them (FORMAT.md): word i of the lane's
 * 4·BITS 32-bit words, read through `w[i]` from registers (an array) or
 * from shared memory (stage_words in the wide kernel). */

/* Slice sl's bits of this lane's pairs of n16 block j in slab `slab`: the
 * word holding them, shifted so that each byte's low 2·width bits are the
 * pair's (first code low). A 4-bit-wide slice fills whole bytes, narrower
 * ones hold 2 or 4 n16 blocks per byte. */
template <int BITS, typename Words>
__device__ __forceinline__ uint32_t slice_bits(const Words &w, int sl, int slab, int j) {
  const int width = slices<BITS>::width(sl), sh = slices<BITS>::shift(sl);
  const uint32_t word = w[4 * sh + slab * width + j * width / 4];
  return word >> (width == 4 ? 0 : width == 2 ? 4 * (j % 2) : 2 * j);
}

/* Pair index word j of slab `slab` (codes of up to 4 bits): byte i holds
 * the pair index of this lane's pair i of n16 block j, slices merged at
 * 2·shift (pair_codes). */
template <int BITS, typename Words>
__device__ __forceinline__ uint32_t pair_indices(const Words &w, int slab, int j) {
  uint32_t index = 0;
#pragma unroll
  for (int sl = 0; sl < slices<BITS>::count; sl++) {
    const int width = slices<BITS>::width(sl);
    const uint32_t mask = width == 4 ? 0xFFFFFFFFu : width == 2 ? 0x0F0F0F0Fu : 0x03030303u;
    index |= (slice_bits<BITS>(w, sl, slab, j) & mask) << (2 * slices<BITS>::shift(sl));
  }
  return index;
}

/* Wide codes (5..8 bits). Byte i of `first` / `second` is the first /
 * second code of this lane's pair i of n16 block j in slab `slab`: each
 * slice's 2w bits of a pair (first code low) are split and put at the
 * slice's position. 8-bit codes are one plane whose words hold two pairs,
 * code bytes already whole. */
template <int BITS, typename Words>
__device__ __forceinline__ void code_bytes(const Words &w, int slab, int j, uint32_t &first, uint32_t &second) {
  if constexpr (BITS == 8) {
    const uint32_t a = w[8 * slab + 2 * j], b = w[8 * slab + 2 * j + 1]; /* pairs 0, 1 and 2, 3 */
    first = __byte_perm(a, b, 0x6420u);
    second = __byte_perm(a, b, 0x7531u);
  } else {
    first = 0;
    second = 0;
#pragma unroll
    for (int sl = 0; sl < slices<BITS>::count; sl++) {
      const int width = slices<BITS>::width(sl), sh = slices<BITS>::shift(sl);
      const uint32_t bits = slice_bits<BITS>(w, sl, slab, j);
      const uint32_t low = width == 4 ? 0x0F0F0F0Fu : width == 2 ? 0x03030303u : 0x01010101u;
      first |= (bits & low) << sh;
      second |= ((bits >> width) & low) << sh;
    }
  }
}

/* Where a Stream-K unit of the tiled and wide kernels sits: tile = n-tile ·
 * m_tiles + m-tile (m fastest, so the m-tiles of one weight tile follow each
 * other and share its weights in L2), it = its k-iteration. */
struct unit_site {
  int64_t tile, it, mt, nt;
};

__device__ __forceinline__ unit_site site_of(const lutmm_cuda_gemm_params &p, int64_t u) {
  unit_site s;
  s.tile = u / p.iters;
  s.it = u % p.iters;
  s.mt = s.tile % p.m_tiles;
  s.nt = s.tile / p.m_tiles;
  return s;
}

/* The next unit in a block's range, without divisions. */
__device__ __forceinline__ void advance(const lutmm_cuda_gemm_params &p, unit_site &s) {
  if (++s.it < p.iters) return;
  s.it = 0;
  s.tile++;
  if (++s.mt < p.m_tiles) return;
  s.mt = 0;
  s.nt++;
}

/* Eight X elements of row `row` from column k as one 16-byte chunk, zero
 * past M and K: the copy for X rows that are not 16-byte aligned. */
__device__ __forceinline__ uint4 x_chunk8(const lutmm_cuda_gemm_params &p, int64_t row, int64_t k) {
  const uint16_t *x = (const uint16_t *)p.x;
  uint16_t e[8];
#pragma unroll
  for (int i = 0; i < 8; i++) e[i] = row < p.m && k + i < p.k ? x[row * p.k + k + i] : (uint16_t)0;
  return make_uint4(e[0] | (uint32_t)e[1] << 16, e[2] | (uint32_t)e[3] << 16, e[4] | (uint32_t)e[5] << 16,
                    e[6] | (uint32_t)e[7] << 16);
}

/* Where a finished segment of the tiled or wide kernel goes: -1 when the
 * block held the whole tile (straight to Y), else the block's workspace
 * slot, 2b for its first segment and 2b + 1 for its last (the convention
 * the fixup kernel reads). */
__device__ __forceinline__ int64_t segment_slot(const lutmm_cuda_gemm_params &p, const unit_site &at,
                                                int64_t segment_start, int64_t lo) {
  const bool whole = segment_start == at.tile * p.iters && at.it == p.iters - 1;
  return whole ? -1 : segment_start == lo ? 2 * (int64_t)blockIdx.x : 2 * (int64_t)blockIdx.x + 1;
}

/* Scale row of K-row k: rows past K reuse the last group (X is zero there). */
__device__ __forceinline__ int64_t scale_row(const lutmm_cuda_gemm_params &p, int64_t k) {
  const int64_t g = lutmm_cuda_group_of(&p, k < p.k - 1 ? k : p.k - 1);
  return g < p.scale_rows - 1 ? g : p.scale_rows - 1;
}

/* The scale row of slab `slab` of k-atom `atom`, counted from the atom's
 * first (rows past K clamped as scale_row does). */
__device__ __forceinline__ int slab_scale_row(const lutmm_cuda_gemm_params &p, int64_t atom, int slab) {
  return (int)(scale_row(p, atom * 64 + 16 * slab) - scale_row(p, atom * 64));
}

/* The scale rows of k-atom `atom`'s four slabs, counted from its first,
 * one a byte (slab s in byte s; per-slab scales). `fixed`: groups of 16
 * or 32 rows in an atom wholly inside K, whose rows are known; other
 * groups and a ragged K's last atom take slab_scale_row. */
__device__ __forceinline__ uint32_t slab_rows_word(const lutmm_cuda_gemm_params &p, int64_t atom, bool fixed) {
  if (fixed) return p.group_log2 == 4 ? 0x03020100u : 0x01010000u;
  uint32_t rows = 0;
  for (int slab = 1; slab < 4; slab++) rows |= (uint32_t)slab_scale_row(p, atom, slab) << (8 * slab);
  return rows;
}

/* Byte b of word w, zero-extended: one PRMT. */
__device__ __forceinline__ uint32_t byte_of(uint32_t w, int b) { return __byte_perm(w, 0, 0x4440u | (uint32_t)b); }

/* Slab `slab`'s row in slab_rows_word's word; slab 0's is the atom's first. */
__device__ __forceinline__ int slab_row(uint32_t rows, int slab) { return slab == 0 ? 0 : (int)byte_of(rows, slab); }

/* The value of pair-table entry e (codes of up to 4 bits): T_c of the two
 * codes whose slices e holds, the first in the low half. */
template <typename T, int BITS>
__device__ __forceinline__ uint32_t pair_value(const lutmm_cuda_gemm_params &p, int e) {
  int c0, c1;
  pair_codes<BITS>(e, c0, c1);
  return (uint32_t)compute<T>::from_float(p.table[c0]) | ((uint32_t)compute<T>::from_float(p.table[c1]) << 16);
}

/* The 16-copy pair table of codes of up to 4 bits, built by the whole block:
 * entry e = (T_c[c0], T_c[c1]) for the codes whose slices e holds, copy L
 * at e·64 + 4L (lane L reads copy L mod 16). */
template <typename T, int BITS>
__device__ void build_pair_table(const lutmm_cuda_gemm_params &p, uint8_t *table) {
  constexpr int ENTRIES = 1 << (2 * BITS);
  for (int i = (int)threadIdx.x; i < ENTRIES * LUTMM_CUDA_PAIR_COPIES; i += (int)blockDim.x) {
    ((uint32_t *)table)[i] = pair_value<T, BITS>(p, i / LUTMM_CUDA_PAIR_COPIES);
  }
}

}  // namespace lutmm_kernels

#endif
