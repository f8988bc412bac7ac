/* Subcommands of the lutmm command-line tool. Each returns the process exit
 * status; argv[0] is the subcommand name. */
#ifndef LUTMM_CLI_H
#define LUTMM_CLI_H

#include <stdint.h>

#include "lutmm.h"

int lutmm_cli_table(int argc, char **argv);
int lutmm_cli_demo(int argc, char **argv);
int lutmm_cli_fuzz(int argc, char **argv);
int lutmm_cli_bench(int argc, char **argv);
int lutmm_cli_bench_cpu(int argc, char **argv);  /* cli_bench_cpu.c */
int lutmm_cli_bench_cuda(int argc, char **argv); /* cli_bench_cuda.c */

/* Seeded generator shared by the tools: splitmix64. */
typedef struct cli_rng {
  uint64_t state;
} cli_rng;

static inline uint64_t cli_rng_next(cli_rng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 24 random bits. */
static inline float cli_rng_uniform(cli_rng *r) { return (float)(cli_rng_next(r) >> 40) * 0x1p-24f; }

/* Approximately standard normal: sum of 4 uniforms, centred and scaled. */
static inline float cli_rng_normal(cli_rng *r) {
  float s = 0.0f;
  for (int i = 0; i < 4; i++) s += cli_rng_uniform(r);
  return (s - 2.0f) * 1.7320508f;
}

/* Monotonic wall-clock seconds. */
double cli_seconds(void);

#endif
