/* The bad-input catalogue: every public function of lutmm.h against hostile
 * arguments. Each case is a function that makes one call (or a few) with
 * one bad argument and returns what the library said; the driver compares
 * it with the status the header documents. A fresh fixture per case keeps
 * cases independent and lets valgrind/ASan pin a leak on one case. */
#ifndef LUTMM_BADINPUT_H
#define LUTMM_BADINPUT_H

#include <stddef.h>
#include <stdint.h>

#include "lutmm.h"

/* Returned by a case instead of a library status. */
#define BAD_SKIP ((lutmm_status)1000)          /* needs hardware this machine lacks */
#define BAD_BROKEN_PROMISE ((lutmm_status)1001) /* a documented side condition failed */

#define BAD_K 64
#define BAD_N 32
#define BAD_M 3
#define BAD_GROUP 32
#define BAD_BITS 4

/* A valid starting point: one reference context and everything a call needs. */
typedef struct bad_fixture {
  lutmm_context *ctx;
  lutmm_quant_params params; /* 4 bits, 64×32, group 32, f16 scales */
  float table[16];
  float w[BAD_K * BAD_N];
  uint8_t codes[BAD_K * BAD_N];
  uint16_t scales[(BAD_K / BAD_GROUP) * BAD_N];
  lutmm_weights *weights;
  float x[BAD_M * BAD_K];
  float y[BAD_M * BAD_N];
  uint8_t *record; /* serialized weights */
  size_t record_size;
} bad_fixture;

typedef struct bad_case {
  const char *name;
  lutmm_status (*run)(bad_fixture *fx);
  lutmm_status expected;
} bad_case;

typedef struct bad_area {
  const char *name;
  const bad_case *cases;
  size_t count;
} bad_area;

int bad_fixture_init(bad_fixture *fx);
void bad_fixture_fini(bad_fixture *fx);

/* Rewrites a serialized record's trailing checksum after an edit. */
void bad_fix_checksum(uint8_t *record, size_t size);
/* A context of `backend`, or NULL when unavailable. */
lutmm_context *bad_try_context(lutmm_backend backend);

extern const bad_area bad_context_area, bad_memory_area, bad_tables_area, bad_params_area, bad_quantize_area,
    bad_pack_area, bad_weights_area, bad_serialize_area, bad_gemm_area, bad_backends_area;

#endif
