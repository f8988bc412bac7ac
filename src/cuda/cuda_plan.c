/* The CUDA backend's plans (cuda_plan.h): which kernel a lutmm_gemm call
 * runs and how its work is divided, decided from the device's limits, the
 * weights' geometry and the call's shape alone (docs/HEURISTICS.md). */
#include "cuda_plan.h"

#include <string.h>

#include "numeric.h"

#define MAX_STAGES 8
#define BLOCK_RESERVED_SMEM 1024 /* the runtime keeps 1 KiB of each block's share */

typedef struct gemm_plan {
  int mf, stages, blocks_per_sm, grid;
  size_t smem;
} gemm_plan;

/* Stream-K keeps at most two partial tiles per block. The tiled kernel's
 * largest tile (64×256 fp32, MF = 4) runs at most two blocks per
 * multiprocessor (MF = 1 runs three, with tiles 16 times smaller); the wide
 * kernel's (LUTMM_WIDE_TILE_ELEMS: 128×256 or 256×128) and the skinny
 * kernel's (at most 64×512) one. */
size_t lutmm_cuda_default_workspace_bytes(int sm_count) {
  const size_t tiled_per_sm = (size_t)2 * lutmm_cuda_tile_elems(4);
  const size_t wide_per_sm = (size_t)LUTMM_WIDE_TILE_ELEMS;
  const size_t per_sm = tiled_per_sm > wide_per_sm ? tiled_per_sm : wide_per_sm;
  return (size_t)2 * (size_t)sm_count * per_sm * sizeof(float);
}

/* One m16 fragment per warp while M fits in it (weight-bound: widest k
 * split), more as M grows and the X tile gets reused across columns. */
static int pick_mf(int64_t m) { return m <= 16 ? 1 : m <= 32 ? 2 : 4; }

/* The lookup chain is latency-bound, so resident warps matter most: for
 * MF = 1, three blocks per multiprocessor when two stages fit in a third of
 * the shared memory; else two blocks with at least three stages, else one block with as
 * many stages as fit (at most 8). */
static void pick_stages(const lutmm_cuda_state *s, int bits, gemm_plan *plan) {
  const size_t fixed = lutmm_cuda_table_bytes(bits) + lutmm_cuda_reduce_bytes(plan->mf);
  const size_t stage = lutmm_cuda_stage_bytes(bits);
  const size_t min_stages[4] = {0, 2, 3, 2};
  /* Registers: MF = 1 kernels use ~168 per thread (3 blocks fit in 64K),
   * the wider ones up to 255 (2 blocks). */
  for (int bps = plan->mf == 1 ? 3 : 2; bps >= 1; bps--) {
    size_t budget = s->smem_per_sm / (size_t)bps - BLOCK_RESERVED_SMEM;
    if (budget > s->smem_per_block) budget = s->smem_per_block;
    if (fixed + min_stages[bps] * stage > budget && bps > 1) continue;
    size_t stages = (budget - fixed) / stage;
    if (stages > MAX_STAGES) stages = MAX_STAGES;
    if (stages < 2) stages = 2;
    plan->blocks_per_sm = bps;
    plan->stages = (int)stages;
    plan->smem = lutmm_cuda_smem_bytes(bits, plan->mf, plan->stages);
    return;
  }
}

void lutmm_cuda_fill_operands(const lutmm_weights *w, const lutmm_gemm_args *a, lutmm_cuda_gemm_params *p) {
  const lutmm_geometry *g = &w->geom;
  p->planes = (const uint8_t *)w->planes;
  p->bits = w->params.bits;
  p->slices = g->slicing.count;
  for (int s = 0; s < 3; s++) {
    p->plane_offset[s] = g->plane_offset[s];
    p->width[s] = g->slicing.width[s];
    p->shift[s] = g->slicing.shift[s];
  }
  p->scales = w->scales;
  p->scale_dtype = (int)w->params.scale_dtype;
  p->n_pad = g->n_pad;
  p->group_size = g->group_size;
  p->group_log2 = -1;
  for (int b = 0; b < 62; b++)
    if (((int64_t)1 << b) == g->group_size) p->group_log2 = b;
  p->atom_one_group = g->group_size % 64 == 0 || g->group_size >= w->params.k;
  p->atom_group_log2 = g->group_size >= w->params.k ? 31 : -1;
  for (int b = 0; b < 31 && p->atom_group_log2 < 0; b++)
    if (((int64_t)64 << b) == g->group_size) p->atom_group_log2 = b;
  p->atom_group_mask = p->atom_group_log2 < 0 ? 0u : ((uint32_t)1 << p->atom_group_log2) - 1u;
  p->atom_scale_rows = p->atom_one_group ? 1 : lutmm_skinny_scale_rows_max(g->group_size);
  p->scale_rows = g->scale_rows;
  p->k_atoms = g->k_atoms;
  p->n_atoms = g->n_atoms;
  p->x = a->x;
  p->x_vector = ((uintptr_t)a->x % 16 == 0) && (w->params.k % 8 == 0);
  p->m = a->m;
  p->k = w->params.k;
  p->n = w->params.n;
  p->y = a->y;
  p->y_dtype = (int)a->y_dtype;
  memcpy(p->table, w->table, sizeof(float) * ((size_t)1 << w->params.bits));
}

