/* The differential GEMM targets share one driver: draw a case of the given
 * mode from the input (tools/fuzz_case.h), run it on `backend` and on the
 * reference (tools/fuzz_diff.h), abort on any mismatch. */
#ifndef LUTMM_FUZZ_GEMM_H
#define LUTMM_FUZZ_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz_case.h"

void fuzz_gemm_input(const uint8_t *data, size_t size, fz_mode mode, lutmm_backend backend);

#endif
