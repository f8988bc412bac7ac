/* The column-stream kernel: the skinny kernel's atoms, lookups and MMAs at
 * M = 1..4, with the work cut along the packed order instead of across
 * tiles.
 *
 * A unit is still a k-atom pair, but of one atom column (64 columns of W),
 * and units run column after column, so a block's Stream-K range is one
 * contiguous run of the packed planes: all its warps read neighbouring
 * atoms of one column (warp w takes units w, w + W, ... of the range) and
 * the DRAM pages a block opens are its own. At a column's end the warps'
 * sums are added in shared memory (warp order) by the warp holding its
 * last unit, the others going on (part_meeting), so a column's partials
 * are per block, not per warp: a block's range cuts at most the column it
 * starts in and the one it ends in.
 *
 * Cut columns (cooperative launches only, like the skinny kernel's tags):
 * the block holding a column's first unit ends its range in it, so it
 * computes that part last; every other contributor starts its range in the
 * column and publishes its part there as tagged words in its slot: first
 * if its range goes on past the column, at its end if the range lies
 * inside it. The first block adds them in block order at the end of its
 * range. Where ranges span a column or more (each column cut at most two
 * ways) the other part was stored at the other block's start, so the wait
 * is one round trip, not the slowest contributor's stores (docs/PERF.md,
 * change 76); a block whose range lies inside the column makes the first
 * block wait for its end, as the skinny kernel's tags do.
 *
 * X in one of two forms (lutmm_column_layout_at). Whole (ROWS = 1, M =
 * 1 where it fits): X stays whole in shared memory, 128 bytes a k-atom in
 * the skinny layout's X region, with the warps' sums behind it. Two or four
 * rows (M = 2, 3..4, and M = 1 past that K): X rides with the weights,
 * each atom's ring slot taking the atom's words and, behind them, its 64 k
 * of X's ROWS rows (rows past M zero), so a warp needs no X beyond its
 * atoms and K has no limit. The warps read different k ranges of one
 * column, so no X is shared between them; X is L2-resident, and 128 bytes
 * a row beside an atom's 512 a bit of code is the traffic it adds. In a
 * first build, whose copies took ~15 instructions an atom, carrying X cost
 * M = 1 4-8 % where the row fits (docs/PERF.md, change 77), hence the
 * whole row there. */
#ifndef LUTMM_CUDA_COLUMN_KERNEL_CUH
#define LUTMM_CUDA_COLUMN_KERNEL_CUH

#include "mbarrier.cuh"
#include "skinny_kernel.cuh"
#include "stamps.cuh"

