/* The skinny LUT-GEMM kernel: M <= 32 rows of X against codes of 1..4 bits,
 * the case where the weights' bytes are the whole cost.
 *
 * Work is a Stream-K range of units (tile, k-atom pair) per block; a tile is
 * W consecutive 64-column atom columns and warp w owns column w of every
 * tile. So each warp streams its own atoms global -> registers through two
 * register slots (the atom it computes and the next one in flight; no
 * shared-memory round trip and no block barrier per atom), while the block
 * shares two things: X, staged in chunks of 16/MB k-atoms by cp.async with
 * one barrier per chunk, and the pair table. A unit of two atoms keeps the
 * slots' roles fixed (slot 0 = even atom, slot 1 = odd atom), so the loop
 * body is written once and its bookkeeping is paid once per two atoms.
 *
 * The MMA runs transposed: Y^T = W^T X^T. The dequantized pairs a lane holds
 * (B-fragment order in the packed layout) are exactly the A fragment of
 * m16n8k16 for a 16-column block of W^T, and X^T is the B operand, so M <= 8
 * costs one n8 block of MMAs instead of an m16 one.
 *
 * A warp ends a segment at a tile's last unit or at the end of its block's
 * range. A whole tile goes straight to Y. A partial one goes to the block's
 * workspace slot (2b for its first segment, 2b + 1 for its last, as for the
 * tiled kernel); the warp that completes a column's set of partials (an
 * integer ticket, no float atomics) adds them in block order and writes Y,
 * so the bits never depend on which warp finished last. */
#ifndef LUTMM_CUDA_SKINNY_KERNEL_CUH
#define LUTMM_CUDA_SKINNY_KERNEL_CUH

#include "fault.h"
#include "gemm_device.cuh"
#include "gemm_params.h"

namespace lutmm_kernels {
namespace skinny {

template <int MB, int BITS>
struct cfg {
  static constexpr int WARPS = MB == 1 ? 16 : MB == 2 ? 12 : 8; /* lutmm_skinny_warps */
  static constexpr int THREADS = 32 * WARPS;
  static constexpr int ROWS = 8 * MB;            /* X rows held: M <= ROWS */
  static constexpr int CHUNK = 16 / MB;          /* k-atoms per X chunk */
  static constexpr int CHUNK_UNITS = CHUNK / 2;  /* units per X chunk */
  static constexpr int WORDS = 4 * BITS; /* a lane's 32-bit words of one atom, all planes */
  static constexpr int SLOT_BYTES = ROWS * LUTMM_SKINNY_X_ROW_BYTES;
  static constexpr int CHUNK_BYTES = CHUNK * SLOT_BYTES;
  static constexpr int TILE_N = 64 * WARPS;
  static_assert(LUTMM_SKINNY_SLOTS == 2, "the loop body computes slot 0, then slot 1");
};

/* A unit: the tile (W atom columns) and the k-atom pair. The planner keeps
 * unit and atom numbers below 2^31, so they are ints here. */
struct cursor {
  int tile, it;
};

__device__ __forceinline__ cursor cursor_at(const lutmm_cuda_gemm_params &p, int u) {
  return cursor{u / (int)p.iters, u % (int)p.iters};
}

__device__ __forceinline__ void advance(const lutmm_cuda_gemm_params &p, cursor &c) {
  if (++c.it == (int)p.iters) {
    c.it = 0;
    c.tile++;
  }
}

/* Scale row of K-row k: rows past K reuse the last group (X is zero there). */
__device__ __forceinline__ int64_t scale_row(const lutmm_cuda_gemm_params &p, int64_t k) {
  const int64_t g = lutmm_cuda_group_of(&p, k < p.k - 1 ? k : p.k - 1);
  return g < p.scale_rows - 1 ? g : p.scale_rows - 1;
}

/* Scale row of k-atom `atom`'s first slab; a shift when groups are a
 * power-of-two number of atoms (the usual case). */
__device__ __forceinline__ int64_t first_scale_row(const lutmm_cuda_gemm_params &p, int atom) {
  if (p.atom_group_log2 < 0) return scale_row(p, (int64_t)atom * 64);
  const int64_t r = atom >> p.atom_group_log2;
  return r < p.scale_rows - 1 ? r : p.scale_rows - 1;
}

/* 16 bytes of weights that no one reads twice: keep them out of L1. */
__device__ __forceinline__ uint4 load_stream(const uint4 *src) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(src));
  return v;
}

