#include "fuzz_params.h"

const int64_t FZ_TILE_SIZES[FZ_TILE_SIZE_COUNT] = {1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 191, 192, 193};

int64_t fz_draw_size(fz_source *s, int64_t max) {
  if (fz_below(s, 2) == 0) {
    const int64_t v = fz_pick(s, FZ_TILE_SIZES, FZ_TILE_SIZE_COUNT);
    return v <= max ? v : max;
  }
  return fz_range(s, 1, max);
}

int fz_draw_bits(fz_source *s) { return (int)fz_range(s, LUTMM_MIN_BITS, LUTMM_MAX_BITS); }

lutmm_dtype fz_draw_dtype(fz_source *s) { return (lutmm_dtype)fz_below(s, 3); }

int fz_group_options(int64_t k, int64_t options[8]) {
  const int64_t candidates[6] = {16, 32, 64, 128, 256, k};
  int count = 0;
  options[count++] = 0;
  for (int i = 0; i < 6; i++) {
    const int64_t g = candidates[i];
    int seen = 0;
    for (int j = 1; j < count; j++) seen = seen || options[j] == g;
    if (!seen && g % 16 == 0 && k % g == 0) options[count++] = g;
  }
  return count;
}

int64_t fz_draw_group(fz_source *s, int64_t k) {
  int64_t options[8];
  const int count = fz_group_options(k, options);
  return options[fz_below(s, (uint32_t)count)];
}

lutmm_quant_params fz_draw_quant_params(fz_source *s, int64_t max_dim) {
  lutmm_quant_params p;
  p.bits = fz_draw_bits(s);
  p.k = fz_draw_size(s, max_dim);
  p.n = fz_draw_size(s, max_dim);
  p.group_size = fz_draw_group(s, p.k);
  p.scale_dtype = fz_draw_dtype(s);
  return p;
}

const char *fz_dtype_name(lutmm_dtype dtype) {
  return dtype == LUTMM_DTYPE_F16 ? "f16" : dtype == LUTMM_DTYPE_BF16 ? "bf16" : "f32";
}
