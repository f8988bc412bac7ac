/* Serialized weights: the record round-trips to weights that unpack and
 * multiply identically; every single-byte corruption, truncation, extension
 * and a wrong magic are LUTMM_ERR_CORRUPT_DATA; a short output buffer is
 * LUTMM_ERR_BUFFER_TOO_SMALL with the needed size reported. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "floats.h"

/* Deserializes a (possibly damaged) record; the weights pointer must stay
 * untouched on failure. */
static lutmm_status load(lutmm_context *ctx, const uint8_t *record, size_t size, lutmm_weights **out) {
  lutmm_weights *sentinel = (lutmm_weights *)(uintptr_t)0x5AFE;
  lutmm_weights *w = sentinel;
  const lutmm_status st = lutmm_weights_deserialize(ctx, record, size, &w);
  if (st != LUTMM_OK && w != sentinel) unit_fail(__FILE__, __LINE__, "weights written on failure");
  if (st == LUTMM_OK && out != NULL) *out = w;
  else if (st == LUTMM_OK) lutmm_weights_destroy(w);
  return st;
}

/* Same codes, scales, table and GEMM bits from two weights objects. */
static void check_equivalent(lutmm_context *ctx, const packed_case *pc, const lutmm_weights *copy) {
  const lutmm_quant_params *p = &pc->params;
  const size_t count = (size_t)(p->k * p->n), scale_bytes = scale_array_bytes(p, pc->groups);
  uint8_t *codes = malloc(count), *scales = malloc(scale_bytes);
  float table[LUTMM_MAX_TABLE_SIZE];
  CHECK_OK(lutmm_unpack(ctx, copy, codes, scales, table));
  CHECK(memcmp(codes, pc->codes, count) == 0);
  CHECK(memcmp(scales, pc->scales, scale_bytes) == 0);
  CHECK(memcmp(table, pc->table, sizeof(float) << p->bits) == 0);
  lutmm_weights_info a, b;
  CHECK_OK(lutmm_weights_query(pc->weights, &a));
  CHECK_OK(lutmm_weights_query(copy, &b));
  CHECK(a.params.bits == b.params.bits && a.params.k == b.params.k && a.params.n == b.params.n &&
        a.params.group_size == b.params.group_size && a.params.scale_dtype == b.params.scale_dtype);
  CHECK(a.num_groups == b.num_groups && a.packed_bytes == b.packed_bytes && a.scale_bytes == b.scale_bytes);
  const int64_t m = 3;
  unit_rng r = {17};
  uint16_t *x = malloc((size_t)(m * p->k) * 2);
  for (int64_t i = 0; i < m * p->k; i++) x[i] = unit_bf16_bits(rng_uniform(&r, -1.0f, 1.0f));
  const size_t y_bytes = (size_t)(m * p->n) * 4;
  guarded y1 = guarded_alloc(y_bytes, 0xFF), y2 = guarded_alloc(y_bytes, 0xFF);
  CHECK_OK(lutmm_gemm(ctx, pc->weights, m, x, LUTMM_DTYPE_BF16, y1.data, LUTMM_DTYPE_F32));
  CHECK_OK(lutmm_gemm(ctx, copy, m, x, LUTMM_DTYPE_BF16, y2.data, LUTMM_DTYPE_F32));
  CHECK(memcmp(y1.data, y2.data, y_bytes) == 0);
  CHECK(guarded_intact(&y1) && guarded_intact(&y2));
  guarded_free(&y1), guarded_free(&y2);
  free(codes), free(scales), free(x);
}

static void round_trip(void) {
  lutmm_context *ctx = unit_context();
  const lutmm_quant_params params[] = {{4, 128, 65, 32, LUTMM_DTYPE_F16}, {3, 5, 7, 0, LUTMM_DTYPE_BF16},
                                       {8, 80, 1, 16, LUTMM_DTYPE_F32}, {1, 16, 130, 16, LUTMM_DTYPE_F16}};
  for (size_t c = 0; c < sizeof params / sizeof params[0]; c++) {
    packed_case pc;
    if (!packed_case_make(ctx, &params[c], 31 + c, &pc)) continue;
    size_t size;
    uint8_t *record = serialize_copy(ctx, pc.weights, &size);
    lutmm_weights *copy = NULL;
    if (record != NULL) CHECK_OK(load(ctx, record, size, &copy));
    if (copy != NULL) {
      check_equivalent(ctx, &pc, copy);
      /* Serializing the copy gives the same bytes again. */
      size_t size2;
      uint8_t *again = serialize_copy(ctx, copy, &size2);
      CHECK(again != NULL && size2 == size && memcmp(again, record, size) == 0);
      free(again);
    }
    lutmm_weights_destroy(copy);
    free(record);
    packed_case_free(&pc);
  }
  lutmm_context_destroy(ctx);
}

