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
#include "grid_dependency.cuh"

/* Block (tile, c) adds elements 1024c .. 1024c + 1023 of its slot, four
 * per thread (tile widths are multiples of 4; the wide kernel's slots hold
 * its accumulators' order, which maps them back), loading BATCH partials
 * before adding any, so a thread waits on memory once per batch rather
 * than once per partial. The additions stay in block order. */
#define FIXUP_BATCH 4

/* The blocks holding parts of a tile, first..last, and the slot of the
 * first one's partial; first == last where one block held the whole tile
 * (the main kernel wrote it). Found from the launch's parameters alone,
 * so a fixup launched to overlap the main kernel's end does this before it
 * waits for that kernel's partials. */
struct tile_parts {
  int64_t first, last, first_slot;
};

__device__ __forceinline__ tile_parts parts_of(const lutmm_cuda_gemm_params &p, int64_t tile) {
  const int64_t first_unit = tile * p.iters;
  tile_parts t;
  t.first = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit);
  t.last = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit + p.iters - 1);
  t.first_slot = lutmm_cuda_range_start(p.units, p.grid, t.first) == first_unit ? 2 * t.first : 2 * t.first + 1;
  return t;
}

/* Element e's four partial sums of a cut tile, in block order. */
__device__ __forceinline__ float4 add_partials(const lutmm_cuda_gemm_params &p, const tile_parts &t, int e) {
  const size_t tile_elems = (size_t)p.tile_m * (size_t)p.tile_n;
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int64_t b0 = t.first; b0 <= t.last; b0 += FIXUP_BATCH) {
    float4 part[FIXUP_BATCH];
#pragma unroll
    for (int i = 0; i < FIXUP_BATCH; i++) {
      const int64_t b = b0 + i, slot = b == t.first ? t.first_slot : 2 * b;
      const bool load = b <= t.last && !lutmm_fault_drop_partial(b - t.first);
      part[i] = load ? __ldcg((const float4 *)(p.workspace + (size_t)slot * tile_elems + (size_t)e))
                     : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (int i = 0; i < FIXUP_BATCH; i++) {
      sum.x += part[i].x;
      sum.y += part[i].y;
      sum.z += part[i].z;
      sum.w += part[i].w;
    }
  }
  return sum;
}

/* The tiled kernel's row-major partials: four columns of one row. */
__global__ void __launch_bounds__(LUTMM_FIXUP_THREADS)
    lutmm_fixup_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
  const int bm = p.tile_m, bn = p.tile_n;
  const int64_t tile = blockIdx.x;
  const int e = 4 * (int)(blockIdx.y * LUTMM_FIXUP_THREADS + threadIdx.x);
  const tile_parts t = parts_of(p, tile);
  if (e >= bm * bn || t.first == t.last) return;
  const int64_t mt = tile % p.m_tiles, nt = tile / p.m_tiles;
  const int row = e / bn, col = e % bn;
  const int64_t grow = mt * bm + row, gcol = nt * bn + col;
  if (grow >= p.m) return;
  /* a no-op in the plain launches this kernel has; it would keep an
   * overlapped one correct */
  lutmm_kernels::grid_dependency_wait();
  const float4 sum = add_partials(p, t, e);
  const float v[4] = {sum.x, sum.y, sum.z, sum.w};
  for (int i = 0; i < 4 && gcol + i < p.n; i++)
    lutmm_kernels::store_output(p.y, p.y_dtype, grow * p.n + gcol + i, v[i]);
}

/* The wide kernel's partials (accumulator order) for tiles of TM rows, to
 * Y in its dtype Out: a thread's four sums are rows r, r + 1 of columns
 * c, c + 8 (lutmm_wide_partial_site), found with TM known at compile time
 * (shifts, not the divisions by the tile's shape), one address for the
 * four and no dtype test a value. Threads whose rows lie past M leave
 * first: the wide kernel did not store those partials (store_segment).
 * Everything up to the partials' loads depends on the parameters alone and
 * runs before the wait, which on Hopper is where a block launched early
 * sits until the wide kernel ends (lutmm_cuda_launch_fixup); row 0 of a
 * tile, in block (tile, 0), always waits. */
