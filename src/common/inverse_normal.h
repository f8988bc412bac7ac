/* Inverse of the standard normal CDF, portable to the last bit.
 *
 * NormalFloat tables must be identical on every backend and platform, so this
 * uses no libm function except sqrt (correctly rounded by IEEE 754 on host and
 * device) and spells every product and sum as a separately rounded operation:
 * no FMA contraction can change a bit. The algorithm is Wichura's AS 241
 * (PPND16, relative error about 1e-16); the logarithm is our own. */
#ifndef LUTMM_INVERSE_NORMAL_H
#define LUTMM_INVERSE_NORMAL_H

#include <math.h>
#include <stdint.h>

#include "numeric.h"
#include "portable.h"

#ifdef __CUDA_ARCH__
#define LUTMM_DMUL(a, b) __dmul_rn((a), (b))
#define LUTMM_DADD(a, b) __dadd_rn((a), (b))
#else
#define LUTMM_DMUL(a, b) ((a) * (b))
#define LUTMM_DADD(a, b) ((a) + (b))
#endif

/* c[0] + r·(c[1] + r·(c[2] + ...)), degree n−1, every step rounded. */
LUTMM_HD static inline double lutmm_horner(const double *c, int n, double r) {
  double acc = c[n - 1];
  for (int i = n - 2; i >= 0; i--) acc = LUTMM_DADD(LUTMM_DMUL(acc, r), c[i]);
  return acc;
}

/* Natural logarithm of a positive, normal, finite x: x = m·2^e with m in
 * [√½, √2), log m = 2·atanh(s), s = (m−1)/(m+1), |s| <= 0.172, so 13 odd
 * terms of the series reach double precision. */
LUTMM_HD static inline double lutmm_log(double x) {
  const double kInvOdd[13] = {1.0,       1.0 / 3,  1.0 / 5,  1.0 / 7,  1.0 / 9,
                              1.0 / 11,  1.0 / 13, 1.0 / 15, 1.0 / 17, 1.0 / 19,
                              1.0 / 21,  1.0 / 23, 1.0 / 25};
  const double ln2_hi = 6.93147180369123816490e-01; /* 32 significant bits */
  const double ln2_lo = 1.90821492927058770002e-10;
  uint64_t u = lutmm_f64_bits(x);
  int e = (int)(u >> 52) - 1023;
  u = (u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull; /* m in [1, 2) */
  double m = lutmm_f64_from_bits(u);
  if (m > 1.4142135623730951) {
    m = LUTMM_DMUL(m, 0.5);
    e += 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = LUTMM_DMUL(s, s);
  const double series = LUTMM_DMUL(LUTMM_DMUL(2.0, s), lutmm_horner(kInvOdd, 13, s2));
  const double de = (double)e;
  return LUTMM_DADD(LUTMM_DADD(LUTMM_DMUL(de, ln2_hi), series), LUTMM_DMUL(de, ln2_lo));
}

/* Φ⁻¹(p) for p in (0, 1). */
LUTMM_HD static inline double lutmm_inverse_normal_cdf(double p) {
  const double a[8] = {3.3871328727963666080e0, 1.3314166789178437745e+2,
                       1.9715909503065514427e+3, 1.3731693765509461125e+4,
                       4.5921953931549871457e+4, 6.7265770927008700853e+4,
                       3.3430575583588128105e+4, 2.5090809287301226727e+3};
  const double b[8] = {1.0,
                       4.2313330701600911252e+1, 6.8718700749205790830e+2,
                       5.3941960214247511077e+3, 2.1213794301586595867e+4,
                       3.9307895800092710610e+4, 2.8729085735721942674e+4,
                       5.2264952788528545610e+3};
  const double c[8] = {1.42343711074968357734e0, 4.63033784615654529590e0,
                       5.76949722146069140550e0, 3.64784832476320460504e0,
                       1.27045825245236838258e0, 2.41780725177450611770e-1,
                       2.27238449892691845833e-2, 7.74545014278341407640e-4};
  const double d[8] = {1.0,
                       2.05319162663775882187e0, 1.67638483018380384940e0,
                       6.89767334985100004550e-1, 1.48103976427480074590e-1,
                       1.51986665636164571966e-2, 5.47593808499534494600e-4,
                       1.05075007164441684324e-9};
  const double e[8] = {6.65790464350110377720e0, 5.46378491116411436990e0,
                       1.78482653991729133580e0, 2.96560571828504891230e-1,
                       2.65321895265761230930e-2, 1.24266094738807843860e-3,
                       2.71155556874348757815e-5, 2.01033439929228813265e-7};
  const double f[8] = {1.0,
                       5.99832206555887937690e-1, 1.36929880922735805310e-1,
                       1.48753612908506148525e-2, 7.86869131145613259100e-4,
                       1.84631831751005468180e-5, 1.42151175831644588870e-7,
                       2.04426310338993978564e-15};
  const double q = p - 0.5;
  if (q >= -0.425 && q <= 0.425) {
    const double r = 0.180625 - LUTMM_DMUL(q, q);
    return LUTMM_DMUL(q, lutmm_horner(a, 8, r)) / lutmm_horner(b, 8, r);
  }
  double r = sqrt(-lutmm_log(q < 0 ? p : 1.0 - p));
  double value;
  if (r <= 5.0) {
    r = r - 1.6;
    value = lutmm_horner(c, 8, r) / lutmm_horner(d, 8, r);
  } else {
    r = r - 5.0;
    value = lutmm_horner(e, 8, r) / lutmm_horner(f, 8, r);
  }
  return q < 0 ? -value : value;
}

#endif
