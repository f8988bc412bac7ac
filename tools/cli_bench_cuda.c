/* lutmm bench --backend cuda [--csv] [--quick] [--reps N] [--shape KxN] [--m M]
 * [--bits B] [--fp16-scales] [--host-paced] [--warmup-ms MS]: the protocol of DESIGN.md §7 on
 * the GPU. In one process: a device-to-device copy sets the bandwidth
 * reference; for each LLaMA-3 projection shape and each point (M, bits,
 * group, dtype), lutmm_gemm and cuBLAS (cublasGemmEx, fp16/bf16 in, fp32
 * compute) run on rotating weight buffers (working set >= 4x L2), each call
 * timed with CUDA events, median of N calls after warm-up (of both, taking
 * turns, for at least MS ms: default WARMUP_MS); the two take
 * turns in batches of 25 calls, so the speedup compares them under the same
 * conditions. Each batch is queued behind a gate and runs back to back, so
 * the events time the device, not how fast the host queues the calls
 * (--host-paced: no gate, each call timed as the host queues it, as the
 * protocol timed before 2026-11-27; the turns with cuBLAS stay).
 * Reported per point: µs, speedup over cuBLAS, effective TB/s of the bytes
 * that must move (weights + scales + X + Y) and that as % of the copy
 * bandwidth. --shape and --m pick one shape and one M, neither only from
 * the protocol's lists (K a multiple of 128, K and N up to 28672, K·N up to
 * 28672 · 8192; M up to 1024). Group scales are stored in the activation
 * dtype, as docs/NUMERICS.md advises; --fp16-scales stores fp16 scales for
 * bf16 activations too (each scale is then rounded to bf16 in the kernel).
 * Every operand is random: codes uniform over all 2^b values of each width,
 * dense weights and activations random finite 16-bit words (a kernel can
 * run faster on constant data). */
#include "cli.h"
#include "lutmm_config.h"

#ifndef LUTMM_HAVE_CUDA
#include <stdio.h>

int lutmm_cli_bench_cuda(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "lutmm bench --backend cuda: built without CUDA\n");
  return 1;
}
#else
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lutmm_cuda.h"
#include "src/cuda/stamps.h"

#define MAX_REPS 1000
#define WARMUP 10
/* A point's untimed runs last at least this long, so that it is timed in
 * the clocks it settles to rather than in those the point before left.
 * With 10 runs alone, points timed after the heavy M = 256 ones ran up to
 * 12 % slow on the H200 (bf16 M = 1 behind fp16), cuBLAS strayed more than
 * 3 % from its own series at 15 of 1,134 points, and M = 256 ran 5-13 %
 * faster than it does once the clocks settle under its load; with 100 ms,
 * no cuBLAS point strayed (docs/PERF.md, H200 2026-11-29). */
#define WARMUP_MS 100.0
#define MAX_COPIES 64

typedef struct bench_options {
  int csv, quick, reps;
  int64_t only_k, only_n, only_m; /* --shape KxN, --m M: one point (0: all) */
  int bits;                        /* --bits B: only this code width, 1..8 (0: 4, 3, 2) */
  int fp16_scales;                 /* --fp16-scales: fp16 scales for bf16 activations too */
  int host_paced;                  /* --host-paced: no gate, each call timed as the host queues it */
  double warmup_ms;                /* --warmup-ms MS: untimed runs of each point for at least MS ms */
} bench_options;

typedef struct bench_env {
  lutmm_context *ctx;
  cudaStream_t stream;
  cublasHandle_t blas;
  cudaEvent_t start[2][MAX_REPS], stop[2][MAX_REPS]; /* per timed op of a point */
  int gated;        /* 0: --host-paced */
  int gate_gave_up; /* some batch was timed host-paced after all */
  size_t l2_bytes;
  double copy_tbps; /* bytes read + written per second / 1e12 */
  void *x, *y;      /* largest M × K activations, M × N outputs */
  const uint8_t *random_bytes; /* the largest shape's worth of random bytes, masked into codes */
  uint8_t *codes;              /* host staging for one shape's codes */
  void *d_codes;               /* and on the device */
} bench_env;

