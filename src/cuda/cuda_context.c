/* CUDA context lifetime: device limits, the default workspace (so that
 * lutmm_gemm never allocates) and the error-flag buffer. */
#include <stdlib.h>
#include <string.h>

#include "cuda_ops.h"
#include "cuda_plan.h"
#include "cuda_state.h"
#include "gemm_params.h"

/* The measurement switches below that take a number: environment variable
 * `name` as a whole number least..most, else 0 (unset, empty, not a whole
 * number, out of range: the switch is off). */
static long env_whole_number(const char *name, long least, long most) {
  const char *env = getenv(name);
  char *end = NULL;
  const long n = env != NULL && env[0] != '\0' ? strtol(env, &end, 10) : 0;
  return end != NULL && *end == '\0' && n >= least && n <= most ? n : 0;
}

/* Cooperative skinny launches (every block resident: cut columns reduced
 * by all their finishing contributors, docs/HEURISTICS.md) where the device
 * has them; LUTMM_CUDA_COOPERATIVE=0 keeps the plain launches, whose cut
 * columns are reduced by their last contributor alone. The column-stream
 * kernel (M <= 4) needs them too. */
static cudaError_t read_cooperative(lutmm_cuda_state *s) {
  int supported = 0;
  const cudaError_t err = cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, s->device);
  const char *env = getenv("LUTMM_CUDA_COOPERATIVE");
  s->cooperative = err == cudaSuccess && supported && !(env != NULL && strcmp(env, "0") == 0);
  /* LUTMM_CUDA_COLUMN_STREAM=0 leaves M <= 4 to the skinny kernel; =any
   * takes the column stream wherever its kernel exists and fits, past the
   * measured rule (lutmm_column_stream_pays), to measure that rule again */
  const char *column = getenv("LUTMM_CUDA_COLUMN_STREAM");
  s->column_stream = column == NULL ? 1 : strcmp(column, "0") == 0 ? 0 : strcmp(column, "any") == 0 ? 2 : 1;
  /* LUTMM_CUDA_COLUMN_GRID=n: n column-stream blocks (at most one an SM
   * and one a unit), to measure grids against lutmm_column_grid's rule;
   * anything but a whole positive number leaves the rule */
  s->column_grid = (int)env_whole_number("LUTMM_CUDA_COLUMN_GRID", 1, INT32_MAX);
  return err;
}

/* The fixup after a wide launch overlaps the wide kernel's end where
 * lutmm_cuda_fixup_overlaps's rule says (gemm_fixup.cu);
 * LUTMM_CUDA_FIXUP_OVERLAP=0 launches it after, =any overlaps every
 * fixup, to measure that rule again. */
static void read_fixup_overlap(lutmm_cuda_state *s) {
  const char *env = getenv("LUTMM_CUDA_FIXUP_OVERLAP");
  s->fixup_overlap = env == NULL ? 1 : strcmp(env, "0") == 0 ? 0 : strcmp(env, "any") == 0 ? 2 : 1;
}

/* LUTMM_CUDA_WIDE_FROM_M=n: the wide kernel takes M >= n (a whole number
 * 1..1024) where it runs, in place of wide_tile_m's rule, to measure that
 * rule again; anything else leaves the rule. */
static void read_wide_from_m(lutmm_cuda_state *s) {
  s->wide_from_m = (int)env_whole_number("LUTMM_CUDA_WIDE_FROM_M", 1, 1024);
}

/* LUTMM_CUDA_WIDE_MAX_PARTS=n: the wide kernel's blocks take at least
 * lutmm_split_min_units(iters, n) units, about n parts a tile (a whole
 * number 1..LUTMM_WIDE_MAX_WAYS; 1: whole tiles where the tiles fit the
 * SMs), in place of LUTMM_WIDE_MAX_WAYS, to measure fewer, longer parts
 * where a tile has few units; anything else leaves the default. */
static void read_wide_max_parts(lutmm_cuda_state *s) {
  s->wide_max_parts = (int)env_whole_number("LUTMM_CUDA_WIDE_MAX_PARTS", 1, LUTMM_WIDE_MAX_WAYS);
}

