/* The wide LUT-GEMM kernel: Hopper warpgroup MMAs for many rows of X
 * (M > 32, and M = 17..32 where the planner's wide_takes_few_rows says).
 *
 * The product runs transposed, as in the skinny kernel: Y^T = W^T X^T. A
 * block has three warpgroups. One warp of the third is the producer: it
 * brings each unit's X (one TMA box; plain stores where X allows no tensor
 * map), atoms (bulk copies in 64-row tiles, cp.async in the others) and
 * scales (cp.async) into a ring of stages and does no
 * other work, so that neither the copies' issue nor their address
 * registers sit in the MMA warps. A tile is 64, 128 or 256 X rows
 * (tile<TM>); the two MMA warpgroups each own COLS 64-column atom columns
 * of it (four at 64 rows, two at 128, one at 256), and warp j of a
 * warpgroup dequantizes n16 block j of each of them: the four pair values
 * a lane looks up for one 16-row slab (codes of up to 4 bits a pair at a
 * time, wider ones a code at a time) are exactly its rows of the wgmma A
 * operand (16 rows per warp, mma.m16n8k16's A layout), so the weights
 * never go back to shared memory. X^T, the B operand, is read by the
 * tensor cores straight from the stage (128-byte swizzle). One
 * wgmma.m64n{MR}k16 per column and slab then multiplies each dequantized
 * weight by MR rows of X: the tile's TM, or its first 32 where X has no
 * more (lutmm_wide_mma_rows), and the
 * dequantization of the next slab overlaps it. Stages change hands through
 * mbarriers (mbarrier.cuh): a stage's `full` barrier completes when the
 * producer's copies into it have landed, its `empty` barrier when all
 * 256 MMA threads are done with it.
 *
 * Work is a Stream-K range of units (tile, k-atom) per block with the
 * tiled kernel's conventions: a tile the block covers whole goes to Y, a
 * partial one to workspace slot 2b (its first segment) or 2b + 1 (its
 * last), summed in block order by the fixup kernel. Where each tile is
 * halved and the two blocks run as a cluster (the CLUSTER kernels), they
 * add it in their shared memory instead (put_part_in_stages). */
#ifndef LUTMM_CUDA_WIDE_KERNEL_CUH
#define LUTMM_CUDA_WIDE_KERNEL_CUH

#include "cluster.cuh"
#include "fault.h"
#include "gemm_device.cuh"
#include "gemm_params.h"
#include "grid_dependency.cuh"
#include "mbarrier.cuh"
#include "stamps.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

#include <type_traits>