static void fill_tiles(const lutmm_weights *w, const lutmm_gemm_args *a, int mf, lutmm_cuda_gemm_params *p) {
  const lutmm_geometry *g = &w->geom;
  p->mf = mf;
  p->tile_m = lutmm_cuda_block_m(mf);
  p->tile_n = lutmm_cuda_block_n(mf);
  p->m_tiles = (a->m + lutmm_cuda_block_m(mf) - 1) / lutmm_cuda_block_m(mf);
  p->n_tiles = (g->n_atoms + lutmm_cuda_nwn(mf) - 1) / lutmm_cuda_nwn(mf);
  p->iters = (g->k_atoms + lutmm_cuda_nwk(mf) - 1) / lutmm_cuda_nwk(mf);
  p->units = p->m_tiles * p->n_tiles * p->iters;
}

/* Blocks whose two fp32 partial tiles (first and last segment) the
 * workspace holds, for tiles of p's size. */
static int64_t workspace_blocks(const lutmm_cuda_state *s, const lutmm_cuda_gemm_params *p) {
  const size_t per_block = 2 * (size_t)p->tile_m * (size_t)p->tile_n * sizeof(float);
  return (int64_t)(s->workspace == NULL ? 0 : s->workspace_bytes / per_block);
}

/* Stream-K grid: every resident block slot busy, unless the workspace cannot
 * hold two partial tiles per block; then one block per tile (no partials).
 * No tile is cut into more than about `max_parts` parts
 * (lutmm_split_min_units). */
static void pick_grid(const lutmm_cuda_state *s, lutmm_cuda_gemm_params *p, gemm_plan *plan, int64_t max_parts) {
  int64_t grid = (int64_t)s->sm_count * plan->blocks_per_sm;
  const int64_t min_units = lutmm_split_min_units(p->iters, max_parts);
  if (grid > p->units / min_units) grid = p->units / min_units > 0 ? p->units / min_units : 1;
  const int64_t fits = workspace_blocks(s, p);
  if (fits < grid) grid = fits >= s->sm_count ? fits : p->m_tiles * p->n_tiles;
  plan->grid = (int)grid;
  p->grid = plan->grid;
  p->stages = plan->stages;
  p->workspace = s->workspace;
}

/* Whether block boundaries fall only on tile boundaries: with tiles of
 * one unit (K <= 64) always; else exactly where the grid divides the
 * tiles (the boundaries are floor(b·units/grid); where it does not, some
 * b puts one at least half a tile past a tile's start). A launch with no
 * cut tile has no fixup: one launched would skip every tile, and with no
 * thread at its wait an overlapped one could end before the main kernel. */
static int tiles_whole(const lutmm_cuda_gemm_params *p) {
  return p->iters == 1 || (p->units / p->iters) % p->grid == 0;
}

/* Warps per skinny block for X rows in `mb` m8 blocks on this device. */
static int skinny_warps(const lutmm_cuda_state *s, const lutmm_weights *w, int mb, const lutmm_cuda_gemm_params *p) {
  return lutmm_skinny_warps_for(mb, w->params.bits, p->atom_one_group, w->geom.n_atoms * w->geom.k_atoms,
                                s->sm_count, s->smem_base, s->smem_per_block);
}

/* The column stream's grid: lutmm_column_grid, or n blocks where
 * LUTMM_CUDA_COLUMN_GRID=n (at most one an SM and one a unit), to measure
 * grids against the rule. */
