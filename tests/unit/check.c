#include "check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int unit_failures = 0;

/* Caps the output of a badly broken run; the count stays exact. */
#define MAX_REPORTED 40

void unit_fail(const char *file, int line, const char *fmt, ...) {
  unit_failures++;
  if (unit_failures > MAX_REPORTED) return;
  fprintf(stderr, "FAIL %s:%d: ", file, line);
  va_list args;
  va_start(args, fmt);
  vfprintf(stderr, fmt, args);
  va_end(args);
  fputc('\n', stderr);
}

int unit_main(int argc, char **argv, const unit_case *cases, int count) {
  if (argc > 2 && strcmp(argv[1], "--count") == 0) {
    const int registered = atoi(argv[2]);
    if (registered == count) return 0;
    fprintf(stderr, "%d cases in the program, %d registered as tests\n", count, registered);
    return 1;
  }
  int ran = 0;
  for (int i = 0; i < count; i++) {
    if (argc > 1 && strcmp(argv[1], cases[i].name) != 0) continue;
    const int before = unit_failures;
    cases[i].run();
    printf("%s %s\n", unit_failures == before ? "ok  " : "FAIL", cases[i].name);
    ran++;
  }
  if (ran == 0) {
    fprintf(stderr, "no test case named %s\n", argc > 1 ? argv[1] : "(none)");
    return 1;
  }
  if (unit_failures > 0) fprintf(stderr, "%d check(s) failed\n", unit_failures);
  return unit_failures == 0 ? 0 : 1;
}
