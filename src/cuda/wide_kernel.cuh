/* The wide LUT-GEMM kernel: Hopper warpgroup MMAs for many rows of X
 * (M > 64), codes of 1..4 bits.
 *
 * The product runs transposed, as in the skinny kernel: Y^T = W^T X^T. A
 * block has two warpgroups; each owns COLS 64-column atom columns of the
 * tile, and warp j of a warpgroup dequantizes n16 block j of each of them:
 * the four pair values a lane looks up for one 16-row slab are exactly its
 * rows of the wgmma A operand (16 rows per warp, mma.m16n8k16's A layout),
 * so the weights never go back to shared memory. X^T, the B operand, is
 * read by the tensor cores straight from the stage that cp.async filled
 * (core-matrix order, no swizzle). One wgmma.m64n128k16 per column and
 * slab then multiplies each dequantized weight by 128 rows of X, and the
 * dequantization of the next slab overlaps it.
 *
 * Work is a Stream-K range of units (tile, k-atom) per block with the
 * tiled kernel's conventions: a tile the block covers whole goes to Y, a
 * partial one to workspace slot 2b (its first segment) or 2b + 1 (its
 * last), summed in block order by the fixup kernel. */
#ifndef LUTMM_CUDA_WIDE_KERNEL_CUH
#define LUTMM_CUDA_WIDE_KERNEL_CUH

#include "gemm_device.cuh"
#include "gemm_params.h"
#include "wgmma.cuh"

namespace lutmm_kernels {
namespace wide {

constexpr int THREADS = LUTMM_WIDE_THREADS;
constexpr int COLS = LUTMM_WIDE_COLS;          /* atom columns per warpgroup */
constexpr int TILE_M = LUTMM_WIDE_TILE_M;      /* X rows of a tile: wgmma's N */
constexpr int TILE_N = LUTMM_WIDE_TILE_N;      /* W columns of a tile */
constexpr int ATOMS = TILE_N / 64;             /* atoms of a unit */
constexpr int ACC = TILE_M / 2;                /* fp32 accumulators per thread and column */

/* A stage: X (TILE_M rows × 64 k, 16-byte chunk c of row r at
 * c·TILE_M·16 + r·16: wgmma's core matrices), the ATOMS atoms (atom a's
 * vector q of lane L at a·BITS·512 + 512q + 16L, the skinny ring's order),
 * then up to four scale rows of TILE_N stored scales (row r at r·TILE_N·4). */
template <int BITS>
struct stage_layout {
  static constexpr uint32_t X = 0;
  static constexpr uint32_t W = LUTMM_WIDE_X_BYTES;
  static constexpr uint32_t ATOM = 512u * BITS;
  static constexpr uint32_t SCALES = W + ATOMS * ATOM;
  static constexpr uint32_t ROW = TILE_N * 4;
};

/* X of unit s into the stage, element by element: the path for X rows not
 * on 16-byte boundaries (rows past M and K zero). */
__device__ __forceinline__ void load_x_unaligned(const lutmm_cuda_gemm_params &p, const unit_site &s, uint8_t *x) {
  for (int v = (int)threadIdx.x; v < TILE_M * 8; v += THREADS) {
    const int r = v / 8, c = v % 8;
    *(uint4 *)(x + c * TILE_M * 16 + r * 16) = x_chunk8(p, s.mt * TILE_M + r, s.it * 64 + 8 * c);
  }
}

/* The scale rows of the unit's 64 K rows (one when every atom lies in one
 * group), TILE_N stored scales each; columns past n_pad are zeros. At most
 * 4 rows × 64 vectors: one per thread. */
template <int BITS, bool ONE_ROW>
__device__ __forceinline__ void load_scales(const lutmm_cuda_gemm_params &p, const unit_site &s, uint8_t *scales) {
  const int64_t r0 = scale_row(p, s.it * 64);
  const int rows = ONE_ROW ? 1 : (int)(scale_row(p, s.it * 64 + 48) - r0) + 1;
  const int log2_elem = p.scale_dtype == LUTMM_DTYPE_F32 ? 2 : 1;
  const int log2_vpr = 8 + log2_elem - 4; /* 16-byte vectors per row of TILE_N = 256 scales */
  const int v = (int)threadIdx.x;
  static_assert(THREADS >= 4 * 64, "one scale vector per thread");
  if (v >= rows << log2_vpr) return;
  const int r = v >> log2_vpr, c = v & ((1 << log2_vpr) - 1);
  const int64_t col = s.nt * TILE_N + ((int64_t)c << (4 - log2_elem));
  const bool ok = col < p.n_pad;
  const uint8_t *src = (const uint8_t *)p.scales + (((r0 + r) * p.n_pad + col) << log2_elem);
  cp_async16(scales + r * stage_layout<BITS>::ROW + c * 16, ok ? src : (const uint8_t *)p.scales, ok ? 16 : 0);
}

/* What this thread copies into a stage for each unit of one tile: X
 * vectors (row t/8 + i·THREADS/8, k chunk t % 8) and atom vectors
 * (t + i·THREADS of the unit's ATOMS·32·BITS), held as global addresses
 * at k-atom 0 that move by a constant per k-atom, so a unit's copies need
 * no index arithmetic. */
template <int BITS>
struct loader {
  static constexpr int XV = TILE_M * 8 / THREADS;
  static constexpr int WV = (ATOMS * 32 * BITS + THREADS - 1) / THREADS;
  static_assert(TILE_M * 8 % THREADS == 0, "X vectors divide among the threads");
  const uint8_t *x[XV];
  bool x_ok[XV];
  const uint8_t *w[WV];
  uint32_t w_step[WV]; /* bytes from one k-atom of a plane to the next */
  bool w_ok[WV];

