/* lutmm bench --backend cpu [--csv] [--threads T] [--reps R] [--quick]
 *                            [--shape KxN] [--bits B] [--max-m M]
 *
 * DESIGN.md §7 on the CPU: lutmm_gemm on a CPU context against OpenBLAS
 * sgemv (M = 1) / sgemm (M > 1) on the dense fp32 weights, and against the
 * reference backend on a few shapes, all in one process. Each time is the
 * median of repeated runs: blocks of lutmm runs and of BLAS runs alternate,
 * each after a pause and a warm-up run (time_pair). The packed weights rotate
 * through enough copies that their working set exceeds 64 MiB (twice this
 * class of machine's L3), so lutmm reads them from memory like sgemv does.
 * GB/s counts the bytes lutmm must move: packed codes, scales, X and Y. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "lutmm_config.h"

#ifdef LUTMM_HAVE_OPENBLAS
#include <cblas.h>
#endif

#define GROUP 128
#define ROTATE_BYTES ((size_t)64 << 20)
#define MAX_COPIES 16

typedef struct bench_opts {
  int csv, quick, reps;
  int threads[2];
  int thread_count;
  int64_t shape_k, shape_n; /* --shape: only this shape (0: the default ones) */
  int bits;                 /* --bits: only this width (0: 4, 3, 2) */
  int64_t max_m;            /* --max-m: skip larger M (0: all) */
} bench_opts;

typedef struct bench_shape {
  int64_t k, n;
  float *w;   /* dense fp32, k × n */
  float *x;   /* 256 × k activations */
  float *y;   /* 256 × n output */
} bench_shape;

typedef struct bench_row {
  int64_t k, n, m;
  int bits, threads;
  double lutmm_ms, blas_ms, ref_ms, gbps;
} bench_row;

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, compare_doubles);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static int reps_for(const bench_opts *o, int64_t m) {
  if (o->reps > 0) return o->reps;
  return m <= 16 ? 21 : m <= 64 ? 7 : 5;
}

#ifdef LUTMM_HAVE_OPENBLAS
static void blas_once(const bench_shape *s, int64_t m) {
  if (m == 1)
    cblas_sgemv(CblasRowMajor, CblasTrans, (int)s->k, (int)s->n, 1.0f, s->w, (int)s->n, s->x, 1, 0.0f, s->y, 1);
  else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)s->n, (int)s->k, 1.0f, s->x, (int)s->k,
                s->w, (int)s->n, 0.0f, s->y, (int)s->n);
}
#endif

static void set_blas_threads(int threads) {
#ifdef LUTMM_HAVE_OPENBLAS
  openblas_set_num_threads(threads);
#else
  (void)threads;
#endif
}

/* Milliseconds of one BLAS call (-1 without OpenBLAS). */
static double blas_ms_once(const bench_shape *s, int64_t m) {
#ifdef LUTMM_HAVE_OPENBLAS
  const double t0 = cli_seconds();
  blas_once(s, m);
  return 1e3 * (cli_seconds() - t0);
#else
  (void)s;
  (void)m;
  return -1.0;
#endif
}

/* Blocks of timed runs per row, and the pause before each block. */
#define ROUNDS 3
#define IDLE_SECONDS 0.25

/* Lets both thread pools go to sleep: after a parallel region OpenMP's
 * workers spin for a while, and OpenBLAS's threads for longer (~0.1 s), and
 * on two cores a spinning pool takes a core from the other library's next
 * call (measured: sgemv 12.9 ms right after a lutmm call, 6.8 ms after
 * sgemv calls). */
static void idle(void) {
  const struct timespec pause = {0, (long)(IDLE_SECONDS * 1e9)};
  nanosleep(&pause, NULL);
}

/* Median milliseconds of lutmm_gemm (cycling through the weight copies) and
 * of the BLAS call: ROUNDS rounds of a block of lutmm runs and a block of
 * BLAS runs, each block after a pause and one untimed warm-up run, so both
 * see the same drift of a shared machine's load. Returns 0 when lutmm_gemm
 * fails. */