static int64_t column_grid(const lutmm_cuda_state *s, int64_t units, int64_t iters) {
  if (s->column_grid <= 0) return lutmm_column_grid(units, iters, s->sm_count);
  const int64_t most = s->column_grid < s->sm_count ? s->column_grid : s->sm_count;
  return units < most ? units : most;
}

/* M = 1..4 as the column-stream kernel (column_kernel.cuh): units column
 * after column, a block's range one run of the packed planes, about one
 * block an SM (column_grid), X whole or carried in the ring (any K); a cut
 * column's first block adds the others' tagged parts at the end of its
 * range, so only where tags can be used: a cooperative grid the SMs hold,
 * not in a graph (docs/HEURISTICS.md). The kernel reads none of the skinny
 * plan's tile, workspace or ticket fields. */
static int plan_column_stream(const lutmm_cuda_state *s, const lutmm_weights *w, int64_t m, int cooperative,
                              int capturing, lutmm_cuda_gemm_params *p) {
  const lutmm_geometry *g = &w->geom;
  const int bits = w->params.bits, warps = lutmm_skinny_warps(1, bits);
  const int rows = lutmm_column_rows(m, g->k_atoms, warps);
  const int64_t iters = (g->k_atoms + 1) / 2, units = g->n_atoms * iters;
  const int64_t grid = column_grid(s, units, iters);
  if (m > LUTMM_COLUMN_MAX_ROWS || !s->column_stream || !LUTMM_COLUMN_KERNEL_EXISTS(bits, p->atom_one_group, rows) ||
      !cooperative || !s->cooperative || units > INT32_MAX ||
      m * w->params.k * 2 > INT32_MAX ||
      (s->column_stream == 1 &&
       !lutmm_column_stream_pays(bits, p->atom_one_group, g->n_atoms, g->k_atoms, s->sm_count, m)) ||
      lutmm_column_smem_bytes(s->smem_base, bits, p->atom_one_group, rows, warps) > s->smem_per_block ||
      (size_t)grid * (size_t)rows * 64 > s->tagged_words || capturing)
    return 0;
  p->mb = 1;
  p->warps = warps;
  p->iters = iters;
  p->units = units;
  p->grid = (int)grid;
  p->cluster_ways = 0;
  p->cluster_groups = 0;
  p->shares_reduction = 0;
  p->tags_head = 0;
  p->tagged = s->tagged;
  p->cooperative = 1;
  p->column_stream = 1;
  return 1;
}

/* The skinny kernel (one launch per `m` <= 64 rows, every code width): X
 * in m8 blocks, one tile of W atom columns per unit row, two k-atoms per
 * unit, a Stream-K grid of lutmm_skinny_grid blocks, or (where `clusters`
 * allows) each tile's blocks in clusters that add its cut columns
 * (lutmm_skinny_cluster_plan). Where `cooperative` allows, cut columns may
 * take the paths whose blocks wait for each other (shared reduction, tags,
 * HEAD). */
