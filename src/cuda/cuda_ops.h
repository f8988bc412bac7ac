/* The CUDA backend's operations (the .c files here) and the kernel launchers they
 * call (the .cu files, C linkage). Launchers queue work on `stream` and
 * return the launch status without synchronizing. */
#ifndef LUTMM_CUDA_OPS_H
#define LUTMM_CUDA_OPS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "gemm_params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- operations (C) */
lutmm_status lutmm_cuda_context_init(lutmm_context *ctx);
void lutmm_cuda_context_fini(lutmm_context *ctx);
lutmm_status lutmm_cuda_mem_alloc(lutmm_context *ctx, size_t bytes, void **ptr);
void lutmm_cuda_mem_free(lutmm_context *ctx, void *ptr);
lutmm_status lutmm_cuda_copy_to_host(lutmm_context *ctx, void *host_dst, const void *src, size_t bytes);
lutmm_status lutmm_cuda_copy_from_host(lutmm_context *ctx, void *dst, const void *host_src, size_t bytes);
lutmm_status lutmm_cuda_weights_alloc(lutmm_context *ctx, lutmm_weights *w);
void lutmm_cuda_weights_free(lutmm_weights *w);
lutmm_status lutmm_cuda_table_build(lutmm_context *ctx, lutmm_table_kind kind, int bits, float *table);
lutmm_status lutmm_cuda_quantize(lutmm_context *ctx, const lutmm_quant_params *p, const lutmm_geometry *g,
                                 const float *host_table, const float *table, const float *w, uint8_t *codes,
                                 void *scales);
lutmm_status lutmm_cuda_pack(lutmm_context *ctx, const uint8_t *codes, const void *scales, lutmm_weights *w);
lutmm_status lutmm_cuda_unpack(lutmm_context *ctx, const lutmm_weights *w, uint8_t *codes, void *scales);
lutmm_status lutmm_cuda_dequantize(lutmm_context *ctx, const lutmm_weights *w, lutmm_dtype dtype, void *w_hat);
int lutmm_cuda_supports_gemm(const lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args);
lutmm_status lutmm_cuda_gemm(lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args);

/* ---- launchers (CUDA) */
cudaError_t lutmm_cuda_launch_tables(cudaStream_t stream, int kind, int bits, float *table);

/* Midpoints and the table's largest magnitude come from the host. */
typedef struct lutmm_cuda_quant_args {
  float midpoints[256];
  int num_midpoints;
  float table_max;
  int scale_dtype;
  int64_t k, n, group_size, num_groups;
} lutmm_cuda_quant_args;
cudaError_t lutmm_cuda_launch_quantize(cudaStream_t stream, const lutmm_cuda_quant_args *a, const float *w,
                                       uint8_t *codes, void *scales, int *flags);

/* flags[0] set when a code is >= 2^bits, flags[1] when a scale is not finite. */
cudaError_t lutmm_cuda_launch_pack_check(cudaStream_t stream, const lutmm_weights *w, const uint8_t *codes,
                                         const void *scales, int *flags);
cudaError_t lutmm_cuda_launch_pack(cudaStream_t stream, const lutmm_weights *w, const uint8_t *codes);
cudaError_t lutmm_cuda_launch_unpack(cudaStream_t stream, const lutmm_weights *w, uint8_t *codes);
cudaError_t lutmm_cuda_launch_dequantize(cudaStream_t stream, const lutmm_weights *w, int dtype, void *w_hat);

/* The GEMM main kernel for F16 (gemm_f16.cu) or BF16 (gemm_bf16.cu)
 * activations, then the ordered Stream-K fixup (gemm_fixup.cu), with
 * `overlap` launched as the main kernel's programmatic dependent (the wide
 * kernel on Hopper: grid_dependency.cuh). */
cudaError_t lutmm_cuda_launch_gemm_f16(cudaStream_t stream, const lutmm_cuda_gemm_params *p, size_t smem);
cudaError_t lutmm_cuda_launch_gemm_bf16(cudaStream_t stream, const lutmm_cuda_gemm_params *p, size_t smem);
cudaError_t lutmm_cuda_launch_fixup(cudaStream_t stream, const lutmm_cuda_gemm_params *p, int overlap);
/* The skinny kernel (up to 64 rows of X per launch, 1..8-bit codes),
 * skinny_f16.cu / skinny_bf16.cu: its own shared-memory size
 * (lutmm_skinny_smem_bytes, from the window address `smem_base` where
 * dynamic shared memory starts) and in-kernel fixup. */
cudaError_t lutmm_cuda_launch_skinny_f16(cudaStream_t stream, const lutmm_cuda_gemm_params *p, uint32_t smem_base);
cudaError_t lutmm_cuda_launch_skinny_bf16(cudaStream_t stream, const lutmm_cuda_gemm_params *p, uint32_t smem_base);
cudaError_t lutmm_cuda_skinny_allow_smem_f16(size_t limit, uint32_t smem_base);
cudaError_t lutmm_cuda_skinny_allow_smem_bf16(size_t limit, uint32_t smem_base);
/* Clusters of `ways` skinny blocks the device holds at once (skinny_f16.cu;
 * the bf16 kernels' blocks are the same size). */
cudaError_t lutmm_cuda_skinny_max_clusters(int ways, uint32_t smem_base, int *count);
/* The wide kernel (Hopper wgmma, wide_f16.cu / wide_bf16.cu), then the
 * ordered fixup when some tile's k range is split. lutmm_cuda_wide_probe
 * writes 1 to *flag when the device runs that file's sm_90a code, else 0. */
cudaError_t lutmm_cuda_launch_wide_f16(cudaStream_t stream, const lutmm_cuda_gemm_params *p, size_t smem);
cudaError_t lutmm_cuda_launch_wide_bf16(cudaStream_t stream, const lutmm_cuda_gemm_params *p, size_t smem);
cudaError_t lutmm_cuda_wide_allow_smem_f16(size_t limit);
cudaError_t lutmm_cuda_wide_allow_smem_bf16(size_t limit);
cudaError_t lutmm_cuda_wide_probe(cudaStream_t stream, int *flag);
/* Clusters of `ways` wide-kernel blocks of `smem` bytes the device holds at
 * once (cudaOccupancyMaxActiveClusters). */
cudaError_t lutmm_cuda_wide_max_clusters(int ways, size_t smem, int *count);
/* The driver's tensor-map encoder, or NULL (cuda_tensor_map.c); and X's
 * tensor map for wide tiles of tile_m rows: 1 when encoded, 0 when X or
 * the driver does not allow one. */
void *lutmm_cuda_find_tensor_map_encoder(void);
int lutmm_cuda_x_tensor_map(void *encoder, const void *x, int64_t m, int64_t k, int tile_m, lutmm_tensor_map *map);
/* Lets every GEMM kernel of one dtype use up to `bytes` of dynamic shared memory. */
cudaError_t lutmm_cuda_gemm_allow_smem_f16(size_t bytes);
cudaError_t lutmm_cuda_gemm_allow_smem_bf16(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
