/* The column-stream kernel as a build with -Dstamps=true compiles it
 * (LUTMM_STAMPS 1: lane 0 of each warp writes %globaltimer at each step,
 * src/cuda/stamps.cuh), for every target the library builds, with its
 * warnings as errors. Only profiling builds set the option, so without
 * this object a change could break the stamped kernel unseen. It is
 * compiled, never linked or run. One instantiation of each row count
 * (X whole, two and four carried rows) covers every stamp site. */
#define LUTMM_STAMPS 1

#include "cuda_ops.h"
#include "skinny_launch.cuh"

template __global__ void lutmm_kernels::skinny::column_kernel<__half, 4, true, 16, 1>(
    const __grid_constant__ lutmm_cuda_gemm_params);
template __global__ void lutmm_kernels::skinny::column_kernel<__half, 4, true, 16, 2>(
    const __grid_constant__ lutmm_cuda_gemm_params);
template __global__ void lutmm_kernels::skinny::column_kernel<__half, 4, true, 16, 4>(
    const __grid_constant__ lutmm_cuda_gemm_params);
