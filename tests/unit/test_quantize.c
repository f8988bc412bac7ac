/* Hand-worked quantization groups: scales and codes computed by hand (the
 * arithmetic is in the comments), exact ties, zero groups, negative maxima,
 * magnitudes at the fp16 limits, every scale dtype, whole-column groups;
 * then random matrices against an independent model of the rule. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "floats.h"

/* Result of one quantize call on guarded outputs. */
typedef struct quantized {
  lutmm_status status;
  uint8_t codes[4096];
  uint8_t scales[4096]; /* raw scale bytes, G×N of the dtype */
} quantized;

static quantized *quantize(const lutmm_quant_params *p, const float *table, const float *w) {
  lutmm_context *ctx = unit_context();
  quantized *q = calloc(1, sizeof *q);
  const size_t count = (size_t)p->k * (size_t)p->n;
  const size_t scale_bytes = scale_array_bytes(p, group_count(p));
  if (q == NULL || count > sizeof q->codes || scale_bytes > sizeof q->scales) {
    fprintf(stderr, "FAIL: test case too large\n");
    exit(1);
  }
  guarded codes = guarded_alloc(count, 0xEE), scales = guarded_alloc(scale_bytes, 0xFF);
  q->status = lutmm_quantize(ctx, p, table, w, codes.data, scales.data);
  CHECK(guarded_intact(&codes) && guarded_intact(&scales));
  memcpy(q->codes, codes.data, count);
  memcpy(q->scales, scales.data, scale_bytes);
  guarded_free(&codes);
  guarded_free(&scales);
  lutmm_context_destroy(ctx);
  return q;
}

static void check_codes(const quantized *q, const uint8_t *expected, size_t count) {
  for (size_t i = 0; i < count; i++)
    if (q->codes[i] != expected[i])
      unit_fail(__FILE__, __LINE__, "code[%zu] = %d, expected %d", i, q->codes[i], expected[i]);
}

/* Scale i must have the given bit pattern in its dtype. */
static void check_scale_bits(const quantized *q, lutmm_dtype dtype, size_t i, uint32_t bits) {
  uint32_t got;
  if (dtype == LUTMM_DTYPE_F32) memcpy(&got, q->scales + 4 * i, 4);
  else {
    uint16_t h;
    memcpy(&h, q->scales + 2 * i, 2);
    got = h;
  }
  if (got != bits) unit_fail(__FILE__, __LINE__, "scale[%zu] bits 0x%x, expected 0x%x", i, got, bits);
}

/* Quantizes one group of 16 rows in one column and checks every code and
 * the bit pattern of its scale. */
static void expect_group(const lutmm_quant_params *p, const float *t, const float *w, const uint8_t *expected,
                         uint32_t scale_bits) {
  quantized *q = quantize(p, t, w);
  CHECK_OK(q->status);
  check_codes(q, expected, 16);
  check_scale_bits(q, p->scale_dtype, 0, scale_bits);
  free(q);
}

static void int_table(int bits, float *t) {
  for (int i = 0; i < (1 << bits); i++) t[i] = (float)(i - (1 << (bits - 1)));
}

static const float kNf4[16] = {-1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f,
                               -0.28444138169288635f, -0.18477343022823334f, -0.09105003625154495f, 0.0f,
                               0.07958029955625534f, 0.16093020141124725f, 0.24611230194568634f,
                               0.33791524171829224f, 0.44070982933044434f, 0.5626170039176941f,
                               0.7229568362236023f, 1.0f};

/* INT4 (T = −8..7, max|T| = 8), one group of 16, fp32 scale.
 * absmax = 4 → s = 4/8 = 0.5, so w/s = 2w exactly and the midpoints are
 * the half-integers −7.5 .. 6.5; code = value + 8. */
