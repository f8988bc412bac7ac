/* The skinny LUT-GEMM kernel: M <= 64 rows of X against codes of 1..8 bits,
 * the case where the weights' bytes are the whole cost. Codes of 3 and 4
 * bits are looked up a pair at a time (pair table), codes of 1 and 2 bits
 * 4/b pairs at a time (byte table: one entry per byte of their one slice),
 * codes of 5 bits a pair at a time from a 1024-entry pair table, wider ones
 * one code at a time (a 2^b-entry table) and paired in registers.
 *
 * Work is a Stream-K range of units (tile, k-atom pair) per block; a tile is
 * W consecutive 64-column atom columns and warp w owns column w of every
 * tile. Each warp streams its own atoms through a ring of RING shared-memory
 * slots: a lane cp.asyncs exactly the 16-byte words it later reads back, so
 * the ring needs no barrier, only the lane's own cp.async groups (one group
 * per atom, the ring refilled RING atoms ahead of the atom computed). The
 * block shares two things: X, staged in chunks of 16/MB k-atoms (a chunk's
 * copy starts when the previous chunk starts, one barrier per chunk), and
 * the pair table. A unit of two atoms keeps the loop's bookkeeping to once
 * per two atoms.
 *
 * The MMA runs transposed: Y^T = W^T X^T. The dequantized pairs a lane holds
 * (B-fragment order in the packed layout) are exactly the A fragment of
 * m16n8k16 for a 16-column block of W^T, and X^T is the B operand, so M <= 8
 * costs one n8 block of MMAs instead of an m16 one.
 *
 * A warp ends a segment at a tile's last unit or at the end of its block's
 * range. A whole tile goes straight to Y. A partial one goes to the block's
 * workspace slot (2b for its first segment, 2b + 1 for its last, as for the
 * tiled kernel); the warp that completes a column's set of partials (an
 * integer ticket, no float atomics) adds them in block order and writes Y,
 * so the bits never depend on which warp finished last. In a cooperative
 * launch the warps whose blocks end in that column instead wait for all its
 * partials and each add a share of it, in the same order (reduce_together;
 * the kernels of their own, cut_path::shared).
 * Every launch leaves its tickets as it found them, zero: the warp that
 * sees a ticket's last count puts it back. So a ticket-counted launch needs
 * nothing from the host that changes from one launch to the next, and a
 * CUDA graph may replay it any number of times.
 * Where the planner says so (lutmm_skinny_tags_partials: cooperative
 * launches at M <= 4, columns of at most 8 partials, not captured in a
 * graph) nothing is counted: a partial is published as tagged words
 * ({launch tag, fp32}, one 64-bit store each, no fence) and the column's
 * first contributor polls them at the end of its range until all carry the
 * launch's tag, then adds them in the same order (reduce_tagged).
 * The HEAD kernels (lutmm_skinny_tags_head: 4-bit codes with one-row
 * scales, cooperative launches at M = 5..16 over ticket-counted columns)
 * stores only a column's mid-stream partial as tagged words, its other
 * partials as fp32 counted by tickets, and the last ticket adds the tagged
 * one last (publish_head, add_head).
 * The CLUSTER kernels (M <= 16, either scale layout, not 1-bit codes at
 * M > 8: LUTMM_SKINNY_CLUSTER_HOLDS; lutmm_skinny_cluster_plan)
 * run each tile's blocks as one or more thread block clusters, one part of
 * the tile a block, and add a cluster's parts in its blocks' shared memory
 * (add_cluster_share): with one cluster a tile no partial, ticket or tag in
 * global memory; with several, each cluster's sums meet by one ticket a
 * share (add_group_sums). */
#ifndef LUTMM_CUDA_SKINNY_KERNEL_CUH
#define LUTMM_CUDA_SKINNY_KERNEL_CUH

#include "cluster.cuh"
#include "fault.h"
#include "gemm_device.cuh"
#include "gemm_params.h"