/* LUTMM_CUDA_WIDE_STAGES=n: the wide kernel's stages at most n (a whole
 * number 4..LUTMM_WIDE_MAX_STAGES) where more fit, to measure what a stage
 * is worth; anything else leaves as many as fit. Fewer stages can also
 * take a tile's cluster launch away: a cluster adds its parts in the
 * blocks' stages (lutmm_wide_cluster_ways needs a tile of fp32 there). */
static void read_wide_stages(lutmm_cuda_state *s) {
  s->wide_stages_cap = (int)env_whole_number("LUTMM_CUDA_WIDE_STAGES", 4, LUTMM_WIDE_MAX_STAGES);
}

/* LUTMM_CUDA_WIDE_MMA_ROWS=tile: every wide MMA multiplies its tile's
 * rows, where lutmm_wide_mma_rows would take X's first 32 only, to measure
 * what the narrower MMAs buy; anything else leaves the rule. */
static void read_wide_mma_rows(lutmm_cuda_state *s) {
  const char *env = getenv("LUTMM_CUDA_WIDE_MMA_ROWS");
  s->wide_full_mma = env != NULL && strcmp(env, "tile") == 0;
}

static lutmm_status read_device(lutmm_cuda_state *s) {
  int smem_sm = 0, smem_block = 0, reserved = 0;
  cudaError_t err = cudaGetDevice(&s->device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&s->sm_count, cudaDevAttrMultiProcessorCount, s->device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, s->device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, s->device);
  /* No lutmm kernel has static shared memory, so a block's dynamic shared
   * memory starts right after the driver's reserved bytes; the skinny
   * kernel places its table on a 64 KiB boundary of that window. */
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, s->device);
  s->smem_per_sm = (size_t)smem_sm;
  s->smem_per_block = (size_t)smem_block;
  s->smem_base = (uint32_t)reserved;
  if (err == cudaSuccess) err = lutmm_cuda_gemm_allow_smem_f16(s->smem_per_block);
  if (err == cudaSuccess) err = lutmm_cuda_gemm_allow_smem_bf16(s->smem_per_block);
  if (err == cudaSuccess) err = lutmm_cuda_skinny_allow_smem_f16(s->smem_per_block, s->smem_base);
  if (err == cudaSuccess) err = lutmm_cuda_skinny_allow_smem_bf16(s->smem_per_block, s->smem_base);
  if (err == cudaSuccess) err = lutmm_cuda_wide_allow_smem_f16(s->smem_per_block);
  if (err == cudaSuccess) err = lutmm_cuda_wide_allow_smem_bf16(s->smem_per_block);
  if (err == cudaSuccess) err = read_cooperative(s);
  read_fixup_overlap(s);
  read_wide_from_m(s);
  read_wide_max_parts(s);
  read_wide_stages(s);
  read_wide_mma_rows(s);
  return lutmm_cuda_status(err);
}

/* Whether the device runs the wide kernel's sm_90a code (a Hopper part of
 * compute capability 9.0) and the driver encodes tensor maps; elsewhere its
 * targets hold a trap and the planner never picks it. Runs once, here,
 * where waiting is allowed. */
static cudaError_t probe_wide(lutmm_cuda_state *s) {
  int runs = 0;
  cudaError_t err = lutmm_cuda_wide_probe(0, s->flags);
  if (err == cudaSuccess) err = cudaMemcpy(&runs, s->flags, sizeof runs, cudaMemcpyDeviceToHost);
  if (err == cudaSuccess) err = cudaMemset(s->flags, 0, sizeof runs);
  /* X reaches it by TMA into 1024-byte aligned stages (gemm_params.h) */
  s->encode_tensor_map = lutmm_cuda_find_tensor_map_encoder();
  s->wide = err == cudaSuccess && runs == 1 && s->encode_tensor_map != NULL && s->smem_base % 1024 == 0;
  return err;
}

/* How many clusters of 2 .. LUTMM_WIDE_MAX_CLUSTER wide blocks and of
 * 2 .. LUTMM_SKINNY_MAX_CLUSTER skinny blocks the device holds at once,
 * for the tiles added by a cluster of their blocks (lutmm_wide_cluster_ways,
 * lutmm_skinny_cluster_plan); LUTMM_CUDA_CLUSTERS=0 leaves them all 0, so
 * that global memory carries every cut tile's partials. A failed query
 * (a device without clusters) only leaves that size unused. */
