// Probe (not part of the library or its build): what a kernel's first reads
// of its parameter block cost. The block is as large as
// lutmm_cuda_gemm_params (1,664 bytes); 132 blocks of 512 threads, one a
// multiprocessor, launched 30 times back to back, and lane 0 of each warp
// stamps %globaltimer around its reads in the last launch. Three kernels:
//   0: twelve reads one after another, each in a new 128-byte piece and its
//      address taken from the read before (every read waits for the last);
//   1: twelve independent reads of twelve pieces, then the chain of 0;
//   2: the chain within one piece (what a read costs once its piece is in).
// Prints, per stamp, the median and the latest warp in µs after the first
// entry, three times per kernel.
//   nvcc -O3 -arch=sm_90 -o param_reads tools/probes/param_reads.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

struct Params {
  uint32_t w[416];
};

__device__ __forceinline__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <int KIND>
__global__ void __launch_bounds__(512, 1) reads(const __grid_constant__ Params p, unsigned long long *stamps,
                                                uint32_t *sink) {
  unsigned long long t[13];
  t[0] = now();
  uint32_t v = 0;
  if (KIND == 0) {
#pragma unroll
    for (int i = 0; i < 12; i++) {
      v = p.w[(v & 1u) + 32 * i];
      t[i + 1] = now();
    }
  } else if (KIND == 1) {
    uint32_t w[12];
#pragma unroll
    for (int i = 0; i < 12; i++) w[i] = p.w[32 * i + 1];
#pragma unroll
    for (int i = 0; i < 12; i++) v ^= w[i];
    t[1] = now();
#pragma unroll
    for (int i = 0; i < 11; i++) {
      v = p.w[(v & 1u) + 32 * i];
      t[i + 2] = now();
    }
  } else {
#pragma unroll
    for (int i = 0; i < 12; i++) {
      v = p.w[(v & 1u) + 2 * i];
      t[i + 1] = now();
    }
  }
  if (threadIdx.x % 32 == 0) {
    unsigned long long *s = stamps + ((size_t)blockIdx.x * 16 + threadIdx.x / 32) * 13;
    for (int i = 0; i < 13; i++) s[i] = t[i];
  }
  if (v == 0x9e3779b9u) sink[threadIdx.x] = v; /* never: keeps the reads */
}

int main() {
  const int blocks = 132, warps = 16, smem = 200 * 1024;
  Params p = {};
  unsigned long long *stamps;
  uint32_t *sink;
  cudaMalloc(&stamps, (size_t)blocks * warps * 13 * 8);
  cudaMalloc(&sink, 4096);
  void (*kernels[3])(Params, unsigned long long *, uint32_t *) = {reads<0>, reads<1>, reads<2>};
  for (int k = 0; k < 3; k++) {
    cudaFuncSetAttribute(kernels[k], cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    for (int rep = 0; rep < 3; rep++) {
      for (int i = 0; i < 30; i++) kernels[k]<<<blocks, 32 * warps, smem>>>(p, stamps, sink);
      cudaDeviceSynchronize();
      std::vector<unsigned long long> h((size_t)blocks * warps * 13);
      cudaMemcpy(h.data(), stamps, h.size() * 8, cudaMemcpyDeviceToHost);
      unsigned long long t0 = ~0ull;
      for (int w = 0; w < blocks * warps; w++) t0 = std::min(t0, h[(size_t)w * 13]);
      printf("kernel %d run %d:", k, rep);
      for (int e = 0; e < 13; e++) {
        std::vector<double> d;
        for (int w = 0; w < blocks * warps; w++) d.push_back((double)(h[(size_t)w * 13 + e] - t0) / 1000.0);
        std::sort(d.begin(), d.end());
        printf(" %.2f/%.2f", d[d.size() / 2], d.back());
      }
      printf("  %s\n", cudaGetErrorString(cudaGetLastError()));
    }
  }
  return 0;
}
