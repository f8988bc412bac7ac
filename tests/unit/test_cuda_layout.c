/* Host/device arithmetic of the CUDA kernels (src/cuda/gemm_params.h),
 * checked on the host: the host (launch sizes) and the kernels (addresses,
 * Stream-K ranges) evaluate the same functions, so their invariants can be
 * proved here without a GPU.
 * skinny_layout: for every instantiation (bits 1..8, MB 1/2/4 with one-row
 * or per-slab scales, MB 8 with one-row scales, and the 12-warp MB 4
 * kernels) and dynamic-memory bases 0..4 KiB, regions in order and
 * disjoint, the pair table on a 64 KiB boundary, every warp's ring 16-byte aligned and inside the gap or after
 * the table, and the Hopper block limit (227 KiB) kept at the reserved base
 * the CUDA runtime reports.
 * skinny_warp_choice: the planner's warp count, 12 at MB 4 only where that
 * kernel exists, the default count would give each warp 32 atoms and the
 * larger block fits.
 * scale_entries: the rows a per-slab scale entry must hold, counted atom by
 * atom for every group size, fit it whenever the host picks the kernel.
 * wide_layout: for tiles of 64, 128 and 256 rows the wide kernel's stage
 * holds X, the unit's atoms of every plane and four scale rows in 16-byte units, the table's entries lie
 * the stride its lookups take apart, and the table plus four stages fit the Hopper block limit for every
 * code width.
 * stream_k_ranges: the Stream-K boundaries (a 32-bit division where the
 * operands fit, else no integer division: both paths are reached) against
 * plain 64-bit division, and each unit's block against those boundaries.
 * skinny_grid: the skinny launch's block count on the benchmark's shapes
 * (132 SMs), the finer split at M <= 2 at its edges, and the workspace
 * fallback. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_params.h"

#define HOPPER_BLOCK_LIMIT (227u * 1024u)
#define HOPPER_RESERVED 1024u

/* What the kernel needs of the layout, stated as needs (room at least, in
 * order, aligned) rather than as the layout's own formulas. */
static void check_one(uint32_t base, int bits, int mb, int one_row, int block_warps) {
  const lutmm_skinny_layout l = lutmm_skinny_layout_at(base, bits, mb, one_row, block_warps);
  const uint32_t warps = (uint32_t)block_warps, ring = LUTMM_SKINNY_RING(bits, mb, one_row);
  const uint32_t per_warp = ring * LUTMM_SKINNY_SLOT_BYTES(bits);
  /* two X chunks of 16/MB k-atoms, 8·MB rows of 144 bytes each */
  const uint32_t x_need = 2u * (16u / (uint32_t)mb) * 8u * (uint32_t)mb * LUTMM_SKINNY_X_ROW_BYTES;
  CHECK(l.x == base && l.scales - l.x >= x_need);
  CHECK(l.gap >= l.scales && l.gap - l.scales >= warps * ring * LUTMM_SKINNY_SCALE_ENTRY(one_row));
  CHECK(l.scales % 16 == 0 && LUTMM_SKINNY_SCALE_ENTRY(one_row) % 16 == 0);
  CHECK(l.table % LUTMM_SKINNY_TABLE_ALIGN == 0 && l.table >= l.gap && l.table - l.gap < LUTMM_SKINNY_TABLE_ALIGN);
  CHECK(l.above >= l.table + LUTMM_SKINNY_TABLE_BYTES);
  CHECK(ring >= 2 && ring <= 8); /* cp.async.wait_group takes 0..7 */
  /* Each warp's ring where the kernel puts it (ring_of): inside the gap or
   * after the table, 16-byte aligned, within the block's bytes. */
  for (uint32_t w = 0; w < warps; w++) {
    const uint32_t start = w < l.gap_warps ? l.gap + w * per_warp : l.above + (w - l.gap_warps) * per_warp;
    const int in_gap = start >= l.gap && start + per_warp <= l.table;
    const int after_table = start >= l.above && start + per_warp <= l.end;
    if (start % 16 != 0 || !(in_gap || after_table))
      unit_fail(__FILE__, __LINE__, "bits %d MB %d one_row %d warps %d base %u: warp %u's ring at %u..%u", bits, mb,
                one_row, block_warps, base, w, start, start + per_warp);
  }
  const size_t bytes = lutmm_skinny_smem_bytes(base, bits, mb, one_row, block_warps);
  CHECK(bytes == (size_t)(l.end - base));
  if (base == HOPPER_RESERVED && bytes > HOPPER_BLOCK_LIMIT)
    unit_fail(__FILE__, __LINE__, "bits %d MB %d one_row %d warps %d needs %zu bytes, over the Hopper limit", bits,
              mb, one_row, block_warps, bytes);
}

static void skinny_layout(void) {
  for (uint32_t base = 0; base <= 4096; base += 256)
    for (int bits = 1; bits <= 8; bits++)
      for (int mb = 1; mb <= 8; mb *= 2)
        for (int one_row = 0; one_row < 2; one_row++)
          if (mb <= lutmm_skinny_max_mb(one_row)) {
            check_one(base, bits, mb, one_row, lutmm_skinny_warps(mb, bits));
            if (LUTMM_SKINNY_HAS_MORE_WARPS(mb, bits, one_row))
              check_one(base, bits, mb, one_row, LUTMM_SKINNY_MORE_WARPS);
          }
}

/* The planner's warp count: the 12-warp kernel only where it exists, the
 * default count would give every warp at least 32 atoms, and its block fits
 * the device (132 SMs and Hopper's limit unless stated). */
static int warps_for(int mb, int bits, int one_row, int64_t atoms) {
  return lutmm_skinny_warps_for(mb, bits, one_row, atoms, 132, HOPPER_RESERVED, HOPPER_BLOCK_LIMIT);
}

