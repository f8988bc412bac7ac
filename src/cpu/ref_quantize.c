/* Reference quantization: absmax group scales, nearest table entry.
 * Work is split into (group, block of columns) tiles that sweep rows of W
 * contiguously; each scale and code depends on its own group only, so the
 * result does not depend on the split. */
#include <math.h>

#include "quant_rule.h"
#include "reference.h"
#include "tables.h"

#define COLUMN_BLOCK 256

static int all_finite(const float *w, size_t count, int threads) {
  int finite = 1;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(&& : finite)
  for (size_t i = 0; i < count; i++) finite = finite && lutmm_f32_is_finite(w[i]);
  return finite;
}

typedef struct quant_job {
  const lutmm_quant_params *p;
  const lutmm_geometry *g;
  const float *midpoints;
  int num_midpoints;
  float table_max;
  const float *w;
  uint8_t *codes;
  void *scales;
} quant_job;

/* Quantizes columns [n0, n1) of one group; returns 0 when a scale overflows. */
static int quantize_tile(const quant_job *job, int64_t group, int64_t n0, int64_t n1) {
  const int64_t ncols = job->p->n, k0 = group * job->g->group_size, k1 = k0 + job->g->group_size;
  float scale[COLUMN_BLOCK] = {0};
  for (int64_t k = k0; k < k1; k++)
    for (int64_t n = n0; n < n1; n++) scale[n - n0] = fmaxf(scale[n - n0], fabsf(job->w[k * ncols + n]));
  int ok = 1;
  for (int64_t n = n0; n < n1; n++) {
    scale[n - n0] = lutmm_group_scale(scale[n - n0], job->table_max, job->p->scale_dtype);
    ok = ok && lutmm_f32_is_finite(scale[n - n0]);
    lutmm_store_scale(job->scales, job->p->scale_dtype, group * ncols + n, scale[n - n0]);
  }
  for (int64_t k = k0; k < k1; k++)
    for (int64_t n = n0; n < n1; n++)
      job->codes[k * ncols + n] =
          (uint8_t)lutmm_nearest_code(job->midpoints, job->num_midpoints, job->w[k * ncols + n], scale[n - n0]);
  return ok;
}

lutmm_status lutmm_ref_quantize(lutmm_context *ctx, const lutmm_quant_params *p, const lutmm_geometry *g,
                                const float *host_table, const float *table, const float *w, uint8_t *codes,
                                void *scales) {
  (void)table;
  const int threads = lutmm_ref_threads(ctx->num_threads);
  if (!all_finite(w, g->weight_count, threads)) return LUTMM_ERR_NON_FINITE;
  const int size = 1 << p->bits;
  float midpoints[LUTMM_MAX_TABLE_SIZE];
  for (int i = 0; i + 1 < size; i++) midpoints[i] = lutmm_midpoint(host_table[i], host_table[i + 1]);
  const quant_job job = {p, g, midpoints, size - 1, lutmm_table_max_magnitude(host_table, size), w, codes, scales};
  const int64_t blocks = (p->n + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
  int ok = 1;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(&& : ok)
  for (int64_t tile = 0; tile < g->num_groups * blocks; tile++) {
    const int64_t group = tile / blocks, n0 = (tile % blocks) * COLUMN_BLOCK;
    const int64_t n1 = n0 + COLUMN_BLOCK < p->n ? n0 + COLUMN_BLOCK : p->n;
    ok = quantize_tile(&job, group, n0, n1) && ok;
  }
  return ok ? LUTMM_OK : LUTMM_ERR_SCALE_OVERFLOW;
}
