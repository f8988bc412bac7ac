/* Public entry points: validate every argument, then call the context's
 * resolved backend. Backends receive only valid, checked requests. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "lutmm.h"
#include "numeric.h"
#include "quant_rule.h"
#include "tables.h"
#include "validate.h"

lutmm_status lutmm_context_create(lutmm_backend backend, lutmm_context **ctx) {
  if (ctx == NULL) return LUTMM_ERR_NULL_POINTER;
  const lutmm_backend_ops *chosen;
  lutmm_status st = lutmm_backend_select(backend, &chosen);
  if (st != LUTMM_OK) return st;
  lutmm_context *c = calloc(1, sizeof *c);
  if (c == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  c->backend = chosen;
  lutmm_backend_resolve(chosen, &c->resolved);
  c->ops = &c->resolved;
  if (c->ops->context_init != NULL && (st = c->ops->context_init(c)) != LUTMM_OK) {
    free(c);
    return st;
  }
  *ctx = c;
  return LUTMM_OK;
}

void lutmm_context_destroy(lutmm_context *ctx) {
  if (ctx == NULL) return;
  if (ctx->ops->context_fini != NULL) ctx->ops->context_fini(ctx);
  free(ctx);
}

lutmm_status lutmm_context_backend(const lutmm_context *ctx, lutmm_backend *backend) {
  if (ctx == NULL || backend == NULL) return LUTMM_ERR_NULL_POINTER;
  *backend = ctx->backend->kind;
  return LUTMM_OK;
}

lutmm_status lutmm_context_set_num_threads(lutmm_context *ctx, int num_threads) {
  if (ctx == NULL) return LUTMM_ERR_NULL_POINTER;
  if (num_threads < 0) return LUTMM_ERR_INVALID_ARGUMENT;
  ctx->num_threads = num_threads;
  return LUTMM_OK;
}

/* -------------------------------------------------------- context memory */

lutmm_status lutmm_malloc(lutmm_context *ctx, size_t bytes, void **ptr) {
  if (ctx == NULL || ptr == NULL) return LUTMM_ERR_NULL_POINTER;
  if (ctx->ops->mem_alloc == NULL) return LUTMM_ERR_UNSUPPORTED;
  return ctx->ops->mem_alloc(ctx, bytes, ptr);
}

void lutmm_free(lutmm_context *ctx, void *ptr) {
  if (ctx != NULL && ptr != NULL && ctx->ops->mem_free != NULL) ctx->ops->mem_free(ctx, ptr);
}

lutmm_status lutmm_copy_to_context(lutmm_context *ctx, void *dst, const void *host_src, size_t bytes) {
  if (ctx == NULL || ((dst == NULL || host_src == NULL) && bytes != 0)) return LUTMM_ERR_NULL_POINTER;
  if (bytes == 0) return LUTMM_OK;
  if (ctx->ops->copy_from_host == NULL) return LUTMM_ERR_UNSUPPORTED;
  return ctx->ops->copy_from_host(ctx, dst, host_src, bytes);
}

lutmm_status lutmm_copy_to_host(lutmm_context *ctx, void *host_dst, const void *src, size_t bytes) {
  if (ctx == NULL || ((host_dst == NULL || src == NULL) && bytes != 0)) return LUTMM_ERR_NULL_POINTER;
  if (bytes == 0) return LUTMM_OK;
  if (ctx->ops->copy_to_host == NULL) return LUTMM_ERR_UNSUPPORTED;
  return ctx->ops->copy_to_host(ctx, host_dst, src, bytes);
}

/* ---------------------------------------------------------------- tables */

static lutmm_status build_table(lutmm_context *ctx, lutmm_table_kind kind, int bits, float *table) {
  if (ctx == NULL || table == NULL) return LUTMM_ERR_NULL_POINTER;
  if (bits < LUTMM_MIN_BITS || bits > LUTMM_MAX_BITS) return LUTMM_ERR_INVALID_BITS;
  if (ctx->ops->table_build == NULL) return LUTMM_ERR_UNSUPPORTED;
  return ctx->ops->table_build(ctx, kind, bits, table);
}

lutmm_status lutmm_table_nf(lutmm_context *ctx, int bits, float *table) {
  return build_table(ctx, LUTMM_TABLE_NF, bits, table);
}