/* This lane's first vector of every plane: the planes' atoms are laid out
 * column-major ((column · k_atoms + atom) · 32·width + lane vectors). */
template <int BITS>
struct plane_lanes {
  const uint4 *at[slices<BITS>::count];
};

template <int BITS>
__device__ __forceinline__ plane_lanes<BITS> lanes_of(const lutmm_cuda_gemm_params &p, int lane) {
  plane_lanes<BITS> pl;
#pragma unroll
  for (int sl = 0; sl < slices<BITS>::count; sl++) pl.at[sl] = (const uint4 *)(p.planes + p.plane_offset[sl]) + lane;
  return pl;
}

/* This lane's words of flat atom `atom` (column · k_atoms + k-atom): plane by
 * plane, 16 bytes per chunk (vector 32c + lane of the atom is lane's chunk c). */
template <int BITS>
__device__ __forceinline__ void load_atom(const plane_lanes<BITS> &pl, uint32_t atom, uint32_t (&w)[4 * BITS]) {
#pragma unroll
  for (int sl = 0; sl < slices<BITS>::count; sl++) {
    const int width = slices<BITS>::width(sl), first_word = 4 * slices<BITS>::shift(sl);
    const uint4 *mine = pl.at[sl] + (size_t)atom * (32 * width);
#pragma unroll
    for (int c = 0; c < width; c++) {
      const uint4 v = load_stream(mine + 32 * c);
      w[first_word + 4 * c] = v.x, w[first_word + 4 * c + 1] = v.y;
      w[first_word + 4 * c + 2] = v.z, w[first_word + 4 * c + 3] = v.w;
    }
  }
}

/* The scale rows of k-atom `atom` of a column (at most 4: one per 16-row
 * slab; exactly one when ONE_ROW) into a ring entry, row r at r·256 bytes. */
template <bool ONE_ROW>
__device__ __forceinline__ void load_scales(const lutmm_cuda_gemm_params &p, int column, int atom, int lane,
                                            uint8_t *entry) {
  const int64_t r0 = first_scale_row(p, atom);
  const int log2_elem = p.scale_dtype == LUTMM_DTYPE_F32 ? 2 : 1;
  const int log2_vpr = 2 + log2_elem; /* 16-byte vectors per 64-column row */
  const uint8_t *first = (const uint8_t *)p.scales + ((r0 * p.n_pad + (int64_t)column * 64) << log2_elem);
  if (ONE_ROW) {
    if (lane < 1 << log2_vpr) cp_async16(entry + lane * 16, first + lane * 16, 16);
    return;
  }
  const int rows = (int)(scale_row(p, (int64_t)atom * 64 + 48) - r0) + 1;
  const int64_t row_bytes = p.n_pad << log2_elem;
  for (int v = lane; v < rows << log2_vpr; v += 32) {
    const int r = v >> log2_vpr, c = v & ((1 << log2_vpr) - 1);
    cp_async16(entry + r * 256 + c * 16, first + r * row_bytes + c * 16, 16);
  }
}

/* The X of units v0 .. v0 + CHUNK_UNITS − 1 (those before hi): row-major
 * slots of ROWS rows × 64 k, one per k-atom (two per unit), rows past M and
 * columns past K zero. */