namespace lutmm_kernels {
namespace skinny {

/* The column-stream kernel's ring: the skinny kernel's depths at M <= 8
 * (but LUTMM_COLUMN_RING's two exceptions); past one row, slots that
 * carry X too. */
template <int BITS, bool ONE_ROW, int ROWS>
struct column_ring {
  static constexpr bool X_WHOLE = ROWS == 1; /* else X carried in the slots */
  static constexpr int DEPTH = LUTMM_COLUMN_RING(BITS, ONE_ROW, ROWS);
  static constexpr uint32_t SLOT = LUTMM_COLUMN_SLOT_BYTES(BITS, ROWS);
  static constexpr uint32_t X = LUTMM_SKINNY_SLOT_BYTES(BITS); /* carried X's offset in a slot */
  static constexpr uint32_t ENTRY = LUTMM_SKINNY_SCALE_ENTRY(ONE_ROW);
  static_assert(DEPTH >= 2 && DEPTH <= 8, "cp.async.wait_group takes 0..7");
  /* the whole-X form's window is the skinny layout (lutmm_column_layout_at),
   * whose rings are LUTMM_SKINNY_RING deep */
  static_assert(!X_WHOLE || DEPTH == LUTMM_SKINNY_RING(BITS, 1, ONE_ROW), "whole-X rings are the skinny layout's");
  static_assert(ROWS == 1 || ROWS == 2 || ROWS == 4, "the swizzle (vector c of row r at c ^ r) needs r < 4");
};

/* This warp's ring (window address): whole rings below the table first. */
template <int BITS, bool ONE_ROW, int ROWS>
__device__ __forceinline__ uint32_t column_ring_of(const lutmm_skinny_layout &l, int warp) {
  using R = column_ring<BITS, ONE_ROW, ROWS>;
  constexpr uint32_t BYTES = R::DEPTH * R::SLOT;
  return (uint32_t)warp < l.gap_warps ? l.gap + (uint32_t)warp * BYTES : l.above + ((uint32_t)warp - l.gap_warps) * BYTES;
}

/* X's one row into the X region as 64 values a k-atom, zero past K (the
 * whole-X form). */
template <int W>
__device__ void load_x_row(const lutmm_cuda_gemm_params &p, uint8_t *xrow) {
  const int vectors = (int)p.k_atoms * 8;
  for (int v = (int)threadIdx.x; v < vectors; v += 32 * W) {
    const int64_t k = (int64_t)v * 8;
    if (p.x_vector) {
      const bool ok = k < p.k;
      cp_async16(xrow + v * 16, ok ? (const uint8_t *)p.x + k * 2 : (const uint8_t *)p.x, ok ? 16 : 0);
    } else {
      *(uint4 *)(xrow + v * 16) = x_chunk8(p, 0, k);
    }
  }
}

/* X that allows no 16-byte copies (rows off 16-byte boundaries, K not a
 * multiple of 8), carried: element by element, in a function of its own,
 * which keeps its registers out of the main loop (inlined, the per-slab
 * kernels spilled 20-24 B). */
static __device__ __noinline__ void store_x_slowly(const lutmm_cuda_gemm_params &p, int lane, int k, uint32_t dst) {
  store_shared16(dst, x_chunk8(p, lane >> 3, (int64_t)k * 64 + (lane & 7) * 8));
}

/* This lane's share of carrying the 64 k of atom `k` of X's ROWS rows
 * into a slot, a 16-byte vector a lane: lane 8r + c brings vector c of
 * row r (k 8c..8c + 7) to its place in the slot (lutmm_column_x_offset).
 * Rows past M and k past K are zero. What depends only on the lane is
 * worked out once: per atom a copy costs an add, a compare and the
 * cp.async. */
template <int ROWS>
struct x_carrier {
  uint32_t src;   /* byte offset of the lane's vector in X at k-atom 0 */
  int32_t k_left; /* the vector lies in X while 64·k < k_left (0: never) */
  uint32_t dst;   /* its place in a slot, from the slot's lane address */

