/* Assertions for the unit tests: every failure prints where and why, and the
 * test keeps going so one run reports every broken property; the exit status
 * is non-zero if anything failed. */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "lutmm.h"

extern int unit_failures;

void unit_fail(const char *file, int line, const char *fmt, ...);

/* A condition that must hold. */
#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) unit_fail(__FILE__, __LINE__, "%s", #cond);        \
  } while (0)

/* A call that must return a given status. */
#define CHECK_STATUS(expected, call)                                                          \
  do {                                                                                        \
    const lutmm_status unit_got_ = (call);                                                    \
    if (unit_got_ != (expected))                                                              \
      unit_fail(__FILE__, __LINE__, "%s returned %s, expected %s", #call,                     \
                lutmm_status_string(unit_got_), lutmm_status_string(expected));               \
  } while (0)

#define CHECK_OK(call) CHECK_STATUS(LUTMM_OK, call)

/* Two integers that must be equal; prints both. */
#define CHECK_EQ_INT(a, b)                                                                 \
  do {                                                                                     \
    const long long unit_a_ = (long long)(a), unit_b_ = (long long)(b);                    \
    if (unit_a_ != unit_b_)                                                                \
      unit_fail(__FILE__, __LINE__, "%s == %lld, expected %s == %lld", #a, unit_a_, #b,   \
                unit_b_);                                                                  \
  } while (0)

/* One named case of a test program. */
typedef struct unit_case {
  const char *name;
  void (*run)(void);
} unit_case;

/* Runs the case named argv[1] (or every case without an argument) and
 * returns the process exit status: 0 when every check held. With
 * "--count N" it runs nothing and passes only if the program has N cases,
 * so that a case the build does not register as a test cannot go unrun. */
int unit_main(int argc, char **argv, const unit_case *cases, int count);

#define UNIT_COUNT(cases) ((int)(sizeof(cases) / sizeof((cases)[0])))

#endif
