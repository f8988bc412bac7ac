/* The row kernel: small M with fp32 activations on the row copy of 1- to
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
/* The AVX-512 code's table: the 16 floats themselves. */
#define CPU_ROWS_TABLE_BYTES_AVX512 64
/* Most rows of X the row kernel takes, per code width and variant: below
 * these it beat both the variant's column kernels and dequantize + sgemm,
 * the AVX2 code on Zen 3 and the AVX-512 code on a Sapphire-Rapids-class
 * Xeon (docs/CPU.md). LUTMM_CPU_ROWS_MAX_M overrides them all, to measure
 * the crossover. */
#define CPU_ROWS_MAX_M_4BIT 2
#define CPU_ROWS_MAX_M_3BIT 2
#define CPU_ROWS_MAX_M_2BIT 16
#define CPU_ROWS_MAX_M_1BIT 48
#define CPU_ROWS_MAX_M_4BIT_AVX512 6
#define CPU_ROWS_MAX_M_3BIT_AVX512 16
#define CPU_ROWS_MAX_M_2BIT_AVX512 64
#define CPU_ROWS_MAX_M_1BIT_AVX512 64

/* Whether the row kernel runs this gemm (shape, dtypes, variant, X's range:
 * see cpu_gemv_rows.c). */
int cpu_gemv_rows_applies(const lutmm_weights *w, const struct cpu_codes *codes, const lutmm_gemm_args *args);
lutmm_status cpu_gemv_rows(lutmm_context *ctx, const lutmm_weights *w, const struct cpu_codes *codes,
                           const lutmm_gemm_args *args);

#if defined(__x86_64__)
/* Tables of steps [step0, step1) for X row x (k values, zero past k), each
 * table_bytes long: CPU_ROWS_TABLE_BYTES (byte planes, for the AVX2 code)
 * or CPU_ROWS_TABLE_BYTES_AVX512 (the 16 floats). One builder for both
 * codes, so their tables, and bits, are the same. */
void cpu_rows_tables_avx2(const float *x, int64_t k, const float *table_c, int bits, int64_t step0, int64_t step1,
                          size_t table_bytes, uint8_t *tables);
/* out[row·ldo + 32·block + c] += every group's s · Σ L[code] for blocks
 * [block0, block1) and rows [0, m) of X, whose tables are row_tables bytes
 * apart. */
void cpu_rows_kernel_avx2(const cpu_rows *r, int64_t m, const uint8_t *tables, size_t row_tables, int64_t block0,
                          int64_t block1, float *out, int64_t ldo);
/* The same with AVX-512 permutes (cpu_gemv_rows_avx512.c), on tables of
 * CPU_ROWS_TABLE_BYTES_AVX512 per step; same bits. */
void cpu_rows_kernel_avx512(const cpu_rows *r, int64_t m, const uint8_t *tables, size_t row_tables, int64_t block0,
                            int64_t block1, float *out, int64_t ldo);
#endif

#endif
