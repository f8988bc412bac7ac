/* lutmm fuzz: not written yet. */
#include <stdio.h>

#include "cli.h"

int lutmm_cli_fuzz(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "lutmm fuzz: not available in this build\n");
  return 1;
}
