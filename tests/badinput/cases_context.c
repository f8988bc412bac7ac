/* Contexts: creation, backend query, thread count. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "badinput.h"

static lutmm_status create_null_out(bad_fixture *fx) {
  (void)fx;
  return lutmm_context_create(LUTMM_BACKEND_AUTO, NULL);
}

/* An out-of-range backend; *ctx must stay untouched. */
static lutmm_status create_enum(int value) {
  lutmm_context *sentinel = (lutmm_context *)&create_enum, *ctx = sentinel;
  const lutmm_status st = lutmm_context_create((lutmm_backend)value, &ctx);
  return ctx == sentinel ? st : BAD_BROKEN_PROMISE;
}

static lutmm_status create_negative(bad_fixture *fx) {
  (void)fx;
  return create_enum(-1);
}

static lutmm_status create_past_last(bad_fixture *fx) {
  (void)fx;
  return create_enum(LUTMM_BACKEND_CUDA + 1);
}

static lutmm_status create_int_max(bad_fixture *fx) {
  (void)fx;
  return create_enum(INT_MAX);
}

/* create with LUTMM_BACKEND set to `value`, restoring the variable after. */
static lutmm_status create_with_env(const char *value, lutmm_backend backend) {
  const char *old = getenv("LUTMM_BACKEND");
  char *saved = old != NULL ? strdup(old) : NULL;
  setenv("LUTMM_BACKEND", value, 1);
  lutmm_context *ctx = NULL;
  const lutmm_status st = lutmm_context_create(backend, &ctx);
  lutmm_context_destroy(ctx);
  if (saved != NULL) setenv("LUTMM_BACKEND", saved, 1);
  else unsetenv("LUTMM_BACKEND");
  free(saved);
  return st;
}

static lutmm_status env_unknown_name(bad_fixture *fx) {
  (void)fx;
  return create_with_env("tpu", LUTMM_BACKEND_AUTO);
}

static lutmm_status env_ignored_when_explicit(bad_fixture *fx) {
  (void)fx;
  return create_with_env("tpu", LUTMM_BACKEND_REFERENCE);
}

/* CUDA without a GPU (or without CUDA compiled in) must say so, not crash. */
static lutmm_status cuda_without_device(bad_fixture *fx) {
  (void)fx;
  lutmm_context *ctx = NULL;
  const lutmm_status st = lutmm_context_create(LUTMM_BACKEND_CUDA, &ctx);
  lutmm_context_destroy(ctx);
  return st == LUTMM_OK ? BAD_SKIP : st;
}

static lutmm_status destroy_null(bad_fixture *fx) {
  (void)fx;
  lutmm_context_destroy(NULL);
  return LUTMM_OK;
}

static lutmm_status backend_null_ctx(bad_fixture *fx) {
  (void)fx;
  lutmm_backend b;
  return lutmm_context_backend(NULL, &b);
}

static lutmm_status backend_null_out(bad_fixture *fx) { return lutmm_context_backend(fx->ctx, NULL); }

static lutmm_status threads_null_ctx(bad_fixture *fx) {
  (void)fx;
  return lutmm_context_set_num_threads(NULL, 1);
}

static lutmm_status threads_negative(bad_fixture *fx) { return lutmm_context_set_num_threads(fx->ctx, -1); }

static lutmm_status threads_int_min(bad_fixture *fx) { return lutmm_context_set_num_threads(fx->ctx, INT_MIN); }

static const bad_case kCases[] = {
    {"create_null_out", create_null_out, LUTMM_ERR_NULL_POINTER},
    {"create_backend_negative", create_negative, LUTMM_ERR_INVALID_ARGUMENT},
    {"create_backend_past_last", create_past_last, LUTMM_ERR_INVALID_ARGUMENT},
    {"create_backend_int_max", create_int_max, LUTMM_ERR_INVALID_ARGUMENT},
    {"env_unknown_backend_name", env_unknown_name, LUTMM_ERR_INVALID_ARGUMENT},
    {"env_ignored_for_explicit_backend", env_ignored_when_explicit, LUTMM_OK},
    {"cuda_without_device", cuda_without_device, LUTMM_ERR_BACKEND_UNAVAILABLE},
    {"destroy_null", destroy_null, LUTMM_OK},
    {"backend_null_context", backend_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"backend_null_output", backend_null_out, LUTMM_ERR_NULL_POINTER},
    {"threads_null_context", threads_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"threads_negative", threads_negative, LUTMM_ERR_INVALID_ARGUMENT},
    {"threads_int_min", threads_int_min, LUTMM_ERR_INVALID_ARGUMENT},
};

const bad_area bad_context_area = {"context", kCases, sizeof kCases / sizeof kCases[0]};
