/* The reference backend's operations, also the parent of the CPU backend. */
#ifndef LUTMM_REFERENCE_H
#define LUTMM_REFERENCE_H

#include "backend.h"

/* OpenMP team size for a context setting (0: OpenMP default). */
int lutmm_ref_threads(int num_threads);

lutmm_status lutmm_ref_table_build(lutmm_context *ctx, lutmm_table_kind kind, int bits, float *table);
lutmm_status lutmm_ref_quantize(lutmm_context *ctx, const lutmm_quant_params *p, const lutmm_geometry *g,
                                const float *host_table, const float *table, const float *w, uint8_t *codes,
                                void *scales);
lutmm_status lutmm_ref_pack(lutmm_context *ctx, const uint8_t *codes, const void *scales, lutmm_weights *w);
lutmm_status lutmm_ref_unpack(lutmm_context *ctx, const lutmm_weights *w, uint8_t *codes, void *scales);
lutmm_status lutmm_ref_dequantize(lutmm_context *ctx, const lutmm_weights *w, lutmm_dtype dtype, void *w_hat);
/* Column n of Ŵ in dtype c, widened to float, rows [0, k). */
void lutmm_ref_dequantize_column(const lutmm_weights *w, lutmm_dtype c, int64_t n, float *column);
lutmm_status lutmm_ref_gemm(lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args);

#endif
