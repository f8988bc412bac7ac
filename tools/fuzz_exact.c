/* Exact-arithmetic cases (DESIGN.md §3 item 2; docs/TESTING.md, "Exact mode").
 *
 * Every value is an integer times a power of two:
 *   table entry  T = T_int · 2^t_exp,            |T_int| < 2^t_bits
 *   scale        S = S_int · 2^(s_exp_min + d),  0 < S_int < 2^s_bits, 0 <= d <= spread
 *   activation   x = X_int · 2^x_exp,            |X_int| < 2^x_bits
 * so every product x·T·S is an integer number of quanta 2^(x_exp + t_exp +
 * s_exp_min) below 2^(t_bits + s_bits + x_bits + spread) quanta. Those four
 * widths share a budget of 21 − ceil(log2(K+1)) bits, so any sum of K
 * products stays below 2^21 quanta: exact in float32 (24 bits) with two bits
 * to spare for hardware that truncates. The widths also respect each
 * dtype's precision (T·S fits the compute dtype, S the scale dtype, x the
 * activation dtype) and the exponents keep everything inside fp16's range. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_case.h"
#include "fuzz_float.h"

static int imin(int a, int b) { return a < b ? a : b; }
static int imax(int a, int b) { return a > b ? a : b; }

/* Bits of quanta one product may use so that K of them sum below 2^21. */
static int product_budget(int64_t k) {
  int k_bits = 0;
  while (((int64_t)1 << k_bits) <= k) k_bits++;
  return 21 - k_bits;
}

static void plan_widths(fz_source *s, const fz_case *c, fz_exact_plan *plan) {
  const int total = product_budget(c->p.k), precision = fz_precision(c->x_dtype);
  plan->t_bits = (int)fz_range(s, 1, imin(8, total - 2));
  const int s_max = imin(3, imin(precision - plan->t_bits, total - plan->t_bits - 1));
  plan->s_bits = s_max < 1 ? 1 : (int)fz_range(s, 1, s_max); /* 1 bit: S is a power of two */
  plan->x_bits = (int)fz_range(s, 1, imax(1, imin(precision, total - plan->t_bits - plan->s_bits)));
  plan->spread = (int)fz_range(s, 0, imax(0, imin(3, total - plan->t_bits - plan->s_bits - plan->x_bits)));
}

static int is_allowed(float t, const fz_exact_plan *plan) {
  const double units = ldexp((double)t, -plan->t_exp);
  return units == floor(units) && fabs(units) < ldexp(1.0, plan->t_bits);
}

static int allowed_codes(const fz_case *c, int *codes) {
  int count = 0;
  for (int i = 0; i < (1 << c->p.bits); i++)
    if (is_allowed(c->table[i], &c->plan)) codes[count++] = i;
  return count;
}

