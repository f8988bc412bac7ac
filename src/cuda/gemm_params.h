/* What one GEMM launch needs, shared by the host planner (C) and the kernels
 * (CUDA): the kernel parameter block and the shared-memory budget of each
 * tile configuration. docs/HEURISTICS.md explains the configurations.
 *
 * A configuration is MF m16 fragments per warp; the block's 4 warps form an
 * NWN × NWK grid (NWN = MF, NWK = 4 / MF), each warp owning one 64×64
 * weight atom per k-iteration. So a block tile is 16·MF rows by 64·NWN
 * columns and one k-iteration spans 64·NWK rows of W. */
#ifndef LUTMM_CUDA_GEMM_PARAMS_H
#define LUTMM_CUDA_GEMM_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "portable.h"

#define LUTMM_CUDA_THREADS 128
#define LUTMM_CUDA_PAIR_COPIES 16 /* lanes L and L+16 share a copy: half the table, at most 2-way conflicts */

/* A TMA tensor map: the driver's CUtensorMap (128 opaque bytes, 128-byte
 * aligned), opaque here so that C code without cuda.h can hold one
 * (cuda_tensor_map.c fills it). */
#ifdef __cplusplus
#define LUTMM_ALIGN_128 alignas(128)
#else
#define LUTMM_ALIGN_128 _Alignas(128)
#endif
typedef struct lutmm_tensor_map {
  LUTMM_ALIGN_128 uint64_t opaque[16];
} lutmm_tensor_map;

typedef struct lutmm_cuda_gemm_params {
  const uint8_t *planes;
  uint64_t plane_offset[3];
  int bits, slices, width[3], shift[3];
  const void *scales;
  int scale_dtype; /* lutmm_dtype */
  int64_t n_pad, group_size, scale_rows, k_atoms, n_atoms;
  int group_log2; /* log2(group_size) when it is a power of two, else -1 */
  int atom_one_group; /* every 64-row atom lies in one group (group_size % 64 == 0 or one group) */
  int atom_group_log2; /* log2(atoms per group) when that is a power of two, 31 for one group, else -1 */
  uint32_t atom_group_mask; /* 2^atom_group_log2 − 1, or 0 when atom_group_log2 < 0 */
  int atom_scale_rows; /* most scale rows a 64-row atom spans (lutmm_skinny_scale_rows_max; 1 for one group) */
  const void *x;
  int x_vector; /* X rows start on 16-byte boundaries: cp.async path */
  int x_tma;    /* wide kernel: X arrives through x_map (TMA), else by the producer's stores */
  int64_t m, k, n;
  void *y;
  int y_dtype;
  float *workspace;
  int64_t m_tiles, n_tiles, iters, units;
  int grid, stages, mf;
  int tile_m, tile_n; /* a partial tile in the workspace: tile_m × tile_n fp32 */
  int acc_order;      /* wide kernel: partial tiles in accumulator order (lutmm_wide_partial_site), else row-major */
  int cluster_ways;   /* blocks of a cluster that add one tile's even parts in shared memory, 0 for none:
                       * wide kernel lutmm_wide_cluster_ways (else the fixup adds them), skinny kernel
                       * lutmm_skinny_cluster_plan (else tickets or tags) */
  int cluster_groups; /* skinny kernel with clusters: clusters a tile (more than one: their sums meet by tickets) */
  int mb;             /* skinny kernel: X rows held, in m8 blocks (1, 2, 4, 8); 0 = tiled kernel */
  int warps;          /* skinny kernel: warps per block (lutmm_skinny_warps_for) */
  int *tickets;       /* skinny kernel: per cut tile column, partials written so far (zero at the start and end) */
  int cooperative;    /* skinny kernel: launched cooperatively (every block resident), so a cut column's
                         finishing contributors can wait for each other */
  int shares_reduction; /* skinny kernel, cooperative: a cut column's finishing contributors each add a share */
  uint64_t *tagged;   /* skinny kernel, tag != 0: partials as {tag, fp32} words (lutmm_skinny_tags_partials,
                         lutmm_skinny_tags_head) */
  int tags_head;      /* skinny kernel (host: picks the HEAD kernel), tag != 0: only a cut column's mid-stream
                         contributor publishes tagged words, the others count tickets (lutmm_skinny_tags_head) */
  uint32_t tag;       /* skinny kernel, cooperative: this launch's tag, or 0 for ticket-counted fp32 partials */
  float table[256];
  lutmm_tensor_map x_map; /* wide kernel, when x_tma: X as 64 k × tile_m row boxes, 128-byte swizzle */
  int column_stream;  /* skinny kernel (host: picks column_kernel): M <= 4, units column after column,
                         cut columns by tagged parts (plan_column_stream) */
  int mma_rows;       /* wide kernel (host: picks the kernel): rows of X each MMA multiplies, tile_m or 32
                         (lutmm_wide_mma_rows) */
} lutmm_cuda_gemm_params;

LUTMM_HD static inline int lutmm_cuda_nwn(int mf) { return mf; }
LUTMM_HD static inline int lutmm_cuda_nwk(int mf) { return 4 / mf; }
LUTMM_HD static inline int lutmm_cuda_block_m(int mf) { return 16 * mf; }
LUTMM_HD static inline int lutmm_cuda_block_n(int mf) { return 64 * mf; }
LUTMM_HD static inline int lutmm_cuda_k_span(int mf) { return 64 * (4 / mf); }

/* Pair table (bits <= 4): 2^(2b) half2 entries × 16 copies (lane L reads
 * copy L mod 16); wider codes use a plain 256-entry compute-dtype table. */
LUTMM_HD static inline size_t lutmm_cuda_table_bytes(int bits) {
  return bits <= 4 ? ((size_t)4 << (2 * bits)) * LUTMM_CUDA_PAIR_COPIES : 512;
}

/* One pipeline stage: 4 atoms of every plane, the X tile, 4·NWK scale rows. */
LUTMM_HD static inline size_t lutmm_cuda_stage_weight_bytes(int bits) { return (size_t)2048 * (size_t)bits; }
#define LUTMM_CUDA_STAGE_X_BYTES 8192     /* 16·MF rows × 64·NWK columns × 2 bytes */
#define LUTMM_CUDA_STAGE_SCALE_BYTES 4096 /* 4·NWK rows × 64·NWN columns × 4 bytes */
LUTMM_HD static inline size_t lutmm_cuda_stage_bytes(int bits) {
  return lutmm_cuda_stage_weight_bytes(bits) + LUTMM_CUDA_STAGE_X_BYTES + LUTMM_CUDA_STAGE_SCALE_BYTES;
}

/* Cross-warp k reduction: NWK − 1 warps park their accumulators. */
LUTMM_HD static inline size_t lutmm_cuda_reduce_bytes(int mf) {
  return (size_t)(lutmm_cuda_nwk(mf) - 1) * (size_t)lutmm_cuda_nwn(mf) * (size_t)lutmm_cuda_block_m(mf) * 64u * 4u;
}

LUTMM_HD static inline size_t lutmm_cuda_smem_bytes(int bits, int mf, int stages) {
  return lutmm_cuda_table_bytes(bits) + (size_t)stages * lutmm_cuda_stage_bytes(bits) + lutmm_cuda_reduce_bytes(mf);
}

/* Fp32 elements of one partial tile in the workspace. */
LUTMM_HD static inline size_t lutmm_cuda_tile_elems(int mf) {
  return (size_t)lutmm_cuda_block_m(mf) * (size_t)lutmm_cuda_block_n(mf);
}

