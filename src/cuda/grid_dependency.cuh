/* Programmatic dependent launch (Hopper and newer): a kernel launched with
 * cudaLaunchAttributeProgrammaticStreamSerialization may start while the
 * kernel before it in the stream still runs, once every block of that one
 * has called grid_dependency_launch_dependents (or exited). It must read
 * nothing the earlier kernel writes before grid_dependency_wait returns:
 * from there the earlier grid has completed and its stores are visible.
 * Without such a launch both are no-ops; on targets below sm_90 they
 * compile to nothing. The wide kernel's fixup uses them (gemm_fixup.cu). */
#ifndef LUTMM_CUDA_GRID_DEPENDENCY_CUH
#define LUTMM_CUDA_GRID_DEPENDENCY_CUH

namespace lutmm_kernels {

/* Lets the launch that depends on this grid start its blocks where
 * multiprocessors free up. */
__device__ __forceinline__ void grid_dependency_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/* Waits until the grid this launch depends on has completed, its memory
 * operations visible. */
__device__ __forceinline__ void grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

}  // namespace lutmm_kernels

#endif
