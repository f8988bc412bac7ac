#include "fuzz_diff.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_float.h"
#include "fuzz_params.h"

/* Bytes after Y that the backend must not touch. */
#define GUARD_BYTES 64
#define GUARD_FILL 0xA5
/* Y's poison before the call: all-ones is a NaN in every dtype. */
#define POISON_FILL 0xFF

typedef struct diff_run {
  lutmm_context *ref, *target;
  const fz_case *c;
  char *detail;
  size_t cap;
  size_t code_bytes, scale_bytes, table_bytes, x_bytes, y_bytes;
  void *t_table, *t_codes, *t_scales, *t_x, *t_y; /* target context memory */
  lutmm_weights *ref_w, *t_w;
} diff_run;

static fz_verdict say(diff_run *r, fz_verdict v, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(r->detail, r->cap, format, args);
  va_end(args);
  return v;
}

static lutmm_status upload(diff_run *r, const void *host, size_t bytes, void **dst) {
  lutmm_status st = lutmm_malloc(r->target, bytes, dst);
  if (st == LUTMM_OK) st = lutmm_copy_to_context(r->target, *dst, host, bytes);
  return st;
}

static int64_t first_difference(const void *a, const void *b, size_t bytes) {
  const uint8_t *p = a, *q = b;
  for (size_t i = 0; i < bytes; i++)
    if (p[i] != q[i]) return (int64_t)i;
  return -1;
}

/* Bound cases: the target's quantize reproduces the reference's bits. */
static fz_verdict check_quantize(diff_run *r) {
  const fz_case *c = r->c;
  if (c->w == NULL) return FZ_MATCH;
  void *w = NULL, *codes = NULL, *scales = NULL;
  uint8_t *back = malloc(r->code_bytes + r->scale_bytes);
  lutmm_status st = back != NULL ? upload(r, c->w, sizeof(float) * r->code_bytes, &w) : LUTMM_ERR_OUT_OF_MEMORY;
  if (st == LUTMM_OK) st = lutmm_malloc(r->target, r->code_bytes, &codes);
  if (st == LUTMM_OK) st = lutmm_malloc(r->target, r->scale_bytes, &scales);
  fz_verdict v = st == LUTMM_OK ? FZ_MATCH : say(r, FZ_ERROR, "allocation: %s", lutmm_status_string(st));
  if (v == FZ_MATCH) {
    st = lutmm_quantize(r->target, &c->p, r->t_table, w, codes, scales);
    if (st == LUTMM_ERR_UNSUPPORTED) v = say(r, FZ_UNSUPPORTED, "quantize unsupported");
    else if (st != LUTMM_OK) v = say(r, FZ_MISMATCH, "quantize returned %s, reference LUTMM_OK", lutmm_status_string(st));
  }
  if (v == FZ_MATCH) {
    lutmm_copy_to_host(r->target, back, codes, r->code_bytes);
    lutmm_copy_to_host(r->target, back + r->code_bytes, scales, r->scale_bytes);
    const int64_t i = first_difference(back, c->codes, r->code_bytes);
    const int64_t j = first_difference(back + r->code_bytes, c->scales, r->scale_bytes);
    if (i >= 0) v = say(r, FZ_MISMATCH, "quantize: code of W[%lld][%lld] is %d, reference %d", (long long)(i / c->p.n),
                        (long long)(i % c->p.n), back[i], c->codes[i]);
    else if (j >= 0) v = say(r, FZ_MISMATCH, "quantize: scale byte %lld differs from the reference", (long long)j);
  }
  lutmm_free(r->target, w);
  lutmm_free(r->target, codes);
  lutmm_free(r->target, scales);
  free(back);
  return v;
}

