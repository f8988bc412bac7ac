/* The CUDA backend's operation table. The operations live in the other files
 * of this directory; kernels sit behind C-linkage launchers (cuda_ops.h).
 * Device memory has no parent backend: every operation is implemented here. */
#include <cuda_runtime_api.h>

#include "backend.h"
#include "cuda_ops.h"

static lutmm_status cuda_probe(void) {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0 ? LUTMM_OK : LUTMM_ERR_BACKEND_UNAVAILABLE;
}

const lutmm_backend_ops lutmm_cuda_backend = {
    .name = "cuda",
    .kind = LUTMM_BACKEND_CUDA,
    .memory = LUTMM_MEMORY_DEVICE,
    .parent = NULL,
    .probe = cuda_probe,
    .context_init = lutmm_cuda_context_init,
    .context_fini = lutmm_cuda_context_fini,
    .supports_gemm = lutmm_cuda_supports_gemm,
    .table_build = lutmm_cuda_table_build,
    .mem_alloc = lutmm_cuda_mem_alloc,
    .mem_free = lutmm_cuda_mem_free,
    .copy_to_host = lutmm_cuda_copy_to_host,
    .copy_from_host = lutmm_cuda_copy_from_host,
    .quantize = lutmm_cuda_quantize,
    .pack = lutmm_cuda_pack,
    .unpack = lutmm_cuda_unpack,
    .dequantize = lutmm_cuda_dequantize,
    .gemm = lutmm_cuda_gemm,
    .weights_alloc = lutmm_cuda_weights_alloc,
    .weights_free = lutmm_cuda_weights_free,
    .weights_finish = NULL, /* pair tables are built per block from the host table copy */
};
