/* Property: the table builders and user-table validation.
 *  - Built tables (NF, INT, FP, any width): 2^bits finite ascending values
 *    that pass lutmm_table_validate; INT and FP equal an independent
 *    enumeration bit for bit; NF is strictly ascending with its zero at
 *    index 2^(b-1)-1, its extremes at -1 and +1, and NF4 is bitsandbytes'
 *    constants; every available backend builds the same bits.
 *  - User tables (raw float bits from the input, optionally sorted or
 *    zeroed): lutmm_table_validate returns exactly the status an independent
 *    reading of the rules predicts, and quantize and pack agree with it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "fuzz_float.h"
#include "fuzz_params.h"
#include "fuzz_util.h"

static const float kNf4[16] = {-1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f,
                               -0.28444138169288635f, -0.18477343022823334f, -0.09105003625154495f, 0.0f,
                               0.07958029955625534f, 0.16093020141124725f, 0.24611230194568634f,
                               0.33791524171829224f, 0.44070982933044434f, 0.5626170039176941f,
                               0.7229568362236023f, 1.0f};

typedef lutmm_status (*table_builder)(lutmm_context *, int, float *);

static void build_on(lutmm_context *ctx, table_builder build, int bits, float *host) {
  const size_t bytes = sizeof(float) * ((size_t)1 << bits);
  float *dev = fuzz_alloc(ctx, bytes);
  FUZZ_OK(build(ctx, bits, dev));
  FUZZ_OK(lutmm_table_validate(ctx, bits, dev));
  fuzz_download(ctx, host, dev, bytes);
  lutmm_free(ctx, dev);
}

static int compare_values(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  if (x != y) return (x > y) - (x < y);
  return signbit(y) - signbit(x); /* -0 before +0 */
}

/* Every sign-magnitude minifloat of the FP format, sorted. */
static void expected_fp(int bits, float *out) {
  const int size = 1 << bits;
  double values[LUTMM_MAX_TABLE_SIZE];
  if (bits == 1) {
    out[0] = -1.0f;
    out[1] = 1.0f;
    return;
  }
  const int e = bits / 2, m = bits - 1 - e, bias = (1 << (e - 1)) - 1;
  for (int code = 0; code < size; code++) {
    const int magnitude_bits = code & (size / 2 - 1), exp_field = magnitude_bits >> m;
    const int mant = magnitude_bits & ((1 << m) - 1);
    const double mag = exp_field == 0 ? ldexp(mant, 1 - bias - m) : ldexp((1 << m) + mant, exp_field - bias - m);
    values[code] = code & (size / 2) ? -mag : mag;
  }
  qsort(values, (size_t)size, sizeof *values, compare_values);
  for (int i = 0; i < size; i++) out[i] = (float)values[i];
}

static void check_nf(int bits, const float *t) {
  const int size = 1 << bits;
  FUZZ_CHECK(t[0] == -1.0f || t[size - 1] == 1.0f);
  FUZZ_CHECK(t[0] >= -1.0f && t[size - 1] <= 1.0f);
  for (int i = 1; i < size; i++) FUZZ_CHECK(t[i] > t[i - 1]);
  if (bits > 1) FUZZ_CHECK(t[size / 2 - 1] == 0.0f);
  if (bits == 4) FUZZ_CHECK(memcmp(t, kNf4, sizeof kNf4) == 0);
}

static void check_builders(fz_source *s, lutmm_context *ctx) {
  const int bits = fz_draw_bits(s), size = 1 << bits;
  float nf[LUTMM_MAX_TABLE_SIZE], in[LUTMM_MAX_TABLE_SIZE], fp[LUTMM_MAX_TABLE_SIZE];
  float want[LUTMM_MAX_TABLE_SIZE];
  build_on(ctx, lutmm_table_nf, bits, nf);
  build_on(ctx, lutmm_table_int, bits, in);
  build_on(ctx, lutmm_table_fp, bits, fp);
  check_nf(bits, nf);
  for (int i = 0; i < size; i++) FUZZ_CHECK(in[i] == (float)(i - size / 2));
  expected_fp(bits, want);
  FUZZ_CHECK(memcmp(fp, want, sizeof(float) * (size_t)size) == 0);
  /* Every other backend writes the same bits. */
  for (int b = LUTMM_BACKEND_REFERENCE; b <= LUTMM_BACKEND_CUDA; b++) {
    lutmm_context *other = fuzz_context((lutmm_backend)b);
    if (other == NULL || other == ctx) continue;
    build_on(other, lutmm_table_nf, bits, want);
    FUZZ_CHECK(memcmp(nf, want, sizeof(float) * (size_t)size) == 0);
    build_on(other, lutmm_table_fp, bits, want);
    FUZZ_CHECK(memcmp(fp, want, sizeof(float) * (size_t)size) == 0);
  }
}

