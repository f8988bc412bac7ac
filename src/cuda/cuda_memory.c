/* Context memory on a CUDA context: cudaMalloc'd buffers, copies queued on
 * the context's stream, and the device storage of weights objects. */
#include "cuda_ops.h"
#include "cuda_state.h"

lutmm_status lutmm_cuda_mem_alloc(lutmm_context *ctx, size_t bytes, void **ptr) {
  (void)ctx;
  void *p = NULL;
  lutmm_status st = lutmm_cuda_status(cudaMalloc(&p, bytes == 0 ? 1 : bytes));
  if (st == LUTMM_OK) *ptr = p;
  return st;
}

void lutmm_cuda_mem_free(lutmm_context *ctx, void *ptr) {
  (void)ctx;
  cudaFree(ptr);
}

/* Returns once the bytes are on the host: the caller may read them. */
lutmm_status lutmm_cuda_copy_to_host(lutmm_context *ctx, void *host_dst, const void *src, size_t bytes) {
  cudaStream_t stream = lutmm_cuda_state_of(ctx)->stream;
  cudaError_t err = cudaMemcpyAsync(host_dst, src, bytes, cudaMemcpyDefault, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  return lutmm_cuda_status(err);
}

/* From pageable memory the runtime stages the source before returning, so the
 * caller may reuse it at once; from pinned memory it would not, hence the
 * synchronization (the contract lets the caller free host_src on return). */
lutmm_status lutmm_cuda_copy_from_host(lutmm_context *ctx, void *dst, const void *host_src, size_t bytes) {
  cudaStream_t stream = lutmm_cuda_state_of(ctx)->stream;
  cudaError_t err = cudaMemcpyAsync(dst, host_src, bytes, cudaMemcpyDefault, stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  return lutmm_cuda_status(err);
}

lutmm_status lutmm_cuda_weights_alloc(lutmm_context *ctx, lutmm_weights *w) {
  (void)ctx;
  cudaError_t err = cudaMalloc(&w->planes, w->geom.packed_bytes);
  if (err == cudaSuccess) err = cudaMalloc(&w->scales, w->geom.scale_bytes);
  w->backend_data = NULL;
  return lutmm_cuda_status(err);
}

void lutmm_cuda_weights_free(lutmm_weights *w) {
  cudaFree(w->planes);
  cudaFree(w->scales);
}
