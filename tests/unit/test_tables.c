/* Known answers for the table builders: NF (pinned and constructed), INT
 * and FP, every width 1..8. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "floats.h"

typedef lutmm_status (*table_builder)(lutmm_context *, int, float *);

/* Builds a table into a guarded buffer, checking that exactly 2^bits floats
 * were written and nothing after them. */
static void build(table_builder builder, int bits, float *out) {
  lutmm_context *ctx = unit_context();
  const size_t size = (size_t)1 << bits;
  guarded g = guarded_alloc(size * sizeof(float), 0xFF);
  CHECK_OK(builder(ctx, bits, (float *)g.data));
  CHECK(guarded_intact(&g));
  memcpy(out, g.data, size * sizeof(float));
  guarded_free(&g);
  lutmm_context_destroy(ctx);
}

/* Bitwise equality of table entry i with an expected float. */
static void check_entry(const char *kind, int bits, int i, float got, float expected) {
  if (unit_f32_bits(got) != unit_f32_bits(expected))
    unit_fail(__FILE__, __LINE__, "%s%d[%d] = %.9g (0x%08x), expected %.9g (0x%08x)", kind, bits, i, got,
              unit_f32_bits(got), expected, unit_f32_bits(expected));
}

static void check_table(const char *kind, int bits, const float *got, const float *expected) {
  for (int i = 0; i < (1 << bits); i++) check_entry(kind, bits, i, got[i], expected[i]);
}

/* bitsandbytes' published NF4, as DESIGN.md lists it. */
static void nf4_constants(void) {
  static const float kNf4[16] = {-1.0f,
                                 -0.6961928009986877f,
                                 -0.5250730514526367f,
                                 -0.39491748809814453f,
                                 -0.28444138169288635f,
                                 -0.18477343022823334f,
                                 -0.09105003625154495f,
                                 0.0f,
                                 0.07958029955625534f,
                                 0.16093020141124725f,
                                 0.24611230194568634f,
                                 0.33791524171829224f,
                                 0.44070982933044434f,
                                 0.5626170039176941f,
                                 0.7229568362236023f,
                                 1.0f};
  float t[16];
  build(lutmm_table_nf, 4, t);
  check_table("NF", 4, t, kNf4);
}

/* Every NF width: strictly ascending, endpoints exactly −1 and 1, and for
 * b >= 2 exactly 2^(b−1)−1 negatives, one +0, 2^(b−1) positives. */
static void nf_shape(void) {
  for (int bits = 1; bits <= 8; bits++) {
    float t[LUTMM_MAX_TABLE_SIZE];
    build(lutmm_table_nf, bits, t);
    const int size = 1 << bits, half = size / 2;
    CHECK(t[0] == -1.0f);
    CHECK(t[size - 1] == 1.0f);
    int negative = 0, zero = 0, positive = 0;
    for (int i = 0; i < size; i++) {
      if (i > 0 && !(t[i] > t[i - 1])) unit_fail(__FILE__, __LINE__, "NF%d not strictly ascending at %d", bits, i);
      if (t[i] < 0.0f) negative++;
      else if (t[i] > 0.0f) positive++;
      else if (!signbit(t[i])) zero++;
      else unit_fail(__FILE__, __LINE__, "NF%d[%d] is -0", bits, i);
    }
    if (bits == 1) {
      CHECK_EQ_INT(negative, 1);
      CHECK_EQ_INT(positive, 1);
    } else {
      CHECK_EQ_INT(negative, half - 1);
      CHECK_EQ_INT(zero, 1);
      CHECK_EQ_INT(positive, half);
      check_entry("NF", bits, half - 1, t[half - 1], 0.0f);
    }
  }
}

/* NF2, NF3 and NF5, computed independently in double precision with SciPy's
 * ndtri from the construction in lutmm.h and rounded to float32 (9
 * significant digits identify a float32 exactly). */
static void nf_pinned(void) {
  static const float kNf2[4] = {-1.0f, 0.0f, 0.337915123f, 1.0f};
  static const float kNf3[8] = {-1.0f,        -0.478629082f, -0.217141777f, 0.0f,
                                0.160930142f, 0.337915123f,  0.562616885f,  1.0f};
  static const float kNf5[32] = {
      -1.0f,          -0.82584101f,   -0.710250497f,  -0.620253801f,  -0.544769943f, -0.478629082f,
      -0.41896683f,   -0.364012271f,  -0.312581539f,  -0.26383394f,   -0.217141777f, -0.172015309f,
      -0.128056392f,  -0.0849280581f, -0.0423334651f, 0.0f,           0.0396827161f, 0.0795803145f,
      0.119915947f,   0.160930142f,   0.202891767f,   0.246112257f,   0.290965229f,  0.337915123f,
      0.387561381f,   0.44070974f,    0.498496026f,   0.562616885f,   0.635805368f,  0.722956657f,
      0.834415734f,   1.0f};
  float t[32];
  build(lutmm_table_nf, 2, t);
  check_table("NF", 2, t, kNf2);
  build(lutmm_table_nf, 3, t);
  check_table("NF", 3, t, kNf3);
  build(lutmm_table_nf, 5, t);
  check_table("NF", 5, t, kNf5);
}

/* Lower-tail standard normal quantile by bisection on libm's erfc, which is
 * accurate in relative terms there. p in (0, 0.5]. */