/* floor(a / d) for 0 <= a < 2^62, d > 0, without a 64-bit integer division
 * (a long subroutine on the GPU). Where both fit in 32 bits (every launch
 * of the shapes measured: b · units stays below 2^32) one unsigned 32-bit
 * division, about 15 instructions; else the double quotient, within one of
 * the exact one for the sizes used here, and integer checks that make it
 * exact whatever it is off by (about 45 instructions with the double
 * division's steps). Every thread of a kernel's set-up takes two of these
 * (its block's range), and the ends of cut columns take more. */
LUTMM_HD static inline int64_t lutmm_cuda_floor_div(int64_t a, int64_t d) {
  if (((a | d) >> 32) == 0) return (int64_t)((uint32_t)a / (uint32_t)d);
  int64_t q = (int64_t)((double)a / (double)d);
  while (q * d > a) q--;
  while ((q + 1) * d <= a) q++;
  return q;
}

/* Stream-K: block b owns units [b·units/grid, (b+1)·units/grid). */
LUTMM_HD static inline int64_t lutmm_cuda_range_start(int64_t units, int grid, int64_t b) {
  return lutmm_cuda_floor_div(b * units, grid);
}

/* a / b for non-negative values, in 32 bits when both fit (the common case). */
LUTMM_HD static inline int64_t lutmm_cuda_div_small(int64_t a, int64_t b) {
  if (((a | b) >> 31) == 0) return (int64_t)((uint32_t)a / (uint32_t)b);
  return a / b;
}

/* Group of K-row x: a shift for power-of-two groups (the usual case). */
LUTMM_HD static inline int64_t lutmm_cuda_group_of(const lutmm_cuda_gemm_params *p, int64_t x) {
  return p->group_log2 >= 0 ? x >> p->group_log2 : lutmm_cuda_div_small(x, p->group_size);
}

/* The block whose unit range holds unit u (0 <= u < units): the largest b
 * with floor(b·units/grid) <= u, that is b·units <= (u + 1)·grid − 1. */
LUTMM_HD static inline int64_t lutmm_cuda_block_of_unit(int64_t units, int grid, int64_t u) {
  return lutmm_cuda_floor_div((u + 1) * grid - 1, units);
}

/* The Stream-K fixup (gemm_fixup.cu): block (tile, c) adds elements
 * 1024c .. 1024c + 1023 of a cut tile, four a thread, so a launch is
 * `tiles` × this many blocks (32 for every wide tile). */
#define LUTMM_FIXUP_THREADS 256
LUTMM_HD static inline int lutmm_fixup_chunks(int tile_m, int tile_n) {
  return (tile_m * tile_n / 4 + LUTMM_FIXUP_THREADS - 1) / LUTMM_FIXUP_THREADS;
}

/* ---- The wide kernel (Hopper wgmma, M > 32 and some M = 17..32):
 * docs/HEURISTICS.md. Two warpgroups of four MMA warps and a producer
 * warpgroup (one warp of it copies); a tile is tile_m X rows (64, 128 or
 * 256, wgmma's N, or 32 of them: lutmm_wide_mma_rows) ×
 * LUTMM_WIDE_TILE_ELEMS / tile_m W columns, so each MMA warpgroup owns
 * four atom columns of a 64-row tile, two of a 128-row tile
 * or one of a 256-row tile; a unit is one k-atom of a tile. A stage holds
 * the unit's X (rows of 64 k, 128 bytes, in the 128-byte swizzle of TMA and
 * wgmma), its atoms and up to four scale rows; shared memory starts with
 * two barriers per stage, then the pair table. */
#define LUTMM_WIDE_THREADS 384
#define LUTMM_WIDE_TILE_ELEMS 32768
#define LUTMM_WIDE_MAX_STAGES 8
#define LUTMM_WIDE_BARRIER_BYTES (2 * LUTMM_WIDE_MAX_STAGES * 8)

LUTMM_HD static inline int lutmm_wide_tile_n(int tile_m) { return LUTMM_WIDE_TILE_ELEMS / tile_m; }

/* The rows of X each wide MMA multiplies (wgmma's N): 32 where X has at
 * most 32 rows, in 64- and 128-row tiles whose parts no cluster adds, for
 * codes of up to LUTMM_WIDE_NARROW_MMA_MAX_BITS bits (the kernels built
 * for it; wider codes take the wide kernel at M = 17..32 only on W of at
 * most 1024 columns); else the tile's rows. A tile's rows past M are
 * zeros, so an MMA over all of them spends two or four times the tensor
 * work M needs. */
#define LUTMM_WIDE_NARROW_MMA_MAX_BITS 4
LUTMM_HD static inline int lutmm_wide_mma_rows(int tile_m, int64_t m, int bits, int cluster_ways) {
  return m <= 32 && tile_m <= 128 && bits <= LUTMM_WIDE_NARROW_MMA_MAX_BITS && cluster_ways < 2 ? 32 : tile_m;
}
LUTMM_HD static inline size_t lutmm_wide_x_bytes(int tile_m) { return (size_t)tile_m * 64 * 2; }
/* Up to four scale rows of tile_n fp32 (the widest scale dtype). */
LUTMM_HD static inline size_t lutmm_wide_scale_bytes(int tile_m) { return (size_t)4 * lutmm_wide_tile_n(tile_m) * 4; }
/* The wide kernel's lookup table: pair entries (codes of up to 4 bits:
 * 2^(2b) of them) or single-code entries (5..8 bits: 2^b), each 32 lane
 * copies of 4 bytes (lane L's copy at +4L), so that no lookup of a warp
 * shares a bank with another. With 16 copies (lanes L and L + 16 on one
 * bank, a lookup two wavefronts) the 1..4-bit kernels ran 1-4 % slower in
 * median on the H100 (docs/PERF.md, change 53). Entries lie 256 bytes
 * apart, the copies in the first 128, so that one PRMT puts an index byte
 * above the lane's 4L and makes the whole offset (wide_kernel.cuh,
 * lookup); 8-bit codes keep 128 bytes, since their 64 KiB table at 256
 * would leave room for three stages of 256-row tiles, not four. */
#define LUTMM_WIDE_TABLE_COPIES 32
LUTMM_HD static inline size_t lutmm_wide_table_entries(int bits) { return (size_t)1 << (bits <= 4 ? 2 * bits : bits); }
#define LUTMM_WIDE_TABLE_ENTRY_LOG2(bits) ((bits) == 8 ? 7 : 8)
LUTMM_HD static inline size_t lutmm_wide_table_bytes(int bits) {
  return lutmm_wide_table_entries(bits) << LUTMM_WIDE_TABLE_ENTRY_LOG2(bits);
}
LUTMM_HD static inline size_t lutmm_wide_stage_bytes(int bits, int tile_m) {
  return lutmm_wide_x_bytes(tile_m) + (size_t)(lutmm_wide_tile_n(tile_m) / 64) * 512u * (size_t)bits +
         lutmm_wide_scale_bytes(tile_m);
}
/* Where accumulator i (0 .. tile_m/2 − 1) of atom column cc of MMA thread t
 * (0..255: warpgroup t/128, n16 block (t/32) % 4, lane t % 32) lies in its
 * tile: X row 8·(i/4) + 2·(lane % 4) + i % 2, W column 64·(warpgroup·COLS +
 * cc) + 16·block + lane/4 + 8·((i % 4)/2), the transposed wgmma D fragment
 * (wide_kernel.cuh). */
