/* The CUDA backend's plans (src/cuda/cuda_plan.c) for modelled devices,
 * checked on the host: the planner makes no CUDA call, so every choice it
 * makes for a device of given limits can be checked here without a GPU.
 * A model holds what a context reads from its device (cuda_context.c):
 * multiprocessors, shared memory per SM and per block, the runtime's
 * reserved bytes, whether the wide kernel runs (Hopper), how many
 * clusters of each size the device holds (the H100's counts as
 * cudaOccupancyMaxActiveClusters reported them, docs/PERF.md change 50).
 * sweep_invariants: over shapes, M, code widths, groups, capture and lent
 * workspaces, on an H100, an H100 PCIe, an A100 and an Ada part, every
 * plan names a kernel the library has, fits the device's shared memory,
 * keeps cooperative grids resident, tagged partials out of graphs and
 * inside their buffer, and cut tiles inside the workspace.
 * fixup_where_cut: a launch has a fixup exactly where a tile is cut.
 * idle_sm_overlap: the fixup overlaps where idle SMs hold its blocks.
 * hopper_choices: on the H100 the kernel docs/HEURISTICS.md gives each
 * band of M on the benchmark's shapes (NF4, groups of 128), and the
 * column-stream kernel's exclusions.
 * ampere_choices: on an A100 (163 KiB a block) the skinny kernel only
 * where every launch of the call fits, else the tiled kernel.
 * With --table it prints the H100 model's plans that docs/HEURISTICS.md
 * shows instead. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "cuda_plan.h"
#include "geometry.h"

typedef struct device_model {
  const char *name;
  int sms;
  size_t smem_per_sm, smem_per_block;
  uint32_t reserved;
  int wide;                 /* runs the sm_90a wide kernel */
  const int *clusters;      /* clusters of i blocks held at once, i = 0..16; NULL: none */
} device_model;

/* H100 SXM, one skinny block an SM: 66, 39, 30, 22, 17, 15, 15, 9
 * clusters of 2..9 blocks, 7 of 10..16 (a cluster stays in one GPC). The
 * wide kernel's blocks are one an SM too; its clusters are of 2. */
static const int hopper_clusters[17] = {0, 0, 66, 39, 30, 22, 17, 15, 15, 9, 7, 7, 7, 7, 7, 7, 7};

static const device_model h100 = {"H100 SXM", 132, 228 * 1024, 227 * 1024, 1024, 1, hopper_clusters};
/* 114 SMs; its cluster counts were never read: none, as with
 * LUTMM_CUDA_CLUSTERS=0. */
static const device_model h100_pcie = {"H100 PCIe", 114, 228 * 1024, 227 * 1024, 1024, 1, NULL};
static const device_model a100 = {"A100", 108, 164 * 1024, 163 * 1024, 1024, 0, NULL};
static const device_model ada = {"Ada (sm_89)", 128, 100 * 1024, 99 * 1024, 1024, 0, NULL};

/* Stand-ins for device buffers: the planner only tests them against NULL
 * and copies them into the launch parameters. */
static float fake_workspace[1];
static int fake_tickets[1];
static uint64_t fake_tagged[1];
static _Alignas(16) uint16_t fake_x[8];
static float fake_y[1];

/* A context's state for the model, as cuda_context.c fills it. */
static void model_state(const device_model *d, lutmm_cuda_state *s) {
  memset(s, 0, sizeof *s);
  s->sm_count = d->sms;
  s->smem_per_sm = d->smem_per_sm;
  s->smem_per_block = d->smem_per_block;
  s->smem_base = d->reserved;
  s->workspace_bytes = lutmm_cuda_default_workspace_bytes(d->sms);
  s->workspace = fake_workspace;
  s->deterministic = 1;
  s->tickets = fake_tickets;
  s->cooperative = 1;
  s->column_stream = 1;
  s->tagged = fake_tagged;
  s->tagged_words = LUTMM_SKINNY_TAGGED_PER_SM * (size_t)d->sms;
  s->wide = d->wide;
  s->fixup_overlap = 1;
  s->skinny_cluster_groups = LUTMM_SKINNY_MAX_CLUSTER_GROUPS;
  for (int i = 2; d->clusters != NULL && i <= LUTMM_SKINNY_MAX_CLUSTER; i++) {
    s->skinny_clusters[i] = d->clusters[i];
    if (i <= LUTMM_WIDE_MAX_CLUSTER && d->wide) s->wide_clusters[i] = d->clusters[i];
  }
}

/* Weights of a shape with their geometry, no planes or scales. */
static int model_weights(int bits, int64_t k, int64_t n, int64_t group, lutmm_dtype scale_dtype, lutmm_weights *w) {
  memset(w, 0, sizeof *w);
  w->params.bits = bits;
  w->params.k = k;
  w->params.n = n;
  w->params.group_size = group;
  w->params.scale_dtype = scale_dtype;
  return lutmm_geometry_init(&w->params, &w->geom) == LUTMM_OK;
}

#define MAX_LAUNCHES 8

/* A call's launches as lutmm_cuda_gemm plans them before any refusal. */
typedef struct call_plan {
  lutmm_cuda_choice choice;
  int launches;
  lutmm_cuda_gemm_params p[MAX_LAUNCHES];
  size_t smem; /* wide and tiled */
} call_plan;

static call_plan plan_call(const lutmm_cuda_state *s, const lutmm_weights *w, int64_t m, int capturing) {
  const lutmm_gemm_args a = {m, fake_x, LUTMM_DTYPE_F16, fake_y, LUTMM_DTYPE_F32};
  call_plan c;
  memset(&c, 0, sizeof c);
  lutmm_cuda_gemm_params p;
  memset(&p, 0, sizeof p);
  lutmm_cuda_fill_operands(w, &a, &p);
  c.choice = lutmm_cuda_choose_kernel(s, w, &a, &p);
  if (c.choice.kernel == LUTMM_CUDA_KERNEL_SKINNY) {
    const int64_t rows = lutmm_cuda_skinny_rows(&a, &p);
    for (int64_t r0 = 0; r0 < m && c.launches < MAX_LAUNCHES; r0 += rows) {
      p.m = m - r0 < rows ? m - r0 : rows;
      lutmm_cuda_plan_skinny(s, w, p.m, 1, 1, capturing, &p);
      c.p[c.launches++] = p;
    }
    return c;
  }
  c.smem = c.choice.kernel == LUTMM_CUDA_KERNEL_WIDE ? lutmm_cuda_plan_wide(s, w, &a, c.choice, 1, &p)
                                                     : lutmm_cuda_plan_tiled(s, w, &a, &p);
  c.p[c.launches++] = p;
  return c;
}

