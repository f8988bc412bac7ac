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

__global__ void lutmm_fixup_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
  const int bm = p.tile_m, bn = p.tile_n;
  const int64_t tile = blockIdx.x, first_unit = tile * p.iters;
  const int64_t first = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit);
  const int64_t last = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit + p.iters - 1);
  if (first == last) return;
  const int64_t first_slot = lutmm_cuda_range_start(p.units, p.grid, first) == first_unit ? 2 * first : 2 * first + 1;
  const int64_t mt = tile % p.m_tiles, nt = tile / p.m_tiles;
  const size_t tile_elems = (size_t)bm * (size_t)bn;
  for (int e = (int)threadIdx.x; e < bm * bn; e += (int)blockDim.x) {
    const int row = e / bn, col = e % bn;
    const int64_t grow = mt * bm + row, gcol = nt * bn + col;
    if (grow >= p.m || gcol >= p.n) continue;
    float sum = 0.0f;
    for (int64_t b = first; b <= last; b++) {
      const int64_t slot = b == first ? first_slot : 2 * b;
      if (!lutmm_fault_drop_partial(b - first)) sum += p.workspace[(size_t)slot * tile_elems + (size_t)e];
    }
    lutmm_kernels::store_output(p.y, p.y_dtype, grow * p.n + gcol, sum);
  }
}

extern "C" cudaError_t lutmm_cuda_launch_fixup(cudaStream_t stream, const lutmm_cuda_gemm_params *p) {
  const int64_t tiles = p->m_tiles * p->n_tiles;
  void *args[] = {(void *)p};
  return cudaLaunchKernel((const void *)lutmm_fixup_kernel, dim3((unsigned)tiles), dim3(256), args, 0, stream);
}
