/* Dequantization against round_c(T_c × s_c) and GEMM against a naive triple
 * loop, both written here with the tests' own rounding (floats.c): the
 * library must match bit for bit. Outputs are poisoned (NaN) before every
 * call and followed by sentinel bytes. Also the error bound of
 * lutmm_reference_gemm against the formula in lutmm.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cpu_kernel.h"
#include "fixture.h"
#include "floats.h"

static const lutmm_dtype kDtypes[3] = {LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16};

/* Ŵ[k][n] in dtype c, from the codes and scales the case was packed with. */
static double model_w_hat(const packed_case *pc, int64_t k, int64_t n, lutmm_dtype c) {
  const int64_t group = pc->params.group_size == 0 ? pc->params.k : pc->params.group_size;
  const double s = unit_load(pc->scales, pc->params.scale_dtype, (size_t)((k / group) * pc->params.n + n));
  const double t = pc->table[pc->codes[k * pc->params.n + n]];
  return unit_round(unit_round(t, c) * unit_round(s, c), c); /* the product of two c values is exact in double */
}

static void check_dequantize_case(lutmm_context *ctx, const packed_case *pc) {
  const size_t count = (size_t)pc->params.k * (size_t)pc->params.n;
  for (int d = 0; d < 3; d++) {
    guarded out = guarded_alloc(count * unit_dtype_size(kDtypes[d]), 0xFF);
    CHECK_OK(lutmm_dequantize(ctx, pc->weights, kDtypes[d], out.data));
    guarded expected = guarded_alloc(count * unit_dtype_size(kDtypes[d]), 0);
    for (int64_t k = 0; k < pc->params.k; k++)
      for (int64_t n = 0; n < pc->params.n; n++)
        unit_store(expected.data, kDtypes[d], (size_t)(k * pc->params.n + n), model_w_hat(pc, k, n, kDtypes[d]));
    if (memcmp(out.data, expected.data, out.bytes) != 0)
      unit_fail(__FILE__, __LINE__, "dequantize dtype %d differs: bits %d k %lld n %lld", d, pc->params.bits,
                (long long)pc->params.k, (long long)pc->params.n);
    CHECK(guarded_intact(&out));
    guarded_free(&out), guarded_free(&expected);
  }
}

static void dequantize(void) {
  lutmm_context *ctx = unit_context();
  const int64_t shapes[][3] = {{16, 1, 16}, {48, 65, 16}, {80, 7, 0}, {128, 130, 32}, {5, 63, 0}};
  int index = 0;
  for (int bits = 1; bits <= 8; bits++) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, index++) {
      const lutmm_quant_params p = {bits, shapes[s][0], shapes[s][1], shapes[s][2], kDtypes[index % 3]};
      packed_case pc;
      if (packed_case_make(ctx, &p, (uint64_t)index, &pc)) check_dequantize_case(ctx, &pc);
      packed_case_free(&pc);
    }
  }
  lutmm_context_destroy(ctx);
}

/* Random activations already representable in `dtype`, in [−2, 2). */
static void *make_x(unit_rng *r, int64_t count, lutmm_dtype dtype) {
  void *x = malloc((size_t)count * unit_dtype_size(dtype));
  for (int64_t i = 0; i < count; i++) unit_store(x, dtype, (size_t)i, rng_uniform(r, -2.0f, 2.0f));
  return x;
}

/* Ŵ (K×N) in compute dtype c, as doubles. */
static double *model_w_hat_matrix(const packed_case *pc, lutmm_dtype c) {
  const int64_t K = pc->params.k, N = pc->params.n;
  double *w_hat = malloc((size_t)(K * N) * sizeof *w_hat);
  for (int64_t k = 0; k < K; k++)
    for (int64_t n = 0; n < N; n++) w_hat[k * N + n] = model_w_hat(pc, k, n, c);
  return w_hat;
}

/* Y by the naive triple loop: Σ_k x·ŵ in double, ascending k, one rounding
 * to the output dtype. x and ŵ are exact doubles (a product of two values
 * of at most 24 significant bits is exact). sum_abs: the bound's Σ, each
 * nonzero term's factors counted at no less than `min_normal`. */
