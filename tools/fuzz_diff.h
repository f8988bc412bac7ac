/* Running one differential case: the backend under test against the
 * reference, through the public API only, so it works for every backend
 * (data goes through lutmm_malloc / lutmm_copy_to_context). */
#ifndef LUTMM_FUZZ_DIFF_H
#define LUTMM_FUZZ_DIFF_H

#include <stddef.h>

#include "fuzz_case.h"

typedef enum fz_verdict {
  FZ_MATCH = 0,       /* every check passed */
  FZ_MISMATCH = 1,    /* the backend disagrees with the reference (detail says where) */
  FZ_UNSUPPORTED = 2, /* the backend answered LUTMM_ERR_UNSUPPORTED for this combination */
  FZ_ERROR = 3,       /* the harness itself failed (out of memory, reference error) */
  FZ_REFUSED = 4      /* Ŵ overflows the compute dtype: both refused it alike */
} fz_verdict;

/* Checks, in order: quantize gives the reference's codes and scales (bound
 * cases), pack gives the reference's bytes, dequantize the reference's
 * bits in the activation dtype (or, when the reference refuses that dtype
 * with LUTMM_ERR_SCALE_OVERFLOW, the same refusal from dequantize and
 * gemm: FZ_REFUSED), and lutmm_gemm gives the
 * reference's bits (exact cases) or stays inside its bound (bound cases)
 * without touching X or writing past Y. `ref` must be a REFERENCE context,
 * `target` any context. `detail` receives a one-line explanation. */
fz_verdict fz_run_case(lutmm_context *ref, lutmm_context *target, const fz_case *c, char *detail, size_t cap);

#endif
