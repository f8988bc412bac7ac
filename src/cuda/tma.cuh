/* Hopper's tensor memory accelerator (TMA) for the wide kernel: one thread
 * asks for a whole box of a tensor (a tensor map made on the host,
 * cuda_tensor_map.c), or a run of contiguous bytes (a bulk copy), to be
 * copied into shared memory, and the copy engine signals the stage's
 * mbarrier with the bytes it wrote. The copies bypass
 * the registers and the load/store pipe that the MMA warps' table lookups
 * use. Outside sm_90a code the operation traps, as the warpgroup MMAs do
 * (wgmma.cuh). */
#ifndef LUTMM_CUDA_TMA_CUH
#define LUTMM_CUDA_TMA_CUH

#include <stdint.h>

#include "wgmma.cuh"

namespace lutmm_kernels {

#if LUTMM_HAVE_WGMMA
/* The box at coordinates (c0 innermost, c1) of `map` (a __grid_constant__
 * parameter's address) into shared memory at `dst`; its bytes complete
 * `bar`'s transaction count. */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const void *map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
      "[%4];\n" ::"r"(dst),
      "l"(map), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

/* `bytes` contiguous bytes (a multiple of 16, both ends 16-byte aligned)
 * from global `src` into shared memory at `dst` by the copy engine, one
 * instruction of one thread; like tma_load_2d's box, the bytes complete
 * `bar`'s transaction count. */
__device__ __forceinline__ void bulk_load(uint32_t dst, const void *src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
#else
__device__ __forceinline__ void tma_load_2d(uint32_t, const void *, uint32_t, int, int) { __trap(); }
__device__ __forceinline__ void bulk_load(uint32_t, const void *, uint32_t, uint32_t) { __trap(); }
#endif

}  // namespace lutmm_kernels

#endif
