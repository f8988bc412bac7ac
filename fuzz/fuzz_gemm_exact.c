/* Property: in exact-arithmetic mode the backend under test (LUTMM_BACKEND,
 * default cpu) returns the reference's bits exactly, packs the reference's
 * bytes, and neither touches X nor writes past Y. */
#include "fuzz_check.h"
#include "fuzz_gemm.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_gemm_input(data, size, FZ_EXACT, fuzz_backend_under_test());
  return 0;
}
