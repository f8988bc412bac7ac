/* The private backend interface.
 *
 * Each backend is one static const lutmm_backend_ops. The public entry points
 * in dispatch.c validate every argument, then call the backend's function for
 * the operation. A NULL entry means "inherit": the operation resolves to the
 * parent's entry (the optimized CPU backend starts from the reference and
 * overrides what it accelerates). A backend whose memory is not the host's
 * has no parent: what it leaves NULL answers LUTMM_ERR_UNSUPPORTED. */
#ifndef LUTMM_BACKEND_H
#define LUTMM_BACKEND_H

#include <stdint.h>

#include "geometry.h"
#include "lutmm.h"
#include "lutmm_config.h"

typedef enum lutmm_memory { LUTMM_MEMORY_HOST = 0, LUTMM_MEMORY_DEVICE = 1 } lutmm_memory;

typedef enum lutmm_table_kind { LUTMM_TABLE_NF = 0, LUTMM_TABLE_INT = 1, LUTMM_TABLE_FP = 2 } lutmm_table_kind;

typedef struct lutmm_backend_ops lutmm_backend_ops;


struct lutmm_weights {
  const lutmm_backend_ops *owner; /* whose memory holds planes and scales */
  lutmm_quant_params params;
  lutmm_geometry geom;
  float table[LUTMM_MAX_TABLE_SIZE]; /* host copy, always */
  void *planes;        /* geom.packed_bytes, owner's memory */
  void *scales;        /* geom.scale_bytes: scale_rows × n_pad, padding is 0 */
  void *backend_data;  /* owner's extras (e.g. device-side tables) */
  float max_abs_scale; /* largest |scale|, set after pack/deserialize: range checks */
};

/* One GEMM call, validated. */
typedef struct lutmm_gemm_args {
  int64_t m;
  const void *x;
  lutmm_dtype x_dtype;
  void *y;
  lutmm_dtype y_dtype;
} lutmm_gemm_args;

struct lutmm_backend_ops {
  const char *name;
  lutmm_backend kind;
  lutmm_memory memory;
  const lutmm_backend_ops *parent;

  /* LUTMM_OK when the backend can run on this machine. */
  lutmm_status (*probe)(void);
  lutmm_status (*context_init)(lutmm_context *ctx);
  void (*context_fini)(lutmm_context *ctx);
  /* Whether a (validated) GEMM can run; false gives LUTMM_ERR_UNSUPPORTED. */
  int (*supports_gemm)(const lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args);

  lutmm_status (*table_build)(lutmm_context *ctx, lutmm_table_kind kind, int bits, float *table);
  /* Context memory: allocation and plain copies to and from the host. */
  lutmm_status (*mem_alloc)(lutmm_context *ctx, size_t bytes, void **ptr);
  void (*mem_free)(lutmm_context *ctx, void *ptr);
  lutmm_status (*copy_to_host)(lutmm_context *ctx, void *host_dst, const void *src, size_t bytes);
  lutmm_status (*copy_from_host)(lutmm_context *ctx, void *dst, const void *host_src, size_t bytes);
  lutmm_status (*quantize)(lutmm_context *ctx, const lutmm_quant_params *p, const lutmm_geometry *g,
                           const float *host_table, const float *table, const float *w, uint8_t *codes,
                           void *scales);
  /* Fills w->planes and w->scales (already allocated) from codes and scales. */
  lutmm_status (*pack)(lutmm_context *ctx, const uint8_t *codes, const void *scales, lutmm_weights *w);
  lutmm_status (*unpack)(lutmm_context *ctx, const lutmm_weights *w, uint8_t *codes, void *scales);
  lutmm_status (*dequantize)(lutmm_context *ctx, const lutmm_weights *w, lutmm_dtype dtype, void *w_hat);
  lutmm_status (*gemm)(lutmm_context *ctx, const lutmm_weights *w, const lutmm_gemm_args *args);

  /* Weight storage in the backend's memory. alloc sets planes, scales and
   * backend_data; free releases what alloc set (NULL members are skipped).
   * finish runs after planes and scales hold their final bytes (pack,
   * deserialize) to derive backend_data; NULL when there is nothing to derive.
   * A backend must accept, in gemm, weights made by any backend of its memory
   * space (backend_data may then be absent). */
  lutmm_status (*weights_alloc)(lutmm_context *ctx, lutmm_weights *w);
  void (*weights_free)(lutmm_weights *w);
  lutmm_status (*weights_finish)(lutmm_context *ctx, lutmm_weights *w);
};

/* Backends compiled into this library. */
extern const lutmm_backend_ops lutmm_reference_backend;
extern const lutmm_backend_ops lutmm_cpu_backend;
#ifdef LUTMM_HAVE_CUDA
extern const lutmm_backend_ops lutmm_cuda_backend;
#endif

struct lutmm_context {
  const lutmm_backend_ops *backend; /* the static table (identity, owner of weights) */
  const lutmm_backend_ops *ops;     /* == &resolved */
  int num_threads;      /* 0: OpenMP default */
  void *backend_state;  /* owned by the backend */
  lutmm_backend_ops resolved;
};

/* Picks the backend for a context (AUTO, env override, probe). */
lutmm_status lutmm_backend_select(lutmm_backend requested, const lutmm_backend_ops **out);

/* Allocates a weights object with the context's backend (planes and scales
 * uninitialized). */
lutmm_status lutmm_weights_create(lutmm_context *ctx, const lutmm_quant_params *params, const lutmm_geometry *g,
                                  const float *host_table, lutmm_weights **out);
/* Sets w->max_abs_scale from the scales in the backend's memory. */
lutmm_status lutmm_weights_measure_scales(lutmm_context *ctx, lutmm_weights *w);

/* Finishes weights whose planes and scales were just filled with status
 * `filled`: measures the scales and runs the backend's weights_finish, then
 * sets *out, or releases w and returns the first error. */
lutmm_status lutmm_weights_complete(lutmm_context *ctx, lutmm_weights *w, lutmm_status filled,
                                    lutmm_weights **out);

/* Frees what lutmm_weights_create made. */
void lutmm_weights_release(lutmm_weights *w);

/* The reference GEMM on host weights (src/cpu/ref_gemm.c), with optional
 * per-element error bound. */
lutmm_status lutmm_reference_gemm_run(int num_threads, const lutmm_weights *w, const lutmm_gemm_args *args,
                                      float *bound);

/* Fills `out` with `backend`'s table, each NULL entry taken from the
 * resolved parent: what a context actually calls. */
void lutmm_backend_resolve(const lutmm_backend_ops *backend, lutmm_backend_ops *out);

#endif