namespace lutmm_kernels {
namespace skinny {

/* W: warps per block, LUTMM_SKINNY_WARPS or, where the planner picks it,
 * LUTMM_SKINNY_MORE_WARPS (lutmm_skinny_warps_for). */
template <int MB, int BITS, int W>
struct cfg {
  static constexpr int WARPS = W;
  static constexpr int THREADS = 32 * WARPS;
  static constexpr int ROWS = 8 * MB;            /* X rows held: M <= ROWS */
  static constexpr int CHUNK = 16 / MB;          /* k-atoms per X chunk */
  static constexpr int CHUNK_UNITS = CHUNK / 2;  /* units per X chunk */
  static constexpr int X_SLOT_BYTES = ROWS * LUTMM_SKINNY_X_ROW_BYTES; /* X of one k-atom */
  static constexpr int CHUNK_BYTES = CHUNK * X_SLOT_BYTES;
  static constexpr int TILE_N = 64 * WARPS;
};

/* A warp's ring: atoms in flight and the bytes of one atom and of its scales. */
template <int MB, int BITS, bool ONE_ROW>
struct ring {
  static constexpr int DEPTH = LUTMM_SKINNY_RING(BITS, MB, ONE_ROW);
  static constexpr uint32_t SLOT = LUTMM_SKINNY_SLOT_BYTES(BITS);
  static constexpr uint32_t ENTRY = LUTMM_SKINNY_SCALE_ENTRY(ONE_ROW);
  static_assert(DEPTH >= 2 && DEPTH <= 8, "cp.async.wait_group takes 0..7");
};

/* How a kernel adds the columns its blocks cut; each kernel carries one
 * way, the one its launch's plan names, since the code of another moved
 * the main loop's registers (docs/PERF.md, changes 71 and 74):
 * - plain: tickets, the last contributor adds (reduce_partials), or at
 *   M <= 4 in the 8-row kernels tagged partials (reduce_last_segment);
 * - shared: a cooperative launch's finishing contributors each add a share
 *   (reduce_together);
 * - head: tickets, with the column's head published as tagged words;
 * - cluster: the blocks of a thread block cluster add them in shared
 *   memory (add_cluster_share). */
enum class cut_path { plain, shared, head, cluster };

/* A unit: the tile (W atom columns) and the k-atom pair. The planner keeps
 * unit and atom numbers below 2^31, so they are ints here. */
struct cursor {
  int tile, it;
};

__device__ __forceinline__ cursor cursor_at(const lutmm_cuda_gemm_params &p, int u) {
  return cursor{u / (int)p.iters, u % (int)p.iters};
}

__device__ __forceinline__ void advance(const lutmm_cuda_gemm_params &p, cursor &c) {
  if (++c.it == (int)p.iters) {
    c.it = 0;
    c.tile++;
  }
}

/* Scale row of k-atom `atom`'s first slab; a shift when groups are a
 * power-of-two number of atoms (the usual case). */
__device__ __forceinline__ int64_t first_scale_row(const lutmm_cuda_gemm_params &p, int atom) {
  if (p.atom_group_log2 < 0) return scale_row(p, (int64_t)atom * 64);
  const int r = atom >> p.atom_group_log2, last = (int)p.scale_rows - 1; /* < 2^31: the planner's scale bound */
  return r < last ? r : last;
}

/* This lane's first vector of every plane: the planes' atoms are laid out
 * column-major ((column · k_atoms + atom) · 32·width + lane vectors). */
template <int BITS>
struct plane_lanes {
  const uint4 *at[slices<BITS>::count];
};

template <int BITS>
__device__ __forceinline__ plane_lanes<BITS> lanes_of(const lutmm_cuda_gemm_params &p, int lane) {
  plane_lanes<BITS> pl;
#pragma unroll
  for (int sl = 0; sl < slices<BITS>::count; sl++) pl.at[sl] = (const uint4 *)(p.planes + p.plane_offset[sl]) + lane;
  return pl;
}

/* Starts copying this lane's words of flat atom `atom` (column · k_atoms +
 * k-atom) into its ring slot: 16-byte word q of every plane (vector 32c +
 * lane of the plane's atom, q = shift + c) to slot_lane + 512·q. Those are
 * exactly the bytes this lane reads back (read_atom), and a warp's reads of
 * one q cover 512 contiguous bytes: no bank conflicts. Each weight byte is
 * read once per launch, so its L2 lines go first: the partials, X and
 * scales the kernel reads again stay in L2 (docs/HEURISTICS.md). The
 * policy is made once a warp (l2_evict_first_policy, a volatile asm that
 * ptxas rebuilt in six uniform-register instructions before each atom's
 * copies when it stood here). */
template <int BITS>
__device__ __forceinline__ void fetch_atom(const plane_lanes<BITS> &pl, uint32_t atom, uint32_t slot_lane,
                                           uint64_t policy) {
#pragma unroll
  for (int sl = 0; sl < slices<BITS>::count; sl++) {
    const int width = slices<BITS>::width(sl), shift = slices<BITS>::shift(sl);
    const uint4 *mine = pl.at[sl] + (size_t)atom * (32 * width);
#pragma unroll
    for (int c = 0; c < width; c++) cp_async16_stream(slot_lane + 512 * (shift + c), mine + 32 * c, policy);
  }
}

/* 16-byte word q of this lane's atom in its ring slot into w[4q .. 4q + 3],
 * the order pair_indices and code_bytes read. Volatile: the bytes arrive by
 * cp.async, so the read must stay after the wait for them. */
template <int BITS>
__device__ __forceinline__ void read_ring_word(uint32_t slot_lane, int q, uint32_t (&w)[4 * BITS]) {
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(w[4 * q]), "=r"(w[4 * q + 1]), "=r"(w[4 * q + 2]), "=r"(w[4 * q + 3])
               : "r"(slot_lane + 512 * q));
}

/* All of this lane's words of the atom (codes of up to 4 bits). */
template <int BITS>
__device__ __forceinline__ void read_atom(uint32_t slot_lane, uint32_t (&w)[4 * BITS]) {
#pragma unroll
  for (int q = 0; q < BITS; q++) read_ring_word<BITS>(slot_lane, q, w);
}

/* Bytes between an atom's scale rows in a ring entry as copied (64 stored
 * values), and once in compute dtype (64 16-bit values). */
__device__ __forceinline__ uint32_t stored_row_bytes(const lutmm_cuda_gemm_params &p) {
  return p.scale_dtype == LUTMM_DTYPE_F32 ? 256u : 128u;
}
constexpr uint32_t kScaleRowBytes = 128;

/* log2 of a stored scale's bytes. */
__device__ __forceinline__ int log2_scale_bytes(const lutmm_cuda_gemm_params &p) {
  return p.scale_dtype == LUTMM_DTYPE_F32 ? 2 : 1;
}

/* Bytes between two stored scale rows (n_pad scales). */
__device__ __forceinline__ uint32_t scale_row_bytes(const lutmm_cuda_gemm_params &p) {
  return (uint32_t)p.n_pad << log2_scale_bytes(p);
}

/* Whether k-atom `atom`'s per-slab scale rows follow by a shift: groups of
 * 16 and 32 rows in an atom wholly inside K (all but the last atom of a
 * ragged K), whose rows then start at atom·64 >> log2(group), with no
 * 64-bit clamped scale_row evaluations. */
__device__ __forceinline__ bool slab_rows_by_shift(const lutmm_cuda_gemm_params &p, int atom) {
  /* atom·64 + 64 <= K, in 32 bits: K / 64 lies below 2^31 with the atoms */
  return (p.group_log2 == 4 || p.group_log2 == 5) && atom < (int)(p.k >> 6);
}

/* Scale rows k-atom `atom` spans: one per group its four 16-row slabs meet. */
__device__ __forceinline__ int scale_rows_of_atom(const lutmm_cuda_gemm_params &p, int atom) {
  return (int)(scale_row(p, (int64_t)atom * 64 + 48) - first_scale_row(p, atom)) + 1;
}

/* The scale rows of k-atom `atom` of a column (exactly one when ONE_ROW,
 * else up to four; lutmm_skinny_scales_fit) into a ring entry, row r at
 * r·stored_row_bytes: the rows' 16-byte vectors are contiguous there. */
template <bool ONE_ROW>
__device__ __forceinline__ void load_scales(const lutmm_cuda_gemm_params &p, int column, int atom, int lane,
                                            uint8_t *entry) {
  /* 4 or 2 rows from row atom·64 >> log2(group) where they follow by a
   * shift (slab_rows_by_shift, as compute_atom's slab_rows_word) */
  const bool by_shift = !ONE_ROW && slab_rows_by_shift(p, atom);
  /* Byte offsets in 32 bits: the planner keeps the scale array below 2 GiB. */
  const uint32_t r0 = by_shift ? (uint32_t)atom << (6 - p.group_log2) : (uint32_t)first_scale_row(p, atom);
  const int log2_elem = log2_scale_bytes(p);
  const int log2_vpr = 2 + log2_elem; /* 16-byte vectors per 64-column row */
  const uint8_t *first =
      (const uint8_t *)p.scales + ((r0 * (uint32_t)p.n_pad + (uint32_t)column * 64u) << log2_elem);
  if (ONE_ROW) {
    if (lane < 1 << log2_vpr) cp_async16(entry + lane * 16, first + lane * 16, 16);
    return;
  }
  /* At most 4 rows of 16-bit scales or 2 of fp32 ones (lutmm_skinny_scales_fit):
   * 32 vectors, one a lane, so no loop. */
  static_assert(LUTMM_SKINNY_SCALE_ENTRY(0) / 16 <= 32, "a per-slab entry's vectors, one a lane");
  const int rows = by_shift ? 64 >> p.group_log2 : scale_rows_of_atom(p, atom);
  if (lane < rows << log2_vpr) {
    const int r = lane >> log2_vpr, c = lane & ((1 << log2_vpr) - 1);
    cp_async16(entry + lane * 16, first + r * scale_row_bytes(p) + c * 16, 16);
  }
}

/* Where groups are a power-of-two number of atoms (atom_group_log2 >= 0),
 * a one-row atom's scale row is one shift of its k-atom, with no clamp and
 * no 64-bit arithmetic, so fetch_scales addresses it here rather than
 * through load_scales: this lane's 16-byte vector of k-atom `atom`'s row
 * in column `column`, as a byte offset, for such groups only (its one
 * caller, fetch_scales, tests atom_group_log2 first). No clamp is needed:
 * atoms lie below k_atoms, so atom >> atom_group_log2 < scale_rows. */
__device__ __forceinline__ uint32_t scale_vector_offset(const lutmm_cuda_gemm_params &p, int column, int atom,
                                                        int lane) {
  const uint32_t row = (uint32_t)atom >> p.atom_group_log2;
  return ((row * (uint32_t)p.n_pad + (uint32_t)column * 64u) << log2_scale_bytes(p)) + 16u * (uint32_t)lane;
}

/* The scale row whose vector for this lane lies at `offset` into a ring
 * entry, as load_scales<true> copies it. */
__device__ __forceinline__ void copy_scale_row(const lutmm_cuda_gemm_params &p, uint32_t offset, int lane,
                                               uint8_t *entry) {
  if (lane < 4 << log2_scale_bytes(p)) cp_async16(entry + lane * 16, (const uint8_t *)p.scales + offset, 16);
}

/* One scale row an atom, in groups of a power-of-two number of atoms
 * (the usual layouts): its row is one shift of the k-atom. */
template <bool ONE_ROW>
__device__ __forceinline__ bool one_row_scales(const lutmm_cuda_gemm_params &p) {
  return ONE_ROW && p.atom_group_log2 >= 0;
}

/* A fetcher's copy of k-atom `atom`'s scale rows of column `column` into
 * a ring entry: one-row atoms in groups of a power-of-two number of atoms
 * by the shift (scale_vector_offset), every other layout through
 * load_scales. */
template <bool ONE_ROW>
__device__ __forceinline__ void fetch_scales(const lutmm_cuda_gemm_params &p, int column, int atom, int lane,
                                             uint8_t *entry) {
  if (one_row_scales<ONE_ROW>(p)) copy_scale_row(p, scale_vector_offset(p, column, atom, lane), lane, entry);
  else load_scales<ONE_ROW>(p, column, atom, lane, entry);
}

/* The X of units v0 .. v0 + CHUNK_UNITS − 1 (those before hi): row-major
 * slots of ROWS rows × 64 k, one per k-atom (two per unit), rows past M and
 * columns past K zero. */
template <int MB, int BITS, int W>
__device__ void load_x_chunk(const lutmm_cuda_gemm_params &p, int v0, int hi, uint8_t *buf) {
  using C = cfg<MB, BITS, W>;
  constexpr int VECTORS = C::CHUNK * C::ROWS * 8;
  const int iters = (int)p.iters, it0 = v0 % iters;
  for (int v = (int)threadIdx.x; v < VECTORS; v += C::THREADS) {
    const int slot = v / (C::ROWS * 8), row = (v / 8) % C::ROWS, c = v % 8;
    const int j = slot / 2;
    if (v0 + j >= hi) break; /* v only grows with j */
    int it = it0 + j;
    while (it >= iters) it -= iters;
    const int64_t gk = (int64_t)(2 * it + slot % 2) * 64 + c * 8;
    uint8_t *dst = buf + slot * C::X_SLOT_BYTES + row * LUTMM_SKINNY_X_ROW_BYTES + c * 16;
    if (p.x_vector) {
      const bool ok = row < p.m && gk < p.k;
      const uint8_t *src = (const uint8_t *)p.x + ((int64_t)row * p.k + gk) * 2;
      cp_async16(dst, ok ? src : (const uint8_t *)p.x, ok ? 16 : 0);
    } else {
      *(uint4 *)dst = x_chunk8(p, row, gk);
    }
  }
}

/* The pair of byte `b` of `index`. The table starts on a 64 KiB boundary
 * of the shared window, so one PRMT assembles the address from the table's
 * upper half, the index byte (· 256) and this lane's copy (lane · 4). */
__device__ __forceinline__ uint32_t lookup(uint32_t table_lane, uint32_t index, int b) {
  uint32_t v;
  asm("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(__byte_perm(index, table_lane, 0x7604u | ((uint32_t)b << 4))));
  return v;
}

/* This lane's copy of every table entry (LUTMM_SKINNY_TABLE_BYTES): 4L in
 * pair and single-code tables; in byte tables 8L (2 bits: an LDS.64 is
 * served a half-warp at a time) or 16·(L mod 16) (1 bit: an LDS.128 a
 * quarter-warp at a time), so no load of a warp shares a bank. The 5-bit
 * pair table has room for 16 copies, 4·(L mod 16): lanes L and L + 16 share
 * a bank, so a load takes two wavefronts, as its two single-code lookups
 * did. */
template <int BITS>
__device__ __forceinline__ uint32_t table_lane_offset(int lane) {
  if constexpr (BITS == 2) return 8u * (uint32_t)lane;
  else if constexpr (BITS == 1) return 16u * (uint32_t)(lane % 16);
  else if constexpr (BITS == 5) return 4u * (uint32_t)(lane % 16);
  else return 4u * (uint32_t)lane;
}

/* Codes of 1 and 2 bits: byte `b` of slice word `word` holds the pair
 * indices of this lane's pair b in 4/b consecutive n16 blocks (the first
 * in its low bits), and its byte-table entry holds their pairs: one load
 * instead of 4/b lookups. */
template <int BITS>
struct byte_pairs {
  uint32_t v[4 / BITS];
};

template <int BITS>
__device__ __forceinline__ byte_pairs<BITS> lookup_byte(uint32_t table_lane, uint32_t word, int b) {
  const uint32_t at = __byte_perm(word, table_lane, 0x7604u | ((uint32_t)b << 4));
  byte_pairs<BITS> r;
  if constexpr (BITS == 2) {
    asm("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(r.v[0]), "=r"(r.v[1]) : "r"(at));
  } else {
    static_assert(BITS == 1, "byte tables hold 1- and 2-bit codes");
    asm("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
        : "=r"(r.v[0]), "=r"(r.v[1]), "=r"(r.v[2]), "=r"(r.v[3])
        : "r"(at));
  }
  return r;
}

/* The words of slabs kb and kb + 1 of this lane's atom in its ring slot
 * (indexed as read_atom's): per plane only the 16-byte words those slabs
 * use, so a wide atom never holds all its words in registers at once. */
template <int BITS>
__device__ __forceinline__ void read_slab_pair(uint32_t slot_lane, int kb, uint32_t (&w)[4 * BITS]) {
#pragma unroll
  for (int sl = 0; sl < slices<BITS>::count; sl++) {
    const int width = slices<BITS>::width(sl), sh = slices<BITS>::shift(sl);
    const int q_lo = sh + kb * width / 4, q_hi = sh + ((kb + 2) * width - 1) / 4;
#pragma unroll
    for (int q = q_lo; q <= q_hi; q++) read_ring_word<BITS>(slot_lane, q, w);
  }
}

/* Codes of 5 bits: the pairs of n16 block j of a slab, from the 1024-entry
 * pair table. `low` is the block's 4-bit slice word (byte b: the low nibbles
 * of pair b, which pick the entry), `high` its 1-bit slice word shifted so
 * that bits 0 and 1 of byte b are pair b's fifth bits (they pick the entry's
 * 64-byte quarter). One PRMT per pair assembles the address from four
 * bytes: quarter and lane copy (byte 0), entry (byte 1) and the table's
 * upper half (bytes 2 and 3: the 64 KiB page, and in a cluster launch the
 * block's rank, without which the load would read block 0's table). */
__device__ __forceinline__ void lookup_five(uint32_t table_lane, uint32_t low, uint32_t high, uint32_t (&pairs)[4]) {
  const uint32_t lane_bytes = __byte_perm(table_lane, 0, 0x0000u); /* 4·(L mod 16) in every byte */
  const uint32_t quarters = ((high << 6) & 0xC0C0C0C0u) | lane_bytes;
  const uint32_t entries01 = __byte_perm(low, table_lane, 0x7160u); /* entry 0, page, entry 1, top byte */
  const uint32_t entries23 = __byte_perm(low, table_lane, 0x7362u);
  const uint32_t selector[4] = {0x7540u, 0x7561u, 0x7542u, 0x7563u};
#pragma unroll
  for (int b = 0; b < 4; b++) {
    const uint32_t at = __byte_perm(quarters, b < 2 ? entries01 : entries23, selector[b]);
    asm("ld.shared.u32 %0, [%1];\n" : "=r"(pairs[b]) : "r"(at));
  }
}

/* (a & MASK) | (c & ~MASK), bit by bit, in one LOP3 (lut 0xE2): ptxas
 * compiles the same expression written in C as a mask and a merge, two. */
template <uint32_t MASK>
__device__ __forceinline__ uint32_t bit_select(uint32_t a, uint32_t c) {
  static_assert(MASK < 0x80000000u, "an \"n\" operand past INT_MAX is not a tested form");
  uint32_t r;
  asm("lop3.b32 %0, %1, %2, %3, 0xE2;\n" : "=r"(r) : "r"(a), "n"(MASK), "r"(c));
  return r;
}

/* Codes of 3, 6 and 7 bits look their index bytes up in tables of 256
 * entries whose entry e holds what e mod 2^(bits used) names (build_table),
 * so the bits above a byte's index may hold anything: each byte word is
 * its slices' bits moved into place and merged by bit selects, with no
 * mask of its own (docs/PERF.md, changes 67-69). Slices as FORMAT.md
 * lays them out: a 2-bit slice byte holds n16 blocks 2i (bits 0..3) and
 * 2i + 1 (bits 4..7), a 1-bit slice byte blocks 0..3 at bits 2j, 2j + 1;
 * each first code low. */

/* Pair index word j of slab `slab` for 3-bit codes (pair_indices but for
 * bits 6..7): the 2-bit slices' nibble, the 1-bit slices at bits 4..5. */
__device__ __forceinline__ uint32_t three_bit_indices(const uint32_t (&w)[12], int slab, int j) {
  const uint32_t two = w[2 * slab + j / 2] >> (4 * (j % 2));
  const uint32_t one = j <= 2 ? w[8 + slab] << (4 - 2 * j) : w[8 + slab] >> (2 * j - 4);
  return bit_select<0x0F0F0F0Fu>(two, one);
}

/* The first and second codes' bytes of n16 block j in slab `slab`
 * (code_bytes but for the bits above the code) for 6-bit codes: the 4-bit
 * slice's nibble, the 2-bit slice's two bits at bits 4..5. */
__device__ __forceinline__ void six_bit_code_bytes(const uint32_t (&w)[24], int slab, int j, uint32_t &first,
                                                   uint32_t &second) {
  const uint32_t four = w[4 * slab + j], two = w[16 + 2 * slab + j / 2];
  first = bit_select<0x0F0F0F0Fu>(four, j % 2 ? two : two << 4);
  second = bit_select<0x0F0F0F0Fu>(four >> 4, j % 2 ? two >> 2 : two << 2);
}

/* The same for 7-bit codes: then the 1-bit slice's bit at bit 6. */
__device__ __forceinline__ void seven_bit_code_bytes(const uint32_t (&w)[28], int slab, int j, uint32_t &first,
                                                     uint32_t &second) {
  const uint32_t four = w[4 * slab + j], two = w[16 + 2 * slab + j / 2], one = w[24 + slab];
  first = bit_select<0x3F3F3F3Fu>(bit_select<0x0F0F0F0Fu>(four, j % 2 ? two : two << 4), one << (6 - 2 * j));
  second = bit_select<0x3F3F3F3Fu>(bit_select<0x0F0F0F0Fu>(four >> 4, j % 2 ? two >> 2 : two << 2),
                                   j < 3 ? one << (5 - 2 * j) : one >> 1);
}

/* This kernel's index words for its tables: the bit-select forms where the
 * table has 256 entries for them (3-bit pairs, 6- and 7-bit codes), the
 * generic ones (gemm_device.cuh, shared with the wide kernel) elsewhere. */
template <int BITS>
__device__ __forceinline__ uint32_t table_pair_indices(const uint32_t (&w)[4 * BITS], int slab, int j) {
  if constexpr (BITS == 3) return three_bit_indices(w, slab, j);
  else return pair_indices<BITS>(w, slab, j);
}

template <int BITS>
__device__ __forceinline__ void table_code_bytes(const uint32_t (&w)[4 * BITS], int slab, int j, uint32_t &first,
                                                 uint32_t &second) {
  if constexpr (BITS == 6) six_bit_code_bytes(w, slab, j, first, second);
  else if constexpr (BITS == 7) seven_bit_code_bytes(w, slab, j, first, second);
  else code_bytes<BITS>(w, slab, j, first, second);
}

/* The pair of codes at byte b of `first` and `second`, from the single-code
 * table (each entry's low half is the value). */
__device__ __forceinline__ uint32_t lookup_codes(uint32_t table_lane, uint32_t first, uint32_t second, int b) {
  return __byte_perm(lookup(table_lane, first, b), lookup(table_lane, second, b), 0x5410u);
}

/* Rewrites a ring entry's scale rows in compute dtype: row r's 64 stored
 * values (at r·stored_row_bytes) become 64 compute-dtype values at
 * r·kScaleRowBytes. A lane converts columns 2·lane and 2·lane + 1 of as
 * many rows as an atom can span (rows this atom does not use hold stale
 * values, converted and never read), so each scale is converted once per
 * group, not once by each of the lanes that read it. Two rows at a time:
 * both rows' loads in flight, two pairs live (the 12-warp kernels sit at
 * their register limit). A 16-bit lane rewrites only the bytes it read; an
 * fp32 row shrinks onto stored bytes (converted row r lies inside stored
 * row r/2, and fp32 entries hold two rows), so there every lane reads
 * before any lane writes. */
template <typename T, bool ONE_ROW>
__device__ __forceinline__ void convert_scales(const lutmm_cuda_gemm_params &p, uint8_t *entry, int lane) {
  constexpr int STEP = ONE_ROW ? 1 : 2; /* per-slab atoms span 2 or 4 rows */
  const uint32_t stored = stored_row_bytes(p);
  for (int r = 0; r < (ONE_ROW ? 1 : p.atom_scale_rows); r += STEP) {
    uint32_t pair[STEP];
#pragma unroll
    for (int i = 0; i < STEP; i++)
      pair[i] = (uint32_t)scale_in<T>(entry + (r + i) * stored, 2 * lane, p.scale_dtype) |
                (uint32_t)scale_in<T>(entry + (r + i) * stored, 2 * lane + 1, p.scale_dtype) << 16;
    if (p.scale_dtype == LUTMM_DTYPE_F32) __syncwarp();
#pragma unroll
    for (int i = 0; i < STEP; i++) *(uint32_t *)(entry + (r + i) * kScaleRowBytes + 4 * lane) = pair[i];
  }
  __syncwarp(); /* lanes then read the columns of others */
}

/* This lane's 8 scales (columns lane/4 + 8·nb) of one ring row, already in
 * compute dtype, two a word: word i holds nb = 2i (low half) and 2i + 1
 * (high half), which scaled_mma reads as HMUL2 operands (mul2_low,
 * mul2_high). One transposing ldmatrix reads them all: the rows of matrix
 * i are the row's 16-byte chunks 2i and 2i + 1, alternately (lane 8i + r
 * names row r), so lane 4g + q receives column g of chunks 2i and 2i + 1
 * whatever q. It stands for eight 16-bit loads and the PRMTs that paired
 * them. */
__device__ __forceinline__ void scale_words(const uint8_t *row, uint32_t lane_offset, uint32_t (&s)[4]) {
  ldmatrix_x4_trans(s, row + lane_offset);
}

/* This lane's ldmatrix row in a scale row (scale_words' `lane_offset`),
 * worked out once before the kernels' loops. */
__device__ __forceinline__ uint32_t scale_words_lane(int lane) {
  return kept(16u * (uint32_t)(2 * (lane >> 3) + (lane & 1)));
}

/* MB = 8: X of slab `slab` only, B fragments of m8 blocks 2i and 2i + 1
 * from one ldmatrix (xs is then this lane's row lane % 8 + 8·(lane / 16),
 * k offset 8·((lane / 8) % 2)) into xf[mb][2·(slab % 2) ..]. Holding one
 * slab of 64 rows rather than two keeps 16 registers free: the 64-row
 * kernels sit at the 255-register limit. */
template <int MB>
__device__ __forceinline__ void x_slab(const uint8_t *xs, int slab, uint32_t (&xf)[MB][4]) {
  const int h = slab % 2;
#pragma unroll
  for (int mb = 0; mb < MB; mb += 2) {
    uint32_t r[4];
    ldmatrix_x4(r, xs + 8 * mb * LUTMM_SKINNY_X_ROW_BYTES + 32 * slab);
    xf[mb][2 * h] = r[0];
    xf[mb][2 * h + 1] = r[1];
    xf[mb + 1][2 * h] = r[2];
    xf[mb + 1][2 * h + 1] = r[3];
  }
}

/* X row of this lane's ldmatrix address: see compute_atom and x_slab. */
template <int MB>
__device__ __forceinline__ const uint8_t *x_lane_of(const uint8_t *xbuf, int lane) {
  if (MB == 8) return xbuf + ((lane & 7) + 8 * (lane >> 4)) * LUTMM_SKINNY_X_ROW_BYTES + 16 * ((lane >> 3) & 1);
  return xbuf + (lane & 7) * LUTMM_SKINNY_X_ROW_BYTES + 16 * (lane >> 3);
}

/* n16 block j of one slab: the A fragment of W^T (rows, i.e. columns of W,
 * g and g + 8; k 2q.. and 2q + 8..), which is this lane's pairs 0, 2, 1, 3
 * of the block scaled by their columns' scales (`scales`: column g's in
 * the low half, g + 8's in the high; scale_words), against every m8
 * block's half h of X. */
template <typename T, int MB>
__device__ __forceinline__ void scaled_mma(uint32_t pair0, uint32_t pair1, uint32_t pair2, uint32_t pair3,
                                           uint32_t scales, const uint32_t (&xf)[MB][4], int h,
                                           float (&acc)[MB][4][4], int j) {
  uint32_t a[4];
  a[0] = compute<T>::mul2_low(pair0, scales);
  a[1] = compute<T>::mul2_high(pair2, scales);
  a[2] = compute<T>::mul2_low(pair1, scales);
  a[3] = compute<T>::mul2_high(pair3, scales);
#pragma unroll
  for (int mb = 0; mb < MB; mb++) compute<T>::mma(acc[mb][j], a, xf[mb][2 * h], xf[mb][2 * h + 1]);
}

/* One atom: 4 slabs × 4 n16 blocks × MB m8 blocks of mma.m16n8k16. The
 * atom's words come from this lane's ring slot `slot_lane`: all at once for
 * codes of up to 4 bits, two slabs at a time for wider ones. `xs`
 * is this lane's ldmatrix row in the atom's X slot (row lane % 8, k offset
 * 8·(lane / 8): matrices k 0–7, 8–15 of slab kb, then of slab kb + 1).
 * `scales` holds the previous atom's slab-3 scales (scale_words); `carry`
 * says they still apply, else the entry's rows, fresh from the ring, are
 * put in compute dtype first.
 * ONE_ROW: the atom lies in one scale group (group_size % 64 == 0 or one
 * group per column), so its scales never change between slabs.
 * OPENED_ROWS: per-slab scales read a row only where a slab opens one (the
 * column stream but for 3-bit codes, column_kernel.cuh), not at every
 * slab (see below). */
template <typename T, int MB, int BITS, bool ONE_ROW, bool OPENED_ROWS = false>
__device__ __forceinline__ void compute_atom(const lutmm_cuda_gemm_params &p, int atom, int lane, uint32_t slot_lane,
                                             uint8_t *entry, const uint8_t *xs, uint32_t table_lane,
                                             uint32_t scale_lane, bool carry, uint32_t (&scales)[4],
                                             float (&acc)[MB][4][4]) {
  constexpr bool PAIRS = BITS <= 4;
  uint32_t w[4 * BITS]; /* a lane's 32-bit words of one atom, all planes */
  if constexpr (PAIRS) read_atom<BITS>(slot_lane, w);
  /* per-slab scales: slab s's row in byte s, found once an atom (see below) */
  [[maybe_unused]] const uint32_t rows = ONE_ROW ? 0 : slab_rows_word(p, atom, slab_rows_by_shift(p, atom));
  /* byte s nonzero where slab s's row is not slab s − 1's (OPENED_ROWS) */
  [[maybe_unused]] const uint32_t opens = rows ^ (rows << 8);
  if (!carry) {
    if (p.scale_dtype != (int)compute<T>::kDtype) convert_scales<T, ONE_ROW>(p, entry, lane);
    scale_words(entry, scale_lane, scales);
  }
#pragma unroll
  for (int kb = 0; kb < 4; kb += 2) {
    if constexpr (!PAIRS) read_slab_pair<BITS>(slot_lane, kb, w);
    uint32_t xf[MB][4];
    if constexpr (MB < 8) {
#pragma unroll
      for (int mb = 0; mb < MB; mb++) ldmatrix_x4(xf[mb], xs + 8 * mb * LUTMM_SKINNY_X_ROW_BYTES + 32 * kb);
    }
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int slab = kb + h;
      if constexpr (MB == 8) x_slab(xs, slab, xf);
      /* Per-slab scales: each slab reads its row, needed or not. Reading
       * only where a slab opens a row took tests and branches that cost
       * more than an ldmatrix: a warp's atom ran 1,028 instructions
       * against 911 with one-row scales (Nsight Compute, 8-bit codes,
       * groups of 32, M = 8, H200), and this form runs groups of 32 at
       * M = 8..16 in 0.89-1.00 of the time (docs/PERF.md, change 116).
       * The column stream (M = 1..2) reads only the rows that slabs
       * open, one predicate a slab from `opens` and no row kept
       * (OPENED_ROWS): there it measured faster, but for 3-bit codes
       * (change 117). */
      if (!ONE_ROW && slab > 0 && (!OPENED_ROWS || (opens & (0xFFu << 8 * slab)) != 0))
        scale_words(entry + slab_row(rows, slab) * kScaleRowBytes, scale_lane, scales);
      if constexpr (BITS <= 2) {
        /* A slice word holds 4/b n16 blocks of the slab: one table load per
         * byte gives pair b of each. */
        constexpr int PER_WORD = 4 / BITS;
#pragma unroll
        for (int jw = 0; jw < 4 / PER_WORD; jw++) {
          const uint32_t word = w[slab * BITS + jw];
          byte_pairs<BITS> q[4];
#pragma unroll
          for (int b = 0; b < 4; b++) q[b] = lookup_byte<BITS>(table_lane, word, b);
#pragma unroll
          for (int t = 0; t < PER_WORD; t++) {
            const int j = jw * PER_WORD + t;
            scaled_mma<T, MB>(q[0].v[t], q[1].v[t], q[2].v[t], q[3].v[t], scales[j], xf, h, acc, j);
          }
        }
      } else {
#pragma unroll
        for (int j = 0; j < 4; j++) {
          if constexpr (PAIRS) {
            const uint32_t index = table_pair_indices<BITS>(w, slab, j);
            scaled_mma<T, MB>(lookup(table_lane, index, 0), lookup(table_lane, index, 1), lookup(table_lane, index, 2),
                              lookup(table_lane, index, 3), scales[j], xf, h, acc, j);
          } else if constexpr (BITS == 5) {
            uint32_t q[4];
            lookup_five(table_lane, slice_bits<BITS>(w, 0, slab, j), slice_bits<BITS>(w, 1, slab, j), q);
            scaled_mma<T, MB>(q[0], q[1], q[2], q[3], scales[j], xf, h, acc, j);
          } else {
            uint32_t first, second;
            table_code_bytes<BITS>(w, slab, j, first, second);
            scaled_mma<T, MB>(lookup_codes(table_lane, first, second, 0), lookup_codes(table_lane, first, second, 1),
                              lookup_codes(table_lane, first, second, 2), lookup_codes(table_lane, first, second, 3),
                              scales[j], xf, h, acc, j);
          }
        }
      }
    }
  }
}

/* Element e of n16 block j, m8 block mb in this lane's accumulators is
 * row 8·mb + 2·(lane % 4) + (e & 1), column 16·j + lane / 4 + 8·(e >> 1). */

/* One tagged word: the launch's tag above the value's bits. A relaxed
 * 64-bit access at GPU scope is single-copy atomic, so a reader that sees
 * the tag sees the value stored with it, and neither side needs a fence. */
__device__ __forceinline__ void store_tagged(uint64_t *at, uint32_t tag, float v) {
  const uint64_t word = (uint64_t)tag << 32 | __float_as_uint(v);
  asm volatile("st.relaxed.gpu.global.b64 [%0], %1;\n" ::"l"(at), "l"(word) : "memory");
}

__device__ __forceinline__ uint64_t load_tagged(const uint64_t *at) {
  uint64_t word;
  asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];\n" : "=l"(word) : "l"(at));
  return word;
}

/* Workspace slot of contributor b's partial of a cut column whose
 * contributors are blocks first .. last: 2b for a block's first segment,
 * 2b + 1 for its last (only the first contributor's can be that, when its
 * range starts before the tile). */
struct partial_slots {
  int64_t first, first_slot;

