/* pack → unpack gives back exactly the codes, scales and table that went
 * in, for every width, several group sizes and ragged K and N; and the
 * weights report the sizes the format implies. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "floats.h"

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Sizes docs/FORMAT.md implies: 512·w bytes per 64×64 atom per plane, and
 * the widths of a code's planes add up to its bits; scales padded to
 * ceil(k_pad / group) rows of n_pad. */
static void check_info(const packed_case *c) {
  lutmm_weights_info info;
  CHECK_OK(lutmm_weights_query(c->weights, &info));
  const lutmm_quant_params *p = &c->params;
  const int64_t k_pad = ceil_div(p->k, 64) * 64, n_pad = ceil_div(p->n, 64) * 64;
  const int64_t group = p->group_size == 0 ? p->k : p->group_size;
  CHECK_EQ_INT(info.params.bits, p->bits);
  CHECK_EQ_INT(info.params.k, p->k);
  CHECK_EQ_INT(info.params.n, p->n);
  CHECK_EQ_INT(info.params.group_size, p->group_size);
  CHECK_EQ_INT(info.params.scale_dtype, p->scale_dtype);
  CHECK_EQ_INT(info.num_groups, c->groups);
  CHECK_EQ_INT(info.backend, LUTMM_BACKEND_REFERENCE);
  CHECK_EQ_INT(info.packed_bytes, (k_pad / 64) * (n_pad / 64) * 512 * p->bits);
  CHECK_EQ_INT(info.scale_bytes, ceil_div(k_pad, group) * n_pad * (int64_t)unit_dtype_size(p->scale_dtype));
}

/* Unpacks into guarded buffers and compares bytes. */
static void check_unpack(lutmm_context *ctx, const packed_case *c) {
  const size_t count = (size_t)c->params.k * (size_t)c->params.n;
  const size_t scale_bytes = scale_array_bytes(&c->params, c->groups);
  const size_t table_bytes = sizeof(float) << c->params.bits;
  guarded codes = guarded_alloc(count, 0xFF), scales = guarded_alloc(scale_bytes, 0xFF);
  guarded table = guarded_alloc(table_bytes, 0xFF);
  CHECK_OK(lutmm_unpack(ctx, c->weights, codes.data, scales.data, (float *)table.data));
  if (memcmp(codes.data, c->codes, count) != 0 || memcmp(scales.data, c->scales, scale_bytes) != 0 ||
      memcmp(table.data, c->table, table_bytes) != 0)
    unit_fail(__FILE__, __LINE__, "round trip differs: bits %d k %lld n %lld group %lld dtype %d", c->params.bits,
              (long long)c->params.k, (long long)c->params.n, (long long)c->params.group_size,
              c->params.scale_dtype);
  CHECK(guarded_intact(&codes) && guarded_intact(&scales) && guarded_intact(&table));
  guarded_free(&codes), guarded_free(&scales), guarded_free(&table);
}

/* (K, group) pairs: groups that divide K, and whole columns for any K. */
static const struct { int64_t k, group; } kShapes[] = {
    {16, 16}, {16, 0},  {48, 16},  {48, 48},   {48, 0},   {64, 16},  {64, 32}, {64, 0},
    {80, 16}, {80, 0},  {200, 0},  {256, 32},  {256, 128}, {256, 0}, {1, 0},   {5, 0}, {100, 0},
};
static const int64_t kColumns[] = {1, 7, 63, 64, 65, 130};

static void round_trip_bits(int bits) {
  lutmm_context *ctx = unit_context();
  int cases = 0;
  for (size_t s = 0; s < sizeof kShapes / sizeof kShapes[0]; s++) {
    for (size_t c = 0; c < sizeof kColumns / sizeof kColumns[0]; c++) {
      const lutmm_quant_params p = {bits, kShapes[s].k, kColumns[c], kShapes[s].group, (lutmm_dtype)(cases % 3)};
      packed_case pc;
      if (packed_case_make(ctx, &p, 1000u * (uint64_t)bits + (uint64_t)cases, &pc)) {
        check_info(&pc);
        check_unpack(ctx, &pc);
      }
      packed_case_free(&pc);
      cases++;
    }
  }
  lutmm_context_destroy(ctx);
}

static void bits1(void) { round_trip_bits(1); }
static void bits2(void) { round_trip_bits(2); }
static void bits3(void) { round_trip_bits(3); }
static void bits4(void) { round_trip_bits(4); }
static void bits5(void) { round_trip_bits(5); }
static void bits6(void) { round_trip_bits(6); }
static void bits7(void) { round_trip_bits(7); }
static void bits8(void) { round_trip_bits(8); }

/* Scales come back bit for bit whatever finite pattern they hold: −0,
 * subnormals, the largest finite value, arbitrary mantissas. */
