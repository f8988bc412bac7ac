/* Planted faults, compiled in only by `meson setup -Dfault_injection=NAME`
 * to prove that the differential oracles catch real bugs (tests/fault).
 * In every normal build LUTMM_FAULT is 0 and each hook is the identity,
 * which the compiler removes. Fast backends route the matching step of their
 * pipeline through these hooks; the reference never does. */
#ifndef LUTMM_FAULT_H
#define LUTMM_FAULT_H

#include <stdint.h>

#include "lutmm_config.h"
#include "portable.h"

#define LUTMM_FAULT_NONE 0
#define LUTMM_FAULT_WRONG_CODE 1        /* one element's code is off by one */
#define LUTMM_FAULT_WRONG_SCALE 2       /* one group's scale is doubled */
#define LUTMM_FAULT_LAYOUT_OFF_BY_ONE 3 /* row 16j+15 of each atom read from the next row */
#define LUTMM_FAULT_DROPPED_PARTIAL 4   /* split-K partial sum number 1 is lost */

#ifndef LUTMM_FAULT
#define LUTMM_FAULT LUTMM_FAULT_NONE
#endif

/* Code the fast backend uses for element (k, n). */
LUTMM_HD static inline int lutmm_fault_code(int code, int64_t k, int64_t n, int bits) {
  if (LUTMM_FAULT == LUTMM_FAULT_WRONG_CODE && k == 17 && n == 9) return (code + 1) & ((1 << bits) - 1);
  return code;
}

/* Scale the fast backend uses for (group, n). */
LUTMM_HD static inline float lutmm_fault_scale(float scale, int64_t group, int64_t n) {
  if (LUTMM_FAULT == LUTMM_FAULT_WRONG_SCALE && group == 0 && n == 3) return scale * 2.0f;
  return scale;
}

/* Row the fast backend's layout arithmetic locates for logical row k. */
LUTMM_HD static inline int64_t lutmm_fault_layout_row(int64_t k, int64_t k_pad) {
  if (LUTMM_FAULT == LUTMM_FAULT_LAYOUT_OFF_BY_ONE && k % 16 == 15 && k + 1 < k_pad) return k + 1;
  return k;
}

/* Whether split-K partial number `split` is dropped from the reduction. */
LUTMM_HD static inline int lutmm_fault_drop_partial(int64_t split) {
  return LUTMM_FAULT == LUTMM_FAULT_DROPPED_PARTIAL && split == 1;
}

#endif