template <int MB, int BITS>
__device__ void load_x_chunk(const lutmm_cuda_gemm_params &p, int v0, int hi, uint8_t *buf) {
  using C = cfg<MB, BITS>;
  constexpr int VECTORS = C::CHUNK * C::ROWS * 8;
  const int iters = (int)p.iters, it0 = v0 % iters;
  for (int v = (int)threadIdx.x; v < VECTORS; v += C::THREADS) {
    const int slot = v / (C::ROWS * 8), row = (v / 8) % C::ROWS, c = v % 8;
    const int j = slot / 2;
    if (v0 + j >= hi) break; /* v only grows with j */
    int it = it0 + j;
    while (it >= iters) it -= iters;
    const int64_t gk = (int64_t)(2 * it + slot % 2) * 64 + c * 8;
    uint8_t *dst = buf + slot * C::SLOT_BYTES + row * LUTMM_SKINNY_X_ROW_BYTES + c * 16;
    if (p.x_vector) {
      const bool ok = row < p.m && gk < p.k;
      const uint8_t *src = (const uint8_t *)p.x + ((int64_t)row * p.k + gk) * 2;
      cp_async16(dst, ok ? src : (const uint8_t *)p.x, ok ? 16 : 0);
    } else {
      const uint16_t *x = (const uint16_t *)p.x;
      uint16_t e[8];
#pragma unroll
      for (int i = 0; i < 8; i++) e[i] = row < p.m && gk + i < p.k ? x[(int64_t)row * p.k + gk + i] : (uint16_t)0;
      *(uint4 *)dst = make_uint4(e[0] | (uint32_t)e[1] << 16, e[2] | (uint32_t)e[3] << 16,
                                 e[4] | (uint32_t)e[5] << 16, e[6] | (uint32_t)e[7] << 16);
    }
  }
}

/* Pair index word j of slab `slab`: byte i holds the pair index of this
 * lane's pair i of n16 block j (slices merged as in the tiled kernel). */
template <int BITS>
__device__ __forceinline__ uint32_t pair_indices(const uint32_t *w, int slab, int j) {
  uint32_t index = 0;
#pragma unroll
  for (int sl = 0; sl < slices<BITS>::count; sl++) {
    const int width = slices<BITS>::width(sl), sh = slices<BITS>::shift(sl);
    const uint32_t word = w[4 * sh + slab * width + j * width / 4];
    const int shift = width == 4 ? 0 : width == 2 ? 4 * (j % 2) : 2 * j;
    const uint32_t mask = width == 4 ? 0xFFFFFFFFu : width == 2 ? 0x0F0F0F0Fu : 0x03030303u;
    index |= ((word >> shift) & mask) << (2 * sh);
  }
  return index;
}

/* The pair of byte `b` of `index`. The table starts on a 64 KiB boundary
 * of the shared window, so one PRMT assembles the address from the table's
 * upper half, the index byte (· 256) and this lane's copy (lane · 4). */
