/* CUDA GEMM against the reference: exact mode (equal bits) and bound mode
 * over b = 1..8, fp16/bf16 activations, every output dtype, scale dtypes,
 * group sizes 16..K and whole-column, M from 1 to 1000, N and K below, at
 * and above every tile size; plus Stream-K shapes, columns cut many ways,
 * columns cut among 16 blocks at M >= 3 (the shared reduction of
 * cooperative launches; LUTMM_CUDA_COOPERATIVE=0 runs the last-contributor
 * one), groups of 16 and 32 over a K that ends inside an atom, a small caller
 * workspace, 33..64 rows over more than 4096 columns (the wide kernel's
 * 64-row tiles, the skinny kernel's 64-row launch), 17..32 rows over
 * weights large enough for the skinny kernel's 12-warp blocks, tagged
 * partials (across the wrap of their launch tags, and the same bits as the
 * plain launches' tickets), columns cut 8-11 ways at M = 5..8 (the shared
 * reduction's band there, and its bits against the tickets'), the HEAD
 * kernels' tagged mid-stream partials at M = 5..16 (4-bit codes, one-row
 * scales; their bits against the tickets'), cut columns
 * added by clusters (and the same bits without them) and by several
 * clusters a tile, the wide kernel's cut tiles (codes of 1..8 bits) and
 * its tiles halved by clusters (either scale layout), the column-stream
 * kernel at M = 1..4 (on one block an SM, and on the grids of fewer
 * blocks whose ranges line up with the columns), and run-to-run
 * determinism. Arguments name the groups to run (all without any). Exit
 * 77 without a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_harness.h"
#include "cuda_state.h"
#include "lutmm_cuda.h"
#include "numeric.h"

static const int64_t kM[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 64, 127, 128, 255, 256, 1000};
/* Tile widths are 64, 128 and 256 columns; k-iterations span 64, 128, 256 rows. */
static const int64_t kN[] = {1, 8, 63, 64, 65, 127, 128, 129, 255, 256, 257, 320};
static const int64_t kK[] = {16, 40, 48, 64, 80, 127, 128, 144, 255, 256, 272, 512, 528};

static int failures = 0, cases = 0;

static void run(harness *h, const gemm_case *c) {
  char why[256], name[160];
  const int r = harness_run_case(h, c, why, sizeof why, NULL);
  cases++;
  if (r != 0) {
    harness_describe(c, name, sizeof name);
    printf("FAIL %s: %s\n", name, why);
    failures++;
  }
}

/* One run of a case whose Y is kept, to compare with another run's. */
typedef struct kept_run {
  void *y;
  int rc; /* harness_run_case's result; 2 where Y could not be allocated */
  char why[256];
} kept_run;

static kept_run run_keeping_y(harness *h, const gemm_case *c) {
  const size_t bytes = (size_t)(c->m * c->n) * lutmm_dtype_size(c->y_dtype); /* as many as harness_run_case copies */
  kept_run r = {malloc(bytes), 2, ""};
  if (r.y != NULL) r.rc = harness_run_case(h, c, r.why, sizeof r.why, r.y);
  return r;
}

/* Both runs passed and gave the same bits; frees their Y. */
static void expect_same_y(const gemm_case *c, const char *what, kept_run *a, kept_run *b) {
  const size_t bytes = (size_t)(c->m * c->n) * lutmm_dtype_size(c->y_dtype);
  char name[160];
  cases += 2;
  if (a->rc != 0 || b->rc != 0 || memcmp(a->y, b->y, bytes) != 0) {
    harness_describe(c, name, sizeof name);
    printf("FAIL %s %s: results differ or failed (%d %d) %s %s\n", what, name, a->rc, b->rc, a->why, b->why);
    failures++;
  }
  free(a->y);
  free(b->y);
}

/* Case c as given (exact mode), then in bound mode with Y in X's dtype. */
static void run_exact_and_bound(harness *h, gemm_case c) {
  run(h, &c);
  c.exact = 0;
  c.y_dtype = c.x_dtype;
  run(h, &c);
}

/* The device's skinny cluster counts put aside, so that a group tests the
 * launches without clusters (lutmm_skinny_cluster_ways then says 0), and
 * put back; the column-stream kernel too, which would take their M = 1
 * cases (the group column_stream tests it). */
typedef struct saved_clusters {
  int count[LUTMM_SKINNY_MAX_CLUSTER + 1];
  int column_stream;
} saved_clusters;

/* Sets a planner setting that a group changes for its cases; returns the
 * value it had, for the group to put back. */
static int swap_setting(int *setting, int value) {
  const int was = *setting;
  *setting = value;
  return was;
}

/* The column-stream kernel put aside, where a group tests the paths it
 * would take M = 1 from, and put back. */
static int column_stream_off(harness *h) { return swap_setting(&lutmm_cuda_state_of(h->cuda)->column_stream, 0); }

static void column_stream_back(harness *h, int was) { lutmm_cuda_state_of(h->cuda)->column_stream = was; }

/* The wide kernel held to M > 32 (LUTMM_CUDA_WIDE_FROM_M=33's setting),
 * where a group tests the skinny kernel at rows wide_takes_few_rows would
 * give the wide kernel on Hopper, and put back. */
static int wide_rows_above_32(harness *h) { return swap_setting(&lutmm_cuda_state_of(h->cuda)->wide_from_m, 33); }

static void wide_rows_back(harness *h, int was) { lutmm_cuda_state_of(h->cuda)->wide_from_m = was; }

static saved_clusters clusters_off(harness *h) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  saved_clusters saved;
  memcpy(saved.count, s->skinny_clusters, sizeof saved.count);
  memset(s->skinny_clusters, 0, sizeof saved.count);
  saved.column_stream = column_stream_off(h);
  return saved;
}

static void clusters_back(harness *h, const saved_clusters *saved) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  memcpy(s->skinny_clusters, saved->count, sizeof saved->count);
  column_stream_back(h, saved->column_stream);
}

/* The shape grid: each (M, bits, dtype) takes a different (N, K, group). */
static void shape_grid(harness *h) {
  uint64_t rng = 42;
  const int nm = sizeof kM / sizeof kM[0], nn = sizeof kN / sizeof kN[0], nk = sizeof kK / sizeof kK[0];
  for (int i = 0; i < nm; i++)
    for (int bits = 1; bits <= 8; bits++)
      for (int xd = 0; xd < 2; xd++)
        for (int exact = 0; exact < 2; exact++) {
          gemm_case c;
          memset(&c, 0, sizeof c);
          c.bits = bits;
          c.m = kM[i];
          c.n = kN[(i * 5 + bits * 3 + xd) % nn];
          c.k = kK[(i * 7 + bits * 5 + xd * 3 + exact) % nk];
          c.group_size = harness_group_for(&rng, c.k);
          c.scale_dtype = (lutmm_dtype)harness_pick(&rng, 3);
          c.x_dtype = xd ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
          c.y_dtype = (lutmm_dtype)harness_pick(&rng, 3);
          c.exact = exact;
          c.x_offset = (int)harness_pick(&rng, 4) == 0;
          c.tiny_scales = (int)harness_pick(&rng, 6) == 0;
          c.seed = harness_next(&rng);
          run(h, &c);
        }
}

/* Long K and many columns: blocks split tiles' k ranges (Stream-K fixup).
 * On Hopper M = 17's 2- and 3-bit cases run the wide kernel (128-row
 * tiles, 32-row MMAs: wide_takes_few_rows), its 4-bit one the skinny
 * kernel. */
static void stream_k_shapes(harness *h) {
  const int64_t ms[] = {1, 16, 17, 33, 100};
  uint64_t rng = 7;
  for (int i = 0; i < 5; i++)
    for (int bits = 2; bits <= 4; bits++) {
      gemm_case c = {bits, ms[i], 4096, 1024 + 64 * i + 5, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32,
                     1, 0, 0, 0};
      c.x_dtype = i % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
      c.seed = harness_next(&rng);
      run(h, &c);
      c.exact = 0;
      c.y_dtype = LUTMM_DTYPE_F16;
      run(h, &c);
    }
}

/* Few columns over a long K at M <= 2: the planner cuts each column among
 * up to 64 blocks (plan_skinny), so the last contributor adds that many
 * partials. Skinny clusters, which would cut the first two shapes' tiles
 * among clusters on Hopper, are off. */
