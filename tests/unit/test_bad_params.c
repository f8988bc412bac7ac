/* Bad inputs: parameters out of range (bits, group size, shapes, byte
 * counts beyond size_t, enums, thread counts, backends, overlapping
 * buffers). Each returns its own status and writes nothing. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "lutmm_config.h"

/* ------------------------------------------------------------------ bits */

static void expect_bits_rejected(int bits) {
  bench *b = bench_open();
  lutmm_status (*const builders[3])(lutmm_context *, int, float *) = {lutmm_table_nf, lutmm_table_int,
                                                                       lutmm_table_fp};
  for (int i = 0; i < 3; i++) CHECK_STATUS(LUTMM_ERR_INVALID_BITS, builders[i](b->ctx, bits, (float *)b->out.data));
  CHECK_STATUS(LUTMM_ERR_INVALID_BITS, lutmm_table_validate(b->ctx, bits, b->table));
  lutmm_quant_params p = b->params;
  p.bits = bits;
  expect_params_status(b, p, LUTMM_ERR_INVALID_BITS);
  bench_close(b);
}

static void bits_zero(void) {
  expect_bits_rejected(0);
  expect_bits_rejected(-1);
  expect_bits_rejected(INT_MIN);
}

static void bits_nine(void) {
  expect_bits_rejected(9);
  expect_bits_rejected(32);
  expect_bits_rejected(INT_MAX);
}

/* ------------------------------------------------------------ group size */

static void group_not_dividing(void) {
  bench *b = bench_open();
  const int64_t groups[] = {32, 96, 64}; /* K = 48 */
  for (int i = 0; i < 3; i++) {
    lutmm_quant_params p = b->params;
    p.group_size = groups[i];
    expect_params_status(b, p, LUTMM_ERR_INVALID_GROUP_SIZE);
  }
  bench_close(b);
}

static void group_not_multiple_of_16(void) {
  bench *b = bench_open();
  const int64_t groups[] = {24, 8, 1, 12, -16, -48, INT64_MIN};
  for (int i = 0; i < 7; i++) {
    lutmm_quant_params p = b->params;
    p.group_size = groups[i];
    expect_params_status(b, p, LUTMM_ERR_INVALID_GROUP_SIZE);
  }
  /* 8 divides K = 48 but is not a multiple of 16. */
  lutmm_quant_params p = b->params;
  p.group_size = 8;
  expect_params_status(b, p, LUTMM_ERR_INVALID_GROUP_SIZE);
  bench_close(b);
}

/* ---------------------------------------------------------------- shapes */

static void shape_k(void) {
  bench *b = bench_open();
  const int64_t values[] = {0, -1, -48, INT64_MIN};
  for (int i = 0; i < 4; i++) {
    lutmm_quant_params p = b->params;
    p.k = values[i];
    p.group_size = 0;
    expect_params_status(b, p, LUTMM_ERR_INVALID_SHAPE);
  }
  bench_close(b);
}

static void shape_n(void) {
  bench *b = bench_open();
  const int64_t values[] = {0, -1, -5, INT64_MIN};
  for (int i = 0; i < 4; i++) {
    lutmm_quant_params p = b->params;
    p.n = values[i];
    expect_params_status(b, p, LUTMM_ERR_INVALID_SHAPE);
  }
  bench_close(b);
}

static void shape_m(void) {
  bench *b = bench_open();
  const int64_t values[] = {0, -1, INT64_MIN};
  const lutmm_dtype f = LUTMM_DTYPE_F32;
  for (int i = 0; i < 3; i++) {
    CHECK_STATUS(LUTMM_ERR_INVALID_SHAPE, lutmm_gemm(b->ctx, b->weights, values[i], b->x, f, b->out.data, f));
    CHECK_STATUS(LUTMM_ERR_INVALID_SHAPE,
                 lutmm_reference_gemm(b->ctx, b->weights, values[i], b->x, f, b->out.data, f, NULL));
  }
  bench_close(b);
}

/* -------------------------------------------------------------- overflow */

/* Dimensions beyond what the library accepts (2^40, see geometry.c) and
 * dimensions it accepts whose byte counts exceed size_t: both
 * LUTMM_ERR_OVERFLOW, detected before any memory is touched. */
static void overflow_dims(void) {
  bench *b = bench_open();
  const int64_t big[] = {((int64_t)1 << 40) + 16, INT64_MAX - 15, (int64_t)1 << 62};
  for (int i = 0; i < 3; i++) {
    lutmm_quant_params p = b->params;
    p.k = big[i] / 16 * 16; /* a multiple of the group size */
    expect_params_status(b, p, LUTMM_ERR_OVERFLOW);
    p = b->params;
    p.n = big[i];
    expect_params_status(b, p, LUTMM_ERR_OVERFLOW);
  }
  bench_close(b);
}

