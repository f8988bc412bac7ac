/* lutmm_gemm on a CUDA context: queues the launches that cuda_plan.c
 * plans (kernel, tiles, stages, Stream-K grid, clusters; docs/HEURISTICS.md)
 * and, when some tile's k range is split between blocks, the ordered
 * fixup; takes tags for cooperative skinny launches, and plans again
 * without clusters or cooperation when the device refuses those. Never
 * allocates, never synchronizes. */
#include <string.h>

#include "cuda_ops.h"
#include "cuda_plan.h"
#include "cuda_state.h"
#include "gemm_params.h"
#include "numeric.h"

int lutmm_cuda_supports_gemm(const lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args) {
  (void)ctx;
  (void)w;
  return args->x_dtype == LUTMM_DTYPE_F16 || args->x_dtype == LUTMM_DTYPE_BF16;
}

/* Whether the context's stream is being captured into a CUDA graph (or
 * the runtime cannot say: then it is treated as captured, which is only
 * slower). */
static int stream_capturing(const lutmm_cuda_state *s) {
  enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(s->stream, &status) != cudaSuccess || status != cudaStreamCaptureStatusNone;
}

/* A tagged skinny launch's tag: one more than the last. Before the count
 * would wrap, the buffer is zeroed (in stream order, after every launch
 * that used it) and the tags start again at 1, so no word a launch reads
 * can hold its tag before this launch wrote it. */
static cudaError_t use_tag(lutmm_cuda_state *s, lutmm_cuda_gemm_params *p) {
  p->tag = 0;
  if (p->tagged == NULL) return cudaSuccess;
  if (s->last_tag == UINT32_MAX) {
    const cudaError_t err = cudaMemsetAsync(s->tagged, 0, s->tagged_words * sizeof(uint64_t), s->stream);
    if (err != cudaSuccess) return err;
    s->last_tag = 0;
  }
  p->tag = ++s->last_tag;
  return cudaSuccess;
}

/* The error this launch is to fail with, as on a device that cannot place
 * its clusters or hold its cooperative grid: a test's faults
 * (refuse_cluster_launches, refuse_cooperative_launches; for the fixup,
 * refuse_dependent_launches in launch_wide), so that the
 * retries below run on any device. cudaSuccess: none. */
static cudaError_t refused_launch(const lutmm_cuda_state *s, const lutmm_cuda_gemm_params *p) {
  if (s->refuse_cluster_launches && p->cluster_ways > 1) return cudaErrorLaunchOutOfResources;
  if (s->refuse_cooperative_launches && p->cooperative) return cudaErrorCooperativeLaunchTooLarge;
  return cudaSuccess;
}

/* One planned skinny launch, with its tag. */
static cudaError_t launch_skinny(lutmm_cuda_state *s, const lutmm_gemm_args *a, lutmm_cuda_gemm_params *p) {
  cudaError_t err = use_tag(s, p);
  if (err != cudaSuccess) return err;
  err = refused_launch(s, p);
  if (err != cudaSuccess) return err;
  return a->x_dtype == LUTMM_DTYPE_F16 ? lutmm_cuda_launch_skinny_f16(s->stream, p, s->smem_base)
                                       : lutmm_cuda_launch_skinny_bf16(s->stream, p, s->smem_base);
}

/* One skinny launch per lutmm_cuda_skinny_rows rows of X and Y, queued
 * in order on the stream; each reads every weight again (cuda_plan.c's
 * skinny_pays says when that is worth it). The launches share the
 * workspace and tickets; stream order keeps them apart. A row offset keeps
 * X's 16-byte alignment (x_vector needs K % 8 == 0). Tagged plans are not
 * for graphs: the capture status is asked (once a call) only when a plan
 * would tag, as before the planner took it as an argument, so the plans
 * that never tag make no runtime call for it. */