  __device__ __forceinline__ partial_slots(const lutmm_cuda_gemm_params &p, int tile, int64_t first_block)
      : first(first_block),
        first_slot(lutmm_cuda_range_start(p.units, p.grid, first_block) == (int64_t)tile * p.iters
                       ? 2 * first_block
                       : 2 * first_block + 1) {}
  __device__ __forceinline__ int64_t of(int64_t b) const { return b == first ? first_slot : 2 * b; }
};

/* HEAD kernel: adds the head's partial (block `last`'s tagged slot of
 * ROWS rows) to a lane's sums, once all its words carry this launch's
 * tag. The head published in mid-stream, long before the column's other
 * contributors end, so the loop runs once in practice. */
template <int MB, int BITS, int W, int PER_LANE>
__device__ __forceinline__ void add_head(const lutmm_cuda_gemm_params &p, int warp, int lane, int row0, int64_t last,
                                         int rows, float (&sum)[PER_LANE]) {
  using C = cfg<MB, BITS, W>;
  const uint64_t *at =
      p.tagged + ((size_t)last * C::ROWS + (size_t)row0) * C::TILE_N + (size_t)warp * 64 + (size_t)lane;
  uint64_t word[PER_LANE];
  for (;;) {
    bool tagged = true;
#pragma unroll
    for (int i = 0; i < PER_LANE; i++) {
      word[i] = i / 2 < rows ? load_tagged(at + (size_t)(i / 2) * C::TILE_N + 32 * (i % 2)) : (uint64_t)p.tag << 32;
      tagged = tagged && (uint32_t)(word[i] >> 32) == p.tag;
    }
    if (__all_sync(0xFFFFFFFFu, tagged)) break;
    __nanosleep(128);
  }
#pragma unroll
  for (int i = 0; i < PER_LANE; i++) sum[i] += __uint_as_float((uint32_t)word[i]);
}

/* Rows row0 .. row0 + G − 1 (those below M) of a cut column: every block's
 * partial added in block order. Lane l owns elements l + 32·i (row row0 +
 * i/2, column l + 32·(i % 2)); the loads of BATCH partials are issued
 * together, so the sum waits on memory once per BATCH partials. With
 * HEAD, where `head` says so, block `last`'s partial is the head's tagged
 * words, added last (add_head). */
template <int MB, int BITS, int W, int G, int BATCH, bool HEAD = false>
__device__ __forceinline__ void reduce_rows(const lutmm_cuda_gemm_params &p, int warp, int lane, int64_t column0,
                                            const partial_slots &slots, int64_t last, int row0 = 0,
                                            bool head = false) {
  using C = cfg<MB, BITS, W>;
  constexpr int PER_LANE = 2 * G;
  const size_t tile_elems = (size_t)C::ROWS * C::TILE_N;
  const int rows = (int)p.m - row0;
  float sum[PER_LANE];
#pragma unroll
  for (int i = 0; i < PER_LANE; i++) sum[i] = 0.0f;
  /* Whole batches, the last one cut short by predicates (a remainder loop
   * would wait once per partial). */
  const int64_t first = slots.first;
  const int64_t summed = HEAD && head ? last - 1 : last; /* the head's words come last */
  for (int64_t b0 = first; b0 <= summed; b0 += BATCH) {
    float part[BATCH][PER_LANE];
#pragma unroll
    for (int t = 0; t < BATCH; t++) {
      const int64_t b = b0 + t;
      const float *at = p.workspace + (size_t)slots.of(b) * tile_elems + (size_t)row0 * C::TILE_N + (size_t)warp * 64 + lane;
      const bool load = b <= summed && !lutmm_fault_drop_partial(b - first);
#pragma unroll
      for (int i = 0; i < PER_LANE; i++)
        part[t][i] = load && i / 2 < rows ? __ldcg(at + (size_t)(i / 2) * C::TILE_N + 32 * (i % 2)) : 0.0f;
    }
#pragma unroll
    for (int t = 0; t < BATCH; t++)
      if (b0 + t <= summed)
#pragma unroll
        for (int i = 0; i < PER_LANE; i++) sum[i] += part[t][i];
  }
  if constexpr (HEAD)
    if (head && !lutmm_fault_drop_partial(last - first))
      add_head<MB, BITS, W, PER_LANE>(p, warp, lane, row0, last, rows, sum);
#pragma unroll
  for (int i = 0; i < PER_LANE; i++) {
    const int n = lane + 32 * (i % 2);
    if (i / 2 < rows && column0 + n < p.n)
      store_output(p.y, p.y_dtype, (row0 + i / 2) * p.n + column0 + n, sum[i]);
  }
}

/* The last contributor of a cut column adds the partials and writes Y. It
 * runs at the kernel's end (the column's other contributors end with their
 * blocks), so its loads' round trips are the kernel's tail: M = 1 (decode)
 * takes 16 partials per round trip, a column split over 16 blocks in one
 * (a build taking 32 at M = 1 and 16 at M = 2 spilled at 128 registers);
 * M = 2 takes 8; M = 3..4 takes 4 rows of 4; larger M all rows of 2
 * partials per round trip (1 at MB = 4, whose registers would not hold
 * two); MB = 8 takes 32 rows at a time, 1 partial per round trip. More
 * at M = 5..8 (8 rows of 3) spills the 16-warp kernels at 128 registers.
 * Only MB = 1 kernels carry the paths for M <= 8: the others never see so
 * few rows, and without those paths they compile to fewer registers (the
 * MB = 8 kernels' small spills went). The HEAD kernels (M = 5..16) take
 * the path of their 8 or 16 rows, with `head` the column's head's tagged
 * words. */
template <int MB, int BITS, int W, bool HEAD = false>
__device__ void reduce_partials(const lutmm_cuda_gemm_params &p, int tile, int warp, int lane, int64_t first,
                                int64_t last, bool head = false) {
  using C = cfg<MB, BITS, W>;
  const partial_slots slots(p, tile, first);
  const int64_t column0 = ((int64_t)tile * C::WARPS + warp) * 64;
  if constexpr (HEAD) { /* M = 5..16: MB = 1 or 2 */
    reduce_rows<MB, BITS, W, C::ROWS, 2, true>(p, warp, lane, column0, slots, last, 0, head);
  } else {
    if constexpr (MB == 1) {
      if (p.m == 1) return reduce_rows<MB, BITS, W, 1, 16>(p, warp, lane, column0, slots, last);
      if (p.m == 2) return reduce_rows<MB, BITS, W, 2, 8>(p, warp, lane, column0, slots, last);
      if (p.m <= 4) return reduce_rows<MB, BITS, W, 4, 4>(p, warp, lane, column0, slots, last);
    }
    if constexpr (MB <= 4)
      reduce_rows<MB, BITS, W, C::ROWS, MB == 4 ? 1 : 2>(p, warp, lane, column0, slots, last);
    else
      for (int row0 = 0; row0 < (int)p.m; row0 += 32)
        reduce_rows<MB, BITS, W, 32, 1>(p, warp, lane, column0, slots, last, row0);
  }
}

/* A whole tile column straight to Y: lane rows 8·mb + row0 (+1), columns
 * 16·j + col (+8), so every address is a row base plus a constant. */
template <typename Out, int MB>
__device__ __forceinline__ void store_column(const lutmm_cuda_gemm_params &p, int64_t column0, int row0, int col,
                                             const float (&acc)[MB][4][4]) {
  Out *y = (Out *)p.y + column0 + col;
  const int64_t columns_left = p.n - column0 - col;
#pragma unroll
  for (int mb = 0; mb < MB; mb++)
#pragma unroll
    for (int r = 0; r < 2; r++) {
      const int m = 8 * mb + row0 + r;
      if (m >= p.m) continue;
      Out *row = y + (int64_t)m * p.n;
#pragma unroll
      for (int j = 0; j < 4; j++)
#pragma unroll
        for (int h = 0; h < 2; h++)
          if (16 * j + 8 * h < columns_left) row[16 * j + 8 * h] = output_of<Out>(acc[mb][j][2 * h + r]);
    }
}

/* Adds 1 to a ticket with acquire-release semantics at GPU scope; returns
 * the old value. */
__device__ __forceinline__ int ticket_add_acq_rel(int *ticket) {
  int old;
  asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], 1;\n" : "=r"(old) : "l"(ticket) : "memory");
  return old;
}

