#include "fuzz_check.h"

#include <stdio.h>
#include <stdlib.h>

static size_t skipped_inputs;

void fuzz_fail(const char *file, int line, const char *what) {
  fprintf(stderr, "%s:%d: property failed: %s\n", file, line, what);
  fflush(stderr);
  abort();
}

void fuzz_expect_ok(const char *file, int line, const char *call, lutmm_status st) {
  if (st == LUTMM_OK) return;
  fprintf(stderr, "%s:%d: %s returned %s\n", file, line, call, lutmm_status_string(st));
  fflush(stderr);
  abort();
}

void fuzz_mark_skipped(void) { skipped_inputs++; }

size_t fuzz_skipped_count(void) { return skipped_inputs; }