LUTMM_HD static inline void lutmm_wide_acc_site(int tile_m, int t, int cc, int i, int *row, int *col) {
  const int cols = lutmm_wide_tile_n(tile_m) / 128, lane = t % 32;
  *row = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
  *col = 64 * ((t / 128) * cols + cc) + 16 * ((t / 32) % 4) + lane / 4 + 8 * ((i % 4) / 2);
}
/* A partial tile of the wide kernel in the workspace is in accumulator
 * order, not row-major: thread t's accumulators 4v .. 4v + 3 of column cc
 * are one 16-byte vector, this one, so a warp's stores of one v cover 512
 * contiguous bytes. */
LUTMM_HD static inline int lutmm_wide_partial_vector(int tile_m, int t, int cc, int v) {
  return (cc * (tile_m / 8) + v) * 256 + t;
}
/* The inverse: element e of a slot is accumulator 4·(vector / 256 mod
 * tile_m/8) + e mod 4 of thread vector mod 256, vector = e / 4. */
LUTMM_HD static inline void lutmm_wide_partial_site(int tile_m, int e, int *row, int *col) {
  const int vector = e / 4, t = vector % 256, per_column = tile_m / 8;
  lutmm_wide_acc_site(tile_m, t, vector / 256 / per_column, 4 * (vector / 256 % per_column) + e % 4, row, col);
}
/* The stages start on a 1024-byte boundary (X's 128-byte swizzle repeats
 * every 8 rows of 128 bytes, and every stage's size is a multiple of it). */
LUTMM_HD static inline size_t lutmm_wide_stages_offset(int bits) {
  return (LUTMM_WIDE_BARRIER_BYTES + lutmm_wide_table_bytes(bits) + 1023) / 1024 * 1024;
}
LUTMM_HD static inline size_t lutmm_wide_smem_bytes(int bits, int tile_m, int stages) {
  return lutmm_wide_stages_offset(bits) + (size_t)stages * lutmm_wide_stage_bytes(bits, tile_m);
}
/* What the cut tiles of a Stream-K launch of the wide kernel cost besides
 * their units (the partials' stores, the fixup's launch and loads), in
 * units: the H100 times of five shapes at M = 128 and 256 put it at 20-42
 * us, at 0.7-0.9 us a unit (docs/HEURISTICS.md). */
#define LUTMM_WIDE_CUT_COST_UNITS 30
/* Tiles of fewer units keep the Stream-K split: the rule below was
 * measured on tiles of 64 to 128 units only. */
#define LUTMM_WIDE_WHOLE_TILE_MIN_UNITS 64
/* Whether the wide kernel runs one block per tile (no partials, no fixup)
 * rather than its Stream-K split of `units` over `grid` blocks: where the
 * tiles fit one wave of `sm_count` blocks and a tile's `iters` units (at
 * least LUTMM_WIDE_WHOLE_TILE_MIN_UNITS) are no more than the split's
 * longest range plus what its cuts cost. On the H100: 4096 x 14336 at M =
 * 256 (112 tiles of 64 units against 55 a block) 76 -> 57 us, 8192 x 28672
 * at M = 128 (112 of 128 against 109) 137 -> 130 us; 8192 x 8192 at M = 256
 * (64 tiles of 128 against 63) ran 71 -> 99 us that way, so it keeps the
 * split. */
LUTMM_HD static inline int lutmm_wide_whole_tiles(int64_t tiles, int64_t iters, int64_t units, int64_t grid,
                                                  int sm_count) {
  const int64_t longest = (units + grid - 1) / grid;
  return tiles <= sm_count && iters >= LUTMM_WIDE_WHOLE_TILE_MIN_UNITS &&
         iters <= longest + LUTMM_WIDE_CUT_COST_UNITS;
}
/* The fewest units a block of a split takes (at least 2) so that no tile
 * of `iters` units is cut into more than about `max_parts` parts: the
 * fixup reads every partial of every element. pick_grid applies it. */
LUTMM_HD static inline int64_t lutmm_split_min_units(int64_t iters, int64_t max_parts) {
  return iters / max_parts > 2 ? iters / max_parts : 2;
}
/* The tiled kernel's most parts a tile: 8 (with ~9 where the Stream-K
 * ranges fall across tiles). */
#define LUTMM_TILED_MAX_PARTS 8
/* Most parts a wide launch cuts a tile into: each block takes at least
 * lutmm_split_min_units(iters, LUTMM_WIDE_MAX_WAYS) units, and the even
 * split takes at most that many ways. The fixup loads a thread's partials
 * four at a time, so 32 parts are eight rounds of loads from L2 (nine where
 * the Stream-K split's ranges leave a tile 33). Until change 102 the wide
 * kernel kept the tiled kernel's 8 (the tiled kernel still does, and so
 * does the wide one in a workspace lent below one block an SM), and
 * launches of 15 tiles or fewer left SMs idle: 8192 x 1024 at M = 128,
 * 4 tiles of 128 units, ran on 32 blocks. */
#define LUTMM_WIDE_MAX_WAYS 32
/* Blocks of an even split of each of `tiles` tiles into `ways`
 * (2..LUTMM_WIDE_MAX_WAYS) of
 * the Stream-K grid's `grid` blocks, where that keeps all but a sixteenth
 * of them; 0 where it would not. Block t·ways + i then holds part i of
 * tile t alone (lutmm_cuda_range_start's boundaries fall on i·iters/ways):
 * one partial a block, where the Stream-K split leaves most blocks two, so
 * a third fewer partial bytes. On the H100 (grids of 128 for 132): 4096 x
 * 4096 M = 256 -6.6 % in median, 14336 x 4096 M = 256 -2.6 %, 8192 x 8192
 * M = 128 and 256 -1.5 %, the rest within 1 %; 112 blocks for 132 (28 or
 * 56 tiles) ran 3-12 % slower, hence the sixteenth. */
LUTMM_HD static inline int64_t lutmm_wide_even_grid(int64_t tiles, int64_t grid) {
  if (tiles < 1 || 2 * tiles > grid) return 0;
  const int64_t ways = grid / tiles > LUTMM_WIDE_MAX_WAYS ? LUTMM_WIDE_MAX_WAYS : grid / tiles;
  return ways * tiles >= grid - grid / 16 ? ways * tiles : 0;
}
/* Blocks of each of `tiles` tiles halved (block 2t + i holds half i of
 * tile t), for launches whose halves a cluster adds
 * (lutmm_wide_cluster_ways), where the even split would take two ways (a
 * third to a half as many tiles as blocks); the planner asks only where
 * lutmm_wide_even_grid gave none, which leaves more than a sixteenth of
 * the grid idle. 0 where halving does not pay: half a tile's units must
 * take no longer than the Stream-K split's longest range plus what its
 * cuts cost. The sixteenth was measured
 * against halves added by the fixup; a cluster's halves need no partial
 * in global memory and no second launch. On the H200 (132 SMs): 4096 x
 * 14336 at M = 96 and 128 (56 tiles of 64 units on 112 blocks, against 28
 * units a block and the cuts) 10-12 % faster for codes of 1..4 bits. */
LUTMM_HD static inline int64_t lutmm_wide_halved_grid(int64_t tiles, int64_t iters, int64_t units, int64_t grid) {
  const int64_t longest = (units + grid - 1) / grid;
  return tiles >= 1 && 3 * tiles > grid && 2 * tiles <= grid &&
                 (iters + 1) / 2 <= longest + LUTMM_WIDE_CUT_COST_UNITS
             ? 2 * tiles
             : 0;
}
/* Most blocks of a cluster that adds a tile's parts: two. On the H100
 * (docs/PERF.md, change 49) halved tiles ran 9-15 % faster so on 8192 x
 * 8192 at M = 256 and 5-6 % on 28672 x 8192 (NF4 there: -0.1 to -0.7 %),
 * four-way splits -1 to +2 % (4096 x 4096 and 14336 x 4096 at M = 256,
 * 8192 x 8192 at M = 128), eight-way ones 3-7 % slower (8192 x 1024 at
 * M = 128 and 256): each block loads its share of the tile from every
 * block, so the loads per output grow with the ways. */
