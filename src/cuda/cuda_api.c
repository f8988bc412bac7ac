/* The CUDA-only entry points of lutmm_cuda.h. */
#include "lutmm_cuda.h"

#include "backend.h"
#include "cuda_state.h"
#include "gemm_params.h"

/* The state of a CUDA context, or NULL for any other backend. */
static lutmm_cuda_state *cuda_state(const lutmm_context *ctx) {
  return ctx->backend->kind == LUTMM_BACKEND_CUDA ? lutmm_cuda_state_of(ctx) : NULL;
}

lutmm_status lutmm_cuda_set_stream(lutmm_context *ctx, cudaStream_t stream) {
  if (ctx == NULL) return LUTMM_ERR_NULL_POINTER;
  lutmm_cuda_state *s = cuda_state(ctx);
  if (s == NULL) return LUTMM_ERR_BACKEND_MISMATCH;
  s->stream = stream;
  return LUTMM_OK;
}

lutmm_status lutmm_cuda_get_stream(const lutmm_context *ctx, cudaStream_t *stream) {
  if (ctx == NULL || stream == NULL) return LUTMM_ERR_NULL_POINTER;
  const lutmm_cuda_state *s = cuda_state(ctx);
  if (s == NULL) return LUTMM_ERR_BACKEND_MISMATCH;
  *stream = s->stream;
  return LUTMM_OK;
}

lutmm_status lutmm_cuda_workspace_size(const lutmm_context *ctx, size_t *bytes) {
  if (ctx == NULL || bytes == NULL) return LUTMM_ERR_NULL_POINTER;
  const lutmm_cuda_state *s = cuda_state(ctx);
  if (s == NULL) return LUTMM_ERR_BACKEND_MISMATCH;
  *bytes = s->own_workspace_bytes;
  return LUTMM_OK;
}

lutmm_status lutmm_cuda_set_workspace(lutmm_context *ctx, void *workspace, size_t bytes) {
  if (ctx == NULL || (workspace == NULL && bytes != 0)) return LUTMM_ERR_NULL_POINTER;
  lutmm_cuda_state *s = cuda_state(ctx);
  if (s == NULL) return LUTMM_ERR_BACKEND_MISMATCH;
  if ((uintptr_t)workspace % 16 != 0) return LUTMM_ERR_INVALID_ARGUMENT;
  s->workspace = workspace == NULL ? s->own_workspace : (float *)workspace;
  s->workspace_bytes = workspace == NULL ? s->own_workspace_bytes : bytes;
  return LUTMM_OK;
}

lutmm_status lutmm_cuda_set_deterministic(lutmm_context *ctx, int deterministic) {
  if (ctx == NULL) return LUTMM_ERR_NULL_POINTER;
  lutmm_cuda_state *s = cuda_state(ctx);
  if (s == NULL) return LUTMM_ERR_BACKEND_MISMATCH;
  if (deterministic != 0 && deterministic != 1) return LUTMM_ERR_INVALID_ARGUMENT;
  s->deterministic = deterministic;
  return LUTMM_OK;
}

lutmm_status lutmm_cuda_get_deterministic(const lutmm_context *ctx, int *deterministic) {
  if (ctx == NULL || deterministic == NULL) return LUTMM_ERR_NULL_POINTER;
  const lutmm_cuda_state *s = cuda_state(ctx);
  if (s == NULL) return LUTMM_ERR_BACKEND_MISMATCH;
  *deterministic = s->deterministic;
  return LUTMM_OK;
}
