/* Drawing, describing and freeing differential test cases. */
#include "fuzz_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_params.h"

static const int64_t kBatchSizes[] = {1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64};

static int compare_floats(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Ascending values of random magnitude; equal neighbours and zeros allowed. */
static void random_user_table(fz_source *s, int bits, float *table) {
  const int size = 1 << bits;
  const int exponent = (int)fz_range(s, -20, 20);
  for (int i = 0; i < size; i++) {
    const uint64_t r = fz_bulk(s);
    const double unit = (double)(r >> 11) * 0x1p-53 * 2.0 - 1.0;
    table[i] = (r & 7) == 0 ? 0.0f : (float)ldexp(unit, exponent);
  }
  qsort(table, (size_t)size, sizeof *table, compare_floats);
  if (table[size - 1] == 0.0f && table[0] == 0.0f) table[size - 1] = 1.0f;
}

lutmm_status fz_draw_table(fz_source *s, lutmm_context *ctx, fz_table_kind kind, int bits, float *table) {
  if (kind == FZ_TABLE_USER) {
    random_user_table(s, bits, table);
    return LUTMM_OK;
  }
  const size_t bytes = sizeof(float) * ((size_t)1 << bits);
  void *dev = NULL;
  lutmm_status st = lutmm_malloc(ctx, bytes, &dev);
  if (st != LUTMM_OK) return st;
  if (kind == FZ_TABLE_NF) st = lutmm_table_nf(ctx, bits, dev);
  else if (kind == FZ_TABLE_INT) st = lutmm_table_int(ctx, bits, dev);
  else st = lutmm_table_fp(ctx, bits, dev);
  if (st == LUTMM_OK) st = lutmm_copy_to_host(ctx, table, dev, bytes);
  lutmm_free(ctx, dev);
  return st;
}

static lutmm_status allocate_data(fz_case *c) {
  const size_t k = (size_t)c->p.k, n = (size_t)c->p.n, m = (size_t)c->m;
  c->codes = malloc(k * n);
  c->scales = malloc((size_t)c->groups * n * (c->p.scale_dtype == LUTMM_DTYPE_F32 ? 4 : 2));
  c->x = malloc(m * k * (c->x_dtype == LUTMM_DTYPE_F32 ? 4 : 2));
  return c->codes && c->scales && c->x ? LUTMM_OK : LUTMM_ERR_OUT_OF_MEMORY;
}

lutmm_status fz_case_draw(fz_source *s, fz_mode mode, lutmm_context *host, fz_case *c) {
  memset(c, 0, sizeof *c);
  c->mode = mode;
  const int row_kernel = s->cpu_rows && fz_below(s, 8) == 0;
  if (row_kernel) c->m = fz_range(s, 1, 2);
  else
    c->m = fz_below(s, 2) == 0 ? fz_pick(s, kBatchSizes, sizeof kBatchSizes / sizeof kBatchSizes[0])
                               : fz_range(s, 1, FZ_MAX_M);
  c->p = fz_draw_quant_params(s, FZ_MAX_KN);
  c->groups = c->p.group_size == 0 ? 1 : c->p.k / c->p.group_size;
  c->x_dtype = row_kernel ? LUTMM_DTYPE_F32 : fz_draw_dtype(s);
  c->y_dtype = fz_draw_dtype(s);
  /* Exact mode needs dyadic tables: INT, FP or dyadic user values. */
  c->table_kind = mode == FZ_EXACT ? (fz_table_kind)fz_range(s, FZ_TABLE_INT, FZ_TABLE_USER)
                                   : (fz_table_kind)fz_below(s, 4);
  lutmm_status st = allocate_data(c);
  if (st != LUTMM_OK) return st;
  return mode == FZ_EXACT ? fz_exact_fill(s, host, c) : fz_bound_fill(s, host, c);
}

void fz_case_free(fz_case *c) {
  free(c->w);
  free(c->codes);
  free(c->scales);
  free(c->x);
  memset(c, 0, sizeof *c);
}

void fz_case_describe(const fz_case *c, char *out, size_t cap) {
  static const char *const kTables[] = {"nf", "int", "fp", "user"};
  snprintf(out, cap, "mode=%s M=%lld K=%lld N=%lld bits=%d group=%lld table=%s scale=%s x=%s y=%s",
           c->mode == FZ_EXACT ? "exact" : "bound", (long long)c->m, (long long)c->p.k, (long long)c->p.n, c->p.bits,
           (long long)c->p.group_size, kTables[c->table_kind], fz_dtype_name(c->p.scale_dtype),
           fz_dtype_name(c->x_dtype), fz_dtype_name(c->y_dtype));
}
