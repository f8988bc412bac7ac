/*
 * lutmm — lookup-table-quantized matrix multiplication.
 *
 *   Y[M×N] = X[M×K] · Ŵ[K×N],   Ŵ[k][n] = round_c(T[code[k][n]] × scale[k / g][n])
 *
 * T is a table of 2^bits ascending float32 values (bits = 1..8), code[k][n] a
 * b-bit index into it and scale a per-group factor for g consecutive rows of
 * one column. Weights are quantized and packed once, then multiplied many
 * times. The same calls run on every backend; the backend is chosen when the
 * context is created.
 *
 * Conventions for every function below:
 *  - Every function returns a lutmm_status; LUTMM_OK is 0. Results go through
 *    pointer arguments. On failure, outputs are left untouched unless the
 *    function says otherwise.
 *  - Matrices are dense and row-major: X is M×K (X[m*K + k]), W and codes are
 *    K×N (W[k*N + n]: column n holds the weights of output feature n), scales
 *    are G×N with G = K / group_size, Y is M×N.
 *  - "Context memory" is host memory for the REFERENCE and CPU backends and
 *    device memory (cudaMalloc'd) for the CUDA backend. Arguments documented
 *    as living in context memory must be in that space. Work on a CUDA
 *    context is queued on the context's stream (see lutmm_cuda.h) and is
 *    finished only once that stream is synchronized, unless stated otherwise.
 *  - No function aborts, prints, or keeps global state; a context may be used
 *    by one thread at a time, different contexts concurrently.
 *  - Every status a function can return is listed with it; LUTMM_ERR_NULL_POINTER,
 *    LUTMM_ERR_OUT_OF_MEMORY and, on CUDA contexts, LUTMM_ERR_DEVICE can come
 *    from any function that takes pointers, allocates, or touches the device.
 */
#ifndef LUTMM_H
#define LUTMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LUTMM_VERSION_MAJOR 0
#define LUTMM_VERSION_MINOR 1
#define LUTMM_VERSION_PATCH 0
/* Single number for compile-time comparisons: major*10000 + minor*100 + patch. */
#define LUTMM_VERSION \
  (LUTMM_VERSION_MAJOR * 10000 + LUTMM_VERSION_MINOR * 100 + LUTMM_VERSION_PATCH)

/* Smallest and largest code width, and the largest table length. */
#define LUTMM_MIN_BITS 1
#define LUTMM_MAX_BITS 8
#define LUTMM_MAX_TABLE_SIZE 256

typedef enum lutmm_status {
  LUTMM_OK = 0,
  LUTMM_ERR_NULL_POINTER = 1,        /* a required pointer argument is NULL */
  LUTMM_ERR_INVALID_ARGUMENT = 2,    /* an enum or flag outside its range */
  LUTMM_ERR_INVALID_BITS = 3,        /* bits outside 1..8 */
  LUTMM_ERR_INVALID_GROUP_SIZE = 4,  /* group size not a multiple of 16 dividing K */
  LUTMM_ERR_INVALID_SHAPE = 5,       /* M, N or K < 1 */
  LUTMM_ERR_OVERFLOW = 6,            /* a byte count does not fit in size_t */
  LUTMM_ERR_NON_FINITE = 7,          /* NaN or Inf where finite data is required */
  LUTMM_ERR_TABLE_NOT_ASCENDING = 8, /* table entry smaller than the one before it */
  LUTMM_ERR_TABLE_ALL_ZERO = 9,      /* table has no non-zero entry: no scale exists */
  LUTMM_ERR_SCALE_OVERFLOW = 10,     /* a group scale exceeds the scale dtype's range */
  LUTMM_ERR_OUT_OF_MEMORY = 11,      /* host or device allocation failed */
  LUTMM_ERR_UNSUPPORTED = 12,        /* valid request the chosen backend cannot run */
  LUTMM_ERR_BACKEND_UNAVAILABLE = 13,/* backend not compiled in or no device present */
  LUTMM_ERR_BACKEND_MISMATCH = 14,   /* weights live in another memory space */
  LUTMM_ERR_CORRUPT_DATA = 15,       /* serialized bytes are truncated or inconsistent */
  LUTMM_ERR_BUFFER_TOO_SMALL = 16,   /* caller's buffer is smaller than required */
  LUTMM_ERR_DEVICE = 17              /* the CUDA runtime reported an error */
} lutmm_status;

/* Name of a status ("LUTMM_OK", ...); "LUTMM_ERR_UNKNOWN" for values outside
 * the enum. Never NULL; the string is static. */