void lutmm_cuda_plan_skinny(const lutmm_cuda_state *s, const lutmm_weights *w, int64_t m, int clusters,
                            int cooperative, int capturing, lutmm_cuda_gemm_params *p) {
  const lutmm_geometry *g = &w->geom;
  p->column_stream = 0;
  if (plan_column_stream(s, w, m, cooperative, capturing, p)) return;
  p->mb = lutmm_skinny_mb(m);
  const int warps = skinny_warps(s, w, p->mb, p);
  p->warps = warps;
  p->tile_m = 8 * p->mb;
  p->tile_n = 64 * warps;
  p->m_tiles = 1;
  p->n_tiles = (g->n_atoms + warps - 1) / warps;
  p->iters = (g->k_atoms + 1) / 2;
  p->units = p->n_tiles * p->iters;
  p->grid =
      (int)lutmm_skinny_grid(m, p->atom_one_group, p->iters, p->n_tiles, s->sm_count, workspace_blocks(s, p));
  p->workspace = s->workspace;
  p->tickets = s->tickets;
  p->shares_reduction = 0;
  p->tagged = NULL;
  p->tags_head = 0;
  p->cooperative = 0;
  /* Cut columns added by clusters (and, with several a tile, their sums
   * by tickets in the workspace's partial slots). */
  const lutmm_skinny_clusters plan =
      lutmm_skinny_cluster_plan(p->mb, w->params.bits, p->atom_one_group != 0, m, p->iters, p->n_tiles, p->tile_n,
                                p->grid, s->skinny_clusters, clusters ? s->skinny_cluster_groups : 0,
                                2 * workspace_blocks(s, p));
  p->cluster_ways = plan.ways;
  p->cluster_groups = plan.groups;
  if (p->cluster_ways) {
    p->grid = (int)(p->n_tiles * p->cluster_groups * p->cluster_ways);
    return;
  }
  /* Cooperative paths only on a grid the SMs hold: never the small
   * workspace's one block a tile past them. */
  const int resident = cooperative && s->cooperative && p->grid <= s->sm_count;
  p->shares_reduction = resident && lutmm_skinny_reduces_together(p->mb, m, p->iters, p->grid, p->units);
  /* M <= 4 and at most 8 partials a column: never a shared reduction
   * (12 or more partials at M <= 4, 8 or more only at M = 5..8).
   * Not in a graph: a replay would reuse the captured tag. */
  const int tags = resident && lutmm_skinny_tags_partials(p->mb, m, p->iters, p->grid, p->units) &&
                   (size_t)2 * (size_t)p->grid * LUTMM_SKINNY_TAGGED_ROWS * (size_t)p->tile_n <= s->tagged_words &&
                   !capturing;
  /* M = 5..16 over ticket-counted columns (never with tags, M <= 4): the
   * HEAD kernel, one tagged slot of the tile's rows a block. */
  const int head = resident &&
                   lutmm_skinny_tags_head(p->mb, p->bits, p->atom_one_group, m, p->iters, p->grid, p->units,
                                          p->shares_reduction) &&
                   (size_t)p->grid * (size_t)p->tile_m * (size_t)p->tile_n <= s->tagged_words && !capturing;
  p->tagged = tags || head ? s->tagged : NULL;
  p->tags_head = head;
  p->cooperative = p->shares_reduction || p->tagged != NULL;
}

/* Rows of X per skinny launch: 64 with one-row scales, else 32 (fewer
 * when M is smaller). */
int64_t lutmm_cuda_skinny_rows(const lutmm_gemm_args *a, const lutmm_cuda_gemm_params *p) {
  const int64_t most = 8 * lutmm_skinny_max_mb(p->atom_one_group);
  return a->m < most ? a->m : most;
}

/* Whether one skinny launch per skinny_rows rows beats the tiled kernel:
 * always for up to two launches; for up to four only with one-row scales
 * and weights of at least 2^25 elements. Measured on the H200 at NF4
 * (docs/PERF.md, change 22): two launches 1.0-2.6x faster than the tiled
 * kernel on every shape; four 64-row launches 1.6-1.8x faster on 8192 x
 * 28672 and 28672 x 8192 but 0.64-0.83x on 4096 x 4096 and 8192 x 1024;
 * four 32-row launches (per-slab scales) 0.82-0.98x everywhere. */
static int skinny_pays(const lutmm_weights *w, const lutmm_gemm_args *a, const lutmm_cuda_gemm_params *p) {
  const int64_t rows = lutmm_cuda_skinny_rows(a, p), launches = (a->m + rows - 1) / rows;
  return launches <= 2 ||
         (launches <= 4 && p->atom_one_group && w->params.k * w->params.n >= ((int64_t)1 << 25));
}

/* Whether the skinny launch of `m` rows fits its kernel's limits: the
 * block's shared memory, and units and atoms numbered in 32 bits (padded
 * tiles included; no weights that fit a GPU come near that). */
static int skinny_launch_fits(const lutmm_cuda_state *s, const lutmm_weights *w, int64_t m,
                              const lutmm_cuda_gemm_params *p) {
  const int mb = lutmm_skinny_mb(m), warps = skinny_warps(s, w, mb, p);
  const int64_t columns = (w->geom.n_atoms + warps - 1) / warps * warps;
  return lutmm_skinny_smem_bytes(s->smem_base, w->params.bits, mb, p->atom_one_group, warps) <= s->smem_per_block &&
         columns * (w->geom.k_atoms + 1) < ((int64_t)1 << 31);
}

