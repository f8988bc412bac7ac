/* The wide kernel as a build with -Dstamps=true compiles it (LUTMM_STAMPS
 * 1: lane 0 of each warp writes %globaltimer at each step,
 * src/cuda/stamps.cuh), with the wide files' sm_90a target, where its
 * stamped code is, and its warnings as errors; stamps_build.cu does the
 * same for the column-stream kernel. It is compiled, never linked or run.
 * One instantiation (4-bit codes, one-row scales in the compute dtype,
 * 128-row tiles, no cluster) covers every stamp site. */
#define LUTMM_STAMPS 1

#include "cuda_ops.h"
#include "wide_kernel.cuh"

template __global__ void lutmm_kernels::wide::wide_kernel<__half, 4, true, 128, 128, true, false>(
    const __grid_constant__ lutmm_cuda_gemm_params);
