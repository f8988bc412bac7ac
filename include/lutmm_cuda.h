/* CUDA-only parts of the lutmm API. Include after lutmm.h. */
#ifndef LUTMM_CUDA_H
#define LUTMM_CUDA_H

#include <cuda_runtime.h>

#include "lutmm.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif

#endif
