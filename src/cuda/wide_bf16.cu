/* Wide GEMM kernels (Hopper wgmma, codes of 1..8 bits) for bf16 activations. */
#include "cuda_ops.h"
#include "wide_kernel.cuh"

extern "C" cudaError_t lutmm_cuda_launch_wide_bf16(cudaStream_t stream, const lutmm_cuda_gemm_params *p,
                                                   size_t smem) {
  return lutmm_kernels::wide::launch<__nv_bfloat16>(stream, p, smem);
}

extern "C" cudaError_t lutmm_cuda_wide_allow_smem_bf16(size_t limit) {
  return lutmm_kernels::wide::allow_smem<__nv_bfloat16>(limit);
}

#if LUTMM_STAMPS
/* This file's stamp words are the wide kernel's (stamps.cuh). */
extern "C" cudaError_t lutmm_cuda_wide_stamps_bf16(unsigned long long *words) {
  return lutmm_kernels::read_stamps(words);
}
#endif