const char *lutmm_status_string(lutmm_status status);

/* Version of the linked library, LUTMM_VERSION's encoding. Compare with the
 * macro to detect a header/library mismatch. */
int lutmm_version(void);

typedef enum lutmm_dtype {
  LUTMM_DTYPE_F32 = 0,
  LUTMM_DTYPE_F16 = 1, /* IEEE binary16 stored as uint16_t */
  LUTMM_DTYPE_BF16 = 2 /* bfloat16 stored as uint16_t */
} lutmm_dtype;

typedef enum lutmm_backend {
  LUTMM_BACKEND_AUTO = 0,      /* LUTMM_BACKEND env var, else the fastest available */
  LUTMM_BACKEND_REFERENCE = 1, /* portable bit-exact oracle (OpenMP) */
  LUTMM_BACKEND_CPU = 2,       /* optimized CPU backend */
  LUTMM_BACKEND_CUDA = 3       /* NVIDIA GPU, sm_80 and newer */
} lutmm_backend;

typedef struct lutmm_context lutmm_context;
typedef struct lutmm_weights lutmm_weights;

/* ---------------------------------------------------------------- context */

/* Creates a context on `backend`. AUTO reads the environment variable
 * LUTMM_BACKEND (ref|cpu|cuda) and otherwise picks CUDA when a device is
 * visible, then CPU, then REFERENCE. An explicit backend ignores the variable.
 * Returns LUTMM_ERR_BACKEND_UNAVAILABLE when the backend is not compiled in
 * or has no device, LUTMM_ERR_INVALID_ARGUMENT for an unknown enum value or
 * an unknown LUTMM_BACKEND value. *ctx is set only on success. */
lutmm_status lutmm_context_create(lutmm_backend backend, lutmm_context **ctx);

/* Releases a context. NULL is accepted and ignored. Weights made with the
 * context must be destroyed first. */
void lutmm_context_destroy(lutmm_context *ctx);

/* The backend actually running a context (never AUTO). */
lutmm_status lutmm_context_backend(const lutmm_context *ctx, lutmm_backend *backend);

/* Host threads used by the context's OpenMP loops; 0 (the default) means
 * OpenMP's own default. Results do not depend on it.
 * LUTMM_ERR_INVALID_ARGUMENT for a negative count. */
lutmm_status lutmm_context_set_num_threads(lutmm_context *ctx, int num_threads);

/* Context memory, for code that runs the same on every backend (tools,
 * tests, fuzzers). On CUDA contexts these are cudaMalloc / cudaFree /
 * cudaMemcpy on the context's stream; the copy to host returns only once the
 * data has arrived. lutmm_free ignores NULL. Copies of 0 bytes do nothing. */
lutmm_status lutmm_malloc(lutmm_context *ctx, size_t bytes, void **ptr);
void lutmm_free(lutmm_context *ctx, void *ptr);
lutmm_status lutmm_copy_to_context(lutmm_context *ctx, void *dst, const void *host_src, size_t bytes);
lutmm_status lutmm_copy_to_host(lutmm_context *ctx, void *host_dst, const void *src, size_t bytes);

/* ----------------------------------------------------------------- tables */

/* Each builder writes 2^bits ascending float32 values to `table`, which lives
 * in context memory and holds at least 2^bits floats. Every backend writes the
 * same bits. LUTMM_ERR_INVALID_BITS for bits outside 1..8.
 *
 * NF: NormalFloat. NF4 is bitsandbytes' 16 published constants; other widths
 *     take 2^(b-1) standard-normal quantiles at probabilities evenly spaced
 *     on [δ, ½] and 2^(b-1) on (½, 1−δ], δ = ½(1/32 + 1/30), divided by the
 *     largest magnitude (computed in double, rounded once). NF1 is {−1, 1}.
 * INT: the two's-complement integers −2^(b−1) .. 2^(b−1)−1.
 * FP: every value of a sign-magnitude minifloat with e = ceil((b−1)/2)
 *     exponent bits, m = b−1−e mantissa bits, bias 2^(e−1)−1, subnormals and
 *     no Inf/NaN codes, sorted ascending (−0 before +0). b = 4 is fp4 e2m1,
 *     b = 8 is e4m3; b = 1 is {−1, 1}. See docs/TABLES.md. */
lutmm_status lutmm_table_nf(lutmm_context *ctx, int bits, float *table);
lutmm_status lutmm_table_int(lutmm_context *ctx, int bits, float *table);
lutmm_status lutmm_table_fp(lutmm_context *ctx, int bits, float *table);