static double lower_quantile(double p) {
  if (p == 0.5) return 0.0;
  double lo = -40.0, hi = 0.0;
  for (int i = 0; i < 2000; i++) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    if (0.5 * erfc(-mid / sqrt(2.0)) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* The NF construction of lutmm.h, evaluated with a different method: the
 * upper half uses Φ⁻¹(p) = −Φ⁻¹(1−p), 1−p being exact for p > ½. */
static void nf_independent(int bits, float *out) {
  const int half = 1 << (bits - 1);
  const double delta = 0.5 * (1.0 / 32.0 + 1.0 / 30.0);
  double q[LUTMM_MAX_TABLE_SIZE];
  for (int i = 0; i < half; i++) q[i] = lower_quantile(delta + i * ((0.5 - delta) / (half - 1)));
  for (int j = 1; j <= half; j++) q[half - 1 + j] = -lower_quantile(1.0 - (0.5 + j * ((0.5 - delta) / half)));
  const double largest = fmax(-q[0], q[2 * half - 1]);
  for (int i = 0; i < 2 * half; i++) out[i] = (float)(q[i] / largest);
}

/* Widths the pins above do not cover match an independent evaluation of the
 * construction (NF4 is pinned to bitsandbytes instead). */
static void nf_construction(void) {
  const int widths[] = {2, 3, 5, 6, 7, 8};
  for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
    float got[LUTMM_MAX_TABLE_SIZE], expected[LUTMM_MAX_TABLE_SIZE];
    build(lutmm_table_nf, widths[w], got);
    nf_independent(widths[w], expected);
    check_table("NF", widths[w], got, expected);
  }
  float nf1[2];
  build(lutmm_table_nf, 1, nf1);
  check_table("NF", 1, nf1, (const float[]){-1.0f, 1.0f});
}

/* INT: the two's-complement range −2^(b−1) .. 2^(b−1)−1. */
static void int_tables(void) {
  for (int bits = 1; bits <= 8; bits++) {
    float t[LUTMM_MAX_TABLE_SIZE], expected[LUTMM_MAX_TABLE_SIZE];
    build(lutmm_table_int, bits, t);
    for (int i = 0; i < (1 << bits); i++) expected[i] = (float)(i - (1 << (bits - 1)));
    check_table("INT", bits, t, expected);
  }
  float int4[16];
  build(lutmm_table_int, 4, int4);
  CHECK(int4[0] == -8.0f && int4[15] == 7.0f);
}

static int compare_floats(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  if (x != y) return x < y ? -1 : 1;
  return signbit(x) && !signbit(y) ? -1 : (!signbit(x) && signbit(y) ? 1 : 0); /* −0 first */
}

/* Every value of the sign-magnitude minifloat of lutmm.h, enumerated from
 * its bit patterns and sorted: e = ceil((b−1)/2), m = b−1−e, bias 2^(e−1)−1,
 * exponent field 0 subnormal, no Inf/NaN codes. */
static void fp_independent(int bits, float *out) {
  const int e = (bits - 1 + 1) / 2, m = bits - 1 - e, bias = (1 << (e - 1)) - 1;
  const int half = 1 << (bits - 1);
  for (int code = 0; code < half; code++) {
    const int exp_field = code >> m, fraction = code & ((1 << m) - 1);
    const double magnitude = exp_field == 0 ? ldexp(fraction, 1 - bias - m)
                                            : ldexp((1 << m) + fraction, exp_field - bias - m);
    out[2 * code] = (float)magnitude;
    out[2 * code + 1] = (float)-magnitude;
  }
  qsort(out, (size_t)(2 * half), sizeof(float), compare_floats);
}

static void fp_tables(void) {
  float t[LUTMM_MAX_TABLE_SIZE], expected[LUTMM_MAX_TABLE_SIZE];
  build(lutmm_table_fp, 1, t);
  check_table("FP", 1, t, (const float[]){-1.0f, 1.0f});
  for (int bits = 2; bits <= 8; bits++) {
    build(lutmm_table_fp, bits, t);
    fp_independent(bits, expected);
    check_table("FP", bits, t, expected);
  }
  /* fp4 e2m1, spelled out, −0 before +0. */
  static const float kFp4[16] = {-6.0f, -4.0f, -3.0f, -2.0f, -1.5f, -1.0f, -0.5f, -0.0f,
                                 0.0f,  0.5f,  1.0f,  1.5f,  2.0f,  3.0f,  4.0f,  6.0f};
  build(lutmm_table_fp, 4, t);
  check_table("FP", 4, t, kFp4);
  CHECK(signbit(t[7]) && !signbit(t[8]));
  /* e4m3 without Inf/NaN codes reaches 480 = 1.875·2^8; smallest subnormal 2^−9. */
  build(lutmm_table_fp, 8, t);
  CHECK(t[255] == 480.0f && t[0] == -480.0f);
  CHECK(t[254] == 448.0f);
  CHECK(t[129] == 0x1p-9f && t[126] == -0x1p-9f);
}

/* Every built table is one lutmm_table_validate accepts. */
static void builders_validate(void) {
  lutmm_context *ctx = unit_context();
  const table_builder builders[] = {lutmm_table_nf, lutmm_table_int, lutmm_table_fp};
  for (int b = 0; b < 3; b++) {
    for (int bits = 1; bits <= 8; bits++) {
      float t[LUTMM_MAX_TABLE_SIZE];
      CHECK_OK(builders[b](ctx, bits, t));
      CHECK_OK(lutmm_table_validate(ctx, bits, t));
    }
  }
  lutmm_context_destroy(ctx);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"nf4_constants", nf4_constants}, {"nf_shape", nf_shape},   {"nf_pinned", nf_pinned},
      {"nf_construction", nf_construction}, {"int_tables", int_tables}, {"fp_tables", fp_tables},
      {"builders_validate", builders_validate},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