template <int TM, typename Out>
__global__ void __launch_bounds__(LUTMM_FIXUP_THREADS)
    lutmm_wide_fixup_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
  constexpr int N = LUTMM_WIDE_TILE_ELEMS / TM;
  const int64_t tile = blockIdx.x;
  const int e = 4 * (int)(blockIdx.y * LUTMM_FIXUP_THREADS + threadIdx.x);
  if (e >= LUTMM_WIDE_TILE_ELEMS) return;
  const int64_t mt = tile % p.m_tiles, nt = tile / p.m_tiles;
  int row, col;
  lutmm_wide_partial_site(TM, e, &row, &col);
  const int64_t grow = mt * TM + row, gcol = nt * N + col;
  if (grow >= p.m) return;
  const tile_parts t = parts_of(p, tile);
  if (t.first == t.last) return;
  Out *y = (Out *)p.y + grow * p.n + gcol;
  lutmm_kernels::grid_dependency_wait();
  const float4 sum = add_partials(p, t, e);
  const float v[4] = {sum.x, sum.y, sum.z, sum.w};
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const int down = i % 2, right = 8 * (i / 2);
    if (grow + down < p.m && gcol + right < p.n) y[down * p.n + right] = lutmm_kernels::output_of<Out>(v[i]);
  }
}

template <int TM>
static const void *wide_fixup_for(int y_dtype) {
  if (y_dtype == LUTMM_DTYPE_F32) return (const void *)lutmm_wide_fixup_kernel<TM, float>;
  if (y_dtype == LUTMM_DTYPE_F16) return (const void *)lutmm_wide_fixup_kernel<TM, __half>;
  return (const void *)lutmm_wide_fixup_kernel<TM, __nv_bfloat16>;
}

/* The fixup for a launch's partials: the wide kernel's instantiation for
 * its tile rows and Y's dtype, else the tiled kernel's; NULL for tile rows
 * the wide kernel does not build. */
static const void *fixup_for(const lutmm_cuda_gemm_params *p) {
  if (!p->acc_order) return (const void *)lutmm_fixup_kernel;
  switch (p->tile_m) {
    case 64: return wide_fixup_for<64>(p->y_dtype);
    case 128: return wide_fixup_for<128>(p->y_dtype);
    case 256: return wide_fixup_for<256>(p->y_dtype);
    default: return NULL;
  }
}

/* With `overlap` (the wide kernel's fixup on Hopper) the fixup is the
 * wide kernel's programmatic dependent: its blocks start where the wide
 * kernel's have ended, do their set-up and wait there for the partials,
 * rather than starting after the whole grid has drained. Some thread of a
 * launched fixup always waits (block (tile, 0) of any cut tile), so the
 * fixup completes only after the wide kernel has: work queued after the
 * call, the next call's wide kernel rewriting the workspace included,
 * stays behind both. */
extern "C" cudaError_t lutmm_cuda_launch_fixup(cudaStream_t stream, const lutmm_cuda_gemm_params *p, int overlap) {
  const int64_t tiles = p->m_tiles * p->n_tiles;
  const unsigned chunks = (unsigned)lutmm_fixup_chunks(p->tile_m, p->tile_n);
  const void *kernel = fixup_for(p);
  if (kernel == NULL) return cudaErrorInvalidValue;
  void *args[] = {(void *)p};
  cudaLaunchAttribute dependent = {};
  dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((unsigned)tiles, chunks);
  config.blockDim = dim3(LUTMM_FIXUP_THREADS);
  config.stream = stream;
  config.attrs = &dependent;
  config.numAttrs = overlap ? 1 : 0;
  return cudaLaunchKernelExC(&config, kernel, args);
}
