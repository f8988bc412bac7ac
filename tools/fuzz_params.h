/* Drawing the parameters of one test case from a fuzz source: sizes around
 * the 16- and 64-wide tiles of the packed layout, code widths, group sizes
 * and dtypes. Shared by every fuzz target and `lutmm fuzz`, so a corpus
 * entry and a command-line case mean the same thing.
 *
 * Encoding (what a hand-written corpus entry must contain), one 32-bit
 * little-endian word per choice:
 *   size:  w0 % 2 == 0 -> w1 picks from FZ_TILE_SIZES (w1 % count)
 *          w0 % 2 == 1 -> w1 % max + 1
 *   bits:  w % 8 + 1
 *   group: w % (number of valid options), options in the order of
 *          fz_group_options()
 *   dtype: w % 3 (F32, F16, BF16) */
#ifndef LUTMM_FUZZ_PARAMS_H
#define LUTMM_FUZZ_PARAMS_H

#include "fuzz_source.h"
#include "lutmm.h"

/* Sizes at, below and above every tile edge (16-row slices, 64-wide atoms). */
#define FZ_TILE_SIZE_COUNT 16
extern const int64_t FZ_TILE_SIZES[FZ_TILE_SIZE_COUNT];

int64_t fz_draw_size(fz_source *s, int64_t max);
int fz_draw_bits(fz_source *s);
lutmm_dtype fz_draw_dtype(fz_source *s);

/* Valid group sizes for k: 0 (whole column) first, then the multiples of 16
 * from {16, 32, 64, 128, 256, k} that divide k. Returns the count. */
int fz_group_options(int64_t k, int64_t options[8]);
int64_t fz_draw_group(fz_source *s, int64_t k);

/* bits, k, n (each <= max_dim), group size and scale dtype. */
lutmm_quant_params fz_draw_quant_params(fz_source *s, int64_t max_dim);

const char *fz_dtype_name(lutmm_dtype dtype);

#endif
