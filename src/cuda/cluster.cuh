/* Thread block clusters (sm_90 code): a block's rank in its cluster, the
 * cluster-wide barrier, and loads from another block's shared memory, with
 * which the blocks of one tile add their parts of it without a trip
 * through global memory (the wide kernel's halved tiles, the skinny
 * kernel's cut columns). Compiled for an older target the operations trap;
 * the host launches clusters only where the device holds them. */
#ifndef LUTMM_CUDA_CLUSTER_CUH
#define LUTMM_CUDA_CLUSTER_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace lutmm_kernels {

/* A launch of `grid` blocks of `threads` with `smem` bytes of dynamic
 * shared memory, in clusters of `ways` blocks (no cluster attribute below
 * 2), for cudaLaunchKernelExC and cudaOccupancyMaxActiveClusters. Built in
 * place: `config` points at the object's own attribute. */
struct cluster_launch {
  cudaLaunchConfig_t config;
  cudaLaunchAttribute cluster;

  cluster_launch(unsigned grid, unsigned threads, size_t smem, cudaStream_t stream, int ways) : config(), cluster() {
    config.gridDim = dim3(grid);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = (unsigned)ways;
    cluster.val.clusterDim.y = 1;
    cluster.val.clusterDim.z = 1;
    config.attrs = &cluster;
    config.numAttrs = ways > 1 ? 1 : 0;
  }
  cluster_launch(const cluster_launch &) = delete;
  cluster_launch &operator=(const cluster_launch &) = delete;
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

/* Every thread of every block of the cluster: what each did before its
 * arrival (its shared-memory stores) is visible to all after the wait.
 * Not .aligned: the callers reach it from loops of per-thread lengths. */
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

/* The same barrier ordering nothing but execution: no block of the cluster
 * goes on until all have arrived (so none exits while another still reads
 * its shared memory), without the release's wait for this thread's global
 * stores. */
__device__ __forceinline__ void cluster_sync_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed;\nbarrier.cluster.wait;\n" ::: "memory");
}

/* The same barrier in its two halves, for work between them: after the
 * arrival this thread touches no other block's shared memory, and no block
 * of the cluster leaves the wait before all have arrived. */
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait;\n" ::: "memory"); }

/* The address in block `rank`'s shared memory of this block's `address`. */
__device__ __forceinline__ uint32_t cluster_map(uint32_t address, uint32_t rank) {
  uint32_t mapped;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(mapped) : "r"(address), "r"(rank));
  return mapped;
}

__device__ __forceinline__ float4 cluster_load_float4(uint32_t address) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0,%1,%2,%3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address)
               : "memory");
  return v;
}
#else
__device__ __forceinline__ uint32_t cluster_rank() {
  __trap();
  return 0;
}
__device__ __forceinline__ void cluster_sync() { __trap(); }
__device__ __forceinline__ void cluster_sync_relaxed() { __trap(); }
__device__ __forceinline__ void cluster_arrive_relaxed() { __trap(); }
__device__ __forceinline__ void cluster_wait() { __trap(); }
__device__ __forceinline__ uint32_t cluster_map(uint32_t, uint32_t) {
  __trap();
  return 0;
}
__device__ __forceinline__ float4 cluster_load_float4(uint32_t) {
  __trap();
  return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}
#endif

/* All `THREADS` threads of the block meet (named barrier 1; __syncthreads
 * is 0). Not .aligned, as cluster_sync. */
template <int THREADS>
__device__ __forceinline__ void block_sync_named() {
  asm volatile("barrier.sync 1, %0;\n" ::"n"(THREADS) : "memory");
}

}  // namespace lutmm_kernels

#endif
