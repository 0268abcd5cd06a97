// tcgen05-insert-sync{strategy=loads} (pipelined_loads.py) with a ring of one stage: its
// full and empty mbarriers are single mbarriers (synchronization/emitter.py allocates no
// `stages` for one), so the waits, expect_tx and commits name them directly; a
// tcgen05.mbarrier_stage of an mbarrier that is no ring, which tcgen05-verify-sync
// refused ("cannot tell which tcgen05.alloc_mbarrier this op's mbarrier is": the chained
// GEMM of tests/generator/kernelgen.py with ring = 1 and strategy=handoffs), is not
// written. Expected by hand from pipelined_loads.py's table: load role: wait on empty
// (parity (j / 1 + 1) & 1), expect_tx, the load, and the producer tail's wait after the
// loop; MMA role: wait on full (parity j & 1) before the MMA of use j, commit to empty
// after it (the MMAs read a Q tile that nothing fills: only the ring is planned here);
// 3 mbarriers (the hand-written MMA -> epilogue one and full, empty), all
// without stages; verify-sync accepts the protocol.
// RUN: tcgen05-opt %s -p 'tcgen05-verify,tcgen05-select-layouts,tcgen05-plan-tmem,tcgen05-insert-sync{strategy=loads report=true},tcgen05-verify-sync{report=true}' 2>&1 | FileCheck %s

// CHECK: tcgen05-insert-sync: kernel @one_stage strategy=loads added 5 ops (1 commit, 3 mbarrier_wait, 1 mbarrier_expect_tx), 2 mbarriers
// CHECK: tcgen05-verify-sync: kernel @one_stage: {{.*}}: ordered
// CHECK-NOT: tcgen05.mbarrier_stage
// CHECK-NOT: stages =

!ring = !tcgen05.smem<[1, 64, 64], bf16, "K", "128B">
!q = !tcgen05.smem<[128, 64], bf16, "K", "128B">
!kt = !tcgen05.smem<[64, 64], bf16, "K", "128B">
!acc = !tcgen05.tmem<[128, 64], f32>
func.func @one_stage(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>, %nb: index,
    %tmK: !llvm.ptr<1> {tcgen05.tensor_map = {tensor = "K", box = array<i64: 64, 64>,
                                              swizzle = "128B"}})
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 256 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %qt = "tcgen05.smem_buffer"() : () -> !q
  %k = "tcgen05.smem_buffer"() : () -> !ring
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !acc
  %done = "tcgen05.alloc_mbarrier"() {count = 1 : i64} : () -> !tcgen05.mbarrier
  "tcgen05.partitions"() ({
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c1 : index
        %key = arith.muli %j, %c64 : index
        %ks = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.tma_load"(%tmK, %ks, %c0, %key) : (!llvm.ptr<1>, !kt, index, index) -> ()
      }
      "gpu.yield"() : () -> ()
    }) {name = "load", first_warp = 0 : i64, warps = 1 : i64} : () -> ()
    "tcgen05.role"() ({
      scf.for %j = %c0 to %nb step %c1 {
        %s = arith.remui %j, %c1 : index
        %kj = "tcgen05.smem_stage"(%k, %s) : (!ring, index) -> !kt
        "tcgen05.mma"(%acc, %qt, %kj, %true) {kind = "f16"} : (!acc, !q, !kt, i1) -> ()
      }
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