static int64_t workspace_blocks(const lutmm_cuda_state *s, const lutmm_cuda_gemm_params *p) {
  return (int64_t)(s->workspace_bytes / (2 * (size_t)p->tile_m * (size_t)p->tile_n * sizeof(float)));
}

/* Whether the skinny instantiation a plan names exists (skinny_launch.cuh:
 * kernel_for, cluster_kernel_for, column_kernel_for). */
static int skinny_kernel_exists(const lutmm_cuda_gemm_params *p) {
  const int one_row = p->atom_one_group != 0, bits = p->bits, mb = p->mb;
  if (p->column_stream) {
    const int rows = lutmm_column_rows(p->m, p->k_atoms, p->warps);
    return p->warps == lutmm_skinny_warps(1, bits) && LUTMM_COLUMN_KERNEL_EXISTS(bits, one_row, rows);
  }
  if (mb > lutmm_skinny_max_mb(one_row)) return 0;
  const int default_warps = p->warps == lutmm_skinny_warps(mb, bits);
  if (p->cluster_ways > 1) return LUTMM_SKINNY_CLUSTER_HOLDS(mb, bits, one_row) && default_warps;
  if (!default_warps && !(LUTMM_SKINNY_HAS_MORE_WARPS(mb, bits, one_row) && p->warps == LUTMM_SKINNY_MORE_WARPS))
    return 0;
  if (p->tags_head) return LUTMM_SKINNY_HAS_HEAD(mb, bits, one_row) && default_warps;
  if (p->shares_reduction) return LUTMM_SKINNY_SHARES_REDUCTION(mb);
  return 1;
}

static void describe(char *out, size_t size, const device_model *d, const lutmm_cuda_state *s,
                     const lutmm_weights *w, int64_t m, int capturing) {
  snprintf(out, size, "%s (workspace %zu B, column stream %d) %d-bit %lldx%lld g%lld M=%lld%s", d->name,
           s->workspace_bytes, s->column_stream, w->params.bits, (long long)w->params.k,
           (long long)w->params.n, (long long)w->params.group_size, (long long)m, capturing ? " captured" : "");
}

