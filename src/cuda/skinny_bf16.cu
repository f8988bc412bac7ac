/* Skinny GEMM kernels (up to 64 rows per launch, 1..8-bit codes) for bf16 activations. */
#include "cuda_ops.h"
#include "skinny_launch.cuh"

extern "C" cudaError_t lutmm_cuda_launch_skinny_bf16(cudaStream_t stream, const lutmm_cuda_gemm_params *p,
                                                  uint32_t smem_base) {
  return lutmm_kernels::skinny::launch<__nv_bfloat16>(stream, p, smem_base);
}

extern "C" cudaError_t lutmm_cuda_skinny_allow_smem_bf16(size_t limit, uint32_t smem_base) {
  return lutmm_kernels::skinny::allow_smem<__nv_bfloat16>(limit, smem_base);
}

#if LUTMM_STAMPS
extern "C" cudaError_t lutmm_cuda_column_stamps_bf16(unsigned long long *words) {
  return lutmm_kernels::read_stamps(words);
}
#endif
