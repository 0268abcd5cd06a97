// A K-contiguous fill (src_layout = "mn_k") reads global memory with 16-byte vector loads
// (ld.global.v4.b32), whose addresses must be 16-byte aligned: the row stride src_ld and
// a constant K offset must be whole multiples of 16 bytes. (A stride or K offset known
// only at run time is tested at run time by the lowering, with the source pointer: an
// unaligned one is copied element by element, tests/test_fill_alignment.py.)
// RUN: tcgen05-opt %s -p tcgen05-verify --split-input-file --verify-diagnostics

// The issue's input: examples/gemm_bf16_128x256.mlir with src_ld = 100 (bf16): rows are
// 200 bytes apart, so every odd row starts 8 bytes off a 16-byte boundary.
func.func @src_ld_100_bf16(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{src_ld = 100 bf16 elements is 200 bytes, not a multiple of the 16-byte vector loads of src_layout = "mn_k": every other row would start misaligned}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 100 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  return
}

// -----

// A constant K offset of 4 bf16 is 8 bytes.
func.func @k_offset_4_bf16(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c4 = arith.constant 4 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  // expected-error @+1 {{K offset 4 bf16 elements is 8 bytes, not a multiple of the 16-byte vector loads of src_layout = "mn_k"}}
  "tcgen05.smem_fill"(%A, %a, %c4) {src_layout = "mn_k", src_ld = 128 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  return
}

// -----

// Aligned: src_ld = 72 bf16 (144 bytes) and K offset 8 (16 bytes); a transposed fill
// (k_mn) loads one element at a time and needs no more than element alignment.
func.func @aligned(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c8 = arith.constant 8 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  "tcgen05.smem_fill"(%A, %a, %c8) {src_layout = "mn_k", src_ld = 72 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %a, %c8) {src_layout = "k_mn", src_ld = 100 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  return
}

// -----

// A K-contiguous fill copies 16-byte chunks along K: a K-major tile of 4 bf16 per row (8
// bytes) is narrower than one chunk.
func.func @rows_of_8_bytes(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 4], bf16, "K", "128B">
  // expected-error @+1 {{the tile's K extent of 4 bf16 elements is 8 bytes, not a multiple of the 16-byte chunks src_layout = "mn_k" copies}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[128, 4], bf16, "K", "128B">, index) -> ()
  return
}

// -----

// An MN-contiguous fill of an MN-major tile copies 16-byte chunks along M/N: 4 rows of
// bf16 are 8 bytes.
func.func @mn_extent_of_8_bytes(%A: !llvm.ptr<1>) attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[4, 64], bf16, "MN", "128B">
  // expected-error @+1 {{the tile's M/N extent of 4 bf16 elements is 8 bytes, not a multiple of the 16-byte chunks src_layout = "k_mn" copies}}
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "k_mn", src_ld = 64 : i64} : (!llvm.ptr<1>, !tcgen05.smem<[4, 64], bf16, "MN", "128B">, index) -> ()
  return
}
