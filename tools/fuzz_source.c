#include "fuzz_source.h"

#include <string.h>

uint64_t fz_mix(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

fz_source fz_source_from_bytes(const uint8_t *data, size_t size) {
  const int plain = size == FZ_SEED_INPUT_BYTES && memcmp(data, "SEED", 4) == 0;
  if (plain || (size == FZ_SEED_INPUT_BYTES && memcmp(data, "ROWS", 4) == 0)) {
    uint64_t seed = 0;
    for (int i = 0; i < 8; i++) seed |= (uint64_t)data[4 + i] << (8 * i);
    return fz_source_from_seed(seed, !plain);
  }
  /* FNV-1a of the input seeds the tail, so the bulk data changes with any byte. */
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3ull;
  const fz_source s = {data, size, 0, h, 0};
  return s;
}

fz_source fz_source_from_seed(uint64_t seed, int cpu_rows) {
  const fz_source s = {NULL, 0, 0, seed, cpu_rows};
  return s;
}

uint32_t fz_u32(fz_source *s) {
  if (s->data != NULL && s->pos + 4 <= s->size) {
    const uint8_t *p = s->data + s->pos;
    s->pos += 4;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
  }
  if (s->data != NULL) s->pos = s->size; /* a ragged tail is ignored */
  return (uint32_t)(fz_mix(&s->rng) >> 32);
}

uint32_t fz_below(fz_source *s, uint32_t bound) { return bound <= 1 ? 0 : fz_u32(s) % bound; }

int64_t fz_range(fz_source *s, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + (int64_t)fz_below(s, (uint32_t)(hi - lo + 1));
}

int64_t fz_pick(fz_source *s, const int64_t *values, size_t count) {
  return values[fz_below(s, (uint32_t)count)];
}

uint64_t fz_bulk(fz_source *s) { return fz_mix(&s->rng); }
