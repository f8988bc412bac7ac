/* Bound-mode cases: general data. Any table kind, weights drawn from a
 * roughly normal distribution with random magnitude and quantized by the
 * reference, activations likewise and rounded to their dtype. The backend
 * under test must stay inside lutmm_reference_gemm's per-element bound. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_case.h"
#include "fuzz_float.h"

/* Sum of four uniforms, centred: roughly normal, unit variance. */
static double normalish(fz_source *s) {
  const uint64_t r = fz_bulk(s);
  double sum = 0.0;
  for (int i = 0; i < 4; i++) sum += (double)((r >> (16 * i)) & 0xFFFFu) * 0x1p-16;
  return (sum - 2.0) * 1.7320508075688772;
}

/* Weights around the table's own magnitude, so scales stay near 2^-6..2^2
 * and fit every scale dtype whatever the table. */
static void fill_weights(fz_source *s, fz_case *c) {
  const double table_max = fmax(-c->table[0], c->table[(1 << c->p.bits) - 1]);
  const int exponent = (int)fz_range(s, -6, 2);
  for (int64_t i = 0; i < c->p.k * c->p.n; i++) {
    const uint64_t r = fz_bulk(s);
    /* Occasional exact zeros and outliers shape the group scales. */
    const double v = (r & 31) == 0 ? 0.0 : normalish(s) * ((r & 0x3E0) == 0 ? 16.0 : 1.0);
    c->w[i] = (float)ldexp(v * table_max, exponent);
  }
}

static void fill_activations(fz_source *s, fz_case *c) {
  const int exponent = (int)fz_range(s, -3, 1);
  for (int64_t i = 0; i < c->m * c->p.k; i++) {
    const double v = (fz_bulk(s) & 15) == 0 ? 0.0 : ldexp(normalish(s), exponent);
    fz_store(c->x, c->x_dtype, i, v);
  }
}

lutmm_status fz_bound_fill(fz_source *s, lutmm_context *host, fz_case *c) {
  lutmm_status st = fz_draw_table(s, host, c->table_kind, c->p.bits, c->table);
  if (st != LUTMM_OK) return st;
  c->w = malloc(sizeof(float) * (size_t)(c->p.k * c->p.n));
  if (c->w == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  fill_weights(s, c);
  fill_activations(s, c);
  /* `host` is a host-memory context: its buffers are plain pointers. */
  return lutmm_quantize(host, &c->p, c->table, c->w, c->codes, c->scales);
}
