/* The row kernel: M = 1 with fp32 activations on the row copy of 1-, 2- and
 * 4-bit codes (cpu_rows.h), for the AVX2 variant. */
#ifndef LUTMM_CPU_GEMV_ROWS_H
#define LUTMM_CPU_GEMV_ROWS_H

#include <stdint.h>

#include "backend.h"
#include "cpu_rows.h"

struct cpu_codes;

/* Bytes of one step's table: four byte planes of 16 entries, each plane in
 * both 128-bit lanes. */
#define CPU_ROWS_TABLE_BYTES 128

/* Whether the row kernel runs this gemm (shape, dtypes, variant, X's range:
 * see cpu_gemv_rows.c). */
int cpu_gemv_rows_applies(const lutmm_weights *w, const struct cpu_codes *codes, const lutmm_gemm_args *args);
lutmm_status cpu_gemv_rows(lutmm_context *ctx, const lutmm_weights *w, const struct cpu_codes *codes,
                           const lutmm_gemm_args *args);

#if defined(__x86_64__)
/* Tables of steps [step0, step1) for X row x (k values, zero past k). */
void cpu_rows_tables_avx2(const float *x, int64_t k, const float *table_c, int bits, int64_t step0, int64_t step1,
                          uint8_t *tables);
/* out[32·block + c] += every group's s · Σ L[code] for blocks [block0, block1). */
void cpu_rows_kernel_avx2(const cpu_rows *r, const uint8_t *tables, int64_t block0, int64_t block1, float *out);
#endif

#endif