static int time_pair(lutmm_context *ctx, lutmm_weights **copies, int count, const bench_shape *s, int64_t m,
                     int reps, double *lutmm_ms, double *blas_ms) {
  double tl[64], tb[64];
  const int per_block = (reps + ROUNDS - 1) / ROUNDS;
  int done = 0;
  for (int round = 0; round < ROUNDS; round++) {
    idle();
    for (int r = -1; r < per_block; r++) {
      const double t0 = cli_seconds();
      if (lutmm_gemm(ctx, copies[(done + r + 1) % count], m, s->x, LUTMM_DTYPE_F32, s->y, LUTMM_DTYPE_F32) !=
          LUTMM_OK)
        return 0;
      if (r >= 0) tl[done + r] = 1e3 * (cli_seconds() - t0);
    }
#ifdef LUTMM_HAVE_OPENBLAS
    idle(); /* without OpenBLAS the block below times nothing */
#endif
    for (int r = -1; r < per_block; r++) {
      const double ms = blas_ms_once(s, m);
      if (r >= 0) tb[done + r] = ms;
    }
    done += per_block;
  }
  *lutmm_ms = median(tl, done);
  *blas_ms = median(tb, done);
  return 1;
}

static double time_reference(lutmm_context *ref, lutmm_weights *w, const bench_shape *s, int64_t m) {
  const double t0 = cli_seconds();
  if (lutmm_gemm(ref, w, m, s->x, LUTMM_DTYPE_F32, s->y, LUTMM_DTYPE_F32) != LUTMM_OK) return -1.0;
  return 1e3 * (cli_seconds() - t0);
}

static void print_header(const bench_opts *o) {
  if (o->csv) printf("k,n,m,bits,group,threads,lutmm_ms,blas_ms,speedup,reference_ms,lutmm_gbps\n");
  else
    printf("%-11s %4s %4s %7s %10s %12s %8s %12s %7s\n", "shape KxN", "M", "bits", "threads", "lutmm ms",
           "sgemv/mm ms", "speedup", "reference ms", "GB/s");
}

static void print_row(const bench_opts *o, const bench_row *r) {
  const double speedup = r->blas_ms > 0 ? r->blas_ms / r->lutmm_ms : 0.0;
  if (o->csv) {
    printf("%lld,%lld,%lld,%d,%d,%d,%.4f,%.4f,%.3f,%.3f,%.2f\n", (long long)r->k, (long long)r->n, (long long)r->m,
           r->bits, GROUP, r->threads, r->lutmm_ms, r->blas_ms, speedup, r->ref_ms, r->gbps);
  } else {
    char shape[32], ref[32];
    snprintf(shape, sizeof shape, "%lldx%lld", (long long)r->k, (long long)r->n);
    if (r->ref_ms > 0) snprintf(ref, sizeof ref, "%.2f", r->ref_ms);
    else snprintf(ref, sizeof ref, "-");
    printf("%-11s %4lld %4d %7d %10.3f %12.3f %7.2fx %12s %7.1f\n", shape, (long long)r->m, r->bits, r->threads,
           r->lutmm_ms, r->blas_ms, speedup, ref, r->gbps);
  }
  fflush(stdout);
}

typedef struct bench_weights {
  lutmm_weights *copies[MAX_COPIES];
  int count;
  lutmm_weights *ref_w;
  size_t bytes; /* packed + scales of one copy */
} bench_weights;

static void release_weights(bench_weights *bw) {
  for (int i = 0; i < bw->count; i++) lutmm_weights_destroy(bw->copies[i]);
  lutmm_weights_destroy(bw->ref_w);
  memset(bw, 0, sizeof *bw);
}