#define PLAN_CHECK(cond)                                                   \
  do {                                                                     \
    if (!(cond)) unit_fail(__FILE__, __LINE__, "%s: %s", where, #cond);    \
  } while (0)

static void check_skinny_launch(const char *where, const lutmm_cuda_state *s, const lutmm_cuda_gemm_params *p,
                                int capturing) {
  PLAN_CHECK(skinny_kernel_exists(p));
  /* blocks never outnumber the SMs, but for one block a tile where the
   * workspace cannot hold two partial tiles a block */
  PLAN_CHECK(p->grid >= 1 && (p->grid <= s->sm_count || p->grid == p->n_tiles) && p->units >= p->grid);
  if (p->column_stream) {
    PLAN_CHECK(p->grid <= s->sm_count);
    const int rows = lutmm_column_rows(p->m, p->k_atoms, p->warps);
    PLAN_CHECK(p->m <= LUTMM_COLUMN_MAX_ROWS && s->column_stream && p->cooperative && !capturing && p->tagged != NULL);
    PLAN_CHECK(lutmm_column_smem_bytes(s->smem_base, p->bits, p->atom_one_group, rows, p->warps) <=
               s->smem_per_block);
    PLAN_CHECK((size_t)p->grid * (size_t)rows * 64 <= s->tagged_words);
    PLAN_CHECK(p->units == p->n_atoms * ((p->k_atoms + 1) / 2) && p->units <= INT32_MAX);
    PLAN_CHECK(p->grid == lutmm_column_grid(p->units, p->iters, s->sm_count));
    return;
  }
  PLAN_CHECK(lutmm_skinny_smem_bytes(s->smem_base, p->bits, p->mb, p->atom_one_group, p->warps) <= s->smem_per_block);
  PLAN_CHECK(p->m <= 8 * p->mb && p->tile_m == 8 * p->mb && p->tile_n == 64 * p->warps);
  PLAN_CHECK(p->n_tiles * p->warps >= p->n_atoms && p->units == p->n_tiles * p->iters);
  if (p->cluster_ways > 1) {
    PLAN_CHECK(p->grid == p->n_tiles * p->cluster_groups * p->cluster_ways && !p->cooperative);
    PLAN_CHECK(s->skinny_clusters[p->cluster_ways] >= p->n_tiles * p->cluster_groups);
    PLAN_CHECK(p->cluster_groups == 1 || p->n_tiles * p->cluster_groups <= 2 * workspace_blocks(s, p));
    /* a ticket a share: tile · ways + rank */
    PLAN_CHECK(p->n_tiles * p->cluster_ways <= LUTMM_SKINNY_TICKETS_PER_SM * s->sm_count);
    return;
  }
  /* plain cut columns: two partial tiles a block in the workspace and a
   * ticket a warp of the column's first block (first · warps + warp), or
   * one block a tile (no partials, no tickets) */
  const int whole_tiles = p->units % p->grid == 0 && p->units / p->grid == p->iters;
  PLAN_CHECK(whole_tiles || p->grid <= workspace_blocks(s, p));
  PLAN_CHECK(whole_tiles || (int64_t)p->grid * p->warps <= LUTMM_SKINNY_TICKETS_PER_SM * s->sm_count);
  if (p->cooperative) PLAN_CHECK(p->grid <= s->sm_count && (p->shares_reduction || p->tagged != NULL));
  if (p->tagged != NULL) {
    PLAN_CHECK(!capturing && p->cooperative);
    const size_t words = p->tags_head ? (size_t)p->grid * (size_t)p->tile_m * (size_t)p->tile_n
                                      : (size_t)2 * (size_t)p->grid * LUTMM_SKINNY_TAGGED_ROWS * (size_t)p->tile_n;
    PLAN_CHECK(words <= s->tagged_words);
  }
}

static void check_call(const device_model *d, const lutmm_cuda_state *s, const lutmm_weights *w, int64_t m,
                       int capturing) {
  char where[160];
  describe(where, sizeof where, d, s, w, m, capturing);
  const call_plan c = plan_call(s, w, m, capturing);
  const lutmm_cuda_gemm_params *p = &c.p[0];
  switch (c.choice.kernel) {
    case LUTMM_CUDA_KERNEL_SKINNY: {
      PLAN_CHECK(c.launches >= 1 && c.launches <= 4);
      int64_t rows = 0;
      for (int i = 0; i < c.launches; i++) {
        check_skinny_launch(where, s, &c.p[i], capturing);
        rows += c.p[i].m;
      }
      PLAN_CHECK(rows == m);
      break;
    }
    case LUTMM_CUDA_KERNEL_WIDE:
      PLAN_CHECK(s->wide && m >= 17);
      if (m <= 32) { /* wide_takes_few_rows */
        /* the tile rows M = 33..64 would take: 64 wider than 4096 columns,
         * 128 up to that; `few`: 64-row tiles give at most 32 units an SM */
        const int bits = w->params.bits, tile = w->params.n > 4096 ? 64 : 128, one_row = p->atom_one_group;
        const int few = (p->n_atoms + 7) / 8 * p->k_atoms <= 32 * (int64_t)s->sm_count;
        const int from_17 = bits == 1 || (bits == 4 && tile == 64) ||
                            ((bits == 2 || bits == 3) && (tile == 128 || !one_row || few));
        PLAN_CHECK(w->params.n <= 1024 || (c.choice.tile_m == tile && (from_17 || (bits == 4 && m >= 24))));
      }
      PLAN_CHECK(c.choice.tile_m == 64 || c.choice.tile_m == 128 || c.choice.tile_m == 256);
      /* the MMAs multiply a tile's rows, or X's 32 where M allows and that
       * kernel is built (codes of up to 4 bits, tiles of up to 128 rows
       * without clusters) */
      if (p->mma_rows != p->tile_m)
        PLAN_CHECK(p->mma_rows == 32 && m <= 32 && p->tile_m <= 128 && !p->cluster_ways &&
                   w->params.bits <= LUTMM_WIDE_NARROW_MMA_MAX_BITS);
      else PLAN_CHECK(s->wide_full_mma || m > 32 || w->params.bits > LUTMM_WIDE_NARROW_MMA_MAX_BITS || p->cluster_ways);
      PLAN_CHECK(c.choice.stages >= 4 && c.choice.stages <= LUTMM_WIDE_MAX_STAGES);
      PLAN_CHECK(c.smem <= s->smem_per_block && c.smem == lutmm_wide_smem_bytes(p->bits, p->tile_m, p->stages));
      PLAN_CHECK(p->grid >= 1 && p->units >= p->grid && p->m_tiles * p->tile_m >= m);
      if (s->wide_max_parts) { /* blocks of at least lutmm_split_min_units(iters, n) units, or whole tiles */
        const int64_t tiles = p->m_tiles * p->n_tiles, most = p->units / lutmm_split_min_units(p->iters, s->wide_max_parts);
        PLAN_CHECK(p->grid <= (most > tiles ? most : tiles));
      }
      if (p->cluster_ways) {
        PLAN_CHECK(p->cluster_ways <= LUTMM_WIDE_MAX_CLUSTER && p->grid % p->cluster_ways == 0);
        PLAN_CHECK(s->wide_clusters[p->cluster_ways] >= p->grid / p->cluster_ways);
      }
      if (lutmm_cuda_needs_fixup(p)) PLAN_CHECK(p->grid <= workspace_blocks(s, p));
      break;
    case LUTMM_CUDA_KERNEL_TILED:
      PLAN_CHECK(p->stages >= 2 && p->stages <= 8 && c.smem <= s->smem_per_block);
      PLAN_CHECK(c.smem == lutmm_cuda_smem_bytes(p->bits, p->mf, p->stages));
      PLAN_CHECK(p->grid >= 1 && p->units >= p->grid && p->m_tiles * p->tile_m >= m);
      PLAN_CHECK(w->params.bits > 4 || p->mf == 4);
      if (lutmm_cuda_needs_fixup(p)) PLAN_CHECK(p->grid <= workspace_blocks(s, p));
      break;
  }
}

static const int64_t sweep_shapes[][2] = {
    {4096, 4096},  {4096, 14336}, {8192, 1024},  {8192, 8192}, {8192, 28672}, {14336, 4096}, {28672, 8192},
    {64, 64},      {4160, 3000},  {20000, 2048}, {28672, 2048}, {14400, 1024}, {1024, 8192}, {2048, 5120},
    {3072, 2112},  {128, 100000}, {65536, 256},  {1 << 22, 1 << 22}, /* 2^31 column-stream units */
};
static const int64_t sweep_m[] = {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 24, 32, 33, 48, 64, 65, 96, 128, 129, 200, 256, 1000};
static const int64_t sweep_groups[] = {16, 32, 64, 128, 0};

/* Workspaces a caller may lend (lutmm_cuda_set_workspace): the context's
 * own (0 here), none at all, 4 KiB (a few partial tiles), 1 MiB. */
static const size_t sweep_workspaces[] = {0, 1, 4096, 1 << 20};

/* Every shape, group, code width, scale dtype, M and capture of the sweep
 * on one device state; returns the calls planned. */
static long sweep_state(const device_model *d, const lutmm_cuda_state *s) {
  static lutmm_weights w;
  long plans = 0;
  for (size_t shape = 0; shape < sizeof sweep_shapes / sizeof sweep_shapes[0]; shape++)
    for (size_t g = 0; g < sizeof sweep_groups / sizeof sweep_groups[0]; g++)
      for (int bits = 1; bits <= 8; bits++)
        for (int f32 = 0; f32 < 2; f32++) {
          const int64_t k = sweep_shapes[shape][0], n = sweep_shapes[shape][1];
          if (!model_weights(bits, k, n, sweep_groups[g], f32 ? LUTMM_DTYPE_F32 : LUTMM_DTYPE_F16, &w)) continue;
          for (size_t i = 0; i < sizeof sweep_m / sizeof sweep_m[0]; i++)
            for (int capturing = 0; capturing < 2; capturing++, plans++) check_call(d, s, &w, sweep_m[i], capturing);
        }
  return plans;
}

/* The sweep on each model, with each workspace, with the column-stream
 * kernel where its rule allows (the default), without it
 * (LUTMM_CUDA_COLUMN_STREAM=0) and wherever it fits (=any). */
static void sweep_invariants(void) {
  const device_model *devices[] = {&h100, &h100_pcie, &a100, &ada};
  static lutmm_cuda_state s;
  long plans = 0;
  for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++)
    for (size_t ws = 0; ws < sizeof sweep_workspaces / sizeof sweep_workspaces[0]; ws++)
      for (int column_stream = 0; column_stream < 3; column_stream++) {
        model_state(devices[d], &s);
        if (sweep_workspaces[ws] > 0) s.workspace_bytes = sweep_workspaces[ws] == 1 ? 0 : sweep_workspaces[ws];
        s.column_stream = column_stream;
        plans += sweep_state(devices[d], &s);
      }
  /* and the H100 model with tiles cut into fewer parts, or whole
   * (LUTMM_CUDA_WIDE_MAX_PARTS=1, 3, 8, 20) */
  static const int fewer_parts[] = {1, 3, 8, 20};
  for (size_t i = 0; i < sizeof fewer_parts / sizeof fewer_parts[0]; i++) {
    model_state(&h100, &s);
    s.wide_max_parts = fewer_parts[i];
    plans += sweep_state(&h100, &s);
  }
  /* and with every wide MMA over its tile's rows (LUTMM_CUDA_WIDE_MMA_ROWS=tile) */
  model_state(&h100, &s);
  s.wide_full_mma = 1;
  plans += sweep_state(&h100, &s);
  CHECK(plans > 2700000); /* the sweep ran */
}

