/* The TMA tensor map of X for the wide kernel. X (M rows × K elements of
 * 16 bits, row-major) is a 2-D tensor whose boxes of 64 K × tile_m rows
 * land in a stage as rows of 128 bytes in the 128-byte swizzle that the
 * kernel's warpgroup MMAs read; rows past M and columns past K arrive as
 * zeros. The encoder is the driver's cuTensorMapEncodeTiled, looked up at
 * run time so that the library links the CUDA runtime alone. */
#include <cuda.h>
#include <cudaTypedefs.h>
#include <string.h>

#include "cuda_ops.h"

_Static_assert(sizeof(lutmm_tensor_map) == sizeof(CUtensorMap), "the opaque map is a CUtensorMap");
_Static_assert(_Alignof(lutmm_tensor_map) >= _Alignof(CUtensorMap), "and as aligned");

void *lutmm_cuda_find_tensor_map_encoder(void) {
  void *encoder = NULL;
  enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t err =
      cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &encoder, 12000, cudaEnableDefault, &found);
  if (err != cudaSuccess) (void)cudaGetLastError(); /* not sticky: the planner just keeps the wide kernel off */
  return err == cudaSuccess && found == cudaDriverEntryPointSuccess ? encoder : NULL;
}

int lutmm_cuda_x_tensor_map(void *encoder, const void *x, int64_t m, int64_t k, int tile_m, lutmm_tensor_map *map) {
  /* TMA takes 16-byte aligned bases and row strides, and 32-bit coordinates */
  if (encoder == NULL || (uintptr_t)x % 16 != 0 || k % 8 != 0 || m < 1 || k < 1 || m > INT32_MAX || k > INT32_MAX)
    return 0;
  PFN_cuTensorMapEncodeTiled_v12000 encode;
  memcpy(&encode, &encoder, sizeof encode);
  const cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)m};
  const cuuint64_t row_bytes[1] = {(cuuint64_t)k * 2};
  const cuuint32_t box[2] = {64, (cuuint32_t)tile_m};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode((CUtensorMap *)map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, (void *)x, dims, row_bytes, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS;
}
