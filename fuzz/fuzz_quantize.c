/* Property: lutmm_quantize follows DESIGN.md §3 exactly, checked here from
 * first principles (not with the library's own rule):
 *   - scale = round_sdtype(absmax(group) / max|T|), float32 division;
 *   - every code is the nearest table entry to w / scale (float32 division),
 *     decided against float32 midpoints, ties to the lower index; a zero
 *     scale gives the code nearest 0; codes < 2^bits;
 *   - NaN/Inf weights give LUTMM_ERR_NON_FINITE, a scale that overflows its
 *     dtype LUTMM_ERR_SCALE_OVERFLOW. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_float.h"
#include "fuzz_params.h"
#include "fuzz_util.h"

#define MAX_DIM 160

typedef struct quant_case {
  lutmm_quant_params p;
  int64_t group; /* effective group size */
  int size;      /* table entries */
  float table[LUTMM_MAX_TABLE_SIZE];
  float mid[LUTMM_MAX_TABLE_SIZE]; /* float32 midpoints */
  float table_max;
  float *w;
  int poisoned;
} quant_case;

/* Weights whose group maximum pins the scale to S = 2^e, and whose other
 * entries sit exactly on table values and midpoints times S: ties. */
static void fill_ties(fz_source *s, quant_case *c) {
  const int64_t k = c->p.k, n = c->p.n;
  for (int64_t g0 = 0; g0 < k; g0 += c->group) {
    for (int64_t nn = 0; nn < n; nn++) {
      const float scale = ldexpf(1.0f, (int)fz_range(s, -8, 8));
      for (int64_t kk = g0; kk < g0 + c->group; kk++) {
        const uint64_t r = fz_bulk(s);
        const int i = (int)(r % (uint64_t)(c->size > 1 ? c->size - 1 : 1));
        const float v = (r >> 32) & 1 ? c->mid[i] : c->table[(r >> 40) % (uint64_t)c->size];
        c->w[kk * n + nn] = v * scale;
      }
      c->w[g0 * n + nn] = (fz_bulk(s) & 1 ? -c->table_max : c->table_max) * scale;
    }
  }
}

static void fill_weights(fz_source *s, quant_case *c) {
  const size_t count = (size_t)(c->p.k * c->p.n);
  const uint32_t mode = fz_below(s, 4);
  const int exponent = (int)fz_range(s, -40, 40);
  if (mode == 1 && c->size > 1) {
    fill_ties(s, c);
  } else {
    for (size_t i = 0; i < count; i++) {
      const uint64_t r = fz_bulk(s);
      if (mode == 2) c->w[i] = (float)fuzz_random_finite(s, LUTMM_DTYPE_F32);
      else if (mode == 3) c->w[i] = (float)((int)(r % 33) - 16);
      else c->w[i] = (float)ldexp((double)(int64_t)r * 0x1p-63, exponent);
    }
  }
  c->poisoned = fz_below(s, 8) == 0;
  if (c->poisoned) {
    const float bad[3] = {NAN, INFINITY, -INFINITY};
    c->w[fz_bulk(s) % count] = bad[fz_bulk(s) % 3];
  }
}

static float scale_of(const quant_case *c, int64_t g0, int64_t nn) {
  float absmax = 0.0f;
  for (int64_t kk = g0; kk < g0 + c->group; kk++) {
    const float a = fabsf(c->w[kk * c->p.n + nn]);
    if (a > absmax) absmax = a;
  }
  return (float)fz_round((double)(absmax / c->table_max), c->p.scale_dtype);
}

/* Whether `code` is the rule's answer for v. */
static int code_is_nearest(const quant_case *c, int code, float v) {
  if (code < 0 || code >= c->size) return 0;
  const int above_lower = code == 0 || c->mid[code - 1] < v;
  const int not_above_upper = code == c->size - 1 || v <= c->mid[code];
  return above_lower && not_above_upper;
}

static void check_results(const quant_case *c, const uint8_t *codes, const void *scales) {
  const int64_t k = c->p.k, n = c->p.n;
  for (int64_t g0 = 0; g0 < k; g0 += c->group) {
    for (int64_t nn = 0; nn < n; nn++) {
      const float s = scale_of(c, g0, nn);
      const int64_t si = (g0 / c->group) * n + nn;
      FUZZ_CHECK(fz_load_bits(scales, c->p.scale_dtype, si) == fz_round_bits(s, c->p.scale_dtype));
      for (int64_t kk = g0; kk < g0 + c->group; kk++) {
        const float v = s == 0.0f ? 0.0f : c->w[kk * n + nn] / s;
        FUZZ_CHECK(code_is_nearest(c, codes[kk * n + nn], v));
      }
    }
  }
}

/* The status an independent reading of the contract predicts. */
static lutmm_status expected_status(const quant_case *c) {
  if (c->poisoned) return LUTMM_ERR_NON_FINITE;
  for (int64_t g0 = 0; g0 < c->p.k; g0 += c->group)
    for (int64_t nn = 0; nn < c->p.n; nn++)
      if (!fz_is_finite(scale_of(c, g0, nn))) return LUTMM_ERR_SCALE_OVERFLOW;
  return LUTMM_OK;
}

static void prepare(fz_source *s, lutmm_context *ctx, quant_case *c) {
  c->p = fz_draw_quant_params(s, MAX_DIM);
  c->group = c->p.group_size == 0 ? c->p.k : c->p.group_size;
  c->size = 1 << c->p.bits;
  fuzz_draw_table(s, ctx, c->p.bits, c->table);
  c->table_max = fmaxf(-c->table[0], c->table[c->size - 1]);
  for (int i = 0; i + 1 < c->size; i++) c->mid[i] = (float)(((double)c->table[i] + (double)c->table[i + 1]) / 2);
  c->w = fuzz_xmalloc(sizeof(float) * (size_t)(c->p.k * c->p.n));
  fill_weights(s, c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lutmm_context *ctx = fuzz_context(LUTMM_BACKEND_AUTO);
  FUZZ_CHECK(ctx != NULL);
  fz_source s = fz_source_from_bytes(data, size);
  quant_case c;
  prepare(&s, ctx, &c);
  const size_t count = (size_t)(c.p.k * c.p.n);
  const size_t scale_bytes = (size_t)(count / (size_t)c.group) * fz_dtype_size(c.p.scale_dtype);
  float *table = fuzz_upload(ctx, c.table, sizeof(float) * (size_t)c.size);
  float *w = fuzz_upload(ctx, c.w, sizeof(float) * count);
  uint8_t *codes = fuzz_alloc(ctx, count);
  void *scales = fuzz_alloc(ctx, scale_bytes);
  const lutmm_status st = lutmm_quantize(ctx, &c.p, table, w, codes, scales);
  FUZZ_CHECK(st == expected_status(&c));
  if (st == LUTMM_OK) {
    uint8_t *host_codes = fuzz_xmalloc(count), *host_scales = fuzz_xmalloc(scale_bytes);
    fuzz_download(ctx, host_codes, codes, count);
    fuzz_download(ctx, host_scales, scales, scale_bytes);
    check_results(&c, host_codes, host_scales);
    free(host_codes);
    free(host_scales);
  }
  lutmm_free(ctx, table);
  lutmm_free(ctx, w);
  lutmm_free(ctx, codes);
  lutmm_free(ctx, scales);
  free(c.w);
  return 0;
}
