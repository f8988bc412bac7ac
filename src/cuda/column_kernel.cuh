/* The column-stream kernel: the skinny kernel's atoms, lookups and MMAs at
 * M = 1, with the work cut along the packed order instead of across tiles.
 *
 * A unit is still a k-atom pair, but of one atom column (64 columns of W),
 * and units run column after column, so a block's Stream-K range is one
 * contiguous run of the packed planes: all its warps read neighbouring
 * atoms of one column (warp w takes units w, w + W, ... of the range's
 * part of a column) and the DRAM pages a block opens are its own. At a
 * column's end the warps add their sums in shared memory (warp order), so a
 * column's partials are per block, not per warp: a block's range cuts at
 * most the column it starts in and the one it ends in.
 *
 * Cut columns (cooperative launches only, like the skinny kernel's tags):
 * the block holding a column's first unit ends its range in it, so it
 * computes that part last; every other contributor starts its range in the
 * column and publishes its part there as tagged words in its slot: first
 * if its range goes on past the column, at its end if the range lies
 * inside it. The first block adds them in block order at the end of its
 * range. Where ranges span a column or more (each column cut at most two
 * ways) the other part was stored at the other block's start, so the wait
 * is one round trip, not the slowest contributor's stores (docs/PERF.md,
 * change 76); a block whose range lies inside the column makes the first
 * block wait for its end, as the skinny kernel's tags do.
 *
 * X (one row) stays in shared memory whole, 128 bytes a k-atom in the
 * skinny layout's X region, with the warps' sums behind it
 * (lutmm_column_stream_fits). */
#ifndef LUTMM_CUDA_COLUMN_KERNEL_CUH
#define LUTMM_CUDA_COLUMN_KERNEL_CUH

#include "skinny_kernel.cuh"

namespace lutmm_kernels {
namespace skinny {

/* The warp's next atom to fetch: its units of each column's part of the
 * block's range [lo, hi), two atoms a unit (one for a column's last unit
 * when K has an odd number of atoms), column after column. */
template <int W>
struct column_fetcher {
  int unit, atom_of_unit, part_end; /* part_end: end of the column part `unit` lies in */

  __device__ __forceinline__ void start(const lutmm_cuda_gemm_params &p, int lo, int hi, int warp) {
    const int iters = (int)p.iters;
    part_end = min(hi, (lo / iters + 1) * iters);
    unit = lo + warp;
    atom_of_unit = 0;
    settle(p, hi, warp);
  }
  /* Past its part: the warp's first unit of the next part, if any. */
  __device__ __forceinline__ void settle(const lutmm_cuda_gemm_params &p, int hi, int warp) {
    while (unit >= part_end && part_end < hi) {
      unit = part_end + warp;
      part_end = min(hi, part_end + (int)p.iters);
    }
  }
  __device__ __forceinline__ bool done() const { return unit >= part_end; }