  __device__ __forceinline__ void enter_tile(const lutmm_cuda_gemm_params &p, const unit_site &s) {
    const int t = (int)threadIdx.x;
#pragma unroll
    for (int i = 0; i < XV; i++) {
      const int64_t row = s.mt * TILE_M + t / 8 + THREADS / 8 * i;
      x_ok[i] = row < p.m;
      x[i] = (const uint8_t *)p.x + ((x_ok[i] ? row : 0) * p.k + 8 * (t % 8)) * 2;
    }
#pragma unroll
    for (int i = 0; i < WV; i++) {
      const int v = t + THREADS * i;
      const int a = v / (32 * BITS), q = (v / 32) % BITS, lane = v % 32;
      int sl = 0; /* the plane of vector q: shift <= q < shift + width */
#pragma unroll
      for (int u = 1; u < slices<BITS>::count; u++)
        if (q >= slices<BITS>::shift(u)) sl = u;
      const int width = slices<BITS>::width(sl), c = q - slices<BITS>::shift(sl);
      const int64_t column = s.nt * ATOMS + a;
      w_ok[i] = v < ATOMS * 32 * BITS && column < p.n_atoms;
      w_step[i] = 512u * (uint32_t)width;
      w[i] = p.planes + p.plane_offset[sl] + ((w_ok[i] ? column : 0) * p.k_atoms * 32 * width + 32 * c + lane) * 16;
    }
  }

