/* Shared pieces of the diff suite: seeded data, one GEMM case run on the
 * CPU backend and checked against the reference. */
#ifndef LUTMM_DIFF_HARNESS_H
#define LUTMM_DIFF_HARNESS_H

#include <stdint.h>

#include "lutmm.h"

typedef struct diff_rng {
  uint64_t state;
} diff_rng;

uint64_t diff_next(diff_rng *r);
/* Uniform integer in [lo, hi]. */
int diff_int(diff_rng *r, int lo, int hi);
float diff_normal(diff_rng *r);

typedef enum diff_mode { DIFF_EXACT = 0, DIFF_BOUND = 1 } diff_mode;

typedef struct diff_case {
  diff_mode mode;
  int bits;
  int64_t k, n, m, group_size;
  lutmm_dtype x_dtype, y_dtype, scale_dtype;
  uint64_t seed;
  float x_magnitude; /* bound mode: X is Gaussian times this (0 means 1) */
  float w_magnitude; /* bound mode: W is Gaussian times a random 2^-6..2^4 times this (0 means 1) */
} diff_case;

/* Counts kept across cases. */
typedef struct diff_totals {
  long cases, failures;
} diff_totals;

/* Contexts every case uses: the CPU backend and the reference. */
typedef struct diff_env {
  lutmm_context *cpu;
  lutmm_context *ref;
} diff_env;

int diff_env_open(diff_env *env);
void diff_env_close(diff_env *env);

/* Builds the case's weights on `packer` (CPU or reference context), runs
 * lutmm_gemm on the CPU context and compares with the reference: bit
 * equality in exact mode, the per-element bound in bound mode. Also checks
 * the guard bytes after Y. Prints a line for each failure; returns 1 when
 * the case passed. */
int diff_run_case(const diff_env *env, const diff_case *c, lutmm_context *packer, diff_totals *totals);

/* Runs the case with the CPU context's thread count set to each of
 * `threads` in turn and checks that the output bits never change. */
int diff_run_thread_invariance(const diff_env *env, const diff_case *c, const int *threads, int count,
                               diff_totals *totals);

/* Runs the case with LUTMM_CPU_KERNEL set to each of `variants` in turn
 * (one set of weights) and checks that the output bits never change; the
 * variable is restored afterwards. */
int diff_run_variant_invariance(const diff_env *env, const diff_case *c, const char *const *variants, int count,
                                diff_totals *totals);

const char *diff_dtype_name(lutmm_dtype d);

/* Monotonic wall-clock seconds. */
double diff_seconds(void);

#endif