static void skinny_warp_choice(void) {
  const int64_t atoms_8192x28672 = 448 * 128, atoms_8192x8192 = 128 * 128;
  CHECK(warps_for(4, 4, 1, atoms_8192x28672) == LUTMM_SKINNY_MORE_WARPS);
  CHECK(warps_for(4, 2, 1, atoms_8192x28672) == LUTMM_SKINNY_MORE_WARPS);
  CHECK(warps_for(4, 4, 1, atoms_8192x8192) == 8);
  CHECK(warps_for(4, 4, 1, 32 * 8 * 132 - 1) == 8);
  CHECK(warps_for(4, 4, 1, 32 * 8 * 132) == LUTMM_SKINNY_MORE_WARPS);
  CHECK(warps_for(4, 4, 0, atoms_8192x28672) == 8); /* per-slab scales spill at 12 */
  CHECK(warps_for(4, 1, 1, atoms_8192x28672) == 8);
  CHECK(warps_for(4, 5, 1, atoms_8192x28672) == 8);
  CHECK(warps_for(2, 4, 1, atoms_8192x28672) == 12);
  CHECK(warps_for(8, 4, 1, atoms_8192x28672) == 8);
  CHECK(warps_for(1, 4, 1, atoms_8192x28672) == 16);
  /* more SMs need more atoms */
  CHECK(lutmm_skinny_warps_for(4, 4, 1, atoms_8192x28672, 225, HOPPER_RESERVED, HOPPER_BLOCK_LIMIT) == 8);
  /* a block limit below the 12-warp block: the default count, per code width */
  const size_t four_bit = lutmm_skinny_smem_bytes(HOPPER_RESERVED, 4, 4, 1, LUTMM_SKINNY_MORE_WARPS);
  CHECK(lutmm_skinny_warps_for(4, 4, 1, atoms_8192x28672, 132, HOPPER_RESERVED, four_bit) == 12);
  CHECK(lutmm_skinny_warps_for(4, 4, 1, atoms_8192x28672, 132, HOPPER_RESERVED, four_bit - 1) == 8);
  CHECK(lutmm_skinny_warps_for(4, 2, 1, atoms_8192x28672, 132, HOPPER_RESERVED, four_bit - 1) == 12);
}

/* Per-slab scale entries: the most rows an atom spans, counted as the
 * kernel meets them (a new row wherever a 16-row slab's group differs from
 * the previous slab's) over 64 atoms, against lutmm_skinny_scale_rows_max;
 * every 16-bit case fits an entry, fp32 ones exactly when their rows do. */
static void scale_entries(void) {
  for (int64_t g = 16; g <= 1024; g += 16) {
    if (g % 64 == 0) continue; /* one-row scales */
    int most = 0;
    for (int64_t atom = 0; atom < 64; atom++) {
      int rows = 1;
      for (int slab = 1; slab < 4; slab++)
        rows += (atom * 64 + 16 * slab) / g != (atom * 64 + 16 * (slab - 1)) / g;
      if (rows > most) most = rows;
    }
    if (most != lutmm_skinny_scale_rows_max(g))
      unit_fail(__FILE__, __LINE__, "group %lld: atoms span %d rows, scale_rows_max says %d", (long long)g, most,
                lutmm_skinny_scale_rows_max(g));
    CHECK(lutmm_skinny_scales_fit(0, 2, g) && (uint32_t)most * 64u * 2u <= LUTMM_SKINNY_SCALE_ENTRY(0));
    CHECK(lutmm_skinny_scales_fit(0, 4, g) == ((uint32_t)most * 64u * 4u <= LUTMM_SKINNY_SCALE_ENTRY(0)));
    CHECK(lutmm_skinny_scales_fit(0, 4, g) == (g != 16));
  }
  CHECK(lutmm_skinny_scales_fit(1, 4, 16) && 64u * 4u <= LUTMM_SKINNY_SCALE_ENTRY(1));
}

/* What the wide kernel needs of its stage and block, for each tile,
 * stated as needs: 128 fp32 accumulators per MMA thread (two warpgroups of
 * 128 threads), room for a unit's X (tile_m rows × 64 k of fp16), its atoms
 * of every plane (tile_n/64 atoms × 32 lanes × bits 16-byte words), four
 * fp32 scale rows of tile_n, the table (2^(2b) pair entries for b <= 4,
 * 2^b single-code entries above, in lane copies of 4 bytes, entries at
 * least their copies apart); stages on 1024-byte boundaries; four stages
 * within a Hopper block, for every code width and tile (wide_tile_m takes
 * 64-row tiles for codes of 5..8 bits too). */
static void wide_layout(void) {
  CHECK(LUTMM_WIDE_BARRIER_BYTES >= 2 * 8 * LUTMM_WIDE_MAX_STAGES && LUTMM_WIDE_BARRIER_BYTES % 128 == 0);
  for (int tile_m = 64; tile_m <= 256; tile_m *= 2) {
    const int tile_n = lutmm_wide_tile_n(tile_m);
    CHECK(tile_m * tile_n == 2 * 128 * 128);      /* each MMA thread: 128 accumulators */
    CHECK(tile_n % 128 == 0 && tile_m % 8 == 0);  /* whole atom columns per warpgroup; wgmma's N */
    CHECK(lutmm_wide_x_bytes(tile_m) >= (size_t)tile_m * 64 * 2);
    CHECK(lutmm_wide_scale_bytes(tile_m) >= (size_t)4 * tile_n * 4);
    for (int bits = 1; bits <= 8; bits++) {
      const size_t stage = lutmm_wide_stage_bytes(bits, tile_m), table = lutmm_wide_table_bytes(bits);
      const size_t atoms = (size_t)(tile_n / 64) * 32u * 16u * (size_t)bits;
      const size_t entries = (size_t)1 << (bits <= 4 ? 2 * bits : bits); /* pairs, or single codes */
      const size_t stride = (size_t)1 << LUTMM_WIDE_TABLE_ENTRY_LOG2(bits);
      CHECK(stage >= lutmm_wide_x_bytes(tile_m) + atoms + lutmm_wide_scale_bytes(tile_m));
      /* entry e at e·stride (the kernel's lookup), a 4-byte copy for each
       * lane of a warp in it: copies of one entry do not reach the next,
       * and the last entry's last copy lies inside the table */
      CHECK(stride >= 4u * LUTMM_WIDE_TABLE_COPIES);
      CHECK((entries - 1) * stride + 4u * LUTMM_WIDE_TABLE_COPIES <= table);
      CHECK(stage % 16 == 0 && table % 16 == 0); /* cp.async and wgmma descriptors take 16-byte addresses */
      /* every stage's X on a 1024-byte boundary: the 128-byte swizzle's period */
      CHECK(stage % 1024 == 0 && lutmm_wide_stages_offset(bits) % 1024 == 0);
      CHECK(lutmm_wide_stages_offset(bits) >= LUTMM_WIDE_BARRIER_BYTES + table);
      CHECK(lutmm_wide_smem_bytes(bits, tile_m, 4) >= lutmm_wide_stages_offset(bits) + 4 * stage);
      if (lutmm_wide_smem_bytes(bits, tile_m, 4) > HOPPER_BLOCK_LIMIT)
        unit_fail(__FILE__, __LINE__, "bits %d, %d rows: four stages need %zu bytes, over the Hopper limit", bits,
                  tile_m, lutmm_wide_smem_bytes(bits, tile_m, 4));
    }
  }
}

/* The wide kernel's partial tiles in accumulator order: every element of a
 * tile is one accumulator of one MMA thread, each exactly once, the
 * kernel's vectors (lutmm_wide_partial_vector) fill a slot exactly, and
 * the fixup's inverse (lutmm_wide_partial_site) finds each accumulator
 * where the kernel stored it. */
