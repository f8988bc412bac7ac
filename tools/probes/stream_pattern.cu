// Probe (not part of the library or its build): how fast can a skinny-style
// launch stream the packed atoms at all, and does the atoms' order or the SM
// a block runs on change that?  Each block of 16 warps streams a Stream-K
// range of units (tile of 16 atom columns, k-atom pair) through per-warp
// rings of 2 KiB atoms, as the skinny kernel does at M = 1 with 4-bit codes,
// but computes nothing. Atom orders:
//   pattern 0: column-major atoms (flat = column * k_atoms + k), the packed layout
//   pattern 1: G columns interleaved (flat = ((column / G) * k_atoms + k) * G + column % G)
// Copies by per-lane cp.async (bulk 0) or one cp.async.bulk per atom and warp
// completing an mbarrier (bulk 1); `weighted` gives each SM a range in
// proportion to its rate measured by the configuration before (block by %smid).
// Prints per configuration the median time of a launch queued behind a spin
// (as `lutmm bench` times), of a host-paced one, and the blocks' end times
// after the first block's start (%globaltimer), then how the per-SM block
// durations correlate across configurations. Data and findings: docs/PERF.md,
// change 76; docs/data/probe-cuda-h100-2026-11-27-stream-pattern.csv.
//   nvcc -O3 -arch=sm_90 -std=c++17 -o stream_pattern tools/probes/stream_pattern.cu
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

struct cfgp {
  int k_atoms, n_atoms, warps, depth, pattern, g, grid, sync_every;
  int atom_vectors; // 16-byte vectors per atom (128 for 4-bit)
  int bulk;         // 1: one cp.async.bulk per atom and warp, mbarrier-completed
};

__device__ __forceinline__ uint64_t gtimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ uint32_t smid() {
  uint32_t s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ __forceinline__ size_t flat_of(const cfgp &c, int column, int k) {
  if (c.pattern == 0) return (size_t)column * c.k_atoms + k;
  return ((size_t)(column / c.g) * c.k_atoms + k) * c.g + column % c.g;
}

__global__ void __launch_bounds__(512, 1) stream(const uint4 *__restrict__ w, cfgp c, unsigned long long *stamps,
                                                 uint32_t *sink, const int *range_by_sm) {
  extern __shared__ uint4 ring[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint64_t t0 = gtimer();
  const int iters = c.k_atoms / 2;
  const long units = (long)iters * (c.n_atoms / c.warps);
  int lo = (int)(units * blockIdx.x / c.grid), hi = (int)(units * (blockIdx.x + 1) / c.grid);
  if (range_by_sm) {
    const int r = range_by_sm[smid()];
    lo = r >> 16;
    hi = r & 0xffff;
  }
  const int total = 2 * (hi - lo);
  const int per_lane = c.atom_vectors / 32;
  uint4 *mine = ring + (size_t)warp * c.depth * c.atom_vectors;
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  __shared__ __align__(8) uint64_t bars[16][8];
  if (c.bulk && lane < c.depth) {
    const uint32_t b = (uint32_t)__cvta_generic_to_shared(&bars[warp][lane]);
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" ::"r"(b));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncwarp();
  auto issue_bulk = [&](int s) {
    if (s < total && lane == 0) {
      const int u = lo + s / 2, tile = u / iters, k = 2 * (u % iters) + s % 2;
      const int column = tile * c.warps + warp;
      const uint4 *src = w + flat_of(c, column, k) * c.atom_vectors;
      const uint32_t d = (uint32_t)__cvta_generic_to_shared(mine + (s % c.depth) * c.atom_vectors);
      const uint32_t b = (uint32_t)__cvta_generic_to_shared(&bars[warp][s % c.depth]);
      asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(b), "r"(c.atom_vectors * 16));
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1], %2, [%3], %4;"
                   ::"r"(d), "l"(src), "r"(c.atom_vectors * 16), "r"(b), "l"(policy) : "memory");
    }
  };
  auto wait_bulk = [&](int s) {
    const uint32_t b = (uint32_t)__cvta_generic_to_shared(&bars[warp][s % c.depth]);
    const uint32_t parity = (uint32_t)(s / c.depth) & 1u;
    uint32_t ok = 0;
    while (!ok)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                   : "=r"(ok) : "r"(b), "r"(parity) : "memory");
  };
  auto issue = [&](int s) {
    if (s < total) {
      const int u = lo + s / 2, tile = u / iters, k = 2 * (u % iters) + s % 2;
      const int column = tile * c.warps + warp;
      const uint4 *src = w + flat_of(c, column, k) * c.atom_vectors + lane;
      uint4 *dst = mine + (s % c.depth) * c.atom_vectors + lane;
      const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst);
      for (int v = 0; v < per_lane; v++)
        asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(d + 512 * v),
                     "l"(src + 32 * v), "l"(policy));
    }
    asm volatile("cp.async.commit_group;");
  };
  uint32_t acc = 0;
  if (c.bulk) {
    for (int s = 0; s < c.depth; s++) issue_bulk(s);
    for (int s = 0; s < total; s++) {
      wait_bulk(s);
      if (c.sync_every && s % c.sync_every == 0) __syncthreads();
      acc ^= mine[(s % c.depth) * c.atom_vectors + lane].x;
      __syncwarp();
      issue_bulk(s + c.depth);
    }
  } else {
  for (int s = 0; s < c.depth; s++) issue(s);
  for (int s = 0; s < total; s++) {
    switch (c.depth) {
      case 2: asm volatile("cp.async.wait_group 1;"); break;
      case 3: asm volatile("cp.async.wait_group 2;"); break;
      case 4: asm volatile("cp.async.wait_group 3;"); break;
      default: asm volatile("cp.async.wait_group 5;"); break;
    }
    if (c.sync_every && s % c.sync_every == 0) __syncthreads();
    else __syncwarp();
    acc ^= mine[(s % c.depth) * c.atom_vectors + lane].x;
    __syncwarp();
    issue(s + c.depth);
  }
  asm volatile("cp.async.wait_group 0;");
  }
  __syncthreads();
  if (acc == 0x12345678u) sink[0] = acc;
  if (threadIdx.x == 0) {
    stamps[3 * blockIdx.x] = t0;
    stamps[3 * blockIdx.x + 1] = gtimer();
    stamps[3 * blockIdx.x + 2] = smid();
  }
}

