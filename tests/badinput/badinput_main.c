/* Runs the catalogue: `badinput AREA` runs one area, `badinput all` every
 * area. Prints one line per failing case and a count of cases; exit 0 when
 * all passed (skips allowed), 1 otherwise, 77 when every case was skipped. */
#include <stdio.h>
#include <string.h>

#include "badinput.h"

static const bad_area *const kAreas[] = {
    &bad_context_area, &bad_memory_area, &bad_tables_area, &bad_params_area, &bad_quantize_area,
    &bad_pack_area, &bad_weights_area, &bad_serialize_area, &bad_gemm_area, &bad_backends_area,
};

typedef struct tally {
  size_t passed, failed, skipped;
} tally;

static const char *status_name(lutmm_status st) {
  if (st == BAD_SKIP) return "skipped";
  if (st == BAD_BROKEN_PROMISE) return "a documented side condition failed";
  return lutmm_status_string(st);
}

static void run_case(const bad_area *area, const bad_case *c, tally *t) {
  bad_fixture fx;
  if (!bad_fixture_init(&fx)) {
    printf("FAIL %s/%s: fixture could not be built\n", area->name, c->name);
    bad_fixture_fini(&fx);
    t->failed++;
    return;
  }
  const lutmm_status got = c->run(&fx);
  bad_fixture_fini(&fx);
  if (got == BAD_SKIP) {
    printf("skip %s/%s\n", area->name, c->name);
    t->skipped++;
  } else if (got == c->expected) {
    t->passed++;
  } else {
    printf("FAIL %s/%s: got %s, expected %s\n", area->name, c->name, status_name(got), status_name(c->expected));
    t->failed++;
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: badinput AREA|all\n");
    return 2;
  }
  tally t = {0, 0, 0};
  int found = 0;
  for (size_t a = 0; a < sizeof kAreas / sizeof kAreas[0]; a++) {
    if (strcmp(argv[1], "all") != 0 && strcmp(argv[1], kAreas[a]->name) != 0) continue;
    found = 1;
    for (size_t i = 0; i < kAreas[a]->count; i++) run_case(kAreas[a], &kAreas[a]->cases[i], &t);
  }
  if (!found) {
    fprintf(stderr, "badinput: unknown area '%s'\n", argv[1]);
    return 2;
  }
  printf("%zu bad-input cases: %zu passed, %zu failed, %zu skipped\n", t.passed + t.failed + t.skipped, t.passed,
         t.failed, t.skipped);
  if (t.failed > 0) return 1;
  return t.passed == 0 ? 77 : 0;
}
