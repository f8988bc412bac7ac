/* Timing stamps of the column-stream and wide kernels (meson option
 * `stamps`).
 *
 * In a build with -Dstamps=true, lane 0 of every warp of the kernel's first
 * LUTMM_STAMP_BLOCKS blocks writes %globaltimer (ns) at each step of a
 * launch, so that a launch's time can be cut into set-up, first data,
 * stream, ends and exit on the device itself. Every normal build leaves
 * LUTMM_STAMPS at 0: the kernels hold no stamp code and these readers do
 * not exist. Each launch overwrites the stamps of the one before; a reader
 * returns the last launch's and clears the header, so that a later read
 * sees whether another launch of that kernel ran since. */
#ifndef LUTMM_CUDA_STAMPS_H
#define LUTMM_CUDA_STAMPS_H

#include <cuda_runtime_api.h>

#ifndef LUTMM_STAMPS
#define LUTMM_STAMPS 0
#endif

#define LUTMM_STAMP_BLOCKS 256
#define LUTMM_STAMP_WARPS 16
#define LUTMM_STAMP_SLOTS 10 /* events 0..8, then the block's SM */
#define LUTMM_STAMP_HEADER 2 /* grid size (0: no launch since the last read), warps per block */
#define LUTMM_STAMP_WORDS (LUTMM_STAMP_HEADER + LUTMM_STAMP_BLOCKS * LUTMM_STAMP_WARPS * LUTMM_STAMP_SLOTS)

/* Where warp `warp` of block `block` keeps its slots in the stamp words
 * (a macro: the kernel and the host reader both use it). */
#define LUTMM_STAMP_SLOTS_AT(block, warp) \
  (LUTMM_STAMP_HEADER + ((unsigned long long)(block) * LUTMM_STAMP_WARPS + (warp)) * LUTMM_STAMP_SLOTS)

/* The events, in the order a warp passes them. */
enum lutmm_stamp_event {
  LUTMM_STAMP_ENTRY = 0,       /* first instruction */
  LUTMM_STAMP_ISSUED = 1,      /* the prologue's copies issued */
  LUTMM_STAMP_TABLE = 2,       /* table built, past the block barrier */
  LUTMM_STAMP_FIRST_DATA = 3,  /* the warp's first atom has landed */
  LUTMM_STAMP_FIRST_PART = 4,  /* the first column part computed */
  LUTMM_STAMP_LAST_PART = 5,   /* the last column part computed */
  LUTMM_STAMP_SUMS_ADDED = 6,  /* adder warps: the last part's warp sums added (0: not an adder) */
  LUTMM_STAMP_WRITTEN = 7,     /* adder warps: its Y, or tagged words, written (0: not an adder) */
  LUTMM_STAMP_EXIT = 8,        /* after the last copy group */
  LUTMM_STAMP_SM = 9           /* %smid of the block */
};

/* The wide kernel's events in the same slots: its warps have three roles
 * (the producer warp copies, three warps of its warpgroup only leave, the
 * eight MMA warps compute), and each role passes only its own events; the
 * others read as not passed. The producer warpgroup stamps no exit: in its
 * 72 registers that stamp made several kernels spill. */
enum lutmm_wide_stamp_event {
  LUTMM_WIDE_STAMP_ENTRY = 0,      /* first instruction */
  LUTMM_WIDE_STAMP_SET_UP = 1,     /* barriers and table made, past the block barrier */
  LUTMM_WIDE_STAMP_FIRST_FILL = 2, /* producer: the first unit's copies issued */
  LUTMM_WIDE_STAMP_FIRST_DATA = 3, /* MMA warps: the first unit's stage has landed */
  LUTMM_WIDE_STAMP_FIRST_UNIT = 4, /* MMA warps: the first unit's MMAs issued */
  LUTMM_WIDE_STAMP_LAST_UNIT = 5,  /* MMA warps: the last unit's MMAs issued */
  LUTMM_WIDE_STAMP_LAST_FILL = 6,  /* producer: the last unit's copies issued */
  LUTMM_WIDE_STAMP_STORED = 7,     /* MMA warps: the last segment stored, or the cluster's share added */
  LUTMM_WIDE_STAMP_EXIT = 8        /* MMA warps: the warp's last instruction */
};

#ifdef __cplusplus
extern "C" {
#endif
/* The last fp16 / bf16 column-stream launch's LUTMM_STAMP_WORDS words. */
cudaError_t lutmm_cuda_column_stamps_f16(unsigned long long *words);
cudaError_t lutmm_cuda_column_stamps_bf16(unsigned long long *words);
/* The last fp16 / bf16 wide launch's words (the same layout). */
cudaError_t lutmm_cuda_wide_stamps_f16(unsigned long long *words);
cudaError_t lutmm_cuda_wide_stamps_bf16(unsigned long long *words);
#ifdef __cplusplus
}
#endif

#endif