typedef struct shape {
  int64_t k, n;
} shape;

static const shape kShapes[] = {{4096, 4096}, {4096, 14336}, {14336, 4096}, {8192, 8192},
                                {8192, 28672}, {28672, 8192}, {8192, 1024}};
static const int64_t kMs[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
#define MAX_M 1024 /* X and Y are allocated for this many rows */
static const int kBits[] = {4, 3, 2};
static const int64_t kGroups[] = {128, 64, 32};

/* One timed operation: run(i) does the i-th run on rotating buffers. */
typedef int (*bench_fn)(bench_env *env, void *arg, int i);

typedef struct timed_op {
  bench_fn fn;
  void *arg;
} timed_op;

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A gate is a host function queued ahead of a batch of timed calls: it
 * holds the stream until the host has queued the whole batch, so the GPU
 * then runs the batch back to back and each call's events time the device
 * alone. Without it, a host that queues calls more slowly than the GPU runs
 * them (a descheduled thread, a slow launch path) is timed as the call's
 * own cost. Should the stream's queue ever fill before the host opens the
 * gate, the host's next launch would wait for the gate: the gate gives up
 * after GATE_LIMIT_NS and the batch is timed host-paced instead of hanging. */
#define GATE_LIMIT_NS 2000000000LL

typedef struct gate {
  atomic_int open, gave_up;
} gate;

static long long monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Runs on the CUDA runtime's callback thread; makes no CUDA call. */
static void CUDART_CB hold_until_open(void *arg) {
  gate *g = arg;
  const long long start = monotonic_ns();
  while (!atomic_load_explicit(&g->open, memory_order_acquire))
    if (monotonic_ns() - start > GATE_LIMIT_NS) {
      atomic_store(&g->gave_up, 1);
      return;
    }
}

/* Queues runs [first, first + count) of every op, op after op, each run
 * between its own pair of events, behind a closed gate, then opens it.
 * Run i is the op's call number base + i (which rotating copy it reads). */
static int queue_batch(bench_env *env, const timed_op *ops, int n_ops, int base, int first, int count, gate *g) {
  atomic_init(&g->open, 0);
  atomic_init(&g->gave_up, 0);
  int rc = env->gated && cudaLaunchHostFunc(env->stream, hold_until_open, g) != cudaSuccess;
  for (int k = 0; rc == 0 && k < n_ops; k++)
    for (int i = first; rc == 0 && i < first + count; i++) {
      cudaEventRecord(env->start[k][i], env->stream);
      rc = ops[k].fn(env, ops[k].arg, base + i);
      cudaEventRecord(env->stop[k][i], env->stream);
    }
  atomic_store_explicit(&g->open, 1, memory_order_release);
  return rc;
}

/* Untimed runs: WARMUP of each op in turn, repeated until `warmup_ms` ms
 * have passed since the first (the host waits for each round); `*calls`
 * is then how many calls of each op it made. */
static int warm_up(bench_env *env, const timed_op *ops, int n_ops, double warmup_ms, int *calls) {
  const long long start = monotonic_ns();
  for (*calls = 0;;) {
    for (int k = 0; k < n_ops; k++)
      for (int i = 0; i < WARMUP; i++)
        if (ops[k].fn(env, ops[k].arg, *calls + i) != 0) return 1;
    *calls += WARMUP;
    if (cudaStreamSynchronize(env->stream) != cudaSuccess) return 1;
    if ((double)(monotonic_ns() - start) >= warmup_ms * 1e6) return 0;
  }
}

/* Median seconds of `reps` runs of each op, after warm_up. The ops take
 * turns in batches of BATCH runs, so that whatever changes the device's
 * speed while a point is timed (clocks, another client) reaches every op
 * of the point alike. Returns 0 on success. */
#define BATCH 25

static int time_ops(bench_env *env, const timed_op *ops, int n_ops, int reps, double warmup_ms, double *medians) {
  static gate gates[MAX_REPS / BATCH + 1];
  static double samples[MAX_REPS];
  int calls = 0;
  if (warm_up(env, ops, n_ops, warmup_ms, &calls) != 0) return 1;
  int rc = 0;
  for (int b = 0; rc == 0 && b * BATCH < reps; b++) {
    const int first = b * BATCH, count = reps - first < BATCH ? reps - first : BATCH;
    rc = queue_batch(env, ops, n_ops, calls, first, count, &gates[b]);
  }
  if (cudaStreamSynchronize(env->stream) != cudaSuccess || rc != 0) return 1;
  for (int b = 0; b * BATCH < reps; b++) env->gate_gave_up |= atomic_load(&gates[b].gave_up);
  for (int k = 0; k < n_ops; k++) {
    for (int i = 0; i < reps; i++) {
      float ms = 0.0f;
      cudaEventElapsedTime(&ms, env->start[k][i], env->stop[k][i]);
      samples[i] = (double)ms * 1e-3;
    }
    qsort(samples, (size_t)reps, sizeof(double), compare_doubles);
    medians[k] = samples[reps / 2];
  }
  return 0;
}

typedef struct copy_arg {
  void *dst, *src;
  size_t bytes;
} copy_arg;

static int run_copy(bench_env *env, void *arg, int i) {
  (void)i;
  const copy_arg *c = arg;
  return cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, env->stream) != cudaSuccess;
}

