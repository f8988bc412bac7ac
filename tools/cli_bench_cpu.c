/* lutmm bench --backend cpu: not written yet. */
#include <stdio.h>

#include "cli.h"

int lutmm_cli_bench_cpu(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "lutmm bench --backend cpu: not available in this build\n");
  return 1;
}
