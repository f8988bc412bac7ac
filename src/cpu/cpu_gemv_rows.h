/* The row kernel: small M with fp32 activations on the row copy of 1-, 2- and
 * 4-bit codes (cpu_rows.h), for the AVX2 and AVX-512 variants. */
#ifndef LUTMM_CPU_GEMV_ROWS_H
#define LUTMM_CPU_GEMV_ROWS_H

#include <stdint.h>

#include "backend.h"
#include "cpu_rows.h"

struct cpu_codes;

/* Bytes of one step's table: four byte planes of 16 entries, each plane in
 * both 128-bit lanes. */
#define CPU_ROWS_TABLE_BYTES 128
/* Most rows of X the row kernel takes, per code width: below these it beat
 * both the AVX2 column kernels and dequantize + sgemm on Zen 3 (docs/CPU.md;
 * not measured against the AVX-512 column kernel beyond M = 2).
 * LUTMM_CPU_ROWS_MAX_M overrides all three, to measure the crossover. */
#define CPU_ROWS_MAX_M_4BIT 2
#define CPU_ROWS_MAX_M_2BIT 16
#define CPU_ROWS_MAX_M_1BIT 48

/* Whether the row kernel runs this gemm (shape, dtypes, variant, X's range:
 * see cpu_gemv_rows.c). */
int cpu_gemv_rows_applies(const lutmm_weights *w, const struct cpu_codes *codes, const lutmm_gemm_args *args);
lutmm_status cpu_gemv_rows(lutmm_context *ctx, const lutmm_weights *w, const struct cpu_codes *codes,
                           const lutmm_gemm_args *args);

#if defined(__x86_64__)
/* Tables of steps [step0, step1) for X row x (k values, zero past k). */
void cpu_rows_tables_avx2(const float *x, int64_t k, const float *table_c, int bits, int64_t step0, int64_t step1,
                          uint8_t *tables);
/* out[row·ldo + 32·block + c] += every group's s · Σ L[code] for blocks
 * [block0, block1) and rows [0, m) of X, whose tables are row_tables bytes
 * apart. */
void cpu_rows_kernel_avx2(const cpu_rows *r, int64_t m, const uint8_t *tables, size_t row_tables, int64_t block0,
                          int64_t block1, float *out, int64_t ldo);
#endif

#endif
