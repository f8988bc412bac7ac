/* The LUT-GEMM main kernel: a persistent Stream-K grid over (m-tile, n-tile,
 * k-iteration) units, cp.async pipeline of bit-slice planes, X and scales
 * into shared memory, pair-table lookup into mma.m16n8k16 B fragments.
 *
 * Template parameters: T the compute dtype (X's), MF the m16 fragments per
 * warp (the tile configuration of gemm_params.h), BITS the code width for
 * the pair-table path (1..4) or 0 for the generic per-code path (any width).
 * A block's units are contiguous; a tile the block covers entirely is written
 * to Y, a partial one to its workspace slot for the ordered fixup kernel. */
#ifndef LUTMM_CUDA_GEMM_KERNEL_CUH
#define LUTMM_CUDA_GEMM_KERNEL_CUH

#include "gemm_device.cuh"
#include "gemm_params.h"

namespace lutmm_kernels {

template <int MF>
struct shape {
  static constexpr int NWN = MF, NWK = 4 / MF;
  static constexpr int BM = 16 * MF, BN = 64 * NWN, KSPAN = 64 * NWK;
  static constexpr int SLOTS = 4 * NWK; /* scale rows a stage can hold: one per k16 slab */
};

/* x / group_size (gemm_params.h). */
__device__ __forceinline__ int64_t group_of(const lutmm_cuda_gemm_params &p, int64_t x) {
  return lutmm_cuda_group_of(&p, x);
}

/* Scale rows a stage holds: g0 = k0 / group_size and the count after it. */
template <int MF>
__device__ __forceinline__ int scale_rows_held(const lutmm_cuda_gemm_params &p, int64_t k0, int64_t *g0) {
  const int64_t k_pad = p.k_atoms * 64;
  const int64_t last_slab = (k0 + shape<MF>::KSPAN < k_pad ? k0 + shape<MF>::KSPAN : k_pad) - 16;
  *g0 = group_of(p, k0);
  int64_t rows = group_of(p, last_slab) - *g0 + 1;
  if (rows > p.scale_rows - *g0) rows = p.scale_rows - *g0;
  return (int)(rows < shape<MF>::SLOTS ? rows : shape<MF>::SLOTS);
}

/* One plane of width w: the block's NWK atoms of each of its NWN atom
 * columns are consecutive in memory (atoms run along K within a column), so
 * each column is one contiguous run of 16-byte vectors. */
template <int MF>
__device__ __forceinline__ void load_plane(const lutmm_cuda_gemm_params &p, const unit_site &s, const uint8_t *plane,
                                           int w, uint8_t *dst) {
  using S = shape<MF>;
  const int per_atom = 32 * w, log2_per_atom = 4 + __ffs(w), per_column = S::NWK * per_atom;
  const int64_t atom_bytes = 512 * (int64_t)w;
  const uint8_t *first = plane + ((s.nt * S::NWN) * p.k_atoms + s.it * S::NWK) * atom_bytes;
  const int64_t ka0 = s.it * S::NWK;
#pragma unroll
  for (int wn = 0; wn < S::NWN; wn++) {
    const uint8_t *column = first + wn * p.k_atoms * atom_bytes;
    const bool column_ok = s.nt * S::NWN + wn < p.n_atoms;
    for (int v = (int)threadIdx.x; v < per_column; v += LUTMM_CUDA_THREADS) {
      const bool ok = column_ok && ka0 + (v >> log2_per_atom) < p.k_atoms;
      cp_async16(dst + (wn * per_column + v) * 16, ok ? column + v * 16 : plane, ok ? 16 : 0);
    }
  }
}

template <int MF, int BITS>
__device__ void load_weights(const lutmm_cuda_gemm_params &p, const unit_site &s, uint8_t *stage) {
  if constexpr (BITS > 0) {
#pragma unroll
    for (int sl = 0; sl < slices<BITS>::count; sl++)
      load_plane<MF>(p, s, p.planes + p.plane_offset[sl], slices<BITS>::width(sl), stage + 2048 * slices<BITS>::shift(sl));
  } else {
    for (int sl = 0; sl < p.slices; sl++)
      load_plane<MF>(p, s, p.planes + p.plane_offset[sl], p.width[sl], stage + 2048 * p.shift[sl]);
  }
}

/* X tile, row-major with 16-byte chunks XOR-swizzled by row so that
 * ldmatrix reads are conflict-free. Rows past M stay zero from the start
 * when there is a single m-tile; otherwise they are zero-filled. */
template <int MF>
__device__ void load_x(const lutmm_cuda_gemm_params &p, const unit_site &s, uint8_t *sx) {
  using S = shape<MF>;
  constexpr int VPR = S::KSPAN / 8; /* 16-byte vectors per row */
  /* With one m-tile, rows past M stay zero: only M rows are loaded. */
  const int rows = p.m_tiles == 1 ? (int)p.m : S::BM;
  if (p.x_vector) {
    for (int v = (int)threadIdx.x; v < rows * VPR; v += LUTMM_CUDA_THREADS) {
      const int row = v / VPR, c = v % VPR;
      const int64_t grow = s.mt * S::BM + row, gk = s.it * S::KSPAN + (int64_t)c * 8;
      const bool ok = grow < p.m && gk < p.k;
      const uint8_t *src = (const uint8_t *)p.x + (grow * p.k + gk) * 2;
      cp_async16(sx + row * S::KSPAN * 2 + ((c ^ (row & 7)) * 16), ok ? src : (const uint8_t *)p.x, ok ? 16 : 0);
    }
    return;
  }
  const uint16_t *x = (const uint16_t *)p.x;
  for (int e = (int)threadIdx.x; e < rows * S::KSPAN; e += LUTMM_CUDA_THREADS) {
    const int row = e / S::KSPAN, col = e % S::KSPAN;
    const int64_t grow = s.mt * S::BM + row, gk = s.it * S::KSPAN + col;
    const uint16_t value = grow < p.m && gk < p.k ? x[grow * p.k + gk] : (uint16_t)0;
    *(uint16_t *)(sx + row * S::KSPAN * 2 + (((col / 8) ^ (row & 7)) * 16) + (col % 8) * 2) = value;
  }
}

template <int MF>
__device__ void load_scales(const lutmm_cuda_gemm_params &p, const unit_site &s, uint8_t *ss) {
  using S = shape<MF>;
  int64_t g0;
  const int rows = scale_rows_held<MF>(p, s.it * S::KSPAN, &g0);
  const int log2_elem = p.scale_dtype == LUTMM_DTYPE_F32 ? 2 : 1;
  const int log2_vpr = __ffs(S::BN) - 1 + log2_elem - 4; /* 16-byte vectors per row */
  const int row_bytes = S::BN << log2_elem;
  const int64_t col0 = s.nt * S::BN;
  for (int v = (int)threadIdx.x; v < (rows << log2_vpr); v += LUTMM_CUDA_THREADS) {
    const int r = v >> log2_vpr, c = v & ((1 << log2_vpr) - 1);
    const int64_t col = col0 + ((int64_t)c << (4 - log2_elem));
    const bool ok = col < p.n_pad;
    const uint8_t *src = (const uint8_t *)p.scales + (((g0 + r) * p.n_pad + col) << log2_elem);
    cp_async16(ss + r * row_bytes + c * 16, ok ? src : (const uint8_t *)p.scales, ok ? 16 : 0);
  }
}

template <int MF, int BITS>
__device__ void load_stage(const lutmm_cuda_gemm_params &p, const unit_site &s, uint8_t *stage) {
  load_weights<MF, BITS>(p, s, stage);
  uint8_t *sx = stage + lutmm_cuda_stage_weight_bytes(p.bits);
  load_x<MF>(p, s, sx);
  load_scales<MF>(p, s, sx + LUTMM_CUDA_STAGE_X_BYTES);
}

/* The 16 pair values (8 fragments × 2 registers) of slab kb for this lane,
 * from the pair table: slices are read as whole words and merged bytewise
 * into pair indices (slice s of width w lands at bit 2·shift_s). */
template <int BITS>
__device__ __forceinline__ void pairs_fast(const uint8_t *weights, int atom, int kb, int lane,
                                           const uint32_t *pair_table, uint32_t (&pv)[8][2]) {
  constexpr int COUNT = slices<BITS>::count;
  const uint8_t *lane_table = (const uint8_t *)(pair_table + lane % LUTMM_CUDA_PAIR_COPIES);
  uint32_t words[COUNT][4];
#pragma unroll
  for (int sl = 0; sl < COUNT; sl++) {
    const int w = slices<BITS>::width(sl);
    const uint8_t *base = weights + 2048 * slices<BITS>::shift(sl) + atom * 512 * w;
    const int j0 = kb * w; /* first word of the slab in this lane */
    const uint8_t *at = base + (32 * (j0 / 4) + lane) * 16 + (j0 % 4) * 4;
    if (w == 4) {
      const uint4 v = *(const uint4 *)at;
      words[sl][0] = v.x, words[sl][1] = v.y, words[sl][2] = v.z, words[sl][3] = v.w;
    } else if (w == 2) {
      const uint2 v = *(const uint2 *)at;
      words[sl][0] = v.x, words[sl][1] = v.y;
    } else {
      words[sl][0] = *(const uint32_t *)at;
    }
  }
#pragma unroll
  for (int i = 0; i < 4; i++) {
    uint32_t index = 0;
#pragma unroll
    for (int sl = 0; sl < COUNT; sl++) {
      const int w = slices<BITS>::width(sl);
      const uint32_t word = words[sl][i * w / 4];
      const int shift = w == 4 ? 0 : w == 2 ? 4 * (i % 2) : 2 * i;
      const uint32_t mask = w == 4 ? 0xFFFFFFFFu : w == 2 ? 0x0F0F0F0Fu : 0x03030303u;
      index |= ((word >> shift) & mask) << (2 * slices<BITS>::shift(sl));
    }
    /* Byte j of `index` times 64 (16 copies × 4 bytes) is that entry's offset. */
    static_assert(LUTMM_CUDA_PAIR_COPIES == 16, "lookup offsets assume 16 copies");
    pv[2 * i][0] = *(const uint32_t *)(lane_table + ((index << 6) & 0x3FC0u));
    pv[2 * i][1] = *(const uint32_t *)(lane_table + ((index >> 2) & 0x3FC0u));
    pv[2 * i + 1][0] = *(const uint32_t *)(lane_table + ((index >> 10) & 0x3FC0u));
    pv[2 * i + 1][1] = *(const uint32_t *)(lane_table + ((index >> 18) & 0x3FC0u));
  }
}

/* Generic path for any width: each code decoded slice by slice, looked up in
 * a plain table of compute-dtype values. */
__device__ __forceinline__ void pairs_generic(const lutmm_cuda_gemm_params &p, const uint8_t *weights, int atom,
                                              int kb, int lane, const uint16_t *table, uint32_t (&pv)[8][2]) {
  for (int pl = 0; pl < 16; pl++) {
    const int pair = kb * 16 + pl;
    int c0 = 0, c1 = 0;
    for (int sl = 0; sl < p.slices; sl++) {
      const int w = p.width[sl], per_word = 16 / w, q = pair % per_word, j = pair / per_word;
      const uint8_t *base = weights + 2048 * p.shift[sl] + atom * 512 * w;
      const uint32_t word = *(const uint32_t *)(base + (32 * (j / 4) + lane) * 16 + (j % 4) * 4);
      const int bit = 2 * w <= 8 ? 8 * (q % 4) + 2 * w * (q / 4) : 16 * q;
      const uint32_t v = (word >> bit) & ((1u << (2 * w)) - 1u);
      c0 |= (int)(v & ((1u << w) - 1u)) << p.shift[sl];
      c1 |= (int)(v >> w) << p.shift[sl];
    }
    pv[pl / 2][pl % 2] = (uint32_t)table[c0] | ((uint32_t)table[c1] << 16);
  }
}

/* Zeroes the halves of a B register whose rows are at or past K, so that
 * padding rows contribute exactly 0 even where T[0]·s overflows. */
__device__ __forceinline__ uint32_t mask_rows(uint32_t b, int64_t row, int64_t k) {
  const uint32_t keep = (row < k ? 0x0000FFFFu : 0u) | (row + 1 < k ? 0xFFFF0000u : 0u);
  return b & keep;
}

/* This lane's 8 scales (one per n8 fragment) of scale slot `slot`, as
 * duplicated compute-dtype pairs; zero for slots the stage does not hold. */
template <typename T, int MF>
__device__ __forceinline__ void load_scale_pairs(const lutmm_cuda_gemm_params &p, const uint8_t *ss, int slot,
                                                 int rows, int wn, int lane, uint32_t (&s2)[8]) {
  const int column = wn * 64 + lane / 4;
  if (slot >= rows) {
#pragma unroll
    for (int nb = 0; nb < 8; nb++) s2[nb] = 0;
  } else if (p.scale_dtype == (int)compute<T>::kDtype) { /* stored in the compute dtype: no rounding */
    const uint16_t *row = (const uint16_t *)(ss + slot * shape<MF>::BN * 2);
#pragma unroll
    for (int nb = 0; nb < 8; nb++) s2[nb] = (uint32_t)row[column + nb * 8] * 0x10001u;
  } else {
    const int elem = p.scale_dtype == LUTMM_DTYPE_F32 ? 4 : 2;
    const uint8_t *row = ss + slot * shape<MF>::BN * elem;
#pragma unroll
    for (int nb = 0; nb < 8; nb++) s2[nb] = (uint32_t)scale_in<T>(row, column + nb * 8, p.scale_dtype) * 0x10001u;
  }
}

/* Where a warp's atom sits in a stage and what it needs to consume it. */
struct warp_view {
  const uint8_t *stage, *sx, *ss;
  int lane, wn, wk, atom;
  int64_t base;      /* first K row of the warp's atom */
  int64_t rem;       /* base − group start */
  int slot0, rows;   /* scale slot of the atom's first slab; slots held */
};

/* The four 16-row slabs of the warp's atom. TAIL: the atom reaches K, so
 * rows at or past K are masked (only the last k-iteration pays for it). */
template <typename T, int MF, int BITS, bool TAIL>
__device__ __forceinline__ void compute_slabs(const lutmm_cuda_gemm_params &p, const warp_view &v, const uint8_t *table,
                                              float (&acc)[MF][8][4]) {
  using S = shape<MF>;
  int loaded_slot = -1;
  uint32_t s2[8];
  /* One fragment: unroll the slabs so their lookup chains overlap; more
   * fragments already give the MMAs enough independent work. */
#pragma unroll(MF == 1 ? 4 : 1)
  for (int kb = 0; kb < 4; kb++) {
    const int64_t r = v.rem + 16 * kb;
    const int slot = v.slot0 + (r >= p.group_size) + (r >= 2 * p.group_size) + (r >= 3 * p.group_size);
    if (slot != loaded_slot) {
      load_scale_pairs<T, MF>(p, v.ss, slot, v.rows, v.wn, v.lane, s2);
      loaded_slot = slot;
    }
    uint32_t a[MF][4];
#pragma unroll
    for (int mf = 0; mf < MF; mf++) {
      const int row = mf * 16 + v.lane % 16, chunk = (v.wk * 64 + kb * 16) / 8 + v.lane / 16;
      ldmatrix_x4(a[mf], v.sx + row * S::KSPAN * 2 + ((chunk ^ (row & 7)) * 16));
    }
    uint32_t pv[8][2];
    if constexpr (BITS > 0) pairs_fast<BITS>(v.stage, v.atom, kb, v.lane, (const uint32_t *)table, pv);
    else pairs_generic(p, v.stage, v.atom, kb, v.lane, (const uint16_t *)table, pv);
#pragma unroll
    for (int nb = 0; nb < 8; nb++) {
      uint32_t b0 = compute<T>::mul2(pv[nb][0], s2[nb]), b1 = compute<T>::mul2(pv[nb][1], s2[nb]);
      if constexpr (TAIL) {
        const int64_t row = v.base + 16 * kb + 2 * (v.lane % 4);
        b0 = mask_rows(b0, row, p.k);
        b1 = mask_rows(b1, row + 8, p.k);
      }
#pragma unroll
      for (int mf = 0; mf < MF; mf++) compute<T>::mma(acc[mf][nb], a[mf], b0, b1);
    }
  }
}

template <typename T, int MF, int BITS>
__device__ void compute_stage(const lutmm_cuda_gemm_params &p, const unit_site &s, const uint8_t *stage,
                              const uint8_t *table, float (&acc)[MF][8][4]) {
  using S = shape<MF>;
  warp_view v;
  v.lane = (int)threadIdx.x % 32;
  const int warp = (int)threadIdx.x / 32;
  v.wn = warp % S::NWN;
  v.wk = warp / S::NWN;
  v.atom = v.wn * S::NWK + v.wk;
  v.stage = stage;
  v.sx = stage + lutmm_cuda_stage_weight_bytes(p.bits);
  v.ss = v.sx + LUTMM_CUDA_STAGE_X_BYTES;
  const int64_t k0 = s.it * S::KSPAN;
  v.base = k0 + v.wk * 64;
  int64_t g0;
  v.rows = scale_rows_held<MF>(p, k0, &g0);
  /* Slot of slab kb: one group division per unit, then at most 3 group
   * steps (a slab is 16 rows, a group at least 16; smaller whole-column
   * groups only occur with K < 16, where every later slab is masked). */
  const int64_t group_of_base = group_of(p, v.base);
  v.rem = v.base - group_of_base * p.group_size;
  v.slot0 = (int)(group_of_base - g0);
  if (v.base + 64 > p.k) compute_slabs<T, MF, BITS, true>(p, v, table, acc);
  else compute_slabs<T, MF, BITS, false>(p, v, table, acc);
}

/* The pair table (BITS > 0: entry e = (T_c[c0], T_c[c1]) for the codes whose
 * slices e holds, 16 copies) or the plain compute-dtype table. */
template <typename T, int BITS>
__device__ void build_table(const lutmm_cuda_gemm_params &p, uint8_t *table) {
  if constexpr (BITS == 0) {
    for (int c = (int)threadIdx.x; c < 256; c += LUTMM_CUDA_THREADS)
      ((uint16_t *)table)[c] = compute<T>::from_float(p.table[c < (1 << p.bits) ? c : 0]);
  } else {
    build_pair_table<T, BITS>(p, table);
  }
}

/* Sums the NWK warps' accumulators in warp order (deterministic) and writes
 * the tile to Y, or to workspace slot `slot` when the block holds only part
 * of the tile's k range (slot < 0: whole tile). */
template <int MF>
__device__ void epilogue(const lutmm_cuda_gemm_params &p, const unit_site &s, int64_t slot, float (&acc)[MF][8][4],
                         float *reduce) {
  using S = shape<MF>;
  const int lane = (int)threadIdx.x % 32, warp = (int)threadIdx.x / 32;
  const int wn = warp % S::NWN, wk = warp / S::NWN;
  if (S::NWK > 1) {
    if (wk > 0) {
      float *mine = reduce + (size_t)((wk - 1) * S::NWN + wn) * MF * 8 * 4 * 32;
#pragma unroll
      for (int mf = 0; mf < MF; mf++)
#pragma unroll
        for (int nb = 0; nb < 8; nb++)
#pragma unroll
          for (int e = 0; e < 4; e++) mine[((mf * 8 + nb) * 4 + e) * 32 + lane] = acc[mf][nb][e];
    }
    __syncthreads();
    if (wk > 0) return;
    for (int other = 1; other < S::NWK; other++) {
      const float *theirs = reduce + (size_t)((other - 1) * S::NWN + wn) * MF * 8 * 4 * 32;
#pragma unroll
      for (int mf = 0; mf < MF; mf++)
#pragma unroll
        for (int nb = 0; nb < 8; nb++)
#pragma unroll
          for (int e = 0; e < 4; e++) acc[mf][nb][e] += theirs[((mf * 8 + nb) * 4 + e) * 32 + lane];
    }
  }
#pragma unroll
  for (int mf = 0; mf < MF; mf++)
#pragma unroll
    for (int nb = 0; nb < 8; nb++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int row = mf * 16 + lane / 4 + (e / 2) * 8, col = wn * 64 + nb * 8 + (lane % 4) * 2 + e % 2;
        if (slot >= 0) {
          p.workspace[(size_t)slot * S::BM * S::BN + (size_t)row * S::BN + col] = acc[mf][nb][e];
          continue;
        }
        const int64_t grow = s.mt * S::BM + row, gcol = s.nt * S::BN + col;
        if (grow < p.m && gcol < p.n) store_output(p.y, p.y_dtype, grow * p.n + gcol, acc[mf][nb][e]);
      }
}

template <typename T, int MF, int BITS>
__global__ void __launch_bounds__(LUTMM_CUDA_THREADS) gemm_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
  extern __shared__ __align__(16) uint8_t smem[];
  uint8_t *table = smem;
  uint8_t *stages = smem + lutmm_cuda_table_bytes(BITS > 0 ? BITS : 8);
  const size_t stage_bytes = lutmm_cuda_stage_bytes(p.bits);
  float *reduce = (float *)(stages + (size_t)p.stages * stage_bytes);

