/* Host side of the format operations on a CUDA context: tables, quantize,
 * pack, unpack, dequantize. Each queues its kernels on the context's stream;
 * quantize and pack then wait for the device because their status depends
 * on what the kernels found. */
#include <string.h>

#include "cuda_ops.h"
#include "cuda_state.h"
#include "numeric.h"
#include "quant_rule.h"
#include "tables.h"

lutmm_status lutmm_cuda_table_build(lutmm_context *ctx, lutmm_table_kind kind, int bits, float *table) {
  return lutmm_cuda_status(lutmm_cuda_launch_tables(lutmm_cuda_state_of(ctx)->stream, (int)kind, bits, table));
}

/* Waits for the queued kernels and reads the two error flags back. */
static lutmm_status read_flags(lutmm_cuda_state *s, int flags[2]) {
  cudaError_t err = cudaMemcpyAsync(flags, s->flags, 2 * sizeof(int), cudaMemcpyDeviceToHost, s->stream);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s->stream);
  return lutmm_cuda_status(err);
}

static cudaError_t clear_flags(lutmm_cuda_state *s) {
  return cudaMemsetAsync(s->flags, 0, 2 * sizeof(int), s->stream);
}

lutmm_status lutmm_cuda_quantize(lutmm_context *ctx, const lutmm_quant_params *p, const lutmm_geometry *g,
                                 const float *host_table, const float *table, const float *w, uint8_t *codes,
                                 void *scales) {
  (void)table;
  lutmm_cuda_state *s = lutmm_cuda_state_of(ctx);
  lutmm_cuda_quant_args a;
  memset(&a, 0, sizeof a);
  const int size = 1 << p->bits;
  for (int i = 0; i + 1 < size; i++) a.midpoints[i] = lutmm_midpoint(host_table[i], host_table[i + 1]);
  a.num_midpoints = size - 1;
  a.table_max = lutmm_table_max_magnitude(host_table, size);
  a.scale_dtype = (int)p->scale_dtype;
  a.k = p->k;
  a.n = p->n;
  a.group_size = g->group_size;
  a.num_groups = g->num_groups;
  cudaError_t err = clear_flags(s);
  if (err == cudaSuccess) err = lutmm_cuda_launch_quantize(s->stream, &a, w, codes, scales, s->flags);
  int flags[2] = {0, 0};
  lutmm_status st = lutmm_cuda_status(err);
  if (st == LUTMM_OK) st = read_flags(s, flags);
  if (st != LUTMM_OK) return st;
  if (flags[0]) return LUTMM_ERR_NON_FINITE;
  return flags[1] ? LUTMM_ERR_SCALE_OVERFLOW : LUTMM_OK;
}

/* Copies the G×n user scales into the zero-padded scale_rows×n_pad array. */
static cudaError_t copy_scales_in(cudaStream_t stream, const lutmm_weights *w, const void *scales) {
  const size_t elem = lutmm_dtype_size(w->params.scale_dtype);
  cudaError_t err = cudaMemsetAsync(w->scales, 0, w->geom.scale_bytes, stream);
  if (err != cudaSuccess) return err;
  return cudaMemcpy2DAsync(w->scales, (size_t)w->geom.n_pad * elem, scales, (size_t)w->params.n * elem,
                           (size_t)w->params.n * elem, (size_t)w->geom.num_groups, cudaMemcpyDeviceToDevice, stream);
}

lutmm_status lutmm_cuda_pack(lutmm_context *ctx, const uint8_t *codes, const void *scales, lutmm_weights *w) {
  lutmm_cuda_state *s = lutmm_cuda_state_of(ctx);
  cudaError_t err = clear_flags(s);
  if (err == cudaSuccess) err = lutmm_cuda_launch_pack_check(s->stream, w, codes, scales, s->flags);
  int flags[2] = {0, 0};
  lutmm_status st = lutmm_cuda_status(err);
  if (st == LUTMM_OK) st = read_flags(s, flags);
  if (st != LUTMM_OK) return st;
  if (flags[0]) return LUTMM_ERR_INVALID_ARGUMENT;
  if (flags[1]) return LUTMM_ERR_NON_FINITE;
  err = lutmm_cuda_launch_pack(s->stream, w, codes);
  if (err == cudaSuccess) err = copy_scales_in(s->stream, w, scales);
  return lutmm_cuda_status(err);
}

lutmm_status lutmm_cuda_unpack(lutmm_context *ctx, const lutmm_weights *w, uint8_t *codes, void *scales) {
  cudaStream_t stream = lutmm_cuda_state_of(ctx)->stream;
  cudaError_t err = cudaSuccess;
  if (codes != NULL) err = lutmm_cuda_launch_unpack(stream, w, codes);
  if (err == cudaSuccess && scales != NULL) {
    const size_t elem = lutmm_dtype_size(w->params.scale_dtype);
    err = cudaMemcpy2DAsync(scales, (size_t)w->params.n * elem, w->scales, (size_t)w->geom.n_pad * elem,
                            (size_t)w->params.n * elem, (size_t)w->geom.num_groups, cudaMemcpyDeviceToDevice,
                            stream);
  }
  return lutmm_cuda_status(err);
}

lutmm_status lutmm_cuda_dequantize(lutmm_context *ctx, const lutmm_weights *w, lutmm_dtype dtype, void *w_hat) {
  return lutmm_cuda_status(lutmm_cuda_launch_dequantize(lutmm_cuda_state_of(ctx)->stream, w, (int)dtype, w_hat));
}
