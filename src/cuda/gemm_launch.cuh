/* Picks the GEMM kernel instantiation for a configuration and launches it.
 * Included once per compute dtype (gemm_f16.cu, gemm_bf16.cu) so the two
 * sets of instantiations compile in parallel. */
#ifndef LUTMM_CUDA_GEMM_LAUNCH_CUH
#define LUTMM_CUDA_GEMM_LAUNCH_CUH

#include "gemm_kernel.cuh"

namespace lutmm_kernels {

/* Codes of 1..4 bits reach this kernel only where the skinny kernel does
 * not pay or does not fit (cuda_gemm.c), always at MF = 4. Wider codes use
 * the generic path at every MF. */
template <typename T>
const void *kernel_for(int mf, int bits) {
  switch (bits) {
    case 1: return (const void *)gemm_kernel<T, 4, 1>;
    case 2: return (const void *)gemm_kernel<T, 4, 2>;
    case 3: return (const void *)gemm_kernel<T, 4, 3>;
    case 4: return (const void *)gemm_kernel<T, 4, 4>;
    default:
      return mf == 1 ? (const void *)gemm_kernel<T, 1, 0>
                     : mf == 2 ? (const void *)gemm_kernel<T, 2, 0> : (const void *)gemm_kernel<T, 4, 0>;
  }
}

template <typename T>
cudaError_t launch(cudaStream_t stream, const lutmm_cuda_gemm_params *p, size_t smem) {
  void *args[] = {(void *)p};
  return cudaLaunchKernel(kernel_for<T>(p->mf, p->bits), dim3((unsigned)p->grid), dim3(LUTMM_CUDA_THREADS), args,
                          smem, stream);
}

template <typename T>
cudaError_t allow_smem(size_t bytes) {
  const int mfs[3] = {1, 2, 4};
  for (int i = 0; i < 3; i++)
    for (int bits = 0; bits <= 4; bits++) {
      if (bits > 0 && mfs[i] != 4) continue;
      cudaError_t err =
          cudaFuncSetAttribute(kernel_for<T>(mfs[i], bits), cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
      if (err != cudaSuccess) return err;
    }
  return cudaSuccess;
}

}  // namespace lutmm_kernels

#endif