__device__ __forceinline__ uint32_t lookup(uint32_t table_lane, uint32_t index, int b) {
  uint32_t v;
  asm("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(__byte_perm(index, table_lane, 0x7604u | ((uint32_t)b << 4))));
  return v;
}

/* This lane's 8 scales (columns lane/4 + 8·nb) of one ring row, duplicated
 * into compute-dtype pairs; one uniform branch on the stored dtype. */
template <typename T>
__device__ __forceinline__ void scale_pairs(const lutmm_cuda_gemm_params &p, const uint8_t *row, int lane,
                                            uint32_t (&s2)[8]) {
  const uint16_t *raw = (const uint16_t *)row + lane / 4;
  if (p.scale_dtype == (int)compute<T>::kDtype) {
#pragma unroll
    for (int nb = 0; nb < 8; nb++) s2[nb] = __byte_perm((uint32_t)raw[8 * nb], 0, 0x1010u);
    return;
  }
#pragma unroll
  for (int nb = 0; nb < 8; nb++) s2[nb] = (uint32_t)scale_in<T>(row, lane / 4 + 8 * nb, p.scale_dtype) * 0x10001u;
}

/* One atom: 4 slabs × 4 n16 blocks × MB m8 blocks of mma.m16n8k16. `xs`
 * is this lane's ldmatrix row in the atom's X slot (row lane % 8, k offset
 * 8·(lane / 8): matrices k 0–7, 8–15 of slab kb, then of slab kb + 1). s2
 * holds the previous atom's slab-3 scales; `carry` says they still apply.
 * ONE_ROW: the atom lies in one scale group (group_size % 64 == 0 or one
 * group per column), so its scales never change between slabs. */
template <typename T, int MB, int BITS, bool ONE_ROW>
__device__ __forceinline__ void compute_atom(const lutmm_cuda_gemm_params &p, int atom, int lane,
                                             const uint32_t (&w)[cfg<MB, BITS>::WORDS], const uint8_t *entry,
                                             const uint8_t *xs, uint32_t table_lane, bool carry, uint32_t (&s2)[8],
                                             float (&acc)[MB][4][4]) {
  int held = 0;
  if (!carry) scale_pairs<T>(p, entry, lane, s2);
#pragma unroll
  for (int kb = 0; kb < 4; kb += 2) {
    uint32_t xf[MB][4];
#pragma unroll
    for (int mb = 0; mb < MB; mb++) ldmatrix_x4(xf[mb], xs + 8 * mb * LUTMM_SKINNY_X_ROW_BYTES + 32 * kb);
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int slab = kb + h;
      if (!ONE_ROW && slab > 0) {
        const int rr = (int)(scale_row(p, (int64_t)atom * 64 + 16 * slab) - scale_row(p, (int64_t)atom * 64));
        if (rr != held) {
          scale_pairs<T>(p, entry + rr * 256, lane, s2);
          held = rr;
        }
      }
#pragma unroll
      for (int j = 0; j < 4; j++) {
        const uint32_t index = pair_indices<BITS>(w, slab, j);
        /* A fragment of W^T: rows (columns of W) g, g + 8; k 2q.., 2q + 8.. */
        const uint32_t a[4] = {compute<T>::mul2(lookup(table_lane, index, 0), s2[2 * j]),
                               compute<T>::mul2(lookup(table_lane, index, 2), s2[2 * j + 1]),
                               compute<T>::mul2(lookup(table_lane, index, 1), s2[2 * j]),
                               compute<T>::mul2(lookup(table_lane, index, 3), s2[2 * j + 1])};
#pragma unroll
        for (int mb = 0; mb < MB; mb++) compute<T>::mma(acc[mb][j], a, xf[mb][2 * h], xf[mb][2 * h + 1]);
      }
    }
  }
}

/* A warp's fp32 accumulators, cleared at the start of each segment. */
template <int MB>
__device__ __forceinline__ void zero_accumulators(float (&acc)[MB][4][4]) {
#pragma unroll
  for (int mb = 0; mb < MB; mb++)
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
      for (int e = 0; e < 4; e++) acc[mb][j][e] = 0.0f;
}

/* Element e of n16 block j, m8 block mb in this lane's accumulators. */
__device__ __forceinline__ int acc_row(int mb, int lane, int e) { return 8 * mb + 2 * (lane % 4) + (e & 1); }
__device__ __forceinline__ int acc_col(int j, int lane, int e) { return 16 * j + lane / 4 + 8 * (e >> 1); }

/* The last contributor of a cut column adds every partial in block order.
 * Lane l owns elements l + 32·i (row i/2, column l + 32·(i % 2)); each
 * partial's loads for all of them are independent, so the reduction waits
 * on memory once per partial, not once per element and partial. */