  template <int BITS, bool ONE_ROW>
  __device__ __forceinline__ void issue(const lutmm_cuda_gemm_params &p, const plane_lanes<BITS> &planes, int lane,
                                        uint32_t slot_lane, uint8_t *entry) const {
    if (done()) return;
    const int iters = (int)p.iters, column = unit / iters, k = 2 * (unit - column * iters) + atom_of_unit;
    fetch_atom<BITS>(planes, (uint32_t)column * (uint32_t)p.k_atoms + (uint32_t)k, slot_lane);
    /* a unit's first atom always brings its scale rows: the warp's previous
     * unit lies W units back */
    if (atom_of_unit == 0 || ((uint32_t)k & p.atom_group_mask) == 0) load_scales<ONE_ROW>(p, column, k, lane, entry);
  }
  __device__ __forceinline__ void advance(const lutmm_cuda_gemm_params &p, int hi, int warp) {
    if (done()) return;
    const int iters = (int)p.iters, it = unit % iters;
    if (atom_of_unit == 0 && 2 * it + 1 < (int)p.k_atoms) {
      atom_of_unit = 1;
      return;
    }
    atom_of_unit = 0;
    unit += W;
    settle(p, hi, warp);
  }
};

/* X's one row into the X region as 64 values a k-atom, zero past K. */
template <int W>
__device__ void load_x_row(const lutmm_cuda_gemm_params &p, uint8_t *xrow) {
  const int vectors = (int)p.k_atoms * 8;
  for (int v = (int)threadIdx.x; v < vectors; v += 32 * W) {
    const int64_t k = (int64_t)v * 8;
    if (p.x_vector) {
      const bool ok = k < p.k;
      cp_async16(xrow + v * 16, ok ? (const uint8_t *)p.x + k * 2 : (const uint8_t *)p.x, ok ? 16 : 0);
    } else {
      *(uint4 *)(xrow + v * 16) = x_chunk8(p, 0, k);
    }
  }
}

/* Row 0 of this warp's accumulators (lanes 4i: columns 16·j + i and
 * 16·j + i + 8 of the atom column) into its 64 sums. */
__device__ __forceinline__ void put_row0(float *sums, int lane, const float (&acc)[1][4][4]) {
  if (lane % 4 != 0) return;
#pragma unroll
  for (int j = 0; j < 4; j++) {
    sums[16 * j + lane / 4] = acc[0][j][0];
    sums[16 * j + lane / 4 + 8] = acc[0][j][2];
  }
}

/* Columns e = lane and lane + 32 of a column part: the warps' sums added in
 * warp order. */
template <int W>
__device__ __forceinline__ void add_warps(const float *sums, int lane, float (&v)[2]) {
#pragma unroll
  for (int h = 0; h < 2; h++) {
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < W; w++) s += sums[w * 64 + lane + 32 * h];
    v[h] = s;
  }
}

/* Y row 0, columns column·64 + lane (+32), those below N. */
__device__ __forceinline__ void store_row0(const lutmm_cuda_gemm_params &p, int column, int lane, const float (&v)[2]) {
#pragma unroll
  for (int h = 0; h < 2; h++) {
    const int64_t n = (int64_t)column * 64 + lane + 32 * h;
    if (n < p.n) store_output(p.y, p.y_dtype, n, v[h]);
  }
}

/* The first block of a cut column, at the end of its range: adds the
 * parts of blocks first + 1 .. last (each in its tagged slot, once every
 * word carries this launch's tag) to its own, in block order, and writes Y.
 * The wait spins without sleeping: the parts are usually there already. */
__device__ __forceinline__ void add_column_parts(const lutmm_cuda_gemm_params &p, int column, int first, int last,
                                                 int lane, float (&v)[2]) {
  for (int b = first + 1; b <= last; b++) {
    const uint64_t *slot = p.tagged + (size_t)b * 64 + lane;
    uint64_t word[2];
#pragma unroll
    for (int h = 0; h < 2; h++) word[h] = load_tagged(slot + 32 * h);
#pragma unroll
    for (int h = 0; h < 2; h++) {
      while ((uint32_t)(word[h] >> 32) != p.tag) word[h] = load_tagged(slot + 32 * h);
      v[h] += __uint_as_float((uint32_t)word[h]);
    }
  }
  store_row0(p, column, lane, v);
}

template <typename T, int BITS, bool ONE_ROW, int W>
__global__ void __launch_bounds__(32 * W, 1) column_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
  using R = ring<1, BITS, ONE_ROW>;
  extern __shared__ __align__(16) uint8_t smem[];
  const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
  const uint32_t base = smem_address(smem);
  const lutmm_skinny_layout layout = lutmm_skinny_layout_at(base, BITS, 1, ONE_ROW, W);
  if (layout.end - base > dynamic_smem_bytes()) __trap();
  uint8_t *xrow = smem;
  float *sums = (float *)(smem + (size_t)p.k_atoms * 128); /* two sets of W × 64 */
  uint8_t *entries = smem + (layout.scales - base) + (size_t)warp * R::DEPTH * R::ENTRY;
  const uint32_t ring_lane = ring_of<1, BITS, ONE_ROW>(layout, warp) + 16u * (uint32_t)lane;
  const uint32_t table_lane = layout.table | table_lane_offset<BITS>(lane);
  /* every lane's ldmatrix rows are row 0: the MMA's columns 1..7 repeat it */
  const uint8_t *x_lane = xrow + 16 * (lane >> 3);
  const int lo = (int)lutmm_cuda_range_start(p.units, p.grid, blockIdx.x);
  const int hi = (int)lutmm_cuda_range_start(p.units, p.grid, blockIdx.x + 1);
  const int iters = (int)p.iters;
  const plane_lanes<BITS> planes = lanes_of<BITS>(p, lane);