/* A small record for the corruption cases (one atom, a few KiB). */
static uint8_t *small_record(lutmm_context *ctx, size_t *size) {
  const lutmm_quant_params p = {3, 48, 5, 16, LUTMM_DTYPE_F16};
  packed_case pc;
  uint8_t *record = NULL;
  if (packed_case_make(ctx, &p, 9, &pc)) record = serialize_copy(ctx, pc.weights, size);
  packed_case_free(&pc);
  return record;
}

/* Every byte, flipped (all bits, and the lowest bit alone), is caught. */
static void flipped_bytes(void) {
  lutmm_context *ctx = unit_context();
  size_t size = 0;
  uint8_t *record = small_record(ctx, &size);
  if (record != NULL) {
    CHECK_OK(load(ctx, record, size, NULL));
    size_t accepted = 0;
    for (size_t i = 0; i < size; i++) {
      const uint8_t masks[2] = {0xFF, 0x01};
      for (int j = 0; j < 2; j++) {
        record[i] ^= masks[j];
        accepted += load(ctx, record, size, NULL) != LUTMM_ERR_CORRUPT_DATA;
        record[i] ^= masks[j];
      }
    }
    if (accepted) unit_fail(__FILE__, __LINE__, "%zu corrupted records not reported as corrupt", accepted);
  }
  free(record);
  lutmm_context_destroy(ctx);
}

/* Every shorter prefix and a longer buffer are corrupt. */
static void truncated(void) {
  lutmm_context *ctx = unit_context();
  size_t size = 0;
  uint8_t *record = small_record(ctx, &size);
  if (record != NULL) {
    size_t accepted = 0;
    for (size_t cut = 0; cut < size; cut++) {
      /* A private copy of the prefix, so reading past it is caught by the
       * memory checkers rather than by luck. */
      uint8_t *prefix = malloc(cut ? cut : 1);
      memcpy(prefix, record, cut);
      accepted += load(ctx, prefix, cut, NULL) != LUTMM_ERR_CORRUPT_DATA;
      free(prefix);
    }
    if (accepted) unit_fail(__FILE__, __LINE__, "%zu truncated records accepted", accepted);
    uint8_t *longer = calloc(size + 16, 1);
    memcpy(longer, record, size);
    CHECK_STATUS(LUTMM_ERR_CORRUPT_DATA, load(ctx, longer, size + 16, NULL));
    free(longer);
  }
  free(record);
  lutmm_context_destroy(ctx);
}

/* Header fields out of range or inconsistent with each other are corrupt
 * even when the checksum is made to agree, so the header checks stand on
 * their own. (N = 6 instead of 5 would still be a consistent record: same
 * padded sizes, and the padding scale of column 5 is a valid 0.) */
