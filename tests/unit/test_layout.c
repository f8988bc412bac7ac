/* The packed layout, checked from the outside: pack a matrix whose codes
 * are all 0 but one, read the planes back through lutmm_weights_serialize
 * (64-byte header, 4·2^bits table bytes, then the planes), and assert which
 * bytes and bits changed. Positions are worked out by hand from
 * src/common/layout.h and docs/FORMAT.md; then a model of the same
 * description, written here, predicts every byte of random matrices. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fixture.h"
#include "floats.h"

#define HEADER_BYTES 64

/* Planes of weights with the given single code at (k, n), all else 0.
 * Returns a malloc'd copy of the planes and their size. */
static uint8_t *planes_with_one_code(int bits, int64_t K, int64_t N, int64_t k, int64_t n, int code,
                                     size_t *planes_bytes) {
  lutmm_context *ctx = unit_context();
  const lutmm_quant_params p = {bits, K, N, 16, LUTMM_DTYPE_F16};
  const size_t count = (size_t)K * (size_t)N;
  uint8_t *codes = calloc(count, 1);
  uint16_t *scales = calloc((size_t)(K / 16) * (size_t)N, sizeof *scales);
  float table[LUTMM_MAX_TABLE_SIZE];
  nf_table(ctx, bits, table);
  codes[k * N + n] = (uint8_t)code;
  lutmm_weights *w = NULL;
  uint8_t *planes = NULL;
  CHECK_OK(lutmm_pack(ctx, &p, table, codes, scales, &w));
  lutmm_weights_info info;
  if (w != NULL && lutmm_weights_query(w, &info) == LUTMM_OK) {
    size_t size;
    uint8_t *record = serialize_copy(ctx, w, &size);
    const size_t offset = HEADER_BYTES + (sizeof(float) << bits);
    if (record != NULL && size >= offset + info.packed_bytes) {
      planes = malloc(info.packed_bytes);
      memcpy(planes, record + offset, info.packed_bytes);
      *planes_bytes = info.packed_bytes;
    }
    free(record);
  }
  lutmm_weights_destroy(w);
  free(codes), free(scales);
  lutmm_context_destroy(ctx);
  return planes;
}

/* One expected non-zero byte. */
typedef struct byte_value {
  size_t offset;
  uint8_t value;
} byte_value;

static void expect_bytes(int bits, int64_t K, int64_t N, int64_t k, int64_t n, int code, size_t total,
                         const byte_value *expected, int count) {
  size_t size = 0;
  uint8_t *planes = planes_with_one_code(bits, K, N, k, n, code, &size);
  if (planes == NULL) {
    unit_fail(__FILE__, __LINE__, "no planes for bits %d", bits);
    return;
  }
  CHECK_EQ_INT(size, total);
  for (size_t i = 0; i < size; i++) {
    uint8_t want = 0;
    for (int e = 0; e < count; e++)
      if (expected[e].offset == i) want = expected[e].value;
    if (planes[i] != want)
      unit_fail(__FILE__, __LINE__, "bits %d code %d at (%lld, %lld): byte %zu = 0x%02x, expected 0x%02x", bits, code,
                (long long)k, (long long)n, i, planes[i], want);
  }
  free(planes);
}

/* docs/FORMAT.md's worked example: b = 3, K = N = 64, code 6 = 0b110 at
 * (9, 2). f = 0, kk = 9, lane = 2·4 + 0 = 8, pair 1, elem 1.
 * Slice 0 (0b10, width 2): P = 8, word 0, q = 1, bit 8 + 2 = 10 → byte
 * 8·16 + 1 = 129, bit 2 → 0x08. Slice 1 (1, width 1, plane at 1024):
 * P = 16, q = 1, bit 8 + 1 = 9 → byte 1024 + 128 + 1 = 1153, bit 1 → 0x02. */
static void format_example(void) {
  expect_bytes(3, 64, 64, 9, 2, 6, 1536, (const byte_value[]){{129, 0x08}, {1153, 0x02}}, 2);
}

/* b = 3 across atoms: K = 128, N = 72 (2×2 atoms, KA = 2), (83, 69):
 * ka = 1, na = 1 → atom 1·2 + 1 = 3; kl = 19, nl = 5 → f = 1·8 + 0 = 8,
 * kk = 3 → lane 5·4 + 1 = 21, pair 16, elem 1.
 * Width 2: P = 8 → word 2, q = 0, bit 0 + 0 + 2 = 2; chunk 0, vector 21 →
 * 3·1024 + 21·16 + 2·4 = 3416, bit 2. Width 1 (plane at 4·1024 = 4096):
 * P = 16 → word 1, q = 0, bit 1; vector 21 → 4096 + 3·512 + 21·16 + 4 = 5972.
 * Code 7 = 0b1|11 sets 0x0C and 0x02; code 5 = 0b1|01 sets 0x04 and 0x02;
 * code 2 = 0b0|10 sets 0x08 only. */