static int compare_floats(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Table and t_exp; returns the codes whose entries fit the plan. */
static lutmm_status plan_table(fz_source *s, lutmm_context *host, fz_case *c, int *codes, int *count) {
  fz_exact_plan *plan = &c->plan;
  const int size = 1 << c->p.bits;
  if (c->table_kind == FZ_TABLE_USER) {
    plan->t_exp = (int)fz_range(s, -4, 0);
    const int64_t limit = ((int64_t)1 << plan->t_bits) - 1;
    for (int i = 0; i < size; i++) c->table[i] = (float)ldexp((double)fz_range(s, -limit, limit), plan->t_exp);
    qsort(c->table, (size_t)size, sizeof(float), compare_floats);
    if (c->table[0] == 0.0f && c->table[size - 1] == 0.0f) c->table[size - 1] = (float)ldexp(1.0, plan->t_exp);
  } else {
    lutmm_status st = fz_draw_table(s, host, c->table_kind, c->p.bits, c->table);
    if (st != LUTMM_OK) return st;
    int top;
    frexp(fmax(-c->table[0], c->table[size - 1]), &top); /* max|T| in [2^(top-1), 2^top) */
    plan->t_exp = c->table_kind == FZ_TABLE_INT ? 0 : top - plan->t_bits;
    /* FP: sometimes a finer grid (more small entries, fewer large ones). */
    for (int finer = c->table_kind == FZ_TABLE_FP ? (int)fz_range(s, 0, 2) : 0; finer >= 0; finer--) {
      plan->t_exp -= finer;
      if ((*count = allowed_codes(c, codes)) > 0) return LUTMM_OK;
      plan->t_exp += finer;
    }
  }
  *count = allowed_codes(c, codes);
  return *count > 0 ? LUTMM_OK : LUTMM_ERR_UNSUPPORTED;
}

/* Exponents that keep T, S, T·S and x inside fp16's range, and the quantum
 * at most 2^-6 so that the largest sum (2^21 quanta) stays below 2^15 and
 * fits an fp16 output too. */
static void plan_exponents(fz_source *s, fz_exact_plan *plan) {
  const int s_lo = imax(-8, -24 - plan->t_exp);
  const int s_hi = imin(2, 15 - plan->t_bits - plan->s_bits - plan->t_exp - plan->spread);
  plan->s_exp_min = (int)fz_range(s, imin(s_lo, s_hi), s_hi);
  const int x_hi = imin(-6 - plan->t_exp - plan->s_exp_min, 15 - plan->x_bits);
  plan->x_exp = (int)fz_range(s, imin(-12, x_hi), x_hi);
  plan->quantum_exp = plan->t_exp + plan->s_exp_min + plan->x_exp;
}

static void fill_scales(fz_source *s, fz_case *c) {
  const fz_exact_plan *plan = &c->plan;
  for (int64_t i = 0; i < c->groups * c->p.n; i++) {
    const uint64_t r = fz_bulk(s);
    const uint64_t choices = ((uint64_t)1 << plan->s_bits) - 1; /* S_int in [1, 2^s_bits) */
    const int64_t s_int = 1 + (int64_t)((r >> 8) % choices);
    const int d = (int)((r >> 32) % (uint64_t)(plan->spread + 1));
    double v = (r & 15) == 0 ? 0.0 : ldexp((double)s_int, plan->s_exp_min + d);
    if (((r >> 4) & 7) == 0) v = -v;
    fz_store(c->scales, c->p.scale_dtype, i, v);
  }
}

static void fill_codes_and_x(fz_source *s, fz_case *c, const int *codes, int count) {
  const int64_t weights = c->p.k * c->p.n, xs = c->m * c->p.k;
  for (int64_t i = 0; i < weights; i++) c->codes[i] = (uint8_t)codes[fz_bulk(s) % (uint64_t)count];
  const int64_t limit = ((int64_t)1 << c->plan.x_bits) - 1;
  for (int64_t i = 0; i < xs; i++) {
    const uint64_t r = fz_bulk(s);
    const int64_t x_int = (r & 7) == 0 ? 0 : (int64_t)((r >> 8) % (uint64_t)(2 * limit + 1)) - limit;
    fz_store(c->x, c->x_dtype, i, ldexp((double)x_int, c->plan.x_exp));
  }
}

lutmm_status fz_exact_fill(fz_source *s, lutmm_context *host, fz_case *c) {
  int codes[LUTMM_MAX_TABLE_SIZE], count = 0;
  plan_widths(s, c, &c->plan);
  lutmm_status st = plan_table(s, host, c, codes, &count);
  if (st != LUTMM_OK) return st;
  plan_exponents(s, &c->plan);
  fill_scales(s, c);
  fill_codes_and_x(s, c, codes, count);
  return LUTMM_OK;
}

/* Ŵ as the library must compute it, or NAN when it would not be exact. */
static double exact_weight(const fz_case *c, int64_t k, int64_t n) {
  const int64_t g = c->p.group_size == 0 ? c->p.k : c->p.group_size;
  const double t = c->table[c->codes[k * c->p.n + n]];
  const double s = fz_load(c->scales, c->p.scale_dtype, (k / g) * c->p.n + n);
  const lutmm_dtype cd = c->x_dtype;
  if (fz_round(t, cd) != t || fz_round(s, cd) != s || fz_round(t * s, cd) != t * s) return NAN;
  return t * s;
}

int fz_exact_verify(const fz_case *c) {
  const int64_t m = c->m, k = c->p.k, n = c->p.n;
  double *w_hat = malloc(sizeof(double) * (size_t)(k * n));
  if (w_hat == NULL) return 0;
  int ok = 1;
  for (int64_t i = 0; ok && i < k * n; i++) ok = !isnan(w_hat[i] = exact_weight(c, i / n, i % n));
  for (int64_t row = 0; ok && row < m; row++) {
    for (int64_t col = 0; ok && col < n; col++) {
      double quanta = 0.0;
      for (int64_t kk = 0; ok && kk < k; kk++) {
        const double product = fz_load(c->x, c->x_dtype, row * k + kk) * w_hat[kk * n + col];
        const double units = ldexp(fabs(product), -c->plan.quantum_exp);
        ok = units == floor(units) && (double)(float)product == product;
        quanta += units;
      }
      ok = ok && quanta < 0x1p22;
    }
  }
  free(w_hat);
  return ok;
}
