/* The small parts of the API: version, status names, parameter checks,
 * context queries and context memory. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"

static void version(void) {
  CHECK_EQ_INT(lutmm_version(), LUTMM_VERSION);
  CHECK_EQ_INT(LUTMM_VERSION, LUTMM_VERSION_MAJOR * 10000 + LUTMM_VERSION_MINOR * 100 + LUTMM_VERSION_PATCH);
}

/* Every status has its own name, spelled as the enum constant. */
static void status_strings(void) {
  static const char *const kNames[] = {
      "LUTMM_OK", "LUTMM_ERR_NULL_POINTER", "LUTMM_ERR_INVALID_ARGUMENT", "LUTMM_ERR_INVALID_BITS",
      "LUTMM_ERR_INVALID_GROUP_SIZE", "LUTMM_ERR_INVALID_SHAPE", "LUTMM_ERR_OVERFLOW", "LUTMM_ERR_NON_FINITE",
      "LUTMM_ERR_TABLE_NOT_ASCENDING", "LUTMM_ERR_TABLE_ALL_ZERO", "LUTMM_ERR_SCALE_OVERFLOW",
      "LUTMM_ERR_OUT_OF_MEMORY", "LUTMM_ERR_UNSUPPORTED", "LUTMM_ERR_BACKEND_UNAVAILABLE",
      "LUTMM_ERR_BACKEND_MISMATCH", "LUTMM_ERR_CORRUPT_DATA", "LUTMM_ERR_BUFFER_TOO_SMALL", "LUTMM_ERR_DEVICE"};
  for (int s = 0; s < (int)(sizeof kNames / sizeof kNames[0]); s++) {
    const char *name = lutmm_status_string((lutmm_status)s);
    if (name == NULL || strcmp(name, kNames[s]) != 0)
      unit_fail(__FILE__, __LINE__, "status %d is named %s, expected %s", s, name ? name : "(null)", kNames[s]);
  }
  CHECK(strcmp(lutmm_status_string((lutmm_status)18), "LUTMM_ERR_UNKNOWN") == 0);
}

/* G = k / group, or 1 for whole columns, for the shapes the contract allows. */
static void params_check(void) {
  const struct { lutmm_quant_params p; int64_t groups; } cases[] = {
      {{4, 4096, 4096, 128, LUTMM_DTYPE_F16}, 32}, {{1, 16, 1, 16, LUTMM_DTYPE_F32}, 1},
      {{8, 48, 3, 48, LUTMM_DTYPE_BF16}, 1},       {{3, 96, 7, 32, LUTMM_DTYPE_F16}, 3},
      {{2, 5, 9, 0, LUTMM_DTYPE_F32}, 1},          {{7, 1, 1, 0, LUTMM_DTYPE_BF16}, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t groups = -1;
    CHECK_OK(lutmm_quant_params_check(&cases[i].p, &groups));
    CHECK_EQ_INT(groups, cases[i].groups);
  }
}

static void context_queries(void) {
  lutmm_context *ctx = unit_context();
  lutmm_backend kind = LUTMM_BACKEND_AUTO;
  CHECK_OK(lutmm_context_backend(ctx, &kind));
  CHECK_EQ_INT(kind, LUTMM_BACKEND_REFERENCE);
  for (int t = 0; t < 9; t++) CHECK_OK(lutmm_context_set_num_threads(ctx, t));
  lutmm_context_destroy(ctx);
  /* AUTO never reports AUTO. */
  unsetenv("LUTMM_BACKEND");
  CHECK_OK(lutmm_context_create(LUTMM_BACKEND_AUTO, &ctx));
  kind = LUTMM_BACKEND_AUTO;
  CHECK_OK(lutmm_context_backend(ctx, &kind));
  CHECK(kind == LUTMM_BACKEND_REFERENCE || kind == LUTMM_BACKEND_CPU || kind == LUTMM_BACKEND_CUDA);
  lutmm_context_destroy(ctx);
}

/* malloc, copies both ways, free; 0-byte allocations are valid. */
static void context_memory(void) {
  lutmm_context *ctx = unit_context();
  uint8_t src[100], back[100];
  for (int i = 0; i < 100; i++) src[i] = (uint8_t)(i * 7 + 1);
  void *p = NULL, *empty = NULL;
  CHECK_OK(lutmm_malloc(ctx, sizeof src, &p));
  CHECK_OK(lutmm_malloc(ctx, 0, &empty));
  if (p != NULL) {
    CHECK_OK(lutmm_copy_to_context(ctx, p, src, sizeof src));
    memset(back, 0, sizeof back);
    CHECK_OK(lutmm_copy_to_host(ctx, back, p, sizeof back));
    CHECK(memcmp(src, back, sizeof src) == 0);
  }
  lutmm_free(ctx, p);
  lutmm_free(ctx, empty);
  lutmm_context_destroy(ctx);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"version", version}, {"status_strings", status_strings}, {"params_check", params_check},
      {"context_queries", context_queries}, {"context_memory", context_memory},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