/* Where the skinny kernel pays and every launch of the call fits: the
 * full ones and the last, smaller one, whose kernel of fewer m8 blocks
 * has more warps and so needs more shared memory (all fit Hopper's 227
 * KiB; on an A100's 163 KiB a 64-row launch of narrow codes fits but a
 * 1-row one does not: the tiled kernel takes such calls whole). Scales
 * are addressed with 32-bit byte offsets, and per-slab scale entries hold
 * two fp32 rows, so fp32 scales in groups of 16 (four rows an atom) take
 * the tiled kernel too. */
static int use_skinny(const lutmm_cuda_state *s, const lutmm_weights *w, const lutmm_gemm_args *a,
                      const lutmm_cuda_gemm_params *p) {
  const int64_t rows = lutmm_cuda_skinny_rows(a, p), last = a->m % rows;
  return skinny_pays(w, a, p) &&
         lutmm_skinny_scales_fit(p->atom_one_group, (int)lutmm_dtype_size(w->params.scale_dtype),
                                 w->geom.group_size) &&
         skinny_launch_fits(s, w, rows, p) && (last == 0 || skinny_launch_fits(s, w, last, p)) &&
         w->geom.scale_rows * w->geom.n_pad * 4 < ((int64_t)1 << 31);
}

/* Whether the wide kernel takes M = 17..32 rows, where the skinny kernel
 * otherwise does: where it measured faster on the H200, with its tiles as
 * at M = 33..64 and, for codes of up to 4 bits, MMAs over X's first 32
 * rows (lutmm_wide_mma_rows). The figures are in docs/HEURISTICS.md
 * ("M = 17..32") and docs/PERF.md (changes 104, 105, 113 and 115).
 * - W of at most 1024 columns, every code width: there the skinny
 *   launch holds only 32-64 blocks.
 * - 1-bit codes everywhere (0.75-0.92x the skinny time).
 * - W of 1025..4096 columns (128-row tiles): codes of 2 and 3 bits from
 *   M = 17, of 4 bits from M = 24 (at M = 17..23 they tie or lose).
 * - Wider W (64-row tiles): codes of 4 bits; codes of 2 and 3 bits with
 *   per-slab scales, or where the 64-row tiles give at most 32 units a
 *   multiprocessor. On the two largest shapes (54 units) one-row 2-bit
 *   codes tied (0.94-1.04x) and 3-bit ones lost (1.06-1.15x).
 * Codes of 5..8 bits keep the skinny kernel on wider W: they have no
 * 32-row MMAs, and took 0.97-1.5x the skinny time on 8192 x 8192 and
 * 8192 x 28672. */
static int wide_takes_few_rows(const lutmm_cuda_state *s, const lutmm_cuda_gemm_params *p) {
  const int64_t m = p->m, n = p->n, tile_atoms = lutmm_wide_tile_n(64) / 64;
  if (m < 17) return 0;
  if (n <= 1024 || p->bits == 1) return 1;
  if (p->bits > 4) return 0;
  if (n <= 4096) return p->bits != 4 || m >= 24;
  const int64_t units = (p->n_atoms + tile_atoms - 1) / tile_atoms * p->k_atoms; /* of 64-row tiles */
  return p->bits == 4 || !p->atom_one_group || units <= 32 * (int64_t)s->sm_count;
}

/* The wide kernel (Hopper wgmma), where the device runs its sm_90a code,
 * above 32 rows of X (and at 17..32 where wide_takes_few_rows): tiles of
 * 256 rows above M = 128 (each weight dequantized once for twice the
 * rows), 128 rows above 64, and up to M = 64 by the width of W
 * (docs/HEURISTICS.md; measured at M = 33..64):
 * - at most 4096 columns: 128-row tiles. There the skinny kernel's 64-row
 *   launch ran 1.25-1.75x their time (NF4, 4096 x 4096, 8192 x 1024,
 *   14336 x 4096; codes of 5..8 bits 1.2-1.8x), while 64-row tiles, 1 to 8
 *   tiles of 512 columns, ran 1.1-1.4x it.
 * - wider: 64-row tiles, 0.65-0.95x the skinny launch's time (8192 x
 *   28672, 28672 x 8192, 8192 x 8192, 4096 x 14336, codes of 2..4 bits,
 *   groups of 32 to 128; 3-bit codes with groups of 64 and up on 8192 x
 *   28672 and 4096 x 14336 up to 8 % slower); for codes of 5..8 bits
 *   0.77-1.07x (median 0.91; 8192 x 28672 0.93-1.07x) with one-row
 *   scales, and with per-slab scales 0.80-1.02x (median 0.87) the time of
 *   the 128-row tiles, which they took before (their skinny launches cost
 *   more still). */