  /* The unit's X and atoms into a stage (stage_layout). */
  __device__ __forceinline__ void issue(const lutmm_cuda_gemm_params &p, const unit_site &s, uint8_t *stage) const {
    const int t = (int)threadIdx.x;
    if (p.x_vector) {
      const bool k_ok = s.it * 64 + 8 * (t % 8) < p.k;
#pragma unroll
      for (int i = 0; i < XV; i++) {
        const bool ok = x_ok[i] && k_ok;
        cp_async16(stage + stage_layout<BITS>::X + (t % 8) * TILE_M * 16 + (t / 8 + THREADS / 8 * i) * 16,
                   ok ? x[i] + s.it * 128 : (const uint8_t *)p.x, ok ? 16 : 0);
      }
    } else {
      load_x_unaligned(p, s, stage + stage_layout<BITS>::X);
    }
#pragma unroll
    for (int i = 0; i < WV; i++) {
      const int v = t + THREADS * i;
      if (ATOMS * 32 * BITS % THREADS != 0 && v >= ATOMS * 32 * BITS) break;
      const int a = v / (32 * BITS), q = (v / 32) % BITS, lane = v % 32;
      cp_async16(stage + stage_layout<BITS>::W + a * stage_layout<BITS>::ATOM + 512 * q + 16 * lane,
                 w_ok[i] ? w[i] + (size_t)s.it * w_step[i] : p.planes, w_ok[i] ? 16 : 0);
    }
  }
};

template <int BITS, bool ONE_ROW>
__device__ __forceinline__ void fill_stage(const lutmm_cuda_gemm_params &p, const loader<BITS> &load,
                                           const unit_site &s, uint8_t *stage) {
  load.issue(p, s, stage);
  load_scales<BITS, ONE_ROW>(p, s, stage + stage_layout<BITS>::SCALES);
}

/* Pair index word of n16 block j in slab `slab` of an atom (this lane's
 * words at atom_lane + 512q + 4i): byte i is the index of the lane's pair
 * i, slices merged as in the skinny kernel's pair_indices. */
template <int BITS>
__device__ __forceinline__ uint32_t pair_index(const uint8_t *atom_lane, int slab, int j) {
  uint32_t index = 0;
#pragma unroll
  for (int sl = 0; sl < slices<BITS>::count; sl++) {
    const int width = slices<BITS>::width(sl), sh = slices<BITS>::shift(sl);
    const int word = 4 * sh + slab * width + j * width / 4; /* of the lane's 4·BITS words */
    const uint32_t bits = *(const uint32_t *)(atom_lane + 512 * (word / 4) + 4 * (word % 4)) >>
                          (width == 4 ? 0 : width == 2 ? 4 * (j % 2) : 2 * j);
    const uint32_t mask = width == 4 ? 0xFFFFFFFFu : width == 2 ? 0x0F0F0F0Fu : 0x03030303u;
    index |= (bits & mask) << (2 * sh);
  }
  return index;
}

/* Pair of index byte b from the 16-copy pair table (copy lane % 16 at
 * lane_table): entry e at e·64. */
__device__ __forceinline__ uint32_t lookup(const uint8_t *lane_table, uint32_t index, int b) {
  const uint32_t offset = b == 0 ? (index << 6) & 0x3FC0u : (index >> (8 * b - 6)) & 0x3FC0u;
  return *(const uint32_t *)(lane_table + offset);
}

/* This lane's two scales of n16 block j (columns 16j + lane/4 and + 8) of
 * atom a in stage scale row r, in compute dtype, duplicated into pairs. */
template <typename T, int BITS>
__device__ __forceinline__ void scale_pair(const lutmm_cuda_gemm_params &p, const uint8_t *scales, int r, int a,
                                           int j, int lane, uint32_t &lo, uint32_t &hi) {
  const uint8_t *row = scales + r * stage_layout<BITS>::ROW;
  const int column = 64 * a + 16 * j + lane / 4;
  lo = (uint32_t)scale_in<T>(row, column, p.scale_dtype) * 0x10001u;
  hi = (uint32_t)scale_in<T>(row, column + 8, p.scale_dtype) * 0x10001u;
}

/* One unit: for each slab, this warp's A fragments of its COLS columns,
 * then one wgmma per column into acc. Each slab's group may run on while
 * the next slab is dequantized; a register buffer is reused only after the
 * group that read it completed (wait for all but the latest group). */
template <typename T, int BITS, bool ONE_ROW>
__device__ __forceinline__ void compute_unit(const lutmm_cuda_gemm_params &p, const unit_site &s, const uint8_t *stage,
                                             const uint8_t *lane_table, int wg, int j, int lane,
                                             float (&acc)[COLS][ACC]) {
  using L = stage_layout<BITS>;
  const uint8_t *scales = stage + L::SCALES;
  const int64_t r0 = ONE_ROW ? 0 : scale_row(p, s.it * 64);
  uint32_t s_lo[COLS], s_hi[COLS];
#pragma unroll
  for (int cc = 0; cc < COLS; cc++) scale_pair<T, BITS>(p, scales, 0, wg * COLS + cc, j, lane, s_lo[cc], s_hi[cc]);
  const uint32_t x_base = smem_address(stage + L::X);
  uint32_t a[2][COLS][4];
#pragma unroll
  for (int slab = 0; slab < 4; slab++) {
    if (!ONE_ROW && slab > 0) {
      const int r = (int)(scale_row(p, s.it * 64 + 16 * slab) - r0);
#pragma unroll
      for (int cc = 0; cc < COLS; cc++) scale_pair<T, BITS>(p, scales, r, wg * COLS + cc, j, lane, s_lo[cc], s_hi[cc]);
    }
#pragma unroll
    for (int cc = 0; cc < COLS; cc++) {
      const uint8_t *atom_lane = stage + L::W + (wg * COLS + cc) * L::ATOM + 16 * lane;
      const uint32_t index = pair_index<BITS>(atom_lane, slab, j);
      uint32_t(&f)[4] = a[slab % 2][cc];
      /* rows g, g + 8 (columns of W) × k 2q.., 2q + 8..: pairs 0, 2, 1, 3 */
      f[0] = compute<T>::mul2(lookup(lane_table, index, 0), s_lo[cc]);
      f[1] = compute<T>::mul2(lookup(lane_table, index, 2), s_hi[cc]);
      f[2] = compute<T>::mul2(lookup(lane_table, index, 1), s_lo[cc]);
      f[3] = compute<T>::mul2(lookup(lane_table, index, 3), s_hi[cc]);
    }
    /* X^T of the slab: k chunks 2·slab and 2·slab + 1, every row */
    const uint64_t desc = wgmma_descriptor(x_base + 2u * (uint32_t)slab * TILE_M * 16u, TILE_M * 16u, 128u);
    wgmma_fence();
#pragma unroll
    for (int cc = 0; cc < COLS; cc++) wgmma_m64k16<T, TILE_M>::run(acc[cc], a[slab % 2][cc], desc);
    wgmma_commit();
    wgmma_wait<1>();
  }
}

/* Writes a finished segment: the whole tile to Y, or a partial one to the
 * block's workspace slot (TILE_M × TILE_N fp32, row-major). Accumulator
 * 4c + e of column cc is W column 64·(wg·COLS + cc) + 16j + lane/4 + 8·(e/2)
 * and X row 8c + 2·(lane % 4) + e % 2. */
__device__ inline void store_segment(const lutmm_cuda_gemm_params &p, const unit_site &s, int64_t slot, int wg, int j,
                                     int lane, const float (&acc)[COLS][ACC]) {
  float *part = p.workspace + (size_t)(slot < 0 ? 0 : slot) * TILE_M * TILE_N;
#pragma unroll
  for (int cc = 0; cc < COLS; cc++)
#pragma unroll
    for (int i = 0; i < ACC; i++) {
      const int col = 64 * (wg * COLS + cc) + 16 * j + lane / 4 + 8 * ((i % 4) / 2);
      const int row = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
      if (slot >= 0) {
        part[row * TILE_N + col] = acc[cc][i];
        continue;
      }
      const int64_t grow = s.mt * TILE_M + row, gcol = s.nt * TILE_N + col;
      if (grow < p.m && gcol < p.n) store_output(p.y, p.y_dtype, grow * p.n + gcol, acc[cc][i]);
    }
}

template <typename T, int BITS, bool ONE_ROW>
__global__ void __launch_bounds__(THREADS, 1) wide_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
#if !LUTMM_HAVE_WGMMA
  __trap(); /* never launched: the probe found no sm_90a code (wgmma.cuh) */
#else
  extern __shared__ __align__(128) uint8_t smem[];
  const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
  const int wg = warp / 4, j = warp % 4;
  uint8_t *table = smem;
  uint8_t *stages = smem + lutmm_wide_table_bytes(BITS);
  const size_t stage_bytes = lutmm_wide_stage_bytes(BITS);
  const uint8_t *lane_table = table + 4 * (lane % LUTMM_CUDA_PAIR_COPIES);
  build_pair_table<T, BITS>(p, table);

