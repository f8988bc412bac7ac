/* Internals of the optimized CPU backend shared by its files. */
#ifndef LUTMM_CPU_BACKEND_H
#define LUTMM_CPU_BACKEND_H

#include "backend.h"
#include "cpu_codes.h"
#include "cpu_kernel.h"

/* M at which gemm switches from the LUT kernels to dequantize + sgemm,
 * per kernel variant (docs/CPU.md gives the measurements): the AVX2 and
 * portable kernels lose to sgemm from M = 12 on the AMD EPYC (Zen 3) they
 * were tuned on; the AVX-512 column kernel, on a Sapphire-Rapids-class
 * Xeon with 2 threads, took 20 ms at M = 16 against 35 ms for dequantize +
 * sgemm and 101 against 48-62 ms at M = 64 (4096×14336 NF4): they cross
 * near M = 29. */
#define CPU_LARGE_M_MIN 12
#define CPU_LARGE_M_MIN_AVX512 32

lutmm_status cpu_context_init(lutmm_context *ctx);
void cpu_context_fini(lutmm_context *ctx);

/* Integer value of environment variable `name`, or `fallback` when it is
 * unset or empty. The backend's tuning switches are read through it on
 * every call, so tests can change them between calls. */
int64_t cpu_env_int(const char *name, int64_t fallback);

/* OpenMP team size for a context (0: OpenMP's default). */
int cpu_threads(const lutmm_context *ctx);

/* The context's scratch buffer, grown to at least `bytes` (64-byte aligned);
 * NULL when the allocation fails. Valid until the next call. */
void *cpu_workspace(lutmm_context *ctx, size_t bytes);

/* Room for a·b + c·d + e·f floats, every product and sum checked:
 * LUTMM_ERR_OVERFLOW, LUTMM_ERR_OUT_OF_MEMORY or LUTMM_OK with *out set. */
lutmm_status cpu_workspace_floats(lutmm_context *ctx, const size_t factors[6], float **out);

/* X widened to float into x_out (m × k32, zero past k), in lane order
 * (cpu_kernel.h) or natural order. */
void cpu_widen_x(const lutmm_gemm_args *args, int64_t k, int64_t k32, int lane_order, float *x_out, int threads);

/* Fills the per-call parts of the kernel arguments: table_c (room for
 * LUTMM_MAX_TABLE_SIZE floats) and everything taken from w. */
void cpu_kernel_args_init(const lutmm_weights *w, const cpu_codes *codes, lutmm_dtype c, float *table_c,
                          cpu_kernel_args *a);

/* Number of split-K partial sums a small-M gemm uses: LUTMM_CPU_SPLIT_K when
 * set, else a function of the shape only (never of the thread count). */
int64_t cpu_split_count(const lutmm_weights *w, int64_t k32);

lutmm_status cpu_gemm_small(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                            const lutmm_gemm_args *args);
/* Whether the dequantize + sgemm path exists for this shape (OpenBLAS
 * present, sizes within its int arguments). */
int cpu_large_m_available(const lutmm_weights *w, int64_t m);
lutmm_status cpu_gemm_large(lutmm_context *ctx, const lutmm_weights *w, const cpu_codes *codes,
                            const lutmm_gemm_args *args);

#endif
