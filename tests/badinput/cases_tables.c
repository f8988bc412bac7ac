/* Table builders and lutmm_table_validate. */
#include <limits.h>
#include <math.h>

#include "badinput.h"

typedef lutmm_status (*builder)(lutmm_context *, int, float *);

/* Calls a builder with bad `bits`; the table must be left untouched. */
static lutmm_status build_bad_bits(builder build, lutmm_context *ctx, int bits) {
  float table[LUTMM_MAX_TABLE_SIZE];
  for (int i = 0; i < LUTMM_MAX_TABLE_SIZE; i++) table[i] = 7.0f;
  const lutmm_status st = build(ctx, bits, table);
  for (int i = 0; i < LUTMM_MAX_TABLE_SIZE; i++)
    if (table[i] != 7.0f) return BAD_BROKEN_PROMISE;
  return st;
}

static lutmm_status nf_null_ctx(bad_fixture *fx) { return lutmm_table_nf(NULL, 4, fx->table); }
static lutmm_status nf_null_table(bad_fixture *fx) { return lutmm_table_nf(fx->ctx, 4, NULL); }
static lutmm_status nf_bits_0(bad_fixture *fx) { return build_bad_bits(lutmm_table_nf, fx->ctx, 0); }
static lutmm_status nf_bits_9(bad_fixture *fx) { return build_bad_bits(lutmm_table_nf, fx->ctx, 9); }
static lutmm_status nf_bits_min(bad_fixture *fx) { return build_bad_bits(lutmm_table_nf, fx->ctx, INT_MIN); }
static lutmm_status int_null_ctx(bad_fixture *fx) { return lutmm_table_int(NULL, 4, fx->table); }
static lutmm_status int_null_table(bad_fixture *fx) { return lutmm_table_int(fx->ctx, 4, NULL); }
static lutmm_status int_bits_0(bad_fixture *fx) { return build_bad_bits(lutmm_table_int, fx->ctx, 0); }
static lutmm_status int_bits_9(bad_fixture *fx) { return build_bad_bits(lutmm_table_int, fx->ctx, 9); }
static lutmm_status int_bits_max(bad_fixture *fx) { return build_bad_bits(lutmm_table_int, fx->ctx, INT_MAX); }
static lutmm_status fp_null_ctx(bad_fixture *fx) { return lutmm_table_fp(NULL, 4, fx->table); }
static lutmm_status fp_null_table(bad_fixture *fx) { return lutmm_table_fp(fx->ctx, 4, NULL); }
static lutmm_status fp_bits_0(bad_fixture *fx) { return build_bad_bits(lutmm_table_fp, fx->ctx, 0); }
static lutmm_status fp_bits_9(bad_fixture *fx) { return build_bad_bits(lutmm_table_fp, fx->ctx, 9); }
static lutmm_status fp_bits_negative(bad_fixture *fx) { return build_bad_bits(lutmm_table_fp, fx->ctx, -4); }

static lutmm_status validate_null_ctx(bad_fixture *fx) { return lutmm_table_validate(NULL, 4, fx->table); }
static lutmm_status validate_null_table(bad_fixture *fx) { return lutmm_table_validate(fx->ctx, 4, NULL); }
static lutmm_status validate_bits_0(bad_fixture *fx) { return lutmm_table_validate(fx->ctx, 0, fx->table); }
static lutmm_status validate_bits_9(bad_fixture *fx) { return lutmm_table_validate(fx->ctx, 9, fx->table); }

/* The fixture's NF4 table with entry i replaced by v. */
static lutmm_status validate_with(bad_fixture *fx, int i, float v) {
  fx->table[i] = v;
  return lutmm_table_validate(fx->ctx, 4, fx->table);
}

static lutmm_status validate_nan(bad_fixture *fx) { return validate_with(fx, 5, NAN); }
static lutmm_status validate_inf(bad_fixture *fx) { return validate_with(fx, 15, INFINITY); }
static lutmm_status validate_minus_inf(bad_fixture *fx) { return validate_with(fx, 0, -INFINITY); }
static lutmm_status validate_descending(bad_fixture *fx) { return validate_with(fx, 9, -0.5f); }
static lutmm_status validate_equal_neighbours(bad_fixture *fx) { return validate_with(fx, 9, fx->table[8]); }

static lutmm_status validate_all_zero(bad_fixture *fx) {
  for (int i = 0; i < 16; i++) fx->table[i] = i < 8 ? -0.0f : 0.0f;
  return lutmm_table_validate(fx->ctx, 4, fx->table);
}

static const bad_case kCases[] = {
    {"nf_null_context", nf_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"nf_null_table", nf_null_table, LUTMM_ERR_NULL_POINTER},
    {"nf_bits_0", nf_bits_0, LUTMM_ERR_INVALID_BITS},
    {"nf_bits_9", nf_bits_9, LUTMM_ERR_INVALID_BITS},
    {"nf_bits_int_min", nf_bits_min, LUTMM_ERR_INVALID_BITS},
    {"int_null_context", int_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"int_null_table", int_null_table, LUTMM_ERR_NULL_POINTER},
    {"int_bits_0", int_bits_0, LUTMM_ERR_INVALID_BITS},
    {"int_bits_9", int_bits_9, LUTMM_ERR_INVALID_BITS},
    {"int_bits_int_max", int_bits_max, LUTMM_ERR_INVALID_BITS},
    {"fp_null_context", fp_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"fp_null_table", fp_null_table, LUTMM_ERR_NULL_POINTER},
    {"fp_bits_0", fp_bits_0, LUTMM_ERR_INVALID_BITS},
    {"fp_bits_9", fp_bits_9, LUTMM_ERR_INVALID_BITS},
    {"fp_bits_negative", fp_bits_negative, LUTMM_ERR_INVALID_BITS},
    {"validate_null_context", validate_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"validate_null_table", validate_null_table, LUTMM_ERR_NULL_POINTER},
    {"validate_bits_0", validate_bits_0, LUTMM_ERR_INVALID_BITS},
    {"validate_bits_9", validate_bits_9, LUTMM_ERR_INVALID_BITS},
    {"validate_nan_entry", validate_nan, LUTMM_ERR_NON_FINITE},
    {"validate_inf_entry", validate_inf, LUTMM_ERR_NON_FINITE},
    {"validate_minus_inf_entry", validate_minus_inf, LUTMM_ERR_NON_FINITE},
    {"validate_descending", validate_descending, LUTMM_ERR_TABLE_NOT_ASCENDING},
    {"validate_equal_neighbours_allowed", validate_equal_neighbours, LUTMM_OK},
    {"validate_all_zero_signed", validate_all_zero, LUTMM_ERR_TABLE_ALL_ZERO},
};

const bad_area bad_tables_area = {"tables", kCases, sizeof kCases / sizeof kCases[0]};