static void naive_gemm(const double *w_hat, int64_t K, int64_t N, int64_t m, const double *x, void *y,
                       lutmm_dtype yd, double min_normal, double *sum_abs) {
  for (int64_t i = 0; i < m; i++) {
    for (int64_t n = 0; n < N; n++) {
      double acc = 0.0, abs_acc = 0.0;
      for (int64_t k = 0; k < K; k++) {
        const double product = x[i * K + k] * w_hat[k * N + n];
        acc += product;
        if (product != 0.0) abs_acc += fmax(fabs(x[i * K + k]), min_normal) * fmax(fabs(w_hat[k * N + n]), min_normal);
      }
      unit_store(y, yd, (size_t)(i * N + n), acc);
      if (sum_abs != NULL) sum_abs[i * N + n] = abs_acc;
    }
  }
}

/* X as exact doubles. */
static double *widen(const void *x, int64_t count, lutmm_dtype dtype) {
  double *out = malloc((size_t)count * sizeof *out);
  for (int64_t i = 0; i < count; i++) out[i] = unit_load(x, dtype, (size_t)i);
  return out;
}

/* The library's GEMM against the loop for every M and all 9 dtype pairs. */
static void check_gemm_case(lutmm_context *ctx, const packed_case *pc, const int64_t *ms, int m_count, unit_rng *r) {
  const int64_t K = pc->params.k, N = pc->params.n;
  for (int xd = 0; xd < 3; xd++) {
    double *w_hat = model_w_hat_matrix(pc, kDtypes[xd]);
    for (int mi = 0; mi < m_count; mi++) {
      const int64_t m = ms[mi];
      void *x = make_x(r, m * K, kDtypes[xd]);
      double *x_exact = widen(x, m * K, kDtypes[xd]);
      for (int yd = 0; yd < 3; yd++) {
        const size_t y_bytes = (size_t)(m * N) * unit_dtype_size(kDtypes[yd]);
        guarded y = guarded_alloc(y_bytes, 0xFF);
        void *expected = malloc(y_bytes);
        CHECK_OK(lutmm_gemm(ctx, pc->weights, m, x, kDtypes[xd], y.data, kDtypes[yd]));
        naive_gemm(w_hat, K, N, m, x_exact, expected, kDtypes[yd], 0.0, NULL);
        if (memcmp(y.data, expected, y_bytes) != 0)
          unit_fail(__FILE__, __LINE__, "gemm differs: bits %d M %lld K %lld N %lld group %lld x %d y %d",
                    pc->params.bits, (long long)m, (long long)K, (long long)N, (long long)pc->params.group_size,
                    xd, yd);
        CHECK(guarded_intact(&y));
        guarded_free(&y);
        free(expected);
      }
      free(x), free(x_exact);
    }
    free(w_hat);
  }
}

static void gemm_for_bits(const int *bits_list, int bits_count) {
  lutmm_context *ctx = unit_context();
  const int64_t shapes[][3] = {{16, 1, 16}, {48, 65, 16}, {64, 7, 32}, {80, 130, 0}, {5, 64, 0}, {200, 63, 0}};
  const int64_t ms[] = {1, 2, 3, 17};
  unit_rng r = {99};
  int index = 0;
  for (int b = 0; b < bits_count; b++) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++, index++) {
      const lutmm_quant_params p = {bits_list[b], shapes[s][0], shapes[s][1], shapes[s][2], kDtypes[index % 3]};
      packed_case pc;
      if (packed_case_make(ctx, &p, (uint64_t)index + 500u, &pc)) check_gemm_case(ctx, &pc, ms, 4, &r);
      packed_case_free(&pc);
    }
  }
  lutmm_context_destroy(ctx);
}

static void gemm_low_bits(void) { gemm_for_bits((const int[]){1, 2, 3, 4}, 4); }
static void gemm_high_bits(void) { gemm_for_bits((const int[]){5, 6, 7, 8}, 4); }

static double epsilon_of(lutmm_dtype d) { return d == LUTMM_DTYPE_F16 ? 0x1p-10 : d == LUTMM_DTYPE_BF16 ? 0x1p-7 : 0x1p-23; }
static double tiny_of(lutmm_dtype d) { return d == LUTMM_DTYPE_F16 ? 0x1p-24 : d == LUTMM_DTYPE_BF16 ? 0x1p-133 : 0x1p-149; }

/* Scales times 2^shift, repacked: shift = -20 makes fp16 ŵ = T·s subnormal. */
static int rescale_case(lutmm_context *ctx, packed_case *pc, int shift) {
  if (shift == 0) return 1;
  const size_t count = (size_t)pc->groups * (size_t)pc->params.n;
  for (size_t i = 0; i < count; i++)
    unit_store(pc->scales, pc->params.scale_dtype, i, ldexp(unit_load(pc->scales, pc->params.scale_dtype, i), shift));
  lutmm_weights_destroy(pc->weights);
  pc->weights = NULL;
  CHECK_OK(lutmm_pack(ctx, &pc->params, pc->table, pc->codes, pc->scales, &pc->weights));
  return pc->weights != NULL;
}

