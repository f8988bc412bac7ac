/* The optimized CPU backend: the reference's table with gemm, weight
 * finishing and context state overridden (docs/CPU.md). Weights packed or
 * loaded on a CPU context carry a kernel-friendly copy of their codes in
 * backend_data; weights from a reference context get one per call. */
#include <stdlib.h>

#include "cpu_backend.h"
#include "cpu_gemv_rows.h"
#include "reference.h"

static lutmm_status cpu_probe(void) { return LUTMM_OK; }

static lutmm_status cpu_weights_finish(lutmm_context *ctx, lutmm_weights *w) {
  cpu_codes *codes;
  /* The row kernel is AVX2 code, run by the AVX2 and AVX-512 variants. */
  const int with_rows = cpu_variant_select() != CPU_VARIANT_PORTABLE;
  const lutmm_status st = cpu_codes_create(w, cpu_threads(ctx), with_rows, &codes);
  if (st == LUTMM_OK) w->backend_data = codes;
  return st;
}

/* Replaces the reference's free, so it releases what that one would too. */
static void cpu_weights_free(lutmm_weights *w) {
  cpu_codes_destroy(w->backend_data);
  w->backend_data = NULL;
  free(w->planes);
  free(w->scales);
}

/* Every dtype combination and shape the API accepts runs here. */
static int cpu_supports_gemm(const lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args) {
  (void)ctx;
  (void)w;
  return lutmm_dtype_is_valid(args->x_dtype) && lutmm_dtype_is_valid(args->y_dtype);
}

/* M from which dequantize + sgemm runs: the variant's measured crossover,
 * or LUTMM_CPU_LARGE_M when set (used to measure it). */
static int64_t large_m_threshold(void) {
  const int64_t m = cpu_env_int("LUTMM_CPU_LARGE_M", cpu_variant_select() == CPU_VARIANT_AVX512
                                                          ? CPU_LARGE_M_MIN_AVX512
                                                          : CPU_LARGE_M_MIN);
  return m < 1 ? 1 : m;
}

static lutmm_status run_gemm(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                             const lutmm_gemm_args *args) {
  if (cpu_gemv_rows_applies(w, codes, args)) return cpu_gemv_rows(ctx, w, codes, args);
  if (args->m >= large_m_threshold() && cpu_large_m_available(w, args->m)) return cpu_gemm_large(ctx, w, codes, args);
  return cpu_gemm_small(ctx, w, codes, args);
}

static lutmm_status cpu_gemm(lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args) {
  if (w->backend_data != NULL) return run_gemm(ctx, w, w->backend_data, args);
  /* Weights made by another host backend: derive the codes for this call. */
  cpu_codes *codes;
  lutmm_status st = cpu_codes_create(w, cpu_threads(ctx), 0, &codes);
  if (st != LUTMM_OK) return st;
  st = run_gemm(ctx, w, codes, args);
  cpu_codes_destroy(codes);
  return st;
}

const lutmm_backend_ops lutmm_cpu_backend = {
    .name = "cpu",
    .kind = LUTMM_BACKEND_CPU,
    .memory = LUTMM_MEMORY_HOST,
    .parent = &lutmm_reference_backend,
    .probe = cpu_probe,
    .context_init = cpu_context_init,
    .context_fini = cpu_context_fini,
    .supports_gemm = cpu_supports_gemm,
    .gemm = cpu_gemm,
    .weights_free = cpu_weights_free,
    .weights_finish = cpu_weights_finish,
};
