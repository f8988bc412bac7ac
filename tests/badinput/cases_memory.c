/* Context memory: lutmm_malloc, lutmm_free and the two copies. */
#include <stdint.h>

#include "badinput.h"

static lutmm_status malloc_null_ctx(bad_fixture *fx) {
  (void)fx;
  void *p;
  return lutmm_malloc(NULL, 16, &p);
}

static lutmm_status malloc_null_out(bad_fixture *fx) { return lutmm_malloc(fx->ctx, 16, NULL); }

/* An impossible size (2^63 - 1 bytes: no machine has that much, and not
 * "negative" to memory checkers) fails cleanly and leaves *ptr alone. */
static lutmm_status malloc_impossible(bad_fixture *fx) {
  void *sentinel = fx, *p = sentinel;
  const lutmm_status st = lutmm_malloc(fx->ctx, SIZE_MAX >> 1, &p);
  return p == sentinel ? st : BAD_BROKEN_PROMISE;
}

static lutmm_status free_nulls(bad_fixture *fx) {
  lutmm_free(fx->ctx, NULL);
  lutmm_free(NULL, NULL);
  return LUTMM_OK;
}

static lutmm_status to_context_null_ctx(bad_fixture *fx) { return lutmm_copy_to_context(NULL, fx->y, fx->x, 4); }
static lutmm_status to_context_null_dst(bad_fixture *fx) { return lutmm_copy_to_context(fx->ctx, NULL, fx->x, 4); }
static lutmm_status to_context_null_src(bad_fixture *fx) { return lutmm_copy_to_context(fx->ctx, fx->y, NULL, 4); }
static lutmm_status to_context_zero_bytes(bad_fixture *fx) { return lutmm_copy_to_context(fx->ctx, NULL, NULL, 0); }
static lutmm_status to_host_null_ctx(bad_fixture *fx) { return lutmm_copy_to_host(NULL, fx->y, fx->x, 4); }
static lutmm_status to_host_null_dst(bad_fixture *fx) { return lutmm_copy_to_host(fx->ctx, NULL, fx->x, 4); }
static lutmm_status to_host_null_src(bad_fixture *fx) { return lutmm_copy_to_host(fx->ctx, fx->y, NULL, 4); }
static lutmm_status to_host_zero_bytes(bad_fixture *fx) { return lutmm_copy_to_host(fx->ctx, NULL, NULL, 0); }

static const bad_case kCases[] = {
    {"malloc_null_context", malloc_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"malloc_null_output", malloc_null_out, LUTMM_ERR_NULL_POINTER},
    {"malloc_impossible_size", malloc_impossible, LUTMM_ERR_OUT_OF_MEMORY},
    {"free_null_pointers", free_nulls, LUTMM_OK},
    {"copy_to_context_null_context", to_context_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"copy_to_context_null_destination", to_context_null_dst, LUTMM_ERR_NULL_POINTER},
    {"copy_to_context_null_source", to_context_null_src, LUTMM_ERR_NULL_POINTER},
    {"copy_to_context_zero_bytes_nulls", to_context_zero_bytes, LUTMM_OK},
    {"copy_to_host_null_context", to_host_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"copy_to_host_null_destination", to_host_null_dst, LUTMM_ERR_NULL_POINTER},
    {"copy_to_host_null_source", to_host_null_src, LUTMM_ERR_NULL_POINTER},
    {"copy_to_host_zero_bytes_nulls", to_host_zero_bytes, LUTMM_OK},
};

const bad_area bad_memory_area = {"memory", kCases, sizeof kCases / sizeof kCases[0]};
