// What tcgen05-insert-sync does not handle yet is a located error, not a wrong program.
// RUN: tcgen05-opt %s -p tcgen05-insert-sync --split-input-file --verify-diagnostics

// A producer and its consumer both inside an scf.if inside a loop: the commit would sit
// in the branch, and the mbarrier phase a later wait needs would depend on how often the
// branch ran.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @branch_in_loop(%C: !llvm.ptr<1>, %n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  scf.for %i = %c0 to %c4 step %c1 {
    %p = arith.cmpi ne, %i, %n : index
    scf.if %p {
      "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
      // expected-error @below {{the completion this op waits for would be committed inside an scf.if inside a loop, where the mbarrier phase cannot be tracked: not supported yet by tcgen05-insert-sync}}
      %x = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !frag
      "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    }
  }
  return
}

// -----

// scf.while around asynchronous tcgen05 ops.
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @while_loop(%n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 64 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  // expected-error @below {{'scf.while' around tcgen05 operations is not supported yet by tcgen05-insert-sync}}
  scf.while : () -> () {
    %p = arith.cmpi ne, %n, %c0 : index
    scf.condition(%p)
  } do {
    "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    scf.yield
  }
  return
}
