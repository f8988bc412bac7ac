/* Small-M gemm: the LUT kernels over tiles of (K split, column blocks).
 *
 * Without split-K every output element is one kernel call's sum. With S
 * splits, each split writes its own partial sums and the reduction adds
 * them in ascending split order; S depends on the shape (or
 * LUTMM_CPU_SPLIT_K) only, so the bits never depend on the thread count. */
#include <stdlib.h>

#include "cpu_backend.h"
#include "cpu_round.h"
#include "fault.h"

/* Column blocks per tile: 16 columns, enough tiles to balance threads. */
#define TILE_BLOCKS 4
/* Split-K is used when there are fewer column blocks than this... */
#define SPLIT_BELOW_BLOCKS 64
/* ...with at most this many splits, each at least SPLIT_MIN_ROWS rows. */
#define SPLIT_MAX 8
#define SPLIT_MIN_ROWS 64

int64_t cpu_split_count(const lutmm_weights *w, int64_t k32) {
  const int64_t chunks = k32 / CPU_CHUNK_K;
  int64_t splits = 1;
  if ((w->params.n + CPU_BLOCK_N - 1) / CPU_BLOCK_N < SPLIT_BELOW_BLOCKS) {
    splits = k32 / SPLIT_MIN_ROWS;
    if (splits > SPLIT_MAX) splits = SPLIT_MAX;
  }
  splits = cpu_env_int("LUTMM_CPU_SPLIT_K", splits);
  if (splits > chunks) splits = chunks;
  return splits < 1 ? 1 : splits;
}

/* Sum of the kept partials of element i, in ascending split order. */
static float reduce_element(const float *partials, int64_t splits, size_t stride, size_t i) {
  float sum = 0.0f;
  for (int64_t s = 0; s < splits; s++)
    if (!lutmm_fault_drop_partial(s)) sum += partials[(size_t)s * stride + i];
  return sum;
}

static void finish_output(const lutmm_gemm_args *args, const float *partials, int64_t splits, int64_t n,
                          int threads) {
  const size_t count = (size_t)args->m * (size_t)n;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (size_t i = 0; i < count; i++) cpu_store(args->y, args->y_dtype, (int64_t)i, reduce_element(partials, splits, count, i));
}

lutmm_status cpu_gemm_small(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                            const lutmm_gemm_args *args) {
  const int threads = cpu_threads(ctx);
  const int64_t n = w->params.n, k32 = codes->k32, chunks = k32 / CPU_CHUNK_K;
  const int64_t splits = cpu_split_count(w, k32);
  /* fp32 output of one split goes straight to Y; otherwise partials first. */
  const int direct = splits == 1 && args->y_dtype == LUTMM_DTYPE_F32;
  const size_t x_floats = (size_t)args->m * (size_t)k32; /* checked below */
  const size_t sizes[6] = {(size_t)args->m, (size_t)k32, direct ? 0 : (size_t)splits, (size_t)args->m * (size_t)n,
                           0, 0}; /* m·n fits: Y's byte count was checked */
  float *x;
  lutmm_status st = cpu_workspace_floats(ctx, sizes, &x);
  if (st != LUTMM_OK) return st;
  float *partials = direct ? args->y : x + x_floats;
  const cpu_variant variant = cpu_variant_select();
  cpu_widen_x(args, w->params.k, k32, cpu_variant_lane_order(variant), x, threads);

  float table_c[LUTMM_MAX_TABLE_SIZE];
  cpu_kernel_args a;
  cpu_kernel_args_init(w, codes, args->x_dtype, table_c, &a);
  a.x = x;
  a.m = args->m;
  a.ldx = k32;
  a.ldo = n;
  const cpu_kernel_fn kernel = cpu_kernel_for(variant);
  const int64_t tiles_n = (codes->blocks + TILE_BLOCKS - 1) / TILE_BLOCKS;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int64_t tile = 0; tile < tiles_n * splits; tile++) {
    const int64_t split = tile / tiles_n, block0 = (tile % tiles_n) * TILE_BLOCKS;
    const int64_t block1 = block0 + TILE_BLOCKS < codes->blocks ? block0 + TILE_BLOCKS : codes->blocks;
    cpu_kernel_args mine = a;
    mine.out = partials + (size_t)split * (size_t)args->m * (size_t)n;
    kernel(&mine, block0, block1, split * chunks / splits * CPU_CHUNK_K, (split + 1) * chunks / splits * CPU_CHUNK_K);
  }
  if (!direct) finish_output(args, partials, splits, n, threads);
  return LUTMM_OK;
}
