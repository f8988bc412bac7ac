/* Skinny GEMM kernels (M <= 32, 1..4-bit codes) for f16 activations. */
#include "cuda_ops.h"
#include "skinny_launch.cuh"

extern "C" cudaError_t lutmm_cuda_launch_skinny_f16(cudaStream_t stream, const lutmm_cuda_gemm_params *p) {
  return lutmm_kernels::skinny::launch<__half>(stream, p);
}

extern "C" cudaError_t lutmm_cuda_skinny_allow_smem_f16(size_t limit) {
  return lutmm_kernels::skinny::allow_smem<__half>(limit);
}
