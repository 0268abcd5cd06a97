// Scale-factor IDs follow k_offset (9.7.16.10.7.2, 9.7.16.10.7.3): K block j of the tiles
// uses scale factors j * count.. of each row (count per MMA from Table 54), which the ID
// selects within a 32-bit TMEM cell. A block whose factors lie past the cell's 4 bytes
// cannot be selected by an ID.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// kind::mxf8f6f4 with 1X: one factor per MMA of K = 32. A K = 256 tile has 8 blocks; the
// one at k_offset 128 would use factor 4, the first byte of the next column.
func.func @factor_past_the_cell() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f8E4M3FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 8], f8E8M0FNU>
  // expected-error @+1 {{the K block at k_offset = 128 (K = 32) uses scale factors 4..4 of each row, past the 4 bytes of a tensor-memory cell that a scale-factor ID can select: give the K blocks their own scale buffers, or scale_a_id and scale_b_id (9.7.16.10.7.2)}}
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 128 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f8E4M3FN, "K", "128B">, !tcgen05.smem<[64, 256], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 8], f8E8M0FNU>, !tcgen05.tmem<[128, 8], f8E8M0FNU>) -> ()
  return
}

// -----

// kind::mxf4nvf4 with 4X: four factors per MMA fill a cell, so only the first K block
// (k_offset 0) has an ID; the second (k_offset 64) would need the next columns.
func.func @four_factors_second_block() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E4M3>
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s) {kind = "mxf4nvf4", scale_vec = "4X"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.tmem<[128, 4], f8E4M3>) -> ()
  // expected-error @+1 {{the K block at k_offset = 64 (K = 64) uses scale factors 4..7 of each row, past the 4 bytes of a tensor-memory cell}}
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s) {kind = "mxf4nvf4", scale_vec = "4X", k_offset = 64 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[64, 256], f4E2M1FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E4M3>, !tcgen05.tmem<[128, 4], f8E4M3>) -> ()
  return
}
