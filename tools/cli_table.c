/* lutmm table nf|int|fp BITS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int lutmm_cli_table(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: lutmm table nf|int|fp BITS\n");
    return 2;
  }
  char *end;
  const long bits = strtol(argv[2], &end, 10);
  lutmm_status (*build)(lutmm_context *, int, float *) = NULL;
  if (strcmp(argv[1], "nf") == 0) build = lutmm_table_nf;
  else if (strcmp(argv[1], "int") == 0) build = lutmm_table_int;
  else if (strcmp(argv[1], "fp") == 0) build = lutmm_table_fp;
  if (build == NULL || *end != '\0' || bits < LUTMM_MIN_BITS || bits > LUTMM_MAX_BITS) {
    fprintf(stderr, "lutmm table: kind must be nf, int or fp and BITS 1..8\n");
    return 2;
  }
  lutmm_context *ctx;
  lutmm_status st = lutmm_context_create(LUTMM_BACKEND_REFERENCE, &ctx);
  float table[LUTMM_MAX_TABLE_SIZE];
  if (st == LUTMM_OK) st = build(ctx, (int)bits, table);
  lutmm_context_destroy(ctx);
  if (st != LUTMM_OK) {
    fprintf(stderr, "lutmm table: %s\n", lutmm_status_string(st));
    return 1;
  }
  for (int i = 0; i < (1 << bits); i++) printf("%.9g\n", table[i]);
  return 0;
}