  __device__ __forceinline__ void start(const lutmm_cuda_gemm_params &p, int lane, uint32_t x_in_slot) {
    const int row = lane >> 3, c = lane & 7;
    /* below 2^31 for rows below M (the planner keeps M·K·2 there); rows
     * past M never read theirs */
    src = ((uint32_t)row * (uint32_t)p.k + 8u * (uint32_t)c) * 2u;
    k_left = row < ROWS && row < p.m ? (int32_t)p.k - 8 * c : 0;
    dst = x_in_slot + lutmm_column_x_offset(row, c) - 16u * (uint32_t)lane;
  }
  __device__ __forceinline__ void copy(const lutmm_cuda_gemm_params &p, int k, uint32_t slot_lane, int lane) const {
    if (lane >= 8 * ROWS) return;
    if (!p.x_vector) {
      store_x_slowly(p, lane, k, slot_lane + dst);
      return;
    }
    const bool ok = 64 * k < k_left;
    cp_async16_at(slot_lane + dst, (const uint8_t *)p.x + (ok ? src + (uint32_t)k * 128u : 0u), ok ? 16 : 0);
  }
};

/* This lane's ldmatrix row in a slot's X part (compute_atom's `xs`): row
 * lane % ROWS (the MMA's columns past ROWS repeat rows, whose sums nobody
 * reads), k offset 8·(lane / 8). */
template <int ROWS>
__device__ __forceinline__ uint32_t x_lane_offset(int lane) {
  return lutmm_column_x_offset((lane & 7) & (ROWS - 1), lane >> 3);
}

/* The warp's next unit to fetch: units w, w + W, w + 2W, ... of the
 * block's range [lo, hi), counted through the whole range rather than
 * afresh in each column part, so that the warps' shares of the range
 * differ by one unit at most however its columns cut it. The unit's column
 * and place in it are kept beside it, so that no atom costs a division by
 * iters (two an atom, about 56 instructions, where they were derived from
 * the unit number).
 *
 * Every unit takes two ring slots, its atom a = 0 then a = 1, even a
 * column's last unit when K has an odd number of atoms (its second slot
 * stays empty: no copies, an empty cp.async group, no compute). So the a
 * of every copy is fixed where it is unrolled (ring slot s of the
 * prologue: s % 2; step h of a unit: (h + DEPTH) % 2), and the fetcher
 * moves one unit on after each a = 1, where it tested and stepped an atom
 * counter at every atom (about 10 instructions an atom; docs/PERF.md,
 * change 91). */
template <int W>
struct column_fetcher {
  int unit, part_end; /* part_end: end of the column part `unit` lies in */
  int column, it;     /* unit = column · iters + it while unit < part_end */
  uint64_t policy;    /* the weights' L2 policy (fetch_atom) */
  /* An atom's scale rows copied from an offset kept with the column: one
   * row where groups are a power-of-two number of atoms (one_row_scales),
   * two or four where they are 32 or 16 rows (slab_rows_one_pass). Lane
   * v copies 16-byte vector v of them (vector c of row r at r·vpr + c,
   * vpr = 8 or 16 vectors a row of 64 scales), as copy_scale_row and
   * load_scales lay them out; `scale_at` is where this lane's vector lies
   * in the column's first rows, so that an atom's rows cost a shift and a
   * multiply-add where load_scales spent about 75 instructions (groups of
   * 32, docs/PERF.md change 92). */
  uint32_t scale_at;
  /* One-row kernels only (dead, so no register, in the per-slab ones,
   * whose 6-bit kernel spilled on sm_80 with them): scale_row_bytes, and
   * whether this lane copies a vector of a one-row atom's row. */
  uint32_t row_bytes;
  bool copies_row;

  __device__ __forceinline__ void start(const lutmm_cuda_gemm_params &p, int lo, int hi, int warp, int lane) {
    const int iters = (int)p.iters;
    policy = l2_evict_first_policy();
    column = lo / iters;
    part_end = min(hi, (column + 1) * iters);
    unit = lo + warp;
    it = lo - column * iters + warp;
    const int vpr_log2 = 2 + log2_scale_bytes(p);
    row_bytes = scale_row_bytes(p);
    copies_row = lane < 4 << log2_scale_bytes(p);
    scale_at = ((uint32_t)column * 64u << log2_scale_bytes(p)) + (uint32_t)(lane >> vpr_log2) * row_bytes +
               16u * (uint32_t)(lane & ((1 << vpr_log2) - 1));
    settle(p, hi);
  }
  /* Past its part: the part `unit` lies in, if it lies before hi. A part
   * that ends before hi ends its column, so the next part starts the next
   * column. */
  __device__ __forceinline__ void settle(const lutmm_cuda_gemm_params &p, int hi) {
    while (unit >= part_end && part_end < hi) {
      column++;
      scale_at += 64u << log2_scale_bytes(p);
      it -= (int)p.iters;
      part_end = min(hi, part_end + (int)p.iters);
    }
  }
  __device__ __forceinline__ bool done() const { return unit >= part_end; }
  /* Per-slab rows of k-atom k whose vectors 32 lanes copy once: those
   * that follow by a shift (slab_rows_by_shift), but fp32 groups of 16 (64
   * vectors, more than an entry holds: lutmm_skinny_scales_fit gives them
   * the tiled kernel, so they never reach this kernel or load_scales). */
  static __device__ __forceinline__ bool slab_rows_one_pass(const lutmm_cuda_gemm_params &p, int k) {
    return slab_rows_by_shift(p, k) && (p.group_log2 == 5 || p.scale_dtype != LUTMM_DTYPE_F32);
  }