/* Checks that a user table (2^bits floats, context memory) can be used:
 * LUTMM_ERR_NON_FINITE for NaN/Inf, LUTMM_ERR_TABLE_NOT_ASCENDING when an
 * entry is smaller than its predecessor (equal neighbours are allowed),
 * LUTMM_ERR_TABLE_ALL_ZERO when every entry is zero. Quantize and pack run
 * the same check. */
lutmm_status lutmm_table_validate(lutmm_context *ctx, int bits, const float *table);

/* ----------------------------------------------------------- quantization */

/* Shape and format of one quantized weight matrix. */
typedef struct lutmm_quant_params {
  int bits;                 /* 1..8 */
  int64_t k;                /* rows of W (reduction dimension), >= 1 */
  int64_t n;                /* columns of W (output features), >= 1 */
  int64_t group_size;       /* multiple of 16 dividing k; 0 or k: one group per column */
  lutmm_dtype scale_dtype;  /* F16, BF16 or F32 */
} lutmm_quant_params;

/* Number of scale rows G (k / group_size, or 1 for whole-column groups) after
 * validating the parameters. Returns, checked in this order,
 * LUTMM_ERR_INVALID_BITS, LUTMM_ERR_INVALID_SHAPE (k or n < 1),
 * LUTMM_ERR_INVALID_ARGUMENT (scale dtype), LUTMM_ERR_INVALID_GROUP_SIZE,
 * LUTMM_ERR_OVERFLOW (k or n above 2^40, or a byte count beyond size_t);
 * lutmm_quantize and lutmm_pack return the same for the same params. */
lutmm_status lutmm_quant_params_check(const lutmm_quant_params *params, int64_t *num_groups);

/* Quantizes W (k×n float32, context memory) with `table` (2^bits floats,
 * context memory):
 *   scale[G][n] = round_sdtype(absmax(group) / max|T|)   (float32 division)
 *   code[k][n]  = nearest entry to W / scale (float32 division), decided
 *                 against float32 midpoints (T[i] + T[i+1]) / 2, ties to the
 *                 lower index; a zero scale gives the code nearest 0.
 * codes: k×n uint8_t, scales: G×n of scale_dtype, both context memory.
 * LUTMM_ERR_NON_FINITE for a NaN/Inf weight, LUTMM_ERR_SCALE_OVERFLOW when a
 * scale rounds to Inf in the scale dtype, table errors as in
 * lutmm_table_validate; outputs are unspecified after an error. */
lutmm_status lutmm_quantize(lutmm_context *ctx, const lutmm_quant_params *params,
                            const float *table, const float *w, uint8_t *codes,
                            void *scales);

/* ---------------------------------------------------------------- weights */

/* Packs codes (k×n, values < 2^bits) and scales (G×n, finite) into the
 * bit-sliced layout of docs/FORMAT.md and returns a new weights object that
 * owns a copy of everything it needs (table, packed planes, padded scales).
 * Inputs are in context memory; the result lives in context memory.
 * LUTMM_ERR_INVALID_ARGUMENT for a code >= 2^bits, LUTMM_ERR_NON_FINITE for
 * a non-finite scale, table errors as in lutmm_table_validate.
 * *weights is set only on success. */
lutmm_status lutmm_pack(lutmm_context *ctx, const lutmm_quant_params *params,
                        const float *table, const uint8_t *codes, const void *scales,
                        lutmm_weights **weights);

/* Frees a weights object; NULL is ignored. Call it before destroying the
 * context that made it. */
void lutmm_weights_destroy(lutmm_weights *weights);

/* What a weights object holds. */
typedef struct lutmm_weights_info {
  lutmm_quant_params params; /* as given to lutmm_pack (group_size 0 kept) */
  int64_t num_groups;        /* G */
  size_t packed_bytes;       /* bit-slice planes, padding included */
  size_t scale_bytes;        /* padded scale array */
  lutmm_backend backend;     /* backend whose memory holds the data */
} lutmm_weights_info;

lutmm_status lutmm_weights_query(const lutmm_weights *weights, lutmm_weights_info *info);

/* Recovers codes (k×n uint8_t), scales (G×n, scale dtype) and the table
 * (2^bits floats) exactly as they were packed. Any of the three outputs may
 * be NULL to skip it. Outputs in context memory.
 * LUTMM_ERR_BACKEND_MISMATCH when the weights live in another memory space. */
lutmm_status lutmm_unpack(lutmm_context *ctx, const lutmm_weights *weights,
                          uint8_t *codes, void *scales, float *table);