#define LUTMM_WIDE_MAX_CLUSTER 2
/* The row-major fp32 tile a block of a cluster writes into its stages:
 * rows of tile_n + 4 floats (wide_kernel.cuh, put_part_in_stages). */
LUTMM_HD static inline size_t lutmm_wide_cluster_tile_bytes(int tile_m) {
  return (size_t)tile_m * (size_t)(lutmm_wide_tile_n(tile_m) + 4) * sizeof(float);
}
/* Whether the `ways` parts of each of `tiles` evenly split tiles (block
 * t·ways + i holds part i of tile t: lutmm_wide_even_grid, or
 * lutmm_wide_halved_grid's halves) are added by a
 * cluster of those blocks in their shared memory rather than by the
 * fixup: for tiles of 128 or 256 rows (the kernels built for it; either
 * scale layout), where every part holds a unit (iters >= ways), the
 * stages hold the tile (lutmm_wide_cluster_tile_bytes) and all tiles'
 * clusters run at once (`fit`: clusters of `ways` blocks the device holds
 * together). Then no partial goes through global memory and no second
 * kernel waits for the first one's end (docs/HEURISTICS.md). */
LUTMM_HD static inline int lutmm_wide_cluster_ways(int64_t tiles, int64_t ways, int64_t iters, int64_t fit, int tile_m,
                                                   size_t stage_bytes_all) {
  return tile_m >= 128 && ways >= 2 && ways <= LUTMM_WIDE_MAX_CLUSTER && iters >= ways && tiles <= fit &&
         stage_bytes_all >= lutmm_wide_cluster_tile_bytes(tile_m);
}

/* ---- The skinny kernel (M <= 64 per launch, codes of 1..8 bits): docs/HEURISTICS.md.
 * Each warp streams one 64-column atom column through its own ring of
 * shared-memory atom slots (filled by cp.async RING atoms ahead of the one
 * it computes); a block of W warps shares its X chunks and its lookup table. */
#define LUTMM_SKINNY_X_ROW_BYTES 144 /* 64 fp16 + 16 bytes of padding: conflict-free ldmatrix */

/* X rows a launch holds, in m8 blocks: 1, 2, 4 or 8 for M <= 8, 16, 32, 64.
 * 64 rows only with one-row scales (per-slab ones would spill); larger M
 * runs one launch per 64 (32) rows. */
LUTMM_HD static inline int lutmm_skinny_max_mb(int one_row) { return one_row ? 8 : 4; }
LUTMM_HD static inline int lutmm_skinny_mb(int64_t m) { return m <= 8 ? 1 : m <= 16 ? 2 : m <= 32 ? 4 : 8; }
/* As many warps as 64K registers allow at the accumulators' size: 16 for
 * M <= 8, 12 for M <= 16, 8 for M <= 32 and 64 (at 64 rows 8 warps still
 * give each thread 255 registers for its 128 accumulators); 7- and 8-bit
 * codes take 12 at M <= 8, so that their larger atoms still get a ring of
 * two (docs/HEURISTICS.md). A macro, so that kernels use it as a
 * constant. */
#define LUTMM_SKINNY_WARPS(mb, bits) ((mb) == 1 ? ((bits) >= 7 ? 12 : 16) : (mb) == 2 ? 12 : 8)
LUTMM_HD static inline int lutmm_skinny_warps(int mb, int bits) { return LUTMM_SKINNY_WARPS(mb, bits); }

/* M = 17..32 with one-row scales and codes of 2..4 bits also has a 12-warp
 * kernel: its 64 accumulators then fit 168 registers without spills (1-bit
 * codes and per-slab scales spill). Three warps per scheduler hide more of
 * the lookup and MMA latency than two, which pays when every warp streams
 * many atoms; where the grid is short of work, the same atoms spread over
 * 1.5x the warps only run slower per warp (docs/HEURISTICS.md). */
#define LUTMM_SKINNY_MORE_WARPS 12
#define LUTMM_SKINNY_HAS_MORE_WARPS(mb, bits, one_row) ((mb) == 4 && (bits) >= 2 && (bits) <= 4 && (one_row))
LUTMM_HD static inline int lutmm_skinny_chunk(int mb) { return 16 / mb; } /* atoms per X chunk */

/* Atoms a warp has in flight: at most 4, and no more than fit a 227 KiB
 * block (H100/H200) beside X, the scale rings and the 64 KiB table
 * (test_cuda_layout checks that every case fits). 4-bit codes with
 * per-slab scales: 2 at M <= 8 (a third fits but ran 0.5-1.4 % slower on
 * the H100, docs/PERF.md change 24), 4 at M = 9..16 (0.2-2.1 % faster than
 * 3). Codes of 5 and 6 bits: 2 at M <= 8, 3 at M = 9..16 (5-bit: 12 warps
 * 3 deep at M <= 8 ran 2-17 % slower, change 40). 3-bit per-slab scales at
 * M <= 8: 3 (change 67). 7-bit codes: 2 at M <= 16, 3 with per-slab
 * scales above (change 69). The depths of 3-, 6- and 7-bit codes shrank
 * when their tables grew to 64 KiB (changes 67-69). */
#define LUTMM_SKINNY_RING(bits, mb, one_row)                                                                     \
  ((bits) <= 2   ? 4                                                                                           \
   : (bits) == 3 ? ((mb) == 1 && !(one_row) ? 3 : 4)                                                           \
   : (bits) == 4 ? ((mb) == 1 ? ((one_row) ? 3 : 2) : 4)                                                      \
   : (bits) <= 6 ? ((mb) == 1 ? 2 : (mb) == 2 ? 3 : 4)                                                         \
   : (bits) == 7 ? ((mb) >= 4 ? ((one_row) ? 4 : 3) : 2)                                                      \
                 : ((mb) >= 4 ? 3 : 2))
/* One ring slot of a warp: 32 lanes × `bits` 16-byte words. */
#define LUTMM_SKINNY_SLOT_BYTES(bits) (512u * (uint32_t)(bits))
/* One atom's scale rows: one row when the atom lies in one group (64
 * columns of at most 4 bytes), else up to four 16-bit rows (one per 16-row
 * slab) or two fp32 rows, packed at 64 elements each
 * (lutmm_skinny_scales_fit). */
#define LUTMM_SKINNY_SCALE_ENTRY(one_row) ((one_row) ? 256u : 512u)

/* Most scale rows one 64-row atom spans, for a group size that is not a
 * multiple of 64 (groups are multiples of 16): 2 for groups above 64 or of
 * 32 or 48 (an atom starts on a multiple of 64), 4 for groups of 16. */
LUTMM_HD static inline int lutmm_skinny_scale_rows_max(int64_t group_size) {
  if (group_size > 64) return 2;
  int most = 1;
  for (int64_t a = 0; a < 4 * group_size; a += 64) { /* the pattern repeats every lcm(64, g) <= 4g rows */
    const int rows = (int)((a + 63) / group_size - a / group_size) + 1;
    if (rows > most) most = rows;
  }
  return most;
}

