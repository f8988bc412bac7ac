/* The packed weight format: bit-slice planes laid out for mma.m16n8k16.
 * This file is the only definition of the format; docs/FORMAT.md explains it
 * with a worked example. Every backend packs, unpacks and reads through it.
 *
 * Geometry. K and N are padded to multiples of 64. The padded matrix is cut
 * into 64×64 atoms, stored atom-column by atom-column (atom = na·KA + ka), so
 * a column of atoms is one contiguous stream along K. An atom is 4×8
 * fragments of 16 (k) × 8 (n): exactly the B operand of one
 * mma.m16n8k16, fragment f = kb·8 + nb.
 *
 * Slices. A b-bit code is split into power-of-two slices (widest first, low
 * bits first): 3 = 2+1, 5 = 4+1, 6 = 4+2, 7 = 4+2+1, others one slice. Each
 * slice width w has its own plane; an atom takes 512·w bytes of it.
 *
 * Inside an atom, per lane. In the B fragment lane L = 4·g + t holds, for
 * column n = g, rows 2t, 2t+1 (register 0) and 2t+8, 2t+9 (register 1). A
 * register's two codes form a "pair"; lane L's 64 pairs are numbered
 * p = 2f + r. In a plane of width w a pair takes 2w bits (first code low).
 * The lane's pairs fill its 4w little-endian 32-bit words, P = 16/w pairs a
 * word; pair q of a word sits at bit 8·(q mod 4) + 2w·(q div 4), so a shift
 * and mask of one word yields four pair indices in four bytes (w = 8: pair q
 * at bit 16·q). Word j of the lane lives in 16-byte chunk j/4, and chunk c of
 * lane L is the (32·c + L)-th 16-byte vector of the atom: every plane is read
 * with coalesced 16-byte loads, one vector per lane per chunk. */
#ifndef LUTMM_LAYOUT_H
#define LUTMM_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "portable.h"

#define LUTMM_ATOM_K 64
#define LUTMM_ATOM_N 64
#define LUTMM_MAX_SLICES 3

/* How a code width splits into planes. */
typedef struct lutmm_slicing {
  int count;                    /* 1..3 */
  int width[LUTMM_MAX_SLICES];  /* 1, 2, 4 or 8 bits, widest first */
  int shift[LUTMM_MAX_SLICES];  /* position of the slice in the code */
} lutmm_slicing;

LUTMM_HD static inline lutmm_slicing lutmm_slicing_for_bits(int bits) {
  lutmm_slicing s = {0, {0, 0, 0}, {0, 0, 0}};
  int shift = 0;
  for (int w = 8; w >= 1; w /= 2) {
    if (bits & w) {
      s.width[s.count] = w;
      s.shift[s.count] = shift;
      shift += w;
      s.count++;
    }
  }
  return s;
}

/* Where one code sits in the atom grid, independent of the plane. */
typedef struct lutmm_code_site {
  int64_t atom; /* na·KA + ka */
  int lane;     /* 0..31 */
  int pair;     /* 0..63, = 2·fragment + register */
  int elem;     /* 0: even row of the pair (low bits), 1: odd row */
} lutmm_code_site;

LUTMM_HD static inline lutmm_code_site lutmm_code_site_of(int64_t k_atoms, int64_t k, int64_t n) {
  const int kl = (int)(k % LUTMM_ATOM_K), nl = (int)(n % LUTMM_ATOM_N);
  const int fragment = (kl / 16) * 8 + nl / 8;
  const int kk = kl % 16;
  lutmm_code_site site;
  site.atom = (n / LUTMM_ATOM_N) * k_atoms + k / LUTMM_ATOM_K;
  site.lane = (nl % 8) * 4 + (kk % 8) / 2;
  site.pair = 2 * fragment + kk / 8;
  site.elem = kk % 2;
  return site;
}

/* Byte offset inside a plane of width w and bit offset inside that byte of
 * the slice of the code at `site`. Slices never straddle bytes. */
LUTMM_HD static inline size_t lutmm_plane_byte(int w, lutmm_code_site site, int *bit_in_byte) {
  const int pairs_per_word = 16 / w;
  const int word = site.pair / pairs_per_word;
  const int q = site.pair % pairs_per_word;
  const int bit = (2 * w <= 8 ? 8 * (q % 4) + 2 * w * (q / 4) : 16 * q) + site.elem * w;
  const size_t atom_bytes = (size_t)512 * (size_t)w;
  const size_t vector = (size_t)(32 * (word / 4) + site.lane);
  *bit_in_byte = bit % 8;
  return (size_t)site.atom * atom_bytes + vector * 16u + (size_t)(word % 4) * 4u + (size_t)(bit / 8);
}

#endif
