/* Reading and writing one code in packed planes through the layout map.
 * Host-side helpers for pack, unpack and the reference; kernels read whole
 * vectors instead. */
#ifndef LUTMM_CODES_H
#define LUTMM_CODES_H

#include <stdint.h>

#include "geometry.h"
#include "layout.h"

static inline int lutmm_read_code(const uint8_t *planes, const lutmm_geometry *g, int64_t k, int64_t n) {
  const lutmm_code_site site = lutmm_code_site_of(g->k_atoms, k, n);
  int code = 0;
  for (int s = 0; s < g->slicing.count; s++) {
    const int w = g->slicing.width[s];
    int bit;
    const size_t byte = g->plane_offset[s] + lutmm_plane_byte(w, site, &bit);
    code |= ((planes[byte] >> bit) & ((1 << w) - 1)) << g->slicing.shift[s];
  }
  return code;
}

/* ORs the code's slices into zeroed planes. */
static inline void lutmm_write_code(uint8_t *planes, const lutmm_geometry *g, int64_t k, int64_t n, int code) {
  const lutmm_code_site site = lutmm_code_site_of(g->k_atoms, k, n);
  for (int s = 0; s < g->slicing.count; s++) {
    const int w = g->slicing.width[s];
    int bit;
    const size_t byte = g->plane_offset[s] + lutmm_plane_byte(w, site, &bit);
    planes[byte] |= (uint8_t)(((code >> g->slicing.shift[s]) & ((1 << w) - 1)) << bit);
  }
}

/* Index of the scale of element (k, n) in the padded scale array. */
static inline int64_t lutmm_scale_index(const lutmm_geometry *g, int64_t k, int64_t n) {
  return (k / g->group_size) * g->n_pad + n;
}

#endif
