/* Objects crossing backends. Host weights are shared by the REFERENCE and
 * CPU backends in either direction; device weights with a host context (or
 * host weights with a CUDA context) are LUTMM_ERR_BACKEND_MISMATCH. Cases
 * that need a backend this machine lacks are skipped. */
#include <math.h>
#include <string.h>

#include "badinput.h"

/* Y from weights made on the reference, run on a CPU context, must lie
 * inside the reference's bound. */
static lutmm_status ref_weights_cpu_gemm(bad_fixture *fx) {
  lutmm_context *cpu = bad_try_context(LUTMM_BACKEND_CPU);
  if (cpu == NULL) return BAD_SKIP;
  float y_ref[BAD_M * BAD_N], bound[BAD_M * BAD_N];
  lutmm_status st = lutmm_gemm(cpu, fx->weights, BAD_M, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32);
  if (st == LUTMM_OK)
    st = lutmm_reference_gemm(fx->ctx, fx->weights, BAD_M, fx->x, LUTMM_DTYPE_F32, y_ref, LUTMM_DTYPE_F32, bound);
  for (int i = 0; st == LUTMM_OK && i < BAD_M * BAD_N; i++)
    if (!(fabsf(fx->y[i] - y_ref[i]) <= bound[i])) st = BAD_BROKEN_PROMISE;
  lutmm_context_destroy(cpu);
  return st;
}

static lutmm_status ref_weights_cpu_unpack(bad_fixture *fx) {
  lutmm_context *cpu = bad_try_context(LUTMM_BACKEND_CPU);
  if (cpu == NULL) return BAD_SKIP;
  uint8_t codes[BAD_K * BAD_N];
  lutmm_status st = lutmm_unpack(cpu, fx->weights, codes, NULL, NULL);
  if (st == LUTMM_OK && memcmp(codes, fx->codes, sizeof codes) != 0) st = BAD_BROKEN_PROMISE;
  lutmm_context_destroy(cpu);
  return st;
}

/* Weights packed on the CPU backend serialize to the reference's bytes and
 * multiply on a reference context. */
static lutmm_status cpu_weights_on_reference(bad_fixture *fx) {
  lutmm_context *cpu = bad_try_context(LUTMM_BACKEND_CPU);
  if (cpu == NULL) return BAD_SKIP;
  lutmm_weights *w = NULL;
  uint8_t record[1 << 14];
  size_t size = 0;
  lutmm_status st = lutmm_pack(cpu, &fx->params, fx->table, fx->codes, fx->scales, &w);
  if (st == LUTMM_OK) st = lutmm_weights_serialize(fx->ctx, w, record, sizeof record, &size);
  if (st == LUTMM_OK && (size != fx->record_size || memcmp(record, fx->record, size) != 0)) st = BAD_BROKEN_PROMISE;
  if (st == LUTMM_OK) st = lutmm_gemm(fx->ctx, w, BAD_M, fx->x, LUTMM_DTYPE_F16, fx->y, LUTMM_DTYPE_BF16);
  lutmm_weights_destroy(w);
  lutmm_context_destroy(cpu);
  return st;
}

static lutmm_status reference_record_on_cpu(bad_fixture *fx) {
  lutmm_context *cpu = bad_try_context(LUTMM_BACKEND_CPU);
  if (cpu == NULL) return BAD_SKIP;
  lutmm_weights *w = NULL;
  lutmm_status st = lutmm_weights_deserialize(cpu, fx->record, fx->record_size, &w);
  if (st == LUTMM_OK) st = lutmm_gemm(cpu, w, BAD_M, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32);
  lutmm_weights_destroy(w);
  lutmm_context_destroy(cpu);
  return st;
}

/* Weights in device memory, packed on a CUDA context, or NULL. */
static lutmm_weights *device_weights(bad_fixture *fx, lutmm_context **cuda) {
  *cuda = bad_try_context(LUTMM_BACKEND_CUDA);
  if (*cuda == NULL) return NULL;
  lutmm_weights *w = NULL;
  if (lutmm_weights_deserialize(*cuda, fx->record, fx->record_size, &w) != LUTMM_OK) w = NULL;
  return w;
}

