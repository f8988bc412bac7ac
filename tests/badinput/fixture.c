#include <stdlib.h>
#include <string.h>

#include "badinput.h"

lutmm_context *bad_try_context(lutmm_backend backend) {
  lutmm_context *ctx = NULL;
  return lutmm_context_create(backend, &ctx) == LUTMM_OK ? ctx : NULL;
}

void bad_fix_checksum(uint8_t *record, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 < size; i++) h = (h ^ record[i]) * 0x100000001b3ull;
  for (int i = 0; i < 8; i++) record[size - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
}

static lutmm_status serialize(bad_fixture *fx) {
  lutmm_status st = lutmm_weights_serialize(fx->ctx, fx->weights, NULL, 0, &fx->record_size);
  if (st != LUTMM_OK) return st;
  if ((fx->record = malloc(fx->record_size)) == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  return lutmm_weights_serialize(fx->ctx, fx->weights, fx->record, fx->record_size, &fx->record_size);
}

int bad_fixture_init(bad_fixture *fx) {
  memset(fx, 0, sizeof *fx);
  const lutmm_quant_params p = {BAD_BITS, BAD_K, BAD_N, BAD_GROUP, LUTMM_DTYPE_F16};
  fx->params = p;
  if (lutmm_context_create(LUTMM_BACKEND_REFERENCE, &fx->ctx) != LUTMM_OK) return 0;
  for (int i = 0; i < BAD_K * BAD_N; i++) fx->w[i] = (float)((i * 37) % 23 - 11) * 0.125f;
  for (int i = 0; i < BAD_M * BAD_K; i++) fx->x[i] = (float)((i * 11) % 7 - 3) * 0.5f;
  lutmm_status st = lutmm_table_nf(fx->ctx, BAD_BITS, fx->table);
  if (st == LUTMM_OK) st = lutmm_quantize(fx->ctx, &fx->params, fx->table, fx->w, fx->codes, fx->scales);
  if (st == LUTMM_OK) st = lutmm_pack(fx->ctx, &fx->params, fx->table, fx->codes, fx->scales, &fx->weights);
  if (st == LUTMM_OK) st = serialize(fx);
  return st == LUTMM_OK;
}

void bad_fixture_fini(bad_fixture *fx) {
  lutmm_weights_destroy(fx->weights);
  lutmm_context_destroy(fx->ctx);
  free(fx->record);
}
