#include "cuda_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"

#define POISON 0xFF /* NaN in every output dtype */

int harness_open(harness *h) {
  h->cuda = h->ref = NULL;
  lutmm_status st = lutmm_context_create(LUTMM_BACKEND_CUDA, &h->cuda);
  if (st == LUTMM_ERR_BACKEND_UNAVAILABLE) {
    printf("SKIP: no CUDA device visible\n");
    return HARNESS_SKIP;
  }
  if (st != LUTMM_OK) {
    printf("FAIL: CUDA context: %s\n", lutmm_status_string(st));
    return 1;
  }
  if ((st = lutmm_context_create(LUTMM_BACKEND_REFERENCE, &h->ref)) != LUTMM_OK) {
    printf("FAIL: reference context: %s\n", lutmm_status_string(st));
    return 1;
  }
  return 0;
}

void harness_close(harness *h) {
  lutmm_context_destroy(h->cuda);
  lutmm_context_destroy(h->ref);
}

uint64_t harness_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int64_t harness_pick(uint64_t *s, int64_t n) { return (int64_t)(harness_next(s) % (uint64_t)n); }

static double uniform(uint64_t *s) { return (double)(harness_next(s) >> 11) * 0x1p-53; }

int64_t harness_group_for(uint64_t *s, int64_t k) {
  int64_t options[64], count = 0;
  options[count++] = 0;
  for (int64_t g = 16; g <= k && count < 64; g += 16)
    if (k % g == 0) options[count++] = g;
  return options[harness_pick(s, count)];
}

void harness_describe(const gemm_case *c, char *out, size_t size) {
  snprintf(out, size, "%s b=%d m=%lld k=%lld n=%lld g=%lld s=%d x=%d y=%d off=%d tiny=%d seed=%llu",
           c->exact ? "exact" : "bound", c->bits, (long long)c->m, (long long)c->k, (long long)c->n,
           (long long)c->group_size, (int)c->scale_dtype, (int)c->x_dtype, (int)c->y_dtype, c->x_offset,
           c->tiny_scales, (unsigned long long)c->seed);
}

static int compare_floats(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Exact: small multiples of 1/8, sorted; bound: sorted normal-ish values. */
static void make_table(uint64_t *s, int bits, int exact, float *table) {
  const int size = 1 << bits;
  do {
    for (int i = 0; i < size; i++)
      table[i] = exact ? (float)(harness_pick(s, 33) - 16) * 0.125f
                       : (float)((uniform(s) + uniform(s) + uniform(s) - 1.5) * 2.0);
    qsort(table, (size_t)size, sizeof(float), compare_floats);
  } while (table[0] == 0.0f && table[size - 1] == 0.0f);
}

static void free_host(harness_inputs *hc) {
  free(hc->codes);
  free(hc->scales);
  free(hc->x);
  free(hc->y_ref);
  free(hc->y_cuda);
  free(hc->bound);
}

static int make_inputs(const gemm_case *c, harness_inputs *hc) {
  uint64_t s = c->seed;
  const int64_t groups = c->group_size == 0 ? 1 : c->k / c->group_size;
  make_table(&s, c->bits, c->exact, hc->table);
  hc->scale_bytes = (size_t)(groups * c->n) * lutmm_dtype_size(c->scale_dtype);
  hc->x_bytes = (size_t)(c->m * c->k) * lutmm_dtype_size(c->x_dtype);
  hc->y_bytes = (size_t)(c->m * c->n) * lutmm_dtype_size(c->y_dtype);
  hc->codes = malloc((size_t)(c->k * c->n));
  hc->scales = malloc(hc->scale_bytes);
  hc->x = malloc(hc->x_bytes);
  hc->y_ref = malloc(hc->y_bytes);
  hc->y_cuda = malloc(hc->y_bytes + HARNESS_GUARD_BYTES);
  hc->bound = malloc(sizeof(float) * (size_t)(c->m * c->n));
  if (!hc->codes || !hc->scales || !hc->x || !hc->y_ref || !hc->y_cuda || !hc->bound) return 0;
  for (int64_t i = 0; i < c->k * c->n; i++) hc->codes[i] = (uint8_t)harness_pick(&s, 1 << c->bits);
  for (int64_t i = 0; i < groups * c->n; i++) {
    const int exponent = c->tiny_scales ? -22 + (int)harness_pick(&s, 8) : (int)harness_pick(&s, 3) - 1;
    const double v = c->exact ? ldexp(1.0, exponent) : ldexp(0.05 + uniform(&s), c->tiny_scales ? -18 : 0);
    lutmm_store_from_f64(hc->scales, c->scale_dtype, i, (double)lutmm_round_f64_to_dtype(v, c->scale_dtype));
  }
  harness_new_x(c, &s, hc);
  return 1;
}

/* Packs on the reference (host weights, for the oracle) and on the device. */
static lutmm_status pack_both(harness *h, const gemm_case *c, const harness_inputs *hc, lutmm_weights **w_ref,
                              lutmm_weights **w_cuda) {
  const lutmm_quant_params p = {c->bits, c->k, c->n, c->group_size, c->scale_dtype};
  lutmm_status st = lutmm_pack(h->ref, &p, hc->table, hc->codes, hc->scales, w_ref);
  if (st != LUTMM_OK) return st;
  void *d_table = NULL, *d_codes = NULL, *d_scales = NULL;
  const size_t table_bytes = sizeof(float) << c->bits;
  st = lutmm_malloc(h->cuda, table_bytes, &d_table);
  if (st == LUTMM_OK) st = lutmm_malloc(h->cuda, (size_t)(c->k * c->n), &d_codes);
  if (st == LUTMM_OK) st = lutmm_malloc(h->cuda, hc->scale_bytes, &d_scales);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, d_table, hc->table, table_bytes);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, d_codes, hc->codes, (size_t)(c->k * c->n));
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, d_scales, hc->scales, hc->scale_bytes);
  if (st == LUTMM_OK) st = lutmm_pack(h->cuda, &p, d_table, d_codes, d_scales, w_cuda);
  lutmm_free(h->cuda, d_table);
  lutmm_free(h->cuda, d_codes);
  lutmm_free(h->cuda, d_scales);
  return st;
}