namespace lutmm_kernels {
namespace wide {

constexpr int THREADS = LUTMM_WIDE_THREADS; /* two MMA warpgroups and the producer's */
constexpr int CONSUMER_WARPS = 8;
/* A thread's registers after the split, from the block's THREADS × 168
 * (its launch bounds: 65536 / 384 rounded down to a multiple of 8):
 * 2 × 128 × 216 + 128 × 72 = 64512. The claim spins until the pool has
 * room, so the split must never ask for more than the launch gives. */
constexpr int LAUNCH_REGISTERS = 65536 / THREADS / 8 * 8;
constexpr int CONSUMER_REGISTERS = 216;
constexpr int PRODUCER_REGISTERS = 72;
static_assert(2 * 128 * CONSUMER_REGISTERS + 128 * PRODUCER_REGISTERS <= THREADS * LAUNCH_REGISTERS,
              "the block's registers");

/* A tile of TM X rows (64, 128 or 256; wgmma's N, but 32 where the MMAs
 * multiply X's first 32 rows only: mma_accumulators) × N W columns, always
 * LUTMM_WIDE_TILE_ELEMS outputs, so that each MMA thread holds 128 fp32
 * accumulators: four atom columns per warpgroup at 64 rows, two at 128,
 * one at 256. */
template <int TM>
struct tile {
  static_assert(TM == 64 || TM == 128 || TM == 256, "tiles of 64, 128 or 256 rows");
  static constexpr int N = LUTMM_WIDE_TILE_ELEMS / TM;
  static constexpr int COLS = N / 128; /* atom columns per warpgroup */
  static constexpr int ATOMS = N / 64; /* atoms of a unit */
  static constexpr int ACC = TM / 2;   /* fp32 accumulators per thread and column */
  static constexpr uint32_t SCALE_ROW = N * 4; /* a stage's scale row: N stored scales of up to 4 bytes */
};

/* A stage: X (TM rows of 64 k, 128 bytes each, 16-byte chunk c of row r at
 * r·128 + 16·(c ^ r % 8): the 128-byte swizzle in which TMA writes it and
 * wgmma reads it), the tile's atoms (atom a's vector q of lane L at
 * a·BITS·512 + 512q + 16L, the skinny ring's order), then up to four scale
 * rows of the tile's N stored scales (row r at r·N·4). */
template <int BITS, int TM>
struct stage_layout {
  static constexpr uint32_t X = 0;
  static constexpr uint32_t X_BYTES = TM * 128;
  static constexpr uint32_t W = X_BYTES;
  static constexpr uint32_t ATOM = 512u * BITS;
  static constexpr uint32_t SCALES = W + tile<TM>::ATOMS * ATOM;
  static constexpr uint32_t ROW = tile<TM>::SCALE_ROW;
};

/* X of unit s into the stage, element by element, by the producer warp:
 * the path for X without a tensor map (rows not on 16-byte boundaries, K
 * not a multiple of 8); rows past M and K are zeros. */
template <int TM>
__device__ __forceinline__ void load_x_unaligned(const lutmm_cuda_gemm_params &p, const unit_site &s, uint8_t *x,
                                                 int lane) {
  for (int v = lane; v < TM * 8; v += 32) {
    const int r = v / 8, c = v % 8;
    *(uint4 *)(x + r * 128 + 16 * (c ^ (r % 8))) = x_chunk8(p, s.mt * TM + r, s.it * 64 + 8 * c);
  }
}

/* Whether unit s's slab rows are fixed: groups of 16 or 32 rows in an atom
 * wholly inside K (slab_rows). */
__device__ __forceinline__ bool slab_rows_fixed(const lutmm_cuda_gemm_params &p, const unit_site &s) {
  return (p.group_log2 == 4 || p.group_log2 == 5) && s.it * 64 + 64 <= p.k;
}

/* The scale rows of unit s's four slabs (slab_rows_word): one test a
 * unit. Found in each slab instead (a shift, or slab_scale_row's clamped
 * 64-bit arithmetic, behind a branch), they made a warp's unit 205
 * instructions against 158 with one-row scales (Nsight Compute, 4-bit
 * codes, 256-row tiles, H200; docs/PERF.md, change 110). */
__device__ __forceinline__ uint32_t slab_rows(const lutmm_cuda_gemm_params &p, const unit_site &s) {
  return slab_rows_word(p, s.it, slab_rows_fixed(p, s));
}

/* The scale rows unit s's slabs take: slab 3's row + 1 (slab_rows). */
__device__ __forceinline__ int unit_scale_rows(const lutmm_cuda_gemm_params &p, const unit_site &s) {
  if (slab_rows_fixed(p, s)) return p.group_log2 == 4 ? 4 : 2; /* slab_rows' fixed words' byte 3, + 1 */
  return slab_scale_row(p, s.it, 3) + 1;
}

/* The scale rows of unit s's 64 K rows into a stage's scale rows at `dst`
 * by cp.async (one when every atom lies in one group, else slab 3's row +
 * 1: unit_scale_rows), the tile's N stored scales each; columns past n_pad
 * are zeros. At most 4 rows of N·4 bytes. Scales of 2^LOG2_ELEM bytes: a
 * row's vectors and the row a lane copies are known here and the unit's
 * first row is found once a unit, so a copy is an add and a compare, where
 * each copy's own 64-bit row and column arithmetic took about 30
 * instructions. */
template <int TM, bool ONE_ROW, int LOG2_ELEM>
__device__ __forceinline__ void copy_scale_rows(const lutmm_cuda_gemm_params &p, const unit_site &s, int lane,
                                                uint32_t dst) {
  constexpr int ROWS = ONE_ROW ? 1 : 4;
  constexpr int VECTORS = (tile<TM>::N << LOG2_ELEM) / 16; /* 16-byte vectors a row: 16 to 128 */
  constexpr int LANES = VECTORS < 32 ? VECTORS : 32;        /* lanes a row */
  constexpr int PASS_ROWS = 32 / LANES;                    /* rows a pass of the warp covers */
  const int count = ONE_ROW ? 1 : unit_scale_rows(p, s);
  const int64_t first_col = s.nt * tile<TM>::N;
  const uint8_t *first = (const uint8_t *)p.scales + ((scale_row(p, s.it * 64) * p.n_pad + first_col) << LOG2_ELEM);
  const size_t row_bytes = (size_t)p.n_pad << LOG2_ELEM;
  const int sub = lane / LANES, c0 = lane % LANES;
#pragma unroll
  for (int r = 0; r < ROWS; r += PASS_ROWS) {
    if (r + sub >= count) break;
    const uint8_t *row = first + (r + sub) * row_bytes;
#pragma unroll
    for (int c = c0; c < VECTORS; c += LANES)
      cp_async16_or_zero(dst + (r + sub) * tile<TM>::SCALE_ROW + c * 16, row + c * 16,
                         first_col + (c << (4 - LOG2_ELEM)) < p.n_pad, p.scales);
  }
}

template <int TM, bool ONE_ROW>
__device__ __forceinline__ void copy_scales(const lutmm_cuda_gemm_params &p, const unit_site &s, int lane,
                                            uint32_t dst) {
  if (p.scale_dtype == LUTMM_DTYPE_F32) copy_scale_rows<TM, ONE_ROW, 2>(p, s, lane, dst);
  else copy_scale_rows<TM, ONE_ROW, 1>(p, s, lane, dst);
}

/* A producer lane's arrival on a stage's `full` barrier once its cp.async
 * copies (and with no tensor map for X, its part of X, at `x`) are in. X
 * by plain stores (the slow path): they and the copies must be done and
 * visible to the MMAs' proxy before this lane's arrival. The copies join
 * a group first: wait_group waits for committed groups only. The proxy
 * fence sits here, on the writing side before the release, so that the
 * MMA warps need none after their acquire. */
template <int TM>
__device__ __forceinline__ void arrive_filled(const lutmm_cuda_gemm_params &p, const unit_site &s, int lane,
                                              uint8_t *x, uint32_t full) {
  if (p.x_tma) {
    mbarrier_arrive_after_copies(full);
    return;
  }
  load_x_unaligned<TM>(p, s, x, lane);
  cp_async_commit();
  cp_async_wait(0);
  fence_async_shared();
  mbarrier_arrive(full);
}

/* Whether a unit's atoms come by bulk copies (the copy engine, as X's TMA
 * box) rather than by every lane's cp.async. In 64-row tiles the atoms are
 * most of a unit's bytes (4-bit codes: 16 of X's and the atoms' 24 KiB)
 * and the MMA warps' lookups wait behind the copies in the load/store
 * pipe's queue: bulk
 * copies made them 2-4 % faster (NF4 at M = 64, groups of 32 at M = 32;
 * 7-bit groups of 32 at M = 64 7 %, groups of 64 and 128 0-1 % slower). In
 * 128- and 256-row tiles, where X is most of the bytes, bulk copies of the
 * atoms made them 1-8 % slower (NF4 M = 128 and 256; the copy engine then
 * carries all of a unit's bytes; PERF.md, change 112). */
template <int TM>
constexpr bool BULK_ATOMS = TM == 64;

/* The producer warp's copies of one tile's units into stages (stage_layout):
 * X by one TMA box per unit (lane 0), the atoms by bulk copies or cp.async
 * (BULK_ATOMS), the scale rows by cp.async (copy_scales). The stage's
 * `full` barrier completes once they have landed: lane 0's arrival
 * announces the bytes of the copy engine's copies, and every lane arrives
 * after its own cp.async copies. A slice's address moves by a constant per
 * k-atom. An atom past W's columns copies column 0's bytes (bulk) or zeros
 * from column 0's address (cp.async), so every source is valid: its
 * outputs lie past N and are never stored, and its scales are zeros. */
template <int BITS, int TM, bool BULK = BULK_ATOMS<TM>>
struct producer;

/* Atoms by bulk copies: lane a·slices + sl copies atom a's slice sl, whose
 * unit's 512·width bytes are contiguous in the planes and in the stage. */
template <int BITS, int TM>
struct producer<BITS, TM, true> {
  using S = tile<TM>;
  static constexpr int COPIES = S::ATOMS * slices<BITS>::count; /* bulk copies a unit: at most 24 */
  static_assert(COPIES <= 32, "one bulk copy a lane");
  static constexpr uint32_t W_BYTES = S::ATOMS * 512u * BITS; /* a unit's atoms */
  const uint8_t *w;  /* this lane's slice at k-atom 0 */
  uint32_t w_dst;    /* its place in a stage */
  uint32_t w_bytes;  /* its bytes a unit (512·width; 0: no copy) */

  __device__ __forceinline__ void enter_tile(const lutmm_cuda_gemm_params &p, const unit_site &s, int lane) {
    using L = stage_layout<BITS, TM>;
    const int a = lane / slices<BITS>::count, mine = lane % slices<BITS>::count;
    const int64_t column = s.nt * S::ATOMS + a;
    const int64_t first = lane < COPIES && column < p.n_atoms ? column : 0;
    w = p.planes;
    w_dst = 0;
    w_bytes = 0;
#pragma unroll
    for (int sl = 0; sl < slices<BITS>::count; sl++)
      if (sl == mine && lane < COPIES) {
        const int width = slices<BITS>::width(sl);
        w = p.planes + p.plane_offset[sl] + first * p.k_atoms * 512 * width;
        w_dst = L::W + a * L::ATOM + 512u * slices<BITS>::shift(sl);
        w_bytes = 512u * width;
      }
  }