/* Adds 1 to a ticket, releasing the warp's earlier stores (ordered before
 * it by __syncwarp), without waiting for the result. */
__device__ __forceinline__ void ticket_arrive(int *ticket) {
  asm volatile("red.release.gpu.global.add.s32 [%0], 1;\n" ::"l"(ticket) : "memory");
}

/* Waits until a ticket reaches `count`, acquiring the stores its adds
 * released. Only in cooperative launches: the blocks it waits for are
 * resident, so they get there. */
__device__ __forceinline__ void ticket_wait(const int *ticket, int count) {
  for (;;) {
    int seen;
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];\n" : "=r"(seen) : "l"(ticket) : "memory");
    if (seen >= count) return;
    __nanosleep(32);
  }
}

/* Share `share` of `shares` of a cut column's elements (rows below M, in
 * row-major order, 64 a row): lane l adds elements e0 + l + 32·g of each
 * partial, G at a time, the loads of BATCH partials issued together, in
 * block order from 0 as reduce_rows adds them, so the sums are the same
 * bits whichever path reduces. */
template <int MB, int BITS, int W, int G, int BATCH>
__device__ __forceinline__ void reduce_share(const lutmm_cuda_gemm_params &p, int warp, int lane, int64_t column0,
                                             const partial_slots &slots, int64_t last, int share, int shares) {
  using C = cfg<MB, BITS, W>;
  const size_t tile_elems = (size_t)C::ROWS * C::TILE_N;
  const int elems = 64 * min((int)p.m, C::ROWS);
  const int e0 = share * elems / shares, e1 = (share + 1) * elems / shares;
  for (int e = e0 + lane; e < e1; e += 32 * G) {
    float sum[G];
#pragma unroll
    for (int g = 0; g < G; g++) sum[g] = 0.0f;
    const int64_t first = slots.first;
    for (int64_t b0 = first; b0 <= last; b0 += BATCH) {
      float part[BATCH][G];
#pragma unroll
      for (int t = 0; t < BATCH; t++) {
        const int64_t b = b0 + t;
        const float *at = p.workspace + (size_t)slots.of(b) * tile_elems + (size_t)warp * 64;
        const bool load = b <= last && !lutmm_fault_drop_partial(b - first);
#pragma unroll
        for (int g = 0; g < G; g++) {
          const int el = e + 32 * g;
          part[t][g] = load && el < e1 ? __ldcg(at + (size_t)(el / 64) * C::TILE_N + el % 64) : 0.0f;
        }
      }
#pragma unroll
      for (int t = 0; t < BATCH; t++)
        if (b0 + t <= last)
#pragma unroll
          for (int g = 0; g < G; g++) sum[g] += part[t][g];
    }
#pragma unroll
    for (int g = 0; g < G; g++) {
      const int el = e + 32 * g;
      if (el < e1 && column0 + el % 64 < p.n)
        store_output(p.y, p.y_dtype, (el / 64) * p.n + column0 + el % 64, sum[g]);
    }
  }
}