static void three_bits_across_atoms(void) {
  const size_t total = 4 * 1024 + 4 * 512;
  expect_bytes(3, 128, 72, 83, 69, 7, total, (const byte_value[]){{3416, 0x0C}, {5972, 0x02}}, 2);
  expect_bytes(3, 128, 72, 83, 69, 5, total, (const byte_value[]){{3416, 0x04}, {5972, 0x02}}, 2);
  expect_bytes(3, 128, 72, 83, 69, 2, total, (const byte_value[]){{3416, 0x08}}, 1);
}

/* Pairs q >= 4 of a word use the 2w·(q div 4) term. b = 3, (32, 5):
 * kl = 32 → f = 2·8 + 0 = 16, kk = 0 → lane 20, pair 32, elem 0.
 * Width 2: P = 8 → word 4, q = 0 → chunk 1, vector 32 + 20 = 52, byte
 * 52·16 = 832, bit 0. Width 1: P = 16 → word 2, q = 0 → chunk 0, vector
 * 20, byte 1024 + 320 + 8 = 1352, bit 0.
 * b = 2, (16, 8): kl = 16 → f = 8 + 1 = 9, kk = 0 → lane 0, pair 18, elem 0;
 * P = 8 → word 2, q = 2, bit 16 → byte 2·4 + 2 = 10. (16, 16) → f = 10,
 * pair 20, word 2, q = 4, bit 8·0 + 4·1 = 4 → byte 8, bit 4. */
static void pair_positions(void) {
  expect_bytes(3, 64, 64, 32, 5, 7, 1536, (const byte_value[]){{832, 0x03}, {1352, 0x01}}, 2);
  expect_bytes(2, 64, 64, 16, 8, 3, 1024, (const byte_value[]){{10, 0x03}}, 1);
  expect_bytes(2, 64, 64, 16, 16, 2, 1024, (const byte_value[]){{8, 0x20}}, 1);
  /* The same element's partner, row 17 (elem 1): two bits higher. */
  expect_bytes(2, 64, 64, 17, 16, 1, 1024, (const byte_value[]){{8, 0x40}}, 1);
}

/* b = 8: a pair is 16 bits, P = 2.
 * (10, 3): f = 0, kk = 10 → lane 3·4 + 1 = 13, pair 1, elem 0; word 0,
 * q = 1, bit 16 → byte 13·16 + 2 = 210 holds the whole code.
 * (63, 63): kl = nl = 63 → f = 3·8 + 7 = 31, kk = 15 → lane 7·4 + 3 = 31,
 * pair 63, elem 1; word 31, q = 1, bit 24; chunk 7, word 3 → vector
 * 7·32 + 31 = 255, byte 255·16 + 12 + 3 = 4095, the atom's last byte. */
static void eight_bits(void) {
  expect_bytes(8, 64, 64, 10, 3, 0xA5, 4096, (const byte_value[]){{210, 0xA5}}, 1);
  expect_bytes(8, 64, 64, 63, 63, 0x81, 4096, (const byte_value[]){{4095, 0x81}}, 1);
  /* Ragged: K = 80, N = 65 is 2×2 atoms; (70, 64) is atom 1·2 + 1 = 3,
   * kl = 6, nl = 0 → f = 0, lane 3, pair 0, elem 0 → byte 3·4096 + 3·16. */
  expect_bytes(8, 80, 65, 70, 64, 0x7F, 4 * 4096, (const byte_value[]){{3 * 4096 + 48, 0x7F}}, 1);
}

/* b = 4: docs/FORMAT.md's second example (50, 61) → byte 1886, bit 0; and
 * (1, 8): f = 1, kk = 1 → lane 0, pair 2, elem 1; P = 4, q = 2 → bit
 * 16 + 4 = 20 → byte 2, high nibble.
 * b = 1, K = 128, N = 1: (70, 0) is atom 1 (512 bytes each), kl = 6 →
 * lane 3, pair 0, bit 0 → byte 512 + 48. */
static void four_and_one_bits(void) {
  expect_bytes(4, 64, 64, 50, 61, 9, 2048, (const byte_value[]){{1886, 0x09}}, 1);
  expect_bytes(4, 64, 64, 1, 8, 0xF, 2048, (const byte_value[]){{2, 0xF0}}, 1);
  expect_bytes(1, 128, 1, 70, 0, 1, 1024, (const byte_value[]){{560, 0x01}}, 1);
}

