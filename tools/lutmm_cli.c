/* lutmm: command-line front end (tables, demo, and the tools later issues add). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"

typedef struct subcommand {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *usage;
} subcommand;

static const subcommand kSubcommands[] = {
    {"table", lutmm_cli_table, "table nf|int|fp BITS     print the 2^BITS table values"},
    {"demo", lutmm_cli_demo, "demo                     quantize, pack and multiply a 4096x4096 NF4 matrix"},
    {"fuzz", lutmm_cli_fuzz, "fuzz --backend cpu|cuda --mode exact|bound|both (--seconds S | --cases N) [--seed X]"},
    {"bench", lutmm_cli_bench, "bench --backend cpu|cuda [--csv] ...   time lutmm_gemm against BLAS"},
};

double cli_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int usage(FILE *out) {
  fprintf(out, "usage: lutmm SUBCOMMAND [ARGS]\n");
  for (size_t i = 0; i < sizeof kSubcommands / sizeof kSubcommands[0]; i++)
    fprintf(out, "  lutmm %s\n", kSubcommands[i].usage);
  return out == stdout ? 0 : 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(stderr);
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) return usage(stdout);
  for (size_t i = 0; i < sizeof kSubcommands / sizeof kSubcommands[0]; i++)
    if (strcmp(argv[1], kSubcommands[i].name) == 0) return kSubcommands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "lutmm: unknown subcommand '%s'\n", argv[1]);
  return usage(stderr);
}