static void wide_partial_order(void) {
  for (int tile_m = 64; tile_m <= 256; tile_m *= 2) {
    const int tile_n = lutmm_wide_tile_n(tile_m), cols = tile_n / 128, acc = tile_m / 2;
    static unsigned char seen[LUTMM_WIDE_TILE_ELEMS], stored[LUTMM_WIDE_TILE_ELEMS / 4];
    memset(seen, 0, sizeof seen);
    memset(stored, 0, sizeof stored);
    for (int t = 0; t < 256; t++)
      for (int cc = 0; cc < cols; cc++)
        for (int i = 0; i < acc; i++) {
          int row, col, prow, pcol;
          lutmm_wide_acc_site(tile_m, t, cc, i, &row, &col);
          const int vector = lutmm_wide_partial_vector(tile_m, t, cc, i / 4);
          if (row < 0 || row >= tile_m || col < 0 || col >= tile_n || vector < 0 ||
              vector >= LUTMM_WIDE_TILE_ELEMS / 4) {
            unit_fail(__FILE__, __LINE__, "%d rows: thread %d, column %d, accumulator %d outside the tile", tile_m, t,
                      cc, i);
            continue;
          }
          seen[row * tile_n + col]++;
          if (i % 4 == 0) stored[vector]++;
          lutmm_wide_partial_site(tile_m, 4 * vector + i % 4, &prow, &pcol);
          CHECK(prow == row && pcol == col);
        }
    for (int e = 0; e < LUTMM_WIDE_TILE_ELEMS; e++) CHECK(seen[e] == 1);
    for (int v = 0; v < LUTMM_WIDE_TILE_ELEMS / 4; v++) CHECK(stored[v] == 1);
  }
}

static void check_ranges(int64_t units, int grid) {
  int64_t prev = 0;
  for (int64_t b = 0; b <= grid; b++) {
    const int64_t start = lutmm_cuda_range_start(units, grid, b);
    if (start != b * units / grid)
      unit_fail(__FILE__, __LINE__, "range_start(%lld, %d, %lld) = %lld", (long long)units, grid, (long long)b,
                (long long)start);
    if (b > 0 && start > prev) { /* block b - 1 holds [prev, start): its first, last and a middle unit */
      const int64_t probe[3] = {prev, start - 1, prev + (start - prev) / 2};
      for (int i = 0; i < 3; i++)
        if (lutmm_cuda_block_of_unit(units, grid, probe[i]) != b - 1)
          unit_fail(__FILE__, __LINE__, "block_of_unit(%lld, %d, %lld) != %lld", (long long)units, grid,
                    (long long)probe[i], (long long)(b - 1));
    }
    prev = start;
  }
}

static void stream_k_ranges(void) {
  const int grids[] = {1, 2, 3, 7, 64, 108, 132, 144, 1000, 65535};
  const int64_t units[] = {1, 2, 3, 131, 132, 133, 1000, 57344, 1 << 20, (int64_t)1 << 31, ((int64_t)1 << 40) + 7};
  for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++)
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
      if (units[u] >= grids[g]) check_ranges(units[u], grids[g]);
  srand(20261121);
  for (int i = 0; i < 2000; i++) {
    const int grid = 1 + rand() % 300;
    const int64_t count = grid + (((int64_t)rand() << 16) ^ rand()) % ((int64_t)1 << 36);
    check_ranges(count, grid);
  }
}

/* The cooperative reduction's rule at its edges, and on the shapes of
 * test_cuda_gemm's shared_reduction group (K 4096: 32 units of two k-atoms
 * a tile; N 1000: 16 atom columns, one tile of 16 warps at M <= 8, two of
 * 12 or 8 warps at M = 16 and 32; blocks take at least 2 units, so 16
 * blocks a tile on any device of 32 or more SMs): that group reaches the
 * shared path at every M it runs. */
static void reduction_rule(void) {
  CHECK(lutmm_skinny_reduces_together(1, 3, 32, 16, 32));  /* M = 3 and 8: 1 tile, 16 partials */
  CHECK(lutmm_skinny_reduces_together(2, 16, 32, 32, 64)); /* M = 16: 2 tiles */
  CHECK(lutmm_skinny_reduces_together(4, 32, 32, 32, 64)); /* M = 32 */
  CHECK(!lutmm_skinny_reduces_together(1, 2, 32, 16, 32)); /* M <= 2: the last contributor */
  CHECK(lutmm_skinny_reduces_together(1, 3, 64, 12, 64));   /* exactly 12 partials a column */
  CHECK(!lutmm_skinny_reduces_together(1, 3, 64, 11, 64));  /* 11 */
  /* M = 5..8 of the 8-row kernels: from 8 partials a column */
  CHECK(lutmm_skinny_reduces_together(1, 8, 32, 132, 448));   /* 4096 x 14336 on 132 SMs: ~9 */
  CHECK(lutmm_skinny_reduces_together(1, 5, 64, 8, 64));      /* exactly 8 */
  CHECK(!lutmm_skinny_reduces_together(1, 5, 64, 7, 64));     /* 7 */
  CHECK(!lutmm_skinny_reduces_together(1, 8, 64, 132, 1792)); /* 8192 x 28672: ~5 */
  CHECK(!lutmm_skinny_reduces_together(1, 4, 32, 132, 448));  /* M = 4 keeps the 12-partial rule */
  /* M = 9..16 (the 16-row kernels): from 6 partials a column */
  CHECK(lutmm_skinny_reduces_together(2, 16, 32, 132, 608));   /* 4096 x 14336 on 132 SMs: ~7 */
  CHECK(lutmm_skinny_reduces_together(2, 9, 64, 6, 64));       /* exactly 6 */
  CHECK(!lutmm_skinny_reduces_together(2, 16, 64, 5, 64));     /* 5 */
  CHECK(!lutmm_skinny_reduces_together(2, 16, 64, 132, 2432)); /* 8192 x 28672: ~3.5 */
  CHECK(!lutmm_skinny_reduces_together(1, 8, 64, 7, 64));      /* the 8-row kernels keep 8 */
  CHECK(lutmm_skinny_reduces_together(4, 32, 224, 132, 2464)); /* 28672 x 8192, 12 warps: 12 */
  CHECK(!lutmm_skinny_reduces_together(8, 64, 32, 32, 64));     /* 64-row kernels */
}

/* The tagged-partial rule at its edges: 8-row kernels, M <= 4, at most 8
 * partials a column; and never where the shared reduction applies (at
 * M <= 4 from 12 partials), so a launch takes at most one of the two. */
