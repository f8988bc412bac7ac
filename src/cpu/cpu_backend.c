/* The optimized CPU backend. Until its kernels land it reports itself
 * unavailable, so AUTO never picks a backend that is not faster than the
 * reference. */
#include "reference.h"

static lutmm_status cpu_probe(void) { return LUTMM_ERR_BACKEND_UNAVAILABLE; }

const lutmm_backend_ops lutmm_cpu_backend = {
    .name = "cpu",
    .kind = LUTMM_BACKEND_CPU,
    .memory = LUTMM_MEMORY_HOST,
    .parent = &lutmm_reference_backend,
    .probe = cpu_probe,
};