/* Whether an atom's scale rows fit one ring entry: always with one-row or
 * 16-bit scales; fp32 per-slab scales only when an atom spans at most two
 * groups (not for groups of 16, which the tiled kernel then takes). */
LUTMM_HD static inline int lutmm_skinny_scales_fit(int one_row, int scale_bytes, int64_t group_size) {
  return one_row || (uint32_t)lutmm_skinny_scale_rows_max(group_size) * 64u * (uint32_t)scale_bytes <=
                        LUTMM_SKINNY_SCALE_ENTRY(0);
}

/* Lookup table: 64 KiB for every code width, on a 64 KiB boundary of the
 * shared window, so that one PRMT of (index byte, table address | lane
 * offset) is the whole lookup address; entry e at e·256 bytes. Codes of 3
 * and 4 bits: a pair table (entry e holds the pair of codes whose slices e
 * holds), lane L's copy at +4L; for 3-bit codes all 256 entries, entry e
 * holding pair e mod 64, so that an index byte's top two bits need no mask
 * (three_bit_indices); the same for the single codes of 6 and 7 bits
 * (entry e code e mod 64 or 128, six_bit_code_bytes, seven_bit_code_bytes).
 * Codes of 1 and 2 bits: a byte table. A byte of their one slice holds
 * a pair index for each of 4/b n16 blocks, and entry e holds those 4/b pairs
 * (8 or 16 bytes), so one LDS.64 / LDS.128 takes what 2 or 4 pair lookups
 * took: lane L's copy at +8L for 2 bits, at +16·(L mod 16) for 1 bit (a
 * 16-byte load is served a quarter-warp at a time). Codes of 5 bits: a
 * pair table of 1024 entries in the same 64 KiB, 16 copies each: the pair
 * whose 4-bit slices are byte e and whose 1-bit slices are h (first code's
 * bit low) at e·256 + h·64, lane L's copy at +4·(L mod 16). Wider codes: a
 * table of single codes (code c at c·256), lane L's copy at +4L; 8-bit
 * codes fill it, and 6- and 7-bit ones fill it as 3-bit pairs do. */
#define LUTMM_SKINNY_TABLE_BYTES 65536u
#define LUTMM_SKINNY_TABLE_ALIGN 65536u

/* Where everything lies in the shared window, for a block whose dynamic
 * shared memory starts at window address `base`: X chunks, then the scale
 * rings, then the table on the next 64 KiB boundary. Warp rings fill the
 * gap below the table first (whole rings only), the rest follow the table.
 * The kernel computes it from its own base; the host from the device's
 * reserved shared memory, which is where that base lies (no static
 * shared memory in these kernels). */
typedef struct lutmm_skinny_layout {
  uint32_t x, scales, table, gap, gap_warps, above, end; /* window addresses; gap_warps a count */
} lutmm_skinny_layout;

/* The window from `base`: `front` bytes (X chunks, or the column-stream
 * kernel's X row or sums), the warps' scale entries (`entries` bytes a
 * warp), then the table on the next 64 KiB boundary, and rings of
 * `per_warp` bytes, whole rings filling the gap below the table first. */
LUTMM_HD static inline lutmm_skinny_layout lutmm_layout_around_table(uint32_t base, uint32_t front, uint32_t warps,
                                                                    uint32_t entries, uint32_t per_warp) {
  lutmm_skinny_layout l;
  l.x = base;
  l.scales = l.x + front;
  l.gap = l.scales + warps * entries;
  l.table = (l.gap + LUTMM_SKINNY_TABLE_ALIGN - 1u) & ~(LUTMM_SKINNY_TABLE_ALIGN - 1u);
  l.gap_warps = (l.table - l.gap) / per_warp;
  if (l.gap_warps > warps) l.gap_warps = warps;
  l.above = l.table + LUTMM_SKINNY_TABLE_BYTES;
  l.end = l.above + (warps - l.gap_warps) * per_warp;
  return l;
}

/* The skinny layout's X region: two chunks of 16/MB k-atoms, 8·MB rows of
 * LUTMM_SKINNY_X_ROW_BYTES each. */
LUTMM_HD static inline uint32_t lutmm_skinny_x_bytes(int mb) {
  return 2u * (uint32_t)lutmm_skinny_chunk(mb) * (uint32_t)(8 * mb) * LUTMM_SKINNY_X_ROW_BYTES;
}

LUTMM_HD static inline lutmm_skinny_layout lutmm_skinny_layout_at(uint32_t base, int bits, int mb, int one_row,
                                                                  int block_warps) {
  const uint32_t ring = LUTMM_SKINNY_RING(bits, mb, one_row);
  return lutmm_layout_around_table(base, lutmm_skinny_x_bytes(mb), (uint32_t)block_warps,
                                   ring * LUTMM_SKINNY_SCALE_ENTRY(one_row), ring * LUTMM_SKINNY_SLOT_BYTES(bits));
}

/* The column-stream kernel (column_kernel.cuh, M = 1..4) in two forms.
 * Whole X (ROWS = 1): X's one row stays in the skinny layout's X region,
 * 128 bytes a k-atom, with two sets of the warps' sums behind it, while it
 * fits (K up to 14336 with 16 warps, 15360 with the 12 of 7- and 8-bit
 * codes). Two or four rows (M = 2, 3..4, and M = 1 past that K): each
 * atom's ring slot carries its X behind the atom's words (ROWS rows of 64
 * values, 128 bytes each; rows past M zero), so K has no limit, and the
 * shared window starts with two sets of the warps' sums (ROWS × 64 fp32 a
 * warp), then the scale entries, the table and the rings as in the skinny
 * layout. Carried X cost M = 1 4-8 % where the whole row fits in a first
 * build whose copies took ~15 instructions an atom (docs/PERF.md, change
 * 77), hence the two forms. Ring depths are the skinny kernel's at M <= 8,
 * but for 4 rows of 3- and 4-bit codes with one-row scales, which fit 3
 * and 2 deep. An 8-row form for M = 5..8 (12 warps, as 16 warps' 8-row
 * sums leave no room for their rings) ran 2-20 % behind the skinny kernel
 * on the H100's target shapes (ahead only on 28672 x 8192 with groups of
 * 128, by 2 %) and was taken out (docs/PERF.md, change 79). */
#define LUTMM_COLUMN_MAX_ROWS 4
#define LUTMM_COLUMN_X_ROW_BYTES 128u /* a carried row of X in a slot */
/* Whether the column-stream kernel of `rows` rows exists for these codes:
 * 1 and 2 rows for every code width and scale, 4 rows for one-row codes of
 * 2 bits and more (per-slab 4-row kernels spilled 44-100 B and ran 9-19 %
 * slower, change 77; the 1-bit one spills 20 B, change 90). */
#define LUTMM_COLUMN_KERNEL_EXISTS(bits, one_row, rows) ((rows) <= 2 || ((one_row) && (bits) >= 2))
/* Where vector c (k 8c..8c + 7) of carried row r lies in a slot's X part:
 * vector c ^ r of the row's 128 bytes, so that the rows one ldmatrix reads
 * fall in distinct banks (an XOR below 4 leaves the +64 bytes of a slab
 * pair's offset alone). */