static lutmm_status make_weights(lutmm_context *cpu, lutmm_context *ref, const bench_shape *s, int bits,
                                 bench_weights *bw) {
  const lutmm_quant_params p = {bits, s->k, s->n, GROUP, LUTMM_DTYPE_F16};
  float table[LUTMM_MAX_TABLE_SIZE];
  uint8_t *codes = malloc((size_t)(s->k * s->n));
  uint16_t *scales = malloc(sizeof(uint16_t) * (size_t)(s->k / GROUP * s->n));
  lutmm_status st = codes == NULL || scales == NULL ? LUTMM_ERR_OUT_OF_MEMORY : LUTMM_OK;
  memset(bw, 0, sizeof *bw);
  if (st == LUTMM_OK) st = lutmm_table_nf(cpu, bits, table);
  if (st == LUTMM_OK) st = lutmm_quantize(cpu, &p, table, s->w, codes, scales);
  if (st == LUTMM_OK) st = lutmm_pack(ref, &p, table, codes, scales, &bw->ref_w);
  lutmm_weights_info info;
  if (st == LUTMM_OK) st = lutmm_weights_query(bw->ref_w, &info);
  if (st == LUTMM_OK) bw->bytes = info.packed_bytes + info.scale_bytes;
  int wanted = st == LUTMM_OK ? (int)(ROTATE_BYTES / bw->bytes) + 1 : 0;
  if (wanted > MAX_COPIES) wanted = MAX_COPIES;
  for (; st == LUTMM_OK && bw->count < wanted; bw->count++)
    st = lutmm_pack(cpu, &p, table, codes, scales, &bw->copies[bw->count]);
  free(codes);
  free(scales);
  return st;
}

static size_t moved_bytes(const bench_weights *bw, const bench_shape *s, int64_t m) {
  return bw->bytes + sizeof(float) * (size_t)(m * s->k + m * s->n);
}

/* Every M and thread count for one shape and code width. */
static lutmm_status bench_bits(const bench_opts *o, lutmm_context *cpu, lutmm_context *ref, const bench_shape *s,
                               int bits) {
  static const int64_t kRows[] = {1, 2, 4, 8, 16, 64, 256};
  const int rows = o->quick ? 3 : (int)(sizeof kRows / sizeof kRows[0]);
  bench_weights bw;
  lutmm_status st = make_weights(cpu, ref, s, bits, &bw);
  for (int i = 0; st == LUTMM_OK && i < rows && (o->max_m == 0 || kRows[i] <= o->max_m); i++)
    for (int t = 0; t < o->thread_count; t++) {
      bench_row r = {s->k, s->n, kRows[i], bits, o->threads[t], 0, 0, -1.0, 0};
      lutmm_context_set_num_threads(cpu, r.threads);
      lutmm_context_set_num_threads(ref, r.threads);
      set_blas_threads(r.threads);
      if (!time_pair(cpu, bw.copies, bw.count, s, r.m, reps_for(o, r.m), &r.lutmm_ms, &r.blas_ms))
        r.lutmm_ms = -1.0;
      /* The reference is slow: once, at M = 1 on the largest thread count,
       * for NF4 everywhere and for every width on the first shape. */
      if (r.m == 1 && t == o->thread_count - 1 && (bits == 4 || s->n == 4096))
        r.ref_ms = time_reference(ref, bw.ref_w, s, r.m);
      if (r.lutmm_ms < 0) st = LUTMM_ERR_INVALID_ARGUMENT;
      r.gbps = (double)moved_bytes(&bw, s, r.m) / (r.lutmm_ms * 1e6);
      if (st == LUTMM_OK) print_row(o, &r);
    }
  release_weights(&bw);
  return st;
}

