// A block-scaled MMA reads K / block scale factors per row of scale_A (and per column of
// B in scale_B) for its K = Table 39's: 1 for kind::mxf8f6f4 (.scale_vec::1X = .block32,
// K = 32), 2 for kind::mxf4 / mxf4nvf4 with .block32 (2X, K = 64), 4 for kind::mxf4nvf4
// with .block16 (4X, K = 64) (Table 54). A scale buffer !tcgen05.tmem<[rows, F], type>
// whose F is not a whole number of those groups does not match the MMA's block size
// (tcgen05_lower/isa/scale_tiles.py).
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// .block16: 4 factors per MMA; buffers of 2 factors per row.
func.func @block16_with_two_factors() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f4E2M1FN, "K", "64B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E4M3>
  // expected-error @+2 {{the scale_A buffer holds 2 scale factors per row, not a multiple of the 4 that kind::mxf4nvf4 with 4 scale factors per MMA of K = 64 (block 16) reads: the buffer's shape does not match the MMA's block size (Table 54; 9.7.16.10.7.2)}}
  // expected-error @+1 {{the scale_B buffer holds 2 scale factors per row, not a multiple of the 4}}
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s) {kind = "mxf4nvf4", scale_vec = "4X"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, !tcgen05.smem<[64, 128], f4E2M1FN, "K", "64B">, i1, !tcgen05.tmem<[128, 2], f8E4M3>, !tcgen05.tmem<[128, 2], f8E4M3>) -> ()
  return
}

// -----

// .block32 of kind::mxf4: 2 factors per MMA; scale_B of 3 factors per row (scale_A fits).
func.func @block32_with_three_factors() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f4E2M1FN, "K", "64B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %sa = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  %sb = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 3], f8E8M0FNU>
  // expected-error @+1 {{the scale_B buffer holds 3 scale factors per row, not a multiple of the 2 that kind::mxf4 with 2 scale factors per MMA of K = 64 (block 32) reads}}
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4", scale_vec = "block32"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, !tcgen05.smem<[64, 128], f4E2M1FN, "K", "64B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 3], f8E8M0FNU>) -> ()
  return
}

// -----

// kind::mxf4nvf4 with .block32 (2X): 2 factors per MMA, so 1 factor per row is half a group.
func.func @nvf4_block32_with_one_factor() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f4E2M1FN, "K", "64B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %sa = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 1], f8E8M0FNU>
  %sb = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], f8E8M0FNU>
  // expected-error @+1 {{the scale_A buffer holds 1 scale factor per row, not a multiple of the 2 that kind::mxf4nvf4 with 2 scale factors per MMA of K = 64 (block 32) reads}}
  "tcgen05.mma"(%d, %a, %b, %p, %sa, %sb) {kind = "mxf4nvf4", scale_vec = "2X"} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], f4E2M1FN, "K", "64B">, !tcgen05.smem<[64, 128], f4E2M1FN, "K", "64B">, i1, !tcgen05.tmem<[128, 1], f8E8M0FNU>, !tcgen05.tmem<[128, 2], f8E8M0FNU>) -> ()
  return
}

// -----

// Matching shapes are accepted: kind::mxf8f6f4 (1 per MMA) with 4 factors per row, the
// four K = 32 blocks of a 128-element tile, IDs 0..3 from k_offset.
func.func @mxf8_four_blocks() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %s = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 4], f8E8M0FNU>
  "tcgen05.mma"(%d, %a, %b, %p, %s, %s) {kind = "mxf8f6f4", scale_vec = "1X", k_offset = 96 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 128], f8E4M3FN, "K", "128B">, !tcgen05.smem<[64, 128], f8E4M3FN, "K", "128B">, i1, !tcgen05.tmem<[128, 4], f8E8M0FNU>, !tcgen05.tmem<[128, 4], f8E8M0FNU>) -> ()
  return
}