static void tags_rule(void) {
  CHECK(lutmm_skinny_tags_partials(1, 1, 64, 132, 1792)); /* 8192 x 28672, M = 1: ~4.7 partials */
  CHECK(lutmm_skinny_tags_partials(1, 4, 64, 8, 64));     /* exactly 8 partials */
  CHECK(!lutmm_skinny_tags_partials(1, 4, 64, 9, 64));    /* 9 */
  CHECK(!lutmm_skinny_tags_partials(1, 5, 64, 8, 64));    /* M = 5 */
  CHECK(!lutmm_skinny_tags_partials(2, 4, 64, 8, 64));    /* a 16-row kernel */
  for (int64_t m = 1; m <= 8; m++)
    for (int64_t grid = 1; grid <= 40; grid++)
      CHECK(!(lutmm_skinny_tags_partials(1, m, 32, grid, 64) &&
              lutmm_skinny_reduces_together(1, m, 32, grid, 64)));
}

/* The HEAD kernels' rule (lutmm_skinny_tags_head): the 8- and 16-row
 * kernels of 4-bit codes with one-row scales at M = 5..16, more blocks
 * than tiles, no shared reduction; and which block is a column's head
 * (lutmm_skinny_is_head). */
static void tags_head_rule(void) {
  CHECK(lutmm_skinny_tags_head(1, 4, 1, 8, 64, 132, 1792, 0));   /* NF4 g128 8192 x 28672, M = 8 */
  CHECK(lutmm_skinny_tags_head(1, 4, 1, 5, 64, 132, 1792, 0));   /* M = 5 */
  CHECK(!lutmm_skinny_tags_head(1, 3, 1, 8, 64, 132, 1792, 0));  /* other widths */
  CHECK(!lutmm_skinny_tags_head(1, 4, 0, 8, 64, 132, 1792, 0));  /* per-slab scales */
  CHECK(!lutmm_skinny_tags_head(1, 4, 1, 4, 64, 132, 1792, 0));  /* M <= 4: every partial tagged */
  CHECK(!lutmm_skinny_tags_head(1, 4, 1, 8, 32, 132, 448, 1));   /* the shared reduction */
  CHECK(lutmm_skinny_tags_head(2, 4, 1, 16, 64, 132, 2432, 0));  /* the 16-row kernel, M = 16 */
  CHECK(lutmm_skinny_tags_head(2, 4, 1, 9, 64, 132, 2432, 0));   /* M = 9 */
  CHECK(!lutmm_skinny_tags_head(2, 3, 1, 16, 64, 132, 2432, 0)); /* other widths */
  CHECK(!lutmm_skinny_tags_head(4, 4, 1, 32, 64, 132, 4864, 0)); /* the 32-row kernels */
  CHECK(!lutmm_skinny_tags_head(1, 4, 1, 8, 64, 28, 1792, 0));   /* one block a tile: no cut column */
  for (int64_t m = 1; m <= 8; m++) /* never with tagged partials */
    CHECK(!(lutmm_skinny_tags_head(1, 4, 1, m, 64, 132, 1792, 0) && lutmm_skinny_tags_partials(1, m, 64, 132, 1792)));
  /* 8192 x 28672 on 132 blocks: tile 0's last contributor, block 4, runs
   * units 54..66, on into tile 1 */
  CHECK(lutmm_cuda_block_of_unit(1792, 132, 63) == 4);
  CHECK(lutmm_skinny_is_head(1792, 132, 4, 64));
  /* 2 tiles of 64 units on 4 blocks: block 1 ends with tile 0 */
  CHECK(!lutmm_skinny_is_head(128, 4, 1, 64));
  CHECK(lutmm_skinny_is_head(128, 3, 1, 64)); /* on 3 blocks: 42..84 */
}

/* Blocks of a skinny launch: lutmm_skinny_grid(m, one_row, iters,
 * n_tiles, sm_count, fits). At M <= 8 a tile is 16 atom columns (1024 W
 * columns), at M = 9..16 12; iters = k/128. */
static void skinny_grid(void) {
  const int64_t room = 1 << 20; /* a workspace with room for every block */
  CHECK(lutmm_skinny_grid(1, 1, 64, 28, 132, room) == 132);  /* 8192 x 28672: 1792 units, iters/16 each */
  CHECK(lutmm_skinny_grid(1, 1, 224, 8, 132, room) == 128);  /* 28672 x 8192: 1792 units / 14 (132 was slower) */
  CHECK(lutmm_skinny_grid(1, 1, 64, 8, 132, room) == 128);   /* 8192 x 8192: 512 units / 4 */
  CHECK(lutmm_skinny_grid(1, 1, 32, 4, 132, room) == 64);    /* 4096 x 4096: 32 pairs, no finer split */
  CHECK(lutmm_skinny_grid(1, 1, 64, 1, 132, room) == 32);    /* 8192 x 1024: iters/32 (16 blocks would idle) */
  CHECK(lutmm_skinny_grid(2, 0, 64, 1, 132, room) == 64);    /* per-slab scales: iters/64 */
  CHECK(lutmm_skinny_grid(3, 1, 64, 1, 132, room) == 16);    /* M = 3 keeps iters/16 */
  CHECK(lutmm_skinny_grid(16, 1, 64, 2, 132, room) == 32);   /* M = 16, 12-warp tiles */
  CHECK(lutmm_skinny_grid(1, 1, 112, 4, 132, room) == 112);  /* 14336 x 4096: 448 / 7 = 64 < 66: iters/32 */
  CHECK(lutmm_skinny_grid(1, 1, 64, 3, 132, room) == 96);    /* 192 / 4 = 48 blocks < 66: iters/32 */
  CHECK(lutmm_skinny_grid(1, 1, 10, 1, 132, room) == 10);    /* short K: one unit a block */
  CHECK(lutmm_skinny_grid(1, 1, 64, 28, 132, 100) == 28);    /* a workspace for 100 blocks: one per tile */
  CHECK(lutmm_skinny_grid(1, 1, 64, 28, 132, 0) == 28);      /* none */
  for (int64_t iters = 1; iters <= 300; iters += 7)
    for (int64_t tiles = 1; tiles <= 40; tiles += 3)
      for (int64_t m = 1; m <= 16; m += 5) {
        const int64_t grid = lutmm_skinny_grid(m, 1, iters, tiles, 132, room);
        CHECK(grid >= 1 && grid <= 132 && grid <= tiles * iters);
      }
}

/* One block per tile for the wide kernel (lutmm_wide_whole_tiles) on the
 * H100's 132 SMs, for the shapes it was measured on: tiles of 256 x 128
 * above M = 128 and 128 x 256 above 64, a unit a k-atom (K / 64), the
 * Stream-K grid one block an SM. */
