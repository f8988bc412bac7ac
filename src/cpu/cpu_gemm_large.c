/* Large-M gemm: dequantize panels of Ŵ to fp32 (exactly the values the LUT
 * kernels use) and multiply them with OpenBLAS sgemm. A panel is PANEL_N
 * columns stored column after column (Ŵᵀ rows), small enough to stay in
 * cache between its dequantization and the sgemm that reads it.
 * Without OpenBLAS the LUT kernels handle every M (docs/CPU.md). */
#include "cpu_backend.h"
#include "cpu_round.h"
#include "lutmm_config.h"

#include <omp.h>
#include <stdint.h>

#ifdef LUTMM_HAVE_OPENBLAS
#include <cblas.h>

#define PANEL_N 512

/* Panel [n0, n1) of Ŵᵀ, dequantized into panel (column after column). */
static void dequant_panel(const cpu_kernel_args *a, cpu_dequant_fn dequant, int lane_order, int64_t n0, int64_t n1,
                          float *panel, int64_t k) {
  const int64_t k32 = a->codes->k32;
  for (int64_t n = n0; n < n1; n += CPU_BLOCK_N) {
    const int64_t end = n + CPU_BLOCK_N < n1 ? n + CPU_BLOCK_N : n1;
    dequant(a, n, end, panel + (n - n0) * k32, k32);
    /* Rows past K are zero in X; zero them in the panel too, so no 0 × Inf
     * can appear where the reference has no term. */
    if (k < k32) cpu_clear_padding(panel + (n - n0) * k32, end - n, k, k32, lane_order);
  }
}

static void store_panel(const lutmm_gemm_args *args, const float *c, int64_t n0, int64_t columns, int64_t n) {
  for (int64_t m = 0; m < args->m; m++)
    for (int64_t j = 0; j < columns; j++) cpu_store(args->y, args->y_dtype, m * n + n0 + j, c[m * columns + j]);
}

/* Every panel's sgemm runs single-threaded, and our team supplies the
 * parallelism: each thread dequantizes its own panels and multiplies them,
 * so the cores never wait for each other. Two reasons:
 *   - OpenBLAS's bits depend on its own thread count (0.3.21, Zen kernels:
 *     1 against 2 threads changed 3-41 % of the elements of 12..256 × 512 ×
 *     256..4096 products), while ours must depend on no thread count;
 *   - its pthread workers spin-wait between calls, and alternating them
 *     with an OpenMP team panel after panel, each pool spinning while the
 *     other ran, measured 4.5× slower than sgemm alone on 2 cores.
 * So OpenBLAS is held at one thread while any large-M gemm of the process
 * runs (a count of holders, so that concurrent contexts never see it given
 * back early) and given its count back by the last one. An OpenMP build of
 * OpenBLAS sets the calling thread's OpenMP thread count along with its
 * own; each caller gives its own back. */
static int blas_holders, blas_previous;

/* Returns the caller's OpenMP thread count, for release_blas. */
static int hold_blas_to_one_thread(void) {
  const int omp_threads = omp_get_max_threads();
  if (openblas_get_parallel() == 0) return omp_threads; /* a sequential build */
#pragma omp critical(lutmm_blas_hold)
  {
    if (blas_holders++ == 0) {
      blas_previous = openblas_get_num_threads();
      if (blas_previous > 1) openblas_set_num_threads(1);
    }
  }
  return omp_threads;
}

static void release_blas(int omp_threads) {
  const int build = openblas_get_parallel();
  if (build == 0) return;
#pragma omp critical(lutmm_blas_hold)
  {
    if (--blas_holders == 0 && blas_previous > 1) openblas_set_num_threads(blas_previous);
  }
  if (build == 2) omp_set_num_threads(omp_threads);
}

typedef struct large_plan {
  const lutmm_gemm_args *args;
  const cpu_kernel_args *kernel;
  cpu_dequant_fn dequant;
  int lane_order;
  int64_t n, k, k32;
  float *x;       /* M × k32, widened, in the dequantizer's row order */
  float *buffers; /* per thread: one panel, then (non-fp32 Y) M × PANEL_N */
  size_t buffer_floats;
} large_plan;

