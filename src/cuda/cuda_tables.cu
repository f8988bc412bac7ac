/* Table builders on the device: the shared LUTMM_HD entry functions, compiled
 * without FMA contraction, so the bits equal the host's. */
#include "cuda_ops.h"
#include "tables.h"

__global__ void lutmm_table_kernel(int kind, int bits, float *table) {
  const int i = (int)threadIdx.x;
  if (i >= (1 << bits)) return;
  switch (kind) {
    case LUTMM_TABLE_NF: table[i] = lutmm_nf_value(bits, i); break;
    case LUTMM_TABLE_INT: table[i] = lutmm_int_value(bits, i); break;
    default: table[i] = lutmm_fp_value(bits, i); break;
  }
}

extern "C" cudaError_t lutmm_cuda_launch_tables(cudaStream_t stream, int kind, int bits, float *table) {
  lutmm_table_kernel<<<1, 256, 0, stream>>>(kind, bits, table);
  return cudaGetLastError();
}
