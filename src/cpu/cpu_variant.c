/* Which kernel variant runs: the best the CPU has, or the one named by
 * LUTMM_CPU_KERNEL=portable|avx2|avx512 when the CPU has it (otherwise the
 * best it has: forcing a missing ISA never crashes). */
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "cpu_kernel.h"

#if defined(__x86_64__)
/* F16C (CPUID leaf 1, ECX bit 29): not every compiler's
 * __builtin_cpu_supports knows its name. */
static int has_f16c(void) {
  unsigned eax, ebx, ecx, edx;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
}
#endif

static int cpu_has(cpu_variant v) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (v == CPU_VARIANT_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c();
  if (v == CPU_VARIANT_AVX512)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma") && has_f16c();
#endif
  return v == CPU_VARIANT_PORTABLE;
}

static cpu_variant best_variant(void) {
  if (cpu_has(CPU_VARIANT_AVX512)) return CPU_VARIANT_AVX512;
  if (cpu_has(CPU_VARIANT_AVX2)) return CPU_VARIANT_AVX2;
  return CPU_VARIANT_PORTABLE;
}

cpu_variant cpu_variant_select(void) {
  const char *name = getenv("LUTMM_CPU_KERNEL");
  if (name != NULL) {
    for (int v = CPU_VARIANT_PORTABLE; v <= CPU_VARIANT_AVX512; v++)
      if (strcmp(name, cpu_variant_name((cpu_variant)v)) == 0 && cpu_has((cpu_variant)v)) return (cpu_variant)v;
  }
  return best_variant();
}

const char *cpu_variant_name(cpu_variant v) {
  switch (v) {
    case CPU_VARIANT_AVX2: return "avx2";
    case CPU_VARIANT_AVX512: return "avx512";
    default: return "portable";
  }
}

cpu_kernel_fn cpu_kernel_for(cpu_variant v) {
#if defined(__x86_64__)
  if (v == CPU_VARIANT_AVX2) return cpu_kernel_avx2;
  if (v == CPU_VARIANT_AVX512) return cpu_kernel_avx512;
#endif
  (void)v;
  return cpu_kernel_portable;
}

int cpu_variant_lane_order(cpu_variant v) { return v != CPU_VARIANT_PORTABLE; }

cpu_dequant_fn cpu_dequant_for(cpu_variant v) {
#if defined(__x86_64__)
  if (v != CPU_VARIANT_PORTABLE) return cpu_dequant_avx2; /* every AVX-512 CPU has AVX2 */
#endif
  (void)v;
  return cpu_dequant_portable;
}