template <int MB, int BITS>
__device__ void reduce_partials(const lutmm_cuda_gemm_params &p, int tile, int warp, int lane, int64_t first,
                                int64_t last) {
  using C = cfg<MB, BITS>;
  constexpr int PER_LANE = C::ROWS * 64 / 32;
  const int64_t first_unit = (int64_t)tile * p.iters;
  const int64_t first_slot =
      lutmm_cuda_range_start(p.units, p.grid, first) == first_unit ? 2 * first : 2 * first + 1;
  const size_t tile_elems = (size_t)C::ROWS * C::TILE_N;
  const int64_t column0 = ((int64_t)tile * C::WARPS + warp) * 64;
  const int rows = (int)p.m;
  float sum[PER_LANE];
#pragma unroll
  for (int i = 0; i < PER_LANE; i++) sum[i] = 0.0f;
#pragma unroll 2
  for (int64_t b = first; b <= last; b++) {
    const int64_t slot = b == first ? first_slot : 2 * b;
    const float *at = p.workspace + (size_t)slot * tile_elems + (size_t)warp * 64 + lane;
    const bool dropped = lutmm_fault_drop_partial(b - first);
    float part[PER_LANE];
#pragma unroll
    for (int i = 0; i < PER_LANE; i++)
      part[i] = i / 2 < rows && !dropped ? __ldcg(at + (size_t)(i / 2) * C::TILE_N + 32 * (i % 2)) : 0.0f;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++) sum[i] += part[i];
  }
#pragma unroll
  for (int i = 0; i < PER_LANE; i++) {
    const int n = lane + 32 * (i % 2);
    if (i / 2 < rows && column0 + n < p.n) store_output(p.y, p.y_dtype, (i / 2) * p.n + column0 + n, sum[i]);
  }
}

/* Writes a finished segment: straight to Y for a whole tile, else to the
 * block's workspace slot, and the column's last contributor reduces. */
template <int MB, int BITS>
__device__ void finish_segment(const lutmm_cuda_gemm_params &p, const cursor &c, int segment_start, int lo,
                               int warp, int lane, const float (&acc)[MB][4][4]) {
  using C = cfg<MB, BITS>;
  const int64_t column0 = ((int64_t)c.tile * C::WARPS + warp) * 64;
  const int64_t first_unit = (int64_t)c.tile * p.iters;
  const bool whole = segment_start == first_unit && c.it == p.iters - 1;
  const int64_t slot = segment_start == lo ? 2 * (int64_t)blockIdx.x : 2 * (int64_t)blockIdx.x + 1;
  float *part = p.workspace + (size_t)slot * C::ROWS * C::TILE_N + (size_t)warp * 64;
#pragma unroll
  for (int mb = 0; mb < MB; mb++)
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int m = acc_row(mb, lane, e), n = acc_col(j, lane, e);
        if (m >= p.m) continue;
        if (!whole) part[(size_t)m * C::TILE_N + n] = acc[mb][j][e];
        else if (column0 + n < p.n) store_output(p.y, p.y_dtype, m * p.n + column0 + n, acc[mb][j][e]);
      }
  if (whole) return;
  __threadfence();
  __syncwarp();
  const int64_t first = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit);
  const int64_t last = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit + p.iters - 1);
  int *ticket = p.tickets + first * C::WARPS + warp;
  int arrived = 0;
  if (lane == 0) arrived = atomicAdd(ticket, 1);
  arrived = __shfl_sync(0xFFFFFFFFu, arrived, 0);
  if (arrived != last - first) return;
  __threadfence();
  reduce_partials<MB, BITS>(p, c.tile, warp, lane, first, last);
  if (lane == 0) *ticket = 0; /* ready for the next launch */
}

/* Pair table: entry e (the two codes whose slices e holds) at e·256 bytes,
 * one copy per lane at +4·lane, so a warp's lookups never share a bank.
 * An entry's 32 copies are 128 contiguous bytes: 16-byte stores of 4 copies. */
