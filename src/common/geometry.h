/* Sizes derived from lutmm_quant_params: padding, planes, byte counts.
 * Computed once, with every multiplication checked for size_t overflow. */
#ifndef LUTMM_GEOMETRY_H
#define LUTMM_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "lutmm.h"

typedef struct lutmm_geometry {
  int64_t k_pad, n_pad;       /* multiples of 64 */
  int64_t k_atoms, n_atoms;
  int64_t group_size;         /* effective: k for whole-column groups */
  int64_t num_groups;         /* G = k / group_size */
  int64_t scale_rows;         /* ceil(k_pad / group_size) >= G; extra rows are 0 */
  lutmm_slicing slicing;
  size_t plane_offset[LUTMM_MAX_SLICES]; /* byte offset of each plane in the packed buffer */
  size_t plane_bytes[LUTMM_MAX_SLICES];
  size_t packed_bytes;        /* all planes */
  size_t scale_bytes;         /* scale_rows × n_pad × sizeof(scale dtype) */
  size_t weight_count;        /* k × n (elements of W, codes, Ŵ) */
  size_t user_scale_count;    /* G × n */
} lutmm_geometry;

/* Validates params (bits, shape, group size, scale dtype) and fills geom.
 * Returns the status lutmm_quant_params_check documents. */
lutmm_status lutmm_geometry_init(const lutmm_quant_params *params, lutmm_geometry *geom);

/* a·b into *out, or LUTMM_ERR_OVERFLOW. */
lutmm_status lutmm_checked_mul(size_t a, size_t b, size_t *out);

/* Bytes of an m×cols matrix of dtype, checked. */
lutmm_status lutmm_matrix_bytes(int64_t rows, int64_t cols, lutmm_dtype dtype, size_t *out);

int lutmm_dtype_is_valid(lutmm_dtype dtype);

#endif
