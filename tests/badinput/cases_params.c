/* lutmm_quant_params_check: bits, shape, group size, dtype, overflow. */
#include <stdint.h>

#include "badinput.h"

/* Checks the fixture's params after one edit; num_groups must stay untouched
 * on failure. */
static lutmm_status check(bad_fixture *fx) {
  int64_t groups = -7;
  const lutmm_status st = lutmm_quant_params_check(&fx->params, &groups);
  return st == LUTMM_OK || groups == -7 ? st : BAD_BROKEN_PROMISE;
}

static lutmm_status null_params(bad_fixture *fx) {
  int64_t groups;
  (void)fx;
  return lutmm_quant_params_check(NULL, &groups);
}

static lutmm_status null_groups(bad_fixture *fx) { return lutmm_quant_params_check(&fx->params, NULL); }
static lutmm_status bits_0(bad_fixture *fx) { fx->params.bits = 0; return check(fx); }
static lutmm_status bits_9(bad_fixture *fx) { fx->params.bits = 9; return check(fx); }
static lutmm_status bits_negative(bad_fixture *fx) { fx->params.bits = -3; return check(fx); }
static lutmm_status k_zero(bad_fixture *fx) { fx->params.k = 0; fx->params.group_size = 0; return check(fx); }
static lutmm_status k_negative(bad_fixture *fx) { fx->params.k = -64; return check(fx); }
static lutmm_status n_zero(bad_fixture *fx) { fx->params.n = 0; return check(fx); }
static lutmm_status n_negative(bad_fixture *fx) { fx->params.n = -1; return check(fx); }
static lutmm_status n_int64_min(bad_fixture *fx) { fx->params.n = INT64_MIN; return check(fx); }
static lutmm_status group_8(bad_fixture *fx) { fx->params.group_size = 8; return check(fx); }
static lutmm_status group_24(bad_fixture *fx) { fx->params.group_size = 24; return check(fx); }
static lutmm_status group_not_dividing(bad_fixture *fx) { fx->params.k = 48; return check(fx); }
static lutmm_status group_larger_than_k(bad_fixture *fx) { fx->params.group_size = 128; return check(fx); }
static lutmm_status group_negative(bad_fixture *fx) { fx->params.group_size = -32; return check(fx); }
static lutmm_status dtype_3(bad_fixture *fx) { fx->params.scale_dtype = (lutmm_dtype)3; return check(fx); }
static lutmm_status dtype_negative(bad_fixture *fx) { fx->params.scale_dtype = (lutmm_dtype)-1; return check(fx); }

static lutmm_status k_int64_max(bad_fixture *fx) {
  fx->params.k = INT64_MAX;
  fx->params.group_size = 0;
  return check(fx);
}

static lutmm_status elements_overflow(bad_fixture *fx) {
  fx->params.k = (int64_t)1 << 40;
  fx->params.n = (int64_t)1 << 40;
  return check(fx);
}

static lutmm_status n_past_limit(bad_fixture *fx) {
  fx->params.n = ((int64_t)1 << 40) + 1;
  return check(fx);
}

static const bad_case kCases[] = {
    {"null_params", null_params, LUTMM_ERR_NULL_POINTER},
    {"null_num_groups", null_groups, LUTMM_ERR_NULL_POINTER},
    {"bits_0", bits_0, LUTMM_ERR_INVALID_BITS},
    {"bits_9", bits_9, LUTMM_ERR_INVALID_BITS},
    {"bits_negative", bits_negative, LUTMM_ERR_INVALID_BITS},
    {"k_zero", k_zero, LUTMM_ERR_INVALID_SHAPE},
    {"k_negative", k_negative, LUTMM_ERR_INVALID_SHAPE},
    {"n_zero", n_zero, LUTMM_ERR_INVALID_SHAPE},
    {"n_negative", n_negative, LUTMM_ERR_INVALID_SHAPE},
    {"n_int64_min", n_int64_min, LUTMM_ERR_INVALID_SHAPE},
    {"group_8", group_8, LUTMM_ERR_INVALID_GROUP_SIZE},
    {"group_24", group_24, LUTMM_ERR_INVALID_GROUP_SIZE},
    {"group_not_dividing_k", group_not_dividing, LUTMM_ERR_INVALID_GROUP_SIZE},
    {"group_larger_than_k", group_larger_than_k, LUTMM_ERR_INVALID_GROUP_SIZE},
    {"group_negative", group_negative, LUTMM_ERR_INVALID_GROUP_SIZE},
    {"scale_dtype_3", dtype_3, LUTMM_ERR_INVALID_ARGUMENT},
    {"scale_dtype_negative", dtype_negative, LUTMM_ERR_INVALID_ARGUMENT},
    {"k_int64_max", k_int64_max, LUTMM_ERR_OVERFLOW},
    {"k_times_n_overflow", elements_overflow, LUTMM_ERR_OVERFLOW},
    {"n_past_dimension_limit", n_past_limit, LUTMM_ERR_OVERFLOW},
};

const bad_area bad_params_area = {"params", kCases, sizeof kCases / sizeof kCases[0]};