  /* k-atom k's scale rows into the ring entry at `entry`. */
  template <bool ONE_ROW>
  __device__ __forceinline__ void copy_scales(const lutmm_cuda_gemm_params &p, int k, int lane, uint8_t *entry) const {
    uint32_t first_row;
    if (one_row_scales<ONE_ROW>(p)) {
      first_row = (uint32_t)k >> p.atom_group_log2;
    } else if (!ONE_ROW && slab_rows_one_pass(p, k)) {
      first_row = (uint32_t)k << (6 - p.group_log2);
    } else {
      load_scales<ONE_ROW>(p, column, k, lane, entry);
      return;
    }
    /* one row, or per slab 64 >> log2(group) rows, of 8 or 16 vectors */
    const bool copies = ONE_ROW ? copies_row : lane < (256 >> p.group_log2) << log2_scale_bytes(p);
    const uint32_t offset = first_row * (ONE_ROW ? row_bytes : scale_row_bytes(p)) + scale_at;
    if (copies) cp_async16_to(smem_address(entry) + 16u * (uint32_t)lane, (const uint8_t *)p.scales + offset);
  }

  /* Atom a of the unit (a constant once unrolled): its words, its X where
   * X is carried and (when they change) its scale rows into the slot whose
   * lane address (window, + 16·lane) is `slot_lane`. Nothing for a unit's
   * missing second atom. */
  template <int BITS, bool ONE_ROW, int ROWS>
  __device__ __forceinline__ void issue(const lutmm_cuda_gemm_params &p, int a, const plane_lanes<BITS> &planes,
                                        int lane, const x_carrier<ROWS> &x, uint32_t slot_lane, uint8_t *entry) const {
    const int k = 2 * it + a;
    if (done() || (a == 1 && k >= (int)p.k_atoms)) return;
    fetch_atom<BITS>(planes, (uint32_t)column * (uint32_t)p.k_atoms + (uint32_t)k, slot_lane, policy);
    if constexpr (!column_ring<BITS, ONE_ROW, ROWS>::X_WHOLE) x.copy(p, k, slot_lane, lane);
    /* a unit's first atom always brings its scale rows: the warp's previous
     * unit lies W units back */
    if (a == 0 || ((uint32_t)k & p.atom_group_mask) == 0) copy_scales<ONE_ROW>(p, k, lane, entry);
  }
  /* Past a unit's second atom: the next unit. */
  __device__ __forceinline__ void advance(const lutmm_cuda_gemm_params &p, int hi) {
    if (done()) return;
    unit += W;
    it += W;
    settle(p, hi);
  }
};

/* This warp's sums of rows 0..ROWS-1 (ROWS × 64, row-major). Lane 4g + q
 * holds rows 2q and 2q + 1 of columns 16·j + g and 16·j + g + 8. */
template <int ROWS>
__device__ __forceinline__ void put_rows(float *sums, int lane, const float (&acc)[1][4][4]) {
  const int q = lane % 4, g = lane / 4, row = 2 * q;
  if (row >= ROWS) return;
#pragma unroll
  for (int j = 0; j < 4; j++) {
    sums[row * 64 + 16 * j + g] = acc[0][j][0];
    sums[row * 64 + 16 * j + g + 8] = acc[0][j][2];
    if (row + 1 < ROWS) {
      sums[(row + 1) * 64 + 16 * j + g] = acc[0][j][1];
      sums[(row + 1) * 64 + 16 * j + g + 8] = acc[0][j][3];
    }
  }
}

/* Elements e = lane + 32·h of a column part (row e / 64, column e % 64):
 * the warps' sums added in warp order. */
template <int W, int ROWS>
__device__ __forceinline__ void add_warps(const float *sums, int lane, float (&v)[2 * ROWS]) {
#pragma unroll
  for (int h = 0; h < 2 * ROWS; h++) {
    float s = 0.0f;
#pragma unroll
    for (int w = 0; w < W; w++) s += sums[w * ROWS * 64 + lane + 32 * h];
    v[h] = s;
  }
}

/* Those of a column's elements that lie in Y (rows below M, columns below N). */
template <int ROWS>
__device__ __forceinline__ void store_rows(const lutmm_cuda_gemm_params &p, int column, int lane,
                                           const float (&v)[2 * ROWS]) {
#pragma unroll
  for (int h = 0; h < 2 * ROWS; h++) {
    const int e = lane + 32 * h, row = e / 64;
    const int64_t n = (int64_t)column * 64 + e % 64;
    if (row < p.m && n < p.n) store_output(p.y, p.y_dtype, row * p.n + n, v[h]);
  }
}

/* The first block of a cut column, at the end of its range: adds the
 * parts of blocks first + 1 .. last (each in its tagged slot of ROWS × 64
 * words, once every word carries this launch's tag) to its own, in block
 * order, and writes Y. At M = 1 the loads of eight blocks' words go out
 * together before any is waited for: one at a time, a column cut eight
 * ways (8192 × 1024) waited a round trip a part, about 2 µs after its own
 * sums (docs/PERF.md, change 95). The wait spins without sleeping: the
 * parts are usually there already. */
template <int ROWS>
__device__ __forceinline__ void add_column_parts(const lutmm_cuda_gemm_params &p, int column, int first, int last,
                                                 int lane, float (&v)[2 * ROWS]) {
  /* 16 words a lane in flight at M = 1; one part at a time with two or
   * four rows, where loading them together ran 4096 × 4096 3-5 % (M = 2)
   * and 7-10 % (M = 4) slower, for a reason not found (docs/PERF.md,
   * change 95) */
  constexpr int PARTS = ROWS == 1 ? 8 : 1;
  for (int b0 = first + 1; b0 <= last; b0 += PARTS) {
    uint64_t word[PARTS][2 * ROWS];
#pragma unroll
    for (int t = 0; t < PARTS; t++) {
      const uint64_t *slot = p.tagged + (size_t)(b0 + t) * ROWS * 64 + lane;
#pragma unroll
      for (int h = 0; h < 2 * ROWS; h++) word[t][h] = b0 + t <= last ? load_tagged(slot + 32 * h) : 0;
    }
#pragma unroll
    for (int t = 0; t < PARTS; t++) {
      if (b0 + t > last) break;
      const uint64_t *slot = p.tagged + (size_t)(b0 + t) * ROWS * 64 + lane;
#pragma unroll
      for (int h = 0; h < 2 * ROWS; h++) {
        while ((uint32_t)(word[t][h] >> 32) != p.tag) word[t][h] = load_tagged(slot + 32 * h);
        v[h] += __uint_as_float((uint32_t)word[t][h]);
      }
    }
  }
  store_rows<ROWS>(p, column, lane, v);
}

/* How a block's warps meet at a column part's end without a block
 * barrier. Each thread puts its sums of part i in set i % 2 and arrives on
 * that set's `full` barrier; one warp, the part's adder, waits for the
 * phase, adds the set in warp order, as warp 0 did after a block barrier,
 * and arrives on the set's `empty` barrier; before the set's next use
 * (part i + 2) the warps wait for that. The adder is the warp holding the
 * part's last unit (the warps take units round robin), which is about the
 * last to finish it; the others go on into their next units. At a block
 * barrier the warps with a unit fewer waited for the rest (12 % of the
 * stall samples at 8192 × 8192, M = 1; docs/PERF.md, change 86). */
template <int W>
struct part_meeting {
  uint32_t bars; /* full[2], then empty[2]: 8 bytes each, behind the window (LUTMM_COLUMN_MEETING_BYTES) */