  /* X rows past M are never loaded: they must read as zero. */
  for (int s = 0; s < p.stages; s++) {
    uint4 *sx = (uint4 *)(stages + (size_t)s * stage_bytes + lutmm_cuda_stage_weight_bytes(p.bits));
    for (int i = (int)threadIdx.x; i < LUTMM_CUDA_STAGE_X_BYTES / 16; i += LUTMM_CUDA_THREADS)
      sx[i] = make_uint4(0, 0, 0, 0);
  }
  build_table<T, BITS>(p, table);
  __syncthreads();

  const int64_t lo = lutmm_cuda_range_start(p.units, p.grid, blockIdx.x);
  const int64_t hi = lutmm_cuda_range_start(p.units, p.grid, blockIdx.x + 1);
  unit_site load_site = site_of(p, lo), site = load_site;
  for (int s = 0; s < p.stages - 1; s++) {
    if (lo + s < hi) load_stage<MF, BITS>(p, load_site, stages + (size_t)s * stage_bytes);
    cp_async_commit();
    advance(p, load_site);
  }
  float acc[MF][8][4];
  zero_floats(acc);

  int64_t segment_start = lo;
  int read_stage = 0, write_stage = p.stages - 1;
  for (int64_t u = lo; u < hi; u++) {
    cp_async_wait(p.stages - 2);
    __syncthreads();
    if (u + p.stages - 1 < hi) load_stage<MF, BITS>(p, load_site, stages + (size_t)write_stage * stage_bytes);
    cp_async_commit();
    advance(p, load_site);
    compute_stage<T, MF, BITS>(p, site, stages + (size_t)read_stage * stage_bytes, table, acc);
    read_stage = read_stage + 1 == p.stages ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == p.stages ? 0 : write_stage + 1;
    if (site.it == p.iters - 1 || u == hi - 1) {
      epilogue<MF>(p, site, segment_slot(p, site, segment_start, lo), acc, reduce);
      zero_floats(acc);
      segment_start = u + 1;
    }
    advance(p, site);
  }
  cp_async_wait(0);
}

}  // namespace lutmm_kernels

#endif