static void hand_int4(void) {
  const float w[16] = {4.0f, -4.0f, 0.0f, 0.25f, -0.75f, 1.3f, -2.2f, 3.2f,
                       -3.8f, -3.7f, 0.76f, 0.74f, 1.75f, -0.25f, 2.0f, 3.74f};
  /* w/s:          8 → 7 (last)   −8 → −8     0 → 0      0.5 tie → 0      −1.5 tie → −2
   *             2.6 → 3        −4.4 → −4   6.4 → 6   −7.6 → −8 (below −7.5)  −7.4 → −7
   *            1.52 → 2        1.48 → 1    3.5 tie → 3   −0.5 tie → −1   4 → 4   7.48 → 7 */
  const uint8_t expected[16] = {15, 0, 8, 8, 6, 11, 4, 14, 0, 1, 10, 9, 11, 7, 12, 15};
  float t[16];
  int_table(4, t);
  const lutmm_quant_params p = {4, 16, 1, 16, LUTMM_DTYPE_F32};
  expect_group(&p, t, w, expected, 0x3F000000u); /* 0.5 */
}

/* Exact ties between two NF4 entries go to the lower index; one float ulp
 * above the midpoint goes to the upper one. Column 0 holds two groups:
 * group 0 = {1, m_0 .. m_14}, group 1 = {−1, m_0⁺ .. m_14⁺} where m_i is
 * the float32 midpoint of T[i], T[i+1] (exact in double: same binade) and
 * m⁺ the next float up. absmax = 1, max|T| = 1 → s = 1 in fp16 (0x3C00). */
static void ties(void) {
  float w[32];
  uint8_t expected[32];
  w[0] = 1.0f, expected[0] = 15;
  w[16] = -1.0f, expected[16] = 0;
  for (int i = 0; i < 15; i++) {
    const float mid = (float)(((double)kNf4[i] + (double)kNf4[i + 1]) / 2.0);
    w[1 + i] = mid, expected[1 + i] = (uint8_t)i;
    w[17 + i] = nextafterf(mid, INFINITY), expected[17 + i] = (uint8_t)(i + 1);
  }
  const lutmm_quant_params p = {4, 32, 1, 16, LUTMM_DTYPE_F16};
  quantized *q = quantize(&p, kNf4, w);
  CHECK_OK(q->status);
  check_codes(q, expected, 32);
  check_scale_bits(q, LUTMM_DTYPE_F16, 0, 0x3C00u);
  check_scale_bits(q, LUTMM_DTYPE_F16, 1, 0x3C00u);
  free(q);
}

/* An all-zero group has scale +0 and every code at the entry nearest 0,
 * ties to the lower index. */
static void zero_group_case(int bits, const float *t, uint8_t expected_code) {
  const lutmm_dtype dtypes[3] = {LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16};
  float w[32];
  for (int i = 0; i < 32; i++) w[i] = i % 3 == 0 ? -0.0f : 0.0f;
  for (int d = 0; d < 3; d++) {
    const lutmm_quant_params p = {bits, 16, 2, 16, dtypes[d]};
    quantized *q = quantize(&p, t, w);
    CHECK_OK(q->status);
    for (int i = 0; i < 32; i++)
      if (q->codes[i] != expected_code)
        unit_fail(__FILE__, __LINE__, "bits %d dtype %d: code[%d] = %d, expected %d", bits, d, i, q->codes[i],
                  expected_code);
    check_scale_bits(q, dtypes[d], 0, 0);
    check_scale_bits(q, dtypes[d], 1, 0);
    free(q);
  }
}

