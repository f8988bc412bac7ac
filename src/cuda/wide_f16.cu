/* Wide GEMM kernels (Hopper wgmma, codes of 1..8 bits) for f16 activations,
 * and the probe that says whether the device runs their sm_90a code. */
#include "cuda_ops.h"
#include "wide_kernel.cuh"

extern "C" cudaError_t lutmm_cuda_launch_wide_f16(cudaStream_t stream, const lutmm_cuda_gemm_params *p, size_t smem) {
  return lutmm_kernels::wide::launch<__half>(stream, p, smem);
}

extern "C" cudaError_t lutmm_cuda_wide_allow_smem_f16(size_t limit) {
  return lutmm_kernels::wide::allow_smem<__half>(limit);
}

#if LUTMM_STAMPS
/* This file's stamp words are the wide kernel's (stamps.cuh). */
extern "C" cudaError_t lutmm_cuda_wide_stamps_f16(unsigned long long *words) {
  return lutmm_kernels::read_stamps(words);
}
#endif

extern "C" cudaError_t lutmm_cuda_wide_max_clusters(int ways, size_t smem, int *count) {
  return lutmm_kernels::wide::max_clusters<__half>(ways, smem, count);
}

/* 1 where the device runs this file's sm_90a code, else 0 (the other
 * targets' wide kernels would trap). */
__global__ void lutmm_wide_probe_kernel(int *out) { *out = LUTMM_HAVE_WGMMA; }

extern "C" cudaError_t lutmm_cuda_wide_probe(cudaStream_t stream, int *flag) {
  lutmm_wide_probe_kernel<<<1, 1, 0, stream>>>(flag);
  return cudaGetLastError();
}