static void wide_whole_tiles(void) {
  CHECK(lutmm_wide_whole_tiles(112, 64, 112 * 64, 132, 132));    /* 4096 x 14336, M = 256: 64 <= 55 + 30 */
  CHECK(lutmm_wide_whole_tiles(112, 128, 112 * 128, 132, 132));  /* 8192 x 28672, M = 128: 128 <= 109 + 30 */
  CHECK(!lutmm_wide_whole_tiles(64, 128, 64 * 128, 132, 132));   /* 8192 x 8192, M = 256: 128 > 63 + 30 */
  CHECK(!lutmm_wide_whole_tiles(224, 128, 224 * 128, 132, 132)); /* 8192 x 28672, M = 256: two waves */
  CHECK(!lutmm_wide_whole_tiles(32, 224, 32 * 224, 132, 132));   /* 14336 x 4096, M = 256 */
  CHECK(!lutmm_wide_whole_tiles(56, 128, 56 * 128, 132, 132));   /* 8192 x 28672, M = 64: 512-column tiles */
  CHECK(!lutmm_wide_whole_tiles(32, 64, 32 * 64, 132, 132));     /* 4096 x 4096, M = 256 */
  CHECK(lutmm_wide_whole_tiles(132, 64, 132 * 64, 132, 132));    /* one wave exactly, no cut anyway */
  CHECK(!lutmm_wide_whole_tiles(133, 64, 133 * 64, 132, 132));   /* one tile more than the SMs */
  CHECK(lutmm_wide_whole_tiles(100, 64, 100 * 64, 132, 132));    /* the shortest tiles that may */
  CHECK(!lutmm_wide_whole_tiles(100, 63, 100 * 63, 132, 132));   /* shorter ones keep the split */
}

/* The even split (lutmm_wide_even_grid) against the Stream-K grid, for the
 * tile counts measured on 132 SMs, and its ranges under pick_grid's grids:
 * each block's range is nonempty and lies in one tile, each tile cut into
 * the same number of ranges. */
static void wide_even_grid(void) {
  CHECK(lutmm_wide_even_grid(64, 132) == 128); /* 8192^2 M = 256: two ways */
  CHECK(lutmm_wide_even_grid(32, 132) == 128); /* four */
  CHECK(lutmm_wide_even_grid(16, 132) == 128); /* eight */
  CHECK(lutmm_wide_even_grid(66, 132) == 132);
  CHECK(lutmm_wide_even_grid(56, 132) == 0);   /* 112 blocks: 3-12 % slower */
  CHECK(lutmm_wide_even_grid(28, 132) == 0);   /* 112 */
  CHECK(lutmm_wide_even_grid(67, 132) == 0);   /* one way: no split */
  CHECK(lutmm_wide_even_grid(8, 64) == 64);    /* a grid already short of the SMs */
  CHECK(lutmm_wide_even_grid(4, 132) == 128);  /* 8192 x 1024 M = 128: 32 ways */
  CHECK(lutmm_wide_even_grid(3, 132) == 0);    /* at most 32 ways: 96 blocks of 132 */
  CHECK(lutmm_wide_even_grid(3, 99) == 96);    /* where pick_grid's floor left 99 */
  CHECK(lutmm_wide_even_grid(0, 132) == 0);
  for (int64_t tiles = 1; tiles <= 66; tiles++)
    for (int64_t iters = 2; iters <= 300; iters += 37) {
      /* pick_grid's: at most one block an SM, each at least lutmm_split_min_units */
      const int64_t most = tiles * iters / lutmm_split_min_units(iters, LUTMM_WIDE_MAX_WAYS);
      const int64_t grid = lutmm_wide_even_grid(tiles, most < 132 ? most : 132);
      if (grid == 0) continue;
      for (int64_t b = 0; b < grid; b++) {
        const int64_t lo = lutmm_cuda_range_start(tiles * iters, (int)grid, b);
        const int64_t hi = lutmm_cuda_range_start(tiles * iters, (int)grid, b + 1);
        CHECK(hi > lo && lo / iters == (hi - 1) / iters && lo / iters == b / (grid / tiles));
      }
    }
}

/* Halved tiles (lutmm_wide_halved_grid) where the even split takes two
 * ways but drops more than a sixteenth of the 132 SMs, and only where half
 * a tile's units beat the Stream-K split's longest range and its cuts. */
static void wide_halved_grid(void) {
  CHECK(lutmm_wide_halved_grid(56, 64, 56 * 64, 132) == 112);   /* 4096 x 14336, M = 128: 32 <= 28 + 30 */
  CHECK(lutmm_wide_halved_grid(45, 64, 45 * 64, 132) == 90);    /* the fewest tiles two ways take */
  CHECK(lutmm_wide_halved_grid(44, 64, 44 * 64, 132) == 0);     /* three ways would fit: not a halving */
  CHECK(lutmm_wide_halved_grid(67, 64, 67 * 64, 132) == 0);     /* no second block for every tile */
  CHECK(lutmm_wide_halved_grid(56, 448, 56 * 448, 132) == 0);   /* 224 units against 191 + 30 */
  CHECK(lutmm_wide_halved_grid(56, 1, 56, 132) == 112);         /* the cluster rule then asks iters >= 2 */
  CHECK(lutmm_wide_halved_grid(0, 64, 0, 132) == 0);
  for (int64_t tiles = 45; tiles <= 66; tiles++)
    for (int64_t iters = 2; iters <= 300; iters += 37) {
      const int64_t grid = lutmm_wide_halved_grid(tiles, iters, tiles * iters, 132);
      for (int64_t b = 0; b < grid; b++) { /* each block one half of one tile */
        const int64_t lo = lutmm_cuda_range_start(tiles * iters, (int)grid, b);
        const int64_t hi = lutmm_cuda_range_start(tiles * iters, (int)grid, b + 1);
        CHECK(hi > lo && lo / iters == (hi - 1) / iters && lo / iters == b / 2);
      }
    }
}

/* The cluster reduction's rule (lutmm_wide_cluster_ways), and that on a
 * 227 KiB block (H100, H200) the stages of every configuration it may take
 * hold the tile it writes there. */
static void wide_cluster_ways(void) {
  const size_t room = lutmm_wide_cluster_tile_bytes(256);
  CHECK(lutmm_wide_cluster_ways(64, 2, 128, 66, 256, room));   /* 8192^2 M = 256 */
  CHECK(lutmm_wide_cluster_ways(66, 2, 64, 66, 128, room));    /* every cluster at once */
  CHECK(!lutmm_wide_cluster_ways(64, 2, 128, 60, 256, room));  /* two waves of clusters */
  CHECK(!lutmm_wide_cluster_ways(32, 4, 128, 33, 256, room));  /* four ways: measured no faster */
  CHECK(!lutmm_wide_cluster_ways(64, 1, 128, 132, 256, room)); /* no split */
  CHECK(!lutmm_wide_cluster_ways(64, 2, 1, 66, 256, room));    /* an empty part */
  CHECK(!lutmm_wide_cluster_ways(64, 2, 128, 66, 64, room));   /* 64-row tiles: no such kernel */
  CHECK(!lutmm_wide_cluster_ways(64, 2, 128, 66, 256, room - 1));
  const size_t limit = 232448; /* 227 KiB */
  for (int bits = 1; bits <= 4; bits++)
    for (int tile_m = 128; tile_m <= 256; tile_m *= 2) {
      const size_t stage = lutmm_wide_stage_bytes(bits, tile_m);
      size_t stages = (limit - lutmm_wide_smem_bytes(bits, tile_m, 0)) / stage;
      if (stages > LUTMM_WIDE_MAX_STAGES) stages = LUTMM_WIDE_MAX_STAGES;
      CHECK(stages >= 4 && stages * stage >= lutmm_wide_cluster_tile_bytes(tile_m));
    }
}