LUTMM_HD static inline uint32_t lutmm_column_x_offset(int row, int c) {
  return (uint32_t)(row * (int)LUTMM_COLUMN_X_ROW_BYTES + ((c ^ row) << 4));
}
/* Two sets of the warps' sums, `rows` × 64 fp32 a warp. */
LUTMM_HD static inline uint32_t lutmm_column_sums_bytes(int warps, int rows) {
  return 2u * (uint32_t)warps * (uint32_t)rows * 64u * 4u;
}
LUTMM_HD static inline int lutmm_column_x_fits(int64_t k_atoms, int warps) {
  return k_atoms * 128 + (int64_t)lutmm_column_sums_bytes(warps, 1) <= (int64_t)lutmm_skinny_x_bytes(1);
}
/* X rows of the column-stream kernel for M = m; `warps`: the whole-X
 * block's (lutmm_skinny_warps(1, bits)), which decides where X fits. */
LUTMM_HD static inline int lutmm_column_rows(int64_t m, int64_t k_atoms, int warps) {
  return m <= 1 && lutmm_column_x_fits(k_atoms, warps) ? 1 : m <= 2 ? 2 : 4;
}
#define LUTMM_COLUMN_RING(bits, one_row, rows)                                                                  \
  ((rows) == 4 && (one_row) && (bits) == 3   ? 3                                                               \
   : (rows) == 4 && (one_row) && (bits) == 4 ? 2                                                               \
                                             : LUTMM_SKINNY_RING(bits, 1, one_row))
/* A ring slot: the atom's words, and its X where X is carried (rows > 1). */
#define LUTMM_COLUMN_SLOT_BYTES(bits, rows)                                                                    \
  (LUTMM_SKINNY_SLOT_BYTES(bits) + ((rows) > 1 ? LUTMM_COLUMN_X_ROW_BYTES * (uint32_t)(rows) : 0u))

/* The column-stream block's shared window from `base`: the skinny
 * layout's fields, `x` holding X and the sums (one row) or the sums. */
LUTMM_HD static inline lutmm_skinny_layout lutmm_column_layout_at(uint32_t base, int bits, int one_row, int rows,
                                                                  int block_warps) {
  if (rows == 1) return lutmm_skinny_layout_at(base, bits, 1, one_row, block_warps);
  const uint32_t warps = (uint32_t)block_warps, ring = LUTMM_COLUMN_RING(bits, one_row, rows);
  return lutmm_layout_around_table(base, lutmm_column_sums_bytes(block_warps, rows), warps,
                                   ring * LUTMM_SKINNY_SCALE_ENTRY(one_row), ring * LUTMM_COLUMN_SLOT_BYTES(bits, rows));
}

/* Behind the column-stream window: two barriers a set of sums (mbarrier
 * objects, 8 bytes each), by which the warps meet at a column part's end
 * without a block barrier (column_kernel.cuh, part_meeting). */
#define LUTMM_COLUMN_MEETING_BYTES 32u

LUTMM_HD static inline size_t lutmm_column_smem_bytes(uint32_t base, int bits, int one_row, int rows, int warps) {
  return (size_t)(lutmm_column_layout_at(base, bits, one_row, rows, warps).end - base) + LUTMM_COLUMN_MEETING_BYTES;
}

/* Where the column-stream kernel runs, wherever its kernel exists and fits
 * (plan_column_stream).
 * - M = 1..2: always. Until change 86 the warps met at a block barrier at
 *   each column's end and waited there for the warp with one unit more, so
 *   issue-bound codes (1..3 bits, per-slab scales, 5..8 bits on narrow W)
 *   ran 2-12 % slower in the column stream on the H100 (changes 76 and 77)
 *   and kept the skinny kernel there. Without that barrier the column
 *   stream was faster at all but single points measured on the H200:
 *   codes of up to 4 bits 5-16 % at M = 1 and 3-13 % at M = 2, with
 *   single points of groups of 32 on 28672 x 8192 and of 8192 x 28672 at
 *   M = 2 between -3.2 and +3.2 % (change 87); codes of 5 and 6 bits with
 *   groups of 32 4-16 % at M = 1 and 2-13 % at M = 2, one-row codes of
 *   5..8 bits on 16 atom columns (8192 x 1024) 9-26 % and the 12-warp
 *   blocks of 7 and 8 bits on 4096 x 4096 11-13 % at M = 2 (change 89),
 *   and 7- and 8-bit codes with groups of 32 11-24 % at M = 1..2 (change
 *   114, whose kernels they lacked before). 1-bit codes are not timed by
 *   the whole protocol and follow the 2-bit ones.
 * - M = 3..4 (four carried rows; the kernel exists for one-row codes of 2
 *   bits and up): from 32 atom columns (change 77, H100: 0-13 % faster on
 *   W of 64 columns and more, 3-14 % slower on 8192 x 1024, 16 columns cut
 *   about 8 ways, each part a block's whole range; H200, change 87: 0 to
 *   +3.5 % there still; one-row 2- and 3-bit codes, change 90: 0-11 %
 *   faster from 32 columns, 5-8 % slower on 8192 x 1024), and for the
 *   12-warp blocks of 7 and 8 bits only with two units a warp (2-7 %
 *   slower on 4096 x 4096, about 1.3 units a warp; 4-10 % faster with
 *   4.5). */
LUTMM_HD static inline int lutmm_column_stream_pays(int bits, int one_row, int64_t n_atoms, int64_t k_atoms,
                                                   int sm_count, int64_t m) {
  if (m <= 2) return 1;
  const int64_t units = n_atoms * ((k_atoms + 1) / 2);
  if (bits >= 7 && units < 2 * (int64_t)LUTMM_SKINNY_WARPS(1, bits) * sm_count) return 0;
  return one_row && n_atoms >= 32;
}

/* The column-stream kernel's grid for `units` units of `iters` a column:
 * the most blocks, from one an SM down to SMs − SMs/16, whose Stream-K
 * ranges line up with the columns (every block the same number of units,
 * whole columns or an equal share of one), else one block an SM. On the
 * H200, 128 lined-up blocks for 132 SMs ran 4096 x 4096, 8192 x 1024 (M =
 * 1..2) and 8192 x 8192 about 5 % faster at M = 1..4 in median (up to
 * 10 %), 14336 x 4096 2 % and 28672 x 8192 1 %; 112 lined-up blocks (four
 * columns each) ran 8192 x 28672 9-11 % slower, hence the sixteenth; and
 * equal unit counts without lined-up ranges (14336 x 4096 on 112 blocks)
 * ran 4 % slower (docs/PERF.md, change 96). */
LUTMM_HD static inline int64_t lutmm_column_grid(int64_t units, int64_t iters, int64_t sms) {
  if (units < sms) return units;
  for (int64_t grid = sms; grid >= sms - sms / 16; grid--) {
    const int64_t range = units / grid;
    if (units % grid == 0 && (range % iters == 0 || iters % range == 0)) return grid;
  }
  return sms;
}

/* Skinny kernels that can share a cut column's reduction among its
 * finishing contributors (cooperative launches; kernels of their own,
 * cut_path::shared): not the 64-row ones, whose registers it would spill.
 * The 12-warp 32-row kernels, whose main loop compiled 5-6 % slower while
 * that code was part of it, share since change 75. */
#define LUTMM_SKINNY_SHARES_REDUCTION(mb) ((mb) <= 4)