static void all_zero(void) {
  float t[16];
  zero_group_case(4, kNf4, 7); /* NF4[7] = 0 */
  int_table(4, t);
  zero_group_case(4, t, 8); /* INT4[8] = 0 */
  const float fp4[16] = {-6, -4, -3, -2, -1.5f, -1, -0.5f, -0.0f, 0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  zero_group_case(4, fp4, 7); /* −0 and +0 tie: lower index, the −0 */
  zero_group_case(2, (const float[]){-3, -1, 2, 5}, 1); /* |−1| < |2| */
  zero_group_case(2, (const float[]){-2, -1, 1, 2}, 1); /* −1 and 1 tie: lower index */
  zero_group_case(2, (const float[]){0.5f, 1, 2, 4}, 0); /* no sign change: the smallest */
}

/* The largest magnitude is negative; the scale is still positive. */
static void negative_max(void) {
  float t[16];
  int_table(4, t);
  /* INT4: absmax = |−6| = 6 → s = 6/8 = 0.75 (exact in every dtype).
   * w/s: −6 → −8 (code 0); 3 → 4 (12); 1 → 1.33 → 1 (9); 2 → 2.67 → 3 (11);
   * −1 → −1.33 → −1 (7); 0.375 → 0.5 tie → 0 (8); rest 0 (8). */
  float w[16] = {-6, 3, 1, 2, -1, 0.375f};
  const uint8_t expected[16] = {0, 12, 9, 11, 7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8};
  const lutmm_quant_params p = {4, 16, 1, 16, LUTMM_DTYPE_BF16};
  expect_group(&p, t, w, expected, 0x3F40u); /* 0.75 */
  /* NF4: absmax = |−2| → s = 2 (fp16 0x4000). w/s: −2 → −1 (0);
   * 1 → 0.5, below the midpoint 0.50166 of T[12], T[13] → 12;
   * 0.5 → 0.25, below the midpoint 0.29201 of T[10], T[11] → 10. */
  float v[16] = {-2, 1, 0.5f};
  const uint8_t nf_expected[16] = {0, 12, 10, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7};
  const lutmm_quant_params pn = {4, 16, 1, 16, LUTMM_DTYPE_F16};
  expect_group(&pn, kNf4, v, nf_expected, 0x4000u);
}

/* Tiny groups: fp16 scales in the subnormal range, and scales that round
 * to zero. INT4, max|T| = 8. */
static void tiny(void) {
  float t[16];
  int_table(4, t);
  /* absmax = 1e−6 → raw s = 1.25e−7 = 2.097·2^−24 → fp16 subnormal 2·2^−24
   * = 2^−23 (bits 0x0002). w/s = w·2^23: 1e−6 → 8.39 → 7 (15); −1e−6 →
   * −8.39 → −8 (0); 3e−7 → 2.517 → 3 (11); 2.9e−7 → 2.433 → 2 (10). */
  float w[16] = {1e-6f, -1e-6f, 3e-7f, 2.9e-7f};
  const uint8_t expected[16] = {15, 0, 11, 10, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8};
  const lutmm_quant_params p16 = {4, 16, 1, 16, LUTMM_DTYPE_F16};
  expect_group(&p16, t, w, expected, 0x0002u);
  /* bf16 keeps it normal: 1.25e−7 = 1.048576·2^−23 → 134/128·2^−23 =
   * 1.2479722e−7, bits (104 << 7) | 6 = 0x3406. w/s: ±1e−6 → ±8.01 → codes
   * 15 and 0; 3e−7 → 2.404 → 2 (10); 2.9e−7 → 2.324 → 2 (10). */
  const uint8_t expected_bf16[16] = {15, 0, 10, 10, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8};
  const lutmm_quant_params pb = {4, 16, 1, 16, LUTMM_DTYPE_BF16};
  expect_group(&pb, t, w, expected_bf16, 0x3406u);
  /* absmax = 2e−8 → raw 2.5e−9, under half the smallest fp16 subnormal
   * (2^−25 ≈ 2.98e−8): the scale rounds to 0, and a zero scale gives every
   * weight the code nearest 0. */
  float z[16] = {2e-8f, -2e-8f, 1e-8f};
  const uint8_t all_nearest_zero[16] = {8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8};
  expect_group(&p16, t, z, all_nearest_zero, 0);
}

/* One-group status for absmax `a` (placed negative when `negative`). */
static lutmm_status single_group_status(const float *t, int bits, lutmm_dtype dtype, float a, int negative,
                                        quantized **out) {
  float w[16] = {0};
  w[5] = negative ? -a : a;
  w[6] = a / 2;
  const lutmm_quant_params p = {bits, 16, 1, 16, dtype};
  quantized *q = quantize(&p, t, w);
  const lutmm_status st = q->status;
  if (out != NULL) *out = q;
  else free(q);
  return st;
}

/* Near the top of each scale dtype. */
static void huge(void) {
  quantized *q;
  /* NF4, fp16: 65504 is the largest fp16; raw 65519 rounds down to it;
   * 65520 is the midpoint to 2^16 and rounds (to even) to Inf. */
  CHECK_OK(single_group_status(kNf4, 4, LUTMM_DTYPE_F16, 65504.0f, 0, &q));
  check_scale_bits(q, LUTMM_DTYPE_F16, 0, 0x7BFFu);
  CHECK_EQ_INT(q->codes[5], 15);
  CHECK_EQ_INT(q->codes[6], 12); /* a/2 → 0.5, below the midpoint 0.50166 of T[12], T[13] */
  free(q);
  CHECK_OK(single_group_status(kNf4, 4, LUTMM_DTYPE_F16, 65519.0f, 1, &q));
  check_scale_bits(q, LUTMM_DTYPE_F16, 0, 0x7BFFu);
  CHECK_EQ_INT(q->codes[5], 0); /* −65519/65504 = −1.00023 → T[0] */
  free(q);
  CHECK_STATUS(LUTMM_ERR_SCALE_OVERFLOW, single_group_status(kNf4, 4, LUTMM_DTYPE_F16, 65520.0f, 0, NULL));
  CHECK_STATUS(LUTMM_ERR_SCALE_OVERFLOW, single_group_status(kNf4, 4, LUTMM_DTYPE_F16, 65520.0f, 1, NULL));
  /* INT4, fp16: s = absmax/8, so the limits are 8·65519 and 8·65520. */
  float t[16];
  int_table(4, t);
  CHECK_OK(single_group_status(t, 4, LUTMM_DTYPE_F16, 8.0f * 65519.0f, 0, NULL));
  CHECK_STATUS(LUTMM_ERR_SCALE_OVERFLOW, single_group_status(t, 4, LUTMM_DTYPE_F16, 8.0f * 65520.0f, 1, NULL));
  /* bf16: 3e38 fits (max ≈ 3.39e38); FLT_MAX = (2−2^−23)·2^127 rounds to 2^128 = Inf. */
  CHECK_OK(single_group_status(kNf4, 4, LUTMM_DTYPE_BF16, 3e38f, 0, NULL));
  CHECK_STATUS(LUTMM_ERR_SCALE_OVERFLOW, single_group_status(kNf4, 4, LUTMM_DTYPE_BF16, FLT_MAX, 0, NULL));
  /* fp32, table {−0.5, 0.5}: s = 2·absmax; 1.7e38 → 3.4e38 fits, FLT_MAX overflows. */
  const float half[2] = {-0.5f, 0.5f};
  CHECK_OK(single_group_status(half, 1, LUTMM_DTYPE_F32, 1.7e38f, 0, NULL));
  CHECK_STATUS(LUTMM_ERR_SCALE_OVERFLOW, single_group_status(half, 1, LUTMM_DTYPE_F32, FLT_MAX, 1, NULL));
}

/* One group, absmax 1.1, NF4, in each scale dtype. The stored scale is
 * 1.1 rounded: fp32 0x3F8CCCCD, fp16 1 + 102/1024 = 1.099609375 (0x3C66),
 * bf16 1 + 13/128 = 1.1015625 (0x3F8D). The weight 0.5518 lands on
 * either side of the midpoint 0.5016634 of T[12], T[13]:
 * 0.5518/1.1 = 0.50164 → 12, 0.5518/1.099609375 = 0.50181 → 13,
 * 0.5518/1.1015625 = 0.50092 → 12. And 1.1/1.099609375 = 1.00036 → 15. */
static void scale_dtypes(void) {
  const lutmm_dtype dtypes[3] = {LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16};
  const uint32_t scale_bits[3] = {0x3F8CCCCDu, 0x3C66u, 0x3F8Du};
  const uint8_t code_of_0_5518[3] = {12, 13, 12};
  float w[16] = {1.1f, 0.5518f, -1.1f};
  for (int d = 0; d < 3; d++) {
    const lutmm_quant_params p = {4, 16, 1, 16, dtypes[d]};
    quantized *q = quantize(&p, kNf4, w);
    CHECK_OK(q->status);
    check_scale_bits(q, dtypes[d], 0, scale_bits[d]);
    CHECK_EQ_INT(q->codes[0], 15);
    CHECK_EQ_INT(q->codes[1], code_of_0_5518[d]);
    CHECK_EQ_INT(q->codes[2], 0);
    CHECK_EQ_INT(q->codes[3], 7);
    free(q);
  }
}

/* group_size 0: one scale per column over all K rows, K not a multiple of
 * 16. INT2 (T = −2..1, max|T| = 2, midpoints −1.5, −0.5, 0.5), K = 5:
 * column 0 absmax 3 → s = 1.5; w/s = 0.33 → 0 (2), −2 (0), 0.67 → 1 (3),
 * 1.93 → 1 (3), −0.13 → 0 (2). Column 1 absmax 0.5 → s = 0.25; w/s = 2 → 1
 * (3), −0.4 → 0 (2), −2 (0), 0.2 → 0 (2), 1 (3). */
static void whole_column(void) {
  const float w[10] = {0.5f, 0.5f, -3.0f, -0.1f, 1.0f, -0.5f, 2.9f, 0.05f, -0.2f, 0.25f};
  const uint8_t expected[10] = {2, 3, 0, 2, 3, 0, 3, 2, 2, 3};
  float t[4];
  int_table(2, t);
  const lutmm_dtype dtypes[3] = {LUTMM_DTYPE_F32, LUTMM_DTYPE_F16, LUTMM_DTYPE_BF16};
  const uint32_t s0[3] = {0x3FC00000u, 0x3E00u, 0x3FC0u}, s1[3] = {0x3E800000u, 0x3400u, 0x3E80u};
  for (int d = 0; d < 3; d++) {
    for (int group = 0; group <= 5; group += 5) { /* 0 and k both mean whole column */
      const lutmm_quant_params p = {2, 5, 2, group, dtypes[d]};
      quantized *q = quantize(&p, t, w);
      CHECK_OK(q->status);
      check_codes(q, expected, 10);
      check_scale_bits(q, dtypes[d], 0, s0[d]);
      check_scale_bits(q, dtypes[d], 1, s1[d]);
      free(q);
    }
  }
}

/* The rule of lutmm.h, evaluated by the test: scale = round(absmax / max|T|)
 * (float32 division, then the dtype), code = number of float32 midpoints
 * below w / scale (float32 division), 0 scale → w/s taken as 0. */
static void model_quantize(const lutmm_quant_params *p, const float *t, const float *w, uint8_t *codes,
                           double *scales) {
  const int size = 1 << p->bits;
  const float tmax = fmaxf(-t[0], t[size - 1]);
  const int64_t g = p->group_size == 0 ? p->k : p->group_size;
  for (int64_t group = 0; group < p->k / g; group++) {
    for (int64_t n = 0; n < p->n; n++) {
      float absmax = 0.0f;
      for (int64_t k = group * g; k < (group + 1) * g; k++) absmax = fmaxf(absmax, fabsf(w[k * p->n + n]));
      const float s = (float)unit_round(absmax / tmax, p->scale_dtype);
      scales[group * p->n + n] = s;
      for (int64_t k = group * g; k < (group + 1) * g; k++) {
        const float v = s == 0.0f ? 0.0f : w[k * p->n + n] / s;
        int code = 0;
        for (int i = 0; i + 1 < size; i++)
          code += (float)(((double)t[i] + (double)t[i + 1]) / 2.0) < v;
        codes[k * p->n + n] = (uint8_t)code;
      }
    }
  }
}

/* Random matrices (several widths, groups, dtypes, >256 columns so the
 * column blocks split) against the model, bit for bit. */
static void random_model(void) {
  lutmm_context *ctx = unit_context();
  const struct { int bits; int64_t k, n, g; lutmm_dtype d; } shapes[] = {
      {1, 32, 3, 16, LUTMM_DTYPE_F32},  {2, 48, 300, 16, LUTMM_DTYPE_F16}, {3, 64, 65, 32, LUTMM_DTYPE_BF16},
      {4, 100, 7, 0, LUTMM_DTYPE_F16},  {5, 96, 33, 48, LUTMM_DTYPE_F32},  {6, 128, 20, 128, LUTMM_DTYPE_BF16},
      {7, 5, 9, 0, LUTMM_DTYPE_F32},    {8, 80, 130, 16, LUTMM_DTYPE_F16},
  };
  unit_rng r = {42};
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
    const lutmm_quant_params p = {shapes[c].bits, shapes[c].k, shapes[c].n, shapes[c].g, shapes[c].d};
    const size_t count = (size_t)p.k * (size_t)p.n, groups = (size_t)group_count(&p) * (size_t)p.n;
    float t[LUTMM_MAX_TABLE_SIZE];
    nf_table(ctx, p.bits, t);
    float *w = malloc(count * sizeof *w);
    uint8_t *codes = malloc(count), *expected = malloc(count);
    double *expected_scales = malloc(groups * sizeof(double));
    guarded scales = guarded_alloc(groups * 4, 0xFF);
    for (size_t i = 0; i < count; i++) w[i] = rng_uniform(&r, -3.0f, 3.0f) * (float)(1 + (i % 5 == 0) * 4);
    CHECK_OK(lutmm_quantize(ctx, &p, t, w, codes, scales.data));
    model_quantize(&p, t, w, expected, expected_scales);
    size_t bad = 0;
    for (size_t i = 0; i < count; i++) bad += codes[i] != expected[i];
    for (size_t i = 0; i < groups; i++) bad += unit_load(scales.data, p.scale_dtype, i) != expected_scales[i];
    if (bad) unit_fail(__FILE__, __LINE__, "shape %zu: %zu codes/scales differ from the model", c, bad);
    CHECK(guarded_intact(&scales));
    guarded_free(&scales);
    free(w), free(codes), free(expected), free(expected_scales);
  }
  lutmm_context_destroy(ctx);
}