static void run_panel(const large_plan *p, int64_t n0, float *panel, float *c) {
  const int64_t columns = p->n - n0 < PANEL_N ? p->n - n0 : PANEL_N;
  const int direct = p->args->y_dtype == LUTMM_DTYPE_F32;
  dequant_panel(p->kernel, p->dequant, p->lane_order, n0, n0 + columns, panel, p->k);
  float *target = direct ? (float *)p->args->y + n0 : c;
  /* Every column's K sum runs in one call of the same K, so the bits do
   * not depend on which thread took the panel. */
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)p->args->m, (int)columns, (int)p->k32, 1.0f, p->x,
              (int)p->k32, panel, (int)p->k32, 0.0f, target, direct ? (int)p->n : (int)columns);
  if (!direct) store_panel(p->args, c, n0, columns, p->n);
}

lutmm_status cpu_gemm_large(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                            const lutmm_gemm_args *args) {
  const int64_t n = w->params.n, k = w->params.k, k32 = codes->k32;
  const int64_t panels = (n + PANEL_N - 1) / PANEL_N;
  const int threads = (int)(cpu_threads(ctx) < panels ? cpu_threads(ctx) : panels);
  const int direct = args->y_dtype == LUTMM_DTYPE_F32;
  /* Per thread: a panel and, for fp16/bf16 Y, its fp32 product. */
  size_t buffer_floats;
  lutmm_status st = lutmm_checked_mul(PANEL_N, (size_t)k32, &buffer_floats);
  if (st == LUTMM_OK && !direct) {
    const size_t c_floats = (size_t)args->m * PANEL_N; /* m ≤ 2^31: no overflow in size_t of 64 bits */
    st = buffer_floats > SIZE_MAX - c_floats ? LUTMM_ERR_OVERFLOW : LUTMM_OK;
    buffer_floats += c_floats;
  }
  if (st != LUTMM_OK) return st;
  const size_t sizes[6] = {(size_t)args->m, (size_t)k32, (size_t)threads, buffer_floats, 0, 0};
  float *x;
  st = cpu_workspace_floats(ctx, sizes, &x);
  if (st != LUTMM_OK) return st;
  /* X and the panels share the dequantizer's row order: permuting K alike
   * in both leaves every product and the sum's terms unchanged. */
  const cpu_variant variant = cpu_variant_select();
  float table_c[LUTMM_MAX_TABLE_SIZE];
  cpu_kernel_args a;
  cpu_kernel_args_init(w, codes, args->x_dtype, table_c, &a);
  const large_plan plan = {args, &a, cpu_dequant_for(variant), cpu_variant_lane_order(variant), n, k, k32,
                           x, x + (size_t)args->m * (size_t)k32, buffer_floats};
  const int omp_threads = hold_blas_to_one_thread();
  cpu_widen_x(args, k, k32, plan.lane_order, x, threads);
#pragma omp parallel num_threads(threads)
  {
    float *panel = plan.buffers + (size_t)omp_get_thread_num() * plan.buffer_floats;
    float *c = panel + (size_t)PANEL_N * (size_t)k32;
#pragma omp for schedule(static)
    for (int64_t p = 0; p < panels; p++) run_panel(&plan, p * PANEL_N, panel, c);
  }
  release_blas(omp_threads);
  return LUTMM_OK;
}

int cpu_large_m_available(const lutmm_weights *w, int64_t m) {
  /* cblas takes int sizes. */
  return m <= 0x7FFFFFFF && w->params.n <= 0x7FFFFFFF && w->params.k <= 0x7FFFFFF0;
}
#else
lutmm_status cpu_gemm_large(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                            const lutmm_gemm_args *args) {
  return cpu_gemm_small(ctx, w, codes, args);
}

int cpu_large_m_available(const lutmm_weights *w, int64_t m) {
  (void)w;
  (void)m;
  return 0;
}
#endif
