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

/* A K-major operand in the 128-byte swizzle (TMA's and the wide kernel's
 * X): rows of 64 16-bit elements, 128 bytes each, chunk c of row r at
 * chunk c ^ (r % 8), the next 8 rows 1024 bytes further; `address` on a
 * 1024-byte boundary plus 32 bytes per 16 elements of K. */
__device__ __forceinline__ uint64_t wgmma_descriptor_sw128(uint32_t address) {
  return (uint64_t)((address & 0x3FFFFu) >> 4) | (uint64_t)1 << 16 | (uint64_t)(1024 >> 4) << 32 | (uint64_t)1 << 62;
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

/* D (N/2 fp32 per thread) += A · B for compute dtype T; N = 64, 128 or 256,
 * the wide kernel's tile rows, or 32 where X has no more rows (a macro per
 * dtype and N, since an asm string is a literal). */
template <typename T, int N>
struct wgmma_m64k16;

#define LUTMM_WGMMA_D32 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}"
#define LUTMM_WGMMA_OUT32 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
#define LUTMM_WGMMA_D64 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}"
#define LUTMM_WGMMA_OUT64 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define LUTMM_WGMMA_D128 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}"
#define LUTMM_WGMMA_OUT128 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define LUTMM_WGMMA_D256 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}"
#define LUTMM_WGMMA_OUT256 \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#if LUTMM_HAVE_WGMMA
#define LUTMM_WGMMA_RUN(INSTR, DREGS, AB, OUTS)                                                      \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" INSTR " " DREGS ", " AB ", p, 1, 1, 0;\n}\n" \
               : OUTS                                                                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b))
#else
#define LUTMM_WGMMA_RUN(INSTR, DREGS, AB, OUTS) ((void)d, (void)a, (void)b, __trap())
#endif
/* The specialization for dtype T (PTX name) and N: the accumulators are
 * LUTMM_WGMMA_D<N> / LUTMM_WGMMA_OUT<N>, A's operands follow them (AB). */
#define LUTMM_WGMMA_M64K16(T, PTX, N, AB)                                                                   \
  template <>                                                                                              \
  struct wgmma_m64k16<T, N> {                                                                              \
    static __device__ __forceinline__ void run(float (&d)[N / 2], const uint32_t (&a)[4], uint64_t b) {     \
      LUTMM_WGMMA_RUN("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." PTX "." PTX, LUTMM_WGMMA_D##N, AB,   \
                      LUTMM_WGMMA_OUT##N);                                                                 \
    }                                                                                                      \
  };

LUTMM_WGMMA_M64K16(__half, "f16", 32, "{%16,%17,%18,%19}, %20")
LUTMM_WGMMA_M64K16(__nv_bfloat16, "bf16", 32, "{%16,%17,%18,%19}, %20")
LUTMM_WGMMA_M64K16(__half, "f16", 64, "{%32,%33,%34,%35}, %36")
LUTMM_WGMMA_M64K16(__nv_bfloat16, "bf16", 64, "{%32,%33,%34,%35}, %36")
LUTMM_WGMMA_M64K16(__half, "f16", 128, "{%64,%65,%66,%67}, %68")
LUTMM_WGMMA_M64K16(__nv_bfloat16, "bf16", 128, "{%64,%65,%66,%67}, %68")
LUTMM_WGMMA_M64K16(__half, "f16", 256, "{%128,%129,%130,%131}, %132")
LUTMM_WGMMA_M64K16(__nv_bfloat16, "bf16", 256, "{%128,%129,%130,%131}, %132")

}  // namespace lutmm_kernels

#endif