/* lutmm_cuda_needs_fixup against the fixup's own test of a tile (its
 * first and last unit in different blocks, parts_of in gemm_fixup.cu)
 * over every split of 1..40 tiles of 1..70 units on 1..300 blocks: a
 * launch has a fixup exactly where some tile is cut (K <= 64 included,
 * whose one-unit tiles are never cut). */
static void fixup_where_cut(void) {
  long splits = 0, wrong = 0;
  for (int64_t tiles = 1; tiles <= 40; tiles++)
    for (int64_t iters = 1; iters <= 70; iters++)
      for (int grid = 1; grid <= 300 && grid <= tiles * iters; grid++) {
        lutmm_cuda_gemm_params p;
        memset(&p, 0, sizeof p);
        p.iters = iters;
        p.units = tiles * iters;
        p.grid = grid;
        int cut = 0;
        for (int64_t t = 0; t < tiles && !cut; t++)
          cut = lutmm_cuda_block_of_unit(p.units, grid, t * iters) !=
                lutmm_cuda_block_of_unit(p.units, grid, t * iters + iters - 1);
        if (lutmm_cuda_needs_fixup(&p) != cut && wrong++ < 5)
          printf("  %lld tiles of %lld units on %d blocks: fixup %d, a tile cut %d\n", (long long)tiles,
                 (long long)iters, grid, lutmm_cuda_needs_fixup(&p), cut);
        splits++;
      }
  CHECK(wrong == 0);
  CHECK(splits > 500000);
}

/* The fixup overlaps where the SMs a wide grid leaves idle hold all its
 * blocks (32 a tile), whatever the parts a tile: NF4 on W of 512 columns,
 * two 128-row tiles cut 32 ways, 64 wide blocks and 64 fixup blocks, on
 * the H100's 132 SMs but not on the H100 PCIe's 114; at M = 256 four
 * 256-row tiles on 128 blocks leave no room. */
