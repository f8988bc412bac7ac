/* Large-M gemm: dequantize panels of Ŵ to fp32 (exactly the values the LUT
 * kernels use) and multiply them with OpenBLAS sgemm. A panel is PANEL_K
 * rows of PANEL_N columns, stored column after column (Ŵᵀ rows): 1 MiB,
 * small enough to stay in cache between its dequantization and the sgemm
 * that reads it (a whole column range, 8 MiB at K = 4096, did not). Each panel's product is added into Y (the first cut
 * of a column range stores it), so Y's K sums are sums of PANEL_K-row sums.
 * Without OpenBLAS the LUT kernels handle every M (docs/CPU.md). */
#include "cpu_backend.h"
#include "cpu_round.h"
#include "lutmm_config.h"

#include <omp.h>
#include <stdint.h>

#ifdef LUTMM_HAVE_OPENBLAS
#include <cblas.h>

#define PANEL_N 512
#define PANEL_K 512
_Static_assert(PANEL_K % CPU_CHUNK_K == 0, "a cut holds whole chunks");

/* Rows [k0, k1) of columns [n0, n1) of Ŵᵀ, dequantized into panel (column
 * after column, k1 − k0 rows each). */
static void dequant_panel(const cpu_kernel_args *a, cpu_dequant_fn dequant, int lane_order, int64_t n0, int64_t n1,
                          int64_t k0, int64_t k1, float *panel, int64_t k) {
  const int64_t rows = k1 - k0;
  for (int64_t n = n0; n < n1; n += CPU_BLOCK_N) {
    const int64_t end = n + CPU_BLOCK_N < n1 ? n + CPU_BLOCK_N : n1;
    dequant(a, n, end, k0, k1, panel + (n - n0) * rows, rows);
    /* Rows past K are zero in X; zero them in the panel too, so no 0 × Inf
     * can appear where the reference has no term. Only the last cut (k1 =
     * k32) holds such rows. */
    if (k < k1) cpu_clear_padding(panel + (n - n0) * rows, end - n, k - k0, rows, lane_order);
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

/* Columns [n0, n0 + PANEL_N) of Y, one cut of PANEL_K rows after another.
 * Every column's K sum is the same sequence of calls of the same sizes
 * whichever thread takes the columns, so the bits do not depend on it. */
static void run_columns(const large_plan *p, int64_t n0, float *panel, float *c) {
  const int64_t columns = p->n - n0 < PANEL_N ? p->n - n0 : PANEL_N;
  const int direct = p->args->y_dtype == LUTMM_DTYPE_F32;
  float *target = direct ? (float *)p->args->y + n0 : c;
  for (int64_t k0 = 0; k0 < p->k32; k0 += PANEL_K) {
    const int64_t k1 = p->k32 - k0 < PANEL_K ? p->k32 : k0 + PANEL_K;
    dequant_panel(p->kernel, p->dequant, p->lane_order, n0, n0 + columns, k0, k1, panel, p->k);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)p->args->m, (int)columns, (int)(k1 - k0), 1.0f,
                p->x + k0, (int)p->k32, panel, (int)(k1 - k0), k0 == 0 ? 0.0f : 1.0f, target,
                direct ? (int)p->n : (int)columns);
  }
  if (!direct) store_panel(p->args, c, n0, columns, p->n);
}

lutmm_status cpu_gemm_large(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                            const lutmm_gemm_args *args) {
  const int64_t n = w->params.n, k = w->params.k, k32 = codes->k32;
  const int64_t panels = (n + PANEL_N - 1) / PANEL_N;
  const int threads = (int)(cpu_threads(ctx) < panels ? cpu_threads(ctx) : panels);
  const int direct = args->y_dtype == LUTMM_DTYPE_F32;
  /* Per thread: a panel and, for fp16/bf16 Y, its fp32 product (m < 2^31:
   * no overflow in 64-bit size_t). */
  const size_t buffer_floats = (size_t)PANEL_N * PANEL_K + (direct ? 0 : (size_t)args->m * PANEL_N);
  const size_t sizes[6] = {(size_t)args->m, (size_t)k32, (size_t)threads, buffer_floats, 0, 0};
  float *x;
  lutmm_status st = cpu_workspace_floats(ctx, sizes, &x);
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
    float *c = panel + (size_t)PANEL_N * PANEL_K;
#pragma omp for schedule(static)
    for (int64_t p = 0; p < panels; p++) run_columns(&plan, p * PANEL_N, panel, c);
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