static uint64_t fnv1a64(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

static void reseal(uint8_t *record, size_t size) {
  const uint64_t h = fnv1a64(record, size - 8);
  for (int i = 0; i < 8; i++) record[size - 8 + i] = (uint8_t)(h >> (8 * i));
}

static void bad_header(void) {
  lutmm_context *ctx = unit_context();
  size_t size = 0;
  uint8_t *record = small_record(ctx, &size);
  if (record != NULL) {
    CHECK(memcmp(record, "LUTMMW\0\1", 8) == 0);
    uint8_t *copy = malloc(size);
    const struct { size_t offset; uint8_t value; } edits[] = {
        {0, 'X'},  /* magic */
        {7, 2},    /* magic's last byte */
        {8, 2},    /* format version */
        {12, 9},   /* bits out of range */
        {12, 0},   /* bits 0 */
        {16, 3},   /* scale dtype out of range */
        {20, 1},   /* reserved */
        {24, 47},  /* K no longer a multiple of the group */
        {32, 65},  /* N = 65 needs two atom columns: sizes no longer match */
        {40, 8},   /* group size not a multiple of 16 */
        {49, 0},   /* packed bytes 1536 = 0x600 → 0 */
        {56, 1},   /* scale bytes */
    };
    for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
      memcpy(copy, record, size);
      copy[edits[e].offset] = edits[e].value;
      reseal(copy, size);
      if (load(ctx, copy, size, NULL) != LUTMM_ERR_CORRUPT_DATA)
        unit_fail(__FILE__, __LINE__, "header edit at %zu accepted", edits[e].offset);
    }
    /* The reseal itself is right: an unedited record still loads. */
    memcpy(copy, record, size);
    reseal(copy, size);
    CHECK_OK(load(ctx, copy, size, NULL));
    /* Resealed payload damage: a descending table (NF3's T[1] set to
     * FLT_MAX), a NaN scale inside the matrix, a non-zero padding scale.
     * Layout: 64 header + 32 table + 1536 planes (one atom, 3 bits), then
     * the fp16 scales, 64 per row. */
    const size_t table_at = 64, scales_at = 64 + 32 + 1536;
    const struct { size_t offset; uint8_t bytes[4]; size_t count; } damage[] = {
        {table_at + 4, {0xFF, 0xFF, 0x7F, 0x7F}, 4}, /* T[1] = FLT_MAX > T[2] */
        {table_at + 4, {0x00, 0x00, 0xC0, 0x7F}, 4}, /* T[1] = NaN */
        {scales_at, {0x00, 0x7E}, 2},                /* scale (0, 0) = NaN */
        {scales_at + 2 * 3, {0x00, 0x7C}, 2},        /* scale (0, 3) = Inf */
        {scales_at + 2 * 5, {0x00, 0x3C}, 2},        /* padding column 5 = 1.0 */
        {scales_at + 2 * 64 * 3, {0x00, 0x3C}, 2},   /* padding row 3 = 1.0 */
    };
    for (size_t d = 0; d < sizeof damage / sizeof damage[0]; d++) {
      memcpy(copy, record, size);
      memcpy(copy + damage[d].offset, damage[d].bytes, damage[d].count);
      reseal(copy, size);
      if (load(ctx, copy, size, NULL) != LUTMM_ERR_CORRUPT_DATA)
        unit_fail(__FILE__, __LINE__, "payload damage %zu accepted", d);
    }
    free(copy);
  }
  free(record);
  lutmm_context_destroy(ctx);
}

/* serialize: size query, exact capacity, one byte short. */
static void buffer_too_small(void) {
  lutmm_context *ctx = unit_context();
  const lutmm_quant_params p = {2, 32, 3, 16, LUTMM_DTYPE_BF16};
  packed_case pc;
  if (packed_case_make(ctx, &p, 1, &pc)) {
    size_t need = 0;
    CHECK_OK(lutmm_weights_serialize(ctx, pc.weights, NULL, 0, &need));
    /* header + table + one atom of 2 bits + ceil(64/16) = 4 scale rows × 64 × 2
     * bytes + checksum */
    CHECK_EQ_INT(need, 64 + 16 + 1024 + 4 * 64 * 2 + 8);
    guarded buffer = guarded_alloc(need, 0xAB);
    size_t size = 0;
    CHECK_STATUS(LUTMM_ERR_BUFFER_TOO_SMALL, lutmm_weights_serialize(ctx, pc.weights, buffer.data, need - 1, &size));
    CHECK_EQ_INT(size, need);
    for (size_t i = 0; i < need; i++)
      if (buffer.data[i] != 0xAB) {
        unit_fail(__FILE__, __LINE__, "buffer written at %zu on BUFFER_TOO_SMALL", i);
        break;
      }
    CHECK_STATUS(LUTMM_ERR_BUFFER_TOO_SMALL, lutmm_weights_serialize(ctx, pc.weights, buffer.data, 0, &size));
    size = 0;
    CHECK_OK(lutmm_weights_serialize(ctx, pc.weights, buffer.data, need, &size));
    CHECK_EQ_INT(size, need);
    CHECK(guarded_intact(&buffer));
    guarded_free(&buffer);
  }
  packed_case_free(&pc);
  lutmm_context_destroy(ctx);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"round_trip", round_trip}, {"flipped_bytes", flipped_bytes}, {"truncated", truncated},
      {"bad_header", bad_header}, {"buffer_too_small", buffer_too_small},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