static lutmm_status bench_shape_all(const bench_opts *o, lutmm_context *cpu, lutmm_context *ref, int64_t k, int64_t n,
                                    cli_rng *rng) {
  bench_shape s = {k, n, malloc(sizeof(float) * (size_t)(k * n)), malloc(sizeof(float) * 256 * (size_t)k),
                   malloc(sizeof(float) * 256 * (size_t)n)};
  lutmm_status st = s.w == NULL || s.x == NULL || s.y == NULL ? LUTMM_ERR_OUT_OF_MEMORY : LUTMM_OK;
  if (st == LUTMM_OK) {
    for (size_t i = 0; i < (size_t)(k * n); i++) s.w[i] = 0.02f * cli_rng_normal(rng);
    for (size_t i = 0; i < (size_t)(256 * k); i++) s.x[i] = cli_rng_normal(rng);
  }
  static const int kBits[] = {4, 3, 2};
  /* --quick runs 4-bit codes only, unless --bits names another width. */
  for (int b = 0; st == LUTMM_OK && b < (o->quick && o->bits == 0 ? 1 : 3); b++)
    if (o->bits == 0 || o->bits == kBits[b]) st = bench_bits(o, cpu, ref, &s, kBits[b]);
  free(s.w);
  free(s.x);
  free(s.y);
  return st;
}

static int parse(int argc, char **argv, bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->threads[0] = 1;
  o->threads[1] = 2;
  o->thread_count = 2;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--csv") == 0) o->csv = 1;
    else if (strcmp(argv[i], "--quick") == 0) o->quick = 1;
    else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      o->threads[0] = atoi(argv[++i]);
      o->thread_count = 1;
      if (o->threads[0] < 1) return 0;
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      o->reps = atoi(argv[++i]);
      if (o->reps < 1 || o->reps > 60) return 0; /* 3 blocks of at most 20 */
    } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
      long long k = 0, n = 0;
      int used = 0;
      const char *shape = argv[++i];
      if (sscanf(shape, "%lldx%lld%n", &k, &n, &used) != 2 || shape[used] != '\0' || k < 128 || k % 128 != 0 ||
          k > (1 << 20) || n < 1 || n > (1 << 20))
        return 0;
      o->shape_k = k;
      o->shape_n = n;
    } else if (strcmp(argv[i], "--bits") == 0 && i + 1 < argc) {
      o->bits = atoi(argv[++i]);
      if (o->bits < 2 || o->bits > 4) return 0;
    } else if (strcmp(argv[i], "--max-m") == 0 && i + 1 < argc) {
      o->max_m = atoll(argv[++i]);
      if (o->max_m < 1) return 0;
    } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) i++;
    else return 0;
  }
  return 1;
}

int lutmm_cli_bench_cpu(int argc, char **argv) {
  bench_opts o;
  if (!parse(argc, argv, &o)) {
    fprintf(stderr, "usage: lutmm bench --backend cpu [--csv] [--threads T] [--reps R] [--quick]\n"
                    "                             [--shape KxN] [--bits 2|3|4] [--max-m M]\n");
    return 2;
  }
  lutmm_context *cpu = NULL, *ref = NULL;
  lutmm_status st = lutmm_context_create(LUTMM_BACKEND_CPU, &cpu);
  if (st == LUTMM_OK) st = lutmm_context_create(LUTMM_BACKEND_REFERENCE, &ref);
#ifndef LUTMM_HAVE_OPENBLAS
  fprintf(stderr, "lutmm bench: built without OpenBLAS, BLAS columns are empty\n");
#endif
  cli_rng rng = {42};
  if (st == LUTMM_OK) print_header(&o);
  if (st == LUTMM_OK && o.shape_k > 0) st = bench_shape_all(&o, cpu, ref, o.shape_k, o.shape_n, &rng);
  if (st == LUTMM_OK && o.shape_k == 0) st = bench_shape_all(&o, cpu, ref, 4096, 4096, &rng);
  if (st == LUTMM_OK && o.shape_k == 0 && !o.quick) st = bench_shape_all(&o, cpu, ref, 4096, 14336, &rng);
  lutmm_context_destroy(cpu);
  lutmm_context_destroy(ref);
  if (st != LUTMM_OK) fprintf(stderr, "lutmm bench: %s\n", lutmm_status_string(st));
  return st == LUTMM_OK ? 0 : 1;
}
