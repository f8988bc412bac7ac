#include "fixture.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "floats.h"

lutmm_context *unit_context(void) {
  lutmm_context *ctx = NULL;
  const lutmm_status st = lutmm_context_create(LUTMM_BACKEND_REFERENCE, &ctx);
  if (st != LUTMM_OK || ctx == NULL) {
    fprintf(stderr, "FAIL: cannot create a reference context: %s\n", lutmm_status_string(st));
    exit(1);
  }
  return ctx;
}

/* The sentinel byte at offset i after the payload: not constant, so a
 * shifted overwrite is caught too. */
static uint8_t sentinel(size_t i) { return (uint8_t)(0xC3u ^ (i * 29u)); }

guarded guarded_alloc(size_t bytes, uint8_t poison) {
  guarded g = {malloc(bytes + GUARD_BYTES), bytes};
  if (g.data == NULL) {
    fprintf(stderr, "FAIL: test allocation of %zu bytes\n", bytes);
    exit(1);
  }
  memset(g.data, poison, bytes);
  for (size_t i = 0; i < GUARD_BYTES; i++) g.data[bytes + i] = sentinel(i);
  return g;
}

int guarded_intact(const guarded *g) {
  for (size_t i = 0; i < GUARD_BYTES; i++)
    if (g->data[g->bytes + i] != sentinel(i)) return 0;
  return 1;
}

void guarded_free(guarded *g) {
  free(g->data);
  g->data = NULL;
}

uint64_t rng_next(unit_rng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t rng_below(unit_rng *r, uint32_t bound) { return (uint32_t)(rng_next(r) % bound); }

float rng_uniform(unit_rng *r, float lo, float hi) {
  const float u = (float)(rng_next(r) >> 40) * 0x1p-24f;
  return lo + (hi - lo) * u;
}

size_t scale_array_bytes(const lutmm_quant_params *p, int64_t groups) {
  return (size_t)groups * (size_t)p->n * unit_dtype_size(p->scale_dtype);
}

void fill_codes(unit_rng *r, int bits, uint8_t *codes, size_t count) {
  for (size_t i = 0; i < count; i++) codes[i] = (uint8_t)rng_below(r, 1u << bits);
}

void fill_scales(unit_rng *r, lutmm_dtype dtype, void *scales, size_t count) {
  for (size_t i = 0; i < count; i++) {
    const uint32_t pick = rng_below(r, 16);
    double s = (double)rng_uniform(r, 0x1p-6f, 4.0f);
    if (pick == 0) s = 0.0;
    else if (pick == 1) s = -s;
    unit_store(scales, dtype, i, s);
  }
}

void nf_table(lutmm_context *ctx, int bits, float *table) { CHECK_OK(lutmm_table_nf(ctx, bits, table)); }

int64_t group_count(const lutmm_quant_params *p) { return p->group_size == 0 ? 1 : p->k / p->group_size; }

int packed_case_make(lutmm_context *ctx, const lutmm_quant_params *p, uint64_t seed, packed_case *out) {
  memset(out, 0, sizeof *out);
  out->params = *p;
  out->groups = group_count(p);
  unit_rng r = {seed};
  const size_t count = (size_t)p->k * (size_t)p->n;
  out->codes = malloc(count);
  out->scales = malloc(scale_array_bytes(p, out->groups));
  if (out->codes == NULL || out->scales == NULL) {
    unit_fail(__FILE__, __LINE__, "allocation");
    return 0;
  }
  nf_table(ctx, p->bits, out->table);
  fill_codes(&r, p->bits, out->codes, count);
  fill_scales(&r, p->scale_dtype, out->scales, (size_t)out->groups * (size_t)p->n);
  const lutmm_status st = lutmm_pack(ctx, p, out->table, out->codes, out->scales, &out->weights);
  if (st != LUTMM_OK) {
    unit_fail(__FILE__, __LINE__, "pack bits=%d k=%lld n=%lld g=%lld: %s", p->bits, (long long)p->k,
              (long long)p->n, (long long)p->group_size, lutmm_status_string(st));
    out->weights = NULL;
    return 0;
  }
  return 1;
}

void packed_case_free(packed_case *c) {
  lutmm_weights_destroy(c->weights);
  free(c->codes);
  free(c->scales);
  memset(c, 0, sizeof *c);
}

uint8_t *serialize_copy(lutmm_context *ctx, const lutmm_weights *w, size_t *size) {
  size_t need = 0;
  CHECK_OK(lutmm_weights_serialize(ctx, w, NULL, 0, &need));
  uint8_t *buffer = malloc(need ? need : 1);
  if (buffer == NULL) return NULL;
  const lutmm_status st = lutmm_weights_serialize(ctx, w, buffer, need, size);
  if (st != LUTMM_OK || *size != need) {
    unit_fail(__FILE__, __LINE__, "serialize: %s, %zu of %zu bytes", lutmm_status_string(st), *size, need);
    free(buffer);
    return NULL;
  }
  return buffer;
}