  /* Prologue: X (one group), then the first RING atoms, one group each. */
  load_x_row<W>(p, xrow);
  cp_async_commit();
  column_fetcher<W> fetch;
  fetch.start(p, lo, hi, warp);
#pragma unroll
  for (int s = 0; s < R::DEPTH; s++) {
    fetch.template issue<BITS, ONE_ROW>(p, planes, lane, ring_lane + s * R::SLOT, entries + s * R::ENTRY);
    cp_async_commit();
    fetch.advance(p, hi, warp);
  }
  build_table<T, 1, BITS, W>(p, smem + (layout.table - base));
  cp_async_wait(R::DEPTH); /* this thread's X */
  __syncthreads();         /* everyone's X, and the table */

  int slot = 0;
  uint32_t s2[8];
#pragma unroll
  for (int nb = 0; nb < 8; nb++) s2[nb] = 0;
  float head[2] = {0.0f, 0.0f}; /* the first block's own part of the column its range ends in */
  int head_column = -1;
  int parity = 0;
  for (int part_lo = lo; part_lo < hi; parity ^= 1) {
    const int column = part_lo / iters, part_hi = min(hi, (column + 1) * iters);
    float acc[1][4][4];
    zero_floats(acc);
    for (int u = part_lo + warp; u < part_hi; u += W) {
      const int even = 2 * (u - column * iters);
      const int atoms = even + 1 < (int)p.k_atoms ? 2 : 1;
#pragma unroll
      for (int h = 0; h < 2; h++) {
        if (h == 1 && atoms == 1) break;
        cp_async_wait(R::DEPTH - 1);
        __syncwarp();
        const bool carry = h == 1 && ((uint32_t)(even + 1) & p.atom_group_mask) != 0;
        compute_atom<T, 1, BITS, ONE_ROW>(p, even + h, lane, ring_lane + slot * R::SLOT, entries + slot * R::ENTRY,
                                          x_lane + (even + h) * 128, table_lane, carry, s2, acc);
        __syncwarp();
        fetch.template issue<BITS, ONE_ROW>(p, planes, lane, ring_lane + slot * R::SLOT, entries + slot * R::ENTRY);
        cp_async_commit();
        fetch.advance(p, hi, warp);
        slot = slot + 1 == R::DEPTH ? 0 : slot + 1;
      }
    }
    /* Two sets of sums: warp 0 reads this part's while the others go on
     * into the next part; the barrier after that part orders its reads
     * before the set is written again. */
    float *set = sums + parity * W * 64;
    put_row0(set + warp * 64, lane, acc);
    __syncthreads();
    if (warp == 0) {
      float v[2];
      add_warps<W>(set, lane, v);
      const bool starts = part_lo == column * iters, ends = part_hi == (column + 1) * iters;
      if (starts && ends) {
        store_row0(p, column, lane, v);
      } else if (starts) { /* the column's first block: its last part */
        head[0] = v[0];
        head[1] = v[1];
        head_column = column;
      } else { /* a later contributor's first part */
        uint64_t *slot_words = p.tagged + (size_t)blockIdx.x * 64 + lane;
#pragma unroll
        for (int h = 0; h < 2; h++) store_tagged(slot_words + 32 * h, p.tag, v[h]);
      }
    }
    part_lo = part_hi;
  }
  cp_async_wait(0);
  if (warp == 0 && head_column >= 0) {
    const int last = (int)lutmm_cuda_block_of_unit(p.units, p.grid, (int64_t)(head_column + 1) * iters - 1);
    add_column_parts(p, head_column, (int)blockIdx.x, last, lane, head);
  }
}

}  // namespace skinny
}  // namespace lutmm_kernels

#endif