/* A cut column in a cooperative launch: every contributor publishes its
 * partial; those whose block range ends in this tile (all but, usually, the
 * last contributor, whose range goes on into the next tile) wait for the
 * rest and each add an equal share of the column, so the reduction's loads
 * spread over up to 17 multiprocessors, where a single last contributor
 * would load every partial through its own. A lane issues the loads of
 * up to 4 partials of FEW_G elements, of 8 of MID_G (16-row kernels) or of
 * 16 of MANY_G together. Measured on the H100 (docs/PERF.md):
 * - 16-row kernels: 3 elements a lane take a 12-reducer column's share at
 *   M = 16 (1024 elements, 86 a reducer) in one round trip (2 took two:
 *   1-6 % slower, change 73); 6 take a 7-reducer share (4096 x 14336) in
 *   one, which made sharing pay from 6 partials (5-10 %, change 74);
 * - 8-row kernels (128 registers at 16 warps): 2 elements of 16 partials
 *   cost 1-7.5 % at M = 4..8 on 8192 x 8192 and 28672 x 8192. */
template <int MB, int BITS, int W>
__device__ void reduce_together(const lutmm_cuda_gemm_params &p, int tile, int warp, int lane, int64_t first,
                                int64_t last, int *ticket) {
  constexpr int FEW_G = MB == 1 ? 4 : 8, MID_G = 6, MANY_G = MB == 2 ? 3 : MB == 4 ? 2 : 1;
  const int64_t end_unit = ((int64_t)tile + 1) * p.iters;
  const int64_t reducers =
      lutmm_cuda_range_start(p.units, p.grid, last + 1) <= end_unit ? last + 1 - first : last - first;
  if (lane == 0) ticket_arrive(ticket);
  const int64_t share = (int64_t)blockIdx.x - first;
  if (share >= reducers) return;
  const int64_t partials = last - first + 1;
  /* Each reducer counts once more after its wait; the last to do so knows
   * no one still watches the ticket and zeroes it for the next launch. A
   * relaxed add: its result is awaited only after the reduction's loads
   * (a wait that passes on a count another reducer's add completed still
   * acquires the partials, since atomic adds carry the releases along). */
  int counted = 0;
  if (lane == 0) {
    ticket_wait(ticket, (int)partials);
    counted = atomicAdd(ticket, 1);
  }
  __syncwarp(); /* the other lanes' loads after lane 0's acquire */
  const partial_slots slots(p, tile, first);
  const int64_t column0 = ((int64_t)tile * W + warp) * 64;
  const int sh = (int)share, shs = (int)reducers;
  if (partials <= 4)
    reduce_share<MB, BITS, W, FEW_G, 4>(p, warp, lane, column0, slots, last, sh, shs);
  else if (MB == 2 && partials <= 8)
    reduce_share<MB, BITS, W, MID_G, 8>(p, warp, lane, column0, slots, last, sh, shs);
  else
    reduce_share<MB, BITS, W, MANY_G, 16>(p, warp, lane, column0, slots, last, sh, shs);
  if (lane == 0 && counted == (int)(partials + reducers) - 1) *ticket = 0;
}

/* Kernels whose plain instantiation carries tagged partials (the 8-row
 * ones: lutmm_skinny_tags_partials). */
template <int MB>
constexpr bool TAGS_PARTIALS = MB == 1;

/* Waits until every partial of a cut column shows this launch's tag in
 * its first word: lane l watches partials first + l, first + 32 + l, ...,
 * loading again only those not yet seen, so a waiting reducer loads one
 * word a partial, not all of them. The full loads (reduce_tagged) check
 * every word again. */
__device__ __forceinline__ void await_partials(const lutmm_cuda_gemm_params &p, const uint64_t *column,
                                               const partial_slots &slots, int64_t last, size_t tile_elems,
                                               int lane) {
  for (int64_t b0 = slots.first; b0 <= last; b0 += 32) {
    const int64_t b = b0 + lane;
    bool seen = b > last || lutmm_fault_drop_partial(b - slots.first);
    for (;;) {
      if (!seen) seen = (uint32_t)(load_tagged(column + (size_t)slots.of(b) * tile_elems) >> 32) == p.tag;
      if (__all_sync(0xFFFFFFFFu, seen)) break;
      __nanosleep(256);
    }
  }
}

/* A cut column's rows below M from tagged partials: lane l adds elements
 * l + 32·g (row g / 2, column l + 32·(g % 2)), the loads of BATCH partials
 * issued together. A pass sums every partial, noting any word whose tag is
 * not this launch's, and the warp votes once at its end; a pass that saw
 * one is summed again (rare, after await_partials). A vote and retry around
 * each batch instead cost 2-20 us (8192 x 28672, M = 1..16, H100). Block
 * order from 0.0f, as reduce_rows adds, so both paths give the same bits. */
