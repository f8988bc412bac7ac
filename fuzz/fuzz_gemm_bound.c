/* Property: on general data the backend under test (LUTMM_BACKEND, default
 * cpu) quantizes and packs to the reference's bits, and every GEMM output
 * element lies inside the reference's bound, never NaN/Inf where the
 * reference is finite. */
#include "fuzz_check.h"
#include "fuzz_gemm.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_gemm_input(data, size, FZ_BOUND, fuzz_backend_under_test());
  return 0;
}