static int wide_tile_m(const lutmm_cuda_state *s, const lutmm_weights *w, const lutmm_gemm_args *a,
                       const lutmm_cuda_gemm_params *p) {
  if (!s->wide) return 0;
  if (s->wide_from_m > 0 ? a->m < s->wide_from_m : a->m <= 32 && !wide_takes_few_rows(s, p)) return 0;
  if (a->m > 128) return 256;
  return a->m > 64 || w->params.n <= 4096 ? 128 : 64;
}

/* As many stages as fit, at most LUTMM_WIDE_MAX_STAGES (or the measurement
 * cap, wide_stages_cap); none (no wide kernel) below four: two units in
 * flight ahead of the one computed and the one whose MMAs may still read X. */
static int wide_stages(const lutmm_cuda_state *s, int bits, int tile_m) {
  if (s->smem_per_block < lutmm_wide_smem_bytes(bits, tile_m, 4)) return 0;
  const size_t room = s->smem_per_block - lutmm_wide_smem_bytes(bits, tile_m, 0);
  const size_t most = s->wide_stages_cap > 0 ? (size_t)s->wide_stages_cap : LUTMM_WIDE_MAX_STAGES;
  const size_t stages = room / lutmm_wide_stage_bytes(bits, tile_m);
  return (int)(stages > most ? most : stages);
}


/* The wide launch (wide_kernel.cuh): one block per multiprocessor over
 * (m-tile, n-tile, k-atom) units, m fastest, split as the tiled kernel's
 * (pick_grid), then the ordered fixup when a tile is cut; or one block per
 * tile where that is one wave and costs less than the cuts
 * (lutmm_wide_whole_tiles), or each tile cut evenly where that keeps
 * nearly every block (lutmm_wide_even_grid), its parts added by a cluster
 * of their blocks where one fits (lutmm_wide_cluster_ways) rather than by
 * the fixup, or halved where a cluster adds the halves and that beats the
 * split even on fewer blocks (lutmm_wide_halved_grid). Without `clusters`
 * an even split keeps its grid (the fixup adds its parts) and halved
 * tiles, which only clusters pay for, take the Stream-K grid. Either grid
 * is at most pick_grid's, whose partial slots the workspace holds. */
size_t lutmm_cuda_plan_wide(const lutmm_cuda_state *s, const lutmm_weights *w, const lutmm_gemm_args *a,
                            lutmm_cuda_choice c, int clusters, lutmm_cuda_gemm_params *p) {
  const lutmm_geometry *g = &w->geom;
  const int tile_m = c.tile_m, tile_atoms = lutmm_wide_tile_n(tile_m) / 64;
  p->tile_m = tile_m;
  p->tile_n = lutmm_wide_tile_n(tile_m);
  p->acc_order = 1;
  p->m_tiles = (a->m + tile_m - 1) / tile_m;
  p->n_tiles = (g->n_atoms + tile_atoms - 1) / tile_atoms;
  p->iters = g->k_atoms;
  p->units = p->m_tiles * p->n_tiles * p->iters;
  p->cluster_ways = 0;
  gemm_plan plan = {0, c.stages, 1, 0, lutmm_wide_smem_bytes(w->params.bits, tile_m, c.stages)};
  /* A workspace lent below one block an SM keeps the tiled kernel's 8
   * parts: the grid 32 parts a tile ask for would not fit it, and
   * pick_grid would fall back to one block a tile (8192 x 1024 at M = 128
   * in 16 MiB: 4 blocks, where 8 parts give 32). */
  const int64_t most = workspace_blocks(s, p) >= s->sm_count ? LUTMM_WIDE_MAX_WAYS : LUTMM_TILED_MAX_PARTS;
  pick_grid(s, p, &plan, s->wide_max_parts > 0 && s->wide_max_parts < most ? s->wide_max_parts : most);
  const int64_t tiles = p->m_tiles * p->n_tiles, even = lutmm_wide_even_grid(tiles, p->grid);
  const int64_t halved = even > 0 ? 0 : lutmm_wide_halved_grid(tiles, p->iters, p->units, p->grid);
  const int64_t ways = even > 0 ? even / tiles : 2;
  const size_t stage_bytes_all = (size_t)c.stages * lutmm_wide_stage_bytes(w->params.bits, tile_m);
  const int cluster = clusters && ways <= LUTMM_WIDE_MAX_CLUSTER &&
                      lutmm_wide_cluster_ways(tiles, ways, p->iters, s->wide_clusters[ways], tile_m, stage_bytes_all);
  if (lutmm_wide_whole_tiles(tiles, p->iters, p->units, p->grid, s->sm_count)) p->grid = (int)tiles;
  else if (even > 0 || (halved > 0 && cluster)) {
    p->grid = (int)(ways * tiles);
    p->cluster_ways = cluster ? (int)ways : 0;
  }
  p->mma_rows = s->wide_full_mma ? tile_m : lutmm_wide_mma_rows(tile_m, a->m, w->params.bits, p->cluster_ways);
  return plan.smem;
}

