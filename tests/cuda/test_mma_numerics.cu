/* The tensor-core arithmetic the GEMM bound relies on (docs/NUMERICS.md):
 * one mma.m16n8k16 with fp32 accumulation, C = 0, must stay within
 * 2·16·2^-24·Σ_k a_k + tiny_f32 of the exact dot product, where
 * a_k = max(|x_k|, n_c)·max(|ŵ_k|, n_c) counts a subnormal factor as the
 * dtype's smallest normal n_c. Random MMAs cover normal operands, subnormal
 * weights (any, and with 1–3 significant bits), subnormal activations and
 * zero weights against huge activations, in fp16 and bf16. It also reports
 * how often plain |x·ŵ| would have been too small a measure (informational:
 * hardware that normalises subnormals would show 0). Exit 77 without a GPU. */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

constexpr int kMmas = 1024; /* per operand class and dtype */

/* One warp per MMA: A 16×16 row-major, B 16×8 (k-major), D 16×8. */
template <bool BF16>
__global__ void one_mma(const uint16_t *a_all, const uint16_t *b_all, float *d_all) {
  const int lane = (int)threadIdx.x, g = lane / 4, q = lane % 4;
  const uint16_t *a = a_all + blockIdx.x * 256, *b = b_all + blockIdx.x * 128;
  auto pair = [](uint16_t lo, uint16_t hi) { return (uint32_t)lo | ((uint32_t)hi << 16); };
  const uint32_t a0 = pair(a[g * 16 + 2 * q], a[g * 16 + 2 * q + 1]);
  const uint32_t a1 = pair(a[(g + 8) * 16 + 2 * q], a[(g + 8) * 16 + 2 * q + 1]);
  const uint32_t a2 = pair(a[g * 16 + 2 * q + 8], a[g * 16 + 2 * q + 9]);
  const uint32_t a3 = pair(a[(g + 8) * 16 + 2 * q + 8], a[(g + 8) * 16 + 2 * q + 9]);
  const uint32_t b0 = pair(b[(2 * q) * 8 + g], b[(2 * q + 1) * 8 + g]);
  const uint32_t b1 = pair(b[(2 * q + 8) * 8 + g], b[(2 * q + 9) * 8 + g]);
  float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
  if (BF16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  float *d = d_all + blockIdx.x * 128;
  d[g * 8 + 2 * q] = c0, d[g * 8 + 2 * q + 1] = c1;
  d[(g + 8) * 8 + 2 * q] = c2, d[(g + 8) * 8 + 2 * q + 1] = c3;
}

struct rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return (uint32_t)(next() % n); }
};

/* fp16 / bf16 bit patterns: layout of one dtype. */
struct format {
  bool bf16;
  int mant_bits, bias;
  double min_normal;
  double value(uint16_t h) const {
    const int e = (h & 0x7FFF) >> mant_bits, m = h & ((1 << mant_bits) - 1);
    const double s = h >> 15 ? -1.0 : 1.0;
    return e == 0 ? s * std::ldexp((double)m, 1 - bias - mant_bits)
                  : s * std::ldexp((double)((1 << mant_bits) + m), e - bias - mant_bits);
  }
  uint16_t normal(rng &r, int lo, int hi) const { /* random sign and mantissa, exponent in [lo, hi] */
    const int e = lo + (int)r.below((uint32_t)(hi - lo + 1));
    return (uint16_t)((r.next() & 1) << 15 | (e + bias) << mant_bits | r.below(1u << mant_bits));
  }
  uint16_t subnormal(rng &r, uint32_t max_mant) const {
    return (uint16_t)((r.next() & 1) << 15 | (1 + r.below(max_mant)));
  }
  uint16_t power(int e) const { return (uint16_t)((e + bias) << mant_bits); }
};

enum operand_class { NORMAL, SUB_W, FEW_BIT_SUB_W, SUB_X, ZERO_W_BIG_X, CLASSES };
const char *const kClassNames[CLASSES] = {"normal", "subnormal w", "1-3 bit subnormal w", "subnormal x",
                                          "zero w, huge x"};

/* Activations near 1 (fp16) or 2^95 (bf16, so products stay fp32-normal),
 * weights just above the subnormal range unless the class says otherwise.
 * Subnormal activations meet weights from the activations' normal range,
 * so that their products too stay fp32-normal (bf16: ~2^-40, not 2^-259,
 * which would only test fp32 underflow). */
