// Accumulators chosen by control flow: swapped through scf.for iteration arguments, or
// chosen by an scf.if. Every expected op below is derived by hand from the rules table
// of tcgen05-insert-sync (PTX ISA 9.7.16.6.2 / 9.7.16.6.4), and tcgen05-verify-sync, an
// independent check, must accept each output.
// RUN: tcgen05-opt %s -p tcgen05-insert-sync --split-input-file | FileCheck %s
// RUN: tcgen05-opt %s -p tcgen05-insert-sync,tcgen05-verify-sync --split-input-file | FileCheck %s

// Ping-pong: the loop's first MMA writes %next, which is %acc1 in iteration 0, while the
// MMA before the loop writes %acc0: no dependence, so nothing is waited for before the
// loop. The load of %cur (%acc0 in iteration 0, then the previous iteration's
// accumulator) waits on the commit after the loop's MMA, which also covers the MMA
// before the loop (a commit tracks every earlier MMA of its thread, 9.7.16.6.2.1.1):
// commit i is the (i+1)-th, so the parity waited for is i & 1. The next iteration's MMA
// writes the accumulator this iteration's load reads: wait::ld -> fence::before ->
// barrier -> fence::after (9.7.16.6.4.4) at the top of the body.
// CHECK-LABEL: func.func @pingpong
// CHECK:      [[MB:%[0-9]+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK-NOT:  "tcgen05.alloc_mbarrier"
// CHECK:      "tcgen05.mma"
// CHECK-NEXT: scf.for [[I:%arg[0-9]+]] = %c0 to %c4 step %c1 iter_args([[CUR:%arg[0-9]+]] = %{{[0-9]+}}, [[NEXT:%arg[0-9]+]] = %{{[0-9]+}})
// CHECK-NEXT:   "tcgen05.wait"() {kind = "ld", reason = "completion of tcgen05.ld at line [[@LINE+34]] before tcgen05.mma at line [[@LINE+33]]: WAR on TMEM columns [0, 128) (next iteration)"}
// CHECK-NEXT:   "tcgen05.fence"() {kind = "before_thread_sync"
// CHECK-NEXT:   "tcgen05.barrier"()
// CHECK-NEXT:   "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT:   "tcgen05.mma"([[NEXT]],
// CHECK-NEXT:   "tcgen05.commit"([[MB]])
// CHECK-NEXT:   [[D:%[0-9]+]] = arith.subi [[I]], %c0
// CHECK-NEXT:   [[Q:%[0-9]+]] = arith.divui [[D]], %c1
// CHECK-NEXT:   [[ONE:%.+]] = arith.constant 1 : index
// CHECK-NEXT:   [[P:%[0-9]+]] = arith.andi [[Q]], [[ONE]]
// CHECK-NEXT:   [[P32:%[0-9]+]] = arith.index_cast [[P]] : index to i32
// CHECK-NEXT:   "tcgen05.mbarrier_wait"([[MB]], [[P32]])
// CHECK-NEXT:   "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT:   "tcgen05.ld"([[CUR]], %c0)
// CHECK-NOT:  "tcgen05.commit"
// CHECK:      return
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
!frag = !tcgen05.frag<[128, 64], f32>
func.func @pingpong(%C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %acc0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %acc1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  "tcgen05.mma"(%acc0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%cur = %acc0, %next = %acc1) -> (!acc, !acc) {
    "tcgen05.mma"(%next, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
    %x = "tcgen05.ld"(%cur, %c0) : (!acc, index) -> !frag
    "tcgen05.store_fragment"(%x, %C, %c0) {ld = 64 : i64} : (!frag, !llvm.ptr<1>, index) -> ()
    scf.yield %next, %cur : !acc, !acc
  }
  return
}

// -----

// An MMA on an accumulator chosen by an scf.if between %a0 (columns [0, 64)) and %a1
// (columns [32, 96)), after an MMA on %a0. If the branch chose %a1, the two are different
// accumulators that share columns [32, 64): not a pipelined pair (9.7.16.6.2 asks for
// the same accumulator), so commit -> mbarrier wait -> fence::after_thread_sync
// (9.7.16.6.4.2) orders them. The MMA is taken to read its accumulator as well as write
// it, so the dependence is named RAW, on the cells of either choice.
// CHECK-LABEL: func.func @overlapping_choice
// CHECK:      [[MB:%[0-9]+]] = "tcgen05.alloc_mbarrier"() {count = 1 : i64}
// CHECK:      [[S:%[0-9]+]] = scf.if
// CHECK:      "tcgen05.mma"(%{{[0-9]+}},
// CHECK-NEXT: "tcgen05.commit"([[MB]]) {reason = "completion of tcgen05.mma at line [[@LINE+23]] before tcgen05.mma at line [[@LINE+24]]: RAW on TMEM columns [0, 96)"}
// CHECK-NEXT: [[Z:%.+]] = arith.constant 0 : i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"([[MB]], [[Z]])
// CHECK-NEXT: "tcgen05.fence"() {kind = "after_thread_sync"
// CHECK-NEXT: "tcgen05.mma"([[S]],
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @overlapping_choice(%n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %a0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %a1 = "tcgen05.tmem_buffer"(%base) {column_offset = 32 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %p = arith.cmpi ne, %n, %c0 : index
  %s = scf.if %p -> (!acc) {
    scf.yield %a0 : !acc
  } else {
    scf.yield %a1 : !acc
  }
  "tcgen05.mma"(%a0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%s, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  return
}

// -----

// The same with %a1 at columns [64, 128): whichever buffer the branch chose, the second
// MMA is on the same accumulator as the first (a pipelined pair, 9.7.16.6.2) or on cells
// the first does not touch (no dependence). Nothing is inserted.
// CHECK-LABEL: func.func @disjoint_choice
// CHECK-NOT:  "tcgen05.alloc_mbarrier"
// CHECK:      "tcgen05.mma"
// CHECK-NEXT: "tcgen05.mma"
// CHECK-NEXT: return
!acc = !tcgen05.tmem<[128, 64], f32>
!ta = !tcgen05.smem<[128, 16], bf16, "K", "none">
!tb = !tcgen05.smem<[64, 16], bf16, "K", "none">
func.func @disjoint_choice(%n: index)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %base = "tcgen05.alloc"() {columns = 128 : i64, cta_group = 1 : i64} : () -> i32
  %a = "tcgen05.smem_buffer"() : () -> !ta
  %b = "tcgen05.smem_buffer"() : () -> !tb
  %a0 = "tcgen05.tmem_buffer"(%base) {column_offset = 0 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %a1 = "tcgen05.tmem_buffer"(%base) {column_offset = 64 : i64, columns = 64 : i64, half_lanes = false, lane_offset = 0 : i64, layout = "D"} : (i32) -> !acc
  %p = arith.cmpi ne, %n, %c0 : index
  %s = scf.if %p -> (!acc) {
    scf.yield %a0 : !acc
  } else {
    scf.yield %a1 : !acc
  }
  "tcgen05.mma"(%a0, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  "tcgen05.mma"(%s, %a, %b, %f) {kind = "f16"} : (!acc, !ta, !tb, i1) -> ()
  return
}