static void deep_columns(harness *h) {
  const int64_t shapes[3][2] = {{8192, 1024}, {14336, 4096}, {8192, 64}};
  uint64_t rng = 11;
  const saved_clusters saved = clusters_off(h);
  for (int i = 0; i < 3; i++)
    for (int64_t m = 1; m <= 2; m++) {
      gemm_case c = {i == 1 ? 4 : 2 + (int)m, m, shapes[i][0], shapes[i][1], i == 2 ? 32 : 128, LUTMM_DTYPE_F16,
                     LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
      c.x_dtype = m == 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
      run_exact_and_bound(h, c);
    }
  clusters_back(h, &saved);
}

/* M >= 3 over few columns and a long K: each column is cut among 16
 * blocks, so with cooperative launches (the default where the device has
 * them) the blocks that end in it share its reduction (reduce_together),
 * else its last contributor adds every partial (test_cuda_gemm_plain runs
 * this file so). Skinny clusters, which would add the 8- and 16-row
 * kernels' cut columns here, are off. 1000 columns leave the last atom column ragged, the last
 * 12-warp tile a third full; M = 3, 8, 16, 32 reach 8-, 16- and 32-row
 * blocks, groups of 32 the per-slab kernels. That the planner's rule takes
 * the shared path for these plans: unit_cuda_layout's reduction_rule. On
 * Hopper the wide kernel would take M = 32 over 1000 columns
 * (wide_takes_few_rows), so the group keeps M <= 32 on the skinny kernel,
 * as LUTMM_CUDA_WIDE_FROM_M=33 does. */
static void shared_reduction(harness *h) {
  const int64_t ms[] = {3, 8, 16, 32};
  uint64_t rng = 23;
  const int wide_from_m = wide_rows_above_32(h);
  const saved_clusters saved = clusters_off(h);
  for (int i = 0; i < 4; i++)
    for (int bits = 1; bits <= 4; bits++) {
      gemm_case c = {bits, ms[i], 4096, 1000, (i + bits) % 2 ? 32 : 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                     LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
      c.x_dtype = bits % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
      run_exact_and_bound(h, c);
    }
  clusters_back(h, &saved);
  wide_rows_back(h, wide_from_m);
}

/* Groups of 16 and 32 over a K that ends inside an atom: the skinny kernel
 * finds a slab's scale row by a shift in every atom but the last, where
 * rows past K are clamped (compute_atom). K = 1056 (g32) and 1040 (g16)
 * leave 32 and 16 rows in the last atom; M = 1 and 16, 2- and 4-bit codes. */
static void ragged_slab_rows(harness *h) {
  uint64_t rng = 13;
  for (int g = 16; g <= 32; g += 16)
    for (int bits = 2; bits <= 4; bits += 2)
      for (int64_t m = 1; m <= 16; m += 15) {
        gemm_case c = {bits, m, g == 32 ? 1056 : 1040, 320, g, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32,
                       1, 0, 0, harness_next(&rng)};
        c.x_dtype = m == 16 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
        run_exact_and_bound(h, c);
      }
}

/* Whether the last call ran the wide kernel's tiles of `tile_m` rows (0:
 * another kernel) and, unless `mma_rows` is 0, MMAs over that many rows of
 * X (lutmm_wide_mma_rows). */
static void expect_wide_launch(harness *h, const gemm_case *c, int tile_m, int mma_rows) {
  const lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  char name[160];
  if (s->last_wide_tile_m == tile_m && (mma_rows == 0 || s->last_wide_mma_rows == mma_rows)) return;
  harness_describe(c, name, sizeof name);
  printf("FAIL %s: ran %d-row wide tiles, MMAs over %d rows (expected %d, %d; 0: not the wide kernel)\n", name,
         s->last_wide_tile_m, s->last_wide_mma_rows, tile_m, mma_rows);
  failures++;
}

static void expect_wide_tile(harness *h, const gemm_case *c, int tile_m) { expect_wide_launch(h, c, tile_m, 0); }

/* 33..64 rows of X over W wider than 4096 columns: on Hopper the wide
 * kernel's 64-row tiles, elsewhere the skinny kernel's 64-row launch
 * (32-row launches with per-slab scales); on narrower W the Hopper planner
 * gives those rows to the wide kernel's 128-row tiles, so the rest of this
 * file's grid would reach neither. Codes of 1..8 bits, groups of 32 and
 * 128. */
static void rows_33_to_64(harness *h) {
  const int64_t ms[] = {33, 48, 64};
  uint64_t rng = 17;
  for (int i = 0; i < 3; i++)
    for (int bits = 1; bits <= 8; bits++) {
      const int64_t group = bits % 2 ? 128 : 32;
      gemm_case c = {bits, ms[i], 384, 4160, group, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32,
                     1, 0, 0, harness_next(&rng)};
      c.x_dtype = (i + bits) % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
      run_exact_and_bound(h, c);
      expect_wide_tile(h, &c, lutmm_cuda_state_of(h->cuda)->wide ? 64 : 0);
    }
}

/* M = 17..32 on the wide kernel (LUTMM_CUDA_WIDE_FROM_M=17's setting, so
 * every code width runs there): 64-row tiles over 4160 columns and 128-row
 * tiles over 1000, whose MMAs multiply X's first 32 rows for codes of up
 * to 4 bits (lutmm_wide_mma_rows) and every row of the tile for wider
 * ones, and for a tile a cluster adds (no 32-row kernel; these shapes
 * plan none on 132 SMs, and unit_cuda_plan checks that rule); groups of 32
 * and 128 (per-slab and one-row kernels), scales in the compute dtype and
 * not, M = 32 filling the MMA's rows. Then one case with 32-row MMAs and
 * again with LUTMM_CUDA_WIDE_MMA_ROWS=tile, whose MMAs take the tile's 64
 * (exact inputs, so both must give the reference's bits). */
static void wide_narrow_mma(harness *h) {
  const int64_t ms[] = {17, 24, 32};
  uint64_t rng = 41;
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  const int wide_from_m = swap_setting(&s->wide_from_m, 17), wide_full_mma = swap_setting(&s->wide_full_mma, 0);
  for (int i = 0; i < 3; i++)
    for (int bits = 1; bits <= 8; bits++)
      for (int narrow_w = 0; narrow_w < 2; narrow_w++) {
        gemm_case c = {bits, ms[i], 384, narrow_w ? 1000 : 4160, (i + bits) % 2 ? 32 : 128, LUTMM_DTYPE_F16,
                       LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
        c.x_dtype = (bits + narrow_w) % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
        if (bits % 3 == 0) c.scale_dtype = c.x_dtype;
        run_exact_and_bound(h, c);
        const int tile_m = narrow_w ? 128 : 64;
        const int narrow = bits <= LUTMM_WIDE_NARROW_MMA_MAX_BITS && s->last_wide_cluster_ways == 0;
        if (s->wide) expect_wide_launch(h, &c, tile_m, narrow ? 32 : tile_m);
        else expect_wide_tile(h, &c, 0);
      }
  gemm_case c = {4, 32, 384, 4160, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 43};
  run(h, &c);
  if (s->wide) expect_wide_launch(h, &c, 64, 32);
  s->wide_full_mma = 1;
  run(h, &c);
  if (s->wide) expect_wide_launch(h, &c, 64, 64);
  s->wide_from_m = wide_from_m;
  s->wide_full_mma = wide_full_mma;
}

/* 17..32 rows of X over weights large enough that every warp of the
 * default 8-warp block would stream at least 32 atoms: on Hopper the
 * planner takes the 12-warp kernel (lutmm_skinny_warps_for; 8192 x 18870 is
 * 37,760 atoms, enough for devices of up to 147 SMs). 295 atom columns
 * leave the last 12-column tile seven twelfths full, its last column
 * ragged. On Hopper the wide kernel would take the 4-bit M = 24 case
 * (wide_takes_few_rows), so the group keeps M <= 32 on the skinny kernel,
 * as LUTMM_CUDA_WIDE_FROM_M=33 does. */
static void skinny_more_warps(harness *h) {
  const int64_t ms[] = {32, 17, 24};
  uint64_t rng = 19;
  const int wide_from_m = wide_rows_above_32(h);
  for (int bits = 2; bits <= 4; bits++) {
    gemm_case c = {bits, ms[bits - 2], 8192, 18870, bits == 3 ? 64 : 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
    c.x_dtype = bits == 3 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    c.exact = bits != 2;
    run(h, &c);
  }
  wide_rows_back(h, wide_from_m);
}

/* A workspace too small for partial tiles forces one block per tile
 * (skinny clusters, which need no workspace, off). */
static void small_workspace(harness *h) {
  void *ws = NULL;
  if (lutmm_malloc(h->cuda, 4096, &ws) != LUTMM_OK || lutmm_cuda_set_workspace(h->cuda, ws, 4096) != LUTMM_OK) {
    printf("FAIL: could not lend a workspace\n");
    failures++;
    return;
  }
  const saved_clusters saved = clusters_off(h);
  gemm_case c = {4, 5, 2048, 700, 64, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 99};
  run(h, &c);
  c.m = 40;
  run(h, &c);
  clusters_back(h, &saved);
  lutmm_cuda_set_workspace(h->cuda, NULL, 0);
  lutmm_free(h->cuda, ws);
}

/* The cooperative paths a skinny launch can plan for its cut columns:
 * every partial as tagged words (M <= 4, lutmm_skinny_tags_partials), the
 * HEAD kernels' mid-stream partials so (M = 5..16, lutmm_skinny_tags_head),
 * or the shared reduction (lutmm_skinny_reduces_together). */
typedef enum { PATH_TAGGED, PATH_HEAD, PATH_SHARED } cooperative_path;
static const char *const kPathNames[] = {"tagged", "head", "shared"};

/* Whether the last call planned `path`; a tagged launch is one that took
 * a launch tag after `tag_before` without the HEAD kernel. */
static int planned(const lutmm_cuda_state *s, cooperative_path path, uint32_t tag_before) {
  if (path == PATH_TAGGED) return s->last_tag != tag_before && !s->last_skinny_head && !s->last_skinny_column;
  return path == PATH_HEAD ? s->last_skinny_head : s->last_skinny_shared;
}

/* The context's state for a group of cooperative cases, or NULL (and a
 * line saying so) where the device has no cooperative launches. */
static lutmm_cuda_state *cooperative_state(harness *h, const char *group) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  if (s->cooperative) return s;
  printf("%s: the device has no cooperative launches (or LUTMM_CUDA_COOPERATIVE=0): not run\n", group);
  return NULL;
}

/* Case c in exact and bound mode, whose launch must (`want`) or must not
 * plan `path`. */
static void run_planned(harness *h, lutmm_cuda_state *s, gemm_case c, cooperative_path path, int want,
                        const char *group) {
  const uint32_t tag_before = s->last_tag;
  run_exact_and_bound(h, c);
  if (planned(s, path, tag_before) == want) return;
  char name[160];
  harness_describe(&c, name, sizeof name);
  printf("FAIL %s %s: the launch %s the %s path\n", group, name, want ? "did not plan" : "planned", kPathNames[path]);
  failures++;
}

/* Whether the last call ran none of the cooperative paths (a tagged plan
 * is cooperative too). */
static int ran_plain(const lutmm_cuda_state *s) {
  return !s->last_skinny_cooperative && !s->last_skinny_shared && !s->last_skinny_head;
}

/* Case c (general inputs: the order of the sums shows) as the context
 * stands and through the plain path's last contributor (cooperative
 * launches off): the same bits, as each adds a column's partials in block
 * order. The first run must have planned `path`, or, where the state's
 * fault refuses cooperative launches, gone again plain. */
static void same_bits_as_plain(harness *h, lutmm_cuda_state *s, gemm_case c, cooperative_path path) {
  char what[64], name[160];
  const uint32_t tag_before = s->last_tag;
  kept_run first = run_keeping_y(h, &c);
  const int took = s->refuse_cooperative_launches ? ran_plain(s) : planned(s, path, tag_before);
  s->cooperative = 0;
  kept_run plain = run_keeping_y(h, &c);
  s->cooperative = 1;
  snprintf(what, sizeof what, "%s%s/plain", s->refuse_cooperative_launches ? "refused " : "", kPathNames[path]);
  if (!took) {
    harness_describe(&c, name, sizeof name);
    printf("FAIL %s %s: not planned\n", what, name);
    failures++;
  }
  expect_same_y(&c, what, &first, &plain);
}

/* The tagged path (lutmm_skinny_tags_partials): across the wrap of the
 * launch tags (the buffer is zeroed and the tags start again at 1) every
 * launch plans tags and every result stays exact, and its sums are the
 * plain path's bits, at M = 1..4
 * (16, 8 and 4 partials a load round trip) on 1024 x 8192 (one unit a
 * block: 8 partials a column on 64 or more SMs) and 2048 x 28672 (about 5
 * on 132 SMs). */
static void tagged_partials(harness *h) {
  lutmm_cuda_state *s = cooperative_state(h, "tagged_partials");
  if (s == NULL) return;
  const int64_t shapes[4][3] = {{1, 1024, 8192}, {2, 2048, 28672}, {3, 1024, 8192}, {4, 2048, 28672}};
  uint64_t rng = 31;
  const saved_clusters saved = clusters_off(h); /* they would add 1024 x 8192's cut columns instead */
  s->last_tag = UINT32_MAX - 3;                 /* the fourth launch wraps */
  for (int i = 0; i < 4; i++) {
    gemm_case c = {2 + i % 3, shapes[i][0], shapes[i][1], shapes[i][2], 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
    run_planned(h, s, c, PATH_TAGGED, 1, "tagged_partials");
  }
  if (s->last_tag == 0 || s->last_tag > 16) {
    printf("FAIL tagged_partials: the launch tags did not wrap (last tag %u)\n", (unsigned)s->last_tag);
    failures++;
  }
  for (int i = 0; i < 4; i++) {
    gemm_case c = {4, shapes[i][0], shapes[i][1], shapes[i][2], i == 3 ? 32 : 128, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 0, 0, 0, harness_next(&rng)};
    c.x_dtype = i % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    same_bits_as_plain(h, s, c, PATH_TAGGED);
  }
  clusters_back(h, &saved);
}

/* The shared reduction's band at M = 5..8 of the 8-row kernels (change 70):
 * columns cut into 8 to 11 partials share it, where M <= 4 would need 12.
 * K = 4096 (32 units a column) over one 1024-column tile per 9 SMs cuts
 * each column about 9 ways (4096 x 14336 on 132 SMs, the benchmark shape
 * the rule was measured on). Every case must plan the shared path; two
 * general ones must give the ticket path's bits (cooperative launches off),
 * and a third the 16-row kernel's, M = 16, whose loads differ. The 16-row
 * kernels share from 6 partials: their band below. */
static void shared_reduction_band(harness *h) {
  lutmm_cuda_state *s = cooperative_state(h, "shared_reduction_band");
  if (s == NULL) return;
  const int64_t n = 1024 * (s->sm_count / 9 > 0 ? s->sm_count / 9 : 1);
  uint64_t rng = 37;
  const saved_clusters saved = clusters_off(h);
  for (int64_t m = 5; m <= 8; m++)
    for (int bits = 2; bits <= 4; bits++) {
      gemm_case c = {bits, m, 4096, n, bits == 3 ? 64 : 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1,
                     0, 0, harness_next(&rng)};
      c.x_dtype = (m + bits) % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
      run_planned(h, s, c, PATH_SHARED, 1, "shared_reduction_band");
    }
  for (int64_t m = 6; m <= 8; m += 2) {
    gemm_case c = {4, m, 4096, n, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 0, 0, 0, harness_next(&rng)};
    c.x_dtype = m == 8 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    same_bits_as_plain(h, s, c, PATH_SHARED);
  }
  /* the 16-row kernel's loads of many partials (16 of 3 elements a lane):
   * M = 16 over 1000 columns cut 16 ways */
  gemm_case wide = {3, 16, 4096, 1000, 64, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 0, 0, 0,
                    harness_next(&rng)};
  same_bits_as_plain(h, s, wide, PATH_SHARED);
  /* the 16-row kernels' band (change 74): M = 9..16 over one 768-column
   * tile per 7 SMs, about 7 partials a column (4096 x 14336 on 132 SMs),
   * which their shares load 8 partials of 6 elements a lane at a time */
  const int64_t n16 = 768 * (s->sm_count / 7 > 0 ? s->sm_count / 7 : 1);
  for (int64_t m = 9; m <= 16; m += m == 9 ? 3 : 4) /* 9, 12, 16 */
    for (int bits = 2; bits <= 8; bits += bits == 4 ? 4 : 2) { /* 2, 4, 8 */
      gemm_case c = {bits, m, 4096, n16, m == 12 ? 64 : 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1,
                     0, 0, harness_next(&rng)};
      c.x_dtype = (m + bits) % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
      run_planned(h, s, c, PATH_SHARED, 1, "shared_reduction_band");
    }
  for (int64_t m = 12; m <= 16; m += 4) {
    gemm_case c = {m == 12 ? 3 : 4, m, 4096, n16, m == 12 ? 64 : 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F32, 0, 0, 0, harness_next(&rng)};
    c.x_dtype = m == 16 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    same_bits_as_plain(h, s, c, PATH_SHARED);
  }
  /* the 12-warp 32-row kernels (change 75): K = 20480 over one 768-column
   * tile per 12 SMs, enough atoms for 12 warps and 12 partials a column
   * (28672 x 8192 on 132 SMs), where the device's shared memory holds a
   * 12-warp block (lutmm_skinny_warps_for); on Hopper the wide kernel would
   * take these 4-bit M = 32 rows (wide_takes_few_rows), so the skinny
   * kernel keeps them as LUTMM_CUDA_WIDE_FROM_M=33 does */
  const int64_t n32 = 768 * (s->sm_count / 12 > 0 ? s->sm_count / 12 : 1);
  const int wide_from_m = wide_rows_above_32(h);
  if (lutmm_skinny_warps_for(4, 4, 1, (20480 / 64) * (n32 / 64), s->sm_count, s->smem_base, s->smem_per_block) ==
      LUTMM_SKINNY_MORE_WARPS) {
    gemm_case deep = {4, 32, 20480, n32, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0,
                      harness_next(&rng)};
    run_planned(h, s, deep, PATH_SHARED, 1, "shared_reduction_band");
    deep.bits = 2;
    deep.m = 24;
    deep.exact = 0;
    deep.x_dtype = LUTMM_DTYPE_BF16;
    same_bits_as_plain(h, s, deep, PATH_SHARED);
  } else {
    printf("shared_reduction_band: the device takes no 12-warp 32-row blocks: that case not run\n");
  }
  wide_rows_back(h, wide_from_m);
  clusters_back(h, &saved);
}

/* The HEAD kernels (lutmm_skinny_tags_head): at M = 5..16 over
 * ticket-counted columns, 4-bit codes with one-row scales, a cut column's
 * last contributor that goes on into the next tile publishes its partial
 * as tagged words, and the column's other contributors count tickets
 * without it. K = 2048 and 8192 over one tile (1024 columns at M <= 8, 768
 * above) per 5 SMs (about 5 partials a column; 8192 x 26624 on 132 SMs at
 * M <= 8): M = 5 to 16, groups of 64 and 128, each case planned so; other
 * widths and groups of 32 take the tickets alone; four general cases give
 * the ticket path's bits. */
static void head_kernel(harness *h) {
  lutmm_cuda_state *s = cooperative_state(h, "head_kernel");
  if (s == NULL) return;
  const int64_t tiles = s->sm_count / 5 > 0 ? s->sm_count / 5 : 1;
  uint64_t rng = 41;
  const saved_clusters saved = clusters_off(h);
  static const struct {
    int bits;
    int64_t m, group;
    int head;
  } cases[] = {{4, 5, 64, 1},  {4, 6, 128, 1},  {4, 7, 64, 1},  {4, 8, 128, 1},   /* the 8-row HEAD kernel */
               {4, 9, 128, 1}, {4, 12, 64, 1},  {4, 16, 128, 1},                  /* the 16-row one */
               {4, 8, 32, 0},  {2, 6, 128, 0},  {3, 7, 64, 0},  {5, 8, 128, 0},   /* per-slab, other widths */
               {4, 16, 32, 0}, {3, 12, 128, 0}, {8, 16, 64, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gemm_case c = {cases[i].bits, cases[i].m, 2048, (cases[i].m > 8 ? 768 : 1024) * tiles, cases[i].group,
                   LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
    c.x_dtype = i % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    run_planned(h, s, c, PATH_HEAD, cases[i].head, "head_kernel");
  }
  for (int64_t m = 6; m <= 16; m += m < 8 ? 2 : 4) { /* 6, 8, 12, 16 */
    gemm_case c = {4, m, 8192, (m > 8 ? 768 : 1024) * tiles, m % 8 ? 128 : 64, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F32, 0, 0, 0, harness_next(&rng)};
    c.x_dtype = m % 8 == 0 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    same_bits_as_plain(h, s, c, PATH_HEAD);
  }
  clusters_back(h, &saved);
}

/* Whether the last call ran as clusters (or, with `clustered` 0, without). */
static void expect_clusters(harness *h, const gemm_case *c, int clustered) {
  const int ways = lutmm_cuda_state_of(h->cuda)->last_skinny_cluster_ways;
  char name[160];
  if ((ways > 1) == (clustered != 0)) return;
  harness_describe(c, name, sizeof name);
  printf("FAIL %s: ran %s clusters (%d blocks a cluster)\n", name, clustered ? "without" : "with", ways);
  failures++;
}

/* Whether the last call ran as `ways` blocks a cluster, `groups` clusters a tile. */
static void expect_cluster_plan(harness *h, const gemm_case *c, int ways, int groups) {
  const lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  char name[160];
  if (s->last_skinny_cluster_ways == ways && s->last_skinny_cluster_groups == groups) return;
  harness_describe(c, name, sizeof name);
  printf("FAIL %s: ran %d blocks a cluster, %d clusters a tile (expected %d, %d)\n", name,
         s->last_skinny_cluster_ways, s->last_skinny_cluster_groups, ways, groups);
  failures++;
}

/* Case c as given (exact mode), then in bound mode with Y in X's dtype,
 * each call checked to have run as clusters (or, with `clustered` 0,
 * without). */
static void run_exact_and_bound_as(harness *h, gemm_case c, int clustered) {
  run(h, &c);
  expect_clusters(h, &c, clustered);
  c.exact = 0;
  c.y_dtype = c.x_dtype;
  run(h, &c);
  expect_clusters(h, &c, clustered);
}

/* Case c (general inputs) through clusters and through the launch without
 * them, whose Stream-K split is the same where every block takes as many
 * units as the cluster's parts: the same bits. */
static void same_bits_clustered_and_not(harness *h, gemm_case c) {
  kept_run clustered = run_keeping_y(h, &c);
  expect_clusters(h, &c, 1);
  const saved_clusters saved = clusters_off(h);
  kept_run plain = run_keeping_y(h, &c);
  expect_clusters(h, &c, 0);
  clusters_back(h, &saved);
  expect_same_y(&c, "clustered/plain", &clustered, &plain);
}

/* M <= 16, where each tile's blocks run as a cluster
 * that adds its cut columns in shared memory (lutmm_skinny_cluster_ways;
 * on Hopper): 1024 x 1024 (one tile, 8 blocks of one unit: a block also
 * reads its own ring for the ranks past 8), 2048 x 3002 (3 tiles of 16
 * units, 16 blocks each; the last tile's 15th column ragged, with a run of
 * 4 elements that N cuts after its second, its 16th past N), 4096 x 4096
 * (4 tiles of 32 units, 16 blocks of two);
 * every code width, every output dtype, one-row scales and then per-slab
 * ones (groups of 32 and 16), then M = 9..16; exact and bound results,
 * each call checked to have run as clusters, then the same bits as
 * without. */
static void skinny_clusters(harness *h) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  printf("skinny_clusters: clusters held at once, by blocks a cluster:");
  for (int w = 2; w <= LUTMM_SKINNY_MAX_CLUSTER; w++) printf(" %d:%d", w, s->skinny_clusters[w]);
  printf("\n");
  if (s->skinny_clusters[16] < 6) {
    printf("skinny_clusters: the device holds no six clusters of 16 blocks (or LUTMM_CUDA_CLUSTERS=0): not run\n");
    return;
  }
  const int64_t shapes[3][2] = {{1024, 1024}, {2048, 3002}, {4096, 4096}};
  const int64_t ms[] = {1, 2, 3, 5, 8};
  const lutmm_dtype ys[] = {LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16};
  uint64_t rng = 37;
  const int column = column_stream_off(h);
  for (int bits = 1; bits <= 8; bits++) {
    const int i = bits % 3;
    gemm_case c = {bits, ms[bits % 5], shapes[i][0], shapes[i][1], bits % 2 ? 128 : 64, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F16, ys[bits % 3], 1, 0, 0, harness_next(&rng)};
    c.x_dtype = bits % 4 < 2 ? LUTMM_DTYPE_F16 : LUTMM_DTYPE_BF16;
    run_exact_and_bound_as(h, c, 1);
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++) {
      gemm_case c = {4 - 2 * j, j ? 8 : 1 + i, shapes[i][0], shapes[i][1], 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                     LUTMM_DTYPE_F32, 0, 0, 0, harness_next(&rng)};
      same_bits_clustered_and_not(h, c);
    }
  /* Per-slab scales: groups of 32 and 16, scales in the compute dtype or
   * converted from fp16 (bf16 X), each code width once. */
  for (int bits = 1; bits <= 8; bits++) {
    const int i = (bits + 1) % 3;
    gemm_case c = {bits, ms[(bits + 2) % 5], shapes[i][0], shapes[i][1], bits % 2 ? 32 : 16, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F16, ys[bits % 3], 1, 0, 0, harness_next(&rng)};
    if (bits % 4 >= 2) {
      c.x_dtype = LUTMM_DTYPE_BF16;
      c.scale_dtype = bits % 4 == 2 ? LUTMM_DTYPE_F16 : LUTMM_DTYPE_BF16;
    }
    run_exact_and_bound_as(h, c, 1);
  }
  for (int i = 0; i < 3; i++) {
    gemm_case c = {3 + (i % 2), 1 + 3 * i, shapes[i][0], shapes[i][1], 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F32, 0, 0, 0, harness_next(&rng)};
    same_bits_clustered_and_not(h, c);
  }
  /* M = 9..16 (12-warp blocks, tiles of 768 columns), codes of 2..8 bits
   * as clusters, 1-bit codes (whose rings cannot hold 16 rows of partials)
   * without; one-row scales and per-slab ones (groups of 32 and 16, fp16
   * scales converted for bf16 X at 2 and 6 bits); then the same bits as
   * without clusters. */
  for (int bits = 1; bits <= 8; bits++) {
    const int i = bits % 3;
    gemm_case c = {bits, 9 + bits % 8, shapes[i][0], shapes[i][1], bits % 2 ? 128 : bits % 4 ? 32 : 16,
                   LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, ys[bits % 3], 1, 0, 0, harness_next(&rng)};
    c.scale_dtype = c.x_dtype = bits % 4 < 2 ? LUTMM_DTYPE_F16 : LUTMM_DTYPE_BF16;
    if (bits % 4 == 2) c.scale_dtype = LUTMM_DTYPE_F16; /* converted to bf16 as read */
    run_exact_and_bound_as(h, c, bits > 1); /* a 1-bit ring cannot hold 16 rows */
  }
  for (int i = 0; i < 3; i++) {
    gemm_case c = {4 - i, 16 - 3 * i, shapes[i][0], shapes[i][1], i == 1 ? 32 : 128, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 0, 0, 0, harness_next(&rng)};
    same_bits_clustered_and_not(h, c);
  }
  column_stream_back(h, column);
}

/* Case c (general inputs: the order of additions shows) run twice: both
 * pass and give identical bits. */
static void same_bits_twice(harness *h, gemm_case c) {
  kept_run a = run_keeping_y(h, &c);
  kept_run b = run_keeping_y(h, &c);
  expect_same_y(&c, "determinism", &a, &b);
}

/* Tiles cut among several clusters (lutmm_skinny_cluster_plan with the
 * H100's and H200's counts: 7 clusters of 16 blocks, 66 of 2), whose
 * shares' sums meet by tickets in the workspace: 4096 x 1024 (2 clusters of
 * 16 blocks of one unit), 8192 x 1002 (4; the last atom column ragged, a
 * run of 4 that N cuts after its second element), 14336 x 1024 (7: the
 * last block's loads past the 7th read group 0 again), 4096 x 8192 (8
 * tiles of 8 clusters of 2 blocks: tickets of many tiles; 7-bit codes'
 * 768-column tiles make it 11 tiles of 6; M <= 2, as beyond that this
 * tie with the Stream-K split goes to it); every code width, M = 1..8,
 * every output dtype, exact and bound. Each call is
 * checked to have run so. Then general inputs through 7 clusters a tile
 * twice: the groups' tickets may come in any order, their sums are added
 * in one, so the bits are the same. */
static void skinny_cluster_groups(harness *h) {
  const lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  if (s->skinny_clusters[16] != 7 || s->skinny_clusters[2] != 66 || s->skinny_cluster_groups < 8) {
    printf("skinny_cluster_groups: the device's cluster counts are not the H100's (or clusters are off): not run\n");
    return;
  }
  /* K, N, then ways and groups with 16-warp tiles (1024 columns) and with
   * the 12-warp tiles of 7- and 8-bit codes (768 columns) */
  const int64_t shapes[4][6] = {{4096, 1024, 16, 2, 16, 2},
                                {8192, 1002, 16, 4, 16, 2},
                                {14336, 1024, 16, 7, 8, 7},
                                {4096, 8192, 2, 8, 2, 6}};
  const int64_t ms[] = {1, 2, 3, 5, 8};
  const lutmm_dtype ys[] = {LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16};
  uint64_t rng = 41;
  const int column = column_stream_off(h);
  for (int bits = 1; bits <= 8; bits++) {
    const int i = bits % 4;
    gemm_case c = {bits, ms[bits % 5], shapes[i][0], shapes[i][1], 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                   ys[bits % 3], 1, 0, 0, harness_next(&rng)};
    c.x_dtype = bits % 4 < 2 ? LUTMM_DTYPE_F16 : LUTMM_DTYPE_BF16;
    if (i == 3 && c.m > 2) c.m = 2; /* a tie with the Stream-K split: several groups only while their sums are small */
    const int64_t *plan = shapes[i] + (bits >= 7 ? 4 : 2);
    run(h, &c);
    expect_cluster_plan(h, &c, (int)plan[0], (int)plan[1]);
    c.exact = 0;
    c.y_dtype = c.x_dtype;
    run(h, &c);
    expect_cluster_plan(h, &c, (int)plan[0], (int)plan[1]);
  }
  const gemm_case twice = {4, 5, 14336, 1024, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 0, 0, 0, 4242};
  same_bits_twice(h, twice);
  expect_cluster_plan(h, &twice, 16, 7);
  column_stream_back(h, column);
}

/* Tiles halved and each added by a cluster of its two blocks: 56 tiles of
 * 128 rows × 256 columns and 50 of 256 × 128 on fewer blocks than the
 * grid (lutmm_wide_halved_grid), 64 of 256 × 128 on 128 of the grid's
 * blocks (lutmm_wide_even_grid), one-row and per-slab scales (groups of 32
 * in the compute dtype, groups of 16 converted from fp16), 16 units a
 * tile, ragged tiles (M = 100 and 200; in the last case N, whose last
 * run of four columns is cut) and whole ones (M = 128 and 256); Y in fp32
 * (exact), then in X's dtype (bound). Where the device's SM count and
 * cluster room give that plan (an H100 or H200: 132 SMs) the case also
 * checks that it ran; elsewhere the same cases run whatever the planner
 * gives them. */
static void wide_cluster_halves(harness *h) {
  const lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  const struct {
    int bits;
    int64_t m, k, n, group, tiles;
    lutmm_dtype x, scales;
  } cases[] = {{4, 100, 1024, 56 * 256, 128, 56, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16},
               {6, 200, 1024, 50 * 128, 128, 50, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16},
               {3, 100, 1024, 56 * 256, 32, 56, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16},
               {5, 256, 1024, 64 * 128, 16, 64, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F16},
               {2, 128, 1024, 56 * 256, 64, 56, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16},
               {4, 128, 1024, 56 * 256 - 102, 128, 56, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16}};
  uint64_t rng = 31;
  for (int i = 0; i < 6; i++) {
    gemm_case c = {cases[i].bits, cases[i].m, cases[i].k, cases[i].n, cases[i].group, cases[i].scales,
                   cases[i].x, LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
    run_exact_and_bound(h, c);
    const int64_t tiles = cases[i].tiles, iters = cases[i].k / 64, even = lutmm_wide_even_grid(tiles, s->sm_count);
    const int halves = even > 0 ? even == 2 * tiles : lutmm_wide_halved_grid(tiles, iters, tiles * iters, s->sm_count) > 0;
    if (!s->wide || !halves || s->wide_clusters[2] < tiles || s->last_wide_cluster_ways == 2) continue;
    char name[160];
    harness_describe(&c, name, sizeof name);
    printf("FAIL %s: ran %d blocks a cluster (expected halved tiles, 2)\n", name, s->last_wide_cluster_ways);
    failures++;
  }
}

/* The wide kernel's cut tiles (M > 32 on a Hopper part; other devices run
 * the tiled kernel here): tiles of 64, 128 and 256 rows, ragged M and N,
 * partials in the kernel's accumulator order that the fixup maps back.
 * The first six shapes have at most half as many tiles as blocks, so each
 * tile is cut evenly into 2 to 16 parts (lutmm_wide_even_grid); 8960
 * columns at M = 256 are 70 tiles, more than half of a grid below 140
 * SMs, so the Stream-K split cuts them where it falls and most blocks end
 * two segments (slots 2b and 2b + 1); the last shape is 4 tiles of 64
 * units, each cut into LUTMM_WIDE_MAX_WAYS = 32 parts of two units on
 * 128 or more SMs, its last run of columns ragged. Then two runs of
 * general inputs with the same bits. */
static void wide_cut_tiles(harness *h) {
  const int64_t shapes[][3] = {{48, 4096, 4608}, {100, 2048, 2048}, {256, 1024, 1024}, {300, 3072, 600},
                               {256, 1024, 8192}, {130, 2048, 8200}, {256, 1024, 8960}, {128, 4096, 1000}};
  uint64_t rng = 23;
  for (int i = 0; i < 8; i++) {
    gemm_case c = {1 + i % 4, shapes[i][0], shapes[i][1], shapes[i][2], i % 2 ? 32 : 128, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
    c.scale_dtype = c.x_dtype = i % 3 == 1 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    run_exact_and_bound(h, c);
  }
  /* Codes of 5..8 bits above M = 64 (128- and 256-row tiles),
   * on a 132-SM part: per-slab scales with tiles cut evenly in 16 (the
   * fixup adds them); 64 tiles halved, each added by a cluster of its two
   * blocks (the fifth shape above, for 6-bit codes); ragged M and N in
   * fp32 scales, cut in 13; the Stream-K cut. */
  const int64_t wider[4][3] = {{100, 2048, 2048}, {256, 1024, 8192}, {300, 3072, 600}, {256, 1024, 8960}};
  for (int i = 0; i < 4; i++) {
    gemm_case c = {5 + i, wider[i][0], wider[i][1], wider[i][2], i == 0 ? 32 : 128,
                   i == 2 ? LUTMM_DTYPE_F32 : LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0,
                   harness_next(&rng)};
    c.x_dtype = i % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    run_exact_and_bound(h, c);
  }
  same_bits_twice(h, (gemm_case){4, 256, 1024, 8192, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 0, 0,
                                 0, 99});
  wide_cluster_halves(h);
}

/* Whether the last call's fixup started as the wide kernel's programmatic
 * dependent, as expected. */
static void expect_fixup_overlap(harness *h, const gemm_case *c, int overlap) {
  char name[160];
  if (lutmm_cuda_state_of(h->cuda)->last_fixup_overlap == overlap) return;
  harness_describe(c, name, sizeof name);
  printf("FAIL %s: the fixup %s the wide kernel's end\n", name, overlap ? "did not overlap" : "overlapped");
  failures++;
}

/* LUTMM_CUDA_WIDE_MAX_PARTS=8 and =1 on a Hopper part: 4 tiles of 64
 * units over 1024 columns (the last shape of wide_cut_tiles, at M = 24 by
 * the few-rows rule and at M = 128) in 8 parts of 8 units, whose fixup
 * overlaps the wide kernel's end, and in whole tiles without a fixup;
 * ragged N in the second and fourth cases, per-slab scales in the second. */
static void wide_fewer_parts(harness *h) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  const int saved = s->wide_max_parts;
  const struct {
    int most, bits;
    int64_t m, n, group;
  } cases[] = {{8, 4, 24, 1024, 128}, {8, 2, 128, 1000, 32}, {1, 3, 24, 1024, 64}, {1, 1, 128, 1000, 128}};
  uint64_t rng = 29;
  for (int i = 0; i < 4; i++) {
    s->wide_max_parts = cases[i].most;
    gemm_case c = {cases[i].bits, cases[i].m, 4096, cases[i].n, cases[i].group, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
    c.x_dtype = i % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    run_exact_and_bound(h, c);
    expect_wide_tile(h, &c, s->wide ? 128 : 0);
    expect_fixup_overlap(h, &c, s->wide && s->fixup_overlap && cases[i].most == 8);
  }
  s->wide_max_parts = saved;
}

/* The context's workspace filled with NaN (every bit set), so that a
 * partial read before the wide kernel wrote it shows in Y. */
static void poison_workspace(harness *h, cudaStream_t stream) {
  const lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  if (cudaMemsetAsync(s->workspace, 0xFF, s->workspace_bytes, stream) == cudaSuccess &&
      cudaStreamSynchronize(stream) == cudaSuccess)
    return;
  printf("FAIL: could not fill the workspace\n");
  failures++;
}

/* Cut wide tiles whose last rows lie past M: the wide kernel stores only
 * a partial's vectors with a row inside Y and the fixup reads only those
 * (store_segment), so each case runs after the workspace was filled with
 * NaN, which a read of an unstored vector would carry into Y. On a
 * Hopper part (the parts for 132 SMs): 17 rows of a 128-row tile in 32
 * parts (the few-rows rule; the fixup after the wide kernel), 24 in 8
 * parts (LUTMM_CUDA_WIDE_MAX_PARTS=8), 33 of 128 in 8 and 129 of 256 in 4
 * over 4096 columns, 200 of 256 in 16, and a second 256-row tile of one
 * row in 8; all but the first with the fixup overlapping the wide
 * kernel's end. Exact (Y in fp32) and bound. Elsewhere the same cases
 * run whatever the planner gives them. */
static void wide_partial_rows(harness *h) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  const int saved = s->wide_max_parts;
  const struct {
    int bits, most, tile_m;
    int64_t m, k, n, group;
  } cases[] = {{4, 0, 128, 17, 4096, 1024, 128},  {1, 8, 128, 24, 4096, 1024, 64},
               {2, 0, 128, 33, 4096, 4096, 64},   {3, 0, 256, 129, 4096, 4096, 128},
               {4, 0, 256, 200, 2048, 1024, 32},  {2, 0, 256, 257, 2048, 1000, 128}};
  uint64_t rng = 43;
  for (int i = 0; i < 6; i++) {
    s->wide_max_parts = cases[i].most;
    gemm_case c = {cases[i].bits, cases[i].m, cases[i].k, cases[i].n, cases[i].group, LUTMM_DTYPE_F16,
                   LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
    c.x_dtype = c.scale_dtype = i % 2 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    poison_workspace(h, 0);
    run_exact_and_bound(h, c);
    expect_wide_tile(h, &c, s->wide ? cases[i].tile_m : 0);
  }
  s->wide_max_parts = saved;
}

/* The wide kernel's fixup launched to overlap the kernel's end (Hopper:
 * its blocks wait there for the partials) and launched after it, on a
 * stream of the context's own as in the benchmark, each run after the
 * workspace was filled with NaN: the same bits, and the reference's in
 * exact mode. Tiles cut 8 ways (16 tiles) and 4 ways (32 tiles), 2 tiles
 * of W's 512 columns at M = 48 cut 32 ways, whose 64 wide blocks leave
 * idle SMs for the fixup's 64 blocks on a part of at least 128 SMs, and
 * the Stream-K split (70 tiles): the cases lutmm_cuda_fixup_overlaps asks
 * for; general inputs. Then the last, overlapped on every Hopper part,
 * as a dependent launch the device refuses: the fixup goes again plain. */
static void wide_fixup_overlap(harness *h) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  const int64_t shapes[][3] = {{128, 4096, 4096}, {128, 4096, 8192}, {48, 4096, 512}, {256, 1024, 8960}};
  const int bits[] = {2, 3, 4, 4};
  /* 64 wide blocks and the fixup's 2 tiles x 32 blocks of 1024 outputs,
   * counted here rather than by the planner's helper, so that a wrong
   * rule or helper fails the expectation */
  const int idle_sms_needed = 64 + 2 * 32;
  const int was = s->fixup_overlap;
  cudaStream_t stream = NULL;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
      lutmm_cuda_set_stream(h->cuda, stream) != LUTMM_OK) {
    printf("FAIL: could not give the context a stream of its own\n");
    failures++;
    return;
  }
  uint64_t rng = 41;
  gemm_case c;
  for (int i = 0; i < 4; i++) {
    const int overlaps = s->wide && was != 0 && (i != 2 || s->sm_count >= idle_sms_needed);
    c = (gemm_case){bits[i], shapes[i][0], shapes[i][1], shapes[i][2], 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16,
                    i == 1 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16, 0, 0, 0, harness_next(&rng)};
    poison_workspace(h, stream);
    kept_run overlapped = run_keeping_y(h, &c);
    expect_fixup_overlap(h, &c, overlaps);
    s->fixup_overlap = 0;
    poison_workspace(h, stream);
    kept_run after = run_keeping_y(h, &c);
    expect_fixup_overlap(h, &c, 0);
    s->fixup_overlap = was;
    expect_same_y(&c, "overlapped/after", &overlapped, &after);
    c.exact = 1;
    c.y_dtype = LUTMM_DTYPE_F32;
    poison_workspace(h, stream);
    run(h, &c);
    expect_fixup_overlap(h, &c, overlaps);
  }
  s->refuse_dependent_launches = 1;
  poison_workspace(h, stream);
  run(h, &c);
  expect_fixup_overlap(h, &c, 0);
  s->refuse_dependent_launches = 0;
  if (lutmm_cuda_set_stream(h->cuda, 0) != LUTMM_OK || cudaStreamDestroy(stream) != cudaSuccess) {
    printf("FAIL: could not give the context its default stream back\n");
    failures++;
  }
}

/* Tiles the wide kernel writes straight to Y: with K = 64 a tile is one
 * unit and every block holds two or more, so each segment is a whole tile.
 * Tiles inside Y take the store without bounds tests (store_inside_tile),
 * the ragged last ones in M or N the general store; each case in each Y
 * dtype, for tiles of 64, 128 and 256 rows, one-row scales in the compute
 * dtype, converted one-row scales (fp32, and 8-bit codes, which keep the
 * converting kernel) and per-slab scales. */
static void wide_tiles_to_y(harness *h) {
  const struct {
    int bits;
    int64_t m, n, group;
    lutmm_dtype scales, x;
    int tile_m;
  } cases[] = {{4, 64, 4600, 64, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, 64},
               {2, 128, 1000, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16, 128},
               {1, 256, 2048, 64, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, 256},
               {3, 300, 1024, 64, LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, 256},
               {8, 256, 1000, 64, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, 256}};
  const int wide = lutmm_cuda_state_of(h->cuda)->wide;
  uint64_t rng = 37;
  for (int i = 0; i < 5; i++)
    for (int y = 0; y < 3; y++) {
      gemm_case c = {cases[i].bits, cases[i].m, 64, cases[i].n, cases[i].group, cases[i].scales, cases[i].x,
                     (lutmm_dtype)y, 1, 0, 0, harness_next(&rng)};
      run(h, &c);
      expect_wide_tile(h, &c, wide ? cases[i].tile_m : 0);
    }
}

/* Launches the device refuses as clusters (the state's test fault) go
 * again without them and still give the reference's bits: halved wide
 * tiles (the fixup then adds the halves), wide tiles cut evenly, skinny
 * clusters of one and of several groups a tile, per-slab scales. Each case
 * first runs as planned, to check that it asks for clusters on this device
 * (where it does not, the refusal has nothing to refuse). */
static void refused_cluster_launches(harness *h) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(h->cuda);
  const gemm_case cases[] = {
      {4, 100, 1024, 56 * 256, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 51},
      {5, 256, 1024, 64 * 128, 16, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 52},
      {3, 200, 1024, 50 * 128, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 53},
      {4, 1, 4096, 4096, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 54},
      {2, 5, 14336, 1024, 128, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 55},
      {6, 12, 4096, 4096, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 56}};
  int refused = 0;
  const int column = column_stream_off(h);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    run(h, &cases[i]);
    if (s->last_wide_cluster_ways < 2 && s->last_skinny_cluster_ways < 2) continue;
    s->refuse_cluster_launches = 1;
    run_exact_and_bound(h, cases[i]);
    s->refuse_cluster_launches = 0;
    refused++;
    if (s->last_wide_cluster_ways == 0 && s->last_skinny_cluster_ways == 0) continue;
    char name[160];
    harness_describe(&cases[i], name, sizeof name);
    printf("FAIL %s: a refused cluster launch reports %d (wide) / %d (skinny) blocks a cluster\n", name,
           s->last_wide_cluster_ways, s->last_skinny_cluster_ways);
    failures++;
  }
  column_stream_back(h, column);
  printf("refused_cluster_launches: %d of %d cases planned clusters and ran again without them\n", refused,
         (int)(sizeof cases / sizeof cases[0]));
  /* On a part with the wide kernel and room for clusters (an H100 or
   * H200: 132 SMs) every case plans them; a refusal left untested there is
   * a failure, not a skip. */
  if (s->wide && s->wide_clusters[2] >= 64 && s->skinny_clusters[16] >= 6 && s->skinny_cluster_groups >= 8 &&
      s->sm_count == 132 &&
      refused != (int)(sizeof cases / sizeof cases[0])) {
    printf("FAIL refused_cluster_launches: only %d cases planned clusters on a 132-SM part\n", refused);
    failures++;
  }
}

/* Cooperative launches the device refuses as too large (the state's test
 * fault) go again as plain launches: each case first runs as planned and
 * must ask for its cooperative path; refused, it must run plain and give
 * the bits of a context without cooperative launches (same_bits_as_plain),
 * then the reference's in exact and bound mode. Tags at M = 1, the shared
 * reduction at M = 6, the 8- and 16-row HEAD kernels at M = 8 and 16 (the
 * shapes of the groups above). */
static void refused_cooperative_launches(harness *h) {
  lutmm_cuda_state *s = cooperative_state(h, "refused_cooperative_launches");
  if (s == NULL) return;
  const int64_t band = 1024 * (s->sm_count / 9 > 0 ? s->sm_count / 9 : 1);
  const int64_t tiles = s->sm_count / 5 > 0 ? s->sm_count / 5 : 1;
  const struct {
    cooperative_path path;
    gemm_case c;
  } refusals[] = {
      {PATH_TAGGED, {4, 1, 1024, 8192, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 0, 0, 0, 61}},
      {PATH_SHARED, {3, 6, 4096, band, 64, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 0, 0, 0, 62}},
      {PATH_HEAD, {4, 8, 2048, 1024 * tiles, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 0, 0, 0, 63}},
      {PATH_HEAD, {4, 16, 2048, 768 * tiles, 128, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 0, 0, 0, 64}}};
  const saved_clusters saved = clusters_off(h); /* they would add some of these columns instead */
  for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
    gemm_case c = refusals[i].c;
    c.exact = 1;
    run_planned(h, s, c, refusals[i].path, 1, "refused_cooperative_launches");
    s->refuse_cooperative_launches = 1;
    same_bits_as_plain(h, s, refusals[i].c, refusals[i].path);
    run_exact_and_bound(h, c);
    s->refuse_cooperative_launches = 0;
  }
  clusters_back(h, &saved);
}

/* The state for a group of column-stream cases: NULL (and why) without
 * cooperative launches or with LUTMM_CUDA_COLUMN_STREAM=0. */
static lutmm_cuda_state *column_state(harness *h, const char *group) {
  lutmm_cuda_state *s = cooperative_state(h, group);
  if (s != NULL && !s->column_stream) {
    printf("%s: LUTMM_CUDA_COLUMN_STREAM=0: not run\n", group);
    return NULL;
  }
  return s;
}

/* Case c's column-stream units, and in `iters` a column's. */
static int64_t column_units(const gemm_case *c, int64_t *iters) {
  *iters = ((c->k + 63) / 64 + 1) / 2;
  return (c->n + 63) / 64 * *iters;
}

/* Whether the planner's rules give case c the column-stream kernel. */
static int column_stream_expected(const lutmm_cuda_state *s, const gemm_case *c) {
  const int64_t k_atoms = (c->k + 63) / 64, n_atoms = (c->n + 63) / 64;
  const int one_row = c->group_size == 0 || c->group_size % 64 == 0 || c->group_size >= c->k;
  const int rows = lutmm_column_rows(c->m, k_atoms, lutmm_skinny_warps(1, c->bits));
  int64_t iters;
  const int64_t units = column_units(c, &iters);
  return s->column_stream && c->m <= LUTMM_COLUMN_MAX_ROWS && LUTMM_COLUMN_KERNEL_EXISTS(c->bits, one_row, rows) &&
         units <= INT32_MAX &&
         (s->column_stream == 2 || lutmm_column_stream_pays(c->bits, one_row, n_atoms, k_atoms, s->sm_count, c->m));
}

/* Runs each case in exact and bound mode and checks that its launch took
 * the column-stream kernel exactly where the rules say; returns how many
 * took it. */
static int column_cases(harness *h, const lutmm_cuda_state *s, const char *group, const gemm_case *all, size_t count) {
  int taken = 0;
  for (size_t i = 0; i < count; i++) {
    const int want = column_stream_expected(s, &all[i]);
    run_exact_and_bound(h, all[i]);
    taken += s->last_skinny_column;
    if (s->last_skinny_column == want) continue;
    char name[160];
    harness_describe(&all[i], name, sizeof name);
    printf("FAIL %s %s: the launch %s the column-stream kernel\n", group, name, want ? "did not take" : "took");
    failures++;
  }
  return taken;
}

/* The column-stream kernel (M = 1..4, cooperative launches, any K):
 * each case in exact and bound mode, planned as the rules say. 1024 x
 * 8192 (8 units a column, about 7.8 a block on 132 SMs: ranges inside one
 * column, so columns cut 2 and 3 ways, a middle part published at its
 * block's end), 8192 x 28672 NF4 (3.4 columns a block: one cut a column,
 * some whole), K of 65 atoms (a column's last unit one atom) over a ragged
 * N with per-slab scales, and K = 4128 (the last atom half past K) with
 * groups of 32, K = 14336 with 4-bit codes and 15360 with 8-bit ones (the
 * most X one whole row holds beside 16 and 12 warps), K = 14336 with 12
 * warps, K = 14400 and 28672 at M = 1 (X carried in the ring), one unit (a
 * grid of one block), every width, X one element past a 16-byte boundary
 * (X staged by stores) at M = 1, 2 and 3, M = 2, 3 (a zero row in the
 * 4-row kernel) and 4 on cut and whole columns, K = 20000 with M = 4 (the
 * last atom half past K, a column's last unit one atom), one unit a column
 * (K = 128: about three parts a block, one unit each, so most warps have
 * none and wait for a set of sums two parts back to be free) and two
 * (K = 192 at M = 4, the second unit one atom), two runs' bits at M = 1
 * and 4, 2-bit codes on 8192 columns (the skinny kernel's until change
 * 87), 2-bit codes at M = 4 over K of 65 atoms and 3-bit ones at M = 3
 * (their 4-row kernels: change 90), one-row groups of 192 (not a
 * power-of-two number of atoms) over K of 63 atoms at M = 2, per-slab scale
 * rows as the fetcher copies them (change 92): fp32 groups of 32 (every
 * lane a vector) at M = 1 and, with 5-bit codes, at M = 2, groups of 16
 * over K = 4112 (the last atom a quarter inside K: the general copy for it
 * alone), per-slab 7- and 8-bit codes (change 114: 7-bit groups of 32 at
 * M = 2 over K = 4128, 8-bit bf16 groups of 16 with X's row whole at the
 * 12-warp limit K = 15360, 7-bit fp32 groups of 32 at M = 1 with X
 * carried past it, 8-bit groups of 32 on 4096 columns), and cases the
 * rules leave to the skinny kernel: per-slab scales at M = 4, 1-bit codes
 * at M = 4, M = 5.
 * Clusters stay on: the column-stream plan comes first. Then a refused
 * cooperative launch, which must go again on the skinny kernel. */
static void column_stream(harness *h) {
  lutmm_cuda_state *s = column_state(h, "column_stream");
  if (s == NULL) return;
  const gemm_case all[] = {
      {4, 1, 1024, 8192, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 71},
      {4, 1, 8192, 28672, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 72},
      {3, 1, 4160, 3000, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 73},
      {8, 1, 14336, 4096, 64, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 74},
      {4, 1, 64, 64, 64, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 75},
      {1, 1, 2048, 4096, 0, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 76},
      {5, 1, 3072, 2112, 16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 77},
      {6, 1, 2048, 5120, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 78},
      {7, 1, 6144, 1536, 64, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 1, 0, 79},
      {2, 1, 4096, 4032, 64, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 80},
      {4, 1, 14400, 1024, 64, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 81},
      {2, 1, 1024, 8192, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 82},
      {8, 1, 4096, 4096, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 84},
      {4, 1, 4128, 2560, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 85},
      {8, 1, 15360, 1024, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 86},
      {4, 2, 8192, 28672, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 87},
      {4, 3, 1024, 8192, 64, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 1, 0, 88},
      {4, 1, 14336, 1024, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 97},
      {4, 4, 28672, 2048, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, 1, 0, 0, 89},
      {4, 1, 28672, 2048, 128, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 96},
      {5, 2, 4160, 3000, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 90},
      {8, 4, 20000, 2048, 0, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 91},
      {6, 2, 2048, 5120, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 1, 0, 92},
      {3, 4, 4096, 4096, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 93},
      {4, 5, 4096, 4096, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 94},
      {4, 1, 128, 25600, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 98},
      {4, 4, 192, 16384, 64, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 99},
      {3, 3, 2048, 4096, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 100},
      {2, 4, 4160, 8192, 64, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 101},
      {1, 4, 2048, 4096, 0, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 102},
      {4, 2, 4032, 3000, 192, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 103},
      {4, 1, 4096, 2048, 32, LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 104},
      {5, 2, 2048, 3000, 32, LUTMM_DTYPE_F32, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 105},
      {3, 1, 4112, 2048, 16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 106},
      {7, 2, 4128, 2048, 32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 107},
      {8, 1, 15360, 1024, 16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 108},
      {7, 1, 16384, 2048, 32, LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 109},
  };
  /* these cases' cuts as described: one block an SM */
  const int rule_grid = s->column_grid;
  s->column_grid = s->sm_count;
  int taken = column_cases(h, s, "column_stream", all, sizeof all / sizeof all[0]);
  const gemm_case twice[] = {{4, 1, 4096, 14336, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, 0, 0, 0, 83},
                              {4, 4, 4096, 14336, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, 0, 0, 0, 95}};
  for (size_t i = 0; i < sizeof twice / sizeof twice[0]; i++) {
    same_bits_twice(h, twice[i]);
    taken += s->last_skinny_column;
    if (s->last_skinny_column != column_stream_expected(s, &twice[i])) {
      printf("FAIL column_stream: a two-run case's plan is not the rules'\n");
      failures++;
    }
  }
  s->column_grid = rule_grid;
  const int cases = (int)(sizeof all / sizeof all[0] + sizeof twice / sizeof twice[0]);
  /* a device of 132 SMs takes it in 36 of these 39 */
  const int expected = 36;
  printf("column_stream: %d of %d cases took the column-stream kernel\n", taken, cases);
  if (s->sm_count == 132 && taken != expected) {
    printf("FAIL column_stream: %d cases took the column-stream kernel on a 132-SM part, not %d\n", taken, expected);
    failures++;
  }
  s->refuse_cooperative_launches = 1;
  run_exact_and_bound(h, all[0]);
  s->refuse_cooperative_launches = 0;
  if (s->last_skinny_column || s->last_skinny_cooperative) {
    printf("FAIL column_stream: a refused cooperative launch did not go again on the skinny kernel\n");
    failures++;
  }
}

/* Per-slab scale rows that slabs open at any position: the column stream
 * reads a slab's row only where the slab opens one (compute_atom's
 * OPENED_ROWS, change 117). Groups of 48 open a row at slab 1, 2 or 3 of
 * every atom, groups of 80 at any slab or none, groups of 96 and 160 at
 * slab 2 or none; K = 4128 ends inside an atom (rows past K clamped).
 * Each code width once, even ones at M = 1 and odd ones at M = 2, fp16 or
 * bf16 scales and X; then fp32 groups of 48 at M = 1, whose entries are
 * converted in place. Each case in exact and bound mode, planned as the
 * rules say (M <= 2: the column-stream kernel wherever it runs). */
static void column_opened_rows(harness *h) {
  lutmm_cuda_state *s = column_state(h, "column_opened_rows");
  if (s == NULL) return;
  const struct {
    int64_t group, k;
  } sizes[] = {{48, 4128}, {80, 4160}, {96, 4128}, {160, 4160}};
  gemm_case all[9];
  uint64_t rng = 29;
  for (int bits = 1; bits <= 8; bits++) {
    const int g = bits % 4;
    const lutmm_dtype dtype = bits % 3 == 0 ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
    all[bits - 1] = (gemm_case){bits, 1 + bits % 2, sizes[g].k, 960 + 64 * bits, sizes[g].group, dtype,
                               dtype, LUTMM_DTYPE_F32, 1, 0, 0, harness_next(&rng)};
  }
  all[8] = (gemm_case){4, 1, 4128, 2048, 48, LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 110};
  const int count = (int)(sizeof all / sizeof all[0]);
  const int taken = column_cases(h, s, "column_opened_rows", all, sizeof all / sizeof all[0]);
  printf("column_opened_rows: %d of %d cases took the column-stream kernel\n", taken, count);
  if (taken == 0) {
    printf("FAIL column_opened_rows: no case took the column-stream kernel\n");
    failures++;
  }
}

/* The column stream's grid rule (lutmm_column_grid): on a 132-SM part 128
 * blocks whose ranges line up with the columns. 4096 x 4096 (half a
 * column a block: every column cut once, in its middle, the second half's
 * part published at its block's end), 8192 x 1024 at M = 2 (an eighth of
 * a column a block: each column's first block adds 7 parts, each another
 * block's whole range), 14336 x 4096 at M = 4 (half a column, 56 units: 3
 * or 4 a warp), 8192 x 8192 with 3-bit codes (one whole column a block, no
 * cut) and 28672 x 8192 with 8-bit codes (12-warp blocks, one column of
 * 224 units). Each launch's grid must be the rule's, whatever the SMs.
 * Then a grid set as LUTMM_CUDA_COLUMN_GRID sets it, whose ranges cut
 * across columns. */
static void column_grid(harness *h) {
  lutmm_cuda_state *s = column_state(h, "column_grid");
  if (s == NULL) return;
  const gemm_case all[] = {
      {4, 1, 4096, 4096, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 107},
      {2, 2, 8192, 1024, 64, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 108},
      {4, 4, 14336, 4096, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 109},
      {3, 1, 8192, 8192, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, 1, 0, 0, 110},
      {8, 1, 28672, 8192, 128, LUTMM_DTYPE_BF16, LUTMM_DTYPE_BF16, LUTMM_DTYPE_F32, 1, 0, 0, 111},
  };
  const int rule_grid = s->column_grid;
  s->column_grid = 0; /* the rule, whatever LUTMM_CUDA_COLUMN_GRID says */
  int lined_up = 0;
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    int64_t iters;
    const int64_t units = column_units(&all[i], &iters);
    const int64_t want = lutmm_column_grid(units, iters, s->sm_count);
    const int column = column_stream_expected(s, &all[i]);
    run_exact_and_bound(h, all[i]);
    char name[160];
    harness_describe(&all[i], name, sizeof name);
    if (s->last_skinny_column != column) {
      printf("FAIL column_grid %s: the launch %s the column-stream kernel\n", name, column ? "did not take" : "took");
      failures++;
    } else if (column && s->last_skinny_grid != want) {
      printf("FAIL column_grid %s: %d blocks, not the rule's %lld\n", name, s->last_skinny_grid, (long long)want);
      failures++;
    }
    lined_up += column && s->last_skinny_grid == want && want < s->sm_count;
  }
  /* LUTMM_CUDA_COLUMN_GRID=100: ranges of 15.5 units across columns of 33
   * (K of 65 atoms), each column cut three or four ways */
  const gemm_case set = {3, 1, 4160, 3000, 64, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 1, 0, 0, 112};
  s->column_grid = 100;
  run_exact_and_bound(h, set);
  const int set_grid = s->sm_count < 100 ? s->sm_count : 100;
  if (!s->last_skinny_column || s->last_skinny_grid != set_grid) {
    printf("FAIL column_grid: LUTMM_CUDA_COLUMN_GRID=100 ran %s on %d blocks, not the column stream on %d\n",
           s->last_skinny_column ? "the column stream" : "another kernel", s->last_skinny_grid, set_grid);
    failures++;
  }
  s->column_grid = rule_grid;
  printf("column_grid: %d of %zu cases on lined-up ranges of fewer blocks than SMs\n", lined_up,
         sizeof all / sizeof all[0]);
  if (s->sm_count == 132 && lined_up != (int)(sizeof all / sizeof all[0])) {
    printf("FAIL column_grid: %d cases lined up on a 132-SM part, not all\n", lined_up);
    failures++;
  }
}

/* Same inputs, two runs, identical bits (general inputs: order matters). */
static void determinism(harness *h) {
  same_bits_twice(h, (gemm_case){4, 8, 8192, 2048, 128, LUTMM_DTYPE_F16, LUTMM_DTYPE_F16, LUTMM_DTYPE_F32, 0, 0, 0, 1234});
}

/* The groups in the order they run; test_cuda_gemm NAME... runs only the
 * named ones (a change's own groups on a GPU without the whole file). */
static const struct {
  const char *name;
  void (*run)(harness *h);
} groups[] = {
    {"shape_grid", shape_grid},
    {"stream_k_shapes", stream_k_shapes},
    {"deep_columns", deep_columns},
    {"shared_reduction", shared_reduction},
    {"ragged_slab_rows", ragged_slab_rows},
    {"rows_33_to_64", rows_33_to_64},
    {"wide_narrow_mma", wide_narrow_mma},
    {"skinny_more_warps", skinny_more_warps},
    {"small_workspace", small_workspace},
    {"tagged_partials", tagged_partials},
    {"shared_reduction_band", shared_reduction_band},
    {"head_kernel", head_kernel},
    {"skinny_clusters", skinny_clusters},
    {"skinny_cluster_groups", skinny_cluster_groups},
    {"wide_cut_tiles", wide_cut_tiles},
    {"wide_fewer_parts", wide_fewer_parts},
    {"wide_fixup_overlap", wide_fixup_overlap},
    {"wide_partial_rows", wide_partial_rows},
    {"wide_tiles_to_y", wide_tiles_to_y},
    {"refused_cluster_launches", refused_cluster_launches},
    {"refused_cooperative_launches", refused_cooperative_launches},
    {"column_stream", column_stream},
    {"column_opened_rows", column_opened_rows},
    {"column_grid", column_grid},
    {"determinism", determinism},
};

#define GROUP_COUNT (sizeof groups / sizeof groups[0])

/* The index of the group named `name`, GROUP_COUNT for none. */
static size_t group_index(const char *name) {
  size_t g = 0;
  while (g < GROUP_COUNT && strcmp(groups[g].name, name) != 0) g++;
  return g;
}

/* Whether the command line chose group g: every group without arguments. */
static int chosen(size_t g, int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (group_index(argv[i]) == g) return 1;
  return argc <= 1;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (group_index(argv[i]) == GROUP_COUNT) {
      fprintf(stderr, "test_cuda_gemm: no group named '%s'\n", argv[i]);
      return 2;
    }
  setvbuf(stdout, NULL, _IOLBF, 0); /* each line out as it is written, for runs cut short */
  harness h;
  const int open = harness_open(&h);
  if (open != 0) return open;
  for (size_t g = 0; g < GROUP_COUNT; g++)
    if (chosen(g, argc, argv)) groups[g].run(&h);
  harness_close(&h);
  printf("%d cases, %d failures\n", cases, failures);
  return failures == 0 ? 0 : 1;
}