static void overflow_bytes(void) {
  bench *b = bench_open();
  /* k·n·4 bytes of W: 2^32 · 2^31 · 4 = 2^65. */
  lutmm_quant_params p = {4, (int64_t)1 << 32, (int64_t)1 << 31, 0, LUTMM_DTYPE_F32};
  expect_params_status(b, p, LUTMM_ERR_OVERFLOW);
  /* (k/64)·(n/64) atoms · 512·8 bytes = 2^34 · 2^34 · 2^12. */
  p = (lutmm_quant_params){8, (int64_t)1 << 40, (int64_t)1 << 40, 16, LUTMM_DTYPE_F16};
  expect_params_status(b, p, LUTMM_ERR_OVERFLOW);
  /* Just fits size_t in every count on 64 bits: accepted by the check. */
  int64_t groups = 0;
  p = (lutmm_quant_params){8, (int64_t)1 << 20, (int64_t)1 << 20, 16, LUTMM_DTYPE_F32};
  CHECK_OK(lutmm_quant_params_check(&p, &groups));
  CHECK_EQ_INT(groups, (int64_t)1 << 16);
  bench_close(b);
}

/* GEMM: m·K·dtype bytes of X or m·N bytes of Y that do not fit. */
static void overflow_gemm(void) {
  bench *b = bench_open();
  const lutmm_dtype f = LUTMM_DTYPE_F32;
  const int64_t m = INT64_MAX / 8;
  CHECK_STATUS(LUTMM_ERR_OVERFLOW, lutmm_gemm(b->ctx, b->weights, m, b->x, f, b->out.data, f));
  CHECK_STATUS(LUTMM_ERR_OVERFLOW, lutmm_reference_gemm(b->ctx, b->weights, m, b->x, f, b->out.data, f, NULL));
  bench_close(b);
}

/* ------------------------------------------------------------------ enums */

static void enum_out_of_range(void) {
  bench *b = bench_open();
  const int bad[] = {3, -1, 1000};
  for (int i = 0; i < 3; i++) {
    lutmm_quant_params p = b->params;
    p.scale_dtype = (lutmm_dtype)bad[i];
    expect_params_status(b, p, LUTMM_ERR_INVALID_ARGUMENT);
    const lutmm_dtype d = (lutmm_dtype)bad[i], f = LUTMM_DTYPE_F32;
    CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_dequantize(b->ctx, b->weights, d, b->out.data));
    CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_gemm(b->ctx, b->weights, 1, b->x, d, b->out.data, f));
    CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_gemm(b->ctx, b->weights, 1, b->x, f, b->out.data, d));
    CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT,
                 lutmm_reference_gemm(b->ctx, b->weights, 1, b->x, f, b->out.data, d, NULL));
  }
  const int bad_backends[] = {4, -1, 1000};
  for (int i = 0; i < 3; i++) {
    lutmm_context *ctx = (lutmm_context *)(uintptr_t)0xC0;
    CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_context_create((lutmm_backend)bad_backends[i], &ctx));
    CHECK(ctx == (lutmm_context *)(uintptr_t)0xC0);
  }
  CHECK(strcmp(lutmm_status_string((lutmm_status)99), "LUTMM_ERR_UNKNOWN") == 0);
  CHECK(strcmp(lutmm_status_string((lutmm_status)-1), "LUTMM_ERR_UNKNOWN") == 0);
  bench_close(b);
}

static void negative_threads(void) {
  bench *b = bench_open();
  CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_context_set_num_threads(b->ctx, -1));
  CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_context_set_num_threads(b->ctx, INT_MIN));
  CHECK_OK(lutmm_context_set_num_threads(b->ctx, 0));
  bench_close(b);
}

/* ---------------------------------------------------------------- backends */