template <int MB, int BITS, int W, int G, int BATCH>
__device__ void reduce_tagged(const lutmm_cuda_gemm_params &p, int warp, int lane, int64_t column0,
                              const partial_slots &slots, int64_t last) {
  using C = cfg<MB, BITS, W>;
  constexpr size_t SLOT_WORDS = (size_t)LUTMM_SKINNY_TAGGED_ROWS * C::TILE_N;
  static_assert(G % 2 == 0 && G / 2 <= LUTMM_SKINNY_TAGGED_ROWS, "whole rows of a tagged slot");
  const int rows = (int)p.m;
  const int64_t first = slots.first;
  await_partials(p, p.tagged + (size_t)warp * 64, slots, last, SLOT_WORDS, lane);
  float sum[G];
  bool tagged = true;
  do {
    if (!tagged) __nanosleep(128);
    tagged = true;
#pragma unroll
    for (int g = 0; g < G; g++) sum[g] = 0.0f;
    for (int64_t b0 = first; b0 <= last; b0 += BATCH) {
      uint64_t word[BATCH][G];
#pragma unroll
      for (int t = 0; t < BATCH; t++) {
        const int64_t b = b0 + t;
        const uint64_t *at = p.tagged + (size_t)slots.of(b) * SLOT_WORDS + (size_t)warp * 64 + lane;
        const bool load = b <= last && !lutmm_fault_drop_partial(b - first);
#pragma unroll
        for (int g = 0; g < G; g++)
          word[t][g] = load && g / 2 < rows ? load_tagged(at + (g / 2) * C::TILE_N + 32 * (g % 2)) : (uint64_t)p.tag << 32;
      }
#pragma unroll
      for (int t = 0; t < BATCH; t++)
#pragma unroll
        for (int g = 0; g < G; g++) tagged = tagged && (uint32_t)(word[t][g] >> 32) == p.tag;
#pragma unroll
      for (int t = 0; t < BATCH; t++)
        if (b0 + t <= last)
#pragma unroll
          for (int g = 0; g < G; g++) sum[g] += __uint_as_float((uint32_t)word[t][g]);
    }
  } while (!__all_sync(0xFFFFFFFFu, tagged));
#pragma unroll
  for (int g = 0; g < G; g++) {
    const int n = lane + 32 * (g % 2);
    if (g / 2 < rows && column0 + n < p.n) store_output(p.y, p.y_dtype, (g / 2) * p.n + column0 + n, sum[g]);
  }
}

/* After a tagged launch's block has streamed its range: if its last
 * segment was part of a cut column (a whole tile went to Y), this block is
 * that column's first contributor (its range ends in the column), which
 * reduces it. Every block publishes before it waits, and the launch is
 * cooperative, so every wait ends. One load round trip takes 16 partials
 * of one row, 8 of two and 4 of three or four, as reduce_rows. A function
 * of its own: inlined, its loads spilled the kernel's main loop. */
template <int MB, int BITS, int W>
__device__ __noinline__ void reduce_last_segment(const lutmm_cuda_gemm_params &p, int lo, int hi, int warp, int lane) {
  const int tile = (hi - 1) / (int)p.iters;
  const int64_t first_unit = (int64_t)tile * p.iters, end_unit = first_unit + p.iters;
  if ((int64_t)lo <= first_unit && (int64_t)hi == end_unit) return; /* a whole tile: it went to Y */
  if ((int64_t)tile * W + warp >= p.n_atoms) return;             /* no column here: nothing published */
  const int64_t first = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit);
  if ((int64_t)blockIdx.x != first) return;
  const int64_t last = lutmm_cuda_block_of_unit(p.units, p.grid, end_unit - 1);
  const partial_slots slots(p, tile, first);
  const int64_t column0 = ((int64_t)tile * W + warp) * 64;
  if (p.m == 1) reduce_tagged<MB, BITS, W, 2, 16>(p, warp, lane, column0, slots, last);
  else if (p.m == 2) reduce_tagged<MB, BITS, W, 4, 8>(p, warp, lane, column0, slots, last);
  else reduce_tagged<MB, BITS, W, 8, 4>(p, warp, lane, column0, slots, last);
}

/* Hands each of this lane's accumulators in rows below M to put(at, v),
 * `at` its offset in a partial tile of TILE_N columns from the lane's
 * element 0 (row row0, column lane / 4): rows 8·mb + r, columns 16·j + 8·h. */
template <int MB, int TILE_N, typename Put>
__device__ __forceinline__ void for_each_partial(const lutmm_cuda_gemm_params &p, int row0,
                                                 const float (&acc)[MB][4][4], Put put) {
#pragma unroll
  for (int mb = 0; mb < MB; mb++)
#pragma unroll
    for (int r = 0; r < 2; r++) {
      if (8 * mb + row0 + r >= p.m) continue;
#pragma unroll
      for (int j = 0; j < 4; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) put((8 * mb + r) * TILE_N + 16 * j + 8 * h, acc[mb][j][2 * h + r]);
    }
}

/* HEAD kernel: whether this warp's segment is its column's head (block
 * `last` of the column, going on into the next tile); if so, its partial
 * goes to the block's tagged slot of ROWS rows, and no ticket. */
template <int MB, int BITS, int W>
__device__ __forceinline__ bool publish_head(const lutmm_cuda_gemm_params &p, int64_t first_unit, size_t lane_offset,
                                             int row0, const float (&acc)[MB][4][4]) {
  using C = cfg<MB, BITS, W>;
  const int64_t end_unit = first_unit + p.iters;
  if ((int64_t)blockIdx.x != lutmm_cuda_block_of_unit(p.units, p.grid, end_unit - 1) ||
      !lutmm_skinny_is_head(p.units, p.grid, blockIdx.x, end_unit))
    return false;
  uint64_t *words = p.tagged + (size_t)blockIdx.x * C::ROWS * C::TILE_N + lane_offset;
  for_each_partial<MB, C::TILE_N>(p, row0, acc, [&](int at, float v) { store_tagged(words + at, p.tag, v); });
  return true;
}

/* Writes a finished segment: straight to Y for a whole tile, else to the
 * block's workspace slot, and the column's last contributor reduces (in
 * the shared kernels its finishing contributors: reduce_together). */
template <int MB, int BITS, int W, cut_path CUT>
__device__ void finish_segment(const lutmm_cuda_gemm_params &p, const cursor &c, int segment_start, int lo,
                               int warp, int lane, const float (&acc)[MB][4][4]) {
  using C = cfg<MB, BITS, W>;
  const int64_t column0 = ((int64_t)c.tile * C::WARPS + warp) * 64;
  const int64_t first_unit = (int64_t)c.tile * p.iters;
  const int row0 = 2 * (lane % 4), col = lane / 4; /* element 0's row and column */
  if (segment_start == first_unit && c.it == p.iters - 1) {
    if (p.y_dtype == LUTMM_DTYPE_F32) store_column<float, MB>(p, column0, row0, col, acc);
    else if (p.y_dtype == LUTMM_DTYPE_F16) store_column<__half, MB>(p, column0, row0, col, acc);
    else store_column<__nv_bfloat16, MB>(p, column0, row0, col, acc);
    return;
  }
  const int64_t slot = segment_start == lo ? 2 * (int64_t)blockIdx.x : 2 * (int64_t)blockIdx.x + 1;
  const size_t lane_offset = (size_t)warp * 64 + row0 * C::TILE_N + col;
  constexpr bool HEAD = CUT == cut_path::head;
  if constexpr (HEAD) {
    if (publish_head<MB, BITS, W>(p, first_unit, lane_offset, row0, acc)) return;
  } else if constexpr (TAGS_PARTIALS<MB> && CUT == cut_path::plain) {
    if (p.tag != 0) { /* published; reduced at the end of a range (reduce_last_segment) */
      uint64_t *words = p.tagged + (size_t)slot * LUTMM_SKINNY_TAGGED_ROWS * C::TILE_N + lane_offset;
      for_each_partial<MB, C::TILE_N>(p, row0, acc, [&](int at, float v) { store_tagged(words + at, p.tag, v); });
      return;
    }
  }
  float *part = p.workspace + (size_t)slot * C::ROWS * C::TILE_N + lane_offset;
  for_each_partial<MB, C::TILE_N>(p, row0, acc, [&](int at, float v) { part[at] = v; });
  /* Lane 0's ticket add releases the warp's stores (ordered before it by
   * __syncwarp) and, for the last contributor, acquires everyone else's;
   * cheaper than a full fence on each side. */
  __syncwarp();
  const int64_t first = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit);
  const int64_t last = lutmm_cuda_block_of_unit(p.units, p.grid, first_unit + p.iters - 1);
  int *ticket = p.tickets + first * C::WARPS + warp;
  if constexpr (CUT == cut_path::shared) return reduce_together<MB, BITS, W>(p, c.tile, warp, lane, first, last, ticket);
  /* HEAD kernel: the head (if the column has one) takes no ticket */
  bool head = false;
  if constexpr (HEAD) head = lutmm_skinny_is_head(p.units, p.grid, last, first_unit + p.iters);
  int arrived = 0;
  if (lane == 0) arrived = ticket_add_acq_rel(ticket);
  arrived = __shfl_sync(0xFFFFFFFFu, arrived, 0);
  if (arrived != last - first - (head ? 1 : 0)) return;
  if (lane == 0) *ticket = 0; /* every contributor has counted: zero again for the next launch */
  __syncwarp(); /* the other lanes' loads after lane 0's acquire */
  reduce_partials<MB, BITS, W, HEAD>(p, c.tile, warp, lane, first, last, head);
}

/* The lookup table (LUTMM_SKINNY_TABLE_BYTES): entry e at e·256 bytes, its
 * lane copies (table_lane_offset) 128 contiguous bytes for pair and
 * single-code tables, 256 for byte tables, written in 16-byte stores.
 * Codes of 1 and 2 bits: entry e (a slice byte) holds the pairs of its 4/b
 * pair indices, one copy per 16 bytes for 1 bit, two for 2 bits. Codes of 3
 * and 4 bits: entry e holds the pair of codes whose slices e holds (3-bit:
 * e mod 64). Codes of 5 bits: four 64-byte quarters of 16 copies per entry
 * (below). Wider codes: entry e holds code e's value in its low half (6-
 * and 7-bit: code e mod 64 or 128). */