  template <bool ONE_ROW>
  __device__ __forceinline__ void fill(const lutmm_cuda_gemm_params &p, const unit_site &s, int lane, uint8_t *stage,
                                       uint32_t full) const {
    using L = stage_layout<BITS, TM>;
    const uint32_t base = smem_address(stage);
    if (lane == 0) {
      mbarrier_arrive_expect_tx(full, W_BYTES + (p.x_tma ? L::X_BYTES : 0u));
      if (p.x_tma) tma_load_2d(base + L::X, &p.x_map, full, (int)(s.it * 64), (int)(s.mt * TM));
    }
    if (w_bytes != 0) bulk_load(base + w_dst, w + (size_t)s.it * w_bytes, w_bytes, full);
    copy_scales<TM, ONE_ROW>(p, s, lane, base + L::SCALES);
    arrive_filled<TM>(p, s, lane, stage + L::X, full);
  }
};

/* Atoms by cp.async: vector q of lane L of each atom, one instruction a
 * copy with its offset in the immediate (selecting a fallback address for
 * atoms past W made each copy five: PERF.md, change 111). */
template <int BITS, int TM>
struct producer<BITS, TM, false> {
  using S = tile<TM>;
  const uint8_t *w[S::ATOMS][slices<BITS>::count];
  bool w_ok[S::ATOMS];

  __device__ __forceinline__ void enter_tile(const lutmm_cuda_gemm_params &p, const unit_site &s, int lane) {
#pragma unroll
    for (int a = 0; a < S::ATOMS; a++) {
      const int64_t column = s.nt * S::ATOMS + a;
      w_ok[a] = column < p.n_atoms;
#pragma unroll
      for (int sl = 0; sl < slices<BITS>::count; sl++) {
        const int width = slices<BITS>::width(sl);
        w[a][sl] = p.planes + p.plane_offset[sl] + ((w_ok[a] ? column : 0) * p.k_atoms * 32 * width + lane) * 16;
      }
    }
  }

