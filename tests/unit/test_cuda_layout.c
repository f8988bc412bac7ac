/* The CUDA skinny kernel's shared-memory layout (src/cuda/gemm_params.h),
 * checked on the host: it is plain integer arithmetic that the host (block
 * size) and the kernel (addresses) both evaluate, so its invariants can be
 * proved here without a GPU. For every instantiation (bits 1..4, MB 1/2/4,
 * one-row or per-slab scales) and dynamic-memory bases 0..4 KiB:
 * regions in order and disjoint, the pair table on a 64 KiB boundary, every
 * ring slot 16-byte aligned, whole rings in the gap, and the Hopper block
 * limit (227 KiB) kept at the reserved base the CUDA runtime reports. */
#include <stdint.h>

#include "check.h"
#include "gemm_params.h"

#define HOPPER_BLOCK_LIMIT (227u * 1024u)
#define HOPPER_RESERVED 1024u

static void check_one(uint32_t base, int bits, int mb, int one_row) {
  const lutmm_skinny_layout l = lutmm_skinny_layout_at(base, bits, mb, one_row);
  const uint32_t warps = (uint32_t)lutmm_skinny_warps(mb), ring = LUTMM_SKINNY_RING(bits, mb, one_row);
  const uint32_t per_warp = ring * LUTMM_SKINNY_SLOT_BYTES(bits);
  const uint32_t x_bytes = 2u * (uint32_t)lutmm_skinny_chunk(mb) * 8u * (uint32_t)mb * LUTMM_SKINNY_X_ROW_BYTES;
  CHECK(l.x == base);
  CHECK(l.scales == l.x + x_bytes);
  CHECK(l.gap == l.scales + warps * ring * LUTMM_SKINNY_SCALE_ENTRY(one_row));
  CHECK(l.table % LUTMM_SKINNY_TABLE_ALIGN == 0 && l.table >= l.gap && l.table - l.gap < LUTMM_SKINNY_TABLE_ALIGN);
  CHECK(l.gap_warps <= warps && l.gap + l.gap_warps * per_warp <= l.table);
  CHECK(l.gap_warps == warps || l.gap + (l.gap_warps + 1) * per_warp > l.table); /* the gap is used fully */
  CHECK(l.above == l.table + lutmm_skinny_table_bytes(bits));
  CHECK(l.end == l.above + (warps - l.gap_warps) * per_warp);
  CHECK(l.gap % 16 == 0 && l.above % 16 == 0 && per_warp % 16 == 0 && LUTMM_SKINNY_SLOT_BYTES(bits) % 512 == 0);
  CHECK(ring >= 2 && ring <= 8); /* cp.async.wait_group takes 0..7 */
  CHECK(lutmm_skinny_smem_bytes(base, bits, mb, one_row) == (size_t)(l.end - base));
  if (base == HOPPER_RESERVED && lutmm_skinny_smem_bytes(base, bits, mb, one_row) > HOPPER_BLOCK_LIMIT)
    unit_fail(__FILE__, __LINE__, "bits %d MB %d one_row %d needs %zu bytes, over the Hopper limit", bits, mb,
              one_row, lutmm_skinny_smem_bytes(base, bits, mb, one_row));
}

static void skinny_layout(void) {
  for (uint32_t base = 0; base <= 4096; base += 256)
    for (int bits = 1; bits <= 4; bits++)
      for (int mb = 1; mb <= 4; mb *= 2)
        for (int one_row = 0; one_row < 2; one_row++) check_one(base, bits, mb, one_row);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {{"skinny_layout", skinny_layout}};
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