template <typename T, int MB, int BITS>
__device__ void build_table(const lutmm_cuda_gemm_params &p, uint8_t *table) {
  constexpr int ENTRIES = 1 << (2 * BITS);
  for (int i = (int)threadIdx.x; i < ENTRIES * 8; i += cfg<MB, BITS>::THREADS) {
    const int e = i / 8, quarter = i % 8;
    int c0, c1;
    pair_codes<BITS>(e, c0, c1);
    const uint32_t pair =
        (uint32_t)compute<T>::from_float(p.table[c0]) | ((uint32_t)compute<T>::from_float(p.table[c1]) << 16);
    *(uint4 *)(table + e * 256 + quarter * 16) = make_uint4(pair, pair, pair, pair);
  }
}

/* Where a warp stands: unit u's tile and pair, its column and that
 * column's flat index of the pair's first atom. */
template <int MB, int BITS>
struct position {
  cursor c;
  int column;
  bool column_ok; /* the tile's last columns may lie past N */
  uint32_t atom;  /* column · k_atoms + 2·c.it */

  __device__ __forceinline__ void start(const lutmm_cuda_gemm_params &p, int u, int warp) {
    c = cursor_at(p, u);
    enter_tile(p, warp);
  }
  __device__ __forceinline__ void enter_tile(const lutmm_cuda_gemm_params &p, int warp) {
    column = c.tile * cfg<MB, BITS>::WARPS + warp;
    column_ok = column < p.n_atoms;
    atom = (uint32_t)column * (uint32_t)p.k_atoms + 2u * (uint32_t)c.it;
  }
  __device__ __forceinline__ void next(const lutmm_cuda_gemm_params &p, int warp) {
    advance(p, c);
    if (c.it == 0) enter_tile(p, warp);
    else atom += 2;
  }
};

template <typename T, int MB, int BITS, bool ONE_ROW>
__global__ void __launch_bounds__(cfg<MB, BITS>::THREADS, 1) skinny_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
  using C = cfg<MB, BITS>;
  extern __shared__ __align__(16) uint8_t smem[];
  const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
  uint8_t *xbuf = smem;
  uint8_t *entry0 = xbuf + 2 * C::CHUNK_BYTES + (size_t)warp * LUTMM_SKINNY_SLOTS * LUTMM_SKINNY_SCALE_ENTRY;
  uint8_t *entry1 = entry0 + LUTMM_SKINNY_SCALE_ENTRY;
  const uint32_t after_rings =
      smem_address(smem) + 2 * C::CHUNK_BYTES + C::WARPS * LUTMM_SKINNY_SLOTS * LUTMM_SKINNY_SCALE_ENTRY;
  const uint32_t table_address = (after_rings + LUTMM_SKINNY_TABLE_ALIGN - 1) & ~(uint32_t)(LUTMM_SKINNY_TABLE_ALIGN - 1);
  uint8_t *table = smem + (table_address - smem_address(smem));
  const uint32_t table_lane = table_address | (uint32_t)lane * 4;
  const uint8_t *x_lane = xbuf + (lane & 7) * LUTMM_SKINNY_X_ROW_BYTES + 16 * (lane >> 3);
  build_table<T, MB, BITS>(p, table);
  __syncthreads();

  const int lo = (int)lutmm_cuda_range_start(p.units, p.grid, blockIdx.x);
  const int hi = (int)lutmm_cuda_range_start(p.units, p.grid, blockIdx.x + 1);
  const plane_lanes<BITS> planes = lanes_of<BITS>(p, lane);
  const uint32_t group_mask = p.atom_group_mask;
  position<MB, BITS> at;
  at.start(p, lo, warp);

  /* Prologue: unit lo's X chunk, its first atom and that atom's scales. */
  uint32_t w0[C::WORDS], w1[C::WORDS];
