/* The small-M LUT-GEMM kernels and what they share.
 *
 * Kernel variants (cpu_kernel_<isa>.c) all compute, for column blocks
 * [block0, block1) and rows [k0, k1) (multiples of CPU_CHUNK_K):
 *   out[m·ldo + n] = Σ_{k0 <= k < k1} x[m·ldx + k] · ŵ[k][n]     (fp32)
 * for every real column n of those blocks. ŵ comes from a per-(group,
 * column) table in the compute dtype: ŵ_i = round_c(T_c[i] × s_c), the exact
 * rule of quant_rule.h. Each variant has a fixed accumulation order, so its
 * bits depend on neither the thread count nor the tile a thread gets.
 *
 * Lane order. The AVX2 kernel's lookups yield, for each 32-row chunk, four
 * vectors V0..V3 whose lane l holds row 16·(l/4) + 4·q + l%4 (vector q), the
 * order that byte shuffles and unpacks produce. Instead of undoing it per
 * weight, X is stored in that order once per call (cpu_lane_row); kernels
 * that want natural order say so with cpu_variant_lane_order() == 0. */
#ifndef LUTMM_CPU_KERNEL_H
#define LUTMM_CPU_KERNEL_H

#include <stdint.h>

#include "cpu_codes.h"
#include "cpu_round.h"
#include "fault.h"

typedef struct cpu_kernel_args {
  const cpu_codes *codes;
  const void *scales;       /* padded scale array: scale_rows × scale_ld */
  lutmm_dtype scale_dtype;
  int64_t scale_ld;         /* n_pad */
  int64_t group_size;       /* effective (k for whole-column groups) */
  int64_t n;                /* real columns */
  lutmm_dtype c;            /* compute dtype: the activations' */
  const float *table;       /* the weights' table, float32 (2^bits) */
  const float *table_c;     /* the table rounded to c, padded with 0 to LUTMM_MAX_TABLE_SIZE */
  float table_c_min;        /* smallest non-zero |T_c| (bf16 underflow test) */
  const float *x;           /* m × ldx, widened to float, zero past k, in the variant's row order */
  int64_t m, ldx;
  float *out;
  int64_t ldo;
} cpu_kernel_args;

typedef void (*cpu_kernel_fn)(const cpu_kernel_args *a, int64_t block0, int64_t block1, int64_t k0, int64_t k1);

/* Dequantization for the large-M path: panel[(n − n0)·ld + k − k0] =
 * ŵ[k][n] for columns [n0, n1) and rows [k0, k1) (chunk multiples, k1 <=
 * k32), in the variant's row order (cpu_variant_lane_order: lane order for
 * the AVX2 dequantizer, natural for the portable one). */
typedef void (*cpu_dequant_fn)(const cpu_kernel_args *a, int64_t n0, int64_t n1, int64_t k0, int64_t k1, float *panel,
                               int64_t ld);

typedef enum cpu_variant { CPU_VARIANT_PORTABLE = 0, CPU_VARIANT_AVX2 = 1, CPU_VARIANT_AVX512 = 2 } cpu_variant;

void cpu_kernel_portable(const cpu_kernel_args *a, int64_t block0, int64_t block1, int64_t k0, int64_t k1);
void cpu_dequant_portable(const cpu_kernel_args *a, int64_t n0, int64_t n1, int64_t k0, int64_t k1, float *panel,
                          int64_t ld);
#if defined(__x86_64__)
void cpu_kernel_avx2(const cpu_kernel_args *a, int64_t block0, int64_t block1, int64_t k0, int64_t k1);
void cpu_dequant_avx2(const cpu_kernel_args *a, int64_t n0, int64_t n1, int64_t k0, int64_t k1, float *panel,
                      int64_t ld);
void cpu_kernel_avx512(const cpu_kernel_args *a, int64_t block0, int64_t block1, int64_t k0, int64_t k1);
#endif

/* The variant this process runs: LUTMM_CPU_KERNEL=portable|avx2|avx512 if
 * the CPU has it, else the best the CPU has. */
cpu_variant cpu_variant_select(void);
cpu_kernel_fn cpu_kernel_for(cpu_variant v);
cpu_dequant_fn cpu_dequant_for(cpu_variant v);
const char *cpu_variant_name(cpu_variant v);
/* 1 when the variant reads X in lane order, 0 for natural order; its
 * dequantizer (cpu_dequant_for) writes rows in the same order. */
int cpu_variant_lane_order(cpu_variant v);

/* Row (0..31) of a chunk held by lane-order position p. */
static inline int cpu_lane_row(int p) { return 16 * ((p % 8) / 4) + 4 * (p / 8) + p % 4; }

/* Zeroes rows valid <= row < rows of `columns` dequantized columns of
 * `rows` rows each (a whole padded column, or the last cut of one),
 * stored in lane order or natural order. Only the last chunk holds such
 * rows; in lane order row cpu_lane_row(p) sits at p. */
static inline void cpu_clear_padding(float *panel, int64_t columns, int64_t valid, int64_t rows, int lane_order) {
  const int64_t last = rows - CPU_CHUNK_K;
  for (int64_t c = 0; c < columns; c++)
    for (int p = 0; p < CPU_CHUNK_K; p++)
      if (last + (lane_order ? cpu_lane_row(p) : p) >= valid) panel[c * rows + last + p] = 0.0f;
}

/* Scale of (group, column n) rounded to the compute dtype, as the kernels
 * use it (the planted scale fault acts here). */
static inline float cpu_scale_c(const cpu_kernel_args *a, int64_t group, int64_t n) {
  const float s = lutmm_load_as_f32(a->scales, a->scale_dtype, group * a->scale_ld + n);
  return cpu_round_to(lutmm_fault_scale(s, group, n), a->c);
}

/* ŵ for every code of one (group, column): out[i] = round_c(T_c[i] × s_c),
 * i < 2^bits, exact for every input. Kernels call it for the rare tables
 * their vector code cannot round exactly (bf16 products below 2^-126). */
void cpu_dequant_table(const cpu_kernel_args *a, float scale_c, float *out);

/* Whether a bf16 table for scale_c needs cpu_dequant_table: some product
 * T_c[i] × s_c may lie in fp32's subnormal range, where the float product is
 * already rounded once (fp16 and fp32 products never are). */
static inline int cpu_bf16_table_is_tiny(const cpu_kernel_args *a, float scale_c) {
  const float magnitude = scale_c < 0.0f ? -scale_c : scale_c;
  return magnitude != 0.0f && magnitude * a->table_c_min <= 0x1p-126f;
}

#endif
