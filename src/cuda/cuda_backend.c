/* The CUDA backend's operation table. The operations themselves live in the
 * .cu files of this directory behind C linkage (cuda_ops.h). */
#include <cuda_runtime_api.h>

#include "backend.h"

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
};
