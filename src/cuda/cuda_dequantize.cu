/* Dequantization on the device: lutmm_dequant_value of quant_rule.h per
 * element (exact product in double, one rounding), as the reference does. */
#include "cuda_ops.h"
#include "format_kernels.cuh"
#include "quant_rule.h"

__global__ void lutmm_dequantize_kernel(const __grid_constant__ lutmm_device_weights d, int dtype, void *w_hat) {
  const int64_t total = d.k * d.n;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t k = i / d.n, n = i % d.n;
    const float scale = lutmm_load_as_f32(d.scales, (lutmm_dtype)d.scale_dtype, (k / d.group_size) * d.n_pad + n);
    const float value = lutmm_dequant_value(d.table[lutmm_device_read_code(d, k, n)], scale, (lutmm_dtype)dtype);
    lutmm_store_from_f64(w_hat, (lutmm_dtype)dtype, i, value);
  }
}

extern "C" cudaError_t lutmm_cuda_launch_dequantize(cudaStream_t stream, const lutmm_weights *w, int dtype,
                                                    void *w_hat) {
  const lutmm_device_weights d = lutmm_device_weights_of(w);
  lutmm_dequantize_kernel<<<lutmm_grid_for(d.k * d.n, 256), 256, 0, stream>>>(d, dtype, w_hat);
  return cudaGetLastError();
}
