/* Skinny GEMM kernels (up to 64 rows per launch, 1..8-bit codes) for f16 activations. */
#include "cuda_ops.h"
#include "skinny_launch.cuh"

extern "C" cudaError_t lutmm_cuda_launch_skinny_f16(cudaStream_t stream, const lutmm_cuda_gemm_params *p,
                                                  uint32_t smem_base) {
  return lutmm_kernels::skinny::launch<__half>(stream, p, smem_base);
}

extern "C" cudaError_t lutmm_cuda_skinny_allow_smem_f16(size_t limit, uint32_t smem_base) {
  return lutmm_kernels::skinny::allow_smem<__half>(limit, smem_base);
}

extern "C" cudaError_t lutmm_cuda_skinny_max_clusters(int ways, uint32_t smem_base, int *count) {
  return lutmm_kernels::skinny::max_clusters<__half>(ways, smem_base, count);
}

#if LUTMM_STAMPS
extern "C" cudaError_t lutmm_cuda_column_stamps_f16(unsigned long long *words) {
  return lutmm_kernels::read_stamps(words);
}
#endif