static int cluster_count(cudaError_t err, int count) {
  if (err == cudaSuccess) return count;
  (void)cudaGetLastError(); /* not sticky: clear it */
  return 0;
}

/* Most clusters a skinny tile may take: LUTMM_CUDA_CLUSTER_GROUPS=1..8
 * (1: only tiles one cluster adds whole, whose sums need no ticket), else
 * LUTMM_SKINNY_MAX_CLUSTER_GROUPS. */
static int read_cluster_groups(void) {
  const long groups = env_whole_number("LUTMM_CUDA_CLUSTER_GROUPS", 1, LUTMM_SKINNY_MAX_CLUSTER_GROUPS);
  return groups > 0 ? (int)groups : LUTMM_SKINNY_MAX_CLUSTER_GROUPS;
}

static void read_clusters(lutmm_cuda_state *s) {
  const char *env = getenv("LUTMM_CUDA_CLUSTERS");
  s->skinny_cluster_groups = read_cluster_groups();
  if (env != NULL && strcmp(env, "0") == 0) return;
  for (int ways = 2; ways <= LUTMM_WIDE_MAX_CLUSTER && s->wide; ways++) {
    int count = 0;
    const cudaError_t err = lutmm_cuda_wide_max_clusters(ways, s->smem_per_block, &count);
    s->wide_clusters[ways] = cluster_count(err, count);
  }
  for (int ways = 2; ways <= LUTMM_SKINNY_MAX_CLUSTER; ways++) {
    int count = 0;
    const cudaError_t err = lutmm_cuda_skinny_max_clusters(ways, s->smem_base, &count);
    s->skinny_clusters[ways] = cluster_count(err, count);
  }
}

static lutmm_status allocate_buffers(lutmm_cuda_state *s) {
  s->own_workspace_bytes = lutmm_cuda_default_workspace_bytes(s->sm_count);
  cudaError_t err = cudaMalloc((void **)&s->own_workspace, s->own_workspace_bytes);
  if (err == cudaSuccess) err = cudaMalloc((void **)&s->flags, 2 * sizeof(int));
  /* A counter per column, at most 16 warps per block, one block per SM. */
  const size_t ticket_bytes = LUTMM_SKINNY_TICKETS_PER_SM * (size_t)s->sm_count * sizeof(int);
  if (err == cudaSuccess) err = cudaMalloc((void **)&s->tickets, ticket_bytes);
  if (err == cudaSuccess) err = cudaMemset(s->tickets, 0, ticket_bytes);
  /* Library-owned, never lent: a tag is only trusted in memory whose every
   * word is zero or was written by an earlier tagged launch. */
  s->tagged_words = LUTMM_SKINNY_TAGGED_PER_SM * (size_t)s->sm_count;
  if (err == cudaSuccess) err = cudaMalloc((void **)&s->tagged, s->tagged_words * sizeof(uint64_t));
  if (err == cudaSuccess) err = cudaMemset(s->tagged, 0, s->tagged_words * sizeof(uint64_t));
  s->workspace = s->own_workspace;
  s->workspace_bytes = s->own_workspace_bytes;
  if (err == cudaSuccess) err = probe_wide(s);
  if (err == cudaSuccess) read_clusters(s);
  return lutmm_cuda_status(err);
}

void lutmm_cuda_context_fini(lutmm_context *ctx) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(ctx);
  if (s == NULL) return;
  cudaFree(s->own_workspace);
  cudaFree(s->flags);
  cudaFree(s->tickets);
  cudaFree(s->tagged);
  free(s);
  ctx->backend_state = NULL;
}

lutmm_status lutmm_cuda_context_init(lutmm_context *ctx) {
  lutmm_cuda_state *s = calloc(1, sizeof *s);
  if (s == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  s->stream = 0;
  s->deterministic = 1;
  ctx->backend_state = s;
  lutmm_status st = read_device(s);
  if (st == LUTMM_OK) st = allocate_buffers(s);
  if (st != LUTMM_OK) lutmm_cuda_context_fini(ctx);
  return st;
}
