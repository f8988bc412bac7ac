/* Property: the CUDA backend against the reference, exact mode when the
 * input's first byte is even, bound mode otherwise. Built only with CUDA;
 * every input is skipped (replay exits 77) when no GPU is visible. */
#include "fuzz_check.h"
#include "fuzz_gemm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  fuzz_gemm_input(data + 1, size - 1, data[0] % 2 == 0 ? FZ_EXACT : FZ_BOUND, LUTMM_BACKEND_CUDA);
  return 0;
}