/* lutmm_reference_gemm: the same Y as lutmm_gemm, and the bound
 * eps_out·|y_ref| + 2·K·2^−24·Σ max(|x|, n_c)·max(|ŵ|, n_c) + tiny_out
 * (n_c: the compute dtype's smallest normal; zero terms left out) evaluated
 * here, rounded up to float. The tiny-scale case has subnormal fp16 ŵ,
 * where the n_c floor is what the bound consists of. */
static void reference_bound(void) {
  lutmm_context *ctx = unit_context();
  unit_rng r = {3};
  const int64_t m = 3;
  const struct {
    lutmm_quant_params params;
    int scale_shift;
  } cases[] = {{{4, 80, 65, 16, LUTMM_DTYPE_F16}, 0},
               {{3, 5, 7, 0, LUTMM_DTYPE_BF16}, 0},
               {{8, 128, 64, 32, LUTMM_DTYPE_F32}, 0},
               {{4, 48, 33, 16, LUTMM_DTYPE_F32}, -20}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    packed_case pc;
    if (!packed_case_make(ctx, &cases[c].params, 77 + c, &pc) || !rescale_case(ctx, &pc, cases[c].scale_shift)) {
      packed_case_free(&pc);
      continue;
    }
    const int64_t K = pc.params.k, N = pc.params.n;
    for (int xd = 0; xd < 3; xd++) {
      void *x = make_x(&r, m * K, kDtypes[xd]);
      for (int yd = 0; yd < 3; yd++) {
        const size_t y_bytes = (size_t)(m * N) * unit_dtype_size(kDtypes[yd]);
        guarded y = guarded_alloc(y_bytes, 0xFF), y_gemm = guarded_alloc(y_bytes, 0xFF);
        guarded bound = guarded_alloc((size_t)(m * N) * sizeof(float), 0xFF);
        double *sum_abs = malloc((size_t)(m * N) * sizeof *sum_abs);
        void *expected = malloc(y_bytes);
        CHECK_OK(lutmm_reference_gemm(ctx, pc.weights, m, x, kDtypes[xd], y.data, kDtypes[yd], (float *)bound.data));
        CHECK_OK(lutmm_gemm(ctx, pc.weights, m, x, kDtypes[xd], y_gemm.data, kDtypes[yd]));
        double *w_hat = model_w_hat_matrix(&pc, kDtypes[xd]), *x_exact = widen(x, m * K, kDtypes[xd]);
        const double min_normal = kDtypes[xd] == LUTMM_DTYPE_F16 ? 0x1p-14 : 0x1p-126;
        naive_gemm(w_hat, K, N, m, x_exact, expected, kDtypes[yd], min_normal, sum_abs);
        free(w_hat), free(x_exact);
        CHECK(memcmp(y.data, expected, y_bytes) == 0);
        CHECK(memcmp(y.data, y_gemm.data, y_bytes) == 0);
        for (int64_t i = 0; i < m * N; i++) {
          const double y_ref = unit_load(y.data, kDtypes[yd], (size_t)i);
          const double formula = epsilon_of(kDtypes[yd]) * fabs(y_ref) + 2.0 * (double)K * 0x1p-24 * sum_abs[i] +
                                 (double)K * 0x1p-149 + tiny_of(kDtypes[yd]);
          const float b = ((const float *)bound.data)[i];
          if (!(isfinite(b) && (double)b >= formula && (double)b <= formula * (1.0 + 0x1p-22)))
            unit_fail(__FILE__, __LINE__, "case %zu x %d y %d: bound[%lld] = %.9g, formula %.9g", c, xd, yd,
                      (long long)i, b, formula);
        }
        CHECK(guarded_intact(&y) && guarded_intact(&y_gemm) && guarded_intact(&bound));
        guarded_free(&y), guarded_free(&y_gemm), guarded_free(&bound);
        free(sum_abs), free(expected);
      }
      free(x);
    }
    /* Without a bound pointer the product is the same. */
    void *x = make_x(&r, m * K, LUTMM_DTYPE_F16);
    guarded a = guarded_alloc((size_t)(m * N) * 4, 0xFF), b = guarded_alloc((size_t)(m * N) * 4, 0xFF);
    CHECK_OK(lutmm_reference_gemm(ctx, pc.weights, m, x, LUTMM_DTYPE_F16, a.data, LUTMM_DTYPE_F32, NULL));
    CHECK_OK(lutmm_gemm(ctx, pc.weights, m, x, LUTMM_DTYPE_F16, b.data, LUTMM_DTYPE_F32));
    CHECK(memcmp(a.data, b.data, a.bytes) == 0 && guarded_intact(&a));
    guarded_free(&a), guarded_free(&b);
    free(x);
    packed_case_free(&pc);
  }
  lutmm_context_destroy(ctx);
}

