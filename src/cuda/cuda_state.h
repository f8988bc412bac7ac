/* What a CUDA context owns: its stream, device limits read once, the Stream-K
 * workspace, and a small device buffer through which kernels report errors. */
#ifndef LUTMM_CUDA_STATE_H
#define LUTMM_CUDA_STATE_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "gemm_params.h"

typedef struct lutmm_cuda_state {
  cudaStream_t stream;
  int device;
  int sm_count;
  size_t smem_per_sm;     /* shared memory of one multiprocessor */
  size_t smem_per_block;  /* opt-in maximum for one block */
  uint32_t smem_base;     /* window address of dynamic shared memory: the driver's reserved bytes */
  float *own_workspace;   /* allocated by context_init */
  size_t own_workspace_bytes;
  float *workspace;       /* in use: own_workspace or the caller's */
  size_t workspace_bytes;
  int deterministic;
  int *flags;             /* device int[2]: error reports of quantize/pack */
  int *tickets;           /* device int[SMs × 16]: skinny-kernel fixup counters, zero between launches */
  int cooperative;        /* skinny launches are cooperative (the device supports it, LUTMM_CUDA_COOPERATIVE != 0) */
  int column_stream;      /* M <= 4 may take the column-stream kernel: 0 never (LUTMM_CUDA_COLUMN_STREAM=0), 1 where
                             its rule says (unset), 2 wherever it fits (=any) */
  int column_grid;        /* the column stream's grid: 0 lutmm_column_grid's rule, n > 0 n blocks (at most
                             one an SM and one a unit; LUTMM_CUDA_COLUMN_GRID=n) */
  uint64_t *tagged;       /* device: tagged partials of cooperative skinny launches (SMs × LUTMM_SKINNY_TAGGED_PER_SM) */
  size_t tagged_words;
  uint32_t last_tag;      /* the tag of the last launch that used `tagged` (0: none since it was zeroed) */
  int wide;               /* the wide kernel can run: its sm_90a code (wide_f16.cu's probe) and TMA */
  void *encode_tensor_map; /* the driver's cuTensorMapEncodeTiled (cuda_tensor_map.c) */
  int fixup_overlap;      /* the wide kernel's fixup starts as its programmatic dependent: 0 never
                             (LUTMM_CUDA_FIXUP_OVERLAP=0), 1 where lutmm_cuda_fixup_overlaps's rule says (unset),
                             2 wherever a fixup runs (=any) */
  int wide_from_m;        /* the least M the wide kernel takes: 0 wide_tile_m's rule, n > 0 from M = n
                             (LUTMM_CUDA_WIDE_FROM_M=n), to measure that rule again */
  int wide_max_parts;     /* the wide split's parts a tile: 0 up to LUTMM_WIDE_MAX_WAYS, n > 0 about n (blocks
                             of at least lutmm_split_min_units(iters, n) units; LUTMM_CUDA_WIDE_MAX_PARTS=n),
                             to measure other cuts */
  int wide_stages_cap;    /* the wide kernel's stages at most: 0 as many as fit, n > 0 at most n
                             (LUTMM_CUDA_WIDE_STAGES=n), to measure what a stage is worth */
  int wide_full_mma;      /* the wide MMAs multiply a tile's every row even where lutmm_wide_mma_rows says 32
                             (LUTMM_CUDA_WIDE_MMA_ROWS=tile), to measure what the narrower MMAs buy */
  /* Clusters of i blocks held at once; 0: none (or LUTMM_CUDA_CLUSTERS=0). */
  int wide_clusters[LUTMM_WIDE_MAX_CLUSTER + 1];
  int skinny_clusters[LUTMM_SKINNY_MAX_CLUSTER + 1];
  int skinny_cluster_groups;    /* most clusters a tile (LUTMM_CUDA_CLUSTER_GROUPS, default LUTMM_SKINNY_MAX_CLUSTER_GROUPS) */
  int last_skinny_cluster_ways; /* blocks a cluster of the last skinny launch (0: none); the tests read it */
  int last_skinny_cluster_groups; /* and clusters a tile */
  int last_skinny_shared;         /* the last skinny launch reduced cut columns together */
  int last_skinny_head;           /* and a HEAD kernel (lutmm_skinny_tags_head) */
  int last_skinny_cooperative;    /* and ran cooperatively (0 after a refused cooperative launch went again plain) */
  int last_skinny_column;         /* and was the column-stream kernel */
  int last_skinny_grid;           /* of that many blocks */
  int last_wide_tile_m;           /* X rows a tile of the last call's wide kernel (0: it ran another); the tests read it */
  int last_wide_mma_rows;         /* and the rows of X each of its MMAs multiplied */
  int last_wide_cluster_ways;     /* blocks a cluster of the last wide launch (0: none); the tests read it */
  int last_fixup_overlap;         /* the last wide launch's fixup started as its programmatic dependent */
  int refuse_cluster_launches;    /* a test's fault: cluster launches fail as on a device that cannot place them */
  int refuse_cooperative_launches; /* a test's fault: cooperative launches fail as too large for the device */
  int refuse_dependent_launches;   /* a test's fault: a fixup launched as a programmatic dependent fails */
} lutmm_cuda_state;

static inline lutmm_cuda_state *lutmm_cuda_state_of(const lutmm_context *ctx) {
  return (lutmm_cuda_state *)ctx->backend_state;
}

/* LUTMM_OK for cudaSuccess, LUTMM_ERR_OUT_OF_MEMORY for allocation
 * failures, LUTMM_ERR_DEVICE otherwise. */
static inline lutmm_status lutmm_cuda_status(cudaError_t err) {
  if (err == cudaSuccess) return LUTMM_OK;
  return err == cudaErrorMemoryAllocation ? LUTMM_ERR_OUT_OF_MEMORY : LUTMM_ERR_DEVICE;
}

#endif