/* Device-to-device copy of 1 GiB: the bandwidth every point is compared to. */
static int measure_copy(bench_env *env) {
  copy_arg c = {NULL, NULL, (size_t)1 << 30};
  if (cudaMalloc(&c.dst, c.bytes) != cudaSuccess || cudaMalloc(&c.src, c.bytes) != cudaSuccess) return 1;
  cudaMemsetAsync(c.src, 1, c.bytes, env->stream);
  const timed_op op = {run_copy, &c};
  double t = -1.0;
  if (time_ops(env, &op, 1, 20, 0.0, &t) != 0) t = -1.0;
  cudaFree(c.dst);
  cudaFree(c.src);
  env->copy_tbps = t > 0 ? 2.0 * (double)c.bytes / t / 1e12 : 0.0;
  return t > 0 ? 0 : 1;
}

static int copies_for(const bench_env *env, size_t bytes) {
  size_t copies = (4 * env->l2_bytes + bytes - 1) / bytes;
  return copies < 1 ? 1 : copies > MAX_COPIES ? MAX_COPIES : (int)copies;
}

/* `count` random 16-bit words, finite both as fp16 (±[1, 1.125)) and as
 * bf16 (±[2^-7, 2^-6)): the dense weights serve both dtypes. */
static void fill_random_words(uint16_t *words, size_t count, uint64_t seed) {
  cli_rng rng = {seed};
  for (size_t i = 0; i < count; i++) words[i] = (uint16_t)((cli_rng_next(&rng) & 0x807F) | 0x3C00);
}

/* Device memory of `count` such words. */
static int upload_random_words(void *d_words, size_t count, uint64_t seed) {
  uint16_t *words = malloc(count * sizeof *words);
  if (words == NULL) return 1;
  fill_random_words(words, count, seed);
  const int rc = cudaMemcpy(d_words, words, count * sizeof *words, cudaMemcpyHostToDevice) != cudaSuccess;
  free(words);
  return rc;
}

typedef struct blas_arg {
  void *w[MAX_COPIES];
  int copies;
  int64_t m, k, n;
  cudaDataType_t type;
} blas_arg;

/* Row-major Y = X·W is column-major Yᵀ = Wᵀ·Xᵀ: W as an n×k matrix. */
static int run_blas(bench_env *env, void *arg, int i) {
  const blas_arg *b = arg;
  const float alpha = 1.0f, beta = 0.0f;
  return cublasGemmEx(env->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)b->n, (int)b->m, (int)b->k, &alpha,
                      b->w[i % b->copies], b->type, (int)b->n, env->x, b->type, (int)b->k, &beta, env->y, b->type,
                      (int)b->n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS;
}

