/* lutmm bench --backend cuda: not written yet. */
#include <stdio.h>

#include "cli.h"

int lutmm_cli_bench_cuda(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "lutmm bench --backend cuda: not available in this build\n");
  return 1;
}