static lutmm_status serialize(lutmm_context *ctx, const lutmm_weights *w, uint8_t **bytes, size_t *size) {
  lutmm_status st = lutmm_weights_serialize(ctx, w, NULL, 0, size);
  if (st != LUTMM_OK) return st;
  if ((*bytes = malloc(*size)) == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  return lutmm_weights_serialize(ctx, w, *bytes, *size, size);
}

/* Both backends pack the same bytes (DESIGN.md §3 item 1). */
static fz_verdict check_pack(diff_run *r) {
  const fz_case *c = r->c;
  lutmm_status st = lutmm_pack(r->ref, &c->p, c->table, c->codes, c->scales, &r->ref_w);
  if (st != LUTMM_OK) return say(r, FZ_ERROR, "reference pack: %s", lutmm_status_string(st));
  st = upload(r, c->codes, r->code_bytes, &r->t_codes);
  if (st == LUTMM_OK) st = upload(r, c->scales, r->scale_bytes, &r->t_scales);
  if (st != LUTMM_OK) return say(r, FZ_ERROR, "upload: %s", lutmm_status_string(st));
  st = lutmm_pack(r->target, &c->p, r->t_table, r->t_codes, r->t_scales, &r->t_w);
  if (st == LUTMM_ERR_UNSUPPORTED) return say(r, FZ_UNSUPPORTED, "pack unsupported");
  if (st != LUTMM_OK) return say(r, FZ_MISMATCH, "pack returned %s, reference LUTMM_OK", lutmm_status_string(st));
  uint8_t *a = NULL, *b = NULL;
  size_t na = 0, nb = 0;
  st = serialize(r->ref, r->ref_w, &a, &na);
  const lutmm_status st2 = serialize(r->target, r->t_w, &b, &nb);
  fz_verdict v = FZ_MATCH;
  if (st != LUTMM_OK) v = say(r, FZ_ERROR, "reference serialize: %s", lutmm_status_string(st));
  else if (st2 != LUTMM_OK) v = say(r, FZ_MISMATCH, "serialize returned %s", lutmm_status_string(st2));
  else if (na != nb) v = say(r, FZ_MISMATCH, "serialized size %zu, reference %zu", nb, na);
  else if (first_difference(a, b, na) >= 0)
    v = say(r, FZ_MISMATCH, "packed bytes differ from the reference at record byte %lld",
            (long long)first_difference(a, b, na));
  free(a);
  free(b);
  return v;
}

/* Ŵ overflows the compute dtype: lutmm_gemm must refuse it the same way,
 * before touching Y. */
static fz_verdict check_refusal(diff_run *r) {
  const fz_case *c = r->c;
  lutmm_status st = upload(r, c->x, r->x_bytes, &r->t_x);
  if (st == LUTMM_OK) st = lutmm_malloc(r->target, r->y_bytes, &r->t_y);
  fz_verdict v = st == LUTMM_OK ? FZ_REFUSED : say(r, FZ_ERROR, "upload: %s", lutmm_status_string(st));
  if (v == FZ_REFUSED) {
    st = lutmm_gemm(r->target, r->t_w, c->m, r->t_x, c->x_dtype, r->t_y, c->y_dtype);
    if (st == LUTMM_ERR_UNSUPPORTED) v = say(r, FZ_UNSUPPORTED, "gemm unsupported");
    else if (st != LUTMM_ERR_SCALE_OVERFLOW)
      v = say(r, FZ_MISMATCH, "gemm returned %s where dequantize refused with LUTMM_ERR_SCALE_OVERFLOW",
              lutmm_status_string(st));
    else snprintf(r->detail, r->cap, "refused: dequantized weights overflow %s", fz_dtype_name(c->x_dtype));
  }
  return v;
}

/* Both backends dequantize to the same bits in the compute dtype (DESIGN.md
 * §3 item 1), the values every GEMM multiplies by. */
static fz_verdict check_dequantize(diff_run *r) {
  const fz_case *c = r->c;
  const size_t bytes = r->code_bytes * fz_dtype_size(c->x_dtype);
  uint8_t *want = malloc(bytes), *got = malloc(bytes);
  void *dev = NULL;
  lutmm_status st = want && got ? lutmm_malloc(r->target, bytes, &dev) : LUTMM_ERR_OUT_OF_MEMORY;
  const lutmm_status ref_st = st == LUTMM_OK ? lutmm_dequantize(r->ref, r->ref_w, c->x_dtype, want) : st;
  fz_verdict v = ref_st == LUTMM_OK || ref_st == LUTMM_ERR_SCALE_OVERFLOW
                     ? FZ_MATCH
                     : say(r, FZ_ERROR, "reference dequantize: %s", lutmm_status_string(ref_st));
  if (v == FZ_MATCH) {
    st = lutmm_dequantize(r->target, r->t_w, c->x_dtype, dev);
    if (st == LUTMM_ERR_UNSUPPORTED) v = say(r, FZ_UNSUPPORTED, "dequantize unsupported");
    else if (st != ref_st)
      v = say(r, FZ_MISMATCH, "dequantize returned %s, reference %s", lutmm_status_string(st),
              lutmm_status_string(ref_st));
    else if (st == LUTMM_ERR_SCALE_OVERFLOW) v = check_refusal(r);
  }
  if (v == FZ_MATCH && (st = lutmm_copy_to_host(r->target, got, dev, bytes)) != LUTMM_OK)
    v = say(r, FZ_ERROR, "download: %s", lutmm_status_string(st));
  for (int64_t i = 0; v == FZ_MATCH && i < c->p.k * c->p.n; i++) {
    if (fz_load_bits(got, c->x_dtype, i) == fz_load_bits(want, c->x_dtype, i)) continue;
    v = say(r, FZ_MISMATCH, "dequantize: W^[%lld][%lld] bits %08x, reference %08x", (long long)(i / c->p.n),
            (long long)(i % c->p.n), (unsigned)fz_load_bits(got, c->x_dtype, i),
            (unsigned)fz_load_bits(want, c->x_dtype, i));
  }
  lutmm_free(r->target, dev);
  free(want);
  free(got);
  return v;
}

/* Element i of Y against the reference: bits (exact) or bound. */
static int element_matches(const fz_case *c, const void *y, const void *y_ref, const float *bound, int64_t i) {
  if (c->mode == FZ_EXACT) return fz_load_bits(y, c->y_dtype, i) == fz_load_bits(y_ref, c->y_dtype, i);
  const double got = fz_load(y, c->y_dtype, i), want = fz_load(y_ref, c->y_dtype, i);
  /* A non-finite reference or bound holds the backend to nothing. */
  if (!fz_is_finite(want) || !fz_is_finite(bound[i])) return 1;
  return fz_is_finite(got) && fabs(got - want) <= (double)bound[i];
}

static fz_verdict compare_outputs(diff_run *r, const uint8_t *y, const void *y_ref, const float *bound) {
  const fz_case *c = r->c;
  for (size_t i = 0; i < GUARD_BYTES; i++)
    if (y[r->y_bytes + i] != GUARD_FILL) return say(r, FZ_MISMATCH, "gemm wrote %zu bytes past the end of Y", i + 1);
  for (int64_t i = 0; i < c->m * c->p.n; i++) {
    if (element_matches(c, y, y_ref, bound, i)) continue;
    return say(r, FZ_MISMATCH, "Y[%lld][%lld] = %.9g (bits %08x), reference %.9g (bits %08x), bound %.3g",
               (long long)(i / c->p.n), (long long)(i % c->p.n), fz_load(y, c->y_dtype, i),
               (unsigned)fz_load_bits(y, c->y_dtype, i), fz_load(y_ref, c->y_dtype, i),
               (unsigned)fz_load_bits(y_ref, c->y_dtype, i), (double)bound[i]);
  }
  return FZ_MATCH;
}

/* Poisons Y, runs the target and the reference, compares. */
static fz_verdict run_target(diff_run *r, uint8_t *y, uint8_t *x_back, void *y_ref, float *bound) {
  const fz_case *c = r->c;
  memset(y, POISON_FILL, r->y_bytes);
  memset(y + r->y_bytes, GUARD_FILL, GUARD_BYTES);
  lutmm_status st = upload(r, c->x, r->x_bytes, &r->t_x);
  if (st == LUTMM_OK) st = upload(r, y, r->y_bytes + GUARD_BYTES, &r->t_y);
  fz_verdict v = st == LUTMM_OK ? FZ_MATCH : say(r, FZ_ERROR, "upload: %s", lutmm_status_string(st));
  if (v == FZ_MATCH) {
    st = lutmm_gemm(r->target, r->t_w, c->m, r->t_x, c->x_dtype, r->t_y, c->y_dtype);
    if (st == LUTMM_ERR_UNSUPPORTED) v = say(r, FZ_UNSUPPORTED, "gemm unsupported");
    else if (st != LUTMM_OK) v = say(r, FZ_MISMATCH, "gemm returned %s", lutmm_status_string(st));
  }
  if (v == FZ_MATCH && (st = lutmm_reference_gemm(r->ref, r->ref_w, c->m, c->x, c->x_dtype, y_ref, c->y_dtype,
                                                  bound)) != LUTMM_OK)
    v = say(r, FZ_ERROR, "reference gemm: %s", lutmm_status_string(st));
  if (v == FZ_MATCH) {
    lutmm_copy_to_host(r->target, y, r->t_y, r->y_bytes + GUARD_BYTES);
    lutmm_copy_to_host(r->target, x_back, r->t_x, r->x_bytes);
    v = memcmp(x_back, c->x, r->x_bytes) != 0 ? say(r, FZ_MISMATCH, "gemm modified X")
                                               : compare_outputs(r, y, y_ref, bound);
  }
  return v;
}

static fz_verdict check_gemm(diff_run *r) {
  const fz_case *c = r->c;
  uint8_t *y = malloc(r->y_bytes + GUARD_BYTES), *x_back = malloc(r->x_bytes);
  void *y_ref = malloc(r->y_bytes);
  float *bound = malloc(sizeof(float) * (size_t)(c->m * c->p.n));
  fz_verdict v = y && x_back && y_ref && bound ? FZ_MATCH : say(r, FZ_ERROR, "out of host memory");
  if (v == FZ_MATCH) v = run_target(r, y, x_back, y_ref, bound);
  free(y);
  free(x_back);
  free(y_ref);
  free(bound);
  return v;
}

static void release(diff_run *r) {
  lutmm_weights_destroy(r->ref_w);
  lutmm_weights_destroy(r->t_w);
  lutmm_free(r->target, r->t_table);
  lutmm_free(r->target, r->t_codes);
  lutmm_free(r->target, r->t_scales);
  lutmm_free(r->target, r->t_x);
  lutmm_free(r->target, r->t_y);
}

fz_verdict fz_run_case(lutmm_context *ref, lutmm_context *target, const fz_case *c, char *detail, size_t cap) {
  diff_run r;
  memset(&r, 0, sizeof r);
  r.ref = ref, r.target = target, r.c = c, r.detail = detail, r.cap = cap;
  r.code_bytes = (size_t)(c->p.k * c->p.n);
  r.scale_bytes = (size_t)(c->groups * c->p.n) * fz_dtype_size(c->p.scale_dtype);
  r.table_bytes = sizeof(float) * ((size_t)1 << c->p.bits);
  r.x_bytes = (size_t)(c->m * c->p.k) * fz_dtype_size(c->x_dtype);
  r.y_bytes = (size_t)(c->m * c->p.n) * fz_dtype_size(c->y_dtype);
  detail[0] = '\0';
  const lutmm_status st = upload(&r, c->table, r.table_bytes, &r.t_table);
  fz_verdict v = st == LUTMM_OK ? FZ_MATCH : say(&r, FZ_ERROR, "upload: %s", lutmm_status_string(st));
  if (v == FZ_MATCH) v = check_quantize(&r);
  if (v == FZ_MATCH) v = check_pack(&r);
  if (v == FZ_MATCH) v = check_dequantize(&r);
  if (v == FZ_MATCH) v = check_gemm(&r);
  release(&r);
  return v;
}
