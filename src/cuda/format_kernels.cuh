/* Device view of a weights object for the format kernels (pack, unpack,
 * dequantize): the geometry and pointers, passed by value. */
#ifndef LUTMM_CUDA_FORMAT_KERNELS_CUH
#define LUTMM_CUDA_FORMAT_KERNELS_CUH

#include <stdint.h>

#include "backend.h"
#include "layout.h"

struct lutmm_device_weights {
  uint8_t *planes;
  const void *scales;
  int bits;
  int scale_dtype;
  int64_t k, n, n_pad, k_atoms, n_atoms, group_size;
  lutmm_slicing slicing;
  uint64_t plane_offset[LUTMM_MAX_SLICES];
  float table[LUTMM_MAX_TABLE_SIZE];
};

static inline lutmm_device_weights lutmm_device_weights_of(const lutmm_weights *w) {
  lutmm_device_weights d;
  d.planes = (uint8_t *)w->planes;
  d.scales = w->scales;
  d.bits = w->params.bits;
  d.scale_dtype = (int)w->params.scale_dtype;
  d.k = w->params.k;
  d.n = w->params.n;
  d.n_pad = w->geom.n_pad;
  d.k_atoms = w->geom.k_atoms;
  d.n_atoms = w->geom.n_atoms;
  d.group_size = w->geom.group_size;
  d.slicing = w->geom.slicing;
  for (int s = 0; s < LUTMM_MAX_SLICES; s++) d.plane_offset[s] = w->geom.plane_offset[s];
  for (int i = 0; i < LUTMM_MAX_TABLE_SIZE; i++) d.table[i] = i < (1 << d.bits) ? w->table[i] : 0.0f;
  return d;
}

/* The code at (k, n), read through the layout map (as codes.h does on the host). */
__device__ static inline int lutmm_device_read_code(const lutmm_device_weights &d, int64_t k, int64_t n) {
  const lutmm_code_site site = lutmm_code_site_of(d.k_atoms, k, n);
  int code = 0;
  for (int s = 0; s < d.slicing.count; s++) {
    const int w = d.slicing.width[s];
    int bit;
    const size_t byte = d.plane_offset[s] + lutmm_plane_byte(w, site, &bit);
    code |= ((d.planes[byte] >> bit) & ((1 << w) - 1)) << d.slicing.shift[s];
  }
  return code;
}

/* Grid size for a grid-stride loop over `count` items. */
static inline unsigned lutmm_grid_for(int64_t count, int threads) {
  const int64_t blocks = (count + threads - 1) / threads;
  return (unsigned)(blocks < 4096 ? (blocks > 0 ? blocks : 1) : 4096);
}

#endif