/* Whether lutmm_skinny_cluster_plan at M = 1 over tiles of 1024 columns
 * (plan_m: M rows) gives `ways` blocks a cluster and `g` clusters a tile. */
static int plan_m(int64_t m, int64_t iters, int64_t tiles, int64_t grid, const int *fit, int groups, int64_t slots,
                  int ways, int g) {
  const lutmm_skinny_clusters c = lutmm_skinny_cluster_plan(1, 4, 1, m, iters, tiles, 1024, grid, fit, groups, slots);
  return c.ways == ways && c.groups == g;
}
static int plan_is(int64_t iters, int64_t tiles, int64_t grid, const int *fit, int groups, int64_t slots, int ways,
                   int g) {
  return plan_m(1, iters, tiles, grid, fit, groups, slots, ways, g);
}

/* The skinny cluster rule (lutmm_skinny_cluster_plan), with a device that
 * holds `fit[w]` clusters of w blocks: the shortest longest part whose
 * clusters all run at once, then the fewest clusters a tile, then the most
 * blocks a cluster; taken if that part is shorter than the Stream-K
 * split's longest range or the blocks keep the Stream-K grid's but a
 * sixteenth. And that every cluster kernel's ring holds its warp's
 * partial of 8 rows per m8 block. */
static void skinny_cluster_plan(void) {
  const int64_t room = 1 << 20; /* partial slots for every group */
  int fit[LUTMM_SKINNY_MAX_CLUSTER + 1] = {0};
  for (int w = 2; w <= LUTMM_SKINNY_MAX_CLUSTER; w++) fit[w] = 132 / w; /* one GPC-free count */
  CHECK(plan_is(32, 4, 64, fit, 1, room, 16, 1));     /* 4096^2 M = 1: 64 blocks either way */
  CHECK(plan_is(224, 8, 128, fit, 1, room, 16, 1));   /* 28672 x 8192 */
  CHECK(plan_is(112, 4, 112, fit, 1, room, 0, 0));    /* 14336 x 4096: 64 blocks for 112 */
  CHECK(plan_is(32, 14, 132, fit, 1, room, 9, 1));    /* 4096 x 14336: 126 blocks for 132 */
  CHECK(plan_is(64, 28, 132, fit, 1, room, 0, 0));    /* 8192 x 28672: 112 blocks for 132 */
  CHECK(plan_is(4, 1, 4, fit, 8, room, 4, 1));        /* a part a unit at most */
  CHECK(plan_is(1, 1, 1, fit, 8, room, 0, 0));        /* nothing to cut */
  CHECK(lutmm_skinny_cluster_plan(2, 4, 0, 9, 32, 4, 768, 64, fit, 8, room).ways == 16); /* M = 9..16 too */
  CHECK(lutmm_skinny_cluster_plan(2, 1, 1, 9, 32, 4, 768, 64, fit, 8, room).ways == 0);  /* not 1-bit there */
  CHECK(lutmm_skinny_cluster_plan(4, 4, 1, 17, 32, 4, 512, 64, fit, 8, room).ways == 0); /* M > 16: no kernel */
  /* A CLUSTER kernel where the ring holds the warp's partial: every width
   * at M <= 8, all but 1-bit codes at M = 9..16, none above. */
  for (int bits = 1; bits <= 8; bits++)
    for (int one_row = 0; one_row < 2; one_row++) {
      CHECK(LUTMM_SKINNY_CLUSTER_HOLDS(1, bits, one_row));
      CHECK(LUTMM_SKINNY_CLUSTER_HOLDS(2, bits, one_row) == (bits > 1));
      CHECK(!LUTMM_SKINNY_CLUSTER_HOLDS(4, bits, one_row));
    }
  CHECK(plan_is(32, 4, 64, fit, 0, room, 0, 0));      /* no clusters asked for */
  fit[16] = 7;                                        /* a GPC short of 16 free SMs */
  CHECK(plan_is(64, 8, 128, fit, 1, room, 15, 1));    /* 8192^2: 120 blocks, 128 less a sixteenth */
  fit[15] = 7;
  CHECK(plan_is(64, 8, 128, fit, 1, room, 0, 0));     /* 14 ways: 112 blocks */
  CHECK(plan_is(32, 4, 64, fit, 1, room, 16, 1));
  int none[LUTMM_SKINNY_MAX_CLUSTER + 1] = {0};
  CHECK(plan_is(32, 4, 64, none, 8, room, 0, 0));     /* no clusters on the device */
  /* The H100's and H200's counts (cudaOccupancyMaxActiveClusters). One
   * cluster a tile (the rule before several groups) for the benchmark
   * shapes at M = 1: only 4096 x 4096. */
  const int hopper[LUTMM_SKINNY_MAX_CLUSTER + 1] = {0, 0, 66, 39, 30, 22, 17, 15, 15, 9, 7, 7, 7, 7, 7, 7, 7};
  CHECK(plan_is(32, 4, 64, hopper, 1, room, 16, 1));    /* 4096 x 4096 */
  CHECK(plan_is(64, 8, 128, hopper, 1, room, 0, 0));    /* 8192 x 8192: 9 ways, 72 blocks */
  CHECK(plan_is(224, 8, 128, hopper, 1, room, 0, 0));   /* 28672 x 8192 */
  CHECK(plan_is(112, 4, 112, hopper, 1, room, 0, 0));   /* 14336 x 4096 */
  CHECK(plan_is(32, 14, 132, hopper, 1, room, 0, 0));   /* 4096 x 14336: 8 ways, 112 blocks */
  CHECK(plan_is(64, 28, 132, hopper, 1, room, 0, 0));   /* 8192 x 28672 */
  CHECK(plan_is(64, 1, 32, hopper, 1, room, 0, 0));     /* 8192 x 1024: 16 blocks for 32 */
  CHECK(plan_is(40, 5, 66, hopper, 1, room, 16, 1));    /* 5120 x 5120: 80 blocks for 66 */
  /* Several clusters a tile. */
  CHECK(plan_is(32, 4, 64, hopper, 8, room, 16, 1));    /* 4096^2: one unit a block needs 8 clusters of 16 */
  CHECK(plan_is(64, 1, 32, hopper, 8, room, 16, 4));    /* 8192 x 1024 M = 1: 64 blocks of one unit */
  CHECK(plan_m(8, 64, 1, 16, hopper, 8, room, 16, 4));  /* and M = 3..8 (Stream-K: 16 blocks) */
  CHECK(plan_is(32, 1, 16, hopper, 8, room, 16, 2));    /* 4096 x 1024 */
  CHECK(plan_m(8, 112, 4, 64, hopper, 8, room, 4, 7));  /* 14336 x 4096 M = 3..8: 4 units a block for 7 */
  CHECK(plan_is(112, 4, 112, hopper, 8, room, 4, 7));   /* M <= 2: as long as Stream-K's, 28 KiB of sums */
  /* Ties with 2-block clusters of 8 groups: sums of 16 KiB at M = 1, 32 at
   * M = 2 (still taken), 48 at M = 3 (not). */
  CHECK(plan_is(64, 8, 128, hopper, 8, room, 2, 8));    /* 8192^2 */
  CHECK(plan_m(2, 64, 8, 128, hopper, 8, room, 2, 8));
  CHECK(plan_m(3, 64, 8, 128, hopper, 8, room, 0, 0));
  CHECK(plan_m(8, 224, 8, 128, hopper, 8, room, 0, 0)); /* 28672 x 8192 */
  CHECK(plan_m(2, 224, 8, 128, hopper, 8, room, 2, 8));
  CHECK(lutmm_skinny_cluster_plan(1, 7, 1, 2, 32, 11, 768, 128, hopper, 8, room).groups == 6); /* 4096 x 8192, 7-bit */
  CHECK(lutmm_skinny_cluster_plan(1, 7, 1, 4, 32, 11, 768, 128, hopper, 8, room).ways == 0);   /* 36 KiB */
  CHECK(plan_is(40, 5, 66, hopper, 8, room, 8, 3));     /* 5120^2: 2 units a block for 3 */
  CHECK(plan_is(64, 28, 132, hopper, 8, room, 0, 0));   /* 8192 x 28672: no more than 2 clusters of 2 a tile */
  CHECK(plan_is(32, 14, 132, hopper, 8, room, 0, 0));   /* 4096 x 14336: 112 blocks as long as 132 */
  CHECK(plan_is(64, 1, 32, hopper, 8, 3, 16, 2));       /* 3 slots: 2 groups (3 would be as long, with more sums) */
  CHECK(plan_is(64, 1, 32, hopper, 3, room, 16, 2));    /* at most 3 groups: the same */
  CHECK(plan_is(64, 1, 32, hopper, 8, 1, 0, 0));        /* 1 slot: one group, 16 blocks for 32 */
  CHECK(plan_is(64, 1, 32, hopper, 8, 0, 0, 0));        /* no workspace: 16 blocks for 32 */
  for (int64_t iters = 1; iters <= 300; iters += 7)
    for (int64_t tiles = 1; tiles <= 40; tiles += 3)
      for (int64_t grid = 1; grid <= 132; grid += 11) {
        const lutmm_skinny_clusters c =
            lutmm_skinny_cluster_plan(1, 4, 1, 8, iters, tiles, 1024, grid, hopper, 8, room);
        if (c.ways == 0) continue;
        CHECK(c.ways >= 2 && c.ways <= LUTMM_SKINNY_MAX_CLUSTER && c.groups >= 1);
        CHECK(c.groups <= LUTMM_SKINNY_MAX_CLUSTER_GROUPS && (int64_t)c.groups * c.ways <= iters);
        CHECK(tiles * c.groups <= hopper[c.ways]);
      }
  for (int bits = 1; bits <= 8; bits++)
    CHECK(LUTMM_SKINNY_RING(bits, 1, 1) * LUTMM_SKINNY_SLOT_BYTES(bits) >= 8u * 64u * sizeof(float));
}

