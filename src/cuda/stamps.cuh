/* The device side of stamps.h: STAMP(event), STAMP_IF(condition, event)
 * and the kernels' entries are nothing unless the build sets LUTMM_STAMPS
 * (nor is a condition evaluated). Each translation unit that includes
 * this keeps its own stamp words (no relocatable device code), read by its
 * own reader: the skinny files' are the column-stream kernel's, the wide
 * files' the wide kernel's. */
#ifndef LUTMM_CUDA_STAMPS_CUH
#define LUTMM_CUDA_STAMPS_CUH

#include "stamps.h"

#if LUTMM_STAMPS
namespace lutmm_kernels {

static __device__ unsigned long long stamp_words[LUTMM_STAMP_WORDS];

__device__ __forceinline__ unsigned long long *stamp_slots() {
  return stamp_words + LUTMM_STAMP_SLOTS_AT(blockIdx.x, threadIdx.x / 32);
}

__device__ __forceinline__ bool stamps_here() {
  return threadIdx.x % 32 == 0 && blockIdx.x < LUTMM_STAMP_BLOCKS && threadIdx.x / 32 < LUTMM_STAMP_WARPS;
}

__device__ __forceinline__ void stamp(int event) {
  if (!stamps_here()) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  stamp_slots()[event] = t;
}

/* At entry: the entry stamp, events first..last cleared (those a warp may
 * not pass this launch), the block's SM, and from block 0 the header. */
__device__ __forceinline__ void stamp_entry(int first, int last) {
  stamp(LUTMM_STAMP_ENTRY);
  if (!stamps_here()) return;
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  unsigned long long *slots = stamp_slots();
  for (int e = first; e <= last; e++) slots[e] = 0;
  slots[LUTMM_STAMP_SM] = sm;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    stamp_words[0] = gridDim.x;
    stamp_words[1] = blockDim.x / 32;
  }
}

/* The column-stream kernel clears its adder-only events; the wide kernel
 * every event after entry (its roles pass different ones). */
__device__ __forceinline__ void column_stamp_entry() { stamp_entry(LUTMM_STAMP_SUMS_ADDED, LUTMM_STAMP_WRITTEN); }
__device__ __forceinline__ void wide_stamp_entry() { stamp_entry(LUTMM_WIDE_STAMP_SET_UP, LUTMM_WIDE_STAMP_EXIT); }

static inline cudaError_t read_stamps(unsigned long long *words) {
  cudaError_t e = cudaMemcpyFromSymbol(words, stamp_words, sizeof(unsigned long long) * LUTMM_STAMP_WORDS);
  const unsigned long long none = 0;
  if (e == cudaSuccess) e = cudaMemcpyToSymbol(stamp_words, &none, sizeof none);
  return e;
}

}  // namespace lutmm_kernels
#define STAMP(event) lutmm_kernels::stamp(event)
#define STAMP_IF(condition, event) ((condition) ? lutmm_kernels::stamp(event) : (void)0)
#define COLUMN_STAMP_ENTRY() lutmm_kernels::column_stamp_entry()
#define WIDE_STAMP_ENTRY() lutmm_kernels::wide_stamp_entry()
#else
#define STAMP(event) ((void)0)
#define STAMP_IF(condition, event) ((void)0)
#define COLUMN_STAMP_ENTRY() ((void)0)
#define WIDE_STAMP_ENTRY() ((void)0)
#endif

#endif