static void scale_patterns(void) {
  lutmm_context *ctx = unit_context();
  unit_rng r = {7};
  for (int d = 0; d < 3; d++) {
    const lutmm_quant_params p = {3, 64, 70, 16, (lutmm_dtype)d};
    packed_case pc;
    if (!packed_case_make(ctx, &p, 5, &pc)) continue;
    lutmm_weights_destroy(pc.weights);
    pc.weights = NULL;
    const size_t count = (size_t)pc.groups * (size_t)p.n;
    for (size_t i = 0; i < count; i++) {
      if (p.scale_dtype == LUTMM_DTYPE_F32) {
        uint32_t u = (uint32_t)rng_next(&r);
        if (((u >> 23) & 0xFF) == 0xFF) u &= 0x807FFFFFu; /* keep it finite */
        if (i < 4) u = (uint32_t[]){0x80000000u, 0x00000001u, 0x7F7FFFFFu, 0xFF7FFFFFu}[i];
        ((uint32_t *)pc.scales)[i] = u;
      } else {
        const int exp_bits = p.scale_dtype == LUTMM_DTYPE_F16 ? 5 : 8, mant = 15 - exp_bits;
        const uint16_t exp_mask = (uint16_t)(((1u << exp_bits) - 1u) << mant);
        uint16_t u = (uint16_t)rng_next(&r);
        if ((u & exp_mask) == exp_mask) u &= (uint16_t)~exp_mask;
        if (i < 4) u = (uint16_t[]){0x8000u, 0x0001u, (uint16_t)(exp_mask - 1u), (uint16_t)(0x8000u | (exp_mask - 1u))}[i];
        ((uint16_t *)pc.scales)[i] = u;
      }
    }
    CHECK_OK(lutmm_pack(ctx, &p, pc.table, pc.codes, pc.scales, &pc.weights));
    if (pc.weights != NULL) check_unpack(ctx, &pc);
    packed_case_free(&pc);
  }
  lutmm_context_destroy(ctx);
}

/* Any output of unpack may be skipped; the others are still written and
 * the skipped ones are not required. */
static void partial_unpack(void) {
  lutmm_context *ctx = unit_context();
  const lutmm_quant_params p = {5, 48, 65, 16, LUTMM_DTYPE_BF16};
  packed_case pc;
  if (packed_case_make(ctx, &p, 11, &pc)) {
    const size_t count = (size_t)p.k * (size_t)p.n, scale_bytes = scale_array_bytes(&p, pc.groups);
    uint8_t *codes = malloc(count), *scales = malloc(scale_bytes);
    float table[32];
    CHECK_OK(lutmm_unpack(ctx, pc.weights, NULL, NULL, NULL));
    memset(codes, 0xFF, count);
    CHECK_OK(lutmm_unpack(ctx, pc.weights, codes, NULL, NULL));
    CHECK(memcmp(codes, pc.codes, count) == 0);
    memset(scales, 0xFF, scale_bytes);
    CHECK_OK(lutmm_unpack(ctx, pc.weights, NULL, scales, NULL));
    CHECK(memcmp(scales, pc.scales, scale_bytes) == 0);
    memset(table, 0xFF, sizeof table);
    CHECK_OK(lutmm_unpack(ctx, pc.weights, NULL, NULL, table));
    CHECK(memcmp(table, pc.table, sizeof table) == 0);
    free(codes), free(scales);
  }
  packed_case_free(&pc);
  lutmm_context_destroy(ctx);
}

/* A user table with repeated entries and −0 survives unchanged. */
static void user_table(void) {
  lutmm_context *ctx = unit_context();
  const float table[8] = {-7.5f, -0.0f, 0.0f, 0.0f, 1e-30f, 2.0f, 2.0f, 3e30f};
  uint8_t codes[16 * 3];
  uint16_t scales[3] = {0x3C00, 0x0001, 0x7BFF};
  for (int i = 0; i < 48; i++) codes[i] = (uint8_t)(i % 8);
  const lutmm_quant_params p = {3, 16, 3, 0, LUTMM_DTYPE_F16};
  lutmm_weights *w = NULL;
  CHECK_OK(lutmm_pack(ctx, &p, table, codes, scales, &w));
  if (w != NULL) {
    uint8_t back_codes[48];
    uint16_t back_scales[3];
    float back_table[8];
    CHECK_OK(lutmm_unpack(ctx, w, back_codes, back_scales, back_table));
    CHECK(memcmp(back_codes, codes, sizeof codes) == 0);
    CHECK(memcmp(back_scales, scales, sizeof scales) == 0);
    CHECK(memcmp(back_table, table, sizeof table) == 0);
  }
  lutmm_weights_destroy(w);
  lutmm_context_destroy(ctx);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"bits1", bits1}, {"bits2", bits2}, {"bits3", bits3}, {"bits4", bits4},
      {"bits5", bits5}, {"bits6", bits6}, {"bits7", bits7}, {"bits8", bits8},
      {"scale_patterns", scale_patterns}, {"partial_unpack", partial_unpack}, {"user_table", user_table},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
