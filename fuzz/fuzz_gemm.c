#include "fuzz_gemm.h"

#include <stdio.h>

#include "fuzz_check.h"
#include "fuzz_diff.h"
#include "fuzz_source.h"
#include "fuzz_util.h"

void fuzz_gemm_input(const uint8_t *data, size_t size, fz_mode mode, lutmm_backend backend) {
  lutmm_context *ref = fuzz_context(LUTMM_BACKEND_REFERENCE);
  lutmm_context *target = fuzz_context(backend);
  FUZZ_CHECK(ref != NULL);
  if (target == NULL) { /* backend not built or no device: nothing to test */
    fuzz_mark_skipped();
    return;
  }
  fz_source s = fz_source_from_bytes(data, size);
  fz_case c;
  const lutmm_status st = fz_case_draw(&s, mode, ref, &c);
  if (st != LUTMM_ERR_UNSUPPORTED) { /* UNSUPPORTED: no exact plan for this table */
    FUZZ_OK(st);
    if (mode == FZ_EXACT) FUZZ_CHECK(fz_exact_verify(&c));
    char detail[512], params[256];
    const fz_verdict v = fz_run_case(ref, target, &c, detail, sizeof detail);
    if (v == FZ_MISMATCH || v == FZ_ERROR) {
      fz_case_describe(&c, params, sizeof params);
      fprintf(stderr, "%s\n  case: %s\n", detail, params);
    }
    FUZZ_CHECK(v == FZ_MATCH || v == FZ_UNSUPPORTED || v == FZ_REFUSED);
  }
  fz_case_free(&c);
}