typedef enum device_call { UNPACK, DEQUANTIZE, GEMM, REFERENCE_GEMM, SERIALIZE } device_call;

/* One host-context call on device weights. */
static lutmm_status device_weights_on_host(bad_fixture *fx, device_call call) {
  lutmm_context *cuda;
  lutmm_weights *w = device_weights(fx, &cuda);
  if (w == NULL) {
    lutmm_context_destroy(cuda);
    return BAD_SKIP;
  }
  size_t size;
  lutmm_status st = LUTMM_OK;
  switch (call) {
    case UNPACK: st = lutmm_unpack(fx->ctx, w, fx->codes, NULL, NULL); break;
    case DEQUANTIZE: st = lutmm_dequantize(fx->ctx, w, LUTMM_DTYPE_F32, fx->w); break;
    case GEMM: st = lutmm_gemm(fx->ctx, w, 1, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32); break;
    case REFERENCE_GEMM:
      st = lutmm_reference_gemm(fx->ctx, w, 1, fx->x, LUTMM_DTYPE_F32, fx->y, LUTMM_DTYPE_F32, NULL);
      break;
    case SERIALIZE: st = lutmm_weights_serialize(fx->ctx, w, NULL, 0, &size); break;
  }
  lutmm_weights_destroy(w);
  lutmm_context_destroy(cuda);
  return st;
}

static lutmm_status device_unpack(bad_fixture *fx) { return device_weights_on_host(fx, UNPACK); }
static lutmm_status device_dequantize(bad_fixture *fx) { return device_weights_on_host(fx, DEQUANTIZE); }
static lutmm_status device_gemm(bad_fixture *fx) { return device_weights_on_host(fx, GEMM); }
static lutmm_status device_reference_gemm(bad_fixture *fx) { return device_weights_on_host(fx, REFERENCE_GEMM); }
static lutmm_status device_serialize(bad_fixture *fx) { return device_weights_on_host(fx, SERIALIZE); }

/* Host weights on a CUDA context: the pointers are not device memory. */
static lutmm_status host_weights_cuda_gemm(bad_fixture *fx) {
  lutmm_context *cuda = bad_try_context(LUTMM_BACKEND_CUDA);
  if (cuda == NULL) return BAD_SKIP;
  const lutmm_status st = lutmm_gemm(cuda, fx->weights, 1, fx->x, LUTMM_DTYPE_F16, fx->y, LUTMM_DTYPE_F32);
  lutmm_context_destroy(cuda);
  return st;
}

static const bad_case kCases[] = {
    {"reference_weights_cpu_gemm", ref_weights_cpu_gemm, LUTMM_OK},
    {"reference_weights_cpu_unpack", ref_weights_cpu_unpack, LUTMM_OK},
    {"cpu_weights_on_reference", cpu_weights_on_reference, LUTMM_OK},
    {"reference_record_on_cpu", reference_record_on_cpu, LUTMM_OK},
    {"device_weights_host_unpack", device_unpack, LUTMM_ERR_BACKEND_MISMATCH},
    {"device_weights_host_dequantize", device_dequantize, LUTMM_ERR_BACKEND_MISMATCH},
    {"device_weights_host_gemm", device_gemm, LUTMM_ERR_BACKEND_MISMATCH},
    {"device_weights_host_reference_gemm", device_reference_gemm, LUTMM_ERR_BACKEND_MISMATCH},
    {"device_weights_host_serialize", device_serialize, LUTMM_ERR_BACKEND_MISMATCH},
    {"host_weights_cuda_gemm", host_weights_cuda_gemm, LUTMM_ERR_BACKEND_MISMATCH},
};

const bad_area bad_backends_area = {"backends", kCases, sizeof kCases / sizeof kCases[0]};