void fill(const format &f, operand_class c, rng &r, std::vector<uint16_t> &a, std::vector<uint16_t> &b) {
  const int x_lo = f.bf16 ? 90 : -8, x_hi = f.bf16 ? 100 : 4;
  const int w_lo = c == SUB_X ? x_lo : f.bf16 ? -126 : -14, w_hi = c == SUB_X ? x_hi : f.bf16 ? -120 : -8;
  const uint32_t all_mant = (1u << f.mant_bits) - 1;
  for (auto &x : a) x = c == SUB_X ? f.subnormal(r, 7) : f.normal(r, x_lo, x_hi);
  for (auto &w : b) {
    w = c == SUB_W ? f.subnormal(r, all_mant) : c == FEW_BIT_SUB_W ? f.subnormal(r, 7) : f.normal(r, w_lo, w_hi);
  }
  if (c == ZERO_W_BIG_X) /* k = 0: the largest activation times a zero weight */
    for (int t = 0; t < kMmas; t++) {
      for (int i = 0; i < 16; i++) a[t * 256 + i * 16] = f.power(f.bf16 ? 110 : 15);
      for (int j = 0; j < 8; j++) b[t * 128 + j] = 0;
    }
}

/* Runs the MMAs; returns the failures against a_k, counts in *naive the
 * dot products that plain |x·ŵ| would have failed, and puts in *worst the
 * largest error in units of 2^-23 · max_k a_k (the figure NUMERICS.md
 * quotes). */
long check_class(const format &f, operand_class c, rng &r, long *naive, long *inexact, double *worst) {
  std::vector<uint16_t> a((size_t)kMmas * 256), b((size_t)kMmas * 128);
  std::vector<float> d((size_t)kMmas * 128);
  fill(f, c, r, a, b);
  uint16_t *da = nullptr, *db = nullptr;
  float *dd = nullptr;
  if (cudaMalloc(&da, a.size() * 2) != cudaSuccess || cudaMalloc(&db, b.size() * 2) != cudaSuccess ||
      cudaMalloc(&dd, d.size() * 4) != cudaSuccess)
    return -1;
  cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  if (f.bf16) one_mma<true><<<kMmas, 32>>>(da, db, dd);
  else one_mma<false><<<kMmas, 32>>>(da, db, dd);
  const bool ok = cudaMemcpy(d.data(), dd, d.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess;
  cudaFree(da), cudaFree(db), cudaFree(dd);
  if (!ok) return -1;
  long failures = 0;
  for (int t = 0; t < kMmas; t++)
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 8; j++) {
        double exact = 0.0, aligned = 0.0, plain = 0.0, largest = 0.0; /* exact: 16 products of ≤ 22 bits */
        for (int k = 0; k < 16; k++) {
          const double x = f.value(a[t * 256 + i * 16 + k]), w = f.value(b[t * 128 + k * 8 + j]);
          exact += x * w;
          plain += std::fabs(x * w);
          if (x == 0.0 || w == 0.0) continue;
          const double a_k = std::fmax(std::fabs(x), f.min_normal) * std::fmax(std::fabs(w), f.min_normal);
          aligned += a_k;
          largest = std::fmax(largest, a_k);
        }
        const double err = std::fabs((double)d[t * 128 + i * 8 + j] - exact);
        const double term = 2.0 * 16.0 * 0x1p-24, tiny = 0x1p-149;
        *inexact += err != 0.0;
        if (largest > 0.0) *worst = std::fmax(*worst, err / (0x1p-23 * largest));
        *naive += err > term * plain + tiny;
        if (err > term * aligned + tiny) {
          if (failures++ < 3)
            std::printf("FAIL %s %s: mma %d (%d, %d) error %.3g > bound %.3g\n", f.bf16 ? "bf16" : "fp16",
                        kClassNames[c], t, i, j, err, term * aligned + tiny);
        }
      }
  return failures;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: skipped\n");
    return 77;
  }
  const format formats[2] = {{false, 10, 15, 0x1p-14}, {true, 7, 127, 0x1p-126}};
  rng r = {20261121};
  long total_failures = 0;
  for (const format &f : formats)
    for (int c = 0; c < CLASSES; c++) {
      long naive = 0, inexact = 0;
      double worst = 0.0;
      const long failures = check_class(f, (operand_class)c, r, &naive, &inexact, &worst);
      if (failures < 0) {
        std::printf("CUDA error\n");
        return 1;
      }
      total_failures += failures;
      std::printf("%s %-20s %ld dot products, %ld inexact, worst %.2f x 2^-23 max a_k, %ld past the bound (%ld with "
                  "plain |x*w|)\n",
                  f.bf16 ? "bf16" : "fp16", kClassNames[c], (long)kMmas * 128, inexact, worst, failures, naive);
    }
  return total_failures == 0 ? 0 : 1;
}