/* Either form's block: its window and, behind it, the parts' barriers,
 * within Hopper's block. */
static void column_bytes_one(uint32_t base, int bits, int one_row, int rows) {
  const int warps = lutmm_skinny_warps(1, bits);
  const lutmm_skinny_layout l = lutmm_column_layout_at(base, bits, one_row, rows, warps);
  const size_t bytes = lutmm_column_smem_bytes(base, bits, one_row, rows, warps);
  CHECK(l.end % 16 == 0 && bytes == (size_t)(l.end - base) + LUTMM_COLUMN_MEETING_BYTES);
  if (base == HOPPER_RESERVED && bytes > HOPPER_BLOCK_LIMIT && LUTMM_COLUMN_KERNEL_EXISTS(bits, one_row, rows))
    unit_fail(__FILE__, __LINE__, "column bits %d one_row %d rows %d needs %zu bytes", bits, one_row, rows, bytes);
}

/* The column-stream kernel's layout with carried X (two sets of the
 * warps' sums, the scale entries, the table on a 64 KiB boundary, rings
 * whose slots carry an atom and its X rows), stated as needs, for every
 * instantiation within Hopper's block (one row: the skinny layout, checked
 * above, with the parts' barriers behind it); its rows for M and K; and the
 * measured rule: at M = 1..2 every code anywhere; at M = 3..4 one-row
 * codes from 32 atom columns, 7- and 8-bit ones with two units a warp. */
static void column_layout_one(uint32_t base, int bits, int one_row, int rows) {
  const int warps = lutmm_skinny_warps(1, bits);
  const lutmm_skinny_layout l = lutmm_column_layout_at(base, bits, one_row, rows, warps);
  const uint32_t ring = LUTMM_COLUMN_RING(bits, one_row, rows), slot = LUTMM_COLUMN_SLOT_BYTES(bits, rows);
  CHECK(ring >= 2 && ring <= 8 && slot % 16 == 0);
  CHECK(l.x == base && l.scales - l.x >= 2u * (uint32_t)warps * (uint32_t)rows * 64u * 4u && l.scales % 16 == 0);
  CHECK(l.gap - l.scales >= (uint32_t)warps * ring * LUTMM_SKINNY_SCALE_ENTRY(one_row));
  CHECK(l.table % LUTMM_SKINNY_TABLE_ALIGN == 0 && l.table >= l.gap && l.above == l.table + LUTMM_SKINNY_TABLE_BYTES);
  for (uint32_t w = 0; w < (uint32_t)warps; w++) {
    const uint32_t start = w < l.gap_warps ? l.gap + w * ring * slot : l.above + (w - l.gap_warps) * ring * slot;
    const int in_gap = start >= l.gap && start + ring * slot <= l.table;
    const int after_table = start >= l.above && start + ring * slot <= l.end;
    if (start % 16 != 0 || !(in_gap || after_table))
      unit_fail(__FILE__, __LINE__, "column bits %d one_row %d rows %d: warp %u's ring at %u", bits, one_row, rows, w,
                start);
  }
  column_bytes_one(base, bits, one_row, rows);
}

