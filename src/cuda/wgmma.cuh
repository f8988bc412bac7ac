/* Hopper warpgroup MMA (wgmma, sm_90a only) for the wide kernel: D += A·B
 * with A (m64 × k16) from registers, each warp of the warpgroup supplying 16
 * rows in mma.m16n8k16's A-fragment layout, and B (k16 × N) from shared
 * memory through a descriptor. D is row-major in the same per-warp layout
 * as mma.m16n8k16's C: accumulator 4c + e of a lane is row
 * 16·warp + lane/4 + 8·(e/2), column 8c + 2·(lane%4) + e%2.
 *
 * Compiled for other targets (sm_80, sm_90 without the "a" features, PTX)
 * the operations trap; the host runs the wide kernel only where a probe
 * kernel of the same file says the sm_90a code is the one the device runs. */
#ifndef LUTMM_CUDA_WGMMA_CUH
#define LUTMM_CUDA_WGMMA_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

namespace lutmm_kernels {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define LUTMM_HAVE_WGMMA 1
#else
#define LUTMM_HAVE_WGMMA 0
#endif

/* A K-major operand without swizzle: 8-row × 16-byte core matrices, the
 * next 8 elements of K `k_step` bytes further, the next 8 rows `row_step`
 * bytes further. */
__device__ __forceinline__ uint64_t wgmma_descriptor(uint32_t address, uint32_t k_step, uint32_t row_step) {
  return (uint64_t)((address & 0x3FFFFu) >> 4) | (uint64_t)(k_step >> 4) << 16 | (uint64_t)(row_step >> 4) << 32;
}

#if LUTMM_HAVE_WGMMA
/* Orders this thread's register writes before the next wgmma reads them. */
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
/* Waits until at most N of the warpgroup's committed groups are running. */
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/* Orders generic-proxy writes to shared memory (cp.async, stores) that this
 * thread made, or observed through a barrier's acquire, before the async
 * proxy's later reads of it (wgmma's B operand). */
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
/* Moves registers between warpgroups (every warp of the warpgroup runs
 * it): release lowers this warpgroup's count to N a thread, claim raises it
 * to N once others have released enough. */
template <int N>
__device__ __forceinline__ void registers_release() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void registers_claim() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
#else
template <int N>
__device__ __forceinline__ void registers_release() { __trap(); }
template <int N>
__device__ __forceinline__ void registers_claim() { __trap(); }
__device__ __forceinline__ void wgmma_fence() { __trap(); }
__device__ __forceinline__ void wgmma_commit() { __trap(); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { __trap(); }
__device__ __forceinline__ void fence_async_shared() { __trap(); }
#endif

/* D (N/2 fp32 per thread) += A · B for compute dtype T; N = 128 is the
 * wide kernel's tile (a macro per dtype, since an asm string is a literal). */
template <typename T, int N>
struct wgmma_m64k16;

#define LUTMM_WGMMA_D128 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}"
#define LUTMM_WGMMA_OUT128 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#if LUTMM_HAVE_WGMMA
#define LUTMM_WGMMA_RUN(INSTR, DREGS, AB, OUTS)                                                      \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" INSTR " " DREGS ", " AB ", p, 1, 1, 0;\n}\n" \
               : OUTS                                                                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b))
#else
#define LUTMM_WGMMA_RUN(INSTR, DREGS, AB, OUTS) ((void)d, (void)a, (void)b, __trap())
#endif
#define LUTMM_WGMMA_M64N128K16(T, PTX)                                                                        \
  template <>                                                                                              \
  struct wgmma_m64k16<T, 128> {                                                                            \
    static __device__ __forceinline__ void run(float (&d)[64], const uint32_t (&a)[4], uint64_t b) {         \
      LUTMM_WGMMA_RUN("wgmma.mma_async.sync.aligned.m64n128k16.f32." PTX "." PTX, LUTMM_WGMMA_D128,          \
                      "{%64,%65,%66,%67}, %68", LUTMM_WGMMA_OUT128);                                        \
    }                                                                                                      \
  };

LUTMM_WGMMA_M64N128K16(__half, "f16")
LUTMM_WGMMA_M64N128K16(__nv_bfloat16, "bf16")

}  // namespace lutmm_kernels

#endif
