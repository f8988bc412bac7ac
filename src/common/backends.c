/* The static list of backends, the LUTMM_BACKEND override, and the
 * inheritance that turns a backend's partial table into a full one. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "lutmm_config.h"

/* Fastest first: AUTO takes the first one whose probe succeeds. */
static const lutmm_backend_ops *const kBackends[] = {
#ifdef LUTMM_HAVE_CUDA
    &lutmm_cuda_backend,
#endif
    &lutmm_cpu_backend,
    &lutmm_reference_backend,
};

static const lutmm_backend_ops *find_backend(lutmm_backend kind) {
  for (size_t i = 0; i < sizeof kBackends / sizeof kBackends[0]; i++)
    if (kBackends[i]->kind == kind) return kBackends[i];
  return NULL;
}

/* LUTMM_BACKEND=ref|cpu|cuda; unset or empty means no override. */
static lutmm_status backend_from_environment(lutmm_backend *kind) {
  const char *name = getenv("LUTMM_BACKEND");
  if (name == NULL || name[0] == '\0') {
    *kind = LUTMM_BACKEND_AUTO;
    return LUTMM_OK;
  }
  if (strcmp(name, "ref") == 0 || strcmp(name, "reference") == 0) *kind = LUTMM_BACKEND_REFERENCE;
  else if (strcmp(name, "cpu") == 0) *kind = LUTMM_BACKEND_CPU;
  else if (strcmp(name, "cuda") == 0) *kind = LUTMM_BACKEND_CUDA;
  else return LUTMM_ERR_INVALID_ARGUMENT;
  return LUTMM_OK;
}

lutmm_status lutmm_backend_select(lutmm_backend requested, const lutmm_backend_ops **out) {
  if (requested < LUTMM_BACKEND_AUTO || requested > LUTMM_BACKEND_CUDA) return LUTMM_ERR_INVALID_ARGUMENT;
  if (requested == LUTMM_BACKEND_AUTO) {
    lutmm_status st = backend_from_environment(&requested);
    if (st != LUTMM_OK) return st;
  }
  if (requested == LUTMM_BACKEND_AUTO) {
    for (size_t i = 0; i < sizeof kBackends / sizeof kBackends[0]; i++) {
      if (kBackends[i]->probe() == LUTMM_OK) {
        *out = kBackends[i];
        return LUTMM_OK;
      }
    }
    return LUTMM_ERR_BACKEND_UNAVAILABLE;
  }
  const lutmm_backend_ops *backend = find_backend(requested);
  if (backend == NULL) return LUTMM_ERR_BACKEND_UNAVAILABLE;
  lutmm_status st = backend->probe();
  if (st != LUTMM_OK) return st;
  *out = backend;
  return LUTMM_OK;
}

#define INHERIT(member) \
  if (backend->member != NULL) out->member = backend->member

void lutmm_backend_resolve(const lutmm_backend_ops *backend, lutmm_backend_ops *out) {
  if (backend->parent != NULL) lutmm_backend_resolve(backend->parent, out);
  else memset(out, 0, sizeof *out);
  out->name = backend->name;
  out->kind = backend->kind;
  out->memory = backend->memory;
  out->parent = backend->parent;
  INHERIT(probe);
  INHERIT(context_init);
  INHERIT(context_fini);
  INHERIT(supports_gemm);
  INHERIT(table_build);
  INHERIT(mem_alloc);
  INHERIT(mem_free);
  INHERIT(copy_to_host);
  INHERIT(copy_from_host);
  INHERIT(quantize);
  INHERIT(pack);
  INHERIT(unpack);
  INHERIT(dequantize);
  INHERIT(gemm);
  INHERIT(weights_alloc);
  INHERIT(weights_free);
  INHERIT(weights_finish);
}