  const int64_t lo = lutmm_cuda_range_start(p.units, p.grid, blockIdx.x);
  const int64_t hi = lutmm_cuda_range_start(p.units, p.grid, blockIdx.x + 1);
  /* Units run ahead by AHEAD = stages − 2: a stage is refilled two units
   * after it was computed, when no wgmma of any warpgroup still reads it
   * (each waits for all but its latest group before the next unit). */
  const int ahead = p.stages - 2;
  unit_site load_site = site_of(p, lo), at = load_site;
  loader<BITS> load;
  load.enter_tile(p, load_site);
  for (int s = 0; s < ahead; s++) {
    if (lo + s < hi) fill_stage<BITS, ONE_ROW>(p, load, load_site, stages + (size_t)s * stage_bytes);
    cp_async_commit();
    advance(p, load_site);
    if (load_site.it == 0) load.enter_tile(p, load_site);
  }
  float acc[COLS][ACC];
  zero_floats(acc);
  int64_t segment_start = lo;
  int read_stage = 0, write_stage = ahead;
  for (int64_t u = lo; u < hi; u++) {
    /* This unit's copies landed (this thread's), are visible to the async
     * proxy, and everyone's are (the barrier); the table too, at first. */
    cp_async_wait(ahead - 1);
    fence_async_shared();
    __syncthreads();
    if (u + ahead < hi) fill_stage<BITS, ONE_ROW>(p, load, load_site, stages + (size_t)write_stage * stage_bytes);
    cp_async_commit();
    advance(p, load_site);
    if (load_site.it == 0) load.enter_tile(p, load_site);
    compute_unit<T, BITS, ONE_ROW>(p, at, stages + (size_t)read_stage * stage_bytes, lane_table, wg, j, lane, acc);
    read_stage = read_stage + 1 == p.stages ? 0 : read_stage + 1;
    write_stage = write_stage + 1 == p.stages ? 0 : write_stage + 1;
    if (at.it == p.iters - 1 || u == hi - 1) {
      wgmma_wait<0>();
      store_segment(p, at, segment_slot(p, at, segment_start, lo), wg, j, lane, acc);
      zero_floats(acc);
      segment_start = u + 1;
    }
    advance(p, at);
  }
  wgmma_wait<0>();
  cp_async_wait(0);
#endif
}

template <typename T, bool ONE_ROW>
const void *kernel_for(int bits) {
  switch (bits) {
    case 1: return (const void *)wide_kernel<T, 1, ONE_ROW>;
    case 2: return (const void *)wide_kernel<T, 2, ONE_ROW>;
    case 3: return (const void *)wide_kernel<T, 3, ONE_ROW>;
    default: return (const void *)wide_kernel<T, 4, ONE_ROW>;
  }
}

template <typename T>
cudaError_t launch(cudaStream_t stream, const lutmm_cuda_gemm_params *p, size_t smem) {
  void *args[] = {(void *)p};
  const void *kernel = p->atom_one_group ? kernel_for<T, true>(p->bits) : kernel_for<T, false>(p->bits);
  return cudaLaunchKernel(kernel, dim3((unsigned)p->grid), dim3(THREADS), args, smem, stream);
}

template <typename T>
cudaError_t allow_smem(size_t limit) {
  for (int bits = 1; bits <= 4; bits++)
    for (int one_row = 0; one_row < 2; one_row++) {
      const void *kernel = one_row ? kernel_for<T, true>(bits) : kernel_for<T, false>(bits);
      cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)limit);
      if (err != cudaSuccess) return err;
    }
  return cudaSuccess;
}

}  // namespace wide
}  // namespace lutmm_kernels

#endif