static cudaError_t launch_skinny_rows(lutmm_cuda_state *s, const lutmm_weights *w, const lutmm_gemm_args *a,
                                      lutmm_cuda_gemm_params *p) {
  const int64_t rows = lutmm_cuda_skinny_rows(a, p);
  const size_t x_row = (size_t)w->params.k * lutmm_dtype_size(a->x_dtype);
  const size_t y_row = (size_t)w->params.n * lutmm_dtype_size(a->y_dtype);
  int capturing = 0, asked = 0;
  for (int64_t r0 = 0; r0 < a->m; r0 += rows) {
    p->m = a->m - r0 < rows ? a->m - r0 : rows;
    p->x = (const uint8_t *)a->x + (size_t)r0 * x_row;
    p->y = (uint8_t *)a->y + (size_t)r0 * y_row;
    int clusters = 1, cooperative = 1;
    cudaError_t err;
    for (;;) {
      lutmm_cuda_plan_skinny(s, w, p->m, clusters, cooperative, capturing, p);
      if (p->tagged != NULL && !asked) {
        asked = 1;
        capturing = stream_capturing(s);
        if (capturing) continue; /* plan again, untagged */
      }
      err = launch_skinny(s, a, p);
      /* A cluster launch the device refuses (another client holding part
       * of a GPC, say) goes again without clusters; a cooperative grid it
       * cannot hold at once (another client holding multiprocessors) goes
       * again as a plain launch, whose cut columns need no resident
       * partner: fp32 partials counted by tickets. */
      if (err != cudaSuccess && p->cluster_ways) clusters = 0;
      else if (err == cudaErrorCooperativeLaunchTooLarge && p->cooperative) cooperative = 0;
      else break;
      (void)cudaGetLastError(); /* not sticky: clear it */
    }
    /* What ran (or failed last): the tests read it. */
    s->last_skinny_cluster_ways = p->cluster_ways;
    s->last_skinny_cluster_groups = p->cluster_groups;
    s->last_skinny_shared = p->shares_reduction;
    s->last_skinny_head = p->tags_head;
    s->last_skinny_cooperative = p->cooperative;
    s->last_skinny_column = p->column_stream;
    s->last_skinny_grid = p->grid;
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

/* One planned wide launch. */
static cudaError_t launch_wide_kernel(const lutmm_cuda_state *s, const lutmm_gemm_args *a,
                                      const lutmm_cuda_gemm_params *p, size_t smem) {
  const cudaError_t refused = refused_launch(s, p);
  if (refused != cudaSuccess) return refused;
  return a->x_dtype == LUTMM_DTYPE_F16 ? lutmm_cuda_launch_wide_f16(s->stream, p, smem)
                                       : lutmm_cuda_launch_wide_bf16(s->stream, p, smem);
}

/* The wide launch as lutmm_cuda_plan_wide plans it, then the fixup where
 * a tile is cut and no cluster adds it. X travels by TMA where it allows a
 * tensor map (rows on 16-byte boundaries), else by the producer's stores.
 * A refused cluster launch goes again without clusters, on any error: the
 * driver names no single one for a cluster it cannot place, and a plan
 * with no kernel would show in the tests' expected cluster ways. So does a
 * fixup refused as the wide kernel's programmatic dependent (a driver or
 * graph capture without them), after the wide kernel it must follow.
 * *overlapped: the fixup ran as that dependent. */
static cudaError_t launch_wide(const lutmm_cuda_state *s, const lutmm_weights *w, const lutmm_gemm_args *a,
                               lutmm_cuda_choice c, lutmm_cuda_gemm_params *p, int *overlapped) {
  p->x_tma = lutmm_cuda_x_tensor_map(s->encode_tensor_map, a->x, a->m, w->params.k, c.tile_m, &p->x_map);
  size_t smem = lutmm_cuda_plan_wide(s, w, a, c, 1, p);
  cudaError_t err = launch_wide_kernel(s, a, p, smem);
  if (err != cudaSuccess && p->cluster_ways) {
    (void)cudaGetLastError(); /* not sticky: clear it */
    smem = lutmm_cuda_plan_wide(s, w, a, c, 0, p);
    err = launch_wide_kernel(s, a, p, smem);
  }
  if (err != cudaSuccess || !lutmm_cuda_needs_fixup(p)) return err;
  *overlapped = lutmm_cuda_fixup_overlaps(s, p);
  err = *overlapped && s->refuse_dependent_launches ? cudaErrorNotSupported
                                                     : lutmm_cuda_launch_fixup(s->stream, p, *overlapped);
  if (err != cudaSuccess && *overlapped) {
    (void)cudaGetLastError(); /* not sticky: clear it */
    *overlapped = 0;
    err = lutmm_cuda_launch_fixup(s->stream, p, 0);
  }
  return err;
}

/* The tiled launch, then the fixup where a tile is cut. */
static cudaError_t launch_tiled(const lutmm_cuda_state *s, const lutmm_weights *w, const lutmm_gemm_args *a,
                                lutmm_cuda_gemm_params *p) {
  const size_t smem = lutmm_cuda_plan_tiled(s, w, a, p);
  cudaError_t err = a->x_dtype == LUTMM_DTYPE_F16 ? lutmm_cuda_launch_gemm_f16(s->stream, p, smem)
                                                  : lutmm_cuda_launch_gemm_bf16(s->stream, p, smem);
  if (err == cudaSuccess && lutmm_cuda_needs_fixup(p)) err = lutmm_cuda_launch_fixup(s->stream, p, 0);
  return err;
}

lutmm_status lutmm_cuda_gemm(lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(ctx);
  lutmm_cuda_gemm_params p;
  memset(&p, 0, sizeof p);
  lutmm_cuda_fill_operands(w, args, &p);
  const lutmm_cuda_choice c = lutmm_cuda_choose_kernel(s, w, args, &p);
  s->last_wide_tile_m = c.tile_m;
  s->last_wide_cluster_ways = s->last_wide_mma_rows = 0;
  s->last_fixup_overlap = 0;
  /* until a skinny launch says */
  s->last_skinny_cluster_ways = s->last_skinny_cluster_groups = s->last_skinny_shared = s->last_skinny_head = 0;
  s->last_skinny_cooperative = s->last_skinny_column = s->last_skinny_grid = 0;
  cudaError_t err = cudaSuccess;
  switch (c.kernel) {
    case LUTMM_CUDA_KERNEL_WIDE:
      err = launch_wide(s, w, args, c, &p, &s->last_fixup_overlap);
      s->last_wide_cluster_ways = p.cluster_ways;
      s->last_wide_mma_rows = p.mma_rows;
      break;
    case LUTMM_CUDA_KERNEL_SKINNY: err = launch_skinny_rows(s, w, args, &p); break;
    case LUTMM_CUDA_KERNEL_TILED: err = launch_tiled(s, w, args, &p); break;
  }
  return lutmm_cuda_status(err);
}
