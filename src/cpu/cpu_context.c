/* Per-context state of the CPU backend: a scratch buffer that grows to the
 * largest gemm seen, so repeated calls do not allocate. */
#include <omp.h>
#include <stdlib.h>

#include "cpu_backend.h"

typedef struct cpu_state {
  void *buffer;
  size_t capacity;
} cpu_state;

int64_t cpu_env_int(const char *name, int64_t fallback) {
  const char *env = getenv(name);
  return env == NULL || env[0] == '\0' ? fallback : (int64_t)strtoll(env, NULL, 10);
}

int cpu_threads(const lutmm_context *ctx) { return ctx->num_threads > 0 ? ctx->num_threads : omp_get_max_threads(); }

void *cpu_workspace(lutmm_context *ctx, size_t bytes) {
  cpu_state *s = ctx->backend_state;
  if (s->capacity >= bytes && s->buffer != NULL) return s->buffer;
  free(s->buffer);
  s->capacity = 0;
  const size_t rounded = (bytes + 63) / 64 * 64;
  s->buffer = rounded < bytes ? NULL : aligned_alloc(64, rounded == 0 ? 64 : rounded);
  if (s->buffer != NULL) s->capacity = rounded;
  return s->buffer;
}

lutmm_status cpu_workspace_floats(lutmm_context *ctx, const size_t factors[6], float **out) {
  size_t total = 0;
  for (int i = 0; i < 6; i += 2) {
    size_t count;
    lutmm_status st = lutmm_checked_mul(factors[i], factors[i + 1], &count);
    if (st != LUTMM_OK) return st;
    if (count > SIZE_MAX - total) return LUTMM_ERR_OVERFLOW;
    total += count;
  }
  if (total > SIZE_MAX / sizeof(float)) return LUTMM_ERR_OVERFLOW;
  *out = cpu_workspace(ctx, total * sizeof(float));
  return *out == NULL ? LUTMM_ERR_OUT_OF_MEMORY : LUTMM_OK;
}

lutmm_status cpu_context_init(lutmm_context *ctx) {
  cpu_state *s = calloc(1, sizeof *s);
  if (s == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  ctx->backend_state = s;
  return LUTMM_OK;
}

void cpu_context_fini(lutmm_context *ctx) {
  cpu_state *s = ctx->backend_state;
  if (s != NULL) free(s->buffer);
  free(s);
  ctx->backend_state = NULL;
}
