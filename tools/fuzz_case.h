/* One differential test case for lutmm_gemm: shapes, formats and host data,
 * drawn from a fuzz source. Two kinds (docs/TESTING.md explains both):
 *
 *   FZ_EXACT  exact-arithmetic mode (DESIGN.md §3 item 2): table values,
 *             scales and activations are small dyadic numbers chosen so that
 *             every dequantized weight is exact in the compute dtype, every
 *             product is exact in float32, and every product and partial sum
 *             is a multiple of one quantum below 2^22 quanta. A correct
 *             backend then returns the reference's bits, whatever its order.
 *   FZ_BOUND  general data: any table kind, weights quantized by the
 *             reference, random activations; results must lie inside the
 *             reference's per-element bound. */
#ifndef LUTMM_FUZZ_CASE_H
#define LUTMM_FUZZ_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_source.h"
#include "lutmm.h"

typedef enum fz_mode { FZ_EXACT = 0, FZ_BOUND = 1 } fz_mode;
typedef enum fz_table_kind { FZ_TABLE_NF = 0, FZ_TABLE_INT = 1, FZ_TABLE_FP = 2, FZ_TABLE_USER = 3 } fz_table_kind;

/* Exact mode's dyadic construction, kept for the self-check and reproducer. */
typedef struct fz_exact_plan {
  int t_bits, s_bits, x_bits, spread; /* |T_int| < 2^t_bits, S_int < 2^s_bits, ... */
  int t_exp, s_exp_min, x_exp;        /* T = T_int·2^t_exp, S = S_int·2^(s_exp_min+d), x = X_int·2^x_exp */
  int quantum_exp;                    /* t_exp + s_exp_min + x_exp */
} fz_exact_plan;

typedef struct fz_case {
  fz_mode mode;
  int64_t m;
  lutmm_quant_params p;
  int64_t groups;
  fz_table_kind table_kind;
  lutmm_dtype x_dtype, y_dtype;
  fz_exact_plan plan;                /* FZ_EXACT only */
  float table[LUTMM_MAX_TABLE_SIZE];
  float *w;                          /* k×n weights that were quantized (FZ_BOUND), else NULL */
  uint8_t *codes;                    /* k×n */
  void *scales;                      /* groups×n, scale dtype */
  void *x;                           /* m×k, x dtype */
} fz_case;

/* Largest K, N and M a case draws. */
#define FZ_MAX_KN 320
#define FZ_MAX_M 64

/* Draws a case. `host` is a host-memory (reference) context used to build
 * tables and quantize. A source with cpu_rows set sends one case in eight
 * to the CPU row kernel's ground (M <= 2, fp32 X), which the plain draw
 * reaches in ~5 % of cases; without it the draw is the one the checked-in
 * corpora were made with. Returns LUTMM_OK or the status that stopped it. */
lutmm_status fz_case_draw(fz_source *s, fz_mode mode, lutmm_context *host, fz_case *c);
void fz_case_free(fz_case *c);

/* One line naming the case's parameters (no seed). */
void fz_case_describe(const fz_case *c, char *out, size_t cap);

/* Draws a table of `kind` with 2^bits entries into host memory `table`:
 * NF/INT/FP from the context's builders, USER random ascending values. */
lutmm_status fz_draw_table(fz_source *s, lutmm_context *ctx, fz_table_kind kind, int bits, float *table);

/* Exact-mode pieces (tools/fuzz_exact.c). */
lutmm_status fz_exact_fill(fz_source *s, lutmm_context *host, fz_case *c);
/* Checks the construction's promises on the drawn data; 0 when one fails
 * (a bug in the generator, never in the library). */
int fz_exact_verify(const fz_case *c);

/* Bound-mode pieces (tools/fuzz_bound.c). */
lutmm_status fz_bound_fill(fz_source *s, lutmm_context *host, fz_case *c);

#endif
