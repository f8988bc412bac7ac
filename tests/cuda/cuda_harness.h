/* Shared by the CUDA tests: contexts (exit 77 without a device), random GEMM
 * cases in exact and bound mode, and the comparison against the reference. */
#ifndef LUTMM_TESTS_CUDA_HARNESS_H
#define LUTMM_TESTS_CUDA_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "lutmm.h"

#define HARNESS_SKIP 77

typedef struct harness {
  lutmm_context *cuda, *ref;
} harness;

/* Opens both contexts; HARNESS_SKIP when no CUDA device is visible, 1 on
 * any other failure, 0 on success. */
int harness_open(harness *h);
void harness_close(harness *h);

typedef struct gemm_case {
  int bits;
  int64_t m, k, n, group_size;
  lutmm_dtype scale_dtype, x_dtype, y_dtype;
  int exact;      /* dyadic inputs: bits must equal the reference's */
  int x_offset;   /* X starts one element past a 16-byte boundary */
  int tiny_scales; /* scales near 2^-20: fp16 subnormal products */
  uint64_t seed;
} gemm_case;

/* Splitmix64 and helpers. */
uint64_t harness_next(uint64_t *state);
int64_t harness_pick(uint64_t *state, int64_t n); /* uniform in [0, n) */

/* A valid random group size for k: a multiple of 16 dividing k, or 0. */
int64_t harness_group_for(uint64_t *state, int64_t k);

/* Runs one case on the CUDA context and on the reference; returns 0 when the
 * CUDA result matches (exact: equal bits, ±0 alike; bound: within the
 * reference's bound and finite where it is finite), 1 on a mismatch and 2 on
 * an API error, with a description in `why`. `y_out` (optional, m×n of
 * y_dtype, host) receives the CUDA result. */
int harness_run_case(harness *h, const gemm_case *c, char *why, size_t why_size, void *y_out);

/* One case's host inputs and results and its weights packed on both
 * contexts, for tests that run it more than once (graph replays). */
typedef struct harness_inputs {
  float table[LUTMM_MAX_TABLE_SIZE];
  uint8_t *codes;
  void *scales, *x, *y_ref;
  void *y_cuda; /* the device's Y, y_bytes and HARNESS_GUARD_BYTES guard bytes after it */
  float *bound;
  size_t scale_bytes, x_bytes, y_bytes;
  lutmm_weights *w_ref, *w_cuda;
} harness_inputs;

#define HARNESS_GUARD_BYTES 64

/* Makes case c's inputs and packs its weights; harness_release frees them
 * (after a failure too). */
lutmm_status harness_prepare(harness *h, const gemm_case *c, harness_inputs *in);
void harness_release(harness_inputs *in);

/* New values for X (of c's kind: dyadic when exact), drawn from `state`. */
void harness_new_x(const gemm_case *c, uint64_t *state, harness_inputs *in);

/* Fills y_cuda and its guard bytes with NaN bytes before a run. */
void harness_poison(harness_inputs *in);

/* The reference GEMM of in->x, compared with in->y_cuda as
 * harness_run_case compares. */
int harness_check(harness *h, const gemm_case *c, harness_inputs *in, char *why, size_t why_size);

/* "exact b=4 m=1 k=64 ..." for messages. */
void harness_describe(const gemm_case *c, char *out, size_t size);

#endif
