/* The tests' own float formats, written from IEEE 754 and the bfloat16
 * definition with frexp/ldexp/rint, independently of src/common/numeric.h,
 * so that a rounding bug in the library cannot hide behind the same bug in
 * its oracle. */
#ifndef UNIT_FLOATS_H
#define UNIT_FLOATS_H

#include <stdint.h>

#include "lutmm.h"

/* Exact value of a binary16 / bfloat16 bit pattern. */
double unit_f16_value(uint16_t h);
double unit_bf16_value(uint16_t h);

/* `x` rounded once, to nearest-even, to binary16 / bfloat16 bits. */
uint16_t unit_f16_bits(double x);
uint16_t unit_bf16_bits(double x);

/* `x` rounded once to `dtype`, as a double (float32 for F32). */
double unit_round(double x, lutmm_dtype dtype);

/* Element i of a buffer of `dtype`, exactly. */
double unit_load(const void *buffer, lutmm_dtype dtype, size_t i);

/* Stores `x` rounded once to `dtype` at element i. */
void unit_store(void *buffer, lutmm_dtype dtype, size_t i, double x);

size_t unit_dtype_size(lutmm_dtype dtype);

uint32_t unit_f32_bits(float f);
float unit_f32_from_bits(uint32_t u);

#endif