typedef struct lut_arg {
  lutmm_weights *w[MAX_COPIES];
  int copies;
  int64_t m;
  lutmm_dtype dtype;
} lut_arg;

static int run_lut(bench_env *env, void *arg, int i) {
  const lut_arg *l = arg;
  return lutmm_gemm(env->ctx, l->w[i % l->copies], l->m, env->x, l->dtype, env->y, l->dtype) != LUTMM_OK;
}

typedef struct point {
  shape s;
  int64_t m;
  int bits;
  int64_t group;
  lutmm_dtype dtype, scale_dtype;
  double lut_s, blas_s;
  size_t lut_bytes;
} point;

static void print_header(const bench_options *o, const bench_env *env) {
  struct cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  if (o->csv) {
    printf("# device,%s,copy_tbps,%.3f\n", prop.name, env->copy_tbps);
    printf("k,n,m,bits,group,dtype,lutmm_us,cublas_us,speedup,lutmm_tbps,pct_copy,scale_dtype\n");
    return;
  }
  printf("device: %s, %d SMs, L2 %zu MB; device-to-device copy %.2f TB/s (read + write)\n", prop.name,
         prop.multiProcessorCount, env->l2_bytes >> 20, env->copy_tbps);
  printf("%6s %6s %4s %4s %5s %5s %10s %10s %8s %8s %7s %6s\n", "K", "N", "M", "bits", "group", "dtype", "lutmm_us",
         "cublas_us", "speedup", "TB/s", "%copy", "scales");
}

static void print_point(const bench_options *o, const bench_env *env, const point *p) {
  const double tbps = (double)p->lut_bytes / p->lut_s / 1e12;
  const char *dt = p->dtype == LUTMM_DTYPE_F16 ? "fp16" : "bf16";
  const char *st = p->scale_dtype == LUTMM_DTYPE_F16 ? "fp16" : "bf16";
  if (o->csv)
    printf("%lld,%lld,%lld,%d,%lld,%s,%.2f,%.2f,%.3f,%.3f,%.1f,%s\n", (long long)p->s.k, (long long)p->s.n,
           (long long)p->m, p->bits, (long long)p->group, dt, p->lut_s * 1e6, p->blas_s * 1e6, p->blas_s / p->lut_s,
           tbps, 100.0 * tbps / env->copy_tbps, st);
  else
    printf("%6lld %6lld %4lld %4d %5lld %5s %10.2f %10.2f %7.2fx %8.3f %6.1f%% %6s\n", (long long)p->s.k,
           (long long)p->s.n, (long long)p->m, p->bits, (long long)p->group, dt, p->lut_s * 1e6, p->blas_s * 1e6,
           p->blas_s / p->lut_s, tbps, 100.0 * tbps / env->copy_tbps, st);
  fflush(stdout);
}

/* Random bytes for the largest shape's codes, reused by every shape. */
static uint8_t *make_random_bytes(size_t count) {
  uint8_t *bytes = malloc(count);
  cli_rng rng = {12345};
  for (size_t i = 0; bytes != NULL && i < count; i += 8) {
    const uint64_t r = cli_rng_next(&rng);
    memcpy(bytes + i, &r, count - i < 8 ? count - i : 8);
  }
  return bytes;
}

/* Packs `copies` identical weights objects on the device, with fp16 or bf16
 * scales between 2^-7 and 2^-6. */
