/* Weights as bytes: a fixed little-endian header, the table, the packed
 * planes and padded scales exactly as stored, and an FNV-1a-64 checksum of
 * everything before it. docs/FORMAT.md §Serialized weights describes it.
 * Deserialization trusts nothing: every field is checked before use. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "numeric.h"
#include "validate.h"

#define HEADER_BYTES 64
#define CHECKSUM_BYTES 8
#define FORMAT_VERSION 1u
static const uint8_t kMagic[8] = {'L', 'U', 'T', 'M', 'M', 'W', 0, 1};

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
  return v;
}

static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static uint64_t fnv1a64(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Total record size for weights with this geometry, or 0 on overflow. */
static size_t record_size(int bits, const lutmm_geometry *g) {
  const size_t fixed = HEADER_BYTES + sizeof(float) * ((size_t)1 << bits) + CHECKSUM_BYTES;
  if (g->packed_bytes > SIZE_MAX - fixed || g->scale_bytes > SIZE_MAX - fixed - g->packed_bytes) return 0;
  return fixed + g->packed_bytes + g->scale_bytes;
}

static void write_header(const lutmm_weights *w, uint8_t *p) {
  memset(p, 0, HEADER_BYTES);
  memcpy(p, kMagic, sizeof kMagic);
  put_u32(p + 8, FORMAT_VERSION);
  put_u32(p + 12, (uint32_t)w->params.bits);
  put_u32(p + 16, (uint32_t)w->params.scale_dtype);
  put_u64(p + 24, (uint64_t)w->params.k);
  put_u64(p + 32, (uint64_t)w->params.n);
  put_u64(p + 40, (uint64_t)w->params.group_size);
  put_u64(p + 48, (uint64_t)w->geom.packed_bytes);
  put_u64(p + 56, (uint64_t)w->geom.scale_bytes);
}

lutmm_status lutmm_weights_serialize(lutmm_context *ctx, const lutmm_weights *weights, void *buffer,
                                     size_t capacity, size_t *size) {
  if (ctx == NULL || weights == NULL || size == NULL) return LUTMM_ERR_NULL_POINTER;
  if (weights->owner->memory != ctx->ops->memory) return LUTMM_ERR_BACKEND_MISMATCH;
  const size_t total = record_size(weights->params.bits, &weights->geom);
  if (total == 0) return LUTMM_ERR_OVERFLOW;
  *size = total;
  if (buffer == NULL) return LUTMM_OK;
  if (capacity < total) return LUTMM_ERR_BUFFER_TOO_SMALL;
  uint8_t *p = buffer;
  write_header(weights, p);
  uint8_t *q = p + HEADER_BYTES;
  for (int i = 0; i < (1 << weights->params.bits); i++, q += 4) put_u32(q, lutmm_f32_bits(weights->table[i]));
  lutmm_status st = ctx->ops->copy_to_host(ctx, q, weights->planes, weights->geom.packed_bytes);
  if (st != LUTMM_OK) return st;
  q += weights->geom.packed_bytes;
  if ((st = ctx->ops->copy_to_host(ctx, q, weights->scales, weights->geom.scale_bytes)) != LUTMM_OK) return st;
  q += weights->geom.scale_bytes;
  put_u64(q, fnv1a64(p, (size_t)(q - p)));
  return LUTMM_OK;
}

/* Parses and checks the header; fills params and geometry. */
static lutmm_status read_header(const uint8_t *p, size_t size, lutmm_quant_params *params, lutmm_geometry *g) {
  if (size < HEADER_BYTES + CHECKSUM_BYTES || memcmp(p, kMagic, sizeof kMagic) != 0) return LUTMM_ERR_CORRUPT_DATA;
  if (get_u32(p + 8) != FORMAT_VERSION || get_u32(p + 20) != 0) return LUTMM_ERR_CORRUPT_DATA;
  const uint32_t bits = get_u32(p + 12), dtype = get_u32(p + 16);
  const uint64_t k = get_u64(p + 24), n = get_u64(p + 32), group = get_u64(p + 40);
  if (bits > LUTMM_MAX_BITS || dtype > LUTMM_DTYPE_BF16 || k > INT64_MAX || n > INT64_MAX || group > INT64_MAX)
    return LUTMM_ERR_CORRUPT_DATA;
  params->bits = (int)bits;
  params->scale_dtype = (lutmm_dtype)dtype;
  params->k = (int64_t)k;
  params->n = (int64_t)n;
  params->group_size = (int64_t)group;
  if (lutmm_geometry_init(params, g) != LUTMM_OK) return LUTMM_ERR_CORRUPT_DATA;
  if (get_u64(p + 48) != g->packed_bytes || get_u64(p + 56) != g->scale_bytes) return LUTMM_ERR_CORRUPT_DATA;
  const size_t total = record_size(params->bits, g);
  return total != 0 && total == size ? LUTMM_OK : LUTMM_ERR_CORRUPT_DATA;
}

/* Scales as stored: finite inside the matrix, zero in the padding. */
static lutmm_status check_scales(const uint8_t *scales, const lutmm_quant_params *params, const lutmm_geometry *g) {
  for (int64_t row = 0; row < g->scale_rows; row++) {
    for (int64_t col = 0; col < g->n_pad; col++) {
      const float s = lutmm_load_as_f32(scales, params->scale_dtype, row * g->n_pad + col);
      const int inside = row < g->num_groups && col < params->n;
      if (inside ? !lutmm_f32_is_finite(s) : s != 0.0f) return LUTMM_ERR_CORRUPT_DATA;
    }
  }
  return LUTMM_OK;
}

lutmm_status lutmm_weights_deserialize(lutmm_context *ctx, const void *buffer, size_t size,
                                       lutmm_weights **weights) {
  if (ctx == NULL || buffer == NULL || weights == NULL) return LUTMM_ERR_NULL_POINTER;
  const uint8_t *p = buffer;
  lutmm_quant_params params;
  lutmm_geometry g;
  lutmm_status st = read_header(p, size, &params, &g);
  if (st != LUTMM_OK) return st;
  if (get_u64(p + size - CHECKSUM_BYTES) != fnv1a64(p, size - CHECKSUM_BYTES)) return LUTMM_ERR_CORRUPT_DATA;
  float table[LUTMM_MAX_TABLE_SIZE];
  const uint8_t *q = p + HEADER_BYTES;
  for (int i = 0; i < (1 << params.bits); i++, q += 4) table[i] = lutmm_f32_from_bits(get_u32(q));
  if (lutmm_check_table(params.bits, table) != LUTMM_OK) return LUTMM_ERR_CORRUPT_DATA;
  const uint8_t *planes = q, *scales = q + g.packed_bytes;
  if ((st = check_scales(scales, &params, &g)) != LUTMM_OK) return st;
  lutmm_weights *w;
  if ((st = lutmm_weights_create(ctx, &params, &g, table, &w)) != LUTMM_OK) return st;
  st = ctx->ops->copy_from_host(ctx, w->planes, planes, g.packed_bytes);
  if (st == LUTMM_OK) st = ctx->ops->copy_from_host(ctx, w->scales, scales, g.scale_bytes);
  return lutmm_weights_complete(ctx, w, st, weights);
}