static void idle_sm_overlap(void) {
  static lutmm_cuda_state s;
  static lutmm_weights w;
  CHECK(model_weights(4, 4096, 512, 128, LUTMM_DTYPE_F16, &w));
  const device_model *devices[] = {&h100, &h100_pcie};
  for (int d = 0; d < 2; d++) {
    model_state(devices[d], &s);
    const int64_t ms[] = {17, 32, 64, 128};
    for (int i = 0; i < 4; i++) {
      const call_plan c = plan_call(&s, &w, ms[i], 0);
      const lutmm_cuda_gemm_params *p = &c.p[0];
      CHECK(c.choice.kernel == LUTMM_CUDA_KERNEL_WIDE && p->tile_m == 128 && p->m_tiles * p->n_tiles == 2);
      CHECK(p->grid == 64 && lutmm_cuda_needs_fixup(p)); /* 32 parts a tile */
      CHECK(lutmm_cuda_fixup_overlaps(&s, p) == (devices[d] == &h100));
    }
  }
  model_state(&h100, &s);
  call_plan c = plan_call(&s, &w, 256, 0);
  CHECK(c.p[0].tile_m == 256 && c.p[0].m_tiles * c.p[0].n_tiles == 4 && c.p[0].grid == 128);
  CHECK(lutmm_cuda_needs_fixup(&c.p[0]) && !lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  /* W of 256 columns at M = 256: two 256-row tiles, 64 blocks: room */
  CHECK(model_weights(4, 8192, 256, 128, LUTMM_DTYPE_F16, &w));
  c = plan_call(&s, &w, 256, 0);
  CHECK(c.p[0].m_tiles * c.p[0].n_tiles == 2 && c.p[0].grid == 64 && lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  /* none with LUTMM_CUDA_FIXUP_OVERLAP=0 */
  s.fixup_overlap = 0;
  CHECK(!lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
}

/* The kernel, and for skinny launches the column-stream choice and M
 * blocks, that the H100 gets for NF4 in groups of 128 at M on the
 * benchmark's shapes (docs/HEURISTICS.md, "Which kernel"). */
static void expect_hopper(const lutmm_cuda_state *s, int64_t k, int64_t n, int64_t m) {
  static lutmm_weights w;
  char where[160];
  CHECK(model_weights(4, k, n, 128, LUTMM_DTYPE_F16, &w));
  describe(where, sizeof where, &h100, s, &w, m, 0);
  const call_plan c = plan_call(s, &w, m, 0);
  /* NF4 at M = 17..32 takes the wide kernel on W wider than 4096 columns
   * (every shape but 14336 x 4096) and from M = 24 on W of 4096 columns */
  const int few_rows_wide = n > 4096 ? m >= 17 : n > 1024 && m >= 24;
  if (m <= 32 && !few_rows_wide) {
    PLAN_CHECK(c.choice.kernel == LUTMM_CUDA_KERNEL_SKINNY && c.launches == 1);
    PLAN_CHECK(c.p[0].column_stream == (s->column_stream && m <= LUTMM_COLUMN_MAX_ROWS));
    if (c.p[0].column_stream && m > 1) /* M = 1: X whole or 2 rows by K (below) */
      PLAN_CHECK(lutmm_column_rows(m, c.p[0].k_atoms, 16) == (m <= 2 ? 2 : 4));
    else PLAN_CHECK(c.p[0].mb == (m <= 8 ? 1 : m <= 16 ? 2 : 4));
    return;
  }
  const int tile_m = m > 128 ? 256 : m > 64 || n <= 4096 ? 128 : 64;
  PLAN_CHECK(c.choice.kernel == LUTMM_CUDA_KERNEL_WIDE && c.choice.tile_m == tile_m);
  PLAN_CHECK(c.p[0].mma_rows == (m <= 32 ? 32 : tile_m)); /* NF4: M = 17..32 (24..32) above */
}

static void hopper_choices(void) {
  static lutmm_cuda_state s;
  static lutmm_weights w;
  model_state(&h100, &s);
  const int64_t shapes[][2] = {{8192, 28672}, {28672, 8192}, {8192, 8192}, {4096, 14336}, {14336, 4096}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (size_t j = 0; j < sizeof sweep_m / sizeof sweep_m[0]; j++)
      expect_hopper(&s, shapes[i][0], shapes[i][1], sweep_m[j]);
  /* M = 1 on 8192 x 28672: X whole; K = 28672: X carried, two rows */
  CHECK(model_weights(4, 8192, 28672, 128, LUTMM_DTYPE_F16, &w));
  call_plan c = plan_call(&s, &w, 1, 0);
  CHECK(c.p[0].column_stream && lutmm_column_rows(1, c.p[0].k_atoms, c.p[0].warps) == 1 && c.p[0].grid == 132);
  /* in a graph: no tags, so the skinny kernel and untagged cut columns */
  c = plan_call(&s, &w, 1, 1);
  CHECK(!c.p[0].column_stream && c.p[0].tagged == NULL);
  CHECK(model_weights(4, 28672, 8192, 128, LUTMM_DTYPE_F16, &w));
  c = plan_call(&s, &w, 1, 0);
  CHECK(c.p[0].column_stream && lutmm_column_rows(1, c.p[0].k_atoms, c.p[0].warps) == 2);
  /* Where the rules decide, or a kernel is missing (fp16 scales): the
   * column stream as lutmm_column_stream_pays gives it, and the wide kernel
   * at M = 17..32 as wide_takes_few_rows does (`wide`: its tile rows, 0
   * for another kernel). */
  static const struct {
    int bits;
    int64_t k, n, group, m;
    int column, wide;
  } rule[] = {
      /* M = 1..2: every code width wherever its kernel exists (changes 87
       * and 89): 2- and 3-bit codes on 448 atom columns (the skinny
       * kernel's before change 87), per-slab 5- and 6-bit codes on 448,
       * one-row 5-bit on 16, the 12-warp 7-bit blocks on 4096 x 4096
       * (2,048 units), per-slab 7- and 8-bit codes (change 114) */
      {3, 8192, 28672, 128, 1, 1, 0},
      {2, 8192, 28672, 128, 2, 1, 0},
      {8, 8192, 28672, 128, 1, 1, 0},
      {5, 8192, 28672, 32, 1, 1, 0},
      {6, 8192, 28672, 32, 2, 1, 0},
      {5, 8192, 1024, 128, 2, 1, 0},
      {7, 4096, 4096, 128, 2, 1, 0},
      {7, 8192, 28672, 32, 1, 1, 0},
      {8, 4096, 4096, 32, 2, 1, 0},
      /* M = 3..4: one-row codes from 32 atom columns (4-bit on 8192 x
       * 1024, 16 columns, at M = 2 but not 4); 2- and 3-bit ones since
       * change 90, 1-bit ones not (no 4-row kernel); 12-warp 7-bit blocks
       * not under two units a warp; per-slab scales not (no kernel) */
      {4, 8192, 1024, 128, 2, 1, 0},
      {4, 8192, 1024, 128, 4, 0, 0},
      {3, 8192, 28672, 128, 4, 1, 0},
      {2, 4096, 4096, 64, 3, 1, 0},
      {2, 8192, 1024, 128, 3, 0, 0},
      {1, 8192, 28672, 128, 2, 1, 0},
      {1, 8192, 28672, 128, 4, 0, 0},
      {7, 4096, 4096, 128, 3, 0, 0},
      {5, 8192, 28672, 32, 3, 0, 0},
      {4, 8192, 28672, 32, 4, 0, 0},
      /* M = 17..32: the wide kernel, its tiles as at M = 33..64, on W of
       * at most 1024 columns for every code width from M = 17 */
      {4, 8192, 1024, 128, 16, 0, 0},
      {4, 8192, 1024, 128, 17, 0, 128},
      {3, 8192, 1024, 32, 32, 0, 128},
      {2, 8192, 1000, 64, 24, 0, 128},
      {1, 8192, 1024, 128, 24, 0, 128},
      {5, 8192, 1024, 128, 24, 0, 128},
      {8, 8192, 1024, 32, 17, 0, 128},
      {8, 8192, 1024, 32, 16, 0, 0},
      /* wider than 4096 columns (changes 113 and 115): 4-bit codes from
       * 17; 2- and 3-bit ones from 17 too, but with one-row scales only
       * where 64-row tiles give at most 32 units an SM */
      {4, 8192, 28672, 32, 16, 0, 0},
      {4, 8192, 28672, 32, 17, 0, 64},
      {4, 8192, 28672, 128, 17, 0, 64},
      {4, 28672, 8192, 64, 32, 0, 64},
      {2, 28672, 8192, 16, 17, 0, 64},
      {2, 8192, 8192, 128, 17, 0, 64},
      {2, 4096, 14336, 64, 32, 0, 64},
      {2, 8192, 28672, 128, 32, 0, 0},
      {2, 8192, 28672, 64, 17, 0, 0},
      {2, 8448, 16384, 128, 17, 0, 64}, /* 32 x 132 units: at most 32 an SM */
      {2, 8448, 16385, 128, 17, 0, 0},  /* 33 x 132 */
      {2, 28672, 8192, 64, 24, 0, 0},
      {4, 8192, 4097, 128, 17, 0, 64},
      {3, 8192, 28672, 32, 17, 0, 64},
      {3, 8192, 8192, 128, 17, 0, 64},
      {3, 4096, 14336, 64, 32, 0, 64},
      {3, 8192, 28672, 128, 32, 0, 0},
      {3, 28672, 8192, 64, 17, 0, 0},
      /* 1-bit codes: from 17 everywhere (change 115) */
      {1, 8192, 28672, 128, 16, 0, 0},
      {1, 8192, 28672, 128, 17, 0, 64},
      {1, 28672, 8192, 64, 24, 0, 64},
      {1, 8192, 8192, 32, 17, 0, 64},
      {1, 8192, 28672, 32, 17, 0, 64},
      /* codes of 5..8 bits wider than 4096 columns: never */
      {5, 8192, 8192, 128, 32, 0, 0},
      {8, 8192, 8192, 32, 32, 0, 0},
      /* 1025..4096 columns (128-row tiles, changes 113 and 115): 1-, 2-
       * and 3-bit codes from 17, 4-bit ones from 24, wider ones never */
      {2, 4096, 4096, 128, 17, 0, 128},
      {2, 4096, 1025, 128, 17, 0, 128},
      {2, 14336, 4096, 32, 20, 0, 128},
      {4, 14336, 4096, 128, 23, 0, 0},
      {4, 4096, 1025, 64, 24, 0, 128},
      {4, 4096, 4096, 32, 23, 0, 0},
      {4, 4096, 4096, 32, 24, 0, 128},
      {4, 14336, 4096, 128, 32, 0, 128},
      {1, 4096, 4096, 128, 17, 0, 128},
      {3, 4096, 4096, 128, 17, 0, 128},
      {3, 14336, 4096, 32, 16, 0, 0},
      {8, 14336, 4096, 128, 32, 0, 0},
  };
  for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++) {
    CHECK(model_weights(rule[i].bits, rule[i].k, rule[i].n, rule[i].group, LUTMM_DTYPE_F16, &w));
    c = plan_call(&s, &w, rule[i].m, 0);
    const int wide = c.choice.kernel == LUTMM_CUDA_KERNEL_WIDE ? c.choice.tile_m : 0;
    if (c.p[0].column_stream != rule[i].column || wide != rule[i].wide)
      unit_fail(__FILE__, __LINE__,
                "%d-bit codes, %lld x %lld, groups of %lld, M = %lld: column stream %d, wide tile %d; not %d, %d",
                rule[i].bits, (long long)rule[i].k, (long long)rule[i].n, (long long)rule[i].group,
                (long long)rule[i].m, c.p[0].column_stream, wide, rule[i].column, rule[i].wide);
  }
  /* The column stream's grid on the benchmark's shapes: 128 blocks where
   * that many line up with the columns (half a column a block on 4096 x
   * 4096 and 14336 x 4096, an eighth on 8192 x 1024, one column on 8192 x
   * 8192 and 28672 x 8192), else one an SM (lutmm_column_grid); n (at most
   * one an SM and one a unit) with LUTMM_CUDA_COLUMN_GRID=n. */
  static const struct {
    int64_t k, n, grid;
  } grids[] = {{4096, 4096, 128},   {8192, 1024, 128},  {8192, 8192, 128}, {4096, 14336, 132},
               {14336, 4096, 128},  {8192, 28672, 132}, {28672, 8192, 128}};
  for (size_t i = 0; i < sizeof grids / sizeof grids[0]; i++) {
    CHECK(model_weights(4, grids[i].k, grids[i].n, 128, LUTMM_DTYPE_F16, &w));
    c = plan_call(&s, &w, 1, 0);
    if (!c.p[0].column_stream || c.p[0].grid != grids[i].grid)
      unit_fail(__FILE__, __LINE__, "%lld x %lld, M = 1: column stream %d on %d blocks, not on %lld", (long long)grids[i].k,
                (long long)grids[i].n, c.p[0].column_stream, c.p[0].grid, (long long)grids[i].grid);
  }
  s.column_grid = 132;
  CHECK(model_weights(4, 4096, 4096, 128, LUTMM_DTYPE_F16, &w));
  CHECK(plan_call(&s, &w, 1, 0).p[0].grid == 132);
  s.column_grid = 100;
  CHECK(plan_call(&s, &w, 2, 0).p[0].grid == 100);
  s.column_grid = 1000; /* past the SMs: one an SM */
  CHECK(plan_call(&s, &w, 1, 0).p[0].grid == 132);
  CHECK(model_weights(4, 128, 4096, 128, LUTMM_DTYPE_F16, &w)); /* 64 units: one block a unit */
  CHECK(plan_call(&s, &w, 1, 0).p[0].grid == 64);
  s.column_grid = 0;
  CHECK(plan_call(&s, &w, 1, 0).p[0].grid == 64);
  /* =any takes what the rule leaves out where the kernel exists */
  CHECK(model_weights(4, 8192, 1024, 128, LUTMM_DTYPE_F16, &w));
  s.column_stream = 2;
  CHECK(plan_call(&s, &w, 4, 0).p[0].column_stream);
  s.column_stream = 1;
  /* without cooperative launches neither column stream nor tags */
  s.cooperative = 0;
  CHECK(model_weights(4, 8192, 28672, 128, LUTMM_DTYPE_F16, &w));
  c = plan_call(&s, &w, 1, 0);
  CHECK(c.choice.kernel == LUTMM_CUDA_KERNEL_SKINNY && !c.p[0].column_stream && !c.p[0].cooperative);
  /* 8192 x 1024 at M = 128: each of 4 tiles cut 32 ways on 128 blocks;
   * in a lent workspace of 16 MiB (64 blocks' partials) the floor of 8
   * parts, 32 blocks, not one block a tile */
  CHECK(model_weights(4, 8192, 1024, 128, LUTMM_DTYPE_F16, &w));
  c = plan_call(&s, &w, 128, 0);
  CHECK(c.choice.kernel == LUTMM_CUDA_KERNEL_WIDE && c.p[0].grid == 128);
  /* its fixup is launched after the wide kernel, not to overlap its end
   * (32 parts a tile), but with LUTMM_CUDA_FIXUP_OVERLAP=any */
  CHECK(lutmm_cuda_needs_fixup(&c.p[0]) && !lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  s.fixup_overlap = 2;
  CHECK(lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  s.fixup_overlap = 1;
  /* the rule's edge: 4096 x 4096 at M = 128, 16 tiles of 8 parts,
   * overlaps; 8192 x 1024 at M = 256, 8 tiles of 16 parts, does not */
  CHECK(model_weights(4, 4096, 4096, 128, LUTMM_DTYPE_F16, &w));
  c = plan_call(&s, &w, 128, 0);
  CHECK(c.p[0].grid == 128 && c.p[0].m_tiles * c.p[0].n_tiles == 16 && lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  CHECK(model_weights(4, 8192, 1024, 128, LUTMM_DTYPE_F16, &w));
  c = plan_call(&s, &w, 256, 0);
  CHECK(c.p[0].grid == 128 && c.p[0].m_tiles * c.p[0].n_tiles == 8 && !lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  /* 8192 x 8192 (32 tiles in 4 parts) overlaps, but not with
   * LUTMM_CUDA_FIXUP_OVERLAP=0, nor on a device without the wide kernel */
  CHECK(model_weights(4, 8192, 8192, 128, LUTMM_DTYPE_F16, &w));
  c = plan_call(&s, &w, 128, 0);
  CHECK(c.choice.kernel == LUTMM_CUDA_KERNEL_WIDE && c.p[0].grid == 128 && lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  s.fixup_overlap = 0;
  CHECK(!lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  s.fixup_overlap = 1;
  s.wide = 0;
  CHECK(!lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  s.wide = 1;
  CHECK(model_weights(4, 8192, 1024, 128, LUTMM_DTYPE_F16, &w));
  s.workspace_bytes = (size_t)16 << 20;
  c = plan_call(&s, &w, 128, 0);
  CHECK(c.choice.kernel == LUTMM_CUDA_KERNEL_WIDE && c.p[0].grid == 32);
  s.workspace_bytes = lutmm_cuda_default_workspace_bytes(s.sm_count);
  /* LUTMM_CUDA_WIDE_MAX_PARTS=n: 4096 x 1024 at M = 24 (4 tiles of 64
   * units) in 32 parts of 2 units (128 blocks, the fixup after), in 8 of
   * 8 (32 blocks, the fixup overlapped), or whole tiles (n = 1) */
  CHECK(model_weights(4, 4096, 1024, 128, LUTMM_DTYPE_F16, &w));
  static const struct {
    int most, grid, fixup, overlapped;
  } cuts[] = {{0, 128, 1, 0}, {8, 32, 1, 1}, {1, 4, 0, 0}};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    s.wide_max_parts = cuts[i].most;
    c = plan_call(&s, &w, 24, 0);
    if (c.choice.kernel != LUTMM_CUDA_KERNEL_WIDE || c.p[0].grid != cuts[i].grid ||
        lutmm_cuda_needs_fixup(&c.p[0]) != cuts[i].fixup || lutmm_cuda_fixup_overlaps(&s, &c.p[0]) != cuts[i].overlapped)
      unit_fail(__FILE__, __LINE__, "at most %d parts: grid %d, fixup %d, overlapped %d", cuts[i].most, c.p[0].grid,
                lutmm_cuda_needs_fixup(&c.p[0]), lutmm_cuda_fixup_overlaps(&s, &c.p[0]));
  }
  s.wide_max_parts = 0;
  CHECK(model_weights(4, 8192, 28672, 128, LUTMM_DTYPE_F16, &w));
  /* M = 96 on the largest shapes: the wide kernel, not two skinny launches */
  s.cooperative = 1;
  c = plan_call(&s, &w, 96, 0);
  CHECK(c.choice.kernel == LUTMM_CUDA_KERNEL_WIDE && c.choice.tile_m == 128);
  /* LUTMM_CUDA_COLUMN_STREAM=0: the skinny kernel's m8 blocks at M <= 32 */
  s.column_stream = 0;
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (size_t j = 0; j < sizeof sweep_m / sizeof sweep_m[0]; j++)
      expect_hopper(&s, shapes[i][0], shapes[i][1], sweep_m[j]);
}

static void ampere_choices(void) {
  static lutmm_cuda_state s;
  static lutmm_weights w;
  model_state(&a100, &s);
  /* codes of 4 bits and more: no skinny block fits, the tiled kernel at
   * every M */
  const int64_t shapes[][2] = {{8192, 28672}, {4096, 4096}, {8192, 1024}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    for (int bits = 4; bits <= 8; bits++) {
      CHECK(model_weights(bits, shapes[i][0], shapes[i][1], 128, LUTMM_DTYPE_F16, &w));
      for (size_t j = 0; j < sizeof sweep_m / sizeof sweep_m[0]; j++)
        CHECK(plan_call(&s, &w, sweep_m[j], 0).choice.kernel == LUTMM_CUDA_KERNEL_TILED);
    }
  /* 2-bit codes: the 8-row kernel (16 warps, 183 KiB) does not fit, those
   * of 16 to 64 rows do; M = 65 would be a 64-row launch and a 1-row one,
   * so the tiled kernel takes it whole (a first form planned the 1-row
   * launch and the device would have refused it) */
  CHECK(model_weights(2, 8192, 28672, 128, LUTMM_DTYPE_F16, &w));
  CHECK(plan_call(&s, &w, 1, 0).choice.kernel == LUTMM_CUDA_KERNEL_TILED);
  CHECK(plan_call(&s, &w, 16, 0).choice.kernel == LUTMM_CUDA_KERNEL_SKINNY);
  CHECK(plan_call(&s, &w, 64, 0).choice.kernel == LUTMM_CUDA_KERNEL_SKINNY);
  CHECK(plan_call(&s, &w, 65, 0).choice.kernel == LUTMM_CUDA_KERNEL_TILED);
  CHECK(plan_call(&s, &w, 96, 0).choice.kernel == LUTMM_CUDA_KERNEL_SKINNY); /* 64 + 32 rows */
  /* 1-bit codes fit at every M block */
  CHECK(model_weights(1, 8192, 28672, 128, LUTMM_DTYPE_F16, &w));
  CHECK(plan_call(&s, &w, 1, 0).choice.kernel == LUTMM_CUDA_KERNEL_SKINNY);
  CHECK(plan_call(&s, &w, 65, 0).choice.kernel == LUTMM_CUDA_KERNEL_SKINNY);
}

/* One cell of the plan table: the kernel and what decides its speed. */
static void describe_launch(const lutmm_cuda_state *s, const call_plan *c, char *out, size_t size) {
  const lutmm_cuda_gemm_params *p = &c->p[0];
  if (c->choice.kernel == LUTMM_CUDA_KERNEL_TILED) {
    snprintf(out, size, "tiled MF %d, %d blk", p->mf, p->grid);
  } else if (c->choice.kernel == LUTMM_CUDA_KERNEL_WIDE) {
    snprintf(out, size, "wide %d×%d, %d st, %d blk%s%s", p->tile_m, p->tile_n, p->stages, p->grid,
             p->cluster_ways ? ", pairs" : "",
             lutmm_cuda_fixup_overlaps(s, p) ? ", fixup overlapped" : lutmm_cuda_needs_fixup(p) ? ", fixup" : "");
  } else if (p->column_stream) {
    const int rows = lutmm_column_rows(p->m, p->k_atoms, p->warps);
    if (rows == 1) snprintf(out, size, "column, X whole, %d blk", p->grid);
    else snprintf(out, size, "column, X carried ×%d, %d blk", rows, p->grid);
  } else {
    const char *cut = p->cluster_ways ? (p->cluster_groups > 1 ? "clusters+tickets" : "clusters")
                      : p->tags_head       ? "HEAD"
                      : p->tagged != NULL  ? "tags"
                      : p->shares_reduction ? "shared"
                                            : "tickets";
    snprintf(out, size, "skinny %d rows, %d warps, %d blk, %s", 8 * p->mb, p->warps, p->grid, cut);
  }
  if (c->launches > 1) {
    const size_t used = strlen(out);
    snprintf(out + used, size - used, " (×%d)", c->launches);
  }
}

/* `unit_cuda_plan --table`: the H100 model's plans for NF4 in groups of
 * 128 on the benchmark's shapes, as docs/HEURISTICS.md shows them. */
static void print_table(void) {
  static lutmm_cuda_state s;
  static lutmm_weights w;
  const int64_t shapes[][2] = {{8192, 28672}, {28672, 8192}, {8192, 8192}, {4096, 14336},
                               {14336, 4096}, {4096, 4096},  {8192, 1024}};
  const int64_t ms[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
  const int n_shapes = (int)(sizeof shapes / sizeof shapes[0]);
  model_state(&h100, &s);
  printf("| M |");
  for (int i = 0; i < n_shapes; i++) printf(" %lld × %lld |", (long long)shapes[i][0], (long long)shapes[i][1]);
  printf("\n|---|");
  for (int i = 0; i < n_shapes; i++) printf("---|");
  printf("\n");
  for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
    printf("| %lld |", (long long)ms[j]);
    for (int i = 0; i < n_shapes; i++) {
      char cell[128];
      if (!model_weights(4, shapes[i][0], shapes[i][1], 128, LUTMM_DTYPE_F16, &w)) return;
      const call_plan c = plan_call(&s, &w, ms[j], 0);
      describe_launch(&s, &c, cell, sizeof cell);
      printf(" %s |", cell);
    }
    printf("\n");
  }
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"sweep_invariants", sweep_invariants}, {"fixup_where_cut", fixup_where_cut},
      {"idle_sm_overlap", idle_sm_overlap},
      {"hopper_choices", hopper_choices}, {"ampere_choices", ampere_choices}};
  if (argc == 2 && strcmp(argv[1], "--table") == 0) {
    print_table();
    return 0;
  }
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
