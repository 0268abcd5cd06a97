// tcgen05.ld / tcgen05.st slices of a buffer that packs two 16-bit elements per 32-bit
// column (a [128, 64] bf16 A operand takes 32 TMEM columns, tmem-facts section 1, "A in
// TMEM"): elements c .. c + 31 of a row are columns c / 2 .. c / 2 + 15 of the buffer.
// Expected by hand: stores of elements 0-31 and 32-63 write columns [0, 16) and [16, 32),
// which share no cell, so the second needs no wait::st (9.7.16.6.4.2 orders accesses of
// the same cells); stores of elements 0-31 and 16-47 write [0, 16) and [8, 24), which
// share [8, 16): the second must wait. (The chained GEMM of tests/generator/kernelgen.py
// with P in a buffer of its own, strategy=handoffs: its chunked stores of P were refused
// as "writes TMEM columns [64, 96) ... missing tcgen05.wait::st" before verify-sync mapped
// a packed slice to its columns.)
// RUN: tcgen05-opt %s -p tcgen05-verify-sync --split-input-file --verify-diagnostics

!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 32], bf16>
func.func @disjoint_halves(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  %p = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !p
  %x = "tcgen05.load_fragment"(%A, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !f
  "tcgen05.st"(%p, %c0, %x) : (!p, index, !f) -> ()
  "tcgen05.st"(%p, %c32, %x) : (!p, index, !f) -> ()
  "tcgen05.wait"() {kind = "st"} : () -> ()
  return
}

// -----

!p = !tcgen05.tmem<[128, 64], bf16>
!f = !tcgen05.frag<[128, 32], bf16>
func.func @overlapping_slices(%A: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %base = "tcgen05.alloc"() {columns = 32 : i64, cta_group = 1 : i64} : () -> i32
  %p = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 32 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !p
  %x = "tcgen05.load_fragment"(%A, %c0) {ld = 64 : i64} : (!llvm.ptr<1>, index) -> !f
  "tcgen05.st"(%p, %c0, %x) : (!p, index, !f) -> ()
  // expected-error @below {{tcgen05.st writes TMEM columns [8, 24) that tcgen05.st at line 39:3 also writes, without ordering: missing tcgen05.wait::st (9.7.16.6.4.2)}}
  "tcgen05.st"(%p, %c16, %x) : (!p, index, !f) -> ()
  "tcgen05.wait"() {kind = "st"} : () -> ()
  return
}
