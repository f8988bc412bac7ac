/* Picks the skinny kernel instantiation (X rows in m8 blocks, code width)
 * and launches it. Included once per compute dtype (skinny_f16.cu,
 * skinny_bf16.cu). */
#ifndef LUTMM_CUDA_SKINNY_LAUNCH_CUH
#define LUTMM_CUDA_SKINNY_LAUNCH_CUH

#include "skinny_kernel.cuh"

namespace lutmm_kernels {
namespace skinny {

template <typename T, int MB, bool ONE_ROW>
const void *kernel_for_bits(int bits) {
  switch (bits) {
    case 1: return (const void *)skinny_kernel<T, MB, 1, ONE_ROW>;
    case 2: return (const void *)skinny_kernel<T, MB, 2, ONE_ROW>;
    case 3: return (const void *)skinny_kernel<T, MB, 3, ONE_ROW>;
    case 4: return (const void *)skinny_kernel<T, MB, 4, ONE_ROW>;
    case 5: return (const void *)skinny_kernel<T, MB, 5, ONE_ROW>;
    case 6: return (const void *)skinny_kernel<T, MB, 6, ONE_ROW>;
    case 7: return (const void *)skinny_kernel<T, MB, 7, ONE_ROW>;
    default: return (const void *)skinny_kernel<T, MB, 8, ONE_ROW>;
  }
}

/* ONE_ROW: every atom lies in one scale group (the usual group sizes, 64
 * and up), the instantiation without per-slab scale changes. */
template <typename T, bool ONE_ROW>
const void *kernel_for_rows(int mb, int bits) {
  switch (mb) {
    case 1: return kernel_for_bits<T, 1, ONE_ROW>(bits);
    case 2: return kernel_for_bits<T, 2, ONE_ROW>(bits);
    case 4: return kernel_for_bits<T, 4, ONE_ROW>(bits);
    default:
      /* 64 rows only with one-row scales: with per-slab scales those kernels
       * spill 0.3-0.5 KiB at 255 registers, so the planner takes 32 rows. */
      if constexpr (ONE_ROW) return kernel_for_bits<T, 8, true>(bits);
      else return nullptr;
  }
}

template <typename T>
const void *kernel_for(int mb, int bits, int one_row) {
  return one_row ? kernel_for_rows<T, true>(mb, bits) : kernel_for_rows<T, false>(mb, bits);
}

/* `smem_base`: the shared-window address where dynamic shared memory starts. */
template <typename T>
cudaError_t launch(cudaStream_t stream, const lutmm_cuda_gemm_params *p, uint32_t smem_base) {
  void *args[] = {(void *)p};
  return cudaLaunchKernel(kernel_for<T>(p->mb, p->bits, p->atom_one_group), dim3((unsigned)p->grid),
                          dim3(32 * (unsigned)lutmm_skinny_warps(p->mb, p->bits)), args,
                          lutmm_skinny_smem_bytes(smem_base, p->bits, p->mb, p->atom_one_group), stream);
}

/* Kernels needing more than `limit` bytes stay unconfigured: the planner
 * never picks them on such a device. */
template <typename T>
cudaError_t allow_smem(size_t limit, uint32_t smem_base) {
  const int mbs[4] = {1, 2, 4, 8};
  for (int i = 0; i < 4; i++)
    for (int bits = 1; bits <= 8; bits++)
      for (int one_row = 0; one_row < 2; one_row++) {
        if (mbs[i] > lutmm_skinny_max_mb(one_row)) continue;
        const size_t bytes = lutmm_skinny_smem_bytes(smem_base, bits, mbs[i], one_row);
        if (bytes > limit) continue;
        cudaError_t err = cudaFuncSetAttribute(kernel_for<T>(mbs[i], bits, one_row),
                                               cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (err != cudaSuccess) return err;
      }
  return cudaSuccess;
}

}  // namespace skinny
}  // namespace lutmm_kernels

#endif
