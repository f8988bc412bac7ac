/* lutmm bench --backend cpu|cuda ...: the benchmark protocol of DESIGN.md §7.
 * Each backend's benchmark lives in its own file; this only dispatches. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int lutmm_cli_bench(int argc, char **argv) {
  const char *backend = "cuda";
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], "--backend") == 0) backend = argv[i + 1];
  if (strcmp(backend, "cpu") == 0) return lutmm_cli_bench_cpu(argc, argv);
  if (strcmp(backend, "cuda") == 0) return lutmm_cli_bench_cuda(argc, argv);
  fprintf(stderr, "lutmm bench: --backend must be cpu or cuda\n");
  return 2;
}
