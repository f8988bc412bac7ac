#include "geometry.h"

#include "numeric.h"

/* Largest k or n accepted: keeps every padded index and byte count far from
 * int64 overflow before the size_t checks even start. */
#define LUTMM_MAX_DIM ((int64_t)1 << 40)

lutmm_status lutmm_checked_mul(size_t a, size_t b, size_t *out) {
  if (a != 0 && b > SIZE_MAX / a) return LUTMM_ERR_OVERFLOW;
  *out = a * b;
  return LUTMM_OK;
}

static lutmm_status checked_add(size_t a, size_t b, size_t *out) {
  if (b > SIZE_MAX - a) return LUTMM_ERR_OVERFLOW;
  *out = a + b;
  return LUTMM_OK;
}

int lutmm_dtype_is_valid(lutmm_dtype dtype) {
  return dtype == LUTMM_DTYPE_F32 || dtype == LUTMM_DTYPE_F16 || dtype == LUTMM_DTYPE_BF16;
}

lutmm_status lutmm_matrix_bytes(int64_t rows, int64_t cols, lutmm_dtype dtype, size_t *out) {
  if (rows < 1 || cols < 1) return LUTMM_ERR_INVALID_SHAPE;
  if ((uint64_t)rows > SIZE_MAX || (uint64_t)cols > SIZE_MAX) return LUTMM_ERR_OVERFLOW;
  size_t count;
  lutmm_status st = lutmm_checked_mul((size_t)rows, (size_t)cols, &count);
  if (st != LUTMM_OK) return st;
  return lutmm_checked_mul(count, lutmm_dtype_size(dtype), out);
}

static int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

static lutmm_status validate_params(const lutmm_quant_params *p) {
  if (p->bits < LUTMM_MIN_BITS || p->bits > LUTMM_MAX_BITS) return LUTMM_ERR_INVALID_BITS;
  if (p->k < 1 || p->n < 1) return LUTMM_ERR_INVALID_SHAPE;
  if (!lutmm_dtype_is_valid(p->scale_dtype)) return LUTMM_ERR_INVALID_ARGUMENT;
  /* 0 and k both mean one group per column, whatever k is. */
  const int whole_column = p->group_size == 0 || p->group_size == p->k;
  if (!whole_column && (p->group_size < 16 || p->group_size % 16 != 0 || p->k % p->group_size != 0))
    return LUTMM_ERR_INVALID_GROUP_SIZE;
  if (p->k > LUTMM_MAX_DIM || p->n > LUTMM_MAX_DIM) return LUTMM_ERR_OVERFLOW;
  return LUTMM_OK;
}

static lutmm_status fill_sizes(const lutmm_quant_params *p, lutmm_geometry *g) {
  lutmm_status st;
  size_t atoms, offset = 0;
  if ((st = lutmm_checked_mul((size_t)g->k_atoms, (size_t)g->n_atoms, &atoms)) != LUTMM_OK) return st;
  for (int s = 0; s < g->slicing.count; s++) {
    if ((st = lutmm_checked_mul(atoms, (size_t)512 * (size_t)g->slicing.width[s], &g->plane_bytes[s])) != LUTMM_OK)
      return st;
    g->plane_offset[s] = offset;
    if ((st = checked_add(offset, g->plane_bytes[s], &offset)) != LUTMM_OK) return st;
  }
  g->packed_bytes = offset;
  if ((st = lutmm_matrix_bytes(g->scale_rows, g->n_pad, p->scale_dtype, &g->scale_bytes)) != LUTMM_OK) return st;
  if ((st = lutmm_checked_mul((size_t)p->k, (size_t)p->n, &g->weight_count)) != LUTMM_OK) return st;
  /* Callers pass W as float32: its byte count must exist too. */
  size_t w_bytes;
  if ((st = lutmm_checked_mul(g->weight_count, sizeof(float), &w_bytes)) != LUTMM_OK) return st;
  return lutmm_checked_mul((size_t)g->num_groups, (size_t)p->n, &g->user_scale_count);
}

lutmm_status lutmm_geometry_init(const lutmm_quant_params *p, lutmm_geometry *g) {
  lutmm_status st = validate_params(p);
  if (st != LUTMM_OK) return st;
  lutmm_geometry out = {0};
  out.k_pad = round_up(p->k, LUTMM_ATOM_K);
  out.n_pad = round_up(p->n, LUTMM_ATOM_N);
  out.k_atoms = out.k_pad / LUTMM_ATOM_K;
  out.n_atoms = out.n_pad / LUTMM_ATOM_N;
  out.group_size = p->group_size == 0 ? p->k : p->group_size;
  out.num_groups = p->k / out.group_size;
  out.scale_rows = (out.k_pad + out.group_size - 1) / out.group_size;
  out.slicing = lutmm_slicing_for_bits(p->bits);
  if ((st = fill_sizes(p, &out)) != LUTMM_OK) return st;
  *g = out;
  return LUTMM_OK;
}

lutmm_status lutmm_quant_params_check(const lutmm_quant_params *params, int64_t *num_groups) {
  if (params == NULL || num_groups == NULL) return LUTMM_ERR_NULL_POINTER;
  lutmm_geometry g;
  lutmm_status st = lutmm_geometry_init(params, &g);
  if (st == LUTMM_OK) *num_groups = g.num_groups;
  return st;
}
