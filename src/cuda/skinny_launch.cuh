/* Picks the skinny kernel instantiation (X rows in m8 blocks, code width)
 * and launches it. Included once per compute dtype (skinny_f16.cu,
 * skinny_bf16.cu). */
#ifndef LUTMM_CUDA_SKINNY_LAUNCH_CUH
#define LUTMM_CUDA_SKINNY_LAUNCH_CUH

#include "column_kernel.cuh"
#include "skinny_kernel.cuh"

namespace lutmm_kernels {
namespace skinny {

/* The W-warp kernel adding cut columns the plan's way (`cut`, never
 * cluster here); NULL where no such kernel exists. */
template <typename T, int MB, int BITS, bool ONE_ROW, int W>
const void *kernel_cutting(cut_path cut) {
  if (cut == cut_path::plain) return (const void *)skinny_kernel<T, MB, BITS, ONE_ROW, W, cut_path::plain>;
  if constexpr (LUTMM_SKINNY_SHARES_REDUCTION(MB))
    if (cut == cut_path::shared) return (const void *)skinny_kernel<T, MB, BITS, ONE_ROW, W, cut_path::shared>;
  if constexpr (LUTMM_SKINNY_HAS_HEAD(MB, BITS, ONE_ROW) && W == LUTMM_SKINNY_WARPS(MB, BITS))
    if (cut == cut_path::head) return (const void *)skinny_kernel<T, MB, BITS, ONE_ROW, W, cut_path::head>;
  return nullptr;
}

/* The kernel with the default warp count, or with 12 where that one exists
 * and the planner chose it (lutmm_skinny_warps_for). */
template <typename T, int MB, int BITS, bool ONE_ROW>
const void *kernel_with_warps(int warps, cut_path cut) {
  if constexpr (LUTMM_SKINNY_HAS_MORE_WARPS(MB, BITS, ONE_ROW))
    if (warps == LUTMM_SKINNY_MORE_WARPS)
      return kernel_cutting<T, MB, BITS, ONE_ROW, LUTMM_SKINNY_MORE_WARPS>(cut);
  if (warps != LUTMM_SKINNY_WARPS(MB, BITS)) return nullptr;
  return kernel_cutting<T, MB, BITS, ONE_ROW, LUTMM_SKINNY_WARPS(MB, BITS)>(cut);
}

template <typename T, int MB, bool ONE_ROW>
const void *kernel_for_bits(int bits, int warps, cut_path cut) {
  switch (bits) {
    case 1: return kernel_with_warps<T, MB, 1, ONE_ROW>(warps, cut);
    case 2: return kernel_with_warps<T, MB, 2, ONE_ROW>(warps, cut);
    case 3: return kernel_with_warps<T, MB, 3, ONE_ROW>(warps, cut);
    case 4: return kernel_with_warps<T, MB, 4, ONE_ROW>(warps, cut);
    case 5: return kernel_with_warps<T, MB, 5, ONE_ROW>(warps, cut);
    case 6: return kernel_with_warps<T, MB, 6, ONE_ROW>(warps, cut);
    case 7: return kernel_with_warps<T, MB, 7, ONE_ROW>(warps, cut);
    default: return kernel_with_warps<T, MB, 8, ONE_ROW>(warps, cut);
  }
}

/* ONE_ROW: every atom lies in one scale group (the usual group sizes, 64
 * and up), the instantiation without per-slab scale changes. */
template <typename T, bool ONE_ROW>
const void *kernel_for_rows(int mb, int bits, int warps, cut_path cut) {
  switch (mb) {
    case 1: return kernel_for_bits<T, 1, ONE_ROW>(bits, warps, cut);
    case 2: return kernel_for_bits<T, 2, ONE_ROW>(bits, warps, cut);
    case 4: return kernel_for_bits<T, 4, ONE_ROW>(bits, warps, cut);
    default:
      /* 64 rows only with one-row scales: with per-slab scales those kernels
       * spill 0.3-0.5 KiB at 255 registers, so the planner takes 32 rows. */
      if constexpr (ONE_ROW) return kernel_for_bits<T, 8, true>(bits, warps, cut);
      else return nullptr;
  }
}

/* The kernels whose cut columns a cluster adds: M <= 16 (m8 blocks 1 and
 * 2), either scale layout, the default warp count, where a warp's ring
 * holds its partial (LUTMM_SKINNY_CLUSTER_HOLDS; NULL elsewhere). */
template <typename T, int MB, int BITS, bool ONE_ROW>
const void *cluster_kernel() {
  if constexpr (LUTMM_SKINNY_CLUSTER_HOLDS(MB, BITS, ONE_ROW))
    return (const void *)skinny_kernel<T, MB, BITS, ONE_ROW, LUTMM_SKINNY_WARPS(MB, BITS), cut_path::cluster>;
  else return nullptr;
}

template <typename T, int MB>
const void *cluster_kernel(int bits, int one_row) {
  switch (bits) {
    case 1: return one_row ? cluster_kernel<T, MB, 1, true>() : cluster_kernel<T, MB, 1, false>();
    case 2: return one_row ? cluster_kernel<T, MB, 2, true>() : cluster_kernel<T, MB, 2, false>();
    case 3: return one_row ? cluster_kernel<T, MB, 3, true>() : cluster_kernel<T, MB, 3, false>();
    case 4: return one_row ? cluster_kernel<T, MB, 4, true>() : cluster_kernel<T, MB, 4, false>();
    case 5: return one_row ? cluster_kernel<T, MB, 5, true>() : cluster_kernel<T, MB, 5, false>();
    case 6: return one_row ? cluster_kernel<T, MB, 6, true>() : cluster_kernel<T, MB, 6, false>();
    case 7: return one_row ? cluster_kernel<T, MB, 7, true>() : cluster_kernel<T, MB, 7, false>();
    default: return one_row ? cluster_kernel<T, MB, 8, true>() : cluster_kernel<T, MB, 8, false>();
  }
}

template <typename T>
const void *cluster_kernel_for(int mb, int bits, int one_row) {
  return mb == 1 ? cluster_kernel<T, 1>(bits, one_row) : mb == 2 ? cluster_kernel<T, 2>(bits, one_row) : nullptr;
}

template <typename T>
const void *kernel_for(int mb, int bits, int one_row, int warps, cut_path cut) {
  return one_row ? kernel_for_rows<T, true>(mb, bits, warps, cut) : kernel_for_rows<T, false>(mb, bits, warps, cut);
}

/* The column-stream kernel of a code width and X rows (1: X whole; 2 or
 * 4: X carried in the ring; the skinny M block 1 kernel's warps); NULL
 * where LUTMM_COLUMN_KERNEL_EXISTS says there is none. */
template <typename T, int BITS, int ROWS>
const void *column_kernel_for(int one_row) {
  constexpr int W = LUTMM_SKINNY_WARPS(1, BITS);
  if constexpr (LUTMM_COLUMN_KERNEL_EXISTS(BITS, true, ROWS))
    if (one_row) return (const void *)column_kernel<T, BITS, true, W, ROWS>;
  if constexpr (LUTMM_COLUMN_KERNEL_EXISTS(BITS, false, ROWS))
    if (!one_row) return (const void *)column_kernel<T, BITS, false, W, ROWS>;
  return nullptr;
}

template <typename T, int BITS>
const void *column_kernel_for(int one_row, int rows) {
  return rows == 1   ? column_kernel_for<T, BITS, 1>(one_row)
         : rows == 2 ? column_kernel_for<T, BITS, 2>(one_row)
                     : column_kernel_for<T, BITS, 4>(one_row);
}

template <typename T>
const void *column_kernel_for(int bits, int one_row, int rows) {
  switch (bits) {
    case 1: return column_kernel_for<T, 1>(one_row, rows);
    case 2: return column_kernel_for<T, 2>(one_row, rows);
    case 3: return column_kernel_for<T, 3>(one_row, rows);
    case 4: return column_kernel_for<T, 4>(one_row, rows);
    case 5: return column_kernel_for<T, 5>(one_row, rows);
    case 6: return column_kernel_for<T, 6>(one_row, rows);
    case 7: return column_kernel_for<T, 7>(one_row, rows);
    default: return column_kernel_for<T, 8>(one_row, rows);
  }
}

/* The way a plan's launch adds its cut columns (clusters aside). */
inline cut_path cut_path_of(const lutmm_cuda_gemm_params *p) {
  return p->tags_head ? cut_path::head : p->shares_reduction ? cut_path::shared : cut_path::plain;
}

/* A cluster launch: `ways` blocks a cluster, never cooperative. */
template <typename T>
cudaError_t launch_clusters(cudaStream_t stream, const lutmm_cuda_gemm_params *p, size_t smem) {
  const void *kernel = cluster_kernel_for<T>(p->mb, p->bits, p->atom_one_group);
  if (kernel == nullptr || p->warps != lutmm_skinny_warps(p->mb, p->bits)) return cudaErrorInvalidValue;
  const cluster_launch c((unsigned)p->grid, 32 * (unsigned)p->warps, smem, stream, p->cluster_ways);
  void *args[] = {(void *)p};
  return cudaLaunchKernelExC(&c.config, kernel, args);
}

/* `smem_base`: the shared-window address where dynamic shared memory
 * starts. A cooperative launch the device cannot hold at once fails with
 * cudaErrorCooperativeLaunchTooLarge; the caller plans it again as a plain
 * one (launch_skinny_rows). */
template <typename T>
cudaError_t launch(cudaStream_t stream, const lutmm_cuda_gemm_params *p, uint32_t smem_base) {
  const int rows = lutmm_column_rows(p->m, p->k_atoms, p->warps);
  const size_t smem = p->column_stream
                          ? lutmm_column_smem_bytes(smem_base, p->bits, p->atom_one_group, rows, p->warps)
                          : lutmm_skinny_smem_bytes(smem_base, p->bits, p->mb, p->atom_one_group, p->warps);
  if (p->cluster_ways > 1) return launch_clusters<T>(stream, p, smem);
  const void *kernel = p->column_stream ? column_kernel_for<T>(p->bits, p->atom_one_group, rows)
                                        : kernel_for<T>(p->mb, p->bits, p->atom_one_group, p->warps, cut_path_of(p));
  if (kernel == nullptr) return cudaErrorInvalidValue;
  const dim3 grid((unsigned)p->grid), block(32 * (unsigned)p->warps);
  void *args[] = {(void *)p};
  if (p->cooperative) return cudaLaunchCooperativeKernel(kernel, grid, block, args, smem, stream);
  return cudaLaunchKernel(kernel, grid, block, args, smem, stream);
}

/* Kernels needing more than `limit` bytes stay unconfigured: the planner
 * never picks them on such a device. */
template <typename T>
cudaError_t allow_smem(size_t limit, uint32_t smem_base) {
  const int mbs[4] = {1, 2, 4, 8};
  for (int i = 0; i < 4; i++)
    for (int bits = 1; bits <= 8; bits++)
      for (int one_row = 0; one_row < 2; one_row++)
        for (int more = 0; more < 2; more++) {
          if (mbs[i] > lutmm_skinny_max_mb(one_row)) continue;
          if (more && !LUTMM_SKINNY_HAS_MORE_WARPS(mbs[i], bits, one_row)) continue;
          const int warps = more ? LUTMM_SKINNY_MORE_WARPS : lutmm_skinny_warps(mbs[i], bits);
          const size_t bytes = lutmm_skinny_smem_bytes(smem_base, bits, mbs[i], one_row, warps);
          if (bytes > limit) continue;
          for (cut_path cut : {cut_path::plain, cut_path::shared, cut_path::head}) {
            const void *kernel = kernel_for<T>(mbs[i], bits, one_row, warps, cut);
            if (kernel == nullptr) continue; /* no such kernel */
            const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
            if (err != cudaSuccess) return err;
          }
        }
  for (int rows = 1; rows <= LUTMM_COLUMN_MAX_ROWS; rows *= 2) /* the column-stream kernels: M <= 4 */
    for (int bits = 1; bits <= 8; bits++)
      for (int one_row = 0; one_row < 2; one_row++) {
        const size_t bytes = lutmm_column_smem_bytes(smem_base, bits, one_row, rows, lutmm_skinny_warps(1, bits));
        const void *kernel = column_kernel_for<T>(bits, one_row, rows);
        if (bytes > limit || kernel == nullptr) continue;
        const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (err != cudaSuccess) return err;
      }
  for (int mb = 1; mb <= 2; mb++) /* the CLUSTER kernels: M <= 16 */
    for (int bits = 1; bits <= 8; bits++)
      for (int one_row = 0; one_row < 2; one_row++) {
        const size_t bytes = lutmm_skinny_smem_bytes(smem_base, bits, mb, one_row, lutmm_skinny_warps(mb, bits));
        const void *kernel = cluster_kernel_for<T>(mb, bits, one_row);
        if (bytes > limit || kernel == nullptr) continue;
        const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        if (err != cudaSuccess) return err;
        /* Clusters above 8 blocks; a device without clusters may refuse it
         * (not sticky), and then its cluster count, asked later, is 0. */
        if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
          (void)cudaGetLastError();
      }
  return cudaSuccess;
}

/* Clusters of `ways` skinny blocks that the device holds at once. Every
 * cluster kernel keeps one block a multiprocessor (16 warps of 128
 * registers, or 12 of up to 168), so the 4-bit one answers for all. */
template <typename T>
cudaError_t max_clusters(int ways, uint32_t smem_base, int *count) {
  const int warps = lutmm_skinny_warps(1, 4);
  const cluster_launch c((unsigned)ways, 32 * (unsigned)warps, lutmm_skinny_smem_bytes(smem_base, 4, 1, 1, warps), 0,
                         ways);
  return cudaOccupancyMaxActiveClusters(count, cluster_kernel_for<T>(1, 4, 1), &c.config);
}

}  // namespace skinny
}  // namespace lutmm_kernels

#endif
