/* A stream of random choices shared by the fuzz targets and `lutmm fuzz`.
 * A libFuzzer target reads its choices from the fuzz input, so the fuzzer's
 * mutations steer shapes and formats; once the input runs out, and for the
 * seeded command-line runner from the start, a splitmix64 generator takes
 * over. The same case-drawing code therefore serves both. */
#ifndef LUTMM_FUZZ_SOURCE_H
#define LUTMM_FUZZ_SOURCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct fz_source {
  const uint8_t *data; /* fuzz input, or NULL */
  size_t size, pos;
  uint64_t rng;   /* splitmix64 state for choices after the input */
  int cpu_rows;   /* draw one case in eight on the CPU row kernel's ground (fuzz_case.c) */
} fz_source;

/* A source that reads `data` first, then a generator seeded from its bytes.
 * Exceptions: a 12-byte input "SEED" + 8-byte little-endian seed is the
 * same as fz_source_from_seed(seed, 0), and "ROWS" + seed the same as
 * fz_source_from_seed(seed, 1), so a case found by `lutmm fuzz` can become
 * a corpus entry (lutmm fuzz --save DIR writes them). */
#define FZ_SEED_INPUT_BYTES 12
fz_source fz_source_from_bytes(const uint8_t *data, size_t size);
/* A source driven by the generator alone (the command-line runner);
 * cpu_rows as in fz_source. */
fz_source fz_source_from_seed(uint64_t seed, int cpu_rows);

/* Next 32 random bits: 4 input bytes little-endian, or the generator. */
uint32_t fz_u32(fz_source *s);
/* Uniform-ish integer in [0, bound) (bound >= 1). */
uint32_t fz_below(fz_source *s, uint32_t bound);
/* Integer in [lo, hi]. */
int64_t fz_range(fz_source *s, int64_t lo, int64_t hi);
/* One of `count` values. */
int64_t fz_pick(fz_source *s, const int64_t *values, size_t count);
/* 64 generator bits (never from the input: bulk data only). */
uint64_t fz_bulk(fz_source *s);

/* splitmix64 step, for callers that derive seeds. */
uint64_t fz_mix(uint64_t *state);

#endif