/* Carried X of `rows` rows as the copies place it and ldmatrix reads it
 * (column_kernel.cuh: x_carrier, x_lane_offset, and compute_atom's +32·kb
 * bytes for slab pair kb): every vector 16-byte aligned, inside the slot's
 * X part (which starts on 128 bytes) and alone; a lane's read of slab
 * pair 2..3 is the vector the copies put there; and the 8 addresses of
 * each ldmatrix matrix fall in distinct banks or coincide (rows repeated:
 * one broadcast). */
static void carried_x_one(int rows) {
  const uint32_t bytes = (uint32_t)rows * LUTMM_COLUMN_X_ROW_BYTES;
  int used[LUTMM_COLUMN_MAX_ROWS * LUTMM_COLUMN_X_ROW_BYTES / 16] = {0};
  CHECK(LUTMM_SKINNY_SLOT_BYTES(1) % 128 == 0 && bytes <= sizeof used / sizeof used[0] * 16);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < 8; c++) {
      const uint32_t at = lutmm_column_x_offset(r, c);
      CHECK(at % 16 == 0 && at + 16 <= bytes);
      if (at + 16 <= bytes) CHECK(used[at / 16]++ == 0);
    }
  for (int kb = 0; kb < 4; kb += 2)
    for (int matrix = 0; matrix < 4; matrix++) {
      uint32_t at[8];
      for (int i = 0; i < 8; i++) {
        const int lane = 8 * matrix + i, row = (lane & 7) & (rows - 1);
        at[i] = lutmm_column_x_offset(row, lane >> 3) + 32u * (uint32_t)kb;
        CHECK(at[i] == lutmm_column_x_offset(row, (lane >> 3) + 2 * kb));
      }
      for (int i = 0; i < 8; i++)
        for (int j = 0; j < i; j++) CHECK(at[i] == at[j] || (at[i] / 16) % 8 != (at[j] / 16) % 8);
    }
}

static void column_stream_rule(void) {
  for (int rows = 2; rows <= LUTMM_COLUMN_MAX_ROWS; rows *= 2) carried_x_one(rows);
  for (uint32_t base = 0; base <= 4096; base += 512)
    for (int rows = 2; rows <= LUTMM_COLUMN_MAX_ROWS; rows *= 2)
      for (int bits = 1; bits <= 8; bits++)
        for (int one_row = 0; one_row < 2; one_row++) column_layout_one(base, bits, one_row, rows);
  for (uint32_t base = 0; base <= 4096; base += 512)
    for (int bits = 1; bits <= 8; bits++)
      for (int one_row = 0; one_row < 2; one_row++) column_bytes_one(base, bits, one_row, 1);
  /* one row whole while X and the sums fit the 36 KiB region: 224 k-atoms
   * beside 16 warps' sums, 240 beside 12 warps'; else carried, 2 rows */
  CHECK(lutmm_column_rows(1, 224, 16) == 1 && lutmm_column_rows(1, 225, 16) == 2);
  CHECK(lutmm_column_rows(1, 240, 12) == 1 && lutmm_column_rows(1, 241, 12) == 2);
  CHECK(lutmm_column_rows(2, 1, 16) == 2 && lutmm_column_rows(3, 1, 16) == 4 && lutmm_column_rows(4, 448, 16) == 4);
  CHECK(LUTMM_COLUMN_MAX_ROWS == 4 && LUTMM_COLUMN_SLOT_BYTES(4, 1) == LUTMM_SKINNY_SLOT_BYTES(4));
  /* four rows: one-row codes of 2 bits and up; one and two: every code
   * width and scale (7- and 8-bit per-slab ones since change 114) */
  CHECK(LUTMM_COLUMN_KERNEL_EXISTS(2, 1, 4) && LUTMM_COLUMN_KERNEL_EXISTS(8, 1, 4));
  CHECK(!LUTMM_COLUMN_KERNEL_EXISTS(1, 1, 4) && !LUTMM_COLUMN_KERNEL_EXISTS(4, 0, 4));
  CHECK(LUTMM_COLUMN_KERNEL_EXISTS(6, 0, 2) && LUTMM_COLUMN_KERNEL_EXISTS(7, 0, 2) && LUTMM_COLUMN_KERNEL_EXISTS(8, 0, 1));
  CHECK(LUTMM_COLUMN_KERNEL_EXISTS(1, 1, 1) && LUTMM_COLUMN_KERNEL_EXISTS(1, 0, 2));
  CHECK(LUTMM_COLUMN_SLOT_BYTES(4, 4) == 2048u + 4u * 128u);
  /* M = 1..2: every code width and scale on any W, few units a warp
   * included (changes 87 and 89) */
  const int64_t widths[] = {1, 16, 31, 64, 448};
  for (int m = 1; m <= 2; m++)
    for (int bits = 1; bits <= 8; bits++)
      for (int one_row = 0; one_row < 2; one_row++)
        for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
          if (!lutmm_column_stream_pays(bits, one_row, widths[i], 64, 132, m))
            unit_fail(__FILE__, __LINE__, "column stream not paid: %d-bit, one_row %d, %lld columns, M = %d", bits,
                      one_row, (long long)widths[i], m);
  /* M = 3..4: one-row codes (their kernels) from 32 atom columns */
  CHECK(lutmm_column_stream_pays(4, 1, 448, 128, 132, 4) && lutmm_column_stream_pays(5, 1, 32, 128, 132, 3));
  CHECK(!lutmm_column_stream_pays(4, 1, 31, 128, 132, 4) && !lutmm_column_stream_pays(4, 0, 64, 128, 132, 3));
  CHECK(lutmm_column_stream_pays(3, 1, 64, 128, 132, 4) && !lutmm_column_stream_pays(2, 1, 16, 128, 132, 3));
  CHECK(!lutmm_column_stream_pays(6, 0, 448, 128, 132, 3));
  /* 12-warp codes at M = 3..4: two units a warp (2 · 12 · 132 = 3168) */
  CHECK(!lutmm_column_stream_pays(8, 1, 64, 64, 132, 4) && lutmm_column_stream_pays(8, 1, 64, 224, 132, 4));
  CHECK(lutmm_column_stream_pays(7, 1, 99, 64, 132, 3) && !lutmm_column_stream_pays(7, 1, 98, 64, 132, 3));
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"skinny_layout", skinny_layout}, {"skinny_warp_choice", skinny_warp_choice}, {"scale_entries", scale_entries},
      {"wide_layout", wide_layout},     {"wide_partial_order", wide_partial_order}, {"stream_k_ranges", stream_k_ranges},
      {"reduction_rule", reduction_rule}, {"tags_rule", tags_rule}, {"tags_head_rule", tags_head_rule},
      {"skinny_grid", skinny_grid}, {"wide_whole_tiles", wide_whole_tiles}, {"wide_even_grid", wide_even_grid},
      {"wide_halved_grid", wide_halved_grid}, {"wide_cluster_ways", wide_cluster_ways},
      {"skinny_cluster_plan", skinny_cluster_plan}, {"column_stream_rule", column_stream_rule}};
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
