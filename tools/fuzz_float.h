/* The fuzzers' own float conversions, written independently of the
 * library's src/common/numeric.h so an oracle never shares a rounding bug
 * with the code it checks. Rounding is to nearest-even from an exact double,
 * with subnormals and overflow to Inf. */
#ifndef LUTMM_FUZZ_FLOAT_H
#define LUTMM_FUZZ_FLOAT_H

#include <stdint.h>

#include "lutmm.h"

/* Bit pattern of d rounded once to dtype (16 bits for F16/BF16). */
uint32_t fz_round_bits(double d, lutmm_dtype dtype);
/* Exact value of a dtype bit pattern. */
double fz_widen_bits(uint32_t bits, lutmm_dtype dtype);
/* d rounded once to dtype, as a double. */
double fz_round(double d, lutmm_dtype dtype);

/* Element i of a buffer of dtype: load exactly / store rounded. */
double fz_load(const void *buffer, lutmm_dtype dtype, int64_t i);
uint32_t fz_load_bits(const void *buffer, lutmm_dtype dtype, int64_t i);
void fz_store(void *buffer, lutmm_dtype dtype, int64_t i, double d);

int fz_is_finite(double d);
int fz_bits_are_nan(uint32_t bits, lutmm_dtype dtype);
/* Significand precision in bits (24, 11, 8). */
int fz_precision(lutmm_dtype dtype);
size_t fz_dtype_size(lutmm_dtype dtype);

#endif
