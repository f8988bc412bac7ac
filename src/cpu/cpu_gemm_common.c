/* Steps every CPU gemm path shares: widening X, per-call kernel arguments. */
#include "cpu_backend.h"
#include "cpu_round.h"
#include "numeric.h"

/* Row m of X widened to float, zero past k. */
static void widen_row(const lutmm_gemm_args *args, int64_t m, int64_t k, int64_t k32, float *row) {
  if (args->x_dtype == LUTMM_DTYPE_F32) {
    const float *src = (const float *)args->x + m * k;
    for (int64_t i = 0; i < k; i++) row[i] = src[i];
  } else {
    for (int64_t i = 0; i < k; i++) row[i] = lutmm_load_as_f32(args->x, args->x_dtype, m * k + i);
  }
  for (int64_t i = k; i < k32; i++) row[i] = 0.0f;
}

/* A widened row put in lane order, chunk by chunk. */
static void to_lane_order(const float *row, int64_t k32, float *out) {
  for (int64_t c = 0; c < k32; c += CPU_CHUNK_K)
    for (int p = 0; p < CPU_CHUNK_K; p++) out[c + p] = row[c + cpu_lane_row(p)];
}

void cpu_widen_x(const lutmm_gemm_args *args, int64_t k, int64_t k32, int lane_order, float *x_out, int threads) {
#pragma omp parallel num_threads(threads)
  {
    float chunk_row[CPU_CHUNK_K];
#pragma omp for schedule(static)
    for (int64_t m = 0; m < args->m; m++) {
      float *row = x_out + m * k32;
      if (!lane_order) {
        widen_row(args, m, k, k32, row);
        continue;
      }
      /* Chunk by chunk through a small buffer: the row is not copied twice. */
      for (int64_t c = 0; c < k32; c += CPU_CHUNK_K) {
        const int64_t valid = k - c < CPU_CHUNK_K ? (k - c > 0 ? k - c : 0) : CPU_CHUNK_K;
        for (int64_t i = 0; i < CPU_CHUNK_K; i++)
          chunk_row[i] = i < valid ? lutmm_load_as_f32(args->x, args->x_dtype, m * k + c + i) : 0.0f;
        to_lane_order(chunk_row, CPU_CHUNK_K, row + c);
      }
    }
  }
}

void cpu_kernel_args_init(const lutmm_weights *w, const cpu_codes *codes, lutmm_dtype c, float *table_c,
                          cpu_kernel_args *a) {
  const int size = 1 << w->params.bits;
  float smallest = 0.0f;
  for (int i = 0; i < LUTMM_MAX_TABLE_SIZE; i++) {
    table_c[i] = i < size ? cpu_round_to(w->table[i], c) : 0.0f;
    const float magnitude = table_c[i] < 0.0f ? -table_c[i] : table_c[i];
    if (magnitude != 0.0f && (smallest == 0.0f || magnitude < smallest)) smallest = magnitude;
  }
  a->codes = codes;
  a->scales = w->scales;
  a->scale_dtype = w->params.scale_dtype;
  a->scale_ld = w->geom.n_pad;
  a->group_size = w->geom.group_size;
  a->n = w->params.n;
  a->c = c;
  a->table = w->table;
  a->table_c = table_c;
  a->table_c_min = smallest;
}