/* Whether a skinny launch of `m` rows, `units` units of `iters` each over
 * `grid` blocks, reduces its cut columns together (cooperative launch, on a
 * device that has them): where a column is cut into 12 or more partials
 * (iters·grid >= 12·units) at M >= 3, into 8 or more at M = 5..8 of the
 * 8-row kernels, or into 6 or more at M = 9..16 (the 16-row kernels).
 * Measured on the H100 (docs/PERF.md):
 * - at 12 or more partials the last contributor's loads took 2-10 us
 *   (change 37);
 * - at M = 1 the shared path's wait cost more than it saved (change 37);
 *   M <= 2 takes 8-16 partials a round trip anyway;
 * - at M = 8 (2 partials a round trip) change 37 found 3-9 partials slower
 *   shared; on the kernels of 2026-11-27 4096 x 14336 (9 partials) ran 3.8 %
 *   faster in median, 8192 x 28672 (5) 3.7 % slower (change 70). The 8 lies
 *   between them, unmeasured, and M = 3..4 below 12 was not measured;
 * - at M = 9..16 4096 x 14336 (about 7 partials) ran 7.7 % faster in
 *   median shared (0.4-11.8 %) once those kernels' share took up to 8
 *   partials of 6 elements a lane in one round trip (change 74);
 *   8192 x 28672 (about 3.5) was 1-5 % slower shared from 3 partials. */
LUTMM_HD static inline int lutmm_skinny_reduces_together(int mb, int64_t m, int64_t iters, int64_t grid,
                                                         int64_t units) {
  const int64_t cut = iters * grid; /* units × partials a column */
  return LUTMM_SKINNY_SHARES_REDUCTION(mb) && m >= 3 &&
         (cut >= 12 * units || (mb == 1 && m >= 5 && cut >= 8 * units) || (mb == 2 && cut >= 6 * units));
}

/* Cooperative launches of the 8-row kernels at M <= 4 over columns cut into
 * at most 8 partials publish those partials as tagged words, {launch tag,
 * fp32 bits} in one 64-bit store, which the column's first contributor
 * polls at the end of its range until every tag is its launch's: no
 * counter, hence no fence. A counter's release fence waited for the warp's
 * weight copies in flight, so each block that published mid-stream (the
 * last contributor of a column it starts in) drained its ring. Measured on
 * the H100 (docs/PERF.md, change 39): 8192 x 28672 (about 6 partials a
 * column) 2.2-2.6 us faster at M = 1 and 1.1-1.8 us at M = 4 (groups of 64
 * and 128); 4096 x 14336 (9) +-1 us; columns of 16-33 partials 0.2-3.6 us
 * slower at M = 1, as the one reducer waits for them all; M = 8 and 16
 * 1-13 us slower. */
#define LUTMM_SKINNY_TAGGED_ROWS 4
LUTMM_HD static inline int lutmm_skinny_tags_partials(int mb, int64_t m, int64_t iters, int64_t grid, int64_t units) {
  return mb == 1 && m <= LUTMM_SKINNY_TAGGED_ROWS && iters * grid <= 8 * units;
}
/* The HEAD kernels: cooperative launches of the 8- and 16-row kernels of
 * 4-bit codes with one-row scales at M = 5..16, with more blocks than
 * tiles and no shared reduction (tickets count the cut columns). A cut
 * column's last contributor, where its range goes on into the next tile
 * (the column's head, which ends it in mid-stream), publishes its partial
 * as tagged words in its block's slot of the tile's 8 or 16 rows and takes
 * no ticket; the column's other contributors count one ticket fewer, and
 * the last of them adds the head's words last (block order, so the same
 * bits), waiting for their tags, which stand long before. Measured on the
 * H100 (docs/PERF.md, changes 71 and 72):
 * - block traces: a head's ticket in the launch's first 14 us took
 *   9.4-13.9 us on 8192 x 28672 at M = 8 (its release waits for the ring's
 *   copies in flight), and those blocks ended the launch;
 * - NF4 g64/g128 on 8192 x 28672 at M = 5..8: 3.5-5.6 % faster; at M = 9
 *   and 12 2.0-3.8 %, at M = 16 0.0-1.3 %;
 * - as kernels for every width: other widths 0.2-2.4 % slower with
 *   one-row scales, groups of 32 -2.0 to +6.0 % (all but 7-bit slower):
 *   hence 4-bit one-row codes only;
 * - compiled into every 8-row kernel, the same code changed their register
 *   allocation (the shared reduction on 4096 x 14336 +13 %): hence kernels
 *   of their own. */
#define LUTMM_SKINNY_HAS_HEAD(mb, bits, one_row) ((mb) <= 2 && (bits) == 4 && (one_row))
LUTMM_HD static inline int lutmm_skinny_tags_head(int mb, int bits, int one_row, int64_t m, int64_t iters,
                                                  int64_t grid, int64_t units, int shares_reduction) {
  return LUTMM_SKINNY_HAS_HEAD(mb, bits, one_row) && m > LUTMM_SKINNY_TAGGED_ROWS && iters * grid > units &&
         !shares_reduction;
}
/* Whether block `last`, a cut column's last contributor, goes on past the
 * column's tile, whose units end at `end_unit`: then it is the head. */
LUTMM_HD static inline int lutmm_skinny_is_head(int64_t units, int grid, int64_t last, int64_t end_unit) {
  return lutmm_cuda_range_start(units, grid, last + 1) > end_unit;
}

/* Tagged words per multiprocessor: one head slot of the 16-row kernel's
 * tile (16 rows × its 12 warps × 64 columns), which also holds the 8-row
 * kernels' two slots of 4 rows × 16 warps × 64 columns or their head slot
 * of 8 rows (the kernels assert both). */
#define LUTMM_SKINNY_TAGGED_PER_SM ((size_t)16 * LUTMM_SKINNY_WARPS(2, 4) * 64)

/* Skinny-kernel fixup counters per multiprocessor: one per warp of the
 * widest block (one block per multiprocessor). */
#define LUTMM_SKINNY_TICKETS_PER_SM 16

/* Dynamic shared memory of one skinny block. */
LUTMM_HD static inline size_t lutmm_skinny_smem_bytes(uint32_t base, int bits, int mb, int one_row, int warps) {
  return (size_t)(lutmm_skinny_layout_at(base, bits, mb, one_row, warps).end - base);
}

/* Blocks of a skinny launch of `m` rows over `n_tiles` tiles of `iters`
 * units, on `sm_count` SMs, with a workspace that holds the partial slots
 * of `fits` blocks. A block takes at least iters/16 units, so a column is
 * never cut into more than ~17 partials (its last contributor adds them
 * all); blocks never outnumber the SMs (one block fills an SM) nor the
 * ticket array. A workspace too small for two partial tiles per block
 * gives one block per tile (no partials).
 * At M <= 2, where a cut column's reduction is cheapest (8 partials per
 * round trip), a shape that would leave more than half the SMs idle
 * with columns of at least 64 pairs splits finer: iters/32 with one-row
 * scales, iters/64 with per-slab ones, whose atoms cost more instructions
 * and so gain from more blocks. Measured on the H100 (NF4): the split
 * itself made 8192 x 1024 9-26 % and 14336 x 4096 7-26 % faster at M = 1;
 * iters/32 against iters/64 then took 8192 x 1024 from 16.8 to 15.9 us at
 * group 128 (M = 2: 17.1 to 16.0) and 14336 x 4096 from 23.7 to 22.9 us,
 * but at group 32 8192 x 1024 went from 17.3 to 18.6 us (14336 x 4096
 * gained 5 %; both in a build whose M = 1 reduction took 16 partials per
 * round trip). 4096 x 4096 (32 pairs) keeps
 * iters/16 (iters/64 moved it -8 % to +1.3 %), and M = 16 lost 2-45 % to
 * the finer split (docs/HEURISTICS.md). Where iters/16 leaves a few SMs
 * idle (28672 x 8192 and 8192 x 8192 at M <= 8: 128 blocks on 132 SMs),
 * blocks one unit shorter filled them but ran 0-5 % slower (docs/PERF.md,
 * the row not kept after change 41): the extra cut costs more than the SMs
 * give. */