#pragma unroll
  for (int i = 0; i < C::WORDS; i++) w0[i] = w1[i] = 0;
  if (lo < hi) {
    load_x_chunk<MB, BITS>(p, lo, hi, xbuf);
    if (at.column_ok) {
      load_atom<BITS>(planes, at.atom, w0);
      load_scales<ONE_ROW>(p, at.column, 2 * at.c.it, lane, entry0);
    }
  }
  cp_async_commit();

  uint32_t s2[8]; /* the current atom's scale pairs (kept while the group lasts) */
#pragma unroll
  for (int nb = 0; nb < 8; nb++) s2[nb] = 0;
  int chunk_pos = 0, chunk_buffer = 0;
  const uint8_t *xs = x_lane; /* X slot of the unit's even atom */
  /* One segment per pass: the units of one tile in this block's range. The
   * accumulators live for exactly one segment, so the inner loop never
   * reassigns them conditionally (that costs a copy of all of them). */
  for (int u = lo; u < hi;) {
    const int segment_start = u, segment_end = min(hi, u + (int)p.iters - at.c.it);
    const cursor segment_last = {at.c.tile, at.c.it + (segment_end - 1 - u)};
    const bool column_ok = at.column_ok;
    float acc[MB][4][4];
    zero_accumulators<MB>(acc);
    for (; u < segment_end; u++) {
      const int even = 2 * at.c.it;
      const bool odd_exists = even + 1 < (int)p.k_atoms;

      /* Slot 0 computes the even atom while the odd one is fetched into
       * slot 1. Lanes read scale rows other lanes copied; at a chunk start
       * the whole block's X copies must be in and the previous chunk consumed. */
      cp_async_wait(0);
      if (chunk_pos == 0) __syncthreads();
      else __syncwarp();
      if (column_ok && odd_exists) {
        load_atom<BITS>(planes, at.atom + 1, w1);
        if (((uint32_t)(even + 1) & group_mask) == 0) load_scales<ONE_ROW>(p, at.column, even + 1, lane, entry1);
      }
      cp_async_commit();
      if (column_ok)
        compute_atom<T, MB, BITS, ONE_ROW>(p, even, lane, w0, entry0, xs, table_lane,
                                           u != lo && ((uint32_t)even & group_mask) != 0, s2, acc);

      /* Slot 1 computes the odd atom while the next unit's even atom (and,
       * at a chunk's last unit, the next X chunk) is fetched into slot 0. */
      cp_async_wait(0);
      __syncwarp();
      if (u + 1 < hi) {
        if (chunk_pos + 1 == C::CHUNK_UNITS)
          load_x_chunk<MB, BITS>(p, u + 1, hi, xbuf + (chunk_buffer ^ 1) * C::CHUNK_BYTES);
        position<MB, BITS> ahead = at; /* not kept: recomputed below, fewer live registers */
        ahead.next(p, warp);
        if (ahead.column_ok) {
          load_atom<BITS>(planes, ahead.atom, w0);
          if (((uint32_t)(2 * ahead.c.it) & group_mask) == 0)
            load_scales<ONE_ROW>(p, ahead.column, 2 * ahead.c.it, lane, entry0);
        }
      }
      cp_async_commit();
      if (column_ok && odd_exists)
        compute_atom<T, MB, BITS, ONE_ROW>(p, even + 1, lane, w1, entry1, xs + C::SLOT_BYTES, table_lane,
                                           ((uint32_t)(even + 1) & group_mask) != 0, s2, acc);

      at.next(p, warp);
      if (++chunk_pos == C::CHUNK_UNITS) {
        chunk_pos = 0;
        chunk_buffer ^= 1;
        xs = x_lane + chunk_buffer * C::CHUNK_BYTES;
      } else {
        xs += 2 * C::SLOT_BYTES;
      }
    }
    if (column_ok) finish_segment<MB, BITS>(p, segment_last, segment_start, lo, warp, lane, acc);
  }
  cp_async_wait(0);
}

}  // namespace skinny
}  // namespace lutmm_kernels

#endif
