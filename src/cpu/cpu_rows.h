/* A second working copy of 1- to 4-bit codes for the row kernel
 * (cpu_gemv_rows.c: small M, fp32 activations), which keeps 32 columns side
 * by side in its vector lanes instead of 32 rows of one column.
 *
 * Columns are grouped in blocks of CPU_ROWS_BLOCK_N. A nibble holds one
 * column's codes on one "step" of 4 / bits consecutive rows: the code of
 * row step·(4 / bits) + i sits in bits [bits·i, bits·i + bits); a 3-bit
 * code fills a nibble alone, with bit 3 clear. A byte row
 * holds two steps of the block's columns, 32 bytes: column c in byte
 * cpu_lane_row(c), the even step in the low nibble, the odd one in the
 * high nibble. Byte shuffles and unpacks then deliver column c in lane c
 * of the kernel's accumulators (cpu_kernel.h's lane order, read the other
 * way round). Byte rows are stored by (scale group, block, byte row), so a
 * group of a run of blocks is one contiguous stretch. Rows past K and
 * columns past N hold code 0.
 *
 * Beside the codes, the scales widened exactly to float in the same
 * (group, block) order, 32 per group and block, 0 past N.
 *
 * Built beside the column copy (cpu_codes.h) from it, so the planted code
 * and row faults reach both, and the scale fault acts on its own widened
 * scales as on the column copy's. It exists only when the AVX2 or AVX-512
 * variant runs: it costs as many bytes again as the packed codes (4/3 as
 * many for 3-bit codes), plus 4 bytes per (group, column). */
#ifndef LUTMM_CPU_ROWS_H
#define LUTMM_CPU_ROWS_H

#include <stddef.h>
#include <stdint.h>

#define CPU_ROWS_BLOCK_N 32
#define CPU_ROWS_BYTE_ROW 32

struct cpu_codes;
struct lutmm_weights;

typedef struct cpu_rows {
  int bits;            /* 1 to 4 */
  int step_rows;       /* rows per nibble: 4 / bits */
  int64_t group_rows;  /* rows per scale group (a multiple of 16; k32 for one group) */
  int64_t groups;
  int64_t blocks;      /* CPU_ROWS_BLOCK_N-column blocks */
  size_t group_bytes;  /* bytes of one (group, block) */
  uint8_t *data;
  float *scales;       /* groups × blocks × CPU_ROWS_BLOCK_N */
  float scale_min;     /* smallest non-zero |scale| (0: every scale is 0) */
} cpu_rows;

/* Index of (group, block) among the copy's pieces. */
static inline size_t cpu_rows_piece(const cpu_rows *r, int64_t group, int64_t block) {
  return (size_t)group * (size_t)r->blocks + (size_t)block;
}

/* Byte rows of (group, block). */
static inline const uint8_t *cpu_rows_at(const cpu_rows *r, int64_t group, int64_t block) {
  return r->data + cpu_rows_piece(r, group, block) * r->group_bytes;
}

/* The widened scales of (group, block), 32 floats. */
static inline const float *cpu_rows_scales(const cpu_rows *r, int64_t group, int64_t block) {
  return r->scales + cpu_rows_piece(r, group, block) * CPU_ROWS_BLOCK_N;
}

/* The row copy of `codes` (threads: OpenMP team size), or NULL when it
 * does not fit or memory runs out: the row kernel is an optional path, and
 * without its copy the column kernels run. */
cpu_rows *cpu_rows_create(const struct cpu_codes *codes, const struct lutmm_weights *w, int threads);
void cpu_rows_destroy(cpu_rows *r);

#endif