static lutmm_status pack_copies(bench_env *env, const shape *s, int bits, int64_t group, lutmm_dtype scale_dtype,
                                const void *d_codes, lut_arg *l) {
  const lutmm_quant_params p = {bits, s->k, s->n, group, scale_dtype};
  const size_t groups = (size_t)(s->k / group), scale_bytes = groups * (size_t)s->n * 2;
  const uint16_t two_to_minus_7 = scale_dtype == LUTMM_DTYPE_F16 ? 0x2000 : 0x3C00;
  const unsigned mantissa_steps = scale_dtype == LUTMM_DTYPE_F16 ? 1024 : 128;
  uint16_t *scales = malloc(scale_bytes);
  void *d_scales = NULL, *d_table = NULL;
  float table[256];
  lutmm_status st = scales == NULL ? LUTMM_ERR_OUT_OF_MEMORY : LUTMM_OK;
  for (size_t i = 0; st == LUTMM_OK && i < groups * (size_t)s->n; i++)
    scales[i] = (uint16_t)(two_to_minus_7 + i % mantissa_steps);
  if (st == LUTMM_OK) st = lutmm_malloc(env->ctx, scale_bytes, &d_scales);
  if (st == LUTMM_OK) st = lutmm_malloc(env->ctx, sizeof table, &d_table);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(env->ctx, d_scales, scales, scale_bytes);
  if (st == LUTMM_OK) st = lutmm_table_nf(env->ctx, bits, d_table);
  lutmm_weights_info info = {0};
  if (st == LUTMM_OK) st = lutmm_pack(env->ctx, &p, d_table, d_codes, d_scales, &l->w[0]);
  if (st == LUTMM_OK) st = lutmm_weights_query(l->w[0], &info);
  l->copies = st == LUTMM_OK ? copies_for(env, info.packed_bytes + info.scale_bytes) : 0;
  for (int c = 1; st == LUTMM_OK && c < l->copies; c++)
    st = lutmm_pack(env->ctx, &p, d_table, d_codes, d_scales, &l->w[c]);
  lutmm_free(env->ctx, d_scales);
  lutmm_free(env->ctx, d_table);
  free(scales);
  return st;
}

static void free_copies(lut_arg *l) {
  for (int c = 0; c < MAX_COPIES; c++) {
    lutmm_weights_destroy(l->w[c]);
    l->w[c] = NULL;
  }
}

/* cuBLAS dense weights, enough copies to rotate past L2, random words. */
static int blas_weights(bench_env *env, const shape *s, blas_arg *b) {
  const size_t count = (size_t)(s->k * s->n), bytes = count * 2;
  b->copies = copies_for(env, bytes);
  for (int c = 0; c < b->copies; c++) {
    if (cudaMalloc(&b->w[c], bytes) != cudaSuccess) return 1;
    if (c == 0 ? upload_random_words(b->w[0], count, 777)
               : cudaMemcpyAsync(b->w[c], b->w[0], bytes, cudaMemcpyDeviceToDevice, env->stream) != cudaSuccess)
      return 1;
  }
  return 0;
}

/* The shape's codes for `bits`-bit weights, uniform over all 2^bits values
 * (every table entry is looked up, as with real weights), on the device. */
static int upload_codes(bench_env *env, const shape *s, int bits) {
  const size_t count = (size_t)(s->k * s->n);
  const uint8_t mask = (uint8_t)((1u << bits) - 1u);
  for (size_t i = 0; i < count; i++) env->codes[i] = env->random_bytes[i] & mask;
  return lutmm_copy_to_context(env->ctx, env->d_codes, env->codes, count) != LUTMM_OK;
}

static void blas_free(blas_arg *b) {
  for (int c = 0; c < b->copies; c++) cudaFree(b->w[c]);
  b->copies = 0;
}

/* M of point mi: --m M alone (any M, not only the protocol's), else the
 * protocol's list or the quick one. */
static int64_t m_at(const bench_options *o, int mi) {
  static const int64_t quick_ms[4] = {1, 4, 16, 64};
  return o->only_m != 0 ? o->only_m : o->quick ? quick_ms[mi] : kMs[mi];
}

#if LUTMM_STAMPS
/* Profiling builds: one kernel's stamp words (stamps.h), one row a warp,
 * appended to `path` under `events` (times in ns from the launch's first
 * entry, -1 for an event the warp did not pass). */
