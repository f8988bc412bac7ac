/* GEMM kernels for fp16 activations. */
#include "cuda_ops.h"
#include "gemm_launch.cuh"

extern "C" cudaError_t lutmm_cuda_launch_gemm_f16(cudaStream_t stream, const lutmm_cuda_gemm_params *p,
                                                  size_t smem) {
  return lutmm_kernels::launch<__half>(stream, p, smem);
}

extern "C" cudaError_t lutmm_cuda_gemm_allow_smem_f16(size_t bytes) { return lutmm_kernels::allow_smem<__half>(bytes); }
