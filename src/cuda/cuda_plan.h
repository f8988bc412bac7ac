/* How lutmm_gemm on a CUDA context divides its work: which kernel, its
 * tiles, pipeline depth, Stream-K grid, clusters and cut-column paths
 * (docs/HEURISTICS.md). Pure functions of the device's limits as the
 * context read them (lutmm_cuda_state), the weights' geometry and the
 * call's shape: they make no CUDA call, so the unit suite checks their
 * plans for modelled devices on machines without a GPU
 * (tests/cuda/test_cuda_plan.c), and cuda_gemm.c launches what they say. */
#ifndef LUTMM_CUDA_PLAN_H
#define LUTMM_CUDA_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "cuda_state.h"
#include "gemm_params.h"

typedef enum lutmm_cuda_kernel {
  LUTMM_CUDA_KERNEL_TILED,  /* gemm_kernel.cuh: any device, any M */
  LUTMM_CUDA_KERNEL_SKINNY, /* skinny_kernel.cuh or column_kernel.cuh: one launch per lutmm_cuda_skinny_rows rows */
  LUTMM_CUDA_KERNEL_WIDE,   /* wide_kernel.cuh: Hopper wgmma, M > 32 (and some M = 17..32) */
} lutmm_cuda_kernel;

/* The kernel a call runs; for the wide kernel its tile rows and stages. */
typedef struct lutmm_cuda_choice {
  lutmm_cuda_kernel kernel;
  int tile_m, stages;
} lutmm_cuda_choice;

/* Everything of p but the work decomposition: operands, code slicing,
 * scale addressing, the table. */
void lutmm_cuda_fill_operands(const lutmm_weights *w, const lutmm_gemm_args *a, lutmm_cuda_gemm_params *p);

/* The kernel for this call (p filled by lutmm_cuda_fill_operands). */
lutmm_cuda_choice lutmm_cuda_choose_kernel(const lutmm_cuda_state *s, const lutmm_weights *w,
                                           const lutmm_gemm_args *a, const lutmm_cuda_gemm_params *p);

/* Rows of X per skinny launch. */
int64_t lutmm_cuda_skinny_rows(const lutmm_gemm_args *a, const lutmm_cuda_gemm_params *p);

/* One skinny launch of `m` rows: the column-stream kernel where it pays
 * (M <= 4), else the skinny kernel's tiles and grid, its clusters where
 * `clusters` allows, and the paths whose blocks wait for each other where
 * `cooperative` allows. `capturing`: the stream is being captured into a
 * CUDA graph, which rules out tagged partials. */
void lutmm_cuda_plan_skinny(const lutmm_cuda_state *s, const lutmm_weights *w, int64_t m, int clusters,
                            int cooperative, int capturing, lutmm_cuda_gemm_params *p);

/* The wide launch of choice c: tiles, grid and cluster ways (none unless
 * `clusters` allows). Returns the block's dynamic shared memory. */
size_t lutmm_cuda_plan_wide(const lutmm_cuda_state *s, const lutmm_weights *w, const lutmm_gemm_args *a,
                            lutmm_cuda_choice c, int clusters, lutmm_cuda_gemm_params *p);

/* The tiled launch: tile configuration, stages, Stream-K grid. Returns the
 * block's dynamic shared memory. */
size_t lutmm_cuda_plan_tiled(const lutmm_cuda_state *s, const lutmm_weights *w, const lutmm_gemm_args *a,
                             lutmm_cuda_gemm_params *p);

/* Whether a wide or tiled launch needs the ordered fixup after it: some
 * tile's k range cut between blocks that no cluster adds. */
int lutmm_cuda_needs_fixup(const lutmm_cuda_gemm_params *p);

/* Whether a wide launch's fixup starts as its programmatic dependent, its
 * blocks waiting for the partials where the wide kernel's have ended
 * (gemm_fixup.cu): on a device that runs the wide kernel (Hopper), where
 * a tile has at most 8 parts on average or where the SMs the wide grid
 * leaves idle hold every fixup block (any launch with
 * LUTMM_CUDA_FIXUP_OVERLAP=any, none with =0). */
int lutmm_cuda_fixup_overlaps(const lutmm_cuda_state *s, const lutmm_cuda_gemm_params *p);

/* The Stream-K workspace a context allocates for a device of sm_count
 * multiprocessors: two partial tiles of the largest kernel's per block. */
size_t lutmm_cuda_default_workspace_bytes(int sm_count);

#endif