static void append_stamps(const char *path, const char *events, const unsigned long long *words, const point *p) {
  const unsigned long long grid = words[0] < LUTMM_STAMP_BLOCKS ? words[0] : LUTMM_STAMP_BLOCKS;
  const unsigned long long warps = words[1] < LUTMM_STAMP_WARPS ? words[1] : LUTMM_STAMP_WARPS;
  unsigned long long t0 = ~0ull;
  for (unsigned long long b = 0; b < grid; b++)
    for (unsigned long long w = 0; w < warps; w++) {
      const unsigned long long t = words[LUTMM_STAMP_SLOTS_AT(b, w) + LUTMM_STAMP_ENTRY];
      if (t < t0) t0 = t;
    }
  FILE *f = fopen(path, "a");
  if (f == NULL) return;
  if (fseek(f, 0, SEEK_END) == 0 && ftell(f) == 0)
    fprintf(f, "k,n,m,bits,group,dtype,lutmm_us,grid,block,warp,sm,%s\n", events);
  for (unsigned long long b = 0; b < grid; b++)
    for (unsigned long long w = 0; w < warps; w++) {
      const unsigned long long *slots = words + LUTMM_STAMP_SLOTS_AT(b, w);
      fprintf(f, "%lld,%lld,%lld,%d,%lld,%s,%.3f,%llu,%llu,%llu,%llu", (long long)p->s.k, (long long)p->s.n,
              (long long)p->m, p->bits, (long long)p->group, p->dtype == LUTMM_DTYPE_F16 ? "fp16" : "bf16",
              p->lut_s * 1e6, grid, b, w, slots[LUTMM_STAMP_SM]);
      for (int e = 0; e < LUTMM_STAMP_SM; e++)
        fprintf(f, ",%lld", slots[e] == 0 ? -1ll : (long long)(slots[e] - t0));
      fputc('\n', f);
    }
  fclose(f);
}

/* The stamps of the point's last column-stream call to $LUTMM_STAMPS_CSV
 * and of its last wide call to $LUTMM_WIDE_STAMPS_CSV (not where both name
 * one file, whose header is the column stream's); nothing for a kernel the
 * point did not run (its reader's header is clear). */
static void write_stamps(const point *p) {
  static unsigned long long words[LUTMM_STAMP_WORDS];
  const int f16 = p->dtype == LUTMM_DTYPE_F16;
  const char *column = getenv("LUTMM_STAMPS_CSV"), *wide = getenv("LUTMM_WIDE_STAMPS_CSV");
  if (column != NULL &&
      (f16 ? lutmm_cuda_column_stamps_f16(words) : lutmm_cuda_column_stamps_bf16(words)) == cudaSuccess &&
      words[0] != 0)
    append_stamps(column, "entry,issued,table,first_data,first_part,last_part,sums_added,written,exit", words, p);
  if (wide != NULL && (column == NULL || strcmp(column, wide) != 0) &&
      (f16 ? lutmm_cuda_wide_stamps_f16(words) : lutmm_cuda_wide_stamps_bf16(words)) == cudaSuccess && words[0] != 0)
    append_stamps(wide, "entry,set_up,first_fill,first_data,first_unit,last_unit,last_fill,stored,exit", words, p);
}
#endif

/* Times one packed weights object at every M of the shape, each point
 * together with cuBLAS on the dense weights (their turns interleaved). */
static int bench_packed(bench_env *env, const bench_options *o, const shape *s, lut_arg *l, blas_arg *b,
                        const point *proto) {
  lutmm_weights_info info = {0};
  if (lutmm_weights_query(l->w[0], &info) != LUTMM_OK) return 1;
  const int n_m = o->only_m != 0 ? 1 : o->quick ? 4 : 9;
  for (int mi = 0; mi < n_m; mi++) {
    point p = *proto;
    p.m = l->m = b->m = m_at(o, mi);
    l->dtype = p.dtype;
    b->type = p.dtype == LUTMM_DTYPE_F16 ? CUDA_R_16F : CUDA_R_16BF;
    const timed_op ops[2] = {{run_lut, l}, {run_blas, b}};
    double medians[2];
    if (time_ops(env, ops, 2, o->reps, o->warmup_ms, medians) != 0 || medians[0] <= 0 || medians[1] <= 0) return 1;
    p.lut_s = medians[0];
    p.blas_s = medians[1];
#if LUTMM_STAMPS
    write_stamps(&p);
#endif
    p.lut_bytes = info.packed_bytes + info.scale_bytes + (size_t)(p.m * (s->k + s->n)) * 2;
    print_point(o, env, &p);
  }
  return 0;
}