/* Writes Ŵ (k×n) in `dtype`: Ŵ = round_dtype(T_c × s_c), where T_c and s_c
 * are the table value and scale rounded to `dtype` (exact product, one
 * rounding). This is the value every GEMM multiplies by when its activations
 * have that dtype. Output in context memory.
 * LUTMM_ERR_BACKEND_MISMATCH as for lutmm_unpack, LUTMM_ERR_INVALID_ARGUMENT
 * for a dtype outside the enum, LUTMM_ERR_SCALE_OVERFLOW when the largest
 * table magnitude times the largest scale overflows `dtype` (e.g. fp32 scales
 * above 65504 with fp16) — refused rather than producing Inf/NaN. */
lutmm_status lutmm_dequantize(lutmm_context *ctx, const lutmm_weights *weights,
                              lutmm_dtype dtype, void *w_hat);

/* Serialized form: a versioned, checksummed host byte string holding the
 * parameters, table, packed planes and scales. Deserializing it on any
 * backend gives weights that multiply to the same bits.
 * lutmm_weights_serialize: with buffer == NULL only *size is set; otherwise
 * LUTMM_ERR_BUFFER_TOO_SMALL when capacity < the size (and *size is set).
 * lutmm_weights_deserialize: LUTMM_ERR_CORRUPT_DATA for bytes that are not a
 * whole, consistent lutmm weights record. Both buffers are host memory. */
lutmm_status lutmm_weights_serialize(lutmm_context *ctx, const lutmm_weights *weights,
                                     void *buffer, size_t capacity, size_t *size);
lutmm_status lutmm_weights_deserialize(lutmm_context *ctx, const void *buffer,
                                       size_t size, lutmm_weights **weights);

/* ------------------------------------------------------------------- GEMM */

/* Y (m×n, y_dtype) = X (m×k, x_dtype) · Ŵ, with Ŵ dequantized in x_dtype.
 * X and Y live in context memory, must not overlap, and are read/written as
 * dense row-major matrices (no alignment requirement beyond the dtype's).
 * The reference accumulates in double in ascending k and rounds once; fast
 * backends accumulate in float32 and stay within the bound of
 * lutmm_reference_gemm. Supported dtypes: REFERENCE and CPU take F32, F16
 * and BF16 for both; CUDA takes F16/BF16 activations with any output dtype.
 * LUTMM_ERR_INVALID_SHAPE for m < 1, LUTMM_ERR_OVERFLOW when the byte count
 * of X or Y does not fit in size_t, LUTMM_ERR_INVALID_ARGUMENT for a dtype
 * outside the enum or for X and Y that overlap, LUTMM_ERR_SCALE_OVERFLOW as
 * for lutmm_dequantize with dtype = x_dtype, LUTMM_ERR_UNSUPPORTED for a
 * dtype the backend cannot run, LUTMM_ERR_BACKEND_MISMATCH as for
 * lutmm_unpack. On LUTMM_ERR_OUT_OF_MEMORY from a host backend Y is
 * unspecified.
 * Does not allocate on CUDA contexts and does not synchronize. */
lutmm_status lutmm_gemm(lutmm_context *ctx, const lutmm_weights *weights, int64_t m,
                        const void *x, lutmm_dtype x_dtype, void *y, lutmm_dtype y_dtype);

/* The reference GEMM on host weights and host buffers, whatever backend
 * `ctx` runs, plus an optional per-element error bound (bound: m×n floats or
 * NULL) that every fast backend must meet:
 *   |y − y_ref| <= eps_out·|y_ref| + 2·K·2^−24·Σ_k |x_k·ŵ_k| + K·2^−149 + tiny_out
 * where eps_out is the output dtype's machine epsilon (2^−23, 2^−10, 2^−7),
 * K·2^−149 allows for float32 roundings below the normal range, and
 * tiny_out is the output dtype's smallest subnormal (subnormal factors
 * count as the compute dtype's smallest normal in Σ); +Inf where the Σ exceeds the
 * float32 range (a float32 sum may overflow there). See docs/NUMERICS.md.
 * LUTMM_ERR_BACKEND_MISMATCH for device-resident weights,
 * LUTMM_ERR_INVALID_ARGUMENT when `bound` overlaps Y; other statuses as for
 * lutmm_gemm. */
lutmm_status lutmm_reference_gemm(lutmm_context *ctx, const lutmm_weights *weights,
                                  int64_t m, const void *x, lutmm_dtype x_dtype, void *y,
                                  lutmm_dtype y_dtype, float *bound);

#ifdef __cplusplus
}
#endif

#endif /* LUTMM_H */
