/* The CPU backend's working copy of the codes: one stream per column along K,
 * cut into chunks of 32 rows that a vector kernel decodes with a load and a
 * shift or two.
 *
 * Columns are grouped in blocks of CPU_BLOCK_N; a block is a run of chunks
 * along K, and a chunk holds 32 consecutive rows of each of the block's
 * columns, column after column, each as `chunk_bytes` bytes in one of three
 * formats (row r = 0..31 inside the chunk):
 *   2-bit (bits 1-2, 8 bytes):  byte 4·(r/16) + r%4, bits 2·((r%16)/4)
 *   4-bit (bits 3-4, 16 bytes): byte r%16, low nibble for r < 16, else high
 *   8-bit (bits 5-8, 32 bytes): byte r
 * The 2-bit order is the one in which the AVX2 kernel's lookups produce
 * values (cpu_kernel.h, "lane order"), so it decodes with one shift per
 * vector. Rows past K and columns past N hold code 0. The packed planes stay
 * the format of record (unpack, serialize); this copy is derived from them.
 *
 * Beside the codes, the scales widened to float in the same block order
 * (block, group, column of the block), so a kernel running a block's
 * columns along K finds a group's scales in one place, without converting
 * them per use. Columns past N have scale 0. Only the lookups of 1-4 bit
 * codes in groups of whole chunks (a multiple of 32 rows) read them, so
 * other weights keep none (groups = 0, scales = NULL). */
#ifndef LUTMM_CPU_CODES_H
#define LUTMM_CPU_CODES_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

#define CPU_BLOCK_N 4
#define CPU_CHUNK_K 32
/* Bytes readable past the end, so every kernel may over-read a chunk. */
#define CPU_CODES_TAIL 64

typedef struct cpu_codes {
  int bits;
  int chunk_bytes;      /* 8, 16 or 32 */
  int64_t k32;          /* rows rounded up to CPU_CHUNK_K */
  int64_t blocks;       /* column blocks */
  size_t block_stride;  /* bytes of one block */
  uint8_t *data;
  int64_t groups;       /* scale groups along K held in `scales` (0: none) */
  float *scales;        /* blocks × groups × CPU_BLOCK_N */
  struct cpu_rows *rows; /* the row kernel's copy (cpu_rows.h), or NULL */
} cpu_codes;

static inline int cpu_chunk_bytes(int bits) { return bits <= 2 ? 8 : bits <= 4 ? 16 : 32; }

/* Address of the chunk holding rows [32·chunk, 32·chunk + 32) of column n. */
static inline const uint8_t *cpu_codes_chunk(const cpu_codes *c, int64_t n, int64_t chunk) {
  return c->data + (size_t)(n / CPU_BLOCK_N) * c->block_stride +
         ((size_t)chunk * CPU_BLOCK_N + (size_t)(n % CPU_BLOCK_N)) * (size_t)c->chunk_bytes;
}

/* The widened scales of (group, column n) and of the next columns of its
 * block; the next group's follow CPU_BLOCK_N floats later. */
static inline const float *cpu_codes_scales(const cpu_codes *c, int64_t n, int64_t group) {
  return c->scales + ((size_t)(n / CPU_BLOCK_N) * (size_t)c->groups + (size_t)group) * CPU_BLOCK_N +
         (size_t)(n % CPU_BLOCK_N);
}

/* Code of row r (0..31) of a chunk. */
static inline int cpu_chunk_code(const uint8_t *chunk, int bits, int r) {
  if (bits <= 2) return (chunk[4 * (r / 16) + r % 4] >> (2 * ((r % 16) / 4))) & 3;
  if (bits <= 4) return (chunk[r % 16] >> (r < 16 ? 0 : 4)) & 15;
  return chunk[r];
}

/* Scale of (group, column) widened exactly to float, through the planted
 * scale fault hook: what both working copies store. */
float cpu_widened_scale(const lutmm_weights *w, int64_t group, int64_t col);

/* Builds the working copy from w's packed planes and scales (threads:
 * OpenMP team size). The planted-fault hooks for codes and row positions
 * act here, where the backend decodes the packed format, and the scale hook
 * on the widened scales, as cpu_scale_c applies it to the others. With
 * with_rows, the row kernel's copy (cpu_rows.h) is derived from it too,
 * when the code width has one; failing to allocate that copy only leaves
 * rows NULL (the column kernels then run). */
lutmm_status cpu_codes_create(const lutmm_weights *w, int threads, int with_rows, cpu_codes **out);
void cpu_codes_destroy(cpu_codes *c);

#endif