  __device__ __forceinline__ void init() const {
    mbarrier_init(bars, 32 * W);
    mbarrier_init(bars + 8, 32 * W);
    mbarrier_init(bars + 16, 32);
    mbarrier_init(bars + 24, 32);
  }
  /* Waits until part `part` may write its set: part − 2's adder is done. */
  __device__ __forceinline__ void wait_for_set(int part) const {
    if (part >= 2) mbarrier_wait_any(bars + 16 + 8 * (part & 1), (uint32_t)((part >> 1) - 1) & 1u);
  }
  /* This thread's sums of part `part` are in place. */
  __device__ __forceinline__ void arrive(int part) const { mbarrier_arrive_any(bars + 8 * (part & 1)); }
  /* The adder: waits for every warp's sums of part `part`. */
  __device__ __forceinline__ void wait_for_sums(int part) const {
    mbarrier_wait_any(bars + 8 * (part & 1), (uint32_t)(part >> 1) & 1u);
  }
  /* The adder, done reading part `part`'s set: frees it. */
  __device__ __forceinline__ void release(int part) const { mbarrier_arrive_any(bars + 16 + 8 * (part & 1)); }
};

template <typename T, int BITS, bool ONE_ROW, int W, int ROWS>
__global__ void __launch_bounds__(32 * W, 1) column_kernel(const __grid_constant__ lutmm_cuda_gemm_params p) {
  using R = column_ring<BITS, ONE_ROW, ROWS>;
  COLUMN_STAMP_ENTRY();
  extern __shared__ __align__(16) uint8_t smem[];
  const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
  const uint32_t base = smem_address(smem);
  const lutmm_skinny_layout layout = lutmm_column_layout_at(base, BITS, ONE_ROW, ROWS, W);
  if (layout.end + LUTMM_COLUMN_MEETING_BYTES - base > dynamic_smem_bytes()) __trap();
  /* two sets of W × ROWS × 64 sums, behind X's row in the whole-X form */
  float *sums = (float *)(smem + (R::X_WHOLE ? (size_t)p.k_atoms * 128 : 0));
  uint8_t *entries = smem + (layout.scales - base) + (size_t)warp * R::DEPTH * R::ENTRY;
  const uint32_t ring = column_ring_of<BITS, ONE_ROW, ROWS>(layout, warp);
  const uint32_t ring_lane = ring + 16u * (uint32_t)lane;
  const uint32_t table_lane = kept(layout.table | table_lane_offset<BITS>(lane));
  const uint32_t scale_lane = scale_words_lane(lane);
  /* This lane's ldmatrix row: of X's whole row (every lane's row is row 0:
   * the MMA's columns 1..7 repeat it), a k-atom on 128 bytes; or in the
   * carried X of its slot, a slot on. */
  const uint8_t *x_lane = R::X_WHOLE ? smem + 16 * (lane >> 3) : smem + (ring - base) + R::X + x_lane_offset<ROWS>(lane);
  constexpr uint32_t X_STEP = R::X_WHOLE ? 128u : R::SLOT;
  x_carrier<ROWS> x;
  x.start(p, lane, R::X);
  const int lo = (int)lutmm_cuda_range_start(p.units, p.grid, blockIdx.x);
  const int hi = (int)lutmm_cuda_range_start(p.units, p.grid, blockIdx.x + 1);
  const int iters = (int)p.iters;
  const plane_lanes<BITS> planes = lanes_of<BITS>(p, lane);

  /* Prologue: X's row (one group) in the whole-X form, then the first
   * DEPTH ring slots (atoms with their X where it is carried; a unit's
   * missing second atom an empty slot), one group each. */
  if constexpr (R::X_WHOLE) {
    load_x_row<W>(p, smem);
    cp_async_commit();
  }
  column_fetcher<W> fetch;
  fetch.start(p, lo, hi, warp, lane);
#pragma unroll
  for (int s = 0; s < R::DEPTH; s++) {
    fetch.template issue<BITS, ONE_ROW, ROWS>(p, s % 2, planes, lane, x, ring_lane + s * R::SLOT,
                                              entries + s * R::ENTRY);
    cp_async_commit();
    if (s % 2 == 1) fetch.advance(p, hi);
  }
  STAMP(LUTMM_STAMP_ISSUED);
  build_table<T, 1, BITS, W>(p, smem + (layout.table - base));
  const part_meeting<W> meet{layout.end};
  if (threadIdx.x == 0) meet.init();
  if constexpr (R::X_WHOLE) cp_async_wait(R::DEPTH); /* this thread's part of X's row */
  __syncthreads();                                     /* the table, everyone's X and the barriers */
  STAMP(LUTMM_STAMP_TABLE);
#if LUTMM_STAMPS
  cp_async_wait(R::DEPTH - 1); /* as the loop's first wait */
  STAMP(LUTMM_STAMP_FIRST_DATA);
#endif

  int slot = 0;
  uint32_t scales[4];
#pragma unroll
  for (int i = 0; i < 4; i++) scales[i] = 0;
  int u = lo + warp; /* this warp's next unit, as its fetcher counts them */
  /* Per-slab scales: a row only where a slab opens one (compute_atom),
   * 0-4 % faster with groups of 32 at M = 1..2 (7-bit codes about even);
   * 3-bit codes ran 2 % slower with it on 8192 x 28672 and keep every
   * slab's read (docs/PERF.md, change 117). */
  constexpr bool OPENED_ROWS = BITS != 3;
  for (int part_lo = lo, part = 0; part_lo < hi; part++) {
    const int column = part_lo / iters, part_hi = min(hi, (column + 1) * iters);
    float acc[1][4][4];
    zero_floats(acc);
    for (; u < part_hi; u += W) {
      const int even = 2 * (u - column * iters);
#pragma unroll
      for (int h = 0; h < 2; h++) { /* two ring slots, the second empty where the unit has one atom */
        cp_async_wait(R::DEPTH - 1);
        __syncwarp();
        if (h == 0 || even + 1 < (int)p.k_atoms) {
          const bool carry = h == 1 && ((uint32_t)(even + 1) & p.atom_group_mask) != 0;
          const uint32_t x_step = R::X_WHOLE ? (uint32_t)(even + h) : (uint32_t)slot;
          compute_atom<T, 1, BITS, ONE_ROW, OPENED_ROWS>(p, even + h, lane, ring_lane + slot * R::SLOT,
                                                        entries + slot * R::ENTRY, x_lane + x_step * X_STEP,
                                                        table_lane, scale_lane, carry, scales, acc);
        }
        __syncwarp();
        const int fetched = (h + R::DEPTH) % 2; /* the atom of its unit this step fetches (a constant, unrolled) */
        fetch.template issue<BITS, ONE_ROW, ROWS>(p, fetched, planes, lane, x, ring_lane + slot * R::SLOT,
                                                  entries + slot * R::ENTRY);
        cp_async_commit();
        if (fetched == 1) fetch.advance(p, hi);
        slot = slot + 1 == R::DEPTH ? 0 : slot + 1;
      }
    }
    if (part == 0) STAMP(LUTMM_STAMP_FIRST_PART);
    STAMP(LUTMM_STAMP_LAST_PART);
    float *set = sums + (part & 1) * W * ROWS * 64;
    meet.wait_for_set(part);
    put_rows<ROWS>(set + warp * ROWS * 64, lane, acc);
    meet.arrive(part);
    if (warp == (part_hi - 1 - lo) % W) { /* the part's last unit is this warp's: it adds the part */
      meet.wait_for_sums(part);
      float v[2 * ROWS];
      add_warps<W, ROWS>(set, lane, v);
      meet.release(part);
      STAMP(LUTMM_STAMP_SUMS_ADDED);
      const bool starts = part_lo == column * iters, ends = part_hi == (column + 1) * iters;
      if (starts && ends) {
        store_rows<ROWS>(p, column, lane, v);
      } else if (starts) { /* the column's first block, whose range ends in it: the column's last part */
        const int last = (int)lutmm_cuda_block_of_unit(p.units, p.grid, (int64_t)(column + 1) * iters - 1);
        add_column_parts<ROWS>(p, column, (int)blockIdx.x, last, lane, v);
      } else { /* a later contributor's first part */
        uint64_t *slot_words = p.tagged + (size_t)blockIdx.x * ROWS * 64 + lane;
#pragma unroll
        for (int h = 0; h < 2 * ROWS; h++) store_tagged(slot_words + 32 * h, p.tag, v[h]);
      }
      STAMP(LUTMM_STAMP_WRITTEN);
    }
    part_lo = part_hi;
  }
  cp_async_wait(0);
  STAMP(LUTMM_STAMP_EXIT);
}

}  // namespace skinny
}  // namespace lutmm_kernels

#endif