__global__ void spin(long long ns) {
  const uint64_t t0 = gtimer();
  while ((long long)(gtimer() - t0) < ns) {}
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  const int launches = 60;
  const size_t atom_bytes = 2048;
  struct shape { int k, n; } shapes[] = {{8192, 28672}, {28672, 8192}};
  struct variant { int pattern, g, depth, sync, bulk, weighted; } variants[] = {
      {0, 1, 3, 16, 0, 0}, {0, 1, 3, 16, 0, 1}, {0, 1, 3, 16, 0, 0}, {0, 1, 3, 16, 0, 1}, {0, 1, 4, 16, 1, 0}, {0, 1, 4, 16, 1, 1}};
  std::vector<std::vector<double>> by_sm; // per configuration: mean duration of the block on each SM
  int *d_ranges;
  CK(cudaMalloc(&d_ranges, 256 * sizeof(int)));
  int dev_sms;
  CK(cudaDeviceGetAttribute(&dev_sms, cudaDevAttrMultiProcessorCount, 0));
  unsigned long long *stamps;
  uint32_t *sink;
  CK(cudaMalloc(&stamps, 3 * sizeof(unsigned long long) * dev_sms));
  CK(cudaMalloc(&sink, 4));
  CK(cudaFuncSetAttribute(stream, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  printf("shape,pattern,g,depth,sync,bulk,weighted,queued_us,launch_us,tbps,first_end_us,median_end_us,last_end_us,mean_end_us,rate_corr\n");
  for (auto sh : shapes) {
    const int k_atoms = sh.k / 64, n_atoms = sh.n / 64;
    const size_t bytes = (size_t)k_atoms * n_atoms * atom_bytes;
    const int nbuf = 4;
    std::vector<uint4 *> bufs(nbuf);
    for (auto &b : bufs) {
      CK(cudaMalloc(&b, bytes));
      CK(cudaMemset(b, 0x5a, bytes));
    }
    for (auto v : variants) {
      cfgp c = {k_atoms, n_atoms, 16, v.depth, v.pattern, v.g, dev_sms, v.sync, 128, v.bulk};
      const size_t smem = std::max((size_t)16 * v.depth * atom_bytes, (size_t)120 * 1024); // one block an SM
      cudaEvent_t a, b;
      CK(cudaEventCreate(&a));
      CK(cudaEventCreate(&b));
      std::vector<double> times, first, med, last, mean;
      std::vector<std::vector<double>> durations;
      std::vector<unsigned long long> h(3 * dev_sms);
      std::vector<double> sm_dur;
      for (int i = 0; i < launches + 5; i++) {
        CK(cudaEventRecord(a));
        stream<<<dev_sms, 512, smem>>>(bufs[i % nbuf], c, stamps, sink, v.weighted ? d_ranges : nullptr);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        if (i < 5) continue;
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        times.push_back(ms * 1000.0);
        CK(cudaMemcpy(h.data(), stamps, h.size() * 8, cudaMemcpyDeviceToHost));
        unsigned long long s0 = ~0ull;
        for (int x = 0; x < dev_sms; x++) s0 = std::min(s0, h[3 * x]);
        std::vector<double> ends(dev_sms), dur(dev_sms);
        double sum = 0;
        for (int x = 0; x < dev_sms; x++) {
          ends[x] = (h[3 * x + 1] - s0) / 1000.0;
          dur[x] = (h[3 * x + 1] - h[3 * x]) / 1000.0;
          sum += ends[x];
        }
        durations.push_back(dur);
        if (sm_dur.empty()) sm_dur.assign(256, 0.0);
        for (int x = 0; x < dev_sms; x++) sm_dur[h[3 * x + 2] % 256] += dur[x] / launches;
        std::vector<double> sorted = ends;
        std::sort(sorted.begin(), sorted.end());
        first.push_back(sorted[0]);
        med.push_back(sorted[dev_sms / 2]);
        last.push_back(sorted[dev_sms - 1]);
        mean.push_back(sum / dev_sms);
      }
      // correlation of block durations between launch pairs (i, i + 1), averaged
      double corr_sum = 0;
      int pairs = 0;
      for (size_t i = 0; i + 1 < durations.size(); i += 2) {
        const auto &x = durations[i], &y = durations[i + 1];
        double mx = 0, my = 0;
        for (int j = 0; j < dev_sms; j++) { mx += x[j]; my += y[j]; }
        mx /= dev_sms; my /= dev_sms;
        double sxy = 0, sxx = 0, syy = 0;
        for (int j = 0; j < dev_sms; j++) {
          sxy += (x[j] - mx) * (y[j] - my);
          sxx += (x[j] - mx) * (x[j] - mx);
          syy += (y[j] - my) * (y[j] - my);
        }
        corr_sum += sxy / sqrt(sxx * syy + 1e-30);
        pairs++;
      }
      by_sm.push_back(sm_dur);
      if (!v.weighted) {
        // ranges in proportion to each SM's rate (equal work / duration), SMs in smid order
        const long units = (long)(k_atoms / 2) * (n_atoms / 16);
        std::vector<int> ranges(256, 0);
        double total_rate = 0;
        int seen = 0;
        for (int j = 0; j < 256; j++) if (sm_dur[j] > 0) { total_rate += 1.0 / sm_dur[j]; seen++; }
        double acc = 0;
        int prev = 0;
        std::vector<double> sorted_d;
        for (int j = 0; j < 256; j++) if (sm_dur[j] > 0) {
          acc += 1.0 / sm_dur[j];
          const int next = (int)(units * acc / total_rate + 0.5);
          ranges[j] = prev << 16 | next;
          prev = next;
          sorted_d.push_back(sm_dur[j]);
        }
        std::sort(sorted_d.begin(), sorted_d.end());
        printf("# %d SMs seen; sorted block durations (us):", seen);
        for (double d : sorted_d) printf(" %.1f", d);
        printf("\n# smids:");
        for (int j = 0; j < 256; j++) if (sm_dur[j] > 0) printf(" %d:%.1f", j, sm_dur[j]);
        printf("\n");
        CK(cudaMemcpy(d_ranges, ranges.data(), 256 * sizeof(int), cudaMemcpyHostToDevice));
      }
      // queued: batches of 25 launches behind a 300 us spin, each between its own events
      std::vector<double> queued;
      {
        const int B = 25;
        std::vector<cudaEvent_t> ea(B), eb(B);
        for (int i = 0; i < B; i++) { CK(cudaEventCreate(&ea[i])); CK(cudaEventCreate(&eb[i])); }
        for (int round = 0; round < 4; round++) {
          spin<<<1, 32>>>(300000);
          for (int i = 0; i < B; i++) {
            CK(cudaEventRecord(ea[i]));
            stream<<<dev_sms, 512, smem>>>(bufs[i % nbuf], c, stamps, sink, v.weighted ? d_ranges : nullptr);
            CK(cudaEventRecord(eb[i]));
          }
          CK(cudaDeviceSynchronize());
          for (int i = 0; i < B; i++) {
            float ms;
            CK(cudaEventElapsedTime(&ms, ea[i], eb[i]));
            queued.push_back(ms * 1000.0);
          }
        }
      }
      const double t = median(times);
      printf("%dx%d,%d,%d,%d,%d,%d,%d,%.2f,%.2f,%.3f,%.2f,%.2f,%.2f,%.2f,%.2f\n", sh.k, sh.n, v.pattern, v.g, v.depth, v.sync, v.bulk, v.weighted, median(queued), t,
             bytes / (t * 1e-6) / 1e12, median(first), median(med), median(last), median(mean), corr_sum / pairs);
      fflush(stdout);
    }
    for (auto &b : bufs) CK(cudaFree(b));
  }
  printf("per-SM duration correlation with configuration 0:");
  for (auto &v : by_sm) {
    const auto &x = by_sm[0];
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    int cnt = 0;
    for (int j = 0; j < 256; j++) if (x[j] > 0) { mx += x[j]; my += v[j]; cnt++; }
    mx /= cnt; my /= cnt;
    for (int j = 0; j < 256; j++) if (x[j] > 0) { sxy += (x[j] - mx) * (v[j] - my); sxx += (x[j] - mx) * (x[j] - mx); syy += (v[j] - my) * (v[j] - my); }
    printf(" %.2f", sxy / sqrt(sxx * syy + 1e-30));
  }
  printf("\n");
  (void)argc;
  (void)argv;
  return 0;
}