template <typename T, int MB, int BITS, int W>
__device__ void build_table(const lutmm_cuda_gemm_params &p, uint8_t *table) {
  if constexpr (BITS <= 2) {
    constexpr int PARTS = 4 / BITS, PAIR_MASK = (1 << (2 * BITS)) - 1;
    for (int i = (int)threadIdx.x; i < 256 * 16; i += cfg<MB, BITS, W>::THREADS) {
      const int e = i / 16, quarter = i % 16;
      uint32_t v[4];
#pragma unroll
      for (int t = 0; t < 4; t++) v[t] = pair_value<T, BITS>(p, (e >> (2 * BITS * (t % PARTS))) & PAIR_MASK);
      *(uint4 *)(table + e * 256 + quarter * 16) = make_uint4(v[0], v[1], v[2], v[3]);
    }
  } else if constexpr (BITS == 5) {
    /* Pair index e | h << 8 (pair_codes: h holds the 1-bit slices) at
     * e·256 + h·64, 16 copies of 4 bytes. */
    for (int i = (int)threadIdx.x; i < 1024 * 4; i += cfg<MB, BITS, W>::THREADS) {
      const int pair = i / 4, quarter = i % 4;
      const uint32_t value = pair_value<T, BITS>(p, pair);
      *(uint4 *)(table + (pair & 255) * 256 + (pair >> 8) * 64 + quarter * 16) = make_uint4(value, value, value, value);
    }
  } else {
    /* 256 entries for every width here: 3-bit pairs and 6- and 7-bit codes
     * fill them with entry e the pair or code e mod 64 or 128
     * (three_bit_indices, six_bit_code_bytes, seven_bit_code_bytes). */
    for (int i = (int)threadIdx.x; i < 256 * 8; i += cfg<MB, BITS, W>::THREADS) {
      const int e = i / 8, quarter = i % 8;
      uint32_t value;
      if constexpr (BITS <= 4) value = pair_value<T, BITS>(p, e % (1 << (2 * BITS)));
      else value = (uint32_t)compute<T>::from_float(p.table[e % (1 << BITS)]);
      *(uint4 *)(table + e * 256 + quarter * 16) = make_uint4(value, value, value, value);
    }
  }
}

/* Where a warp computes: unit u's tile and pair, and the pair's column. */
template <int MB, int BITS, int W>
struct position {
  cursor c;
  int column;
  bool column_ok; /* the tile's last columns may lie past N */

  __device__ __forceinline__ void start(const lutmm_cuda_gemm_params &p, int u, int warp) {
    c = cursor_at(p, u);
    enter_tile(p, warp);
  }
  __device__ __forceinline__ void enter_tile(const lutmm_cuda_gemm_params &p, int warp) {
    column = c.tile * W + warp;
    column_ok = column < (int)p.n_atoms;
  }
  __device__ __forceinline__ void next(const lutmm_cuda_gemm_params &p, int warp) {
    advance(p, c);
    if (c.it == 0) enter_tile(p, warp);
  }
};

/* The warp's next atom to fetch, in the order the warp computes them: k-atom
 * k of its column (flat index column · k_atoms + k), then the next tile's
 * column from k = 0. It runs RING atoms ahead of the computing position and
 * stops after the block's last atom. */
template <int MB, int BITS, int W>
struct fetcher {
  uint32_t flat;
  int k, column;
  bool column_ok;
  bool first; /* the block's first atom: its scale rows load whatever its group */
  int left;   /* atoms of the block's range still to fetch */
  uint64_t policy; /* the weights' L2 policy (fetch_atom) */

  __device__ __forceinline__ void start(const lutmm_cuda_gemm_params &p, const position<MB, BITS, W> &at, int lo,
                                        int hi) {
    const int iters = (int)p.iters;
    policy = l2_evict_first_policy();
    k = 2 * at.c.it;
    column = at.column;
    column_ok = at.column_ok;
    flat = (uint32_t)column * (uint32_t)p.k_atoms + (uint32_t)k;
    first = true;
    /* Two atoms per unit, one for a tile's last unit when K has an odd
     * number of atoms (hi / iters − lo / iters such units in [lo, hi)). */
    left = 2 * (hi - lo) - ((int)p.k_atoms % 2 == 1 ? hi / iters - lo / iters : 0);
  }

  /* Starts the copy of this atom (and, at a group start or the block's first
   * atom, its scale rows) into ring slot `slot_lane` / scale entry `entry`. */
  template <bool ONE_ROW>
  __device__ __forceinline__ void issue(const lutmm_cuda_gemm_params &p, const plane_lanes<BITS> &planes, int lane,
                                        uint32_t group_mask, uint32_t slot_lane, uint8_t *entry) const {
    if (left <= 0 || !column_ok) return;
    fetch_atom<BITS>(planes, flat, slot_lane, policy);
    if (first || ((uint32_t)k & group_mask) == 0) fetch_scales<ONE_ROW>(p, column, k, lane, entry);
  }
  __device__ __forceinline__ void advance(const lutmm_cuda_gemm_params &p) {
    left--;
    first = false;
    flat++;
    if (++k == (int)p.k_atoms) {
      k = 0;
      column += W;
      column_ok = column < (int)p.n_atoms;
      flat = (uint32_t)column * (uint32_t)p.k_atoms;
    }
  }
};

/* Where this warp's ring lies: whole rings fill the gap below the table
 * first, the rest follow the table (lutmm_skinny_layout_at). */
template <int MB, int BITS, bool ONE_ROW>
__device__ __forceinline__ uint32_t ring_of(const lutmm_skinny_layout &l, int warp) {
  constexpr uint32_t BYTES = ring<MB, BITS, ONE_ROW>::DEPTH * ring<MB, BITS, ONE_ROW>::SLOT;
  return (uint32_t)warp < l.gap_warps ? l.gap + (uint32_t)warp * BYTES : l.above + ((uint32_t)warp - l.gap_warps) * BYTES;
}

/* ---- Cut columns added by thread block clusters (CLUSTER kernels, M <= 16,
 * either scale layout; lutmm_skinny_cluster_plan): each of the p.cluster_ways
 * blocks of a cluster holds one segment, a part of its tile's k range
 * (p.cluster_groups clusters a tile). Each warp writes its column's partial
 * into its own ring, which no copy fills any more: rows below M of 64 fp32
 * each (at most 4 KiB; LUTMM_SKINNY_CLUSTER_HOLDS). After a cluster barrier
 * block r adds share r of the tile's elements, in row-major order, from
 * every block's rings in block order from zero (the ticket reduction's
 * order) and writes them to Y, or with several clusters a tile to the
 * cluster's workspace slot for add_group_sums; a last barrier keeps every
 * block's rings until all shares are read. */
template <int MB, int BITS, bool ONE_ROW>
__device__ __forceinline__ void put_partial_in_ring(const lutmm_cuda_gemm_params &p, uint8_t *ring_bytes, int lane,
                                                    const float (&acc)[MB][4][4]) {
  static_assert(LUTMM_SKINNY_CLUSTER_HOLDS(MB, BITS, ONE_ROW), "the ring holds the warp's partial");
  const int row0 = 2 * (lane % 4), col = lane / 4;
  /* Free to overwrite: each lane waited for its copies of every atom
   * before computing it, the __syncwarp after the last atom ordered all
   * lanes' reads before these stores, and the groups committed past the
   * range's end are empty. */
  float *part = (float *)ring_bytes + row0 * 64 + col;
  for_each_partial<MB, 64>(p, row0, acc, [&](int at, float v) { part[at] = v; });
}

/* What a block's share of the cluster's addition needs, passed by value:
 * read through a reference from the __noinline__ function (the parameters'
 * generic address, the layout on the caller's stack) they cost a memory
 * round trip before the barrier. */
struct cluster_share {
  void *y;
  int64_t n;
  int y_dtype, m, ways, tile;
  lutmm_skinny_layout layout;
};

/* This block's runs of 4 elements, [first, end) of the tile's M · TILE_N / 4
 * (row-major), and every block's window address of dynamic shared memory,
 * read after the cluster barrier that publishes all the partials. Ranks
 * past the cluster's size map to this block itself (see cluster_run_sum). */
struct cluster_runs {
  int first, end;
  uint32_t block_base[LUTMM_SKINNY_MAX_CLUSTER];
};

template <int MB, int BITS, int W>
__device__ __forceinline__ cluster_runs meet_cluster(const cluster_share &a) {
  using C = cfg<MB, BITS, W>;
  const int rank = (int)cluster_rank(), runs = a.m * (C::TILE_N / 4);
  cluster_runs r;
  r.first = rank * runs / a.ways;
  r.end = (rank + 1) * runs / a.ways;
#pragma unroll
  for (int b = 0; b < LUTMM_SKINNY_MAX_CLUSTER; b++) r.block_base[b] = cluster_map(a.layout.x, (uint32_t)(b < a.ways ? b : rank));
  cluster_sync();
  return r;
}

/* got[0] + .. + got[count − 1], in that order from zero (the order every
 * reduction path adds partials in), element by element. */
template <int MAX>
__device__ __forceinline__ float4 add_in_order(const float4 (&got)[MAX], int count) {
  float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
  for (int i = 0; i < MAX; i++) {
    if (i >= count || lutmm_fault_drop_partial(i)) continue;
    sum.x += got[i].x;
    sum.y += got[i].y;
    sum.z += got[i].z;
    sum.w += got[i].w;
  }
  return sum;
}

/* The sum of the run at (row, c) over the cluster's blocks, in rank order
 * from zero. The loads go out together before any addition, and those past
 * `ways` read the block's own ring instead of being predicated off: with a
 * predicate for each load ptxas interleaved loads and additions, so a
 * thread waited for the distributed-shared-memory round trip once per block
 * (2 us at 16 blocks on the H100, docs/PERF.md, change 51). */
template <int MB, int BITS, bool ONE_ROW>
__device__ __forceinline__ float4 cluster_run_sum(const cluster_share &a, const cluster_runs &r, int row, int c) {
  constexpr int MAX = LUTMM_SKINNY_MAX_CLUSTER;
  const uint32_t offset =
      ring_of<MB, BITS, ONE_ROW>(a.layout, c / 64) - a.layout.x + (uint32_t)(row * 64 + c % 64) * 4u;
  float4 got[MAX];
#pragma unroll
  for (int b = 0; b < MAX; b++) got[b] = cluster_load_float4(r.block_base[b] + offset);
  return add_in_order(got, a.ways);
}

/* Run sum `v` of the tile's columns from `column` to Y, those below N. */
__device__ __forceinline__ void store_run(const cluster_share &a, int row, int64_t column, float4 v) {
  const float sum[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int e = 0; e < 4; e++)
    if (column + e < a.n) store_output(a.y, a.y_dtype, (int64_t)row * a.n + column + e, sum[e]);
}

/* One cluster a tile: every block of it adds its runs from all the blocks'
 * rings and writes them to Y; the relaxed barrier at the end keeps each
 * block's rings until all have read them. */
template <int MB, int BITS, bool ONE_ROW, int W>
__device__ __noinline__ void add_cluster_share(const cluster_share a) {
  using C = cfg<MB, BITS, W>;
  constexpr int ROW_RUNS = C::TILE_N / 4;
  const cluster_runs r = meet_cluster<MB, BITS, W>(a);
  for (int q = r.first + (int)threadIdx.x; q < r.end; q += C::THREADS) {
    const int row = q / ROW_RUNS, c = 4 * (q % ROW_RUNS);
    const int64_t column = (int64_t)a.tile * C::TILE_N + c;
    if (column >= a.n) continue; /* so is every column of an atom column past n_atoms */
    store_run(a, row, column, cluster_run_sum<MB, BITS, ONE_ROW>(a, r, row, c));
  }
  cluster_sync_relaxed();
}

/* Several clusters a tile (groups): what their shares' meeting adds. */
struct cluster_groups {
  float *sums;  /* the workspace's partial slots, one a cluster (tile · groups + group) */
  int *tickets; /* one a share (tile · ways + rank) */
  int groups;
};

