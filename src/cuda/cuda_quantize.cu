/* Quantization on the device: one thread per (group, column), the rule of
 * quant_rule.h, so scales and codes equal the host's bit for bit. */
#include <math.h>

#include "cuda_ops.h"
#include "format_kernels.cuh"
#include "quant_rule.h"

__global__ void lutmm_quantize_kernel(const __grid_constant__ lutmm_cuda_quant_args a, const float *w,
                                      uint8_t *codes, void *scales, int *flags) {
  __shared__ float midpoints[256];
  for (int i = (int)threadIdx.x; i < a.num_midpoints; i += (int)blockDim.x) midpoints[i] = a.midpoints[i];
  __syncthreads();
  const int64_t total = a.num_groups * a.n;
  for (int64_t item = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; item < total;
       item += (int64_t)gridDim.x * blockDim.x) {
    const int64_t group = item / a.n, n = item % a.n;
    const int64_t k0 = group * a.group_size, k1 = k0 + a.group_size;
    float absmax = 0.0f;
    int finite = 1;
    for (int64_t k = k0; k < k1; k++) {
      const float v = w[k * a.n + n];
      finite = finite && lutmm_f32_is_finite(v);
      absmax = fmaxf(absmax, fabsf(v));
    }
    if (!finite) atomicOr(&flags[0], 1);
    const float scale = lutmm_group_scale(absmax, a.table_max, (lutmm_dtype)a.scale_dtype);
    if (!lutmm_f32_is_finite(scale)) atomicOr(&flags[1], 1);
    lutmm_store_scale(scales, (lutmm_dtype)a.scale_dtype, group * a.n + n, scale);
    for (int64_t k = k0; k < k1; k++)
      codes[k * a.n + n] = (uint8_t)lutmm_nearest_code(midpoints, a.num_midpoints, w[k * a.n + n], scale);
  }
}

extern "C" cudaError_t lutmm_cuda_launch_quantize(cudaStream_t stream, const lutmm_cuda_quant_args *a,
                                                  const float *w, uint8_t *codes, void *scales, int *flags) {
  lutmm_quantize_kernel<<<lutmm_grid_for(a->num_groups * a->n, 256), 256, 0, stream>>>(*a, w, codes, scales, flags);
  return cudaGetLastError();
}
