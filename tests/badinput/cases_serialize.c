/* Weight serialization: NULLs, short buffers, and a deserializer fed
 * truncated, padded, corrupted and inconsistent records (offsets as in
 * docs/FORMAT.md; edits re-seal the checksum so the field check itself is
 * what must reject them). */
#include <stdlib.h>
#include <string.h>

#include "badinput.h"

static lutmm_status serialize_null_ctx(bad_fixture *fx) {
  size_t size;
  return lutmm_weights_serialize(NULL, fx->weights, NULL, 0, &size);
}
static lutmm_status serialize_null_weights(bad_fixture *fx) {
  size_t size;
  return lutmm_weights_serialize(fx->ctx, NULL, NULL, 0, &size);
}
static lutmm_status serialize_null_size(bad_fixture *fx) {
  return lutmm_weights_serialize(fx->ctx, fx->weights, fx->record, fx->record_size, NULL);
}

/* Too small a buffer: BUFFER_TOO_SMALL, and *size still tells the need. */
static lutmm_status serialize_short(bad_fixture *fx, size_t capacity) {
  size_t size = 0;
  const lutmm_status st = lutmm_weights_serialize(fx->ctx, fx->weights, fx->record, capacity, &size);
  return size == fx->record_size ? st : BAD_BROKEN_PROMISE;
}
static lutmm_status serialize_one_short(bad_fixture *fx) { return serialize_short(fx, fx->record_size - 1); }
static lutmm_status serialize_zero_capacity(bad_fixture *fx) { return serialize_short(fx, 0); }

/* Deserializes `size` bytes of the (possibly edited) record; *weights must
 * be set only on success. */
static lutmm_status load(bad_fixture *fx, size_t size) {
  lutmm_weights *sentinel = (lutmm_weights *)fx, *w = sentinel;
  const lutmm_status st = lutmm_weights_deserialize(fx->ctx, fx->record, size, &w);
  if (st == LUTMM_OK) lutmm_weights_destroy(w);
  return (st == LUTMM_OK) == (w != sentinel) ? st : BAD_BROKEN_PROMISE;
}

static lutmm_status load_u32(bad_fixture *fx, size_t offset, uint32_t v) {
  for (int i = 0; i < 4; i++) fx->record[offset + (size_t)i] = (uint8_t)(v >> (8 * i));
  bad_fix_checksum(fx->record, fx->record_size);
  return load(fx, fx->record_size);
}

static lutmm_status load_u64(bad_fixture *fx, size_t offset, uint64_t v) {
  for (int i = 0; i < 8; i++) fx->record[offset + (size_t)i] = (uint8_t)(v >> (8 * i));
  bad_fix_checksum(fx->record, fx->record_size);
  return load(fx, fx->record_size);
}

static lutmm_status de_null_ctx(bad_fixture *fx) {
  lutmm_weights *w;
  return lutmm_weights_deserialize(NULL, fx->record, fx->record_size, &w);
}
static lutmm_status de_null_buffer(bad_fixture *fx) {
  lutmm_weights *w;
  return lutmm_weights_deserialize(fx->ctx, NULL, fx->record_size, &w);
}
static lutmm_status de_null_out(bad_fixture *fx) {
  return lutmm_weights_deserialize(fx->ctx, fx->record, fx->record_size, NULL);
}
static lutmm_status de_intact(bad_fixture *fx) { return load(fx, fx->record_size); }
static lutmm_status de_size_0(bad_fixture *fx) { return load(fx, 0); }
static lutmm_status de_size_7(bad_fixture *fx) { return load(fx, 7); }
static lutmm_status de_header_only(bad_fixture *fx) { return load(fx, 64); }
static lutmm_status de_one_short(bad_fixture *fx) { return load(fx, fx->record_size - 1); }

static lutmm_status de_one_extra(bad_fixture *fx) {
  uint8_t *longer = realloc(fx->record, fx->record_size + 1);
  if (longer == NULL) return LUTMM_ERR_OUT_OF_MEMORY;
  fx->record = longer;
  fx->record[fx->record_size] = 0;
  return load(fx, fx->record_size + 1);
}