/* Exact arithmetic: small dyadic activations, INT table and power-of-two
 * scales give sums with no rounding at all, so Y is known exactly:
 * x = 1 everywhere, code c → T = c − 2^(b−1), scale 1 → y[n] = Σ_k T. */
static void exact_sums(void) {
  lutmm_context *ctx = unit_context();
  const int64_t K = 48, N = 9;
  const lutmm_quant_params p = {3, K, N, 16, LUTMM_DTYPE_BF16};
  float table[8];
  CHECK_OK(lutmm_table_int(ctx, 3, table));
  uint8_t codes[48 * 9];
  uint16_t scales[3 * 9];
  for (int i = 0; i < 3 * 9; i++) scales[i] = 0x3F80; /* bf16 1.0 */
  double expected[9] = {0};
  for (int64_t k = 0; k < K; k++)
    for (int64_t n = 0; n < N; n++) {
      codes[k * N + n] = (uint8_t)((k * 3 + n) % 8);
      expected[n] += (double)codes[k * N + n] - 4.0;
    }
  lutmm_weights *w = NULL;
  CHECK_OK(lutmm_pack(ctx, &p, table, codes, scales, &w));
  float x[48], y[9];
  for (int i = 0; i < 48; i++) x[i] = 1.0f;
  if (w != NULL) {
    CHECK_OK(lutmm_gemm(ctx, w, 1, x, LUTMM_DTYPE_F32, y, LUTMM_DTYPE_F32));
    for (int n = 0; n < 9; n++)
      if ((double)y[n] != expected[n]) unit_fail(__FILE__, __LINE__, "y[%d] = %g, expected %g", n, y[n], expected[n]);
  }
  lutmm_weights_destroy(w);
  lutmm_context_destroy(ctx);
}

/* Packs (p, table, codes, fp32 scales) on a CPU context and runs one row
 * of X (x_dtype) into fp32 y, and, with y_ref, the reference and its bound.
 * Returns 1 when every call succeeded. */
static int cpu_gemv_case(const lutmm_quant_params *p, const float *table, const uint8_t *codes, const float *scales,
                         const void *x, lutmm_dtype x_dtype, float *y, float *y_ref, float *bound) {
  lutmm_context *ctx = NULL;
  lutmm_weights *w = NULL;
  int ok = lutmm_context_create(LUTMM_BACKEND_CPU, &ctx) == LUTMM_OK &&
           lutmm_pack(ctx, p, table, codes, scales, &w) == LUTMM_OK &&
           lutmm_gemm(ctx, w, 1, x, x_dtype, y, LUTMM_DTYPE_F32) == LUTMM_OK;
  if (ok && y_ref != NULL)
    ok = lutmm_reference_gemm(ctx, w, 1, x, x_dtype, y_ref, LUTMM_DTYPE_F32, bound) == LUTMM_OK;
  lutmm_weights_destroy(w);
  lutmm_context_destroy(ctx);
  return ok;
}

/* Weights whose fl(T·s) is 0 (fp32 scales of 2^-149 against the NF4 entry
 * 0.0796): every term of the reference vanishes, and so must the CPU
 * backend's. Its row kernel (fp32 X) sums x·T first and multiplies by s
 * last, which would leave ~2^-145 here; it must hand such weights to the
 * column kernels (docs/CPU.md). */