lutmm_status lutmm_table_int(lutmm_context *ctx, int bits, float *table) {
  return build_table(ctx, LUTMM_TABLE_INT, bits, table);
}

lutmm_status lutmm_table_fp(lutmm_context *ctx, int bits, float *table) {
  return build_table(ctx, LUTMM_TABLE_FP, bits, table);
}

/* Copies a context-memory table to `host` and validates it. */
static lutmm_status fetch_table(lutmm_context *ctx, int bits, const float *table, float *host) {
  if (ctx->ops->copy_to_host == NULL) return LUTMM_ERR_UNSUPPORTED;
  lutmm_status st = ctx->ops->copy_to_host(ctx, host, table, sizeof(float) * ((size_t)1 << bits));
  if (st != LUTMM_OK) return st;
  return lutmm_check_table(bits, host);
}

lutmm_status lutmm_table_validate(lutmm_context *ctx, int bits, const float *table) {
  if (ctx == NULL || table == NULL) return LUTMM_ERR_NULL_POINTER;
  if (bits < LUTMM_MIN_BITS || bits > LUTMM_MAX_BITS) return LUTMM_ERR_INVALID_BITS;
  float host[LUTMM_MAX_TABLE_SIZE];
  return fetch_table(ctx, bits, table, host);
}

/* ---------------------------------------------------------- quantization */

/* What quantize and pack both check first: the parameters (into a geometry)
 * and the table (copied to the host). */
static lutmm_status check_params_and_table(lutmm_context *ctx, const lutmm_quant_params *params,
                                           const float *table, lutmm_geometry *g, float *host_table) {
  lutmm_status st = lutmm_geometry_init(params, g);
  if (st != LUTMM_OK) return st;
  return fetch_table(ctx, params->bits, table, host_table);
}

lutmm_status lutmm_quantize(lutmm_context *ctx, const lutmm_quant_params *params, const float *table,
                            const float *w, uint8_t *codes, void *scales) {
  if (ctx == NULL || params == NULL || table == NULL || w == NULL || codes == NULL || scales == NULL)
    return LUTMM_ERR_NULL_POINTER;
  lutmm_geometry g;
  float host_table[LUTMM_MAX_TABLE_SIZE];
  lutmm_status st = check_params_and_table(ctx, params, table, &g, host_table);
  if (st != LUTMM_OK) return st;
  if (ctx->ops->quantize == NULL) return LUTMM_ERR_UNSUPPORTED;
  return ctx->ops->quantize(ctx, params, &g, host_table, table, w, codes, scales);
}

/* --------------------------------------------------------------- weights */

void lutmm_weights_release(lutmm_weights *w) {
  const lutmm_backend_ops *owner = w->owner;
  while (owner != NULL && owner->weights_free == NULL) owner = owner->parent;
  if (owner != NULL) owner->weights_free(w);
  free(w);
}