/* The last of a share's `groups` blocks (one a cluster of the tile, the
 * same rank in each) adds the groups' sums of the share in group order
 * from zero and writes Y: every block has stored its sums into its
 * cluster's slot and takes the share's ticket, and the one that sees the
 * last count puts it back to zero. Its loads of a run go out together,
 * those past `groups` reading group 0 again rather than being predicated
 * off (as cluster_run_sum). */
template <int MB, int BITS, int W>
__device__ __forceinline__ void add_group_sums(const cluster_share &a, const cluster_groups &g, const cluster_runs &r) {
  using C = cfg<MB, BITS, W>;
  constexpr int MAX = LUTMM_SKINNY_MAX_CLUSTER_GROUPS, ROW_RUNS = C::TILE_N / 4;
  constexpr size_t SLOT = (size_t)C::ROWS * C::TILE_N;
  int *ticket = g.tickets + (size_t)a.tile * a.ways + cluster_rank();
  int last = 0;
  __syncthreads(); /* every thread's sums stored before thread 0's release */
  if (threadIdx.x == 0) {
    last = ticket_add_acq_rel(ticket) == g.groups - 1;
    if (last) *ticket = 0; /* every block of this share has counted */
  }
  if (!__syncthreads_or(last)) return; /* the other threads' loads after thread 0's acquire */
  const float *tile_sums = g.sums + (size_t)a.tile * g.groups * SLOT;
  for (int q = r.first + (int)threadIdx.x; q < r.end; q += C::THREADS) {
    const int row = q / ROW_RUNS, c = 4 * (q % ROW_RUNS);
    const int64_t column = (int64_t)a.tile * C::TILE_N + c;
    if (column >= a.n) continue;
    const size_t offset = (size_t)row * C::TILE_N + c;
    float4 got[MAX];
#pragma unroll
    for (int k = 0; k < MAX; k++)
      got[k] = __ldcg((const float4 *)(tile_sums + (size_t)(k < g.groups ? k : 0) * SLOT + offset));
    store_run(a, row, column, add_in_order(got, g.groups));
  }
}

/* Several clusters a tile: every block of a cluster adds its runs from all
 * the blocks' rings into its cluster's workspace slot, arrives at the
 * cluster's last barrier (it reads no ring after that), meets the other
 * clusters' blocks of its rank through the share's ticket
 * (add_group_sums), and only then waits at that barrier, keeping its own
 * rings for the others. */
template <int MB, int BITS, bool ONE_ROW, int W>
__device__ __noinline__ void add_cluster_group_share(const cluster_share a, const cluster_groups g) {
  using C = cfg<MB, BITS, W>;
  constexpr int ROW_RUNS = C::TILE_N / 4;
  const cluster_runs r = meet_cluster<MB, BITS, W>(a);
  const int group = (int)blockIdx.x / a.ways % g.groups;
  float *sums = g.sums + ((size_t)a.tile * g.groups + group) * ((size_t)C::ROWS * C::TILE_N);
  for (int q = r.first + (int)threadIdx.x; q < r.end; q += C::THREADS) {
    const int row = q / ROW_RUNS, c = 4 * (q % ROW_RUNS);
    if ((int64_t)a.tile * C::TILE_N + c >= a.n) continue;
    __stcg((float4 *)(sums + (size_t)row * C::TILE_N + c), cluster_run_sum<MB, BITS, ONE_ROW>(a, r, row, c));
  }
  cluster_arrive_relaxed();
  add_group_sums<MB, BITS, W>(a, g, r);
  cluster_wait();
}

template <typename T, int MB, int BITS, bool ONE_ROW, int W, cut_path CUT>
__global__ void __launch_bounds__(32 * W, 1) skinny_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
  constexpr bool CLUSTER = CUT == cut_path::cluster, HEAD = CUT == cut_path::head;
  static_assert(!HEAD || LUTMM_SKINNY_HAS_HEAD(MB, BITS, ONE_ROW), "a HEAD kernel");
  static_assert(CUT != cut_path::shared || LUTMM_SKINNY_SHARES_REDUCTION(MB), "a kernel with the shared reduction");
  using C = cfg<MB, BITS, W>;
  using R = ring<MB, BITS, ONE_ROW>;
  static_assert(!HEAD || C::ROWS * C::TILE_N <= LUTMM_SKINNY_TAGGED_PER_SM, "one head slot an SM");
  static_assert(!TAGS_PARTIALS<MB> || 2 * LUTMM_SKINNY_TAGGED_ROWS * C::TILE_N <= LUTMM_SKINNY_TAGGED_PER_SM,
                "two tagged slots an SM");
  extern __shared__ __align__(16) uint8_t smem[];
  const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
  const uint32_t base = smem_address(smem);
  const lutmm_skinny_layout layout = lutmm_skinny_layout_at(base, BITS, MB, ONE_ROW, W);
  /* The host sized the block for dynamic shared memory starting at the
   * device's reserved bytes; were it to start elsewhere, the layout could
   * end past the allocation. Fail loudly rather than touch that memory. */
  if (layout.end - base > dynamic_smem_bytes()) __trap();
  uint8_t *xbuf = smem;
  uint8_t *entries = smem + (layout.scales - base) + (size_t)warp * R::DEPTH * R::ENTRY;
  const uint32_t ring_lane = ring_of<MB, BITS, ONE_ROW>(layout, warp) + 16u * (uint32_t)lane;
  const uint32_t table_lane = layout.table | table_lane_offset<BITS>(lane);
  const uint32_t scale_lane = scale_words_lane(lane);
  const uint8_t *x_lane = x_lane_of<MB>(xbuf, lane);
  const int lo = (int)lutmm_cuda_range_start(p.units, p.grid, blockIdx.x);
  const int hi = (int)lutmm_cuda_range_start(p.units, p.grid, blockIdx.x + 1);
  const plane_lanes<BITS> planes = lanes_of<BITS>(p, lane);
  const uint32_t group_mask = p.atom_group_mask;
  position<MB, BITS, W> at;
  at.start(p, lo, warp);

  /* Prologue: X chunk 0 (in the first group), then the first RING atoms,
   * one cp.async group each. Every thread commits the same groups: all
   * warps walk the same units, an idle warp commits empty groups. */
  fetcher<MB, BITS, W> fetch;
  fetch.start(p, at, lo, hi);
  if (lo < hi) load_x_chunk<MB, BITS, W>(p, lo, hi, xbuf);
#pragma unroll
  for (int s = 0; s < R::DEPTH; s++) {
    fetch.template issue<ONE_ROW>(p, planes, lane, group_mask, ring_lane + s * R::SLOT, entries + s * R::ENTRY);
    cp_async_commit();
    fetch.advance(p);
  }
  /* The table is built while those copies fly; the first chunk's barrier
   * (before any lookup) publishes it. */
  build_table<T, MB, BITS, W>(p, smem + (layout.table - base));
  int slot = 0;                  /* ring slot of the atom computed next */
  int since_x = R::DEPTH - 1;    /* groups committed after the one holding the current X chunk's copy */

  uint32_t scales[4]; /* the current atom's scales (scale_words; kept while the group lasts) */
#pragma unroll
  for (int i = 0; i < 4; i++) scales[i] = 0;
  int chunk_pos = 0, chunk_buffer = 0;
  const uint8_t *xs = x_lane; /* X slot of the unit's even atom */
  /* One segment per pass: the units of one tile in this block's range. The
   * accumulators live for exactly one segment, so the inner loop never
   * reassigns them conditionally (that costs a copy of all of them). */
  for (int u = lo; u < hi;) {
    const int segment_start = u, segment_end = min(hi, u + (int)p.iters - at.c.it);
    const cursor segment_last = {at.c.tile, at.c.it + (segment_end - 1 - u)};
    const bool column_ok = at.column_ok;
    float acc[MB][4][4];
    zero_floats(acc);
    for (; u < segment_end; u++) {
      const int even = 2 * at.c.it;
      const int atoms = even + 1 < (int)p.k_atoms ? 2 : 1;
#pragma unroll
      for (int h = 0; h < 2; h++) {
        if (h == 1 && atoms == 1) break;
        /* Wait for this atom (and, at a chunk's start, for the chunk's X,
         * after which every warp must be past the previous chunk: its buffer
         * takes the next chunk). Lanes read scale rows other lanes copied. */
        if (h == 0 && chunk_pos == 0) {
          cp_async_wait(min(R::DEPTH - 1, since_x));
          __syncthreads();
          if (u + C::CHUNK_UNITS < hi)
            load_x_chunk<MB, BITS, W>(p, u + C::CHUNK_UNITS, hi, xbuf + (chunk_buffer ^ 1) * C::CHUNK_BYTES);
          since_x = -1;
        } else {
          cp_async_wait(R::DEPTH - 1);
          __syncwarp();
        }
        if (column_ok) {
          const bool carry = h == 0 ? u != lo && ((uint32_t)even & group_mask) != 0
                                    : ((uint32_t)(even + 1) & group_mask) != 0;
          compute_atom<T, MB, BITS, ONE_ROW>(p, even + h, lane, ring_lane + slot * R::SLOT,
                                             entries + slot * R::ENTRY, xs + h * C::X_SLOT_BYTES, table_lane,
                                             scale_lane, carry, scales, acc);
        }
        /* Every lane is done with this slot's scale rows: refill it. */
        __syncwarp();
        fetch.template issue<ONE_ROW>(p, planes, lane, group_mask, ring_lane + slot * R::SLOT,
                                      entries + slot * R::ENTRY);
        cp_async_commit();
        fetch.advance(p);
        since_x++;
        slot = slot + 1 == R::DEPTH ? 0 : slot + 1;
      }
      at.next(p, warp);
      if (++chunk_pos == C::CHUNK_UNITS) {
        chunk_pos = 0;
        chunk_buffer ^= 1;
        xs = x_lane + chunk_buffer * C::CHUNK_BYTES;
      } else {
        xs += 2 * C::X_SLOT_BYTES;
      }
    }
    if (column_ok) {
      /* a cluster's block holds one segment, a part of one tile */
      if constexpr (CLUSTER) put_partial_in_ring<MB, BITS, ONE_ROW>(p, smem + (ring_of<MB, BITS, ONE_ROW>(layout, warp) - base), lane, acc);
      else finish_segment<MB, BITS, W, CUT>(p, segment_last, segment_start, lo, warp, lane, acc);
    }
  }
  cp_async_wait(0);
  if constexpr (CLUSTER) {
    const cluster_share share = {p.y, p.n, p.y_dtype, (int)p.m, p.cluster_ways, lo / (int)p.iters, layout};
    if (p.cluster_groups > 1)
      add_cluster_group_share<MB, BITS, ONE_ROW, W>(share, {p.workspace, p.tickets, p.cluster_groups});
    else
      add_cluster_share<MB, BITS, ONE_ROW, W>(share);
  } else if constexpr (TAGS_PARTIALS<MB> && CUT == cut_path::plain)
    if (p.tag != 0 && lo < hi) reduce_last_segment<MB, BITS, W>(p, lo, hi, warp, lane);
}

}  // namespace skinny
}  // namespace lutmm_kernels

#endif
