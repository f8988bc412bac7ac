/* Random differential cases, CUDA vs reference, alternating exact and bound
 * mode, until a case count or a time limit; prints the case count and the
 * shape distribution. Usage: cuda_fuzz [--cases N] [--seconds S] [--seed X]
 * [--workspace BYTES] [--shapes all|column]. --workspace lends the context a
 * workspace of that many bytes (a small one gives every Stream-K launch one
 * block per tile); --shapes column draws every case at M = 1..4, half
 * over 32 to 64 atom columns and half over 133 to 400 with a short K (a
 * block's range then spans three or four columns), so that a short
 * sanitizer run meets the column-stream kernel in most of its cases.
 * Exit 0 clean, 1 on any mismatch, 77 without a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_harness.h"
#include "cuda_state.h"
#include "lutmm_cuda.h"

typedef struct tally {
  long cases, exact, bound, failures;
  long m_bins[5], bits[9], x_dtype[3], whole_column, tiny, wide_w, deep_k, column_w;
  long column_launches[9]; /* cases whose launch took the column-stream kernel, by M (1..8) */
  long skinny_rows;        /* cases held to LUTMM_CUDA_WIDE_FROM_M=33's setting (keeps_skinny_rows) */
  long long max_m, max_k, max_n;
} tally;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Small M most of the time (the product's use), sometimes up to 1100. */
static int64_t random_m(uint64_t *s) {
  const int64_t r = harness_pick(s, 100);
  if (r < 60) return 1 + harness_pick(s, 16);
  if (r < 85) return 17 + harness_pick(s, 48);
  if (r < 97) return 65 + harness_pick(s, 200);
  return 265 + harness_pick(s, 836);
}

static int column_shapes_only; /* --shapes column */

static void random_case(uint64_t *s, long index, gemm_case *c) {
  memset(c, 0, sizeof *c);
  c->bits = 1 + (int)harness_pick(s, 8);
  c->m = random_m(s);
  /* One case in 16 over W wider than 4096 columns with a short K: on
   * Hopper the wide kernel's 64-row tiles (up to M = 64, from M = 17 or 24
   * where wide_takes_few_rows says) take only such W. */
  const int wide_w = !column_shapes_only && harness_pick(s, 16) == 0;
  /* One in 16 of the others over a long K and at most 1100 columns: on
   * Hopper, tiles cut among several clusters (lutmm_skinny_cluster_plan),
   * else columns cut among many blocks. */
  const int deep = !wide_w && !column_shapes_only && harness_pick(s, 16) == 0;
  /* One in 8 of the rest at M = 1..8 over 32 to 64 atom columns: the
   * column-stream kernel's shapes (one-row codes of 2 bits and up take it
   * at M = 3..4 only from 32 atom columns) and the skinny kernel's M block
   * 1 beside them, columns cut among 2 to 4 blocks. */
  const int column = column_shapes_only || (!wide_w && !deep && harness_pick(s, 8) == 0);
  if (column) c->m = 1 + harness_pick(s, column_shapes_only ? 4 : 8);
  /* --shapes column: half its cases over 133 to 400 atom columns and K of
   * 1..4 atoms, so that a block's range spans three or four columns and
   * its warps write each set of sums twice (part_meeting's `empty`
   * barrier). */
  const int many_parts = column_shapes_only && harness_pick(s, 2) == 0;
  c->n = wide_w       ? 4097 + harness_pick(s, 1024)
         : deep       ? 1 + harness_pick(s, 1100)
         : many_parts ? 8449 + harness_pick(s, 17152)
         : column     ? 2048 + harness_pick(s, 2049)
                      : 1 + harness_pick(s, harness_pick(s, 4) == 0 ? 700 : 200);
  /* K: multiples of 16 with real groups, or any value with one group. */
  if (wide_w) c->k = 16 * (1 + harness_pick(s, 7));
  else if (deep) c->k = 64 * (32 + harness_pick(s, 193));
  else if (many_parts) c->k = 64 * (1 + harness_pick(s, 4));
  else if (column) { /* K short enough that M stays whole below */
    const int64_t most = 40000000 / (16 * c->m * c->n);
    c->k = 16 * (4 + harness_pick(s, most < 304 ? most - 3 : 300));
  }
  else c->k = harness_pick(s, 3) == 0 ? 1 + harness_pick(s, 600) : 16 * (1 + harness_pick(s, 64));
  c->group_size = c->k % 16 == 0 ? harness_group_for(s, c->k) : 0;
  while (c->m * c->k * c->n > 40000000) c->m = c->m / 2 + 1;
  c->scale_dtype = (lutmm_dtype)harness_pick(s, 3);
  c->x_dtype = harness_pick(s, 2) ? LUTMM_DTYPE_BF16 : LUTMM_DTYPE_F16;
  c->y_dtype = (lutmm_dtype)harness_pick(s, 3);
  c->exact = (int)(index % 2 == 0);
  c->x_offset = harness_pick(s, 8) == 0;
  c->tiny_scales = harness_pick(s, 8) == 0;
  c->seed = harness_next(s);
}

/* Half the cases of M = 17..32 over more than 1024 columns (those of odd
 * seed) keep those rows off the wide kernel (LUTMM_CUDA_WIDE_FROM_M=33's
 * setting, unless that variable sets another): on Hopper the planner gives
 * most such draws of 1..4-bit codes the wide kernel (wide_takes_few_rows;
 * the draws' short K gives few units, which decides 2- and 3-bit one-row
 * codes), while real shapes (NF2 and NF3 with one-row scales on 8192 x
 * 28672, NF4 at M = 17..23 on 4096 columns) keep the skinny kernel. */
static int keeps_skinny_rows(const gemm_case *c) { return c->m >= 17 && c->m <= 32 && c->n > 1024 && (c->seed & 1); }

static void count(tally *t, const gemm_case *c) {
  t->cases++;
  if (c->exact) t->exact++;
  else t->bound++;
  t->m_bins[c->m <= 16 ? 0 : c->m <= 64 ? 1 : c->m <= 264 ? 2 : 3]++;
  t->bits[c->bits]++;
  t->x_dtype[c->x_dtype]++;
  if (c->group_size == 0) t->whole_column++;
  if (c->tiny_scales) t->tiny++;
  if (c->n > 4096) t->wide_w++;
  if (c->m <= 8 && c->n >= 2048 && c->n <= 4096) t->column_w++;
  if (c->k >= 2048) t->deep_k++;
  if (c->m > t->max_m) t->max_m = c->m;
  if (c->k > t->max_k) t->max_k = c->k;
  if (c->n > t->max_n) t->max_n = c->n;
}

static void report(const tally *t, double seconds) {
  printf("cases %ld (exact %ld, bound %ld) in %.1f s, failures %ld\n", t->cases, t->exact, t->bound, seconds,
         t->failures);
  printf("M: 1-16 %ld, 17-64 %ld, 65-264 %ld, 265-1100 %ld; max m %lld k %lld n %lld\n", t->m_bins[0], t->m_bins[1],
         t->m_bins[2], t->m_bins[3], t->max_m, t->max_k, t->max_n);
  printf("bits:");
  for (int b = 1; b <= 8; b++) printf(" %d:%ld", b, t->bits[b]);
  printf("; x fp16 %ld bf16 %ld; whole-column groups %ld; tiny scales %ld; N over 4096 %ld; K of 2048 and more %ld; "
         "M <= 8 over N of 2048..4096 %ld\n",
         t->x_dtype[1], t->x_dtype[2], t->whole_column, t->tiny, t->wide_w, t->deep_k, t->column_w);
  printf("M = 17..32 over N above 1024 held to the wide kernel's M > 32: %ld\n", t->skinny_rows);
  printf("column-stream kernel taken, by M:");
  for (int m = 1; m <= 8; m++) printf(" %d:%ld", m, t->column_launches[m]);
  printf("\n");
}

int main(int argc, char **argv) {
  long max_cases = 1000;
  double seconds = 0.0;
  uint64_t seed = 1;
  size_t workspace_bytes = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--cases") == 0) max_cases = atol(argv[i + 1]);
    else if (strcmp(argv[i], "--seconds") == 0) seconds = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--seed") == 0) seed = strtoull(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--workspace") == 0) workspace_bytes = strtoull(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--shapes") == 0) {
      if (strcmp(argv[i + 1], "all") != 0 && strcmp(argv[i + 1], "column") != 0) {
        fprintf(stderr, "cuda_fuzz: --shapes takes all or column\n");
        return 2;
      }
      column_shapes_only = strcmp(argv[i + 1], "column") == 0;
    }
  }
  if (seconds > 0.0 && max_cases == 1000) max_cases = -1;
  harness h;
  const int open = harness_open(&h);
  if (open != 0) return open;
  void *workspace = NULL;
  if (workspace_bytes > 0 && (lutmm_malloc(h.cuda, workspace_bytes, &workspace) != LUTMM_OK ||
                              lutmm_cuda_set_workspace(h.cuda, workspace, workspace_bytes) != LUTMM_OK)) {
    printf("FAIL: could not lend a workspace of %zu bytes\n", workspace_bytes);
    harness_close(&h);
    return 1;
  }
  tally t;
  memset(&t, 0, sizeof t);
  const double start = now();
  for (long i = 0; max_cases < 0 || i < max_cases; i++) {
    if (seconds > 0.0 && now() - start > seconds) break;
    gemm_case c;
    char why[256], name[160];
    random_case(&seed, i, &c);
    count(&t, &c);
    lutmm_cuda_state *state = lutmm_cuda_state_of(h.cuda);
    const int wide_from_m = state->wide_from_m;
    if (keeps_skinny_rows(&c) && wide_from_m == 0) {
      state->wide_from_m = 33;
      t.skinny_rows++;
    }
    const int failed = harness_run_case(&h, &c, why, sizeof why, NULL) != 0;
    state->wide_from_m = wide_from_m;
    if (state->last_skinny_column && c.m <= 8) t.column_launches[c.m]++;
    if (failed) {
      harness_describe(&c, name, sizeof name);
      printf("FAIL %s: %s\n", name, why);
      if (++t.failures >= 20) break;
    }
  }
  report(&t, now() - start);
  lutmm_cuda_set_workspace(h.cuda, NULL, 0);
  lutmm_free(h.cuda, workspace);
  harness_close(&h);
  return t.failures == 0 && t.cases > 0 ? 0 : 1;
}
