/* Qualifiers for code shared by host C and CUDA device code.
 * Everything in src/common that a kernel must reproduce bit for bit is a
 * static inline function marked LUTMM_HD and uses only integer and IEEE
 * basic operations, so host and device compute the same bits. */
#ifndef LUTMM_PORTABLE_H
#define LUTMM_PORTABLE_H

#ifdef __CUDACC__
#define LUTMM_HD __host__ __device__
#else
#define LUTMM_HD
#endif

#endif
