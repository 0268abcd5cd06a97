// tcgen05-insert-sync{strategy=loads} (tcgen05_lower/synchronization/pipelined_loads.py):
// a load role fills a tile once (Q) and, in iteration j of its loop, stage j mod 2 of a
// ring (use j); the MMA role reads use 0 before its loop, uses j and j + 1 in iteration j
// (to nb - 1), and use nb - 1 after it, so use j's first read is in iteration j - 1 (or
// before the loop) and its last in iteration j (or after the loop); the MMA -> epilogue
// handoff is written by hand. Expected, by hand from the module docstring's table: the
// load role waits on empty (parity (j / 2 + 1) & 1) and expects the 8192 bytes of the
// stage before its load, and the 16384 of Q on once_full before Q's; the MMA role waits
// on once_full (phase 0) and on full of use 0 before the first MMA, commits to empty
// after the read of use j in the loop, waits on full of use j + 1 before its read, and
// commits after the read after the loop; the producer tail waits on each stage the
// nb > s blocks reach. verify-sync accepts the whole protocol.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=loads report=true},tcgen05-verify-sync{report=true}' 2>&1 | FileCheck %s

// CHECK: tcgen05-insert-sync: kernel @pipelined strategy=loads added 10 ops (2 commit, 6 mbarrier_wait, 2 mbarrier_expect_tx), 3 mbarriers
// CHECK: tcgen05-verify-sync: kernel @pipelined: roles run concurrently, {{[0-9]+}} events run, {{[0-9]+}} pairs checked: ordered
// The load role.
// CHECK: "tcgen05.mbarrier_expect_tx"(%[[ONCE:[0-9]+]]) {bytes = 16384 : i64
// CHECK-NEXT: "tcgen05.tma_load"(%arg3, %{{[0-9]+}}, %[[ONCE]],
// CHECK: scf.for %[[J:arg[0-9]+]] = %c0 to %arg2 step %c1 {
// CHECK: %[[S:[0-9]+]] = arith.remui %[[J]], %c2_{{[0-9]+}} : index
// CHECK-NEXT: %[[R:[0-9]+]] = arith.divui %[[J]], %c2_{{[0-9]+}} : index
// CHECK-NEXT: %[[FULL:[0-9]+]] = "tcgen05.mbarrier_stage"(%[[FULLS:[0-9]+]], %[[S]])
// CHECK-NEXT: %[[EMPTY:[0-9]+]] = "tcgen05.mbarrier_stage"(%[[EMPTYS:[0-9]+]], %[[S]])
// CHECK-NEXT: %[[R1:[0-9]+]] = arith.addi %[[R]], %c1
// CHECK-NEXT: %[[A:[0-9]+]] = arith.andi %[[R1]], %c1
// CHECK-NEXT: %[[P:[0-9]+]] = arith.index_cast %[[A]] : index to i32
// CHECK-NEXT: "tcgen05.mbarrier_wait"(%[[EMPTY]], %[[P]]) {reason = "TMA refill
// CHECK-NEXT: "tcgen05.mbarrier_expect_tx"(%[[FULL]]) {bytes = 8192 : i64
// CHECK-NEXT: "tcgen05.tma_load"(%arg4, %{{[0-9]+}}, %[[FULL]],
// CHECK: "tcgen05.mbarrier_wait"({{.*}}) {reason = "producer tail: the last commit to empty stage 0
// CHECK: "tcgen05.mbarrier_wait"({{.*}}) {reason = "producer tail: the last commit to empty stage 1
// The MMA role.
// CHECK: "tcgen05.mbarrier_wait"(%[[ONCE]], %{{.*}}) {reason = "the MMAs of 'mma' read the tiles loaded once
// CHECK: "tcgen05.mbarrier_wait"({{.*}}) {reason = "the first MMA reading this use
// CHECK-NEXT: "tcgen05.mma"
// CHECK: scf.for
// CHECK: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.mbarrier_stage"(%[[EMPTYS]],
// CHECK-NEXT: "tcgen05.commit"({{.*}}) {reason = "the last MMA reading this use
// CHECK: "tcgen05.mbarrier_wait"({{.*}}) {reason = "the first MMA reading this use
// CHECK-NEXT: "tcgen05.mma"
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK: "tcgen05.mma"
// CHECK-NEXT: "tcgen05.mbarrier_stage"(%[[EMPTYS]],
// CHECK-NEXT: "tcgen05.commit"({{.*}}) {reason = "the last MMA reading this use
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!ring = !tcgen05.smem<[2, 64, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @pipelined(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmQ: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "Q", box = array<i64: 64, 128>,
                                              swizzle = "128B"}},
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %false = arith.constant false
  %q = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      "tcgen05.tma_load"(%tmQ, %q, %c0, %c0) : (!llvm.ptr<1>, !q, index, index) -> ()
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c2 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      %s0 = arith.remui %c0, %c2 : index
      %k0 = "tcgen05.smem_stage"(%k, %s0) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %k0, %false) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      %last = arith.subi %nb, %c1 : index
      scf.for %j = %c0 to %last step %c1 {
        %s = arith.remui %j, %c2 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
        %j1 = arith.addi %j, %c1 : index
        %s1 = arith.remui %j1, %c2 : index
        %kn = "tcgen05.smem_stage"(%k, %s1) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %q, %kn, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
      %se = arith.remui %last, %c2 : index
      %ke = "tcgen05.smem_stage"(%k, %se) : (!ring, index) -> !kt
      "tcgen05.mma"(%acc, %q, %ke, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      "tcgen05.commit"(%done) : (!tcgen05.mbarrier) -> ()
      "gpu.yield"() : () -> ()
    }) {name = "mma", first_warp = 1 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      "tcgen05.mbarrier_wait"(%done, %p0) : (!tcgen05.mbarrier, i32) -> ()
      "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
      %f = "tcgen05.ld"(%acc, %c0) : (!acc, index) -> !tcgen05.frag<[128, 64], f32>
      "tcgen05.store_fragment"(%f, %C, %c0) {ld = 64 : i64} : (!tcgen05.frag<[128, 64], f32>, !llvm.ptr<1>, index) -> ()
      "tcgen05.wait"() {kind = "ld"} : () -> ()
      "tcgen05.fence"() {kind = "before_thread_sync"} : () -> ()
      "gpu.yield"() : () -> ()
    }) {name = "epilogue", first_warp = 4 : i64, warps = 4 : i64} : () -> ()
    "gpu.yield"() : () -> ()
  }) : () -> ()
  "tcgen05.fence"() {kind = "after_thread_sync"} : () -> ()
  return
}