/* GEMM on the device with poisoned output and guard bytes after it. */
static lutmm_status gemm_on_device(harness *h, const gemm_case *c, lutmm_weights *w, harness_inputs *hc) {
  const size_t esize = lutmm_dtype_size(c->x_dtype), offset = c->x_offset ? esize : 0;
  void *d_x = NULL, *d_y = NULL;
  lutmm_status st = lutmm_malloc(h->cuda, hc->x_bytes + offset, &d_x);
  if (st == LUTMM_OK) st = lutmm_malloc(h->cuda, hc->y_bytes + HARNESS_GUARD_BYTES, &d_y);
  harness_poison(hc);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, (uint8_t *)d_x + offset, hc->x, hc->x_bytes);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(h->cuda, d_y, hc->y_cuda, hc->y_bytes + HARNESS_GUARD_BYTES);
  if (st == LUTMM_OK) st = lutmm_gemm(h->cuda, w, c->m, (uint8_t *)d_x + offset, c->x_dtype, d_y, c->y_dtype);
  if (st == LUTMM_OK) st = lutmm_copy_to_host(h->cuda, hc->y_cuda, d_y, hc->y_bytes + HARNESS_GUARD_BYTES);
  lutmm_free(h->cuda, d_x);
  lutmm_free(h->cuda, d_y);
  return st;
}

static int check_element(const gemm_case *c, const harness_inputs *hc, int64_t i, char *why, size_t size) {
  const float got = lutmm_load_as_f32(hc->y_cuda, c->y_dtype, i), want = lutmm_load_as_f32(hc->y_ref, c->y_dtype, i);
  const size_t es = lutmm_dtype_size(c->y_dtype);
  int ok;
  if (c->exact)
    ok = memcmp((const uint8_t *)hc->y_cuda + (size_t)i * es, (const uint8_t *)hc->y_ref + (size_t)i * es, es) == 0 ||
         (got == 0.0f && want == 0.0f);
  else if (!lutmm_f32_is_finite(want))
    ok = 1;
  else
    ok = lutmm_f32_is_finite(got) && fabs((double)got - (double)want) <= (double)hc->bound[i];
  if (!ok)
    snprintf(why, size, "element (%lld, %lld): got %.9g want %.9g bound %.3g", (long long)(i / c->n),
             (long long)(i % c->n), (double)got, (double)want, (double)hc->bound[i]);
  return ok;
}

static int compare(const gemm_case *c, const harness_inputs *hc, char *why, size_t size) {
  for (size_t i = 0; i < HARNESS_GUARD_BYTES; i++)
    if (((const uint8_t *)hc->y_cuda)[hc->y_bytes + i] != POISON) {
      snprintf(why, size, "guard byte %zu after Y overwritten", i);
      return 1;
    }
  for (int64_t i = 0; i < c->m * c->n; i++)
    if (!check_element(c, hc, i, why, size)) return 1;
  return 0;
}

lutmm_status harness_prepare(harness *h, const gemm_case *c, harness_inputs *in) {
  memset(in, 0, sizeof *in);
  lutmm_status st = make_inputs(c, in) ? LUTMM_OK : LUTMM_ERR_OUT_OF_MEMORY;
  if (st == LUTMM_OK) st = pack_both(h, c, in, &in->w_ref, &in->w_cuda);
  return st;
}

void harness_release(harness_inputs *in) {
  lutmm_weights_destroy(in->w_ref);
  lutmm_weights_destroy(in->w_cuda);
  free_host(in);
  memset(in, 0, sizeof *in);
}

void harness_new_x(const gemm_case *c, uint64_t *state, harness_inputs *in) {
  for (int64_t i = 0; i < c->m * c->k; i++) {
    const double v = c->exact ? (double)(harness_pick(state, 9) - 4) * 0.25 : (uniform(state) - 0.5) * 4.0;
    lutmm_store_from_f64(in->x, c->x_dtype, i, v);
  }
}

void harness_poison(harness_inputs *in) { memset(in->y_cuda, POISON, in->y_bytes + HARNESS_GUARD_BYTES); }

int harness_check(harness *h, const gemm_case *c, harness_inputs *in, char *why, size_t why_size) {
  const lutmm_status st =
      lutmm_reference_gemm(h->ref, in->w_ref, c->m, in->x, c->x_dtype, in->y_ref, c->y_dtype, in->bound);
  if (st == LUTMM_OK) return compare(c, in, why, why_size);
  snprintf(why, why_size, "API error %s", lutmm_status_string(st));
  return 2;
}

int harness_run_case(harness *h, const gemm_case *c, char *why, size_t why_size, void *y_out) {
  harness_inputs in;
  lutmm_status st = harness_prepare(h, c, &in);
  if (st == LUTMM_OK) st = gemm_on_device(h, c, in.w_cuda, &in);
  int result = 2;
  if (st != LUTMM_OK) snprintf(why, why_size, "API error %s", lutmm_status_string(st));
  else result = harness_check(h, c, &in, why, why_size);
  if (result == 0 && y_out != NULL) memcpy(y_out, in.y_cuda, in.y_bytes);
  harness_release(&in);
  return result;
}