/* Columns scaled by powers of two across each dtype's whole range, float32
 * subnormal weights included, with NF, INT and FP tables: still the model,
 * bit for bit (no overflow, every scale representable). */
static void random_extremes(void) {
  lutmm_context *ctx = unit_context();
  lutmm_status (*const builders[3])(lutmm_context *, int, float *) = {lutmm_table_nf, lutmm_table_int,
                                                                       lutmm_table_fp};
  const int lowest[3] = {-148, -38, -148}, highest[3] = {120, 13, 120}; /* f32, f16, bf16 exponents */
  unit_rng r = {77};
  for (int d = 0; d < 3; d++) {
    for (int b = 0; b < 3; b++) {
      const lutmm_quant_params p = {2 + 2 * b, 32, 40, 16, (lutmm_dtype)d};
      const size_t count = (size_t)(p.k * p.n), groups = (size_t)(2 * p.n);
      float t[LUTMM_MAX_TABLE_SIZE], w[32 * 40];
      CHECK_OK(builders[b](ctx, p.bits, t));
      const float tmax = fmaxf(-t[0], t[(1 << p.bits) - 1]);
      for (int64_t n = 0; n < p.n; n++) {
        const int e = lowest[d] + (int)rng_below(&r, (uint32_t)(highest[d] - lowest[d]));
        for (int64_t k = 0; k < p.k; k++) w[k * p.n + n] = ldexpf(rng_uniform(&r, -1.0f, 1.0f) * tmax, e);
      }
      uint8_t codes[32 * 40], expected[32 * 40];
      double expected_scales[80];
      uint8_t scales[80 * 4];
      CHECK_OK(lutmm_quantize(ctx, &p, t, w, codes, scales));
      model_quantize(&p, t, w, expected, expected_scales);
      size_t bad = 0;
      for (size_t i = 0; i < count; i++) bad += codes[i] != expected[i];
      for (size_t i = 0; i < groups; i++) bad += unit_load(scales, p.scale_dtype, i) != expected_scales[i];
      if (bad) unit_fail(__FILE__, __LINE__, "dtype %d table %d: %zu codes/scales differ from the model", d, b, bad);
    }
  }
  lutmm_context_destroy(ctx);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"hand_int4", hand_int4},       {"ties", ties},           {"all_zero", all_zero},
      {"negative_max", negative_max}, {"tiny", tiny},           {"huge", huge},
      {"scale_dtypes", scale_dtypes}, {"whole_column", whole_column}, {"random_model", random_model},
      {"random_extremes", random_extremes},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