  template <bool ONE_ROW>
  __device__ __forceinline__ void fill(const lutmm_cuda_gemm_params &p, const unit_site &s, int lane, uint8_t *stage,
                                       uint32_t full) const {
    using L = stage_layout<BITS, TM>;
    const uint32_t base = smem_address(stage);
    if (p.x_tma && lane == 0) {
      mbarrier_arrive_expect_tx(full, L::X_BYTES);
      tma_load_2d(base + L::X, &p.x_map, full, (int)(s.it * 64), (int)(s.mt * TM));
    }
#pragma unroll
    for (int a = 0; a < S::ATOMS; a++)
#pragma unroll
      for (int sl = 0; sl < slices<BITS>::count; sl++) {
        const int width = slices<BITS>::width(sl), sh = slices<BITS>::shift(sl);
        const uint8_t *src = w[a][sl] + (size_t)s.it * 512 * width;
#pragma unroll
        for (int c = 0; c < width; c++)
          cp_async16_or_zero_valid(base + L::W + a * L::ATOM + 512 * (sh + c) + 16 * lane, src + 512 * c, w_ok[a]);
      }
    copy_scales<TM, ONE_ROW>(p, s, lane, base + L::SCALES);
    arrive_filled<TM>(p, s, lane, stage + L::X, full);
  }
};

/* This lane's words of an atom in a stage (word i of its 4·BITS at
 * 512·(i / 4) + 4·(i % 4) from its first vector), for slice_bits and its
 * kin in gemm_device.cuh. */
struct stage_words {
  const uint8_t *lane;
  __device__ __forceinline__ uint32_t operator[](int i) const {
    return *(const uint32_t *)(lane + 512 * (i / 4) + 4 * (i % 4));
  }
};

/* The table (lutmm_wide_table_bytes): entry e at e << ENTRY_LOG2 bytes,
 * lane L's copy at +4L. Codes of up to 4 bits: entry e holds the pair of
 * codes whose slices e holds (pair_value); wider codes: entry c holds code
 * c's value in both halves. */
template <int BITS>
constexpr int ENTRY_LOG2 = LUTMM_WIDE_TABLE_ENTRY_LOG2(BITS);
static_assert(4 * LUTMM_WIDE_TABLE_COPIES == 128, "an entry's lane copies: 4L fits below bit 7");

template <typename T, int BITS>
__device__ void build_table(const lutmm_cuda_gemm_params &p, uint8_t *table) {
  static_assert(4 * LUTMM_WIDE_TABLE_COPIES <= 1 << ENTRY_LOG2<BITS>, "an entry holds its lane copies");
  constexpr int STORES = LUTMM_WIDE_TABLE_COPIES / 4; /* 16-byte stores an entry */
  const int entries = (int)lutmm_wide_table_entries(BITS);
  for (int i = (int)threadIdx.x; i < entries * STORES; i += THREADS) {
    const int e = i / STORES;
    uint32_t v;
    if constexpr (BITS <= 4) v = pair_value<T, BITS>(p, e);
    else v = (uint32_t)compute<T>::from_float(p.table[e]) * 0x10001u;
    *(uint4 *)(table + (e << ENTRY_LOG2<BITS>) + 16 * (i % STORES)) = make_uint4(v, v, v, v);
  }
}

/* The entry of index byte b (a pair index, or a code of 5..8 bits) in the
 * table at shared-window address `table`; lane4: 4·lane. With entries 256
 * bytes apart one PRMT makes the entry's offset and the lane's copy at
 * once, byte b above the lane's byte, and the table's address becomes the
 * load's immediate: two instructions a lookup, where a PRMT and a
 * multiply-add that scaled the byte and added the lane's copy made three
 * (8-bit codes, 128 bytes apart, still do). */
template <int BITS>
__device__ __forceinline__ uint32_t lookup(uint32_t table, uint32_t lane4, uint32_t index, int b) {
  uint32_t at;
  if constexpr (ENTRY_LOG2<BITS> == 8) at = __byte_perm(index, lane4, 0x5504u | (uint32_t)b << 4);
  else at = (byte_of(index, b) << ENTRY_LOG2<BITS>) + lane4;
  uint32_t v;
  asm("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(table + at));
  return v;
}

/* This lane's two scales of n16 block j (columns 16j + lane/4 and + 8) of
 * atom a in stage scale row r (rows of `row_bytes`), in compute dtype,
 * duplicated into pairs. NATIVE: the scales are stored in the compute
 * dtype, so their bits are used as they are; otherwise scale_in converts
 * them. */
template <typename T, bool NATIVE>
__device__ __forceinline__ void scale_pair(const lutmm_cuda_gemm_params &p, const uint8_t *scales, int row_bytes,
                                           int r, int a, int j, int lane, uint32_t &lo, uint32_t &hi) {
  const uint8_t *row = scales + r * row_bytes;
  const int column = 64 * a + 16 * j + lane / 4;
  if constexpr (NATIVE) {
    lo = (uint32_t)((const uint16_t *)row)[column] * 0x10001u;
    hi = (uint32_t)((const uint16_t *)row)[column + 8] * 0x10001u;
  } else {
    lo = (uint32_t)scale_in<T>(row, column, p.scale_dtype) * 0x10001u;
    hi = (uint32_t)scale_in<T>(row, column + 8, p.scale_dtype) * 0x10001u;
  }
}

/* Words a lane's codes of one slab and column come in: the pair-index
 * word (codes of up to 4 bits) or the first- and second-code byte words
 * (5..8 bits; code_bytes). */
template <int BITS>
struct code_words {
  static constexpr int COUNT = BITS <= 4 ? 1 : 2;
};

/* This warp's code words of slab `slab` for its columns. */
template <int BITS, int TM>
__device__ __forceinline__ void read_codes(const uint8_t *atoms_lane, int slab, int j,
                                           uint32_t (&w)[tile<TM>::COLS][code_words<BITS>::COUNT]) {
#pragma unroll
  for (int cc = 0; cc < tile<TM>::COLS; cc++) {
    const stage_words words{atoms_lane + cc * stage_layout<BITS, TM>::ATOM};
    if constexpr (BITS <= 4) w[cc][0] = pair_indices<BITS>(words, slab, j);
    else code_bytes<BITS>(words, slab, j, w[cc][0], w[cc][1]);
  }
}

/* The unscaled pairs of one slab for this warp's columns, in A-fragment
 * order: rows g, g + 8 (columns of W) × k 2q.., 2q + 8.. are pairs 0, 2,
 * 1, 3 of the code words. Codes of 5..8 bits take two lookups a pair,
 * whose entries hold their values in the low halves. */
__device__ __forceinline__ constexpr int fragment_pair(int i) { return i == 1 ? 2 : i == 2 ? 1 : i; }

template <int BITS, int COLS>
__device__ __forceinline__ void lookup_slab(uint32_t table, uint32_t lane4,
                                            const uint32_t (&w)[COLS][code_words<BITS>::COUNT],
                                            uint32_t (&pairs)[COLS][4]) {
#pragma unroll
  for (int cc = 0; cc < COLS; cc++)
#pragma unroll
    for (int i = 0; i < 4; i++) {
      if constexpr (BITS <= 4) pairs[cc][i] = lookup<BITS>(table, lane4, w[cc][0], fragment_pair(i));
      else
        pairs[cc][i] = __byte_perm(lookup<BITS>(table, lane4, w[cc][0], fragment_pair(i)),
                                   lookup<BITS>(table, lane4, w[cc][1], fragment_pair(i)), 0x5410u);
    }
}

/* This warp's scales of stage scale row r for its columns (scale_pair). */
template <typename T, int BITS, int TM, bool NATIVE>
__device__ __forceinline__ void slab_scales(const lutmm_cuda_gemm_params &p, const uint8_t *scales, int r, int wg,
                                            int j, int lane, uint32_t (&lo)[tile<TM>::COLS],
                                            uint32_t (&hi)[tile<TM>::COLS]) {
  constexpr int COLS = tile<TM>::COLS;
#pragma unroll
  for (int cc = 0; cc < COLS; cc++)
    scale_pair<T, NATIVE>(p, scales, stage_layout<BITS, TM>::ROW, r, wg * COLS + cc, j, lane, lo[cc], hi[cc]);
}

/* A-fragment buffers of a warp, so MMA groups a warpgroup may leave in
 * flight (one fewer). With two, only a unit's last group is left running
 * while the next unit's scales, code words and first lookups are read; in
 * 256-row tiles Nsight Compute found the tensor pipe idle 21 % of the
 * cycles there (H200, M = 256), the warpgroups waiting for the group
 * before. Four, for 8 registers a thread more, leave up to three groups
 * running: tensor pipe 78.5 -> 81 % active, 3.8 % fewer cycles (NF4 g128), and
 * about 1 % less time in median for 2- and 4-bit codes (8-bit 0.3 %) under
 * the power cap that sets the clock at M = 256 (docs/PERF.md, change 98).
 * The other kernels keep two: 3-bit codes (two index words a slab) ran
 * 0.8 % slower in median with four; 128-row tiles (16 registers more,
 * where the kernels already use up to 213 of their 216) ran 2-4 % slower
 * in median for 2-, 4- and 8-bit codes (3-bit 1.3 % faster); and
 * per-slab kernels with four ran while a slab's scale row took a branch
 * in the slab, which made ptxas serialize every wgmma of the loop (C7513:
 * "non wgmma instructions defining input registers" within a group's
 * stage), or with every slab's scales read at the unit's start, which ran
 * no faster (hoisted_scales). With the rows from one word a unit
 * (slab_rows) the kernels whose scales are in the compute dtype compile
 * with four unserialized; that was not timed. */
template <int BITS, int TM, bool ONE_ROW>
__device__ __forceinline__ constexpr int fragment_buffers() {
  return TM == 256 && ONE_ROW && BITS != 3 ? 4 : 2;
}

/* Per-slab kernels of 128-row tiles read all four slabs' scales at the
 * unit's start (12 registers a thread more), so that no slab's scaling
 * waits on a shared-memory read issued after the slab before it was
 * multiplied: groups of 32 at M = 128 took 0.95-0.98 of the time on three
 * of the five large shapes (H200, docs/PERF.md, change 108). In 256-row
 * tiles the same ran 0.98-1.05 of the time, median 1.012, both with two
 * fragment buffers and with the four it let ptxas run unserialized, so
 * they read a slab's scales at the slab; in 64-row tiles (24 registers
 * more) ptxas spilled more with it (3-bit codes 76 -> 96 bytes stored). */
template <int TM, bool ONE_ROW>
__device__ __forceinline__ constexpr bool hoisted_scales() {
  return !ONE_ROW && TM == 128;
}

/* The accumulators of one column that an MMA of MR rows of X writes: the
 * first MR / 2, since a wgmma's D fragment of N rows is the first N / 2 of
 * a wider one's (lutmm_wide_acc_site). Where MR is less than the tile's
 * rows (lutmm_wide_mma_rows) the rest stay zero, and no store path writes the
 * rows they stand for, which lie past M. */
template <int MR, int ACC>
__device__ __forceinline__ float (&mma_accumulators(float (&acc)[ACC]))[MR / 2] {
  static_assert(MR / 2 <= ACC, "an MMA writes at most the tile's rows");
  return *reinterpret_cast<float(*)[MR / 2]>(&acc[0]);
}

/* One unit: for each slab, this warp's A fragments of its COLS columns,
 * then one wgmma per column into acc. In tiles of 128 and 256 rows the
 * shared-memory reads run a slab ahead, since the MMA fences keep the
 * compiler from moving them: every code word of the unit first, then the
 * lookups of slab s + 1 before the fragments of slab s are scaled and
 * multiplied (H100, same runs: with one-row scales 5-11 % faster for codes
 * of 5..8 bits, 4-7 % for 3-bit codes; with per-slab scales 0-7 % in
 * median for every width once a slab's scale row took a shift, change
 * 57). In 64-row tiles, four columns a warpgroup, one-row codes of up
 * to 4 bits run ahead (up to 9 % faster, spilling 8-32 B) and per-slab
 * 3-bit codes, whose two index words a slab have the most latency to
 * hide (0-6 % faster); per-slab 2- and 4-bit codes ran 3-6 % slower
 * ahead, spilling 8-24 B (none without), one-row 5..8-bit codes 3-11 %
 * slower, spilling 64-152 B
 * (docs/PERF.md, changes 60-62). Each slab's
 * group may run on while the next is prepared; a fragment buffer is reused
 * only after the group that read it completed: with B buffers (the slab's
 * index mod B, which runs on across units since B divides 4) the wait is
 * for all but the latest B - 1 groups (fragment_buffers says why B). */
template <typename T, int BITS, bool ONE_ROW, int TM, int MR, bool NATIVE>
__device__ __forceinline__ void compute_unit(const lutmm_cuda_gemm_params &p, const unit_site &s, const uint8_t *stage,
                                             uint32_t table, uint32_t lane4, int wg, int j, int lane,
                                             float (&acc)[tile<TM>::COLS][tile<TM>::ACC]) {
  using L = stage_layout<BITS, TM>;
  constexpr int COLS = tile<TM>::COLS;
  constexpr bool AHEAD = TM >= 128 || (ONE_ROW ? BITS <= 4 : BITS == 3);
  const uint8_t *scales = stage + L::SCALES;
  const uint8_t *atoms_lane = stage + L::W + wg * COLS * L::ATOM + 16 * lane;
  const uint32_t x_base = smem_address(stage + L::X);
  constexpr int BUFFERS = fragment_buffers<BITS, TM, ONE_ROW>();
  static_assert(4 % BUFFERS == 0, "a buffer's slab index runs on across units");
  constexpr bool HOIST = hoisted_scales<TM, ONE_ROW>();
  constexpr int SETS = HOIST ? 4 : 1;
  uint32_t codes[4][COLS][code_words<BITS>::COUNT], s_lo[SETS][COLS], s_hi[SETS][COLS], pairs[2][COLS][4];
  uint32_t a[BUFFERS][COLS][4];
  const uint32_t rows = ONE_ROW ? 0 : slab_rows(p, s);
#pragma unroll
  for (int set = 0; set < SETS; set++)
    slab_scales<T, BITS, TM, NATIVE>(p, scales, ONE_ROW ? 0 : slab_row(rows, set), wg, j, lane, s_lo[set], s_hi[set]);
  if constexpr (AHEAD) {
#pragma unroll
    for (int slab = 0; slab < 4; slab++) read_codes<BITS, TM>(atoms_lane, slab, j, codes[slab]);
    lookup_slab<BITS>(table, lane4, codes[0], pairs[0]);
  }
#pragma unroll
  for (int slab = 0; slab < 4; slab++) {
    const int now = slab % 2;
    if (AHEAD && slab < 3) lookup_slab<BITS>(table, lane4, codes[slab + 1], pairs[(slab + 1) % 2]);
    if (!ONE_ROW && !HOIST && slab > 0)
      slab_scales<T, BITS, TM, NATIVE>(p, scales, slab_row(rows, slab), wg, j, lane, s_lo[0], s_hi[0]);
    const int set = HOIST ? slab : 0;
    if (!AHEAD) {
      read_codes<BITS, TM>(atoms_lane, slab, j, codes[slab]);
      lookup_slab<BITS>(table, lane4, codes[slab], pairs[now]);
    }
    const int buffer = slab % BUFFERS;
#pragma unroll
    for (int cc = 0; cc < COLS; cc++) {
      a[buffer][cc][0] = compute<T>::mul2(pairs[now][cc][0], s_lo[set][cc]);
      a[buffer][cc][1] = compute<T>::mul2(pairs[now][cc][1], s_hi[set][cc]);
      a[buffer][cc][2] = compute<T>::mul2(pairs[now][cc][2], s_lo[set][cc]);
      a[buffer][cc][3] = compute<T>::mul2(pairs[now][cc][3], s_hi[set][cc]);
    }
    /* X^T of the slab: k 16·slab.. of every row */
    const uint64_t desc = wgmma_descriptor_sw128(x_base + 32u * (uint32_t)slab);
    wgmma_fence();
#pragma unroll
    for (int cc = 0; cc < COLS; cc++) wgmma_m64k16<T, MR>::run(mma_accumulators<MR>(acc[cc]), a[buffer][cc], desc);
    wgmma_commit();
    wgmma_wait<BUFFERS - 1>();
  }
}

/* f(row, col, value) for each accumulator of MMA thread t, at its place
 * in the tile (lutmm_wide_acc_site). */
template <int TM, typename F>
__device__ __forceinline__ void for_each_acc(int t, const float (&acc)[tile<TM>::COLS][tile<TM>::ACC], F &&f) {
#pragma unroll
  for (int cc = 0; cc < tile<TM>::COLS; cc++)
#pragma unroll
    for (int i = 0; i < tile<TM>::ACC; i++) {
      int row, col;
      lutmm_wide_acc_site(TM, t, cc, i, &row, &col);
      f(row, col, acc[cc][i]);
    }
}

/* A whole tile that lies inside Y, straight to y (Y in its dtype). Thread
 * t's accumulators (lutmm_wide_acc_site) sit at rows 8·(i/4) + i % 2 and
 * columns 64·cc + 8·((i % 4)/2) past those of its first one, so each is a
 * constant past one of two row pointers that step 8 rows every four
 * accumulators: no bounds test and no dtype test a value. Through
 * store_output a tile's 128 values a thread took 3,306 instructions a
 * warp (the 64-bit index, two bounds and the dtype's branches of each):
 * 8.2 % of the stall samples at 8192 x 28672, M = 128 (H200). */
template <int TM, typename Out>
__device__ __forceinline__ void store_inside_tile(const lutmm_cuda_gemm_params &p, Out *y, const unit_site &s, int t,
                                                  const float (&acc)[tile<TM>::COLS][tile<TM>::ACC]) {
  using S = tile<TM>;
  int row, col;
  lutmm_wide_acc_site(TM, t, 0, 0, &row, &col);
  Out *even = y + (s.mt * TM + row) * p.n + s.nt * S::N + col;
  Out *odd = even + p.n;
  const int64_t eight_rows = 8 * p.n;
#pragma unroll
  for (int r = 0; r < S::ACC / 4; r++, even += eight_rows, odd += eight_rows)
#pragma unroll
    for (int cc = 0; cc < S::COLS; cc++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        even[64 * cc + 8 * h] = output_of<Out>(acc[cc][4 * r + 2 * h]);
        odd[64 * cc + 8 * h] = output_of<Out>(acc[cc][4 * r + 2 * h + 1]);
      }
}

/* Writes a finished segment: the whole tile to Y, or a partial one to the
 * block's workspace slot in accumulator order (lutmm_wide_partial_site):
 * four accumulators per 16-byte store, each warp's stores 512 contiguous
 * bytes, where row-major scalar stores took four times the instructions
 * and touched four rows each. Vector v holds tile rows 8v .. 8v + 7, so
 * those wholly past M are left unwritten (the fixup does not read them):
 * at M = 17 a 128-row tile's partial is 3 of its 16 vectors a column.
 * Thread t is MMA thread 128·wg + 32j + lane. */
template <int TM>
__device__ inline void store_segment(const lutmm_cuda_gemm_params &p, const unit_site &s, int64_t slot, int wg, int j,
                                     int lane, const float (&acc)[tile<TM>::COLS][tile<TM>::ACC]) {
  using S = tile<TM>;
  const int t = 128 * wg + 32 * j + lane;
  if (slot >= 0) {
    float4 *part = (float4 *)(p.workspace + (size_t)slot * LUTMM_WIDE_TILE_ELEMS);
    const int64_t rows = p.m - s.mt * TM;
#pragma unroll
    for (int cc = 0; cc < S::COLS; cc++)
#pragma unroll
      for (int v = 0; v < S::ACC / 4; v++)
        if (8 * v < rows)
          part[lutmm_wide_partial_vector(TM, t, cc, v)] =
              make_float4(acc[cc][4 * v], acc[cc][4 * v + 1], acc[cc][4 * v + 2], acc[cc][4 * v + 3]);
    return;
  }
  if ((s.mt + 1) * TM <= p.m && (s.nt + 1) * S::N <= p.n) {
    with_typed_output(p.y, p.y_dtype, [&](auto *y) { store_inside_tile<TM>(p, y, s, t, acc); });
    return;
  }
  for_each_acc<TM>(t, acc, [&](int row, int col, float v) {
    const int64_t grow = s.mt * TM + row, gcol = s.nt * S::N + col;
    if (grow < p.m && gcol < p.n) store_output(p.y, p.y_dtype, grow * p.n + gcol, v);
  });
}

/* The parts of one tile, one a block of the cluster (CLUSTER kernels,
 * p.cluster_ways blocks: the even split, so each block's range is one
 * segment of the tile), added in shared memory. Once all its threads are
 * past their last unit, a block writes its MMA threads' accumulators into
 * its stages as a row-major fp32 tile (put_part_in_stages; rows of N + 4
 * floats, so that a warp's 32 stores of one accumulator fall in 32
 * distinct banks). After the cluster barrier, block r adds share r of
 * the tile's rows, four columns a thread, from every block's stages in rank
 * order from zero - the fixup's block order and start, so the same bits -
 * and writes them to Y, a warp 128 consecutive outputs of a row
 * (add_cluster_share). The last barrier keeps each block's stages until
 * all have read them. The producer warpgroup meets the same barriers
 * (wait_for_cluster). Two steps, so that the accumulators are read where
 * store_segment reads them and are dead where the loads need registers
 * (read after the MMA loop, they cost it its pipelining). t: MMA thread
 * 0..255. */
template <int TM>
__device__ __forceinline__ void put_part_in_stages(uint8_t *stages, int t,
                                                   const float (&acc)[tile<TM>::COLS][tile<TM>::ACC]) {
  using S = tile<TM>;
  block_sync_named<THREADS>();
  float *rows = (float *)stages;
  for_each_acc<TM>(t, acc, [&](int row, int col, float v) { rows[row * (S::N + 4) + col] = v; });
}

constexpr int CLUSTER_BATCH = 2; /* 4-column runs a thread loads from every block before it adds */

/* Out: Y's dtype (with_typed_output), so that a run of four has one
 * address and no dtype test, where store_output took a 64-bit index and
 * the dtype's branches for each value (store_inside_tile says what that
 * cost). Runs wholly inside Y store without a bounds test; the last run
 * of a ragged row tests each column. */
template <int TM, typename Out>
__device__ __noinline__ void add_cluster_share(const lutmm_cuda_gemm_params &p, const unit_site &s, uint8_t *stages,
                                               int t) {
  using S = tile<TM>;
  cluster_sync();
  constexpr int ROW_RUNS = S::N / 4, MAX = LUTMM_WIDE_MAX_CLUSTER;
  const int ways = p.cluster_ways, rank = (int)cluster_rank();
  /* in registers: p is reached through a generic pointer here (the call),
   * so a store to Y would otherwise make the compiler read them again */
  Out *const y = (Out *)p.y;
  const int64_t m = p.m, n = p.n;
  /* the shares cover the tile's rows inside Y only */
  const int runs = (m - s.mt * TM < TM ? (int)(m - s.mt * TM) : TM) * ROW_RUNS;
  const int first = rank * runs / ways, end = (rank + 1) * runs / ways;
  uint32_t part[MAX];
#pragma unroll
  for (int r = 0; r < MAX; r++) part[r] = r < ways ? cluster_map(smem_address(stages), (uint32_t)r) : 0;
  for (int q0 = first + t; q0 < end; q0 += 256 * CLUSTER_BATCH) {
    float4 got[CLUSTER_BATCH][MAX];
#pragma unroll
    for (int b = 0; b < CLUSTER_BATCH; b++) {
      const int q = q0 + 256 * b, offset = 4 * ((q / ROW_RUNS) * (S::N + 4) + 4 * (q % ROW_RUNS));
#pragma unroll
      for (int r = 0; r < MAX; r++)
        if (r < ways && q < end) got[b][r] = cluster_load_float4(part[r] + (uint32_t)offset);
    }
#pragma unroll
    for (int b = 0; b < CLUSTER_BATCH; b++) {
      const int q = q0 + 256 * b;
      if (q >= end) break;
      float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int r = 0; r < MAX; r++) {
        if (r >= ways || lutmm_fault_drop_partial(r)) continue;
        sum[0] += got[b][r].x;
        sum[1] += got[b][r].y;
        sum[2] += got[b][r].z;
        sum[3] += got[b][r].w;
      }
      const int64_t grow = s.mt * TM + q / ROW_RUNS, gcol = s.nt * S::N + 4 * (q % ROW_RUNS);
      Out *out = y + grow * n + gcol;
      if (gcol + 4 <= n) {
#pragma unroll
        for (int e = 0; e < 4; e++) out[e] = output_of<Out>(sum[e]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; e++)
          if (gcol + e < n) out[e] = output_of<Out>(sum[e]);
      }
    }
  }
  cluster_sync_relaxed();
}

/* The producer warpgroup's part in the cluster's addition: its barriers. */
__device__ __forceinline__ void wait_for_cluster() {
  block_sync_named<THREADS>();
  cluster_sync();
  cluster_sync_relaxed();
}

/* The producer warp: fills stage (u − lo) mod stages with unit u once the
 * MMAs of the unit that last used it are done (its `empty` barrier). */
template <int BITS, bool ONE_ROW, int TM>
__device__ __forceinline__ void produce(const lutmm_cuda_gemm_params &p, int64_t lo, int64_t hi, uint8_t *stages,
                                        uint32_t full, uint32_t empty, int lane) {
  const size_t stage_bytes = lutmm_wide_stage_bytes(BITS, TM);
  unit_site s = site_of(p, lo);
  producer<BITS, TM> load;
  load.enter_tile(p, s, lane);
  int stage = 0;
  uint32_t round = 0;
  for (int64_t u = lo; u < hi; u++) {
    if (round > 0) mbarrier_wait(empty + 8 * stage, (round - 1) & 1);
    load.template fill<ONE_ROW>(p, s, lane, stages + (size_t)stage * stage_bytes, full + 8 * stage);
    STAMP_IF(u == lo, LUTMM_WIDE_STAMP_FIRST_FILL);
    if (++stage == p.stages) stage = 0, round++;
    advance(p, s);
    if (s.it == 0) load.enter_tile(p, s, lane);
  }
  STAMP_IF(hi > lo, LUTMM_WIDE_STAMP_LAST_FILL);
  cp_async_commit(); /* leave no copy in flight behind (wait_group waits for committed groups) */
  cp_async_wait(0);
}

/* A consumer warp (two warpgroups of four): computes every unit of the
 * range as its stage lands, and gives a stage back once the MMAs that read
 * it are done: those of unit u − 1 are when unit u's compute returns (it
 * waits for all but its own latest group). */
template <typename T, int BITS, bool ONE_ROW, int TM, int MR, bool NATIVE, bool CLUSTER>
__device__ __forceinline__ void consume(const lutmm_cuda_gemm_params &p, int64_t lo, int64_t hi, uint8_t *stages,
                                        const uint8_t *table, uint32_t full, uint32_t empty, int warp, int lane) {
  const int wg = warp / 4, j = warp % 4;
  const size_t stage_bytes = lutmm_wide_stage_bytes(BITS, TM);
  const uint32_t table_address = smem_address(table), lane4 = 4 * (uint32_t)lane;
  float acc[tile<TM>::COLS][tile<TM>::ACC];
  zero_floats(acc);
  unit_site at = site_of(p, lo);
  int64_t segment_start = lo;
  int stage = 0, previous = -1;
  uint32_t round = 0;
  for (int64_t u = lo; u < hi; u++) {
    mbarrier_wait(full + 8 * stage, round & 1);
    STAMP_IF(u == lo, LUTMM_WIDE_STAMP_FIRST_DATA);
    compute_unit<T, BITS, ONE_ROW, TM, MR, NATIVE>(p, at, stages + (size_t)stage * stage_bytes, table_address, lane4,
                                                   wg, j, lane, acc);
    STAMP_IF(u == lo, LUTMM_WIDE_STAMP_FIRST_UNIT);
    STAMP_IF(u == hi - 1, LUTMM_WIDE_STAMP_LAST_UNIT);
    if (previous >= 0) {
      /* The previous unit's MMAs are complete: compute_unit left at most
       * fragment_buffers - 1 <= 3 of this unit's four groups running.
       * Every lane arrives, not lane 0 for its warp: the same order, but
       * racecheck orders a thread's reads by that thread's own arrival only,
       * and reported the other lanes' reads as racing with the refill
       * wherever a block reuses its stages. The same time on the H100. The
       * __syncwarp stays: without it ptxas serialized the warpgroup MMAs. */
      __syncwarp();
      mbarrier_arrive(empty + 8 * previous);
    }
    if (at.it == p.iters - 1 || u == hi - 1) {
      wgmma_wait<0>();
      /* a cluster's block holds one segment, this one (its range's end) */
      if (CLUSTER) put_part_in_stages<TM>(stages, 128 * wg + 32 * j + lane, acc);
      else store_segment<TM>(p, at, segment_slot(p, at, segment_start, lo), wg, j, lane, acc);
      zero_floats(acc);
      segment_start = u + 1;
    }
    previous = stage;
    if (++stage == p.stages) stage = 0, round++;
    advance(p, at);
  }
  wgmma_wait<0>();
  if (CLUSTER) {
    const unit_site site = site_of(p, lo);
    const int t = 128 * wg + 32 * j + lane;
    with_typed_output(p.y, p.y_dtype, [&](auto *y) {
      add_cluster_share<TM, std::remove_pointer_t<decltype(y)>>(p, site, stages, t);
    });
  }
  STAMP_IF(hi > lo, LUTMM_WIDE_STAMP_STORED);
}

/* NATIVE (scale_pair): per-slab kernels, and one-row kernels of up to
 * kOneRowNativeMaxBits, have an instantiation for scales stored in the
 * compute dtype, whose unit loop then holds no conversion.
 * In per-slab kernels a runtime test of the scale dtype left every
 * conversion path predicated in the loop, 1,139 and 1,266 instructions of
 * its code (fp16, bf16; 4-bit codes, 64-row tiles; static SASS counts)
 * against 905; a runtime branch between two consumers in one kernel
 * instead spilled and ran up to 1.6x slower. One-row kernels convert once
 * a unit, but that test put an LDC and four branches around the unit's
 * scale reads, ahead of its code words, and Nsight Compute found about
 * 10 % of the stall samples there at M = 128 (H200, 8192 x 28672). */
template <typename T, int BITS, bool ONE_ROW, int TM, int MR, bool NATIVE, bool CLUSTER>
__global__ void __launch_bounds__(THREADS, 1) wide_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
#if !LUTMM_HAVE_WGMMA
  __trap(); /* never launched: the probe found no sm_90a code (wgmma.cuh) */
#else
  extern __shared__ __align__(1024) uint8_t smem[];
  WIDE_STAMP_ENTRY();
  const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
  /* stage s's barriers: full at full + 8s (the producer's 32 lanes arrive
   * when their cp.async copies land, and lane 0 once more where the copy
   * engine copies, announcing its bytes), empty at empty + 8s (the 256 MMA
   * threads arrive) */
  const uint32_t full = smem_address(smem), empty = full + 8 * LUTMM_WIDE_MAX_STAGES;
  uint8_t *table = smem + LUTMM_WIDE_BARRIER_BYTES;
  uint8_t *stages = smem + lutmm_wide_stages_offset(BITS);
  if (threadIdx.x == 0)
    for (int s = 0; s < p.stages; s++) {
      mbarrier_init(full + 8 * s, BULK_ATOMS<TM> || p.x_tma ? 33 : 32);
      mbarrier_init(empty + 8 * s, 32 * CONSUMER_WARPS);
    }
  build_table<T, BITS>(p, table);
  __syncthreads();
  STAMP(LUTMM_WIDE_STAMP_SET_UP);
  /* The fixup's blocks may take the multiprocessors this grid leaves free
   * and those its blocks leave, and wait there for the partials. */
  grid_dependency_launch_dependents();
  const int64_t lo = lutmm_cuda_range_start(p.units, p.grid, blockIdx.x);
  const int64_t hi = lutmm_cuda_range_start(p.units, p.grid, blockIdx.x + 1);
  /* Registers move from the producer warpgroup, where one warp copies and
   * three leave, to the MMA warpgroups' 128 accumulators a thread. */
  if (warp >= CONSUMER_WARPS) {
    registers_release<PRODUCER_REGISTERS>();
    if (warp == CONSUMER_WARPS) produce<BITS, ONE_ROW, TM>(p, lo, hi, stages, full, empty, lane);
    if (CLUSTER) wait_for_cluster();
  } else {
    registers_claim<CONSUMER_REGISTERS>();
    consume<T, BITS, ONE_ROW, TM, MR, NATIVE, CLUSTER>(p, lo, hi, stages, table, full, empty, warp, lane);
    /* the MMA warps only: in the producer warpgroup's 72 registers this
     * stamp made several kernels spill (the producer's end is its last
     * fill) */
    STAMP(LUTMM_WIDE_STAMP_EXIT);
  }
#endif
}

/* One-row kernels for scales in the compute dtype stop at 4-bit codes: at
 * M = 128 on the H200 they were 2-4 % faster than the converting kernel for
 * 2..4-bit codes but 0.7-0.9 % slower for 8-bit ones (medians), whose unit is
 * dominated by lookups rather than by the scale reads at its start. Wider
 * codes keep the converting kernel, and the unused ones are not built. */
constexpr int kOneRowNativeMaxBits = 4;

/* Kernels whose MMAs multiply 32 rows of X (MR = 32 in 64- and 128-row
 * tiles, without clusters) stop at LUTMM_WIDE_NARROW_MMA_MAX_BITS, 4-bit
 * codes (lutmm_wide_mma_rows): wider codes take the wide kernel at
 * M = 17..32 only on W of at most 1024 columns (wide_takes_few_rows), and
 * were not timed with them. */
template <typename T, int BITS, bool ONE_ROW, int TM, int MR, bool NATIVE, bool CLUSTER>
const void *instance() {
  if constexpr (ONE_ROW && NATIVE && BITS > kOneRowNativeMaxBits) return nullptr;
  else if constexpr (MR < TM && BITS > LUTMM_WIDE_NARROW_MMA_MAX_BITS) return nullptr;
  else return (const void *)wide_kernel<T, BITS, ONE_ROW, TM, MR, NATIVE, CLUSTER>;
}

/* The instantiation for a code width; NULL for widths past 8 and for the
 * kernels that are not built. */
template <typename T, bool ONE_ROW, int TM, int MR, bool NATIVE, bool CLUSTER>
const void *kernel_for(int bits) {
  switch (bits) {
    case 1: return instance<T, 1, ONE_ROW, TM, MR, NATIVE, CLUSTER>();
    case 2: return instance<T, 2, ONE_ROW, TM, MR, NATIVE, CLUSTER>();
    case 3: return instance<T, 3, ONE_ROW, TM, MR, NATIVE, CLUSTER>();
    case 4: return instance<T, 4, ONE_ROW, TM, MR, NATIVE, CLUSTER>();
    case 5: return instance<T, 5, ONE_ROW, TM, MR, NATIVE, CLUSTER>();
    case 6: return instance<T, 6, ONE_ROW, TM, MR, NATIVE, CLUSTER>();
    case 7: return instance<T, 7, ONE_ROW, TM, MR, NATIVE, CLUSTER>();
    case 8: return instance<T, 8, ONE_ROW, TM, MR, NATIVE, CLUSTER>();
    default: return nullptr;
  }
}

/* The instantiation for a code width, scale layout, scale dtype (`native`:
 * the compute dtype), tile (64, 128 or 256 rows) and the rows its MMAs
 * multiply (MR); with `cluster`, the kernel of 128 or 256 rows whose
 * clusters add a tile's parts. NULL for a kernel that does not exist: a
 * 64-row cluster one (the planner asks for none: lutmm_wide_cluster_ways),
 * a cluster or 256-row one of 32 MMA rows, or another tile. */
template <typename T, int TM, int MR, bool CLUSTER>
const void *kernel_for(int bits, bool one_row, bool native) {
  if (one_row)
    return native && bits <= kOneRowNativeMaxBits ? kernel_for<T, true, TM, MR, true, CLUSTER>(bits)
                                                  : kernel_for<T, true, TM, MR, false, CLUSTER>(bits);
  return native ? kernel_for<T, false, TM, MR, true, CLUSTER>(bits)
                : kernel_for<T, false, TM, MR, false, CLUSTER>(bits);
}

template <typename T>
const void *kernel_for(int bits, bool one_row, bool native, int tile_m, int mma_rows, bool cluster = false) {
  if (mma_rows != tile_m) {
    if (mma_rows != 32 || cluster) return nullptr;
    switch (tile_m) {
      case 64: return kernel_for<T, 64, 32, false>(bits, one_row, native);
      case 128: return kernel_for<T, 128, 32, false>(bits, one_row, native);
      default: return nullptr;
    }
  }
  switch (tile_m) {
    case 64: return cluster ? nullptr : kernel_for<T, 64, 64, false>(bits, one_row, native);
    case 128: return cluster ? kernel_for<T, 128, 128, true>(bits, one_row, native)
                             : kernel_for<T, 128, 128, false>(bits, one_row, native);
    case 256: return cluster ? kernel_for<T, 256, 256, true>(bits, one_row, native)
                             : kernel_for<T, 256, 256, false>(bits, one_row, native);
    default: return nullptr;
  }
}

template <typename T>
cudaError_t launch(cudaStream_t stream, const lutmm_cuda_gemm_params *p, size_t smem) {
  void *args[] = {(void *)p};
  const bool native = p->scale_dtype == (int)compute<T>::kDtype;
  const void *kernel =
      kernel_for<T>(p->bits, p->atom_one_group != 0, native, p->tile_m, p->mma_rows, p->cluster_ways > 1);
  if (kernel == nullptr) return cudaErrorInvalidValue; /* a plan the planner never makes */
  const cluster_launch c((unsigned)p->grid, THREADS, smem, stream, p->cluster_ways);
  return cudaLaunchKernelExC(&c.config, kernel, args);
}

/* Clusters of `ways` blocks of `smem` bytes each that the device holds at
 * once (every wide kernel keeps one block a multiprocessor, so one
 * instantiation answers for all). */
template <typename T>
cudaError_t max_clusters(int ways, size_t smem, int *count) {
  const cluster_launch c((unsigned)ways, THREADS, smem, 0, ways);
  return cudaOccupancyMaxActiveClusters(count, kernel_for<T>(4, true, false, 256, 256, true), &c.config);
}

template <typename T>
cudaError_t allow_smem(size_t limit) {
  for (int bits = 1; bits <= 8; bits++)
    for (int tile_m = 64; tile_m <= 256; tile_m *= 2)
      for (int variant = 0; variant < 16; variant++) {
        /* scale layout, scale dtype, cluster and 32 MMA rows, one bit each */
        const bool one_row = variant & 1, native = variant & 2, cluster = variant & 4;
        const int mma_rows = variant & 8 ? 32 : tile_m;
        const void *kernel = kernel_for<T>(bits, one_row, native, tile_m, mma_rows, cluster);
        if (kernel == nullptr) continue;
        cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)limit);
        if (err != cudaSuccess) return err;
      }
  return cudaSuccess;
}

}  // namespace wide
}  // namespace lutmm_kernels

#endif
