/* CUDA-only parts of the lutmm API. Include after lutmm.h.
 *
 * On a CUDA context (LUTMM_BACKEND_CUDA) every lutmm.h call takes device
 * pointers (cudaMalloc'd, or from lutmm_malloc) where it says "context
 * memory", and queues its work on the context's stream. lutmm_gemm never
 * allocates and never synchronizes; it may be captured in a CUDA graph and
 * replayed any number of times, one replay at a time, in order with the
 * context's other work (they share its workspace). On Hopper its large-M
 * kernel lets programmatic dependent launches start early: a kernel the
 * caller queues after lutmm_gemm with
 * cudaLaunchAttributeProgrammaticStreamSerialization must wait
 * (cudaGridDependencySynchronize) before it reads Y; other launches wait
 * for the whole call as usual.
 * Every function here returns LUTMM_ERR_BACKEND_MISMATCH for a context of
 * another backend and LUTMM_ERR_NULL_POINTER for a NULL context or output. */
#ifndef LUTMM_CUDA_H
#define LUTMM_CUDA_H

#include <cuda_runtime.h>
#include <stddef.h>

#include "lutmm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stream the context queues its work on; 0 (the legacy default stream)
 * until set. The stream must belong to the context's device and outlive its
 * use by the context. */
lutmm_status lutmm_cuda_set_stream(lutmm_context *ctx, cudaStream_t stream);
lutmm_status lutmm_cuda_get_stream(const lutmm_context *ctx, cudaStream_t *stream);

/* Bytes of the Stream-K workspace the context allocated for itself at
 * creation: any GEMM runs at full speed with this much. */
lutmm_status lutmm_cuda_workspace_size(const lutmm_context *ctx, size_t *bytes);

/* Lends the context a caller-owned device workspace (16-byte aligned) used
 * by later GEMMs instead of its own; NULL with 0 bytes returns to the
 * context's own. A smaller workspace is never an error: GEMMs that need
 * more fall back to one block per tile. The caller must not free or reuse
 * it while queued GEMMs may still run. LUTMM_ERR_INVALID_ARGUMENT for a
 * misaligned pointer. */
lutmm_status lutmm_cuda_set_workspace(lutmm_context *ctx, void *workspace, size_t bytes);

/* Deterministic mode (1, the default): the Stream-K partition depends only
 * on the shape, the device and how the launch runs, and split tiles are
 * summed in a fixed order, so the same inputs give the same bits on every
 * run of the same kind. Two kinds of run may differ from eager calls: a
 * call captured in a CUDA graph at M = 1..4 (its launch cannot carry the
 * per-launch tags of the column-stream kernel), and a launch the device
 * refuses (a cooperative grid or a cluster it cannot place while another
 * client holds part of it), which goes again on another split. 0 would allow a
 * float-atomic reduction; this version has none (at best it would be a few
 * percent faster, and slower where the fixed-order paths are fastest:
 * docs/CUDA.md), so results stay deterministic either way.
 * LUTMM_ERR_INVALID_ARGUMENT for other values. */
lutmm_status lutmm_cuda_set_deterministic(lutmm_context *ctx, int deterministic);
lutmm_status lutmm_cuda_get_deterministic(const lutmm_context *ctx, int *deterministic);

#ifdef __cplusplus
}
#endif

#endif
