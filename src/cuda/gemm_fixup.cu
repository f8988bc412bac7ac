/* The ordered Stream-K fixup: for every tile whose k range was split between
 * blocks, add the blocks' fp32 partial tiles in block order (the same order
 * every run: no atomics) and write Y. Tiles held whole by one block were
 * written by the main kernel and are skipped.
 *
 * The contributors of a tile are the consecutive blocks first..last. Only
 * the first can start before the tile (its partial is then in its second
 * slot, 2b+1); every later one starts inside the tile at its own range
 * start, so its partial is its first slot, 2b. */
#include "cuda_ops.h"
#include "fault.h"
#include "gemm_device.cuh"

/* Block (tile, c) adds elements 1024c .. 1024c + 1023 of its slot, four
 * per thread (tile widths are multiples of 4; the wide kernel's slots hold
 * its accumulators' order, which maps them back), loading BATCH partials
 * before adding any, so a thread waits on memory once per batch rather
 * than once per partial. The additions stay in block order. */
#define FIXUP_THREADS 256
#define FIXUP_BATCH 4

__global__ void __launch_bounds__(FIXUP_THREADS) lutmm_fixup_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
  const int bm = p.tile_m, bn = p.tile_n;
  const int64_t tile = blockIdx.x, first_unit = tile * p.iters;
  const int64_t first = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit);
  const int64_t last = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit + p.iters - 1);
  if (first == last) return;
  const int e = 4 * (int)(blockIdx.y * FIXUP_THREADS + threadIdx.x);
  if (e >= bm * bn) return;
  const int64_t first_slot = lutmm_cuda_range_start(p.units, p.grid, first) == first_unit ? 2 * first : 2 * first + 1;
  const size_t tile_elems = (size_t)bm * (size_t)bn;
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int64_t b0 = first; b0 <= last; b0 += FIXUP_BATCH) {
    float4 part[FIXUP_BATCH];
#pragma unroll
    for (int t = 0; t < FIXUP_BATCH; t++) {
      const int64_t b = b0 + t, slot = b == first ? first_slot : 2 * b;
      const bool load = b <= last && !lutmm_fault_drop_partial(b - first);
      part[t] = load ? __ldcg((const float4 *)(p.workspace + (size_t)slot * tile_elems + (size_t)e))
                     : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (int t = 0; t < FIXUP_BATCH; t++) {
      sum.x += part[t].x;
      sum.y += part[t].y;
      sum.z += part[t].z;
      sum.w += part[t].w;
    }
  }
  const int64_t mt = tile % p.m_tiles, nt = tile / p.m_tiles;
  const float v[4] = {sum.x, sum.y, sum.z, sum.w};
  if (p.acc_order) {
    /* The wide kernel's order: the four are rows r, r + 1 of columns c, c + 8. */
    for (int i = 0; i < 4; i++) {
      int row, col;
      lutmm_wide_partial_site(bm, e + i, &row, &col);
      const int64_t grow = mt * bm + row, gcol = nt * bn + col;
      if (grow < p.m && gcol < p.n) lutmm_kernels::store_output(p.y, p.y_dtype, grow * p.n + gcol, v[i]);
    }
    return;
  }
  const int row = e / bn, col = e % bn;
  const int64_t grow = mt * bm + row, gcol = nt * bn + col;
  if (grow >= p.m) return;
  for (int i = 0; i < 4 && gcol + i < p.n; i++)
    lutmm_kernels::store_output(p.y, p.y_dtype, grow * p.n + gcol + i, v[i]);
}

extern "C" cudaError_t lutmm_cuda_launch_fixup(cudaStream_t stream, const lutmm_cuda_gemm_params *p) {
  const int64_t tiles = p->m_tiles * p->n_tiles;
  const unsigned chunks = (unsigned)((p->tile_m * p->tile_n / 4 + FIXUP_THREADS - 1) / FIXUP_THREADS);
  void *args[] = {(void *)p};
  return cudaLaunchKernel((const void *)lutmm_fixup_kernel, dim3((unsigned)tiles, chunks), dim3(FIXUP_THREADS), args,
                          0, stream);
}