static int bench_shape(bench_env *env, const bench_options *o, const shape *s) {
  const int n_bits = o->bits != 0 || o->quick ? 1 : 3, n_groups = o->quick ? 1 : 3;
  blas_arg b;
  memset(&b, 0, sizeof b);
  b.k = s->k;
  b.n = s->n;
  int rc = blas_weights(env, s, &b);
  for (int bi = 0; rc == 0 && bi < n_bits; bi++) {
    const int bits = o->bits != 0 ? o->bits : kBits[bi];
    rc = upload_codes(env, s, bits);
    for (int gi = 0; rc == 0 && gi < n_groups; gi++)
      for (int d = 0; rc == 0 && d < 2; d++) {
        const lutmm_dtype dtype = d == 0 ? LUTMM_DTYPE_F16 : LUTMM_DTYPE_BF16;
        const lutmm_dtype scale_dtype = o->fp16_scales ? LUTMM_DTYPE_F16 : dtype;
        const point proto = {*s, 0, bits, kGroups[gi], dtype, scale_dtype, 0.0, 0.0, 0};
        lut_arg l;
        memset(&l, 0, sizeof l);
        rc = pack_copies(env, s, bits, kGroups[gi], scale_dtype, env->d_codes, &l) != LUTMM_OK ||
             bench_packed(env, o, s, &l, &b, &proto) != 0;
        free_copies(&l);
      }
  }
  blas_free(&b);
  return rc;
}

/* `text` as a whole decimal number in [lo, hi] into *out; 0 where it is
 * not one ("5x", "", out of range). */
static int parse_number(const char *text, long long lo, long long hi, long long *out) {
  char *end = NULL;
  const long long v = strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

static int parse(int argc, char **argv, bench_options *o) {
  o->csv = 0;
  o->quick = 0;
  o->reps = 100;
  o->only_k = o->only_n = o->only_m = 0;
  o->bits = 0;
  o->fp16_scales = 0;
  o->host_paced = 0;
  o->warmup_ms = WARMUP_MS;
  for (int i = 1; i < argc; i++) {
    long long v = 0;
    if (strcmp(argv[i], "--csv") == 0) o->csv = 1;
    else if (strcmp(argv[i], "--quick") == 0) o->quick = 1;
    else if (strcmp(argv[i], "--fp16-scales") == 0) o->fp16_scales = 1;
    else if (strcmp(argv[i], "--host-paced") == 0) o->host_paced = 1;
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      if (!parse_number(argv[++i], 1, MAX_REPS, &v)) return 0;
      o->reps = (int)v;
    }
    else if (strcmp(argv[i], "--warmup-ms") == 0 && i + 1 < argc) {
      char *end = NULL;
      o->warmup_ms = strtod(argv[++i], &end);
      if (end == argv[i] || *end != '\0' || !(o->warmup_ms >= 0.0 && o->warmup_ms <= 10000.0)) return 0;
    } else if (strcmp(argv[i], "--shape") == 0 && i + 1 < argc) {
      long long k = 0, n = 0;
      int used = 0;
      if (sscanf(argv[++i], "%lldx%lld%n", &k, &n, &used) != 2 || argv[i][used] != '\0' || k <= 0) return 0;
      o->only_k = k;
      o->only_n = n;
    } else if (strcmp(argv[i], "--m") == 0 && i + 1 < argc) {
      if (!parse_number(argv[++i], 1, MAX_M, &v)) return 0;
      o->only_m = v;
    } else if (strcmp(argv[i], "--bits") == 0 && i + 1 < argc) {
      if (!parse_number(argv[++i], 1, 8, &v)) return 0;
      o->bits = (int)v;
    } else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) i++;
    else return 0;
  }
  /* Any shape whose codes fit the largest default one's, K in whole groups of 128. */
  const int shape_ok = o->only_k == 0 || (o->only_k > 0 && o->only_k % 128 == 0 && o->only_k <= 28672 &&
                                          o->only_n > 0 && o->only_n <= 28672 && o->only_k * o->only_n <= 28672 * 8192);
  return shape_ok;
}

