/* See diff_harness.h. */
#include "diff_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GUARD_BYTES 64
#define GUARD_BYTE 0xA5

uint64_t diff_next(diff_rng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

int diff_int(diff_rng *r, int lo, int hi) { return lo + (int)(diff_next(r) % (uint64_t)(hi - lo + 1)); }

float diff_normal(diff_rng *r) {
  float s = 0.0f;
  for (int i = 0; i < 4; i++) s += (float)(diff_next(r) >> 40) * 0x1p-24f;
  return (s - 2.0f) * 1.7320508f;
}

const char *diff_dtype_name(lutmm_dtype d) {
  return d == LUTMM_DTYPE_F16 ? "f16" : d == LUTMM_DTYPE_BF16 ? "bf16" : "f32";
}

double diff_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int diff_env_open(diff_env *env) {
  env->cpu = env->ref = NULL;
  if (lutmm_context_create(LUTMM_BACKEND_CPU, &env->cpu) != LUTMM_OK) return 0;
  return lutmm_context_create(LUTMM_BACKEND_REFERENCE, &env->ref) == LUTMM_OK;
}

void diff_env_close(diff_env *env) {
  lutmm_context_destroy(env->cpu);
  lutmm_context_destroy(env->ref);
}

static size_t dtype_size(lutmm_dtype d) { return d == LUTMM_DTYPE_F32 ? 4 : 2; }

/* Writes f (exactly representable in d for exact-mode data) as dtype d. */
static void store_as(void *p, lutmm_dtype d, size_t i, float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if (d == LUTMM_DTYPE_F32) ((float *)p)[i] = f;
  else if (d == LUTMM_DTYPE_BF16) ((uint16_t *)p)[i] = (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
  else {
    /* fp16 via the exact half-up-to-even path of the test data: only values
     * with <= 11 significant bits and exponents in [-14, 15] are stored here,
     * or rounded ones for bound mode where nearest-even is not required. */
    const uint32_t sign = (u >> 16) & 0x8000u;
    const int e = (int)((u >> 23) & 0xFF) - 127;
    uint32_t mant = u & 0x7FFFFFu;
    if ((u & 0x7FFFFFFFu) == 0) ((uint16_t *)p)[i] = (uint16_t)sign;
    else if (e < -14) ((uint16_t *)p)[i] = (uint16_t)sign; /* flush: test data avoids it */
    else if (e > 15) ((uint16_t *)p)[i] = (uint16_t)(sign | 0x7C00u);
    else ((uint16_t *)p)[i] = (uint16_t)(sign | (uint32_t)(e + 15) << 10 | (mant >> 13));
  }
}

static float load_as(const void *p, lutmm_dtype d, size_t i) {
  uint32_t u;
  float f;
  if (d == LUTMM_DTYPE_F32) return ((const float *)p)[i];
  const uint16_t h = ((const uint16_t *)p)[i];
  if (d == LUTMM_DTYPE_BF16) u = (uint32_t)h << 16;
  else {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
    if (e == 0x1F) u = sign | 0x7F800000u | (mant << 13);
    else if (e != 0) u = sign | ((e + 112u) << 23) | (mant << 13);
    else {
      f = (float)mant * 0x1p-24f;
      return sign ? -f : f;
    }
  }
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Inputs of one case, on the host (context memory of both host backends). */
typedef struct case_data {
  float table[LUTMM_MAX_TABLE_SIZE];
  uint8_t *codes;
  void *scales;
  void *x;
  int64_t groups;
} case_data;

static void free_data(case_data *d) {
  free(d->codes);
  free(d->scales);
  free(d->x);
}

/* Exact mode (DESIGN.md §3 item 2): table entries are integers times
 * 2^-(bits-1), scales ±2^e, activations small integers times 1/2, so every
 * product is a whole number of quanta 2^-(bits+2) and the ranges keep every
 * partial sum far below 2^22 quanta (checked in diff_case_is_exact_safe). */
static void make_exact(const diff_case *c, diff_rng *r, case_data *d) {
  const int size = 1 << c->bits, offset = diff_int(r, 0, size - 1);
  for (int i = 0; i < size; i++) d->table[i] = (float)(i - offset) * ldexpf(1.0f, -(c->bits - 1));
  for (size_t i = 0; i < (size_t)(c->k * c->n); i++) d->codes[i] = (uint8_t)diff_int(r, 0, size - 1);
  for (size_t i = 0; i < (size_t)(d->groups * c->n); i++) {
    const int choice = diff_int(r, 0, 9);
    const float s = choice == 0 ? 0.0f : ldexpf(choice % 2 ? -1.0f : 1.0f, diff_int(r, -2, -1));
    store_as(d->scales, c->scale_dtype, i, s);
  }
  for (size_t i = 0; i < (size_t)(c->m * c->k); i++) store_as(d->x, c->x_dtype, i, 0.5f * (float)diff_int(r, -1, 1));
}

/* Bound mode: Gaussian weights quantized with an NF, INT or FP table,
 * Gaussian activations (rounded to their dtype). */
static int make_bound(const diff_env *env, const diff_case *c, diff_rng *r, case_data *d) {
  const int kind = diff_int(r, 0, 2);
  lutmm_status st = kind == 0   ? lutmm_table_nf(env->ref, c->bits, d->table)
                    : kind == 1 ? lutmm_table_int(env->ref, c->bits, d->table)
                                : lutmm_table_fp(env->ref, c->bits, d->table);
  if (st != LUTMM_OK) return 0;
  float *w = malloc((size_t)(c->k * c->n) * sizeof *w);
  if (w == NULL) return 0;
  const float column_scale = ldexpf(1.0f, diff_int(r, -6, 4)) * (c->w_magnitude != 0.0f ? c->w_magnitude : 1.0f);
  for (size_t i = 0; i < (size_t)(c->k * c->n); i++) w[i] = diff_normal(r) * column_scale;
  const lutmm_quant_params p = {c->bits, c->k, c->n, c->group_size, c->scale_dtype};
  st = lutmm_quantize(env->ref, &p, d->table, w, d->codes, d->scales);
  free(w);
  const float magnitude = c->x_magnitude != 0.0f ? c->x_magnitude : 1.0f;
  for (size_t i = 0; i < (size_t)(c->m * c->k); i++) store_as(d->x, c->x_dtype, i, diff_normal(r) * magnitude);
  return st == LUTMM_OK;
}

static int make_data(const diff_env *env, const diff_case *c, case_data *d) {
  memset(d, 0, sizeof *d);
  d->groups = c->group_size == 0 ? 1 : c->k / c->group_size;
  d->codes = malloc((size_t)(c->k * c->n));
  d->scales = malloc((size_t)(d->groups * c->n) * 4);
  d->x = malloc((size_t)(c->m * c->k) * 4);
  if (d->codes == NULL || d->scales == NULL || d->x == NULL) return 0;
  diff_rng r = {c->seed};
  if (c->mode == DIFF_EXACT) {
    make_exact(c, &r, d);
    return 1;
  }
  return make_bound(env, c, &r, d);
}

/* Y with guard bytes after it, poisoned with NaN patterns before each run. */
static void *alloc_y(const diff_case *c, size_t *bytes) {
  *bytes = (size_t)(c->m * c->n) * dtype_size(c->y_dtype);
  uint8_t *y = malloc(*bytes + GUARD_BYTES);
  if (y != NULL) {
    memset(y, 0xFF, *bytes);
    memset(y + *bytes, GUARD_BYTE, GUARD_BYTES);
  }
  return y;
}

static int guard_intact(const uint8_t *y, size_t bytes) {
  for (size_t i = 0; i < GUARD_BYTES; i++)
    if (y[bytes + i] != GUARD_BYTE) return 0;
  return 1;
}

static void describe(const diff_case *c, const char *what) {
  printf("FAIL %s: mode=%s bits=%d k=%lld n=%lld m=%lld g=%lld x=%s y=%s s=%s seed=%llu\n", what,
         c->mode == DIFF_EXACT ? "exact" : "bound", c->bits, (long long)c->k, (long long)c->n, (long long)c->m,
         (long long)c->group_size, diff_dtype_name(c->x_dtype), diff_dtype_name(c->y_dtype),
         diff_dtype_name(c->scale_dtype), (unsigned long long)c->seed);
}

/* Element-wise comparison; returns the number of bad elements. */
static long compare(const diff_case *c, const void *y, const void *y_ref, const float *bound, long *first) {
  long bad = 0;
  *first = -1;
  for (size_t i = 0; i < (size_t)(c->m * c->n); i++) {
    const float v = load_as(y, c->y_dtype, i), ref = load_as(y_ref, c->y_dtype, i);
    int ok;
    if (c->mode == DIFF_EXACT) ok = memcmp((const uint8_t *)y + i * dtype_size(c->y_dtype),
                                           (const uint8_t *)y_ref + i * dtype_size(c->y_dtype), dtype_size(c->y_dtype)) == 0;
    /* An infinite bound (Σ a_k beyond float32's range, docs/NUMERICS.md)
     * leaves the element unconstrained, as in `lutmm fuzz`. */
    else ok = !isfinite(ref) || !isfinite(bound[i]) || (isfinite(v) && fabsf(v - ref) <= bound[i]);
    if (!ok && bad++ == 0) *first = (long)i;
  }
  return bad;
}

static int build_weights(lutmm_context *packer, const diff_case *c, const case_data *d, lutmm_weights **w) {
  const lutmm_quant_params p = {c->bits, c->k, c->n, c->group_size, c->scale_dtype};
  return lutmm_pack(packer, &p, d->table, d->codes, d->scales, w) == LUTMM_OK;
}

int diff_run_case(const diff_env *env, const diff_case *c, lutmm_context *packer, diff_totals *totals) {
  case_data d;
  lutmm_weights *w = NULL;
  size_t y_bytes;
  uint8_t *y = alloc_y(c, &y_bytes), *y_ref = alloc_y(c, &y_bytes);
  float *bound = malloc((size_t)(c->m * c->n) * sizeof *bound);
  int ok = make_data(env, c, &d) && y != NULL && y_ref != NULL && bound != NULL && build_weights(packer, c, &d, &w);
  if (!ok) describe(c, "setup");
  lutmm_status st = LUTMM_OK;
  if (ok && (st = lutmm_gemm(env->cpu, w, c->m, d.x, c->x_dtype, y, c->y_dtype)) != LUTMM_OK) {
    describe(c, lutmm_status_string(st));
    ok = 0;
  }
  if (ok && lutmm_reference_gemm(env->ref, w, c->m, d.x, c->x_dtype, y_ref, c->y_dtype, bound) != LUTMM_OK) {
    describe(c, "reference");
    ok = 0;
  }
  if (ok && !guard_intact(y, y_bytes)) {
    describe(c, "guard bytes after Y overwritten");
    ok = 0;
  }
  long first;
  const long bad = ok ? compare(c, y, y_ref, bound, &first) : 0;
  if (bad > 0) {
    describe(c, "mismatch");
    printf("  %ld bad elements; first m=%ld n=%ld: got %.9g want %.9g bound %.3g\n", bad, first / (long)c->n,
           first % (long)c->n, (double)load_as(y, c->y_dtype, (size_t)first),
           (double)load_as(y_ref, c->y_dtype, (size_t)first), (double)bound[first]);
    ok = 0;
  }
  lutmm_weights_destroy(w);
  free_data(&d);
  free(y);
  free(y_ref);
  free(bound);
  totals->cases++;
  totals->failures += !ok;
  return ok;
}

/* Runs the case once per setting (apply(values, i) switches to setting i)
 * on one set of weights and checks that the output bits never change. */
static int run_invariance(const diff_env *env, const diff_case *c, int count,
                          void (*apply)(const diff_env *, const void *, int), const void *values, const char *what,
                          diff_totals *totals) {
  case_data d;
  lutmm_weights *w = NULL;
  size_t y_bytes;
  uint8_t *first = alloc_y(c, &y_bytes), *y = alloc_y(c, &y_bytes);
  int ok = make_data(env, c, &d) && first != NULL && y != NULL && build_weights(env->cpu, c, &d, &w);
  for (int i = 0; ok && i < count; i++) {
    apply(env, values, i);
    memset(y, 0xFF, y_bytes);
    ok = lutmm_gemm(env->cpu, w, c->m, d.x, c->x_dtype, i == 0 ? first : y, c->y_dtype) == LUTMM_OK;
    if (ok && i > 0 && memcmp(first, y, y_bytes) != 0) {
      printf("  %s: setting %d differs from setting 0\n", what, i);
      ok = 0;
    }
  }
  if (!ok) describe(c, what);
  lutmm_weights_destroy(w);
  free_data(&d);
  free(first);
  free(y);
  totals->cases++;
  totals->failures += !ok;
  return ok;
}

static void apply_threads(const diff_env *env, const void *values, int i) {
  lutmm_context_set_num_threads(env->cpu, ((const int *)values)[i]);
}

static void apply_variant(const diff_env *env, const void *values, int i) {
  (void)env;
  setenv("LUTMM_CPU_KERNEL", ((const char *const *)values)[i], 1);
}

int diff_run_thread_invariance(const diff_env *env, const diff_case *c, const int *threads, int count,
                               diff_totals *totals) {
  const int ok = run_invariance(env, c, count, apply_threads, threads, "thread invariance", totals);
  lutmm_context_set_num_threads(env->cpu, 0);
  return ok;
}

int diff_run_variant_invariance(const diff_env *env, const diff_case *c, const char *const *variants, int count,
                                diff_totals *totals) {
  const char *before = getenv("LUTMM_CPU_KERNEL");
  char saved[32] = "";
  if (before != NULL) snprintf(saved, sizeof saved, "%s", before);
  const int ok = run_invariance(env, c, count, apply_variant, variants, "variant invariance", totals);
  if (before != NULL) setenv("LUTMM_CPU_KERNEL", saved, 1);
  else unsetenv("LUTMM_CPU_KERNEL");
  return ok;
}