static int compare_floats(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

static lutmm_status expected_validation(int bits, const float *t) {
  const int size = 1 << bits;
  int nonzero = 0;
  for (int i = 0; i < size; i++) {
    if (!fz_is_finite(t[i])) return LUTMM_ERR_NON_FINITE;
    nonzero = nonzero || t[i] != 0.0f;
  }
  for (int i = 1; i < size; i++)
    if (t[i] < t[i - 1]) return LUTMM_ERR_TABLE_NOT_ASCENDING;
  return nonzero ? LUTMM_OK : LUTMM_ERR_TABLE_ALL_ZERO;
}

/* Raw bits from the input; sorted (when all finite) or zeroed by request. */
static void draw_user_table(fz_source *s, int bits, float *t) {
  const int size = 1 << bits;
  const uint32_t shape = fz_below(s, 4);
  int finite = 1;
  for (int i = 0; i < size; i++) {
    const uint32_t u = fz_u32(s);
    memcpy(&t[i], &u, sizeof u);
    finite = finite && fz_is_finite(t[i]);
  }
  if (shape == 1 && finite) qsort(t, (size_t)size, sizeof *t, compare_floats);
  if (shape == 2) memset(t, 0, sizeof(float) * (size_t)size);
  if (shape == 3) t[fz_below(s, (uint32_t)size)] = -0.0f;
}

/* Quantize and pack run the same check as lutmm_table_validate. */
static void check_consumers(lutmm_context *ctx, int bits, const float *dev_table, lutmm_status want) {
  const lutmm_quant_params p = {bits, 16, 1, 16, LUTMM_DTYPE_F32};
  const float w_host[16] = {0};
  const float one = 1.0f;
  const uint8_t codes_host[16] = {0};
  float *w = fuzz_upload(ctx, w_host, sizeof w_host), *scale = fuzz_upload(ctx, &one, sizeof one);
  uint8_t *codes = fuzz_upload(ctx, codes_host, sizeof codes_host);
  FUZZ_CHECK(lutmm_quantize(ctx, &p, dev_table, w, codes, scale) == want);
  lutmm_weights *weights = NULL;
  FUZZ_OK(lutmm_copy_to_context(ctx, codes, codes_host, sizeof codes_host));
  FUZZ_OK(lutmm_copy_to_context(ctx, scale, &one, sizeof one));
  const lutmm_status st = lutmm_pack(ctx, &p, dev_table, codes, scale, &weights);
  FUZZ_CHECK(st == want);
  FUZZ_CHECK((st == LUTMM_OK) == (weights != NULL));
  lutmm_weights_destroy(weights);
  lutmm_free(ctx, w);
  lutmm_free(ctx, scale);
  lutmm_free(ctx, codes);
}

static void check_user_table(fz_source *s, lutmm_context *ctx) {
  const int bits = fz_draw_bits(s);
  float t[LUTMM_MAX_TABLE_SIZE];
  draw_user_table(s, bits, t);
  const lutmm_status want = expected_validation(bits, t);
  float *dev = fuzz_upload(ctx, t, sizeof(float) * ((size_t)1 << bits));
  FUZZ_CHECK(lutmm_table_validate(ctx, bits, dev) == want);
  check_consumers(ctx, bits, dev, want);
  lutmm_free(ctx, dev);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lutmm_context *ctx = fuzz_context(LUTMM_BACKEND_AUTO);
  FUZZ_CHECK(ctx != NULL);
  fz_source s = fz_source_from_bytes(data, size);
  if (fz_below(&s, 2) == 0) check_builders(&s, ctx);
  else check_user_table(&s, ctx);
  return 0;
}
