/* Pack and unpack on the device through the layout map of layout.h, so the
 * packed bytes equal the host's. Pack writes whole 32-bit words: each thread
 * gathers the codes of one word of one plane. */
#include "cuda_ops.h"
#include "format_kernels.cuh"
#include "numeric.h"

__global__ void lutmm_pack_check_kernel(const lutmm_device_weights d, const uint8_t *codes, const void *scales,
                                        int64_t num_groups, int *flags) {
  const int64_t stride = (int64_t)gridDim.x * blockDim.x, first = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const int64_t count = d.k * d.n, scale_count = num_groups * d.n;
  for (int64_t i = first; i < count; i += stride)
    if (codes[i] >= (1 << d.bits)) atomicOr(&flags[0], 1);
  for (int64_t i = first; i < scale_count; i += stride)
    if (!lutmm_f32_is_finite(lutmm_load_as_f32(scales, (lutmm_dtype)d.scale_dtype, i))) atomicOr(&flags[1], 1);
}

/* The code at atom-local site (lane, pair, elem) of atom `atom`, 0 in padding. */
__device__ static int code_at(const lutmm_device_weights &d, const uint8_t *codes, int64_t atom, int lane, int pair,
                              int elem) {
  const int fragment = pair / 2, reg = pair % 2;
  const int kl = (fragment / 8) * 16 + reg * 8 + 2 * (lane % 4) + elem;
  const int nl = (fragment % 8) * 8 + lane / 4;
  const int64_t k = (atom % d.k_atoms) * LUTMM_ATOM_K + kl, n = (atom / d.k_atoms) * LUTMM_ATOM_N + nl;
  return k < d.k && n < d.n ? codes[k * d.n + n] : 0;
}

__global__ void lutmm_pack_kernel(const __grid_constant__ lutmm_device_weights d, const uint8_t *codes,
                                  int slice) {
  const int w = d.slicing.width[slice], shift = d.slicing.shift[slice];
  const int words_per_atom = 128 * w, pairs_per_word = 16 / w;
  const int64_t total = d.k_atoms * d.n_atoms * words_per_atom;
  uint32_t *plane = (uint32_t *)(d.planes + d.plane_offset[slice]);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t atom = i / words_per_atom;
    const int in_atom = (int)(i % words_per_atom);
    const int vector = in_atom / 4, lane = vector % 32;
    const int word = 4 * (vector / 32) + in_atom % 4;
    uint32_t bits = 0;
    for (int q = 0; q < pairs_per_word; q++) {
      const int base = 2 * w <= 8 ? 8 * (q % 4) + 2 * w * (q / 4) : 16 * q;
      for (int elem = 0; elem < 2; elem++) {
        const int code = code_at(d, codes, atom, lane, word * pairs_per_word + q, elem);
        bits |= (uint32_t)((code >> shift) & ((1 << w) - 1)) << (base + elem * w);
      }
    }
    plane[i] = bits;
  }
}

__global__ void lutmm_unpack_kernel(const __grid_constant__ lutmm_device_weights d, uint8_t *codes) {
  const int64_t total = d.k * d.n;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x)
    codes[i] = (uint8_t)lutmm_device_read_code(d, i / d.n, i % d.n);
}

extern "C" cudaError_t lutmm_cuda_launch_pack_check(cudaStream_t stream, const lutmm_weights *w,
                                                    const uint8_t *codes, const void *scales, int *flags) {
  const lutmm_device_weights d = lutmm_device_weights_of(w);
  lutmm_pack_check_kernel<<<lutmm_grid_for(d.k * d.n, 256), 256, 0, stream>>>(d, codes, scales, w->geom.num_groups,
                                                                                flags);
  return cudaGetLastError();
}

extern "C" cudaError_t lutmm_cuda_launch_pack(cudaStream_t stream, const lutmm_weights *w, const uint8_t *codes) {
  const lutmm_device_weights d = lutmm_device_weights_of(w);
  for (int s = 0; s < d.slicing.count; s++) {
    const int64_t words = d.k_atoms * d.n_atoms * 128 * d.slicing.width[s];
    lutmm_pack_kernel<<<lutmm_grid_for(words, 256), 256, 0, stream>>>(d, codes, s);
  }
  return cudaGetLastError();
}

extern "C" cudaError_t lutmm_cuda_launch_unpack(cudaStream_t stream, const lutmm_weights *w, uint8_t *codes) {
  const lutmm_device_weights d = lutmm_device_weights_of(w);
  lutmm_unpack_kernel<<<lutmm_grid_for(d.k * d.n, 256), 256, 0, stream>>>(d, codes);
  return cudaGetLastError();
}