static lutmm_status de_checksum_flipped(bad_fixture *fx) {
  fx->record[fx->record_size - 1] ^= 1;
  return load(fx, fx->record_size);
}
static lutmm_status de_payload_flipped(bad_fixture *fx) {
  fx->record[fx->record_size / 2] ^= 0x10;
  return load(fx, fx->record_size);
}
static lutmm_status de_magic(bad_fixture *fx) {
  fx->record[0] = 'X';
  bad_fix_checksum(fx->record, fx->record_size);
  return load(fx, fx->record_size);
}
static lutmm_status de_version_2(bad_fixture *fx) { return load_u32(fx, 8, 2); }
static lutmm_status de_bits_0(bad_fixture *fx) { return load_u32(fx, 12, 0); }
static lutmm_status de_bits_9(bad_fixture *fx) { return load_u32(fx, 12, 9); }
static lutmm_status de_bits_3(bad_fixture *fx) { return load_u32(fx, 12, 3); }
static lutmm_status de_dtype_3(bad_fixture *fx) { return load_u32(fx, 16, 3); }
static lutmm_status de_reserved(bad_fixture *fx) { return load_u32(fx, 20, 1); }
static lutmm_status de_k_zero(bad_fixture *fx) { return load_u64(fx, 24, 0); }
static lutmm_status de_k_huge(bad_fixture *fx) { return load_u64(fx, 24, UINT64_MAX); }
static lutmm_status de_k_top_bit(bad_fixture *fx) { return load_u64(fx, 24, (uint64_t)1 << 63); }
/* N = 65 needs a second atom column: the sizes no longer agree. */
static lutmm_status de_n_next_atom(bad_fixture *fx) { return load_u64(fx, 32, 65); }
static lutmm_status de_n_huge(bad_fixture *fx) { return load_u64(fx, 32, (uint64_t)1 << 40); }
static lutmm_status de_group_8(bad_fixture *fx) { return load_u64(fx, 40, 8); }
static lutmm_status de_packed_bytes(bad_fixture *fx) { return load_u64(fx, 48, 1); }
static lutmm_status de_scale_bytes(bad_fixture *fx) { return load_u64(fx, 56, UINT64_MAX); }
static lutmm_status de_table_nan(bad_fixture *fx) { return load_u32(fx, 64 + 4 * 3, 0x7FC00000u); }
static lutmm_status de_table_descending(bad_fixture *fx) { return load_u32(fx, 64 + 4 * 1, 0x3F800000u); }

/* Offset of scale element i (padded layout) in the record. */
static size_t scale_offset(const bad_fixture *fx, size_t i) {
  lutmm_weights_info info;
  lutmm_weights_query(fx->weights, &info);
  return 64 + 4 * 16 + info.packed_bytes + 2 * i;
}
static lutmm_status de_scale_inf(bad_fixture *fx) {
  const size_t at = scale_offset(fx, 1);
  fx->record[at] = 0x00, fx->record[at + 1] = 0x7C;
  bad_fix_checksum(fx->record, fx->record_size);
  return load(fx, fx->record_size);
}
static lutmm_status de_padding_scale(bad_fixture *fx) {
  const size_t at = scale_offset(fx, BAD_N); /* row 0, first padding column */
  fx->record[at + 1] = 0x3C;
  bad_fix_checksum(fx->record, fx->record_size);
  return load(fx, fx->record_size);
}

static const bad_case kCases[] = {
    {"serialize_null_context", serialize_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"serialize_null_weights", serialize_null_weights, LUTMM_ERR_NULL_POINTER},
    {"serialize_null_size", serialize_null_size, LUTMM_ERR_NULL_POINTER},
    {"serialize_one_byte_short", serialize_one_short, LUTMM_ERR_BUFFER_TOO_SMALL},
    {"serialize_zero_capacity", serialize_zero_capacity, LUTMM_ERR_BUFFER_TOO_SMALL},
    {"deserialize_null_context", de_null_ctx, LUTMM_ERR_NULL_POINTER},
    {"deserialize_null_buffer", de_null_buffer, LUTMM_ERR_NULL_POINTER},
    {"deserialize_null_output", de_null_out, LUTMM_ERR_NULL_POINTER},
    {"deserialize_intact_record", de_intact, LUTMM_OK},
    {"deserialize_size_0", de_size_0, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_size_7", de_size_7, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_header_only", de_header_only, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_one_byte_short", de_one_short, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_one_byte_extra", de_one_extra, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_checksum_flipped", de_checksum_flipped, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_payload_flipped", de_payload_flipped, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_bad_magic", de_magic, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_version_2", de_version_2, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_bits_0", de_bits_0, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_bits_9", de_bits_9, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_bits_changed", de_bits_3, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_dtype_3", de_dtype_3, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_reserved_nonzero", de_reserved, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_k_zero", de_k_zero, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_k_uint64_max", de_k_huge, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_k_top_bit", de_k_top_bit, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_n_next_atom", de_n_next_atom, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_n_huge", de_n_huge, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_group_8", de_group_8, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_packed_bytes_wrong", de_packed_bytes, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_scale_bytes_wrong", de_scale_bytes, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_table_nan", de_table_nan, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_table_descending", de_table_descending, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_scale_inf", de_scale_inf, LUTMM_ERR_CORRUPT_DATA},
    {"deserialize_padding_scale_nonzero", de_padding_scale, LUTMM_ERR_CORRUPT_DATA},
};

const bad_area bad_serialize_area = {"serialize", kCases, sizeof kCases / sizeof kCases[0]};