static void backend_environment(void) {
  lutmm_context *ctx = (lutmm_context *)(uintptr_t)0xC0;
  const char *bad[] = {"bogus", "REF", "ref ", "gpu"};
  for (int i = 0; i < 4; i++) {
    CHECK(setenv("LUTMM_BACKEND", bad[i], 1) == 0);
    CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_context_create(LUTMM_BACKEND_AUTO, &ctx));
    CHECK(ctx == (lutmm_context *)(uintptr_t)0xC0);
    /* An explicit backend ignores the variable. */
    lutmm_context *ref = NULL;
    CHECK_OK(lutmm_context_create(LUTMM_BACKEND_REFERENCE, &ref));
    lutmm_context_destroy(ref);
  }
  /* "ref" forces the reference; empty means no override. */
  CHECK(setenv("LUTMM_BACKEND", "ref", 1) == 0);
  lutmm_context *c = NULL;
  lutmm_backend kind = LUTMM_BACKEND_AUTO;
  CHECK_OK(lutmm_context_create(LUTMM_BACKEND_AUTO, &c));
  if (c != NULL) CHECK_OK(lutmm_context_backend(c, &kind));
  CHECK_EQ_INT(kind, LUTMM_BACKEND_REFERENCE);
  lutmm_context_destroy(c);
  CHECK(setenv("LUTMM_BACKEND", "", 1) == 0);
  c = NULL;
  CHECK_OK(lutmm_context_create(LUTMM_BACKEND_AUTO, &c));
  if (c != NULL) {
    CHECK_OK(lutmm_context_backend(c, &kind));
    CHECK(kind != LUTMM_BACKEND_AUTO);
  }
  lutmm_context_destroy(c);
  unsetenv("LUTMM_BACKEND");
}

/* CUDA in a build without it (or on a machine without a GPU). */
static void backend_unavailable(void) {
  lutmm_context *ctx = (lutmm_context *)(uintptr_t)0xC0;
  const lutmm_status st = lutmm_context_create(LUTMM_BACKEND_CUDA, &ctx);
#ifdef LUTMM_HAVE_CUDA
  if (st == LUTMM_OK) {
    lutmm_context_destroy(ctx); /* a GPU is present: nothing to check here */
    return;
  }
#endif
  CHECK_STATUS(LUTMM_ERR_BACKEND_UNAVAILABLE, st);
  CHECK(ctx == (lutmm_context *)(uintptr_t)0xC0);
#ifndef LUTMM_HAVE_CUDA
  CHECK(setenv("LUTMM_BACKEND", "cuda", 1) == 0);
  CHECK_STATUS(LUTMM_ERR_BACKEND_UNAVAILABLE, lutmm_context_create(LUTMM_BACKEND_AUTO, &ctx));
  CHECK(ctx == (lutmm_context *)(uintptr_t)0xC0);
  unsetenv("LUTMM_BACKEND");
#endif
}

/* ------------------------------------------------------------------ GEMM */

/* X and Y must not overlap: the same buffer, Y inside X, X inside Y, one
 * shared byte. Adjacent buffers are fine. */
static void overlapping_gemm(void) {
  bench *b = bench_open();
  const lutmm_dtype f = LUTMM_DTYPE_F32, h = LUTMM_DTYPE_F16;
  float *buffer = malloc(4096);
  for (int i = 0; i < 1024; i++) buffer[i] = 0.25f;
  /* m = 2: X is 2·48 floats = 384 bytes; Y is 2·5 floats = 40 bytes. */
  CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_gemm(b->ctx, b->weights, 2, buffer, f, buffer, f));
  CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_gemm(b->ctx, b->weights, 2, buffer, f, buffer + 50, f));
  CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_gemm(b->ctx, b->weights, 2, buffer + 5, f, buffer, f));
  CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_gemm(b->ctx, b->weights, 2, buffer + 9, f, buffer, f));
  CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT, lutmm_gemm(b->ctx, b->weights, 2, buffer, h, buffer + 47, h));
  CHECK_STATUS(LUTMM_ERR_INVALID_ARGUMENT,
               lutmm_reference_gemm(b->ctx, b->weights, 2, buffer, f, buffer + 95, f, NULL));
  for (int i = 0; i < 1024; i++)
    if (buffer[i] != 0.25f) {
      unit_fail(__FILE__, __LINE__, "overlapping gemm wrote element %d", i);
      break;
    }
  /* Adjacent, not overlapping: Y right after X, and X right after Y. */
  CHECK_OK(lutmm_gemm(b->ctx, b->weights, 2, buffer, f, buffer + 96, f));
  CHECK_OK(lutmm_gemm(b->ctx, b->weights, 2, buffer + 10, f, buffer, f));
  free(buffer);
  bench_close(b);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"bits_zero", bits_zero},
      {"bits_nine", bits_nine},
      {"group_not_dividing", group_not_dividing},
      {"group_not_multiple_of_16", group_not_multiple_of_16},
      {"shape_k", shape_k},
      {"shape_n", shape_n},
      {"shape_m", shape_m},
      {"overflow_dims", overflow_dims},
      {"overflow_bytes", overflow_bytes},
      {"overflow_gemm", overflow_gemm},
      {"enum_out_of_range", enum_out_of_range},
      {"negative_threads", negative_threads},
      {"backend_environment", backend_environment},
      {"backend_unavailable", backend_unavailable},
      {"overlapping_gemm", overlapping_gemm},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