size_t lutmm_cuda_plan_tiled(const lutmm_cuda_state *s, const lutmm_weights *w, const lutmm_gemm_args *a,
                             lutmm_cuda_gemm_params *p) {
  /* The tiled kernel keeps 1..4-bit codes only at MF = 4 (gemm_launch.cuh). */
  gemm_plan plan = {w->params.bits <= 4 ? 4 : pick_mf(a->m), 0, 0, 0, 0};
  pick_stages(s, w->params.bits, &plan);
  fill_tiles(w, a, plan.mf, p);
  pick_grid(s, p, &plan, LUTMM_TILED_MAX_PARTS);
  return plan.smem;
}

int lutmm_cuda_needs_fixup(const lutmm_cuda_gemm_params *p) { return !tiles_whole(p) && !p->cluster_ways; }

/* The fixup overlaps the wide kernel's end where its blocks have room:
 * - where a tile has at most 8 parts. With 16 and 32 parts a tile
 *   (8192 x 1024 at M = 64..256) the overlap ran 14-40 % slower on the
 *   H200; with 4 to 8 parts it gained 0.5-6.4 % (docs/PERF.md change 103).
 * - where the SMs the wide grid leaves idle hold all the fixup's blocks.
 *   A wide block holds an SM's registers, so an early fixup block sits
 *   on an idle SM or on one a wide block has left. On W of 256 and 512
 *   columns (one or two tiles cut 16 or 32 ways: 32 or 64 wide blocks,
 *   32 or 64 fixup blocks) overlapping took 0.87-0.94 of the time at
 *   M = 17..256; where they did not fit, 4096 x 512 at M = 256 (four
 *   tiles, 128 blocks) took 1.41, and the four-tile shapes at M = 17..64
 *   1.16-1.51 (PERF.md changes 106 and 107). */
#define FIXUP_OVERLAP_MAX_PARTS 8

int lutmm_cuda_fixup_overlaps(const lutmm_cuda_state *s, const lutmm_cuda_gemm_params *p) {
  if (!s->wide || !s->fixup_overlap || !lutmm_cuda_needs_fixup(p)) return 0;
  const int64_t tiles = p->m_tiles * p->n_tiles;
  const int64_t fixup_blocks = tiles * lutmm_fixup_chunks(p->tile_m, p->tile_n);
  return s->fixup_overlap == 2 || p->grid <= FIXUP_OVERLAP_MAX_PARTS * tiles ||
         p->grid + fixup_blocks <= s->sm_count;
}

/* The wide kernel where it runs and its stages fit, else the skinny kernel
 * where it pays and fits, else the tiled kernel. */
lutmm_cuda_choice lutmm_cuda_choose_kernel(const lutmm_cuda_state *s, const lutmm_weights *w,
                                           const lutmm_gemm_args *a, const lutmm_cuda_gemm_params *p) {
  lutmm_cuda_choice c = {LUTMM_CUDA_KERNEL_TILED, wide_tile_m(s, w, a, p), 0};
  c.stages = c.tile_m > 0 ? wide_stages(s, w->params.bits, c.tile_m) : 0;
  if (c.stages > 0) c.kernel = LUTMM_CUDA_KERNEL_WIDE;
  else if (use_skinny(s, w, a, p)) c.kernel = LUTMM_CUDA_KERNEL_SKINNY;
  if (c.kernel != LUTMM_CUDA_KERNEL_WIDE) c.tile_m = c.stages = 0;
  return c;
}