LUTMM_HD static inline int64_t lutmm_skinny_grid(int64_t m, int one_row, int64_t iters, int64_t n_tiles, int sm_count,
                                                 int64_t fits) {
  const int64_t units = n_tiles * iters;
  int64_t min_units = (iters + 15) / 16;
  if (m <= 2 && iters >= 64 && units / min_units < sm_count / 2) {
    const int64_t finest = one_row ? 32 : 64;
    min_units = (iters + finest - 1) / finest;
  }
  int64_t grid = units / min_units;
  if (grid > sm_count) grid = sm_count;
  if (grid < 1) grid = 1;
  return fits < grid ? n_tiles : grid;
}

/* Whether the skinny kernel of `mb` m8 blocks has a CLUSTER instantiation
 * for `bits`-bit codes: M <= 16 (mb 1 or 2), where a warp's ring holds its
 * partial (8 · mb rows of 64 fp32); at mb 2 that leaves out 1-bit codes. */
#define LUTMM_SKINNY_CLUSTER_HOLDS(mb, bits, one_row)                                                            \
  ((mb) <= 2 && LUTMM_SKINNY_RING(bits, mb, one_row) * LUTMM_SKINNY_SLOT_BYTES(bits) >= 8u * (mb) * 64u * 4u)

/* Skinny launches whose cut columns thread block clusters add: the M <= 16
 * kernels of either scale layout that LUTMM_SKINNY_CLUSTER_HOLDS (the CLUSTER
 * instantiations). Each tile's k
 * range is cut into `groups` × `ways` even parts (lutmm_cuda_range_start
 * over tiles · groups · ways blocks); block (t·groups + g)·ways + i streams
 * part g·ways + i of tile t and writes its partial tile into its own shared
 * memory, and after a cluster barrier each block of the cluster adds a
 * share of the tile's elements from every block of it (rank order from
 * zero; skinny_kernel.cuh, add_cluster_share). One group writes Y there: no
 * partial crosses global memory, no ticket, no fence. Several groups each
 * write their share's sums into the workspace slot of the cluster and take
 * a ticket for the share; the last of a share's `groups` blocks adds the
 * groups' sums in group order and writes Y. At most 16 blocks a cluster (a
 * size Hopper allows only to kernels that ask for it) and 8 clusters a
 * tile (the last block's loads of a run go out together). */
#define LUTMM_SKINNY_MAX_CLUSTER 16
#define LUTMM_SKINNY_MAX_CLUSTER_GROUPS 8

typedef struct lutmm_skinny_clusters {
  int ways;   /* blocks a cluster; 0: no clusters (the Stream-K launch) */
  int groups; /* clusters a tile */
} lutmm_skinny_clusters;

/* A tie with the Stream-K split (as long a longest part) takes several
 * clusters a tile only where the last block of a share adds at most this
 * many bytes of the groups' sums (groups · M · tile_n / ways fp32). On
 * the H100 (docs/PERF.md, change 52; two machine units) 2-block clusters of
 * 8 groups ran 0-6.6 % faster than the Stream-K split at M <= 2 (16 and 32
 * KiB), -1.8 to +1.6 % at M = 4 (64 KiB) and up to 9 % slower at M = 8
 * (128 KiB), where the Stream-K launch shares its columns' reduction among
 * their blocks. */
#define LUTMM_SKINNY_TIE_GROUP_SUMS_BYTES ((int64_t)32 * 1024)

/* Clusters for a skinny launch of `m` rows in `mb` m8 blocks of
 * `bits`-bit codes (one-row scales or not) over `n_tiles` tiles of
 * `tile_n` columns and `iters` units whose Stream-K grid would be `grid`
 * blocks, where `fit[w]` clusters of w blocks run at once
 * (0: none), at most `most_groups` clusters a tile, and the workspace holds
 * `slots` partial tiles (the groups' sums). Every cluster is resident at
 * once and every block takes at least one unit. A plan pays if its
 * longest part is shorter than the Stream-K split's longest range, or if
 * it keeps all but a sixteenth of the Stream-K grid's blocks (fewer blocks
 * stream the weights on fewer SMs, which the cheaper reduction does not
 * repay: docs/HEURISTICS.md) and, with several groups, its shares' sums
 * are small (LUTMM_SKINNY_TIE_GROUP_SUMS_BYTES). Of the plans that pay,
 * the one whose longest part is shortest, then the one of fewest groups
 * (one group needs no ticket), then of most blocks a cluster; else none,
 * as where no CLUSTER kernel exists (LUTMM_SKINNY_CLUSTER_HOLDS). */
LUTMM_HD static inline lutmm_skinny_clusters lutmm_skinny_cluster_plan(int mb, int bits, int one_row, int64_t m,
                                                                       int64_t iters, int64_t n_tiles, int tile_n,
                                                                       int64_t grid, const int *fit, int most_groups,
                                                                       int64_t slots) {
  lutmm_skinny_clusters best = {0, 0};
  if (!LUTMM_SKINNY_CLUSTER_HOLDS(mb, bits, one_row) || grid < 1) return best;
  const int64_t stream_k_longest = (n_tiles * iters + grid - 1) / grid;
  int64_t best_longest = 0;
  for (int groups = 1; groups <= most_groups && groups <= LUTMM_SKINNY_MAX_CLUSTER_GROUPS; groups++) {
    if (groups > 1 && n_tiles * groups > slots) break;
    int ways = LUTMM_SKINNY_MAX_CLUSTER; /* the most blocks a cluster for this many groups */
    while (ways >= 2 && ((int64_t)groups * ways > iters || fit[ways] < n_tiles * groups)) ways--;
    if (ways < 2) continue;
    const int64_t longest = (iters + (int64_t)groups * ways - 1) / ((int64_t)groups * ways);
    const int64_t sums_bytes = (int64_t)groups * m * tile_n / ways * 4;
    const int pays = longest < stream_k_longest ||
                     (n_tiles * groups * ways >= grid - grid / 16 &&
                      (groups == 1 || sums_bytes <= LUTMM_SKINNY_TIE_GROUP_SUMS_BYTES));
    if (pays && (best.ways == 0 || longest < best_longest)) {
      best.ways = ways;
      best.groups = groups;
      best_longest = longest;
    }
  }
  return best;
}

/* Warps per skinny block for weights of `atoms` 64 x 64 atoms on a device
 * of `sm_count` SMs whose blocks may take `smem_limit` bytes of dynamic
 * shared memory from window address `smem_base`: the 12-warp kernel where
 * it exists, the default count would give each warp at least 32 atoms, and
 * its larger block fits; else the default count. Measured on the H100 at
 * M = 17..32 (docs/PERF.md, change 35): 5-14 % faster (median 11 %) at 54
 * atoms per warp (8192 x 28672, 28672 x 8192), 3-23 % slower at 4-16
 * (8192 x 8192 and smaller). */
LUTMM_HD static inline int lutmm_skinny_warps_for(int mb, int bits, int one_row, int64_t atoms, int sm_count,
                                                  uint32_t smem_base, size_t smem_limit) {
  const int warps = lutmm_skinny_warps(mb, bits);
  const int more = LUTMM_SKINNY_HAS_MORE_WARPS(mb, bits, one_row) && atoms >= (int64_t)32 * warps * sm_count &&
                   lutmm_skinny_smem_bytes(smem_base, bits, mb, one_row, LUTMM_SKINNY_MORE_WARPS) <= smem_limit;
  return more ? LUTMM_SKINNY_MORE_WARPS : warps;
}

#endif
