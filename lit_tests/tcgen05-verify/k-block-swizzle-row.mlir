// The K block an MMA reads from each row of a swizzled K-major tile must lie inside one
// swizzle row: the descriptor's start address selects the block, and with a swizzle the
// leading-dimension byte offset is unused for K-major layouts (9.7.16.3.1, 9.7.16.3.3), so
// nothing reaches the next swizzle atom along K. Dense MMAs read 32 bytes per row; a
// sparse MMA reads 64 bytes of B (and 32 of the compressed A); K = 96 reads 48 bytes.
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// Sparse f16 (K = 32): 32 bf16 of B are 64 bytes, a "32B" row holds 32. A, stored as
// K/2 = 16 bf16, is 32 bytes and fits.
func.func @sparse_f16_b_in_32b() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 32], bf16, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 32], bf16, "K", "32B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %m = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{B tile: the K = 32 block at k_offset = 0 reads bytes [0, 64) of each row, but a K-major "32B" row holds 32 bytes and the leading-dimension offset is unused with swizzling (9.7.16.3.1, 9.7.16.3.3): use a swizzle of at least 64 bytes}}
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "f16", sparse = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 32], bf16, "K", "32B">, !tcgen05.smem<[64, 32], bf16, "K", "32B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// Sparse kind::i8 (K = 64): 64 bytes of B per row, in a 32-byte swizzle row; the second
// K block (k_offset 64) starts at byte 64, which is byte 0 of a later swizzle row.
func.func @sparse_i8_b_in_32b() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 128], i8, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 128], i8, "K", "32B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], i32>
  %m = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{B tile: the K = 64 block at k_offset = 64 reads bytes [0, 64) of each row, but a K-major "32B" row holds 32 bytes}}
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "i8", sparse = true, k_offset = 64 : i64} : (!tcgen05.tmem<[128, 64], i32>, !tcgen05.smem<[128, 128], i8, "K", "32B">, !tcgen05.smem<[64, 128], i8, "K", "32B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// Sparse tf32 (K = 16): A stored as K/2 = 8 tf32 is 32 bytes and fits its "32B" row; B's
// 16 tf32 are 64 bytes and do not.
func.func @sparse_tf32_b_in_32b() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 16], tf32, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 16], tf32, "K", "32B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %m = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  // expected-error @+1 {{B tile: the K = 16 block at k_offset = 0 reads bytes [0, 64) of each row, but a K-major "32B" row holds 32 bytes}}
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "tf32", sparse = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 16], tf32, "K", "32B">, !tcgen05.smem<[64, 16], tf32, "K", "32B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// In a "64B" row the sparse f16 B block (64 bytes) fits, at either K block of a K = 64
// tile: no error.
func.func @sparse_f16_b_in_64b() attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %p = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "32B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[64, 64], bf16, "K", "64B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 64], f32>
  %m = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[128, 2], i32>
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "f16", sparse = true} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "32B">, !tcgen05.smem<[64, 64], bf16, "K", "64B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  "tcgen05.mma"(%d, %a, %b, %p, %m) {kind = "f16", sparse = true, k_offset = 32 : i64} : (!tcgen05.tmem<[128, 64], f32>, !tcgen05.smem<[128, 64], bf16, "K", "32B">, !tcgen05.smem<[64, 64], bf16, "K", "64B">, i1, !tcgen05.tmem<[128, 2], i32>) -> ()
  return
}

// -----

// A "64B" case that fails: K = 96 of 4-bit elements is 48 bytes; at k_offset 96 it is
// bytes [48, 96) of each row, across the 64-byte swizzle row of B.
func.func @k96_b_in_64b() attributes {tcgen05.kernel = {target = "sm_103a", threads = 128 : i64, cta_group = 2 : i64}} {
  %p = arith.constant true
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[32, 256], f4E2M1FN, "K", "64B">
  %d = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 64], f32>
  %x0 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 3], f8E8M0FNU>
  %x1 = "tcgen05.tmem_buffer"() : () -> !tcgen05.tmem<[256, 3], f8E8M0FNU>
  // expected-error @+1 {{B tile: the K = 96 block at byte 48 of each row crosses the 64-byte swizzle row}}
  "tcgen05.mma"(%d, %a, %b, %p, %x0, %x1) {kind = "mxf4", k = 96 : i64, k_offset = 96 : i64, scale_vec = "block32"} : (!tcgen05.tmem<[256, 64], f32>, !tcgen05.smem<[128, 256], f4E2M1FN, "K", "128B">, !tcgen05.smem<[32, 256], f4E2M1FN, "K", "64B">, i1, !tcgen05.tmem<[256, 3], f8E8M0FNU>, !tcgen05.tmem<[256, 3], f8E8M0FNU>) -> ()
  return
}