lutmm_status lutmm_weights_create(lutmm_context *ctx, const lutmm_quant_params *params,
                                  const lutmm_geometry *g, const float *host_table, lutmm_weights **out) {
  if (ctx->ops->weights_alloc == NULL) return LUTMM_ERR_UNSUPPORTED;
  lutmm_weights *w = calloc(1, sizeof *w);
  if (w == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  w->owner = ctx->backend;
  w->params = *params;
  w->geom = *g;
  memcpy(w->table, host_table, sizeof(float) * ((size_t)1 << params->bits));
  lutmm_status st = ctx->ops->weights_alloc(ctx, w);
  if (st != LUTMM_OK) {
    lutmm_weights_release(w);
    return st;
  }
  *out = w;
  return LUTMM_OK;
}

/* Records the largest |scale| (read back from the backend's memory once,
 * scales are a small fraction of the weights) so that GEMM and dequantize
 * can refuse a compute dtype in which the weights overflow. */
lutmm_status lutmm_weights_measure_scales(lutmm_context *ctx, lutmm_weights *w) {
  uint8_t *host = malloc(w->geom.scale_bytes);
  if (host == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  lutmm_status st = ctx->ops->copy_to_host(ctx, host, w->scales, w->geom.scale_bytes);
  float largest = 0.0f;
  const size_t count = w->geom.scale_bytes / lutmm_dtype_size(w->params.scale_dtype);
  for (size_t i = 0; st == LUTMM_OK && i < count; i++) {
    const float s = lutmm_load_as_f32(host, w->params.scale_dtype, (int64_t)i);
    largest = s > largest ? s : -s > largest ? -s : largest;
  }
  free(host);
  w->max_abs_scale = largest;
  return st;
}

/* Whether every Ŵ = round_c(T_c × s_c) is finite in compute dtype c: the
 * largest table magnitude times the largest scale bounds every product. */
static lutmm_status check_weights_fit(const lutmm_weights *w, lutmm_dtype c) {
  const float table_max = lutmm_table_max_magnitude(w->table, 1 << w->params.bits);
  const float largest = lutmm_dequant_value(table_max, w->max_abs_scale, c);
  return lutmm_f32_is_finite(largest) ? LUTMM_OK : LUTMM_ERR_SCALE_OVERFLOW;
}

lutmm_status lutmm_pack(lutmm_context *ctx, const lutmm_quant_params *params, const float *table,
                        const uint8_t *codes, const void *scales, lutmm_weights **weights) {
  if (ctx == NULL || params == NULL || table == NULL || codes == NULL || scales == NULL || weights == NULL)
    return LUTMM_ERR_NULL_POINTER;
  lutmm_geometry g;
  float host_table[LUTMM_MAX_TABLE_SIZE];
  lutmm_status st = check_params_and_table(ctx, params, table, &g, host_table);
  if (st != LUTMM_OK) return st;
  if (ctx->ops->pack == NULL) return LUTMM_ERR_UNSUPPORTED;
  lutmm_weights *w;
  if ((st = lutmm_weights_create(ctx, params, &g, host_table, &w)) != LUTMM_OK) return st;
  return lutmm_weights_complete(ctx, w, ctx->ops->pack(ctx, codes, scales, w), weights);
}

lutmm_status lutmm_weights_complete(lutmm_context *ctx, lutmm_weights *w, lutmm_status filled,
                                    lutmm_weights **out) {
  lutmm_status st = filled;
  if (st == LUTMM_OK) st = lutmm_weights_measure_scales(ctx, w);
  if (st == LUTMM_OK && ctx->ops->weights_finish != NULL) st = ctx->ops->weights_finish(ctx, w);
  if (st != LUTMM_OK) {
    lutmm_weights_release(w);
    return st;
  }
  *out = w;
  return LUTMM_OK;
}

void lutmm_weights_destroy(lutmm_weights *weights) {
  if (weights != NULL) lutmm_weights_release(weights);
}

lutmm_status lutmm_weights_query(const lutmm_weights *weights, lutmm_weights_info *info) {
  if (weights == NULL || info == NULL) return LUTMM_ERR_NULL_POINTER;
  info->params = weights->params;
  info->num_groups = weights->geom.num_groups;
  info->packed_bytes = weights->geom.packed_bytes;
  info->scale_bytes = weights->geom.scale_bytes;
  info->backend = weights->owner->kind;
  return LUTMM_OK;
}

/* Weights can be used by a context whose memory space holds them. */
static lutmm_status check_weights_usable(const lutmm_context *ctx, const lutmm_weights *w) {
  return w->owner->memory == ctx->ops->memory ? LUTMM_OK : LUTMM_ERR_BACKEND_MISMATCH;
}

lutmm_status lutmm_unpack(lutmm_context *ctx, const lutmm_weights *weights, uint8_t *codes, void *scales,
                          float *table) {
  if (ctx == NULL || weights == NULL) return LUTMM_ERR_NULL_POINTER;
  lutmm_status st = check_weights_usable(ctx, weights);
  if (st != LUTMM_OK) return st;
  if (table != NULL) {
    if (ctx->ops->copy_from_host == NULL) return LUTMM_ERR_UNSUPPORTED;
    st = ctx->ops->copy_from_host(ctx, table, weights->table, sizeof(float) * ((size_t)1 << weights->params.bits));
    if (st != LUTMM_OK) return st;
  }
  if (codes == NULL && scales == NULL) return LUTMM_OK;
  if (ctx->ops->unpack == NULL) return LUTMM_ERR_UNSUPPORTED;
  return ctx->ops->unpack(ctx, weights, codes, scales);
}

lutmm_status lutmm_dequantize(lutmm_context *ctx, const lutmm_weights *weights, lutmm_dtype dtype,
                              void *w_hat) {
  if (ctx == NULL || weights == NULL || w_hat == NULL) return LUTMM_ERR_NULL_POINTER;
  if (!lutmm_dtype_is_valid(dtype)) return LUTMM_ERR_INVALID_ARGUMENT;
  lutmm_status st = check_weights_usable(ctx, weights);
  if (st != LUTMM_OK) return st;
  if ((st = check_weights_fit(weights, dtype)) != LUTMM_OK) return st;
  if (ctx->ops->dequantize == NULL) return LUTMM_ERR_UNSUPPORTED;
  return ctx->ops->dequantize(ctx, weights, dtype, w_hat);
}

/* ------------------------------------------------------------------ GEMM */

static lutmm_status validate_gemm(const lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *a) {
  if (ctx == NULL || w == NULL || a->x == NULL || a->y == NULL) return LUTMM_ERR_NULL_POINTER;
  if (!lutmm_dtype_is_valid(a->x_dtype) || !lutmm_dtype_is_valid(a->y_dtype)) return LUTMM_ERR_INVALID_ARGUMENT;
  if (a->m < 1) return LUTMM_ERR_INVALID_SHAPE;
  size_t x_bytes, y_bytes;
  lutmm_status st = lutmm_matrix_bytes(a->m, w->params.k, a->x_dtype, &x_bytes);
  if (st != LUTMM_OK) return st;
  if ((st = lutmm_matrix_bytes(a->m, w->params.n, a->y_dtype, &y_bytes)) != LUTMM_OK) return st;
  if (lutmm_ranges_overlap(a->x, x_bytes, a->y, y_bytes)) return LUTMM_ERR_INVALID_ARGUMENT;
  if ((st = check_weights_fit(w, a->x_dtype)) != LUTMM_OK) return st;
  return check_weights_usable(ctx, w);
}

lutmm_status lutmm_gemm(lutmm_context *ctx, const lutmm_weights *weights, int64_t m, const void *x,
                        lutmm_dtype x_dtype, void *y, lutmm_dtype y_dtype) {
  const lutmm_gemm_args args = {m, x, x_dtype, y, y_dtype};
  lutmm_status st = validate_gemm(ctx, weights, &args);
  if (st != LUTMM_OK) return st;
  if (ctx->ops->gemm == NULL) return LUTMM_ERR_UNSUPPORTED;
  if (ctx->ops->supports_gemm != NULL && !ctx->ops->supports_gemm(ctx, weights, &args))
    return LUTMM_ERR_UNSUPPORTED;
  return ctx->ops->gemm(ctx, weights, &args);
}

lutmm_status lutmm_reference_gemm(lutmm_context *ctx, const lutmm_weights *weights, int64_t m, const void *x,
                                  lutmm_dtype x_dtype, void *y, lutmm_dtype y_dtype, float *bound) {
  const lutmm_gemm_args args = {m, x, x_dtype, y, y_dtype};
  if (ctx == NULL || weights == NULL) return LUTMM_ERR_NULL_POINTER;
  if (weights->owner->memory != LUTMM_MEMORY_HOST) return LUTMM_ERR_BACKEND_MISMATCH;
  lutmm_status st = validate_gemm(ctx, weights, &args);
  if (st == LUTMM_ERR_BACKEND_MISMATCH) st = LUTMM_OK; /* host weights, whatever ctx runs */
  if (st != LUTMM_OK) return st;
  size_t y_bytes, bound_bytes;
  if (bound != NULL && lutmm_matrix_bytes(m, weights->params.n, LUTMM_DTYPE_F32, &bound_bytes) == LUTMM_OK &&
      lutmm_matrix_bytes(m, weights->params.n, y_dtype, &y_bytes) == LUTMM_OK &&
      lutmm_ranges_overlap(bound, bound_bytes, y, y_bytes))
    return LUTMM_ERR_INVALID_ARGUMENT;
  return lutmm_reference_gemm_run(ctx->num_threads, weights, &args, bound);
}