static void vanishing_weights(void) {
  enum { K = 256, N = 64 };
  const lutmm_quant_params p = {4, K, N, 0, LUTMM_DTYPE_F32};
  float table[16], scales[N], x[K], y[N];
  static uint8_t codes[K * N];
  lutmm_context *ctx = unit_context();
  CHECK_OK(lutmm_table_nf(ctx, 4, table));
  lutmm_context_destroy(ctx);
  for (int i = 0; i < K * N; i++) codes[i] = 8;
  for (int n = 0; n < N; n++) scales[n] = 0x1p-149f;
  for (int k = 0; k < K; k++) x[k] = 1.0f;
  CHECK(cpu_gemv_case(&p, table, codes, scales, x, LUTMM_DTYPE_F32, y, NULL, NULL));
  for (int n = 0; n < N; n++)
    if (y[n] != 0.0f) unit_fail(__FILE__, __LINE__, "y[%d] = %a, expected 0", n, (double)y[n]);
}

/* float32 sums whose every product is subnormal: x = 1.5·2^-126 times
 * ŵ = 2^-23 is 1.5·2^-149, and a float32 accumulator rounds each addition
 * to a multiple of 2^-149 (ties to even, here always upward), so the column
 * kernels return 2·K·2^-149 where the exact sum is 1.5·K·2^-149. The bound
 * must allow for it: up to half of 2^-149 per rounding, two roundings per
 * term (docs/NUMERICS.md, the K·2^-149 term). bf16 X holds x exactly and
 * always takes the column kernels, which round per term. */
static void subnormal_sums(void) {
  enum { K = 64, N = 32 };
  const lutmm_quant_params p = {1, K, N, 16, LUTMM_DTYPE_F32};
  float table[2] = {-1.0f, 1.0f}, scales[(K / 16) * N], y[N], y_ref[N], bound[N];
  uint16_t x[K];
  static uint8_t codes[K * N];
  for (int i = 0; i < K * N; i++) codes[i] = 1;
  for (int i = 0; i < (K / 16) * N; i++) scales[i] = 0x1p-23f;
  for (int k = 0; k < K; k++) x[k] = 0x00C0; /* bf16 1.5·2^-126 */
  CHECK(cpu_gemv_case(&p, table, codes, scales, x, LUTMM_DTYPE_BF16, y, y_ref, bound));
  for (int n = 0; n < N; n++) {
    if (y_ref[n] != 0x1.8p-143f) unit_fail(__FILE__, __LINE__, "y_ref[%d] = %a", n, (double)y_ref[n]);
    if (!(fabs((double)y[n] - (double)y_ref[n]) <= (double)bound[n]))
      unit_fail(__FILE__, __LINE__, "y[%d] = %a, reference %a, bound %a", n, (double)y[n], (double)y_ref[n],
                (double)bound[n]);
  }
}

/* The large-M path's panel padding: for every K in the last chunk and both
 * row orders, exactly the rows past K are zeroed, in every column, and
 * nothing else is touched (lane order is a permutation of the chunk). */
static void padding_rows(void) {
  enum { COLUMNS = 3, K32 = 2 * CPU_CHUNK_K };
  float panel[COLUMNS * K32];
  for (int lane_order = 0; lane_order < 2; lane_order++)
    for (int64_t k = K32 - CPU_CHUNK_K + 1; k <= K32; k++) {
      for (int i = 0; i < COLUMNS * K32; i++) panel[i] = 1.0f + (float)i;
      cpu_clear_padding(panel, COLUMNS, k, K32, lane_order);
      for (int c = 0; c < COLUMNS; c++)
        for (int i = 0; i < K32; i++) {
          const int p = i - (K32 - CPU_CHUNK_K);
          const int64_t row = p < 0 ? i : K32 - CPU_CHUNK_K + (lane_order ? cpu_lane_row(p) : p);
          const float want = row >= k ? 0.0f : 1.0f + (float)(c * K32 + i);
          if (panel[c * K32 + i] != want)
            unit_fail(__FILE__, __LINE__, "lane order %d, k %lld: position %d of column %d holds %g, want %g",
                      lane_order, (long long)k, i, c, (double)panel[c * K32 + i], (double)want);
        }
    }
  int seen[CPU_CHUNK_K] = {0};
  for (int p = 0; p < CPU_CHUNK_K; p++) seen[cpu_lane_row(p)]++;
  for (int r = 0; r < CPU_CHUNK_K; r++)
    if (seen[r] != 1) unit_fail(__FILE__, __LINE__, "lane order holds row %d %d times", r, seen[r]);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"dequantize", dequantize},       {"gemm_low_bits", gemm_low_bits}, {"gemm_high_bits", gemm_high_bits},
      {"reference_bound", reference_bound}, {"exact_sums", exact_sums},   {"padding_rows", padding_rows},
      {"vanishing_weights", vanishing_weights}, {"subnormal_sums", subnormal_sums},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
