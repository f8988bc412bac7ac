/* Shared-memory barriers with phases (mbarrier): in the wide kernel (its
 * sm_90a code) the producer warp tells the MMA warpgroups that a stage has
 * landed, and they tell it that the stage may be refilled, without a
 * block-wide barrier; outside sm_90a code its arrivals and waits trap, as
 * the warpgroup MMAs do (wgmma.cuh). The initialisation and the `_any`
 * arrival and wait serve every target. */
#ifndef LUTMM_CUDA_MBARRIER_CUH
#define LUTMM_CUDA_MBARRIER_CUH

#include <stdint.h>

#include "wgmma.cuh"

namespace lutmm_kernels {

/* A barrier whose phase completes after `count` arrivals (every target). */
__device__ __forceinline__ void mbarrier_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* Arrival and wait in the forms every target of the library has (sm_80
 * and up), for the column-stream kernel's part sums (column_kernel.cuh,
 * part_meeting): a thread's arrival releases its earlier shared-memory
 * stores, the wait acquires them, and compute-sanitizer's racecheck sees
 * the order (it does not see one made by atomics and fences, or by named
 * barriers' arrive). */
__device__ __forceinline__ void mbarrier_arrive_any(uint32_t bar) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared.b64 state, [%0];\n}\n" ::"r"(bar) : "memory");
}

/* Waits until the phase of parity `parity` has completed (acquire). From
 * sm_90 with try_wait, which suspends the waiting warp for a while inside
 * the instruction, so that its issue slots go to the warps still working;
 * before that by polling test_wait, which returns at once. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define LUTMM_MBARRIER_TEST "mbarrier.try_wait.parity.shared::cta.b64"
#else
#define LUTMM_MBARRIER_TEST "mbarrier.test_wait.parity.shared.b64"
#endif
__device__ __forceinline__ void mbarrier_wait_any(uint32_t bar, uint32_t parity) {
  asm volatile("{\n.reg .pred done;\nLUTMM_MBARRIER_WAIT:\n" LUTMM_MBARRIER_TEST
               " done, [%0], %1;\n"
               "@!done bra LUTMM_MBARRIER_WAIT;\n}\n" ::"r"(bar),
               "r"(parity)
               : "memory");
}
#undef LUTMM_MBARRIER_TEST

#if LUTMM_HAVE_WGMMA
/* One arrival, releasing this thread's earlier memory operations. */
__device__ __forceinline__ void mbarrier_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* One arrival, made by the copy engine once every cp.async this thread
 * issued before it has landed (noinc: the arrival is one of the `count`). */
__device__ __forceinline__ void mbarrier_arrive_after_copies(uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

/* One arrival that also makes the phase wait for `bytes` more of
 * transactions (a TMA copy's, tma.cuh) before it completes. */
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

/* The wide kernel's stage handoffs wait as the column stream does. */
__device__ __forceinline__ void mbarrier_wait(uint32_t bar, uint32_t parity) { mbarrier_wait_any(bar, parity); }
#else
__device__ __forceinline__ void mbarrier_arrive(uint32_t) { __trap(); }
__device__ __forceinline__ void mbarrier_arrive_after_copies(uint32_t) { __trap(); }
__device__ __forceinline__ void mbarrier_arrive_expect_tx(uint32_t, uint32_t) { __trap(); }
__device__ __forceinline__ void mbarrier_wait(uint32_t, uint32_t) { __trap(); }
#endif

}  // namespace lutmm_kernels

#endif
