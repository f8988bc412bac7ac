/* Assertions for the fuzz targets. They stay on in every build type (the
 * targets are test programs, not the library) and abort, which is how
 * libFuzzer and the replay driver both learn that a property failed. */
#ifndef LUTMM_FUZZ_CHECK_H
#define LUTMM_FUZZ_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "lutmm.h"

/* Prints where and what failed, then abort()s. */
void fuzz_fail(const char *file, int line, const char *what);

/* A status that must be LUTMM_OK; prints its name otherwise. */
void fuzz_expect_ok(const char *file, int line, const char *call, lutmm_status st);

#define FUZZ_CHECK(cond) \
  do {                   \
    if (!(cond)) fuzz_fail(__FILE__, __LINE__, #cond); \
  } while (0)

#define FUZZ_OK(call) fuzz_expect_ok(__FILE__, __LINE__, #call, (call))

/* A target calls this when an input could not be tested (for example, the
 * backend under test is not available); the replay driver exits 77 when
 * every input was skipped, so CI reports a skip, never a pass. */
void fuzz_mark_skipped(void);
size_t fuzz_skipped_count(void);

/* The libFuzzer entry point every target defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