/* b = 7 = 4 + 2 + 1, planes at 0, 2048, 3072 for one atom. (0, 0): lane 0,
 * pair 0, bit 0 everywhere. Code 0b1011010 = 0x5A: low nibble 0xA in the
 * 4-bit plane, bits 4-5 = 0b01 in the 2-bit plane, bit 6 = 1 in the 1-bit. */
static void seven_bits(void) {
  expect_bytes(7, 64, 64, 0, 0, 0x5A, 3584, (const byte_value[]){{0, 0x0A}, {2048, 0x01}, {3072, 0x01}}, 3);
}

/* ---- the model: the description of docs/FORMAT.md as code ---- */

/* Byte and bit of slice width w of the code at (k, n), inside its plane. */
static size_t model_byte(int64_t k_atoms, int w, int64_t k, int64_t n, int *bit_in_byte) {
  const int64_t atom = (n / 64) * k_atoms + k / 64;
  const int kl = (int)(k % 64), nl = (int)(n % 64);
  const int fragment = (kl / 16) * 8 + nl / 8, kk = kl % 16;
  const int g = nl % 8, t = (kk % 8) / 2;
  const int lane = 4 * g + t, pair = 2 * fragment + kk / 8, elem = kk % 2;
  const int per_word = 16 / w, word = pair / per_word, q = pair % per_word;
  const int bit = w == 8 ? 16 * q + 8 * elem : 8 * (q % 4) + 2 * w * (q / 4) + elem * w;
  *bit_in_byte = bit % 8;
  return (size_t)atom * 512u * (size_t)w + (size_t)(32 * (word / 4) + lane) * 16u + (size_t)(word % 4) * 4u +
         (size_t)(bit / 8);
}

/* Planes the description predicts for a whole code matrix. */
static uint8_t *model_planes(int bits, int64_t K, int64_t N, const uint8_t *codes, size_t *bytes) {
  const int64_t k_atoms = (K + 63) / 64, n_atoms = (N + 63) / 64;
  const size_t atoms = (size_t)(k_atoms * n_atoms);
  *bytes = atoms * 512u * (size_t)bits;
  uint8_t *planes = calloc(*bytes, 1);
  for (int64_t k = 0; k < K; k++) {
    for (int64_t n = 0; n < N; n++) {
      size_t plane = 0;
      int shift = 0;
      for (int w = 8; w >= 1; w /= 2) { /* widest slice first, low bits first */
        if (!(bits & w)) continue;
        int bit;
        const size_t byte = plane + model_byte(k_atoms, w, k, n, &bit);
        planes[byte] |= (uint8_t)(((codes[k * N + n] >> shift) & ((1 << w) - 1)) << bit);
        plane += atoms * 512u * (size_t)w;
        shift += w;
      }
    }
  }
  return planes;
}

/* Random codes, every width, ragged shapes: the packed planes equal the
 * model byte for byte. */
static void model_all_bits(void) {
  lutmm_context *ctx = unit_context();
  const int64_t shapes[][3] = {{16, 1, 16}, {80, 65, 16}, {200, 130, 0}, {128, 64, 32}, {5, 7, 0}};
  for (int bits = 1; bits <= 8; bits++) {
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
      const lutmm_quant_params p = {bits, shapes[s][0], shapes[s][1], shapes[s][2], LUTMM_DTYPE_F32};
      packed_case pc;
      if (packed_case_make(ctx, &p, (uint64_t)(bits * 100 + (int)s), &pc)) {
        size_t size, expected_bytes;
        uint8_t *record = serialize_copy(ctx, pc.weights, &size);
        uint8_t *expected = model_planes(bits, p.k, p.n, pc.codes, &expected_bytes);
        const size_t offset = HEADER_BYTES + (sizeof(float) << bits);
        if (record == NULL || size < offset + expected_bytes ||
            memcmp(record + offset, expected, expected_bytes) != 0)
          unit_fail(__FILE__, __LINE__, "planes differ from the model: bits %d shape %zu", bits, s);
        free(record), free(expected);
      }
      packed_case_free(&pc);
    }
  }
  lutmm_context_destroy(ctx);
}

int main(int argc, char **argv) {
  static const unit_case cases[] = {
      {"format_example", format_example},   {"three_bits_across_atoms", three_bits_across_atoms},
      {"pair_positions", pair_positions},   {"eight_bits", eight_bits},
      {"four_and_one_bits", four_and_one_bits}, {"seven_bits", seven_bits},
      {"model_all_bits", model_all_bits},
  };
  return unit_main(argc, argv, cases, UNIT_COUNT(cases));
}