static int setup(bench_env *env) {
  int l2 = 0;
  if (lutmm_context_create(LUTMM_BACKEND_CUDA, &env->ctx) != LUTMM_OK) return 1;
  if (cudaStreamCreateWithFlags(&env->stream, cudaStreamNonBlocking) != cudaSuccess) return 1;
  if (lutmm_cuda_set_stream(env->ctx, env->stream) != LUTMM_OK) return 1;
  if (cublasCreate(&env->blas) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetStream(env->blas, env->stream);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  env->l2_bytes = (size_t)l2;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < MAX_REPS; i++)
      if (cudaEventCreate(&env->start[k][i]) != cudaSuccess || cudaEventCreate(&env->stop[k][i]) != cudaSuccess)
        return 1;
  const size_t x_bytes = (size_t)MAX_M * 28672 * 2, y_bytes = (size_t)MAX_M * 28672 * 2;
  if (cudaMalloc(&env->x, x_bytes) != cudaSuccess || cudaMalloc(&env->y, y_bytes) != cudaSuccess) return 1;
  if (upload_random_words(env->x, x_bytes / 2, 555) != 0) return 1;
  return measure_copy(env);
}

int lutmm_cli_bench_cuda(int argc, char **argv) {
  bench_options o;
  if (!parse(argc, argv, &o)) {
    fprintf(stderr,
            "usage: lutmm bench --backend cuda [--csv] [--quick] [--reps N (1..%d)] [--shape KxN] [--m M (1..%d)] "
            "[--bits B (1..8)] [--fp16-scales] [--host-paced] [--warmup-ms MS (0..10000)]\n",
            MAX_REPS, MAX_M);
    return 2;
  }
  static bench_env env;
  env.gated = !o.host_paced;
  if (setup(&env) != 0) {
    fprintf(stderr, "lutmm bench: CUDA setup failed (no device?)\n");
    return 1;
  }
  print_header(&o, &env);
  const size_t max_count = (size_t)28672 * 8192;
  uint8_t *bytes = make_random_bytes(max_count);
  env.random_bytes = bytes;
  env.codes = malloc(max_count);
  int rc = bytes == NULL || env.codes == NULL || lutmm_malloc(env.ctx, max_count, &env.d_codes) != LUTMM_OK;
  const int n_shapes = (int)(sizeof kShapes / sizeof kShapes[0]);
  const shape asked = {o.only_k, o.only_n};
  if (rc == 0 && o.only_k != 0) rc = bench_shape(&env, &o, &asked);
  for (int si = 0; rc == 0 && o.only_k == 0 && si < n_shapes; si++) {
    if (o.quick && !(si == 0 || si == 4 || si == 5)) continue;
    rc = bench_shape(&env, &o, &kShapes[si]);
  }
  if (rc != 0) fprintf(stderr, "lutmm bench: a step failed\n");
  if (env.gate_gave_up)
    fprintf(stderr, "lutmm bench: a gate waited over 2 s for the host (a full queue or a stalled host): some batches "
                    "were timed host-paced\n");
  lutmm_free(env.ctx, env.d_codes);
  free(env.codes);
  free(bytes);
  cublasDestroy(env.blas);
  lutmm_context_destroy(env.ctx);
  return rc;
}
#endif
