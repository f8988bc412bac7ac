/* diff suite: the CPU backend against the reference at tile boundaries.
 *
 *   diff_gemm VARIANT   (portable | avx2 | avx512)
 *
 * Forces the kernel variant through LUTMM_CPU_KERNEL and exits 77 (skip)
 * when the CPU lacks it. Tiles of the backend (docs/CPU.md): 32-row chunks
 * made of two 16-row halves, 4-column blocks, 16-column tiles, 128-row
 * segments, row passes of 1-4 and 8 rows, 32-row blocks, direct feeding up
 * to M = 4 / 8, 64×64 atoms of the packed format, split-K below 253
 * columns, 512-column panels cut every 512 rows and the large-M switch at
 * M = 12 (32 for AVX-512), and the row kernel's 32-column blocks. Sizes sit
 * on, below and above each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_kernel.h"
#include "diff_harness.h"

static const int64_t kRowsM[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 32, 33, 64, 65, 255, 256};
static const int64_t kColsN[] = {1, 3, 4, 5, 15, 16, 17, 63, 64, 65, 127, 255, 256, 257};
static const int64_t kGroups[] = {16, 32, 64, 128, 0};
/* Whole-column K: half-chunk (16), chunk (32) and atom (64) boundaries. */
static const int64_t kWholeK[] = {1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 129};
static const lutmm_dtype kDtypes[] = {LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static diff_rng g_rng = {20261121};

static int64_t pick_k(int64_t group) {
  if (group == 0) return kWholeK[diff_int(&g_rng, 0, COUNT(kWholeK) - 1)];
  return group * diff_int(&g_rng, 1, group <= 32 ? 9 : 3); /* 1..9 groups: 16..144 rows for g16 */
}

static diff_case random_case(diff_mode mode, int bits, int64_t m) {
  diff_case c;
  c.mode = mode;
  c.bits = bits;
  c.m = m;
  c.group_size = kGroups[diff_int(&g_rng, 0, COUNT(kGroups) - 1)];
  c.k = pick_k(c.group_size);
  c.n = kColsN[diff_int(&g_rng, 0, COUNT(kColsN) - 1)];
  c.x_dtype = kDtypes[diff_int(&g_rng, 0, 2)];
  c.y_dtype = kDtypes[diff_int(&g_rng, 0, 2)];
  c.scale_dtype = kDtypes[diff_int(&g_rng, 0, 2)];
  c.seed = diff_next(&g_rng);
  c.x_magnitude = 0.0f;
  c.w_magnitude = 0.0f;
  return c;
}

/* Every M of the list with every code width, in both modes. */
static void sweep_rows(const diff_env *env, diff_totals *t) {
  for (int i = 0; i < COUNT(kRowsM); i++)
    for (int bits = 1; bits <= 8; bits++)
      for (int mode = DIFF_EXACT; mode <= DIFF_BOUND; mode++) {
        diff_case c = random_case((diff_mode)mode, bits, kRowsM[i]);
        if (c.m >= 64 && c.n > 65) c.n = 65; /* keeps the reference's time down */
        diff_run_case(env, &c, env->cpu, t);
      }
}

/* Every width × group size × dtype triple at M = 1 and 5. */
static void sweep_formats(const diff_env *env, diff_totals *t) {
  for (int bits = 1; bits <= 8; bits++)
    for (int g = 0; g < COUNT(kGroups); g++)
      for (int xd = 0; xd < 3; xd++)
        for (int yd = 0; yd < 3; yd++) {
          diff_case c = random_case((diff_mode)((bits + g + xd + yd) % 2), bits, (xd + yd) % 2 ? 5 : 1);
          c.group_size = kGroups[g];
          c.k = pick_k(c.group_size);
          c.x_dtype = kDtypes[xd];
          c.y_dtype = kDtypes[yd];
          c.scale_dtype = kDtypes[(bits + g) % 3];
          diff_run_case(env, &c, env->cpu, t);
        }
}

/* Column counts around the 512-column panels of the large-M path, and a
 * long K, at M on both sides of the switch. */
static void sweep_panels(const diff_env *env, diff_totals *t) {
  const int64_t cols[] = {511, 512, 513, 1030};
  const int64_t rows[] = {11, 12, 13, 33};
  for (int i = 0; i < COUNT(cols); i++)
    for (int j = 0; j < COUNT(rows); j++)
      for (int mode = DIFF_EXACT; mode <= DIFF_BOUND; mode++) {
        diff_case c = random_case((diff_mode)mode, 1 + (i * 3 + j) % 8, rows[j]);
        c.n = cols[i];
        c.group_size = 128;
        c.k = 256;
        diff_run_case(env, &c, env->cpu, t);
      }
}

/* K around the large-M path's 512-row panel cuts: cuts inside a group
 * (whole-column groups of 544 and 1024 rows, g384 over 1536), K just past
 * a cut, and padded K whose last cut holds the zeroed rows (1000, 1100).
 * The exact case of each shape has fp32 X and 1- to 4-bit codes, so that
 * aligned groups take the dequantizer that looks a table up per group
 * (and must find a cut's first group); the bound case draws 1..8 bits and
 * any X. */
static void sweep_panel_cuts(const diff_env *env, diff_totals *t) {
  const int64_t shapes[][2] = {{480, 32}, {512, 128}, {544, 0}, {576, 64}, {1000, 0},
                               {1024, 0}, {1100, 0}, {1536, 384}, {1088, 64}};
  for (int i = 0; i < COUNT(shapes); i++)
    for (int mode = DIFF_EXACT; mode <= DIFF_BOUND; mode++) {
      const int bits = mode == DIFF_EXACT ? 1 + i % 4 : 1 + (2 * i + 1) % 8;
      diff_case c = random_case((diff_mode)mode, bits, 33 + 8 * mode);
      c.k = shapes[i][0];
      c.group_size = shapes[i][1];
      c.n = 40;
      if (mode == DIFF_EXACT) c.x_dtype = LUTMM_DTYPE_F32;
      diff_run_case(env, &c, env->cpu, t);
    }
}

/* Split-K forced on and off, including splits that cut groups and more
 * splits than chunks. */
static void sweep_split_k(const diff_env *env, diff_totals *t) {
  const char *splits[] = {"1", "2", "3", "7", "64"};
  for (int s = 0; s < COUNT(splits); s++) {
    setenv("LUTMM_CPU_SPLIT_K", splits[s], 1);
    for (int bits = 1; bits <= 8; bits++)
      for (int mode = DIFF_EXACT; mode <= DIFF_BOUND; mode++) {
        diff_case c = random_case((diff_mode)mode, bits, 1 + (bits + s) % 6);
        c.n = kColsN[(bits + s) % COUNT(kColsN)];
        diff_run_case(env, &c, env->cpu, t);
      }
  }
  unsetenv("LUTMM_CPU_SPLIT_K");
}

/* Same bits for 1, 2 and 3 threads: small-M, split-K and large-M shapes. */
static void sweep_threads(const diff_env *env, diff_totals *t) {
  const int threads[] = {1, 2, 3};
  /* {40, 1030, 256}: three 512-column panels, so the large-M path's team
   * (and OpenBLAS's thread count) really changes; {40, 1030, 1536}: and
   * three 512-row cuts of each. */
  const int64_t shapes[][3] = {{1, 600, 512},   {3, 8, 2048},     {40, 300, 256},
                               {40, 1030, 256}, {40, 1030, 1536}, {7, 33, 4096}};
  for (int i = 0; i < COUNT(shapes); i++) {
    diff_case c = random_case(DIFF_BOUND, 4, shapes[i][0]);
    c.n = shapes[i][1];
    c.k = shapes[i][2];
    c.group_size = 128;
    diff_run_thread_invariance(env, &c, threads, COUNT(threads), t);
  }
}

/* The row kernel (AVX2 and AVX-512 variants: small M, fp32 X, 1- to 4-bit
 * codes): 32-column blocks, every group size, a long K; bound-mode X
 * scaled by 2^±100 (still inside the kernel's range) and 2^±120 (outside:
 * the column kernels take over); then X and W magnitudes paired so that
 * x·T sums overflow or fl(T·s) underflows, which fail without the range
 * guard (docs/CPU.md). The portable variant runs the same cases on its own
 * kernels. */
static void sweep_row_kernel(const diff_env *env, diff_totals *t) {
  const int64_t cols[] = {1, 31, 32, 33, 64, 95, 300};
  const int widths[] = {1, 2, 3, 4};
  const float magnitudes[] = {1.0f, 0x1p-120f, 0x1p-100f, 0x1p100f, 0x1p120f};
  int variety = 0;
  for (int b = 0; b < COUNT(widths); b++)
    for (int g = 0; g < COUNT(kGroups); g++)
      for (int i = 0; i < COUNT(cols); i++)
        for (int mode = DIFF_EXACT; mode <= DIFF_BOUND; mode++) {
          diff_case c = random_case((diff_mode)mode, widths[b], 1);
          c.group_size = kGroups[g];
          c.k = pick_k(c.group_size);
          c.n = cols[i];
          c.x_dtype = LUTMM_DTYPE_F32;
          c.x_magnitude = magnitudes[variety++ % COUNT(magnitudes)];
          diff_run_case(env, &c, env->cpu, t);
        }
  for (int b = 0; b < COUNT(widths); b++)
    for (int mode = DIFF_EXACT; mode <= DIFF_BOUND; mode++) {
      diff_case c = random_case((diff_mode)mode, widths[b], 1);
      c.k = 4096;
      c.n = 300;
      c.group_size = b == 1 ? 0 : 128;
      c.x_dtype = LUTMM_DTYPE_F32;
      diff_run_case(env, &c, env->cpu, t);
    }
  /* Ranges where the reassociated sum would fail and the column kernels
   * must run (docs/CPU.md): x·T sums beyond float32 while y is finite
   * (X·2^124, W·2^-60), and fp32 scales so small that fl(T·s) is
   * subnormal or 0 (W·2^-140, W·2^-148). */
  const float x_range[] = {0x1p124f, 1.0f, 1.0f}, w_range[] = {0x1p-60f, 0x1p-140f, 0x1p-148f};
  for (int b = 0; b < COUNT(widths); b++)
    for (int i = 0; i < COUNT(x_range); i++) {
      diff_case c = random_case(DIFF_BOUND, widths[b], 1 + 2 * (i % 2));
      c.n = 64;
      c.group_size = 32;
      c.k = 256;
      c.x_dtype = LUTMM_DTYPE_F32;
      c.scale_dtype = LUTMM_DTYPE_F32;
      c.x_magnitude = x_range[i];
      c.w_magnitude = w_range[i];
      diff_run_case(env, &c, env->cpu, t);
    }
  /* Several rows of X, on both sides of each width's limit (AVX2: 48, 16, 2,
   * 2 for 1..4 bits; AVX-512: 64, 64, 6, 6). */
  const int64_t rows[] = {2, 3, 6, 7, 16, 17, 48, 49, 64, 65};
  for (int b = 0; b < COUNT(widths); b++)
    for (int i = 0; i < COUNT(rows); i++)
      for (int mode = DIFF_EXACT; mode <= DIFF_BOUND; mode++) {
        diff_case c = random_case((diff_mode)mode, widths[b], rows[i]);
        c.n = cols[(b + i) % COUNT(cols)];
        c.x_dtype = LUTMM_DTYPE_F32;
        diff_run_case(env, &c, env->cpu, t);
      }
  /* Blocks split across 1, 2 and 3 threads: the same bits. */
  const int threads[] = {1, 2, 3};
  for (int b = 0; b < COUNT(widths); b++) {
    diff_case c = random_case(DIFF_BOUND, widths[b], 1);
    c.n = 600;
    c.k = 512;
    c.group_size = 64;
    c.x_dtype = LUTMM_DTYPE_F32;
    diff_run_thread_invariance(env, &c, threads, COUNT(threads), t);
  }
  /* The AVX-512 code gives the AVX2 code's bits (cpu_gemv_rows_avx512.c):
   * every width, several groups and rows, fp32 Y (a narrower Y could hide a
   * last-bit difference), and teams of 1 and 2 threads, so that blocks run
   * in pairs and a lone block follows pairs (a many-core default team
   * would leave each thread one block). */
  const char *kernel = getenv("LUTMM_CPU_KERNEL"), *rows_switch = getenv("LUTMM_CPU_ROWS");
  if (kernel == NULL || strcmp(kernel, "avx512") != 0 || (rows_switch != NULL && atoi(rows_switch) == 0)) return;
  const char *const variants[] = {"avx512", "avx2"};
  const int64_t pair_cols[] = {32, 64, 65, 96, 300};
  for (int team = 1; team <= 2; team++) {
    lutmm_context_set_num_threads(env->cpu, team);
    for (int b = 0; b < COUNT(widths); b++)
      for (int i = 0; i < COUNT(pair_cols); i++) {
        diff_case c = random_case(DIFF_BOUND, widths[b], 1 + i % 2);
        c.n = pair_cols[i];
        c.x_dtype = LUTMM_DTYPE_F32;
        c.y_dtype = LUTMM_DTYPE_F32;
        diff_run_variant_invariance(env, &c, variants, COUNT(variants), t);
      }
  }
  lutmm_context_set_num_threads(env->cpu, 0);
}

/* Weights packed by a reference context (no CPU copy of the codes). */
static void sweep_foreign_weights(const diff_env *env, diff_totals *t) {
  for (int bits = 1; bits <= 8; bits++) {
    diff_case c = random_case((diff_mode)(bits % 2), bits, bits % 2 ? 1 : 40);
    diff_run_case(env, &c, env->ref, t);
  }
}

int main(int argc, char **argv) {
  const char *variant = argc > 1 ? argv[1] : "portable";
  setenv("LUTMM_CPU_KERNEL", variant, 1);
  if (strcmp(cpu_variant_name(cpu_variant_select()), variant) != 0) {
    printf("skip: this CPU has no %s kernel\n", variant);
    return 77;
  }
  diff_env env;
  if (!diff_env_open(&env)) {
    printf("FAIL: cannot create contexts\n");
    return 1;
  }
  diff_totals t = {0, 0};
  /* The big sweeps run single-threaded: on a busy CI machine every OpenMP
   * barrier would otherwise wait for a core. Threads are covered by the
   * other sweeps and by sweep_threads. */
  static const struct {
    void (*run)(const diff_env *, diff_totals *);
    const char *name;
    int single_thread;
  } sweeps[] = {
      {sweep_rows, "rows", 1},          {sweep_formats, "formats", 1},
      {sweep_panels, "panels", 0},      {sweep_panel_cuts, "panel cuts", 0},
      {sweep_split_k, "split-k", 1},    {sweep_threads, "threads", 0},
      {sweep_foreign_weights, "foreign weights", 0}, {sweep_row_kernel, "row kernel", 0},
  };
  for (int i = 0; i < COUNT(sweeps); i++) {
    const int threads = sweeps[i].single_thread ? 1 : 0;
    lutmm_context_set_num_threads(env.cpu, threads);
    lutmm_context_set_num_threads(env.ref, threads);
    const long before = t.failures, cases = t.cases;
    const double t0 = diff_seconds();
    sweeps[i].run(&env, &t);
    printf("  %-16s %4ld cases, %ld failed, %.1f s\n", sweeps[i].name, t.cases - cases, t.failures - before,
           diff_seconds() - t0);
  }
  diff_env_close(&env);
  printf("%s: %ld cases, %ld failed\n", variant, t.cases, t.failures);
  return t.failures == 0 && t.cases > 0 ? 0 : 1;
}
