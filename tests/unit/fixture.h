/* Shared scaffolding: a reference context, guarded buffers, a seeded
 * generator, and small builders for codes, scales and packed weights. */
#ifndef UNIT_FIXTURE_H
#define UNIT_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "lutmm.h"

/* A reference context; the program stops (exit 1) if none can be made,
 * since nothing else could be checked. */
lutmm_context *unit_context(void);

/* A heap buffer followed by GUARD_BYTES sentinel bytes. The payload is
 * filled with `poison` so that output never written shows up (0xFF reads as
 * NaN in every dtype). */
#define GUARD_BYTES 64
typedef struct guarded {
  uint8_t *data;
  size_t bytes;
} guarded;

guarded guarded_alloc(size_t bytes, uint8_t poison);
/* Whether the sentinel after the payload is intact. */
int guarded_intact(const guarded *g);
void guarded_free(guarded *g);

/* splitmix64: small, seeded, the same on every platform. */
typedef struct unit_rng {
  uint64_t state;
} unit_rng;

uint64_t rng_next(unit_rng *r);
/* Uniform integer in [0, bound). */
uint32_t rng_below(unit_rng *r, uint32_t bound);
/* Uniform in [lo, hi) with 24 random bits. */
float rng_uniform(unit_rng *r, float lo, float hi);

/* Bytes of a G×N (or k×n) scale array of `dtype`. */
size_t scale_array_bytes(const lutmm_quant_params *p, int64_t groups);

/* Random codes below 2^bits (k×n). */
void fill_codes(unit_rng *r, int bits, uint8_t *codes, size_t count);

/* Random finite scales of `dtype`, magnitude in [2^-6, 4), some negative,
 * some exactly zero. */
void fill_scales(unit_rng *r, lutmm_dtype dtype, void *scales, size_t count);

/* NF table of `bits` built by the library. */
void nf_table(lutmm_context *ctx, int bits, float *table);

/* Number of scale rows for params (k / group, or 1 for whole columns). */
int64_t group_count(const lutmm_quant_params *p);

/* Packs random codes and scales; returns the weights and (optionally) the
 * codes, scales and table it used (caller frees codes and scales). */
typedef struct packed_case {
  lutmm_quant_params params;
  int64_t groups;
  float table[LUTMM_MAX_TABLE_SIZE];
  uint8_t *codes;
  void *scales;
  lutmm_weights *weights;
} packed_case;

/* 0 on failure (already reported). */
int packed_case_make(lutmm_context *ctx, const lutmm_quant_params *p, uint64_t seed, packed_case *out);
void packed_case_free(packed_case *c);

/* Serializes weights into a new malloc'd buffer; NULL on failure (reported). */
uint8_t *serialize_copy(lutmm_context *ctx, const lutmm_weights *w, size_t *size);

#endif
